#!/usr/bin/env bash
# A traced process's datagrams reach the daemon while it runs, a batch at
# a time (docs/tracer.md, "Guarantees"), and the rest at its end: a process
# reads a file at random offsets, enough for about twenty datagrams, then
# waits on a pipe, its flush interval ten minutes. (1) While it waits the
# daemon has part of its reads (the batches it sent) but not all (its
# open runs and the datagrams not yet a batch wait for a flush or its
# end); (2) once let go it exits, and every read has arrived with nothing
# counted dropped or lost. The daemon runs without columns
# (frame_columnar_cpu 0), so its frames are rows with io records in the
# delta form (docs/protocol.md, "Delta io rows"): every frame says so.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"
N=40000
head -c $((4096 * 1024)) /dev/zero > "$T/data"
mkfifo "$T/go"
exec 3<> "$T/go"

bcn_clientd_start --node cn0011 --interval 1s --frame-age 0 \
	--frame-columnar-cpu 0

# (the program from a file: stdin is the pipe it waits on)
cat > "$T/tracee.py" <<'PYEOF'
import os, random, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
rnd = random.Random(11)
for _ in range(int(sys.argv[2])):
    os.pread(fd, 4096, 4096 * rnd.randrange(1024))
with open(sys.argv[3], "w") as f:
    f.write("%d\n" % os.getpid())
if sys.stdin.readline() != "go\n":
    sys.exit("no go on the pipe")
os.close(fd)
PYEOF
BEACON_TRACE_FLUSH_MS=600000 BEACON_TRACE_EXIT_WAIT_MS=60000 \
	BEACON_TRACE_SOCKET=$SOCK LD_PRELOAD=$TRACE \
	/usr/bin/python3 "$T/tracee.py" "$T/data" "$N" "$T/ready" < "$T/go" &
tracee=$!

# Prints the 4 KiB reads of file $2 by process $1 in the frames so far
# (the file known by its open's path).
reads_of() {
	"$BEACON" decode "$T/out.bin" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
pid, path = int(sys.argv[1]), sys.argv[2]
recs = [json.loads(l) for l in sys.stdin]
ids = {r["file"] for r in recs if r.get("op") == "open" and r.get("path") == path}
print(sum(r["count"] for r in recs if r.get("pid") == pid and
          r.get("op") == "read" and r.get("size") == 4096 and r["file"] in ids))' "$1" "$2"
}

for _ in $(seq 1 600); do
	[ -s "$T/ready" ] && break
	kill -0 "$tracee" 2>/dev/null || fail "the traced program ended early"
	sleep 0.1
done
[ -s "$T/ready" ] || fail "the traced program did not finish its reads"
tpid=$(cat "$T/ready")
seen=0
for _ in $(seq 1 300); do
	seen=$(reads_of "$tpid" "$T/data" || echo 0)
	[ "$seen" -gt 0 ] && break
	sleep 0.2
done
[ "$seen" -gt 0 ] ||
	fail "none of the waiting process's $N reads reached the daemon"
[ "$seen" -lt "$N" ] ||
	fail "all $N reads arrived before the process flushed or ended"
echo "while the process waits: $seen of $N reads arrived"

echo go >&3
wait "$tracee" || fail "traced program"
exec 3>&-
sleep 0.3
bcn_clientd_stop
all=$(reads_of "$tpid" "$T/data")
[ "$all" -eq "$N" ] || fail "$all of $N reads arrived after the process ended"
grep -q "notice: tracer: .* 0 operations dropped by tracers, 0 calls passed untraced, 0 datagrams lost, 0 bad datagrams, 0 bad records" "$T/log" ||
	fail "the daemon counted a loss: $(grep 'notice: tracer:' "$T/log")"
/usr/bin/python3 - "$T/out.bin" <<'PYEOF' || fail "frame flags"
import struct, sys
b = open(sys.argv[1], "rb").read()
off = n = 0
while off < len(b):
    flags, body = b[off + 6], struct.unpack_from("<I", b, off + 8)[0]
    if b[off + 5] == 1 and not flags & 0x10:
        raise SystemExit("a frame at %d without the delta rows flag: %#x"
                         % (off, flags))
    off += 32 + body
    n += 1
if n == 0:
    raise SystemExit("no frames")
PYEOF
echo "tracer_batch: ok ($seen reads while it waited, all $N at its end)"
