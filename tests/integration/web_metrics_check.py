#!/usr/bin/env python3
"""The checks of tests/integration/web_metrics.sh against a running
beacon-web: web_metrics_check.py T PORT (passwords in T/pw.NAME; the
environment names the Redis and log server ports, beacon, lateframe and
the MariaDB socket). The exposition is parsed by a strict parser of the
text format 0.0.4 written here and by prometheus_client's (the oracle);
both must agree. Exits 1 with the failures listed."""
import http.client
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime

from prometheus_client.parser import text_string_to_metric_families

T, PORT = sys.argv[1], int(sys.argv[2])
RP = os.environ["BCN_REDIS_PORT"]
LP = os.environ["BCN_LOGSRV_PORT"]
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)
        print("FAIL:", what, file=sys.stderr)


def req(method, path, body=None, who=None, src="127.0.0.1"):
    h = {}
    if who:
        h["Cookie"] = "beacon_session=" + who["token"]
        if method == "POST":
            h["X-CSRF-Token"] = who["csrf"]
    if body is not None:
        body = json.dumps(body)
        h["Content-Type"] = "application/json"
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60,
                                   source_address=(src, 0))
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    hd = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    return r.status, hd, data


def login(name):
    pw = open("%s/pw.%s" % (T, name)).read().strip()
    st, hd, js = req("POST", "/api/v1/login", {"user": name, "password": pw})
    assert st == 200, (name, st, js)
    tok = re.match(r"beacon_session=([0-9a-f]{64});", hd["set-cookie"]).group(1)
    return {"token": tok, "csrf": json.loads(js)["csrf"]}


METRIC = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LVAL = r'"((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(r"^(%s)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*=%s,?)*)\})? "
                    r"([-+]?(?:[0-9.]+(?:e[-+]?[0-9]+)?|Inf|NaN))$"
                    % (METRIC, LVAL))
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)=%s,?' % LVAL)


def unescape(v):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def strict(text):
    """{(name, frozenset(labels)): value}, checking the format strictly:
    HELP and TYPE once per family and before its samples, the samples of
    a family together, histograms cumulative with +Inf equal to _count."""
    out, families, typ, done, cur = {}, {}, {}, set(), None
    check(text.endswith("\n"), "the exposition does not end with a newline")
    for ln in text.split("\n")[:-1]:
        m = re.match(r"^# (HELP|TYPE) (%s) (.+)$" % METRIC, ln)
        if m:
            kind, name, rest = m.groups()
            check(name not in done, "family %s comes back after others" % name)
            families.setdefault(name, set())
            check(kind not in families[name], "two %s lines for %s" % (kind, name))
            families[name].add(kind)
            if kind == "TYPE":
                check(rest in ("counter", "gauge", "histogram"), "type %r" % rest)
                typ[name] = rest
            if cur and cur != name:
                done.add(cur)
            cur = name
            continue
        m = SAMPLE.match(ln)
        check(m is not None, "not a sample line: %r" % ln)
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2) or "", m.group(4)
        base = re.sub(r"_(bucket|sum|count)$", "", name) if \
            typ.get(re.sub(r"_(bucket|sum|count)$", "", name)) == "histogram" else name
        check(base == cur, "sample %s outside its family %s" % (name, cur))
        check(families.get(base) == {"HELP", "TYPE"}, "%s lacks HELP or TYPE" % base)
        lab = frozenset((k, unescape(v)) for k, v in LABEL.findall(labels))
        key = (name, lab)
        check(key not in out, "sample %s %s twice" % key)
        out[key] = float(value)
    for (name, lab), v in out.items():
        if name.endswith("_count") and typ.get(name[:-6]) == "histogram":
            base = name[:-6]
            bk = sorted(((float(dict(l)["le"]), w) for (n, l), w in out.items()
                         if n == base + "_bucket" and
                         frozenset(x for x in l if x[0] != "le") == lab))
            check(bk and bk[-1][0] == float("inf") and bk[-1][1] == v,
                  "%s: +Inf bucket is not the count" % base)
            check(all(bk[i][1] <= bk[i + 1][1] for i in range(len(bk) - 1)),
                  "%s: buckets not cumulative" % base)
    return out


def oracle(text):
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = float(s.value)
    return out


