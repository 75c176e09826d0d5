#!/usr/bin/env bash
# The per-job report is the same on both record stores: one simulated run
# (beacon-sim scale mode, an hour-old history at fast pace) is sent twice,
# identically, to a log server with the SQLite store and to one with the
# OpenSearch 2.19 store (deploy/opensearch, one node on loopback); with
# one job database, `beacon job ID --json --fresh` over each store gives
# the same report for every job (everything but the time it was computed),
# and beacon-analyzd --once over OpenSearch stores reports equal to them.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
OS=$BCN_SRC/deploy/opensearch
LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd
trap 'st=$?; "$OS" stop "$T/os" >/dev/null 2>&1 || true; bcn_sim_cleanup || st=1; exit $st' EXIT

"$OS" fetch
URL=$(BCN_OPENSEARCH_OWNER=$$ "$OS" start "$T/os") || fail "OpenSearch did not start"
python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port PA; bcn_alloc_port PB; bcn_alloc_port MP
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"
for s in A B; do
	port=$PA; [ $s = B ] && port=$PB
	{ cat <<EOF
listen = 127.0.0.1:$port
name = logsrv$s
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn$s
flush_idle = 20ms
record_max_age = 0
EOF
	if [ $s = A ]; then echo "store_dir = $T/store"; else
		printf 'store_backend = opensearch\nstore_url = %s\nstore_index_prefix = rep\n' "$URL"; fi
	} > "$T/logsrv$s.conf"
	"$LOGSRV" --config "$T/logsrv$s.conf" >> "$T/logsrv$s.log" 2>&1 &
	pid=$!; BCN_PIDS+=("$pid")
	bcn_wait_port "$port" "$pid" || fail "logsrv$s did not listen"
done

epoch=$(( $(date +%s) - 7200 ))
for s in A B; do
	port=$PA; [ $s = B ] && port=$PB
	cat > "$T/sim$s.conf" <<EOF
compute = 40
forwarding = 5
oss = 2
osts_per_oss = 3
mds = 1
switches = 2
tick = 1s
jobs_per_hour = 0
ost_bw = 400M
fwd_bw = 1G
stripe_count = 2
job = ckpt n-n 8 0 25 64M 10 3
job = shared n-1 8 0 25 48M 10 3
job = groups n-m 16 1 25 32M 10 3
job = lone 1-1 4 2 25 40M 10 3
job = md meta 4 0 25 200
out = $T/sim$s
scale = yes
server = 127.0.0.1:$port
key_file = $T/key
epoch = $epoch
ticks = 35
truth = $T/truth$s.jsonl
EOF
	"$SIM" --config "$T/sim$s.conf" > "$T/sim$s.jsonl" 2> "$T/sim$s.log" ||
		fail "beacon-sim $s: $(tail -3 "$T/sim$s.log")"
	for _ in $(seq 1 600); do
		[ "$(bcn_redis "$RP" LLEN "bcn$s:queue")" = 0 ] && break
		sleep 0.05
	done
	[ "$(bcn_redis "$RP" LLEN "bcn$s:queue")" = 0 ] || fail "queue of $s not drained"
done
cmp "$T/truthA.jsonl" "$T/truthB.jsonl" || fail "the two runs differ"
sleep 1
curl -sf -X POST "$URL/rep-*/_refresh" > /dev/null || fail "refresh"

cat "$T/db/jobdb.conf" > "$T/common.conf"
{ cat "$T/common.conf"; echo "store_dir = $T/store"; } > "$T/a.conf"
{ cat "$T/common.conf"; printf 'store_backend = opensearch\nstore_url = %s\nstore_index_prefix = rep\nsettle = 0\nlive_interval = 0\n' "$URL"; } > "$T/b.conf"
"$BEACON" import-jobs --config "$T/a.conf" --format sacct "$T/simA/slurm/sacct.txt" > /dev/null || fail "import-jobs"
"$BEACON" import-map --config "$T/a.conf" "$T/simA/slurm/fwdmap.txt" > /dev/null || fail "import-map"
ids=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["kind"] == "job": print(d["job"])' "$T/truthA.jsonl")
for id in $ids; do
	"$BEACON" job "$id" --config "$T/a.conf" --json --fresh > "$T/a$id.json" || fail "job $id on SQLite"
	"$BEACON" job "$id" --config "$T/b.conf" --json --fresh > "$T/b$id.json" || fail "job $id on OpenSearch"
done
"$ANALYZD" --config "$T/b.conf" --once > "$T/analyzd.log" 2>&1 || fail "analyzd over OpenSearch: $(tail -3 "$T/analyzd.log")"
python3 - "$T" $ids <<'PYEOF'
import json, subprocess, sys
T, ids = sys.argv[1], sys.argv[2:]
bad = []
for i in ids:
    a = json.load(open("%s/a%s.json" % (T, i)))
    b = json.load(open("%s/b%s.json" % (T, i)))
    for d in (a, b):
        del d["computed"], d["cached"]
    if a != b:
        keys = sorted(k for k in a if a[k] != b.get(k))
        bad.append("job %s differs in %s" % (i, keys))
    if not a["records"] and a["mode"] != "none":
        bad.append("job %s: no records" % i)
if bad:
    print("\n".join(bad)); sys.exit(1)
PYEOF
[ $? = 0 ] || fail "the reports differ between SQLite and OpenSearch"
for id in $ids; do
	want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["read_bytes"] + d["write_bytes"], d["mode"])' "$T/a$id.json")
	got=$(bcn_mariadb "$T/db" -N -e "SELECT CONCAT(read_bytes + write_bytes, ' ', mode) FROM job_summary WHERE job = $id")
	[ "$want" = "$got" ] || fail "stored summary of $id: $got, report $want"
done
echo "job_report_opensearch: ok"
