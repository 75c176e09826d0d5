#!/usr/bin/env bash
# beacon-swd's topology_file end to end: the real ibnetdiscover output of
# tests/data/ib/ibnetdiscover goes in; sample 1 sends one topology record
# per cabled switch port (11), sample 2 (file unchanged, interval 1h)
# none, sample 3 after the file was replaced by the -p form of the same
# fabric the 11 again; a malformed file is reported with its line.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_TEST_DATA:?}"
SWD=$BCN_BUILD/collectors/switch/beacon-swd
BEACON=$BCN_BUILD/cli/beacon
D=$BCN_TEST_DATA/ib/ibnetdiscover
T=$(mktemp -d)
pid=
# shellcheck source=tests/lib/servers.sh
source "$(dirname "$0")/../lib/servers.sh"
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

cp "$D/fabric.topo" "$T/fabric"
cat > "$T/swd.conf" <<EOF2
node = "ib-mgmt"
hca_counters = no
topology_file = "$T/fabric"
interval = 1h
count = 3
output = "$T/out.bin"
log_level = info
EOF2
"$SWD" --config "$T/swd.conf" 2> "$T/log" &
pid=$!
wait_sample() {
	for _ in $(seq 1200); do
		grep -q "sample $1 done" "$T/log" && return 0
		kill -0 "$pid" 2>/dev/null || fail "beacon-swd exited before sample $1"
		sleep 0.05
	done
	fail "no sample $1"
}
wait_sample 1
kill -USR1 "$pid"
wait_sample 2
cp "$D/fabric.ports" "$T/fabric.new"
mv "$T/fabric.new" "$T/fabric"
kill -USR1 "$pid"
wait "$pid" || fail "beacon-swd exited with $?"
pid=
"$BEACON" decode "$T/out.bin" > "$T/records"
/usr/bin/python3 - "$T/records" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ts = sorted({r["t"] for r in recs})
if len(ts) != 2 or any(r["type"] != "topology" for r in recs):
    raise SystemExit("expected two rounds of topology records: %r" % ts)
for t in ts:
    rnd = {(r["switch_name"], r["port"]): r for r in recs if r["t"] == t}
    if len(rnd) != 11 or len([r for r in recs if r["t"] == t]) != 11:
        raise SystemExit("round %d: %r" % (t, sorted(rnd)))
    a = rnd[("leaf1", 1)]
    want = {"switch": "0x0000000000200000", "remote_kind": "host",
            "remote_name": "cn001 mlx5_0", "remote_port": 1,
            "rate": 1000000000, "node": "ib-mgmt", "layer": "switch"}
    if {k: a[k] for k in want} != want:
        raise SystemExit("leaf1/1: %r" % a)
    u = rnd[("leaf2", 7)]
    if (u["remote_kind"], u["remote"], u["remote_port"]) != \
       ("switch", "0x0000000000200002", 3):
        raise SystemExit("leaf2/7: %r" % u)
PY
grep -q "11 cabled switch ports" "$T/log" || fail "no count in the log"

# --- a malformed file: reported with its line number, the daemon goes on
printf 'Switch 8 "S-01"\n[1] "H-02"[1]\n[x] "H-03"[1]\n' > "$T/bad"
"$SWD" --node n --no-hca-counters --topology-file "$T/bad" --count 1 \
	--output "$T/bad.bin" 2> "$T/bad.log" || fail "exit $?: $(cat "$T/bad.log")"
grep -q "topology_file $T/bad: .*at line 3" "$T/bad.log" ||
	fail "malformed file: $(cat "$T/bad.log")"
[ "$("$BEACON" decode "$T/bad.bin" | wc -l)" = 1 ] || fail "records before the bad line"
echo "swd_topology: ok"
