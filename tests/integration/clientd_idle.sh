#!/usr/bin/env bash
# An idle beacon-clientd does not wake (docs/clientd.md, "Idle"): with
# only the tracer as a source, no traced process followed and nothing
# left to report, it skips its ticks until a datagram comes. With a
# 100 ms interval the daemon (1) idles 2 s: at most its first sample;
# (2) a traced program reads a file and exits: its reads arrive, in
# frames cut by the resumed ticks (frame_age 0: a frame a sample), and
# the daemon is told of the end; (3) it idles 2 s again; (4) SIGTERM.
# A daemon ticking through the idle spells would take 40 samples or
# more; this one takes its first, a few while the program runs and its
# end is handled, and one on stop.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"
N=2000
head -c $((4096 * 256)) /dev/zero > "$T/data"

bcn_clientd_start --node cn0012 --interval 100ms --frame-age 0 \
	--stats-file "$T/stats"
sleep 2

BEACON_TRACE_SOCKET=$SOCK LD_PRELOAD=$TRACE /usr/bin/python3 - "$T/data" "$N" <<'PYEOF' ||
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(int(sys.argv[2])):
    os.pread(fd, 4096, 4096 * (i * 7 % 256))
os.close(fd)
PYEOF
	fail "traced program"
sleep 2
bcn_clientd_stop

reads=$("$BEACON" decode "$T/out.bin" | /usr/bin/python3 -c '
import json, sys
print(sum(r["count"] for r in map(json.loads, sys.stdin)
          if r.get("op") == "read" and r.get("size") == 4096))')
[ "$reads" -eq "$N" ] || fail "$reads of $N reads arrived"
/usr/bin/python3 - "$T/stats" <<'PYEOF' || fail "samples: $(cat "$T/stats")"
import json, sys
st = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print("clientd_idle: %d samples in about 4.5 s at 100 ms, %d frames"
      % (st["samples"], st["frames"]))
if not (st["frames"] >= 1 and st["samples"] <= 15):
    raise SystemExit("an idle daemon took %d samples" % st["samples"])
PYEOF
echo "clientd_idle: ok ($N reads)"
