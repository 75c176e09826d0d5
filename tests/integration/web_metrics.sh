#!/usr/bin/env bash
# beacon-web's /metrics and the report cache's generations (docs/api.md
# "Metrics", docs/report.md "The cache"), against real servers: a private
# MariaDB and Redis, a beacon-logsrv (named with a quote and a backslash,
# to check the escaping of label values) fed by beacon-sim, beacon-web.
# web_metrics_check.py then checks, with prometheus_client's parser as
# the oracle plus strict checks of its own: /metrics is 403 to anonymous
# requests from an address outside web_metrics_allow and to a user, 200
# from an allowed address and to an administrator; request counters and
# histogram counts grow by exactly the requests made; the report cache's
# hit and miss counters match the X-Beacon-Cache headers; open anomalies
# by kind equal what the job database holds; the log server's accepted
# and stored records equal what beacon-sim had acknowledged plus the late
# frames. And the cache: a job's report is a hit, an OST record of the
# job's window that does not name the job (a whole-target record) sent
# through the log server makes the next GET a miss with the new total,
# a record of another window leaves it a hit.
# Then the collectors' health (docs/collectors.md, "Health"): a real
# beacon-ostd sends health records every second through the log server;
# /metrics shows it connected with its records, its last health record
# within its own exit statistics once stopped, then silent; the health
# records are in the store; garbage in the log server's health hash is
# counted as unreadable and breaks nothing (collector_health_check.py);
# a restart of Redis is seen, and beacon-web reconnects by itself.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd
WEB=$BCN_BUILD/web/beacon-web

/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
	fail "python3-prometheus-client is not installed (deploy/install-deps)"
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port LP; bcn_alloc_port MP; bcn_alloc_port WP
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"
cat > "$T/logsrv.conf" <<EOF2
listen = 127.0.0.1:$LP
name = "log\"srv\\\\1"
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn
store_backend = sqlite
store_dir = $T/store
flush_idle = 20ms
stats_interval = 100ms
record_max_age = 0
EOF2
"$LOGSRV" --config "$T/logsrv.conf" >> "$T/logsrv.log" 2>&1 &
LPID=$!; BCN_PIDS+=("$LPID")
bcn_wait_port "$LP" "$LPID" || fail "logsrv did not listen"

epoch=$(( $(date +%s) - 7200 ))
cat > "$T/scale.conf" <<EOF2
compute = 16
forwarding = 2
oss = 2
osts_per_oss = 2
mds = 1
switches = 2
tick = 1s
jobs_per_hour = 0
ost_bw = 400M
fwd_bw = 1G
stripe_count = 2
job = ckpt n-n 8 0 20 64M 10 3
job = lone 1-1 4 2 20 40M 10 3
# no simulated health records: the health checks below count one
# beacon-ostd, the real one
health_every = 0
out = $T/sim
scale = yes
server = 127.0.0.1:$LP
key_file = $T/key
epoch = $epoch
ticks = 30
truth = $T/truth.jsonl
EOF2
"$SIM" --config "$T/scale.conf" > "$T/sim.jsonl" 2> "$T/sim.log" || fail "beacon-sim: $(tail -3 "$T/sim.log")"
for _ in $(seq 1 400); do
	[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && break
	sleep 0.05
done
[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] || fail "the log server's queue did not drain"
{ cat "$T/db/jobdb.conf"; cat <<EOF2
store_dir = $T/store
settle = 0
live_interval = 0
EOF2
} > "$T/analyzd.conf"
"$BEACON" import-map --config "$T/analyzd.conf" "$T/sim/slurm/fwdmap.txt" > "$T/map.out" ||
	fail "import-map: $(cat "$T/map.out")"
"$ANALYZD" --config "$T/analyzd.conf" --once --sacct-command "cat $T/sim/slurm/sacct.txt" > "$T/analyzd.log" 2>&1 ||
	fail "beacon-analyzd --once: $(tail -5 "$T/analyzd.log")"

# anomalies: open ones of three kinds (one with a quote and a backslash in
# its kind), an acknowledged and a closed one that are not counted
n=0
for ks in 'slow_ost:open' 'slow_ost:open' 'slow_fwd:open' 'we"ird\\k:open' 'slow_mdt:acknowledged' 'slow_ost:closed'; do
	n=$((n + 1))
	bcn_mariadb "$T/db" -e "INSERT INTO anomalies (kind, component, from_ns, to_ns,
		severity, evidence, detected_ns, updated_ns, state) VALUES ('${ks%%:*}',
		'simfs-OST000$n', $n, $((n + 1)), 'warning', '{}', $n, $n, '${ks#*:}')" ||
		fail "anomaly $ks"
