#!/usr/bin/env bash
# Accuracy of the component anomaly detectors (docs/anomaly.md) against
# beacon-sim's ground truth, over many seeded cluster histories.
#
# N histories (default 20) of a small cluster (as
# tests/integration/anomaly_truth.sh: 64 compute nodes, 8 forwarding
# nodes, 4 OSS x 2 OSTs, 1 MDT, 4 leaf switches; 20 s ticks), HOURS
# simulated hours each (default 3) after a 30-minute warm-up. Even
# histories (h00, h02, ...) get one injection of each kind, odd ones none
# (clean); the load (jobs_per_hour 8-30, job_nodes_max 8-32) and every
# injection's component, magnitude, start and duration are drawn from the
# history's seed by bench/detect_accuracy.py (plan):
#   slow_ost, slow_fwd  factor 0.1-0.5, 20-90 minutes
#   hot_switch          factor 2-10, 10-40 minutes
#   md_storm            6,300-63,000 requests/s, 5-30 minutes
#   n1_flood            4-8 nodes x 200-800 MiB/s, 10-30 minutes
#                       (found as `interference` accusing the flood's job)
#   cache_thrash        factor 2.5-20, 10-40 minutes
# (the long-running rule of slow_ost and slow_fwd wants 60 minutes under
# 30% of the peak: shorter or milder slowdowns are meant to be missed by
# it; slow_fwd also has the service-time rule, 10 minutes).
#
# Each history: its own beacon-logsrv (embedded SQLite store, Redis prefix
# of its own) loaded by beacon-sim's scale mode at the fast pace, its own
# database in one private MariaDB, then detect_history (below) and
# `beacon anomalies --json`. bench/detect_accuracy.py (score) matches the
# anomalies with the truth and prints one JSON object per line:
#   {"bench":"detect_accuracy","kind":K,"recall":R,"precision":P,
#    "histories":H,"injections":N,"found":F,"mean_overlap":O,...}
#   {"bench":"detect_accuracy","clean_histories":C,"clean_false_alarms":X,
#    "clean_other_anomalies":Y,...}
#   {"bench":"detect_accuracy","timing":...}
# recall = injections found / injections of the kind; precision =
# anomalies of the kind explained by an injection / anomalies of the kind
# (injected histories only); mean_overlap = the part of a found
# injection's window its anomalies cover, averaged. On the clean
# histories clean_false_alarms counts slow_ost and slow_fwd anomalies,
# clean_other_anomalies all others.
#
# usage: bench/detect_accuracy.sh [--build DIR] [-n N] [--results DIR]
#            [--parallel P] [--hours H] [--seed S]
#   --build DIR    build directory (default $BCN_BUILD, else build/release)
#   -n N           histories (default 20; even N: half clean)
#   --results DIR  keep the per-history details there (default a new
#                  directory under ${TMPDIR:-/var/tmp}, printed on stderr):
#                  hNN/{sim.conf,plan.json,truth.jsonl,sacct.txt,
#                  anomalies.json,analyzd.log,detect.out,meta.json},
#                  details.jsonl (each injection: found, overlap, the jobs
#                  on its component, what the detectors saw instead; each
#                  anomaly no injection explains), summary.jsonl
#   --parallel P   histories at once (default 2, at most 3: 2 cores)
#   --hours H      simulated hours per history after the warm-up (default 3)
#   --seed S       seed of history 0 (history i: S + i; default 1)
#   --keep-stores  keep each history's record store in hNN/store (under
#                  1 MB each; `beacon query` with store_dir there)
# Cost on the 2-core build machine (2 histories at once): a history loads
# in 25-60 s (40 s on average: about 65,000 records), its detection takes
# 1-4 s; 20 histories in about 8 minutes.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BCN_BUILD:-$SRC/build/release}
N=20 RESULTS= PAR=2 HOURS=3 SEED=1 KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=${2:?--build DIR}; shift 2 ;;
	-n|--histories) N=${2:?-n N}; shift 2 ;;
	--results) RESULTS=${2:?--results DIR}; shift 2 ;;
	--parallel) PAR=${2:?--parallel P}; shift 2 ;;
	--hours) HOURS=${2:?--hours H}; shift 2 ;;
	--seed) SEED=${2:?--seed S}; shift 2 ;;
	--keep-stores) KEEP=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "detect_accuracy.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done
