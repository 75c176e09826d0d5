#!/usr/bin/env python3
"""What the simulated Lustre servers counted per job between two ticks
(helper of sim_flood.sh and sim_mdstorm.sh): the job_stats of every OST
(obdfilter) and MDT (mdt) under AFTER minus those under BEFORE, two
beacon-sim output trees of one configuration written --until two ticks.

usage: sim_jobstats.py AFTER BEFORE
Prints one JSON object: {"ost"|"mdt": {JOB: {COUNTER: {"samples": N,
"sum": S}}}} with the counters that moved. The servers' own figures are
the simulator's exact truth, computed apart from the request logs that
beacon-fwdd reads."""
import collections
import glob
import json
import re
import sys

BLOCK = re.compile(r"- job_id:\s+(\S+)")
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


def main():
    after, before = sys.argv[1], sys.argv[2]
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
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
