#!/usr/bin/env bash
# beacon-fwdd footprint benchmark, at 1 Hz in real time:
#  - log: the request log of a busy forwarding server, 50,000 requests/s
#    (a writer appends 5,000 generated lines every 100 ms, a queue-length
#    line every 1,000 requests, as on TaihuLight);
#  - osc: 288 OST targets on the Lustre client (TaihuLight's forwarding
#    nodes each talked to many OSTs), each a copy of a real Lustre 2.10.1
#    osc device (tests/data/forwarder) in the procfs layout;
#  - both together.
# CPU per sample is the sampling thread's CPU time measured by the
# collector loop (reading, parsing, percentiles, framing, writing; median
# of the samples after the first), process CPU is all threads over the
# run; memory is VmHWM/VmRSS at exit. One JSON object per line, with the
# targets: under 0.1% of a core at 1 Hz (1,000 us of CPU per sample) and
# under 4 MB resident.
# usage: bench/fwdd_bench.sh BUILD_DIR [SAMPLES] [RATE]
set -euo pipefail
BUILD=${1:?usage: fwdd_bench.sh BUILD_DIR [SAMPLES] [RATE]}
SAMPLES=${2:-15}
RATE=${3:-50000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
FWDD=$BUILD/collectors/forwarder/beacon-fwdd
OSC=$SRC/tests/data/forwarder/lustre_exporter-2.10.1/osc/lustrefs-OST0000-osc-ffff88105db50000
TARGETS=288
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-fwdd-bench.XXXXXX")
writer=
cleanup() {
	[ -n "$writer" ] && kill -TERM "$writer" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# --- 288 osc devices
for i in $(seq 0 $((TARGETS - 1))); do
	d=$T/root/proc/fs/lustre/osc/$(printf 'lustrefs-OST%04x-osc-ffff88105db50000' "$i")
	mkdir -p "$d"
	cp "$OSC/stats" "$OSC/rpc_stats" "$OSC/import" "$d/"
done
mkdir -p "$T/empty"

# --- the writer: RATE requests/s in 10 batches a second
cat > "$T/writer.py" <<'PY'
import os, random, sys, time
path, rate = sys.argv[1], int(sys.argv[2])
batch = rate // 10
rng = random.Random(1)
ops = ["read"] * 5 + ["write"] * 4 + ["open", "getattr", "close", "fsync"]
lines = []
for k in range(batch):
    lat = int(rng.lognormvariate(7, 1.2))
    lines.append("1700000000.%09d %s %d %d %d\n" % (k, rng.choice(ops),
                 rng.choice([4096, 1 << 20, 4 << 20]), lat, rng.randint(0, lat)))
    if k % 1000 == 999:
        lines.append("1700000000.%09d Q %d\n" % (k, rng.randrange(300)))
chunk = "".join(lines).encode()
with open(path, "ab") as f:
    f.write(b"#beacon-fwdlog 1 writer=fwdd_bench\n")
    f.flush()
    next_t = time.monotonic()
    while True:
        f.write(chunk)
        f.flush()
        next_t += 0.1
        time.sleep(max(0.0, next_t - time.monotonic()))
PY

run() { # name, extra args...
	local name=$1 t0 t1; shift
	rm -f "$T/stats.json" "$T/req.log" "$T/out.bin"
	writer=
	if [[ " $* " == *" --request-log "* ]]; then
		python3 "$T/writer.py" "$T/req.log" "$RATE" &
		writer=$!
		sleep 0.5
	fi
	t0=$(date +%s%N)
	"$FWDD" --node bench --interval 1s --count "$SAMPLES" \
		--output "$T/out.bin" --stats-file "$T/stats.json" \
		--log-level info "$@" 2> "$T/$name.log"
	t1=$(date +%s%N)
	if [ -n "$writer" ]; then kill -TERM "$writer"; wait "$writer" 2>/dev/null || true; fi
	writer=
	python3 - "$T/stats.json" "$name" "$T/$name.log" "$((t1 - t0))" "$RATE" "$TARGETS" "$@" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
log = open(sys.argv[3]).read()
wall_us = int(sys.argv[4]) // 1000
args = sys.argv[7:]
cpu = [int(m) for m in re.findall(r"sample \d+ done: \d+ records, \d+ frames, cpu (\d+) us", log)]
steady = sorted(cpu[1:]) or cpu
med = steady[len(steady) // 2]
m = re.search(r": (\d+) requests, (\d+) queue samples, (\d+) malformed", log)
out = {
    "bench": "fwdd", "case": sys.argv[2],
    "request_rate": int(sys.argv[5]) if "--request-log" in args else 0,
    "osc_targets": int(sys.argv[6]) if "--no-lustre-client" not in args else 0,
    "interval_s": 1, "samples": s["samples"], "records": s["records"],
    "requests": int(m.group(1)) if m else 0,
    "malformed": int(m.group(3)) if m else 0,
    "sample_cpu_us_median": med, "sample_cpu_us_mean": s["sample_cpu_us_mean"],
    "sample_cpu_us_max": s["sample_cpu_us_max"],
    "process_cpu_us": s["process_cpu_us"],
    "core_fraction": round(s["process_cpu_us"] / wall_us, 6),
    "vm_hwm_kb": s["VmHWM_kb"], "vm_rss_kb": s["VmRSS_kb"],
    "rss_anon_kb": s["RssAnon_kb"], "rss_file_kb": s["RssFile_kb"],
    "target_cpu_us_per_sample": 1000, "target_core_fraction": 0.001,
    "target_rss_kb": 4096,
    "cpu_ok": med <= 1000, "rss_ok": s["VmHWM_kb"] <= 4096,
}
print(json.dumps(out))
PY
}

run log --request-log "$T/req.log" --no-lustre-client
run osc --root "$T/root"
run log+osc --root "$T/root" --request-log "$T/req.log"