done

for u in admin:admin user02:user; do
	name=${u%%:*}
	( umask 077; python3 -c 'import os; print(os.urandom(12).hex())' > "$T/pw.$name" )
	"$BEACON" user add "$name" --role "${u#*:}" --password-file "$T/pw.$name" --config "$T/db/jobdb.conf" ||
		fail "beacon user add $name"
done
{ grep '^jobdb_' "$T/db/jobdb.conf"; cat <<EOF2
web_listen = 127.0.0.1:$WP
web_metrics_allow = 127.0.0.2, 10.1.0.0/16
web_collector_silent = 3s
store_dir = $T/store
cache_host = 127.0.0.1
cache_port = $RP
EOF2
} > "$T/web.conf"
"$WEB" --config "$T/web.conf" >> "$T/web.log" 2>&1 &
WPID=$!; BCN_PIDS+=("$WPID")
bcn_wait_port "$WP" "$WPID" 300 || fail "beacon-web did not listen"
sed 's/^web_metrics_allow = .*/web_metrics_allow = 10.0.0.0\/33/' "$T/web.conf" > "$T/bad.conf"
"$WEB" --config "$T/bad.conf" > "$T/bad.out" 2>&1 && fail "a bad web_metrics_allow was accepted"
grep -q "10.0.0.0/33" "$T/bad.out" || fail "bad web_metrics_allow: $(cat "$T/bad.out")"

BCN_REDIS_PORT=$RP BCN_LOGSRV_PORT=$LP BCN_BEACON=$BEACON \
	BCN_LATEFRAME=$BCN_BUILD/tests/lateframe BCN_DB_SOCK=$T/db/sock \
	/usr/bin/python3 "$BCN_SRC/tests/integration/web_metrics_check.py" "$T" "$WP" ||
	fail "the metrics checks failed"
kill -0 "$WPID" || fail "beacon-web died"

# --- the collectors' health
HC() { /usr/bin/python3 "$BCN_SRC/tests/integration/collector_health_check.py" "$@"; }
until_ok() {    # retries a check answering 3 ("not yet") for up to 60 s
	local st
	for _ in $(seq 1 120); do
		st=0; HC "$@" 2> "$T/hc.err" || st=$?
		[ "$st" = 3 ] || break
		sleep 0.5
	done
	[ "$st" = 0 ] || fail "health check $1: $(cat "$T/hc.err")"
}
mkdir -p "$T/ossroot"
cp -r "$BCN_TEST_DATA/lustre/ost/lmt-2.15.4_1/." "$T/ossroot/"
chmod -R u+w "$T/ossroot"
cat > "$T/ostd.conf" <<EOF2
root = "$T/ossroot"
node = "oss-health"
interval = 200ms
health_interval = 1s
server = 127.0.0.1:$LP
key_file = $T/key
stats_file = $T/ostd.stats
job_stats_interval = 0
exports_interval = 0
EOF2
"$BCN_BUILD/collectors/ost/beacon-ostd" --config "$T/ostd.conf" 2> "$T/ostd.log" &
OPID=$!
until_ok running "$WP" oss-health
kill -TERM "$OPID"
wait "$OPID" || fail "beacon-ostd exited with $?: $(tail -3 "$T/ostd.log")"
HC stopped "$WP" oss-health "$T/ostd.stats" || fail "health after the stop"
until_ok silent "$WP" oss-health
"$BEACON" query --config "$T/logsrv.conf" --layer collector --from 2000-01-01 > "$T/health.jsonl" ||
	fail "beacon query --layer collector"
/usr/bin/python3 - "$T/health.jsonl" <<'PY2'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert recs, "no health record in the store"
for r in recs:
    assert r["type"] == "health" and r["node"] == "oss-health", r
    assert r["program"] == "beacon-ostd", r
assert [r["records"] for r in recs] == sorted(r["records"] for r in recs), \
    "the counters of successive health records go back"
PY2
bcn_redis "$RP" HSET bcn:collectors junk-node '{"type":' > /dev/null
bcn_redis "$RP" HSET bcn:collectors other-node "$(head -1 "$T/health.jsonl")" > /dev/null
HC garbage "$WP" oss-health || fail "health with garbage in the hash"
# Redis restarts under beacon-web: the exposition says it is down, then
# beacon-web reconnects by itself
kill "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true
until_ok redis_down "$WP" oss-health
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen again"
until_ok redis_back "$WP" oss-health
kill -0 "$WPID" || fail "beacon-web died"
echo "web_metrics: ok"
