#!/usr/bin/env bash
# beacon-sim's storage side read by the real collectors. A 16-node N-1 job
# reads a file striped over 4 OSTs, asking far more than they serve; OST1
# is injected at 25% speed; a metadata-heavy job hammers the MDT. The
# simulator writes ticks 1..6 one at a time (--until N) and beacon-ostd
# (on oss001: OST0000, OST0001) and beacon-mdsd (on mds01) take a sample
# after each. Their records must show, per interval: the full OST serving
# exactly ost_bw, the slow one exactly its injected fraction (the truth
# file's factor), the job's job_stats bytes equal to the target's, and the
# metadata job's operations by type; and the sacct file must list both
# jobs with their node lists in Slurm's hostlist syntax.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/sim.sh
source "$BCN_SRC/tests/lib/sim.sh"
OSTD=$BCN_BUILD/collectors/ost/beacon-ostd
MDSD=$BCN_BUILD/collectors/mds/beacon-mdsd

cat > "$T/sim.conf" <<EOF
out = $T/sim
truth = $T/truth.jsonl
compute = 20
oss = 2
osts_per_oss = 2
mds = 1
epoch = 1790000000
jobs_per_hour = 0
ost_bw = 100M
fwd_bw = 100G
stripe_count = 4
job = ckpt n-1 16 0 100 400M 50 10
job = storm meta 4 0 100 500
slow_ost = 1 0.25 0 1000
EOF
TICKS=6
"$SIM" --config "$T/sim.conf" --seed 7 --until 1 2> "$T/sim.log" ||
	fail "beacon-sim"
common=(--interval 1h --count "$TICKS" --idle-records --read-budget-us 0
	--log-level info)
"$OSTD" --root "$T/sim/oss001" --node oss001 --output "$T/ost.bin" \
	--no-brw-stats --no-exports "${common[@]}" 2> "$T/ostd.log" &
pids+=($!)
"$MDSD" --root "$T/sim/mds01" --node mds01 --output "$T/mds.bin" \
	--no-exports "${common[@]}" 2> "$T/mdsd.log" &
pids+=($!)
bcn_wait_sample "$T/ostd.log" 1 "${pids[0]}"
bcn_wait_sample "$T/mdsd.log" 1 "${pids[1]}"
for k in $(seq 2 "$TICKS"); do
	"$SIM" --config "$T/sim.conf" --seed 7 --until "$k" 2>> "$T/sim.log" ||
		fail "beacon-sim --until $k"
	kill -USR1 "${pids[0]}" "${pids[1]}"
	bcn_wait_sample "$T/ostd.log" "$k" "${pids[0]}"
	bcn_wait_sample "$T/mdsd.log" "$k" "${pids[1]}"
done
wait "${pids[0]}" || fail "beacon-ostd exit status"
wait "${pids[1]}" || fail "beacon-mdsd exit status"
pids=()
"$BEACON" decode "$T/ost.bin" "$T/mds.bin" > "$T/records.jsonl" ||
	fail "decode"
/usr/bin/python3 - "$T/records.jsonl" "$T/truth.jsonl" "$T/sim/slurm/sacct.txt" \
	"$((TICKS - 1))" <<'PYEOF' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = [d for d in map(json.loads, open(sys.argv[2])) if d["kind"] != "job"]
sacct = open(sys.argv[3]).read().splitlines()
n = int(sys.argv[4])
bw = 100 << 20
slow = {t["target"]: t["factor"] for t in truth}
if not (slow == {"simfs-OST0001": 0.25}):
    raise SystemExit("check failed: %r" % ((slow),))
ost = [r for r in recs if r["type"] == "ost"]
for target, want in (("simfs-OST0000", bw), ("simfs-OST0001", int(bw * slow["simfs-OST0001"]))):
    whole = [r for r in ost if r["target"] == target and r["jobid"] == "" and r["client"] == ""]
    jobs = [r for r in ost if r["target"] == target and r["jobid"] != ""]
    if not (len(whole) == n):
        raise SystemExit("check failed: %r" % (((target, len(whole))),))
    if not (all(r["read_bytes"] == want for r in whole)):
        raise SystemExit("check failed: %r" % (((target, [r["read_bytes"] for r in whole])),))
    if not (all(r["ops"]["read"] == (want + (1 << 20) - 1) >> 20 for r in whole)):
        raise SystemExit("check failed: %r" % ((whole[0]["ops"]),))
    got = sum(r["read_bytes"] for r in jobs)
    if not (got == want * n):
        raise SystemExit("check failed: %r" % (((target, got, want * n)),))
    print(target, "read_bytes per interval", want, "ok")
# job ids: seed 7 numbers jobs from 8000, in submission order
mds = [r for r in recs if r["type"] == "mds" and r["jobid"] == "8001"]
per = 4 * 500
mix = {"open": 25, "close": 25, "getattr": 30, "mknod": 10, "unlink": 10}
if not (len(mds) == n):
    raise SystemExit("check failed: %r" % ((len(mds)),))
for r in mds:
    for op, pct in mix.items():
        if not (r["ops"].get(op, 0) == per * pct // 100):
            raise SystemExit("check failed: %r" % (((op, r["ops"])),))
print("mdt job ops per interval ok")
if not (sacct[0].startswith("JobID|JobName|User|")):
    raise SystemExit("check failed: %r" % ((sacct[0]),))
rows = [l.split("|") for l in sacct[1:]]
byname = {r[1]: r for r in rows}
if not (byname["ckpt"][6] == "cn[00001-00016]" and byname["ckpt"][11] == "RUNNING"):
    raise SystemExit("check failed: %r" % ((byname["ckpt"]),))
if not (byname["storm"][6] == "cn[00017-00020]"):
    raise SystemExit("check failed: %r" % ((byname["storm"]),))
print("sacct ok")
PYEOF
echo "sim_lustre: ok"
