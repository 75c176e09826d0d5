#!/usr/bin/env python3
"""The HTTP checks of tests/integration/web_api.sh against a running
beacon-web: python3 web_api_client.py T PORT (T: the test's directory,
with the passwords in T/pw.NAME). Exits 1 with the failures listed."""
import gzip
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import datetime

T, PORT = sys.argv[1], int(sys.argv[2])
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)
        print("FAIL:", what, file=sys.stderr)


def req(method, path, body=None, headers=None, who=None, src="127.0.0.1"):
    """(status, headers dict, parsed JSON or raw bytes)."""
    h = dict(headers or {})
    if who:
        h["Cookie"] = "beacon_session=" + who["token"]
        if method in ("POST", "DELETE") and "X-CSRF-Token" not in h:
            h["X-CSRF-Token"] = who["csrf"]
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30,
                                   source_address=(src, 0))
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
        h.setdefault("Content-Type", "application/json")
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    hd = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    if hd.get("content-encoding") == "gzip":
        data = gzip.decompress(data)
    try:
        data = json.loads(data)
    except ValueError:
        pass
    return r.status, hd, data


def login(name):
    pw = open("%s/pw.%s" % (T, name)).read().strip()
    st, hd, js = req("POST", "/api/v1/login", {"user": name, "password": pw})
    assert st == 200, (name, st, js)
    cookie = hd["set-cookie"]
    for attr in ("HttpOnly", "SameSite=Strict", "Secure", "Path=/"):
        check(attr in cookie, "cookie lacks %s: %s" % (attr, cookie))
    tok = re.match(r"beacon_session=([0-9a-f]{64});", cookie).group(1)
    check(js["user"] == name and len(js["csrf"]) == 64, "login answer %r" % js)
    return {"token": tok, "csrf": js["csrf"], "role": js["role"]}


def iso(s):
    return int(datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()) if s else None


def expand(nodelist):
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", nodelist):
        pre, rng = m.group(1), m.group(2)
        if not rng:
            out.append(pre)
            continue
        for part in rng.split(","):
            a, _, b = part.partition("-")
            for i in range(int(a), int(b or a) + 1):
                out.append("%s%0*d" % (pre, len(a), i))
    return out


# --- anonymous ---------------------------------------------------------
for path in ("/api/v1/jobs", "/api/v1/jobs/1", "/api/v1/series?layer=ost&entity=x",
             "/api/v1/overview", "/api/v1/heatmap?layer=ost", "/api/v1/anomalies",
             "/api/v1/me"):
    st, hd, js = req("GET", path)
    check(st == 401 and "error" in js, "anonymous %s: %d %r" % (path, st, js))
    check(hd.get("x-beacon-cache") in ("hit", "miss"), "no X-Beacon-Cache on %s" % path)
st, _, js = req("POST", "/api/v1/anomalies/1/ack")
check(st == 401, "anonymous ack: %d" % st)
st, _, js = req("GET", "/api/v1/openapi.json")
check(st == 200 and js.get("openapi", "").startswith("3."), "openapi.json: %d" % st)
for p in ("/api/v1/jobs", "/api/v1/jobs/{id}", "/api/v1/series", "/api/v1/overview",
          "/api/v1/heatmap", "/api/v1/anomalies", "/api/v1/login"):
    check(p in js.get("paths", {}), "openapi lacks %s" % p)
st, _, js = req("GET", "/api/v1/nope")
check(st == 404 and "error" in js, "unknown path: %d" % st)
st, _, js = req("GET", "/api/v2/jobs")
check(st == 404, "unknown version: %d" % st)
st, hd, _ = req("DELETE", "/api/v1/jobs")
check(st == 405 and hd.get("allow") == "GET", "DELETE /jobs: %d %r" % (st, hd.get("allow")))

# --- log in -------------------------------------------------------------
admin, a, b = login("admin"), login("user08"), login("user16")
check(admin["role"] == "admin" and a["role"] == "user", "roles")
st, _, js = req("GET", "/api/v1/me", who=a)
check(st == 200 and js["user"] == "user08", "me: %r" % js)

