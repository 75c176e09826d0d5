"""Exports the DXT (Darshan eXtended Tracing) POSIX segments of a Darshan
log as a tab-separated operation list, the form tests/data/dxt holds
(tests/data/PROVENANCE.md): one line per operation, sorted by start
time, with a header line:

    rank  file  op  offset  length  start_ns  end_ns

file numbers the log's files in the order of their first operation, op
is R or W, times are nanoseconds since the job's start. Needs PyDarshan
(pip's darshan package), which beacon does not otherwise use: run it by
hand in a virtual environment, e.g.

    python3 -m venv /tmp/dx && /tmp/dx/bin/pip install darshan
    /tmp/dx/bin/python tests/tools/dxt_export.py LOG > out.tsv
"""
import sys

import darshan


def main(path):
    rep = darshan.DarshanReport(path, read_all=True)
    if "DXT_POSIX" not in rep.records:
        sys.exit(f"{path}: no DXT_POSIX records")
    ops = []
    for rec in rep.records["DXT_POSIX"].to_df():
        for op, seg in (("R", rec["read_segments"]), ("W", rec["write_segments"])):
            for row in seg.itertuples(index=False):
                ops.append((round(row.start_time * 1e9), round(row.end_time * 1e9),
                            rec["rank"], rec["id"], op, int(row.offset),
                            int(row.length)))
    ops.sort()
    ids = {}
    out = sys.stdout
    out.write("rank\tfile\top\toffset\tlength\tstart_ns\tend_ns\n")
    for start, end, rank, fid, op, off, length in ops:
        f = ids.setdefault(fid, len(ids))
        out.write(f"{rank}\t{f}\t{op}\t{off}\t{length}\t{start}\t{end}\n")


if __name__ == "__main__":
    main(sys.argv[1])
