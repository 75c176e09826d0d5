#!/usr/bin/env bash
# Second-pass archives of simulated jobs, end to end: beacon-sim in scale
# mode plays the collectors of a small cluster (16 compute nodes running
# an N-N checkpoint job, an N-1 shared-file job and a metadata job, a
# forwarding node, an OSS with two OSTs, an MDS, a switch) against a
# beacon-logsrv with the sqlite store. Then for each job:
#  - `beacon archive JOB` writes the archive and reports a ratio over the
#    first pass above 1 for the two parallel jobs (their nodes merge);
#  - `beacon archive --expand` gives exactly the records `beacon query
#    --job JOB` gives over every layer (sorted JSON lines);
#  - with --from/--to, exactly those of the same query over the range;
#  - restored into a new store (--into-config), twice, the records that
#    store gives back are those again, once;
#  - a truncated or altered archive expands to nothing, exit status 1.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
LOGSRV=$BCN_BUILD/logsrv/beacon-logsrv
LAYERS="client forward ost mds switch job"
export LC_ALL=C

python3 -c 'import os; print(os.urandom(32).hex())' > "$T/key"
chmod 600 "$T/key"
bcn_alloc_port RP; bcn_alloc_port P
bcn_start_redis "$T/redis" "$RP" || fail "redis did not listen"
cat > "$T/logsrv.conf" <<EOF
listen = 127.0.0.1:$P
name = logsrv
auth_key_file = $T/key
redis_port = $RP
redis_prefix = bcn
store_backend = sqlite
store_dir = $T/store
flush_idle = 20ms
EOF
"$LOGSRV" --config "$T/logsrv.conf" >> "$T/logsrv.log" 2>&1 &
LPID=$!
BCN_PIDS+=("$LPID")
bcn_wait_port "$P" "$LPID" || fail "beacon-logsrv did not listen"

cat > "$T/sim.conf" <<EOF
compute = 16
forwarding = 1
oss = 1
osts_per_oss = 2
mds = 1
switches = 1
tick = 1s
jobs_per_hour = 0
job = ckpt n-n 8 0 60 100M 3 2
job = shared n-1 4 0 60 80M
job = md meta 2 0 60 300
out = $T/scale-out
scale = yes
server = 127.0.0.1:$P
key_file = $T/key
ticks = 8
EOF
"$SIM" --config "$T/sim.conf" > "$T/sim.jsonl" 2> "$T/sim.log" ||
	fail "beacon-sim: $(tail -3 "$T/sim.log")"
grep -q '"sim":"done".*"dropped_records":0' "$T/sim.jsonl" ||
	fail "records dropped: $(tail -1 "$T/sim.jsonl")"
for _ in $(seq 1 200); do
	[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] && break
	sleep 0.05
done
[ "$(bcn_redis "$RP" LLEN bcn:queue)" = 0 ] || fail "queue not drained"
sleep 0.5

# the job ids, from the simulator's sacct file: ckpt, shared, md
mapfile -t JOBS < <(awk -F'|' 'NR > 1 { print $1 }' "$T/scale-out/slurm/sacct.txt")
[ "${#JOBS[@]}" -eq 3 ] || fail "expected 3 jobs in sacct.txt"

# query JOB [--from T --to T]: every layer's records of the job, sorted
query() {
	local job=$1 l
	shift
	for l in $LAYERS; do
		"$BEACON" query --config "$T/logsrv.conf" --layer "$l" --job "$job" \
			--from "${1:-2000-01-01}" ${2:+--to "$2"} ||
			fail "query $l $job"
	done | sort
}

for i in 0 1 2; do
	job=${JOBS[$i]}
	"$BEACON" archive "$job" --config "$T/logsrv.conf" --out "$T/$job.arc" \
		--json > "$T/$job.sum" 2> "$T/archive.log" || fail "archive $job"
	query "$job" > "$T/$job.want"
	"$BEACON" archive --expand "$T/$job.arc" 2>> "$T/archive.log" | sort \
		> "$T/$job.got" || fail "expand $job"
	[ -s "$T/$job.want" ] || fail "job $job has no records"
	cmp -s "$T/$job.want" "$T/$job.got" ||
		fail "job $job: expanded records differ: $(diff "$T/$job.want" "$T/$job.got" | head -5)"
	python3 - "$T/$job.sum" "$(wc -l < "$T/$job.want")" "$i" <<'PY' || fail "summary of job $job"
