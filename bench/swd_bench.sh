#!/usr/bin/env bash
# beacon-swd footprint benchmark: 648 InfiniBand ports (a large director
# switch), sampled at 1 Hz-style intervals, read two ways:
#  - sysfs: a synthetic ROOT/sys/class/infiniband with 18 adapters x 36
#    ports, every counter file written in the format of the real fixture
#    (tests/data/ib/sysfs/prometheus-procfs, mlx5_0), values varied;
#  - perfquery: 18 switch targets x 36 ports, each answered by a script
#    printing a 36-block `perfquery -x -l` text built from the real fixture
#    (tests/data/ib/perfquery/.../0x7cfe9003009ce5b0.out); the script's own
#    CPU time is the children's, reported apart.
# The counters change between samples so that every port yields a record.
# CPU per sample is the sampling thread's CPU time measured by the
# collector loop (sample + framing + writing); memory is VmHWM/VmRSS at
# exit. One JSON object per line, with the targets: 1 ms CPU per sample
# (0.1% of a core at 1 Hz) and 4 MB resident.
# usage: bench/swd_bench.sh BUILD_DIR [SAMPLES]
set -euo pipefail
BUILD=${1:?usage: swd_bench.sh BUILD_DIR [SAMPLES]}
SAMPLES=${2:-30}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SWD=$BUILD/collectors/switch/beacon-swd
IB=$SRC/tests/data/ib
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-swd-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
HCAS=18
PORTS=36

# --- synthetic sysfs tree
python3 - "$IB/sysfs/prometheus-procfs/sys/class/infiniband/mlx5_0/ports/1" \
	"$T/root/sys/class/infiniband" "$HCAS" "$PORTS" <<'PY'
import os, sys
src, dst, hcas, ports = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for sub in ("counters",):
    names = sorted(os.listdir(os.path.join(src, sub)))
for h in range(hcas):
    for p in range(1, ports + 1):
        d = os.path.join(dst, "mlx5_%d" % h, "ports", str(p))
        os.makedirs(os.path.join(d, "counters"))
        for f in ("rate", "state", "phys_state", "link_layer"):
            with open(os.path.join(src, f)) as i, open(os.path.join(d, f), "w") as o:
                o.write(i.read())
        for n in names:
            v = int(open(os.path.join(src, "counters", n)).read())
            with open(os.path.join(d, "counters", n), "w") as o:
                o.write("%d\n" % (v + h * 1000 + p))
PY

# --- perfquery replay: 36 port blocks per switch
python3 - "$IB/perfquery/perfquery/0x7cfe9003009ce5b0.out" "$T/pq.out" "$PORTS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = text.split("# Port extended counters")[1]          # port 1's block
out = []
for p in range(1, int(sys.argv[3]) + 1):
    b = "# Port extended counters" + block
    b = re.sub(r"port 1 ", "port %d " % p, b, count=1)
    b = re.sub(r"(PortSelect:\.+)1", r"\g<1>%d" % p, b)
    out.append(b.rstrip("\n") + "\n")
open(sys.argv[2], "w").write("".join(out))
PY
cat > "$T/perfquery" <<EOF
#!/bin/sh
exec cat "$T/pq.out"
EOF
chmod +x "$T/perfquery"

# --- a changer bumping every traffic counter file between samples
bump() {
	python3 - "$T/root/sys/class/infiniband" "$T/pq.out" <<'PY'
import os, re, sys
root, pq = sys.argv[1], sys.argv[2]
for dp, dn, fn in os.walk(root):
    for n in fn:
        if n in ("port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets"):
            p = os.path.join(dp, n)
            v = int(open(p).read())
            open(p, "w").write("%d\n" % (v + 1000))
t = open(pq).read()
t = re.sub(r"(PortXmitData:\.+)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1000), t)
open(pq, "w").write(t)
PY
}

run() { # name, extra args...
	local name=$1; shift
	rm -f "$T/stats.json"
	"$SWD" --root "$T/root" --node bench --interval 1h --count "$SAMPLES" \
		--stats-file "$T/stats.json" --log-level info "$@" \
		2> "$T/$name.log" &
	local pid=$! i
	for i in $(seq 1 "$SAMPLES"); do
		while ! grep -q "sample $i done" "$T/$name.log"; do
			kill -0 "$pid" 2>/dev/null || { cat "$T/$name.log" >&2; exit 1; }
			sleep 0.02
		done
		[ "$i" -lt "$SAMPLES" ] || break
		bump
		kill -USR1 "$pid"
	done
	wait "$pid"
	python3 - "$T/stats.json" "$name" "$((HCAS * PORTS))" "$T/$name.log" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
cpu = [int(m) for m in re.findall(r"sample \d+ done: \d+ records, \d+ frames, cpu (\d+) us", open(sys.argv[4]).read())]
steady = sorted(cpu[1:]) or cpu          # the first sample only remembers
med = steady[len(steady) // 2]
out = {
    "bench": "swd", "source": sys.argv[2], "ports": int(sys.argv[3]),
    "samples": s["samples"], "records": s["records"],
    "sample_cpu_us_median": med, "sample_cpu_us_mean": s["sample_cpu_us_mean"],
    "sample_cpu_us_max": s["sample_cpu_us_max"],
    "process_cpu_us": s["process_cpu_us"], "children_cpu_us": s["children_cpu_us"],
    "vm_hwm_kb": s["VmHWM_kb"], "vm_rss_kb": s["VmRSS_kb"],
    "rss_anon_kb": s["RssAnon_kb"], "rss_file_kb": s["RssFile_kb"],
    "target_cpu_us_per_sample": 1000, "target_rss_kb": 4096,
    "cpu_ok": med <= 1000, "rss_ok": s["VmHWM_kb"] <= 4096,
}
print(json.dumps(out))
PY
}

run sysfs --output "$T/out.bin"
TARGETS=()
for i in $(seq 1 "$HCAS"); do TARGETS+=(--perfquery-target "$(printf '0x7cfe9003009ce5%02x' "$i")"); done
run perfquery --output "$T/out.bin" --no-hca-counters --perfquery "$T/perfquery" "${TARGETS[@]}"

# the same, sending through the sender library (authenticated, to the
# protocol test peer tests/tools/acksrv): the sender thread, libcrypto
ACKSRV=$BUILD/tests/acksrv
if [ -x "$ACKSRV" ]; then
	head -c 32 /dev/urandom | od -An -tx1 -v | tr -d ' \n' > "$T/key"
	echo >> "$T/key"
	chmod 600 "$T/key"
	"$ACKSRV" --key "$T/key" --log "$T/ack.log" --port-file "$T/ack.port" 2> "$T/ack.err" &
	APID=$!
	trap 'kill -TERM "$APID" 2>/dev/null; rm -rf "$T"' EXIT
	for _ in $(seq 600); do [ -s "$T/ack.port" ] && break; sleep 0.05; done
	run perfquery_send --server "127.0.0.1:$(cat "$T/ack.port")" --key-file "$T/key" \
		--no-hca-counters --perfquery "$T/perfquery" "${TARGETS[@]}"
fi
