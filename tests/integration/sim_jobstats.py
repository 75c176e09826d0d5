#!/usr/bin/env python3
"""beacon-fwdd's windows against what the simulated Lustre servers counted
per job in each tick (helper of sim_flood.sh and sim_mdstorm.sh). The
servers' job_stats are the simulator's exact figures, computed apart from
the request logs that beacon-fwdd reads: every byte a forwarding node
passed reached an OST, every metadata request it forwarded an MDT.

usage: sim_jobstats.py RECORDS DIR0 DIR1 ... DIRn
RECORDS is `beacon decode` of the fwd_req records of every forwarding
node, which sampled at ticks 0..n of the run (DIRk, a beacon-sim output
tree of the same configuration written --until that tick). Checks that
each node has its baseline and n windows, and that in window k the read
and write bytes summed over the nodes equal what the OSTs served between
DIR(k-1) and DIRk, and the metadata requests what the MDTs served.
Prints one JSON object: {"windows": [{NODE: {CLASS: record}}] (n
windows), "servers": [{"ost"|"mdt": {JOB: {COUNTER: {"samples": N, "sum":
S}}}}] (the counters that moved in each tick)}."""
import collections
import glob
import json
import re
import sys

BLOCK = re.compile(r"- job_id:\s+(\S+)")
MD_OPS = ["open", "close", "getattr", "mknod", "unlink"]
COUNTER = re.compile(r"\s+(\w+):\s+\{ samples:\s+(\d+),.*?sum:\s+(\d+)")


def load(root, kind):
    tot = collections.defaultdict(int)
    files = glob.glob(root + "/*/proc/fs/lustre/%s/*/job_stats" % kind)
    if not files:
        raise SystemExit("no %s job_stats under %s" % (kind, root))
    for path in files:
        job = None
        for line in open(path):
            m = BLOCK.match(line)
            if m:
                job = m.group(1)
                continue
            m = COUNTER.match(line)
            if m and job is not None:
                tot[(job, m.group(1), "samples")] += int(m.group(2))
                tot[(job, m.group(1), "sum")] += int(m.group(3))
    return tot


def delta(after, before):
    out = {}
    for name, kind in (("ost", "obdfilter"), ("mdt", "mdt")):
        a, b = load(after, kind), load(before, kind)
        d = {}
        for key in set(a) | set(b):
            v = a.get(key, 0) - b.get(key, 0)
            if v < 0:
                raise SystemExit("%s %r went down: %d -> %d"
                                 % (kind, key, b.get(key, 0), a.get(key, 0)))
            if v:
                job, counter, field = key
                d.setdefault(job, {}).setdefault(counter, {"samples": 0, "sum": 0})[field] = v
        out[name] = d
    return out


def windows(path, n):
    """Per node, its n windows after the baseline: {class: record}."""
    by = {}
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "fwd_req":
            by.setdefault(r["node"], {}).setdefault(r["t"], {})[r["class"]] = r
    if not by:
        raise SystemExit("check failed: no fwd_req records")
    out = [{} for _ in range(n)]
    for node, ts in by.items():
        ws = [ts[t] for t in sorted(ts)]
        if len(ws) != n + 1 or any("all" not in w for w in ws):
            raise SystemExit("check failed: %s has %d windows with their class "
                             "all, want the baseline and %d" % (node, len(ws), n))
        if ws[0]["all"]["count"] != 0:
            raise SystemExit("check failed: %s's baseline has requests" % node)
        for k in range(n):
            out[k][node] = ws[k + 1]
    return out


def total(jobs, counters, field):
    return sum(c.get(name, {}).get(field, 0)
               for c in jobs.values() for name in counters)


def main():
    dirs = sys.argv[2:]
    n = len(dirs) - 1
    if n < 1:
        raise SystemExit("usage: sim_jobstats.py RECORDS DIR0 DIR1 ... DIRn")
    wins = windows(sys.argv[1], n)
    servers = [delta(dirs[k + 1], dirs[k]) for k in range(n)]
    for k, (w, sv) in enumerate(zip(wins, servers)):
        def fwd(cls, field):
            return sum(nw[cls][field] for nw in w.values() if cls in nw)
        checks = (("read bytes", fwd("read", "bytes"),
                   total(sv["ost"], ["read_bytes"], "sum")),
                  ("write bytes", fwd("write", "bytes"),
                   total(sv["ost"], ["write_bytes"], "sum")),
                  ("metadata requests", fwd("meta", "count"),
                   total(sv["mdt"], MD_OPS, "samples")))
        for what, got, want in checks:
            if got != want:
                raise SystemExit("check failed: window %d: %s: beacon-fwdd %d, "
                                 "the servers %d" % (k + 1, what, got, want))
    print(json.dumps({"windows": wins, "servers": servers}, sort_keys=True))


if __name__ == "__main__":
    main()
