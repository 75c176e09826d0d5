#!/usr/bin/env bash
# An N-1 job flooding a forwarding node's queue: a 16-node N-N job reads
# 50 MiB/s per node through 2 forwarding nodes (400 MiB/s each, under
# their 1 GiB/s); an injected N-1 job on 8 nodes behind fwd002 writes
# 400 MiB/s per node to one shared file. beacon-fwdd must see fwd001
# passing the reader's full 400 MiB per window with a short queue, and
# fwd002 saturated: its reads cut to a fraction, the flood's writes at its
# capacity, a long queue; the truth file names the flood's job. Each of
# the windows is compared with what the OSTs counted in its tick.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"

cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 16
forwarding = 2
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100G
fwd_bw = 1G
job = reader n-n 16 0 100 50M
n1_flood = 1 0 1000 8 400M
EOF
TICKS=4
bcn_sim_fwdd_steps 2 "$TICKS"
# the servers' counters in each tick: the simulator's exact figures
bcn_sim_states 2 $((2 + TICKS - 1))
/usr/bin/python3 "$BCN_SRC/tests/integration/sim_jobstats.py" "$T/records.jsonl" \
	$(seq -f "$T/at%g" 2 $((2 + TICKS - 1))) > "$T/windows.json" ||
	fail "beacon-fwdd's windows against the servers"
/usr/bin/python3 - "$T/windows.json" "$T/truth.jsonl" "$T/sim/slurm/sacct.txt" \
	"$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
got = json.load(open(sys.argv[1]))
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] != "job"]
sacct = [l.split("|") for l in open(sys.argv[3]).read().splitlines()[1:]]
n = int(sys.argv[4])
if not (len(truth) == 1 and truth[0]["kind"] == "n1_flood" and \
    truth[0]["node"] == "fwd002" and truth[0]["nodes"] == 8):
    raise SystemExit("check failed: %r" % ((truth),))
flood = str(truth[0]["job"])
if not ([r[1] for r in sacct if r[0] == flood] == ["n1flood"]):
    raise SystemExit("check failed: %r" % ((sacct),))
if not (len(got["windows"]) == n and len(got["servers"]) == n):
    raise SystemExit("check failed: %d windows, want %d" % (len(got["windows"]), n))
full = 8 * (50 << 20)
for k, (w, sv) in enumerate(zip(got["windows"], got["servers"])):
    w1, w2 = w["fwd001"], w["fwd002"]
    ost = sv["ost"]
    # the reader's own nodes behind fwd001 get all they ask
    if not ("read" in w1 and w1["read"]["bytes"] == full and "write" not in w1):
        raise SystemExit("check failed: window %d: fwd001 %r" % (k + 1, w1))
    if not ("read" in w2 and "write" in w2):
        raise SystemExit("check failed: window %d: fwd002 %r" % (k + 1, sorted(w2)))
    # every byte fwd002 wrote is the flood's, as the OSTs counted it
    fw = ost.get(flood, {}).get("write_bytes", {}).get("sum", 0)
    if not (w2["write"]["bytes"] == fw):
        raise SystemExit("check failed: window %d: fwd002 wrote %d, the OSTs "
                         "counted %d of job %s" % (k + 1, w2["write"]["bytes"], fw, flood))
    # fwd002 is saturated: the reader's share cut, all it passes at capacity
    if not (w2["read"]["bytes"] < 0.5 * full):
        raise SystemExit("check failed: window %d: fwd002 read %d" % (k + 1, w2["read"]["bytes"]))
    if not (abs(w2["read"]["bytes"] + w2["write"]["bytes"] - (1 << 30)) <= 2 << 20):
        raise SystemExit("check failed: window %d: fwd002 passed %d" %
                         (k + 1, w2["read"]["bytes"] + w2["write"]["bytes"]))
    q1, q2 = w1["all"]["queue"], w2["all"]["queue"]
    if not (q2["count"] > 0 and q2["p50"] >= 100):
        raise SystemExit("check failed: window %d: fwd002 queue %r" % (k + 1, q2))
    if not (q1["count"] == 0 or q1["p50"] < 20):
        raise SystemExit("check failed: window %d: fwd001 queue %r" % (k + 1, q1))
w = got["windows"][0]
print("%d windows: fwd001 read" % n, w["fwd001"]["read"]["bytes"], "| fwd002 read",
      w["fwd002"]["read"]["bytes"], "write", w["fwd002"]["write"]["bytes"],
      "(the OSTs' figures), queue p50", w["fwd002"]["all"]["queue"]["p50"], ": ok")
PYEOF
echo "sim_flood: ok"
