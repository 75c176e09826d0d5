#!/usr/bin/env bash
# No silent loss when traced processes end together (docs/tracer.md,
# "Nothing lost in silence"). Inside its own user and network namespace the test sets
# the kernel's queue of a Unix datagram socket to 10 (the default that
# lost a rank's last datagram when 32 ranks exited at once) and runs
# tests/tools/exitstorm: 64 traced processes write, wait for each other
# and exit at the same moment, three times. (1) With the daemon running,
# every operation of every process arrives, each process's stream ends
# with its end datagram, and nothing is counted lost. (2) With the daemon
# stopped (SIGSTOP) while they exit, longer than their exit wait, what cannot
# arrive is counted: the streams whose end never came are found once the
# processes are gone (cut), started and ended or cut streams account for
# every process, every process whose writes did not all arrive has a
# trace_loss record in its job saying what it lost, and the operations
# received plus those counted dropped never exceed what was done.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
if [ "${BCN_IN_NETNS:-}" != 1 ]; then
	if ! unshare -rn true 2>/dev/null; then
		echo "SKIP: no user and network namespaces here (unshare -rn)"
		exit 77
	fi
	BCN_IN_NETNS=1 exec unshare -rn bash "$0" "$@"
fi
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"
STORM=$BCN_BUILD/tests/exitstorm
N=64 OPS=2000 ROUNDS=3
echo 10 > /proc/sys/net/unix/max_dgram_qlen || fail "cannot set net.unix.max_dgram_qlen"
[ "$(cat /proc/sys/net/unix/max_dgram_qlen)" = 10 ] || fail "max_dgram_qlen is not 10"

# Prints the daemon's final counts as JSON.
counts() {
	/usr/bin/python3 - "$T/log" <<'PYEOF'
import json, re, sys
line = [l for l in open(sys.argv[1]) if "notice: tracer:" in l]
if len(line) != 1:
    raise SystemExit("no final tracer line in the log")
m = re.search(r"tracer: (\d+) datagrams, (\d+) records for (\d+) operations, "
              r"(\d+) unattributed records, (\d+) operations dropped by tracers, "
              r"(\d+) calls passed untraced, (\d+) datagrams lost, (\d+) bad "
              r"datagrams, (\d+) bad records; (\d+) process streams ended, "
              r"(\d+) of them with a thread's runs lost, (\d+) cut", line[0])
if not m:
    raise SystemExit("unexpected tracer line: " + line[0])
k = ["datagrams", "records", "ops", "unattributed", "dropped", "untraced",
     "lost", "bad_datagrams", "bad_records", "ended", "partial", "cut"]
print(json.dumps(dict(zip(k, map(int, m.groups())))))
PYEOF
}

# Per pid, the write operations the records stand for, and the
# trace_loss records, as JSON.
writes_per_pid() {
	"$BEACON" decode "$T/out.bin" | /usr/bin/python3 -c '
import collections, json, sys
c = collections.Counter()
loss = []
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] == "trace_loss":
        loss.append(r)
    elif r.get("op") == "write":
        c[r["pid"]] += r["count"]
print(json.dumps({"writes": c, "loss": loss}))'
}

# (1) the daemon running: nothing lost
bcn_clientd_start --node cn0009 --interval 1s
for r in $(seq 1 "$ROUNDS"); do
	mkdir "$T/r$r"
	BEACON_TRACE_EXIT_WAIT_MS=60000 BEACON_TRACE_SOCKET=$SOCK LD_PRELOAD=$TRACE \
		"$STORM" "$T/r$r" "$N" "$OPS" 0 >> "$T/pids.jsonl" || fail "exitstorm round $r"
	rm -rf "$T/r$r"
done
bcn_clientd_stop
counts > "$T/counts1.json" || fail "counts"
writes_per_pid > "$T/writes1.json" || fail "decode"
/usr/bin/python3 - "$T/counts1.json" "$T/writes1.json" "$T/pids.jsonl" "$N" "$ROUNDS" <<'PYEOF' || fail "part 1: $(cat "$T/counts1.json")"
import json, sys
c = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
w = {int(k): v for k, v in got["writes"].items()}
kids = [json.loads(l) for l in open(sys.argv[3])]
n, rounds = int(sys.argv[4]), int(sys.argv[5])
assert got["loss"] == [], "trace_loss records although nothing was lost: %r" % got["loss"][:3]
assert len(kids) == n * rounds, len(kids)
short = [(k["pid"], w.get(k["pid"], 0), k["ops"]) for k in kids
         if w.get(k["pid"], 0) != k["ops"]]
