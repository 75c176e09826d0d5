#!/usr/bin/env bash
# A metadata storm on a shared forwarding node, as the paper found it: a
# 16-node N-N job reads 100 MiB/s per node through 2 forwarding nodes
# (800 MiB/s each, under their 1 GiB/s); a one-node process behind fwd002
# asks 100,000 metadata operations a second, each taking a server thread
# 100 us. beacon-fwdd on both forwarding nodes must see: fwd001 passing
# the job's full 800 MiB per window; fwd002 passing clearly less (the
# storm takes its threads) plus the storm's metadata requests; and the
# truth file naming the storm's job and forwarding node. Each of the
# windows is compared with what the OSTs and the MDT counted in its tick.
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
# the servers' counters in each tick: the simulator's exact figures
bcn_sim_states 1 "$TICKS"
/usr/bin/python3 "$BCN_SRC/tests/integration/sim_jobstats.py" "$T/records.jsonl" \
	$(seq -f "$T/at%g" 1 "$TICKS") > "$T/windows.json" ||
	fail "beacon-fwdd's windows against the servers"
/usr/bin/python3 - "$T/windows.json" "$T/truth.jsonl" "$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
got = json.load(open(sys.argv[1]))
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] != "job"]
n = int(sys.argv[3])
if not (len(truth) == 1 and truth[0]["kind"] == "md_storm" and \
    truth[0]["node"] == "fwd002" and truth[0]["rate"] == 100000):
    raise SystemExit("check failed: %r" % ((truth),))
storm = str(truth[0]["job"])
if not (len(got["windows"]) == n and len(got["servers"]) == n):
    raise SystemExit("check failed: %d windows, want %d" % (len(got["windows"]), n))
full = 8 * (100 << 20)
ops = ("open", "close", "getattr", "mknod", "unlink")
for k, (w, sv) in enumerate(zip(got["windows"], got["servers"])):
    w1, w2 = w["fwd001"], w["fwd002"]
    if not ("read" in w1 and w1["read"]["bytes"] == full and "meta" not in w1):
        raise SystemExit("check failed: window %d: fwd001 %r" % (k + 1, w1))
    if not ("read" in w2 and w2["read"]["bytes"] < 0.75 * full):
        raise SystemExit("check failed: window %d: fwd002 %r" % (k + 1, w2.get("read")))
    # every metadata request fwd002 forwarded is the storm's, as the MDT
    # counted it; the storm is there: over half its rate got through
    md = sv["mdt"].get(storm, {})
    want = sum(md.get(o, {}).get("samples", 0) for o in ops)
    if not ("meta" in w2 and w2["meta"]["count"] == want):
        raise SystemExit("check failed: window %d: fwd002 forwarded %r metadata "
                         "requests, the MDT counted %d of job %s"
                         % (k + 1, w2.get("meta", {}).get("count"), want, storm))
    if not (want > truth[0]["rate"] // 2):
        raise SystemExit("check failed: window %d: %d metadata requests" % (k + 1, want))
w = got["windows"][0]
print("%d windows: fwd001 read" % n, w["fwd001"]["read"]["bytes"], "| fwd002 read",
      w["fwd002"]["read"]["bytes"], "with", w["fwd002"]["meta"]["count"],
      "metadata requests (the MDT's figures): ok")
PYEOF
echo "sim_mdstorm: ok"
