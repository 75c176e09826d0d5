#!/usr/bin/env bash
# Compute-node tracing benchmark (issue 4): fio workloads (Debian's fio, a
# real program) with and without libbeacon_trace.so, beacon-clientd
# receiving. One JSON object per line:
#  - "overhead": per workload, the median over RUNS alternating runs of
#    fio's own figure (bandwidth, or files per second for the metadata
#    workload), untraced against traced, as a slowdown in percent (target
#    0.5%; the paper's 0.09% to 0.86%);
#  - "compression": per workload, operations per record shipped with the
#    tracer's strided runs and with the paper's contiguous-only merge
#    (BEACON_TRACE_MODE=contig) on the same workload;
#  - "daemon": beacon-clientd's CPU time over the traced runs as a share of
#    one core, per workload, and its peak resident memory (targets 0.05%
#    and 4 MB; the paper's 0.0% to 0.1% and 5 to 10 MB).
# usage: bench/tracer_bench.sh BUILD_DIR [RUNS] [SECONDS]
set -euo pipefail
BUILD=${1:?usage: tracer_bench.sh BUILD_DIR [RUNS] [SECONDS]}
RUNS=${2:-5}
SECS=${3:-2}
CLIENTD=$BUILD/collectors/client/beacon-clientd
BEACON=$BUILD/cli/beacon
TRACE=$BUILD/lib/libbeacon_trace.so
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-tracer-bench.XXXXXX")
SOCK="@beacon-bench-$$"
pid=
trap '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null; rm -rf "$T"' EXIT
command -v fio >/dev/null || { echo "fio missing: deploy/install-deps" >&2; exit 1; }

"$CLIENTD" --node cn0001 --output "$T/out.bin" --tracer-socket "$SOCK" \
	--stats-file "$T/stats.json" 2> "$T/log" &
pid=$!
sleep 0.5

# name|fio options|figure (bw or iops)
WORKLOADS=(
	"seqwrite-1m|--rw=write --bs=1M --ioengine=psync --size=256M|bw"
	"seqread-128k|--rw=read --bs=128k --ioengine=psync --size=256M|bw"
	"randread-4k|--rw=randread --bs=4k --ioengine=psync --size=64M|bw"
	"randwrite-4k-sync|--rw=randwrite --bs=4k --ioengine=sync --size=64M|bw"
	"mixed-64k-2jobs|--rw=randrw --bs=64k --ioengine=pvsync --size=64M --numjobs=2|bw"
	"metadata-filecreate|--ioengine=filecreate --nrfiles=4000 --filesize=4k --openfiles=1 --size=16M --create_on_open=1|iops"
)

cpu_of() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
figure() { # json, bw|iops
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
k = 'bw_bytes' if sys.argv[2] == 'bw' else 'iops'
print(sum(j[op][k] for j in d['jobs'] for op in ('read', 'write')))" "$1" "$2"
}
# run NAME OPTS TRACED(0/1) JOB MODE -> prints the figure
run() {
	local name=$1 opts=$2 traced=$3 job=$4 mode=$5 fig=$6 d=$T/data/$1
	mkdir -p "$d"
	# shellcheck disable=SC2086
	if [ "$traced" = 1 ]; then
		SLURM_JOB_ID=$job BEACON_TRACE_SOCKET=$SOCK \
		BEACON_TRACE_MODE=$mode LD_PRELOAD=$TRACE \
		fio --name="$name" --directory="$d" $opts --time_based \
			--runtime="$SECS" --output-format=json \
			--output="$T/r.json" > /dev/null
	else
		fio --name="$name" --directory="$d" $opts --time_based \
			--runtime="$SECS" --output-format=json \
			--output="$T/r.json" > /dev/null
	fi
	figure "$T/r.json" "$fig"
}

job=1000
for w in "${WORKLOADS[@]}"; do
	IFS='|' read -r name opts fig <<< "$w"
	mkdir -p "$T/data/$name"
	fio --name="$name" --directory="$T/data/$name" $opts --create_only=1 \
		> /dev/null 2>&1 || true
	plain=() traced=()
	cpu0=$(cpu_of) tt=0
	for i in $(seq 1 "$RUNS"); do
		plain+=("$(run "$name" "$opts" 0 0 strided "$fig")")
		job=$((job + 1))
		s=$(date +%s%N)
		traced+=("$(run "$name" "$opts" 1 $job strided "$fig")")
		tt=$((tt + $(date +%s%N) - s))
	done
	cpu1=$(cpu_of)
	cjob=$((job + 500))
	run "$name" "$opts" 1 $cjob contig "$fig" > /dev/null
	python3 - "$name" "$fig" "$job" "$cjob" "$((cpu1 - cpu0))" "$tt" \
		"$(getconf CLK_TCK)" "${plain[*]}" "${traced[*]}" <<'PY'
import json, statistics, sys
name, fig, sjob, cjob, ticks, tt, hz, plain, traced = sys.argv[1:]
p = [float(x) for x in plain.split()]
t = [float(x) for x in traced.split()]
mp, mt = statistics.median(p), statistics.median(t)
print(json.dumps({"bench": "tracer", "metric": "overhead", "workload": name,
                  "figure": fig, "untraced_median": mp, "traced_median": mt,
                  "runs": len(p), "slowdown_pct": round((mp - mt) / mp * 100, 3),
                  "target_pct": 0.5, "paper_pct": [0.09, 0.86]}))
print(json.dumps({"bench": "tracer", "metric": "daemon_cpu", "workload": name,
                  "cpu_share_pct": round(int(ticks) / int(hz) / (int(tt) / 1e9) * 100, 3),
                  "target_pct": 0.05, "paper_pct": [0.0, 0.1]}))
PY
	echo "$name $((job - RUNS + 1)) $cjob" >> "$T/jobs"
done

# the tracer's own cost per call: 500,000 sequential 512-byte writes
# (compressible: nearly no records), wall time traced against untraced
python3 - "$TRACE" "$SOCK" "$T/dd.out" "$RUNS" <<'PY'
import json, os, statistics, subprocess, sys, time
trace, sock, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
n = 500000
cmd = ["dd", "if=/dev/zero", "of=" + out, "bs=512", "count=%d" % n]
env = dict(os.environ, BEACON_TRACE_SOCKET=sock, LD_PRELOAD=trace)
def once(e):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=e, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0
plain, traced = [], []
for _ in range(max(runs, 5)):
    plain.append(once(os.environ))
    traced.append(once(env))
mp, mt = statistics.median(plain), statistics.median(traced)
print(json.dumps({"bench": "tracer", "metric": "cost_per_call",
                  "calls": n, "untraced_ns_per_call": round(mp / n * 1e9, 1),
                  "traced_ns_per_call": round(mt / n * 1e9, 1),
                  "added_ns_per_call": round((mt - mp) / n * 1e9, 1)}))
PY

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
python3 - "$T/records.jsonl" "$T/jobs" "$T/data" <<'PY'
import json, sys
# per job: records and operations, all of them and those on fio's data
# files (below DATA; startup reads of /proc, /sys and libraries excluded)
recs, ops, drecs, dops, paths = {}, {}, {}, {}, {}
rows = [json.loads(line) for line in open(sys.argv[1])]
for r in rows:
    if r["op"] == "open" and r["path"]:
        paths[(r["job"], r["file"])] = r["path"]
for r in rows:
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
