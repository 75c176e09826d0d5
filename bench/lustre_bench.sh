#!/usr/bin/env bash
# beacon-ostd / beacon-mdsd footprint benchmark on synthetic trees the size
# of a large server, built by bench/lustre_tree.py from the formats of the
# real fixtures (tests/data/lustre):
#  - beacon-ostd: 12 OSTs, 10,000 job_stats entries in all (Lustre 2.15
#    and 2.10 formats), brw_stats on each OST;
#  - beacon-mdsd: one MDT with 4,000 client exports (2.15 and 2.10).
# Three kinds of run per tree:
#  - "full": every sample reads everything (job_stats_interval and
#    exports_interval 0). The tree exists in two variants whose counters
#    differ for every job and export, and ROOT is a symbolic link flipped
#    between them before each sample (the daemon runs with a long interval
#    and is sent SIGUSR1 per sample), so every job/export yields a record;
#  - "targets": job_stats or exports off: what a sample between two reads
#    of them costs;
#  - "default": the shipped configuration (a 1 s interval; job_stats and
#    exports read every sample unless their measured CPU cost would pass
#    read_budget_us = 300 us per second, which stretches their period) in
#    real time for LONG samples, with idle_records on so that each read
#    emits a record per job/export (all of them active: the worst case).
# CPU per sample is the sampling thread's CPU time measured by the
# collector loop (sample + framing + writing to /dev/null), averaged over
# the samples (the first one, which only learns the totals, included);
# memory is VmRSS/VmHWM at exit, with the anonymous and file-backed (shared
# libraries) parts. One JSON object per line, with the targets: 1 ms CPU
# per sample (0.1% of a core at 1 Hz) and 4 MB resident.
# usage: bench/lustre_bench.sh BUILD_DIR [SAMPLES [LONG]]
set -euo pipefail
BUILD=${1:?usage: lustre_bench.sh BUILD_DIR [SAMPLES [LONG]]}
SAMPLES=${2:-20}
LONG=${3:-120}
SRC=$(cd "$(dirname "$0")/.." && pwd)
GEN=$SRC/bench/lustre_tree.py
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-lustre-bench.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# tree NAME ROLE GENERATOR-ARGS...: both variants, ROOT -> v0
tree() {
	local d=$T/$1 role=$2
	shift 2
	rm -rf "$d"
	mkdir -p "$d"
	python3 "$GEN" "$role" "$d/v0" --variant 0 "$@"
	python3 "$GEN" "$role" "$d/v1" --variant 1 "$@"
	ln -s v0 "$d/root"
}

# report TREE-DIR NAME DAEMON MODE DESCRIPTION
report() {
	python3 - "$1/stats.json" "$2" "$3" "$4" "$5" "$1/log" <<'PY'
import json, re, sys
st = json.loads(open(sys.argv[1]).read())
name, daemon, mode, desc = sys.argv[2:6]
period = re.findall(r"reading them every (\d+) ms", open(sys.argv[6]).read())
cpu = st["sample_cpu_us_mean"] / 1000.0
modes = {
    "full": "every sample reads all job_stats/exports; all change",
    "targets": "job_stats/exports off: a sample between their reads",
    "default": "shipped settings in real time: 1 s samples, job_stats/"
               "exports period stretched for read_budget_us = 300, a "
               "record per job/export at each read",
}
out = {
    "bench": name, "program": daemon.split("/")[-1], "tree": desc,
    "mode": mode, "what": modes[mode], "samples": st["samples"],
    "records": st["records"],
    "cpu_ms_per_sample": round(cpu, 3),
    "cpu_ms_per_sample_max": round(st["sample_cpu_us_max"] / 1000.0, 3),
    "target_cpu_ms_per_sample": 1.0,
    "core_pct_at_1hz": round(cpu / 10.0, 4),
    "target_core_pct_at_1hz": 0.1,
    "vmrss_kb": st["VmRSS_kb"], "vmhwm_kb": st["VmHWM_kb"],
    "rss_anon_kb": st.get("RssAnon_kb"), "rss_file_kb": st.get("RssFile_kb"),
    "target_rss_kb": 4096,
    "skipped_lines": st["skipped_lines"], "file_errors": st["file_errors"],
}
if mode == "default":
    out["detail_period_s"] = int(period[-1]) / 1000.0 if period else 1.0
out["meets_cpu"] = out["cpu_ms_per_sample"] < out["target_cpu_ms_per_sample"]
out["meets_rss"] = out["vmhwm_kb"] < out["target_rss_kb"]
print(json.dumps(out))
PY
}