import json, sys
s = json.load(open(sys.argv[1]))
n, i = int(sys.argv[2]), int(sys.argv[3])
assert s["records"] == n, (s, n)
assert s["archive_bytes"] > 0 and s["first_pass_bytes"] > 0, s
ratio = s["first_pass_bytes"] / s["archive_bytes"]
assert abs(ratio - s["ratio"]) < 0.001, s
# the parallel jobs (ckpt, shared) merge their nodes
if i < 2:
    assert s["ratio"] > 1, s
    assert s["merged_nodes"] >= 2 and s["groups"] < s["nodes"], s
print("archive: job %d: %d records, %d nodes in %d groups, ratio %.2f"
      % (s["job"], n, s["nodes"], s["groups"], s["ratio"]))
PY
done

# a time range: the middle of the run
job=${JOBS[0]}
read -r t0 t1 < <(python3 - "$T/$job.want" <<'PY'
import json, sys
ts = sorted(json.loads(l)["t"] for l in open(sys.argv[1]))
a, b = ts[len(ts) // 4], ts[3 * len(ts) // 4]
print("%d.%09d %d.%09d" % (a // 10**9, a % 10**9, b // 10**9, b % 10**9))
PY
)
"$BEACON" archive "$job" --config "$T/logsrv.conf" --out "$T/range.arc" \
	--from "$t0" --to "$t1" > /dev/null 2>> "$T/archive.log" || fail "archive range"
query "$job" "$t0" "$t1" > "$T/range.want"
"$BEACON" archive --expand "$T/range.arc" | sort > "$T/range.got" || fail "expand range"
[ -s "$T/range.want" ] || fail "no records in the range"
cmp -s "$T/range.want" "$T/range.got" || fail "range: expanded records differ"
[ "$(wc -l < "$T/range.want")" -lt "$(wc -l < "$T/$job.want")" ] ||
	fail "the range selected every record"

# restored into a new store (twice: identities make it idempotent), the
# archive's records are what that store gives back
printf 'store_backend = sqlite\nstore_dir = %s\n' "$T/restored" > "$T/restore.conf"
for _ in 1 2; do
	"$BEACON" archive --expand "$T/$job.arc" --into-config "$T/restore.conf" \
		> "$T/restore.out" 2>> "$T/archive.log" || fail "restore"
	grep -q "restored $(wc -l < "$T/$job.want") records" "$T/restore.out" ||
		fail "restore: $(cat "$T/restore.out")"
done
for l in $LAYERS; do
	"$BEACON" query --config "$T/restore.conf" --layer "$l" --part any --from 2000-01-01 ||
		fail "query restored $l"
done | sort > "$T/restored.got"
cmp -s "$T/$job.want" "$T/restored.got" || fail "restored records differ"

# a job the store does not know is an error, and writes nothing
if "$BEACON" archive 999999 --config "$T/logsrv.conf" --out "$T/none.arc" \
	> /dev/null 2> "$T/none.err"; then
	fail "archive of an unknown job succeeded"
fi
grep -q "no record" "$T/none.err" || fail "unknown job: $(cat "$T/none.err")"
[ ! -e "$T/none.arc" ] || fail "unknown job: an archive was written"

# damaged archives expand to nothing
head -c -1 "$T/$job.arc" > "$T/cut.arc"
python3 - "$T/$job.arc" "$T/flip.arc" <<'PY'
import sys
a = bytearray(open(sys.argv[1], "rb").read())
a[len(a) // 2] ^= 0x10
open(sys.argv[2], "wb").write(a)
PY
for f in cut flip; do
	if "$BEACON" archive --expand "$T/$f.arc" > "$T/$f.out" 2> "$T/$f.err"; then
		fail "$f archive expanded"
	fi
	[ ! -s "$T/$f.out" ] || fail "$f archive printed records"
	grep -q "beacon archive: " "$T/$f.err" || fail "$f: no message"
done
echo "archive: ok"
