/* Test helper for the OpenSearch / Elasticsearch backend: checks that need
 * a real server and a look below the store interface, run by
 * tests/integration/store_opensearch.sh, and the request bodies that
 * tests/data/opensearch/capture.sh sends to record real responses.
 *
 *   es_check retry URL PREFIX     items failing with 429 (a read-only-
 *                                 allow-delete block on one day index) are
 *                                 retried alone, and only they; calls from
 *                                 inside a scan callback get -EBUSY
 *   es_check reject URL PREFIX    items failing for good (write block,
 *                                 mapping conflict) fail the append without
 *                                 retries; the others are stored
 *   es_check store URL PREFIX SHARDS REPLICAS RETENTION_DAYS NOW DAYS...
 *                                 opens a store so configured, appends 3
 *                                 client and ost records on each day
 *                                 (relative to the epoch second NOW) and
 *                                 expires at NOW; prints the count removed
 *   es_check parts URL PREFIX     ost and mds day indices and documents as
 *                                 beacon wrote them before documents had a
 *                                 part: opening the store gives them one,
 *                                 and sums count each target once
 *   es_check shapes URL PREFIX    documents and day indices of the old
 *                                 shape and of the current one (smaller on
 *                                 disk) read back alike, exactly
 *   es_check bulk-body PREFIX     prints the _bulk body of sample records
 *   es_check template PREFIX      prints the index template body
 *   es_check parts-update         prints the _update_by_query body that
 *                                 sets the part of old documents
 *
 * Exit status 0 when every check holds, 1 with a message otherwise. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/error.h"
#include "common/log.h"
#include "store/es_build.h"
#include "store/es_http.h"
#include "store/record_json.h"
#include "store/store.h"
#include "store/store_es.h"

#define SEC 1000000000ll
#define DAY BCN_STORE_DAY_NS
#define BASE (1704844800ll * SEC)       /* 2024-01-10T00:00:00Z */
#define NREC 40                         /* half on day 0, half on day 1 */
#define ERR_MAX 512
#define LOG_KEEP 4096

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int failf(const char *fmt, ...)
{
	va_list ap;

	fputs("es_check: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Log messages, kept for checks on what the store reported. */
static char logged[LOG_KEEP];

static void keep_log(void *arg, int level, const char *msg)
{
	size_t n = strlen(logged);

	(void)arg;
	fprintf(stderr, "es_check: log(%s): %s\n", bcn_log_level_name(level), msg);
	snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

static int open_store(const char *url, const char *prefix, int shards,
		      int replicas, int64_t retention, struct bcn_store **s)
{
	struct bcn_store_config cfg;
	char err[ERR_MAX];
	int rc;

	bcn_store_config_defaults(&cfg);
	cfg.backend = BCN_STORE_OPENSEARCH;
	snprintf(cfg.url, sizeof(cfg.url), "%s", url);
	snprintf(cfg.index_prefix, sizeof(cfg.index_prefix), "%s", prefix);
	cfg.shards = shards;
	cfg.replicas = replicas;
	cfg.retention_days = retention;
	rc = bcn_store_open(&cfg, s, err, sizeof(err));
	if (rc)
		return failf("open %s: %s (%s)", url, err, bcn_strerror(rc));
	return 0;
}

/* Records of node cn1, seq 7: even positions on day 0, odd on day 1. */
static void make_batch(struct bcn_record *recs, struct bcn_store_item *items,
		       size_t n, int64_t day0)
{
	for (size_t i = 0; i < n; i++) {
		bcn_record_init(&recs[i], BCN_REC_IO);
		recs[i].node = "cn1";
		recs[i].t = day0 + (int64_t)(i % 2) * DAY + (int64_t)i * SEC;
		recs[i].u.io.op = BCN_IO_WRITE;
		recs[i].u.io.size = 4096;
		items[i].rec = &recs[i];
		items[i].seq = 7;
		items[i].idx = (uint32_t)i;
	}
}

/* Sends an admin request and requires the given status. */
static int admin(struct bcn_es_http *h, const char *method, const char *path,
		 const char *body, long want)
{
	char err[ERR_MAX];
	int rc;

	rc = bcn_es_http_request(h, method, path, body, body ? strlen(body) : 0,
				 err, sizeof(err));
	if (rc)
		return failf("%s %s: %s", method, path, err);
	if (h->status != want)
		return failf("%s %s: HTTP %ld, want %ld: %.*s", method, path,
			     h->status, want, (int)h->resp.len,
			     (const char *)h->resp.data);
	return 0;
}

/* The _version of every document of the index pattern, by _id. */
static int versions(struct bcn_es_http *h, const char *pattern, size_t *n,
		    long long *min, long long *max)
{
	char path[256];
	json_t *root, *hit;
	size_t i;
	int rc;

	snprintf(path, sizeof(path), "/%s/_search", pattern);
	rc = admin(h, "POST", path, "{\"size\":1000,\"version\":true,"
		   "\"_source\":false}", 200);
	if (rc)
		return rc;
	if (bcn_json_load((const char *)h->resp.data, h->resp.len, &root, NULL, 0))
		return failf("search answer is no JSON");
	*n = 0;
	*min = 1LL << 62;
	*max = 0;
	json_array_foreach(json_object_get(json_object_get(root, "hits"), "hits"),
			   i, hit) {
		long long v = json_integer_value(json_object_get(hit, "_version"));

		*min = v < *min ? v : *min;
		*max = v > *max ? v : *max;
		(*n)++;
	}
	json_decref(root);
	return 0;
}

static uint64_t count_client(struct bcn_store *s)
{
	struct bcn_store_query q = { BCN_LAYER_CLIENT, NULL, 0, INT64_MIN,
				     INT64_MAX, 0, BCN_STORE_PART_TOTAL, false };
	uint64_t n = UINT64_MAX;

	if (bcn_store_count(s, &q, &n))
		return UINT64_MAX;
	return n;
}

/* A callback that uses the store it is called from: each call must be
 * refused with -EBUSY. */
struct reenter {
	struct bcn_store *s;
	int rc[3];
};

static int call_inside(void *arg, const struct bcn_record *r)
{
	struct reenter *x = arg;
	struct bcn_store_query q = { BCN_LAYER_CLIENT, NULL, 0, INT64_MIN,
				     INT64_MAX, 0, BCN_STORE_PART_TOTAL, false };
	struct bcn_store_item it = { r, 99, 0, 0 };
	uint64_t n;

	x->rc[0] = bcn_store_count(x->s, &q, &n);
	x->rc[1] = bcn_store_append(x->s, &it, 1);
	x->rc[2] = bcn_store_scan(x->s, &q, call_inside, x);
	return 1;
}

/* What the retry hook saw, and what it does: lift the block. */
struct hook_state {
	struct bcn_es_http *admin;
	const char *index;
	unsigned calls;
	size_t n;
	int odd_only;
	int lift_failed;
};

static void on_retry(void *arg, unsigned round, const size_t *pos, size_t n)
{
	struct hook_state *h = arg;

	h->calls++;
	h->n = n;
	h->odd_only = 1;
	for (size_t i = 0; i < n; i++)
		h->odd_only &= (int)(pos[i] % 2);
	fprintf(stderr, "es_check: retry round %u with %zu items\n", round, n);
	if (h->admin) {
		char path[BCN_ES_INDEX_MAX + 32];

		snprintf(path, sizeof(path), "/%s/_settings", h->index);
		h->lift_failed = admin(h->admin, "PUT", path,
			"{\"index.blocks.read_only_allow_delete\":null}", 200);
	}
}

/* Creates the day-1 index with one record of another identity. */
static int seed_day1(struct bcn_store *s, const char *prefix, char *index)
{
	struct bcn_record r;
	struct bcn_store_item it = { &r, 1, 0, 0 };
	int rc;

	bcn_record_init(&r, BCN_REC_IO);
	r.node = "seed";
	r.t = BASE + DAY;
	rc = bcn_store_append(s, &it, 1);
	if (rc)
		return failf("seed append: %s", bcn_strerror(rc));
	return bcn_es_index_name(prefix, BCN_LAYER_CLIENT, r.t, index,
				 BCN_ES_INDEX_MAX);
}

static int check_retry(const char *url, const char *prefix)
{
	static struct bcn_record recs[NREC];
	static struct bcn_store_item items[NREC];
	struct bcn_store_es_stats st0, st1;
	char index[BCN_ES_INDEX_MAX], path[BCN_ES_INDEX_MAX + 32], pat[128];
	struct hook_state hs = { 0 };
	struct bcn_es_http h;
	struct bcn_store *s = NULL;
	long long vmin = 0, vmax = 0;
	char err[ERR_MAX];
	size_t n = 0;
	int rc;

	if (bcn_es_http_init(&h, url, NULL, NULL, 30000, err, sizeof(err)))
		return failf("%s", err);
	rc = open_store(url, prefix, 1, 0, 183, &s);
	if (!rc)
		rc = seed_day1(s, prefix, index);
	if (rc)
		goto out;
	snprintf(path, sizeof(path), "/%s/_settings", index);
	rc = admin(&h, "PUT", path, "{\"index.blocks.read_only_allow_delete\":true}",
		   200);
	if (rc)
		goto out;
	hs.admin = &h;
	hs.index = index;
	bcn_store_es_set_retry_hook(s, on_retry, &hs);
	make_batch(recs, items, NREC, BASE);
	bcn_store_es_stats(s, &st0);
	rc = bcn_store_append(s, items, NREC);
	bcn_store_es_stats(s, &st1);
	if (rc || hs.lift_failed) {
		rc = failf("append with a blocked day: %s", bcn_strerror(rc));
		goto out;
	}
	if (hs.calls != 1 || hs.n != NREC / 2 || !hs.odd_only) {
		rc = failf("retry hook: %u calls, last with %zu items (odd only: "
			   "%d), want 1 call with the %d day-1 items", hs.calls,
			   hs.n, hs.odd_only, NREC / 2);
		goto out;
	}
	if (st1.items_sent - st0.items_sent != NREC + NREC / 2 ||
	    st1.items_retried - st0.items_retried != NREC / 2) {
		rc = failf("sent %" PRIu64 " items (%" PRIu64 " retried), want "
			   "%d (%d)", st1.items_sent - st0.items_sent,
			   st1.items_retried - st0.items_retried,
			   NREC + NREC / 2, NREC / 2);
		goto out;
	}
	if (count_client(s) != NREC + 1) {
		rc = failf("count %" PRIu64 ", want %d", count_client(s), NREC + 1);
		goto out;
	}
	/* every document was indexed once: the day-0 ones were not resent */
	snprintf(pat, sizeof(pat), "%s-client-*", prefix);
	rc = versions(&h, pat, &n, &vmin, &vmax);
	if (!rc && (n != NREC + 1 || vmin != 1 || vmax != 1))
		rc = failf("%zu documents with versions %lld..%lld, want %d, all 1",
			   n, vmin, vmax, NREC + 1);
	if (!rc) {
		struct bcn_store_query q = { BCN_LAYER_CLIENT, NULL, 0, INT64_MIN,
					     INT64_MAX, 0, BCN_STORE_PART_TOTAL, false };
		struct reenter x = { s, { 0, 0, 0 } };

		if (bcn_store_scan(s, &q, call_inside, &x) != 1 ||
		    x.rc[0] != -EBUSY || x.rc[1] != -EBUSY || x.rc[2] != -EBUSY)
			rc = failf("calls from inside a scan: %d %d %d, want -EBUSY",
				   x.rc[0], x.rc[1], x.rc[2]);
	}
	if (!rc)
		printf("retry: %d items, %d retried once, all stored once\n", NREC,
		       NREC / 2);
out:
	bcn_store_close(s);
	bcn_es_http_free(&h);
	return rc;
}

/* A write block (403) and a mapping conflict (400) fail for good. */
static int check_reject(const char *url, const char *prefix)
{
	static struct bcn_record recs[NREC];
	static struct bcn_store_item items[NREC];
	struct bcn_store_es_stats st0, st1;
	char index[BCN_ES_INDEX_MAX], path[BCN_ES_INDEX_MAX + 32];
	struct hook_state hs = { 0 };
	struct bcn_es_http h;
	struct bcn_store *s = NULL;
	char err[ERR_MAX];
	int rc;

	if (bcn_es_http_init(&h, url, NULL, NULL, 30000, err, sizeof(err)))
		return failf("%s", err);
	rc = open_store(url, prefix, 1, 0, 183, &s);
	if (!rc)
		rc = seed_day1(s, prefix, index);
	snprintf(path, sizeof(path), "/%s/_settings", index);
	if (!rc)
		rc = admin(&h, "PUT", path, "{\"index.blocks.write\":true}", 200);
	if (rc)
		goto out;
	bcn_store_es_set_retry_hook(s, on_retry, &hs);
	make_batch(recs, items, NREC, BASE);
	bcn_store_es_stats(s, &st0);
	logged[0] = '\0';
	rc = bcn_store_append(s, items, NREC);
	bcn_store_es_stats(s, &st1);
	if (rc != -EIO || hs.calls != 0 ||
	    st1.items_rejected - st0.items_rejected != NREC / 2 ||
	    !strstr(logged, "cluster_block_exception")) {
		rc = failf("append into a write-blocked day: %s, %u retries, "
			   "%" PRIu64 " rejected; want -EIO, none, %d and the "
			   "reason logged", bcn_strerror(rc), hs.calls,
			   st1.items_rejected - st0.items_rejected, NREC / 2);
		goto out;
	}
	if (count_client(s) != NREC / 2 + 1) {
		rc = failf("count %" PRIu64 " after a partial append, want %d",
			   count_client(s), NREC / 2 + 1);
		goto out;
	}
	rc = admin(&h, "PUT", path, "{\"index.blocks.write\":null}", 200);
	if (!rc && bcn_store_append(s, items, NREC))
		rc = failf("append after lifting the block failed");
	if (!rc && count_client(s) != NREC + 1)
		rc = failf("count %" PRIu64 " after the second append, want %d",
			   count_client(s), NREC + 1);
	if (rc)
		goto out;
	/* a day index whose mapping contradicts the template */
	bcn_es_index_name(prefix, BCN_LAYER_CLIENT, BASE + 5 * DAY, index,
			  sizeof(index));
	snprintf(path, sizeof(path), "/%s", index);
	rc = admin(&h, "PUT", path, "{\"mappings\":{\"properties\":"
		   "{\"idx\":{\"type\":\"boolean\"}}}}", 200);
	if (rc)
		goto out;
	make_batch(recs, items, 4, BASE + 5 * DAY);
	for (size_t i = 0; i < 4; i++)
		recs[i].t = BASE + 5 * DAY + (int64_t)i;
	logged[0] = '\0';
	rc = bcn_store_append(s, items, 4);
	if (rc != -EIO || hs.calls != 0 ||
	    !strstr(logged, "mapper_parsing_exception")) {
		rc = failf("append against a conflicting mapping: %s, %u "
			   "retries; want -EIO, none, the reason logged",
			   bcn_strerror(rc), hs.calls);
		goto out;
	}
	rc = 0;
	printf("reject: write block and mapping conflict fail without retries\n");
out:
	bcn_store_close(s);
	bcn_es_http_free(&h);
	return rc;
}

/* A decimal integer in [lo, hi], or -1 with a message. */
static int num(const char *s, long long lo, long long hi, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || end == s || *end || *out < lo || *out > hi)
		return failf("bad number '%s'", s);
	return 0;
}

static int run_store(int argc, char **argv)
{
	long long shards, replicas, keep, now_s, day;
	struct bcn_store *s = NULL;
	uint64_t removed = 0;
	int64_t now;
	int rc;

	if (num(argv[4], 1, 1024, &shards) || num(argv[5], 0, 16, &replicas) ||
	    num(argv[6], 1, 100000, &keep) ||
	    num(argv[7], 0, INT64_MAX / SEC - 366 * 86400, &now_s))
		return -1;
	now = (int64_t)now_s * SEC;
	rc = open_store(argv[2], argv[3], (int)shards, (int)replicas, keep, &s);
	for (int a = 8; rc == 0 && a < argc; a++) {
		struct bcn_record recs[6];
		struct bcn_store_item items[6];

		if (num(argv[a], -366, 366, &day)) {
			rc = -1;
			break;
		}

		for (uint32_t i = 0; i < 6; i++) {
			bcn_record_init(&recs[i], i < 3 ? BCN_REC_IO : BCN_REC_OST);
			recs[i].node = "n1";
			recs[i].t = now + day * DAY + (int64_t)i;
			items[i] = (struct bcn_store_item){ &recs[i], (uint64_t)(a + 1000), i, 0 };
		}
		rc = bcn_store_append(s, items, 6);
		if (rc)
			rc = failf("append: %s", bcn_strerror(rc));
	}
	if (!rc) {
		rc = bcn_store_expire(s, now, &removed);
		if (rc)
			rc = failf("expire: %s", bcn_strerror(rc));
		else
			printf("%" PRIu64 "\n", removed);
	}
	bcn_store_close(s);
	return rc;
}

/* The body of a PUT of a day index as beacon created them before
 * documents had a part: the template's settings and mappings without the
 * part field. *out is malloc'd. */
static int old_index_body(const char *prefix, char **out)
{
	json_t *root, *tpl, *props;
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, 1 << 16);
	rc = bcn_es_template(&b, prefix, 1, 0, BCN_ES_SHAPE_V1);
	root = rc ? NULL : json_loadb((const char *)b.data, b.len, 0, NULL);
	bcn_buf_free(&b);
	tpl = json_object_get(root, "template");
	props = json_object_get(json_object_get(tpl, "mappings"), "properties");
	if (!props || json_object_del(props, "part"))
		rc = failf("template without mappings or part");
	*out = rc ? NULL : json_dumps(tpl, JSON_COMPACT);
	json_decref(root);
	return rc || *out ? rc : failf("out of memory");
}

/* Appends the _bulk lines of it as beacon wrote them before documents had
 * a part: the document without part. */
static int old_bulk_add(struct bcn_buf *out, const char *prefix,
			const struct bcn_store_item *it)
{
	struct bcn_buf one;
	json_t *doc = NULL;
	const char *nl = NULL;
	char *text = NULL;
	size_t bad;
	int rc;

	bcn_buf_init(&one, 1 << 20);
	rc = bcn_es_bulk_add(&one, prefix, it, BCN_ES_SHAPE_V1, &bad);
	if (!rc)
		nl = memchr(one.data, '\n', one.len);
	if (nl)
		doc = json_loadb(nl + 1, one.len - (size_t)(nl + 1 -
			(const char *)one.data), JSON_DISABLE_EOF_CHECK, NULL);
	if (doc) {
		json_object_del(doc, "part");   /* ost and mds only */
		text = json_dumps(doc, JSON_COMPACT);
	}
	if (!nl || !text) {
		rc = failf("old bulk lines");
		goto out;
	}
	rc = bcn_buf_add(out, one.data, (size_t)(nl + 1 - (const char *)one.data));
	if (!rc)
		rc = bcn_buf_printf(out, "%s\n", text);
out:
	free(text);
	json_decref(doc);
	bcn_buf_free(&one);
	return rc;
}

/* One part of simfs-OST0003 (v MiB read) or simfs-MDT0000 (v opens) at
 * BASE + t seconds, node oss03 or mds01, seq 5. */
static void part_rec(struct bcn_record *r, struct bcn_store_item *it,
		     enum bcn_rec_type type, uint32_t idx, int64_t t,
		     const char *client, const char *jobid, uint64_t job,
		     uint64_t v)
{
	bcn_record_init(r, type);
	r->node = type == BCN_REC_MDS ? "mds01" : type == BCN_REC_OST ?
		  "oss03" : "cn1";
	r->t = BASE + t * SEC;
	r->dur = SEC;
	r->job = job;
	if (type == BCN_REC_OST) {
		r->u.ost.target = "simfs-OST0003";
		r->u.ost.client = client;
		r->u.ost.jobid = jobid;
		r->u.ost.read_bytes = v << 20;
	} else if (type == BCN_REC_MDS) {
		r->u.mds.target = "simfs-MDT0000";
		r->u.mds.client = client;
		r->u.mds.jobid = jobid;
		r->u.mds.ops[BCN_MD_OPEN] = v;
	}
	*it = (struct bcn_store_item){ r, 5, idx, 0 };
}

static int one_bucket(void *arg, const struct bcn_store_bucket *b)
{
	*(struct bcn_store_bucket *)arg = *b;
	return 0;
}

/* MiB read (ost) or metadata operations (mds) of part over the day. */
static uint64_t part_sum(struct bcn_store *s, int layer, int part, uint64_t job)
{
	struct bcn_store_query q = { layer, NULL, job, BASE, BASE + DAY, 0,
				     part, false };
	struct bcn_store_bucket b = { 0 };

	if (bcn_store_sum(s, &q, DAY, one_bucket, &b))
		return UINT64_MAX;
	return layer == BCN_LAYER_OST ? b.sum.read_bytes >> 20 : b.sum.meta_ops;
}

/* The sums of every part against want[part + 1] (ANY, TOTAL, JOB,
 * CLIENT), with job. */
static int check_sums(struct bcn_store *s, int layer, uint64_t job,
		      const uint64_t want[BCN_STORE_PART_MAX + 1])
{
	for (int p = BCN_STORE_PART_ANY; p < BCN_STORE_PART_MAX; p++) {
		uint64_t got = part_sum(s, layer, p, job);

		if (got != want[p + 1])
			return failf("%s, part %s, job %" PRIu64 ": %" PRIu64
				     ", want %" PRIu64,
				     bcn_layer_name((unsigned)layer),
				     bcn_store_part_name(p), job, got,
				     want[p + 1]);
	}
	return 0;
}

#define NOLD 8

/* Creates the ost, mds and client indices of 2024-01-10 without part and
 * stores old documents there, as a beacon before parts did. */
static int seed_old(struct bcn_es_http *h, const char *prefix,
		    struct bcn_record *r, struct bcn_store_item *it)
{
	static const int layers[] = { BCN_LAYER_OST, BCN_LAYER_MDS,
				      BCN_LAYER_CLIENT };
	char path[BCN_ES_INDEX_MAX + 32], *body = NULL;
	struct bcn_buf bulk;
	int rc;

	part_rec(&r[0], &it[0], BCN_REC_OST, 0, 10, "", "", 0, 400);
	part_rec(&r[1], &it[1], BCN_REC_OST, 1, 10, "", "slurm.11", 11, 250);
	part_rec(&r[2], &it[2], BCN_REC_OST, 2, 10, "", "bench", 0, 150);
	part_rec(&r[3], &it[3], BCN_REC_OST, 3, 10, "10.0.0.1@tcp", "", 0, 400);
	part_rec(&r[4], &it[4], BCN_REC_MDS, 4, 20, "", "", 0, 70);
	part_rec(&r[5], &it[5], BCN_REC_MDS, 5, 20, "", "7", 7, 70);
	part_rec(&r[6], &it[6], BCN_REC_MDS, 6, 20, "10.0.0.1@tcp", "", 0, 70);
	part_rec(&r[7], &it[7], BCN_REC_IO, 7, 30, "", "", 0, 0);
	rc = old_index_body(prefix, &body);
	for (size_t l = 0; !rc && l < sizeof(layers) / sizeof(layers[0]); l++) {
		bcn_es_index_name(prefix, layers[l], BASE, path + 1,
				  sizeof(path) - 1);
		path[0] = '/';
		rc = admin(h, "PUT", path, body, 200);
	}
	free(body);
	bcn_buf_init(&bulk, 1 << 20);
	for (size_t i = 0; !rc && i < NOLD; i++)
		rc = old_bulk_add(&bulk, prefix, &it[i]);
	if (!rc)
		rc = bcn_buf_add(&bulk, "", 1);
	if (!rc)
		rc = admin(h, "POST", "/_bulk?refresh=true", (const char *)bulk.data,
			   200);
	if (!rc && strstr((const char *)h->resp.data, "\"errors\":false") == NULL)
		rc = failf("old documents: %.*s", (int)h->resp.len,
			   (const char *)h->resp.data);
	bcn_buf_free(&bulk);
	return rc;
}

/* Old ost and mds documents get their part when a store opens; new
 * records go into the old day indices; sums count each target once. */
static int check_parts(const char *url, const char *prefix)
{
	static struct bcn_record r[NOLD + 2];
	static struct bcn_store_item it[NOLD + 2];
	struct bcn_store *s = NULL;
	struct bcn_es_http h;
	char err[ERR_MAX];
	int rc;

	if (bcn_es_http_init(&h, url, NULL, NULL, 30000, err, sizeof(err)))
		return failf("%s", err);
	rc = seed_old(&h, prefix, r, it);
	logged[0] = '\0';
	if (!rc)
		rc = open_store(url, prefix, 1, 0, 36500, &s);
	if (!rc && !strstr(logged, "set the part of 7 older documents"))
		rc = failf("the upgrade did not report 7 documents");
	if (!rc)
		rc = check_sums(s, BCN_LAYER_OST, 0,
				(const uint64_t[]){ 1200, 400, 400, 400 });
	if (!rc)
		rc = check_sums(s, BCN_LAYER_MDS, 0,
				(const uint64_t[]){ 210, 70, 70, 70 });
	if (!rc)
		rc = check_sums(s, BCN_LAYER_OST, 11,
				(const uint64_t[]){ 250, 250, 250, 0 });
	/* the old day indices take new records, with and without parts */
	part_rec(&r[NOLD], &it[NOLD], BCN_REC_OST, 8, 40, "", "slurm.12", 12, 50);
	part_rec(&r[NOLD + 1], &it[NOLD + 1], BCN_REC_IO, 9, 40, "", "", 0, 0);
	if (!rc && bcn_store_append(s, it + NOLD, 2))
		rc = failf("append into the old day indices failed");
	if (!rc)
		rc = check_sums(s, BCN_LAYER_OST, 0,
				(const uint64_t[]){ 1250, 400, 450, 400 });
	bcn_store_close(s);
	s = NULL;
	logged[0] = '\0';
	if (!rc)
		rc = open_store(url, prefix, 1, 0, 36500, &s);
	if (!rc && strstr(logged, "older documents"))
		rc = failf("a second open set parts again: %s", logged);
	if (!rc)
		printf("parts: 7 old documents got their part, sums count "
		       "each target once\n");
	bcn_store_close(s);
	bcn_es_http_free(&h);
	return rc;
}

/* Records of the shapes check: io, ost and mds in turn, phase p (0: the
 * old shape, 1: the current one) on day d, one a second from offset s. */
#define NSHAPE 12

static void shape_rec(struct bcn_record *r, struct bcn_store_item *it,
		      unsigned p, unsigned d, unsigned i, int64_t s)
{
	static const char *const targets[] = { "fs-OST0000", "fs-OST0001",
					       "fs-MDT0000" };
	static const char *const jobids[] = { "", "slurm.11", "", "" };
	static const char *const clients[] = { "", "", "10.0.0.1@tcp", "" };
	static char paths[2][2][NSHAPE][32];
	enum bcn_rec_type type = i % 3 == 0 ? BCN_REC_IO :
				 i % 3 == 1 ? BCN_REC_OST : BCN_REC_MDS;

	bcn_record_init(r, type);
	r->node = type == BCN_REC_IO ? "cn0007" : "oss01";
	r->t = BASE + (int64_t)d * DAY + (s + i) * SEC + 1234;
	r->dur = SEC;
	r->job = i % 4 == 1 ? 11 : 0;
	if (type == BCN_REC_IO) {
		snprintf(paths[p][d][i], sizeof(paths[p][d][i]),
			 "/scratch/p%u/d%u/f%u", p, d, i);
		r->u.io.op = BCN_IO_WRITE;
		r->u.io.path = paths[p][d][i];
		r->u.io.size = 1ull << 20;
		r->u.io.count = i + 1;
	} else if (type == BCN_REC_OST) {
		r->u.ost.target = targets[i % 2];
		r->u.ost.jobid = jobids[i % 4];
		r->u.ost.client = clients[i % 4];
		r->u.ost.read_bytes = i == 1 ? (1ull << 63) + 5 : (uint64_t)i << 20;
		r->u.ost.ops[BCN_OST_READ] = i;
	} else {
		r->u.mds.target = targets[2];
		r->u.mds.jobid = jobids[i % 4];
		r->u.mds.client = clients[i % 4];
		r->u.mds.ops[BCN_MD_OPEN] = i;
	}
	*it = (struct bcn_store_item){ r, 100 + 10 * p + d, i, 0 };
}

/* Every record of the layer over both days, in order, as JSON lines. */
static int scan_json_fn(void *arg, const struct bcn_record *r)
{
	struct bcn_buf *b = arg;
	int rc = bcn_record_to_json(r, b);

	return rc ? rc : bcn_buf_adds(b, "\n");
}

static int check_layer(struct bcn_store *s, int layer,
		       const struct bcn_store_item *all, size_t n)
{
	struct bcn_store_query q = { layer, NULL, 0, BASE, BASE + 2 * DAY, 0,
				     BCN_STORE_PART_ANY, false };
	struct bcn_buf got, want;
	int rc;

	bcn_buf_init(&got, 1 << 20);
	bcn_buf_init(&want, 1 << 20);
	rc = bcn_store_scan(s, &q, scan_json_fn, &got);
	for (size_t i = 0; !rc && i < n; i++)     /* all is in order of t */
		if ((int)bcn_record_desc(all[i].rec->type)->layer == layer)
			rc = scan_json_fn(&want, all[i].rec);
	if (!rc && (got.len != want.len || memcmp(got.data, want.data, got.len)))
		rc = failf("%s records differ:\ngot:\n%.*s\nwant:\n%.*s",
			   bcn_layer_name((unsigned)layer), (int)got.len,
			   (const char *)got.data, (int)want.len,
			   (const char *)want.data);
	else if (rc)
		rc = failf("scan of %s: %s", bcn_layer_name((unsigned)layer),
			   bcn_strerror(rc));
	bcn_buf_free(&got);
	bcn_buf_free(&want);
	return rc;
}

/* Filters on both shapes: counts of an entity, of a job's parts, and the
 * total read bytes of the ost layer (big values summed exactly). */
static int check_filters(struct bcn_store *s, const struct bcn_store_item *all,
			 size_t n)
{
	struct bcn_store_query qe = { BCN_LAYER_OST, "fs-OST0001", 0, BASE,
				      BASE + 2 * DAY, 0, BCN_STORE_PART_ANY, false };
	struct bcn_store_query qj = { BCN_LAYER_OST, NULL, 11, BASE,
				      BASE + 2 * DAY, 0, BCN_STORE_PART_TOTAL, false };
	struct bcn_store_query qt = { BCN_LAYER_OST, NULL, 0, BASE,
				      BASE + 2 * DAY, 0, BCN_STORE_PART_TOTAL, false };
	uint64_t ne = 0, nj = 0, bytes = 0, ce, cj;
	struct bcn_store_bucket b = { 0 };
	char entity[BCN_ENTITY_MAX];

	for (size_t i = 0; i < n; i++) {
		const struct bcn_record *r = all[i].rec;

		if (r->type != BCN_REC_OST)
			continue;
		bcn_record_entity(r, entity, sizeof(entity));
		ne += !strcmp(entity, "fs-OST0001");
		nj += r->job == 11;
		if (bcn_store_record_part(r) == BCN_STORE_PART_TOTAL)
			bytes = bytes + r->u.ost.read_bytes < bytes ? UINT64_MAX :
				bytes + r->u.ost.read_bytes;
	}
	if (bcn_store_count(s, &qe, &ce) || bcn_store_count(s, &qj, &cj) ||
	    bcn_store_sum(s, &qt, 2 * DAY, one_bucket, &b))
		return failf("counts and sums over both shapes failed");
	if (ce != ne || cj != nj || b.sum.read_bytes != bytes)
		return failf("entity %" PRIu64 " (want %" PRIu64 "), job %" PRIu64
			     " (want %" PRIu64 "), read bytes %" PRIu64 " (want %"
			     PRIu64 ")", ce, ne, cj, nj, b.sum.read_bytes, bytes);
	return 0;
}

/* Whether a day index has the codec of the current shape (lean) or the
 * default one. */
static int check_index_shape(struct bcn_es_http *h, const char *prefix,
			     int64_t t, int lean)
{
	char index[BCN_ES_INDEX_MAX], path[BCN_ES_INDEX_MAX + 32];
	int rc, codec;

	bcn_es_index_name(prefix, BCN_LAYER_OST, t, index, sizeof(index));
	snprintf(path, sizeof(path), "/%s/_settings", index);
	rc = admin(h, "GET", path, NULL, 200);
	if (rc)
		return rc;
	codec = memmem(h->resp.data, h->resp.len, "best_compression", 16) != NULL;
	if (codec != lean)
		return failf("%s: codec best_compression %d, want %d", index,
			     codec, lean);
	return 0;
}

/* A document without part in an index of the current shape, as a beacon
 * from before parts would write it. */
static int seed_partless(struct bcn_es_http *h, const char *prefix,
			 struct bcn_store_item *it)
{
	struct bcn_buf bulk;
	int rc;

	bcn_buf_init(&bulk, 1 << 20);
	rc = old_bulk_add(&bulk, prefix, it);
	if (!rc)
		rc = bcn_buf_add(&bulk, "", 1);
	if (!rc)
		rc = admin(h, "POST", "/_bulk?refresh=true", (const char *)bulk.data,
			   200);
	if (!rc && strstr((const char *)h->resp.data, "\"errors\":false") == NULL)
		rc = failf("part-less document: %.*s", (int)h->resp.len,
			   (const char *)h->resp.data);
	bcn_buf_free(&bulk);
	return rc;
}

/* Indices and documents of the old shape stay readable next to those of
 * the current one, in the same day index and in a new one. */
static int check_shapes(const char *url, const char *prefix)
{
	static struct bcn_record r[3 * NSHAPE + 1];
	static struct bcn_store_item it[3 * NSHAPE + 1];
	struct bcn_store *s = NULL;
	struct bcn_es_http h;
	char err[ERR_MAX];
	size_t n = 0;
	int rc;

	if (bcn_es_http_init(&h, url, NULL, NULL, 30000, err, sizeof(err)))
		return failf("%s", err);
	rc = open_store(url, prefix, 1, 0, 36500, &s);
	if (!rc && bcn_store_es_set_shape(s, BCN_ES_SHAPE_V1, err, sizeof(err)))
		rc = failf("old shape: %s", err);
	for (unsigned i = 0; i < NSHAPE; i++, n++)      /* old, day 0 */
		shape_rec(&r[n], &it[n], 0, 0, i, 0);
	if (!rc && bcn_store_append(s, it, n))
		rc = failf("append of the old shape failed");
	bcn_store_close(s);
	s = NULL;
	for (unsigned i = 0; i < NSHAPE; i++, n++)      /* new, day 0 */
		shape_rec(&r[n], &it[n], 1, 0, i, 100);
	for (unsigned i = 0; i < NSHAPE; i++, n++)      /* new, day 1 */
		shape_rec(&r[n], &it[n], 1, 1, i, 0);
	if (!rc)
		rc = open_store(url, prefix, 1, 0, 36500, &s);
	if (!rc && bcn_store_append(s, it + NSHAPE, 2 * NSHAPE))
		rc = failf("append of the current shape failed");
	if (!rc)
		rc = check_index_shape(&h, prefix, BASE, 0);
	if (!rc)
		rc = check_index_shape(&h, prefix, BASE + DAY, 1);
	for (int l = BCN_LAYER_CLIENT; !rc && l <= BCN_LAYER_MDS; l++)
		if (l != BCN_LAYER_FORWARD)
			rc = check_layer(s, l, it, n);
	if (!rc)
		rc = check_filters(s, it, n);
	bcn_store_close(s);
	s = NULL;
	/* a part-less ost document at the end of day 1 gets its part from
	 * the upgrade, in an index of the current shape too, and keeps the
	 * rest (the document is rewritten from its _source) */
	shape_rec(&r[n], &it[n], 1, 1, 4, 3600);
	r[n].u.ost.jobid = "slurm.99";
	r[n].job = 99;
	it[n].idx = 99;
	if (!rc)
		rc = seed_partless(&h, prefix, &it[n++]);
	logged[0] = '\0';
	if (!rc)
		rc = open_store(url, prefix, 1, 0, 36500, &s);
	if (!rc && !strstr(logged, "set the part of 1 older documents"))
		rc = failf("the parts upgrade did not report 1 document");
	if (!rc)
		rc = check_layer(s, BCN_LAYER_OST, it, n);
	if (!rc)
		rc = check_filters(s, it, n);
	if (!rc)
		printf("shapes: old and current documents read back alike\n");
	bcn_store_close(s);
	bcn_es_http_free(&h);
	return rc;
}

/* Sample records for captured responses: every type, large values,
 * escapes, non-ASCII text, invalid UTF-8 and a node name too long for a
 * verbatim _id. */
static int bulk_body(const char *prefix)
{
	static char long_node[501];
	struct bcn_record r[BCN_REC_TYPE_MAX + 2];
	struct bcn_store_item it;
	struct bcn_buf b;
	size_t bad, n = 0;
	int rc = 0;

	memset(long_node, 'n', sizeof(long_node) - 1);
	for (int type = 1; type < BCN_REC_TYPE_MAX; type++, n++) {
		bcn_record_init(&r[n], (enum bcn_rec_type)type);
		r[n].node = type % 2 ? "cn001" : "узел-7";
		r[n].t = BASE + type * 3600 * SEC + 123456789;
		r[n].dur = SEC;
		r[n].job = type == BCN_REC_OST ? UINT64_MAX : 4242;
	}
	r[0].u.io.op = BCN_IO_WRITE;
	r[0].u.io.size = 1ull << 20;
	r[0].u.io.count = 3;
	r[0].u.io.path = "/scratch/\"quoted\"\tdir/ckpt.0001";
	r[0].u.io.file = UINT64_MAX - 1;
	r[BCN_REC_OST - 1].u.ost.target = "lustre-OST0003";
	r[BCN_REC_OST - 1].u.ost.read_bytes = (1ull << 63) + 5;
	r[BCN_REC_OST - 1].u.ost.ops[BCN_OST_READ] = 17;
	r[BCN_REC_MDS - 1].u.mds.target = "lustre-MDT0000";
	r[BCN_REC_MDS - 1].u.mds.ops[BCN_MD_OPEN] = 5;
	r[BCN_REC_PORT - 1].u.port.sw = "0x7cfe3c0300a6b4e0";
	r[BCN_REC_PORT - 1].u.port.port = 12;
	r[BCN_REC_JOB - 1].u.job.user = "alice";
	r[BCN_REC_JOB - 1].u.job.nodelist = "cn[001-128]";
	bcn_record_init(&r[n], BCN_REC_IO);
	r[n].node = long_node;
	r[n].t = BASE - 1;
	r[n++].u.io.path = "/bad/\xff\xfe/utf8";
	bcn_buf_init(&b, 1 << 20);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		it = (struct bcn_store_item){ &r[i], 100 + i, (uint32_t)i, 0 };
		rc = bcn_es_bulk_add(&b, prefix, &it, BCN_ES_SHAPE_CURRENT, &bad);
	}
	if (rc == 0 && fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc ? failf("bulk body: %s", bcn_strerror(rc)) : 0;
}

static int template_body(const char *prefix)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, 1 << 16);
	rc = bcn_es_template(&b, prefix, 1, 0, BCN_ES_SHAPE_CURRENT);
	if (rc == 0 && fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc ? failf("template body: %s", bcn_strerror(rc)) : 0;
}

