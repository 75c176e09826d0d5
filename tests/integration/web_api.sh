#!/usr/bin/env bash
# beacon-web end to end (docs/api.md), against real servers: a private
# MariaDB and Redis, a beacon-logsrv fed by beacon-sim's scale mode (jobs
# of the users user08, user16, user04 and user02), beacon-analyzd --once
# for the reports, `beacon user add` for an administrator and two users.
# Then, with curl: anonymous requests get 401 under /api/v1 (but the
# log-in and the OpenAPI document); user08 gets their jobs and 404 for
# user16's (existence is not told), no series of user16's nodes nor of
# their own nodes outside their jobs' windows, searches only their own
# jobs even with user=user16, an overview and heatmap of their jobs'
# components only; the administrator sees all; the report cache header
# says miss then hit; bad parameters are 400 naming the parameter;
# unknown paths 404; gzip; CSRF missing or wrong is 403; log-in is
# rate-limited (429); path traversal on static files is refused; an
# oversized body is 413; slow and idle clients are cut off by the
# timeout while others are served. The overview's forwarding-node
# latency and queue length, and a forwarding node's series of them, equal
# what the fwd_req records (`beacon query`) give; the per-client MDT load
# (export records stored by tests/tools/storefill a month before the
# simulation) and its split by forwarding node (the simulator's map) are
# the records' sums, to the administrator only.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd
WEB=$BCN_BUILD/web/beacon-web
TICKS=40

bcn_sim_logsrv
bcn_alloc_port MP; bcn_alloc_port WP; bcn_alloc_port TP
bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"

epoch=$(( $(date +%s) - 7200 ))
cat > "$T/scale.conf" <<EOF
compute = 48
forwarding = 6
oss = 2
osts_per_oss = 3
mds = 1
switches = 4
tick = 1s
jobs_per_hour = 0
ost_bw = 400M
fwd_bw = 1G
stripe_count = 2
job = ckpt n-n 8 0 25 64M 10 3
job = shared n-1 8 0 25 48M 10 3
job = groups n-m 16 1 25 32M 10 3
job = lone 1-1 4 2 25 40M 10 3
out = $T/sim
scale = yes
server = 127.0.0.1:$LP
key_file = $T/key
epoch = $epoch
ticks = $TICKS
truth = $T/truth.jsonl
EOF
"$SIM" --config "$T/scale.conf" > "$T/sim.jsonl" 2> "$T/sim.log" || fail "beacon-sim: $(tail -3 "$T/sim.log")"
for _ in $(seq 1 400); do
	[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && break
	sleep 0.05
done
[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] || fail "the log server's queue did not drain"
sleep 1
{ cat "$T/db/jobdb.conf"; cat <<EOF
store_dir = $T/store
cache_host = 127.0.0.1
cache_port = $RP
settle = 0
live_interval = 0
EOF
} > "$T/analyzd.conf"
"$BEACON" import-map --config "$T/analyzd.conf" "$T/sim/slurm/fwdmap.txt" > "$T/map.out" ||
	fail "import-map: $(cat "$T/map.out")"
"$ANALYZD" --config "$T/analyzd.conf" --once --sacct-command "cat $T/sim/slurm/sacct.txt" > "$T/analyzd.log" 2>&1 ||
	fail "beacon-analyzd --once: $(tail -5 "$T/analyzd.log")"
# the web service computes and caches reports itself: start from none
bcn_redis "$RP" --scan --pattern 'beacon:report:*' | while read -r k; do bcn_redis "$RP" DEL "$k" > /dev/null; done

# one anomaly naming a job of user16 and one naming a job of user08
for u in user16 user08; do
	bcn_mariadb "$T/db" -e "INSERT INTO anomalies (kind, component, from_ns, to_ns,
		severity, evidence, detected_ns, updated_ns) SELECT 'slow_ost', 'simfs-OST0000',
		start_ns, end_ns, 'warning', '{}', end_ns, end_ns FROM jobs WHERE user = '$u'
		ORDER BY id LIMIT 1;
		INSERT INTO anomaly_jobs (anomaly, job, role) SELECT LAST_INSERT_ID(), id,
		'affected' FROM jobs WHERE user = '$u' ORDER BY id LIMIT 1;" || fail "anomaly of $u"
done

# accounts: passwords from files, never on the command line
for u in admin:admin user08:user user16:user; do
	name=${u%%:*}
	( umask 077; python3 -c 'import os; print(os.urandom(12).hex())' > "$T/pw.$name" )
	"$BEACON" user add "$name" --role "${u#*:}" --password-file "$T/pw.$name" --config "$T/db/jobdb.conf" ||
		fail "beacon user add $name"
