#!/usr/bin/env bash
# beacon-sim's OST service time read by the real beacon-ostd. Two N-1
# jobs of 8 nodes each, striped over the 4 OSTs, one reading and one
# writing 6 MiB/s per node: every OST serves 12 MiB of reads and 12 MiB
# of writes per tick, a quarter of its 100 MiB/s. OST1 is injected at
# factor 0.3 (30 MiB/s: still not saturated). The simulator writes ticks
# 1..6 one at a time (--until N) and beacon-ostd (oss001: OST0000 and
# OST0001) samples after each, brw_stats on. Per interval and OST, the
# whole-target records' I/O time histograms must count exactly the bulk
# I/Os the OST served (12 reads, 12 writes: the stats' RPCs and the pages
# histogram too), both OSTs serve all they are asked (the slow one is not
# saturated), and the slow OST's mean disk I/O time (each row at 3/4 of
# its label) is at least twice the healthy one's, each near the model's
# (ost_io_ms 8 / (1 - 0.24), divided by 0.3 on OST1); the forwarding
# nodes' osc stats wait that long per RPC (req_waittime, ost_read,
# ost_write), and the truth line gives the ratio 1 / 0.3.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
OSTD=$BCN_BUILD/collectors/ost/beacon-ostd

cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 16
oss = 2
osts_per_oss = 2
mds = 1
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100M
fwd_bw = 100G
stripe_count = 4
ost_io_ms = 8
job = rd n-1 8 0 1000 6M
job = wr n-1 8 0 10 6M 1 1
slow_ost = 1 0.3 0 1000
EOF
TICKS=6
"$SIM" --config "$T/sim.conf" --seed 7 --until 1 2> "$T/sim.log" ||
	fail "beacon-sim"
[ -f "$T/sim/oss001/sys/kernel/debug/lustre/osd-ldiskfs/simfs-OST0001/brw_stats" ] ||
	fail "no brw_stats in debugfs"
"$OSTD" --root "$T/sim/oss001" --node oss001 --output "$T/ost.bin" \
	--no-exports --interval 1h --count "$TICKS" --idle-records \
	--read-budget-us 0 --log-level info 2> "$T/ostd.log" &
pids+=($!)
bcn_wait_sample "$T/ostd.log" 1 "${pids[0]}"
for k in $(seq 2 "$TICKS"); do
	"$SIM" --config "$T/sim.conf" --seed 7 --until "$k" 2>> "$T/sim.log" ||
		fail "beacon-sim --until $k"
	kill -USR1 "${pids[0]}"
	bcn_wait_sample "$T/ostd.log" "$k" "${pids[0]}"
done
wait "${pids[0]}" || fail "beacon-ostd exit status"
pids=()
grep -q "brw_stats '.*osd-ldiskfs/simfs-OST0001/brw_stats'" "$T/ostd.log" ||
	fail "beacon-ostd did not find the brw_stats"
"$BEACON" decode "$T/ost.bin" > "$T/records.jsonl" || fail "decode"
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$T/sim" \
	"$((TICKS - 1))" <<'PYEOF' || fail "records"
import glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] == "slow_ost"]
out, n = sys.argv[3], int(sys.argv[4])
MIB = 1 << 20
per = 12  # bulk I/Os of 1 MiB per tick, per OST and direction


def fail(msg):
    raise SystemExit("check failed: " + msg)


def mean(h):
    """Mean of a log2 ms histogram, bucket i (Lustre's (2^(i-1), 2^i])
    taken at 3/4 of 2^i, bucket 0 at 1."""
    c = sum(h)
    return sum(v * (0.75 * (1 << i) if i else 1) for i, v in enumerate(h)) / c


if not (len(truth) == 1 and truth[0]["factor"] == 0.3 and
        abs(truth[0]["io_time_ratio"] - 1 / 0.3) < 1e-4):
    fail("truth %r" % truth)
means = {}
for target in ("simfs-OST0000", "simfs-OST0001"):
    whole = [r for r in recs if r["type"] == "ost" and r["target"] == target
             and r["jobid"] == "" and r["client"] == ""]
    if len(whole) != n:
        fail("%s: %d records" % (target, len(whole)))
    for r in whole:
        for d, op in (("read", "read"), ("write", "write")):
            if r[d + "_bytes"] != per * MIB:
                fail("%s %s bytes %d (saturated?)" % (target, d, r[d + "_bytes"]))
            ios = sum(r["iotime_" + d])
            if not (ios == per == r["ops"][op] == sum(r["pages_" + d])):
                fail("%s %s: %d I/Os timed, %d RPCs, %d in pages" %
                     (target, d, ios, r["ops"][op], sum(r["pages_" + d])))
    hist = [0] * 32
    for r in whole:
        for d in ("read", "write"):
            for i, v in enumerate(r["iotime_" + d]):
                hist[i] += v
    means[target] = mean(hist)
model = 8 / (1 - 24 / 100)
healthy, slow = means["simfs-OST0000"], means["simfs-OST0001"]
if not (0.75 * model < healthy < 1.25 * model):
    fail("healthy mean %.1f ms, model %.1f" % (healthy, model))
if not (0.75 * model / 0.3 < slow < 1.25 * model / 0.3):
    fail("slow mean %.1f ms, model %.1f" % (slow, model / 0.3))
if not slow >= 2 * healthy:
    fail("slow %.1f ms vs healthy %.1f ms" % (slow, healthy))
print("mean disk I/O time: healthy %.1f ms, slow %.1f ms (model %.1f, %.1f)"
      % (healthy, slow, model, model / 0.3))


def waits(target):
    """{counter: (samples, sum)} of the [usecs] counters of the osc
    devices of target on every forwarding node."""
    w = {}
    for path in glob.glob("%s/fwd*/sys/kernel/debug/lustre/osc/%s-osc-*/stats"
                          % (out, target)):
        for ln in open(path):
            f = ln.split()
            if len(f) >= 7 and f[3] == "[usecs]":
                s, t = w.get(f[0], (0, 0))
                w[f[0]] = (s + int(f[1]), t + int(f[6]))
    return w


avg = {}
for target in ("simfs-OST0000", "simfs-OST0001"):
    w = waits(target)
    for c in ("req_waittime", "ost_read", "ost_write"):
        if not (c in w and w[c][0] > 0 and w[c][1] > 0):
            fail("%s %s: %r" % (target, c, w.get(c)))
    if w["req_waittime"][1] < w["ost_read"][1] + w["ost_write"][1]:
        fail("%s: req_waittime %r" % (target, w))
    avg[target] = (w["ost_read"][1] + w["ost_write"][1]) / (
        w["ost_read"][0] + w["ost_write"][0]) / 1000
if not (0.9 * model < avg["simfs-OST0000"] < 1.1 * model and
        0.9 * model / 0.3 < avg["simfs-OST0001"] < 1.1 * model / 0.3):
    fail("osc waiting times %r ms, model %.1f" % (avg, model))
print("osc mean wait per RPC: %r ms" % avg)
PYEOF
echo "sim_brw: ok"
