#!/usr/bin/env bash
# The whole ingest pipeline at cluster scale (issue 6, docs/sim.md "Scale
# run"): beacon-sim in scale mode plays every collector of a simulated
# TaihuLight-shaped cluster (compute nodes, forwarding nodes, OSS with 3
# OSTs, MDS, InfiniBand switches; the shares of TaihuLight's 40,960 /
# 288 / 288 / 2 / 5,984), one authenticated connection each, in real time
# (one tick per second), into sharded beacon-logsrv over one durable Redis
# (AOF, fsync always) and the embedded SQLite store. For each size it
# prints one JSON object per line: per log server the records and frames
# per second it took in, the ingest lag from a sample's end to its
# appearance in the store (median, p99, max), the Redis backlog, and CPU
# and memory of every daemon, and the bytes stored per node per day.
#
# usage: bench/scale_bench.sh BUILD_DIR [SECONDS [SIZES...]]
#   SECONDS  simulated (= wall) seconds measured per size, default 3600
#   SIZES    compute nodes, default 1024 10240 40960
# Environment: BCN_SCALE_SWITCH_EVERY (switch sampling period in ticks,
# default 10), BCN_SCALE_WARMUP (ticks simulated before sending, so that
# the cluster is busy from the first second; default 1800),
# BCN_SCALE_ANALYZD=1: beacon-analyzd follows the run (a private MariaDB,
# the simulator's sacct polled every 10 s, every log server's store read,
# live reports every 60 s) and one more line gives its CPU and memory.
set -euo pipefail
BUILD=${1:?usage: scale_bench.sh BUILD_DIR [SECONDS [SIZES...]]}
SECS=${2:-3600}
shift $(( $# > 2 ? 2 : $# ))
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1024 10240 40960)
SW_EVERY=${BCN_SCALE_SWITCH_EVERY:-10}
WARMUP=${BCN_SCALE_WARMUP:-1800}
PER_PROC=15000          # connections per process: under a 20,000 fd limit
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/lib/servers.sh"
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-scale.XXXXXX")
trap 'bcn_cleanup; [ -n "${BCN_SCALE_KEEP:-}" ] || rm -rf "$T"' EXIT
SIM=$BUILD/sim/beacon-sim
LOGSRV=$BUILD/logsrv/beacon-logsrv
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"

# CPU seconds (user + system) and peak resident kB of PID.
cpu_of() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
hwm_of() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
ceil_div() { echo $(( ($1 + $2 - 1) / $2 )); }

run_size() {
	local N=$1 D="$T/n$1" F O M S C L P k
	F=$(ceil_div $((N * 288)) 40960); O=$F
	M=$(( N >= 8192 ? 2 : 1 ))
	S=$(ceil_div $((N * 5984)) 40960)
	C=$((N + F + O + M + S))
	L=$(ceil_div "$C" "$PER_PROC"); P=$L
	mkdir -p "$D"
	local RP; bcn_alloc_port RP
	bcn_start_redis "$D/redis" "$RP"
	local ports=() lpids=() spids=()
	: > "$D/shards"
	for ((k = 0; k < L; k++)); do
		local port; bcn_alloc_port port; ports+=("$port")
		cat > "$D/logsrv$k.conf" <<EOF
listen = 127.0.0.1:$port
name = logsrv$k
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn$k
store_backend = sqlite
store_dir = $D/store$k
stats_interval = 2s
# every simulated node connects from 127.0.0.1: the per-address cap of
# connections in the handshake (meant for one address per real node)
# would refuse the simulator's 256 parallel dials
max_preauth_per_peer = 4096
log_level = notice
EOF
		"$LOGSRV" --config "$D/logsrv$k.conf" > "$D/logsrv$k.log" 2>&1 &
		lpids+=("$!"); BCN_PIDS+=("$!")
		# contiguous node groups per log server, as a site would shard
		printf 'shard cn[%05d-%05d],fwd[%03d-%03d],oss[%03d-%03d],sw[%02d-%02d] primary=127.0.0.1:%s\n' \
			$((k * N / L + 1)) $(((k + 1) * N / L)) \
			$((k * F / L + 1)) $(((k + 1) * F / L)) \
			$((k * O / L + 1)) $(((k + 1) * O / L)) \
			$((k * S / L + 1)) $(((k + 1) * S / L)) "$port" >> "$D/shards"
	done
	echo "default primary=127.0.0.1:${ports[0]}" >> "$D/shards"
	for ((k = 0; k < L; k++)); do bcn_wait_port "${ports[$k]}" "${lpids[$k]}"; done
	cat > "$D/sim.conf" <<EOF
out = $D/sim
compute = $N
forwarding = $F
oss = $O
osts_per_oss = 3
mds = $M
switches = $S
tick = 1s
seed = 42
jobs_per_hour = 200
job_nodes_max = $(( N / 20 ))
fwd_bw = 2G
ost_bw = 1G
scale = yes
shardmap = $D/shards
key_file = $T/key
switch_every = $SW_EVERY
warmup = $WARMUP
ticks = $SECS
EOF
	local t_sim0 apid=""; t_sim0=$(date +%s.%N)
	for ((k = 0; k < P; k++)); do
		"$SIM" --config "$D/sim.conf" --part "$k/$P" > "$D/sim$k.jsonl" 2> "$D/sim$k.log" &
		spids+=("$!"); BCN_PIDS+=("$!")
	done
	# measured period: from every part connected to every part done
	for ((k = 0; k < P; k++)); do
		until grep -q '"sim":"connected"' "$D/sim$k.jsonl" 2>/dev/null; do
			kill -0 "${spids[$k]}" 2>/dev/null || { tail "$D/sim$k.log" >&2; return 1; }
			sleep 0.2
		done
	done
	[ -n "${BCN_SCALE_ANALYZD:-}" ] && { start_analyzd "$D" "$L"; apid=$ANALYZD_PID; }
	local t0 t1; t0=$(date +%s.%N)
	local cpu0=() p acpu0=0
	[ -n "$apid" ] && acpu0=$(cpu_of "$apid")
	for p in "$REDIS_PID" "${lpids[@]}" "${spids[@]}"; do cpu0+=("$(cpu_of "$p")"); done
	for ((k = 0; k < L; k++)); do redis-cli -p "$RP" HGETALL "bcn$k:stats" > "$D/stats0.$k"; done
	: > "$D/backlog"
	while :; do
		local alive=0
		for p in "${spids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		line=""
		for ((k = 0; k < L; k++)); do line+="$(redis-cli -p "$RP" LLEN "bcn$k:queue") "; done
		echo "$line" >> "$D/backlog"
		if [ $alive = 1 ]; then
			for p in "${spids[@]}" $apid; do [ -e "/proc/$p" ] && cpu_of "$p" > "$D/cpu.$p" && hwm_of "$p" > "$D/hwm.$p"; done
		else
			break
		fi
		sleep 2
	done
	t1=$(date +%s.%N)
	[ -n "$apid" ] && report_analyzd "$D" "$N" "$apid" "$acpu0" "$t0" "$t1"
	# drain, then the log servers' final statistics
	local t_drain0; t_drain0=$(date +%s.%N)
	for ((k = 0; k < L; k++)); do
		for _ in $(seq 1 3000); do
			[ "$(redis-cli -p "$RP" LLEN "bcn$k:queue")" = 0 ] && break
			sleep 0.2
		done
	done
	local drain; drain=$(python3 -c "import time; print(round(time.time() - $t_drain0, 1))")
	local cpu1=() hwm=()
	for p in "$REDIS_PID" "${lpids[@]}"; do cpu1+=("$(cpu_of "$p")"); hwm+=("$(hwm_of "$p")"); done
	for p in "${spids[@]}"; do cpu1+=("$(cat "$D/cpu.$p")"); hwm+=("$(cat "$D/hwm.$p")"); done
	for p in "${lpids[@]}"; do kill -TERM "$p"; wait "$p" 2>/dev/null || true; done
	for ((k = 0; k < L; k++)); do redis-cli -p "$RP" HGETALL "bcn$k:stats" > "$D/stats1.$k"; done
	bcn_stop "$REDIS_PID"
	du -sb "$D"/store* | awk '{ s += $1 } END { print s }' > "$D/stored"
	python3 "$SRC/bench/scale_report.py" "$D" "$N" "$C" "$L" "$P" "$t0" "$t1" "$drain" \
		"${cpu0[*]}" "${cpu1[*]}" "${hwm[*]}" "$SECS" "$SW_EVERY" "$t_sim0"
	[ -n "${BCN_SCALE_KEEP:-}" ] || rm -rf "$D"
}

# beacon-analyzd over the run of $1 with $2 log servers' stores; sets
# ANALYZD_PID.
start_analyzd() {
	local D=$1 L=$2 MP k
	export PATH=$PATH:/usr/sbin
	bcn_alloc_port MP
	bcn_start_mariadb "$D/db" "$MP" > /dev/null
	{ cat "$D/db/jobdb.conf"
	  echo "store_dir = $D/store0"
	  for ((k = 1; k < L; k++)); do echo "analysis_store_dir = $D/store$k"; done
	  echo "sacct_command = cat $D/sim/slurm/sacct.txt"
	  echo "sacct_interval = 10s"
	  echo "settle = 30s"
	  echo "live_interval = 60s"
	  echo "log_level = notice"
	} > "$D/analyzd.conf"
	until [ -f "$D/sim/slurm/fwdmap.txt" ]; do sleep 0.5; done
	"$BUILD/cli/beacon" import-map --config "$D/analyzd.conf" "$D/sim/slurm/fwdmap.txt" > /dev/null
	"$BUILD/analysis/beacon-analyzd" --config "$D/analyzd.conf" > "$D/analyzd.log" 2>&1 &
	ANALYZD_PID=$!; BCN_PIDS+=("$ANALYZD_PID")
}

# One line: beacon-analyzd's CPU share and peak memory over the measured
# period, and what it did.
report_analyzd() {
	local D=$1 N=$2 p=$3 c0=$4 t0=$5 t1=$6 c1 hwm
	c1=$(cpu_of "$p"); hwm=$(hwm_of "$p")
	kill -TERM "$p"; wait "$p" 2>/dev/null || true
	python3 - "$D/analyzd.log" "$N" "$c0" "$c1" "$hwm" "$t0" "$t1" <<'PYEOF'
import json, re, sys
log, n, c0, c1, hwm, t0, t1 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
m = re.search(r"(\d+) reports, (\d+) live, (\d+) failed, (\d+) partial; (\d+) jobs imported",
              open(log).read())
d = dict(zip(("reports", "live_reports", "failed", "partial", "jobs_imported"),
             map(int, m.groups()))) if m else {"error": "no totals in the log"}
print(json.dumps(dict({"bench": "analyzd_follow", "nodes": n, "seconds": round(t1 - t0, 1),
                       "cpu_share": round((c1 - c0) / (t1 - t0), 4), "vmhwm_kb": int(hwm)}, **d)))
PYEOF
}

for N in "${SIZES[@]}"; do
	run_size "$N"
done
