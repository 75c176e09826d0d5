"""The collectors' health in beacon-web's /metrics (docs/collectors.md,
"Health"; docs/api.md, "Metrics"), run by web_metrics.sh once beacon-ostd
has sent health records through the log server: prometheus_client's
parser reads the exposition.

usage: collector_health_check.py PHASE WEB_PORT NODE [STATS_FILE]
  running  the collector reports, connected, with records
  stopped  after SIGTERM: its last health record counts no more than
           the daemon's own exit statistics (STATS_FILE)
  silent   its health record is older than web_collector_silent
  garbage  two bad entries in the hash count as unreadable, and the
           collector's series are still there
  redis_down  Redis stopped: the exposition says so, and still answers
  redis_back  Redis restarted (its AOF kept the hashes): beacon-web
           reconnected and reads the collectors again
Exits 0 when the phase's checks hold, 1 with a message when they do
not, 3 when they do not hold yet (the caller retries)."""
import http.client
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

phase, port, node = sys.argv[1], int(sys.argv[2]), sys.argv[3]
PROG = "beacon-ostd"


def scrape():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                   source_address=("127.0.0.2", 0))
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read().decode()
    if r.status != 200:
        sys.exit(f"FAIL: /metrics answered {r.status}: {body[:200]}")
    v = {}
    for fam in text_string_to_metric_families(body):
        for s in fam.samples:
            v[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return v


def get(v, name, **labels):
    return v.get((name, tuple(sorted(labels.items()))))


def need(cond, what):
    if not cond:
        print(f"not yet: {what}", file=sys.stderr)
        sys.exit(3)


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


v = scrape()
mine = {"node": node, "program": PROG}
if phase == "running":
    need(get(v, "beacon_collectors", program=PROG) == 1, "one beacon-ostd")
    need((get(v, "beacon_collector_records_total", **mine) or 0) > 0,
         "records counted")
    check(get(v, "beacon_collector_connected", **mine) == 1, "connected")
    check(get(v, "beacon_collectors_silent", program=PROG) == 0, "not silent")
    check(get(v, "beacon_collectors_disconnected", program=PROG) == 0,
          "not disconnected")
    check(get(v, "beacon_collector_dropped_records_total", **mine) == 0,
          "nothing dropped")
    seen = get(v, "beacon_collector_last_seen_seconds", **mine)
    check(seen is not None and seen > 1.6e9, f"last seen {seen}")
elif phase == "stopped":
    st = json.load(open(sys.argv[4]))
    rec = get(v, "beacon_collector_records_total", **mine)
    acked = get(v, "beacon_collector_acked_records_total", **mine)
    check(rec is not None and 0 < rec <= st["records"],
          f"records {rec} against the daemon's {st['records']}")
    check(acked is not None and acked <= rec, f"acked {acked} of {rec}")
    check(get(v, "beacon_collector_sample_errors_total", **mine) ==
          st["sample_errors"] == 0, "sample errors")
elif phase == "silent":
    need(get(v, "beacon_collectors_silent", program=PROG) == 1, "silent")
    check(get(v, "beacon_collectors", program=PROG) == 1, "still counted")
elif phase == "garbage":
    check(get(v, "beacon_collectors_unlisted", reason="unreadable") == 2,
          "two unreadable entries: "
          f"{get(v, 'beacon_collectors_unlisted', reason='unreadable')}")
    check(get(v, "beacon_collectors", program=PROG) == 1, "still one")
    check(get(v, "beacon_collector_records_total", **mine) is not None,
          "its series")
elif phase == "redis_down":
    need(get(v, "beacon_web_backend_up", backend="redis") == 0, "redis down")
    check(get(v, "beacon_web_backend_up", backend="jobdb") == 1, "jobdb up")
elif phase == "redis_back":
    need(get(v, "beacon_web_backend_up", backend="redis") == 1, "redis up")
    need(get(v, "beacon_collectors", program=PROG) == 1, "collector back")
else:
    sys.exit(f"unknown phase {phase}")
