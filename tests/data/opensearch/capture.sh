#!/usr/bin/env bash
# Records the OpenSearch responses under tests/data/opensearch/ that the
# unit tests (tests/unit/es_parse_test.c) and the fuzz corpora start from.
# Starts a node with deploy/opensearch (or uses BCN_STORE_URL), sends the
# requests the backend sends (bodies from the es_check tool, so they are
# the backend's own) plus a few that provoke failures, and saves each
# answer as it came.
#   usage: capture.sh BUILD_DIR
set -euo pipefail
BUILD=${1:?usage: capture.sh BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
TOOL=$BUILD/tests/es_check
P=cap
T=$(mktemp -d)
cleanup() { [ -n "${BCN_STORE_URL:-}" ] || "$SRC/deploy/opensearch" stop "$T/os" >/dev/null 2>&1 || true; rm -rf "$T"; }
trap cleanup EXIT
if [ -z "${BCN_STORE_URL:-}" ]; then
	U=$("$SRC/deploy/opensearch" start "$T/os")
else
	U=$BCN_STORE_URL
fi

req() { # method path [body-file] -> body on stdout
	if [ $# -ge 3 ]; then
		curl -s -X "$1" "$U$2" -H 'Content-Type: application/json' --data-binary "@$3"
	else
		curl -s -X "$1" "$U$2" -H 'Content-Type: application/json'
	fi
}
save() { # name method path [body-file]
	local name=$1; shift
	req "$@" >"$HERE/$name"
	echo >>"$HERE/$name"
	echo "captured $name" >&2
}
BULK="/_bulk?filter_path=errors,items.*.status,items.*.error"
IDX=$P-client-2024.01.10

"$TOOL" template $P >"$T/template.json"
req PUT /_index_template/$P-records "$T/template.json" >/dev/null
"$TOOL" bulk-body $P >"$T/bulk.ndjson"
save bulk_created.json POST "$BULK" "$T/bulk.ndjson"
save bulk_updated.json POST "$BULK" "$T/bulk.ndjson"
req POST /$P-*/_refresh >"$HERE/refresh.json"; echo >>"$HERE/refresh.json"

# one bulk, three kinds of item failure: 429 (read-only-allow-delete, as at
# the disk flood stage), 403 (write block), 400 (mapping conflict)
req PUT /$P-ost-2024.01.10/_settings <(echo '{"index.blocks.read_only_allow_delete":true}') >/dev/null
req PUT /$P-mds-2024.01.10/_settings <(echo '{"index.blocks.write":true}') >/dev/null
req PUT /$P-job-2024.01.01 <(echo '{"mappings":{"properties":{"dur":{"type":"boolean"}}}}') >/dev/null
sed 's/cap-job-2024\.01\.10/cap-job-2024.01.01/' "$T/bulk.ndjson" >"$T/mixed.ndjson"
save bulk_mixed.json POST "$BULK" "$T/mixed.ndjson"
save bulk_mixed_full.json POST /_bulk "$T/mixed.ndjson"
req PUT /$P-ost-2024.01.10/_settings <(echo '{"index.blocks.read_only_allow_delete":null}') >/dev/null
req PUT /$P-mds-2024.01.10/_settings <(echo '{"index.blocks.write":null}') >/dev/null
printf '{"index":{"_index":"%s"}}\n{"broken json\n' $IDX >"$T/broken.ndjson"
save bulk_error_400.json POST "$BULK" "$T/broken.ndjson"

# scans: two pages of the client layer (search_after from page 1)
SORT='"sort":[{"t":"asc"},{"node":"asc"},{"seq":"asc"},{"idx":"asc"}]'
Q='{"bool":{"filter":[{"term":{"layer":"client"}},{"range":{"t":{"gte":-9223372036854775808,"lt":9223372036854775807}}}]}}'
echo "{\"size\":1,\"track_total_hits\":false,\"_source\":[\"record\"],\"query\":$Q,$SORT}" >"$T/s1.json"
save search_page1.json POST "/$P-client-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/s1.json"
AFTER=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["hits"]["hits"][-1]["sort"]))' "$HERE/search_page1.json")
echo "{\"size\":1,\"track_total_hits\":false,\"_source\":[\"record\"],\"query\":$Q,$SORT,\"search_after\":$AFTER}" >"$T/s2.json"
save search_page2.json POST "/$P-client-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/s2.json"
QO=${Q//client/ost}
echo "{\"size\":10,\"track_total_hits\":false,\"_source\":[\"record\"],\"query\":$QO,$SORT}" >"$T/s3.json"
save search_ost.json POST "/$P-ost-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/s3.json"
save search_noindex.json POST "/none-client-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/s1.json"
# a partial failure: node is a text field in one index, so sorting fails there
req PUT /$P-client-2023.12.01 <(echo '{"mappings":{"properties":{"node":{"type":"text"}}}}') >/dev/null
printf '{"index":{"_index":"%s-client-2023.12.01","_id":"x"}}\n{"node":"x","seq":"1","idx":0,"layer":"client","type":"io","entity":"x","job":"0","t":1,"ts":0,"dur":0,"read_bytes":0,"write_bytes":0,"read_ops":0,"write_ops":0,"meta_ops":0,"other_ops":0,"record":{}}\n' $P >"$T/text.ndjson"
req POST "/_bulk?refresh=true" "$T/text.ndjson" >/dev/null
save search_shard_failure.json POST "/$P-client-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/s1.json"
req DELETE /$P-client-2023.12.01 >/dev/null
echo '{"size":1,"query":{"bool":{"filter":[{"range":{"t":{"gte":"x"}}}]}}}' >"$T/bad.json"
save search_error_400.json POST "/$P-client-*/_search" "$T/bad.json"

# sums: composite date_histogram pages, sums beyond 2^53, no index
AGG='"aggs":{"b":{"composite":{"size":2,"sources":[{"t":{"date_histogram":{"field":"ts","fixed_interval":"3600000ms"}}}]},"aggs":{"read_bytes":{"sum":{"field":"read_bytes"}},"write_bytes":{"sum":{"field":"write_bytes"}},"read_ops":{"sum":{"field":"read_ops"}},"write_ops":{"sum":{"field":"write_ops"}},"meta_ops":{"sum":{"field":"meta_ops"}},"other_ops":{"sum":{"field":"other_ops"}}}}}'
QA=${Q//\{\"term\":\{\"layer\":\"client\"\}\},/}
echo "{\"size\":0,\"track_total_hits\":false,\"query\":$QA,$AGG}" >"$T/a1.json"
save agg_page1.json POST "/$P-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/a1.json"
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["aggregations"]["b"]["after_key"]["t"])' "$HERE/agg_page1.json")
sed "s/\"size\":2,/\"size\":2,\"after\":{\"t\":$KEY},/" "$T/a1.json" >"$T/a2.json"
save agg_page2.json POST "/$P-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/a2.json"
sed "s/\"size\":2,/\"size\":10,/" "$T/a1.json" >"$T/a3.json"
save agg_all.json POST "/$P-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/a3.json"
save agg_noindex.json POST "/none-*/_search?ignore_unavailable=true&allow_no_indices=true" "$T/a1.json"

echo "{\"query\":$Q}" >"$T/c.json"
save count.json POST "/$P-client-*/_count?ignore_unavailable=true&allow_no_indices=true" "$T/c.json"
save count_noindex.json POST "/none-client-*/_count?ignore_unavailable=true&allow_no_indices=true" "$T/c.json"
save cat_indices.json GET "/_cat/indices/$P-*?format=json&h=index&expand_wildcards=all"
save cat_indices_none.json GET "/_cat/indices/none-*?format=json&h=index&expand_wildcards=all"
save delete_404.json DELETE /$P-client-1999.01.01
echo '{"index_patterns":["x-*"],"template":{"settings":{"index":{"number_of_shards":0}}}}' >"$T/badtpl.json"
save template_error_400.json PUT /_index_template/$P-bad "$T/badtpl.json"
# setting the part of documents stored before they had one: an old ost
# index (the template's mappings without part) with two such documents;
# then, without the part mapping, every document fails (strict mapping)
"$TOOL" parts-update >"$T/parts.json"
python3 - "$T/template.json" >"$T/oldidx.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["template"]
del t["mappings"]["properties"]["part"]
print(json.dumps(t))
PY
printf '{"index":{"_index":"%s-ost-2023.01.01","_id":"a"}}\n{"node":"oss1","seq":"00000000000000000001","idx":0,"layer":"ost","type":"ost","entity":"lustre-OST0000","job":"0","t":1,"ts":0,"dur":0,"read_bytes":0,"write_bytes":0,"read_ops":0,"write_ops":0,"meta_ops":0,"other_ops":0,"record":{"client":"","jobid":"7"}}\n{"index":{"_index":"%s-ost-2023.01.01","_id":"b"}}\n{"node":"oss1","seq":"00000000000000000001","idx":1,"layer":"ost","type":"ost","entity":"lustre-OST0000","job":"0","t":1,"ts":0,"dur":0,"read_bytes":0,"write_bytes":0,"read_ops":0,"write_ops":0,"meta_ops":0,"other_ops":0,"record":{"client":"","jobid":""}}\n' $P $P >"$T/old.ndjson"
UBQ="_update_by_query?allow_no_indices=true&ignore_unavailable=true&conflicts=proceed&refresh=true"
req PUT /$P-ost-2023.01.01 "$T/oldidx.json" >/dev/null
req POST "/_bulk?refresh=true" "$T/old.ndjson" >/dev/null
save update_parts_strict.json POST "/$P-ost-2023.01.01/$UBQ" "$T/parts.json"
req PUT "/$P-ost-2023.01.01/_mapping" <(echo '{"properties":{"part":{"type":"keyword"}}}') >/dev/null
save update_parts.json POST "/$P-ost-2023.01.01/$UBQ" "$T/parts.json"
req DELETE /$P-ost-2023.01.01 >/dev/null

curl -s "$U/" | python3 -c 'import json,sys; v=json.load(sys.stdin)["version"]; print(v["distribution"], v["number"])' >"$HERE/VERSION"
echo "captured from $(cat "$HERE/VERSION")" >&2