# --- jobs ---------------------------------------------------------------
RANGE = "from=%d&to=%d" % (time.time() - 86400, time.time() + 60)
st, _, js = req("GET", "/api/v1/jobs?" + RANGE + "&limit=1000", who=admin)
check(st == 200, "admin jobs: %d %r" % (st, js))
alljobs = js["jobs"]
users = sorted({j["user"] for j in alljobs})
check({"user08", "user16"} <= set(users), "admin sees users %r" % users)
mine = [j for j in alljobs if j["user"] == "user08"]
theirs = [j for j in alljobs if j["user"] == "user16"]
check(mine and theirs, "jobs of both users")
st, _, js = req("GET", "/api/v1/jobs?" + RANGE, who=a)
check(st == 200 and sorted(j["job"] for j in js["jobs"]) == sorted(j["job"] for j in mine),
      "user08's search: %r" % js)
st, _, js = req("GET", "/api/v1/jobs?user=user16&" + RANGE, who=a)
check(st == 200 and all(j["user"] == "user08" for j in js["jobs"]),
      "user08 searching user16's jobs got %r" % js)
st, _, js = req("GET", "/api/v1/jobs?user=user16&" + RANGE, who=admin)
check(st == 200 and js["jobs"] and all(j["user"] == "user16" for j in js["jobs"]),
      "admin search by user")
jid, bid = mine[0]["job"], theirs[0]["job"]
st, hd, js = req("GET", "/api/v1/jobs/%d" % jid, who=a)
check(st == 200 and js.get("job") == jid and hd.get("x-beacon-cache") == "miss",
      "own job: %d %s" % (st, hd.get("x-beacon-cache")))
st, hd, js2 = req("GET", "/api/v1/jobs/%d" % jid, who=a)
check(st == 200 and hd.get("x-beacon-cache") == "hit", "second read not from the cache")
for k in ("read_bytes", "write_bytes", "mode"):
    check(js.get(k) == js2.get(k), "cached report differs in %s" % k)
# the same content as `beacon job ID --json`
cli = json.loads(subprocess.run([os.environ["BCN_BEACON"], "job", str(jid), "--config",
                                 os.environ["BCN_JOB_CONF"], "--json", "--fresh"],
                                capture_output=True, text=True, check=True).stdout)
diff = sorted(k for k in set(cli) | set(js) if k not in ("cached", "computed")
              and cli.get(k) != js.get(k))
check(not diff, "the API's report differs from beacon job's in %s" % diff)
check(set(js) == set(cli), "report keys differ: %s" % (set(js) ^ set(cli)))
st, _, js = req("GET", "/api/v1/jobs/%d" % bid, who=a)
check(st == 404, "user08 reading user16's job: %d" % st)
st, _, js = req("GET", "/api/v1/jobs/999999999", who=a)
check(st == 404, "no such job: %d" % st)
st, _, js = req("GET", "/api/v1/jobs/%d" % bid, who=admin)
check(st == 200 and js.get("user") == "user16", "admin reads user16's job: %d" % st)
for q, param in (("limit=0", "limit"), ("limit=abc", "limit"), ("from=yesterday", "from"),
                 ("to=1", "to"), ("mode=N-2", "mode"), ("offset=-1", "offset"),
                 ("state=NOPE", "state"), ("bogus=1", "bogus"), ("user=a%27b", "user"),
                 ("from=0&to=2000000000", "from"), ("limit=1&limit=5000", "limit"), ("limit=" + "9" * 300, "limit")):
    st, _, js = req("GET", "/api/v1/jobs?" + q, who=admin)
    check(st == 400 and js.get("param") == param, "jobs?%s: %d %r" % (q[:40], st, js))

