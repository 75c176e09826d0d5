/* Request bodies and names of the OpenSearch / Elasticsearch backend:
 * index names, document identities, bulk lines, the index template and the
 * search, count and aggregation bodies. Pure functions over buffers; only
 * what behaves the same on Elasticsearch 7.8+/8 and OpenSearch 2 (no
 * mapping types, composable templates, fixed_interval). */
#ifndef BCN_ES_BUILD_H
#define BCN_ES_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/utf8.h"
#include "store/store.h"

/* <prefix>-<layer>-YYYY.MM.DD: prefix, the longest layer name, the date. */
#define BCN_ES_INDEX_MAX (BCN_STORE_PREFIX_MAX + 32)
/* Elasticsearch refuses _id values longer than 512 bytes. */
#define BCN_ES_ID_MAX 512
/* Longest node name kept verbatim in an _id; longer ones (and names that
 * are not valid UTF-8) are cut and followed by a 128-bit hash. */
#define BCN_ES_ID_NODE_MAX 400
/* Query ranges of at most this many days name their day indices; wider
 * ones use <prefix>-<layer>-*. */
#define BCN_ES_NAMED_DAYS 31
/* Room for the index list of a request path. */
#define BCN_ES_INDICES_MAX (BCN_ES_NAMED_DAYS * (BCN_ES_INDEX_MAX + 1))

/* What the index template and the documents look like: the cuts of size on
 * disk (docs/store.md, "Size on disk"), each a flag so that the benchmark
 * can measure them one by one. Documents of every shape are read alike
 * (scans read _source.record, filters and sorts the same fields). */
enum bcn_es_shape {
	/* all fields indexed and with doc values, all in _source; LZ4 */
	BCN_ES_SHAPE_V1 = 0,
	/* index.codec best_compression (DEFLATE) for stored fields */
	BCN_ES_SHAPE_CODEC = 1,
	/* an inverted index only on fields that queries filter on, doc values
	 * only on those they sort or aggregate on */
	BCN_ES_SHAPE_LEAN_FIELDS = 2,
	/* _source keeps the record only; type and dur are not sent. Measured
	 * and not used: OpenSearch then keeps the whole document a second
	 * time in _recovery_source, which merges drop only once the shard's
	 * retention leases have passed it, so the store grows (docs/store.md,
	 * "Size on disk") */
	BCN_ES_SHAPE_LEAN_SOURCE = 4,
	BCN_ES_SHAPE_ALL = 7,
	/* what bcn_store_open installs and writes */
	BCN_ES_SHAPE_CURRENT = BCN_ES_SHAPE_CODEC | BCN_ES_SHAPE_LEAN_FIELDS,
};

/* Checks an index prefix: 1 to BCN_STORE_PREFIX_MAX - 1 bytes of [a-z0-9_.-]
 * starting with a letter or digit. Returns 0 or -EINVAL. */
int bcn_es_check_prefix(const char *prefix);

/* Floor division of t by BCN_STORE_DAY_NS: the UTC day of t, counted from
 * 1970-01-01. */
int64_t bcn_es_day(int64_t t);

/* Writes the name of the index holding records of layer whose start is t.
 * Returns 0, -EINVAL (unknown layer) or -BCN_EFULL. */
int bcn_es_index_name(const char *prefix, int layer, int64_t t, char *out,
		      size_t outlen);

/* Parses an index name of this store: <prefix>-<layer>-YYYY.MM.DD with a
 * known layer and a valid date. Returns 0 with *layer and *day (days since
 * the epoch), or -BCN_ESYNTAX for any other name. */
int bcn_es_parse_index_name(const char *name, const char *prefix, int *layer,
			    int64_t *day);

/* Writes the _id of a record: "node:seq:idx", or, for a node name longer
 * than BCN_ES_ID_NODE_MAX or not valid UTF-8, its valid UTF-8 head, '#' and
 * a 128-bit FNV-1a hash of the whole name in hex, then ":seq:idx". Distinct
 * identities give distinct ids (up to hash collisions of long names).
 * Returns 0 or -BCN_EFULL (outlen below BCN_ES_ID_MAX + 1 may not do). */
