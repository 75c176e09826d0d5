# Helpers sourced by tests/integration/sender_*.sh: a scratch directory,
# site keys, acksrv instances (tests/tools/acksrv.c) started on ports
# reserved with bcn_alloc_port (tests/lib/servers.sh), restarted on the
# same port and stopped by process id, bounded waits, and JSON and log
# checks. Every process started here and still running at exit is
# stopped by the EXIT trap with SIGTERM; a server's non-zero exit status
# or a sanitizer report in the logs under T fails the test.
: "${BCN_BUILD:?}"
BEACON=$BCN_BUILD/cli/beacon
ACKSRV=$BCN_BUILD/tests/acksrv
SENDTEST=$BCN_BUILD/tests/sendtest
T=$(mktemp -d)
declare -A SRV_PID SRV_PORT
BG_PIDS=()
# shellcheck source=tests/lib/servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/servers.sh"

cleanup() {
	local p st=0
	for p in "${SRV_PID[@]}"; do
		[ -n "$p" ] && BCN_PIDS+=("$p")
	done
	for p in "${BG_PIDS[@]+"${BG_PIDS[@]}"}"; do
		[ -n "$p" ] && BCN_PIDS+=("$p")
	done
	bcn_cleanup || st=1
	rm -rf "$T"
	return "$st"
}
trap 'st=$?; cleanup || st=1; exit $st' EXIT

fail() {
	echo "FAIL: $*" >&2
	local f
	for f in "$T"/*.err; do
		[ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
	done
	exit 1
}

# wait_until LIMIT_SECONDS COMMAND...: polls COMMAND every 50 ms.
wait_until() {
	local limit=$(( $1 * 20 )) i=0
	shift
	until "$@"; do
		i=$((i + 1))
		[ $i -lt $limit ] || return 1
		sleep 0.05
	done
}

# mkkey FILE: a fresh 32-byte key, mode 0600.
mkkey() {
	head -c 32 /dev/urandom | od -An -tx1 -v | tr -d ' \n' > "$1"
	echo >> "$1"
	chmod 600 "$1"
}

# srv_settled NAME: acksrv NAME wrote its port file, or died.
srv_settled() {
	[ -s "$T/$1.port" ] || ! kill -0 "${SRV_PID[$1]}" 2>/dev/null
}

# start_srv NAME KEY [acksrv options...]: starts acksrv NAME on a port
# reserved for the whole test (the port of an earlier instance of NAME, so
# that collectors find it again after a restart), logging to $T/NAME.log.
# It must write its port file (it bound the port) and, unless --paused,
# own the listener (bcn_wait_port).
start_srv() {
	local name=$1 key=$2 port=${SRV_PORT[$1]:-} try opt paused=0
	shift 2
	for opt in "$@"; do [ "$opt" = --paused ] && paused=1; done
	if [ -z "$port" ]; then
		bcn_alloc_port port || fail "no port to reserve for acksrv $name"
		SRV_PORT[$name]=$port
	fi
	for try in $(seq 1 50); do
		rm -f "$T/$name.port"
		"$ACKSRV" --key "$key" --log "$T/$name.log" \
			--port-file "$T/$name.port" --port "$port" "$@" \
			2>>"$T/$name.err" &
		SRV_PID[$name]=$!
		wait_until 20 srv_settled "$name"
		if [ -s "$T/$name.port" ] && kill -0 "${SRV_PID[$name]}" 2>/dev/null; then
			[ "$(cat "$T/$name.port")" = "$port" ] ||
				fail "acksrv $name bound port $(cat "$T/$name.port"), not $port"
			[ "$paused" -eq 1 ] || bcn_wait_port "$port" "${SRV_PID[$name]}" ||
				fail "acksrv $name does not listen on port $port"
			return 0
		fi
		# a killed instance's port may still be held for a moment
		wait "${SRV_PID[$name]}" 2>/dev/null || true
		sleep 0.1
	done
	fail "acksrv $name could not bind port $port"
}

# stop_srv NAME [KILL]: stops acksrv NAME with SIGTERM and fails the test
# on its exit status; with KILL, kills it with SIGKILL (a deliberate
# fault).
stop_srv() {
	local pid=${SRV_PID[$1]}
	SRV_PID[$1]=""
	if [ "${2:-TERM}" = KILL ]; then
		bcn_kill9 "$pid"
	else
		bcn_stop "$pid" || fail "acksrv $1 exited with a failure"
	fi
}

# stored NAME: lines "stored" in NAME's log.
stored() {
	[ -f "$T/$1.log" ] || { echo 0; return; }
	grep -c ' stored$' "$T/$1.log" || true
}

stored_at_least() { [ "$(stored "$1")" -ge "$2" ]; }

# jget FILE KEY: a member of the (last) JSON line of FILE.
jget() {
	python3 -c 'import json,sys
v = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])[sys.argv[2]]
print(str(v).lower() if isinstance(v, bool) else v)' "$1" "$2"
}

# check_stored_once SEQ_LIST_FILE LOG...: every sequence number listed
# (one per line, node cn001) is stored exactly once over all the logs,
# and nothing else is.
check_stored_once() {
	local want=$1
	shift
	python3 - "$want" "$@" <<'PY' || fail "stored frames differ from the expected set"
import collections, sys
want = set(int(x) for x in open(sys.argv[1]) if x.strip())
seen = collections.Counter()
for path in sys.argv[2:]:
    try:
        lines = open(path).read().splitlines()
    except FileNotFoundError:
        continue
    for line in lines:
        node, seq, st = line.split()
        if st == "stored":
            seen[(node, int(seq))] += 1
twice = [k for k, n in seen.items() if n > 1]
got = set(s for (n, s) in seen)
extra = got - want
missing = want - got
if twice or extra or missing:
    print("twice:", sorted(twice)[:10], "extra:", sorted(extra)[:10],
          "missing:", sorted(missing)[:10], file=sys.stderr)
    sys.exit(1)
PY
}
