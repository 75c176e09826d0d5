#!/usr/bin/env bash
# beacon-web under HTTP load (wrk, bench/web_bench.lua for the session
# cookie): a private MariaDB and Redis, a SQLite store holding a job of
# 1,024 nodes and one of 16 with one hour of I/O each (written by
# bench/report_bench, whose own lines come first: the report's cost in
# process, the reference of the HTTP figures), and two beacon-web: one
# with the report cache, one without. One JSON object per line:
#   report_cached_1024     GET /api/v1/jobs/ID of the 1,024-node job from
#                          the cache (target: p99 < 100 ms)
#   report_uncached_1024   the same without the cache, every request
#                          computes the report (target: p99 < 1 s)
#   series, overview       GET /api/v1/series (a node's hour, 60 s steps)
#                          and /api/v1/overview (a 60 s window)
#   hits_alone_16          cached reports of the 16-node job, and
#   hits_during_misses_16  the same while a loop keeps recomputing the
#                          1,024-node job's report (its cache entry
#                          deleted before each request): a hit must not
#                          wait for a miss (run three times as long, so a
#                          blocked hit is answered when the miss ends);
#                          then one line with the ratio of the p99s, and
#                          with BCN_WEB_REF=PATH (another
#                          beacon-web, e.g. a build of an older commit)
#                          the same two runs on it and its ratio.
# usage: bench/web_bench.sh BUILD_DIR [SECONDS]   (per wrk run, default 10)
set -euo pipefail
BUILD=${1:?usage: web_bench.sh BUILD_DIR [SECONDS]}
SECS=${2:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/lib/servers.sh"
export PATH=$PATH:/usr/sbin
WEB=$BUILD/web/beacon-web
LUA=$SRC/bench/web_bench.lua
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-webbench.XXXXXX")
trap 'touch "$T/stop"; bcn_cleanup; rm -rf "$T"' EXIT
command -v wrk > /dev/null || { echo "web_bench: wrk is not installed" >&2; exit 1; }

bcn_alloc_port RP; bcn_alloc_port MP; bcn_alloc_port W1; bcn_alloc_port W2
bcn_start_redis "$T/redis" "$RP" > /dev/null
bcn_start_mariadb "$T/db" "$MP" > /dev/null
{ cat "$T/db/jobdb.conf"; echo "cache_host = 127.0.0.1"; echo "cache_port = $RP"
  echo "store_dir = $T/store"; echo "store_retention = 36500d"; } > "$T/bench.conf"
"$BUILD/bench/report_bench" "$T/bench.conf" 1024:1,16:1 3
BIG=901024 SMALL=900016
T0=$(( ($(date +%s) - 2 * 86400) / 3600 * 3600 ))

( umask 077; python3 -c 'import os; print(os.urandom(12).hex())' > "$T/pw" )
"$BUILD/cli/beacon" user add admin --role admin --password-file "$T/pw" --config "$T/db/jobdb.conf"

# start_web PORT BINARY CACHE(yes|no): a beacon-web in the background
start_web() {
	{ grep '^jobdb_' "$T/db/jobdb.conf"; echo "web_listen = 127.0.0.1:$1"
	  echo "store_dir = $T/store"; echo "web_per_ip_connections = 0"
	  echo "web_login_attempts = 1000"
	  [ "$3" = yes ] && { echo "cache_host = 127.0.0.1"; echo "cache_port = $RP"; }
	  true; } > "$T/web$1.conf"
	"$2" --config "$T/web$1.conf" >> "$T/web$1.log" 2>&1 &
	local pid=$!; BCN_PIDS+=("$pid")
	bcn_wait_port "$1" "$pid" 300 || { echo "beacon-web did not listen" >&2; tail "$T/web$1.log" >&2; exit 1; }
}
# token PORT: logs in as admin and prints the session token
token() {
	curl -s -D - -o /dev/null -H 'Content-Type: application/json' \
		--data "{\"user\":\"admin\",\"password\":\"$(cat "$T/pw")\"}" \
		"http://127.0.0.1:$1/api/v1/login" |
		sed -n 's/^[Ss]et-[Cc]ookie: beacon_session=\([0-9a-f]*\);.*/\1/p'
}
# run CASE PORT PATH CONNS SECONDS EXTRA
run() {
	BCN_COOKIE=$TOK BCN_CASE=$1 BCN_CONNS=$4 BCN_EXTRA=$6 \
		wrk -t1 -c"$4" -d"$5"s --timeout 120s -s "$LUA" "http://127.0.0.1:$2$3" |
		sed -n '/^{"bench"/p'
}
# miss_loop PORT: recomputes the big job's report until $T/stop exists
miss_loop() {
	while [ ! -e "$T/stop" ]; do
		redis-cli -p "$RP" DEL "beacon:report:$BIG" > /dev/null
		curl -s -o /dev/null -w '%{time_total}\n' -b "beacon_session=$TOK" \
			"http://127.0.0.1:$1/api/v1/jobs/$BIG" >> "$T/miss.times"
	done
}
# blocking NAME PORT: hits of the small job alone and during misses
blocking() {
	local a b m
	curl -s -o /dev/null -b "beacon_session=$TOK" "http://127.0.0.1:$2/api/v1/jobs/$SMALL"
	a=$(run "${1}hits_alone_16" "$2" "/api/v1/jobs/$SMALL" 4 "$SECS" '')
	echo "$a"
	rm -f "$T/stop" "$T/miss.times"
	miss_loop "$2" & local lp=$!
	sleep 2
	b=$(run "${1}hits_during_misses_16" "$2" "/api/v1/jobs/$SMALL" 4 $((SECS * 3)) '')
	touch "$T/stop"; wait "$lp"
	m=$(awk '{ s += $1; n++ } END { printf "%d,%.1f", n, n ? s / n * 1000 : 0 }' "$T/miss.times")
	echo "$b" | sed "s/}\$/,\"misses_meanwhile\":${m%,*},\"miss_mean_ms\":${m#*,}}/"
	python3 -c 'import json,sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
during = b["p99_ms"] if b["requests"] else None     # None: no hit answered
print(json.dumps({"bench": "web", "case": sys.argv[3] + "hits_behind_misses",
                  "alone_p99_ms": a["p99_ms"], "during_misses_p99_ms": during,
                  "hits_answered_during_misses": b["requests"],
                  "p99_ratio": round(during / a["p99_ms"], 2) if during else None,
                  "miss_mean_ms": float(sys.argv[4]),
                  "target": "during_misses_p99_ms well below miss_mean_ms"}))' "$a" "$b" "$1" "${m#*,}"
}

start_web "$W1" "$WEB" yes
TOK=$(token "$W1")
[ -n "$TOK" ] || { echo "web_bench: log-in failed" >&2; exit 1; }
curl -s -o /dev/null -b "beacon_session=$TOK" "http://127.0.0.1:$W1/api/v1/jobs/$BIG"
run report_cached_1024 "$W1" "/api/v1/jobs/$BIG" 4 "$SECS" ',"nodes":1024,"target_p99_ms":100'
start_web "$W2" "$WEB" no
run report_uncached_1024 "$W2" "/api/v1/jobs/$BIG" 1 $((SECS * 2)) ',"nodes":1024,"target_p99_ms":1000'
run series "$W1" "/api/v1/series?layer=client&entity=b${BIG}n000000&from=$T0&to=$((T0 + 3600))&step=60" 4 "$SECS" ''
run overview "$W1" "/api/v1/overview?to=$((T0 + 1800))&window=60" 4 "$SECS" ''
blocking "" "$W1"
if [ -n "${BCN_WEB_REF:-}" ]; then
	bcn_alloc_port W3
	start_web "$W3" "$BCN_WEB_REF" yes
	TOK=$(token "$W3")
	blocking "reference_" "$W3"
fi
