"""Checks of tests/integration/sim_scale.sh: what the scale-mode simulator
sent and the log servers stored, against the files of the same simulation
in file mode (see the shell script for the claims)."""
import collections
import glob
import json
import os
import re
import sys

T, TICKS = sys.argv[1], int(sys.argv[2])
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)


def lines(path):
    with open(path) as f:
        return [json.loads(x) for x in f if x.strip()]


# 1. the simulators' own accounts
total = 0
for part in (0, 1):
    rows = lines(f"{T}/part{part}.jsonl")
    conn = [r for r in rows if r["sim"] == "connected"][0]
    done = [r for r in rows if r["sim"] == "done"][-1]
    total += done["collectors"]
    check(conn["up"] == conn["collectors"],
          f"part {part}: {conn['up']} of {conn['collectors']} connected")
    check(done["ticks"] == TICKS, f"part {part}: {done['ticks']} ticks")
    check(done["submitted_frames"] > 0, f"part {part}: nothing sent")
    check(done["acked_frames"] == done["submitted_frames"],
          f"part {part}: {done['acked_frames']} of "
          f"{done['submitted_frames']} frames acknowledged")
    check(done["dropped_frames"] == 0 and done["build_errors"] == 0,
          f"part {part}: dropped {done['dropped_frames']}, "
          f"build errors {done['build_errors']}")
    check(done["acked_records"] == done["submitted_records"],
          f"part {part}: records {done['acked_records']} of "
          f"{done['submitted_records']}")
    if part == 1:
        check(done["disconnects"] + done["connect_failures"] > 0,
              "part 1 never saw log server B go away")
check(total == 32 + 2 + 2 + 1 + 4, f"{total} collectors")

# 2. the stores, by shard
recs = collections.defaultdict(list)
for s in "AB":
    for layer in ("client", "forward", "ost", "mds", "switch", "collector"):
        for r in lines(f"{T}/{s}.{layer}.jsonl"):
            m = re.fullmatch(r"cn(\d+)", r["node"])
            home = "A" if m and int(m.group(1)) <= 16 else "B"
            check(home == s, f"{r['node']} stored by log server {s}")
            recs[layer].append(r)
stored = sum(len(v) for v in recs.values())
sent = sum(lines(f"{T}/part{p}.jsonl")[-1]["acked_records"] for p in (0, 1))
check(stored == sent, f"{stored} records stored, {sent} acknowledged")
# one health record per collector (health_every 60 s, 10 ticks), its own
health = collections.Counter(r["node"] for r in recs["collector"])
check(len(health) == total and set(health.values()) == {1},
      f"health records: {sorted(health.items())}")


def stat_sum(text, name):
    """The sum column of a Lustre stats line (name count samples [unit]
    min max sum [sumsq]), or its samples."""
    for ln in text.splitlines():
        f = ln.split()
        if f and f[0] == name:
            return int(f[6]) if "[bytes]" in ln else int(f[1])
    return 0


# 3. OSTs: target totals against the stats files
ost = collections.Counter()
for r in recs["ost"]:
    if r["jobid"] == "":
        ost[(r["target"], "r")] += r["read_bytes"]
        ost[(r["target"], "w")] += r["write_bytes"]
nost = 0
for path in glob.glob(f"{T}/files/oss*/proc/fs/lustre/obdfilter/*/stats"):
    tgt = path.split("/")[-2]
    text = open(path).read()
    nost += 1
    for k, name in (("r", "read_bytes"), ("w", "write_bytes")):
        check(ost[(tgt, k)] == stat_sum(text, name),
              f"{tgt} {name}: sent {ost[(tgt, k)]}, file {stat_sum(text, name)}")
check(nost == 4 and sum(ost.values()) > 0, f"{nost} OSTs, bytes {sum(ost.values())}")

# 3b. OSTs: the whole-target records' brw_stats histograms, summed over
# the run, against the file's rows (label 2^i in record bucket i)
def brw_rows(text):
    """{(section title, column): {bucket: count}} of a brw_stats file."""
    out, title = collections.defaultdict(collections.Counter), None
    for ln in text.splitlines():
        m = re.match(r"(\d+)([KM]?):\s+(\d+)\s+\d+\s+\d+\s+\|\s+(\d+)", ln)
        if m and title:
            v = int(m.group(1)) << {"": 0, "K": 10, "M": 20}[m.group(2)]
            b = v.bit_length() - 1 if v else 0
            out[(title, 0)][b] += int(m.group(3))
            out[(title, 1)][b] += int(m.group(4))
        elif "% cum %" in ln:
            title = ln.split("  ")[0].strip()
    return out


hist = collections.defaultdict(collections.Counter)
for r in recs["ost"]:
    if r["jobid"] == "" and r["client"] == "":
        for f in ("pages_read", "pages_write", "iotime_read", "iotime_write"):
            for b, n in enumerate(r.get(f, [])):
                hist[(r["target"], f)][b] += n
nbrw = 0
for path in glob.glob(f"{T}/files/oss*/sys/kernel/debug/lustre/"
                      "osd-ldiskfs/*/brw_stats"):
    tgt = path.split("/")[-2]
    rows = brw_rows(open(path).read())
    nbrw += 1
    for f, sec, col in (("pages_read", "pages per bulk r/w", 0),
                        ("pages_write", "pages per bulk r/w", 1),
                        ("iotime_read", "I/O time (1/1000s)", 0),
                        ("iotime_write", "I/O time (1/1000s)", 1)):
        want = +rows[(sec, col)]
        got = +hist[(tgt, f)]
        check(got == want, f"{tgt} {f}: sent {dict(got)}, file {dict(want)}")
        check(sec != "I/O time (1/1000s)" or
              sum(got.values()) == sum(rows[("pages per bulk r/w", col)].values()),
              f"{tgt} {f}: {sum(got.values())} I/Os timed of "
              f"{sum(rows[('pages per bulk r/w', col)].values())}")
