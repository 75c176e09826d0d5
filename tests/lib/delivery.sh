# Shared parts of the delivery fault tests: a primary and a fallback log
# server, each with its own Redis, one record store, and a collector that
# streams a known numbered set of records. Source after servers.sh, with
# T (a scratch directory), BCN_BUILD and STORE_ARGS (store options for the
# log servers) set, fail() defined, and $T/store.conf holding the store keys
# for beacon query.

LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
STREAM=$BCN_BUILD/tests/stream
BEACON=$BCN_BUILD/cli/beacon
FRAMES=${BCN_FAULT_FRAMES:-300}
PER=50
PACE_MS=10

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
R1=$(bcn_free_port); R2=$(bcn_free_port); P1=$(bcn_free_port); P2=$(bcn_free_port)
bcn_start_redis "$T/redis1" "$R1"
R1PID=$REDIS_PID
bcn_start_redis "$T/redis2" "$R2"

cat > "$T/shardmap" <<EOF
shard cn[001-008] primary=127.0.0.1:$P1 fallback=127.0.0.1:$P2
EOF

start_logsrv() { # name port redis_port
	"$LOGSRV" --listen "127.0.0.1:$2" --name "$1" --auth-key-file "$T/key" \
		--redis-port "$3" $STORE_ARGS --flush-idle 20ms \
		--redis-backoff-max 300ms --flush-backoff-max 500ms \
		--stats-interval 1s >> "$T/$1.log" 2>&1 &
	eval "${1}_PID=$!"
	BCN_PIDS+=("$!")
	bcn_wait_port "$2"
}
start_logsrv primary "$P1" "$R1"
start_logsrv fallback "$P2" "$R2"

stream_conf() { # node
	cat > "$T/$1.conf" <<EOF
node = $1
shardmap = $T/shardmap
key_file = $T/key
send_backoff_min = 50ms
send_backoff_max = 400ms
send_ack_timeout = 3s
send_primary_retry = 1s
flush_timeout = 120s
EOF
}

start_stream() { # node
	stream_conf "$1"
	"$STREAM" "$T/$1.conf" "$FRAMES" "$PER" "$PACE_MS" > "$T/$1.out" 2> "$T/$1.stream.log" &
	STREAM_PID=$!
}

queues_empty() {
	for _ in $(seq 1 600); do
		if [ "$(bcn_redis "$R1" LLEN bcn:queue 2>/dev/null)" = 0 ] &&
		   [ "$(bcn_redis "$R2" LLEN bcn:queue 2>/dev/null)" = 0 ]; then
			return 0
		fi
		sleep 0.1
	done
	fail "queues in Redis were not flushed"
}

check() { # scenario node
	if [ -n "$STREAM_PID" ]; then
		wait "$STREAM_PID" || fail "$1: the stream did not finish: $(cat "$T/$2.out" "$T/$2.stream.log")"
		STREAM_PID=
	fi
	queues_empty
	"$BEACON" query --config "$T/store.conf" --layer client --entity "$2" > "$T/$2.records"
	python3 - "$1" "$T/$2.out" "$T/$2.records" "$((FRAMES * PER))" <<'PY'
import json, sys
scenario, out, recs, sent = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
st = json.loads(open(out).read())
offsets = [json.loads(l)["offset"] for l in open(recs)]
distinct = set(offsets)
lost = sent - len(distinct & set(range(sent)))
dup_stored = len(offsets) - len(distinct)
print(json.dumps({"scenario": scenario, "sent": sent, "stored": len(offsets),
                  "duplicates_dropped": st["duplicates"], "resent": st["resent"],
                  "reconnects": st["reconnects"], "lost": lost,
                  "stored_twice": dup_stored}))
if not (st["submitted_records"] == sent and st["dropped_records"] == 0):
    raise SystemExit("check failed: %r" % ((st),))
if not (lost == 0 and dup_stored == 0 and len(offsets) == sent):
    raise SystemExit("check failed: %r" % (((lost, dup_stored)),))
PY
}

