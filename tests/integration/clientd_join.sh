#!/usr/bin/env bash
# beacon-clientd joins again the runs the tracer's flush cut (issue 18):
# a read run and a write run continued by the next datagram of the same
# process come out as one record each, with the operations, times and
# busy time of both parts; a run that does not continue its file's
# (another offset) and runs of another process are kept apart; what is
# held back goes out at the stream's end, and at SIGTERM for a stream
# without its end (the first process's). Nothing is lost: the records
# hold exactly the operations sent.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"

mkdir -p "$T/root/proc"
bcn_clientd_start --node cn0004 --root "$T/root" --interval 1h

/usr/bin/python3 - "$SOCK" > "$T/sent.json" <<'PYEOF' || fail "sender"
import json, os, socket, struct, subprocess, sys
HELPERS = """
import socket, struct
def hdr(nrec, seq, flags=1):
    return struct.pack("<IHHIIQQqQQQQQ", 0x54434E42, 1, 80, flags, nrec,
                       321, 0, 3, 1, 2, seq, 0, 0)
def rec(op, fd, file, count, offset, size, stride, first, last, busy):
    return struct.pack("<BBHiQQQQqqqQ", op, 0, 0, fd, file, offset, size,
                       count, stride, first, last, busy)
def send(name, datagrams):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    for d in datagrams:
        s.sendto(d, "\\0" + name)
"""
exec(HELPERS)
name = sys.argv[1][1:]
R, W = 2, 3
A, B = 0xA, 0xB
send(name, [
    # datagram 1: a read run of file A, a write of file B
    hdr(2, 1) + rec(R, 5, A, 3, 0, 4096, 4096, 1000, 5000, 3000) +
    rec(W, 6, B, 1, 0, 100, 0, 5100, 5100, 50),
    # datagram 2 continues both, then reads A again from its start
    hdr(3, 2) + rec(R, 5, A, 2, 12288, 4096, 4096, 6000, 7000, 1500) +
    rec(W, 6, B, 1, 100, 100, 0, 7100, 7100, 40) +
    rec(R, 5, A, 1, 0, 4096, 0, 8000, 8000, 20),
])
# another process: a read continued by its end datagram
child = subprocess.run([sys.executable, "-c", HELPERS + """
import os, sys
send(sys.argv[1], [
    hdr(1, 1) + rec(2, 5, 0xA, 1, 4096, 4096, 0, 100, 100, 10),
    hdr(1, 2, 1 | 0x4) + rec(2, 5, 0xA, 4, 8192, 4096, 4096, 200, 500, 40),
])
print(os.getpid())
""", name], capture_output=True, text=True, check=True)
print(json.dumps({"pid": os.getpid(), "child": int(child.stdout)}))
PYEOF
sleep 0.3
kill -0 "$pid" 2>/dev/null || fail "beacon-clientd died"
bcn_clientd_stop
grep -q '4 datagrams, 4 records for 13 operations' "$T/log" ||
	fail "counts: $(grep 'tracer:' "$T/log")"
grep -q '3 runs joined to the run a flush cut' "$T/log" ||
	fail "joins: $(grep 'tracer:' "$T/log")"
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "decode"
/usr/bin/python3 - "$T/records.jsonl" "$T/sent.json" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
sent = json.loads(open(sys.argv[2]).read())
def key(r):
    return (r["op"], r["file"], r["offset"], r["count"], r["size"],
            r["stride"], r["t"], r["dur"], r["busy"])
mine = sorted(key(r) for r in recs if r["pid"] == sent["pid"])
want = sorted([
    ("read", 0xA, 0, 5, 4096, 4096, 1000, 6000, 4500),      # joined
    ("write", 0xB, 0, 2, 100, 100, 5100, 2000, 90),         # joined
    ("read", 0xA, 0, 1, 4096, 0, 8000, 0, 20),              # apart
])
if mine != want:
    raise SystemExit("process 1: %r, want %r" % (mine, want))
other = [key(r) for r in recs if r["pid"] == sent["child"]]
if other != [("read", 0xA, 4096, 5, 4096, 4096, 100, 400, 50)]:
    raise SystemExit("process 2: %r" % (other,))
print("clientd join records: ok")
PYEOF
echo "clientd_join: ok"
