#!/usr/bin/env bash
# beacon-fwdd end to end. A generated request log (fwdd_check.py) and a
# fixture osc tree (a real Lustre 2.10.1 client device, copied into a
# temporary --root in the 2.10 procfs layout and in the later
# procfs + debugfs split) go in; `beacon decode` of the --output must give
# exactly what Python computes from the lines and the counter edits.
#  A. seven samples, each after the test has appended lines and edited the
#     counters, triggered with SIGUSR1 (deterministic): old lines before
#     the start are skipped, malformed lines are counted and logged with
#     their position, a partial last line waits for its end, the log is
#     rotated by rename (with lines still going to the old file), then
#     truncated, then replaced by a file without the header; osc devices
#     appear and disappear, one loses its rpc_stats (skipped once, then
#     restarted on stats alone, RPCs in flight from import).
#  B. the contract run: --interval 300ms while a writer appends 24,000
#     lines in 120 batches and rotates the log by rename at batch 40;
#     after the writer ends, samples are taken until one began after it
#     (SIGUSR1), then SIGTERM. Whatever the timing, each window must be
#     exact for the next `count` lines the daemon read, every line written
#     must have been read (the rotated file's and the new one's), and the
#     rotation must be logged.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_TEST_DATA:?}"
FWDD=$BCN_BUILD/collectors/forwarder/beacon-fwdd
BEACON=$BCN_BUILD/cli/beacon
CHECK=$(dirname "$0")/fwdd_check.py
OSC=$BCN_TEST_DATA/forwarder/lustre_exporter-2.10.1/osc/lustrefs-OST0000-osc-ffff88105db50000
T=$(mktemp -d)
pid=
# shellcheck source=tests/lib/servers.sh
source "$(dirname "$0")/../lib/servers.sh"
# a daemon still running is stopped with SIGTERM; its exit status and a
# sanitizer report in the logs under T fail the test
cleanup() {
	local st=0
	[ -n "$pid" ] && BCN_PIDS+=("$pid")
	pid=
	bcn_cleanup || st=1
	rm -rf "$T"
	return "$st"
}
trap 'st=$?; cleanup || st=1; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/log" ] && tail -n 30 "$T/log" >&2; exit 1; }

# the checker needs numpy (Debian: python3-numpy, see deploy/install-deps)
PY=
for c in /usr/bin/python3 python3; do
	if "$c" -c 'import numpy' 2>/dev/null; then PY=$c; break; fi
done
[ -n "$PY" ] || fail "no python3 with numpy (run deploy/install-deps)"
chk() { "$PY" "$CHECK" "$@"; }

size() { stat -c %s "$1" 2>/dev/null || echo 0; }
# Waits until the output grows past $1 bytes (a sample was written); the
# bound only keeps a broken daemon from hanging the test.
wait_grow() {
	local i
	for i in $(seq 1 600); do
		[ "$(size "$T/out.bin")" -gt "$1" ] && return 0
		# it may write its last sample and exit between the checks
		kill -0 "$pid" 2>/dev/null ||
			[ "$(size "$T/out.bin")" -gt "$1" ] ||
			fail "beacon-fwdd exited early"
		sleep 0.1
	done
	fail "no sample written"
}

# --- the osc tree: OST0000 all in procfs (2.10), OST0001 with stats in
# debugfs and rpc_stats, import in procfs (2.12 and later)
R=$T/root
P=$R/proc/fs/lustre/osc
D=$R/sys/kernel/debug/lustre/osc
O0=lustrefs-OST0000-osc-ffff88105db50000
O1=lustrefs-OST0001-osc-ffff88105db50000
O2=lustrefs-OST0002-osc-ffff88105db50000
mkdir -p "$P/$O0" "$P/$O1" "$D/$O1"
cp "$OSC/stats" "$OSC/rpc_stats" "$OSC/import" "$P/$O0/"
cp "$OSC/rpc_stats" "$OSC/import" "$P/$O1/"
cp "$OSC/stats" "$D/$O1/"
chmod -R u+w "$R"

