#!/usr/bin/env bash
# beacon-sim's switches as an ibsim fabric (ibsim = yes) read by the real
# beacon-swd --source pma: 16 compute nodes on 2 leaf switches (8 ports
# each, port 9 the uplink to the core switch), an 8-node N-N job on sw01
# reading 100 MiB/s per node. The simulator writes one tick at a time;
# its OUT/ibsim/counters (PerformanceSet commands) go to ibsim's console,
# then beacon-swd samples. Per interval each node port of sw01 must have
# transmitted exactly 100 MiB (25,600 packets of 4 KiB), read from the
# switch's PMA (no MAD crosses node ports after the first walk). The
# uplink carries beacon-swd's own MADs too: checked as a lower bound.
# The simulator's OUT/topology.net equals what the real ibnetdiscover
# finds in the ibsim fabric (every cabled switch port with its far end;
# the ibsim-only adapter mgmt and the link rates aside), both read by
# beacon-swd's topology_file.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}" "${BCN_TEST_DATA:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
# shellcheck source=tests/lib/ibsim.sh
source "$BCN_SRC/tests/lib/ibsim.sh"
bcn_ibsim_require sim_ibsim
trap 'st=$?; bcn_ibsim_stop; bcn_sim_cleanup || st=1; exit $st' EXIT
SWD=$BCN_BUILD/collectors/switch/beacon-swd

cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 16
switches = 2
ibsim = yes
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100G
fwd_bw = 100G
job = reader n-n 8 0 100 100M
EOF
TICKS=4
"$SIM" --config "$T/sim.conf" --until 1 2> "$T/sim.log" || fail "beacon-sim"
grep -q '^switchguid=0x00beac0001000001$' "$T/sim/ibsim/net" || fail "net file"
bcn_ibsim_start "$T/sim/ibsim/net" mgmt
# sample 1 walks the fabric (its SMPs cross the node ports) and reads; the
# counters of tick 1 are set after it, so sample 2's window holds the walk
# and is not checked; samples 3.. read tick k-1 with nothing else moving.
# pma_error_every 1: the same MADs at every sample, so the uplink's share
# of them (overwritten by each PerformanceSet) is the same in each window
env "${BCN_IBSIM_ENV[@]}" "$SWD" --node fabric --interval 1h --count "$((TICKS + 1))" \
	--no-hca-counters --source pma --pma-switch sw01=0x00beac0001000001 \
	--pma-discover-every 1000 --pma-error-every 1 --output "$T/out.bin" --log-level info 2> "$T/swd.log" &
pid=$!
pids+=("$pid")
bcn_wait_sample "$T/swd.log" 1 "$pid"
bcn_ibsim_feed "$T/sim/ibsim/counters"
kill -USR1 "$pid"
bcn_wait_sample "$T/swd.log" 2 "$pid"
for k in $(seq 2 "$TICKS"); do
	"$SIM" --config "$T/sim.conf" --until "$k" 2>> "$T/sim.log" ||
		fail "beacon-sim --until $k"
	bcn_ibsim_feed "$T/sim/ibsim/counters"
	kill -USR1 "$pid"
	bcn_wait_sample "$T/swd.log" "$((k + 1))" "$pid"
done
wait "$pid" || fail "beacon-swd exit status"
pids=()
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "decode"
/usr/bin/python3 - "$T/records.jsonl" "$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
n = int(sys.argv[2])
ports = {}
for r in recs:
    if not (r["type"] == "port" and r["switch"] == "sw01"):
        raise SystemExit("check failed: %r" % (r,))
    ports.setdefault(r["port"], []).append(r)
for p in ports:           # the window of the walk
    ports[p] = sorted(ports[p], key=lambda r: r["t"])[1:]
if not (sorted(ports) == list(range(1, 10))):
    raise SystemExit("check failed: %r" % (sorted(ports),))
mib100 = 100 << 20
for p in range(1, 9):
    if not (len(ports[p]) == n):
        raise SystemExit("check failed: %r" % ((p, len(ports[p])),))
    for r in ports[p]:
        if not (r["xmit_bytes"] == mib100 and r["xmit_pkts"] == mib100 // 4096
                and r["rcv_bytes"] == 0):
            raise SystemExit("check failed: %r" % (r,))
for r in ports[9]:        # the job's reads arrive on the uplink
    if not (r["rcv_bytes"] >= 8 * mib100):
        raise SystemExit("check failed: %r" % (r,))
print("sw01 through its PMA: 8 node ports x 100 MiB per interval: ok")
PYEOF
# --- the cabling: ibnetdiscover's view against the simulator's file
bcn_ibsim_run ibnetdiscover > "$T/discovered.topo" 2> "$T/ibnd.log" ||
	fail "ibnetdiscover: $(tail -3 "$T/ibnd.log")"
for f in discovered.topo sim/topology.net; do
	"$SWD" --node n --no-hca-counters --topology-file "$T/$f" --count 1 \
		--output "$T/$(basename "$f").bin" 2>> "$T/topo.log" || fail "beacon-swd on $f"
	"$BEACON" decode "$T/$(basename "$f").bin" > "$T/$(basename "$f").jsonl" || fail "decode $f"
done
/usr/bin/python3 - "$T/discovered.topo.jsonl" "$T/topology.net.jsonl" <<'PYEOF' || fail "topology"
import json, sys
keys = ("switch", "switch_name", "port", "remote_kind", "remote", "remote_port", "remote_name")
def links(path):
    return {tuple(r[k] for k in keys) for r in map(json.loads, open(path))
            if r["remote_name"] != "mgmt"}
d, s = links(sys.argv[1]), links(sys.argv[2])
if d != s or len(s) != 16 + 2 + 2:
    raise SystemExit("ibnetdiscover only: %s\nsimulator only: %s" % (sorted(d - s), sorted(s - d)))
print("topology.net: the %d cabled ports ibnetdiscover finds: ok" % len(s))
PYEOF
echo "sim_ibsim: ok"
