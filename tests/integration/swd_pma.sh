#!/usr/bin/env bash
# beacon-swd --source pma against a real simulated fabric: ibsim
# (ibsim-utils) runs a net file of three switches and five adapters on a
# private socket, opensm assigns the LIDs once, and beacon-swd, with
# libumad2sim.so preloaded as ibsim-run does, discovers the switches and
# queries their PMAs over MADs. Between samples (each triggered with
# SIGUSR1) the test sets counters through ibsim's console (PerformanceSet)
# on ports no MAD of the test crosses: 64-bit values, a 64-bit wrap, a
# saturating 16-bit error counter, then (second daemon, pma_extended no)
# a 32-bit PortCounters counter saturating; a switch that stops answering
# (ibsim's Error rate 100: the others are still sampled, the miss logged),
# a port that goes away and links that appear (rediscovery). `beacon
# decode` of the output must give exactly the expected deltas.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_TEST_DATA:?}"
SWD=$BCN_BUILD/collectors/switch/beacon-swd
BEACON=$BCN_BUILD/cli/beacon
# shellcheck source=tests/lib/ibsim.sh
source "$(dirname "$0")/../lib/ibsim.sh"
bcn_ibsim_require swd_pma
T=$(mktemp -d)
pid=
# shellcheck source=tests/lib/servers.sh
source "$(dirname "$0")/../lib/servers.sh"
cleanup() {
	local st=0
	[ -n "$pid" ] && BCN_PIDS+=("$pid")
	pid=
	bcn_cleanup || st=1
	bcn_ibsim_stop
	rm -rf "$T"
	return "$st"
}
trap 'st=$?; cleanup || st=1; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/log" ] && tail -n 30 "$T/log" >&2; exit 1; }

# --- the fabric: MADs of the test enter at Hca1 (Switch1 port 1) and
# reach the switches' port 0 through Switch1 ports 3 and 4; the ports to
# Hca2..Hca5 carry none after discovery
cat > "$T/net" <<'NET'
Switch	8 "Switch1"
[1]	"Hca1"[1]
[2]	"Hca2"[1]
[3]	"Switch2"[3]
[4]	"Switch3"[4]

Switch	8 "Switch2"
[1]	"Hca3"[1]
[2]	"Hca4"[1]
[3]	"Switch1"[3]

Switch	8 "Switch3"
[1]	"Hca5"[1]
[4]	"Switch1"[4]

Hca	1 "Hca1"
[1]	"Switch1"[1]

Hca	1 "Hca2"
[1]	"Switch1"[2]

Hca	1 "Hca3"
[1]	"Switch2"[1]

Hca	1 "Hca4"
[1]	"Switch2"[2]

Hca	1 "Hca5"
[1]	"Switch3"[1]
NET
bcn_ibsim_start "$T/net" Hca1
sim() { # one console command, then wait for ibsim's next prompt
	echo "$*" > "$T/cmd"
	bcn_ibsim_feed "$T/cmd"
}
pset() { # node port attribute.field value
	sim "PerformanceSet \"$1\"[$2] $3=$4"
	grep -q "$1\[$2\] $3 has been set to $4" "$T/ibsim.out" || fail "PerformanceSet $*"
}

wait_sample() { # N: until the log says sample N is done (safety net 60 s)
	for _ in $(seq 1200); do
		grep -q "sample $1 done" "$T/log" && return 0
		kill -0 "$pid" 2>/dev/null || fail "beacon-swd exited before sample $1"
		sleep 0.05
	done
	fail "no sample $1"
}

start_swd() { # conf
	env "${BCN_IBSIM_ENV[@]}" "$SWD" --config "$1" 2> "$T/log" &
	pid=$!
}

cat > "$T/a.conf" <<CONF
node = "pma-node"
interval = 1h
count = 5
output = "$T/a.bin"
stats_file = "$T/a.json"
log_level = info
hca_counters = no
source = pma
pma_timeout = 200ms
pma_retries = 1
pma_discover_every = 3
CONF
start_swd "$T/a.conf"
wait_sample 1
# --- known values (sample 2 reads them; its deltas include discovery)
pset Switch1 2 PortCountersExtended.PortXmitData 1000
pset Switch1 2 PortCountersExtended.PortRcvData 1099511627776
pset Switch2 1 PortCountersExtended.PortXmitPkts 5
pset Switch2 2 PortCountersExtended.PortRcvPkts 18446744073709551000
pset Switch3 1 PortCounters.SymbolErrorCounter 10
kill -USR1 "$pid"
wait_sample 2
# --- sample 3: 64-bit steps, a wrap, a 16-bit error counter saturating;
# Switch3 stops answering
pset Switch1 2 PortCountersExtended.PortXmitData 123456790012
pset Switch1 2 PortCountersExtended.PortRcvData 1099511627783
pset Switch2 1 PortCountersExtended.PortXmitPkts 8
pset Switch2 2 PortCountersExtended.PortRcvPkts 100
pset Switch3 1 PortCounters.SymbolErrorCounter 65535
sim 'Error "Switch3" 100'
kill -USR1 "$pid"
wait_sample 3
grep -q "switch 0x[0-9a-f]* (lid [0-9]*) does not answer" "$T/log" ||
	fail "the silent switch was not reported"
