/* Tests of the record store interface, one suite for every backend: the
 * backend comes from the environment, so the same binary runs against the
 * embedded store and, from an integration script, a real OpenSearch:
 *
 *   BCN_STORE_BACKEND  sqlite (default) or opensearch
 *   BCN_STORE_DIR      sqlite: parent of the test's fresh directory
 *                      (default $TMPDIR or /tmp); removed at the end
 *   BCN_STORE_URL      opensearch: e.g. http://127.0.0.1:9200 (required)
 *   BCN_STORE_PREFIX   opensearch: index prefix of this run (default
 *                      "bcntest<pid>"); each test uses PREFIX-sNN and
 *                      cleanup_backend() deletes PREFIX-* (indices and
 *                      index templates) at the end
 *
 * Each test opens a store of its own (a fresh directory or prefix), so the
 * tests do not see each other's records. Expected results are computed
 * here from the generated records, independently of the backend. Only the
 * tests at the end marked "backend-specific" look below the interface;
 * they skip themselves for the other backend. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <sqlite3.h>

#include "common/error.h"
#include "proto/record.h"
#include "common/timefmt.h"
#include "proto/frame.h"
#include "store/store.h"
#include "recgen.h"
#include "totals_oracle.h"

#define SEC BCN_NS_PER_SEC
#define MIN (60 * SEC)
#define HOUR (3600 * SEC)
#define DAY BCN_STORE_DAY_NS
#define BASE (1704844800ll * SEC)       /* 2024-01-10T00:00:00Z */
#define JSON_MAX (256u << 20)
#define BUCKETS_MAX 200000
#define BIG_BATCH 20000
#define ENV_MAX 512

/* ---- backend selection and clean-up ---- */

static struct {
	int backend;
	char dir[PATH_MAX - 64];        /* sqlite: this run's directory */
	char url[BCN_STORE_URL_MAX];
	char prefix[BCN_STORE_PREFIX_MAX - 8];
	unsigned next;                  /* numbers the tests' stores */
} env;

/* A test's store and the configuration it was opened with. */
struct fx {
	struct bcn_store_config cfg;
	struct bcn_store *s;
};

static int rm_tree(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) ? -errno : 0;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) <
		    (int)sizeof(sub))
			rm_tree(sub);
	}
	closedir(d);
	return rmdir(path) ? -errno : 0;
}

