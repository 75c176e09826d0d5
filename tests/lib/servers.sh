# Shell helpers for integration tests that start real servers on loopback.
# Source it; call bcn_cleanup from an EXIT trap.

BCN_PIDS=()

# Prints a TCP port on 127.0.0.1 that is free right now.
bcn_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits (bounded) until something accepts connections on 127.0.0.1:$1.
bcn_wait_port() {
	local port=$1 tries=${2:-200}
	while [ "$tries" -gt 0 ]; do
		if python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$port)))" 2>/dev/null; then
			return 0
		fi
		sleep 0.1; tries=$((tries - 1))
	done
	echo "nothing listens on port $port" >&2
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
	bcn_wait_port "$port"
}

# Runs redis-cli against the test Redis on PORT.
bcn_redis() {
	local port=$1; shift
	redis-cli -p "$port" "$@"
}

bcn_kill9() {
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

bcn_stop() {
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

bcn_cleanup() {
	for p in "${BCN_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