[[ $N =~ ^[0-9]+$ && $N -ge 1 ]] || { echo "-n: a positive number" >&2; exit 2; }
[[ $PAR =~ ^[1-3]$ ]] || { echo "--parallel: 1 to 3 (2 cores)" >&2; exit 2; }
[[ $HOURS =~ ^[0-9]+$ && $HOURS -ge 1 ]] || { echo "--hours: whole hours, at least 1" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
LOGSRV=$BUILD/logsrv/beacon-logsrv SIM=$BUILD/sim/beacon-sim
BEACON=$BUILD/cli/beacon ANALYZD=$BUILD/analysis/beacon-analyzd
for b in "$LOGSRV" "$SIM" "$BEACON" "$ANALYZD"; do
	[ -x "$b" ] || { echo "detect_accuracy.sh: no $b (build first)" >&2; exit 2; }
done
PY=$SRC/bench/detect_accuracy.py
TICK=20 WARMUP=90                       # seconds; ticks (30 minutes)
TICKS=$((HOURS * 3600 / TICK))

# shellcheck source=tests/lib/servers.sh
source "$SRC/tests/lib/servers.sh"
export PATH=$PATH:/usr/sbin
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-detect.XXXXXX")
if [ -z "$RESULTS" ]; then
	RESULTS=$(mktemp -d "${TMPDIR:-/var/tmp}/detect_accuracy.XXXXXX")
fi
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
echo "detect_accuracy: results in $RESULTS" >&2

# processes the histories started (in subshells): stopped at exit
stop_children() {
	local f p
	for f in "$T"/*.pid; do
		[ -f "$f" ] || continue
		p=$(cat "$f")
		kill -0 "$p" 2>/dev/null && kill -TERM "$p" 2>/dev/null
	done
	return 0
}
trap 'st=$?; stop_children; bcn_cleanup > /dev/null || true; rm -rf "$T"; exit $st' EXIT
trap 'exit 130' INT TERM

python3 "$PY" self-test > "$T/selftest.out" || { cat "$T/selftest.out" >&2; exit 1; }
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port MP
bcn_start_redis "$T/redis" "$RP" > /dev/null || { echo "redis did not start" >&2; exit 1; }
bcn_start_mariadb "$T/db" "$MP" > /dev/null || { echo "mariadb did not start" >&2; exit 1; }
for i in $(seq 0 $((N - 1))); do
	db=$(printf h%02d "$i")
	bcn_mariadb "$T/db" -e "CREATE DATABASE $db; GRANT ALL ON $db.* TO 'beacon'@'127.0.0.1';"
done

now() { date +%s.%N; }
secs() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$1" "$2"; }

# detect_history CONF SACCT FIRST LAST OUTDIR: runs the component detectors
# over the loaded history [FIRST, LAST] (epoch seconds) into CONF's job
# database, as beacon-analyzd does.
detect_history() {
	local conf=$1 sacct=$2 first=$3 last=$4 out=$5
	# --once imports the jobs, computes their reports, then catches up:
	# every complete interval since the job database's watermark, in time
	# order (docs/anomaly.md, "Catch-up"); the history's last interval is
	# complete by then, so nothing else is needed
	"$ANALYZD" --config "$conf" --once --sacct-command "cat $sacct" \
		> "$out/analyzd.log" 2>&1 || return 1
	: "$first" "$last"
	grep -h "anomaly detection:" "$out/analyzd.log" > "$out/detect.out" || true
}

# run_history I: plans, loads and analyses history I into $RESULTS/hII.
run_history() {
	local i=$1 name seed inject res w lp lpid t0 t1 t2 epoch first last q
	name=$(printf h%02d "$i") seed=$((SEED + i))
	inject=no; [ $((i % 2)) = 0 ] && inject=yes
	res=$RESULTS/$name w=$T/$name
	rm -rf "$res"; mkdir -p "$res" "$w"
	meta() { # status
		python3 - "$res/meta.json" "$1" <<-PY
		import json, sys
		json.dump({"name": "$name", "seed": $seed, "inject": "$inject" == "yes",
		           "status": sys.argv[2], "epoch": ${epoch:-0}, "first": ${first:-0},
		           "end": ${last:-0}, "hours": $HOURS, "tick": $TICK, "warmup_ticks": $WARMUP,
		           "compute": 64, "forwarding": 8, "switches": 4,
		           "load_s": ${load_s:-None}, "detect_s": ${detect_s:-None}},
		          open(sys.argv[1], "w"))
		PY
	}
	local load_s= detect_s=
	# the history ends on a 10-minute boundary at least 5 minutes before
	# the loading ends (about a minute), so that catch-up finds every
	# interval of it complete (detect_interval 10m, detect_settle 2m)
	last=$(( ($(date +%s) - 240) / 600 * 600 ))
	epoch=$((last - TICKS * TICK - WARMUP * TICK))
	first=$((epoch + WARMUP * TICK))
	meta running
	bcn_alloc_port lp
	cat > "$w/logsrv.conf" <<-EOF
	listen = 127.0.0.1:$lp
	name = logsrv
	auth_key_file = $T/key
	redis_port = $RP
	redis_prefix = $name
	store_backend = sqlite
	store_dir = $w/store
	flush_idle = 20ms
	record_max_age = 0
	EOF
	"$LOGSRV" --config "$w/logsrv.conf" >> "$w/logsrv.log" 2>&1 &
	lpid=$!; echo "$lpid" > "$T/$name.logsrv.pid"
	bcn_wait_port "$lp" "$lpid" 2>> "$res/error" || { meta "logsrv did not listen"; return 1; }
	{ cat <<-EOF
	compute = 64
	forwarding = 8
	oss = 4
	osts_per_oss = 2
	mds = 1
	switches = 4
	tick = ${TICK}s
	ost_bw = 400M
	fwd_bw = 1G
	stripe_count = 4
	seed = $seed
	out = $w/sim
	scale = yes
	server = 127.0.0.1:$lp
	key_file = $T/key
	epoch = $epoch
	warmup = $WARMUP
	ticks = $TICKS
	truth = $res/truth.jsonl
	EOF
	python3 "$PY" plan --seed "$seed" --inject "$inject" --hours "$HOURS" \
		--warmup-ticks "$WARMUP" --tick "$TICK" --json "$res/plan.json"
	} > "$res/sim.conf"
	t0=$(now)
	"$SIM" --config "$res/sim.conf" > "$res/sim.jsonl" 2> "$w/sim.log" &
	echo $! > "$T/$name.sim.pid"
	wait "$!" || { tail -3 "$w/sim.log" >> "$res/error"; meta "beacon-sim failed"; return 1; }
	for _ in $(seq 1 1200); do
		q=$(bcn_redis "$RP" LLEN "$name:queue")
		[ "$q" = 0 ] && break
		sleep 0.05
	done
	[ "$q" = 0 ] || { meta "the log server's queue did not drain"; return 1; }
	sleep 1
	t1=$(now); load_s=$(secs "$t0" "$t1")
	cp "$w/sim/slurm/sacct.txt" "$res/sacct.txt"
	{ sed "s/^jobdb_database = .*/jobdb_database = $name/" "$T/db/jobdb.conf"; cat <<-EOF
	store_dir = $w/store
	settle = 0
	live_interval = 0
	anomaly_lookback = 3h
	EOF
	} > "$w/analyzd.conf"
	"$BEACON" import-map --config "$w/analyzd.conf" "$w/sim/slurm/fwdmap.txt" > "$w/map.out" 2>&1 ||
		{ cat "$w/map.out" >> "$res/error"; meta "import-map failed"; return 1; }
	detect_history "$w/analyzd.conf" "$res/sacct.txt" "$first" "$((last + 60))" "$res" ||
		{ tail -3 "$res/analyzd.log" "$res/detect.out" >> "$res/error"; meta "detection failed"; return 1; }
	"$BEACON" anomalies --config "$w/analyzd.conf" --json > "$res/anomalies.json" 2>> "$res/error" ||
		{ meta "beacon anomalies failed"; return 1; }
	t2=$(now); detect_s=$(secs "$t1" "$t2")
	bcn_stop "$lpid" 2>> "$res/error" || true
	cp "$w/logsrv.log" "$res/logsrv.log"
	[ "$KEEP" = 1 ] && mv "$w/store" "$res/store"
	rm -rf "$w"
	meta ok
	echo "detect_accuracy: $name ($inject injection, seed $seed) loaded in ${load_s} s, detected in ${detect_s} s" >&2
}

start=$(now)
running=0
for i in $(seq 0 $((N - 1))); do
	if [ "$running" -ge "$PAR" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	( run_history "$i" ) &
	echo $! > "$T/run$i.pid"
	running=$((running + 1))
	sleep 2                              # the ports and histories apart
done
while [ "$running" -gt 0 ]; do wait -n || true; running=$((running - 1)); done
wall=$(secs "$start" "$(now)")
python3 "$PY" score "$RESULTS" --wall "$wall"
failed=$(grep -L '"status": "ok"' "$RESULTS"/h*/meta.json | wc -l)
if [ "$failed" -gt 0 ]; then
	echo "detect_accuracy: $failed histories failed (see $RESULTS/h*/error)" >&2
	exit 1
fi
