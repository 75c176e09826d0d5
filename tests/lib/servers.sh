# Shell helpers for integration tests that start real servers on loopback.
# Source it; call bcn_cleanup from the EXIT trap and keep its verdict:
#   trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
# Ports: bcn_alloc_port reserves a port for the whole test (a lock other
# tests honour), bcn_wait_port waits until the process the test started
# owns the listening socket, so that parallel tests never reach each other.

BCN_PIDS=()
BCN_PORT_DIR=${TMPDIR:-/tmp}/beacon-test-ports
BCN_PORT_FDS=()
BCN_SAN_PATTERN='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: [A-Za-z]*Sanitizer'

# Sets the variable VAR to a TCP port of 127.0.0.1 that nothing listens on
# and that no other test holds: the test keeps an exclusive lock on
# $BCN_PORT_DIR/PORT until it exits. Ports come from 20000-31999, below the
# kernel's ephemeral range, so that outgoing connections do not take them.
bcn_alloc_port() { # var
	local p fd try
	mkdir -p "$BCN_PORT_DIR"
	for try in $(seq 1 500); do
		p=$((20000 + RANDOM % 12000))
		exec {fd}>>"$BCN_PORT_DIR/$p" || continue
		if flock -n "$fd" && python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', $p))" 2>/dev/null; then
			BCN_PORT_FDS+=("$fd")
			printf -v "$1" '%s' "$p"
			return 0
		fi
		exec {fd}>&-
	done
	echo "no free port to reserve" >&2
	return 1
}

# Prints the inode of the socket listening on 127.0.0.1:PORT (or on any
# address), or nothing.
bcn_listen_inode() { # port
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $10; exit }' \
		/proc/net/tcp /proc/net/tcp6
}