assert not short, "processes whose writes did not all arrive: %r" % short[:5]
assert sum(w.values()) == sum(k["ops"] for k in kids), (sum(w.values()))
# every child and every parent started and ended its stream
assert c["ended"] == (n + 1) * rounds, c
assert c["cut"] == 0 and c["partial"] == 0, c
assert c["dropped"] == 0 and c["lost"] == 0, c
assert c["bad_datagrams"] == 0 and c["bad_records"] == 0, c
PYEOF
mv "$T/log" "$T/log1.txt"

# (2) the daemon stopped while they exit: losses are counted, not silent
rm -f "$T/out.bin"
bcn_clientd_start --node cn0009 --interval 1s
mkdir "$T/p2"
# the wait (1 s) covers each process's start datagram while the daemon
# runs; at the end the daemon is stopped for longer than that
SLURM_JOB_ID=777 BEACON_TRACE_FLUSH_MS=50 BEACON_TRACE_EXIT_WAIT_MS=1000 BEACON_TRACE_SOCKET=$SOCK \
	LD_PRELOAD=$TRACE "$STORM" "$T/p2" "$N" 1000 300 "$T/go" \
	> "$T/pids2.jsonl" 2> "$T/storm2.err" &
spid=$!
for _ in $(seq 1 1200); do
	grep -q ready "$T/storm2.err" && break
	kill -0 "$spid" 2>/dev/null || fail "exitstorm ended early: $(cat "$T/storm2.err")"
	sleep 0.1
done
grep -q ready "$T/storm2.err" || fail "exitstorm's children never got ready"
kill -STOP "$pid"
touch "$T/go"
wait "$spid" || { kill -CONT "$pid"; fail "exitstorm (part 2)"; }
kill -CONT "$pid"
# a stream is looked for in /proc once its process has been silent for
# 10 s (BCN_TSOCK_GONE_NS); the daemon looks each second
sleep 13
bcn_clientd_stop
counts > "$T/counts2.json" || fail "counts"
writes_per_pid > "$T/writes2.json" || fail "decode"
grep -q 'process streams cut or partial' "$T/log" || fail "the daemon did not warn of the cut streams"
/usr/bin/python3 - "$T/counts2.json" "$T/writes2.json" "$T/pids2.jsonl" "$N" <<'PYEOF' || fail "part 2: $(cat "$T/counts2.json")"
import json, sys
c = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
w = {int(k): v for k, v in got["writes"].items()}
loss = {r["pid"]: r for r in got["loss"]}
kids = [json.loads(l) for l in open(sys.argv[3])]
n = int(sys.argv[4])
# every process whose writes did not all arrive has a trace_loss record
# saying so: its stream cut, or operations dropped, or datagrams lost
for k in kids:
    if w.get(k["pid"], 0) != k["ops"]:
        l = loss.get(k["pid"])
        assert l and (l["cut"] or l["dropped_ops"] or l["lost_datagrams"]), \
            "process %d lost writes (%d of %d) with no trace_loss record: %r" % (
                k["pid"], w.get(k["pid"], 0), k["ops"], l)
assert sum(1 for l in got["loss"] if l["cut"]) == c["cut"], (got["loss"], c)
# in the job the processes said they ran in
assert all(l["job"] == 777 for l in got["loss"]), got["loss"][:3]
done = sum(k["ops"] for k in kids)
assert len(kids) == n
# the daemon heard every process start (the parent's end is lost too)
assert c["ended"] + c["cut"] == n + 1, c
# the stopped daemon made some ends miss their deadline: counted as cut
assert c["cut"] >= 1, c
got = sum(w.values())
assert got + c["dropped"] <= done, (got, c)
assert got < done, "nothing was lost although the daemon was stopped"
PYEOF
echo "part 1: $(cat "$T/counts1.json")"
echo "part 2: $(cat "$T/counts2.json")"
