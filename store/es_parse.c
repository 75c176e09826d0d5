/* Parsers of OpenSearch / Elasticsearch responses. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "store/es_parse.h"

#define BODY_HEAD 200                   /* bytes of a non-JSON body shown */
#define REASON_MAX 240                  /* bytes of one reason shown */

static const char *const sum_names[BCN_ES_NSUMS] = {
	"read_bytes", "write_bytes", "read_ops", "write_ops", "meta_ops",
	"other_ops",
};

int bcn_es_retriable(long status)
{
	return status == 429 || (status >= 500 && status <= 599);
}

/* A string member, or "?". */
static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

/* "type: reason", with the root cause or caused_by when it differs. */
static void describe(const json_t *e, char *out, size_t outlen)
{
	const json_t *cause = json_object_get(e, "caused_by");
	const json_t *roots = json_object_get(e, "root_cause");

	if (json_is_string(e)) {
		snprintf(out, outlen, "%.*s", REASON_MAX, json_string_value(e));
		return;
	}
	if (!cause && json_array_size(roots) > 0)
		cause = json_array_get(roots, 0);
	if (cause && strcmp(str_of(cause, "reason"), str_of(e, "reason")) != 0)
		snprintf(out, outlen, "%s: %.*s (caused by %s: %.*s)",
			 str_of(e, "type"), REASON_MAX, str_of(e, "reason"),
			 str_of(cause, "type"), REASON_MAX, str_of(cause, "reason"));
	else
		snprintf(out, outlen, "%s: %.*s", str_of(e, "type"), REASON_MAX,
			 str_of(e, "reason"));
}

/* The head of a body, with control bytes as '?'. */
static void body_head(const char *buf, size_t len, char *out, size_t outlen)
{
	size_t n = len < BODY_HEAD ? len : BODY_HEAD, i;

	if (outlen == 0)
		return;
	for (i = 0; i < n && i + 1 < outlen; i++)
		out[i] = (unsigned char)buf[i] < 0x20 ? '?' : buf[i];
	out[i] = '\0';
}

void bcn_es_error_text(long status, const char *buf, size_t len, char *out,
		       size_t outlen)
{
	char what[BCN_ES_ERR_MAX];
	json_t *root = NULL;
	const json_t *e;

	if (bcn_json_load(buf, len, &root, NULL, 0) == 0 &&
	    (e = json_object_get(root, "error")) != NULL)
		describe(e, what, sizeof(what));
	else if (len == 0)
		snprintf(what, sizeof(what), "(empty body)");
	else
		body_head(buf, len, what, sizeof(what));
	json_decref(root);
	snprintf(out, outlen, "HTTP %ld: %s", status, what);
}

static int bulk_item(const json_t *item, int *status, char *reason,
		     size_t reasonlen)
{
	const json_t *res, *st;
	const char *action;

	/* { "<action>": { "status": N, "error": {...} } } */
	if (!json_is_object(item) || json_object_size(item) != 1)
		return -BCN_ECORRUPT;
	action = json_object_iter_key(json_object_iter((json_t *)item));
	res = json_object_get(item, action);
	st = json_object_get(res, "status");
	if (!json_is_integer(st) || json_integer_value(st) < 100 ||
	    json_integer_value(st) > 599)
		return -BCN_ECORRUPT;
	*status = (int)json_integer_value(st);
	if (*status / 100 != 2 && reason && !reason[0]) {
		char what[BCN_ES_ERR_MAX] = "no error given";
		const json_t *e = json_object_get(res, "error");

		if (e)
			describe(e, what, sizeof(what));
		snprintf(reason, reasonlen, "HTTP %d: %s", *status, what);
	}
	return 0;
}

