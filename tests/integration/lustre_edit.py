#!/usr/bin/env python3
"""Edits Lustre statistics files in place for the beacon-ostd and
beacon-mdsd integration tests: lustre_edit.py OP FILE ARGS, with OP
  stats NAME DSAMPLES DSUM       add to a stats counter line (first one)
  job JOBID NAME DSAMPLES DSUM   add to a counter of a job_stats block
  brw LABEL DWRITE               add to the write column of a brw row
  dropjob JOBID                  delete a job_stats block
  append TEXT                    append lines
"""
import re, sys
op, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(path).read().split("\n")
def bump_stats(name, ds, dsum):
    # "name  N samples [unit] min max sum [sumsq]": the first line of name
    for i, l in enumerate(lines):
        f = l.split()
        if f and f[0] == name:
            f[1] = str(int(f[1]) + ds)
            if len(f) >= 7:
                f[6] = str(int(f[6]) + dsum)
            lines[i] = "%-25s %s" % (f[0], " ".join(f[1:]))
            return
    raise SystemExit("no counter " + name)
def job_range(jobid):
    start = None
    for i, l in enumerate(lines):
        if l.startswith("- job_id:"):
            if start is not None:
                return start, i
            if l.split(":", 1)[1].strip().strip('"') == jobid:
                start = i
    if start is None:
        raise SystemExit("no job " + jobid)
    return start, len(lines)
def bump_job(jobid, name, ds, dsum):
    a, b = job_range(jobid)
    for i in range(a, b):
        if lines[i].strip().startswith(name + ":"):
            l = re.sub(r"samples: *(\d+)", lambda m: "samples: %11d" % (int(m.group(1)) + ds), lines[i])
            l = re.sub(r"sum: *(\d+)", lambda m: "sum: %16d" % (int(m.group(1)) + dsum), l, count=1)
            lines[i] = l
            return
    raise SystemExit("no %s in job %s" % (name, jobid))
def bump_brw(label, dw):
    for i, l in enumerate(lines):
        if l.startswith(label + ":"):
            left, right = l.split("|")
            f = right.split()
            f[0] = str(int(f[0]) + dw)
            lines[i] = left + "| " + " ".join(f)
            return
    raise SystemExit("no row " + label)
if op == "stats":
    bump_stats(args[0], int(args[1]), int(args[2]))
elif op == "job":
    bump_job(args[0], args[1], int(args[2]), int(args[3]))
elif op == "brw":
    bump_brw(args[0], int(args[1]))
elif op == "dropjob":
    a, b = job_range(args[0])
    del lines[a:b]
elif op == "append":
    if lines and lines[-1] == "":
        lines.pop()
    lines.extend(args[0].split("\n"))
    lines.append("")
else:
    raise SystemExit("bad op " + op)
open(path, "w").write("\n".join(lines))
