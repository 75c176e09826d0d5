#!/usr/bin/env bash
# beacon-ostd end to end: a copy of real OSS fixture trees (Lustre 2.15.4
# with brw_stats in debugfs, plus a Lustre 2.10.1 OST with 35 jobs whose
# brw_stats is a link into osd-zfs) goes in; the daemon takes three
# samples, each triggered with SIGUSR1 once the test has edited the
# counter files (increases, a new job, a new export, a malformed line,
# then a remounted OST whose counters restart, a job that disappears and
# a brw_stats that goes missing); `beacon decode` of its --output must
# give exactly the expected deltas.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_TEST_DATA:?}"
OSTD=$BCN_BUILD/collectors/ost/beacon-ostd
BEACON=$BCN_BUILD/cli/beacon
L=$BCN_TEST_DATA/lustre/ost
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

# --- the tree: LMT's 2.15.4 OSS (lflood-OST0000/1) and HPE's 2.10.1 OST
R=$T/root
P=$R/proc/fs/lustre
mkdir -p "$R"
cp -r "$L/lmt-2.15.4_1/." "$R/"
mkdir -p "$P/obdfilter/lustrefs-OST0000" "$P/osd-zfs/lustrefs-OST0000"
cp -r "$L/lustre_exporter-2.10.1/obdfilter/lustrefs-OST0000/." "$P/obdfilter/lustrefs-OST0000/"
cp -r "$L/lustre_exporter-2.10.1/osd-zfs/lustrefs-OST0000/." "$P/osd-zfs/lustrefs-OST0000/"
chmod -R u+w "$R"
[ -L "$P/obdfilter/lustrefs-OST0000/brw_stats" ] || fail "brw_stats link not copied as a link"
# lflood-OST0001 gets 2.15 job_stats (two real blocks) and one export
F1=$P/obdfilter/lflood-OST0001
{ echo "job_stats:"
  cat "$L/lustre-collector-2.15fmt/job_stats_hist_quoted_jobid.txt"
  grep -v '^job_stats:' "$L/lustre-collector-2.15fmt/job_stats_time_triple.txt"
} > "$F1/job_stats"
mkdir -p "$F1/exports/10.2.4.27@o2ib1"
cp "$L/telegraf-v2.12/obdfilter/OST0001/exports/10.2.4.27@o2ib1/stats" "$F1/exports/10.2.4.27@o2ib1/"
chmod -R u+w "$F1"
F0=$P/obdfilter/lustrefs-OST0000
B1=$R/sys/kernel/debug/lustre/osd-zfs/lflood-OST0001/brw_stats

EDIT=$(dirname "$0")/lustre_edit.py
edit() { python3 "$EDIT" "$@"; }     # OP FILE ARGS, see lustre_edit.py

cat > "$T/ostd.conf" <<EOF
root = "$R"
node = "oss-test"
interval = 1h
count = 3
output = "$T/out.bin"
stats_file = "$T/stats.json"
log_level = info
job_stats_interval = 0
exports_interval = 0
read_budget_us = 0
EOF

"$OSTD" --config "$T/ostd.conf" 2> "$T/log" &
pid=$!

wait_sample() { # N: until the log says sample N is done (safety net 60 s)
	for _ in $(seq 1200); do
		grep -q "sample $1 done" "$T/log" && return 0
		kill -0 "$pid" 2>/dev/null || fail "beacon-ostd exited before sample $1"
		sleep 0.05
	done
	fail "no sample $1"
}

MIB=1048576
JOB='SLURM_JOB_machine176_2453:0:mac'
wait_sample 1
# --- between samples 1 and 2
edit stats "$F1/stats" read_bytes 10 $((10 * MIB))
edit stats "$F1/stats" read 10 0
edit stats "$F1/stats" write_bytes 5 $((5 * MIB))
edit stats "$F1/stats" write 5 0
edit stats "$F1/stats" statfs 3 0
edit brw "$B1" 256 5                            # 5 more 256-page writes
edit job "$F1/job_stats" "$JOB" write_bytes 100 409600
edit job "$F1/job_stats" "$JOB" write 100 0
edit job "$F1/job_stats" "$JOB" punch 2 0
edit stats "$F0/stats" punch 1 0
edit append "$F0/stats" "this line is not a counter"
edit job "$F0/job_stats" 24 write_bytes 1 4096
# a job that starts now: its whole counts are this interval's
sed -n '/^- job_id: *24$/,/^- job_id/p' "$F0/job_stats" | sed '$d' \
	| sed -e 's/^- job_id: *24$/- job_id:          777/' \
	      -e 's/write_bytes: .*/write_bytes:     { samples:          10, unit: bytes, min:    4096, max:    4096, sum:           40960 }/' \
	      -e 's/punch: .*/punch:           { samples:           0, unit:  reqs }/' > "$T/job777"
