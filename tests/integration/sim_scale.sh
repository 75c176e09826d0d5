#!/usr/bin/env bash
# beacon-sim's scale mode against real log servers. Two simulator
# processes (part 0/2 and 1/2) play the 41 collectors of a small cluster
# (32 compute nodes, 2 forwarding nodes, 2 OSS, 1 MDS, 4 switches), one
# authenticated connection each, routed by a shard map to two beacon-logsrv
# (compute nodes 1-16 to A, everything else to B) over one Redis; log
# server B is killed (-9) in the middle of the run and restarted. Then:
#  - every frame submitted was acknowledged, none dropped; every collector
#    connected; each node's records are in its own shard's store only;
#    every collector sent one health record;
#  - the content equals what the collectors would have read from the files
#    of the same simulation (file mode, --until 10, every compute node
#    writing an LWFS log): per OST the bytes, per MDT the operations by
#    type, per switch port the bytes and packets, per compute node the
#    bytes read and written, per forwarding node the bytes of its request
#    log and per osc device its bytes read and written, summed over the 10
#    ticks, are exactly the files' totals; per OST the whole-target
#    records' pages and I/O time histograms, summed, are the brw_stats
#    rows (every I/O timed).
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
TICKS=10

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port PA; bcn_alloc_port PB
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
for s in A B; do
	port=$PA; [ $s = B ] && port=$PB
	cat > "$T/logsrv$s.conf" <<EOF
listen = 127.0.0.1:$port
name = logsrv$s
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn$s
store_backend = sqlite
store_dir = $T/store$s
flush_idle = 20ms
stats_interval = 1s
EOF
done
start_logsrv() { # A|B
	"$LOGSRV" --config "$T/logsrv$1.conf" >> "$T/logsrv$1.log" 2>&1 &
	eval "PID$1=$!"
	BCN_PIDS+=("$!")
}
start_logsrv A; start_logsrv B
bcn_wait_port "$PA" "$PIDA" || fail "logsrvA did not listen"
bcn_wait_port "$PB" "$PIDB" || fail "logsrvB did not listen"
cat > "$T/shards" <<EOF
shard cn[00001-00016] primary=127.0.0.1:$PA
default primary=127.0.0.1:$PB
EOF

cat > "$T/cluster.conf" <<EOF
compute = 32
forwarding = 2
oss = 2
osts_per_oss = 2
mds = 1
switches = 4
tick = 1s
jobs_per_hour = 0
ost_bw = 400M
fwd_bw = 1G
job = ckpt n-n 16 0 60 100M 4 2
job = shared n-1 8 1 60 80M
job = md meta 4 0 60 300
job = small 1-1 4 2 60 50M
EOF
{ cat "$T/cluster.conf"; cat <<EOF
out = $T/scale-out
scale = yes
shardmap = $T/shards
key_file = $T/key
ticks = $TICKS
EOF
} > "$T/scale.conf"
"$SIM" --config "$T/scale.conf" --part 0/2 > "$T/part0.jsonl" 2> "$T/part0.log" &
S0=$!; pids+=("$S0")
"$SIM" --config "$T/scale.conf" --part 1/2 > "$T/part1.jsonl" 2> "$T/part1.log" &
S1=$!; pids+=("$S1")

# log server B dies in the middle of the run and comes back
for _ in $(seq 1 200); do
	grep -q '"sim":"connected"' "$T/part1.jsonl" 2>/dev/null && break
	sleep 0.05
done
sleep 3
bcn_kill9 "$PIDB"
sleep 2
start_logsrv B
wait "$S0" || fail "part 0 failed: $(tail -3 "$T/part0.log")"
wait "$S1" || fail "part 1 failed: $(tail -3 "$T/part1.log")"

# everything acknowledged is in Redis; wait for both flushers
for s in A B; do
	for _ in $(seq 1 200); do
		[ "$(bcn_redis "$RP" LLEN "bcn$s:queue")" = 0 ] && break
		sleep 0.05
	done
	[ "$(bcn_redis "$RP" LLEN "bcn$s:queue")" = 0 ] || fail "queue of $s not drained"
done
sleep 0.5
for s in A B; do
	for l in client forward ost mds switch collector; do
		"$BEACON" query --config "$T/logsrv$s.conf" --layer "$l" \
			--part any --from 2000-01-01 > "$T/$s.$l.jsonl"
	done
done

# the same simulation in file mode, every compute node an LWFS client
{ cat "$T/cluster.conf"; echo "out = $T/files"; echo "lwfs_nodes = 32"; } > "$T/files.conf"
"$SIM" --config "$T/files.conf" --until "$TICKS" 2> "$T/files.log" || fail "file mode"
python3 "$BCN_SRC/tests/integration/sim_scale_check.py" "$T" "$TICKS"
echo "sim_scale: ok"
