#!/usr/bin/env bash
# beacon import-jobs and import-map against a private MariaDB server
# (docs/jobdb.md): real sacct outputs (with a column list and with the
# ☃ delimiter), the real SWF excerpt, a CSV, the header form beacon-sim
# writes; a second import changes nothing and duplicates nothing; bad rows
# are reported with file, line and reason while the rest is imported; the
# views answer "which job ran on node X at T" and the map "which
# forwarding node"; a database of a newer schema is refused.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
trap 'st=$?; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export PATH=$PATH:/usr/sbin
command -v mariadbd >/dev/null || fail "mariadbd missing (deploy/install-deps)"
BEACON=$BCN_BUILD/cli/beacon
D=$BCN_SRC/tests/data

bcn_alloc_port MPORT
bcn_start_mariadb "$T/db" "$MPORT" || fail "mariadb did not start"
# a shared configuration: the other parts' keys are skipped
{ cat "$T/db/jobdb.conf"; echo "store_dir = $T/store"; echo "listen = 0.0.0.0:7070"; } > "$T/beacon.conf"
sql() { bcn_mariadb "$T/db" -N -e "$1"; }
jget() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

X=jobid,jobidraw,cluster,partition,qos,account,group,gid,user,uid,submit,eligible,start,end,elapsed,exitcode,state,nnodes,ncpus,reqcpus,reqmem,reqtres,alloctres,timelimit,nodelist,jobname
out=$("$BEACON" import-jobs --config "$T/beacon.conf" --format sacct --columns "$X" --json "$D/slurm/accounting-logs.log")
[ "$(jget "$out" inserted)" -ge 4 ] && [ "$(jget "$out" rejected)" = 0 ] || fail "first import: $out"
n1=$(sql "SELECT COUNT(*) FROM jobs")
out=$("$BEACON" import-jobs --config "$T/beacon.conf" --format sacct --columns "$X" --json "$D/slurm/accounting-logs.log")
[ "$(jget "$out" inserted)" = 0 ] && [ "$(jget "$out" updated)" = 0 ] || fail "second import changed rows: $out"
[ "$(sql "SELECT COUNT(*) FROM jobs")" = "$n1" ] || fail "second import duplicated jobs"
[ "$(sql "SELECT user FROM jobs WHERE id = 4107166")" = hanx ] || fail "job 4107166"
[ "$(sql "SELECT COUNT(*) FROM job_nodes WHERE job = 4103947")" = 32 ] || fail "node index of 4103947"
# which job ran on k13n36s01 on 2015-06-30 (job 4107166 ran 06-28 .. 07-01)
t=$(date -u -d 2015-06-30T00:00:00 +%s)000000000
[ "$(sql "SELECT job FROM node_jobs WHERE node = 'k13n36s01' AND start_ns <= $t AND end_ns > $t")" = 4107166 ] ||
	fail "node_jobs view"

# the ☃-delimited hb-jobinfo output with steps; an unknown state is rejected
H=JobID,JobName,User,Partition,NodeList,NNodes,NCPUs,NTasks,State,Submit,Start,End,Timelimit,Elapsed,TotalCPU,CPUTime,UserCPU,SystemCPU,ReqMem,MaxRSS,MaxVMSize,ReqTRES,AllocTRES,TRESUsageInMax,TRESUsageInTot,TRESUsageOutTot,MaxDiskRead,MaxDiskWrite,MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MaxVMSizeTask,MaxDiskReadNode,MaxDiskReadTask,MaxDiskWriteNode,MaxDiskWriteTask,Comment
"$BEACON" import-jobs --config "$T/beacon.conf" --format sacct --columns "$H" \
	--delimiter '☃' "$D/slurm/sacct_snowman_delim_excerpt.txt" > "$T/hb.out" || fail "hb-jobinfo import"
[ "$(sql "SELECT nodelist FROM jobs WHERE id = 7818766")" = "omni[2-3]" ] || fail "job 7818766"
[ "$(sql "SELECT COUNT(*) FROM job_steps WHERE job = 7818766")" -ge 3 ] || fail "steps of 7818766"
if "$BEACON" import-jobs --config "$T/beacon.conf" --format sacct --columns "$X" \
	"$D/slurm/unknown-job-state.log" > "$T/unk.out" 2> "$T/unk.err"; then
	fail "rejected rows but exit 0"
fi
grep -q 'unknown-job-state.log:1: unknown state "FOO"' "$T/unk.err" || fail "no line and reason: $(cat "$T/unk.err")"
grep -q "rejected 2" "$T/unk.out" || fail "counts: $(cat "$T/unk.out")"

# SWF, CSV with bad rows between good ones, and beacon-sim's header form
"$BEACON" import-jobs --config "$T/beacon.conf" --format swf "$D/swf/HPC2N-2002-2.2-cln_excerpt.swf" > "$T/swf.out" ||
	fail "swf import"
