#!/usr/bin/env bash
# Compute-node tracing benchmark (issue 4): fio workloads (Debian's fio, a
# real program) with and without libbeacon_trace.so, beacon-clientd
# receiving. One JSON object per line:
#  - "overhead": per workload, the median over RUNS runs each way (ABBA
#    order) of fio's own figure (bandwidth, or files per second for the
#    metadata workload), untraced against traced, as a slowdown in percent
#    (target 0.5%; the paper's 0.09% to 0.86%), and fio's CPU time per I/O
#    each way (bench/tracer_bench.py);
#  - "compression": per workload, operations per record shipped with the
#    tracer's strided runs and with the paper's contiguous-only merge
#    (BEACON_TRACE_MODE=contig) on the same workload;
#  - "daemon": beacon-clientd's CPU time over the traced runs as a share of
#    one core, per workload, and its peak resident memory (targets 0.05%
#    and 4 MB; the paper's 0.0% to 0.1% and 5 to 10 MB);
#  - "cost_per_call": the tracer's CPU cost per call (dd, 512-byte writes);
#  - "open_close": ns the tracer adds per open+close pair of a cached
#    file, absolute and relative paths, measured inside one process
#    (tracer_loop_bench openclose-ab: traced blocks of the C library's
#    calls against untraced syscall(2) blocks; Darshan DXT: +539 ns wall,
#    issue 18);
#  - "daemon_ns_per_op": beacon-clientd's CPU time per traced 4 KiB random
#    pread from the page cache (uncompressible records, two preads per
#    record), from its CPU-time clock (target: under 100 ns per record);
#  - "daemon_at_rate": the same while fio reads 4 KiB at random paced at
#    10,000 operations a second, and the share of a core that makes
#    (issue 18's target: under 0.1%).
# With TRACER_BENCH_BEFORE=OTHER_BUILD_DIR (say, main built elsewhere) the
# last two run for that build's tracer and daemon too, interleaved with
# this build's in the same run ("variant": "before" and "after").
# TRACER_BENCH_PARTS: "fio calls" (default), "fio" or "calls".
# TRACER_BENCH_CODEC: the daemons' --frame-codec (by default each
# daemon's own default: auto since frame_codec auto came; columnar: the
# column transform's cost per record).
# TRACER_BENCH_ARGS: more arguments for this build's daemon (not the
# "before" one's), e.g. "--frame-zstd-level -5".
# Data go to /dev/shm when it exists (tmpfs: the fastest I/O, the tracer's
# worst case, and no writeback noise).
# usage: [TRACER_BENCH_BEFORE=DIR] [TRACER_BENCH_PARTS=...] \
#        bench/tracer_bench.sh BUILD_DIR [RUNS] [SECONDS]
set -euo pipefail
PARTS=${TRACER_BENCH_PARTS:-fio calls}
BEFORE=${TRACER_BENCH_BEFORE:-}
CODEC=()
[ -n "${TRACER_BENCH_CODEC:-}" ] && CODEC=(--frame-codec "$TRACER_BENCH_CODEC")
read -r -a EXTRA <<< "${TRACER_BENCH_ARGS:-}"
BUILD=${1:?usage: tracer_bench.sh BUILD_DIR [RUNS] [SECONDS]}
RUNS=${2:-5}
SECS=${3:-2}
CLIENTD=$BUILD/collectors/client/beacon-clientd
BEACON=$BUILD/cli/beacon
TRACE=$BUILD/lib/libbeacon_trace.so
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-tracer-bench.XXXXXX")
SOCK="@beacon-bench-$$"
pid=
bpid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	[ -n "$bpid" ] && kill -KILL "$bpid" 2>/dev/null
	rm -rf "$T" ${DATA:+"$DATA"}
}
trap cleanup EXIT
command -v fio >/dev/null || { echo "fio missing: deploy/install-deps" >&2; exit 1; }

