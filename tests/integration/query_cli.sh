#!/usr/bin/env bash
# `beacon query` over an embedded store filled by tests/tools/storefill:
# records of each layer, entity/job/time filters (ISO 8601 with offsets,
# fractional epoch seconds, dates), --limit, --sum buckets (also across
# midnight) against sums computed in Python from what was stored, target
# totals against their job and export parts (--part), and the
# configuration rules (a whole daemon file is accepted, store_* typos are
# errors). Set BCN_QUERY_CONFIG_EXTRA to add lines to the configuration
# (e.g. to point at an OpenSearch store).
set -euo pipefail
: "${BCN_BUILD:?}"
BEACON=$BCN_BUILD/cli/beacon
FILL=$BCN_BUILD/tests/storefill
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# a log server's file: the query must skip the keys that are not its own
cat > "$T/logsrv.conf" <<EOF
# beacon-logsrv
listen = 0.0.0.0:7070
redis_host = 127.0.0.1
redis_port = 6379
flusher = yes
log_level = info
store_backend = sqlite
store_dir = "$T/store"        # day databases
store_retention = 30d
${BCN_QUERY_CONFIG_EXTRA:-}
EOF

"$FILL" "$T/logsrv.conf" "$T/expected" 3000 1704844800
[ -f "$T/store/beacon-20240110.db" ] || fail "no day database for 2024-01-10"
[ -f "$T/store/beacon-20240109.db" ] || fail "no day database for 2024-01-09"

q() { "$BEACON" query --config "$T/logsrv.conf" "$@"; }

q --layer ost > "$T/ost"
q --layer ost --entity lustre-OST0002 --job 101 > "$T/ost_e_j"
q --layer ost --from 2024-01-10T09:30:00+08:00 --to 1704931200.5 > "$T/ost_range"
q --layer ost --from 2024-01-10 --to 2024-01-11 > "$T/ost_day"
q --layer client --limit 7 > "$T/client_limit"
q --layer io > "$T/io"
q --layer client > "$T/client"
q --layer forward --entity lustre-OST0001 > "$T/fwd_e"
q --layer switch --entity 0x7cfe3c0300a6b4e0/3 > "$T/port3"
q --layer mds > "$T/mds"
q --layer job > "$T/job"
q --layer ost --sum 1h > "$T/sum_1h"
q --layer ost --sum 7h > "$T/sum_7h"
q --layer client --sum 1d --job 102 > "$T/sum_1d"
q --layer ost --sum 90m --entity lustre-OST0000 --from 1704870000 > "$T/sum_90m"
for p in total job client any; do
	q --layer ost --part $p > "$T/ost_$p"
	q --layer mds --part $p --limit 50 > "$T/mds_$p"
	q --layer ost --entity lustre-OST0001 --part $p --sum 1d > "$T/sum_ost1_$p"
	q --layer mds --part $p --sum 6h > "$T/sum_mds_$p"
	q --layer ost --job 102 --part $p > "$T/ost_102_$p"
done
q --layer ost --entity lustre-OST0001 --sum 1d > "$T/sum_ost1_default"
q --layer mds --job 101 --sum 1d > "$T/sum_mds_101"
q --layer forward --part job > "$T/fwd_job"

python3 - "$T" <<'PY'
import datetime, json, os, sys
T = sys.argv[1]
exp = [json.loads(l) for l in open(os.path.join(T, "expected"))]
LAYER = {"ost": "ost", "io": "client", "mds": "mds", "port": "switch",
         "fwd_rpc": "forward", "fwd_req": "forward", "job": "job"}

def entity(r):
    if r["type"] in ("ost", "mds", "fwd_rpc"):
        return r["target"]
    if r["type"] == "port":
        return "%s/%d" % (r["switch"], r["port"])
    if r["type"] == "job":
        return str(r["job"])
    return r["node"]

# the part of a record and the part a query selects (docs/store.md)
def part(r):
    if r["type"] not in ("ost", "mds"):
        return "total"
    return "job" if r["jobid"] else "client" if r["client"] else "total"

