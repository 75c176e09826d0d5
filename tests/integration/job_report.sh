#!/usr/bin/env bash
# The per-job report end to end (docs/report.md): beacon-sim's scale mode
# sends an hour-old simulated run (fast pace) to a real beacon-logsrv with
# the SQLite store; its forwarding map goes into a private MariaDB, and
# beacon-analyzd --once polls its sacct output (a failing sacct command is
# said and counted) and computes every ended job's report into the job
# database and the Redis report cache. Then, for every job of the
# simulator's ground truth: `beacon job ID --json` gives the bytes read
# and written to the byte, the I/O mode exactly, and exactly its
# forwarding nodes and OSTs; the reports come from the cache, and a
# --fresh one equals them; the idle job's report says it did no I/O;
# `beacon jobs --mode` finds jobs by the stored report; a late record of
# a job reaching the log server drops its cached report, and the next
# report counts it; `beacon top --once --json` over the whole run gives
# every job's bytes, forwarding nodes and OSTs as the reports do, busiest
# first; an unknown job is an error. The simulated fabric's topology
# records place every job's nodes on their leaf switches: each report's
# network part names exactly those, and their ports carried what the
# job's nodes moved.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
export PATH=$PATH:/usr/sbin
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd
TICKS=50

bcn_sim_logsrv
bcn_alloc_port MP
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
job = ckpt n-n 8 0 30 64M 10 3
job = shared n-1 8 0 30 48M 10 3
job = groups n-m 16 1 30 32M 10 3
job = lone 1-1 4 2 30 40M 10 3
job = md meta 4 0 30 200
job = sleeper idle 2 3 20 0
out = $T/sim
scale = yes
server = 127.0.0.1:$LP
key_file = $T/key
epoch = $epoch
ticks = $TICKS
truth = $T/truth.jsonl
EOF
bcn_sim_play
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
# a failing sacct command is said and counted, and nothing is reported
"$ANALYZD" --config "$T/analyzd.conf" --once --sacct-command "exit 3" > "$T/analyzd0.log" 2>&1 ||
	fail "beacon-analyzd with a failing sacct: $(tail -3 "$T/analyzd0.log")"
grep -q "sacct_command: failed" "$T/analyzd0.log" || fail "no word of the failing sacct command"
grep -q "0 reports, 0 live, 0 failed, 0 partial; 0 jobs imported" "$T/analyzd0.log" || fail "analyzd0: $(tail -2 "$T/analyzd0.log")"
# the job records come from polling "sacct" (the simulator's output)
"$ANALYZD" --config "$T/analyzd.conf" --once --sacct-command "cat $T/sim/slurm/sacct.txt" > "$T/analyzd.log" 2>&1 ||
	fail "beacon-analyzd --once: $(tail -5 "$T/analyzd.log")"
grep -q "6 reports, 0 live, 0 failed, 0 partial; 6 jobs imported, 0 rejected" "$T/analyzd.log" ||
	fail "analyzd: $(tail -3 "$T/analyzd.log")"

