#!/usr/bin/env bash
# An N-1 job flooding a forwarding node's queue: a 16-node N-N job reads
# 50 MiB/s per node through 2 forwarding nodes (400 MiB/s each, under
# their 1 GiB/s); an injected N-1 job on 8 nodes behind fwd002 writes
# 400 MiB/s per node to one shared file. beacon-fwdd must see fwd001
# passing the reader's full 400 MiB per window with a short queue, and
# fwd002 saturated: its reads cut to a fraction, the flood's writes at its
# capacity, a long queue; the truth file names the flood's job.
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
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$T/sim/slurm/sacct.txt" \
	"$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [json.loads(l) for l in open(sys.argv[2])]
sacct = [l.split("|") for l in open(sys.argv[3]).read().splitlines()[1:]]
n = int(sys.argv[4])
if not (len(truth) == 1 and truth[0]["kind"] == "n1_flood" and \
    truth[0]["node"] == "fwd002" and truth[0]["nodes"] == 8):
    raise SystemExit("check failed: %r" % ((truth),))
if not ([r[1] for r in sacct if int(r[0]) == truth[0]["job"]] == ["n1flood"]):
    raise SystemExit("check failed: %r" % ((sacct),))
by = {}
for r in recs:
    if r["type"] == "fwd_req" and r["count"]:
        by.setdefault((r["node"], r["class"]), []).append(r)
full = 8 * (50 << 20)
r1, r2 = by[("fwd001", "read")], by[("fwd002", "read")]
w2 = by[("fwd002", "write")]
if not (len(r1) == n and all(r["bytes"] == full for r in r1)):
    raise SystemExit("check failed: %r" % (([r["bytes"] for r in r1]),))
if not (len(r2) == n and all(r["bytes"] < 0.5 * full for r in r2)):
    raise SystemExit("check failed: %r" % (([r["bytes"] for r in r2]),))
if not (all(abs(a["bytes"] + b["bytes"] - (1 << 30)) <= 2 << 20
           for a, b in zip(r2, w2))):
    raise SystemExit("check failed: %r" % (([(a["bytes"], b["bytes"]) for a, b in zip(r2, w2)]),))
q1 = by[("fwd001", "all")][-1]["queue"]
q2 = by[("fwd002", "all")][-1]["queue"]
if not (q2["count"] > 0 and q2["p50"] >= 100):
    raise SystemExit("check failed: %r" % ((q2),))
if not (q1["count"] == 0 or q1["p50"] < 20):
    raise SystemExit("check failed: %r" % ((q1),))
print("fwd001 read", r1[0]["bytes"], "| fwd002 read", r2[0]["bytes"], "write",
      w2[0]["bytes"], "queue p50", q2["p50"], ": ok")
PYEOF
echo "sim_flood: ok"
