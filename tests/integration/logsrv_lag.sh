#!/usr/bin/env bash
# beacon-logsrv reports its ingest lag (docs/logsrv.md, "Ingest lag"):
# records that ended 30 s and 120 s before they were sent show lags of at
# least those ages, and less than a minute more, in the stats log lines and
# in the Redis hash bcn:stats; a record from the future counts as 0, job
# records are left out, an interval without records reports zeros, and the
# final stats line at shutdown has the run's totals.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/logsrv.log" ] && tail -n 30 "$T/logsrv.log" >&2; exit 1; }

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RPORT
bcn_start_redis "$T/redis" "$RPORT" || fail "redis did not listen"
bcn_alloc_port LPORT
"$BCN_BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LPORT" --auth-key-file "$T/key" \
	--redis-port "$RPORT" --store-dir "$T/store" --flush-idle 20ms \
	--stats-interval 300ms > "$T/logsrv.log" 2>&1 &
LPID=$!
BCN_PIDS+=("$LPID")
bcn_wait_port "$LPORT" "$LPID" || fail "beacon-logsrv did not listen"

hget() { bcn_redis "$RPORT" HGET bcn:stats "$1"; }
# waits (bounded, 60 s) until field $1 of bcn:stats is $2
wait_field() {
	for _ in $(seq 1 600); do
		[ "$(hget "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	fail "bcn:stats $1 is '$(hget "$1")', expected $2"
}

# before any record: published, and empty
wait_field lag_total_count 0
[ "$(hget lag_p99_ms)" = 0 ] || fail "lag_p99_ms of an empty run: $(hget lag_p99_ms)"

# 10 records that ended 30 s ago, 10 that ended 120 s ago, one that ends in
# an hour, and 2 jobs submitted a day ago (not counted)
"$BCN_BUILD/tests/lagframes" "$T/f.bin" cn042 io:30:10 io:120:10 io:-3600:1 job:86400:2
out=$("$BCN_BUILD/tests/rawsend" "127.0.0.1:$LPORT" "$T/key" cn042 frames "$T/f.bin")
python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1])["stored"] != 4)' "$out" ||
	fail "frames not stored: $out"
wait_field lag_total_count 21
bcn_redis "$RPORT" HGETALL bcn:stats > "$T/hash"
python3 - "$T/hash" <<'PY' || fail "published totals: $(tr '\n' ' ' < "$T/hash")"
import sys
w = open(sys.argv[1]).read().split()
h = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
# nearest rank of 21 values (0, ten of 30 s, ten of 120 s): p50 is a
# 30 s one, p99 a 120 s one; a percentile is at most 1/64 above its value
if not (h["lag_total_count"] == 21):
    raise SystemExit("check failed: %r" % ((h),))
if not (30000 <= h["lag_total_p50_ms"] <= 90000):
    raise SystemExit("check failed: %r" % ((h),))
if not (120000 <= h["lag_total_p99_ms"] <= 180000):
    raise SystemExit("check failed: %r" % ((h),))
if not (120000 <= h["lag_total_max_ms"] <= 180000):
    raise SystemExit("check failed: %r" % ((h),))
if not (h["lag_total_p50_ms"] <= h["lag_total_p99_ms"] <= h["lag_total_max_ms"]):
    raise SystemExit("check failed: %r" % ((h),))
if not (h["flushed"] == 23 and h["time"] > 1600000000):
    raise SystemExit("check failed: %r" % ((h),))
PY
# a later interval without records reports zeros, the totals stay
wait_field lag_count 0
[ "$(hget lag_max_ms)" = 0 ] && [ "$(hget lag_p50_ms)" = 0 ] || fail "empty interval: $(hget lag_max_ms)"
[ "$(hget lag_total_count)" = 21 ] || fail "totals changed: $(hget lag_total_count)"

# the store has the records
cat > "$T/q.conf" <<CONF
store_dir = $T/store
CONF
n=$("$BCN_BUILD/cli/beacon" query --config "$T/q.conf" --layer client --entity cn042 | wc -l)
[ "$n" -eq 21 ] || fail "expected 21 stored records of cn042, got $n"

# the final publication reaches Redis too
bcn_redis "$RPORT" DEL bcn:stats > /dev/null
kill -TERM "$LPID"
wait "$LPID" || fail "log server exited non-zero on SIGTERM"
[ "$(hget lag_total_count)" = 21 ] || fail "final stats not in Redis: $(hget lag_total_count)"
python3 - "$T/logsrv.log" <<'PY' || fail "stats lines"
import re, sys
lines = [l for l in open(sys.argv[1]) if re.search(r"stats( \(final\))?: ", l)]
st = [dict((k, int(v)) for k, v in re.findall(r"(\w+)=(-?\d+)", l)) for l in lines]
periodic, final = st[:-1], st[-1]
if not ("stats (final): " in lines[-1]):
    raise SystemExit("check failed: %r" % ((lines[-1]),))
# every counted record in exactly one interval, the oldest in one of them
if not (sum(s["lag_count"] for s in st) == 21):
    raise SystemExit("check failed: %r" % (([s["lag_count"] for s in st]),))
if not (120000 <= max(s["lag_max_ms"] for s in st) <= 180000):
    raise SystemExit('check failed: 120000 <= max(s["lag_max_ms"] for s in st) <= 180000')
for s in st:
    if s["lag_count"]:
        if not (s["lag_p50_ms"] <= s["lag_p99_ms"] <= s["lag_max_ms"]):
            raise SystemExit("check failed: %r" % ((s),))
    else:
        if not (s["lag_p50_ms"] == s["lag_p99_ms"] == s["lag_max_ms"] == 0):
            raise SystemExit("check failed: %r" % ((s),))
if not (final["lag_total_count"] == 21):
    raise SystemExit("check failed: %r" % ((final),))
if not (30000 <= final["lag_total_p50_ms"] <= 90000):
    raise SystemExit("check failed: %r" % ((final),))
if not (120000 <= final["lag_total_p99_ms"] <= 180000):
    raise SystemExit("check failed: %r" % ((final),))
PY
echo "logsrv_lag: ok"
