# Shell helpers for the tests that run beacon-sim under real collectors.
# Source it after setting BCN_BUILD; it sets SIM, BEACON, T (a temporary
# directory), pids (collectors to kill on exit), an EXIT trap and fail().

SIM=$BCN_BUILD/sim/beacon-sim
BEACON=$BCN_BUILD/cli/beacon
T=$(mktemp -d)
pids=()
bcn_sim_cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap bcn_sim_cleanup EXIT
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
