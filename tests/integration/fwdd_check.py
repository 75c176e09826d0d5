#!/usr/bin/env python3
"""Helper of the beacon-fwdd integration tests (fwdd.sh,
fwdd_percentiles.sh): writes request-log lines (docs/fwdlog.md), edits
osc statistics files, and checks `beacon decode` output against Python's
own computation (numpy's inverted_cdf percentile, the nearest rank, and
an exact integer rank as a second opinion).

  append LOG TRUTH SEED N [--malformed K] [--partial] [--shape S]
      append N request lines (a queue sample every 100 requests, K
      malformed lines among them) to LOG in one write; --partial leaves
      one more line without its end (finished by the next append). Every
      line is also appended, complete, to TRUTH in the order the daemon
      will read it.
  header LOG                 write a version-1 header (new file)
  mark TRUTH                 a sample boundary in TRUTH
  stream LOG TRUTH SEED BATCHES N ROTATE_AT
      append BATCHES batches of N lines, pausing 10 ms between them, and
      rotate LOG by rename before batch ROTATE_AT (a writer for a timed run)
  osc STATSDIR RPCDIR KIND N LABEL FLIGHT BYTES
      raise the osc stats (in STATSDIR) and rpc_stats (in RPCDIR) of a
      device as N more KIND (read|write) RPCs of BYTES bytes each, of LABEL
      pages, sent with FLIGHT RPCs in flight
  stats DIR NAME N SUM       add N samples and SUM to counter NAME of DIR/stats
  gauge DIR WRITE_IN_FLIGHT PENDING_WRITE_PAGES
  check DECODED TRUTH RPC_EXPECT [--approx MAX_SAMPLES]
      windows are cut at the marks: each sample's fwd_req records must be
      exactly what its lines give; RPC_EXPECT (JSON: per sample, target ->
      fields) the fwd_rpc records. With --approx, in windows of more than
      MAX_SAMPLES requests the latency and processing-time percentiles may
      be up to 1/128 below the exact ones (never above), as documented
  partition DECODED TRUTH [--all]
      no marks: the daemon read the lines in order, so each sample's
      records cover the next `count` requests; checks them the same way.
      With --all every line of TRUTH must have been read; in any case at
      least one line must have been.
"""
import json
import random
import re
import sys

import numpy as np

CLASSES = ["read", "write", "meta", "other"]
META = {"open", "close", "create", "lookup", "stat", "getattr", "setattr",
        "mkdir", "rmdir", "unlink", "rename", "link", "symlink", "readlink",
        "readdir", "mknod", "statfs", "truncate", "getxattr", "setxattr",
        "listxattr", "removexattr", "access"}
OPS = ["read"] * 5 + ["write"] * 4 + ["open", "getattr", "stat", "close"] + \
      ["fsync", "flush"]
MALFORMED = ["garbage", "1700000000.5 read 1 1 1",
             "1700000000.000000001 read 01 1 1",
             "1700000000.000000001 read 1 2 3",
             "1700000000.000000001 read 1 1 1 ",
             "1700000000.000000001 READ 1 1 1", ""]


def op_class(op):
    if op in ("read", "write"):
        return op
    return "meta" if op in META else "other"


def value(rng, shape):
    if shape == "lognormal":
        return int(rng.lognormvariate(6, 1.5))
    if shape == "dups":
        return rng.choice([10, 10, 10, 20, 20, 500, 7000])
    if shape == "uniform":
        return rng.randrange(0, 10**9)
    if shape == "bimodal":
        return rng.choice([rng.randrange(90, 110), rng.randrange(50000, 51000)])
    if shape == "const":
        return 77
    if shape == "tiny":
        return rng.randrange(0, 3)
    return int(rng.expovariate(1 / 800.0))


