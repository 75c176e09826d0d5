"""Checks the reports of tests/integration/job_coverage.sh against
beacon-sim's truth file: the volume from the best complete source, the
coverage and its findings, slow_ost_in_job, stragglers, the files table
and the node heatmap. Prints every problem and exits 1 when any."""
import json
import sys

T = sys.argv[1]
bad = []
truth = [json.loads(line) for line in open(T + "/truth.jsonl")]
jobs = {d["name"]: d for d in truth if d["kind"] == "job"}
assert sorted(jobs) == ["clean", "dark", "hold", "part", "whole"], sorted(jobs)


def report(t):
    return json.load(open("%s/job%d.json" % (T, t["job"])))


def codes(r):
    return [f["code"] for f in r["findings"]]


def finding(r, code):
    return next((f for f in r["findings"] if f["code"] == code), None)


def near(a, b, pct=1.0):
    return abs(a - b) <= b * pct / 100.0


for name, t in sorted(jobs.items()):
    r = report(t)
    cov = r["coverage"]["client"]
    vol, want = r["read_bytes"] + r["write_bytes"], t["read_bytes"] + t["write_bytes"]
    if name == "hold":
        if not r["coverage"]["client"]["complete"] or "partial_coverage" in codes(r) or \
                "no_io" not in codes(r):
            bad.append("hold: an idle, covered job: %s %s" % (r["coverage"], codes(r)))
        continue
    if not near(r["read_bytes"], t["read_bytes"]) or not near(r["write_bytes"], t["write_bytes"]):
        bad.append("%s: read %d write %d, truth %d %d" % (
            name, r["read_bytes"], r["write_bytes"], t["read_bytes"], t["write_bytes"]))
    if cov["missing_hosts"] != t["uncovered"]:
        bad.append("%s: missing %r, truth uncovered %r" % (name, cov["missing_hosts"], t["uncovered"]))
    if cov["expected"] != t["nodes"] or cov["reported"] != t["client_nodes"]:
        bad.append("%s: client coverage %s, truth %d of %d" % (name, cov, t["client_nodes"], t["nodes"]))
    for c in ("backend_reads", "one_process_io", "no_io", "n1_few_osts"):
        if c in codes(r):
            bad.append("%s: %s raised: %s" % (name, c, finding(r, c)["message"]))
    # the phases and the series add up to the volume, whatever the source
    if sum(p["read_bytes"] + p["write_bytes"] for p in r["phases"]) != vol:
        bad.append("%s: the phases do not add up to %d" % (name, vol))
    if sum(r["series"]["read"]) + sum(r["series"]["write"]) != vol:
        bad.append("%s: the series does not add up to %d" % (name, vol))
    client = r["client"]["read_bytes"] + r["client"]["write_bytes"]
    if t["uncovered"]:
        if r["volume_source"] != "ost" or r["client_sample"] != (t["client_nodes"] > 0):
            bad.append("%s: volume from %s (sample %s)" % (name, r["volume_source"], r["client_sample"]))
        if not t["client_nodes"] and r["mode"] != "unknown":
            bad.append("%s: mode %s without any traced node" % (name, r["mode"]))
        pc = finding(r, "partial_coverage")
        if not pc or t["uncovered"] not in pc["evidence"]["client"]["missing"]:
            bad.append("%s: partial_coverage %s" % (name, pc))
        # the traced nodes' own bytes: a part of the truth, none when dark
        if not client < want or (t["client_nodes"] == 0) != (client == 0):
            bad.append("%s: client layer %d of %d" % (name, client, want))
    else:
        if r["volume_source"] != "client" or not r["volume_exact"] or r["client_sample"]:
            bad.append("%s: fully covered, volume from %s exact %s" % (name, r["volume_source"], r["volume_exact"]))
        if vol != want or client != want:
            bad.append("%s: %d bytes, client %d, truth %d" % (name, vol, client, want))
        if "partial_coverage" in codes(r):
            bad.append("%s: partial_coverage on a covered job" % name)
    # a slow OST among at least three OSTs of 64 MiB: named, and only it
    big = [o for o in r["osts"] if o["read_bytes"] + o["write_bytes"] >= 64 << 20]
    slow = finding(r, "slow_ost_in_job")
    used_slow = any(o["target"] == "simfs-OST0001" for o in big)
    if slow and slow["evidence"]["target"] != "simfs-OST0001":
        bad.append("%s: slow_ost_in_job names %s" % (name, slow["evidence"]["target"]))
    if used_slow and len(big) >= 3 and t["name"] in ("part", "dark"):
        if not slow or "lfs setstripe -o" not in slow["fix"]:
            bad.append("%s: no slow_ost_in_job on simfs-OST0001 (osts %s)" % (
                name, [(o["target"], o["rate"]) for o in r["osts"]]))
    if name in ("whole", "clean") and slow:
        bad.append("%s: slow_ost_in_job after the slow OST recovered" % name)
    # the files table and the heatmap add up to the client layer's bytes
    ft = r["file_table"]
    tot = ft["total"]
    if tot["read_bytes"] + tot["write_bytes"] != client:
        bad.append("%s: file table %s, client %d" % (name, tot, client))
    hm = r["compute"]["heatmap"]
    rows = hm["rows"] + ([hm["other"]] if hm["other"] else [])
    if sum(sum(x["read"]) + sum(x["write"]) for x in rows) != client:
        bad.append("%s: the heatmap does not add up to %d" % (name, client))
    if len(hm["rows"]) != t["nodes"] or hm["other"]:
        bad.append("%s: %d heatmap rows for %d nodes" % (name, len(rows), t["nodes"]))
    if t["sim_mode"] == "n-n" and t["client_nodes"]:
        groups = [x for x in ft["rows"] if x["group"]]
        if not groups or groups[0]["files"] != t["client_nodes"]:
            bad.append("%s: the N-N files are not one group of %d: %s" % (
                name, t["client_nodes"], [(x["name"], x["files"]) for x in ft["rows"]]))

# the straggler inside "whole", none inside "clean"
w = finding(report(jobs["whole"]), "straggler_nodes")
if not w or "cn00003" not in [s["node"] for s in w["evidence"]["slowest"]]:
    bad.append("whole: cn00003 not named a straggler: %s" % (w,))
if jobs["whole"].get("slow_nodes") != ["cn00003"]:
    bad.append("whole: truth slow_nodes %s" % jobs["whole"].get("slow_nodes"))
c = report(jobs["clean"])
for code in ("straggler_nodes", "slow_processes", "partial_coverage"):
    if code in codes(c):
        bad.append("clean: %s: %s" % (code, finding(c, code)["message"]))

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
