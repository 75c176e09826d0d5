#!/usr/bin/env bash
# The embedded store before and after record blocks on the scale
# benchmark's workload (issue 19; bench/store_bench.c): beacon-sim in scale
# mode (docs/sim.md) plays every collector of a TaihuLight-shaped cluster
# of NODES compute nodes at fast pace (SECONDS of history, after a warm-up
# that fills the machine with jobs) into one beacon-logsrv over Redis;
# store_bench then writes the records it stored into a schema 2 and a
# schema 3 store and compares sizes, append rates and query times, one
# JSON object per line.
# usage: bench/store_bench.sh BUILD_DIR [NODES [SECONDS]]
# BCN_STORE_BENCH_SOURCE=DIR keeps the source store in DIR, and a later run
# with the same DIR (and sizes) reuses it instead of simulating again.
set -euo pipefail
BUILD=${1:?usage: store_bench.sh BUILD_DIR [NODES [SECONDS]]}
N=${2:-1024}
SECS=${3:-1800}
WARMUP=${BCN_SCALE_WARMUP:-1800}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/lib/servers.sh"
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-storebench.XXXXXX")
trap 'bcn_cleanup; rm -rf "$T"' EXIT
ceil_div() { echo $(( ($1 + $2 - 1) / $2 )); }
KEEP=${BCN_STORE_BENCH_SOURCE:-}
if [ -n "$KEEP" ] && [ -d "$KEEP" ]; then
	"$BUILD/bench/store_bench" "$KEEP" "$T/out" "$N" "$SECS"
	exit
fi
F=$(ceil_div $((N * 288)) 40960); O=$F
M=$(( N >= 8192 ? 2 : 1 ))
S=$(ceil_div $((N * 5984)) 40960)
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port LP
bcn_start_redis "$T/redis" "$RP" > /dev/null
cat > "$T/logsrv.conf" <<EOF
listen = 127.0.0.1:$LP
name = logsrv0
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn0
store_backend = sqlite
store_dir = $T/source
store_retention = 36500d
max_preauth_per_peer = 4096
log_level = warning
EOF
"$BUILD/logsrv/beacon-logsrv" --config "$T/logsrv.conf" > "$T/logsrv.log" 2>&1 &
LPID=$!; BCN_PIDS+=("$LPID")
bcn_wait_port "$LP" "$LPID"
EPOCH=$(( $(date +%s) - 2 * 86400 ))
cat > "$T/sim.conf" <<EOF
out = $T/sim
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
server = 127.0.0.1:$LP
key_file = $T/key
switch_every = 10
warmup = $WARMUP
ticks = $SECS
epoch = $EPOCH
EOF
"$BUILD/sim/beacon-sim" --config "$T/sim.conf" > "$T/sim.jsonl" 2> "$T/sim.log" || {
	tail "$T/sim.log" "$T/logsrv.log" >&2; exit 1; }
for _ in $(seq 1 3000); do
	[ "$(redis-cli -p "$RP" LLEN bcn0:queue)" = 0 ] && break
	sleep 0.2
done
kill -TERM "$LPID"; wait "$LPID" 2>/dev/null || true
if [ -n "$KEEP" ]; then mkdir -p "$KEEP"; cp -r "$T/source/." "$KEEP/"; fi
"$BUILD/bench/store_bench" "$T/source" "$T/out" "$N" "$SECS"