def request(rng, t, shape):
    op = rng.choice(OPS)
    lat = value(rng, shape)
    proc = rng.randint(0, lat)
    if op in ("read", "write"):
        nbytes = rng.choice([4096, 65536, 1 << 20, 4 << 20]) * rng.randint(1, 3)
    elif op_class(op) == "meta":
        nbytes = 0
    else:
        nbytes = rng.randrange(0, 100)
    line = "%d.%09d %s %d %d %d" % (t // 10**9, t % 10**9, op, nbytes, lat, proc)
    if rng.random() < 0.3:
        line += " cn%04d" % rng.randrange(10000)
        if rng.random() < 0.5:
            line += " 0x%x" % rng.getrandbits(32)
    return line


def cmd_append(args):
    log, truth, seed, n = args[0], args[1], int(args[2]), int(args[3])
    malformed = 0
    partial = False
    shape = "expo"
    i = 4
    while i < len(args):
        if args[i] == "--malformed":
            malformed = int(args[i + 1]); i += 2
        elif args[i] == "--partial":
            partial = True; i += 1
        elif args[i] == "--shape":
            shape = args[i + 1]; i += 2
        else:
            raise SystemExit("bad argument " + args[i])
    rng = random.Random(seed)
    t = 1700000000 * 10**9 + seed * 10**6
    lines = [request(rng, t + k, shape) for k in range(n)]
    out = []
    for k, line in enumerate(lines):
        out.append(line)
        if k % 100 == 99:
            out.append("%d.%09d Q %d" % (t // 10**9, k, rng.randrange(0, 300)))
    for k in range(malformed):
        out.insert(rng.randrange(len(out) + 1), MALFORMED[k % len(MALFORMED)])
    pend_path = truth + ".pending"
    text = ""
    try:
        pending = open(pend_path).read()
        line, cut = pending.rsplit("\t", 1)
        text += line[int(cut):] + "\n"
        done = [line]
        open(pend_path, "w").close()
    except (FileNotFoundError, ValueError):
        done = []
    text += "".join(l + "\n" for l in out)
    done += out
    if partial:
        line = request(rng, t + n, shape)
        cut = len(line) // 2
        text += line[:cut]
        open(pend_path, "w").write("%s\t%d" % (line, cut))
    with open(log, "a") as f:
        f.write(text)
    with open(truth, "a") as f:
        f.write("".join(l + "\n" for l in done))


def cmd_header(args):
    with open(args[0], "a") as f:
        f.write("#beacon-fwdlog 1 writer=fwdd_check.py\n")


def cmd_mark(args):
    with open(args[0], "a") as f:
        f.write("@\n")


def parse_stats(lines):
    return {l.split()[0]: i for i, l in enumerate(lines) if l.split()}


def bump_stats(path, name, n, dsum):
    lines = open(path).read().split("\n")
    idx = parse_stats(lines)
    if name not in idx:
        unit = "[bytes]" if name.endswith("_bytes") else "[usec]"
        lines.insert(len(lines) - 1, "%-25s 0 samples %s 0 0 0 0" % (name, unit))
        idx = parse_stats(lines)
    f = lines[idx[name]].split()
    f[1] = str(int(f[1]) + n)
    if len(f) >= 7:
        f[6] = str(int(f[6]) + dsum)
    lines[idx[name]] = "%-25s %s" % (f[0], " ".join(f[1:]))
    open(path, "w").write("\n".join(lines))


ROW = re.compile(r"^(\d+):\s+(\d+)\s+\d+\s+\d+\s+\|\s+(\d+)\s+\d+\s+\d+\s*$")


def bump_row(path, section, label, col, n):
    lines = open(path).read().split("\n")
    sec = None
    for i, l in enumerate(lines):
        if l.startswith(section):
            sec = section
            continue
        if l and not l[0].isdigit() and "|" in l:
            sec = None
        m = ROW.match(l)
        if sec and m and int(m.group(1)) == label:
            r, w = int(m.group(2)), int(m.group(3))
            if col == "read":
                r += n
            else:
                w += n
            lines[i] = "%d:\t\t%10d %3d %3d   | %10d %3d %3d" % (label, r, 0, 0, w, 0, 0)
            open(path, "w").write("\n".join(lines))
            return
    raise SystemExit("no row %s %d in %s" % (section, label, path))


def cmd_osc(args):
    sd, rd, kind, n, label, flight, nbytes = args[0], args[1], args[2], \
        int(args[3]), int(args[4]), int(args[5]), int(args[6])
    bump_stats(sd + "/stats", "ost_" + kind, n, 0)
    bump_stats(sd + "/stats", kind + "_bytes", n, n * nbytes)
    bump_row(rd + "/rpc_stats", "pages per rpc", label, kind, n)
    bump_row(rd + "/rpc_stats", "rpcs in flight", flight, kind, n)


def cmd_stats(args):
    bump_stats(args[0] + "/stats", args[1], int(args[2]), int(args[3]))


def cmd_stream(args):
    log, truth, seed, batches, n, rotate_at = args[0], args[1], int(args[2]), \
        int(args[3]), args[4], int(args[5])
    import os
    import time
    for b in range(batches):
        if b == rotate_at:
            os.rename(log, log + ".1")
            cmd_header([log])
        cmd_append([log, truth, str(seed + b), n])
        time.sleep(0.01)


def cmd_gauge(args):
    path = args[0] + "/rpc_stats"
    text = open(path).read()
    text = re.sub(r"write RPCs in flight: *\d+", "write RPCs in flight: %s" % args[1], text)
    text = re.sub(r"pending write pages: *\d+", "pending write pages:  %s" % args[2], text)
    open(path, "w").write(text)


def bucket(v):
    return 0 if v < 2 else min(v.bit_length() - 1, 31)


def dist(values):
    d = {"count": len(values), "sum": sum(values),
         "min": min(values) if values else 0, "max": max(values) if values else 0}
    s = sorted(values)
    for p in (50, 95, 99):
        if not values:
            d["p%d" % p] = 0
            continue
        exact = s[(len(s) * p + 99) // 100 - 1]
        nump = int(np.percentile(np.array(values, dtype=np.uint64), p,
                                 method="inverted_cdf"))
        if not (nump == exact):
            raise SystemExit("check failed: %r" % ((("numpy and the nearest rank disagree", p, nump, exact)),))
        d["p%d" % p] = exact
    h = [0] * 32
    for v in values:
        h[bucket(v)] += 1
    while h and h[-1] == 0:
        h.pop()
    d["hist"] = h
    return d


def expected_window(lines):
    lat = {c: [] for c in CLASSES}
    proc = {c: [] for c in CLASSES}
    nbytes = {c: 0 for c in CLASSES}
    queue = []
    for l in lines:
        f = l.split(" ")
        if len(f) == 3 and f[1] == "Q":
            queue.append(int(f[2]))
            continue
        if l in MALFORMED or l.startswith("#"):
            continue
        c = op_class(f[1])
        nbytes[c] += int(f[2])
        lat[c].append(int(f[3]))
        proc[c].append(int(f[4]))
    recs = {}
    for c in CLASSES:
        if lat[c]:
            recs[c] = {"count": len(lat[c]), "bytes": nbytes[c],
                       "latency": dist(lat[c]), "proc": dist(proc[c]),
                       "queue": dist([])}
    alll = sum(lat.values(), [])
    recs["all"] = {"count": len(alll), "bytes": sum(nbytes.values()),
                   "latency": dist(alll), "proc": dist(sum(proc.values(), [])),
                   "queue": dist(queue)}
    return recs


def samples(decoded):
    """fwd_req and fwd_rpc records grouped by sample, in order."""
    out, last_t = [], None
    for line in open(decoded):
        r = json.loads(line)
        if r["type"] == "fwd_req":
            if r["t"] != last_t:
                out.append({"req": {}, "rpc": {}, "t": r["t"], "dur": r["dur"]})
                last_t = r["t"]
            if not (r["class"] not in out[-1]["req"]):
                raise SystemExit("check failed: %r" % ((r),))
            out[-1]["req"][r["class"]] = r
        elif r["type"] == "fwd_rpc":
            if not (out):
                raise SystemExit("check failed: %r" % (("fwd_rpc before any fwd_req"),))
            out[-1]["rpc"][r["target"]] = r
        else:
            raise AssertionError("unexpected record " + line)
    return out


def compare(i, got, want, approx=None):
    if not (set(got) == set(want)):
        raise SystemExit("check failed: %r" % ((("sample", i + 1, "classes", sorted(got), sorted(want))),))
    loose = approx is not None and want["all"]["count"] > approx
    for c, w in want.items():
        g = got[c]
        for k in ("count", "bytes"):
            if not (g[k] == w[k]):
                raise SystemExit("check failed: %r" % ((("sample", i + 1, c, k, g[k], w[k])),))
        for k in ("latency", "proc", "queue"):
            if not loose or k == "queue":
                if not (g[k] == w[k]):
                    raise SystemExit("check failed: %r" % ((("sample", i + 1, c, k, g[k], w[k])),))
                continue
            for f in ("count", "sum", "min", "max", "hist"):
                if not (g[k][f] == w[k][f]):
                    raise SystemExit("check failed: %r" % ((("sample", i + 1, c, k, f, g[k][f], w[k][f])),))
            for f in ("p50", "p95", "p99"):
                exact, got_p = w[k][f], g[k][f]
                if not (got_p <= exact and exact - got_p <= exact / 128.0):
                    raise SystemExit("check failed: %r" % ((("sample", i + 1, c, k, f, got_p, exact)),))
    return loose


def truth_lines(path):
    return [l.rstrip("\n") for l in open(path)]


def cmd_check(args):
    got = samples(args[0])
    windows, cur = [], []
    for l in truth_lines(args[1]):
        if l == "@":
            windows.append(cur)
            cur = []
        else:
            cur.append(l)
    windows.append(cur)
    if not (len(got) == len(windows)):
        raise SystemExit("check failed: %r" % ((("samples", len(got), "windows", len(windows))),))
    rpc = json.load(open(args[2]))
    approx = int(args[4]) if len(args) > 4 and args[3] == "--approx" else None
    if not (len(rpc) == len(got)):
        raise SystemExit("check failed: %r" % ((("rpc expectations", len(rpc), len(got))),))
    reqs = loose = 0
    for i, (g, w) in enumerate(zip(got, windows)):
        loose += compare(i, g["req"], expected_window(w), approx)
        reqs += g["req"]["all"]["count"]
        if not (set(g["rpc"]) == set(rpc[i])):
            raise SystemExit("check failed: %r" % ((("sample", i + 1, "targets", sorted(g["rpc"]), sorted(rpc[i]))),))
        for target, fields in rpc[i].items():
            r = g["rpc"][target]
            for k, v in fields.items():
                if not (r[k] == v):
                    raise SystemExit("check failed: %r" % ((("sample", i + 1, target, k, r[k], v)),))
            for k in ("read_rpcs", "write_rpcs", "read_bytes", "write_bytes"):
                if k not in fields:
                    if not (r[k] == 0):
                        raise SystemExit("check failed: %r" % ((("sample", i + 1, target, k, r[k])),))
        if i:
            if not (g["t"] == got[i - 1]["t"] + got[i - 1]["dur"]):
                raise SystemExit("check failed: %r" % (("windows must follow each other"),))
    print("fwdd_check: %d samples, %d requests, every window exact%s"
          % (len(got), reqs, "" if not loose else
             " (%d with percentiles within 1/128)" % loose))


def cmd_partition(args):
    got = samples(args[0])
    lines = truth_lines(args[1])
    want_all = args[2:] == ["--all"]
    pos = 0
    for i, g in enumerate(got):
        n = g["req"]["all"]["count"]
        nq = g["req"]["all"]["queue"]["count"]
        window, reqs, qs = [], 0, 0
        while reqs < n or qs < nq:
            if not (pos < len(lines)):
                raise SystemExit("check failed: %r" % ((("sample", i + 1, "wants more lines than were written")),))
            l = lines[pos]
            pos += 1
            window.append(l)
            f = l.split(" ")
            if len(f) == 3 and f[1] == "Q":
                qs += 1
            elif l not in MALFORMED:
                reqs += 1
        if not (qs == nq and reqs == n):
            raise SystemExit("check failed: %r" % ((("sample", i + 1, "queue lines out of step")),))
        compare(i, g["req"], expected_window(window))
    if want_all and pos != len(lines):
        raise SystemExit("check failed: %r" % ((("samples read", pos, "of", len(lines), "lines")),))
    if pos == 0:
        raise SystemExit("check failed: the samples read no line")
    print("fwdd_check: %d samples cover the first %d of %d lines, every window exact"
          % (len(got), pos, len(lines)))


if __name__ == "__main__":
    cmds = {"append": cmd_append, "header": cmd_header, "mark": cmd_mark,
            "osc": cmd_osc, "stats": cmd_stats, "gauge": cmd_gauge,
            "stream": cmd_stream,
            "check": cmd_check,
            "partition": cmd_partition}
    cmds[sys.argv[1]](sys.argv[2:])