for id in $(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["kind"] == "job": print(d["job"])' "$T/truth.jsonl"); do
	"$BEACON" job "$id" --config "$T/analyzd.conf" --json > "$T/job$id.json" || fail "beacon job $id"
	"$BEACON" job "$id" --config "$T/analyzd.conf" --json --fresh > "$T/job$id.fresh.json" || fail "beacon job $id --fresh"
	"$BEACON" job "$id" --config "$T/analyzd.conf" > "$T/job$id.txt" || fail "beacon job $id (text)"
	grep -q "^Job $id " "$T/job$id.txt" || fail "text report of $id: $(head -2 "$T/job$id.txt")"
done
python3 - "$T" <<'PYEOF'
import json, re, sys
T = sys.argv[1]
bad = []
truth = [json.loads(l) for l in open(T + "/truth.jsonl")]
jobs = [d for d in truth if d["kind"] == "job"]
assert len(jobs) == 6, jobs
for t in jobs:
    r = json.load(open("%s/job%d.json" % (T, t["job"])))
    f = json.load(open("%s/job%d.fresh.json" % (T, t["job"])))
    if not r["cached"] or f["cached"]:
        bad.append("job %d: cached %s, fresh cached %s" % (t["job"], r["cached"], f["cached"]))
    for k in ("read_bytes", "write_bytes", "mode", "io_nodes", "phases", "osts", "forwarding"):
        if r[k] != f[k]:
            bad.append("job %d: %s differs between the cached and a fresh report" % (t["job"], k))
    for k in ("read_bytes", "write_bytes", "mode", "io_nodes"):
        if r[k] != t[k]:
            bad.append("job %d (%s): %s %r, truth %r" % (t["job"], t["sim_mode"], k, r[k], t[k]))
    fw = sorted(x["node"] for x in r["forwarding"])
    if fw != sorted(t["forwarding"]):
        bad.append("job %d: forwarding %s, truth %s" % (t["job"], fw, t["forwarding"]))
    osts = sorted(x["target"] for x in r["osts"])
    if osts != sorted(t["osts"]):
        bad.append("job %d: osts %s, truth %s" % (t["job"], osts, t["osts"]))
    if t["osts"] and sum(x["read_bytes"] + x["write_bytes"] for x in r["osts"]) < t["read_bytes"] + t["write_bytes"]:
        bad.append("job %d: the OSTs served less than the nodes moved" % t["job"])
    for x in r["osts"] + r["forwarding"]:
        if not 0 < x["share"] <= 1:
            bad.append("job %d: share %r of %s" % (t["job"], x["share"], x))
    if t["read_bytes"] + t["write_bytes"]:
        if sum(p["read_bytes"] + p["write_bytes"] for p in r["phases"]) != t["read_bytes"] + t["write_bytes"]:
            bad.append("job %d: the phases do not add up to the bytes" % t["job"])
        if not r["phases"] or r["write_bw_peak"] < r["write_bw_mean"] or r["iops"] <= 0:
            bad.append("job %d: phases/bandwidth %s" % (t["job"], r["phases"]))
    codes = [x["code"] for x in r["findings"]]
    if t["sim_mode"] == "idle" and "no_io" not in codes:
        bad.append("job %d: idle job without the no_io finding: %s" % (t["job"], codes))
    if t["sim_mode"] != "idle" and "no_io" in codes:
        bad.append("job %d: no_io on a job with I/O" % t["job"])
    if t["sim_mode"] == "meta" and (r["mdts"] == [] or r["meta_ops"] == 0):
        bad.append("job %d: metadata job without MDT operations" % t["job"])
    # the network part: the leaf switches of its nodes (12 per switch, by
    # the simulator's topology records), its data crossing their ports
    net, want = r["network"], set()
    for part in re.findall(r"(\w+?)(?:\[([^\]]*)\]|(\d+))(?:,|$)", r["nodelist"]):
        for rng in (part[1].split(",") if part[1] else [part[2]]):
            a, _, b = rng.partition("-")
            for n in range(int(a), int(b or a) + 1):
                want.add("sw%02d" % ((n - 1) // 12 + 1))
    got = sorted(x["switch"] for x in net["switches"]) if net else None
    if got != sorted(want):
        bad.append("job %d (%s): switches %s, want %s" % (t["job"], r["nodelist"], got, sorted(want)))
    elif net["unplaced_nodes"] or any(x["uplinks"] != 1 for x in net["switches"]):
        bad.append("job %d: network %s" % (t["job"], net))
    else:
        moved = sum(x["xmit_bytes"] + x["rcv_bytes"] for x in net["switches"])
        data = t["read_bytes"] + t["write_bytes"]
        if not (0.95 * data <= moved <= 1.05 * data + 4096 * 64):
            bad.append("job %d: %d bytes on its ports, %d moved" % (t["job"], moved, data))
modes = sorted(d["mode"] for d in jobs)
if modes != sorted(["N-N", "N-1", "N-M", "1-1", "none", "none"]):
    bad.append("the simulation does not cover every mode: %s" % modes)
if bad:
    print("\n".join(bad)); sys.exit(1)
PYEOF
[ $? = 0 ] || fail "reports differ from the truth"

# an older beacon's cached report (another layout, no report_version)
# is a miss, whatever its generation: computed anew and cached again
bcn_redis "$RP" HSET beacon:report:2001 json '{"job":2001,"read_bytes":1,"cached":true}' > /dev/null
"$BEACON" job 2001 --config "$T/analyzd.conf" --json > "$T/old.json" || fail "beacon job 2001 (old layout cached)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["cached"] and d["report_version"] >= 2 and d["read_bytes"] != 1, d' "$T/old.json" ||
	fail "an older layout's cached report was served"
"$BEACON" job 2001 --config "$T/analyzd.conf" --json > "$T/old2.json" || fail "beacon job 2001 again"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["cached"]' "$T/old2.json" ||
	fail "the recomputed report was not cached again"

# a late record of job 2000 (1 MiB, inside its window) arrives
[ "$(bcn_redis "$RP" EXISTS beacon:report:2000)" = 1 ] || fail "job 2000 not cached"
start=$(python3 -c 'import json,sys,datetime as d; print(int(d.datetime.fromisoformat(json.load(open(sys.argv[1]))["start"].replace("Z","+00:00")).timestamp()))' "$T/job2000.json")
"$BCN_BUILD/tests/lateframe" "$T/late.bin" cn00001 999999 2000 $((start + 5)) 1048576 || fail "lateframe"
"$BEACON" replay --to "127.0.0.1:$LP" --key "$T/key" "$T/late.bin" > "$T/replay.json" 2> "$T/replay.err" ||
	fail "replay: $(cat "$T/replay.err")"
for _ in $(seq 1 200); do
	[ "$(bcn_redis "$RP" EXISTS beacon:report:2000)" = 0 ] && break
	sleep 0.05
done
[ "$(bcn_redis "$RP" EXISTS beacon:report:2000)" = 0 ] || fail "the late record left the cached report"
[ "$(bcn_redis "$RP" EXISTS beacon:report:2001)" = 1 ] || fail "another job's report was dropped"
"$BEACON" job 2000 --config "$T/analyzd.conf" --json > "$T/late.json" || fail "beacon job 2000 after the late record"
python3 - "$T/job2000.json" "$T/late.json" <<'PYEOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert not b["cached"], "a stale cached report"
assert b["write_bytes"] == a["write_bytes"] + 1048576, (a["write_bytes"], b["write_bytes"])
PYEOF
[ $? = 0 ] || fail "the report after the late record"

"$BEACON" top --config "$T/analyzd.conf" --once --json --at $((epoch + 3600)) --window 1h > "$T/top.json" ||
	fail "beacon top"
python3 - "$T" <<'PYEOF'
import json, sys
T = sys.argv[1]
top = json.load(open(T + "/top.json"))
jobs = {j["job"]: j for j in top["jobs"]}
truth = [d for d in map(json.loads, open(T + "/truth.jsonl")) if d["kind"] == "job"]
bws = [j["read_bw"] + j["write_bw"] for j in top["jobs"]]
assert bws == sorted(bws, reverse=True), bws
for t in truth:
    if not t["read_bytes"] + t["write_bytes"]:
        continue
    j = jobs[t["job"]]
    late = 1048576 if t["job"] == 2000 else 0
    assert (j["read_bytes"], j["write_bytes"]) == (t["read_bytes"], t["write_bytes"] + late), (j, t)
    assert sorted(j["forwarding"]) == sorted(t["forwarding"]), (j, t)
    assert sorted(j["osts"]) == sorted(t["osts"]), (j, t)
    assert j["user"] and j["nnodes"] == t["nodes"], j
PYEOF
[ $? = 0 ] || fail "beacon top's view"

out=$("$BEACON" jobs --config "$T/analyzd.conf" --mode N-1 --json)
[ "$(echo "$out" | grep -c '"job"')" = 1 ] || fail "beacon jobs --mode N-1: $out"
if "$BEACON" job 999999 --config "$T/analyzd.conf" --json > /dev/null 2> "$T/nojob.err"; then
	fail "an unknown job: exit 0"
fi
grep -q "no job 999999" "$T/nojob.err" || fail "unknown job: $(cat "$T/nojob.err")"
echo "job_report: ok"