def select(layer, ent=None, job=0, lo=-2**63, hi=2**63 - 1, part_q="total"):
    if part_q == "total" and job and layer in ("ost", "mds"):
        part_q = "job"
    v = [e for e in exp if LAYER[e["rec"]["type"]] == layer
         and (ent is None or entity(e["rec"]) == ent)
         and (not job or e["rec"]["job"] == job)
         and (part_q == "any" or part(e["rec"]) == part_q)
         and lo <= e["rec"]["t"] < hi]
    v.sort(key=lambda e: (e["rec"]["t"], e["rec"]["node"].encode(),
                          e["seq"], e["idx"]))
    return v

def lines(name):
    return [json.loads(l) for l in open(os.path.join(T, name))]

def check(name, want):
    got = lines(name)
    if not (got == [e["rec"] for e in want]):
        raise SystemExit("check failed: %r" % (("%s: %d records, expected %d" % (name, len(got), len(want))),))
    return len(got)

S = 10**9
D = 1704844800 * S
if not (len({(e["rec"]["node"], e["seq"], e["idx"]) for e in exp}) == 3000):
    raise SystemExit('check failed: len({(e["rec"]["node"], e["seq"], e["idx"]) for e in exp}) == 3000')
if not (check("ost", select("ost")) > 100):
    raise SystemExit('check failed: check("ost", select("ost")) > 100')
if not (check("ost_e_j", select("ost", "lustre-OST0002", 101)) > 10):
    raise SystemExit('check failed: check("ost_e_j", select("ost", "lustre-OST0002", 101)) > 10')
