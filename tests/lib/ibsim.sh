# Shell helpers for tests on ibsim's simulated InfiniBand fabric
# (ibsim-utils; docs/network.md). Source after setting T (a temporary
# directory) and fail(). bcn_ibsim_start runs ibsim on a net file with its
# console on fd 7 (a FIFO held open), on a private socket name, then
# opensm once to assign LIDs; bcn_ibsim_run runs a command with
# libumad2sim.so preloaded (BCN_IBSIM_ENV: its environment); bcn_ibsim_stop
# ends ibsim. Needs BCN_TEST_DATA.

BCN_IBSIM_SO=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n 1 || true)
BCN_IBSIM_PID=

# Exits 77 (skipped) when ibsim, libumad2sim or opensm are missing.
bcn_ibsim_require() { # test name
	if ! command -v ibsim > /dev/null || [ -z "$BCN_IBSIM_SO" ] ||
		! { command -v opensm > /dev/null || [ -x /usr/sbin/opensm ]; }; then
		echo "$1: skipped (ibsim-utils, libumad2sim0 or opensm not installed)"
		exit 77
	fi
}

bcn_ibsim_prompts() { grep -o "sim>" "$T/ibsim.out" | wc -l; }

# Starts ibsim on NET, clients attached at node HOST; opensm assigns LIDs.
bcn_ibsim_start() { # net, host
	export IBSIM_SOCKNAME="bcn-ibsim-$$-$RANDOM"
	export SIM_HOST=$2
	export OSM_CACHE_DIR=$T
	mkfifo "$T/ibsim.console"
	ibsim -s "$1" < "$T/ibsim.console" > "$T/ibsim.out" 2>&1 &
	BCN_IBSIM_PID=$!
	exec 7> "$T/ibsim.console"
	for _ in $(seq 400); do
		grep -q "sim>" "$T/ibsim.out" && break
		kill -0 "$BCN_IBSIM_PID" 2>/dev/null || fail "ibsim exited: $(tail -n 5 "$T/ibsim.out")"
		sleep 0.05
	done
	grep -q "sim>" "$T/ibsim.out" || fail "ibsim did not start"
	bcn_ibsim_run timeout 300 "$(command -v opensm || echo /usr/sbin/opensm)" \
		-o -f "$T/opensm.out" > "$T/opensm.stdout" 2>&1 ||
		fail "opensm: $(tail -n 5 "$T/opensm.stdout")"
}

# Sends the console commands of FILE (one per line) and waits until
# ibsim has taken them all (one prompt each).
bcn_ibsim_feed() { # file
	local n want
	n=$(bcn_ibsim_prompts)
	want=$((n + $(grep -c . "$1")))
	cat "$1" >&7
	for _ in $(seq 1200); do
		[ "$(bcn_ibsim_prompts)" -ge "$want" ] && return 0
		sleep 0.05
	done
	fail "ibsim did not take $1"
}

# The environment of a client: the preload, and for sanitizer builds the
# link order check off and libumad2sim.so's own findings suppressed. Use
# as `env "${BCN_IBSIM_ENV[@]}" PROGRAM ... &`: $! is then the program.
BCN_IBSIM_ENV=(
	"LD_PRELOAD=$BCN_IBSIM_SO"
	"ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:suppressions=$BCN_TEST_DATA/ib/umad2sim.asan"
	"LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$BCN_TEST_DATA/ib/umad2sim.lsan"
)
bcn_ibsim_run() { # command...
	env "${BCN_IBSIM_ENV[@]}" "$@"
}

bcn_ibsim_stop() {
	[ -n "$BCN_IBSIM_PID" ] || return 0
	echo quit >&7 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$BCN_IBSIM_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$BCN_IBSIM_PID" 2>/dev/null || true
	wait "$BCN_IBSIM_PID" 2>/dev/null || true
	BCN_IBSIM_PID=
}
