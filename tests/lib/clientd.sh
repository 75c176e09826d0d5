# Shell helpers for the integration tests of beacon-clientd and the tracer.
# Source it after setting BCN_BUILD; it sets T (a temporary directory),
# SOCK (an abstract socket name unique to the test), CLIENTD, BEACON, TRACE,
# an EXIT trap that stops a daemon still running with SIGTERM, fails the
# test on its exit status or a sanitizer report in the logs under T
# (tests/lib/servers.sh) and removes T, and fail().

# shellcheck source=tests/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/servers.sh"

CLIENTD=$BCN_BUILD/collectors/client/beacon-clientd
BEACON=$BCN_BUILD/cli/beacon
TRACE=$BCN_BUILD/lib/libbeacon_trace.so
T=$(mktemp -d)
SOCK="@beacon-test-$(basename "$0" .sh)-$$"
pid=
bcn_clientd_cleanup() {
	local st=0
	[ -n "$pid" ] && BCN_PIDS+=("$pid")
	pid=
	bcn_cleanup || st=1
	rm -rf "$T"
	return "$st"
}
trap 'st=$?; bcn_clientd_cleanup || st=1; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/log" ] && tail -n 20 "$T/log" >&2; exit 1; }

# Starts beacon-clientd on $SOCK writing frames to $T/out.bin and its log
# to $T/log, with the extra arguments given; sets pid; waits until it
# says it started.
bcn_clientd_start() {
	local i
	"$CLIENTD" --output "$T/out.bin" --tracer-socket "$SOCK" "$@" \
		2> "$T/log" &
	pid=$!
	for i in $(seq 1 100); do
		grep -q 'notice: started' "$T/log" && return 0
		kill -0 "$pid" 2>/dev/null || fail "beacon-clientd did not start"
		sleep 0.05
	done
	fail "beacon-clientd did not say it started"
}

# Stops it with SIGTERM and checks its exit status and its log.
bcn_clientd_stop() {
	local p=$pid
	pid=
	bcn_stop "$p" || fail "beacon-clientd exit status"
	bcn_check_sanitizer_logs "$T/log" || fail "sanitizer report of beacon-clientd"
}
