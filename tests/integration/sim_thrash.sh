#!/usr/bin/env bash
# Forwarding-node cache thrashing seen by the real beacon-fwdd. A 16-node
# N-1 job reads 50 MiB/s per node through 2 forwarding nodes (8 nodes,
# 400 MiB/s each) from a file striped over 4 OSTs that have bandwidth to
# spare; fwd002's cache thrashes (factor 8) during simulated seconds 4 to
# 6. The simulator writes one tick at a time (--until N) and beacon-fwdd
# on each forwarding node, with its Lustre client sampled, closes a window
# after each. Per window, the fwd_rpc records' read bytes summed over the
# OSTs must be 8 times the fwd_req read bytes on fwd002 while it thrashes,
# and equal to them on fwd002 before and after and on fwd001 throughout;
# the request logs pass the same 400 MiB in every window; the truth file
# names the thrashing node. The file system has 6 OSTs: the devices of
# the 2 the file does not touch stay idle and get no record.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"

START=4
DURATION=3
FACTOR=8
cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 16
forwarding = 2
oss = 1
osts_per_oss = 6
stripe_count = 4
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100G
fwd_bw = 1G
job = reader n-1 16 0 1000 50M
cache_thrash = 1 $START $DURATION $FACTOR
EOF
FIRST=2
TICKS=8
bcn_sim_fwdd_steps "$FIRST" "$TICKS" osc
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$FIRST" "$TICKS" \
	"$START" "$DURATION" "$FACTOR" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] != "job"]
first, ticks, start, dur, factor = map(int, sys.argv[3:8])
if not (len(truth) == 1 and truth[0]["kind"] == "cache_thrash" and \
    truth[0]["node"] == "fwd002" and truth[0]["factor"] == factor):
    raise SystemExit("check failed: %r" % ((truth),))
# the file is striped over 4 of the 6 OSTs: the devices of the other two
# never move, and beacon-fwdd sends no record for them
alltargets = {"simfs-OST%04x" % i for i in range(6)}
targets = sorted({r["target"] for r in recs if r["type"] == "fwd_rpc"})
if not (len(targets) == 4 and set(targets) < alltargets):
    raise SystemExit("check failed: %r" % ((targets),))
for node in ("fwd001", "fwd002"):
    mine = [r for r in recs if r["node"] == node]
    req = [r for r in mine if r["type"] == "fwd_req" and r["class"] == "read"]
    rpc = [r for r in mine if r["type"] == "fwd_rpc"]
    # one window per sample after the first; window k holds tick
    # first + k - 1 (0-based simulated second first + k - 1)
    if not (len(req) == ticks - 1):
        raise SystemExit("check failed: %r" % (((node, len(req))),))
    if not (sorted({r["target"] for r in rpc}) == targets):
        raise SystemExit("check failed: %r" % ((rpc),))
    if not (len(rpc) == 4 * (ticks - 1)):
        raise SystemExit("check failed: %r" % (((node, len(rpc))),))
    for k in range(ticks - 1):
        second = first + k
        thrash = node == "fwd002" and start <= second < start + dur
        asked = req[k]["bytes"]
        window = rpc[4 * k:4 * k + 4]
        if not (sorted(r["target"] for r in window) == targets):
            raise SystemExit("check failed: %r" % ((window),))
        read = sum(r["read_bytes"] for r in window)
        rpcs = sum(r["read_rpcs"] for r in window)
        if not (asked == 400 << 20):
            raise SystemExit("check failed: %r" % (((node, second, asked)),))
        want = factor * asked if thrash else asked
        # the thrashing node's reads are whole RPCs of what it asked
        # times FACTOR; within an RPC per OST of it
        if not (abs(read - want) < 4 << 20):
            raise SystemExit("check failed: %r" % (((node, second, read, want)),))
        if not thrash:
            if not (read == asked):
                raise SystemExit("check failed: %r" % (((node, second, read, asked)),))
        if not (want >> 20 <= rpcs <= (want >> 20) + 4):
            raise SystemExit("check failed: %r" % (((node, second, rpcs)),))
        if not (all(r["write_bytes"] == 0 for r in window)):
            raise SystemExit("check failed: %r" % ((window),))
        print(node, "second", second, "asked", asked, "read", read,
              "(x%g)" % (read / asked), "thrashing" if thrash else "", ": ok")
PYEOF
echo "sim_thrash: ok"
