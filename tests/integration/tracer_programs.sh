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
# Runs one program of part 2 and checks its exit status itself: programs()
# must not depend on set -e, which a caller's || or if would turn off.
run() { # what, wrapper, job, command...
	local what=$1 rc=0
	shift
	"$@" || rc=$?
	[ "$rc" -eq 0 ] || fail "$what: ${*:3} exited with status $rc"
}
programs() { # dir, wrapper...
	local d=$1 w=$2
	mkdir -p "$d/py" "$d/untar"
	run "$w cp" "$w" 202 cp -r "$DATA" "$d/cp"
	run "$w tar -c" "$w" 203 tar -C "$DATA" --mtime=@0 --owner=0 --group=0 \
		--sort=name -cf "$d/a.tar" .
	run "$w tar -x" "$w" 203 tar -C "$d/untar" -xf "$d/a.tar"
	run "$w sqlite3" "$w" 204 sqlite3 "$d/db" "create table t(a, b);" \
		"insert into t select value, printf('%08x', value * 2654435761 % 4294967296) from generate_series(1, 2000);" \
		"select count(*), sum(a) from t;" > "$d/sqlite.out"
	run "$w sqlite3 .dump" "$w" 204 sqlite3 "$d/db" .dump > "$d/dump.sql"
	run "$w python" "$w" 205 "$PY" "$T/script.py" "$d/py" > "$d/py.out"
}
plain() { shift; "$@"; }
programs "$T/plain" plain
programs "$T/traced" traced
bcn_clientd_stop
dbsize=$(stat -c %s "$T/traced/db")
rm "$T/traced/db" "$T/plain/db"   # sqlite keeps page-level detail: .dump compares
diff -r "$T/plain" "$T/traced" > "$T/diff" ||
	fail "traced programs changed their output: $(head -20 "$T/diff")"

"$BEACON" decode "$T/out.bin" > "$T/records.jsonl" || fail "beacon decode"
untraced=$(sed -n 's/.* \([0-9]*\) calls passed untraced.*/\1/p' "$T/log")
[ -n "$untraced" ] || fail "no untraced count in the log"
"$PY" - "$T/records.jsonl" "$T/tracee.json" "$T/tracee" "$untraced" <<'PYEOF' || fail "tracee's records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
loss = [r for r in recs if r["type"] == "trace_loss"]
recs = [r for r in recs if r["type"] == "io"]
want = [json.loads(l) for l in open(sys.argv[2])]
d, untraced = sys.argv[3], int(sys.argv[4])
# the calls passed untraced are accounted for in trace_loss records of
# job 201, and nothing else was lost
if not (sum(l["untraced"] for l in loss) == untraced and
        all(l["job"] == 201 and not (l["dropped_ops"] or l["lost_datagrams"] or l["cut"])
            for l in loss)):
    raise SystemExit("trace_loss records %r against %d untraced" % (loss, untraced))
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
    if "end" in w:
        end = max((r["offset"] + (r["count"] - 1) * r["stride"] + r["size"]
                   for r in got), default=0)
        ok = ok and end == w["end"]
    if w["file"].startswith("thread") and len(got) != 1:
        ok = False
    print(json.dumps({"file": w["file"], "op": w["op"], "want_ops": w["ops"],
                      "ops": ops, "want_bytes": w["bytes"], "bytes": nbytes,
                      "records": len(got), "ok": ok}))
    bad += not ok
# a device is not traced: no open (nor anything else) of /dev/null
if any(p == "/dev/null" for (j, _), p in paths.items() if j == 201):
    print("tracee: /dev/null was traced")
    bad += 1
pids = {r["pid"] for r in recs if r["job"] == 201}
if len(pids) < 3:
    print("tracee: records of %d processes, want 3 (parent, child, exec)" % len(pids))
    bad += 1
sys.exit(1 if bad else 0)
PYEOF

# (2) each job's records against what it did: every byte cp, tar and the
# script moved, file by file; sqlite3 wrote at least its database.
"$PY" - "$T/records.jsonl" "$DATA" "$T/traced" "$dbsize" <<'PYEOF' || fail "records of part 2"
import collections, json, os, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "io"]
data, d, dbsize = sys.argv[2], sys.argv[3], int(sys.argv[4])
paths, moved = {}, collections.Counter()
for r in recs:
    if r["op"] == "open" and r["path"]:
        paths[(r["pid"], r["file"])] = r["path"]
for r in recs:
    if r["op"] in ("read", "write") and r["job"] in (202, 203, 204, 205):
        p = paths.get((r["pid"], r["file"]), "?")
        moved[(r["job"], r["op"], p)] += r["count"] * r["size"]
def files(root):
    for dp, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dp, n)
            yield os.path.relpath(p, root), os.path.getsize(p)
want = collections.Counter()
for rel, size in files(data):
    want[(202, "read", os.path.join(data, rel))] += size
    want[(202, "write", os.path.join(d, "cp", rel))] += size
    want[(203, "read", os.path.join(data, rel))] += size
    want[(203, "write", os.path.join(d, "untar", rel))] += size
tar = os.path.getsize(os.path.join(d, "a.tar"))
want[(203, "write", os.path.join(d, "a.tar"))] = tar
want[(203, "read", os.path.join(d, "a.tar"))] = tar
for i in range(50):
    want[(205, "write", os.path.join(d, "py", "f%d" % i))] = 1000 * i + 1
    want[(205, "read", os.path.join(d, "py", "f%d.done" % i))] = 1000 * i + 1
want = +want
bad = 0
for k in sorted(set(want) | {k for k in moved if k[0] != 204}):
    if k[0] in (202, 203) or k[0] == 205 and k[2].startswith(os.path.join(d, "py")):
        if moved[k] != want[k]:
            print("job %d %s %s: %d bytes traced, want %d" % (k + (moved[k], want[k])))
            bad += 1
db = os.path.join(d, "db")
if moved[(204, "write", db)] < dbsize or moved[(204, "read", db)] == 0:
    print("job 204 (sqlite3): wrote %d bytes of a %d-byte database, read %d" %
          (moved[(204, "write", db)], dbsize, moved[(204, "read", db)]))
    bad += 1
print("part 2: %d byte counts compared, %d wrong" % (len(want), bad))
sys.exit(1 if bad else 0)
PYEOF
echo "tracer_programs: ok"
