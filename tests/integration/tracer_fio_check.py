#!/usr/bin/env python3
"""Compares what beacon computed from the tracer's compressed records with
fio's own JSON report (tests/integration/tracer_fio.sh).

usage: tracer_fio_check.py RECORDS.jsonl TOLERANCE JOBID:FIO.json:DIR:NAME...

RECORDS.jsonl is `beacon decode` output. For each fio run (the records of
Slurm job JOBID), the data files are DIR/NAME.<i>.0, one per fio job i in
the report's order. For each fio job and direction it checks, within
TOLERANCE (a fraction): bytes (sum of count*size of the io records on that
file), operations (sum of count) and bandwidth (bytes over the time from the
first data operation's start to the last one's end, reads and writes
together as fio's runtime is, against fio's bw_bytes). A direction in
which fio moved nothing must have no traced bytes or operations on that
file either, and every fio job must have moved something.
Prints one JSON line per comparison; exits 1 when one is off."""
import json
import sys


def load(records_path):
    paths = {}          # (job, file id) -> path, from open records
    recs = []
    with open(records_path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") != "io":
                continue
            if r["op"] == "open" and r["path"]:
                paths[(r["job"], r["file"])] = r["path"]
            recs.append(r)
    return paths, recs


def main():
    records, tol = sys.argv[1], float(sys.argv[2])
    paths, recs = load(records)
    bad = 0
    for spec in sys.argv[3:]:
        job, fio_json, d, name = spec.split(":")
        job = int(job)
        with open(fio_json) as f:
            report = json.load(f)
        for i, fj in enumerate(report["jobs"]):
            want_path = "%s/%s.%d.0" % (d, name, i)
            # fio's bandwidth is bytes over the job's runtime, whatever the
            # direction: the span of all its data operations
            data = [r for r in recs if r["job"] == job and
                    r["op"] in ("read", "write") and
                    paths.get((job, r["file"])) == want_path]
            span = (max(r["t"] + r["dur"] for r in data) -
                    min(r["t"] for r in data)) if data else 0
            if not data or not any(fj[op]["io_bytes"] for op in ("read", "write")):
                print(json.dumps({"job": job, "fio_job": i, "records": len(data),
                                  "error": "nothing moved", "ok": False}))
                bad += 1
                continue
            for op in ("read", "write"):
                fio_bytes = fj[op]["io_bytes"]
                sel = [r for r in recs if r["job"] == job and r["op"] == op
                       and paths.get((job, r["file"])) == want_path]
                ours = sum(r["count"] * r["size"] for r in sel)
                ops = sum(r["count"] for r in sel)
                if fio_bytes == 0:
                    # fio moved nothing this way: nothing traced may either
                    ok = ours == 0 and ops == 0 and fj[op]["total_ios"] == 0
                    print(json.dumps({"job": job, "fio_job": i, "op": op,
                                      "fio_bytes": 0, "beacon_bytes": ours,
                                      "beacon_ops": ops, "records": len(sel),
                                      "ok": ok}))
                    if not ok:
                        bad += 1
                    continue
                bw = ours * 1e9 / span if span else 0.0
                out = {"job": job, "fio_job": i, "op": op,
                       "fio_bytes": fio_bytes, "beacon_bytes": ours,
                       "fio_ops": fj[op]["total_ios"], "beacon_ops": ops,
                       "fio_bw_bytes": fj[op]["bw_bytes"],
                       "beacon_bw_bytes": round(bw),
                       "records": len(sel)}
                errs = {}
                for k, a, b in (("bytes", ours, fio_bytes),
                                ("ops", ops, fj[op]["total_ios"]),
                                ("bw", bw, fj[op]["bw_bytes"])):
                    errs[k] = abs(a - b) / b if b else 1.0
                out["error"] = {k: round(v, 5) for k, v in errs.items()}
                ok = all(v <= tol for v in errs.values())
                out["ok"] = ok
                print(json.dumps(out))
                if not ok:
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
