#!/usr/bin/env bash
# beacon-swd --source pma footprint on a simulated fabric the size of one
# 648-port director: 18 leaf switches (18 adapters each, two links to
# each of 9 spines) and 9 spines, 27 switches x 36 ports, run by ibsim
# (ibsim-utils) with LIDs from one opensm run; beacon-swd, with
# libumad2sim.so preloaded, discovers the fabric and reads every linked
# switch port's PortCounters and PortCountersExtended at each sample.
# Reported per source: the sampling thread's CPU per sample (median, as
# the collector loop measures it: MADs, decoding, deltas, framing,
# writing), the process's CPU (getrusage, from the stats file), ibsim's
# CPU over the same run (/proc/PID/stat: what serving the MADs cost the
# simulator, not beacon-swd), and peak RSS (VmHWM). Next to it, in the
# same run, the perfquery source: one `perfquery -x -l LID 255` per switch
# and sample (children's CPU apart). Targets: 1 ms CPU per sample (0.1%
# of a core at 1 Hz), 4 MB resident. One JSON object per line.
# usage: bench/swd_pma_bench.sh BUILD_DIR [SAMPLES]
set -euo pipefail
BUILD=${1:?usage: swd_pma_bench.sh BUILD_DIR [SAMPLES]}
SAMPLES=${2:-10}
case "$SAMPLES" in ''|*[!0-9]*) echo "SAMPLES: a number" >&2; exit 2;; esac
[ "$SAMPLES" -ge 2 ] || { echo "SAMPLES: at least 2" >&2; exit 2; }
SWD=$BUILD/collectors/switch/beacon-swd
SIM_SO=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n 1 || true)
OPENSM=$(command -v opensm || echo /usr/sbin/opensm)
PERFQUERY=$(command -v perfquery || echo /usr/sbin/perfquery)
if ! command -v ibsim > /dev/null || [ -z "$SIM_SO" ] || [ ! -x "$OPENSM" ]; then
	echo '{"bench":"swd_pma","skipped":"ibsim-utils, libumad2sim0 or opensm not installed"}'
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-swd-pma-bench.XXXXXX")
simpid=
cleanup() {
	if [ -n "$simpid" ]; then
		kill "$simpid" 2>/dev/null || true
		wait "$simpid" 2>/dev/null || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT
LEAVES=18
SPINES=9
HOSTS=18

/usr/bin/python3 - "$T/net" "$LEAVES" "$SPINES" "$HOSTS" <<'PY'
import sys
path, leaves, spines, hosts = sys.argv[1], *map(int, sys.argv[2:])
out = []
# Hca0-0 first: the attachment point of beacon-swd
for l in range(leaves):
    for h in range(hosts):
        out.append('Hca\t1 "Hca%d-%d"\n[1]\t"Leaf%d"[%d]\n' % (l, h, l, h + 1))
for l in range(leaves):
    lines = ['Switch\t36 "Leaf%d"' % l]
    lines += ['[%d]\t"Hca%d-%d"[1]' % (h + 1, l, h) for h in range(hosts)]
    for s in range(spines):
        for k in range(2):
            lines.append('[%d]\t"Spine%d"[%d]' % (hosts + 1 + 2 * s + k, s, 2 * l + k + 1))
    out.append("\n".join(lines) + "\n")
for s in range(spines):
    lines = ['Switch\t36 "Spine%d"' % s]
    for l in range(leaves):
        for k in range(2):
            lines.append('[%d]\t"Leaf%d"[%d]' % (2 * l + k + 1, l, hosts + 1 + 2 * s + k))
    out.append("\n".join(lines) + "\n")
open(path, "w").write("\n".join(out))
PY

export IBSIM_SOCKNAME="bcn-swd-pma-bench-$$"
export SIM_HOST=Hca0-0
export OSM_CACHE_DIR=$T
mkfifo "$T/console"
ibsim -s "$T/net" < "$T/console" > "$T/ibsim.out" 2>&1 &
simpid=$!
exec 7> "$T/console"
for _ in $(seq 600); do
	grep -q "sim>" "$T/ibsim.out" && break
	kill -0 "$simpid" 2>/dev/null || { cat "$T/ibsim.out" >&2; exit 1; }
	sleep 0.05
done
LD_PRELOAD=$SIM_SO timeout 600 "$OPENSM" -o -f "$T/opensm.log" > "$T/opensm.out" 2>&1 ||
	{ tail "$T/opensm.out" >&2; exit 1; }

sim_cpu_us() { # ibsim's utime + stime
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", ($14 + $15) * 1000000 / hz }' "/proc/$simpid/stat"
}

run() { # name, args...
	local name=$1 pid i c0 c1; shift
	rm -f "$T/stats.json"
	c0=$(sim_cpu_us)
	LD_PRELOAD=$SIM_SO "$SWD" --node bench --interval 1h --count "$SAMPLES" \
		--no-hca-counters --output "$T/out.bin" --stats-file "$T/stats.json" \
		--log-level info "$@" 2> "$T/$name.log" &
	pid=$!
	for i in $(seq 1 "$SAMPLES"); do
		while ! grep -q "sample $i done" "$T/$name.log"; do
			kill -0 "$pid" 2>/dev/null || { cat "$T/$name.log" >&2; exit 1; }
			sleep 0.02
		done
		[ "$i" -lt "$SAMPLES" ] || break
		kill -USR1 "$pid"
	done
	wait "$pid"
	c1=$(sim_cpu_us)
	/usr/bin/python3 - "$T/stats.json" "$name" "$T/$name.log" "$((c1 - c0))" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
log = open(sys.argv[3]).read()
cpu = [int(m) for m in re.findall(r"sample \d+ done: \d+ records, \d+ frames, cpu (\d+) us", log)]
recs = [int(m) for m in re.findall(r"sample \d+ done: (\d+) records", log)]
steady = sorted(cpu[2:]) or sorted(cpu)     # sample 1 walks the fabric
med = steady[len(steady) // 2]
n = s["samples"]
out = {
    "bench": "swd_pma", "source": sys.argv[2], "switches": 27,
    "ports_per_sample": max(recs), "samples": n, "records": s["records"],
    "sample_cpu_us_median": med, "sample_cpu_us_max": s["sample_cpu_us_max"],
    "process_cpu_us_per_sample": s["process_cpu_us"] // n,
    "children_cpu_us_per_sample": s["children_cpu_us"] // n,
    "ibsim_cpu_us_per_sample": int(sys.argv[4]) // n,
    "vm_hwm_kb": s["VmHWM_kb"], "rss_anon_kb": s["RssAnon_kb"],
    "target_cpu_us_per_sample": 1000, "target_rss_kb": 4096,
    "cpu_ok": med <= 1000, "rss_ok": s["VmHWM_kb"] <= 4096,
}
print(json.dumps(out))
PY
}

# rediscovery only at sample 1 (the steady state); discovery apart below
run pma --source pma --pma-discover-every 1000000
TARGETS=()
IBNETDISCOVER=$(command -v ibnetdiscover || echo /usr/sbin/ibnetdiscover)
while read -r lid; do TARGETS+=(--perfquery-target "$lid"); done < <(
	LD_PRELOAD=$SIM_SO "$IBNETDISCOVER" 2> /dev/null |
	sed -n 's/^Switch.* base port 0 lid \([0-9]*\) .*/\1/p' | sort -un)
if [ "${#TARGETS[@]}" -gt 0 ]; then
	run perfquery --perfquery "$PERFQUERY" "${TARGETS[@]}"
fi
# a fabric walk at every sample: what discovery costs
run pma_discover_each_sample --source pma --pma-discover-every 1
