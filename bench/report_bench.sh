#!/usr/bin/env bash
# Time to a per-job report, uncached and from the cache (bench/report_bench.c),
# for jobs of 16, 1,024 and 40,960 nodes with one hour of I/O each, on the
# SQLite store and, with --opensearch, on OpenSearch 2.19 too; a private
# MariaDB and Redis are started here. One JSON object per size and store.
# usage: bench/report_bench.sh BUILD_DIR [--opensearch] [SIZES]
# SIZES: NODES:STEP,... (STEP: seconds between a node's records), default
# 16:1,1024:1,40960:60 (a run per node and minute at 40,960 nodes: 2.5
# million records, what this 2-core machine can write in minutes).
set -euo pipefail
BUILD=${1:?usage: report_bench.sh BUILD_DIR [--opensearch] [SIZES]}
shift
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
"$BUILD/bench/report_bench" "$T/sqlite.conf" "$SIZES"
if [ $OPENSEARCH = 1 ]; then
	"$SRC/deploy/opensearch" fetch
	URL=$(BCN_OPENSEARCH_OWNER=$$ "$SRC/deploy/opensearch" start "$T/os")
	{ cat "$T/common.conf"; printf 'store_backend = opensearch\nstore_url = %s\nstore_index_prefix = bench\nstore_retention = 36500d\n' "$URL"; } > "$T/os.conf"
	"$BUILD/bench/report_bench" "$T/os.conf" "$SIZES" 3
fi
