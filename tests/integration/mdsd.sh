#!/usr/bin/env bash
# beacon-mdsd end to end: a copy of real MDS fixture trees (LMT's Lustre
# 2.15.4 MDT, given real 2.15 and 2.12 job_stats blocks and telegraf's
# export, and HPE's Lustre 2.10.1 MDT with 15 jobs and one export) goes
# in; the daemon takes three samples, each triggered with SIGUSR1 once
# the test has edited the counter files (increases, a new job, a new
# client export, then a remounted MDT whose counters restart, a job and
# an export that disappear, a malformed line); `beacon decode` of its
# --output must give exactly the expected deltas.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_TEST_DATA:?}"
MDSD=$BCN_BUILD/collectors/mds/beacon-mdsd
BEACON=$BCN_BUILD/cli/beacon
L=$BCN_TEST_DATA/lustre/mds
EDIT=$(dirname "$0")/lustre_edit.py
edit() { python3 "$EDIT" "$@"; }     # OP FILE ARGS, see lustre_edit.py
T=$(mktemp -d)
pid=
# shellcheck source=tests/lib/servers.sh
source "$(dirname "$0")/../lib/servers.sh"
# a daemon still running is stopped with SIGTERM; its exit status and a
# sanitizer report in the logs under T fail the test
cleanup() {
	local st=0
	[ -n "$pid" ] && BCN_PIDS+=("$pid")
	pid=
	bcn_cleanup || st=1
	rm -rf "$T"
	return "$st"
}
trap 'st=$?; cleanup || st=1; exit $st' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$T/log" ] && tail -n 30 "$T/log" >&2; exit 1; }

R=$T/root
P=$R/proc/fs/lustre
mkdir -p "$R"
cp -r "$L/lmt-2.15.4_1/." "$R/"
mkdir -p "$P/mdt/lustrefs-MDT0000"
cp -r "$L/lustre_exporter-2.10.1/mdt/lustrefs-MDT0000/." "$P/mdt/lustrefs-MDT0000/"
chmod -R u+w "$R"
M1=$P/mdt/lflood-MDT0000
M0=$P/mdt/lustrefs-MDT0000
{ echo "job_stats:"
  cat "$L/lustre-collector-2.15fmt/job_stats_time_triple_quoted_jobid.txt"
  grep -v '^job_stats:' "$L/lustre-collector-2.12fmt/job_stats_touch0.txt"
} > "$M1/job_stats"
mkdir -p "$M1/exports/10.2.4.27@o2ib1"
cp "$L/telegraf-v2.12/mdt/OST0001/exports/10.2.4.27@o2ib1/stats" "$M1/exports/10.2.4.27@o2ib1/"
chmod -R u+w "$M1"

cat > "$T/mdsd.conf" <<EOF
root = "$R"
node = "mds-test"
interval = 1h
count = 3
output = "$T/out.bin"
stats_file = "$T/stats.json"
log_level = info
job_stats_interval = 0
exports_interval = 0
read_budget_us = 0
EOF

"$MDSD" --config "$T/mdsd.conf" 2> "$T/log" &
pid=$!

wait_sample() { # N: until the log says sample N is done (safety net 60 s)
	for _ in $(seq 1200); do
		grep -q "sample $1 done" "$T/log" && return 0
		kill -0 "$pid" 2>/dev/null || fail "beacon-mdsd exited before sample $1"
		sleep 0.05
	done
	fail "no sample $1"
}

wait_sample 1
# --- between samples 1 and 2
edit stats "$M1/md_stats" getattr 7 0
edit stats "$M1/md_stats" statfs 3 0
edit job "$M1/job_stats" ":988:ds88" statfs 9 0
edit job "$M1/job_stats" touch.0 open 2 0
edit job "$M1/job_stats" touch.0 close 2 0
edit job "$M0/job_stats" 44 getattr 4 0
edit stats "$M0/md_stats" open 3 0
edit stats "$M0/exports/172.20.20.4@o2ib/stats" open 3 0
edit stats "$M0/exports/172.20.20.4@o2ib/stats" getattr 1 0
# a job that starts now (2.10 form), a client that connects now
sed -n '/^- job_id: *43$/,/^- job_id/p' "$M0/job_stats" | sed '$d' \
	| sed -e 's/^- job_id: *43$/- job_id:          4321/' \
	      -e 's/open: .*/open:            { samples:           5, unit:  reqs }/' \
	      -e 's/mkdir: .*/mkdir:           { samples:           2, unit:  reqs }/' \
	      -e 's/setattr: .*/setattr:         { samples:           0, unit:  reqs }/' > "$T/job4321"
