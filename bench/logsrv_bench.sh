#!/usr/bin/env bash
# Log server ingest benchmark: one beacon-logsrv on this machine, many
# concurrent authenticated senders (CONNS connections, default 2048), into
# a durable Redis (AOF, fsync always); the same frames pushed straight into
# Redis with pipelining as the ceiling; then the flusher draining the Redis
# queue into the record store (SQLite, and OpenSearch when
# BCN_BENCH_OPENSEARCH_URL is set). One JSON object per line.
# usage: bench/logsrv_bench.sh BUILD_DIR [CONNS [FRAMES_PER_CONN [RECORDS_PER_FRAME]]]
set -euo pipefail
BUILD=${1:?usage: logsrv_bench.sh BUILD_DIR [CONNS [FRAMES [RECORDS]]]}
CONNS=${2:-2048}
FRAMES=${3:-10}
RECORDS=${4:-50}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/lib/servers.sh"
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-bench.XXXXXX")
trap 'bcn_cleanup; rm -rf "$T"' EXIT
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"

# 1. ceiling: Redis alone, same frames and script, pipelined
bcn_alloc_port RP
bcn_start_redis "$T/redis-ceiling" "$RP"
"$BUILD/bench/ingest_bench" ceiling "$RP" "$CONNS" "$FRAMES" "$RECORDS" | tee "$T/ceiling.json"
bcn_stop "$REDIS_PID"

# 2. the log server (flusher off, so only ingest is measured)
bcn_alloc_port RP; bcn_alloc_port LP
bcn_start_redis "$T/redis" "$RP"
# ingest_bench dates its records in 2023: no window of record times
"$BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LP" --auth-key-file "$T/key" \
	--redis-port "$RP" --no-flusher --record-max-age 0 --log-level warning > "$T/logsrv.log" 2>&1 &
LPID=$!
BCN_PIDS+=("$LPID")
bcn_wait_port "$LP" "$LPID"
"$BUILD/bench/ingest_bench" logsrv "127.0.0.1:$LP" "$T/key" "$CONNS" "$FRAMES" "$RECORDS" | tee "$T/logsrv.json"
bcn_stop "$LPID"

python3 - "$T/ceiling.json" "$T/logsrv.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); l = json.load(open(sys.argv[2]))
print(json.dumps({"bench": "ingest", "metric": "logsrv_fraction_of_redis_ceiling",
                  "value": round(l["frames_per_s"] / c["frames_per_s"], 3)}))
print(json.dumps({"bench": "ingest", "metric": "taihulight_nodes_one_server_absorbs",
                  "value": int(l["frames_per_s"]),
                  "reference": 40960,
                  "note": "one frame (batch) per node per second"}))
PY

# 3. flusher: drain the queue the log server filled into the store
drain() { # label, extra logsrv args...
	local label=$1; shift
	local n0 t0 t1 LP2
	n0=$(bcn_redis "$RP" LLEN bcn:queue)
	bcn_alloc_port LP2
	t0=$(date +%s.%N)
	"$BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LP2" --auth-key-file "$T/key" \
		--redis-port "$RP" --flush-idle 5ms --store-retention 36500d --log-level warning "$@" >> "$T/logsrv.log" 2>&1 &
	local pid=$!
	BCN_PIDS+=("$pid")
	while [ "$(bcn_redis "$RP" LLEN bcn:queue)" != 0 ]; do sleep 0.05; done
	t1=$(date +%s.%N)
	bcn_stop "$pid"
	python3 -c "
import json, sys
n, dt = $n0, $t1 - $t0
print(json.dumps({'bench': 'flush', 'store': '$label', 'frames': n, 'records': n * $RECORDS,
                  'seconds': round(dt, 3), 'records_per_s': round(n * $RECORDS / dt)}))"
}
# keep a copy of the queue so that each backend drains the same frames
bcn_redis "$RP" COPY bcn:queue bcn:queue-copy > /dev/null
drain sqlite --store-dir "$T/store"
if [ -n "${BCN_BENCH_OPENSEARCH_URL:-}" ]; then
	bcn_redis "$RP" COPY bcn:queue-copy bcn:queue > /dev/null
	drain opensearch --store-backend opensearch --store-url "$BCN_BENCH_OPENSEARCH_URL" \
		--store-index-prefix "bench$$"
fi