# --- series -------------------------------------------------------------
ja = mine[0]
a_nodes = expand(ja["nodelist"])
b_nodes = [n for j in theirs for n in expand(j["nodelist"])]
b_only = [n for n in b_nodes if n not in {x for j in mine for x in expand(j["nodelist"])}]
s, e = iso(ja["start"]), iso(ja["end"])
q = "/api/v1/series?layer=client&entity=%s&from=%d&to=%d&step=1s" % (a_nodes[0], s, e)
st, _, js = req("GET", q, who=a)
check(st == 200 and js.get("points"), "own node series: %d %r" % (st, str(js)[:200]))
st, _, js = req("GET", q.replace(a_nodes[0], b_only[0]), who=a)
check(st == 403 and js.get("param") == "entity", "series of user16's node: %d %r" % (st, js))
st, _, js = req("GET", q.replace(a_nodes[0], b_only[0]), who=admin)
check(st == 200, "admin series of any node: %d" % st)
q2 = "/api/v1/series?layer=client&entity=%s&from=%d&to=%d&step=1s" % (a_nodes[0], s - 3600, e)
st, _, js = req("GET", q2, who=a)
check(st == 403 and js.get("param") == "from", "series outside the window: %d %r" % (st, js))
st, _, js = req("GET", "/api/v1/series?layer=switch&entity=sw1/1&from=%d&to=%d" % (s, e), who=a)
check(st == 403, "user series of a switch: %d" % st)
rj = req("GET", "/api/v1/jobs/%d" % jid, who=a)[2]
for o in rj.get("osts", [])[:1]:
    st, _, js = req("GET", "/api/v1/series?layer=ost&entity=%s&from=%d&to=%d&step=5s"
                    % (o["target"], s, e), who=a)
    check(st == 200, "series of an OST of the user's job: %d %r" % (st, js))
for qs, param in (("layer=disk&entity=x", "layer"), ("layer=ost", "entity"),
                  ("layer=ost&entity=x&step=0", "step"), ("layer=ost&entity=x&step=1s&from=1600000000&to=1700000000", "from"),
                  ("layer=ost&entity=x&step=1s&from=%d&to=%d" % (s - 86400, s), "step"),
                  ("layer=ost&entity=x&step=1.5", "step"), ("layer=ost&entity=a%22b", "entity"),
                  ("layer=ost&entity=x&part=all", "part")):
    st, _, js = req("GET", "/api/v1/series?" + qs, who=admin)
    check(st == 400 and (param is None or js.get("param") == param),
          "series?%s: %d %r" % (qs[:50], st, js))

# --- overview, heatmap ----------------------------------------------------
mid = (s + e) // 2
st, _, ov = req("GET", "/api/v1/overview?to=%d&window=20s" % mid, who=admin)
check(st == 200 and ov.get("ost") and ov.get("forward"), "admin overview: %d %r" % (st, str(ov)[:300]))
st, _, ovu = req("GET", "/api/v1/overview?to=%d&window=20s" % mid, who=a)
check(st == 200, "user overview: %d" % st)
allowed_ost = {o["target"] for j in mine
               for o in req("GET", "/api/v1/jobs/%d" % j["job"], who=a)[2].get("osts", [])}
check({x["entity"] for x in ovu.get("ost", [])} <= allowed_ost,
      "user overview shows OSTs of no job of theirs: %r" % ovu.get("ost"))
check(ovu.get("ost") or ovu.get("forward"), "user overview of their own job is empty: %r" % ovu)
fwd = rj.get("forwarding", [])
check(fwd, "the report names no forwarding node")
for f_ in fwd[:1]:
    st, _, js = req("GET", "/api/v1/series?layer=forward&entity=%s&from=%d&to=%d&step=5s"
                    % (f_["node"], s, e), who=a)
    check(st == 200 and js.get("points"), "series of the job's forwarding node: %d %r" % (st, str(js)[:200]))
