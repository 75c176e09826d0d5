#!/usr/bin/env bash
# beacon-sim's forwarding layer read by the real beacon-fwdd. 16 compute
# nodes forward through 2 forwarding nodes (8 each); a 16-node N-N job
# reads at 200 MiB/s per node, more than a forwarding node's 1 GiB/s;
# fwd002 is injected at half speed. The simulator appends one tick of
# request lines at a time (--until N) and beacon-fwdd on each forwarding
# node closes a window after each. Per window, fwd001 must have served
# 1 GiB in 1 MiB requests, fwd002 half of it (the truth file's factor),
# with twice the service time per request.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"

cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 16
forwarding = 2
oss = 1
osts_per_oss = 4
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100G
fwd_bw = 1G
job = nn n-n 16 0 100 200M
slow_fwd = 1 0.5 0 1000
EOF
TICKS=5
bcn_sim_fwdd_steps 1 "$TICKS"
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] != "job"]
n = int(sys.argv[3])
if not (truth == [dict(truth[0], kind="slow_fwd", node="fwd002", factor=0.5)]):
    raise SystemExit("check failed: %r" % ((truth),))
reads = {}
for r in recs:
    if r["type"] == "fwd_req" and r["class"] == "read" and r["count"]:
        reads.setdefault(r["node"], []).append(r)
if not (sorted(reads) == ["fwd001", "fwd002"]):
    raise SystemExit("check failed: %r" % ((sorted(reads)),))
for node, want in (("fwd001", 1 << 30), ("fwd002", 1 << 29)):
    rs = reads[node]
    if not (len(rs) == n):
        raise SystemExit("check failed: %r" % (((node, len(rs))),))
    for r in rs:
        if not (abs(r["bytes"] - want) <= want * 1e-6):
            raise SystemExit("check failed: %r" % (((node, r["bytes"], want)),))
        if not (r["count"] == want >> 20):
            raise SystemExit("check failed: %r" % (((node, r["count"])),))
    print(node, "read bytes per window", rs[0]["bytes"], "ok")
p1 = reads["fwd001"][-1]["proc"]["p50"]
p2 = reads["fwd002"][-1]["proc"]["p50"]
if not (1.9 * p1 <= p2 <= 2.1 * p1):
    raise SystemExit("check failed: %r" % (((p1, p2)),))
print("service time p50: fwd001", p1, "us, fwd002", p2, "us: ok")
PYEOF
# the compute-to-forwarding map the simulator writes next to its sacct
# (docs/jobdb.md): 8 compute nodes per forwarding node, as served above
grep -v '^#' "$T/sim/slurm/fwdmap.txt" > "$T/fwdmap.lines"
printf 'cn[00001-00008] fwd001\ncn[00009-00016] fwd002\n' | cmp -s - "$T/fwdmap.lines" ||
	{ echo "FAIL: fwdmap.txt: $(cat "$T/sim/slurm/fwdmap.txt")" >&2; exit 1; }
echo "sim_fwd: ok"
