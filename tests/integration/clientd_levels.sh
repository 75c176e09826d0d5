#!/usr/bin/env bash
# beacon-clientd's frame_zstd_level changes the bytes, never the records:
# the same datagrams (several at once, more than one recvmmsg call takes,
# with random offsets that do not compress, and runs the daemon joins)
# sent to the daemon at level 19, at level -7 (with the small hash table
# of negative levels) and at the default must give the same records, all
# of them, in frames of different sizes.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"

mkdir -p "$T/root/proc"
for level in 19 -7 default; do
	# (rows: frame_codec zstd; auto's columns have a level of their own)
	if [ "$level" = default ]; then
		bcn_clientd_start --node cn0005 --root "$T/root" --interval 1h \
			--frame-codec zstd
	else
		bcn_clientd_start --node cn0005 --root "$T/root" --interval 1h \
			--frame-codec zstd --frame-zstd-level "$level"
	fi
	/usr/bin/python3 - "$SOCK" <<'PYEOF' || fail "sender"
import random, socket, struct, sys
addr = "\0" + sys.argv[1][1:]
rnd = random.Random(18)

def hdr(nrec, seq, flags=1):
    return struct.pack("<IHHIIQQqQQQQQ", 0x54434E42, 1, 80, flags, nrec,
                       4242, 0, 3, 1, 2, seq, 0, 0)

def rec(op, fd, file, count, offset, size, stride, t):
    return struct.pack("<BBHiQQQQqqqQ", op, 0, 0, fd, file, offset,
                       size, count, stride, t, t + 700, 600)

s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
t = 10**18
# 9 datagrams back to back: the daemon finds several queued
for seq in range(1, 10):
    recs = []
    for i in range(300):
        t += rnd.randrange(1000, 90000)
        # never 4 KiB apart: no two reads join
        recs.append(rec(2, 5, 0xABCD, 1, rnd.randrange(1 << 14) * 8192,
                        4096, 0, t))
    # a sequential write run (another file) that the next datagram
    # continues: the daemon joins the nine into one record
    recs.append(rec(3, 6, 0xBEEF, 10, (seq - 1) * 10 * 8192, 8192, 8192,
                    t + 5))
    s.sendto(hdr(len(recs), seq) + b"".join(recs), addr)
s.sendto(hdr(0, 10, flags=4), addr)             # the end of the stream
PYEOF
	sleep 0.3
	kill -0 "$pid" 2>/dev/null || fail "beacon-clientd died (level $level)"
	bcn_clientd_stop
	grep -q '10 datagrams, 2701 records for 2790 operations' "$T/log" ||
		fail "level $level: $(grep 'tracer:' "$T/log")"
	mv "$T/out.bin" "$T/out$level.bin"
	"$BEACON" decode "$T/out$level.bin" > "$T/rec$level.jsonl" ||
		fail "decode (level $level)"
done
/usr/bin/python3 - "$T" <<'PYEOF' || fail "records"
import json, os, sys
t = sys.argv[1]
def recs(level):
    out = []
    for line in open("%s/rec%s.jsonl" % (t, level)):
        r = json.loads(line)
        del r["pid"]            # the sender differs from run to run
        out.append(r)
    return out
a, b, c = recs("19"), recs("-7"), recs("default")
if not (len(a) == 2701 and a == b == c):
    raise SystemExit("records differ: %d %d %d" % (len(a), len(b), len(c)))
w = [r for r in a if r["op"] == "write"]
if not (len(w) == 1 and w[0]["count"] == 90 and w[0]["offset"] == 0):
    raise SystemExit("joined run: %r" % (w,))
sizes = [os.path.getsize("%s/out%s.bin" % (t, l))
         for l in ("19", "-7", "default")]
if not (sizes[0] < sizes[2] < sizes[1]):
    raise SystemExit("frame bytes do not follow the level: %r" % (sizes,))
print("levels: ok", sizes)
PYEOF
echo "clientd_levels: ok"
