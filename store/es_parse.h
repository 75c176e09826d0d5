/* Parsers of OpenSearch / Elasticsearch responses: bulk results (which
 * items failed, and why), search hits (stored records and sort values),
 * composite aggregation buckets, counts, index lists and error bodies.
 * Pure functions over a (pointer, length) buffer; every one is fuzzed
 * (tests/fuzz/es_*_fuzz.c). */
#ifndef BCN_ES_PARSE_H
#define BCN_ES_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "store/record_json.h"

/* Room for an error text built from a response. */
#define BCN_ES_ERR_MAX 512
/* Room for the JSON sort values of one hit (t, node, seq, idx). */
#define BCN_ES_SORT_MAX (8 * BCN_STR_MAX)
/* Sums per bucket, in the order of struct bcn_record_totals. */
#define BCN_ES_NSUMS 6

/* Whether an HTTP status (of a response or of one bulk item) is worth a
 * retry: 429 (rejected under load) and 5xx. */
int bcn_es_retriable(long status);

/* Writes a one-line description of an error response: "HTTP <status>:
 * <type>: <reason>" (with the root cause when there is one), or the head
 * of the body when it is no Elasticsearch error object. */
void bcn_es_error_text(long status, const char *buf, size_t len, char *out,
		       size_t outlen);

/* Parses the response to a _bulk request of n items (as requested with
 * filter_path=errors,items.*.status,items.*.error). status[i] gets the HTTP
 * status of item i; reason (may be NULL) the description of the first item
 * whose status is not 2xx, or "". Returns 0, -BCN_ESYNTAX (not JSON) or
 * -BCN_ECORRUPT (not n items, or an item without a status), with a
 * message in reason. */
int bcn_es_parse_bulk(const char *buf, size_t len, size_t n, int *status,
		      char *reason, size_t reasonlen);

/* Checks the _shards part of a response (refresh, search, count): no
 * failed shards, no time-out. Returns 0, -BCN_ESYNTAX, -BCN_ECORRUPT or
 * -EIO, with a message in err. */
int bcn_es_parse_shards(const char *buf, size_t len, char *err, size_t errlen);

/* The hits of a search response; root owns everything. */
struct bcn_es_hits {
	json_t *root;
	json_t *hits;                   /* root.hits.hits */
	size_t n;
};

/* Parses a search response: it must not have timed out nor have failed
 * shards (err then gives the first shard's reason), and each hit must have
 * _source.record (an object) and a sort array. Returns 0 (release h with
 * bcn_es_hits_free), -BCN_ESYNTAX, -BCN_ECORRUPT or -EIO (timed out, shard
 * failures), with a message in err. */
int bcn_es_parse_search(const char *buf, size_t len, struct bcn_es_hits *h,
			char *err, size_t errlen);

/* Decodes the stored record of hit i (bcn_record_from_json_value). */
int bcn_es_hit_record(const struct bcn_es_hits *h, size_t i,
		      struct bcn_record_arena *a, struct bcn_record *r,
		      char *err, size_t errlen);

/* Writes the sort values of hit i as a JSON array, for search_after.
 * Returns 0, -BCN_EFULL or -ENOMEM. */
int bcn_es_hit_sort(const struct bcn_es_hits *h, size_t i, char *out,
		    size_t outlen);

void bcn_es_hits_free(struct bcn_es_hits *h);

/* One bucket of a composite date_histogram aggregation. */
struct bcn_es_bucket {
	int64_t key_ms;                 /* bucket start, epoch milliseconds */
	uint64_t count;                 /* documents in it */
	double sum[BCN_ES_NSUMS];       /* sums of the totals, as returned */
};

/* Parses a response to bcn_es_sum_body: at most max buckets into out,
 * their number in *n and, when the response has one, the after key in
 * *after_ms (*has_after set). A response of no shard at all (no index
 * matched) has no aggregations and gives no buckets. Sums must be finite and >= 0. Returns 0,
 * -BCN_ESYNTAX, -BCN_ECORRUPT, -BCN_EFULL (more than max buckets) or -EIO
 * (timed out, shard failures), with a message in err. */
int bcn_es_parse_buckets(const char *buf, size_t len,
			 struct bcn_es_bucket *out, size_t max, size_t *n,
			 int *has_after, int64_t *after_ms, char *err,
			 size_t errlen);

/* Parses a _count response. Returns 0 and *count, or -BCN_ESYNTAX,
 * -BCN_ECORRUPT or -EIO (shard failures), with a message in err. */
int bcn_es_parse_count(const char *buf, size_t len, uint64_t *count,
		       char *err, size_t errlen);

/* Parses an _update_by_query response: *updated gets the number of
 * documents it changed. Returns 0, or -BCN_ESYNTAX, -BCN_ECORRUPT or -EIO
 * (timed out, failed documents; err then names the first), with a
 * message in err. */
int bcn_es_parse_update(const char *buf, size_t len, uint64_t *updated,
			char *err, size_t errlen);

/* Calls fn for the "index" of each object of a _cat/indices?format=json
 * response (an array). Returns 0, fn's non-zero value, -BCN_ESYNTAX or
 * -BCN_ECORRUPT, with a message in err. */
int bcn_es_parse_cat_indices(const char *buf, size_t len,
			     int (*fn)(void *arg, const char *index),
			     void *arg, char *err, size_t errlen);

#endif
