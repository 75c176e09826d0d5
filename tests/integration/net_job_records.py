"""Records and checks of net_job.sh (docs/network.md).

net_job_records.py T A B   writes T/records.jsonl (topology and port
                           records) and T/jobs.csv (jobs 701 at A, 702 at
                           B, 703 at B + 30 min on leaf3's hosts, epoch
                           seconds, 10 minutes each)
net_job_records.py --check T   checks T/a.json, T/b.json (the reports) and
                           T/hot.json (the hot_switch anomalies), T/net.json
                           and T/net_leaf2.json (beacon net --json)
net_job_records.py --web T PORT A   checks beacon-web's network endpoints
                           and who may see them (users admin, alice
                           owning job 701, bob owning 702)
"""
import http.client
import json
import re
import sys

NS = 10**9
RATE = 12500000000                      # 4xEDR, bytes/s
SPINE = "0x00000000000000f1"
HEAVY = (3000000000, 1000000000)        # per minute, a host port of leaf1
LIGHT = (150000000, 50000000)           # the other leaves' host ports
HOT = int(0.96 * RATE) * 60             # leaf2 port 5, per minute


def leaf(i):
    return "0x00000000000000a%d" % i


def build(T, A, B):
    recs = []

    def topo(t, sw, name, port, kind, remote, rport, rname):
        recs.append({"type": "topology", "layer": "switch", "node": "ibmgmt",
                     "t": t * NS,
                     "dur": 0, "job": 0, "switch": sw, "switch_name": name,
                     "port": port, "remote_kind": kind, "remote": remote,
                     "remote_port": rport, "remote_name": rname,
                     "rate": RATE})

    def port(t, sw, p, x, r):
        recs.append({"type": "port", "layer": "switch", "node": "ibmgmt",
                     "t": t * NS,
                     "dur": 60 * NS, "job": 0, "switch": sw, "port": p,
                     "xmit_bytes": x, "rcv_bytes": r,
                     "xmit_pkts": x // 4096, "rcv_pkts": r // 4096,
                     "xmit_wait": 0, "errors": {}})

    hosts = {}
    for i in range(1, 5):
        for p in range(1, 5):
            n = (i - 1) * 4 + p
            h = "cn%02d" % n
            hosts[h] = (leaf(i), p)
            topo(A - 1800, leaf(i), "leaf%d" % i, p, "host",
                 "0x00000000000001%02x" % n, 1, h + " mlx5_0")
        for k, p in enumerate((5, 6)):
            topo(A - 1800, leaf(i), "leaf%d" % i, p, "switch", SPINE,
                 (i - 1) * 2 + k + 1, "spine1")
    for m in range(10):
        t = A + 60 * m
        for h, (sw, p) in hosts.items():
            port(t, sw, p, *(HEAVY if sw == leaf(1) else LIGHT))
        port(t, leaf(1), 5, 1000000000, 1000000000)
        port(t, leaf(1), 6, 1000000000, 1000000000)
        port(t, leaf(2), 5, HOT, 100000000)
        port(t, leaf(2), 6, 20000000, 20000000)
        t = B + 60 * m
        for h, (sw, p) in hosts.items():
            port(t, sw, p, 1000000000, 1000000000)
        # job 703 on leaf3's hosts alone fills leaf3's uplink port 5
        t = B + 1800 + 60 * m
        for h, (sw, p) in hosts.items():
            if sw == leaf(3):
                port(t, sw, p, HOT // 2, 0)
        port(t, leaf(3), 5, HOT, 100000000)
        port(t, leaf(3), 6, 20000000, 20000000)
    recs.sort(key=lambda r: r["t"])
    with open(T + "/records.jsonl", "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    with open(T + "/jobs.csv", "w") as f:
        f.write("job,user,name,nodelist,ntasks,start,end,state\n")
        f.write("701,alice,uneven,cn[01-16],16,%d,%d,COMPLETED\n" % (A, A + 600))
        f.write("702,bob,even,cn[01-16],16,%d,%d,COMPLETED\n" % (B, B + 600))
        f.write("703,bob,flood,cn[09-12],4,%d,%d,COMPLETED\n" % (B + 1800, B + 2400))


def check(T):
    a = json.load(open(T + "/a.json"))
    b = json.load(open(T + "/b.json"))
    bad = []
    na, nb = a["network"], b["network"]
    sw = {s["switch"]: s for s in na["switches"]}
    if sorted(sw) != ["leaf1", "leaf2", "leaf3", "leaf4"]:
        bad.append("switches of A: %s" % sorted(sw))
    else:
        l1, l2, l3 = sw["leaf1"], sw["leaf2"], sw["leaf3"]
        if (l1["xmit_bytes"], l1["rcv_bytes"]) != (40 * HEAVY[0], 40 * HEAVY[1]):
            bad.append("leaf1: %s" % l1)
        if (l3["xmit_bytes"], l3["rcv_bytes"]) != (40 * LIGHT[0], 40 * LIGHT[1]):
            bad.append("leaf3: %s" % l3)
        if l2["uplink_xmit_bytes"] != 10 * (HOT + 20000000) or \
           l2["uplinks"] != 2 or l2["downlinks"] != 4 or \
           l2["job_ports"] != 4 or l2["guid"] != leaf(2):
            bad.append("leaf2: %s" % l2)
        if l1["total_xmit_bytes"] != 40 * HEAVY[0] + 20 * 1000000000:
            bad.append("leaf1 totals: %s" % l1)
    # leaf1 moved 40 * 4e9, the others 40 * 2e8 each: 20 times the median
    if abs(na["imbalance"] - 20.0) > 1e-9 or na["busiest"] != "leaf1":
        bad.append("imbalance of A: %s %s" % (na["imbalance"], na["busiest"]))
    if na["histogram"]["counts"] != [3, 0, 0, 0, 0, 0, 0, 0, 0, 1]:
        bad.append("histogram of A: %s" % na["histogram"])
    fa = [f for f in a["findings"] if f["code"] == "switch_imbalance"]
    if len(fa) != 1 or fa[0]["evidence"]["switch"] != "leaf1" or \
       abs(fa[0]["evidence"]["imbalance"] - 20.0) > 1e-9:
        bad.append("finding of A: %s" % a["findings"])
    if abs(nb["imbalance"] - 1.0) > 1e-9 or \
       [f for f in b["findings"] if f["code"] == "switch_imbalance"]:
        bad.append("B: %s %s" % (nb["imbalance"], b["findings"]))
    hot = {h["component"]: h for h in map(json.loads, open(T + "/hot.json"))}
    h2, h3 = hot.get(leaf(2) + "/5"), hot.get(leaf(3) + "/5")
    if len(hot) != 2 or not h2 or not h3:
        bad.append("hot_switch: %s" % sorted(hot))
    elif not 0.95 < h2["evidence"]["utilisation"] < 0.97:
        bad.append("hot_switch evidence: %s" % h2["evidence"])
    # job 701 runs on leaf2's four hosts, whose ports move far less than
    # the uplink (traffic from elsewhere): named as affected, not accused
    elif h2["jobs"] != [701] or h2["accused"] != []:
        bad.append("hot_switch jobs: %s %s" % (h2["jobs"], h2["accused"]))
    elif not 0 < h2["evidence"]["hosts_pct_of_uplink"] < 50:
        bad.append("hot_switch hosts' share: %s" % h2["evidence"])
    # job 703's hosts under leaf3 send what its uplink carries: accused
    elif h3["jobs"] != [703] or h3["accused"] != [703]:
        bad.append("hot_switch leaf3 jobs: %s %s" % (h3["jobs"], h3["accused"]))
    elif not 50 <= h3["evidence"]["hosts_pct_of_uplink"] <= 200:
        bad.append("hot_switch leaf3 hosts' share: %s" % h3["evidence"])
    bad += check_view(json.load(open(T + "/net.json")), "beacon net")
    bad += check_ports(json.load(open(T + "/net_leaf2.json")), "beacon net --switch")
    if bad:
        print("\n".join(bad))
        sys.exit(1)


def check_view(v, who):
    """The fabric view of job A's 10 minutes: the four leaves (the spine
    sent no port records), their host ports and uplinks."""
    sw = {s["switch"]: s for s in v["switches"]}
    if sorted(sw) != ["leaf1", "leaf2", "leaf3", "leaf4"]:
        return ["%s: switches %s" % (who, sorted(sw))]
    l1 = sw["leaf1"]
    want = (40 * HEAVY[0] + 20 * 1000000000, 20 * 1000000000, 40 * HEAVY[0])
    got = (l1["xmit_bytes"], l1["uplink_xmit_bytes"], l1["downlink_xmit_bytes"])
    if got != want:
        return ["%s: leaf1 %s, want %s" % (who, got, want)]
    if "series" in l1 and sum(x for x, r in l1["series"]) != want[0]:
        return ["%s: leaf1 series %s" % (who, l1["series"])]
    return []


def check_ports(v, who):
    ports = {p["port"]: p for p in v["ports"]}
    if sorted(ports) != [1, 2, 3, 4, 5, 6]:
        return ["%s: ports %s" % (who, sorted(ports))]
    p5 = ports[5]
    if (p5["kind"], p5["remote"], p5["xmit_bytes"], p5["rate"]) != \
       ("switch", "spine1", 10 * HOT, RATE) or ports[1]["remote"] != "cn05":
        return ["%s: port 5 %s, port 1 %s" % (who, p5, ports[1])]
    if len(p5["series"]) != 10 or any(x != HOT for x, r in p5["series"]):
        return ["%s: port 5 series %s" % (who, p5["series"])]
    return []


def web(T, port, A):
    def req(path, who=None, method="GET", body=None):
        h = {}
        if who:
            h["Cookie"] = "beacon_session=" + who
        if body is not None:
            body = json.dumps(body)
            h["Content-Type"] = "application/json"
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data, hd = r.read(), {k.lower(): v for k, v in r.getheaders()}
        c.close()
        try:
            data = json.loads(data)
        except ValueError:
            pass
        return r.status, hd, data

    def login(name):
        pw = open("%s/pw.%s" % (T, name)).read().strip()
        st, hd, js = req("/api/v1/login", method="POST",
                         body={"user": name, "password": pw})
        assert st == 200, (name, st, js)
        return re.match(r"beacon_session=([0-9a-f]{64});",
                        hd["set-cookie"]).group(1)

    bad = []
    admin, alice, bob = login("admin"), login("alice"), login("bob")
    win = "from=%d&to=%d&step=60" % (A, A + 600)
    st, _, v = req("/api/v1/network/switches?" + win, admin)
    bad += ["admin switches: %d %s" % (st, v)] if st != 200 else \
        check_view(v, "web switches")
    st, _, v = req("/api/v1/network/switches/leaf2/series?" + win, admin)
    bad += ["admin leaf2: %d %s" % (st, v)] if st != 200 else \
        check_ports(v, "web leaf2")
    st, _, v = req("/api/v1/network/switches/0x00000000000000a2/series?" + win, admin)
    if st != 200 or v.get("switch") != "leaf2":
        bad.append("leaf2 by GUID: %d %s" % (st, v))
    st, _, v = req("/api/v1/network/switches/nosuch/series?" + win, admin)
    if st != 404:
        bad.append("an unknown switch: %d %s" % (st, v))
    st, _, v = req("/api/v1/network/switches/a%2Fb/series?" + win, admin)
    if st != 400:
        bad.append("a bad switch name: %d %s" % (st, v))
    # a plain user sees no fabric view, not even of her job's switches
    for path in ("/api/v1/network/switches?" + win,
                 "/api/v1/network/switches/leaf1/series?" + win):
        st, _, v = req(path, alice)
        if st != 403:
            bad.append("alice got %s: %d" % (path, st))
    st, _, v = req("/api/v1/network/switches?" + win)
    if st != 401:
        bad.append("anonymous switches: %d" % st)
    # her job's network part, and not bob's job's
    st, _, v = req("/api/v1/jobs/701", alice)
    if st != 200 or abs(v["network"]["imbalance"] - 20.0) > 1e-9:
        bad.append("alice's job 701: %d %s" % (st, v.get("network") if st == 200 else v))
    st, _, v = req("/api/v1/jobs/701", bob)
    if st != 404 or "network" in v:
        bad.append("bob reading alice's job: %d" % st)
    if bad:
        print("\n".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2])
    elif sys.argv[1] == "--web":
        web(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        build(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
