#!/usr/bin/env bash
# The job-level anomaly checks (docs/anomaly.md, "Jobs") on a simulated
# history: an application ("app", 8 nodes behind fwd001) runs five times;
# the first three have too little history (the report says so), the
# fourth is judged like its history, the fifth runs while fwd001 is slowed
# and an N-1 flood job shares it, so its wavelet I/O phases fall outside
# the history's DBSCAN clusters: a job_slowdown of that job, and an
# interference anomaly accusing the flood job, both in the job database
# and as findings of its report. A large job over all four forwarding
# nodes runs while fwd003 is slowed: fwd003 is its straggler. The report
# shows the wavelet I/O phases, whose volumes stay within what the job
# moved.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd

bcn_sim_logsrv
bcn_alloc_port MP
bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"

epoch=$(( ($(date +%s) - 7200) / 60 * 60 ))
cat > "$T/sim.conf" <<EOF
compute = 32
forwarding = 4
oss = 2
osts_per_oss = 2
mds = 1
tick = 10s
jobs_per_hour = 0
ost_bw = 4G
fwd_bw = 1G
out = $T/sim
scale = yes
server = 127.0.0.1:$LP
key_file = $T/key
epoch = $epoch
ticks = 440
truth = $T/truth.jsonl
job = app n-n 8 0 600 50M 120 30
job = app n-n 8 700 600 50M 120 30
job = app n-n 8 1400 600 50M 120 30
job = app n-n 8 2100 600 50M 120 30
job = app n-n 8 2800 600 50M 120 30
job = big n-n 32 3600 600 50M 120 30
slow_fwd = 0 0.2 2750 800
n1_flood = 0 2800 500 4 300M
slow_fwd = 2 0.2 3500 900
EOF
"$SIM" --config "$T/sim.conf" > "$T/sim.jsonl" 2> "$T/sim.log" || fail "beacon-sim: $(tail -3 "$T/sim.log")"
for _ in $(seq 1 600); do
	[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && break
	sleep 0.05
done
[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] || fail "the log server's queue did not drain"
sleep 1
{ cat "$T/db/jobdb.conf"; cat <<EOF
store_dir = $T/store
settle = 0
live_interval = 0
detect_interval = 0
anomaly_straggler_nodes = 16
EOF
} > "$T/an.conf"
"$BEACON" import-map --config "$T/an.conf" "$T/sim/slurm/fwdmap.txt" > "$T/map.out" ||
	fail "import-map: $(cat "$T/map.out")"
"$ANALYZD" --config "$T/an.conf" --once --sacct-command "cat $T/sim/slurm/sacct.txt" \
	> "$T/analyzd.log" 2>&1 || fail "beacon-analyzd: $(tail -3 "$T/analyzd.log")"
python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["kind"] == "job": print(d["job"], d["name"])' "$T/truth.jsonl" > "$T/jobs.txt"
while read -r id name; do
	"$BEACON" job "$id" --config "$T/an.conf" --json > "$T/job$id.json" || fail "beacon job $id"
done < "$T/jobs.txt"
"$BEACON" anomalies --config "$T/an.conf" --json > "$T/anomalies.json" || fail "beacon anomalies"
"$BEACON" job "$(awk '$2 == "app" {print $1}' "$T/jobs.txt" | tail -1)" --config "$T/an.conf" > "$T/slow.txt"
grep -q "I/O phases (wavelet)" "$T/slow.txt" || fail "the text report lacks the wavelet phases"

[ -z "${BCN_KEEP:-}" ] || cp -r "$T" "$BCN_KEEP"
python3 - "$T" <<'PYEOF'
import json, sys
T = sys.argv[1]
jobs = [l.split() for l in open(T + "/jobs.txt")]
apps = sorted(int(j) for j, n in jobs if n == "app")
big = [int(j) for j, n in jobs if n == "big"][0]
flood = [int(j) for j, n in jobs if n == "n1flood"][0]
an = [json.loads(l) for l in open(T + "/anomalies.json")]
bad = []
def codes(j):
    return [f["code"] for f in json.load(open("%s/job%d.json" % (T, j)))["findings"]]
for j in apps[:3]:
    if "too_little_history" not in codes(j):
        bad.append("job %d (run %d): no too_little_history: %s" % (j, apps.index(j) + 1, codes(j)))
if "too_little_history" in codes(apps[3]) or "slower_than_history" in codes(apps[3]):
    bad.append("run 4 judged wrongly: %s" % codes(apps[3]))
if "slower_than_history" not in codes(apps[4]):
    bad.append("run 5 not slower than its history: %s" % codes(apps[4]))
slow = [a for a in an if a["kind"] == "job_slowdown"]
if [a["component"] for a in slow] != [str(apps[4])]:
    bad.append("job_slowdown: %s" % slow)
elif slow[0]["evidence"]["slowdown"] < 1.5 or slow[0]["evidence"]["history_jobs"] != 4:
    bad.append("job_slowdown evidence: %s" % slow[0]["evidence"])
inter = [a for a in an if a["kind"] == "interference" and apps[4] in a["jobs"]]
if not inter or flood not in inter[0]["accused"] or inter[0]["component"] != "fwd001":
    bad.append("interference: %s (flood job %d)" % (inter, flood))
strag = [a for a in an if a["kind"] == "straggler"]
if [a["component"] for a in strag] != ["fwd003"] or strag[0]["jobs"] != [big]:
    bad.append("stragglers: %s" % strag)
r = json.load(open("%s/job%d.json" % (T, apps[0])))
moved = r["read_bytes"] + r["write_bytes"]
ph = r["io_phases"]
if not 3 <= len(ph) <= 8:
    bad.append("io_phases of run 1: %s" % ph)
if sum(p["volume"] for p in ph) > moved or sum(p["volume"] for p in ph) < 0.9 * moved:
    bad.append("io_phases volumes %s of %d bytes" % ([p["volume"] for p in ph], moved))
for p in ph:
    if not (p["duration"] > 0 and p["peak_bw"] >= p["mean_bw"] > 0):
        bad.append("io phase %s" % p)
if bad:
    print("\n".join(bad)); sys.exit(1)
print("anomaly_jobs: ok (%d anomalies)" % len(an))
PYEOF
[ $? = 0 ] || fail "the job checks"