st, _, ovl = req("GET", "/api/v1/overview?to=%d&window=20s" % (s - 1800), who=a)
check(st == 200 and not ovl["ost"] and not ovl["forward"], "user overview outside their jobs: %r" % ovl)
st, _, js = req("GET", "/api/v1/overview?window=2d", who=admin)
check(st == 400 and js.get("param") == "window", "overview window bound: %r" % js)
st, _, hm = req("GET", "/api/v1/heatmap?layer=ost&from=%d&to=%d" % (s - 3600, e + 3600), who=admin)
check(st == 200 and hm.get("components") and max(max(c["peak"]) for c in hm["components"]) > 0,
      "heatmap: %d %r" % (st, str(hm)[:300]))
st, _, hmu = req("GET", "/api/v1/heatmap?layer=ost&from=%d&to=%d" % (s - 3600, e + 3600), who=a)
check(st == 200 and {c["entity"] for c in hmu["components"]} <= allowed_ost, "user heatmap: %r" % hmu)
st, _, js = req("GET", "/api/v1/heatmap?layer=ost&from=%d&to=%d" % (s - 30 * 86400, s), who=admin)
check(st == 400 and js.get("param") == "from", "heatmap range bound: %r" % js)
st, _, js = req("GET", "/api/v1/heatmap?layer=switch", who=admin)
check(st == 400 and js.get("param") == "layer", "heatmap layer: %r" % js)

# --- forwarding nodes' latency and queue length, MDT clients -------------
def query(*args):
    """The records `beacon query` prints for args, parsed."""
    out = subprocess.run([os.environ["BCN_BEACON"], "query", "--config", os.environ["BCN_JOB_CONF"]]
                         + list(args), capture_output=True, text=True, check=True).stdout
    return [json.loads(x) for x in out.splitlines() if x.strip()]


def rec_t(r):
    """A record's t (ns since the epoch, as beacon query prints it) in
    seconds."""
    return r["t"] / 1e9


def fwd_stats(recs):
    """{node: (lat mean, lat max, queue mean, queue max)} of the class-all
    fwd_req records, merged as counts and sums."""
    acc = {}
    for r in recs:
        if r.get("type") != "fwd_req" or r.get("class") != "all":
            continue
        a = acc.setdefault(r["node"], [0, 0, None, 0, 0, None])
        la, qu = r["latency"], r["queue"]
        a[0] += la["count"]; a[1] += la["sum"]
        if la["count"]:
            a[2] = max(a[2] or 0, la["max"])
        a[3] += qu["count"]; a[4] += qu["sum"]
        if qu["count"]:
            a[5] = max(a[5] or 0, qu["max"])
    return {n: (a[1] / a[0] if a[0] else None, a[2], a[4] / a[3] if a[3] else None, a[5])
            for n, a in acc.items()}


def close(x, y, tol):
    return (x is None and y is None) or (x is not None and y is not None and abs(x - y) <= tol)


want = fwd_stats(query("--layer", "forward", "--from", str(mid - 20), "--to", str(mid)))
check(want and any(v[0] for v in want.values()) and any(v[2] is not None for v in want.values()),
      "the simulator's fwd_req records carry no latency or queue samples: %r" % want)
got = {x["entity"]: x for x in ov["forward"]}
check(set(got) == set(want), "overview forwarding nodes %s, records of %s" % (sorted(got), sorted(want)))
for n, (lm, lx, qm, qx) in want.items():
    x = got.get(n, {})
    check(close(x.get("latency_mean_us"), lm, 0.06) and x.get("latency_max_us") == lx
          and close(x.get("queue_mean"), qm, 0.006) and x.get("queue_max") == qx,
          "overview latency/queue of %s: %r, records give %r" % (n, x, (lm, lx, qm, qx)))
for x in ovu.get("forward", []):
    check("latency_mean_us" in x and "queue_max" in x, "user overview lacks latency/queue: %r" % x)
