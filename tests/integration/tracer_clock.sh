#!/usr/bin/env bash
# The tracer's timestamps are the wall clock (tclock.h): a traced program
# reads a file at shuffled offsets for 3.5 s (past the two calibration
# intervals after which, where the kernel's clock source is the
# time-stamp counter, the tracer stops calling clock_gettime) and notes
# CLOCK_REALTIME before and after every pread; every operation's record
# must start and end between those notes (within 20 us), once with the
# counter allowed and once with BEACON_TRACE_TSC=0.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"

echo "clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
head -c $((4096 * 1024)) /dev/zero > "$T/data"
mkdir -p "$T/root/proc"
bcn_clientd_start --node cn0007 --root "$T/root" --interval 1h

for tsc in 1 0; do
	BEACON_TRACE_TSC=$tsc BEACON_TRACE_SOCKET=$SOCK LD_PRELOAD=$TRACE \
		/usr/bin/python3 - "$T/data" > "$T/ops-$tsc.json" <<'PYEOF' ||
import json, os, random, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
offs = list(range(0, 4096 * 1024, 4096))
random.Random(7).shuffle(offs)
ops, end = [], time.time() + 3.5
for off in offs:
    if time.time() > end:
        break
    a = time.time_ns()
    os.pread(fd, 4096, off)
    b = time.time_ns()
    ops.append((off, a, b))
    time.sleep(0.004)
os.close(fd)
print(json.dumps({"pid": os.getpid(), "ops": ops}))
PYEOF
		fail "traced program (BEACON_TRACE_TSC=$tsc)"
done
sleep 0.3
bcn_clientd_stop
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "decode"
for tsc in 1 0; do
	/usr/bin/python3 - "$T/records.jsonl" "$T/ops-$tsc.json" <<'PYEOF' ||
import json, sys
TOL = 20000
sent = json.load(open(sys.argv[2]))
ops = {o[0]: (o[1], o[2]) for o in sent["ops"]}
seen = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["pid"] != sent["pid"] or r["op"] != "read" or r["size"] != 4096:
        continue
    first = r["offset"]
    last = first + (r["count"] - 1) * r["stride"]
    if first not in ops or last not in ops:
        continue
    seen += r["count"]
    (a0, b0), (a1, b1) = ops[first], ops[last]
    t0, t1 = r["t"], r["t"] + r["dur"]
    if not (a0 - TOL <= t0 <= b0 + TOL and a1 - TOL <= t1 <= b1 + TOL):
        raise SystemExit("read at %d: %d..%d, the program saw %d..%d "
                         "(start) and %d..%d (end)"
                         % (first, t0, t1, a0, b0, a1, b1))
if seen != len(ops) or len(ops) < 100:
    raise SystemExit("%d of %d operations in the records" % (seen, len(ops)))
print("%d reads timed within the program's own clock readings" % seen)
PYEOF
		fail "times (BEACON_TRACE_TSC=$tsc)"
done
echo "tracer_clock: ok"