def scrape(src="127.0.0.2", who=None):
    st, hd, data = req("GET", "/metrics", who=who, src=src)
    assert st == 200, (st, data)
    check(hd["content-type"].startswith("text/plain; version=0.0.4"),
          "content type %s" % hd["content-type"])
    text = data.decode()
    mine, theirs = strict(text), oracle(text)
    check(mine == theirs, "the strict parser and prometheus_client disagree: %s"
          % (set(mine.items()) ^ set(theirs.items())))
    return mine


def val(m, name, **labels):
    return m.get((name, frozenset(labels.items())), 0.0)


def reqs(m, endpoint, status, method="GET"):
    return val(m, "beacon_web_requests_total", endpoint=endpoint,
               method=method, status=status)


def hcount(m, endpoint, status, method="GET"):
    return val(m, "beacon_web_request_duration_seconds_count",
               endpoint=endpoint, method=method, status=status)


def redis(*args):
    return subprocess.run(["redis-cli", "-p", RP] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


def send_ost(target, t, nbytes, seq):
    f = "%s/late%d.bin" % (T, seq)
    subprocess.run([os.environ["BCN_LATEFRAME"], f, "oss9", str(seq), "0",
                    str(t), str(nbytes), "ost", target], check=True)
    subprocess.run([os.environ["BCN_BEACON"], "replay", "--to", "127.0.0.1:" + LP,
                    "--key", T + "/key", f], check=True, capture_output=True)
    for _ in range(400):
        if redis("LLEN", "bcn:queue") == "0":
            return
        time.sleep(0.05)
    check(False, "the late frame did not leave the queue")


admin, user = login("admin"), login("user02")

# access, and the OpenAPI document names the path
check("/metrics" in json.loads(req("GET", "/api/v1/openapi.json")[2])["paths"],
      "openapi.json lacks /metrics")
check(req("GET", "/metrics")[0] == 403, "anonymous from 127.0.0.1 got the metrics")
check(req("GET", "/metrics", who=user)[0] == 403, "a user got the metrics")
check(req("GET", "/metrics", who=admin)[0] == 200, "an administrator did not")
check(req("POST", "/metrics", src="127.0.0.2")[0] == 405, "POST /metrics")

# counters: the requests made between two scrapes, exactly
m0 = scrape()
for _ in range(3):
    check(req("GET", "/api/v1/jobs", who=admin)[0] == 200, "jobs")
for _ in range(2):
    check(req("GET", "/api/v1/jobs/999999", who=admin)[0] == 404, "no job")
check(req("GET", "/api/v1/nope", who=admin)[0] == 404, "unknown path")
check(req("POST", "/api/v1/login", {"user": "admin", "password": "wrong"})[0] == 401,
      "a wrong password")
check(req("GET", "/api/v1/jobs", who=admin, src="127.0.0.2")[0] == 200, "jobs")
m1 = scrape(src="127.0.0.1", who=admin)
for ep, st, method, n in (("/api/v1/jobs", "2xx", "GET", 4),
                          ("/api/v1/jobs/#", "4xx", "GET", 2),
                          ("/api/v1/login", "4xx", "POST", 1),
                          ("/api/v1/jobs", "4xx", "GET", 0)):
    d = reqs(m1, ep, st, method) - reqs(m0, ep, st, method)
    check(d == n, "%s %s %s: %d more, %d made" % (method, ep, st, d, n))
    d = hcount(m1, ep, st, method) - hcount(m0, ep, st, method)
    check(d == n, "%s %s %s: histogram count grew by %d, %d made" % (method, ep, st, d, n))
d = val(m1, "beacon_web_requests_total", endpoint="unmatched", status="4xx") - \
    val(m0, "beacon_web_requests_total", endpoint="unmatched", status="4xx")
check(d == 1, "unmatched: %d" % d)
d = val(m1, "beacon_web_requests_total", endpoint="/metrics", status="2xx") - \
    val(m0, "beacon_web_requests_total", endpoint="/metrics", status="2xx")
check(d == 1, "/metrics 2xx grew by %d between two scrapes" % d)
d = val(m1, "beacon_web_login_failures_total") - val(m0, "beacon_web_login_failures_total")
check(d == 1, "login failures grew by %d" % d)

# the report cache: miss, hit, and the counters
jobs = json.loads(req("GET", "/api/v1/jobs", who=admin)[2])["jobs"]
job = next(j for j in jobs if j["nnodes"] == 8)
path = "/api/v1/jobs/%d" % job["job"]
redis("DEL", "beacon:report:%d" % job["job"])
heads = []
for _ in range(2):
    st, hd, data = req("GET", path, who=admin)
    check(st == 200, "report %d" % st)
    heads.append(hd["x-beacon-cache"])
check(heads == ["miss", "hit"], "cache headers %s" % heads)
m2 = scrape()
for res, n in (("hit", 1), ("miss", 1)):
    d = val(m2, "beacon_web_report_cache_total", result=res) - \
        val(m1, "beacon_web_report_cache_total", result=res)
    check(d == n, "cache %s grew by %d" % (res, d))
rep = json.loads(data)
check(rep["osts"], "the job has no OSTs")

# a record of the job's window that does not name it: a miss, new totals
ost = rep["osts"][0]["target"]
before = rep["osts"][0]["total_write_bytes"]
start = int(datetime.fromisoformat(rep["start"].replace("Z", "+00:00")).timestamp())
send_ost(ost, start + 5, 7777777, 1)
check(redis("EXISTS", "beacon:report:%d" % job["job"]) == "1",
      "the cached report was deleted (the test wants the generation's work)")
st, hd, data = req("GET", path, who=admin)
check(hd.get("x-beacon-cache") == "miss", "after a record of the window: %s" % hd.get("x-beacon-cache"))
after = [o for o in json.loads(data)["osts"] if o["target"] == ost]
check(after and after[0]["total_write_bytes"] == before + 7777777,
      "OST total %s, expected %d" % (after and after[0]["total_write_bytes"], before + 7777777))
check(req("GET", path, who=admin)[1].get("x-beacon-cache") == "hit", "not cached again")
# a record three days before: still a hit
send_ost(ost, start - 3 * 86400, 5555, 2)
st, hd, data2 = req("GET", path, who=admin)
check(hd.get("x-beacon-cache") == "hit", "a record of another window made a miss")
a, b = json.loads(data), json.loads(data2)
check(b["cached"] and not a["cached"], "cached flags %s %s" % (a["cached"], b["cached"]))
a.pop("cached"), b.pop("cached")
check(a == b, "the report changed")

# open anomalies by kind, as the database holds them
rows = subprocess.run(["mariadb", "--no-defaults", "--socket=" + os.environ["BCN_DB_SOCK"],
                       "-uroot", "beacon", "-N", "-B", "--raw", "-e",
                       "SELECT kind, COUNT(*) FROM anomalies WHERE state = 'open' GROUP BY kind"],
                      check=True, capture_output=True, text=True).stdout
db = {k: float(n) for k, n in (ln.split("\t") for ln in rows.strip().split("\n"))}
m3 = scrape()
got = {dict(l)["kind"]: v for (n, l), v in m3.items() if n == "beacon_anomalies_open"}
check(got == db and 'we"ird\\k' in got, "open anomalies %s, database %s" % (got, db))
check(val(m3, "beacon_web_backend_up", backend="jobdb") == 1 and
      val(m3, "beacon_web_backend_up", backend="redis") == 1, "backends down")

# the log server: what beacon-sim had acknowledged and the two late frames
sim = [json.loads(ln) for ln in open(T + "/sim.jsonl") if ln.startswith("{")]
sent = sim[-1]["acked_records"] + 2
for _ in range(400):
    if redis("HGET", "bcn:stats", "flushed") == str(sent) and \
            redis("HGET", "bcn:stats", "records_in") == str(sent):
        break
    time.sleep(0.05)
m4 = scrape()
ls = {"logsrv": 'log"srv\\1', "prefix": "bcn"}
for name in ("beacon_logsrv_records_accepted_total", "beacon_logsrv_records_stored_total"):
    check(val(m4, name, **ls) == sent, "%s %s, %d sent" % (name, val(m4, name, **ls), sent))
check(val(m4, "beacon_logsrv_last_seen_seconds", **ls) >= start,
      "last seen %s" % val(m4, "beacon_logsrv_last_seen_seconds", **ls))
for name in ("beacon_logsrv_backlog_frames", "beacon_logsrv_lag_p99_seconds",
             "beacon_logsrv_frames_accepted_total", "beacon_logsrv_connections"):
    check((name, frozenset(ls.items())) in m4, "%s missing" % name)

if bad:
    sys.exit(1)
print("web_metrics_check: all checks ok")
