#!/usr/bin/env bash
# The web UI (docs/web.md) in a real browser: headless Chromium driven by
# playwright-core (web_browser.mjs) against beacon-web serving the built
# site (BUILD/web/site) over real servers set up as web_api.sh does: a
# private MariaDB and Redis, a beacon-logsrv fed by beacon-sim's scale
# mode, beacon-analyzd --once, `beacon user add` for an administrator and
# a plain user (the owner of the N-N job), one job renamed to an HTML
# injection and two open anomalies put in by SQL. What the pages must
# show comes from the simulator's configuration, the job database and
# `beacon job --json` (see the driver). Skipped (77) without Chromium,
# node, the built site or the npm packages (BCN_WEB_UI=OFF, no npm).
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
CHROMIUM=${BCN_CHROMIUM:-/usr/bin/chromium}
NPMDIR=$BCN_BUILD/web/ui-npm
SITE=$BCN_BUILD/web/site
skip() { echo "web_browser: SKIP: $*" >&2; exit 77; }
[ -x "$CHROMIUM" ] || skip "no Chromium at $CHROMIUM"
command -v node > /dev/null || skip "no node"
[ -f "$SITE/index.html" ] && [ -f "$SITE/echarts.min.js" ] ||
	skip "no built site in $SITE (BCN_WEB_UI=OFF or no npm)"
[ -f "$NPMDIR/node_modules/playwright-core/package.json" ] ||
	skip "playwright-core is not installed in $NPMDIR"

# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd
WEB=$BCN_BUILD/web/beacon-web
TICKS=40
XSS='<img src=x onerror="window.__bcnXss=1">lone'

bcn_sim_logsrv
bcn_alloc_port MP; bcn_alloc_port WP
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

q() { bcn_mariadb "$T/db" -N -e "$1"; }
# the 1-1 job's name becomes an HTML injection (the pages must show it as
# text), then no report is cached: the web service computes them anew
q "UPDATE jobs SET name = '$XSS' WHERE name = 'lone'" || fail "renaming a job"
bcn_redis "$RP" --scan --pattern 'beacon:report:*' | while read -r k; do bcn_redis "$RP" DEL "$k" > /dev/null; done

# the plain user owns the N-N job; "other" is a job of someone else
ckpt=$(q "SELECT id FROM jobs WHERE name = 'ckpt'")
plain=$(q "SELECT user FROM jobs WHERE id = '$ckpt'")
other=$(q "SELECT id FROM jobs WHERE user <> '$plain' AND name = 'groups'")
lone=$(q "SELECT id FROM jobs WHERE name = '$XSS'")
[ -n "$ckpt" ] && [ -n "$plain" ] && [ -n "$other" ] && [ -n "$lone" ] ||
	fail "the simulated jobs are not in the database: $(q 'SELECT id, user, name FROM jobs')"

# an open anomaly naming the other user's job (the administrator acks it)
q "INSERT INTO anomalies (kind, component, from_ns, to_ns, severity, evidence,
	detected_ns, updated_ns) SELECT 'slow_ost', 'simfs-OST0001', start_ns, end_ns,
	'warning', '{\"max_bw\": 1234, \"pct_of_peak\": 12.5}', end_ns, end_ns
	FROM jobs WHERE id = $other;
	INSERT INTO anomaly_jobs (anomaly, job, role) VALUES (LAST_INSERT_ID(), $other, 'affected')" ||
	fail "anomaly"
anomaly=$(q "SELECT MAX(id) FROM anomalies")
# an interference on the N-N job's forwarding node accusing the 1-1 job
q "INSERT INTO anomalies (kind, component, from_ns, to_ns, severity, evidence,
	detected_ns, updated_ns) SELECT 'interference', 'fwd001', start_ns, end_ns,
	'warning', '{}', end_ns, end_ns FROM jobs WHERE id = $ckpt;
	INSERT INTO anomaly_jobs (anomaly, job, role) VALUES (LAST_INSERT_ID(), $ckpt, 'affected'),
	(LAST_INSERT_ID(), $lone, 'accused')" || fail "interference anomaly"