done
"$BEACON" user add admin --role admin --password-file "$T/pw.admin" --config "$T/db/jobdb.conf" 2> "$T/dup.err" &&
	fail "a second admin was added"
grep -q "exists" "$T/dup.err" || fail "duplicate user: $(cat "$T/dup.err")"
[ "$(bcn_mariadb "$T/db" -N -e 'SELECT COUNT(*) FROM beacon.users WHERE password_hash LIKE "$argon2id$%"')" = 3 ] ||
	fail "passwords are not stored as Argon2id hashes"
grep -rq "$(cat "$T/pw.user08")" "$T/db/data/beacon" 2>/dev/null && fail "a password is in the database files"

# export records of MDTs (and others), a month before the simulation
printf 'store_backend = sqlite\nstore_dir = %s\n' "$T/store" > "$T/fill.conf"
fill_start=$(( epoch - 30 * 86400 ))
"$BCN_BUILD/tests/storefill" "$T/fill.conf" "$T/fill.exp" 20000 "$fill_start" > "$T/fill.log" 2>&1 ||
	fail "storefill: $(tail -3 "$T/fill.log")"
export BCN_FILL_FROM=$(( fill_start - 7200 )) BCN_FILL_TO=$(( fill_start + 50 * 3600 ))

mkdir -p "$T/static/sub"
echo '<h1>beacon</h1>' > "$T/static/index.html"
echo 'secret' > "$T/secret.txt"
ln -s "$T/secret.txt" "$T/static/sub/link.txt"
{ grep '^jobdb_' "$T/db/jobdb.conf"; cat <<EOF
web_listen = 127.0.0.1:$WP
web_static_dir = $T/static
web_client_timeout = 2s
web_login_attempts = 3
web_login_window = 1m
web_per_ip_connections = 40
web_body_max = 4k
store_dir = $T/store
cache_host = 127.0.0.1
cache_port = $RP
EOF
} > "$T/web.conf"
"$WEB" --config "$T/web.conf" >> "$T/web.log" 2>&1 &
WPID=$!; BCN_PIDS+=("$WPID")
bcn_wait_port "$WP" "$WPID" 300 || fail "beacon-web did not listen"
echo "bad_key = 1" >> "$T/bad.conf"
"$WEB" --config "$T/bad.conf" > "$T/bad.out" 2>&1 && fail "an unknown key was accepted"
grep -q "unknown key" "$T/bad.out" || fail "unknown key: $(cat "$T/bad.out")"

"$WEB" --config "$BCN_SRC/deploy/web.conf.example" --dump-config > /dev/null ||
	fail "deploy/web.conf.example does not parse"
BCN_BEACON=$BEACON BCN_JOB_CONF=$T/analyzd.conf \
	python3 "$BCN_SRC/tests/integration/web_api_client.py" "$T" "$WP" || fail "the API checks failed"
kill -0 "$WPID" || fail "beacon-web died"

# HTTPS (GnuTLS) with a trusted front proxy's user header
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 1 \
	-keyout "$T/tls.key" -out "$T/tls.crt" > "$T/openssl.log" 2>&1 || fail "openssl"
sed -e "s/^web_listen = .*/web_listen = 127.0.0.1:$TP/" "$T/web.conf" > "$T/webtls.conf"
printf 'web_tls_cert = %s\nweb_tls_key = %s\nweb_trust_remote_user = yes\nweb_trusted_proxy = 127.0.0.1\n' \
	"$T/tls.crt" "$T/tls.key" >> "$T/webtls.conf"
"$WEB" --config "$T/webtls.conf" >> "$T/webtls.log" 2>&1 &
TPID=$!; BCN_PIDS+=("$TPID")
bcn_wait_port "$TP" "$TPID" 300 || fail "beacon-web (TLS) did not listen"
out=$(curl -s --cacert "$T/tls.crt" -H 'X-Remote-User: user08' "https://127.0.0.1:$TP/api/v1/me")
[ "$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["user"])')" = user08 ] ||
	fail "HTTPS with the proxy's header: $out"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/tls.crt" "https://127.0.0.1:$TP/api/v1/jobs")
[ "$code" = 401 ] || fail "HTTPS without a user: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.2 --cacert "$T/tls.crt" \
	-H 'X-Remote-User: admin' "https://127.0.0.1:$TP/api/v1/jobs")
[ "$code" = 401 ] || fail "the header from an untrusted address: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/tls.crt" -X POST \
	-H 'X-Remote-User: admin' "https://127.0.0.1:$TP/api/v1/anomalies/1/ack")
[ "$code" = 403 ] || fail "a proxied POST without X-CSRF-Token: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TP/api/v1/openapi.json") || true
[ "$code" != 200 ] || fail "plain HTTP on the TLS port"
echo "web_api: ok"
