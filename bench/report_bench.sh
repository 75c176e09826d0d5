#!/usr/bin/env bash
# Time to a per-job report, uncached and from the cache (bench/report_bench.c),
# for jobs of 16, 1,024 and 40,960 nodes with one hour of I/O each, on the
# SQLite store and, with --opensearch, on OpenSearch 2.19 too; a private
# MariaDB and Redis are started here. One JSON object per size and store.
# usage: bench/report_bench.sh BUILD_DIR [--against BASE_BUILD] [--opensearch] [SIZES]
# With --against, BASE_BUILD's report_bench (another checkout's build, e.g.
# the commit before a change) runs the same sizes on a store of its own
# right after, and a line per size gives the ratios new/base.
# SIZES: NODES:STEP,... (STEP: seconds between a node's records), default
# 16:1,1024:1,40960:60 (a run per node and minute at 40,960 nodes: 2.5
# million records, what this 2-core machine can write in minutes).
set -euo pipefail
BUILD=${1:?usage: report_bench.sh BUILD_DIR [--against BASE_BUILD] [--opensearch] [SIZES]}
shift
BASE=
if [ "${1:-}" = --against ]; then BASE=${2:?--against needs a build directory}; shift 2; fi
OPENSEARCH=0
if [ "${1:-}" = --opensearch ]; then OPENSEARCH=1; shift; fi
SIZES=${1:-16:1,1024:1,40960:60}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/lib/servers.sh"
export PATH=$PATH:/usr/sbin
T=$(mktemp -d "${TMPDIR:-/var/tmp}/bcn-bench.XXXXXX")
trap '[ $OPENSEARCH = 1 ] && "$SRC/deploy/opensearch" stop "$T/os" >/dev/null 2>&1; bcn_cleanup; rm -rf "$T"' EXIT

bcn_alloc_port RP; bcn_alloc_port MP
bcn_start_redis "$T/redis" "$RP" > /dev/null
bcn_start_mariadb "$T/db" "$MP" > /dev/null
{ cat "$T/db/jobdb.conf"; echo "cache_host = 127.0.0.1"; echo "cache_port = $RP"; } > "$T/common.conf"
{ cat "$T/common.conf"; echo "store_dir = $T/store"; echo "store_retention = 36500d"; } > "$T/sqlite.conf"
"$BUILD/bench/report_bench" "$T/sqlite.conf" "$SIZES" | tee "$T/new.jsonl"
if [ -n "$BASE" ]; then
	rm -rf "$T/store"
	"$BASE/bench/report_bench" "$T/sqlite.conf" "$SIZES" | sed 's/"bench":"report"/"bench":"report_base"/' | tee "$T/base.jsonl"
	python3 - "$T/new.jsonl" "$T/base.jsonl" <<'PY'
import json, sys
new = [json.loads(l) for l in open(sys.argv[1])]
base = {d["nodes"]: d for d in map(json.loads, open(sys.argv[2]))}
for n in new:
    b = base.get(n["nodes"])
    if not b:
        continue
    print(json.dumps({"bench": "report_vs_base", "store": n["store"], "nodes": n["nodes"],
                      "uncached_p50_ratio": round(n["uncached_p50_ms"] / b["uncached_p50_ms"], 3),
                      "uncached_p95_ratio": round(n["uncached_p95_ms"] / b["uncached_p95_ms"], 3),
                      "cached_p50_ratio": round(n["cached_p50_ms"] / b["cached_p50_ms"], 3),
                      "json_bytes_ratio": round(n["report_json_bytes"] / b["report_json_bytes"], 3)}))
PY
fi
if [ $OPENSEARCH = 1 ]; then
	"$SRC/deploy/opensearch" fetch
	URL=$(BCN_OPENSEARCH_OWNER=$$ "$SRC/deploy/opensearch" start "$T/os")
	{ cat "$T/common.conf"; printf 'store_backend = opensearch\nstore_url = %s\nstore_index_prefix = bench\nstore_retention = 36500d\n' "$URL"; } > "$T/os.conf"
	"$BUILD/bench/report_bench" "$T/os.conf" "$SIZES" 3
fi
