#!/usr/bin/env bash
# beacon-clientd's tracer socket against hostile and odd senders: garbage,
# a datagram shorter than its header, a wrong version, a record out of
# range, a gap in the sequence numbers; the daemon must survive, count each
# class, keep the good records, take the pid from the kernel and the job
# from the sender's cgroup (below --root) over the job its datagram claims,
# and report a process without any job as job 0. Then SIGTERM must flush
# what was received.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"

mkdir -p "$T/root/proc"
bcn_clientd_start --node cn0003 --root "$T/root" --interval 1h

/usr/bin/python3 - "$SOCK" "$T/root" > "$T/sent.json" <<'PYEOF' || fail "sender"
import json, os, socket, struct, subprocess, sys
name, root = sys.argv[1], sys.argv[2]
addr = "\0" + name[1:]

def hdr(nrec, job, seq, flags=1, version=1):
    return struct.pack("<IHHIIQQqQQQQQ", 0x54434E42, version, 80, flags, nrec,
                       job, 0, 7, 1, 2, seq, 0, 0)

def rec(op, count, offset, size, stride, path=b""):
    n = 72 + len(path)
    return struct.pack("<BBHiQQQQqqqQ", op, 0, len(path), 5, 0xABCD, offset,
                       size, count, stride, 1000, 5000, 3000) + path + \
        b"\0" * ((8 - n % 8) % 8)

def send(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.sendto(data, addr)
    s.close()

me = os.getpid()
os.makedirs("%s/proc/%d" % (root, me))
with open("%s/proc/%d/cgroup" % (root, me), "w") as f:
    f.write("0::/system.slice/slurmstepd.scope/job_555/step_2/user/task_0\n")
send(os.urandom(3000))                          # garbage
send(hdr(1, 777, 1)[:40])                       # shorter than a header
send(hdr(1, 777, 1, version=9) + rec(3, 1, 0, 1, 0))   # wrong version
# good: an open with its path and a strided write run, claims job 777
send(hdr(2, 777, 1) + rec(0, 1, 0, 0, 0, b"/scratch/x") +
     rec(3, 100, 0, 4096, 8192))
# one good record, then one out of range (op 99)
send(hdr(2, 777, 2) + rec(2, 10, 0, 512, 512) + rec(99, 1, 0, 1, 0))
# sequence 6 after 2: 3, 4, 5 never came
send(hdr(1, 777, 6) + rec(4, 3, 0, 0, 0))
# another process, in no job and claiming none: job 0
child = subprocess.run([sys.executable, "-c", """
import socket, struct
def hdr(nrec, job, seq):
    return struct.pack("<IHHIIQQqQQQQQ", 0x54434E42, 1, 80, 0, nrec, job, 0, -1, 1, 2, seq, 0, 0)
r = struct.pack("<BBHiQQQQqqqQ", 7, 0, 0, -1, 0x99, 0, 0, 1, 0, 10, 20, 10)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(hdr(1, 0, 1) + r, "%s")
import os; print(os.getpid())
""" % addr.replace("\0", "\\0")], capture_output=True, text=True, check=True)
print(json.dumps({"pid": me, "child": int(child.stdout)}))
PYEOF
sleep 0.3
kill -0 "$pid" 2>/dev/null || fail "beacon-clientd died"
bcn_clientd_stop
grep -q '4 datagrams, 5 records for 115 operations, 1 unattributed records, 0 operations dropped by tracers, 0 calls passed untraced, 3 datagrams lost, 3 bad datagrams, 1 bad records' "$T/log" ||
	fail "counts: $(grep 'tracer:' "$T/log")"
"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "decode"
/usr/bin/python3 - "$T/records.jsonl" "$T/sent.json" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
sent = json.loads(open(sys.argv[2]).read())
mine = [r for r in recs if r["pid"] == sent["pid"]]
if not (len(mine) == 4):
    raise SystemExit("check failed: %r" % ((mine),))
if not (all(r["job"] == 555 and r["step"] == 2 and r["rank"] == 7 and
           r["node"] == "cn0003" for r in mine)):
    raise SystemExit("check failed: %r" % ((mine),))
w = [r for r in mine if r["op"] == "write"][0]
if not ((w["count"], w["size"], w["stride"], w["offset"], w["t"], w["dur"],
        w["busy"]) == (100, 4096, 8192, 0, 1000, 4000, 3000)):
    raise SystemExit("check failed: %r" % ((w),))
o = [r for r in mine if r["op"] == "open"][0]
if not (o["path"] == "/scratch/x" and o["file"] == 0xABCD):
    raise SystemExit("check failed: %r" % ((o),))
other = [r for r in recs if r["pid"] == sent["child"]]
if not (len(other) == 1 and other[0]["job"] == 0 and other[0]["op"] == "stat"):
    raise SystemExit("check failed: %r" % ((other),))
print("clientd records: ok")
PYEOF
echo "clientd: ok"