check(nbrw == 4 and sum(sum(h.values()) for (t, f), h in hist.items()
                        if f.startswith("iotime")) > 0,
      f"{nbrw} brw_stats files, histograms {dict(hist)}")

# 4. MDT operations by type against md_stats
md = collections.Counter()
for r in recs["mds"]:
    if r["jobid"] == "":
        for op, n in r["ops"].items():
            md[op] += n
text = open(glob.glob(f"{T}/files/mds01/proc/fs/lustre/mdt/*/md_stats")[0]).read()
for op in ("open", "close", "getattr", "mkdir", "unlink"):
    check(md[op] == stat_sum(text, op), f"mdt {op}: sent {md[op]}, "
          f"file {stat_sum(text, op)}")
check(sum(md.values()) > 0, "no metadata operations sent")

# 5. switch ports against counters_ext (data in 4-byte units)
port = collections.Counter()
for r in recs["switch"]:
    if r["type"] != "port":
        continue                # the fabric's topology records
    for k in ("xmit_bytes", "rcv_bytes", "xmit_pkts", "rcv_pkts"):
        port[(r["switch"], r["port"], k)] += r[k]
nports = 0
for d in glob.glob(f"{T}/files/sw*/sys/class/infiniband/*/ports/*"):
    sw, p = d.split("/")[-3], int(d.split("/")[-1])
    ext = {n: int(open(f"{d}/counters_ext/{n}").read())
           for n in os.listdir(f"{d}/counters_ext")}
    nports += 1
    want = {"xmit_bytes": ext["port_xmit_data_64"] * 4,
            "rcv_bytes": ext["port_rcv_data_64"] * 4,
            "xmit_pkts": ext["port_xmit_packets_64"],
            "rcv_pkts": ext["port_rcv_packets_64"]}
    for k, v in want.items():
        check(port[(sw, p, k)] == v, f"{sw}/{p} {k}: sent {port[(sw, p, k)]}, file {v}")
check(nports == 4 * 9, f"{nports} switch ports")

# 6. compute nodes: bytes read and written against their LWFS logs
cn = collections.Counter()
for r in recs["client"]:
    if r["op"] in ("read", "write"):
        cn[(r["node"], r["op"])] += r["size"] * r["count"]
# every operation is on the file its handle was opened with, also in
# ticks after the one of the OPEN
opened = {}
for r in sorted(recs["client"], key=lambda r: r["t"]):
    key = (r["node"], r["fd"])
    if r["op"] == "open":
        check(r["path"] != "", f"{r['node']}: open without its path")
        opened[key] = r["file"]
    elif key in opened:
        check(r["file"] == opened[key],
              f"{r['node']} {r['op']} fd {r['fd']}: file {r['file']}, "
              f"opened as {opened[key]}")
check(len(opened) >= 28, f"only {len(opened)} files opened")
busy = 0
for node in range(1, 33):
    name = f"cn{node:05d}"
    want = collections.Counter()
    path = f"{T}/files/{name}/lwfs.log"
    if os.path.exists(path):
        for ln in open(path):
            m = re.search(r"\] \d+ (READ|WRITE)\(0x[0-9a-f]+, size=(\d+)", ln)
            if m:
                want[m.group(1).lower()] += int(m.group(2))
    busy += sum(want.values()) > 0
    for op in ("read", "write"):
        check(cn[(name, op)] == want[op],
              f"{name} {op}: sent {cn[(name, op)]}, log {want[op]}")
# 16 (n-n) + 8 (n-1) + 1 (the 1-1 job's one writer of 4 nodes); md does none
check(busy == 25, f"{busy} compute nodes did I/O, not 25")

# 7. forwarding nodes: bytes against their request logs
fw = collections.Counter()
for r in recs["forward"]:
    if r["type"] == "fwd_req" and r["class"] == "all":
        fw[r["node"]] += r["bytes"]
for f in ("fwd001", "fwd002"):
    want = 0
    for ln in open(f"{T}/files/{f}/requests.log"):
        x = ln.split()
        if len(x) >= 3 and x[1] in ("read", "write"):
            want += int(x[2])
    check(fw[f] == want and want > 0, f"{f}: sent {fw[f]} bytes, log {want}")

# 8. forwarding nodes' osc devices: bytes per OST against their stats
osc = collections.Counter()
for r in recs["forward"]:
    if r["type"] == "fwd_rpc":
        osc[(r["node"], r["target"], "r")] += r["read_bytes"]
        osc[(r["node"], r["target"], "w")] += r["write_bytes"]
ndev = 0
for path in glob.glob(f"{T}/files/fwd*/sys/kernel/debug/lustre/osc/*/stats"):
    node, dev = path.split("/")[-8], path.split("/")[-2]
    tgt = dev.split("-osc-")[0]
    text = open(path).read()
    ndev += 1
    for k, name in (("r", "read_bytes"), ("w", "write_bytes")):
        check(osc[(node, tgt, k)] == stat_sum(text, name),
              f"{node} {tgt} {name}: sent {osc[(node, tgt, k)]}, "
              f"file {stat_sum(text, name)}")
check(ndev == 2 * 4 and sum(osc.values()) > 0,
      f"{ndev} osc devices, bytes {sum(osc.values())}")

for e in errors[:40]:
    print("FAIL:", e, file=sys.stderr)
if errors:
    sys.exit(1)
print(f"sim_scale: {stored} records from {total} collectors, all checks ok")