edit append "$F0/job_stats" "$(cat "$T/job777")"
# the export's first writes: a counter line that was not there
edit append "$F0/exports/172.20.20.2@o2ib/stats" "write_bytes               2 samples [bytes] 4096 4096 8192"
edit stats "$F0/exports/172.20.20.2@o2ib/stats" statfs 1 0
kill -USR1 "$pid"
wait_sample 2
# --- between samples 2 and 3: lflood-OST0000 remounted, job 25 gone,
# brw_stats of lflood-OST0001 missing, a client connects to lflood-OST0001
cat > "$P/obdfilter/lflood-OST0000/stats" <<EOF
snapshot_time             1704924200.000000001 secs.nsecs
start_time                1704924190.000000001 secs.nsecs
elapsed_time              10.000000000 secs.nsecs
create                    2 samples [usecs] 561 2485544 4227696 8212249488856
statfs                    5 samples [usecs] 0 32 719342 3614680
set_info                  1 samples [usecs] 1 55 399631 3612547
EOF
edit dropjob "$F0/job_stats" 25
rm "$B1"
mkdir -p "$F1/exports/10.2.4.28@o2ib1"
cat > "$F1/exports/10.2.4.28@o2ib1/stats" <<EOF
snapshot_time             1704924200.000000001 secs.nsecs
write_bytes               3 samples [bytes] 4096 4096 12288 50331648
EOF
kill -USR1 "$pid"
wait "$pid" || fail "beacon-ostd exited with $?"
pid=

grep -q "went down" "$T/log" || fail "reset not reported"
grep -q "malformed" "$T/log" || fail "malformed line not reported"
grep -q "lflood-OST0001/brw_stats: " "$T/log" || fail "missing brw_stats not reported"

"$BEACON" decode "$T/out.bin" > "$T/records"
python3 - "$T/records" "$T/stats.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
stats = json.loads(open(sys.argv[2]).read())
if not (stats["samples"] == 3 and stats["records"] == len(recs)):
    raise SystemExit("check failed: %r" % ((stats),))
if not (stats["skipped_lines"] == 2):
    raise SystemExit("check failed: %r" % ((stats),))  # the line, read twice
if not (stats["file_errors"] == 1):
    raise SystemExit("check failed: %r" % ((stats),))
MIB = 1 << 20
for r in recs:
    if not (r["type"] == "ost" and r["layer"] == "ost"):
        raise SystemExit("check failed: %r" % ((r),))
    if not (r["node"] == "oss-test"):
        raise SystemExit("check failed: %r" % ((r),))
ts = sorted({r["t"] for r in recs})
if not (len(ts) == 2):
    raise SystemExit("check failed: %r" % ((ts),))  # sample 1 only learns
key = lambda r: (r["target"], r["client"], r["jobid"])
s2 = {key(r): r for r in recs if r["t"] == ts[0]}
s3 = {key(r): r for r in recs if r["t"] == ts[1]}
d2 = {r["dur"] for r in s2.values()}
if not (len(d2) == 1 and ts[0] + d2.pop() == ts[1]):
    raise SystemExit("check failed: %r" % ((ts),))
JOB = "SLURM_JOB_machine176_2453:0:mac"
if not (set(s2) == {
    ("lflood-OST0000", "", ""), ("lflood-OST0001", "", ""),
    ("lustrefs-OST0000", "", ""),
    ("lflood-OST0001", "", JOB),
    ("lustrefs-OST0000", "", "24"), ("lustrefs-OST0000", "", "777"),
    ("lustrefs-OST0000", "172.20.20.2@o2ib", ""),
}):
    raise SystemExit("check failed: %r" % ((sorted(s2)),))
if not (set(s3) == {
    ("lflood-OST0000", "", ""), ("lflood-OST0001", "", ""),
    ("lustrefs-OST0000", "", ""),
    ("lflood-OST0001", "10.2.4.28@o2ib1", ""),
}):
    raise SystemExit("check failed: %r" % ((sorted(s3)),))
def check(recs, k, job=0, **want):
    r = recs[k]
    full = {"read_bytes": 0, "write_bytes": 0, "ops": {}, "pages_read": [],
            "pages_write": [], "iotime_read": [], "iotime_write": []}
    full.update(want)
    got = {f: r[f] for f in full}
    if not (got == full):
        raise SystemExit("check failed: %r" % (((k, got, full)),))
    if not (r["job"] == job):
        raise SystemExit("check failed: %r" % (((k, r["job"], job)),))
check(s2, ("lflood-OST0001", "", ""), read_bytes=10 * MIB,
      write_bytes=5 * MIB, ops={"read": 10, "write": 5, "statfs": 3},
      pages_write=[0] * 8 + [5])
check(s2, ("lflood-OST0000", "", ""))
check(s2, ("lustrefs-OST0000", "", ""), ops={"punch": 1})
check(s2, ("lflood-OST0001", "", JOB), write_bytes=409600,
      ops={"write": 100, "punch": 2})
check(s2, ("lustrefs-OST0000", "", "24"), job=24, write_bytes=4096,
      ops={"write": 1})
check(s2, ("lustrefs-OST0000", "", "777"), job=777, write_bytes=40960,
      ops={"write": 10})
check(s2, ("lustrefs-OST0000", "172.20.20.2@o2ib", ""), write_bytes=8192,
      ops={"write": 2, "statfs": 1})
# remounted: create 8 -> 2, statfs 400666 -> 5, set_info 52735 -> 1
check(s3, ("lflood-OST0000", "", ""),
      ops={"create": 2, "statfs": 5, "set_info": 1})
check(s3, ("lflood-OST0001", "", ""))
check(s3, ("lustrefs-OST0000", "", ""))
check(s3, ("lflood-OST0001", "10.2.4.28@o2ib1", ""), write_bytes=12288,
      ops={"write": 3})
PY
echo "ostd: ok"
