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
bcn_alloc_port R1; bcn_alloc_port R2; bcn_alloc_port P1; bcn_alloc_port P2
bcn_start_redis "$T/redis1" "$R1" || fail "redis did not listen"
R1PID=$REDIS_PID
bcn_start_redis "$T/redis2" "$R2" || fail "redis did not listen"

cat > "$T/shardmap" <<EOF
shard cn[001-008] primary=127.0.0.1:$P1 fallback=127.0.0.1:$P2
EOF

# stream.c dates its records in 2023 (fixed, so that runs compare): the
# window of record times is off here and the retention long enough that
# the flusher's expiry keeps them (logsrv_bounds.sh tests both)
start_logsrv() { # name port redis_port
	"$LOGSRV" --listen "127.0.0.1:$2" --name "$1" --auth-key-file "$T/key" \
		--redis-port "$3" $STORE_ARGS --flush-idle 20ms --record-max-age 0 --store-retention 36500d \
		--redis-backoff-max 300ms --flush-backoff-max 500ms \
		--stats-interval 1s ${LOGSRV_EXTRA:-} >> "$T/$1.log" 2>&1 &
	eval "${1}_PID=$!"
	BCN_PIDS+=("$!")
	bcn_wait_port "$2" "$!" || fail "log server $1 did not listen"
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

# Waits (bounded) until the stream of NODE reports N acknowledged frames;
# fails if it ends first, so that a fault placed after this lands mid-stream.
wait_acked() { # node frames
	local n
	for _ in $(seq 1 600); do
		n=$(grep -o "acked_frames=[0-9]*" "$T/$1.stream.log" 2>/dev/null | tail -n 1 | cut -d= -f2 || true)
		[ "${n:-0}" -ge "$2" ] && return 0
		kill -0 "$STREAM_PID" 2>/dev/null || fail "$1: the stream ended before $2 frames were acknowledged"
		sleep 0.05
	done
	fail "$1: $2 frames were never acknowledged"
}

# Remembers how long the log of server NAME is, for log_since.
log_mark() { # name
	eval "${1}_MARK=$(wc -l < "$T/$1.log")"
}

# Succeeds if the log of server NAME has a line matching PATTERN (grep -E)
# written since the last log_mark.
log_since() { # name pattern
	local m
	eval "m=\${${1}_MARK:-0}"
	tail -n "+$((m + 1))" "$T/$1.log" | grep -E "$2" > /dev/null  # not -q: an early exit would kill tail (pipefail)
}

# Waits (bounded) until log_since NAME PATTERN holds.
wait_log() { # name pattern
	for _ in $(seq 1 600); do
		log_since "$1" "$2" && return 0
		sleep 0.05
	done
	fail "$1 never logged /$2/"
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

# Checks that every record NODE's stream sent is in the store exactly once,
# and that each EXPECT (counter>=N or counter==N, of the stream's sender
# counters) holds: the evidence that the scenario's fault took effect.
check() { # scenario node [expect...]
	if [ -n "$STREAM_PID" ]; then
		wait "$STREAM_PID" || fail "$1: the stream did not finish: $(cat "$T/$2.out" "$T/$2.stream.log")"
		STREAM_PID=
	fi
	queues_empty
	"$BEACON" query --config "$T/store.conf" --layer client --entity "$2" > "$T/$2.records"
	python3 - "$1" "$T/$2.out" "$T/$2.records" "$((FRAMES * PER))" "${@:3}" <<'PY' || fail "$1"
import json, re, sys
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
for e in sys.argv[5:]:
    m = re.fullmatch(r"(\w+)(>=|==)(\d+)", e)
    if not m or m.group(1) not in st:
        raise SystemExit("%s: bad expectation %r" % (scenario, e))
    got, want = st[m.group(1)], int(m.group(3))
    if not (got >= want if m.group(2) == ">=" else got == want):
        raise SystemExit("%s: the fault did not take effect: %s is %d, want %s%d"
                         % (scenario, m.group(1), got, m.group(2), want))
PY
}

