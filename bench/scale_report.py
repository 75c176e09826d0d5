"""Figures of one size of bench/scale_bench.sh, one JSON object per line.

argv: DIR NODES COLLECTORS LOGSRVS PARTS T0 T1 DRAIN_S CPU0 CPU1 HWM
      SECONDS SWITCH_EVERY T_START
CPU0/CPU1/HWM are space-separated lists in the order redis, the log
servers, the simulator parts (CPU0 has no simulator entries' end values;
CPU1 and HWM do)."""
import json
import sys

(d, nodes, collectors, nlog, nparts, t0, t1, drain, cpu0, cpu1, hwm, secs,
 sw_every, t_start) = sys.argv[1:15]
nodes, collectors, nlog, nparts = map(int, (nodes, collectors, nlog, nparts))
t0, t1, t_start = float(t0), float(t1), float(t_start)
wall = t1 - t0
cpu0 = [float(x) for x in cpu0.split()]
cpu1 = [float(x) for x in cpu1.split()]
hwm = [int(x) for x in hwm.split()]
base = {"bench": "scale", "nodes": nodes}


def emit(**kw):
    print(json.dumps({**base, **kw}))


def stats(path):
    words = open(path).read().split()
    return {words[i]: words[i + 1] for i in range(0, len(words) - 1, 2)}


backlog = [[int(x) for x in ln.split()] for ln in open(f"{d}/backlog") if ln.strip()]
tot_frames = tot_records = 0
for k in range(nlog):
    s0, s1 = stats(f"{d}/stats0.{k}"), stats(f"{d}/stats1.{k}")
    fr = int(s1.get("frames_in", 0)) - int(s0.get("frames_in", 0))
    rc = int(s1.get("records_in", 0)) - int(s0.get("records_in", 0))
    tot_frames += fr
    tot_records += rc
    col = [row[k] for row in backlog if len(row) > k]
    emit(logsrv=k, metric="ingest", frames_per_s=round(fr / wall, 1),
         records_per_s=round(rc / wall, 1),
         lag_p50_ms=int(s1.get("lag_total_p50_ms", -1)),
         lag_p99_ms=int(s1.get("lag_total_p99_ms", -1)),
         lag_max_ms=int(s1.get("lag_total_max_ms", -1)),
         lag_count=int(s1.get("lag_total_count", 0)),
         backlog_max_frames=max(col, default=0),
         backlog_mean_frames=round(sum(col) / len(col), 1) if col else 0,
         backlog_end_frames=col[-1] if col else 0,
         redis_errors=int(s1.get("redis_errors", 0)),
         store_errors=int(s1.get("store_errors", 0)))

names = ["redis"] + [f"logsrv{k}" for k in range(nlog)] + \
        [f"sim{k}" for k in range(nparts)]
for i, name in enumerate(names):
    emit(daemon=name, metric="cost",
         cpu_share_of_core=round((cpu1[i] - cpu0[i]) / wall, 3),
         peak_rss_kb=hwm[i])

done = [json.loads(ln) for k in range(nparts)
        for ln in open(f"{d}/sim{k}.jsonl") if '"done"' in ln]
sent = {key: sum(x[key] for x in done) for key in
        ("submitted_frames", "submitted_records", "acked_records",
         "dropped_records", "late_ticks", "disconnects", "resent",
         "build_errors")}
stored = int(open(f"{d}/stored").read())
per_day = stored / nodes * 86400.0 / wall
emit(metric="summary", collectors=collectors, log_servers=nlog,
     sim_processes=nparts, seconds=round(wall, 1),
     setup_s=round(t0 - t_start, 1), simulated_s=int(secs),
     switch_every_s=int(sw_every),
     records_per_s=round(tot_records / wall, 1),
     frames_per_s=round(tot_frames / wall, 1),
     drain_after_end_s=float(drain), **sent,
     bytes_stored=stored, bytes_stored_per_node_per_day=round(per_day),
     reference_bytes_per_node_per_day=[round(10e9 / 40960),
                                       round(100e9 / 40960)],
     reference_note="paper: 10-100 GB a day raw for 40,960 nodes")
