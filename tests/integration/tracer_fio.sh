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
CLIENTD=$BCN_BUILD/collectors/client/beacon-clientd
BEACON=$BCN_BUILD/cli/beacon
TRACE=$BCN_BUILD/lib/libbeacon_trace.so
CHECK=$BCN_SRC/tests/integration/tracer_fio_check.py
T=$(mktemp -d)
SOCK="@beacon-test-fio-$$"
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/log" ] && tail -n 20 "$T/log" >&2; exit 1; }
command -v fio >/dev/null || fail "fio is not installed (run deploy/install-deps)"

"$CLIENTD" --node cn0001 --output "$T/out.bin" --tracer-socket "$SOCK" \
	--interval 500ms 2> "$T/log" &
pid=$!
for i in $(seq 1 100); do
	grep -q 'notice: started' "$T/log" && break
	kill -0 "$pid" 2>/dev/null || fail "beacon-clientd did not start"
	sleep 0.05
done

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
run 103 randread --rw=randread --bs=4k --ioengine=psync --numjobs=2 --thread
run 104 randwrite --rw=randwrite --bs=16k --ioengine=sync --numjobs=1
run 105 mixed --rw=randrw --rwmixread=70 --bs=64k --ioengine=pvsync --numjobs=2

kill -TERM "$pid"
wait "$pid" || fail "beacon-clientd exit status"
pid=
grep -q ' 0 operations dropped by tracers' "$T/log" ||
	fail "operations were dropped: $(grep 'tracer:' "$T/log")"
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "beacon decode"
/usr/bin/python3 "$CHECK" "$T/records.jsonl" 0.01 "${specs[@]}" ||
	fail "beacon's figures differ from fio's by more than 1%"
echo "tracer_fio: ok"