"$CLIENTD" --node cn0001 --output "$T/out.bin" --tracer-socket "$SOCK" \
	--stats-file "$T/stats.json" ${CODEC[@]+"${CODEC[@]}"} ${EXTRA[@]+"${EXTRA[@]}"} \
	2> "$T/log" &
pid=$!
sleep 0.5

# data on tmpfs when there is one: the disk's writeback would drown the
# tracer's cost in noise (and tmpfs is the worst case: the fastest I/O)
DATA=$T/data
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	DATA=$(mktemp -d /dev/shm/bcn-tracer-bench.XXXXXX)
fi
mkdir -p "$DATA"
if [[ " $PARTS " == *" calls "* ]]; then
	LOOP=$BUILD/bench/tracer_loop_bench
	variants=("after:$TRACE:$SOCK:$pid")
	if [ -n "$BEFORE" ]; then
		"$BEFORE/collectors/client/beacon-clientd" --node cn0001 \
			--output "$T/before.bin" --tracer-socket "$SOCK-before" \
			${CODEC[@]+"${CODEC[@]}"} 2> "$T/before.log" &
		bpid=$!
		sleep 0.5
		variants+=("before:$BEFORE/lib/libbeacon_trace.so:$SOCK-before:$bpid")
	fi
	python3 "$(dirname "$0")/tracer_bench.py" --calls "$LOOP" "$DATA" \
		"$RUNS" "${variants[@]}"
	if [ -n "$bpid" ]; then
		kill -TERM "$bpid"
		wait "$bpid" || true
		bpid=
	fi
fi
if [[ " $PARTS " != *" fio "* ]]; then
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
	exit 0
fi
python3 "$(dirname "$0")/tracer_bench.py" "$TRACE" "$SOCK" "$pid" "$DATA" \
	"$T/jobs" "$RUNS" "$SECS"

kill -TERM "$pid"
wait "$pid" || true
pid=
python3 - "$T/stats.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).readline())
print(json.dumps({"bench": "tracer", "metric": "daemon_memory",
                  "VmHWM_kb": s.get("VmHWM_kb"), "RssAnon_kb": s.get("RssAnon_kb"),
                  "target_kb": 4096, "paper_kb": [5120, 10240]}))
PY
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl"
python3 - "$T/records.jsonl" "$T/jobs" "$DATA" <<'PY'
import json, sys
# per job: records and operations, all of them and those on fio's data
# files (below DATA; startup reads of /proc, /sys and libraries excluded)
# (two passes over the file: it holds millions of records)
recs, ops, drecs, dops, paths = {}, {}, {}, {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        if '"op":"open"' in line:
            r = json.loads(line)
            if r["path"]:
                paths[(r["job"], r["file"])] = r["path"]
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        j = r["job"]
        recs[j] = recs.get(j, 0) + 1
        ops[j] = ops.get(j, 0) + r["count"]
        if paths.get((j, r["file"]), "").startswith(sys.argv[3] + "/"):
            drecs[j] = drecs.get(j, 0) + 1
            dops[j] = dops.get(j, 0) + r["count"]
ratio = lambda o, r, j: round(o.get(j, 0) / max(r.get(j, 1), 1), 2)
for line in open(sys.argv[2]):
    name, sjob, cjob = line.split()
    sjob, cjob = int(sjob), int(cjob)
    print(json.dumps({"bench": "tracer", "metric": "compression",
                      "workload": name, "ops": ops.get(sjob, 0),
                      "records": recs.get(sjob, 0),
                      "ratio_strided": ratio(ops, recs, sjob),
                      "ratio_paper_contig": ratio(ops, recs, cjob),
                      "data_ops": dops.get(sjob, 0),
                      "data_ratio_strided": ratio(dops, drecs, sjob),
                      "data_ratio_paper_contig": ratio(dops, drecs, cjob),
                      "paper_range": [5.4, 34.6]}))
PY
grep 'tracer:' "$T/log" | sed 's/.*notice: //' | python3 -c "
import json, sys; print(json.dumps({'bench': 'tracer', 'metric': 'daemon_totals', 'log': sys.stdin.read().strip()}))"
