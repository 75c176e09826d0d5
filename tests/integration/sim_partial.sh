#!/usr/bin/env bash
# beacon-sim's partial client collection and stragglers, in scale mode at
# the fast pace against a real beacon-logsrv (SQLite store, a role map
# naming every collector's role, unmapped nodes refused): 16 compute
# nodes of which cn00005, cn00006 and cn00012 have no client collection
# (no_client), compute node 2 (cn00003) at a quarter of its bandwidth for
# ten seconds (slow_node), a 2-tick warm-up, 30 ticks sent, a health
# record every 10 s. Then:
#  - nothing at all is stored from the nodes without collection (no io,
#    no health), and every other collector (13 compute nodes, 2
#    forwarding nodes, 2 OSS, 1 MDS, 2 switches) sent exactly 3 health
#    records, at the ends of its 1st, 11th and 21st ticks, with its
#    program's name, its start, and as many records made as the store
#    holds from it before each;
#  - the truth lines: the slow_node injection, and per job client_nodes,
#    uncovered (a Slurm hostlist) and slow_nodes;
#  - during the window cn00003's io records carry a quarter of a peer's
#    bytes per tick (outside it the same), while its job's OST job_stats
#    still total what the truth says its nodes moved, which is what the
#    covered nodes' io records carry plus the uncovered nodes' (as much
#    as a peer's).
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"

# every collector under its own role (docs/logsrv.md): each role takes
# health records, and nothing is rejected
printf 'cn[00001-00016] compute\nfwd[001-002] forwarding\noss[001-002] oss\nmds01 mds\nsw[01-02] switch\n' > "$T/roles"
bcn_sim_logsrv "$(printf 'role_map = %s\nrole_default = none' "$T/roles")"

epoch=$(( $(date +%s) - 7200 ))
cat > "$T/scale.conf" <<EOF
compute = 16
forwarding = 2
oss = 2
osts_per_oss = 2
mds = 1
switches = 2
tick = 1s
jobs_per_hour = 0
ost_bw = 1G
fwd_bw = 2G
job = wide n-n 8 0 40 64M 10 3
job = shared n-1 8 0 40 32M 10 3
no_client = cn[00005-00006],cn00012
slow_node = 2 0.25 10 10
health_every = 10s
warmup = 2
out = $T/sim
scale = yes
server = 127.0.0.1:$LP
key_file = $T/key
epoch = $epoch
ticks = 30
truth = $T/truth.jsonl
EOF
bcn_sim_play
for layer in client collector ost; do
	"$BEACON" query --config "$T/logsrv.conf" --layer "$layer" --part any > "$T/$layer.jsonl" ||
		fail "beacon query --layer $layer"
done
for layer in forward switch mds; do
	"$BEACON" query --config "$T/logsrv.conf" --layer "$layer" --part any >> "$T/others.jsonl" ||
		fail "beacon query --layer $layer"
done

python3 - "$T" "$epoch" <<'PYEOF'
import collections, json, sys
T, epoch = sys.argv[1], int(sys.argv[2])
NS = 10**9
bad = []
def lines(p):
    return [json.loads(l) for l in open(p) if l.strip()]
done = [d for d in lines(T + "/sim.jsonl") if d["sim"] == "done"][0]
if done["collectors"] != 20 or done["acked_frames"] != done["submitted_frames"] or \
        done["dropped_frames"] or done["rejected"] or done["build_errors"]:
    bad.append("simulator: %s" % done)
client, health, ost = (lines("%s/%s.jsonl" % (T, l)) for l in ("client", "collector", "ost"))
others = lines(T + "/others.jsonl")
uncovered = {"cn00005", "cn00006", "cn00012"}
cns = {"cn%05d" % i for i in range(1, 17)} - uncovered
want = {n: "beacon-clientd" for n in cns}
want.update({"fwd001": "beacon-fwdd", "fwd002": "beacon-fwdd", "oss001": "beacon-ostd",
             "oss002": "beacon-ostd", "mds01": "beacon-mdsd", "sw01": "beacon-swd",
             "sw02": "beacon-swd"})
# 1. nothing from the nodes without client collection
for r in client + health:
    if r["node"] in uncovered:
        bad.append("a record of %s: %s" % (r["node"], r))
if {r["node"] for r in client} - cns:
    bad.append("io records of %s" % ({r["node"] for r in client} - cns))
