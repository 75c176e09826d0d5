#!/usr/bin/env python3
"""Builds a synthetic Lustre server tree for the beacon-ostd / beacon-mdsd
benchmarks, every file in the format of a real fixture of
tests/data/lustre (see tests/data/PROVENANCE.md), values varied:

  lustre_tree.py ost ROOT [--osts 12] [--jobs 10000] [--exports 0]
                          [--format 2.15|2.10] [--variant V]
  lustre_tree.py mds ROOT [--mdts 1] [--exports 4000] [--jobs 0]
                          [--format 2.15|2.10] [--variant V]

OST (obdfilter stats, brw_stats in debugfs, job_stats, exports/<nid>/stats):
  2.15: lmt-2.15.4_1 lflood-OST0001 stats and brw_stats, job blocks like
        lustre-collector-2.15fmt/job_stats_hist_quoted_jobid.txt;
  2.10: lustre_exporter-2.10.1 lustrefs-OST0000 stats, job blocks like its
        job_stats (brw_stats from its osd-zfs directory, in /proc).
MDT (md_stats, job_stats, exports/<nid>/stats):
  2.15: the counter lines of telegraf-v2.12 md_stats as 2.15 prints them
        ("[usecs]" with min/max/sum/sumsq, the lmt-2.15.4_1 time triple),
        job blocks like lustre-collector-2.15fmt's MDT block;
  2.10: telegraf-v2.12 md_stats and export stats, job blocks like
        lustre_exporter-2.10.1's MDT job_stats.
Variant V adds V * (1 + i % 97) to the counts of entity i, so that two
trees of different variants differ in every job and export."""
import argparse
import os
import re

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                    "data", "lustre")