# a forwarding node's series: per 5 s bucket, as the records give them
fnode = fwd[0]["node"] if fwd else None
if fnode:
    st, _, js = req("GET", "/api/v1/series?layer=forward&entity=%s&from=%d&to=%d&step=5s" % (fnode, s, e), who=a)
    per = {}
    for r in query("--layer", "forward", "--entity", fnode, "--from", str(s), "--to", str(e)):
        per.setdefault(r["t"] // 10**9 // 5 * 5, []).append(r)
    pts = {iso(p_["t"]): p_ for p_ in js.get("points", [])}
    check(st == 200 and any("latency_mean_us" in p_ for p_ in pts.values()),
          "forward series without latency: %d %r" % (st, str(js)[:300]))
    for b_, rs in per.items():
        w = fwd_stats(rs).get(fnode)
        p_ = pts.get(b_, {})
        if not w:
            continue
        check(close(p_.get("latency_mean_us"), w[0], 0.06) and p_.get("latency_max_us") == w[1]
              and close(p_.get("queue_mean"), w[2], 0.006) and p_.get("queue_max") == w[3],
              "series bucket %d of %s: %r, records give %r" % (b_, fnode, p_, w))
# MDT clients: storefill's export records (web_api.sh), an hour's window
fill = [r for r in query("--layer", "mds", "--part", "client", "--from", os.environ["BCN_FILL_FROM"],
                         "--to", os.environ["BCN_FILL_TO"])]
check(len(fill) >= 20, "storefill stored %d export records of MDTs" % len(fill))
ts = sorted(rec_t(r) for r in fill)
to_c = max((int(t_) + 1 for t_ in ts), key=lambda t1: sum(1 for t_ in ts if t1 - 3600 <= t_ < t1))
MD_NOT_META = ("read", "write", "punch")
byc = {}
for r in fill:
    if to_c - 3600 <= rec_t(r) < to_c:
        ops = r.get("ops", {})
        byc[r["client"]] = byc.get(r["client"], 0) + sum(v for k, v in ops.items() if k not in MD_NOT_META)
fwdmap = {}
for line in open(os.path.join(T, "sim", "slurm", "fwdmap.txt")):
    if line.strip() and not line.startswith("#"):
        hl, fw = line.split()[:2]
        for n in expand(hl):
            fwdmap[n] = fw
grp = {}
for c, v in byc.items():
    g = fwdmap.get(c.split("@")[0], c)
    grp[g] = grp.get(g, 0) + v
st, _, ovc = req("GET", "/api/v1/overview?to=%d&window=1h" % to_c, who=admin)
mdt = [x for x in ovc.get("mds", []) if x["entity"] == "lustre-MDT0000"]
check(st == 200 and mdt and ovc.get("groups_by") == "fwd" and ovc.get("map_truncated") is False
      and ovc.get("clients_truncated") is False, "admin overview of storefill's hour: %d %r" % (st, str(ovc)[:300]))
if mdt:
    m = mdt[0]
    gotc = {x["client"]: x["meta_ops_rate"] for x in m.get("clients", [])}
    check(len(byc) >= 2 and set(gotc) == set(byc) and all(abs(gotc[c] - byc[c] / 3600) < 0.006 for c in byc),
          "MDT clients %r, records give %r ops" % (gotc, byc))
    check([x["client"] for x in m["clients"]] == sorted(byc, key=lambda c: (-byc[c], c)),
          "MDT clients not busiest first: %r" % m["clients"])
    gotg = {x["group"]: x["meta_ops_rate"] for x in m.get("groups", [])}
    check(set(gotg) == set(grp) and all(abs(gotg[g] - grp[g] / 3600) < 0.006 for g in grp)
          and m.get("groups_others") == 0 and m.get("clients_others") == 0,
          "MDT client groups %r, records and the map give %r ops" % (gotg, grp))
    check(any(g.startswith("fwd") for g in grp), "no client of storefill's is in the map: %r" % grp)
st, _, ovn = req("GET", "/api/v1/overview?to=%d&window=1h&group=nid" % to_c, who=admin)
mn = [x for x in ovn.get("mds", []) if x["entity"] == "lustre-MDT0000"]
check(st == 200 and ovn.get("groups_by") == "nid" and mn and
      {x["group"] for x in mn[0]["groups"]} == set(byc), "group=nid: %r" % str(ovn)[:300])
st, _, js = req("GET", "/api/v1/overview?group=job", who=admin)
check(st == 400 and js.get("param") == "group", "overview group=job: %d %r" % (st, js))
# a plain user never gets the per-client data, not even of an MDT of theirs
for who_, name in ((a, "user08"), (b, "user16")):
    for q_ in ("to=%d&window=1h" % to_c, "to=%d&window=20s" % mid):
        st, _, js = req("GET", "/api/v1/overview?" + q_, who=who_)
        leak = [x for x in js.get("mds", []) if {"clients", "groups"} & set(x)]
        check(st == 200 and not leak and not {"groups_by", "clients_truncated", "map_truncated"} & set(js),
              "%s's overview carries client data: %r" % (name, str(js)[:300]))

# --- anomalies, CSRF ------------------------------------------------------
st, _, js = req("GET", "/api/v1/anomalies", who=admin)
check(st == 200 and js["count"] == 2, "admin anomalies: %r" % js)
ids = {x["id"]: x for x in js.get("anomalies", [])}
mine_ids = {j["job"] for j in mine}
st, _, js = req("GET", "/api/v1/anomalies", who=a)
check(st == 200 and js["count"] == 1 and set(js["anomalies"][0]["jobs"]) <= mine_ids,
      "user08's anomalies: %r" % js)
st, _, js = req("GET", "/api/v1/anomalies?job=%d" % bid, who=a)
check(st == 200 and js["count"] == 0, "user08 asking for user16's job's anomalies: %r" % js)
# a user's page counts only their anomalies, whatever comes first overall
for who_, name in ((a, "user08"), (b, "user16")):
    st, _, js = req("GET", "/api/v1/anomalies?limit=1", who=who_)
    check(st == 200 and js["count"] == 1, "%s's first page of one: %r" % (name, js))
    st, _, js = req("GET", "/api/v1/anomalies?limit=1&offset=1", who=who_)
    check(st == 200 and js["count"] == 0, "%s's second page of one: %r" % (name, js))
# one anomaly by id: the administrator any, a user only theirs (else 404)
for aid_, x in ids.items():
    st, _, js = req("GET", "/api/v1/anomalies/%d" % aid_, who=admin)
    check(st == 200 and js.get("id") == aid_ and js.get("kind") == x["kind"]
          and js.get("jobs") == x["jobs"], "admin anomaly %d: %d %r" % (aid_, st, js))
    ours = set(x["jobs"]) <= mine_ids
    st, _, js = req("GET", "/api/v1/anomalies/%d" % aid_, who=a)
    check(st == (200 if ours else 404) and (not ours or js.get("id") == aid_),
          "user08 anomaly %d (%s): %d %r" % (aid_, "theirs" if ours else "another's", st, js))
st, _, js = req("GET", "/api/v1/anomalies/%d" % (max(ids) + 1000), who=admin)
check(st == 404, "no such anomaly: %d %r" % (st, js))
st, _, js = req("GET", "/api/v1/anomalies/%d" % min(ids))
check(st == 401, "anonymous anomaly: %d" % st)
st, _, js = req("GET", "/api/v1/anomalies?state=open&kind=slow_ost&limit=5", who=admin)
check(st == 200 and js["count"] == 2, "anomaly filters: %r" % js)
for qs, param in (("kind=a%20b", "kind"), ("limit=100000", "limit"), ("job=x", "job")):
    st, _, js = req("GET", "/api/v1/anomalies?" + qs, who=admin)
    check(st == 400 and js.get("param") == param, "anomalies?%s: %d %r" % (qs, st, js))
st, _, js = req("POST", "/api/v1/anomalies/1/ack", who=a)
check(st == 403, "a user acknowledging: %d" % st)
st, _, js = req("POST", "/api/v1/anomalies/1/ack", who=admin, headers={"X-CSRF-Token": ""})
check(st == 403 and js.get("param") == "X-CSRF-Token", "ack without CSRF: %d %r" % (st, js))
st, _, js = req("POST", "/api/v1/anomalies/1/ack", who=admin, headers={"X-CSRF-Token": a["csrf"]})
check(st == 403, "ack with another session's CSRF token: %d" % st)
st, _, js = req("POST", "/api/v1/anomalies/999/ack", who=admin)
check(st == 404, "ack of no anomaly (with CSRF): %d %r" % (st, js))
aid = min(ids) if ids else 1
st, _, js = req("POST", "/api/v1/anomalies/%d/ack" % aid, who=admin)
check(st == 200 and js.get("acked_by") == "admin", "ack: %d %r" % (st, js))
st, _, js = req("GET", "/api/v1/anomalies?state=acknowledged", who=admin)
check(st == 200 and js["count"] == 1 and js["anomalies"][0]["id"] == aid, "acknowledged: %r" % js)
st, _, js = req("POST", "/api/v1/anomalies/%d/ack" % aid, who=admin)
check(st == 404, "a second ack: %d" % st)

# --- gzip -----------------------------------------------------------------
st, hd, js = req("GET", "/api/v1/openapi.json", headers={"Accept-Encoding": "gzip"})
check(hd.get("content-encoding") == "gzip" and st == 200, "no gzip: %r" % hd)
st, hd, js = req("GET", "/api/v1/openapi.json", headers={"Accept-Encoding": "gzip;q=0"})
check("content-encoding" not in hd, "gzip despite q=0")
out = subprocess.run(["curl", "-s", "--compressed", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                      "http://127.0.0.1:%d/api/v1/openapi.json" % PORT], capture_output=True, text=True).stdout
check(out.startswith("200 "), "curl --compressed: %s" % out)

# --- static files -----------------------------------------------------------
st, _, body = req("GET", "/")
check(st == 200 and b"beacon" in body, "index.html: %d" % st)
for path in ("/../secret.txt", "/sub/../../secret.txt", "/%2e%2e/secret.txt", "/.hidden",
             "/sub/link.txt", "/..%2fsecret.txt"):
    out = subprocess.run(["curl", "-s", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}",
                          "http://127.0.0.1:%d%s" % (PORT, path)], capture_output=True, text=True).stdout
    check(out in ("403", "404", "400"), "static %s: %s" % (path, out))
