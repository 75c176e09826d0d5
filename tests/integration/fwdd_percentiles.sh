#!/usr/bin/env bash
# beacon-fwdd's distributions against numpy: windows of generated requests
# of many shapes (exponential, log-normal, heavy duplicates, uniform over
# 1e9, bimodal, constant, values 0..2) and sizes (1 to 50,000 requests),
# each closed with SIGUSR1. Run 1 keeps the default 65,536 samples: every
# count, sum, min, max, p50/p95/p99 and log2 bucket must equal Python's
# (numpy's inverted_cdf percentile, which is the nearest rank). Run 2
# keeps only 1,000 samples, so larger windows spill to the log-linear
# histograms: moments and buckets stay exact, percentiles must lie within
# 1/128 below the exact value (docs/fwdlog.md).
set -euo pipefail
: "${BCN_BUILD:?}"
FWDD=$BCN_BUILD/collectors/forwarder/beacon-fwdd
BEACON=$BCN_BUILD/cli/beacon
CHECK=$(dirname "$0")/fwdd_check.py
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

PY=
for c in /usr/bin/python3 python3; do
	if "$c" -c 'import numpy' 2>/dev/null; then PY=$c; break; fi
done
[ -n "$PY" ] || fail "no python3 with numpy (run deploy/install-deps)"
chk() { "$PY" "$CHECK" "$@"; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
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

# run SAMPLES WINDOW... (WINDOW: shape:requests)
run() {
	local samples=$1 w s seed=10
	shift
	rm -f "$T/out.bin" "$T/truth" "$T/req.log"
	chk header "$T/req.log"
	"$FWDD" --node fwd02 --interval 1h --count $(($# + 1)) \
		--output "$T/out.bin" --request-log "$T/req.log" \
		--request-samples "$samples" --no-lustre-client 2> "$T/log" &
	pid=$!
	wait_grow 0
	for w in "$@"; do
		chk mark "$T/truth"
		chk append "$T/req.log" "$T/truth" $seed "${w#*:}" --shape "${w%:*}"
		seed=$((seed + 1))
		s=$(size "$T/out.bin"); kill -USR1 "$pid"; wait_grow "$s"
	done
	wait "$pid" || fail "beacon-fwdd exit status"
	pid=
	"$BEACON" decode "$T/out.bin" > "$T/out.json" || fail "decode"
	"$PY" -c 'import json,sys; print(json.dumps([{}] * int(sys.argv[1])))' \
		$(($# + 1)) > "$T/rpc.json"
	chk check "$T/out.json" "$T/truth" "$T/rpc.json" --approx "$samples" ||
		fail "distributions differ (request_samples $samples)"
}

run 65536 expo:1 lognormal:2 dups:3 tiny:99 uniform:100 bimodal:101 \
	const:1000 lognormal:50000 expo:20000
grep -q '0 windows with more than 65536 samples' "$T/log" || fail "run 1 spilled"
run 1000 lognormal:999 dups:1000 uniform:1001 bimodal:5000 const:3000 \
	tiny:4000 expo:20000 lognormal:7
grep -q '5 windows with more than 1000 samples' "$T/log" || fail "run 2 did not spill 5 windows"
echo "fwdd_percentiles: ok"