# 2. health: 3 per collector, at the ends of ticks 1, 11, 21 sent
start = (epoch + 2) * NS
ends = [start + k * NS for k in (1, 11, 21)]
per = collections.defaultdict(list)
for h in health:
    per[h["node"]].append(h)
if set(per) != set(want):
    bad.append("health records from %s, want %s" % (sorted(per), sorted(want)))
data = collections.defaultdict(list)
for r in client + others + ost:
    data[r["node"]].append(r["t"])
for node, hs in per.items():
    hs.sort(key=lambda h: h["t"])
    if [h["t"] for h in hs] != ends:
        bad.append("%s: health at %s, want %s" % (node, [h["t"] for h in hs], ends))
        continue
    prev = start
    for i, h in enumerate(hs):
        if h["program"] != want[node] or h["started"] != start or h["dur"] != h["t"] - prev:
            bad.append("%s: health %s" % (node, h))
        prev = h["t"]
        made = sum(1 for t in data[node] if t < h["t"])
        if not node.startswith("sw") and h["records"] != made:
            bad.append("%s: health says %d records made by %d, %d stored" % (node, h["records"], h["t"], made))
        # acknowledged: its records and its earlier health records
        if h["acked_records"] > h["records"] + i or h["connected"] != 1 or h["dropped_records"]:
            bad.append("%s: health %s" % (node, h))
    if hs[-1]["acked_records"] < hs[1]["records"] + 2:
        bad.append("%s: acked %d of %d" % (node, hs[-1]["acked_records"], hs[1]["records"]))
# 3. the truth
truth = lines(T + "/truth.jsonl")
inj = [d for d in truth if d["kind"] == "slow_node"]
if len(inj) != 1 or inj[0]["node"] != "cn00003" or inj[0]["factor"] != 0.25:
    bad.append("slow_node truth: %s" % inj)
jobs = {d["name"]: d for d in truth if d["kind"] == "job"}
wide, shared = jobs["wide"], jobs["shared"]
for j, cn, unc, slow in ((wide, 6, "cn[00005-00006]", ["cn00003"]), (shared, 7, "cn00012", [])):
    if (j["client_nodes"], j["uncovered"], j["slow_nodes"]) != (cn, unc, slow):
        bad.append("job %s: client_nodes %s uncovered %r slow_nodes %s" % (j["name"], j["client_nodes"], j["uncovered"], j["slow_nodes"]))
# 4. the straggler: per tick bytes of cn00003 against cn00001
by = collections.defaultdict(int)
for r in client:
    if r["job"] == wide["job"] and r["op"] in ("read", "write"):
        by[(r["node"], (r["t"] - epoch * NS) // NS)] += r["size"] * r["count"]
ticks = sorted({t for n, t in by if n == "cn00001"})
inside = [t for t in ticks if 10 <= t < 20]
outside = [t for t in ticks if not 10 <= t < 20]
if not inside or not outside:
    bad.append("no I/O inside and outside the window: %s" % ticks)
for t in inside:
    a, b = by[("cn00003", t)], by[("cn00001", t)]
    if abs(4 * a - b) > 4:
        bad.append("tick %d: cn00003 moved %d, cn00001 %d" % (t, a, b))
for t in outside:
    if by[("cn00003", t)] != by[("cn00001", t)]:
        bad.append("tick %d outside the window: cn00003 %d, cn00001 %d" % (t, by[("cn00003", t)], by[("cn00001", t)]))
# 5. its job's OST job_stats total what its nodes moved
for j in (wide, shared):
    served = sum(r["read_bytes"] + r["write_bytes"] for r in ost if r.get("jobid") == str(j["job"]))
    moved = j["read_bytes"] + j["write_bytes"]
    if served != moved:
        bad.append("job %s: job_stats %d, truth %d" % (j["name"], served, moved))
    got = sum(r["size"] * r["count"] for r in client if r["job"] == j["job"] and r["op"] in ("read", "write"))
    peer = sum(v for (n, t), v in by.items() if n == "cn00001") if j is wide else None
    if j is wide and got + 2 * peer != moved:
        bad.append("job wide: covered nodes %d + 2 x %d, truth %d" % (got, peer, moved))
    if j is shared and not 0 < got < moved:
        bad.append("job shared: covered nodes %d, truth %d" % (got, moved))
if bad:
    print("\n".join(bad)); sys.exit(1)
PYEOF
[ $? = 0 ] || fail "partial collection or straggler differs from the truth"
echo "sim_partial: ok"
