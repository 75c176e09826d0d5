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

# Starts Redis and a beacon-logsrv storing into an embedded store in
# $T/store, for a history that beacon-sim's scale mode plays: sets RP and
# LP (their ports) and LPID, writes the site key $T/key and
# $T/logsrv.conf; its argument, if any, is appended to the configuration.
bcn_sim_logsrv() { # [extra configuration lines]
	python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
	chmod 600 "$T/key"
	bcn_alloc_port RP; bcn_alloc_port LP
	bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
	cat > "$T/logsrv.conf" <<CONF
listen = 127.0.0.1:$LP
name = logsrv
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn
store_backend = sqlite
store_dir = $T/store
flush_idle = 20ms
record_max_age = 0
${1:-}
CONF
	"$BCN_BUILD/logsrv/beacon-logsrv" --config "$T/logsrv.conf" >> "$T/logsrv.log" 2>&1 &
	LPID=$!; BCN_PIDS+=("$LPID")
	bcn_wait_port "$LP" "$LPID" || fail "logsrv did not listen"
}

# Plays the scale-mode configuration $T/scale.conf (its server the log
# server of bcn_sim_logsrv) into $T/sim.jsonl and waits until the log
# server's queue is empty: the history is then in the store.
bcn_sim_play() {
	local i
	"$SIM" --config "$T/scale.conf" > "$T/sim.jsonl" 2> "$T/sim.log" ||
		fail "beacon-sim: $(tail -3 "$T/sim.log")"
	for i in $(seq 1 400); do
		[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && return 0
		sleep 0.05
	done
	fail "the log server's queue did not drain"
}

# Starts a private MariaDB, writes $T/analyzd.conf (the job database, the
# store of bcn_sim_logsrv, and the argument's lines), imports the
# simulator's forwarding map and runs beacon-analyzd --once over its
# sacct output: every ended job's report is computed and stored, and its
# log ($T/analyzd.log) must say N reports, none failed.
bcn_sim_reports() { # n [extra configuration lines]
	bcn_alloc_port MP
	bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"
	{ cat "$T/db/jobdb.conf"; printf 'store_dir = %s\nsettle = 0\nlive_interval = 0\n%s\n' \
		"$T/store" "${2:-}"; } > "$T/analyzd.conf"
	"$BEACON" import-map --config "$T/analyzd.conf" "$T/sim/slurm/fwdmap.txt" > "$T/map.out" ||
		fail "import-map: $(cat "$T/map.out")"
	"$BCN_BUILD/analysis/beacon-analyzd" --config "$T/analyzd.conf" --once \
		--sacct-command "cat $T/sim/slurm/sacct.txt" > "$T/analyzd.log" 2>&1 ||
		fail "beacon-analyzd --once: $(tail -5 "$T/analyzd.log")"
	grep -q "$1 reports, 0 live, 0 failed, 0 partial" "$T/analyzd.log" ||
		fail "analyzd: $(tail -3 "$T/analyzd.log")"
}
