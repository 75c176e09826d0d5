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