# stepped NAME DAEMON FLIP DESC TREE-DIR OPTIONS...: SAMPLES samples, each
# requested with SIGUSR1 (after flipping ROOT when FLIP is yes)
stepped() {
	local name=$1 daemon=$2 flip=$3 mode=$4 desc=$5 d=$6
	shift 6
	rm -f "$d/log" "$d/stats.json"
	"$BUILD/collectors/$daemon" --root "$d/root" --node bench \
		--interval 1h --count "$SAMPLES" --output /dev/null \
		--stats-file "$d/stats.json" --log-level info "$@" 2> "$d/log" &
	pid=$!
	local k v=0
	for k in $(seq 1 "$SAMPLES"); do
		for _ in $(seq 6000); do
			grep -q "sample $k done" "$d/log" && break
			kill -0 "$pid" 2>/dev/null || { cat "$d/log" >&2; exit 1; }
			sleep 0.01
		done
		[ "$k" -eq "$SAMPLES" ] && break
		if [ "$flip" = yes ]; then
			v=$((1 - v))
			ln -sfn "v$v" "$d/root.new"
			mv -T "$d/root.new" "$d/root"
		fi
		kill -USR1 "$pid"
	done
	wait "$pid"
	pid=
	report "$d" "$name" "$daemon" "$mode" "$desc"
}

# timed NAME DAEMON DESC TREE-DIR: the shipped settings, 1 s samples,
# LONG of them
timed() {
	local name=$1 daemon=$2 desc=$3 d=$4
	rm -f "$d/log" "$d/stats.json"
	"$BUILD/collectors/$daemon" --root "$d/root" --node bench \
		--interval 1s --count "$LONG" --output /dev/null --idle-records \
		--stats-file "$d/stats.json" --log-level info 2> "$d/log"
	report "$d" "$name" "$daemon" default "$desc"
}

FULL="--job-stats-interval 0 --exports-interval 0 --read-budget-us 0"
D="12 OSTs, 10000 job_stats entries, Lustre 2.15 format"
tree o215 ost --osts 12 --jobs 10000 --format 2.15
stepped ostd_215_full ost/beacon-ostd yes full "$D" "$T/o215" $FULL
stepped ostd_215_targets ost/beacon-ostd no targets "$D" "$T/o215" --no-job-stats
timed ostd_215_default ost/beacon-ostd "$D" "$T/o215"
rm -rf "$T/o215"
D="12 OSTs, 10000 job_stats entries, Lustre 2.10 format"
tree o210 ost --osts 12 --jobs 10000 --format 2.10
stepped ostd_210_full ost/beacon-ostd yes full "$D" "$T/o210" $FULL
timed ostd_210_default ost/beacon-ostd "$D" "$T/o210"
rm -rf "$T/o210"
D="1 MDT, 4000 client exports, Lustre 2.15 format"
tree m215 mds --mdts 1 --exports 4000 --format 2.15
stepped mdsd_215_full mds/beacon-mdsd yes full "$D" "$T/m215" $FULL
stepped mdsd_215_targets mds/beacon-mdsd no targets "$D" "$T/m215" --no-exports
timed mdsd_215_default mds/beacon-mdsd "$D" "$T/m215"
rm -rf "$T/m215"
D="1 MDT, 4000 client exports, Lustre 2.10 format"
tree m210 mds --mdts 1 --exports 4000 --format 2.10
stepped mdsd_210_full mds/beacon-mdsd yes full "$D" "$T/m210" $FULL
timed mdsd_210_default mds/beacon-mdsd "$D" "$T/m210"
