#!/usr/bin/env bash
# beacon-sim's compute nodes as LWFS clients, read by the real
# beacon-clientd. A 4-node N-N job reads its input at 100 MiB/s per node
# (nothing in the way is full); cn00001 logs its operations and the job's
# process has a Slurm cgroup file below the node's directory. The
# simulator appends one tick of log at a time; beacon-clientd (LWFS source,
# --root on the node's directory) samples after each. Its io records must
# be attributed to the simulator's job through the cgroup, carry the
# file's path, and account for exactly 100 MiB of reads per interval in
# runs of 1 MiB requests with stride 1 MiB.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
CLIENTD=$BCN_BUILD/collectors/client/beacon-clientd

cat > "$T/sim.conf" <<EOF
out = $T/sim
compute = 8
forwarding = 1
lwfs_nodes = 1
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100G
fwd_bw = 100G
job = reader n-n 4 0 100 100M
EOF
TICKS=5
"$SIM" --config "$T/sim.conf" --seed 3 --until 1 2> "$T/sim.log" ||
	fail "beacon-sim"
"$CLIENTD" --node cn00001 --root "$T/sim/cn00001" --no-tracer \
	--lwfs-log "$T/sim/cn00001/lwfs.log" --interval 1h --count "$TICKS" \
	--output "$T/out.bin" --log-level info 2> "$T/clientd.log" &
pid=$!
pids+=("$pid")
bcn_wait_sample "$T/clientd.log" 1 "$pid"
for k in $(seq 2 "$TICKS"); do
	"$SIM" --config "$T/sim.conf" --seed 3 --until "$k" 2>> "$T/sim.log" ||
		fail "beacon-sim --until $k"
	kill -USR1 "$pid"
	bcn_wait_sample "$T/clientd.log" "$k" "$pid"
done
wait "$pid" || fail "beacon-clientd exit status"
pids=()
grep -q ' 0 malformed lines' "$T/clientd.log" || fail "malformed lines"
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "decode"
job=$(sed -n '2p' "$T/sim/slurm/sacct.txt" | cut -d'|' -f1)
/usr/bin/python3 - "$T/records.jsonl" "$job" "$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
job, n = int(sys.argv[2]), int(sys.argv[3])
reads = [r for r in recs if r["op"] == "read"]
if not (reads and all(r["job"] == job and r["node"] == "cn00001" for r in reads)):
    raise SystemExit("check failed: %r" % (({(r["job"], r["node"]) for r in reads}),))
total = sum(r["count"] * r["size"] for r in reads)
if not (total == n * (100 << 20)):
    raise SystemExit("check failed: %r" % (((total, n * (100 << 20))),))
if not (all(r["size"] == 1 << 20 and r["stride"] in (0, 1 << 20) for r in reads)):
    raise SystemExit("check failed: %r" % ((reads[0]),))
print("cn00001: job", job, "reads", total, "bytes in", len(reads), "records: ok")
PYEOF
echo "sim_lwfs: ok"
