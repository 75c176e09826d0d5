#!/usr/bin/env bash
# The record store on a real OpenSearch 2.19 (deploy/opensearch, one node on
# loopback in a temporary directory): the shared store suite with
# BCN_STORE_BACKEND=opensearch, then what only this backend has: items that
# fail with 429 are retried alone, items that fail for good are not
# retried, documents of the old shape read back with those of the current
# one, the index template carries the configured shards and replicas,
# and expiry deletes exactly the daily indices that ended more than the
# retention before now.
set -euo pipefail
: "${BCN_BUILD:?}" "${BCN_SRC:?}"
OS=$BCN_SRC/deploy/opensearch
CHECK=$BCN_BUILD/tests/es_check
SUITE=$BCN_BUILD/tests/store_test
T=$(mktemp -d)
stop() { "$OS" stop "$T/os" >/dev/null 2>&1 || true; rm -rf "$T"; }
trap stop EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$OS" fetch
start=$(date +%s)
# the node goes away with this script even if it is killed
URL=$(BCN_OPENSEARCH_OWNER=$$ "$OS" start "$T/os") || fail "OpenSearch did not start"
echo "OpenSearch at $URL after $(($(date +%s) - start)) s"

get() { curl -sf --max-time 30 "$URL$1"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }

# 1. the shared suite of every backend
BCN_STORE_BACKEND=opensearch BCN_STORE_URL=$URL BCN_STORE_PREFIX=suite \
	"$SUITE" || fail "store suite"
[ -z "$(get "/_cat/indices/suite-*?h=index")" ] || fail "suite left indices behind"

# 2. partial bulk failures
"$CHECK" retry "$URL" retry || fail "retry of 429 items"
"$CHECK" reject "$URL" reject || fail "items rejected for good"

# 3. ost and mds documents stored before they had a part get one
"$CHECK" parts "$URL" old || fail "parts of old documents"

# 4. documents and day indices of the old shape (before the size cuts) read
# back alike with those of the current shape, in the same day index and in
# a new one; the parts upgrade gives a part to a document without one in a
# day index of the current shape
"$CHECK" shapes "$URL" shapes || fail "old and current document shapes"

# 5. the index template follows the configuration
removed=$("$CHECK" store "$URL" tpl 2 1 183 1704848400 0) || fail "store with 2 shards, 1 replica"
[ "$removed" = 0 ] || fail "expiry removed $removed indices of a fresh store"
get "/_index_template/tpl-records" | json '
t = d["index_templates"][0]["index_template"]
s = t["template"]["settings"]["index"]
if not (s["number_of_shards"] == "2" and s["number_of_replicas"] == "1"):
    raise SystemExit("check failed: %r" % ((s),))
if not (sorted(t["index_patterns"]) == sorted("tpl-%s-*" % l for l in
    ["client", "forward", "ost", "mds", "switch", "job", "collector"])):
    raise SystemExit("check failed: %r" % ((t["index_patterns"]),))
m = t["template"]["mappings"]
if not (m["dynamic"] == "strict" and m["properties"]["record"]["enabled"] is False):
    raise SystemExit("check failed: %r" % ((m),))
if not (s["codec"] == "best_compression" and "_source" not in m and
        m["properties"]["entity"]["doc_values"] is False and
        m["properties"]["read_bytes"]["index"] is False):
    raise SystemExit("check failed: %r" % ((s, m),))
if not (m["properties"]["ts"]["type"] == "date" and m["properties"]["part"]["type"] == "keyword"):
    raise SystemExit("check failed: %r" % ((m),))
' || fail "index template"
get "/tpl-client-2024.01.10/_settings" | json '
s = d["tpl-client-2024.01.10"]["settings"]["index"]
if not (s["number_of_shards"] == "2" and s["number_of_replicas"] == "1"):
    raise SystemExit("check failed: %r" % ((s),))
' || fail "settings of a day index"

# 6. retention: 3 days kept at 2024-01-10T01:00Z; other indices untouched
for idx in ret-client-notadate ret-x-client-2020.01.01 retother-client-2020.01.01 ret-client-2020.02.30; do
	curl -sf -X PUT "$URL/$idx" -o /dev/null || fail "creating $idx"
done
removed=$("$CHECK" store "$URL" ret 1 0 3 1704848400 -10 -5 -4 -3 -1 0) || fail "store for expiry"
[ "$removed" = 6 ] || fail "expiry removed $removed indices, want 6 (days -10, -5, -4 of client and ost)"
get "/_cat/indices/ret-*,retother-*?format=json&h=index&expand_wildcards=all" | json '
got = sorted(i["index"] for i in d)
want = sorted(["ret-client-notadate", "ret-x-client-2020.01.01",
    "retother-client-2020.01.01", "ret-client-2020.02.30"] +
    ["ret-%s-%s" % (l, day) for l in ("client", "ost")
     for day in ("2024.01.07", "2024.01.09", "2024.01.10")])
if not (got == want):
    raise SystemExit("check failed: %r" % (((got, want)),))
' || fail "indices left after expiry"
echo "store_opensearch: all checks passed ($(($(date +%s) - start)) s)"