# Waits (bounded) until process PID listens on 127.0.0.1:PORT: the
# listening socket must be one of PID's descriptors, so another test's
# server on that port does not count. Fails if PID exits first.
bcn_wait_port() { # port pid [tries]
	local port=$1 pid=$2 tries=${3:-200} ino
	while [ "$tries" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || { echo "process $pid exited before it listened on port $port" >&2; return 1; }
		ino=$(bcn_listen_inode "$port")
		if [ -n "$ino" ] && [ -n "$(find "/proc/$pid/fd" -lname "socket:\[$ino\]" -print -quit 2>/dev/null)" ]; then
			return 0
		fi
		sleep 0.1; tries=$((tries - 1))
	done
	echo "process $pid does not listen on port $port" >&2
	return 1
}

# Starts redis-server with durable AOF in DIR on PORT; sets REDIS_PID.
bcn_start_redis() {
	local dir=$1 port=$2
	mkdir -p "$dir"
	redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" \
		--appendonly yes --appendfsync always --save "" \
		--daemonize no --logfile "$dir/redis.log" &
	REDIS_PID=$!
	BCN_PIDS+=("$REDIS_PID")
	bcn_wait_port "$port" "$REDIS_PID"
}

# Starts a private MariaDB server in DIR on PORT (and DIR/sock), with a
# database "beacon" and a user "beacon" whose random password is in
# DIR/password (mode 0600); writes DIR/jobdb.conf with the jobdb_* keys.
# Sets MARIADB_PID. Nothing depends on a system-wide server.
bcn_start_mariadb() {
	local dir=$1 port=$2 pw
	# a temporary directory of its own: a MariaDB server, bootstrap
	# included, deletes every #sql* file in its tmpdir when it starts,
	# and with the default /tmp that was another test's server's
	# temporary tables (two tests starting at once failed to install)
	mkdir -p "$dir/tmp"
	mariadb-install-db --no-defaults --datadir="$dir/data" --user="$(id -un)" \
		--skip-test-db --auth-root-authentication-method=socket \
		--tmpdir="$dir/tmp" \
		> "$dir/install.out" 2>&1 || { cat "$dir/install.out" >&2; return 1; }
	# A server that exits before it listens (a transient failure under a
	# loaded machine: a port another program took, an InnoDB start that
	# failed) is started again, twice at most; each failure's log is shown.
	local try
	for try in 1 2 3; do
		mariadbd --no-defaults --datadir="$dir/data" --socket="$dir/sock" \
			--port="$port" --bind-address=127.0.0.1 --user="$(id -un)" \
			--pid-file="$dir/pid" --log-error="$dir/mariadb.err" --skip-log-bin \
			--tmpdir="$dir/tmp" \
			--innodb-buffer-pool-size=16M --innodb-log-file-size=8M \
			--skip-name-resolve 2> "$dir/mariadbd.out" &
		MARIADB_PID=$!
		BCN_PIDS+=("$MARIADB_PID")
		bcn_wait_port "$port" "$MARIADB_PID" && break
		echo "mariadbd (try $try) did not listen on $port; its log:" >&2
		tail -n 20 "$dir/mariadb.err" "$dir/mariadbd.out" >&2 2>/dev/null || true
		kill -0 "$MARIADB_PID" 2>/dev/null && bcn_kill9 "$MARIADB_PID"
		wait "$MARIADB_PID" 2>/dev/null || true
		bcn_forget "$MARIADB_PID"
		[ "$try" -lt 3 ] || return 1
		sleep 1
	done
	pw=$(python3 -c 'import os; print(os.urandom(24).hex())')
	( umask 077; echo "$pw" > "$dir/password" )
	mariadb --no-defaults --socket="$dir/sock" -uroot -e "CREATE DATABASE beacon;
		CREATE USER 'beacon'@'127.0.0.1' IDENTIFIED BY '$pw';
		GRANT ALL ON beacon.* TO 'beacon'@'127.0.0.1';" || return 1
	printf 'jobdb_host = 127.0.0.1\njobdb_port = %s\njobdb_user = beacon\njobdb_password_file = %s\njobdb_database = beacon\n' \
		"$port" "$dir/password" > "$dir/jobdb.conf"
}

# Runs SQL as MariaDB's root over the socket of the server in DIR.
bcn_mariadb() { # dir, then mariadb client arguments
	local dir=$1; shift
	mariadb --no-defaults --socket="$dir/sock" -uroot beacon "$@"
}

# Runs redis-cli against the test Redis on PORT.
bcn_redis() {
	local port=$1; shift
	redis-cli -p "$port" "$@"
}

# Removes PID from BCN_PIDS once it is reaped, so that cleanup never
# signals a process id the system may have given to someone else.
bcn_forget() { # pid
	local p keep=()
	for p in "${BCN_PIDS[@]+"${BCN_PIDS[@]}"}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	BCN_PIDS=("${keep[@]+"${keep[@]}"}")
}

# Kills PID with SIGKILL (a deliberate fault) and reaps it.
bcn_kill9() {
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	bcn_forget "$1"
}

# Stops PID with SIGTERM and waits (bounded, 30 s) for it; returns its exit
# status (137 if it had to be killed), so that a sanitizer abort or a
# LeakSanitizer exit of a server fails the test.
bcn_stop() { # pid
	local pid=$1 st=0 i
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && { echo "process $pid ignored SIGTERM" >&2; kill -9 "$pid"; }
	wait "$pid" 2>/dev/null || st=$?
	bcn_forget "$pid"
	[ "$st" -eq 127 ] && st=0   # not our child, or reaped before
	[ "$st" -eq 0 ] || echo "process $pid exited with status $st" >&2
	return "$st"
}

# Fails (status 1) if a file given (logs of servers and tools) holds a
# sanitizer report, printing the report's first lines.
bcn_check_sanitizer_logs() { # file...
	local f bad=0
	for f in "$@"; do
		[ -f "$f" ] || continue
		if grep -Eq "$BCN_SAN_PATTERN" "$f"; then
			echo "sanitizer report in $f:" >&2
			grep -E -A8 "$BCN_SAN_PATTERN" "$f" | head -n 30 >&2
			bad=1
		fi
	done
	return "$bad"
}

# Stops every process started through these helpers with SIGTERM and
# checks each exit status, then the logs under T (files named *.log,
# *.err or log: what the tests' servers, tools and daemons write to) for
# sanitizer reports.
# Returns 1 if any server failed or reported, 0 otherwise.
bcn_cleanup() {
	local p bad=0
	for p in "${BCN_PIDS[@]+"${BCN_PIDS[@]}"}"; do
		bcn_stop "$p" || bad=1
	done
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		local logs
		mapfile -t logs < <(find "$T" -type f \( -name '*.log' -o -name '*.err' -o -name log \) 2>/dev/null)
		bcn_check_sanitizer_logs "${logs[@]}" || bad=1
	fi
	[ "$bad" -eq 0 ] || echo "FAIL: a server failed or reported a sanitizer finding" >&2
	return "$bad"
}
