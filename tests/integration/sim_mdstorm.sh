#!/usr/bin/env bash
# A metadata storm on a shared forwarding node, as the paper found it: a
# 16-node N-N job reads 100 MiB/s per node through 2 forwarding nodes
# (800 MiB/s each, under their 1 GiB/s); a one-node process behind fwd002
# asks 100,000 metadata operations a second, each taking a server thread
# 100 us. beacon-fwdd on both forwarding nodes must see: fwd001 passing
# the job's full 800 MiB per window; fwd002 passing clearly less (the
# storm takes its threads) plus the storm's metadata requests; and the
# truth file naming the storm's job and forwarding node.
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
mdt_ops = 10000000
fwd_bw = 1G
fwd_md_cost_us = 100
job = reader n-n 16 0 100 100M
md_storm = 1 0 1000 100000
EOF
TICKS=4
bcn_sim_fwdd_steps 1 "$TICKS"
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [json.loads(l) for l in open(sys.argv[2])]
n = int(sys.argv[3])
if not (len(truth) == 1 and truth[0]["kind"] == "md_storm" and \
    truth[0]["node"] == "fwd002" and truth[0]["rate"] == 100000):
    raise SystemExit("check failed: %r" % ((truth),))
by = {}
for r in recs:
    if r["type"] == "fwd_req" and r["count"]:
        by.setdefault((r["node"], r["class"]), []).append(r)
full = 8 * (100 << 20)
r1 = by[("fwd001", "read")]
if not (len(r1) == n and all(r["bytes"] == full for r in r1)):
    raise SystemExit("check failed: %r" % (([r["bytes"] for r in r1]),))
r2 = by[("fwd002", "read")]
if not (len(r2) == n and all(r["bytes"] < 0.75 * full for r in r2)):
    raise SystemExit("check failed: %r" % (([r["bytes"] for r in r2]),))
meta = by[("fwd002", "meta")]
if not (len(meta) == n and all(r["count"] > 50000 for r in meta)):
    raise SystemExit("check failed: %r" % (([r["count"] for r in meta]),))
if not (("fwd001", "meta") not in by):
    raise SystemExit('check failed: ("fwd001", "meta") not in by')
print("fwd001 read", r1[0]["bytes"], "| fwd002 read", r2[0]["bytes"],
      "with", meta[0]["count"], "metadata requests per window: ok")
PYEOF
echo "sim_mdstorm: ok"