if not (check("ost_range", select("ost", lo=D + 90 * 60 * S,
                                 hi=1704931200 * S + S // 2)) > 30):
    raise SystemExit('check failed: check("ost_range", select("ost", lo=D + 90 * 60 * S, hi=1704931200 * S + S // 2)) > 30')
if not (check("ost_day", select("ost", lo=D, hi=D + 86400 * S)) > 30):
    raise SystemExit('check failed: check("ost_day", select("ost", lo=D, hi=D + 86400 * S)) > 30')
if not (check("client_limit", select("client")[:7]) == 7):
    raise SystemExit('check failed: check("client_limit", select("client")[:7]) == 7')
if not (check("io", select("client")) > 300):
    raise SystemExit('check failed: check("io", select("client")) > 300')
if not (check("client", select("client")) > 300):
    raise SystemExit('check failed: check("client", select("client")) > 300')
if not (check("fwd_e", select("forward", "lustre-OST0001")) > 50):
    raise SystemExit('check failed: check("fwd_e", select("forward", "lustre-OST0001")) > 50')
if not (check("port3", select("switch", "0x7cfe3c0300a6b4e0/3")) > 50):
    raise SystemExit('check failed: check("port3", select("switch", "0x7cfe3c0300a6b4e0/3")) > 50')
if not (check("mds", select("mds")) > 50):
    raise SystemExit('check failed: check("mds", select("mds")) > 50')
if not (check("job", []) == 0):
    raise SystemExit('check failed: check("job", []) == 0')

KEYS = ("read_bytes", "write_bytes", "read_ops", "write_ops", "meta_ops",
        "other_ops")

# Where each operation counts (r read, w write, m metadata, o other),
# written by hand from docs/records.md and independent of
# bcn_record_totals(), the function the stores and storefill use: a
# classification swapped in proto/record.c fails here.
IO_CLASS = {"open": "m", "close": "m", "read": "r", "write": "w", "seek": "o",
            "sync": "o", "truncate": "o", "stat": "m", "unlink": "m",
            "rename": "m", "mkdir": "m", "rmdir": "m", "other": "o"}
OST_CLASS = {"read": "r", "write": "w", "getattr": "m", "setattr": "m",
             "punch": "o", "sync": "o", "destroy": "m", "create": "m",
             "statfs": "m", "get_info": "o", "set_info": "o", "quotactl": "o"}
MDS_CLASS = dict({op: "m" for op in (
    "open", "close", "mknod", "link", "unlink", "mkdir", "rmdir", "rename",
    "getattr", "setattr", "getxattr", "setxattr", "statfs", "sync",
    "samedir_rename", "crossdir_rename", "parallel_rename_file",
    "parallel_rename_dir", "migrate", "create")},
    read="r", write="w", punch="o")
OPS_KEY = {"r": "read_ops", "w": "write_ops", "m": "meta_ops", "o": "other_ops"}

def totals(r):
    t = {x: 0 for x in KEYS}
    ty = r["type"]
    if ty == "io":
        c = IO_CLASS[r["op"]]
        t[OPS_KEY[c]] = r["count"]
        if c in "rw":
            t["read_bytes" if c == "r" else "write_bytes"] = r["count"] * r["size"]
    elif ty in ("ost", "mds"):
        table = OST_CLASS if ty == "ost" else MDS_CLASS
        for op, n in r["ops"].items():
            t[OPS_KEY[table[op]]] += n
        if ty == "ost":
            t["read_bytes"], t["write_bytes"] = r["read_bytes"], r["write_bytes"]
    elif ty == "fwd_rpc":
        t.update(read_ops=r["read_rpcs"], write_ops=r["write_rpcs"],
                 read_bytes=r["read_bytes"], write_bytes=r["write_bytes"])
    elif ty == "fwd_req":
        if r["class"] != "all":           # the sum of the others
            t[OPS_KEY[r["class"][0]]] = r["count"]
            if r["class"] in ("read", "write"):
                t[r["class"] + "_bytes"] = r["bytes"]
    elif ty == "port":
        t.update(read_ops=r["rcv_pkts"], read_bytes=r["rcv_bytes"],
                 write_ops=r["xmit_pkts"], write_bytes=r["xmit_bytes"])
    elif ty != "job":
        raise SystemExit("check failed: no totals table for %r" % ty)
    return t

# what storefill stored must be classified as the table says
for e in exp:
    if totals(e["rec"]) != e["totals"]:
        raise SystemExit("check failed: totals of %r: %r, the table says %r"
                         % (e["rec"], e["totals"], totals(e["rec"])))
seen = {e["rec"]["type"] for e in exp}
if not ({"io", "ost"} <= seen):
    raise SystemExit("check failed: no io or ost records to sum: %r" % seen)

def sums(layer, width, **kw):
    b = {}
    for e in select(layer, **kw):
        k = e["rec"]["t"] // width * width
        s = b.setdefault(k, dict(records=0, **{x: 0 for x in KEYS}))
        s["records"] += 1
        for x in KEYS:
            s[x] += totals(e["rec"])[x]
    out = []
    for k in sorted(b):
        when = datetime.datetime.fromtimestamp(k // S, datetime.timezone.utc)
        frac = k % S
        iso = when.strftime("%Y-%m-%dT%H:%M:%S")
        if frac:
            iso += ("." + "%09d" % frac).rstrip("0")
        out.append(dict(layer=layer, t=k, time=iso + "Z", **b[k]))
    return out

def check_sum(name, want):
    got = lines(name)
    if not (got == want):
        raise SystemExit("check failed: %r" % (("%s:\n%s\nexpected\n%s" % (name, got[:3], want[:3])),))
    return len(got)

H = 3600 * S
# every part, alone and together; a job's records are its job parts
n = {}
for p in ("total", "job", "client", "any"):
    n[p] = check("ost_" + p, select("ost", part_q=p))
    check("mds_" + p, select("mds", part_q=p)[:50])
    check("ost_102_" + p, select("ost", job=102, part_q=p))
    check_sum("sum_ost1_" + p, sums("ost", 86400 * S, ent="lustre-OST0001",
                                    part_q=p))
    check_sum("sum_mds_" + p, sums("mds", 6 * H, part_q=p))
if not (min(n.values()) > 50 and n["any"] == n["total"] + n["job"] + n["client"]):
    raise SystemExit("check failed: parts %r" % n)
if not (lines("ost") == lines("ost_total") and
        lines("sum_ost1_default") == lines("sum_ost1_total")):
    raise SystemExit("check failed: the default is not the totals")
if not (lines("ost_102_total") == lines("ost_102_job") ==
        lines("ost_102_any") and lines("ost_102_job")):
    raise SystemExit("check failed: --job 102 is not its job parts")
if not (sum(b["read_bytes"] for b in lines("sum_ost1_any")) >
        sum(b["read_bytes"] for b in lines("sum_ost1_total"))):
    raise SystemExit("check failed: any does not add the parts")
check_sum("sum_mds_101", sums("mds", 86400 * S, job=101))
if lines("fwd_job"):
    raise SystemExit("check failed: forward records as job parts")

if not (check_sum("sum_1h", sums("ost", H)) > 20):
    raise SystemExit('check failed: check_sum("sum_1h", sums("ost", H)) > 20')
n = check_sum("sum_7h", sums("ost", 7 * H))
# 2024-01-11 21:00 to 2024-01-12 04:00 is one 7 h bucket over midnight
mid = [b for b in lines("sum_7h") if b["time"] == "2024-01-11T21:00:00Z"]
if not (mid and mid[0]["records"] > 0):
    raise SystemExit("check failed: %r" % ((mid),))
if not (check_sum("sum_1d", sums("client", 24 * H, job=102)) == 3):
    raise SystemExit('check failed: check_sum("sum_1d", sums("client", 24 * H, job=102)) == 3')
if not (check_sum("sum_90m", sums("ost", 90 * 60 * S, ent="lustre-OST0000",
                                 lo=1704870000 * S)) > 5):
    raise SystemExit('check failed: check_sum("sum_90m", sums("ost", 90 * 60 * S, ent="lustre-OST0000", lo=1704870000 * S)) > 5')
PY

# the store is found through the override too, and an empty one is empty
"$BEACON" query --store-dir "$T/store" --layer ost --limit 3 | wc -l | grep -x 3 > /dev/null ||
	fail "--store-dir override"
mkdir "$T/empty"        # an existing, empty directory (a missing one: below)
out=$("$BEACON" query --store-dir "$T/empty" --layer ost)
[ -z "$out" ] || fail "empty store printed something"

# usage errors exit 2 with a message
expect_usage() { # pattern, args...
	local pat=$1 rc=0
	shift
	"$BEACON" query "$@" > /dev/null 2> "$T/err" || rc=$?
	[ $rc -eq 2 ] || fail "'$*' exited $rc, expected 2"
	grep -q -- "$pat" "$T/err" || fail "'$*': no '$pat' in: $(cat "$T/err")"
}
expect_usage "layer is required" --config "$T/logsrv.conf"
expect_usage "unknown layer 'osts'" --config "$T/logsrv.conf" --layer osts
expect_usage "2024-13-01" --config "$T/logsrv.conf" --layer ost --from 2024-13-01
expect_usage "expected epoch" --config "$T/logsrv.conf" --layer ost --to 2024-01-10T10:00:00
expect_usage "not a bucket width" --config "$T/logsrv.conf" --layer ost --sum 1x
expect_usage "not a number" --config "$T/logsrv.conf" --layer ost --job -1
expect_usage "one of total, job, client, any" --config "$T/logsrv.conf" --layer ost --part jobs
expect_usage "after --to" --config "$T/logsrv.conf" --layer ost --from 2024-01-11 --to 2024-01-10
expect_usage "unexpected argument" --config "$T/logsrv.conf" --layer ost extra
expect_usage "given twice" --store-dir a --store-dir b --layer ost
expect_usage "unknown option" --config "$T/logsrv.conf" --layer ost --frm 1
printf 'listen = x\nstore_dri = /tmp\n' > "$T/typo.conf"
expect_usage "typo.conf:2: unknown key 'store_dri' (did you mean 'store_dir'?)" \
	--config "$T/typo.conf" --layer ost
printf 'store_retention = 36h\n' > "$T/ret.conf"
expect_usage "whole number of days" --config "$T/ret.conf" --layer ost
printf 'store_backend = opensearch\n' > "$T/os.conf"
expect_usage "needs store_url" --config "$T/os.conf" --layer ost
expect_usage "No such file" --config "$T/missing.conf" --layer ost

# --dump-config shows the store section of the file
"$BEACON" query --config "$T/logsrv.conf" --dump-config > "$T/dump"
grep -qx 'store_retention = 30d' "$T/dump" || fail "dump: $(cat "$T/dump")"
grep -q '^listen' "$T/dump" && fail "dump holds a foreign key"

# a store directory that does not exist is an error, and is not created
rc=0
"$BEACON" query --store-dir "$T/nostore/sub" --layer ost > "$T/out" 2> "$T/err" || rc=$?
[ "$rc" = 1 ] || fail "query of a missing store exited $rc"
grep -q "No such file" "$T/err" || fail "missing store: $(cat "$T/err")"
[ -e "$T/nostore" ] && fail "query created the store directory"

echo "query_cli: ok"