# ===== A: five samples on request =====================================
LOG=$T/req.log
TRUTH=$T/truth
chk header "$LOG"
chk append "$LOG" "$T/old" 99 200           # before the start: skipped
"$FWDD" --root "$R" --node fwd01 --interval 1h --count 7 \
	--output "$T/out.bin" --request-log "$LOG" --log-level info \
	2> "$T/log" &
pid=$!
wait_grow 0                                 # sample 1: at start, empty
chk mark "$TRUTH"

# sample 2: 3000 requests, 7 malformed lines, a partial last line; RPCs
chk append "$LOG" "$TRUTH" 1 3000 --malformed 7 --partial
chk osc "$P/$O0" "$P/$O0" write 10 1024 3 4194304
chk gauge "$P/$O0" 2 100
chk osc "$D/$O1" "$P/$O1" read 5 1 1 4096
chk mark "$TRUTH"
s=$(size "$T/out.bin"); kill -USR1 "$pid"; wait_grow "$s"

# sample 3: the partial line ends, 500 more, rotation by rename, 10 lines
# still go to the renamed file, then the new file; OST0001 goes, OST0002
# comes (no record yet: its first sample)
chk append "$LOG" "$TRUTH" 2 500
mv "$LOG" "$LOG.1"
chk append "$LOG.1" "$TRUTH" 3 10
chk header "$LOG"
chk append "$LOG" "$TRUTH" 4 1000 --malformed 2
rm -r "${P:?}/$O1" "${D:?}/$O1"
mkdir -p "$P/$O2"
cp "$OSC/stats" "$OSC/rpc_stats" "$OSC/import" "$P/$O2/"
chmod -R u+w "$P/$O2"
chk osc "$P/$O0" "$P/$O0" read 7 256 1 1048576
chk mark "$TRUTH"
s=$(size "$T/out.bin"); kill -USR1 "$pid"; wait_grow "$s"

# sample 4: truncated (copytruncate) and rewritten; OST0002's first delta
: > "$LOG"
chk header "$LOG"
chk append "$LOG" "$TRUTH" 5 300 --shape dups
chk osc "$P/$O2" "$P/$O2" write 3 128 5 524288
chk mark "$TRUTH"
s=$(size "$T/out.bin"); kill -USR1 "$pid"; wait_grow "$s"

# sample 5: replaced by a file without the header: rejected, nothing
# read; OST0002's rpc_stats vanishes: OST0002 is skipped (a file error)
printf '1700000001.000000000 read 4096 10 5\n' > "$LOG.new"
mv "$LOG.new" "$LOG"
rm "$P/$O2/rpc_stats"
chk mark "$TRUTH"
s=$(size "$T/out.bin"); kill -USR1 "$pid"; wait_grow "$s"

# sample 6: no base directory has OST0002's rpc_stats now: its counters
# mean something else, so it starts afresh (no record)
chk mark "$TRUTH"
s=$(size "$T/out.bin"); kill -USR1 "$pid"; wait_grow "$s"

# sample 7: OST0002 from stats alone; RPCs in flight from import
chk stats "$P/$O2" ost_write 2 0
chk stats "$P/$O2" write_bytes 2 8192
s=$(size "$T/out.bin"); kill -USR1 "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || fail "beacon-fwdd exit status $rc"

