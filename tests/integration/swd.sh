#!/usr/bin/env bash
# beacon-swd end to end: a copy of the real sysfs fixture trees and a
# perfquery replaying the real perfquery fixtures (a script that prints a
# fixture file: it replays files, it does not imitate a server) go in; the
# daemon takes three samples, each triggered with SIGUSR1 once the test
# has changed the counter files (an increase, a saturation, a 64-bit wrap,
# a reset, a port that appears, one that disappears); `beacon decode` of
# its --output must give exactly the expected deltas.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_TEST_DATA:?}"
SWD=$BCN_BUILD/collectors/switch/beacon-swd
BEACON=$BCN_BUILD/cli/beacon
IB=$BCN_TEST_DATA/ib
T=$(mktemp -d)
pid=
# shellcheck source=tests/lib/servers.sh
source "$(dirname "$0")/../lib/servers.sh"
# the daemon and acksrv, if still running, are stopped with SIGTERM; their
# exit status and a sanitizer report in the logs under T fail the test
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

# --- the fixture tree: procfs's adapters, node_exporter's mlx4_0 as mlx4_9
# (counters_ext, a saturated port_xmit_wait) and its i40iw0 (no PMA)
R=$T/root
C=$R/sys/class/infiniband
mkdir -p "$C"
cp -r "$IB/sysfs/prometheus-procfs/sys/class/infiniband/." "$C/"
cp -r "$IB/sysfs/node_exporter/sys/class/infiniband/mlx4_0" "$C/mlx4_9"
cp -r "$IB/sysfs/node_exporter/sys/class/infiniband/i40iw0" "$C/i40iw0"
chmod -R u+w "$R"
# prepare a 64-bit wrap: the legacy copy near 2^64
echo 18446744073709551600 > "$C/mlx4_9/ports/1/counters_ext/port_xmit_data_64"
set_ctr() { echo "$3" > "$C/$1/ports/$2"; }         # hca, port/dir/file, value
get_ctr() { cat "$C/$1/ports/$2"; }
add_ctr() { set_ctr "$1" "$2" $(( $(get_ctr "$1" "$2") + $3 )); }