static size_t discard_body(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* Sends DELETE url; 200 and 404 (nothing there) are fine. */
static int http_delete(const char *url)
{
	long status = 0;
	CURLcode cc;
	CURL *c;

	c = curl_easy_init();
	if (!c)
		return -ENOMEM;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (cc != CURLE_OK || (status != 200 && status != 404)) {
		fprintf(stderr, "store_test: DELETE %s: %s, HTTP %ld\n", url,
			curl_easy_strerror(cc), status);
		return -EIO;
	}
	return 0;
}

/* Removes everything this run stored. For opensearch: the indices
 * <prefix>-* and the index templates <prefix>-* the stores installed
 * (Elasticsearch 8 refuses wildcard index deletes unless
 * action.destructive_requires_name is false). */
static int cleanup_backend(void)
{
	char url[BCN_STORE_URL_MAX + BCN_STORE_PREFIX_MAX + 32];
	int rc;

	if (env.backend == BCN_STORE_SQLITE)
		return env.dir[0] ? rm_tree(env.dir) : 0;
	snprintf(url, sizeof(url), "%s/%s-*", env.url, env.prefix);
	rc = http_delete(url);
	snprintf(url, sizeof(url), "%s/_index_template/%s-*", env.url,
		 env.prefix);
	return rc ? rc : http_delete(url);
}

static int copy_env(char *dst, size_t len, const char *name, const char *def)
{
	const char *v = getenv(name);

	if (!v || !v[0])
		v = def;
	if (!v || strlen(v) >= len)
		return -EINVAL;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

static int suite_setup(void **state)
{
	char parent[ENV_MAX], be[32];
	int n;

	(void)state;
	if (copy_env(be, sizeof(be), "BCN_STORE_BACKEND", "sqlite"))
		return -1;
	if (!strcmp(be, "opensearch")) {
		env.backend = BCN_STORE_OPENSEARCH;
		snprintf(parent, sizeof(parent), "bcntest%ld", (long)getpid());
		if (copy_env(env.url, sizeof(env.url), "BCN_STORE_URL", NULL) ||
		    copy_env(env.prefix, sizeof(env.prefix), "BCN_STORE_PREFIX",
			     parent)) {
			fprintf(stderr, "store_test: opensearch needs "
				"BCN_STORE_URL (and a short BCN_STORE_PREFIX)\n");
			return -1;
		}
		return curl_global_init(CURL_GLOBAL_DEFAULT) ? -1 : 0;
	}
	if (strcmp(be, "sqlite")) {
		fprintf(stderr, "store_test: unknown backend '%s'\n", be);
		return -1;
	}
	env.backend = BCN_STORE_SQLITE;
	if (copy_env(parent, sizeof(parent), "BCN_STORE_DIR", getenv("TMPDIR")))
		snprintf(parent, sizeof(parent), "/tmp");
	n = snprintf(env.dir, sizeof(env.dir), "%s/bcn-store-XXXXXX", parent);
	if (n < 0 || (size_t)n >= sizeof(env.dir) || !mkdtemp(env.dir))
		return -1;
	return 0;
}

static int suite_teardown(void **state)
{
	int rc;

	(void)state;
	rc = cleanup_backend();
	if (env.backend == BCN_STORE_OPENSEARCH)
		curl_global_cleanup();
	return rc ? -1 : 0;
}

/* Opens a store no other test uses, keeping retention_days. */
static void fx_open(struct fx *f, int64_t retention_days)
{
	char err[256] = "";
	int rc;

	bcn_store_config_defaults(&f->cfg);
	f->cfg.backend = env.backend;
	f->cfg.retention_days = retention_days;
	/* a test of what is stored, not of how fast: a 20,000-record bulk
	 * into a JVM sharing two loaded cores took over the default 30 s */
	if (env.backend == BCN_STORE_OPENSEARCH)
		f->cfg.timeout_ms = 300000;
	env.next++;
	if (env.backend == BCN_STORE_SQLITE) {
		snprintf(f->cfg.dir, sizeof(f->cfg.dir), "%s/s%02u", env.dir,
			 env.next);
	} else {
		snprintf(f->cfg.url, sizeof(f->cfg.url), "%s", env.url);
		snprintf(f->cfg.index_prefix, sizeof(f->cfg.index_prefix),
			 "%s-s%02u", env.prefix, env.next);
	}
	rc = bcn_store_open(&f->cfg, &f->s, err, sizeof(err));
	if (rc)
		fail_msg("opening the store: %s (%s)", err, bcn_strerror(rc));
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	fx_open(f, 183);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	bcn_store_close(f->s);
	free(f);
	return 0;
}

/* ---- generated records ---- */

#define NPOOL(a) (sizeof(a) / sizeof((a)[0]))
static const char *const nodes[] = {
	"cn001", "cn002", "cn010", "cn1", "fwd07", "oss03", "mds01", "sw-mon",
	"node with space", "узел",
};
static const char *const strpool[] = {
	"", "lustre-OST0003", "172.20.20.2@o2ib", "\"quoted\" \\ path",
	"/scratch/user/ckpt.0001", "日本語", "tab\there", "a", "lustre-MDT0000",
	"0x7cfe3c0300a6b4e0",
};
static const char *const targets[] = {
	"lustre-OST0000", "lustre-OST0001", "lustre-OST0002", "lustre-OST0003",
};

/* A batch of records with their identities; recs never move. */
struct batch {
	struct bcn_record *recs;
	struct bcn_store_item *items;
	size_t n, cap;
};

static void batch_init(struct batch *b, size_t cap)
{
	b->recs = calloc(cap, sizeof(*b->recs));
	b->items = calloc(cap, sizeof(*b->items));
	assert_non_null(b->recs);
	assert_non_null(b->items);
	b->n = 0;
	b->cap = cap;
}

static void batch_free(struct batch *b)
{
	free(b->recs);
	free(b->items);
}

static struct bcn_record *batch_add(struct batch *b, enum bcn_rec_type type,
				    const char *node, uint64_t seq,
				    uint32_t idx)
{
	struct bcn_record *r;

	assert_true(b->n < b->cap);
	r = &b->recs[b->n];
	bcn_record_init(r, type);
	r->node = node;
	b->items[b->n].rec = r;
	b->items[b->n].seq = seq;
	b->items[b->n].idx = idx;
	b->n++;
	return r;
}

static struct recgen gen = { 88172645463325252ull, strpool, NPOOL(strpool), 0 };

static uint64_t rnd(void)
{
	return recgen_next(&gen);
}

/* Every field of r random, within what bcn_record_check accepts. */
static void fill_random(struct bcn_record *r)
{
	recgen_fields(&gen, r);
}

/* Realistic magnitudes (below 2^40), so that sums stay far from 2^64. */
static void fill_plain(struct bcn_record *r, unsigned e)
{
	r->dur = (int64_t)(rnd() % (10 * SEC));
	switch (r->type) {
	case BCN_REC_IO:
		r->u.io.op = rnd() % BCN_IO_OP_MAX;
		r->u.io.size = rnd() % (1 << 20);
		r->u.io.count = 1 + rnd() % 100;
		break;
	case BCN_REC_FWD_REQ:
		r->u.fwd_req.cls = rnd() % BCN_FWD_CLASS_MAX;
		r->u.fwd_req.count = rnd() % 1000;
		r->u.fwd_req.bytes = rnd() % (1ull << 30);
		break;
	case BCN_REC_FWD_RPC:
		r->u.fwd_rpc.target = targets[e % NPOOL(targets)];
		r->u.fwd_rpc.read_rpcs = rnd() % 1000;
		r->u.fwd_rpc.read_bytes = rnd() % (1ull << 32);
		break;
	case BCN_REC_OST:
		r->u.ost.target = targets[e % NPOOL(targets)];
		r->u.ost.read_bytes = rnd() % (1ull << 36);
		r->u.ost.write_bytes = rnd() % (1ull << 36);
		for (unsigned k = 0; k < BCN_OST_OP_MAX; k++)
			r->u.ost.ops[k] = rnd() % 3 ? 0 : rnd() % 100000;
		break;
	case BCN_REC_MDS:
		r->u.mds.target = "lustre-MDT0000";
		for (unsigned k = 0; k < BCN_MD_OP_MAX; k++)
			r->u.mds.ops[k] = rnd() % 2 ? 0 : rnd() % 100000;
		break;
	case BCN_REC_PORT:
		r->u.port.sw = "0x7cfe3c0300a6b4e0";
		r->u.port.port = 1 + e % 36;
		r->u.port.xmit_bytes = rnd() % (1ull << 38);
		r->u.port.rcv_pkts = rnd() % (1ull << 30);
		break;
	case BCN_REC_JOB:
		r->u.job.user = "alice";
		r->u.job.nodelist = "cn[001-128]";
		r->u.job.nnodes = 128;
		break;
	case BCN_REC_TOPOLOGY:
		r->u.topo.sw = "0x7cfe3c0300a6b4e0";
		r->u.topo.port = 1 + e % 36;
		r->u.topo.remote_kind = rnd() % BCN_TOPO_KIND_MAX;
		r->u.topo.remote = "0x7cfe900300b2c4d1";
		r->u.topo.remote_port = 1 + rnd() % 36;
		r->u.topo.remote_name = nodes[e % NPOOL(nodes)];
		r->u.topo.rate = 12500000000ull;
		break;
	case BCN_REC_TRACE_LOSS:
		r->u.trace_loss.pid = 1000 + e;
		r->u.trace_loss.dropped_ops = rnd() % 2 ? 0 : rnd() % 100000;
		r->u.trace_loss.lost_datagrams = rnd() % 10;
		r->u.trace_loss.cut = rnd() % 2;
		break;
	}
}

/* ---- expectations ---- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* The store's order: t, then node (bytes), seq and idx (unsigned). */
static int cmp_item(const void *pa, const void *pb)
{
	const struct bcn_store_item *a = *(const struct bcn_store_item *const *)pa;
	const struct bcn_store_item *b = *(const struct bcn_store_item *const *)pb;
	int c;

	if (a->rec->t != b->rec->t)
		return a->rec->t < b->rec->t ? -1 : 1;
	c = strcmp(a->rec->node, b->rec->node);
	if (c)
		return c;
	c = cmp_u64(a->seq, b->seq);
	return c ? c : cmp_u64(a->idx, b->idx);
}

/* The part of r, written from docs/store.md ("Parts"), independently of
 * bcn_store_record_part(). */
static int oracle_part(const struct bcn_record *r)
{
	const char *client, *jobid;

	switch (r->type) {
	case BCN_REC_OST:
		client = r->u.ost.client;
		jobid = r->u.ost.jobid;
		break;
	case BCN_REC_MDS:
		client = r->u.mds.client;
		jobid = r->u.mds.jobid;
		break;
	default:
		return BCN_STORE_PART_TOTAL;
	}
	if (strlen(jobid) > 0)
		return BCN_STORE_PART_JOB;
	return strlen(client) > 0 ? BCN_STORE_PART_CLIENT : BCN_STORE_PART_TOTAL;
}

/* The part q selects, from docs/store.md: a job on ost and mds turns the
 * default (totals) into job parts. */
static int oracle_query_part(const struct bcn_store_query *q)
{
	bool parts = q->layer == BCN_LAYER_OST || q->layer == BCN_LAYER_MDS;

	if (q->part == BCN_STORE_PART_TOTAL && q->job && parts)
		return BCN_STORE_PART_JOB;
	return q->part;
}

static bool matches(const struct bcn_store_item *it,
		    const struct bcn_store_query *q)
{
	const struct bcn_record *r = it->rec;
	int part = oracle_query_part(q);
	char ent[BCN_ENTITY_MAX];

	if (bcn_record_desc(r->type)->layer != q->layer || r->t < q->from ||
	    r->t >= q->to || (q->job && r->job != q->job) ||
	    (part != BCN_STORE_PART_ANY && oracle_part(r) != part))
		return false;
	assert_int_equal(bcn_record_entity(r, ent, sizeof(ent)), 0);
	return !q->entity || strcmp(ent, q->entity) == 0;
}

static void json_line(const struct bcn_record *r, struct bcn_buf *out)
{
	assert_int_equal(bcn_record_to_json(r, out), 0);
	assert_int_equal(bcn_buf_add(out, "\n", 1), 0);
}

/* The JSON lines a scan of b's records with q must give; returns how many. */
static size_t expect_scan(const struct batch *b, const struct bcn_store_query *q,
			  struct bcn_buf *out)
{
	const struct bcn_store_item **v = calloc(b->n + 1, sizeof(*v));
	size_t n = 0;

	assert_non_null(v);
	for (size_t i = 0; i < b->n; i++)
		if (matches(&b->items[i], q))
			v[n++] = &b->items[i];
	qsort(v, n, sizeof(*v), cmp_item);
	if (q->limit && n > q->limit)
		n = q->limit;
	for (size_t i = 0; i < n; i++)
		json_line(v[i]->rec, out);
	free(v);
	return n;
}

struct collect {
	struct bcn_buf json;
	uint64_t calls;
	uint64_t stop_after;            /* 0: never stop */
	int stop_with;
};

static int collect_rec(void *arg, const struct bcn_record *r)
{
	struct collect *c = arg;

	json_line(r, &c->json);
	c->calls++;
	return c->stop_after && c->calls == c->stop_after ? c->stop_with : 0;
}

static void assert_same_text(const struct bcn_buf *got,
			     const struct bcn_buf *want)
{
	if (got->len == want->len &&
	    (got->len == 0 || memcmp(got->data, want->data, got->len) == 0))
		return;
	fail_msg("scan differs: got %zu bytes, expected %zu:\n%.*s\n--- "
		 "expected ---\n%.*s", got->len, want->len,
		 (int)(got->len > 2000 ? 2000 : got->len), (const char *)got->data,
		 (int)(want->len > 2000 ? 2000 : want->len),
		 (const char *)want->data);
}

/* Scans q and compares with the expectation from b; also checks count.
 * Returns the number of records. */
static size_t check_scan(struct bcn_store *s, const struct batch *b,
			 const struct bcn_store_query *q)
{
	struct bcn_store_query qc = *q;
	struct bcn_buf want;
	struct collect c;
	uint64_t count;
	size_t n;

	memset(&c, 0, sizeof(c));
	bcn_buf_init(&c.json, JSON_MAX);
	bcn_buf_init(&want, JSON_MAX);
	n = expect_scan(b, q, &want);
	assert_int_equal(bcn_store_scan(s, q, collect_rec, &c), 0);
	assert_int_equal(c.calls, n);
	assert_same_text(&c.json, &want);
	qc.limit = 0;
	assert_int_equal(bcn_store_count(s, &qc, &count), 0);
	assert_int_equal(count, expect_scan(b, &qc, &want));
	bcn_buf_free(&c.json);
	bcn_buf_free(&want);
	return n;
}

static struct bcn_store_query layer_query(int layer)
{
	struct bcn_store_query q = {
		layer, NULL, 0, INT64_MIN, INT64_MAX, 0, BCN_STORE_PART_TOTAL, false
	};

	return q;
}

/* Buckets, as the store reports them or as computed here. */
struct buckets {
	struct bcn_store_bucket *v;
	size_t n;
	int stop_after;                 /* 0: never stop */
};

static void add_sat(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

/* Adds r to an expected bucket with the totals of tests/unit/
 * totals_oracle.h, not bcn_record_totals(), the function the store uses. */
static void bucket_add(struct bcn_store_bucket *bk, const struct bcn_record *r)
{
	struct bcn_record_totals t;

	oracle_totals(r, &t);
	bk->records++;
	add_sat(&bk->sum.read_bytes, t.read_bytes);
	add_sat(&bk->sum.write_bytes, t.write_bytes);
	add_sat(&bk->sum.read_ops, t.read_ops);
	add_sat(&bk->sum.write_ops, t.write_ops);
	add_sat(&bk->sum.meta_ops, t.meta_ops);
	add_sat(&bk->sum.other_ops, t.other_ops);
}

static int cmp_bucket(const void *a, const void *b)
{
	int64_t x = ((const struct bcn_store_bucket *)a)->t;
	int64_t y = ((const struct bcn_store_bucket *)b)->t;

	return (x > y) - (x < y);
}

/* The buckets of width w that a sum over b's records with q must give. */
static void expect_sum(const struct batch *b, const struct bcn_store_query *q,
		       int64_t w, struct buckets *out)
{
	out->v = calloc(b->n + 1, sizeof(*out->v));
	out->n = 0;
	assert_non_null(out->v);
	for (size_t i = 0; i < b->n; i++) {
		int64_t t;
		size_t k;

		if (!matches(&b->items[i], q))
			continue;
		t = bcn_timefmt_floor_div(b->recs[i].t, w) * w;
		for (k = 0; k < out->n && out->v[k].t != t; k++)
			;
		if (k == out->n)
			out->v[out->n++].t = t;
		bucket_add(&out->v[k], &b->recs[i]);
	}
	qsort(out->v, out->n, sizeof(*out->v), cmp_bucket);
}

static int collect_bucket(void *arg, const struct bcn_store_bucket *bk)
{
	struct buckets *c = arg;

	if (c->n == BUCKETS_MAX)
		return -BCN_EFULL;
	c->v[c->n++] = *bk;
	return c->stop_after && (int)c->n == c->stop_after ? -7 : 0;
}

static void assert_bucket(const struct bcn_store_bucket *g,
			  const struct bcn_store_bucket *w)
{
	if (g->t == w->t && g->records == w->records &&
	    !memcmp(&g->sum, &w->sum, sizeof(g->sum)))
		return;
	fail_msg("bucket t=%" PRId64 " records %" PRIu64 " rb %" PRIu64 " wb %"
		 PRIu64 " ro %" PRIu64 " wo %" PRIu64 " mo %" PRIu64 " oo %"
		 PRIu64 "; expected t=%" PRId64 " records %" PRIu64 " rb %"
		 PRIu64 " wb %" PRIu64 " ro %" PRIu64 " wo %" PRIu64 " mo %"
		 PRIu64 " oo %" PRIu64, g->t, g->records, g->sum.read_bytes,
		 g->sum.write_bytes, g->sum.read_ops, g->sum.write_ops,
		 g->sum.meta_ops, g->sum.other_ops, w->t, w->records,
		 w->sum.read_bytes, w->sum.write_bytes, w->sum.read_ops,
		 w->sum.write_ops, w->sum.meta_ops, w->sum.other_ops);
}

/* Sums q in buckets of width w and compares with the expectation from b.
 * Returns the number of buckets. */
static size_t check_sum(struct bcn_store *s, const struct batch *b,
			const struct bcn_store_query *q, int64_t w)
{
	struct buckets got = { calloc(BUCKETS_MAX, sizeof(*got.v)), 0, 0 };
	struct buckets want;
	size_t n;

	assert_non_null(got.v);
	expect_sum(b, q, w, &want);
	assert_int_equal(bcn_store_sum(s, q, w, collect_bucket, &got), 0);
	if (got.n != want.n)
		fail_msg("width %" PRId64 ": %zu buckets, expected %zu", w,
			 got.n, want.n);
	for (size_t i = 0; i < got.n; i++)
		assert_bucket(&got.v[i], &want.v[i]);
	n = got.n;
	free(got.v);
	free(want.v);
	return n;
}

static void append_ok(struct bcn_store *s, const struct bcn_store_item *items,
		      size_t n)
{
	int rc = bcn_store_append(s, items, n);

	if (rc)
		fail_msg("append of %zu records: %s", n, bcn_strerror(rc));
}

/* The number of records of a layer, parts and totals. */
static uint64_t count_layer(struct bcn_store *s, int layer)
{
	struct bcn_store_query q = layer_query(layer);
	uint64_t n = UINT64_MAX;

	q.part = BCN_STORE_PART_ANY;
	assert_int_equal(bcn_store_count(s, &q, &n), 0);
	return n;
}

/* Makes an ost or mds record one of its target's parts, as the
 * collectors do: with a job, the job's record (jobid set); without, the
 * target's total or, one time in three, an export's record. */
static void set_part(struct bcn_record *r)
{
	static const char *const jobids[] = { "101", "102", "4000000001" };
	const char *jobid = "", *client = "";

	if (r->type != BCN_REC_OST && r->type != BCN_REC_MDS)
		return;
	if (r->job)
		jobid = r->job == 101 ? jobids[0] : r->job == 102 ? jobids[1] :
			jobids[2];
	else if (rnd() % 3 == 0)
		client = "172.20.20.2@o2ib";
	if (r->type == BCN_REC_OST) {
		r->u.ost.client = client;
		r->u.ost.jobid = jobid;
	} else {
		r->u.mds.client = client;
		r->u.mds.jobid = jobid;
	}
}

/* A mixed batch: n records of every layer over days [0, days) from BASE,
 * from several nodes, with realistic values and a few jobs and entities;
 * ost and mds records are target totals, job parts and export parts. */
static void make_mixed(struct batch *b, size_t n, int days)
{
	for (size_t i = 0; i < n; i++) {
		enum bcn_rec_type type = 1 + rnd() % (BCN_REC_TYPE_MAX - 1);
		struct bcn_record *r = batch_add(b, type, nodes[rnd() % 4],
						 1 + i / 50, (uint32_t)(i % 50));

		r->t = BASE + (int64_t)(rnd() % (uint64_t)(days * DAY));
		r->job = (uint64_t[]){ 0, 101, 102, 4000000001u }[rnd() % 4];
		if (type == BCN_REC_JOB)
			r->job = 1000 + i;
		fill_plain(r, (unsigned)(rnd() % 4));
		set_part(r);
	}
}

/* ---- tests ---- */

/* An empty store answers every query with nothing, and so do queries that
 * miss the data of a store that has some. */
static void test_empty(void **state)
{
	struct fx *f = *state;
	struct buckets got = { calloc(16, sizeof(*got.v)), 0, 0 };
	struct collect c;
	struct batch b;
	uint64_t removed = 99;

	memset(&c, 0, sizeof(c));
	bcn_buf_init(&c.json, JSON_MAX);
	for (int layer = 1; layer < BCN_LAYER_MAX; layer++) {
		struct bcn_store_query q = layer_query(layer);

		assert_int_equal(bcn_store_scan(f->s, &q, collect_rec, &c), 0);
		assert_int_equal(bcn_store_sum(f->s, &q, HOUR, collect_bucket,
					       &got), 0);
		assert_int_equal(count_layer(f->s, layer), 0);
	}
	assert_int_equal(c.calls, 0);
	assert_int_equal(got.n, 0);
	assert_int_equal(bcn_store_expire(f->s, BASE, &removed), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(bcn_store_append(f->s, NULL, 0), 0);

	batch_init(&b, 10);
	for (int i = 0; i < 10; i++) {
		struct bcn_record *r = batch_add(&b, BCN_REC_OST, "oss1", 1, i);

		r->t = BASE + i * SEC;
		fill_plain(r, 0);
	}
	append_ok(f->s, b.items, b.n);
	{
		struct bcn_store_query miss[] = {
			{ BCN_LAYER_MDS, NULL, 0, INT64_MIN, INT64_MAX, 0, 0, false },
			{ BCN_LAYER_OST, "lustre-OST0009", 0, INT64_MIN, INT64_MAX, 0, 0, false },
			{ BCN_LAYER_OST, NULL, 77, INT64_MIN, INT64_MAX, 0, 0, false },
			{ BCN_LAYER_OST, NULL, 0, BASE + 10 * SEC, INT64_MAX, 0, 0, false },
			{ BCN_LAYER_OST, NULL, 0, INT64_MIN, BASE, 0, 0, false },
			{ BCN_LAYER_OST, NULL, 0, BASE + 3 * SEC, BASE + 3 * SEC, 0, 0, false },
			{ BCN_LAYER_OST, NULL, 0, BASE - 5 * DAY, BASE - 4 * DAY, 0, 0, false },
		};

		for (size_t i = 0; i < NPOOL(miss); i++) {
			assert_int_equal(check_scan(f->s, &b, &miss[i]), 0);
			assert_int_equal(check_sum(f->s, &b, &miss[i], MIN), 0);
		}
	}
	batch_free(&b);
	bcn_buf_free(&c.json);
	free(got.v);
}

/* Every record type, every field random, survives the store unchanged. */
static void test_roundtrip_types(void **state)
{
	struct fx *f = *state;
	struct batch b;

	batch_init(&b, (BCN_REC_TYPE_MAX - 1) * 60);
	for (int type = 1; type < BCN_REC_TYPE_MAX; type++) {
		for (uint32_t i = 0; i < 60; i++) {
			struct bcn_record *r = batch_add(&b, type,
				nodes[rnd() % NPOOL(nodes)], 100 + type, i);

			fill_random(r);
			/* three days, some records sharing a t */
			r->t = BASE + (int64_t)(rnd() % (3 * DAY)) / (i % 3 + 1);
			assert_int_equal(bcn_record_check(r), 0);
		}
	}
	append_ok(f->s, b.items, b.n);
	for (int layer = 1; layer < BCN_LAYER_MAX; layer++) {
		struct bcn_store_query q = layer_query(layer);
		size_t n;

		q.part = BCN_STORE_PART_ANY;
		n = check_scan(f->s, &b, &q);
		/* forward holds fwd_req and fwd_rpc, switch port and
		 * topology, client io and trace_loss */
		assert_int_equal(n, layer == BCN_LAYER_FORWARD ||
				 layer == BCN_LAYER_SWITCH ||
				 layer == BCN_LAYER_CLIENT ? 120 : 60);
	}
	batch_free(&b);
}

/* Appends are idempotent by identity: the same batch twice, overlapping
 * batches, and one record again from a separate call with its own copy. */
static void test_idempotent(void **state)
{
	struct fx *f = *state;
	struct bcn_store_item again;
	struct bcn_record copy;
	uint64_t before[BCN_LAYER_MAX], n;
	struct batch b;

	batch_init(&b, 1000);
	make_mixed(&b, 1000, 2);
	append_ok(f->s, b.items, 600);
	append_ok(f->s, b.items + 300, 700);            /* overlaps 300 */
	append_ok(f->s, b.items, b.n);                  /* all again */
	append_ok(f->s, b.items, b.n);
	n = 0;
	for (int layer = 1; layer < BCN_LAYER_MAX; layer++) {
		struct bcn_store_query q = layer_query(layer);

		before[layer] = count_layer(f->s, layer);
		n += before[layer];
		check_scan(f->s, &b, &q);
	}
	assert_int_equal(n, 1000);
	for (size_t i = 0; i < b.n; i += 97) {
		copy = b.recs[i];
		again = b.items[i];
		again.rec = &copy;
		append_ok(f->s, &again, 1);
		append_ok(f->s, &again, 1);
	}
	for (int layer = 1; layer < BCN_LAYER_MAX; layer++)
		assert_int_equal(count_layer(f->s, layer), before[layer]);
	batch_free(&b);
}

/* Entity, job, time bounds (from inclusive, to exclusive) and limits. */
static void test_scan_filters(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q;
	struct batch b;
	const char *tg;
	uint64_t jobs[] = { 0, 101, 102, 4000000001u, 5 };

	batch_init(&b, 1500);
	make_mixed(&b, 1500, 3);
	append_ok(f->s, b.items, b.n);
	for (size_t e = 0; e < NPOOL(targets); e++) {
		for (size_t j = 0; j < NPOOL(jobs); j++) {
			for (int p = -1; p < BCN_STORE_PART_MAX; p++) {
				q = layer_query(BCN_LAYER_OST);
				q.entity = targets[e];
				q.job = jobs[j];
				q.part = p;
				check_scan(f->s, &b, &q);
				q.entity = NULL;
				check_scan(f->s, &b, &q);
			}
		}
	}
	q = layer_query(BCN_LAYER_CLIENT);
	q.entity = "cn002";
	assert_true(check_scan(f->s, &b, &q) > 0);
	q = layer_query(BCN_LAYER_JOB);
	q.entity = "1010";
	assert_true(check_scan(f->s, &b, &q) <= 1);

	/* bounds: exactly at a record's t */
	for (size_t i = 0; i < 40; i++) {
		const struct bcn_record *lo = &b.recs[rnd() % b.n];
		const struct bcn_record *hi = &b.recs[rnd() % b.n];

		q = layer_query(bcn_record_desc(lo->type)->layer);
		q.from = lo->t < hi->t ? lo->t : hi->t;
		q.to = lo->t < hi->t ? hi->t : lo->t;
		check_scan(f->s, &b, &q);
	}
	/* limits, also across day boundaries */
	tg = targets[1];
	for (uint64_t lim = 1; lim < 400; lim = lim * 3 + 1) {
		q = layer_query(BCN_LAYER_OST);
		q.limit = lim;
		check_scan(f->s, &b, &q);
		q.entity = tg;
		q.from = BASE + DAY - HOUR;
		check_scan(f->s, &b, &q);
	}
	q = layer_query(BCN_LAYER_MDS);
	q.limit = UINT64_MAX;
	check_scan(f->s, &b, &q);
	for (int p = -1; p < BCN_STORE_PART_MAX; p++) {
		q = layer_query(BCN_LAYER_MDS);
		q.part = p;
		q.limit = 50;
		check_scan(f->s, &b, &q);
		q.job = 102;
		check_scan(f->s, &b, &q);
	}
	batch_free(&b);
}

/* Explicit bounds: from is inclusive, to exclusive, to the nanosecond. */
static void test_bounds(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	int64_t ts[] = { BASE - 1, BASE, BASE + 1, BASE + DAY - 1, BASE + DAY };
	uint64_t n;
	struct batch b;

	batch_init(&b, NPOOL(ts));
	for (size_t i = 0; i < NPOOL(ts); i++)
		batch_add(&b, BCN_REC_OST, "oss1", 7, (uint32_t)i)->t = ts[i];
	append_ok(f->s, b.items, b.n);
	q.from = BASE;
	q.to = BASE + DAY;
	assert_int_equal(bcn_store_count(f->s, &q, &n), 0);
	assert_int_equal(n, 3);
	q.from = BASE + 1;
	q.to = BASE + DAY + 1;
	assert_int_equal(bcn_store_count(f->s, &q, &n), 0);
	assert_int_equal(n, 3);
	q.from = BASE - 1;
	q.to = BASE;
	assert_int_equal(bcn_store_count(f->s, &q, &n), 0);
	assert_int_equal(n, 1);
	q.from = INT64_MIN;
	q.to = INT64_MAX;
	assert_int_equal(bcn_store_count(f->s, &q, &n), 0);
	assert_int_equal(n, 5);
	check_scan(f->s, &b, &q);
	batch_free(&b);
}

struct seen {
	char line[64][128];
	size_t n;
};

static int note_order(void *arg, const struct bcn_record *r)
{
	struct seen *s = arg;

	assert_true(s->n < 64);
	snprintf(s->line[s->n++], sizeof(s->line[0]), "%" PRId64 " %s %" PRIu64,
		 (int64_t)((r->t - BASE) / SEC), r->node, r->u.io.pid);
	return 0;
}

/* Order across days and of ties: t, node (bytes), seq, idx (unsigned),
 * whatever order and calls the records came in. pid tags each record. */
static void test_order(void **state)
{
	static const struct {
		int64_t t;              /* seconds from BASE */
		const char *node;
		uint64_t seq;
		uint32_t idx;
	} in[] = {
		{ 2 * 86400 + 5, "cn2", 1, 0 },         /* pid 0 */
		{ 5, "cn2", 9, 0 },                     /* 1 */
		{ 5, "cn10", 9, 0 },                    /* 2 */
		{ 5, "cn1", 9, 0 },                     /* 3 */
		{ 5, "cn1", 3, 7 },                     /* 4 */
		{ 5, "cn1", 3, 2 },                     /* 5 */
		{ 5, "cn1", (1ull << 63) + 1, 0 },      /* 6 */
		{ 5, "cn1", UINT64_MAX, 0 },            /* 7 */
		{ 86400 - 1, "a", 1, 0 },               /* 8 */
		{ 86400, "a", 1, 1 },                   /* 9 */
		{ -86400 * 3, "z", 1, 0 },              /* 10 */
		{ 4, "cn9", 1, 0 },                     /* 11 */
		{ 5, "cn1", 3, 10 },                    /* 12 */
	};
	static const char *const want[] = {
		"-259200 z 10", "4 cn9 11", "5 cn1 5", "5 cn1 4", "5 cn1 12",
		"5 cn1 3", "5 cn1 6", "5 cn1 7", "5 cn10 2", "5 cn2 1",
		"86399 a 8", "86400 a 9", "172805 cn2 0",
	};
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_CLIENT);
	struct seen seen;
	struct batch b;

	batch_init(&b, NPOOL(in));
	for (size_t i = 0; i < NPOOL(in); i++) {
		struct bcn_record *r = batch_add(&b, BCN_REC_IO, in[i].node,
						 in[i].seq, in[i].idx);

		r->t = BASE + in[i].t * SEC;
		r->u.io.pid = i;
	}
	/* in pieces, from the last to the first */
	for (size_t i = NPOOL(in); i > 0; i -= i >= 3 ? 3 : i)
		append_ok(f->s, b.items + (i >= 3 ? i - 3 : 0), i >= 3 ? 3 : i);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(bcn_store_scan(f->s, &q, note_order, &seen), 0);
	assert_int_equal(seen.n, NPOOL(want));
	for (size_t i = 0; i < NPOOL(want); i++)
		assert_string_equal(seen.line[i], want[i]);
	check_scan(f->s, &b, &q);
	batch_free(&b);
}

/* Bucketed sums against sums computed here, for several widths, among
 * them buckets spanning midnight and several days, with filters. */
static void test_sum(void **state)
{
	static const int64_t widths[] = {
		SEC, 7 * SEC, MIN, 90 * MIN, HOUR, 7 * HOUR, DAY, 3 * DAY,
		7 * DAY, 400 * DAY,
	};
	struct fx *f = *state;
	struct bcn_store_query q;
	struct batch b;

	batch_init(&b, 3000);
	make_mixed(&b, 3000, 4);
	append_ok(f->s, b.items, b.n);
	for (size_t w = 0; w < NPOOL(widths); w++) {
		for (int layer = 1; layer < BCN_LAYER_MAX; layer++) {
			q = layer_query(layer);
			check_sum(f->s, &b, &q, widths[w]);
		}
		q = layer_query(BCN_LAYER_OST);
		q.entity = targets[2];
		check_sum(f->s, &b, &q, widths[w]);
		q.job = 101;
		check_sum(f->s, &b, &q, widths[w]);
		q.entity = NULL;
		q.from = BASE + DAY + 13 * MIN + 7;     /* inside a bucket */
		q.to = BASE + 3 * DAY - 5 * HOUR;
		check_sum(f->s, &b, &q, widths[w]);
		for (int p = -1; p < BCN_STORE_PART_MAX; p++) {
			q = layer_query(w % 2 ? BCN_LAYER_OST : BCN_LAYER_MDS);
			q.part = p;
			check_sum(f->s, &b, &q, widths[w]);
		}
	}
	batch_free(&b);
}

/* One bucket of 7 h, 21:00 to 04:00, holds records of two day files. */
static void test_sum_midnight(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	struct buckets got = { calloc(8, sizeof(*got.v)), 0, 0 };
	int64_t b21 = BASE + DAY + 21 * HOUR;  /* 01-11 21:00, 7 h aligned */
	struct batch b;

	assert_int_equal(b21 % (7 * HOUR), 0);
	batch_init(&b, 3);
	for (uint32_t i = 0; i < 3; i++) {
		struct bcn_record *r = batch_add(&b, BCN_REC_OST, "oss1", 1, i);

		r->t = b21 + (int64_t[]){ 30 * MIN, 3 * HOUR, 7 * HOUR }[i];
		r->u.ost.read_bytes = 1000 + i;
		r->u.ost.ops[BCN_OST_READ] = 1;
	}
	append_ok(f->s, b.items, b.n);
	assert_int_equal(bcn_store_sum(f->s, &q, 7 * HOUR, collect_bucket,
				       &got), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.v[0].t, b21);
	assert_int_equal(got.v[0].records, 2);
	assert_int_equal(got.v[0].sum.read_bytes, 2001);
	assert_int_equal(got.v[0].sum.read_ops, 2);
	assert_int_equal(got.v[1].t, b21 + 7 * HOUR);
	assert_int_equal(got.v[1].records, 1);
	check_sum(f->s, &b, &q, 7 * HOUR);
	check_sum(f->s, &b, &q, 2 * DAY);
	batch_free(&b);
	free(got.v);
}

/* Counts per layer and with filters. */
static void test_count(void **state)
{
	struct fx *f = *state;
	uint64_t per[BCN_LAYER_MAX] = { 0 }, n;
	struct bcn_store_query q;
	struct batch b;

	batch_init(&b, 2000);
	make_mixed(&b, 2000, 2);
	append_ok(f->s, b.items, b.n);
	for (size_t i = 0; i < b.n; i++)
		per[bcn_record_desc(b.recs[i].type)->layer]++;
	for (int layer = 1; layer < BCN_LAYER_MAX; layer++)
		assert_int_equal(count_layer(f->s, layer), per[layer]);
	q = layer_query(BCN_LAYER_OST);
	q.job = 102;
	q.limit = 3;            /* ignored by count */
	n = 0;
	for (size_t i = 0; i < b.n; i++)
		n += matches(&b.items[i], &q);
	assert_true(n > 3);
	check_scan(f->s, &b, &q);
	q.limit = 0;
	assert_int_equal(bcn_store_count(f->s, &q, &per[0]), 0);
	assert_int_equal(per[0], n);
	batch_free(&b);
}

/* Expiry removes whole days that ended more than retention ago, and only
 * those; the boundary is exact. */
static void test_expire(void **state)
{
	static const int days[] = { -10, -5, -4, -3, -1, 0 };
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_MDS);
	int64_t now = BASE + HOUR;      /* day 0 from BASE */
	uint64_t removed = 0;
	struct batch b, kept;

	bcn_store_close(f->s);
	fx_open(f, 3);
	batch_init(&b, 60);
	batch_init(&kept, 60);
	for (size_t d = 0; d < NPOOL(days); d++) {
		for (uint32_t i = 0; i < 10; i++) {
			struct bcn_record *r = batch_add(&b, BCN_REC_MDS, "mds1",
							 d + 1, i);

			r->t = BASE + days[d] * DAY + (int64_t)i * HOUR;
			fill_plain(r, 0);
			if (days[d] >= -3)
				*batch_add(&kept, BCN_REC_MDS, "mds1", d + 1,
					   i) = *r;
		}
	}
	append_ok(f->s, b.items, b.n);
	assert_int_equal(count_layer(f->s, BCN_LAYER_MDS), 60);
	assert_int_equal(bcn_store_expire(f->s, now, &removed), 0);
	assert_int_equal(removed, 3);   /* days -10, -5, -4 */
	check_scan(f->s, &kept, &q);
	assert_int_equal(bcn_store_expire(f->s, now, &removed), 0);
	assert_int_equal(removed, 0);
	/* day -3 ends at BASE - 2 days: kept at exactly 3 days after it */
	now = BASE - 2 * DAY + 3 * DAY;
	assert_int_equal(bcn_store_expire(f->s, now, NULL), 0);
	assert_int_equal(count_layer(f->s, BCN_LAYER_MDS), 30);
	assert_int_equal(bcn_store_expire(f->s, now + 1, &removed), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(count_layer(f->s, BCN_LAYER_MDS), 20);
	/* the store goes on taking records, also for an expired day */
	append_ok(f->s, b.items, 10);
	assert_int_equal(count_layer(f->s, BCN_LAYER_MDS), 30);
	batch_free(&b);
	batch_free(&kept);
}

/* uint64 values beyond int64 and double precision: round trip, job
 * filter, unsigned order of seq, exact sums above 2^53, saturation. */
static void test_large_values(void **state)
{
	static const uint64_t big[] = {
		UINT64_MAX, 1ull << 63, (1ull << 63) - 1, (1ull << 53) + 1,
	};
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	struct buckets got = { calloc(8, sizeof(*got.v)), 0, 0 };
	struct batch b;

	q.part = BCN_STORE_PART_ANY;    /* totals, all with a job */
	batch_init(&b, 16);
	for (uint32_t i = 0; i < 12; i++) {
		struct bcn_record *r = batch_add(&b, BCN_REC_OST, "oss1",
						 big[i % 4], i);

		r->t = BASE + (i < 8 ? 0 : HOUR);
		r->job = big[i % 4];
		r->u.ost.target = "lustre-OST0000";
		r->u.ost.read_bytes = i < 8 ? big[i % 4] : (1ull << 53) + 1;
		r->u.ost.write_bytes = (1ull << 60) + i;
		r->u.ost.ops[BCN_OST_READ] = big[(i + 1) % 4];
		r->u.ost.ops[BCN_OST_STATFS] = UINT64_MAX;
	}
	append_ok(f->s, b.items, b.n);
	check_scan(f->s, &b, &q);
	for (size_t k = 0; k < NPOOL(big); k++) {
		q.job = big[k];
		assert_int_equal(check_scan(f->s, &b, &q), 3);
	}
	q.job = 0;
	assert_int_equal(bcn_store_sum(f->s, &q, HOUR, collect_bucket, &got), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.v[0].records, 8);
	assert_int_equal(got.v[0].sum.read_bytes, UINT64_MAX);  /* saturated */
	assert_int_equal(got.v[0].sum.meta_ops, UINT64_MAX);
	assert_int_equal(got.v[1].records, 4);
	assert_int_equal(got.v[1].sum.read_bytes, 4 * ((1ull << 53) + 1));
	assert_int_equal(got.v[0].sum.write_bytes, (1ull << 63) + 28);
	assert_int_equal(got.v[1].sum.write_bytes, (1ull << 62) + 38);
	q.job = (1ull << 53) + 1;
	check_sum(f->s, &b, &q, HOUR);
	q.job = 0;
	check_sum(f->s, &b, &q, DAY);
	batch_free(&b);
	free(got.v);
}

/* 20,000 records in one call over 30 days and every layer; again. */
static void test_big_batch(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q;
	uint64_t total = 0;
	struct batch b;

	batch_init(&b, BIG_BATCH);
	make_mixed(&b, BIG_BATCH, 30);
	append_ok(f->s, b.items, b.n);
	append_ok(f->s, b.items, b.n);
	for (int layer = 1; layer < BCN_LAYER_MAX; layer++) {
		q = layer_query(layer);
		check_scan(f->s, &b, &q);
		check_sum(f->s, &b, &q, DAY);
		q.part = BCN_STORE_PART_ANY;
		total += check_scan(f->s, &b, &q);
		check_sum(f->s, &b, &q, 5 * HOUR);
	}
	assert_int_equal(total, BIG_BATCH);
	q = layer_query(BCN_LAYER_CLIENT);
	q.limit = 1234;
	check_scan(f->s, &b, &q);
	batch_free(&b);
}

/* A callback's non-zero value stops the scan or sum and comes back. */
static void test_callback_stop(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_FORWARD);
	struct buckets got = { calloc(64, sizeof(*got.v)), 0, 2 };
	struct collect c;
	struct batch b;

	batch_init(&b, 500);
	make_mixed(&b, 500, 3);
	append_ok(f->s, b.items, b.n);
	memset(&c, 0, sizeof(c));
	bcn_buf_init(&c.json, JSON_MAX);
	c.stop_after = 3;
	c.stop_with = 42;
	assert_int_equal(bcn_store_scan(f->s, &q, collect_rec, &c), 42);
	assert_int_equal(c.calls, 3);
	c.calls = 0;
	c.stop_with = 1;
	q.limit = 3;            /* the limit and the stop on the same record */
	assert_int_equal(bcn_store_scan(f->s, &q, collect_rec, &c), 1);
	assert_int_equal(c.calls, 3);
	q.limit = 0;
	assert_int_equal(bcn_store_sum(f->s, &q, HOUR, collect_bucket, &got), -7);
	assert_int_equal(got.n, 2);
	bcn_buf_free(&c.json);
	free(got.v);
	batch_free(&b);
}

/* Records outlive the handle. */
static void test_reopen(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_SWITCH);
	char err[256];
	struct batch b;

	batch_init(&b, 300);
	make_mixed(&b, 300, 2);
	append_ok(f->s, b.items, b.n);
	bcn_store_close(f->s);
	f->s = NULL;
	assert_int_equal(bcn_store_open(&f->cfg, &f->s, err, sizeof(err)), 0);
	check_scan(f->s, &b, &q);
	q = layer_query(BCN_LAYER_CLIENT);
	check_scan(f->s, &b, &q);
	batch_free(&b);
}

/* Bad arguments are refused and store nothing. */
static void test_invalid(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	struct bcn_store_bucket dummy;
	uint64_t n;
	struct batch b;

	(void)dummy;
	assert_int_equal(bcn_store_sum(f->s, &q, 0, collect_bucket, NULL),
			 -EINVAL);
	assert_int_equal(bcn_store_sum(f->s, &q, -HOUR, collect_bucket, NULL),
			 -EINVAL);
	q.from = BASE;
	q.to = BASE - 1;
	assert_int_equal(bcn_store_count(f->s, &q, &n), -EINVAL);
	q = layer_query(0);
	assert_int_equal(bcn_store_scan(f->s, &q, collect_rec, NULL), -EINVAL);
	q = layer_query(BCN_LAYER_MAX);
	assert_int_equal(bcn_store_count(f->s, &q, &n), -EINVAL);

	batch_init(&b, 3);
	batch_add(&b, BCN_REC_OST, "oss1", 1, 0)->t = BASE;
	batch_add(&b, BCN_REC_IO, "cn1", 1, 1)->u.io.count = 0;
	assert_int_equal(bcn_store_append(f->s, b.items, b.n), -BCN_ERANGE);
	b.recs[1].u.io.count = 1;
	b.recs[1].node = "";
	assert_int_equal(bcn_store_append(f->s, b.items, b.n), -EINVAL);
	assert_int_equal(count_layer(f->s, BCN_LAYER_OST), 0);
	assert_int_equal(count_layer(f->s, BCN_LAYER_CLIENT), 0);
	batch_free(&b);
}

/* A record of one part of a target's statistics in b: an OST's bytes
 * read or an MDT's opens (mds), at BASE + t seconds. */
static struct bcn_record *add_part(struct batch *b, enum bcn_rec_type type,
				   uint32_t idx, int64_t t, const char *client,
				   const char *jobid, uint64_t job, uint64_t v)
{
	struct bcn_record *r = batch_add(b, type, type == BCN_REC_OST ?
					 "oss03" : "mds01", 5, idx);

	r->t = BASE + t * SEC;
	r->dur = SEC;
	r->job = job;
	if (type == BCN_REC_OST) {
		r->u.ost.target = "simfs-OST0003";
		r->u.ost.client = client;
		r->u.ost.jobid = jobid;
		r->u.ost.read_bytes = v << 20;
		r->u.ost.ops[BCN_OST_READ] = v;
	} else {
		r->u.mds.target = "simfs-MDT0000";
		r->u.mds.client = client;
		r->u.mds.jobid = jobid;
		r->u.mds.ops[BCN_MD_OPEN] = v;
	}
	return r;
}

/* The one bucket of a sum of q over a day: its records and its bytes
 * read (ost) or metadata operations (mds); 0 and 0 for no bucket. */
static void sum_one(struct bcn_store *s, const struct bcn_store_query *q,
		    uint64_t *records, uint64_t *v)
{
	struct buckets got = { calloc(4, sizeof(*got.v)), 0, 0 };

	assert_non_null(got.v);
	assert_int_equal(bcn_store_sum(s, q, DAY, collect_bucket, &got), 0);
	assert_true(got.n <= 1);
	*records = got.n ? got.v[0].records : 0;
	*v = !got.n ? 0 : q->layer == BCN_LAYER_OST ?
	     got.v[0].sum.read_bytes >> 20 : got.v[0].sum.meta_ops;
	free(got.v);
}

/* Sums, counts and scans of one part of a target: want[p + 1] is the
 * value part p (ANY, TOTAL, JOB, CLIENT) sums to, with job. */
static void check_parts(struct bcn_store *s, const struct batch *b, int layer,
			uint64_t job, const uint64_t want[BCN_STORE_PART_MAX + 1])
{
	struct bcn_store_query q = layer_query(layer);
	uint64_t records, v;

	q.job = job;
	for (int p = -1; p < BCN_STORE_PART_MAX; p++) {
		q.part = p;
		sum_one(s, &q, &records, &v);
		if (v != want[p + 1])
			fail_msg("layer %d job %" PRIu64 " part %d: %" PRIu64
				 ", expected %" PRIu64, layer, job, p, v,
				 want[p + 1]);
		assert_int_equal(records, check_scan(s, b, &q));
		q.entity = layer == BCN_LAYER_OST ? "simfs-OST0003" :
			   "simfs-MDT0000";
		sum_one(s, &q, &records, &v);
		assert_int_equal(v, want[p + 1]);
		check_scan(s, b, &q);
		q.entity = NULL;
	}
}

/* A target's total and its parts: an OST that served 400 MiB sums to 400
 * MiB by default, not to the total plus its job_stats and export parts;
 * the same for an MDT's operations. A job's records on these layers are
 * its job parts. */
static void test_parts(void **state)
{
	static const enum bcn_rec_type types[] = { BCN_REC_OST, BCN_REC_MDS };
	struct fx *f = *state;
	struct batch b;

	batch_init(&b, 32);
	for (size_t k = 0; k < NPOOL(types); k++) {
		int layer = bcn_record_desc(types[k])->layer;
		uint32_t i = (uint32_t)(10 * k);
		size_t first = b.n;

		add_part(&b, types[k], i, 10, "", "", 0, 400);
		add_part(&b, types[k], i + 1, 10, "", "slurm.11", 11, 250);
		add_part(&b, types[k], i + 2, 10, "", "bench", 0, 150);
		append_ok(f->s, b.items + first, b.n - first);
		check_parts(f->s, &b, layer, 0,
			    (const uint64_t[]){ 800, 400, 400, 0 });
		/* exports' records: a second way to divide the same total */
		add_part(&b, types[k], i + 3, 10, "10.0.0.1@tcp", "", 0, 300);
		add_part(&b, types[k], i + 4, 10, "10.0.0.2@tcp", "", 0, 100);
		append_ok(f->s, b.items + first + 3, 2);
		check_parts(f->s, &b, layer, 0,
			    (const uint64_t[]){ 1200, 400, 400, 400 });
		/* job 11: its job part by default and with any part */
		check_parts(f->s, &b, layer, 11,
			    (const uint64_t[]){ 250, 250, 250, 0 });
		check_parts(f->s, &b, layer, 12, (const uint64_t[]){ 0, 0, 0, 0 });
	}
	/* other layers hold totals only, with or without a job */
	add_part(&b, BCN_REC_OST, 30, 10, "", "", 0, 1)->type = BCN_REC_FWD_RPC;
	b.recs[b.n - 1].u.fwd_rpc.target = "simfs-OST0003";
	b.recs[b.n - 1].u.fwd_rpc.read_bytes = 64ull << 20;
	b.recs[b.n - 1].job = 11;
	append_ok(f->s, b.items + b.n - 1, 1);
	for (int p = -1; p < BCN_STORE_PART_MAX; p++) {
		struct bcn_store_query q = layer_query(BCN_LAYER_FORWARD);

		q.part = p;
		assert_int_equal(check_scan(f->s, &b, &q),
				 p == -1 || p == BCN_STORE_PART_TOTAL);
		q.job = 11;
		assert_int_equal(check_scan(f->s, &b, &q),
				 p == -1 || p == BCN_STORE_PART_TOTAL);
	}
	batch_free(&b);
}

/* The classification and the names of parts; queries with a part that
 * is none are refused. */
static void test_part_api(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	struct bcn_record r;
	uint64_t n;
	int part;

	bcn_record_init(&r, BCN_REC_OST);
	assert_int_equal(bcn_store_record_part(&r), BCN_STORE_PART_TOTAL);
	r.u.ost.client = "c";
	assert_int_equal(bcn_store_record_part(&r), BCN_STORE_PART_CLIENT);
	r.u.ost.jobid = "j";            /* a job's record of one export */
	assert_int_equal(bcn_store_record_part(&r), BCN_STORE_PART_JOB);
	bcn_record_init(&r, BCN_REC_MDS);
	r.u.mds.jobid = "j";
	assert_int_equal(bcn_store_record_part(&r), BCN_STORE_PART_JOB);
	bcn_record_init(&r, BCN_REC_IO);
	r.job = 7;
	assert_int_equal(bcn_store_record_part(&r), BCN_STORE_PART_TOTAL);
	for (int p = -1; p < BCN_STORE_PART_MAX; p++) {
		assert_int_equal(bcn_store_part_parse(bcn_store_part_name(p),
						      &part), 0);
		assert_int_equal(part, p);
	}
	assert_string_equal(bcn_store_part_name(BCN_STORE_PART_CLIENT), "client");
	assert_string_equal(bcn_store_part_name(7), "?");
	assert_int_equal(bcn_store_part_parse("Total", &part), -BCN_ESYNTAX);
	assert_int_equal(bcn_store_query_part(&q, &part), 0);
	assert_int_equal(part, BCN_STORE_PART_TOTAL);
	q.job = 5;
	assert_int_equal(bcn_store_query_part(&q, &part), 0);
	assert_int_equal(part, BCN_STORE_PART_JOB);
	q.layer = BCN_LAYER_CLIENT;
	assert_int_equal(bcn_store_query_part(&q, &part), 0);
	assert_int_equal(part, BCN_STORE_PART_TOTAL);
	for (int bad = -2; bad <= BCN_STORE_PART_MAX; bad += BCN_STORE_PART_MAX + 2) {
		q.part = bad;
		assert_int_equal(bcn_store_query_part(&q, &part), -EINVAL);
		assert_int_equal(bcn_store_count(f->s, &q, &n), -EINVAL);
		assert_int_equal(bcn_store_scan(f->s, &q, collect_rec, NULL),
				 -EINVAL);
		assert_int_equal(bcn_store_sum(f->s, &q, HOUR, collect_bucket,
					       NULL), -EINVAL);
	}
}

/* ---- backend-specific checks, skipped for the other backend ---- */

static bool has_file(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* sqlite: one file per UTC day named by the date, also before 1970;
 * expiry deletes the database with its -wal and -shm files. */
static void test_sqlite_files(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	uint64_t removed;
	struct batch b;

	if (env.backend != BCN_STORE_SQLITE)
		skip();
	batch_init(&b, 4);
	batch_add(&b, BCN_REC_OST, "oss1", 1, 0)->t = BASE + DAY - 1;
	batch_add(&b, BCN_REC_OST, "oss1", 1, 1)->t = BASE + DAY;
	batch_add(&b, BCN_REC_OST, "oss1", 1, 2)->t = -1;
	batch_add(&b, BCN_REC_OST, "oss1", 1, 3)->t = 0;
	append_ok(f->s, b.items, b.n);
	assert_true(has_file(f->cfg.dir, "beacon-20240110.db"));
	assert_true(has_file(f->cfg.dir, "beacon-20240111.db"));
	assert_true(has_file(f->cfg.dir, "beacon-19691231.db"));
	assert_true(has_file(f->cfg.dir, "beacon-19700101.db"));
	assert_true(has_file(f->cfg.dir, "beacon-20240110.db-wal"));
	check_scan(f->s, &b, &q);
	check_sum(f->s, &b, &q, 3 * SEC);
	assert_int_equal(bcn_store_expire(f->s, BASE, &removed), 0);
	assert_int_equal(removed, 2);
	assert_false(has_file(f->cfg.dir, "beacon-19691231.db"));
	assert_false(has_file(f->cfg.dir, "beacon-19691231.db-wal"));
	assert_false(has_file(f->cfg.dir, "beacon-19691231.db-shm"));
	assert_false(has_file(f->cfg.dir, "beacon-19700101.db"));
	assert_int_equal(count_layer(f->s, BCN_LAYER_OST), 2);
	batch_free(&b);
}

/* sqlite: a day database from a newer schema is refused, not misread;
 * other days stay usable. */
static void test_sqlite_version(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	char path[PATH_MAX + 32];
	sqlite3_stmt *st;
	sqlite3 *db;
	uint64_t n;
	struct batch b;

	if (env.backend != BCN_STORE_SQLITE)
		skip();
	snprintf(path, sizeof(path), "%s/beacon-20240110.db", f->cfg.dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version = 99", -1,
					    &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	batch_init(&b, 2);
	batch_add(&b, BCN_REC_OST, "oss1", 1, 0)->t = BASE;
	batch_add(&b, BCN_REC_OST, "oss1", 1, 1)->t = BASE + DAY;
	assert_int_equal(bcn_store_append(f->s, b.items, 1), -BCN_EVERSION);
	assert_int_equal(bcn_store_count(f->s, &q, &n), -BCN_EVERSION);
	append_ok(f->s, b.items + 1, 1);
	q.from = BASE + DAY;
	assert_int_equal(bcn_store_count(f->s, &q, &n), 0);
	assert_int_equal(n, 1);
	batch_free(&b);
}

/* Schema 1, as beacon wrote day databases before records had a part. */
static const char *const v1_schema[] = {
	"CREATE TABLE records (node TEXT NOT NULL, seq INTEGER NOT NULL, "
	"idx INTEGER NOT NULL, layer INTEGER NOT NULL, type INTEGER NOT NULL, "
	"entity TEXT NOT NULL, job INTEGER NOT NULL, t INTEGER NOT NULL, "
	"dur INTEGER NOT NULL, read_bytes INTEGER NOT NULL, "
	"write_bytes INTEGER NOT NULL, read_ops INTEGER NOT NULL, "
	"write_ops INTEGER NOT NULL, meta_ops INTEGER NOT NULL, "
	"other_ops INTEGER NOT NULL, rec BLOB NOT NULL, "
	"PRIMARY KEY (node, seq, idx))",
	"CREATE INDEX records_t ON records (layer, t)",
	"CREATE INDEX records_entity ON records (layer, entity, t)",
	"CREATE INDEX records_job ON records (layer, job, t)",
	"PRAGMA user_version = 1",
};

static void sql_ok(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
}

static int64_t u2i(uint64_t v)
{
	int64_t r;

	memcpy(&r, &v, sizeof(r));
	return r;
}

/* Inserts item it as schema 1 stored it; with damaged, a record blob
 * that does not decode. */
static void insert_v1(sqlite3 *db, sqlite3_stmt *st,
		      struct bcn_frame_builder *fb,
		      const struct bcn_store_item *it, bool damaged)
{
	const struct bcn_record *r = it->rec;
	uint64_t *tot;
	struct bcn_record_totals t;
	char ent[BCN_ENTITY_MAX];
	struct bcn_buf blob;

	bcn_buf_init(&blob, 1 << 20);
	assert_int_equal(bcn_frame_builder_pack(fb, r, &blob), 0);
	if (damaged)
		memset(blob.data, 0xff, blob.len);
	assert_int_equal(bcn_record_entity(r, ent, sizeof(ent)), 0);
	oracle_totals(r, &t);
	tot = &t.read_bytes;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, r->node, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, u2i(it->seq));
	sqlite3_bind_int64(st, 3, it->idx);
	sqlite3_bind_int64(st, 4, bcn_record_desc(r->type)->layer);
	sqlite3_bind_int64(st, 5, (int64_t)r->type);
	sqlite3_bind_text(st, 6, ent, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, u2i(r->job));
	sqlite3_bind_int64(st, 8, r->t);
	sqlite3_bind_int64(st, 9, r->dur);
	for (int k = 0; k < 6; k++)
		sqlite3_bind_int64(st, 10 + k, u2i(tot[k]));
	sqlite3_bind_blob(st, 16, blob.data, (int)blob.len, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		fail_msg("insert: %s", sqlite3_errmsg(db));
	bcn_buf_free(&blob);
}

/* Writes the day file name in dir with schema 1 holding items [0, n);
 * with damaged, the last one's record does not decode. */
static void write_v1_day(const char *dir, const char *name,
			 const struct bcn_store_item *items, size_t n,
			 bool damaged)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder fb;
	char path[PATH_MAX + 32];
	sqlite3_stmt *st;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t k = 0; k < NPOOL(v1_schema); k++)
		sql_ok(db, v1_schema[k]);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO records VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
		"?15, ?16)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(bcn_frame_builder_init(&fb, &lim, 0), 0);
	for (size_t i = 0; i < n; i++)
		insert_v1(db, st, &fb, &items[i], damaged && i == n - 1);
	bcn_frame_builder_free(&fb);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* The user_version of a day file and whether its index records_entity
 * has the part column. */
static int64_t file_schema(const char *dir, const char *name, bool *indexed)
{
	char path[PATH_MAX + 32];
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t v = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st,
					    NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	*indexed = false;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM "
		"pragma_index_info('records_entity')", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		*indexed |= strcmp((const char *)sqlite3_column_text(st, 0),
				   "part") == 0;
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return v;
}

/* sqlite: a day database of schema 1 (no part column) is upgraded when
 * it is opened: its job and export records become parts, sums count each
 * target once, new records go on; one whose records do not decode is
 * refused as damaged and left as it was. */
static void test_sqlite_upgrade(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	uint64_t n;
	bool indexed;
	struct batch b;

	if (env.backend != BCN_STORE_SQLITE)
		skip();
	batch_init(&b, 16);
	add_part(&b, BCN_REC_OST, 0, 10, "", "", 0, 400);
	add_part(&b, BCN_REC_OST, 1, 10, "", "slurm.11", 11, 250);
	add_part(&b, BCN_REC_OST, 2, 10, "", "bench", 0, 150);
	add_part(&b, BCN_REC_OST, 3, 10, "10.0.0.1@tcp", "", 0, 400);
	add_part(&b, BCN_REC_MDS, 4, 20, "", "", 0, 70);
	add_part(&b, BCN_REC_MDS, 5, 20, "", "7", 7, 70);
	add_part(&b, BCN_REC_MDS, 6, 20, "10.0.0.1@tcp", "", 0, 70);
	batch_add(&b, BCN_REC_IO, "cn1", 5, 7)->t = BASE + 30 * SEC;
	write_v1_day(f->cfg.dir, "beacon-20240110.db", b.items, b.n, false);
	assert_int_equal(file_schema(f->cfg.dir, "beacon-20240110.db",
				     &indexed), 1);
	check_parts(f->s, &b, BCN_LAYER_OST, 0,
		    (const uint64_t[]){ 1200, 400, 400, 400 });
	check_parts(f->s, &b, BCN_LAYER_MDS, 0,
		    (const uint64_t[]){ 210, 70, 70, 70 });
	check_parts(f->s, &b, BCN_LAYER_OST, 11,
		    (const uint64_t[]){ 250, 250, 250, 0 });
	assert_int_equal(file_schema(f->cfg.dir, "beacon-20240110.db",
				     &indexed), 2);
	assert_true(indexed);
	/* the upgraded day takes new records with their parts */
	add_part(&b, BCN_REC_OST, 8, 40, "", "slurm.12", 12, 50);
	add_part(&b, BCN_REC_OST, 9, 40, "", "", 0, 50);
	append_ok(f->s, b.items + b.n - 2, 2);
	check_parts(f->s, &b, BCN_LAYER_OST, 0,
		    (const uint64_t[]){ 1300, 450, 450, 400 });
	q.part = BCN_STORE_PART_ANY;
	check_scan(f->s, &b, &q);

	/* a damaged record: the day is refused and stays at schema 1 */
	for (size_t i = 0; i < 3; i++)
		b.recs[i].t += DAY;
	write_v1_day(f->cfg.dir, "beacon-20240111.db", b.items, 3, true);
	q = layer_query(BCN_LAYER_OST);
	q.from = BASE + DAY;
	assert_int_equal(bcn_store_count(f->s, &q, &n), -BCN_ECORRUPT);
	assert_int_equal(file_schema(f->cfg.dir, "beacon-20240111.db",
				     &indexed), 1);
	assert_false(indexed);
	q.from = BASE;
	q.to = BASE + DAY;
	assert_int_equal(bcn_store_count(f->s, &q, &n), 0);
	assert_int_equal(n, 2);
	batch_free(&b);
}

struct reenter {
	struct bcn_store *s;
	int rc[3];
};

static int call_inside(void *arg, const struct bcn_record *r)
{
	struct reenter *x = arg;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	struct bcn_store_item it = { r, 99, 0, 0 };
	uint64_t n;

	x->rc[0] = bcn_store_count(x->s, &q, &n);
	x->rc[1] = bcn_store_append(x->s, &it, 1);
	x->rc[2] = bcn_store_expire(x->s, INT64_MAX, NULL);
	return 0;
}

/* sqlite: a callback that calls into its own handle gets -EBUSY, and the
 * handle works normally afterwards. */
static void test_sqlite_reentry(void **state)
{
	struct fx *f = *state;
	struct bcn_store_query q = layer_query(BCN_LAYER_OST);
	struct reenter x = { f->s, { 0, 0, 0 } };
	struct batch b;

	if (env.backend != BCN_STORE_SQLITE)
		skip();
	batch_init(&b, 1);
	batch_add(&b, BCN_REC_OST, "oss1", 1, 0)->t = BASE;
	append_ok(f->s, b.items, b.n);
	assert_int_equal(bcn_store_scan(f->s, &q, call_inside, &x), 0);
	assert_int_equal(x.rc[0], -EBUSY);
	assert_int_equal(x.rc[1], -EBUSY);
	assert_int_equal(x.rc[2], -EBUSY);
	check_scan(f->s, &b, &q);
	batch_free(&b);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_empty),
		T(test_roundtrip_types),
		T(test_idempotent),
		T(test_scan_filters),
		T(test_bounds),
		T(test_order),
		T(test_sum),
		T(test_sum_midnight),
		T(test_count),
		T(test_expire),
		T(test_large_values),
		T(test_big_batch),
		T(test_callback_stop),
		T(test_reopen),
		T(test_invalid),
		T(test_parts),
		T(test_part_api),
		T(test_sqlite_files),
		T(test_sqlite_version),
		T(test_sqlite_upgrade),
		T(test_sqlite_reentry),
	};

	return cmocka_run_group_tests_name("store", tests, suite_setup,
					   suite_teardown);
}