for u in admin:admin "$plain":user; do
	name=${u%%:*}
	( umask 077; python3 -c 'import os; print(os.urandom(12).hex())' > "$T/pw.$name" )
	"$BEACON" user add "$name" --role "${u#*:}" --password-file "$T/pw.$name" --config "$T/db/jobdb.conf" ||
		fail "beacon user add $name"
done

# MDT export records (and others) a month before the simulation, for the
# overview's metadata load by client group
printf 'store_backend = sqlite\nstore_dir = %s\n' "$T/store" > "$T/fill.conf"
"$BCN_BUILD/tests/storefill" "$T/fill.conf" "$T/fill.exp" 20000 $(( epoch - 30 * 86400 )) > "$T/fill.log" 2>&1 ||
	fail "storefill: $(tail -3 "$T/fill.log")"

"$BEACON" job "$ckpt" --config "$T/analyzd.conf" --json --fresh > "$T/ckpt.json" || fail "beacon job $ckpt"
python3 - "$T" "$ckpt" "$other" "$lone" "$anomaly" "$plain" "$epoch" "$TICKS" "$XSS" \
	> "$T/expect.json" <<'PY' || fail "expectations"
import json, sys
T, ckpt, other, lone, anomaly, plain, epoch, ticks, xss = sys.argv[1:]
rep = json.load(open(T + "/ckpt.json"))
# the end of the hour with the most MDT export records storefill stored
ts = sorted(x["rec"]["t"] // 10**9 for x in map(json.loads, open(T + "/fill.exp"))
            if x["rec"]["type"] == "mds" and x["rec"].get("client"))
fill_to = max((t + 1 for t in ts), key=lambda e: sum(1 for t in ts if e - 3600 <= t < e))
print(json.dumps({
    "fill_to": fill_to,
    "ckpt": int(ckpt), "ckpt_mode": "N-N", "ckpt_io_phases": len(rep["io_phases"]),
    "ckpt_forwarding": len(rep["forwarding"]), "ckpt_osts": len(rep["osts"]),
    "other": int(other), "lone": int(lone), "xss": xss,
    "anomaly": int(anomaly), "plain": plain,
    # the simulator's topology: 6 forwarding nodes, 2 OSSes of 3 OSTs, 1 MDT
    "forward": ["fwd%03d" % i for i in range(1, 7)],
    "ost": ["simfs-OST%04x" % i for i in range(6)], "mds": ["simfs-MDT0000"],
    "to": int(epoch) + int(ticks) + 5, "window": "5m",
    "pw": {n: open("%s/pw.%s" % (T, n)).read().strip() for n in ("admin", plain)},
}))
PY

{ grep '^jobdb_' "$T/db/jobdb.conf"; cat <<EOF
web_listen = 127.0.0.1:$WP
web_static_dir = $SITE
web_cookie_secure = no
store_dir = $T/store
cache_host = 127.0.0.1
cache_port = $RP
EOF
} > "$T/web.conf"
"$WEB" --config "$T/web.conf" >> "$T/web.log" 2>&1 &
WPID=$!; BCN_PIDS+=("$WPID")
bcn_wait_port "$WP" "$WPID" 300 || fail "beacon-web did not listen"

rm -rf "$BCN_BUILD/web-screenshots"
mkdir -p "$BCN_BUILD/web-screenshots"
st=0
BCN_NPM_DIR=$NPMDIR BCN_CHROMIUM=$CHROMIUM BCN_SHOTS=$BCN_BUILD/web-screenshots \
	node "$BCN_SRC/tests/integration/web_browser.mjs" "http://127.0.0.1:$WP" "$T/expect.json" "$T/chrome" \
	> "$T/browser.out" 2>&1 || st=$?
cat "$T/browser.out" >&2
[ "$st" = 77 ] && skip "the browser did not start"
[ "$st" = 0 ] || fail "the browser checks failed"
kill -0 "$WPID" || fail "beacon-web died"
echo "web_browser: ok"