st, _, body = req("GET", "/nothing.html")
check(st == 404, "missing static file: %d" % st)

# --- bodies -----------------------------------------------------------------
st, _, js = req("POST", "/api/v1/login", body="x" * 100000,
                headers={"Content-Type": "application/json"})
check(st == 413, "oversized body: %d" % st)
s1 = socket.create_connection(("127.0.0.1", PORT))
s1.sendall(b"POST /api/v1/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
           b"Content-Type: application/json\r\n\r\n")
for _ in range(3):
    s1.sendall(b"800\r\n" + b"y" * 0x800 + b"\r\n")
s1.sendall(b"0\r\n\r\n")
s1.settimeout(10)
check(b" 413 " in s1.recv(4096), "oversized chunked body")
s1.close()
st, _, js = req("POST", "/api/v1/login", body="{", headers={"Content-Type": "application/json"})
check(st == 400, "bad JSON log-in: %d" % st)
st, _, js = req("POST", "/api/v1/login", body="user=x", headers={"Content-Type": "text/plain"})
check(st == 415, "text log-in: %d" % st)
c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
c.request("GET", "/api/v1/jobs?x=" + "a" * 70000)
r = c.getresponse()
check(r.status in (400, 414, 431), "huge URL: %d" % r.status)
c.close()

