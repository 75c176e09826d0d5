#!/usr/bin/env python3
"""The measuring half of bench/tracer_bench.sh (which starts beacon-clientd
and reads its records afterwards). Runs each fio workload RUNS times
untraced and RUNS times traced, in ABBA order, and prints per workload:

  overhead    fio's own figure (bandwidth, or files per second), medians,
              as a slowdown in percent; and the CPU time fio's processes
              used per I/O operation, traced minus untraced (the tracer's
              cost, steadier than a rate on a shared machine);
  daemon_cpu  beacon-clientd's CPU time during the traced runs as a share
              of one core.
Then the tracer's cost per call from dd (500,000 sequential 512-byte
writes: almost no records), in CPU nanoseconds.

With --calls, per-call costs instead (bench/tracer_loop_bench.c), for
one or more variants (a tracer and its own daemon: "after", and "before"
when an older build is given), interleaved in one run:

  open_close        ns added per open+close pair of a cached file by the
                    tracer, measured inside one process (blocks through
                    the C library against blocks through syscall(2)),
                    absolute and relative paths, next to Darshan DXT's
                    +539 ns measured in issue 18;
  daemon_ns_per_op  the daemon's CPU time per traced 4 KiB random pread
                    (from its CPU-time clock), and the tracer's cost per
                    pread;
  daemon_at_rate    the same for fio's random 4 KiB reads paced at
                    10,000 a second, and the share of a core that makes.

usage: tracer_bench.py TRACE_SO SOCKET DAEMON_PID DATA_DIR JOBS_FILE RUNS SECONDS
       tracer_bench.py --calls LOOP_PROG DATA_DIR RUNS NAME:TRACE:SOCKET:PID...
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

WORKLOADS = [
    ("seqwrite-1m", "bw", ["--rw=write", "--bs=1M", "--ioengine=psync",
                           "--size=256M"]),
    ("seqread-128k", "bw", ["--rw=read", "--bs=128k", "--ioengine=psync",
                            "--size=256M"]),
    ("randread-4k", "bw", ["--rw=randread", "--bs=4k", "--ioengine=psync",
                           "--size=64M"]),
    ("randwrite-4k-sync", "bw", ["--rw=randwrite", "--bs=4k",
                                 "--ioengine=sync", "--size=64M"]),
    ("mixed-64k-2jobs", "bw", ["--rw=randrw", "--bs=64k",
                               "--ioengine=pvsync", "--size=64M",
                               "--numjobs=2"]),
    ("metadata-filecreate", "iops", ["--ioengine=filecreate",
                                     "--nrfiles=4000", "--filesize=4k",
                                     "--openfiles=1", "--size=16M",
                                     "--create_on_open=1"]),
]


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def daemon_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fio(name, opts, d, secs, env, out):
    c0 = child_cpu()
    subprocess.run(["fio", "--name=" + name, "--directory=" + d] + opts +
                   ["--time_based", "--runtime=%d" % secs,
                    "--output-format=json", "--output=" + out],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    cpu = child_cpu() - c0
    with open(out) as f:
        rep = json.load(f)
    ios = sum(j[op]["total_ios"] for j in rep["jobs"]
              for op in ("read", "write"))
    return rep, cpu, ios


def figure(rep, kind):
    key = "bw_bytes" if kind == "bw" else "iops"
    return sum(j[op][key] for j in rep["jobs"] for op in ("read", "write"))


def workload(args, name, kind, opts, job):
    trace, sock, dpid, data, jobs, runs, secs = args
    d = os.path.join(data, name)
    os.makedirs(d, exist_ok=True)
    subprocess.run(["fio", "--name=" + name, "--directory=" + d] + opts +
                   ["--create_only=1"], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = os.path.join(data, "r.json")
    res = {0: [], 1: []}
    dcpu = dtime = 0.0
    first_job = None
    for i in range(runs):
        for traced in ((0, 1) if i % 2 == 0 else (1, 0)):
            env = dict(os.environ)
            if traced:
                job += 1
                first_job = first_job or job
                env.update(SLURM_JOB_ID=str(job), BEACON_TRACE_SOCKET=sock,
                           LD_PRELOAD=trace)
                c0, t0 = daemon_cpu(dpid), time.monotonic()
            rep, cpu, ios = fio(name, opts, d, secs, env, out)
            if traced:
                dcpu += daemon_cpu(dpid) - c0
                dtime += time.monotonic() - t0
            res[traced].append((figure(rep, kind), cpu / max(ios, 1)))
    # one more traced run with the paper's contiguous-only merge
    job += 1
    env = dict(os.environ, SLURM_JOB_ID=str(job), BEACON_TRACE_SOCKET=sock,
               LD_PRELOAD=trace, BEACON_TRACE_MODE="contig")
    fio(name, opts, d, secs, env, out)
    with open(jobs, "a") as f:
        f.write("%s %d %d\n" % (name, first_job, job))
    mp = statistics.median(x[0] for x in res[0])
    mt = statistics.median(x[0] for x in res[1])
    cp = statistics.median(x[1] for x in res[0])
    ct = statistics.median(x[1] for x in res[1])
    print(json.dumps({
        "bench": "tracer", "metric": "overhead", "workload": name,
        "figure": kind, "runs": runs, "untraced_median": mp,
        "traced_median": mt, "slowdown_pct": round((mp - mt) / mp * 100, 3),
        "cpu_ns_per_io_untraced": round(cp * 1e9, 1),
        "cpu_ns_per_io_traced": round(ct * 1e9, 1),
        "cpu_overhead_pct": round((ct - cp) / cp * 100, 3),
        "target_pct": 0.5, "paper_pct": [0.09, 0.86]}), flush=True)
    print(json.dumps({
        "bench": "tracer", "metric": "daemon_cpu", "workload": name,
        "cpu_share_pct": round(dcpu / dtime * 100, 3) if dtime else 0.0,
        "target_pct": 0.05, "paper_pct": [0.0, 0.1]}), flush=True)
    return job


def cost_per_call(trace, sock, data, runs):
    n = 500000
    cmd = ["dd", "if=/dev/zero", "of=" + os.path.join(data, "dd.out"),
           "bs=512", "count=%d" % n]
    env = dict(os.environ, BEACON_TRACE_SOCKET=sock, LD_PRELOAD=trace)
    res = {0: [], 1: []}
    for i in range(max(runs, 5)):
        for traced in ((0, 1) if i % 2 == 0 else (1, 0)):
            c0 = child_cpu()
            subprocess.run(cmd, env=env if traced else os.environ,
                           check=True, stderr=subprocess.DEVNULL)
            res[traced].append(child_cpu() - c0)
    mp, mt = statistics.median(res[0]), statistics.median(res[1])
    print(json.dumps({"bench": "tracer", "metric": "cost_per_call",
                      "calls": n,
                      "untraced_cpu_ns_per_call": round(mp / n * 1e9, 1),
                      "traced_cpu_ns_per_call": round(mt / n * 1e9, 1),
                      "added_cpu_ns_per_call": round((mt - mp) / n * 1e9, 1)}),
          flush=True)


def load():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def loop(prog, mode, n, path, env, cwd=None):
    out = subprocess.run([prog, mode, str(n), path], env=env, cwd=cwd,
                         check=True, stdout=subprocess.PIPE).stdout
    r = json.loads(out)
    return r["wall_ns"] / n, r["cpu_ns"] / n


def daemon_cpu_ns(pid):
    """The CPU time of process pid (all its threads, user and system) in
    ns, from its CPU-time clock (clock_getcpuclockid's id for pid):
    /proc/PID/stat counts in ticks of 10 ms, 10 ns per operation over a
    million operations."""
    return time.clock_gettime_ns(((~pid) << 3) | 2)


def settle(pid):
    """Waits until the daemon has taken what was sent (its CPU time moves
    by less than 1 ms in 0.2 s: its idle ticks; at most 5 s); returns its
    CPU time in seconds."""
    last, t0 = daemon_cpu_ns(pid), time.monotonic()
    while time.monotonic() - t0 < 5:
        time.sleep(0.2)
        now = daemon_cpu_ns(pid)
        if now - last < 1000000:
            return now / 1e9
        last = now
    return last / 1e9


def ab(prog, n, path, env, cwd=None):
    out = subprocess.run([prog, "openclose-ab", str(n), path], env=env,
                         cwd=cwd, check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def open_close(prog, data, runs, variants, n=200000):
    """Pairs of open and close of one cached file, absolute and relative
    paths, measured inside one process (tracer_loop_bench openclose-ab:
    blocks of 1,000 pairs through the C library, traced under a tracer,
    alternating with blocks through syscall(2), never traced; the median
    of the block differences). Between processes this VM's speed for the
    same loop moves by 25%, far more than the tracer's cost; inside one,
    the blocks see the same layout and caches. Untraced, the difference
    is the C library's wrapper (a few ns): it is taken off. runs rounds,
    the order rotating; medians over them, and the spread (lowest and
    highest round)."""
    path = os.path.join(data, "oc")
    with open(path, "w") as f:
        f.write("x")
    for kind, arg, cwd in (("absolute", path, None), ("relative", "oc", data)):
        cfgs = [("untraced", dict(os.environ))] + [
            (name, dict(os.environ, BEACON_TRACE_SOCKET=sock,
                        LD_PRELOAD=trace))
            for name, trace, sock, _ in variants]
        res = {name: [] for name, _ in cfgs}
        for i in range(runs):
            k = i % len(cfgs)
            for name, env in cfgs[k:] + cfgs[:k]:
                res[name].append(ab(prog, n, arg, env, cwd))
        wrap = statistics.median(x["added_ns_per_pair"]
                                 for x in res["untraced"])
        for name, _ in cfgs[1:]:
            d = [x["added_ns_per_pair"] - wrap for x in res[name]]
            print(json.dumps({
                "bench": "tracer", "metric": "open_close", "path": kind,
                "variant": name, "pairs": n, "runs": runs,
                "method": "in-process blocks, traced against syscall(2)",
                "untraced_ns_per_pair": round(statistics.median(
                    x["direct_ns_per_pair"] for x in res[name]), 1),
                "libc_wrapper_ns_per_pair": round(wrap, 1),
                "added_wall_ns_per_pair": round(statistics.median(d), 1),
                "added_wall_ns_range": [round(min(d), 1), round(max(d), 1)],
                "darshan_dxt_added_wall_ns_per_pair": 539,
                "loadavg": load()}), flush=True)


def daemon_per_op(prog, data, runs, variants, n=1000000):
    """Each variant's daemon CPU time per operation over n random 4 KiB
    preads from the page cache by a program traced with that variant
    (uncompressible: about one record per one or two operations), from
    its CPU-time clock; and the tracer's cost per pread. Interleaved."""
    path = os.path.join(data, "rr")
    with open(path, "wb") as f:
        f.write(os.urandom(64 << 20))
    subprocess.run(["cat", path], check=True, stdout=subprocess.DEVNULL)
    res = {name: [] for name, _, _, _ in variants}
    un = []
    for i in range(runs):
        k = i % len(variants)
        un.append(loop(prog, "pread", n, path, dict(os.environ)))
        for name, trace, sock, pid in variants[k:] + variants[:k]:
            c0 = settle(pid)
            env = dict(os.environ, BEACON_TRACE_SOCKET=sock,
                       LD_PRELOAD=trace)
            w, c = loop(prog, "pread", n, path, env)
            res[name].append(((settle(pid) - c0) / n * 1e9, w, c))
    uw = statistics.median(x[0] for x in un)
    uc = statistics.median(x[1] for x in un)
    for name, _, _, _ in variants:
        print(json.dumps({
            "bench": "tracer", "metric": "daemon_ns_per_op",
            "variant": name, "ops": n, "runs": runs,
            "daemon_cpu_ns_per_op": round(statistics.median(
                x[0] for x in res[name]), 1),
            "daemon_cpu_ns_per_op_all": [round(x[0], 1) for x in res[name]],
            "pread_added_wall_ns": round(statistics.median(
                x[1] for x in res[name]) - uw, 1),
            "pread_added_cpu_ns": round(statistics.median(
                x[2] for x in res[name]) - uc, 1),
            "target_ns_per_record": 100, "loadavg": load()}), flush=True)


def daemon_at_rate(data, runs, variants, iops=10000, secs=5):
    """Each variant's daemon CPU time per operation while fio reads 4 KiB
    at random offsets of the page-cached file at iops operations a second
    (issue 18's measure: a node doing 10,000 uncompressible operations a
    second should cost its daemon under 0.1% of a core). At that pace the
    daemon wakes about a dozen times a second to caches the application
    has cooled, so an operation costs it more than in daemon_per_op's
    burst. The share is the CPU time per operation times iops.
    Interleaved, runs rounds."""
    path = os.path.join(data, "rr")
    res = {name: [] for name, _, _, _ in variants}
    for i in range(runs):
        k = i % len(variants)
        for name, trace, sock, pid in variants[k:] + variants[:k]:
            env = dict(os.environ, BEACON_TRACE_SOCKET=sock,
                       LD_PRELOAD=trace)
            out = os.path.join(data, "rate.json")
            c0 = settle(pid)
            subprocess.run(
                ["fio", "--name=rate", "--filename=" + path,
                 "--rw=randread", "--bs=4k", "--ioengine=psync",
                 "--size=64m", "--rate_iops=%d" % iops, "--time_based",
                 "--runtime=%d" % secs, "--output-format=json",
                 "--output=" + out], env=env, check=True,
                stdout=subprocess.DEVNULL)
            c1 = settle(pid)
            with open(out) as f:
                ios = sum(j["read"]["total_ios"]
                          for j in json.load(f)["jobs"])
            res[name].append((c1 - c0) * 1e9 / max(ios, 1))
    for name, _, _, _ in variants:
        ns = statistics.median(res[name])
        print(json.dumps({
            "bench": "tracer", "metric": "daemon_at_rate",
            "variant": name, "iops": iops, "seconds": secs, "runs": runs,
            "daemon_cpu_ns_per_op": round(ns, 1),
            "daemon_cpu_ns_per_op_all": [round(x, 1) for x in res[name]],
            "core_share_pct": round(ns * iops / 1e7, 4),
            "target_core_share_pct": 0.1, "loadavg": load()}),
            flush=True)


def calls(argv):
    """tracer_bench.py --calls LOOP_PROG DATA_DIR RUNS NAME:TRACE:SOCK:PID..."""
    prog, data, runs = argv[0], argv[1], int(argv[2])
    variants = []
    for v in argv[3:]:
        name, trace, sock, pid = v.split(":")
        variants.append((name, trace, sock, int(pid)))
    open_close(prog, data, runs, variants)
    daemon_per_op(prog, data, runs, variants)
    daemon_at_rate(data, runs, variants)


def main():
    if sys.argv[1] == "--calls":
        calls(sys.argv[2:])
        return
    trace, sock, dpid, data, jobs = sys.argv[1:6]
    runs, secs = int(sys.argv[6]), int(sys.argv[7])
    args = (trace, sock, int(dpid), data, jobs, runs, secs)
    job = 1000
    for name, kind, opts in WORKLOADS:
        job = workload(args, name, kind, opts, job)
    cost_per_call(trace, sock, data, runs)


if __name__ == "__main__":
    main()