[ "$(wc -l < "$T/job4321")" -eq 18 ] || fail "job 4321 block: $(cat "$T/job4321")"
edit append "$M0/job_stats" "$(cat "$T/job4321")"
mkdir -p "$M0/exports/10.9.9.9@tcp"
cat > "$M0/exports/10.9.9.9@tcp/stats" <<EOF
snapshot_time             1510781900.008878624 secs.nsecs
open                      1 samples [reqs]
mkdir                     4 samples [reqs]
EOF
kill -USR1 "$pid"
wait_sample 2
# --- between samples 2 and 3: lustrefs-MDT0000 remounted, job 43 and
# telegraf's export gone, a malformed line, touch.0 makes a directory
cat > "$M0/md_stats" <<EOF
snapshot_time             1510781953.008878624 secs.nsecs
open                      1 samples [reqs]
close                     1 samples [reqs]
EOF
edit dropjob "$M0/job_stats" 43
rm -rf "$M1/exports/10.2.4.27@o2ib1"
edit append "$M1/job_stats" "  bogus: line"
edit job "$M1/job_stats" touch.0 mkdir 1 0
kill -USR1 "$pid"
wait "$pid" || fail "beacon-mdsd exited with $?"
pid=

grep -q "went down" "$T/log" || fail "reset not reported"
grep -q "malformed" "$T/log" || fail "malformed line not reported"

"$BEACON" decode "$T/out.bin" > "$T/records"
python3 - "$T/records" "$T/stats.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
stats = json.loads(open(sys.argv[2]).read())
if not (stats["samples"] == 3 and stats["records"] == len(recs)):
    raise SystemExit("check failed: %r" % ((stats),))
if not (stats["skipped_lines"] == 1):
    raise SystemExit("check failed: %r" % ((stats),))
if not (stats["file_errors"] == 0):
    raise SystemExit("check failed: %r" % ((stats),))
for r in recs:
    if not (r["type"] == "mds" and r["layer"] == "mds"):
        raise SystemExit("check failed: %r" % ((r),))
    if not (r["node"] == "mds-test"):
        raise SystemExit("check failed: %r" % ((r),))
ts = sorted({r["t"] for r in recs})
if not (len(ts) == 2):
    raise SystemExit("check failed: %r" % ((ts),))
key = lambda r: (r["target"], r["client"], r["jobid"])
s2 = {key(r): r for r in recs if r["t"] == ts[0]}
s3 = {key(r): r for r in recs if r["t"] == ts[1]}
A, B = "lflood-MDT0000", "lustrefs-MDT0000"
if not (set(s2) == {(A, "", ""), (B, "", ""), (A, "", ":988:ds88"),
                   (A, "", "touch.0"), (B, "", "44"), (B, "", "4321"),
                   (B, "172.20.20.4@o2ib", ""), (B, "10.9.9.9@tcp", "")}):
    raise SystemExit("check failed: %r" % ((sorted(s2)),))
if not (set(s3) == {(A, "", ""), (B, "", ""), (A, "", "touch.0")}):
    raise SystemExit("check failed: %r" % ((sorted(s3)),))
def check(recs, k, job=0, **ops):
    r = recs[k]
    if not (r["ops"] == ops):
        raise SystemExit("check failed: %r" % (((k, r["ops"], ops)),))
    if not (r["job"] == job):
        raise SystemExit("check failed: %r" % (((k, r["job"], job)),))
check(s2, (A, "", ""), getattr=7, statfs=3)
check(s2, (B, "", ""), open=3)
check(s2, (A, "", ":988:ds88"), statfs=9)
check(s2, (A, "", "touch.0"), open=2, close=2)
check(s2, (B, "", "44"), job=44, getattr=4)
check(s2, (B, "", "4321"), job=4321, open=5, mkdir=2)
check(s2, (B, "172.20.20.4@o2ib", ""), open=3, getattr=1)
check(s2, (B, "10.9.9.9@tcp", ""), open=1, mkdir=4)
# remounted: open 13 -> 1, close 9 -> 1; the rest no longer printed
check(s3, (B, "", ""), open=1, close=1)
check(s3, (A, "", ""))
check(s3, (A, "", "touch.0"), mkdir=1)
PY

# frames are zstd-compressed by default, rows (flag 4) or columns (12)
# by frame_codec auto (collector_test)
flags=$(od -An -tu1 -j6 -N1 "$T/out.bin" | tr -d ' ')
[ "$flags" = 4 ] || [ "$flags" = 12 ] ||
	fail "default frames not zstd: flags $flags"
echo "mdsd: ok"
