/* The OpenSearch 2 / Elasticsearch 7.8+ backend of the record store, over
 * the REST API (docs/store.md, "OpenSearch / Elasticsearch backend").
 *
 * Daily indices per layer, <prefix>-<layer>-YYYY.MM.DD by the UTC day of t,
 * created on first write from a composable index template that open()
 * installs. Appends are _bulk "index" actions with _id = node:seq:idx
 * (idempotent), retried item by item on 429/5xx. They return once the
 * records are durable (in the translog of every copy); the handle keeps
 * the indices it wrote to and refreshes them before its next read and at
 * close, so a scan after an append sees it without slowing appends down;
 * other handles see records after the index's refresh interval. Scans
 * page with search_after over a total order (t, node, seq, idx); sums are
 * composite date_histogram aggregations, recomputed exactly from the
 * records where a sum reaches 2^53 (sums come back as doubles) or when
 * the bucket is not a whole number of milliseconds. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/log.h"
#include "store/es_build.h"
#include "store/es_http.h"
#include "store/es_parse.h"
#include "store/record_json.h"
#include "store/store_es.h"

#define BODY_MAX (64u << 20)            /* largest request body */
#define BULK_MAX_BYTES (8u << 20)       /* one _bulk request, about */
#define BULK_MAX_ITEMS 5000             /* one _bulk request, at most */
#define SCAN_PAGE 1000                  /* hits per search page */
#define SUM_PAGE 1000                   /* buckets per aggregation page */
#define EXPIRE_MAX 4096                 /* indices deleted per call */
#define DIRTY_MAX 64                    /* indices remembered for refresh */
#define META_TIMEOUT_MS 30000           /* least wait for a metadata change */
#define PARTS_TIMEOUT_MS 600000         /* least wait for the parts of old
					 * documents to be set */
#define PATH_MAX_LEN (BCN_ES_INDICES_MAX + 256)
#define NS_PER_MS 1000000ll
#define EXACT_LIMIT 9007199254740992.0  /* 2^53: doubles exact below */

static const char bulk_path[] = "/_bulk?filter_path="
	"errors,items.*.status,items.*.error";

/* Indices written since their last refresh; all: too many to name. */
struct dirty {
	size_t n;
	int all;
	char name[DIRTY_MAX][BCN_ES_INDEX_MAX];
};

struct es_store {
	struct bcn_store base;
	struct bcn_es_http http;
	struct bcn_buf body;
	struct bcn_record_arena *arena;
	struct bcn_complain append_fail;
	struct bcn_complain bad_utf8;
	bcn_store_es_retry_fn *hook;
	void *hook_arg;
	struct bcn_store_es_stats stats;
	struct dirty dirty;
	unsigned shape;                 /* enum bcn_es_shape of what it writes */
	int busy;                       /* inside a scan or sum callback */
};

static struct es_store *es_of(struct bcn_store *s)
{
	return (struct es_store *)s;
}

static int status_errno(long status)
{
	if (status == 401 || status == 403)
		return -EACCES;
	if (status == 404)
		return -ENOENT;
	return -EIO;
}

/* Sends a request with the body in es->body (when with_body) and requires
 * a 2xx answer; err then says what the server answered. */
static int call(struct es_store *es, const char *method, const char *path,
		int with_body, char *err, size_t errlen)
{
	char text[BCN_ES_ERR_MAX];
	int rc;

	rc = bcn_es_http_request(&es->http, method, path,
				 with_body ? (const char *)es->body.data : NULL,
				 with_body ? es->body.len : 0, err, errlen);
	if (rc)
		return rc;
	if (es->http.status / 100 == 2)
		return 0;
	bcn_es_error_text(es->http.status, (const char *)es->http.resp.data,
			  es->http.resp.len, text, sizeof(text));
	/* a message longer than errlen is cut and ends in "..." */
	if (snprintf(err, errlen, "%s %s%s: %s", method, es->http.base, path,
		     text) >= (int)errlen && errlen > 3)
		memcpy(err + errlen - 4, "...", 4);
	return status_errno(es->http.status);
}

/* call() with a time limit of at least min_ms, however short the
 * configured timeout for data. */
