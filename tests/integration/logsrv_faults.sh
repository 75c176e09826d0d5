#!/usr/bin/env bash
# Delivery with no loss: while a collector streams a known numbered set of
# records, kill -9 the log server and restart it; kill -9 Redis and restart
# it; make the record store unavailable for a while; switch the primary log
# server off so that the fallback takes over. After each, every record sent
# must be in the store exactly once. Prints sent, stored, duplicates dropped
# and lost for each scenario.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/*.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done
	exit 1
}

STORE_ARGS="--store-dir $T/store --store-timeout 200ms"
cat > "$T/store.conf" <<EOF
store_dir = $T/store
EOF
. "$BCN_SRC/tests/lib/delivery.sh"

# Each fault is placed by events (after N frames were acknowledged, once
# the store exists) and each scenario checks that its fault took effect
# (the sender's counters, the log server's log) as well as the outcome.

# 1. kill -9 the log server mid-stream, restart it: the sender must have
#    reconnected (and resent what was not acknowledged)
start_stream cn001
wait_acked cn001 50
bcn_kill9 "$primary_PID"
start_logsrv primary "$P1" "$R1"
check "logsrv kill -9 and restart" cn001 reconnects'>='1

# 2. kill -9 Redis mid-stream, restart it on its AOF once the log server
#    noticed; the log server must report the loss and the recovery
start_stream cn002
wait_acked cn002 50
log_mark primary
bcn_kill9 "$R1PID"
wait_log primary "Redis 127\.0\.0\.1:$R1 connection lost"
bcn_start_redis "$T/redis1" "$R1" || fail "redis did not listen"
R1PID=$REDIS_PID
wait_log primary "Redis 127\.0\.0\.1:$R1 is back"
check "redis kill -9 and restart" cn002

# 3. the record store is unavailable for a while: an exclusive lock on
#    every day database makes appends fail until it is released. The lock
#    is taken once the store holds a database of this stream's day.
start_stream cn003
wait_acked cn003 20
for _ in $(seq 1 200); do
	compgen -G "$T/store/*.db" > /dev/null && break
	sleep 0.05
done
log_mark primary
python3 - "$T/store" 3 <<'PY' || fail "could not lock the record store"
import glob, sqlite3, sys, time
conns = []
for db in glob.glob(sys.argv[1] + "/*.db"):
    c = sqlite3.connect(db, timeout=10, isolation_level=None)
    c.execute("BEGIN EXCLUSIVE")
    conns.append(c)
if not conns:
    raise SystemExit("no database in " + sys.argv[1])
print("locked %d databases" % len(conns))
time.sleep(float(sys.argv[2]))
for c in conns:
    c.execute("ROLLBACK")
PY
check "record store unavailable for 3 s" cn003
log_since primary "flusher: record store: " || fail "the flusher never saw the store locked"
log_since primary "flusher: record store is back" || fail "the flusher never said the store is back"

# 4. the primary goes away: the fallback takes over. Frames the primary
#    acknowledged but had not flushed wait in its Redis until it is back.
start_stream cn004
wait_acked cn004 50
bcn_stop "$primary_PID" || fail "the primary log server exit status on SIGTERM"
wait "$STREAM_PID" || fail "cn004: the stream did not finish with the primary off"
STREAM_PID=
grep -q "authenticated as cn004" "$T/fallback.log" || fail "the fallback never served cn004"
start_logsrv primary "$P1" "$R1"
check "primary off, fallback takes over" cn004 fallbacks'>='1 reconnects'>='1

echo "logsrv_faults: ok"