# --- sample 4 (rediscovery): Switch3 answers again, Switch2 port 2 goes,
# a new link Switch2[5] - Switch3[5] comes
sim 'Error "Switch3" 0'
sim 'Unlink "Switch2"[2]'
sim 'Link "Switch2"[5] "Switch3"[5]'
kill -USR1 "$pid"
wait_sample 4
kill -USR1 "$pid"
wait "$pid" || fail "beacon-swd exited with $?"
pid=
grep -q "answers again" "$T/log" || fail "recovery not reported"
grep -q "saturated" "$T/log" || fail "saturation not reported"
grep -q "1 switches missed" "$T/log" || fail "miss not counted: $(grep 'pma:' "$T/log")"

"$BEACON" decode "$T/a.bin" > "$T/a.rec"
/usr/bin/python3 - "$T/a.rec" "$T/a.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
stats = json.loads(open(sys.argv[2]).read())
def need(ok, what):
    if not ok:
        raise SystemExit("check failed: %r" % (what,))
need(stats["samples"] == 5 and stats["records"] == len(recs), stats)
for r in recs:
    need(r["type"] == "port" and r["layer"] == "switch" and
         r["node"] == "pma-node", r)
ts = sorted({r["t"] + r["dur"] for r in recs})
need(len(ts) == 4, ts)                  # samples 2..5 end windows
by = [{} for _ in ts]
for r in recs:
    by[ts.index(r["t"] + r["dur"])][(r["switch"], r["port"])] = r
S1, S2, S3 = ("0x%016x" % g for g in (0x200000, 0x200001, 0x200002))
switches = {r["switch"] for r in recs}
need(switches == {S1, S2, S3}, switches)
# sample 2: every linked switch port (S1 1-4, S2 1-3, S3 1,4)
want2 = {(S1, 1), (S1, 2), (S1, 3), (S1, 4), (S2, 1), (S2, 2), (S2, 3),
         (S3, 1), (S3, 4)}
need(set(by[0]) == want2, sorted(by[0]))
# sample 3: Switch3 silent, the others read
need(set(by[1]) == want2 - {(S3, 1), (S3, 4)}, sorted(by[1]))
def check(r, **want):
    full = {"xmit_bytes": 0, "rcv_bytes": 0, "xmit_pkts": 0, "rcv_pkts": 0,
            "xmit_wait": 0, "errors": {}}
    full.update(want)
    got = {k: r[k] for k in full}
    need(got == full, (r["switch"], r["port"], got, full))
check(by[1][(S1, 2)], xmit_bytes=(123456790012 - 1000) * 4, rcv_bytes=28)
check(by[1][(S2, 1)], xmit_pkts=3)
check(by[1][(S2, 2)], rcv_pkts=2**64 - 18446744073709551000 + 100)
# sample 4: Switch3 back, its window from sample 2; Switch2 port 2 gone
# (unlinked), the new ports remembered only
need(set(by[2]) == want2 - {(S2, 2)}, sorted(by[2]))
r = by[2][(S3, 1)]
need(r["t"] == by[0][(S3, 1)]["t"] + by[0][(S3, 1)]["dur"], r)
need(r["errors"].get("symbol_error") == 65535 - 10, r)
# sample 5: the new link's ports
need(set(by[3]) == (want2 - {(S2, 2)}) | {(S2, 5), (S3, 5)}, sorted(by[3]))
check(by[3][(S2, 1)])
check(by[3][(S3, 1)])                   # the 16-bit counter stays at its top
PY

# --- second daemon: 32-bit PortCounters only, one switch chosen by GUID
# (named), one configured LID that no switch has
cat > "$T/b.conf" <<CONF
node = "pma-node"
interval = 1h
count = 3
output = "$T/b.bin"
log_level = info
hca_counters = no
source = pma
pma_extended = no
pma_switch = leaf=0x200001
pma_switch = 999
CONF
start_swd "$T/b.conf"
wait_sample 1
pset Switch2 1 PortCounters.PortXmitData 100
pset Switch2 1 PortCounters.PortRcvPkts 4294967290
kill -USR1 "$pid"
wait_sample 2
pset Switch2 1 PortCounters.PortXmitData 4294967295
pset Switch2 1 PortCounters.PortRcvPkts 4294967295
kill -USR1 "$pid"
wait "$pid" || fail "beacon-swd exited with $?"
pid=
grep -q "pma_switch lid999 (999) not found" "$T/log" || fail "unknown LID not reported"
grep -q "PortXmitData is saturated" "$T/log" || fail "32-bit saturation not reported"
"$BEACON" decode "$T/b.bin" > "$T/b.rec"
/usr/bin/python3 - "$T/b.rec" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
if not {r["switch"] for r in recs} == {"leaf"}:
    raise SystemExit("check failed: switches %r" % recs)
last = max(r["t"] for r in recs)
r = [r for r in recs if r["t"] == last and r["port"] == 1]
if not (len(r) == 1 and r[0]["xmit_bytes"] == (4294967295 - 100) * 4 and
        r[0]["rcv_pkts"] == 5 and r[0]["xmit_pkts"] == 0):
    raise SystemExit("check failed: %r" % r)
PY
# --- configuration errors are clear and stop the daemon
"$SWD" --source pma --pma-switch 3:1 --count 1 --output "$T/x.bin" 2> "$T/err" &&
	fail "a pma_switch with ports was taken"
grep -q "pma_switch '3:1': expected" "$T/err" || fail "pma_switch error: $(cat "$T/err")"
"$SWD" --pma-switch 3 --count 1 --output "$T/x.bin" 2> "$T/err" &&
	fail "pma_switch without source pma was taken"
grep -q "source is not pma" "$T/err" || fail "source error: $(cat "$T/err")"
echo "swd_pma: ok"