# --- perfquery: prints the fixture of the GUID after -G; records its argv
PQ=$T/pq
mkdir -p "$PQ"
cp "$IB/perfquery/perfquery/0x7cfe9003009ce5b0.out" "$PQ/"
chmod u+w "$PQ"/*.out
cat > "$T/perfquery" <<EOF
#!/bin/sh
echo "\$@" >> "$PQ/argv"
for a in "\$@"; do case "\$a" in 0x*) exec cat "$PQ/\$a.out";; esac; done
exit 1
EOF
chmod +x "$T/perfquery"
pq_set() { # port field value: rewrite one field of one port's block
	python3 - "$PQ/0x7cfe9003009ce5b0.out" "$@" <<'PY'
import re, sys
path, port, field, value = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
out, cur = [], None
for line in open(path).read().split("\n"):
    m = re.match(r"# Port extended counters: Lid \d+ port (\d+)", line)
    if m:
        cur = m.group(1)
    name = line.split(":", 1)[0]
    if cur == port and name == field:
        line = re.sub(r"\d+$", value, line)
    out.append(line)
open(path, "w").write("\n".join(out))
PY
}

cat > "$T/swd.conf" <<EOF
root = "$R"
node = "hca-node"
interval = 1h
count = 3
output = "$T/out.bin"
stats_file = "$T/stats.json"
log_level = info
perfquery = "$T/perfquery"
perfquery_target = 0x7cfe9003009ce5b0
perfquery_target = broken=77:1
EOF

"$SWD" --config "$T/swd.conf" 2> "$T/log" &
pid=$!

wait_sample() { # N: until the log says sample N is done (safety net 60 s)
	for _ in $(seq 1200); do
		grep -q "sample $1 done" "$T/log" && return 0
		kill -0 "$pid" 2>/dev/null || fail "beacon-swd exited before sample $1"
		sleep 0.05
	done
	fail "no sample $1"
}

wait_sample 1
# --- between samples 1 and 2
add_ctr mlx4_0 1/counters/port_xmit_data 1000          # +4000 bytes
set_ctr mlx4_0 1/counters/port_rcv_data 4294967295     # saturates
add_ctr mlx4_0 1/counters/port_xmit_wait 1
add_ctr mlx4_0 2/counters/port_xmit_packets 5
set_ctr hfi1_0 1/counters/port_rcv_data 1000           # reset: +4000 bytes
set_ctr mlx5_0 1/counters/symbol_error 65535           # 16-bit top
set_ctr mlx4_9 1/counters_ext/port_xmit_data_64 10     # wraps: 26 words
cp -r "$C/mlx5_0" "$C/mlx5_1"                           # appears
pq_set 1 PortXmitData 36298026861028                   # +100 words
pq_set 2 PortRcvPkts 93660802644                        # +3
kill -USR1 "$pid"
wait_sample 2
# --- between samples 2 and 3
add_ctr mlx4_0 1/counters/port_xmit_data 250           # +1000 bytes
add_ctr mlx5_1 1/counters/port_rcv_data 7              # +28 bytes
rm -rf "${C:?}/mlx5_0"                                  # disappears
pq_set 1 PortRcvData 5                                  # reset: +20 bytes
kill -USR1 "$pid"
wait "$pid" || fail "beacon-swd exited with $?"
pid=

grep -q "saturated" "$T/log" || fail "saturation not reported"
grep -q "went down" "$T/log" || fail "reset not reported"
grep -q "perfquery for broken" "$T/log" || fail "failing perfquery not reported"
grep -q -- "-x -G -l 0x7cfe9003009ce5b0 255" "$PQ/argv" || fail "perfquery argv: $(head -n 1 "$PQ/argv")"
grep -q -- "-x 77 1" "$PQ/argv" || fail "perfquery argv for a LID target"

"$BEACON" decode "$T/out.bin" > "$T/records"
python3 - "$T/records" "$T/stats.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
stats = json.loads(open(sys.argv[2]).read())
if not (stats["samples"] == 3 and stats["records"] == len(recs)):
    raise SystemExit("check failed: %r" % ((stats),))
for r in recs:
    if not (r["type"] == "port" and r["layer"] == "switch"):
        raise SystemExit("check failed: %r" % ((r),))
    if not (r["node"] == "hca-node"):
        raise SystemExit("check failed: %r" % ((r),))
ts = sorted({r["t"] for r in recs})
if not (len(ts) == 2):
    raise SystemExit("check failed: %r" % ((ts),))  # sample 1 only remembers
s2 = {(r["switch"], r["port"]): r for r in recs if r["t"] == ts[0]}
s3 = {(r["switch"], r["port"]): r for r in recs if r["t"] == ts[1]}
# windows follow each other
d2 = {r["dur"] for r in s2.values()}
if not (len(d2) == 1 and ts[0] + d2.pop() == ts[1]):
    raise SystemExit("check failed: %r" % (((ts, d2)),))
SW = "0x7cfe9003009ce5b0"
if not (set(s2) == {("hfi1_0", 1), ("mlx4_0", 1), ("mlx4_0", 2), ("mlx5_0", 1),
                   ("mlx4_9", 1), ("mlx4_9", 2), (SW, 1), (SW, 2)}):
    raise SystemExit("check failed: %r" % ((sorted(s2)),))
if not (set(s3) == {("hfi1_0", 1), ("mlx4_0", 1), ("mlx4_0", 2), ("mlx5_1", 1),
                   ("mlx4_9", 1), ("mlx4_9", 2), (SW, 1), (SW, 2)}):
    raise SystemExit("check failed: %r" % ((sorted(s3)),))
def check(recs, key, **want):
    r = recs[key]
    full = {"xmit_bytes": 0, "rcv_bytes": 0, "xmit_pkts": 0, "rcv_pkts": 0,
            "xmit_wait": 0, "errors": {}}
    full.update(want)
    got = {k: r[k] for k in full}
    if not (got == full):
        raise SystemExit("check failed: %r" % (((key, got, full)),))
check(s2, ("mlx4_0", 1), xmit_bytes=4000,
      rcv_bytes=(4294967295 - 2221223609) * 4, xmit_wait=1)
check(s2, ("mlx4_0", 2), xmit_pkts=5)
check(s2, ("hfi1_0", 1), rcv_bytes=4000)
check(s2, ("mlx5_0", 1), errors={"symbol_error": 65535})
check(s2, ("mlx4_9", 1), xmit_bytes=26 * 4)
check(s2, ("mlx4_9", 2))
check(s2, (SW, 1), xmit_bytes=400)
check(s2, (SW, 2), rcv_pkts=3)
check(s3, ("mlx4_0", 1), xmit_bytes=1000)          # rcv stays saturated: 0
check(s3, ("mlx5_1", 1), rcv_bytes=28)
check(s3, ("hfi1_0", 1))
check(s3, (SW, 1), rcv_bytes=20)
check(s3, (SW, 2))
PY

# --- SIGTERM: the loop stops after the current sample and exits 0
"$SWD" --root "$R" --node term-node --interval 1h --output "$T/term.bin" \
	--stats-file "$T/term.json" --log-level info 2> "$T/log" &
pid=$!
wait_sample 1
kill -TERM "$pid"
wait "$pid" || fail "beacon-swd exited with $? on SIGTERM"
pid=
grep -q '"samples":1,' "$T/term.json" || fail "SIGTERM stats: $(cat "$T/term.json")"

# --- the same daemon sending through the sender library to a real TCP
# peer speaking the protocol (tests/tools/acksrv, on a port reserved with
# bcn_alloc_port, stopped with SIGTERM and checked): --count 3 gives two
# frames (sample 1 only remembers), flushed and acknowledged before the
# daemon exits 0
head -c 32 /dev/urandom | od -An -tx1 -v | tr -d ' \n' > "$T/key"
echo >> "$T/key"
chmod 600 "$T/key"
bcn_alloc_port APORT || fail "no port for acksrv"
"$BCN_BUILD/tests/acksrv" --key "$T/key" --log "$T/ack.log" --port "$APORT" \
	--port-file "$T/ack.port" 2> "$T/ack.err" &
apid=$!
BCN_PIDS+=("$apid")
bcn_wait_port "$APORT" "$apid" || fail "acksrv did not listen"
"$SWD" --root "$R" --node sender-node --count 3 --interval 50ms \
	--server "127.0.0.1:$APORT" --key-file "$T/key" \
	--stats-file "$T/send.json" --log-level warning 2> "$T/send.log" ||
	fail "sending beacon-swd failed: $(cat "$T/send.log")"
[ "$(grep -c '^sender-node [0-9]* stored' "$T/ack.log")" -eq 2 ] ||
	fail "acksrv stored: $(cat "$T/ack.log")"
bcn_stop "$apid" || fail "acksrv exit status"
python3 - "$T/send.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read())
if not (s["samples"] == 3 and s["frames"] == 2 and s["send_errors"] == 0):
    raise SystemExit("check failed: %r" % ((s),))
PY
echo "swd: ok"
