#!/usr/bin/env bash
# Job reports under partial client coverage, and the insights only the
# servers can give (docs/report.md "Coverage", docs/advice.md). beacon-sim's
# scale mode sends a simulated history (fast pace) to a real beacon-logsrv
# (SQLite store); its forwarding map and its sacct output go into a
# private MariaDB through beacon-analyzd --once. The cluster: 32 compute
# nodes; an idle job holds the first 16 while two jobs of 8 nodes run on
# the others, then two more jobs of 8 run on the first 16.
#  - "part" (N-N) runs on four nodes without client collection and four
#    with; "dark" (N-1) on eight without (no_client): their reports take
#    the volume from the OSTs' job_stats, equal to the simulator's truth
#    within 1%, list exactly the uncovered nodes as missing, say where the
#    volume comes from, carry partial_coverage, and never backend_reads or
#    one_process_io; the client layer's own figures are what the traced
#    nodes moved.
#  - simfs-OST0001 serves 2% of its bandwidth while those two run: each
#    job that put at least 64 MiB on it among three or more such OSTs
#    gets slow_ost_in_job naming it (with the lfs setstripe -o line), and
#    no report names another OST.
#  - later "whole" and "clean" (N-N) run fully covered, "whole" with one
#    node (cn00003) at a quarter of its bandwidth (slow_node): both take
#    their volume from the client records, exact; "whole"'s report names
#    cn00003 a straggler and "clean" has neither stragglers nor coverage
#    findings. Each report carries the files table (one row per N-N
#    group, adding up to the volume) and the node heatmap (a row per
#    node, adding up too).
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin

bcn_sim_logsrv
epoch=$(( $(date +%s) - 7200 ))
cat > "$T/scale.conf" <<EOF
compute = 32
forwarding = 4
oss = 2
osts_per_oss = 3
mds = 1
switches = 2
tick = 1s
jobs_per_hour = 0
ost_bw = 400M
fwd_bw = 2G
stripe_count = 4
job = hold idle 16 0 45 0
job = part n-n 8 0 40 64M 10 3
job = dark n-1 8 0 40 48M 10 3
job = whole n-n 8 50 40 64M 10 3
job = clean n-n 8 50 40 64M 10 3
no_client = cn[00019-00022,00025-00032]
slow_ost = 1 0.02 0 45
slow_node = 2 0.25 50 40
health_every = 30s
out = $T/sim
scale = yes
server = 127.0.0.1:$LP
key_file = $T/key
epoch = $epoch
ticks = 100
truth = $T/truth.jsonl
EOF
bcn_sim_play
bcn_sim_reports 5

for id in $(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["kind"] == "job": print(d["job"])' "$T/truth.jsonl"); do
	"$BEACON" job "$id" --config "$T/analyzd.conf" --json --fresh > "$T/job$id.json" || fail "beacon job $id"
	"$BEACON" job "$id" --config "$T/analyzd.conf" --fresh > "$T/job$id.txt" || fail "beacon job $id (text)"
	grep -q "^Coverage " "$T/job$id.txt" || fail "no coverage line in the text of $id: $(head -3 "$T/job$id.txt")"
done
python3 "$BCN_SRC/tests/integration/job_coverage_check.py" "$T" || fail "the reports under partial coverage"
echo "job_coverage: ok"
