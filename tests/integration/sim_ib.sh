#!/usr/bin/env bash
# beacon-sim's InfiniBand leaf switches read by the real beacon-swd. 16
# compute nodes on 2 leaf switches (8 ports each, port 9 the uplink); an
# 8-node N-N job on sw01 reads 100 MiB/s per node; sw01 is injected hot
# (its uplink carries twice its nodes' traffic). The simulator writes one
# tick at a time; beacon-swd (--root on sw01's directory) samples after
# each. Per interval, each node port must have transmitted exactly
# 100 MiB (25,600 packets of 4 KiB) and the uplink received twice the
# ports' sum, the truth file's factor. The simulator's cabling
# (OUT/topology.net, ibnetdiscover's format) read by beacon-swd's
# topology_file gives one topology record per cabled port: the 16 nodes
# on their ports, each leaf's uplink to the core and the core's ports to
# them, the leaves named as the port records name them. A fabric of 300
# leaves (more than a switch has ports) hangs them on two cores, and its
# cabling reads the same way.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
SWD=$BCN_BUILD/collectors/switch/beacon-swd

cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 16
switches = 2
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100G
fwd_bw = 100G
job = reader n-n 8 0 100 100M
hot_switch = 0 2 0 1000
EOF
TICKS=4
"$SIM" --config "$T/sim.conf" --until 1 2> "$T/sim.log" || fail "beacon-sim"
"$SWD" --node sw01 --root "$T/sim/sw01" --interval 1h --count "$TICKS" \
	--output "$T/out.bin" --log-level info --topology-file "$T/sim/topology.net" \
	2> "$T/swd.log" &
pid=$!
pids+=("$pid")
bcn_wait_sample "$T/swd.log" 1 "$pid"
for k in $(seq 2 "$TICKS"); do
	"$SIM" --config "$T/sim.conf" --until "$k" 2>> "$T/sim.log" ||
		fail "beacon-sim --until $k"
	kill -USR1 "$pid"
	bcn_wait_sample "$T/swd.log" "$k" "$pid"
done
wait "$pid" || fail "beacon-swd exit status"
pids=()
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "decode"
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] != "job"]
n = int(sys.argv[3])
if not (len(truth) == 1 and truth[0]["kind"] == "hot_switch" and \
    truth[0]["switch"] == "sw01" and truth[0]["port"] == 9):
    raise SystemExit("check failed: %r" % ((truth),))
ports = {}
for r in recs:
    if r["type"] == "port":
        ports.setdefault(r["port"], []).append(r)
if not (sorted(ports) == list(range(1, 10))):
    raise SystemExit("check failed: %r" % ((sorted(ports)),))
mib100 = 100 << 20
for p in range(1, 9):
    if not (len(ports[p]) == n):
        raise SystemExit("check failed: %r" % (((p, len(ports[p]))),))
    for r in ports[p]:
        if not (r["xmit_bytes"] == mib100 and r["xmit_pkts"] == mib100 // 4096):
            raise SystemExit("check failed: %r" % ((r),))
        if not (r["rcv_bytes"] == 0):
            raise SystemExit("check failed: %r" % ((r),))
for r in ports[9]:
    if not (r["rcv_bytes"] == truth[0]["factor"] * 8 * mib100):
        raise SystemExit("check failed: %r" % ((r),))
topo = [r for r in recs if r["type"] == "topology"]
if len(topo) != 20:
    raise SystemExit("topology records: %d" % len(topo))
by = {(r["switch_name"], r["port"]): r for r in topo}
a, b, up = by[("sw01", 1)], by[("sw02", 8)], by[("sw02", 9)]
if (a["remote_kind"], a["remote_name"], a["rate"]) != ("host", "cn00001", 12500000000) or \
   b["remote_name"] != "cn00016" or a["switch"] != "0x00beac0001000001" or \
   (up["remote_kind"], up["remote_name"], up["remote_port"]) != ("switch", "core", 2) or \
   (by[("core", 2)]["remote_name"], by[("core", 2)]["remote_port"]) != ("sw02", 9):
    raise SystemExit("topology: %r %r %r" % (a, b, up))
print("sw01: 8 node ports x 100 MiB, uplink", ports[9][0]["rcv_bytes"], "bytes per interval: ok")
PYEOF

# 300 leaves of 2 nodes: leaves 1-254 on "core", 255-300 on "core2"
cat > "$T/big.conf" <<EOF
out = $T/big
compute = 600
switches = 300
epoch = 1790000000
jobs_per_hour = 0
EOF
"$SIM" --config "$T/big.conf" --until 1 2>> "$T/sim.log" || fail "beacon-sim, 300 leaves"
"$SWD" --node sw01 --root "$T/big/sw01" --interval 1h --count 1 \
	--output "$T/big.bin" --topology-file "$T/big/topology.net" 2> "$T/big.log" ||
	{ cat "$T/big.log" >&2; fail "beacon-swd, 300 leaves"; }
"$BEACON" decode "$T/big.bin" > "$T/big.jsonl" || fail "decode, 300 leaves"
/usr/bin/python3 - "$T/big.jsonl" <<'PYEOF' || fail "topology, 300 leaves"
import json, sys
topo = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "topology"]
by = {(r["switch_name"], r["port"]): r for r in topo}
# 300 leaves x (2 nodes + uplink), and the cores' 254 + 46 ports
if len(topo) != 1200 or len(by) != 1200:
    raise SystemExit("topology records: %d" % len(topo))
checks = [(("sw254", 3), ("core", 254)), (("sw255", 3), ("core2", 1)),
          (("sw300", 3), ("core2", 46)), (("core2", 46), ("sw300", 3)),
          (("core", 1), ("sw01", 3))]
for (sw, port), want in checks:
    r = by[(sw, port)]
    if (r["remote_kind"], r["remote_name"], r["remote_port"]) != ("switch",) + want:
        raise SystemExit("topology: %s[%d]: %r" % (sw, port, r))
print("300 leaves on two cores: 1200 cabled ports: ok")
PYEOF
echo "sim_ib: ok"