static int call_min(struct es_store *es, const char *method, const char *path,
		    int with_body, int64_t min_ms, char *err, size_t errlen)
{
	int64_t data_ms = es->http.timeout_ms;
	int rc;

	if (es->http.timeout_ms < min_ms)
		es->http.timeout_ms = min_ms;
	rc = call(es, method, path, with_body, err, errlen);
	es->http.timeout_ms = data_ms;
	return rc;
}

/* A request that changes cluster metadata (index template, mapping, index
 * deletion) waits for a cluster state update: it gets at least
 * META_TIMEOUT_MS. */
static int call_meta(struct es_store *es, const char *method, const char *path,
		     int with_body, char *err, size_t errlen)
{
	return call_min(es, method, path, with_body, META_TIMEOUT_MS, err,
			errlen);
}

static int put_template(struct es_store *es, char *err, size_t errlen)
{
	const struct bcn_store_config *cfg = &es->base.cfg;
	char path[BCN_STORE_PREFIX_MAX + 64];
	int rc;

	bcn_buf_reset(&es->body);
	rc = bcn_es_template(&es->body, cfg->index_prefix, cfg->shards,
			     cfg->replicas, es->shape);
	if (rc) {
		snprintf(err, errlen, "opensearch: template: %s", bcn_strerror(rc));
		return rc;
	}
	snprintf(path, sizeof(path), "/_index_template/%s-records",
		 cfg->index_prefix);
	return call_meta(es, "PUT", path, 1, err, errlen);
}

/* Brings ost and mds indices created before documents had a part up to
 * date: adds the part field to their mappings (strict: a new document
 * would be refused otherwise) and sets the part of every document without
 * one from its stored record (docs/store.md, "Parts"). With nothing to
 * do, that is a mapping update that changes nothing and one search. */
static int upgrade_parts(struct es_store *es, char *err, size_t errlen)
{
	static const char opts[] = "allow_no_indices=true&ignore_unavailable=true";
	char idx[2 * BCN_STORE_PREFIX_MAX + 16], path[sizeof(idx) + 128];
	uint64_t updated = 0;
	int rc;

	bcn_buf_reset(&es->body);
	rc = bcn_es_parts_indices(es->base.cfg.index_prefix, idx, sizeof(idx));
	if (!rc)
		rc = bcn_es_parts_mapping(&es->body);
	if (rc) {
		snprintf(err, errlen, "opensearch: parts: %s", bcn_strerror(rc));
		return rc;
	}
	snprintf(path, sizeof(path), "/%s/_mapping?%s", idx, opts);
	rc = call_meta(es, "PUT", path, 1, err, errlen);
	bcn_buf_reset(&es->body);
	if (!rc)
		rc = bcn_es_parts_update(&es->body);
	snprintf(path, sizeof(path), "/%s/_update_by_query?%s&conflicts=proceed"
		 "&refresh=true", idx, opts);
	if (!rc)
		rc = call_min(es, "POST", path, 1, PARTS_TIMEOUT_MS, err, errlen);
	if (!rc)
		rc = bcn_es_parse_update((const char *)es->http.resp.data,
					 es->http.resp.len, &updated, err,
					 errlen);
	if (!rc && updated)
		BCN_NOTICE("opensearch: %s: set the part of %" PRIu64 " older "
			   "documents", idx, updated);
	return rc;
}

static int refresh(struct es_store *es, char *err, size_t errlen);

static void es_close(struct bcn_store *s)
{
	struct es_store *es = es_of(s);
	char err[BCN_ES_ERR_MAX];

	if (es->http.curl && (es->dirty.n || es->dirty.all) &&
	    refresh(es, err, sizeof(err)))
		BCN_WARN("opensearch: closing %s: %s", es->http.base, err);
	bcn_es_http_free(&es->http);
	bcn_buf_free(&es->body);
	free(es->arena);
	free(es);
}

