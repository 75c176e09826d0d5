#!/usr/bin/env bash
# The tracer in real programs. (1) tests/tools/tracee does I/O from
# threads, a forked child that leaves with _exit, an exec'ed child, a
# signal handler interrupting writes, stdio, dup+lseek+read and strided
# pwrite: for every file and operation the records must account for
# exactly the operations and bytes it reports, the strided pwrites of a
# thread must fold into one record, and the handler's writes must be
# traced or counted as untraced. (2) cp, tar, sqlite3 and a Python script
# run traced and untraced: their outputs must be byte-identical, and the
# traced runs must have left records of their jobs.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
# shellcheck source=tests/lib/clientd.sh
source "$BCN_SRC/tests/lib/clientd.sh"
TRACEE=$BCN_BUILD/tests/tracee
PY=/usr/bin/python3

bcn_clientd_start --node cn0002
traced() { # job, command...
	local job=$1
	shift
	SLURM_JOB_ID=$job BEACON_TRACE_SOCKET=$SOCK LD_PRELOAD=$TRACE "$@"
}

# (1) tracee
mkdir "$T/tracee"
traced 201 "$TRACEE" "$T/tracee" > "$T/tracee.json" || fail "tracee"

# (2) ordinary programs, traced (job 202..205) and untraced
DATA=$BCN_SRC/common
cat > "$T/script.py" <<'PYEOF'
import hashlib, os, sys
d = sys.argv[1]
h = hashlib.sha256()
for i in range(50):
    p = os.path.join(d, "f%d" % i)
    with open(p, "wb") as f:
        f.write(bytes([i % 256]) * (1000 * i + 1))
    os.rename(p, p + ".done")
for name in sorted(os.listdir(d)):
    with open(os.path.join(d, name), "rb") as f:
        h.update(f.read())
os.mkdir(os.path.join(d, "sub"))
os.rmdir(os.path.join(d, "sub"))
print(h.hexdigest())
PYEOF
programs() { # dir, wrapper...
	local d=$1
	shift
	mkdir -p "$d/py"
	"$@" 202 cp -r "$DATA" "$d/cp"
	"$@" 203 tar -C "$DATA" --mtime=@0 --owner=0 --group=0 --sort=name \
		-cf "$d/a.tar" .
	mkdir "$d/untar"
	"$@" 203 tar -C "$d/untar" -xf "$d/a.tar"
	"$@" 204 sqlite3 "$d/db" "create table t(a, b);" \
		"insert into t select value, printf('%08x', value * 2654435761 % 4294967296) from generate_series(1, 2000);" \
		"select count(*), sum(a) from t;" > "$d/sqlite.out"
	"$@" 204 sqlite3 "$d/db" .dump > "$d/dump.sql"
	"$@" 205 "$PY" "$T/script.py" "$d/py" > "$d/py.out"
}
plain() { shift; "$@"; }
programs "$T/plain" plain || fail "untraced programs"
programs "$T/traced" traced || fail "traced programs"

bcn_clientd_stop
rm "$T/traced/db" "$T/plain/db"   # sqlite keeps page-level detail: .dump compares
diff -r "$T/plain" "$T/traced" > "$T/diff" ||
	fail "traced programs changed their output: $(head -20 "$T/diff")"

"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "beacon decode"
untraced=$(sed -n 's/.* \([0-9]*\) calls passed untraced.*/\1/p' "$T/log")
[ -n "$untraced" ] || fail "no untraced count in the log"
"$PY" - "$T/records.jsonl" "$T/tracee.json" "$T/tracee" "$untraced" <<'PYEOF' || fail "tracee's records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l) for l in open(sys.argv[2])]
d, untraced = sys.argv[3], int(sys.argv[4])
paths = {}
for r in recs:
    if r["op"] == "open" and r["path"]:
        paths[(r["job"], r["file"])] = r["path"]
def sel(job, path, op):
    return [r for r in recs if r["job"] == job and r["op"] == op and
            paths.get((job, r["file"])) == path]
bad = 0
for w in want:
    if "handler_writes" in w:
        got = sel(201, d + "/handler", "write")
        traced = sum(r["count"] for r in got)
        ok = traced <= w["handler_writes"] and \
            traced + untraced >= w["handler_writes"] and \
            sum(r["count"] * r["size"] for r in got) == traced * w["handler_size"]
        print(json.dumps({"handler_writes": w["handler_writes"],
                          "traced": traced, "untraced": untraced, "ok": ok}))
        bad += not ok
        continue
    got = sel(201, d + "/" + w["file"], w["op"])
    ops = sum(r["count"] for r in got)
    nbytes = sum(r["count"] * r["size"] for r in got)
    ok = ops == w["ops"] and nbytes == w["bytes"]
    if w["file"].startswith("thread") and len(got) != 1:
        ok = False
    print(json.dumps({"file": w["file"], "op": w["op"], "want_ops": w["ops"],
                      "ops": ops, "want_bytes": w["bytes"], "bytes": nbytes,
                      "records": len(got), "ok": ok}))
    bad += not ok
pids = {r["pid"] for r in recs if r["job"] == 201}
if len(pids) < 3:
    print("tracee: records of %d processes, want 3 (parent, child, exec)" % len(pids))
    bad += 1
for job in (202, 203, 204, 205):
    n = sum(r["count"] for r in recs if r["job"] == job and r["op"] in ("read", "write"))
    if n == 0:
        print("job %d: no read or write records" % job)
        bad += 1
sys.exit(1 if bad else 0)
PYEOF
echo "tracer_programs: ok"