int bcn_es_parse_bulk(const char *buf, size_t len, size_t n, int *status,
		      char *reason, size_t reasonlen)
{
	const json_t *items;
	json_t *root;
	size_t i;
	int rc;

	if (reason && reasonlen)
		reason[0] = '\0';
	rc = bcn_json_load(buf, len, &root, reason, reasonlen);
	if (rc)
		return rc;
	items = json_object_get(root, "items");
	if (json_array_size(items) != n) {
		rc = bcn_fail(reason, reasonlen, -BCN_ECORRUPT,
			  "bulk response has %zu items, want %zu",
			  json_array_size(items), n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		rc = bulk_item(json_array_get(items, i), &status[i], reason,
			       reasonlen);
		if (rc) {
			rc = bcn_fail(reason, reasonlen, rc,
				  "bulk response item %zu has no status", i);
			goto out;
		}
	}
out:
	json_decref(root);
	return rc;
}

/* Checks timed_out and _shards.failed of a search or count response. */
static int check_shards(const json_t *root, char *err, size_t errlen)
{
	const json_t *shards = json_object_get(root, "_shards");
	const json_t *failed = json_object_get(shards, "failed");
	char what[BCN_ES_ERR_MAX] = "no reason given";

	if (json_is_true(json_object_get(root, "timed_out")))
		return bcn_fail(err, errlen, -EIO, "search timed out");
	if (!json_is_integer(failed))
		return bcn_fail(err, errlen, -BCN_ECORRUPT, "response has no _shards");
	if (json_integer_value(failed) == 0)
		return 0;
	{
		const json_t *f = json_array_get(json_object_get(shards, "failures"), 0);
		const json_t *reason = json_object_get(f, "reason");

		if (reason)
			describe(reason, what, sizeof(what));
		return bcn_fail(err, errlen, -EIO, "%" JSON_INTEGER_FORMAT
			    " shards failed, first (%s): %s",
			    json_integer_value(failed), str_of(f, "index"), what);
	}
}

int bcn_es_parse_shards(const char *buf, size_t len, char *err, size_t errlen)
{
	json_t *root;
	int rc;

	rc = bcn_json_load(buf, len, &root, err, errlen);
	if (rc)
		return rc;
	rc = check_shards(root, err, errlen);
	json_decref(root);
	return rc;
}

/* Whether a search went to no shard at all (no index matched). */
static int no_shards(const json_t *root)
{
	const json_t *total = json_object_get(json_object_get(root, "_shards"),
					      "total");

	return json_is_integer(total) && json_integer_value(total) == 0;
}

int bcn_es_parse_search(const char *buf, size_t len, struct bcn_es_hits *h,
			char *err, size_t errlen)
{
	size_t i;
	json_t *hit;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = bcn_json_load(buf, len, &h->root, err, errlen);
	if (rc)
		return rc;
	rc = check_shards(h->root, err, errlen);
	if (rc)
		goto out;
	h->hits = json_object_get(json_object_get(h->root, "hits"), "hits");
	if (!json_is_array(h->hits)) {
		rc = bcn_fail(err, errlen, -BCN_ECORRUPT, "response has no hits.hits");
		goto out;
	}
	json_array_foreach(h->hits, i, hit) {
		const json_t *src = json_object_get(hit, "_source");

		if (!json_is_object(json_object_get(src, "record")) ||
		    !json_is_array(json_object_get(hit, "sort"))) {
			rc = bcn_fail(err, errlen, -BCN_ECORRUPT,
				  "hit %zu has no _source.record or sort", i);
			goto out;
		}
	}
	h->n = json_array_size(h->hits);
out:
	if (rc)
		bcn_es_hits_free(h);
	return rc;
}

int bcn_es_hit_record(const struct bcn_es_hits *h, size_t i,
		      struct bcn_record_arena *a, struct bcn_record *r,
		      char *err, size_t errlen)
{
	const json_t *hit = json_array_get(h->hits, i);
	const json_t *rec = json_object_get(json_object_get(hit, "_source"),
					    "record");

	if (!rec)
		return bcn_fail(err, errlen, -BCN_ECORRUPT, "no hit %zu", i);
	return bcn_record_from_json_value(rec, a, r, err, errlen);
}

int bcn_es_hit_sort(const struct bcn_es_hits *h, size_t i, char *out,
		    size_t outlen)
{
	const json_t *sort = json_object_get(json_array_get(h->hits, i), "sort");
	size_t n;

	if (!sort)
		return -BCN_ECORRUPT;
	n = json_dumpb(sort, out, outlen, JSON_COMPACT);
	if (n == 0)
		return -ENOMEM;
	if (n >= outlen)
		return -BCN_EFULL;
	out[n] = '\0';
	return 0;
}

void bcn_es_hits_free(struct bcn_es_hits *h)
{
	json_decref(h->root);
	memset(h, 0, sizeof(*h));
}

static int get_key_ms(const json_t *key, int64_t *ms)
{
	const json_t *t = json_object_get(key, "t");

	if (!json_is_integer(t))
		return -BCN_ECORRUPT;
	*ms = json_integer_value(t);
	return 0;
}

static int get_bucket(const json_t *b, struct bcn_es_bucket *out)
{
	const json_t *dc = json_object_get(b, "doc_count");

	if (get_key_ms(json_object_get(b, "key"), &out->key_ms) ||
	    !json_is_integer(dc) || json_integer_value(dc) < 0)
		return -BCN_ECORRUPT;
	out->count = (uint64_t)json_integer_value(dc);
	for (unsigned k = 0; k < BCN_ES_NSUMS; k++) {
		const json_t *v = json_object_get(json_object_get(b, sum_names[k]),
						  "value");

		if (!json_is_number(v))
			return -BCN_ECORRUPT;
		out->sum[k] = json_number_value(v);
		if (!isfinite(out->sum[k]) || out->sum[k] < 0)
			return -BCN_ERANGE;
	}
	return 0;
}

int bcn_es_parse_buckets(const char *buf, size_t len,
			 struct bcn_es_bucket *out, size_t max, size_t *n,
			 int *has_after, int64_t *after_ms, char *err,
			 size_t errlen)
{
	const json_t *agg, *buckets, *after;
	json_t *root, *b;
	size_t i;
	int rc;

	*n = 0;
	*has_after = 0;
	rc = bcn_json_load(buf, len, &root, err, errlen);
	if (rc)
		return rc;
	rc = check_shards(root, err, errlen);
	if (rc)
		goto out;
	agg = json_object_get(json_object_get(root, "aggregations"), "b");
	buckets = json_object_get(agg, "buckets");
	if (!json_object_get(root, "aggregations") && no_shards(root))
		goto out;               /* no index to search: no buckets */
	if (!json_is_array(buckets)) {
		rc = bcn_fail(err, errlen, -BCN_ECORRUPT,
			  "response has no aggregations.b.buckets");
		goto out;
	}
	if (json_array_size(buckets) > max) {
		rc = bcn_fail(err, errlen, -BCN_EFULL, "%zu buckets, asked for %zu",
			  json_array_size(buckets), max);
		goto out;
	}
	json_array_foreach(buckets, i, b) {
		rc = get_bucket(b, &out[i]);
		if (rc) {
			rc = bcn_fail(err, errlen, rc, "bucket %zu is malformed", i);
			goto out;
		}
	}
	*n = json_array_size(buckets);
	after = json_object_get(agg, "after_key");
	if (after) {
		if (get_key_ms(after, after_ms)) {
			rc = bcn_fail(err, errlen, -BCN_ECORRUPT, "malformed after_key");
			goto out;
		}
		*has_after = 1;
	}
out:
	json_decref(root);
	return rc;
}

int bcn_es_parse_count(const char *buf, size_t len, uint64_t *count,
		       char *err, size_t errlen)
{
	const json_t *c;
	json_t *root;
	int rc;

	*count = 0;
	rc = bcn_json_load(buf, len, &root, err, errlen);
	if (rc)
		return rc;
	rc = check_shards(root, err, errlen);
	if (rc)
		goto out;
	c = json_object_get(root, "count");
	if (!json_is_integer(c) || json_integer_value(c) < 0)
		rc = bcn_fail(err, errlen, -BCN_ECORRUPT, "response has no count");
	else
		*count = (uint64_t)json_integer_value(c);
out:
	json_decref(root);
	return rc;
}

int bcn_es_parse_update(const char *buf, size_t len, uint64_t *updated,
			char *err, size_t errlen)
{
	const json_t *fails, *f, *u;
	char what[BCN_ES_ERR_MAX] = "no reason given";
	json_t *root;
	int rc;

	*updated = 0;
	rc = bcn_json_load(buf, len, &root, err, errlen);
	if (rc)
		return rc;
	fails = json_object_get(root, "failures");
	u = json_object_get(root, "updated");
	if (!json_is_array(fails) || !json_is_integer(u) ||
	    json_integer_value(u) < 0) {
		rc = bcn_fail(err, errlen, -BCN_ECORRUPT, "response has no "
			      "failures or no updated count");
		goto out;
	}
	*updated = (uint64_t)json_integer_value(u);
	if (json_is_true(json_object_get(root, "timed_out"))) {
		rc = bcn_fail(err, errlen, -EIO, "update timed out after %"
			      PRIu64 " documents", *updated);
	} else if (json_array_size(fails) > 0) {
		f = json_array_get(fails, 0);
		if (json_object_get(f, "cause"))
			describe(json_object_get(f, "cause"), what, sizeof(what));
		rc = bcn_fail(err, errlen, -EIO, "%zu documents failed, first "
			      "(%s %s): %s", json_array_size(fails),
			      str_of(f, "index"), str_of(f, "id"), what);
	}
out:
	json_decref(root);
	return rc;
}

int bcn_es_parse_cat_indices(const char *buf, size_t len,
			     int (*fn)(void *arg, const char *index),
			     void *arg, char *err, size_t errlen)
{
	json_t *root, *e;
	size_t i;
	int rc;

	rc = bcn_json_load(buf, len, &root, err, errlen);
	if (rc)
		return rc;
	if (!json_is_array(root)) {
		rc = bcn_fail(err, errlen, -BCN_ECORRUPT, "index list is no array");
		goto out;
	}
	json_array_foreach(root, i, e) {
		const char *name = json_string_value(json_object_get(e, "index"));

		if (!name) {
			rc = bcn_fail(err, errlen, -BCN_ECORRUPT,
				  "index list entry %zu has no name", i);
			goto out;
		}
		rc = fn(arg, name);
		if (rc)
			goto out;
	}
out:
	json_decref(root);
	return rc;
}
