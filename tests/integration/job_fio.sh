#!/usr/bin/env bash
# A real job's report: fio (Debian's) runs under the tracer as Slurm jobs
# 301 (sequential 1 MiB writes) and 302 (random 64 KiB reads);
# beacon-clientd sends the records to a real beacon-logsrv with the SQLite
# store; the jobs' records are imported into a private MariaDB as a
# scheduler's CSV; beacon-analyzd --once computes the reports. Each
# report's bytes, operations and bandwidth must equal fio's own JSON
# report within 1%, with the I/O mode 1-1 (fio's own small files do not
# change it) and one phase. fio's JSON report goes through a pipe (not
# traced): written to a file it would be the job's last write, some tens
# of milliseconds after its data I/O on a loaded machine, and stretch the
# phase the bandwidth is taken over.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"
export PATH=$PATH:/usr/sbin
command -v fio >/dev/null || fail "fio is not installed (run deploy/install-deps)"
LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
ANALYZD=$BCN_BUILD/analysis/beacon-analyzd

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port LP; bcn_alloc_port MP
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
bcn_start_mariadb "$T/db" "$MP" || fail "mariadb did not start"
cat > "$T/logsrv.conf" <<EOF
listen = 127.0.0.1:$LP
name = logsrv
auth_key_file = $T/key
redis_port = $RP
store_dir = $T/store
flush_idle = 20ms
EOF
"$LOGSRV" --config "$T/logsrv.conf" > "$T/logsrv.log" 2>&1 &
LPID=$!; BCN_PIDS+=("$LPID")
bcn_wait_port "$LP" "$LPID" || fail "logsrv did not listen"

"$CLIENTD" --tracer-socket "$SOCK" --node cn0001 --interval 500ms \
	--server "127.0.0.1:$LP" --key-file "$T/key" 2> "$T/log" &
pid=$!
for _ in $(seq 1 100); do
	grep -q 'notice: started' "$T/log" && break
	sleep 0.05
done

iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
echo "job,user,name,nodelist,ntasks,start,end,state" > "$T/jobs.csv"
run() { # job name fio-options...
	local job=$1 name=$2 t0 t1
	shift 2
	mkdir -p "$T/$name"
	fio --name="$name" --directory="$T/$name" --size=64M --create_only=1 "$@" > /dev/null ||
		fail "fio $name layout"
	t0=$(date +%s)
	SLURM_JOB_ID=$job SLURM_STEP_ID=0 BEACON_TRACE_SOCKET=$SOCK LD_PRELOAD=$TRACE \
		fio --name="$name" --directory="$T/$name" --size=64M --time_based --runtime=3 \
		--output-format=json "$@" | cat > "$T/$name.json" || fail "fio $name"
	t1=$(( $(date +%s) + 1 ))
	echo "$job,$(id -un),$name,cn0001,1,$(iso "$t0"),$(iso "$t1"),COMPLETED" >> "$T/jobs.csv"
}
run 301 seqwrite --rw=write --bs=1M --ioengine=psync
run 302 randread --rw=randread --bs=64k --ioengine=psync --rate_iops=4000
bcn_clientd_stop
for _ in $(seq 1 200); do
	[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && break
	sleep 0.05
done
sleep 0.5

{ cat "$T/db/jobdb.conf"; echo "store_dir = $T/store"; echo "settle = 0"; echo "live_interval = 0"; } > "$T/analyzd.conf"
"$BEACON" import-jobs --config "$T/analyzd.conf" --format csv "$T/jobs.csv" > /dev/null || fail "import"
"$ANALYZD" --config "$T/analyzd.conf" --once > "$T/analyzd.log" 2>&1 || fail "analyzd: $(tail -3 "$T/analyzd.log")"
"$BEACON" job 301 --config "$T/analyzd.conf" --json > "$T/r301.json" || fail "beacon job 301"
"$BEACON" job 302 --config "$T/analyzd.conf" --json > "$T/r302.json" || fail "beacon job 302"
python3 - "$T" <<'PYEOF'
import json, sys
T = sys.argv[1]
bad = []
for job, name, op in ((301, "seqwrite", "write"), (302, "randread", "read")):
    fio = json.load(open("%s/%s.json" % (T, name)))["jobs"][0][op]
    r = json.load(open("%s/r%d.json" % (T, job)))
    other = "read" if op == "write" else "write"
    checks = {
        "bytes": (r[op + "_bytes"], fio["io_bytes"]),
        "ops": (r[op + "_ops"], fio["total_ios"]),
        "bandwidth": (r[op + "_bw_mean"], fio["bw_bytes"]),
    }
    for k, (got, want) in checks.items():
        if not want or abs(got - want) > 0.01 * want:
            bad.append("job %d %s %s: beacon %r, fio %r" % (job, op, k, got, want))
    # fio itself reads a few bytes and writes its JSON report: the job's
    # too, but nowhere near its data
    if r[other + "_bytes"] * 1000 > r[op + "_bytes"] or r["mode"] != "1-1" or len(r["phases"]) != 1:
        bad.append("job %d: %s bytes %r, mode %r, phases %r" % (job, other, r[other + "_bytes"], r["mode"], r["phases"]))
    print(json.dumps({"job": job, "beacon_bw": r[op + "_bw_mean"], "fio_bw": fio["bw_bytes"],
                      "beacon_bytes": r[op + "_bytes"], "fio_bytes": fio["io_bytes"]}))
if bad:
    print("\n".join(bad)); sys.exit(1)
PYEOF
echo "job_fio: ok"
