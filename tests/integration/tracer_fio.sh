#!/usr/bin/env bash
# The tracer against fio's own accounting: fio (Debian's package, a real
# dynamically linked program) runs under LD_PRELOAD=libbeacon_trace.so with
# sequential and random reads and writes, several block sizes, the psync,
# sync (lseek+read/write) and pvsync (preadv/pwritev) engines, forked jobs
# and thread jobs; beacon-clientd writes the frames to a file. From the
# compressed records, the bytes, operations and bandwidth of every fio job
# must agree with fio's JSON report within 1%, and no operation may have
# been dropped on the way.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"
CHECK=$BCN_SRC/tests/integration/tracer_fio_check.py
command -v fio >/dev/null || fail "fio is not installed (run deploy/install-deps)"

bcn_clientd_start --node cn0001 --interval 500ms

# job id, name, fio options
specs=()
run() {
	local job=$1 name=$2
	shift 2
	mkdir -p "$T/$name"
	# fio lays out the files of read jobs before it starts its clock:
	# do that untraced, so that every traced write is one fio counts
	fio --name="$name" --directory="$T/$name" --size=32M --create_only=1 \
		"$@" > /dev/null || fail "fio $name layout"
	SLURM_JOB_ID=$job SLURM_STEP_ID=0 BEACON_TRACE_SOCKET=$SOCK \
	LD_PRELOAD=$TRACE fio --name="$name" --directory="$T/$name" \
		--size=32M --time_based --runtime=2 --output-format=json \
		--output="$T/$name.json" "$@" > /dev/null ||
		fail "fio $name"
	specs+=("$job:$T/$name.json:$T/$name:$name")
}
run 101 seqwrite --rw=write --bs=1M --ioengine=psync --numjobs=2
run 102 seqread --rw=read --bs=256k --ioengine=sync --numjobs=2
# random I/O makes a record per operation or two: capped at a rate that a
# daemon built with the sanitizers keeps up with on a loaded machine
run 103 randread --rw=randread --bs=4k --ioengine=psync --numjobs=2 --thread \
	--rate_iops=8000
run 104 randwrite --rw=randwrite --bs=16k --ioengine=sync --numjobs=1 \
	--rate_iops=8000
run 105 mixed --rw=randrw --rwmixread=70 --bs=64k --ioengine=pvsync \
	--numjobs=2 --rate_iops=4000

bcn_clientd_stop
grep -q ' 0 operations dropped by tracers' "$T/log" ||
	fail "operations were dropped: $(grep 'tracer:' "$T/log")"
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "beacon decode"
/usr/bin/python3 "$CHECK" "$T/records.jsonl" 0.01 "${specs[@]}" ||
	fail "beacon's figures differ from fio's by more than 1%"
echo "tracer_fio: ok"
