#!/usr/bin/env bash
# beacon-logsrv against a real Redis: frames are stored durably, resends
# are answered DUPLICATE, every kind of bad input is refused in the way
# docs/protocol.md says, and the server keeps serving throughout.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/logsrv.log" ] && tail -n 30 "$T/logsrv.log" >&2; exit 1; }

RAW=$BCN_BUILD/tests/rawsend
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RPORT
bcn_start_redis "$T/redis" "$RPORT" || fail "redis did not listen"
bcn_alloc_port LPORT
# mkframes, rawsend and ingest_bench date their records in 2023 (fixed, so
# that runs compare): the window of record times is off and the retention
# keeps them
"$BCN_BUILD/logsrv/beacon-logsrv" --listen "127.0.0.1:$LPORT" --auth-key-file "$T/key" \
	--redis-port "$RPORT" --store-dir "$T/store" --flush-idle 20ms \
	--record-max-age 0 --store-retention 36500d --stats-interval 1s --log-level debug > "$T/logsrv.log" 2>&1 &
LPID=$!
BCN_PIDS+=("$LPID")
bcn_wait_port "$LPORT" "$LPID" || fail "beacon-logsrv did not listen"
A=127.0.0.1:$LPORT

"$BCN_BUILD/tests/mkframes" "$T/f.bin" "$T/expected" 40 250 cn007

field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
expect() { # mode, field, value [, file]
	local out
	out=$("$RAW" "$A" "${5:-$T/key}" cn007 "$1" ${4:+"$4"})
	[ "$(field "$out" "$2")" = "$3" ] || fail "$1: expected $2=$3, got $out"
}

# frames are stored, and a resend is recognised
expect frames stored 40 "$T/f.bin"
expect frames duplicate 40 "$T/f.bin"
# malformed content: REJECTED, connection goes on (the next frame is acked)
expect corrupt rejected 1
expect corrupt closed False
# broken envelopes: the connection is closed
for m in garbage wrongnode badcrc toobig badversion; do
	expect "$m" closed True
	expect "$m" stored 0
done
expect noauth closed True
expect truncated stored 0
# after the handshake a frame without its MAC, with a wrong MAC, or sent
# twice (its MAC is of an earlier place) closes the connection, and none
# of them is stored (checked by the record count below); ACKs carry MACs
for m in nomac badmac replay; do
	expect "$m" closed True
done
expect nomac stored 0
expect badmac stored 0
expect frames bad_acks 0 "$T/f.bin"
# a collector of protocol version 1 is refused at its HELLO
expect v1hello closed True
grep -q "speaks protocol version 1, this server 2" "$T/logsrv.log" ||
	fail "no clear refusal of a version-1 collector in the log"
# a collector with another key is refused at the handshake
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/otherkey"
chmod 600 "$T/otherkey"
expect frames handshake failed "$T/f.bin" "$T/otherkey"
# many concurrent connections at once
for i in $(seq 1 40); do "$RAW" "$A" "$T/key" cn007 frames "$T/f.bin" > "$T/par.$i" & done
wait $(jobs -p | grep -v "^$LPID$" | grep -v "^$REDIS_PID$") 2>/dev/null || true
for i in $(seq 1 40); do
	[ "$(field "$(cat "$T/par.$i")" duplicate)" = 40 ] || fail "parallel sender $i: $(cat "$T/par.$i")"
done
kill -0 "$LPID" || fail "the log server died"
# thousands of concurrent authenticated connections (the benchmark client,
# when benchmarks are built): 2000 nodes, 2 frames each, all acknowledged
if [ -x "$BCN_BUILD/bench/ingest_bench" ]; then
	hard=$(ulimit -Hn)
	nc=2000
	[ "$hard" = unlimited ] || [ "$hard" -ge 2300 ] || nc=$((hard - 300))
	"$BCN_BUILD/bench/ingest_bench" logsrv "$A" "$T/key" "$nc" 2 5 > "$T/conns.json" 2> "$T/conns.err" ||
		fail "$nc concurrent connections: $(cat "$T/conns.json" "$T/conns.err")"
	grep -q "\"frames\":$((nc * 2))," "$T/conns.json" || fail "$nc connections: $(cat "$T/conns.json")"
else
	skipped="the concurrent connections check (no bench/ingest_bench in this build)"
fi
kill -0 "$LPID" || fail "the log server died"

# everything reaches the store exactly once: 40 frames x 250 records
for _ in $(seq 1 100); do
	[ "$(bcn_redis "$RPORT" LLEN bcn:queue)" = 0 ] && break
	sleep 0.1
done
[ "$(bcn_redis "$RPORT" LLEN bcn:queue)" = 0 ] || fail "queue not flushed"
cat > "$T/q.conf" <<CONF
store_dir = $T/store
CONF
n=$("$BCN_BUILD/cli/beacon" query --config "$T/q.conf" --layer client --entity cn007 | wc -l)
# (the corrupt test's good frame reuses sequence number 2: a duplicate, as
# does the replay test's first frame)
[ "$n" -eq 10000 ] || fail "expected 10000 stored records of cn007, got $n"
"$BCN_BUILD/cli/beacon" query --config "$T/q.conf" --layer client --entity cn007 | python3 -c '
import json, sys
seen = set()
for line in sys.stdin:
    r = json.loads(line)
    if not (r["node"] == "cn007"):
        raise SystemExit("check failed: %r" % ((r),))
    k = (r["t"], r["offset"], r["size"])
    seen.add(k)
print(len(seen))' > "$T/distinct"
[ "$(cat "$T/distinct")" -eq 10000 ] || fail "records are not distinct"
sleep 1.5       # one stats_interval: the counters reach Redis
mf=$(bcn_redis "$RPORT" HGET bcn:stats mac_failures)
[ "${mf:-0}" -ge 3 ] || fail "mac_failures not counted: '$mf'"

# stop cleanly: SIGTERM drains and exits 0
kill -TERM "$LPID"
wait "$LPID" || fail "log server exited non-zero on SIGTERM"
grep -q "stats: .*bad=" "$T/logsrv.log" || fail "no stats line"
echo "logsrv_protocol: ok ($(cat "$T/distinct") distinct records)"
# ctest shows a partial run as Skipped (SKIP_RETURN_CODE 77), not Passed
[ -z "${skipped:-}" ] || { echo "logsrv_protocol: skipped $skipped"; exit 77; }