static int es_open(const struct bcn_store_config *cfg, struct bcn_store **out,
		   char *err, size_t errlen)
{
	struct es_store *es;
	int rc;

	*out = NULL;
	if (bcn_es_check_prefix(cfg->index_prefix)) {
		snprintf(err, errlen, "opensearch: index prefix \"%s\" must be "
			 "[a-z0-9][a-z0-9_.-]*", cfg->index_prefix);
		return -EINVAL;
	}
	if (cfg->shards < 1 || cfg->replicas < 0) {
		snprintf(err, errlen, "opensearch: need shards >= 1, replicas >= 0");
		return -EINVAL;
	}
	es = calloc(1, sizeof(*es));
	if (!es) {
		snprintf(err, errlen, "opensearch: out of memory");
		return -ENOMEM;
	}
	es->base.ops = &bcn_store_es_ops;
	es->base.cfg = *cfg;
	es->shape = BCN_ES_SHAPE_CURRENT;
	bcn_buf_init(&es->body, BODY_MAX);
	rc = bcn_es_http_init(&es->http, cfg->url, cfg->user, cfg->password_file,
			      cfg->timeout_ms, err, errlen);
	if (rc)
		goto out;
	es->arena = malloc(sizeof(*es->arena));
	if (!es->arena) {
		rc = -ENOMEM;
		snprintf(err, errlen, "opensearch: out of memory");
		goto out;
	}
	rc = put_template(es, err, errlen);
	if (!rc)
		rc = upgrade_parts(es, err, errlen);
out:
	if (rc) {
		es_close(&es->base);
		return rc;
	}
	*out = &es->base;
	return 0;
}

static void mark_dirty(struct dirty *d, const char *index)
{
	if (d->all)
		return;
	for (size_t i = d->n; i-- > 0;)
		if (strcmp(d->name[i], index) == 0)
			return;
	if (d->n == DIRTY_MAX) {
		d->all = 1;
		return;
	}
	snprintf(d->name[d->n++], BCN_ES_INDEX_MAX, "%s", index);
}

/* Makes what this handle wrote visible to searches: POST _refresh on the
 * indices it wrote to since the last refresh. */
static int refresh(struct es_store *es, char *err, size_t errlen)
{
	char path[DIRTY_MAX * (BCN_ES_INDEX_MAX + 1) + 128];
	struct dirty *d = &es->dirty;
	size_t used = 0;
	int rc;

	if (d->all)
		used = (size_t)snprintf(path, sizeof(path), "/%s-*",
					es->base.cfg.index_prefix);
	for (size_t i = 0; !d->all && i < d->n; i++)
		used += (size_t)snprintf(path + used, sizeof(path) - used, "%c%s",
					 i ? ',' : '/', d->name[i]);
	snprintf(path + used, sizeof(path) - used, "/_refresh?"
		 "ignore_unavailable=true&allow_no_indices=true");
	rc = call(es, "POST", path, 0, err, errlen);
	if (!rc)
		rc = bcn_es_parse_shards((const char *)es->http.resp.data,
					 es->http.resp.len, err, errlen);
	if (!rc) {
		d->n = 0;
		d->all = 0;
	}
	return rc;
}

