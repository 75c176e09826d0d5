#!/usr/bin/env bash
# Delivery with no loss into OpenSearch: while a collector streams a known
# numbered set of records through a log server whose record store is a real
# OpenSearch node, stop OpenSearch until the log server fails to store, then start it again. Every
# record sent must then be in OpenSearch exactly once; Redis absorbs the
# outage. Prints sent, stored, duplicates dropped and lost.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
. "$BCN_SRC/tests/lib/servers.sh"
T=$(mktemp -d)
OS=$BCN_SRC/deploy/opensearch
trap 'st=$?; "$OS" stop "$T/os" >/dev/null 2>&1 || true; bcn_cleanup || st=1; rm -rf "$T"; exit $st' EXIT
fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/*.log "$T/os/opensearch.log"; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
	exit 1
}

"$OS" start "$T/os" > "$T/os.url" || fail "OpenSearch did not start"
URL=$(cat "$T/os/url")
PORT=$(cat "$T/os/port")
PREFIX="faults$$"
STORE_ARGS="--store-backend opensearch --store-url $URL --store-index-prefix $PREFIX --store-timeout 5s"
cat > "$T/store.conf" <<EOF
store_backend = opensearch
store_url = $URL
store_index_prefix = $PREFIX
EOF
BCN_FAULT_FRAMES=400
. "$BCN_SRC/tests/lib/delivery.sh"

start_stream cn005
wait_acked cn005 50
log_mark primary
"$OS" stop "$T/os" || fail "OpenSearch did not stop"
# OpenSearch stays down until the flusher has failed to store
wait_log primary "flusher: record store: "
"$OS" start "$T/os" "$PORT" > /dev/null || fail "OpenSearch did not come back"
[ "$(cat "$T/os/url")" = "$URL" ] || fail "OpenSearch came back on another port"
check "opensearch stopped until the flusher failed, then restarted" cn005
log_since primary "flusher: record store is back" || fail "the flusher never saw the store back"
echo "logsrv_opensearch: ok"