# --- log-in rate limit ---------------------------------------------------------
codes = [req("POST", "/api/v1/login", {"user": "user16", "password": "wrong-password"})[0]
         for _ in range(5)]
check(codes[:3] == [401, 401, 401] and codes[3] == 429, "rate limit: %r" % codes)
pw = open("%s/pw.user16" % T).read().strip()
st, hd, js = req("POST", "/api/v1/login", {"user": "user16", "password": pw})
check(st == 429 and int(hd.get("retry-after", "0")) > 0, "the right password while limited: %d" % st)
st, _, js = req("GET", "/api/v1/me", who=b)
check(st == 200, "an existing session still works: %d" % st)
st, _, js = req("POST", "/api/v1/login", {"user": "user08",
                                          "password": open("%s/pw.user08" % T).read().strip()})
check(st == 200, "another user from the same address: %d" % st)
# an address gets 4 times a user's failures, whatever the names
codes = [req("POST", "/api/v1/login", {"user": "nobody%d" % i, "password": "wrong-password"},
             src="127.0.0.2")[0] for i in range(13)]
check(codes[:12] == [401] * 12 and codes[12] == 429, "per-address limit: %r" % codes)
st, _, js = req("POST", "/api/v1/login", {"user": "user08", "password": "x" * 8}, src="127.0.0.3")
check(st == 401, "other addresses are not limited: %d" % st)
# the proxy's header is ignored unless configured
st, _, js = req("GET", "/api/v1/me", headers={"X-Remote-User": "admin"})
check(st == 401, "X-Remote-User honoured by default: %d" % st)

