#!/usr/bin/env bash
# Bytes per record of the OpenSearch backend (issue 19, docs/store.md "Size
# on disk"): the scale benchmark's workload (beacon-sim scale mode, 1,024
# nodes, SECONDS after the warm-up, into the embedded store), loaded through
# the store API into one private OpenSearch (deploy/opensearch) once per
# document shape, each under its own index prefix; each is force-merged to
# one segment per shard, then its size is read (_stats, primaries). Prints
# one JSON object per line per shape: records, store bytes, bytes per
# record, bytes per node per day, append records/s, per-job and per-entity
# scan and sum times, and the ratio of its bytes to the first shape's (the
# old documents, BEFORE; shape 3 is today's, AFTER).
#
# usage: bench/store_es_bench.sh BUILD_DIR [SECONDS [SHAPES...]]
#   SECONDS  of the scale run, default 180
#   SHAPES   enum bcn_es_shape values, default 0 1 3 7 (old; + codec;
#            + lean fields = current; + _source of the record only)
# BCN_ES_BENCH_STORE=DIR reuses the embedded store of an earlier scale run
# (its records and their count) instead of running one.
set -euo pipefail
BUILD=${1:?usage: store_es_bench.sh BUILD_DIR [SECONDS [SHAPES...]]}
SECS=${2:-180}
shift $(( $# > 2 ? 2 : $# ))
SHAPES=("$@")
[ ${#SHAPES[@]} -gt 0 ] || SHAPES=(0 1 3 7)
NODES=1024
SRC=$(cd "$(dirname "$0")/.." && pwd)
OS=$SRC/deploy/opensearch
DRV=$BUILD/bench/store_es_bench
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-esbench.XXXXXX")
stop() { "$OS" stop "$T/os" >/dev/null 2>&1 || true; rm -rf "$T"; }
trap stop EXIT

STORE=${BCN_ES_BENCH_STORE:-}
if [ -z "$STORE" ]; then
	mkdir -p "$T/scale"
	BCN_SCALE_KEEP=1 TMPDIR=$T/scale "$SRC/bench/scale_bench.sh" "$BUILD" \
		"$SECS" "$NODES" >&2
	STORE=$(echo "$T"/scale/bcn-scale.*/n$NODES/store0)
fi
[ -d "$STORE" ] || { echo "no store at $STORE" >&2; exit 1; }
# the embedded store's bytes per record, next to OpenSearch's
SQ_BYTES=$(du -sb "$STORE" | awk '{ print $1 }')

"$OS" fetch >&2
URL=$(BCN_OPENSEARCH_OWNER=$$ "$OS" start "$T/os")
get() { curl -sf --max-time 600 "$URL$1"; }
post() { curl -sf --max-time 600 -X POST "$URL$1" -o /dev/null; }

# a first load warms the JVM up, so that the first shape measured does not
# pay for it (a factor of 6 in append speed here)
"$DRV" load "$STORE" "$URL" warmup "${SHAPES[0]}" > /dev/null
curl -sf -X DELETE "$URL/warmup-*" -o /dev/null
first=
for shape in "${SHAPES[@]}"; do
	p=bench$shape
	load=$("$DRV" load "$STORE" "$URL" "$p" "$shape")
	post "/$p-*/_refresh"
	post "/$p-*/_flush"
	post "/$p-*/_forcemerge?max_num_segments=1"
	bytes=$(get "/$p-*/_stats/store" | /usr/bin/python3 -c \
		'import json,sys; print(json.load(sys.stdin)["_all"]["primaries"]["store"]["size_in_bytes"])')
	job=$(echo "$load" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["job"])')
	ent=$(echo "$load" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["entity"])')
	scan=$("$DRV" scan "$URL" "$p" "$job" "$ent")
	first=${first:-$bytes}
	/usr/bin/python3 - "$load" "$scan" "$bytes" "$first" "$SECS" "$NODES" "$SQ_BYTES" <<'PYEOF'
import json, sys
load, scan = json.loads(sys.argv[1]), json.loads(sys.argv[2])
b, first, secs, nodes, sq = (int(x) for x in sys.argv[3:8])
n = load["records"]
out = {"bench": "store_es", "shape": load["shape"], "records": n,
       "store_bytes": b, "bytes_per_record": round(b / n, 1),
       "mb_per_node_day": round(b / nodes * 86400 / secs / 1e6, 3),
       "ratio_to_first": round(b / first, 3),
       "sqlite_bytes_per_record": round(sq / n, 1),
       "append_rps": load["append_rps"]}
for k in ("job_scan_s", "job_records", "job_sum_1m_s", "entity_scan_s",
          "entity_records", "entity_sum_1m_s", "sums_match"):
    out[k] = scan[k]
print(json.dumps(out))
PYEOF
	curl -sf -X DELETE "$URL/$p-*" -o /dev/null || true
done