/* Refreshes before a read when this handle has written. */
static int fresh(struct es_store *es, char *err, size_t errlen)
{
	return es->dirty.n || es->dirty.all ? refresh(es, err, errlen) : 0;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Sends one _bulk request with the first items of pos (as many as fit in
 * BULK_MAX_ITEMS and about BULK_MAX_BYTES); *used gets their number and
 * status[] their statuses. A whole-request 429 or 5xx marks each of them
 * with that status. Fails on transport errors, other statuses and
 * malformed answers, with the reason in why. */
static int send_chunk(struct es_store *es, const struct bcn_store_item *items,
		      const size_t *pos, size_t n, int *status, size_t *used,
		      char *why, size_t whylen)
{
	size_t k = 0, bad;
	int rc = 0;

	bcn_buf_reset(&es->body);
	while (k < n && k < BULK_MAX_ITEMS &&
	       (k == 0 || es->body.len < BULK_MAX_BYTES)) {
		const struct bcn_record *r = items[pos[k]].rec;
		char index[BCN_ES_INDEX_MAX];

		rc = bcn_es_bulk_add(&es->body, es->base.cfg.index_prefix,
				     &items[pos[k]], es->shape, &bad);
		if (!rc)
			rc = bcn_es_index_name(es->base.cfg.index_prefix,
					       bcn_record_desc(r->type)->layer,
					       r->t, index, sizeof(index));
		if (rc) {
			snprintf(why, whylen, "item %zu: %s", pos[k],
				 bcn_strerror(rc));
			return rc;
		}
		mark_dirty(&es->dirty, index);
		es->stats.utf8_replaced += bad;
		if (bad)
			bcn_complain(&es->bad_utf8, BCN_LOG_WARNING, "opensearch: "
				     "record of node %.64s has invalid UTF-8; "
				     "stored with U+FFFD", items[pos[k]].rec->node);
		k++;
	}
	*used = k;
	es->stats.bulk_requests++;
	es->stats.items_sent += k;
	rc = bcn_es_http_request(&es->http, "POST", bulk_path,
				 (const char *)es->body.data, es->body.len, why,
				 whylen);
	if (rc)
		return rc;
	if (bcn_es_retriable(es->http.status)) {
		bcn_es_error_text(es->http.status, (const char *)es->http.resp.data,
				  es->http.resp.len, why, whylen);
		for (size_t i = 0; i < k; i++)
			status[i] = (int)es->http.status;
		return 0;
	}
	if (es->http.status != 200) {
		bcn_es_error_text(es->http.status, (const char *)es->http.resp.data,
				  es->http.resp.len, why, whylen);
		return status_errno(es->http.status);
	}
	return bcn_es_parse_bulk((const char *)es->http.resp.data,
				 es->http.resp.len, k, status, why, whylen);
}

/* One round: sends every pending item; puts the retriable failures in
 * next and counts the others in *nfail. */
static int bulk_round(struct es_store *es, const struct bcn_store_item *items,
		      const size_t *pend, size_t npend, int *status,
		      size_t *next, size_t *nnext, size_t *nfail, char *why,
		      size_t whylen)
{
	char reason[BCN_ES_ERR_MAX];
	size_t done, used;
	int rc;

	*nnext = *nfail = 0;
	for (done = 0; done < npend; done += used) {
		reason[0] = '\0';
		rc = send_chunk(es, items, pend + done, npend - done, status,
				&used, reason, sizeof(reason));
		if (rc) {
			snprintf(why, whylen, "%s", reason);
			return rc;
		}
		for (size_t k = 0; k < used; k++) {
			if (status[k] / 100 == 2)
				continue;
			if (!why[0])
				snprintf(why, whylen, "%s", reason[0] ? reason :
					 "HTTP error");
			if (bcn_es_retriable(status[k]))
				next[(*nnext)++] = pend[done + k];
			else
				(*nfail)++;
		}
	}
	return 0;
}

static int es_append(struct bcn_store *s, const struct bcn_store_item *items,
		     size_t n)
{
	struct es_store *es = es_of(s);
	size_t *pend, *next, npend = n, nnext, nfail;
	char why[BCN_ES_ERR_MAX] = "";
	unsigned round;
	int *status;
	int rc = -ENOMEM;

	if (es->busy)
		return -EBUSY;
	pend = malloc(n * sizeof(*pend));
	next = malloc(n * sizeof(*next));
	status = malloc(n * sizeof(*status));
	if (!pend || !next || !status) {
		snprintf(why, sizeof(why), "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pend[i] = i;
	for (round = 0; round < BCN_ES_BULK_ROUNDS; round++) {
		size_t *tmp;

		if (round > 0) {
			sleep_ms((int64_t)BCN_ES_BACKOFF_MS << (round - 1));
			if (es->hook)
				es->hook(es->hook_arg, round, pend, npend);
			es->stats.items_retried += npend;
		}
		why[0] = '\0';
		rc = bulk_round(es, items, pend, npend, status, next, &nnext,
				&nfail, why, sizeof(why));
		if (rc)
			goto out;
		if (nfail) {
			char first[BCN_ES_ERR_MAX];

			snprintf(first, sizeof(first), "%s", why);
			snprintf(why, sizeof(why), "%zu of them rejected, first: %.400s",
				 nfail, first);
			es->stats.items_rejected += nfail;
			rc = -EIO;
			goto out;
		}
		if (nnext == 0)
			goto out;
		tmp = pend;
		pend = next;
		next = tmp;
		npend = nnext;
	}
	rc = -EAGAIN;
out:
	if (rc)
		bcn_complain(&es->append_fail, BCN_LOG_ERR, "opensearch: append "
			     "of %zu records at %s failed%s: %s", n, es->http.base,
			     rc == -EAGAIN ? " after retries" : "", why);
	else
		bcn_complain_release(&es->append_fail, BCN_LOG_NOTICE,
				     "opensearch: appends at %s work again",
				     es->http.base);
	free(pend);
	free(next);
	free(status);
	return rc;
}

/* A caller's callback and whether its value ended the walk (such values
 * go back unchanged and are no error of the store). */
struct cb {
	bcn_store_record_fn *fn;
	void *arg;
	int stopped;
};

/* Decodes and hands over the hits of one page; last gets the sort values
 * of the last one. */
static int scan_hits(struct es_store *es, const struct bcn_es_hits *h,
		     struct cb *cb, char *last, size_t lastlen, char *err,
		     size_t errlen)
{
	struct bcn_record r;
	int rc;

	for (size_t i = 0; i < h->n; i++) {
		bcn_record_arena_reset(es->arena);
		rc = bcn_es_hit_record(h, i, es->arena, &r, err, errlen);
		if (rc)
			return rc;
		rc = cb->fn(cb->arg, &r);
		if (rc) {
			cb->stopped = 1;
			return rc;
		}
	}
	if (h->n == 0)
		return 0;
	rc = bcn_es_hit_sort(h, h->n - 1, last, lastlen);
	if (rc)
		snprintf(err, errlen, "sort values: %s", bcn_strerror(rc));
	return rc;
}

/* Fetches one page; the page size halves when the answer is too long. */
static int scan_page(struct es_store *es, const struct bcn_store_query *q,
		     const char *path, size_t *page, size_t want,
		     const char *after, struct bcn_es_hits *h, char *err,
		     size_t errlen)
{
	int rc;

	for (;;) {
		size_t size = want < *page ? want : *page;

		bcn_buf_reset(&es->body);
		rc = bcn_es_search_body(&es->body, q, size, after);
		if (rc) {
			snprintf(err, errlen, "search body: %s", bcn_strerror(rc));
			return rc;
		}
		rc = call(es, "POST", path, 1, err, errlen);
		if (rc != -BCN_EFULL || *page == 1)
			break;
		*page /= 2;
	}
	if (rc)
		return rc;
	return bcn_es_parse_search((const char *)es->http.resp.data,
				   es->http.resp.len, h, err, errlen);
}

static int search_path(struct es_store *es, const struct bcn_store_query *q,
		       const char *what, char *path, size_t pathlen)
{
	char idx[BCN_ES_INDICES_MAX];
	int rc, n;

	rc = bcn_es_query_indices(es->base.cfg.index_prefix, q, idx, sizeof(idx));
	if (rc)
		return rc;
	n = snprintf(path, pathlen, "/%s/%s?ignore_unavailable=true"
		     "&allow_no_indices=true", idx, what);
	return n < 0 || (size_t)n >= pathlen ? -BCN_EFULL : 0;
}

/* Logs a failure of the store (not a value a callback returned). */
static void report(struct es_store *es, const char *what,
		   const struct bcn_store_query *q, int rc, int stopped,
		   const char *err)
{
	if (rc < 0 && !stopped)
		BCN_ERR("opensearch: %s of %s records at %s: %s", what,
			bcn_layer_name((unsigned)q->layer), es->http.base,
			err[0] ? err : bcn_strerror(rc));
}

/* Pages through the hits of q with search_after, in the order of t, node,
 * seq and idx (the sort of bcn_es_search_body). */
static int do_scan(struct es_store *es, const struct bcn_store_query *q,
		   struct cb *cb)
{
	char path[PATH_MAX_LEN], err[BCN_ES_ERR_MAX] = "", *after = NULL;
	uint64_t left = q->limit ? q->limit : UINT64_MAX;
	size_t page = SCAN_PAGE;
	struct bcn_es_hits h;
	int rc;

	if (q->from >= q->to)
		return 0;
	after = malloc(BCN_ES_SORT_MAX);
	rc = after ? fresh(es, err, sizeof(err)) : -ENOMEM;
	if (!rc)
		rc = search_path(es, q, "_search", path, sizeof(path));
	for (int first = 1; rc == 0 && left > 0; first = 0) {
		size_t want = left < page ? (size_t)left : page, got;

		rc = scan_page(es, q, path, &page, want, first ? NULL : after,
			       &h, err, sizeof(err));
		if (rc)
			break;
		got = h.n;
		rc = scan_hits(es, &h, cb, after, BCN_ES_SORT_MAX, err,
			       sizeof(err));
		bcn_es_hits_free(&h);
		left -= got;
		if (got < want || got == 0)
			break;
	}
	report(es, "scan", q, rc, cb->stopped, err);
	free(after);
	return rc;
}

static int es_scan(struct bcn_store *s, const struct bcn_store_query *q,
		   bcn_store_record_fn *fn, void *arg)
{
	struct es_store *es = es_of(s);
	struct cb cb = { fn, arg, 0 };
	int rc;

	if (es->busy)
		return -EBUSY;
	es->busy = 1;
	rc = do_scan(es, q, &cb);
	es->busy = 0;
	return rc;
}

static void add_sat(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

/* Sums computed from the records themselves, bucket by bucket. */
struct sum_acc {
	int64_t bucket_ns;
	int active;
	struct bcn_store_bucket cur;
	bcn_store_bucket_fn *fn;
	void *arg;
};

static int sum_record(void *arg, const struct bcn_record *r)
{
	struct sum_acc *a = arg;
	int64_t rem = r->t % a->bucket_ns, t;
	struct bcn_record_totals tot;
	int rc;

	if (rem < 0)
		rem += a->bucket_ns;
	if (__builtin_sub_overflow(r->t, rem, &t)) {
		BCN_ERR("opensearch: no bucket of %" PRId64 " ns holds t=%" PRId64,
			a->bucket_ns, r->t);
		return -BCN_ERANGE;
	}
	if (!a->active || t != a->cur.t) {
		if (a->active) {
			rc = a->fn(a->arg, &a->cur);
			if (rc)
				return rc;
		}
		memset(&a->cur, 0, sizeof(a->cur));
		a->cur.t = t;
		a->active = 1;
	}
	bcn_record_totals(r, &tot);
	a->cur.records++;
	add_sat(&a->cur.sum.read_bytes, tot.read_bytes);
	add_sat(&a->cur.sum.write_bytes, tot.write_bytes);
	add_sat(&a->cur.sum.read_ops, tot.read_ops);
	add_sat(&a->cur.sum.write_ops, tot.write_ops);
	add_sat(&a->cur.sum.meta_ops, tot.meta_ops);
	add_sat(&a->cur.sum.other_ops, tot.other_ops);
	return 0;
}

/* Sums of q from its records (exact to the last unit, any bucket width);
 * *stopped tells when the value came from fn or sum_record itself. */
static int sum_by_scan(struct es_store *es, const struct bcn_store_query *q,
		       int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg,
		       int *stopped)
{
	struct bcn_store_query all = *q;
	struct sum_acc a = { .bucket_ns = bucket_ns, .fn = fn, .arg = arg };
	struct cb cb = { sum_record, &a, 0 };
	int rc;

	all.limit = 0;
	rc = do_scan(es, &all, &cb);
	*stopped = cb.stopped;
	if (rc == 0 && a.active) {
		rc = fn(arg, &a.cur);
		*stopped = rc != 0;
	}
	return rc;
}

/* Hands over one aggregated bucket, recomputing it from the records when
 * a double may have rounded. */
static int emit_bucket(struct es_store *es, const struct bcn_store_query *q,
		       int64_t bucket_ns, const struct bcn_es_bucket *b,
		       bcn_store_bucket_fn *fn, void *arg, int *stopped)
{
	struct bcn_store_bucket out = { 0 };
	uint64_t *dst = &out.sum.read_bytes;
	int exact = 1, rc;

	if (__builtin_mul_overflow(b->key_ms, NS_PER_MS, &out.t))
		return -BCN_ERANGE;
	for (unsigned k = 0; k < BCN_ES_NSUMS; k++) {
		exact &= b->sum[k] < EXACT_LIMIT;
		dst[k] = exact ? (uint64_t)b->sum[k] : 0;
	}
	if (!exact) {
		struct bcn_store_query one = *q;
		int64_t end;

		if (__builtin_add_overflow(out.t, bucket_ns, &end))
			end = INT64_MAX;
		one.from = out.t > q->from ? out.t : q->from;
		one.to = end < q->to ? end : q->to;
		return sum_by_scan(es, &one, bucket_ns, fn, arg, stopped);
	}
	out.records = b->count;
	rc = fn(arg, &out);
	*stopped = rc != 0;
	return rc;
}

/* One page of buckets of the composite aggregation. */
static int sum_page(struct es_store *es, const struct bcn_store_query *q,
		    const char *path, int64_t bucket_ns, struct bcn_es_bucket *b,
		    size_t *n, int *has_after, int64_t *after, char *err,
		    size_t errlen)
{
	int rc;

	bcn_buf_reset(&es->body);
	rc = bcn_es_sum_body(&es->body, q, bucket_ns / NS_PER_MS, SUM_PAGE,
			     *has_after, *after);
	if (rc) {
		snprintf(err, errlen, "aggregation body: %s", bcn_strerror(rc));
		return rc;
	}
	rc = call(es, "POST", path, 1, err, errlen);
	if (rc)
		return rc;
	return bcn_es_parse_buckets((const char *)es->http.resp.data,
				    es->http.resp.len, b, SUM_PAGE, n, has_after,
				    after, err, errlen);
}

static int do_sum(struct es_store *es, const struct bcn_store_query *q,
		  int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg)
{
	char path[PATH_MAX_LEN], err[BCN_ES_ERR_MAX] = "";
	struct bcn_es_bucket *b = NULL;
	int has_after = 0, stopped = 0, rc;
	int64_t after = 0;
	size_t n = 0;

	if (q->from >= q->to)
		return 0;
	if (bucket_ns % NS_PER_MS != 0)
		return sum_by_scan(es, q, bucket_ns, fn, arg, &stopped);
	b = malloc(SUM_PAGE * sizeof(*b));
	rc = b ? fresh(es, err, sizeof(err)) : -ENOMEM;
	if (!rc)
		rc = search_path(es, q, "_search", path, sizeof(path));
	while (rc == 0) {
		rc = sum_page(es, q, path, bucket_ns, b, &n, &has_after, &after,
			      err, sizeof(err));
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = emit_bucket(es, q, bucket_ns, &b[i], fn, arg,
					 &stopped);
		if (n < SUM_PAGE || !has_after)
			break;
	}
	report(es, "sums", q, rc, stopped, err);
	free(b);
	return rc;
}

static int es_sum(struct bcn_store *s, const struct bcn_store_query *q,
		  int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg)
{
	struct es_store *es = es_of(s);
	int rc;

	if (es->busy)
		return -EBUSY;
	es->busy = 1;
	rc = do_sum(es, q, bucket_ns, fn, arg);
	es->busy = 0;
	return rc;
}

static int es_count(struct bcn_store *s, const struct bcn_store_query *q,
		    uint64_t *count)
{
	struct es_store *es = es_of(s);
	char path[PATH_MAX_LEN], err[BCN_ES_ERR_MAX] = "";
	int rc;

	*count = 0;
	if (es->busy)
		return -EBUSY;
	if (q->from >= q->to)
		return 0;
	bcn_buf_reset(&es->body);
	rc = fresh(es, err, sizeof(err));
	if (!rc)
		rc = search_path(es, q, "_count", path, sizeof(path));
	if (!rc)
		rc = bcn_es_count_body(&es->body, q);
	if (!rc)
		rc = call(es, "POST", path, 1, err, sizeof(err));
	if (!rc)
		rc = bcn_es_parse_count((const char *)es->http.resp.data,
					es->http.resp.len, count, err,
					sizeof(err));
	report(es, "count", q, rc, 0, err);
	return rc;
}

/* Collects the names of expired indices (NUL-separated) in names. */
struct expire_ctx {
	const char *prefix;
	int64_t last_day;               /* days up to this one have expired */
	struct bcn_buf *names;
	size_t n;
};

static int expire_pick(void *arg, const char *index)
{
	struct expire_ctx *x = arg;
	int64_t day;
	int layer;

	if (bcn_es_parse_index_name(index, x->prefix, &layer, &day) ||
	    day > x->last_day || x->n >= EXPIRE_MAX)
		return 0;
	x->n++;
	return bcn_buf_add(x->names, index, strlen(index) + 1);
}

static int delete_indices(struct es_store *es, const struct bcn_buf *names,
			  uint64_t *removed, char *err, size_t errlen)
{
	char path[BCN_ES_INDEX_MAX + 64];
	size_t off = 0;
	int rc = 0;

	while (rc == 0 && off < names->len) {
		const char *name = (const char *)names->data + off;

		off += strlen(name) + 1;
		snprintf(path, sizeof(path), "/%s", name);
		rc = call_meta(es, "DELETE", path, 0, err, errlen);
		if (rc == -ENOENT)
			rc = 0;         /* someone else was faster */
		else if (rc == 0)
			(*removed)++;
		if (rc == 0)
			BCN_INFO("opensearch: deleted expired index %s", name);
	}
	return rc;
}

static int es_expire(struct bcn_store *s, int64_t now_ns, uint64_t *removed)
{
	struct es_store *es = es_of(s);
	const struct bcn_store_config *cfg = &s->cfg;
	char path[BCN_STORE_PREFIX_MAX + 96], err[BCN_ES_ERR_MAX] = "";
	struct expire_ctx x = { .prefix = cfg->index_prefix };
	struct bcn_buf names;
	int64_t keep_ns, limit;
	int rc;

	*removed = 0;
	if (es->busy)
		return -EBUSY;
	/* a day [d, d + 1) has expired when (d + 1) * DAY < now - keep */
	if (__builtin_mul_overflow(cfg->retention_days, BCN_STORE_DAY_NS, &keep_ns) ||
	    __builtin_sub_overflow(now_ns, keep_ns, &limit))
		return 0;
	if (limit == INT64_MIN)
		return 0;
	x.last_day = bcn_es_day(limit - 1) - 1;
	bcn_buf_init(&names, (size_t)EXPIRE_MAX * (BCN_ES_INDEX_MAX + 1));
	x.names = &names;
	snprintf(path, sizeof(path), "/_cat/indices/%s-*?format=json&h=index"
		 "&expand_wildcards=all", cfg->index_prefix);
	rc = call(es, "GET", path, 0, err, sizeof(err));
	if (!rc)
		rc = bcn_es_parse_cat_indices((const char *)es->http.resp.data,
					      es->http.resp.len, expire_pick, &x,
					      err, sizeof(err));
	if (!rc)
		rc = delete_indices(es, &names, removed, err, sizeof(err));
	if (rc)
		BCN_ERR("opensearch: expiry at %s: %s", es->http.base,
			err[0] ? err : bcn_strerror(rc));
	bcn_buf_free(&names);
	return rc;
}

int bcn_store_es_stats(const struct bcn_store *s, struct bcn_store_es_stats *st)
{
	if (s->ops != &bcn_store_es_ops)
		return -EINVAL;
	*st = ((const struct es_store *)s)->stats;
	return 0;
}

int bcn_store_es_set_retry_hook(struct bcn_store *s, bcn_store_es_retry_fn *fn,
				void *arg)
{
	if (s->ops != &bcn_store_es_ops)
		return -EINVAL;
	es_of(s)->hook = fn;
	es_of(s)->hook_arg = arg;
	return 0;
}

int bcn_store_es_set_shape(struct bcn_store *s, unsigned shape, char *err,
			   size_t errlen)
{
	struct es_store *es = es_of(s);
	unsigned was;
	int rc;

	if (s->ops != &bcn_store_es_ops || shape > BCN_ES_SHAPE_ALL) {
		snprintf(err, errlen, "opensearch: no such store or shape");
		return -EINVAL;
	}
	was = es->shape;
	es->shape = shape;
	rc = put_template(es, err, errlen);
	if (rc)
		es->shape = was;
	return rc;
}

const struct bcn_store_ops bcn_store_es_ops = {
	.name = "opensearch",
	.open = es_open,
	.close = es_close,
	.append = es_append,
	.scan = es_scan,
	.sum = es_sum,
	.count = es_count,
	.expire = es_expire,
};
