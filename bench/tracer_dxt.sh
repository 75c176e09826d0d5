#!/usr/bin/env bash
# Bytes per traced operation on a real DXT trace (issue 18, point 4):
# tests/data/dxt/dxt-example.tsv (PyDarshan's example DXT log, 7,623
# reads and writes over 169 files, tests/data/PROVENANCE.md) replayed as
# real pread/pwrite calls (tests/tools/dxtreplay) under libbeacon_trace.so
# with the trace's timing sped up SPEED times, beacon-clientd writing its
# frames to a file; with the tracer's default 1 s flush and with a 60 s
# flush (what the 1 s flush costs in cut runs), both with frame_codec
# zstd, and with the 1 s flush and frame_codec columnar, and auto (the
# default: columnar within a CPU budget). One
# JSON object per line: the frames' bytes per replayed operation, records
# and operations per record, next to gzip -9 of the bare operation list
# with start times (op, file, offset, length, start: the issue's
# reference, about 9 bytes per operation) and Darshan DXT's own 10.6 (the
# issue's measurement of its log on this trace), and the daemon's frames,
# columnar frames, CPU time and peak resident memory (its stats_file).
# Then bench/recode_bench frames the records of the zstd runs again, with
# the same cuts, with each
# codec (row zstd -1, row zlib 1 and 9, columnar raw, zstd -1..19, zlib
# 9): bytes per operation, encode CPU per record, lossless yes/no, and
# the columnar form's bytes per column.
# DXT_LIST=FILE takes another operation list (tests/data/dxt/*.tsv); a
# list of several ranks is replayed by one process per rank at once,
# into the same files (dxtreplay --shared 1).
# usage: [DXT_LIST=FILE] bench/tracer_dxt.sh BUILD_DIR [SPEED]
set -euo pipefail
BUILD=${1:?usage: tracer_dxt.sh BUILD_DIR [SPEED]}
SPEED=${2:-100}
SRC=$(cd "$(dirname "$0")/.." && pwd)
LIST=${DXT_LIST:-$SRC/tests/data/dxt/dxt-example.tsv}
RANKS=$(awk -F'\t' 'NR > 1 { print $1 }' "$LIST" | sort -un)
NOPS=$(($(wc -l < "$LIST") - 1))
SHARED=0
[ "$(echo "$RANKS" | wc -l)" -gt 1 ] && SHARED=1
CLIENTD=$BUILD/collectors/client/beacon-clientd
BEACON=$BUILD/cli/beacon
TRACE=$BUILD/lib/libbeacon_trace.so
REPLAY=$BUILD/tests/dxtreplay
RECODE=$BUILD/bench/recode_bench
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-dxt.XXXXXX")
pid=
rpids=
trap '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null; for p in $rpids; do kill -KILL $p 2>/dev/null; done; rm -rf "$T"' EXIT
for f in "$CLIENTD" "$BEACON" "$TRACE" "$REPLAY" "$RECODE"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "missing $f: build first" >&2; exit 1; }
done

run() {         # NAME FLUSH_MS CODEC: one replay, its frames in $T/NAME.bin
	local name=$1 flush=$2 codec=$3 sock="@beacon-dxt-$$-$1"
	mkdir -p "$T/$name"
	"$CLIENTD" --node cn0001 --output "$T/$name.bin" --tracer-socket "$sock" \
		--frame-codec "$codec" --stats-file "$T/$name.stats" \
		2> "$T/$name.log" &
	pid=$!
	sleep 0.5
	rpids=
	for r in $RANKS; do     # one process per rank, all at once
		SLURM_JOB_ID=77 BEACON_TRACE_SOCKET=$sock \
			BEACON_TRACE_FLUSH_MS=$flush LD_PRELOAD=$TRACE \
			"$REPLAY" --rank "$r" --speed "$SPEED" --shared "$SHARED" \
			"$LIST" "$T/$name" > "$T/$name.out.$r" &
		rpids="$rpids $!"
	done
	for p in $rpids; do
		wait "$p"
	done
	rpids=
	cat "$T/$name".out.* | awk '{ n += $2 } END { print "ops", n }' \
		> "$T/$name.out"
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
	"$BEACON" decode "$T/$name.bin" > "$T/$name.jsonl"
}
run flush1s 1000 zstd
run flush60s 60000 zstd
run flush1s-columnar 1000 columnar
run flush1s-auto 1000 auto

/usr/bin/python3 - "$T" "$LIST" "$SPEED" <<'PY_EOF'
import gzip, json, os, sys
t, lst, speed = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = [l.split("\t") for l in open(lst).read().splitlines()[1:]]
bare = "".join(f"{r[2]}\t{r[1]}\t{r[3]}\t{r[4]}\t{r[5]}\n" for r in rows)
gz = len(gzip.compress(bare.encode(), 9))
n = len(rows)
for name in ("flush1s", "flush60s", "flush1s-columnar", "flush1s-auto"):
    replayed = int(open(f"{t}/{name}.out").read().split()[1])
    assert replayed == n, (replayed, n)
    frames = os.path.getsize(f"{t}/{name}.bin")
    stats = json.loads(open(f"{t}/{name}.stats").read().splitlines()[-1])
    recs = data_recs = data_ops = 0
    for line in open(f"{t}/{name}.jsonl"):
        r = json.loads(line)
        recs += 1
        if r["type"] == "io" and r["op"] in ("read", "write") and r["job"] == 77:
            data_recs += 1
            data_ops += r["count"]
    print(json.dumps({"bench": "tracer_dxt", "trace": os.path.basename(lst),
                      "flush": name, "speed": speed,
                      "codec": name.split("-")[1] if "-" in name else "zstd",
                      "operations": n,
                      "traced_rw_ops": data_ops, "records": recs,
                      "rw_ops_per_record": round(data_ops / max(data_recs, 1), 2),
                      "frame_bytes": frames,
                      "bytes_per_op": round(frames / n, 2),
                      "gzip9_bare_list_bytes_per_op": round(gz / n, 2),
                      "darshan_dxt_bytes_per_op_issue": 10.6,
                      "target_bytes_per_op": 5,
                      "daemon_frames": stats["frames"],
                      "daemon_columnar_frames": stats["columnar_frames"],
                      "daemon_cpu_us": stats["process_cpu_us"],
                      "daemon_VmHWM_kb": stats["VmHWM_kb"]}))
PY_EOF
# the same frames' records framed again with each codec, same cuts
for name in flush1s flush60s; do
	"$RECODE" "$T/$name.bin" "$NOPS" |
		sed "s/^{/{\"flush\":\"$name\",/"
done
