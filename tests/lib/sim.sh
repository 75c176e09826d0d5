# Shell helpers for the tests that run beacon-sim under real collectors.
# Source it after setting BCN_BUILD; it sets SIM, BEACON, T (a temporary
# directory), pids (collectors still running on exit are stopped with
# SIGTERM), an EXIT trap that fails the test on a collector's exit status
# or a sanitizer report in the logs under T (tests/lib/servers.sh), and
# fail().

# shellcheck source=tests/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/servers.sh"

SIM=$BCN_BUILD/sim/beacon-sim
BEACON=$BCN_BUILD/cli/beacon
T=$(mktemp -d)
pids=()
bcn_sim_cleanup() {
	local st=0
	BCN_PIDS+=("${pids[@]+"${pids[@]}"}")
	pids=()
	bcn_cleanup || st=1
	rm -rf "$T"
	return "$st"
}
trap 'st=$?; bcn_sim_cleanup || st=1; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; tail -n 5 "$T"/*.log >&2 || true; exit 1; }

# Waits until the collector logging to LOG (at level info) has taken N
# samples; PID is the collector (it may exit right after its last one).
bcn_wait_sample() { # log, samples, pid
	local i
	for i in $(seq 1 300); do
		[ "$(grep -c ' done: ' "$1")" -ge "$2" ] && return 0
		kill -0 "$3" 2>/dev/null || [ "$(grep -c ' done: ' "$1")" -ge "$2" ] ||
			fail "a collector exited early"
		sleep 0.05
	done
	fail "no sample $2 in $1"
}

# Runs beacon-fwdd on fwd001 and fwd002 of the simulator's tree ($T/sim,
# configuration $T/sim.conf) in lock-step: the simulator writes tick
# FIRST, both daemons start (their first sample is the baseline), then
# for each further sample the simulator writes the next tick and both
# close a window. The decoded records go to $T/records.jsonl. With a
# third argument "osc" the daemons also sample their node's Lustre client
# (--root OUT/fwdNNN) and send fwd_rpc records.
bcn_sim_fwdd_steps() { # first tick, samples [osc]
	local first=$1 ticks=$2 n k osc=()
	"$SIM" --config "$T/sim.conf" --until "$first" 2> "$T/sim.log" ||
		fail "beacon-sim"
	for n in 1 2; do
		osc=(--no-lustre-client)
		[ "${3:-}" = osc ] && osc=(--root "$T/sim/fwd00$n")
		"$BCN_BUILD/collectors/forwarder/beacon-fwdd" --node "fwd00$n" \
			--request-log "$T/sim/fwd00$n/requests.log" \
			"${osc[@]}" --interval 1h --count "$ticks" \
			--output "$T/fwd$n.bin" --log-level info \
			2> "$T/fwdd$n.log" &
		pids+=($!)
	done
	bcn_wait_sample "$T/fwdd1.log" 1 "${pids[0]}"
	bcn_wait_sample "$T/fwdd2.log" 1 "${pids[1]}"
	for k in $(seq 2 "$ticks"); do
		"$SIM" --config "$T/sim.conf" --until "$((first + k - 1))" \
			2>> "$T/sim.log" || fail "beacon-sim --until $((first + k - 1))"
		kill -USR1 "${pids[0]}" "${pids[1]}"
		bcn_wait_sample "$T/fwdd1.log" "$k" "${pids[0]}"
		bcn_wait_sample "$T/fwdd2.log" "$k" "${pids[1]}"
	done
	wait "${pids[0]}" || fail "beacon-fwdd exit status"
	wait "${pids[1]}" || fail "beacon-fwdd exit status"
	pids=()
	bcn_check_sanitizer_logs "$T/fwdd1.log" "$T/fwdd2.log" ||
		fail "sanitizer report of beacon-fwdd"
	"$BEACON" decode "$T/fwd1.bin" "$T/fwd2.bin" > "$T/records.jsonl" ||
		fail "decode"
}

# Writes the simulator's state after each tick FIRST to LAST of the same
# configuration into $T/at<TICK> (an output tree each), so that a test
# can take the servers' counters in each tick (sim_jobstats.py).
bcn_sim_states() { # first last
	local k
	for k in $(seq "$1" "$2"); do
		"$SIM" --config "$T/sim.conf" --out "$T/at$k" --truth "$T/at$k.truth" \
			--until "$k" 2>> "$T/sim.log" || fail "beacon-sim --until $k --out $T/at$k"
	done
}