int bcn_es_doc_id(const char *node, uint64_t seq, uint32_t idx, char *out,
		  size_t outlen);

/* Whether documents of layer carry a part field (ost and mds: "total",
 * "job" or "client", bcn_store_record_part()); those of other layers are
 * all totals and have none. */
int bcn_es_has_parts(int layer);

/* Appends the two bulk lines ("index" action with _index and _id, then
 * the document) of one record. The document holds the identity (node,
 * seq as 20 digits, idx), layer, type, entity, job (decimal string), t,
 * ts (t in epoch milliseconds), dur, for ost and mds records their part
 * ("total", "job" or "client"), the totals (clamped to INT64_MAX) and
 * the record as bcn_record_to_json writes it, under "record". Invalid
 * UTF-8 in strings becomes U+FFFD (*replaced counts those bytes).
 * With BCN_ES_SHAPE_LEAN_SOURCE in shape, type and dur are left out.
 * Returns 0, a buf error or a record error; on error b is unchanged. */
int bcn_es_bulk_add(struct bcn_buf *b, const char *prefix,
		    const struct bcn_store_item *it, unsigned shape,
		    size_t *replaced);

/* Appends the composable index template body for <prefix>-<layer>-*:
 * shards, replicas and the strict mappings, of shape (enum bcn_es_shape
 * flags). Every shape maps the same fields, so documents of any shape fit
 * indices of any shape. */
int bcn_es_template(struct bcn_buf *b, const char *prefix, int shards,
		    int replicas, unsigned shape);

/* Writes the comma-separated indices a query reads: the day indices of
 * [q->from, q->to) when there are at most BCN_ES_NAMED_DAYS of them, else
 * <prefix>-<layer>-*. Returns 0 or -BCN_EFULL. */
int bcn_es_query_indices(const char *prefix, const struct bcn_store_query *q,
			 char *out, size_t outlen);

/* Appends the bool filter query of q (layer, time range, entity, job,
 * part). q->part must be resolved (bcn_store_query_part): a term on part
 * unless it is ANY, or TOTAL on a layer without parts. */
int bcn_es_query(struct bcn_buf *b, const struct bcn_store_query *q);

/* Appends a search body: size hits of q sorted by t, node, seq, idx, with
 * only the stored record in _source; after (may be NULL) is the JSON sort
 * array of the last hit of the previous page (search_after). */
int bcn_es_search_body(struct bcn_buf *b, const struct bcn_store_query *q,
		       size_t size, const char *after);

/* Appends a count body ({"query": ...}). */
int bcn_es_count_body(struct bcn_buf *b, const struct bcn_store_query *q);

/* Appends an aggregation body: a composite aggregation of at most size
 * buckets over a date_histogram of ts with a fixed interval of interval_ms
 * milliseconds, the document count and the sums of the totals per bucket;
 * has_after/after_ms give the key of the last bucket of the previous page. */
int bcn_es_sum_body(struct bcn_buf *b, const struct bcn_store_query *q,
		    int64_t interval_ms, size_t size, int has_after,
		    int64_t after_ms);

/* Writes the indices that hold parts, <prefix>-ost-*,<prefix>-mds-*.
 * Returns 0 or -BCN_EFULL. */
int bcn_es_parts_indices(const char *prefix, char *out, size_t outlen);

/* Appends the mapping that adds the part field to indices created before
 * it existed (a PUT _mapping body). */
int bcn_es_parts_mapping(struct bcn_buf *b);

/* Appends an _update_by_query body that sets the part of every document
 * without one from its stored record's jobid and client. A document whose
 * _source holds the record only (an index of BCN_ES_SHAPE_LEAN_SOURCE)
 * is left alone: reindexing it from that _source would lose its other
 * fields. */
int bcn_es_parts_update(struct bcn_buf *b);

#endif