# --- log out ----------------------------------------------------------------
st, _, js = req("POST", "/api/v1/logout", who=b, headers={"X-CSRF-Token": "0" * 64})
check(st == 403, "log-out with a wrong CSRF token: %d" % st)
st, hd, js = req("POST", "/api/v1/logout", who=b)
check(st == 200 and "Max-Age=0" in hd.get("set-cookie", ""), "log-out: %d" % st)
st, _, js = req("GET", "/api/v1/me", who=b)
check(st == 401, "session after log-out: %d" % st)

# --- slow and idle clients ------------------------------------------------------
idle = [socket.create_connection(("127.0.0.1", PORT)) for _ in range(30)]
slow = socket.create_connection(("127.0.0.1", PORT))
slow.sendall(b"GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\n")        # never ends
t0 = time.time()
st, _, js = req("GET", "/api/v1/me", who=a)
check(st == 200 and time.time() - t0 < 2, "served while slow and idle clients wait: %d" % st)
slow.settimeout(10)
try:
    data = slow.recv(4096)
    waited = time.time() - t0
    check(data == b"" or b" 408 " in data or b"HTTP/1.1" in data, "slow client got %r" % data[:60])
    check(waited < 8, "the slow client was cut after %.1f s" % waited)
except (socket.timeout, ConnectionResetError) as ex:
    check(isinstance(ex, ConnectionResetError), "the slow client was not cut off")
for s_ in idle:
    s_.close()
slow.close()
st, _, js = req("GET", "/api/v1/me", who=a)
check(st == 200, "served after the idle clients: %d" % st)
# a thousand connections from one address: those beyond its limit are
# closed at once, and other addresses are served meanwhile
flood = []
for _ in range(1000):
    try:
        flood.append(socket.create_connection(("127.0.0.1", PORT), timeout=5))
    except OSError:
        pass
t0 = time.time()
st, _, js = req("GET", "/api/v1/me", who=a, src="127.0.0.4")
check(st == 200 and time.time() - t0 < 2, "served during a flood of idle connections: %d" % st)
closed = 0
for s_ in flood[100:200]:
    s_.settimeout(0.2)
    try:
        closed += s_.recv(1) == b""
    except (socket.timeout, ConnectionResetError):
        closed += 0
check(closed >= 90, "connections beyond the per-address limit left open: %d of 100 closed" % closed)
for s_ in flood:
    s_.close()
time.sleep(0.5)
st, _, js = req("GET", "/api/v1/me", who=a)
check(st == 200, "served after the flood: %d" % st)

if bad:
    print("%d failures" % len(bad), file=sys.stderr)
    sys.exit(1)
print("web_api_client: all checks passed")