static int parts_update_body(void)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, 1 << 16);
	rc = bcn_es_parts_update(&b);
	if (rc == 0 && fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc ? failf("update body: %s", bcn_strerror(rc)) : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int rc;

	bcn_log_set_sink(keep_log, NULL);
	if (!strcmp(cmd, "retry") && argc == 4)
		rc = check_retry(argv[2], argv[3]);
	else if (!strcmp(cmd, "reject") && argc == 4)
		rc = check_reject(argv[2], argv[3]);
	else if (!strcmp(cmd, "parts") && argc == 4)
		rc = check_parts(argv[2], argv[3]);
	else if (!strcmp(cmd, "shapes") && argc == 4)
		rc = check_shapes(argv[2], argv[3]);
	else if (!strcmp(cmd, "store") && argc >= 8)
		rc = run_store(argc, argv);
	else if (!strcmp(cmd, "bulk-body") && argc == 3)
		rc = bulk_body(argv[2]);
	else if (!strcmp(cmd, "template") && argc == 3)
		rc = template_body(argv[2]);
	else if (!strcmp(cmd, "parts-update") && argc == 2)
		rc = parts_update_body();
	else {
		fprintf(stderr, "usage: es_check retry|reject|parts|shapes URL PREFIX\n"
			"       es_check store URL PREFIX SHARDS REPLICAS "
			"RETENTION_DAYS NOW DAYS...\n"
			"       es_check bulk-body|template PREFIX\n"
			"       es_check parts-update\n");
		return 2;
	}
	return rc ? 1 : 0;
}