cat > "$T/rpc.json" <<EOF
[
 {},
 {"lustrefs-OST0000": {"write_rpcs": 10, "write_bytes": 41943040,
   "pages_write": [0,0,0,0,0,0,0,0,0,0,10], "flight_write": [0,10],
   "pages_read": [], "flight_read": [], "in_flight": 2, "pending_pages": 100},
  "lustrefs-OST0001": {"read_rpcs": 5, "read_bytes": 20480,
   "pages_read": [5], "flight_read": [5], "pages_write": [],
   "flight_write": [], "in_flight": 6, "pending_pages": 1244}},
 {"lustrefs-OST0000": {"read_rpcs": 7, "read_bytes": 7340032,
   "pages_read": [0,0,0,0,0,0,0,0,7], "flight_read": [7],
   "pages_write": [], "flight_write": [], "in_flight": 2,
   "pending_pages": 100}},
 {"lustrefs-OST0000": {"pages_read": [], "pages_write": [],
   "flight_read": [], "flight_write": []},
  "lustrefs-OST0002": {"write_rpcs": 3, "write_bytes": 1572864,
   "pages_write": [0,0,0,0,0,0,0,3], "flight_write": [0,0,3],
   "pages_read": [], "flight_read": [], "in_flight": 6,
   "pending_pages": 1244}},
 {"lustrefs-OST0000": {}},
 {"lustrefs-OST0000": {}},
 {"lustrefs-OST0000": {},
  "lustrefs-OST0002": {"write_rpcs": 2, "write_bytes": 8192,
   "pages_read": [], "pages_write": [], "flight_read": [],
   "flight_write": [], "in_flight": 8, "pending_pages": 0}}
]
EOF
"$BEACON" decode "$T/out.bin" > "$T/out.json" || fail "decode"
chk check "$T/out.json" "$TRUTH" "$T/rpc.json" || fail "phase A records"

# the log says what happened
grep -q 'req.log: line [0-9]* after the resume point (byte [0-9]*): .*line skipped (1 malformed so far)' "$T/log" ||
	fail "malformed line not reported with its position"
grep -q 'replaced (rotation)' "$T/log" || fail "rotation not logged"
grep -q 'truncated, reading from its start' "$T/log" || fail "truncation not logged"
grep -q 'the first line is not a "#beacon-fwdlog 1" header' "$T/log" ||
	fail "file without header not rejected"
grep -q "$O1 disappeared" "$T/log" || fail "OST0001 disappearance not logged"
grep -q "9 malformed lines, 1 rejected files" "$T/log" || fail "final counts"
grep -q "$O2/rpc_stats: No such file" "$T/log" || fail "missing rpc_stats not reported"

# ===== B: the contract run, --interval 300ms ==========================
LOG=$T/b.log
TRUTH=$T/btruth
rm -f "$T/out.bin"
chk header "$LOG"
chk append "$LOG" "$T/old" 98 100
"$FWDD" --root "$R" --node fwd01 --interval 300ms \
	--output "$T/out.bin" --request-log "$LOG" --log-level info 2> "$T/log" &
pid=$!
for i in $(seq 1 600); do
	grep -q 'notice: started' "$T/log" && break
	kill -0 "$pid" 2>/dev/null || fail "beacon-fwdd exited early"
	sleep 0.1
done
chk stream "$LOG" "$TRUTH" 1000 120 200 40 || fail "writer"
# a sample that began after the writer ended reads every line left: the
# one after the sample in progress now (SIGUSR1 asks for it at once)
done_now=$(grep -c ' done: ' "$T/log" || true)
kill -USR1 "$pid"
for i in $(seq 1 600); do
	[ "$(grep -c ' done: ' "$T/log" || true)" -ge $((done_now + 2)) ] && break
	kill -0 "$pid" 2>/dev/null || fail "beacon-fwdd exited early"
	sleep 0.1
done
[ "$(grep -c ' done: ' "$T/log" || true)" -ge $((done_now + 2)) ] ||
	fail "no sample after the writer ended"
p=$pid; pid=
bcn_stop "$p" || fail "beacon-fwdd exit status on SIGTERM"
grep -q 'b.log: .*replaced (rotation)' "$T/log" || fail "phase B: the rotation was not seen"
"$BEACON" decode "$T/out.bin" > "$T/out.json" || fail "decode"
[ "$(wc -l < "$TRUTH")" -eq 24240 ] || fail "the writer wrote $(wc -l < "$TRUTH") lines, not 24240"
chk partition "$T/out.json" "$TRUTH" --all || fail "phase B records"
echo "fwdd: ok"