grep -q "imported 62," "$T/swf.out" || fail "swf: $(cat "$T/swf.out")"
cat > "$T/jobs.csv" <<'CSV'
job,user,name,nodelist,ntasks,start,end,state
900001,carol,"wrf, run 3",cn[001-004],128,2026-11-24T10:00:00Z,2026-11-24T11:30:00Z,COMPLETED
900002,carol,bad,cn[004-001],1,2026-11-24T10:00:00Z,2026-11-24T11:30:00Z,COMPLETED
900003,dave,x,cn005,1,2026-11-24T12:00:00Z,2026-11-24T11:00:00Z,COMPLETED
900004,dave,ok,cn006,1,2026-11-24T12:00:00Z,,RUNNING
CSV
"$BEACON" import-jobs --config "$T/beacon.conf" --format csv "$T/jobs.csv" > "$T/csv.out" 2> "$T/csv.err" &&
	fail "csv with bad rows: exit 0"
grep -q "jobs.csv:3: bad hostlist" "$T/csv.err" || fail "csv line 3: $(cat "$T/csv.err")"
grep -q "jobs.csv:4: end before start" "$T/csv.err" || fail "csv line 4: $(cat "$T/csv.err")"
[ "$(sql "SELECT name FROM jobs WHERE id = 900001")" = "wrf, run 3" ] || fail "csv job 900001"
[ "$(sql "SELECT state FROM jobs WHERE id = 900004")" = RUNNING ] || fail "csv job 900004"
printf 'JobID|JobName|User|Partition|NNodes|NCPUS|NodeList|Submit|Start|End|Elapsed|State|ExitCode\n77|ior|erin|batch|2|64|cn[007-008]|2026-11-24T09:00:00|2026-11-24T09:01:00|2026-11-24T09:31:00|00:30:00|COMPLETED|0:0\n' > "$T/sim-sacct.txt"
"$BEACON" import-jobs --config "$T/beacon.conf" --format sacct "$T/sim-sacct.txt" > /dev/null || fail "header form"
[ "$(sql "SELECT COUNT(*) FROM job_nodes WHERE job = 77")" = 2 ] || fail "header form node index"

# the compute-to-forwarding map, twice
printf '# map\ncn[001-004] fwd1 - 2026-11-24T11:00:00Z\ncn[001-004] fwd2 2026-11-24T11:00:00Z\ncn[9-1] fwd3\n' > "$T/fwdmap.txt"
"$BEACON" import-map --config "$T/beacon.conf" "$T/fwdmap.txt" > "$T/map.out" 2> "$T/map.err" && fail "bad map line: exit 0"
grep -q "fwdmap.txt:4: bad hostlist" "$T/map.err" || fail "map line 4: $(cat "$T/map.err")"
out=$("$BEACON" import-map --config "$T/beacon.conf" --json "$T/fwdmap.txt" 2>/dev/null || true)
[ "$(jget "$out" inserted)" = 0 ] && [ "$(jget "$out" unchanged)" = 2 ] || fail "second map import: $out"
t=$(date -u -d 2026-11-24T10:30:00 +%s)000000000
[ "$(sql "SELECT fwd FROM fwdmap_nodes WHERE node = 'cn003' AND from_ns <= $t AND to_ns > $t")" = fwd1 ] || fail "map at 10:30"
# beacon jobs: filters, table and JSON
"$BEACON" jobs --config "$T/beacon.conf" --user carol --json > "$T/carol.json" || fail "beacon jobs"
[ "$(wc -l < "$T/carol.json")" = 1 ] || fail "jobs of carol: $(cat "$T/carol.json")"
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["job"]==900001 and d["name"]=="wrf, run 3" and d["start"]=="2026-11-24T10:00:00Z" and d["nnodes"]==4, d' "$T/carol.json" ||
	fail "jobs json: $(cat "$T/carol.json")"
n=$("$BEACON" jobs --config "$T/beacon.conf" --state RUNNING --json | wc -l)
[ "$n" -ge 1 ] || fail "running jobs: $n"
"$BEACON" jobs --config "$T/beacon.conf" --since 2026-11-24T11:45:00Z --json > "$T/late.json"
grep -q '"job":900004' "$T/late.json" && ! grep -q '"job":900001' "$T/late.json" || fail "--since: $(cat "$T/late.json")"
"$BEACON" jobs --config "$T/beacon.conf" --limit 3 | sed -n 1p | grep "^JOB" > /dev/null || fail "table header"
"$BEACON" jobs --config "$T/beacon.conf" --since yesterday 2> "$T/bad.err" && fail "bad --since accepted"
grep -q "since: bad time" "$T/bad.err" || fail "bad --since: $(cat "$T/bad.err")"
# a database the program does not know is refused
sql "INSERT INTO schema_version VALUES (99, 0)"
"$BEACON" import-map --config "$T/beacon.conf" "$T/fwdmap.txt" > /dev/null 2> "$T/newer.err" && fail "newer schema accepted"
grep -q "schema version 99, newer than this program's" "$T/newer.err" || fail "newer schema: $(cat "$T/newer.err")"
echo "import_jobs: ok"