def fixture(rel):
    with open(os.path.join(DATA, rel)) as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def first_block(text):
    """The first '- job_id:' block of a job_stats text, as a list of lines."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("- job_id:"))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("- job_id:")), len(lines))
    return [l for l in lines[start:end] if l.strip()]


def bump_yaml(line, add):
    """Adds add to the samples of a job_stats counter line (and add * 4096
    to its sum, for bytes)."""
    def samples(m):
        return "samples: %11d" % (int(m.group(1)) + add)

    line = re.sub(r"samples: *(\d+)", samples, line, count=1)
    if "unit: bytes" in line:
        line = re.sub(r"sum: *(\d+)",
                      lambda m: "sum: %16d" % (int(m.group(1)) + add * 4096),
                      line, count=1)
    return line


def bump_stats(text, add):
    """Adds add to the count of every counter line of a stats text (and
    add * 4096 to the sum of [bytes] lines)."""
    out = []
    for line in text.split("\n"):
        f = line.split()
        if len(f) >= 4 and f[2] == "samples":
            f[1] = str(int(f[1]) + add)
            if f[3] == "[bytes]" and len(f) >= 7:
                f[6] = str(int(f[6]) + add * 4096)
            line = "%-25s %s" % (f[0], " ".join(f[1:]))
        out.append(line)
    return "\n".join(out)


def job_stats(block, n, first_id, variant, busy):
    """n job blocks from the template block; job i gets id first_id + i."""
    out = ["job_stats:"]
    for i in range(n):
        add = variant * (1 + i % 97)
        for line in block:
            if line.startswith("- job_id:"):
                out.append("- job_id:          %d" % (first_id + i))
            elif line.strip().split(":")[0] in busy:
                out.append(bump_yaml(line, add))
            else:
                out.append(line)
    return "\n".join(out) + "\n"


def nid(i):
    return "10.%d.%d.%d@o2ib" % (i // 65536 % 256, i // 256 % 256, i % 256)


def build_ost(a):
    if a.format == "2.15":
        stats = fixture("ost/lmt-2.15.4_1/proc/fs/lustre/obdfilter/"
                        "lflood-OST0001/stats")
        brw = fixture("ost/lmt-2.15.4_1/sys/kernel/debug/lustre/osd-zfs/"
                      "lflood-OST0001/brw_stats")
        block = first_block(fixture("ost/lustre-collector-2.15fmt/"
                                    "job_stats_hist_quoted_jobid.txt"))
        brw_dir = "sys/kernel/debug/lustre/osd-zfs"
    else:
        base = "ost/lustre_exporter-2.10.1/"
        stats = fixture(base + "obdfilter/lustrefs-OST0000/stats")
        brw = fixture(base + "osd-zfs/lustrefs-OST0000/brw_stats")
        block = first_block(fixture(base + "obdfilter/lustrefs-OST0000/"
                                    "job_stats"))
        brw_dir = "proc/fs/lustre/osd-zfs"
    export = fixture("ost/lustre_exporter-2.10.1/obdfilter/lustrefs-OST0000/"
                     "stats")
    busy = {"write_bytes", "write", "punch"}
    per = [a.jobs // a.osts + (1 if t < a.jobs % a.osts else 0)
           for t in range(a.osts)]
    first = 1000000
    for t in range(a.osts):
        name = "bench-OST%04x" % t
        d = os.path.join(a.root, "proc/fs/lustre/obdfilter", name)
        write(os.path.join(d, "stats"), bump_stats(stats, a.variant * (t + 1)))
        write(os.path.join(a.root, brw_dir, name, "brw_stats"), brw)
        write(os.path.join(d, "job_stats"),
              job_stats(block, per[t], first, a.variant, busy))
        first += per[t]
        for e in range(a.exports):
            write(os.path.join(d, "exports", nid(e), "stats"),
                  bump_stats(export, a.variant * (1 + e % 97)))


def md_215(text):
    """A 2.10-style md_stats text as 2.15 prints it: the time triple and
    [usecs] latency counters with min/max/sum/sumsq."""
    head = fixture("mds/lmt-2.15.4_1/proc/fs/lustre/mdt/lflood-MDT0000/"
                   "md_stats").split("\n")[:3]
    out = head[:]
    for line in text.split("\n"):
        f = line.split()
        if len(f) >= 4 and f[2] == "samples":
            n = int(f[1])
            out.append("%-25s %d samples [usecs] 0 69 %d %d"
                       % (f[0], n, n * 12, n * 250))
    return "\n".join(out) + "\n"


def build_mds(a):
    md = fixture("mds/telegraf-v2.12/mdt/OST0001/md_stats")
    export = fixture("mds/telegraf-v2.12/mdt/OST0001/exports/"
                     "10.2.4.27@o2ib1/stats")
    if a.format == "2.15":
        md, export = md_215(md), md_215(export)
        block = first_block(fixture("mds/lustre-collector-2.15fmt/"
                                    "job_stats_time_triple_quoted_jobid.txt"))
    else:
        block = first_block(fixture("mds/lustre_exporter-2.10.1/mdt/"
                                    "lustrefs-MDT0000/job_stats"))
    busy = {"open", "close", "getattr", "statfs"}
    for t in range(a.mdts):
        name = "bench-MDT%04x" % t
        d = os.path.join(a.root, "proc/fs/lustre/mdt", name)
        write(os.path.join(d, "md_stats"), bump_stats(md, a.variant * (t + 1)))
        write(os.path.join(d, "job_stats"),
              job_stats(block, a.jobs, 2000000, a.variant, busy))
        for e in range(a.exports):
            write(os.path.join(d, "exports", nid(e), "stats"),
                  bump_stats(export, a.variant * (1 + e % 97)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("role", choices=("ost", "mds"))
    p.add_argument("root")
    p.add_argument("--osts", type=int, default=12)
    p.add_argument("--mdts", type=int, default=1)
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--exports", type=int, default=None)
    p.add_argument("--format", choices=("2.15", "2.10"), default="2.15")
    p.add_argument("--variant", type=int, default=0)
    a = p.parse_args()
    if a.role == "ost":
        a.jobs = 10000 if a.jobs is None else a.jobs
        a.exports = 0 if a.exports is None else a.exports
        build_ost(a)
    else:
        a.jobs = 0 if a.jobs is None else a.jobs
        a.exports = 4000 if a.exports is None else a.exports
        build_mds(a)


if __name__ == "__main__":
    main()
