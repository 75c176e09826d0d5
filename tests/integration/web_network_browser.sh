#!/usr/bin/env bash
# The web UI's network views (docs/web.md) in a real browser: headless
# Chromium driven by playwright-core (web_network_browser.mjs) against
# beacon-web serving the built site over the fabric of net_job.sh: its
# hand-made topology and port records (net_job_records.py: four leaves of
# four hosts and two uplinks, job 701 of alice with leaf1 carrying 20
# times the others, job 702 of bob even) sent through a real beacon-logsrv
# (SQLite store) and the jobs in a private MariaDB. The administrator's
# network page must list the four leaves with the API's figures and chart
# a chosen switch's ports; alice gets the refusal on it and her job's
# report shows the network section with the figure flagged; bob's even
# job shows it unflagged. Skipped (77) without Chromium, node, the built
# site or playwright-core (BCN_WEB_UI=OFF, no npm).
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
CHROMIUM=${BCN_CHROMIUM:-/usr/bin/chromium}
NPMDIR=$BCN_BUILD/web/ui-npm
SITE=$BCN_BUILD/web/site
skip() { echo "web_network_browser: SKIP: $*" >&2; exit 77; }
[ -x "$CHROMIUM" ] || skip "no Chromium at $CHROMIUM"
command -v node > /dev/null || skip "no node"
[ -f "$SITE/network.html" ] && [ -f "$SITE/echarts.min.js" ] ||
	skip "no built site in $SITE (BCN_WEB_UI=OFF or no npm)"
[ -f "$NPMDIR/node_modules/playwright-core/package.json" ] ||
	skip "playwright-core is not installed in $NPMDIR"

# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
JSONFRAMES=$BCN_BUILD/tests/jsonframes
WEB=$BCN_BUILD/web/beacon-web

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port LP; bcn_alloc_port MP; bcn_alloc_port WP
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"
printf '%s\n' "listen = 127.0.0.1:$LP" "name = logsrv" "auth_key_file = $T/key" \
	"redis_port = $RP" "redis_prefix = bcn" "store_backend = sqlite" \
	"store_dir = $T/store" "flush_idle = 20ms" "record_max_age = 0" \
	> "$T/logsrv.conf"
"$LOGSRV" --config "$T/logsrv.conf" >> "$T/logsrv.log" 2>&1 &
LPID=$!; BCN_PIDS+=("$LPID")
bcn_wait_port "$LP" "$LPID" || fail "logsrv did not listen"

now=$(date +%s)
A=$(( (now - 7200) / 60 * 60 ))         # job 701: 10 minutes from here
B=$(( A + 3600 ))                       # job 702: an hour later
/usr/bin/python3 "$BCN_SRC/tests/integration/net_job_records.py" "$T" "$A" "$B" ||
	fail "records"
"$JSONFRAMES" "$T/frames.bin" < "$T/records.jsonl" || fail "jsonframes"
"$BEACON" replay --to "127.0.0.1:$LP" --key "$T/key" "$T/frames.bin" \
	> "$T/replay.log" 2>&1 || fail "replay: $(cat "$T/replay.log")"
for _ in $(seq 1 600); do
	[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && break
	sleep 0.05
done
[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] || fail "the log server's queue did not drain"
sleep 1
{ cat "$T/db/jobdb.conf"; echo "store_dir = $T/store"; } > "$T/an.conf"
"$BEACON" import-jobs --config "$T/an.conf" --format csv "$T/jobs.csv" \
	> "$T/import.log" 2>&1 || fail "import-jobs: $(cat "$T/import.log")"

for u in admin:admin alice:user bob:user; do
	name=${u%%:*}
	( umask 077; python3 -c 'import os; print(os.urandom(12).hex())' > "$T/pw.$name" )
	"$BEACON" user add "$name" --role "${u#*:}" --password-file "$T/pw.$name" \
		--config "$T/db/jobdb.conf" || fail "beacon user add $name"
done
# what the pages must show that does not come from the API: the fabric
# and the jobs net_job_records.py built
/usr/bin/python3 - "$T" "$A" > "$T/expect.json" <<'PY' || fail "expectations"
import json, sys
T, A = sys.argv[1], int(sys.argv[2])
print(json.dumps({
    "from": A, "to": A + 600, "step": 60,
    "switches": ["leaf1", "leaf2", "leaf3", "leaf4"], "ports": [1, 2, 3, 4, 5, 6],
    "uneven": 701, "even": 702, "imbalance": "20.00",
    "pw": {n: open("%s/pw.%s" % (T, n)).read().strip() for n in ("admin", "alice", "bob")},
}))
PY

{ grep '^jobdb_' "$T/db/jobdb.conf"; printf '%s\n' "web_listen = 127.0.0.1:$WP" \
	"web_static_dir = $SITE" "store_dir = $T/store" "web_cookie_secure = no"; } > "$T/web.conf"
"$WEB" --config "$T/web.conf" >> "$T/web.log" 2>&1 &
WPID=$!; BCN_PIDS+=("$WPID")
bcn_wait_port "$WP" "$WPID" 300 || fail "beacon-web did not listen"

# screenshots beside web_browser.sh's, named network-*
mkdir -p "$BCN_BUILD/web-screenshots"
st=0
BCN_NPM_DIR=$NPMDIR BCN_CHROMIUM=$CHROMIUM BCN_SHOTS=$BCN_BUILD/web-screenshots \
	node "$BCN_SRC/tests/integration/web_network_browser.mjs" "http://127.0.0.1:$WP" \
	"$T/expect.json" "$T/chrome" > "$T/browser.out" 2>&1 || st=$?
cat "$T/browser.out" >&2
[ "$st" = 77 ] && skip "the browser did not start"
[ "$st" = 0 ] || fail "the browser checks failed"
kill -0 "$WPID" || fail "beacon-web died"
echo "web_network_browser: ok"
