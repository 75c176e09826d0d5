#!/usr/bin/env bash
# The network part of the per-job report and the hot uplink rule
# (docs/network.md) over hand-built records sent through a real
# beacon-logsrv (SQLite store) with jobs in a private MariaDB: a fabric of
# four leaf switches (four hosts each, two uplinks to a spine, 4xEDR)
# described by topology records; job A on all 16 hosts, whose nodes under
# leaf1 move 20 times what the others do: its report names the four
# leaves with the bytes of the ports facing its nodes, and a
# switch_imbalance finding with the figure 20.00 (leaf1 over the median of
# the other three); job B, the same nodes evenly: figure 1, no finding.
# During A, leaf2's uplink port 5 runs at 96% of its rate for 10 minutes:
# `beacon anomalies detect` finds one hot_switch anomaly on it, and a
# second round leaves it at one, naming job A as affected (its hosts there
# move far less than the uplink); the uplinks of leaf1 (busy, equal) are
# not hot. Job C on leaf3's hosts alone fills leaf3's uplink: that
# anomaly accuses C. `beacon net` and beacon-web's network endpoints show the
# leaves' traffic and leaf2's ports; a plain user gets no fabric view
# (403) and another user's job not at all, its owner the network part.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
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
A=$(( (now - 7200) / 60 * 60 ))         # job A: 10 minutes from here
B=$(( A + 3600 ))                       # job B: an hour later
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
"$BEACON" job 701 --config "$T/an.conf" --json > "$T/a.json" || fail "beacon job 701"
"$BEACON" job 702 --config "$T/an.conf" --json > "$T/b.json" || fail "beacon job 702"
"$BEACON" job 701 --config "$T/an.conf" > "$T/a.txt" || fail "beacon job 701 (text)"
grep -q "^Network  4 switches, imbalance 20.00 (leaf1)" "$T/a.txt" ||
	fail "text report: $(grep -A5 Network "$T/a.txt")"
for i in 1 2; do
	"$BEACON" anomalies detect --config "$T/an.conf" > "$T/detect$i.log" 2>&1 ||
		fail "detect $i: $(cat "$T/detect$i.log")"
done
"$BEACON" anomalies --config "$T/an.conf" --kind hot_switch --json > "$T/hot.json" ||
	fail "beacon anomalies"
"$BEACON" net --config "$T/an.conf" --from "$A" --to "$((A + 600))" --json \
	> "$T/net.json" || fail "beacon net"
"$BEACON" net --config "$T/an.conf" --from "$A" --to "$((A + 600))" --json \
	--switch leaf2 > "$T/net_leaf2.json" || fail "beacon net --switch"
"$BEACON" net --config "$T/an.conf" --from "$A" --to "$((A + 600))" > "$T/net.txt" ||
	fail "beacon net (text)"
grep -q "^  leaf2 .* up     6.55 TiB" "$T/net.txt" || fail "beacon net text: $(cat "$T/net.txt")"
"$BEACON" net --config "$T/an.conf" --switch nosuch 2> "$T/nosuch.err" &&
	fail "an unknown switch was accepted"
grep -q "no port records" "$T/nosuch.err" || fail "unknown switch: $(cat "$T/nosuch.err")"

# --- beacon-web: accounts, then the endpoints
for u in admin:admin alice:user bob:user; do
	name=${u%%:*}
	( umask 077; python3 -c 'import os; print(os.urandom(12).hex())' > "$T/pw.$name" )
	"$BEACON" user add "$name" --role "${u#*:}" --password-file "$T/pw.$name" \
		--config "$T/db/jobdb.conf" || fail "beacon user add $name"
done
{ grep '^jobdb_' "$T/db/jobdb.conf"; printf '%s\n' "web_listen = 127.0.0.1:$WP" \
	"store_dir = $T/store" "web_cookie_secure = no"; } > "$T/web.conf"
"$WEB" --config "$T/web.conf" >> "$T/web.log" 2>&1 &
WPID=$!; BCN_PIDS+=("$WPID")
bcn_wait_port "$WP" "$WPID" 300 || fail "beacon-web did not listen"
/usr/bin/python3 "$BCN_SRC/tests/integration/net_job_records.py" --web "$T" "$WP" "$A" ||
	fail "the web's network endpoints"
[ -z "${BCN_KEEP:-}" ] || cp -r "$T" "$BCN_KEEP"
/usr/bin/python3 "$BCN_SRC/tests/integration/net_job_records.py" --check "$T" ||
	fail "the network figures"
echo "net_job: ok"
