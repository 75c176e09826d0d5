#!/usr/bin/env bash
# beacon-logsrv's bounds (docs/logsrv.md, "Bounds"):
# 1. time window: a frame with a record 10 days old or 2 hours ahead is
#    answered REJECTED and counted, in-window frames are stored, and the
#    ingest lag statistics never see the rejected times;
# 2. memory: frames small on the wire and huge once decompressed (one
#    record and megabytes of strings nobody references) are refused at the
#    door, and the same frames already in the Redis queue (64 MiB each, the
#    reviewer's 16) go to the dead letters, while large valid frames are
#    stored; the server's peak resident memory (VmHWM) stays under a
#    generous bound (the old flusher held over 2 GB for good);
# 3. expiry: the flusher deletes the day files older than store_retention
#    and keeps the recent ones.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/logsrv.log" ] && tail -n 30 "$T/logsrv.log" >&2; exit 1; }
HWM_MAX_KB=$((512 * 1024))
NS=1000000000

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RPORT
bcn_start_redis "$T/redis" "$RPORT" || fail "redis did not listen"

# a store with 30 days of records a year ago and one day a week ago: the
# year-old days must go, the recent one stays (retention 30d)
cat > "$T/store.conf" <<EOF
store_backend = sqlite
store_dir = $T/store
store_retention = 30d
EOF
now=$(date +%s)
"$BCN_BUILD/tests/storefill" "$T/store.conf" "$T/old.exp" 3000 $((now - 365 * 86400)) ||
	fail "storefill (old)"
ls "$T/store" | grep '^beacon-.*\.db$' > "$T/old.days"
"$BCN_BUILD/tests/storefill" "$T/store.conf" "$T/new.exp" 100 $((now - 7 * 86400)) ||
	fail "storefill (recent)"
ls "$T/store" | grep '^beacon-.*\.db$' | grep -vxF -f "$T/old.days" > "$T/new.days" || true
[ "$(wc -l < "$T/old.days")" -ge 2 ] || fail "storefill made $(wc -l < "$T/old.days") old day files"
[ -s "$T/new.days" ] || fail "storefill made no recent day file"

bcn_alloc_port LPORT
"$BCN_BUILD/logsrv/beacon-logsrv" --config "$T/store.conf" --listen "127.0.0.1:$LPORT" \
	--auth-key-file "$T/key" --redis-port "$RPORT" --flush-idle 20ms \
	--expire-interval 1s --stats-interval 300ms > "$T/logsrv.log" 2>&1 &
LPID=$!
BCN_PIDS+=("$LPID")
bcn_wait_port "$LPORT" "$LPID" || fail "beacon-logsrv did not listen"

hget() { bcn_redis "$RPORT" HGET bcn:stats "$1"; }
# waits (bounded, 60 s) until the shell condition $1 holds
wait_for() {
	for _ in $(seq 1 600); do
		eval "$1" && return 0
		sleep 0.1
	done
	fail "timed out waiting for: $1"
}
# the day files of the store, in the order of ls
days() { ls "$T/store" | grep '^beacon-.*\.db$' || true; }
# the io records of the last and the next day (one JSON line each)
query_count() {
	"$BCN_BUILD/cli/beacon" query --config "$T/store.conf" --layer io \
		--from $((now - 86400)) --to $((now + 86400)) --limit 100000 > "$T/q" &&
		wc -l < "$T/q"
}

# 3. expiry (first: it runs at the flusher's first round)
wait_for '[ "$(days)" = "$(cat "$T/new.days")" ]'
grep -q "expired [0-9]* day(s)" "$T/logsrv.log" || fail "expiry not logged"

# 1. time window
"$BCN_BUILD/tests/lagframes" "$T/f.bin" cn042 io:30:5 io:864000:3 io:-7200:2 io:60:5
out=$("$BCN_BUILD/tests/rawsend" "127.0.0.1:$LPORT" "$T/key" cn042 frames "$T/f.bin")
python3 -c 'import json,sys; o = json.loads(sys.argv[1]); sys.exit(not (o["stored"] == 2 and o["rejected"] == 2))' "$out" ||
	fail "window: $out"
wait_for '[ "$(hget rejected)" = 2 ]'
wait_for '[ "$(hget lag_total_count)" = 10 ]'
max=$(hget lag_total_max_ms)
[ "$max" -ge 60000 ] && [ "$max" -lt 600000 ] || fail "lag_total_max_ms $max includes a rejected time"
n=$(query_count 2>&1) || fail "query: $n"
[ "$n" = 10 ] || fail "stored in-window records: $n, expected 10"

# 2. memory: at the door, 16 bombs under max_raw (refused for their
# expansion) and one above it (the connection is closed)
"$BCN_BUILD/tests/bombframes" "$T/bomb4.bin" cn043 16 4000000 bomb
out=$("$BCN_BUILD/tests/rawsend" "127.0.0.1:$LPORT" "$T/key" cn043 frames "$T/bomb4.bin")
python3 -c 'import json,sys; o = json.loads(sys.argv[1]); sys.exit(not (o["stored"] == 0 and o["rejected"] == 16))' "$out" ||
	fail "bombs at the door: $out"
"$BCN_BUILD/tests/bombframes" "$T/bomb64.bin" cn044 1 67108864 bomb
out=$("$BCN_BUILD/tests/rawsend" "127.0.0.1:$LPORT" "$T/key" cn044 frames "$T/bomb64.bin" || true)
python3 -c 'import json,sys; o = json.loads(sys.argv[1]); sys.exit(not (o["stored"] == 0 and o["closed"]))' "$out" ||
	fail "64 MiB bomb at the door: $out"
# in the queue already (written by an older server): 16 of the reviewer's
# bombs go to the dead letters, 8 valid frames of 4 MB each are stored
for i in $(seq 1 16); do
	bcn_redis "$RPORT" -x RPUSH bcn:queue < "$T/bomb64.bin" > /dev/null
done
"$BCN_BUILD/tests/bombframes" "$T/wide.bin" cn045 1 4000000 wide
for i in $(seq 1 8); do
	bcn_redis "$RPORT" -x RPUSH bcn:queue < "$T/wide.bin" > /dev/null
done
wait_for '[ "$(bcn_redis "$RPORT" LLEN bcn:queue)" = 0 ]'
[ "$(bcn_redis "$RPORT" LLEN bcn:dead)" = 16 ] ||
	fail "dead letters: $(bcn_redis "$RPORT" LLEN bcn:dead), expected 16"
wide=$((4000000 / 4002))
n=$(query_count 2>&1) || fail "query: $n"
[ "$n" = $((10 + wide)) ] || fail "stored records: $n, expected $((10 + wide))"
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$LPID/status")
echo "logsrv_bounds: VmHWM ${hwm} kB"
[ "$hwm" -lt "$HWM_MAX_KB" ] || fail "VmHWM ${hwm} kB above ${HWM_MAX_KB} kB"

bcn_stop "$LPID" || fail "beacon-logsrv did not stop cleanly"
bcn_check_sanitizer_logs "$T/logsrv.log" || fail "sanitizer report"
echo "logsrv_bounds: ok"
