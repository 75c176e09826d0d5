/* Driver of bench/store_es_bench.sh: bytes per record of the OpenSearch
 * backend, one document shape against another on the same records.
 *
 *   store_es_bench load SQLITE_DIR URL PREFIX SHAPE
 *       reads every record of an embedded store (the scale benchmark's),
 *       appends them through the store API into OpenSearch with documents
 *       of SHAPE (enum bcn_es_shape) under PREFIX, in batches of 5,000 like
 *       the log server's flusher; prints {"records", "append_rps", "job",
 *       "entity"} (a busy job of the client layer, a busy OST)
 *   store_es_bench scan URL PREFIX JOB ENTITY
 *       times the per-job scan and sum (client layer) and the per-entity
 *       scan and sum (ost layer) over all time, each the best of 3; prints
 *       their seconds and the records each saw
 *
 * Records keep their identity only per run: the embedded store's scan does
 * not give seq and idx, so they are numbered per node in scan order, the
 * same for every shape. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "store/es_build.h"
#include "store/store.h"
#include "store/store_es.h"

#define BATCH 5000
#define ALL_FROM INT64_MIN
#define ALL_TO INT64_MAX
#define ROUNDS 3
#define TOP_MAX 8192            /* distinct nodes, jobs or entities counted */
#define KEY_MAX 256             /* of which the first bytes */

struct recs {
	struct bcn_record *r;
	size_t n, cap;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Copies r with its strings (leaked: the process is short-lived). */
static int keep(void *arg, const struct bcn_record *r)
{
	struct recs *x = arg;
	const struct bcn_record_desc *d = bcn_record_desc(r->type);
	struct bcn_record *c;

	if (!d)
		return -BCN_ERANGE;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 65536;
		void *p = realloc(x->r, cap * sizeof(*x->r));

		if (!p)
			return -ENOMEM;
		x->r = p;
		x->cap = cap;
	}
	c = &x->r[x->n];
	*c = *r;
	c->node = strdup(r->node);
	for (size_t i = 0; c->node && i < d->nfields; i++) {
		const char **s;

		if (d->fields[i].kind != BCN_F_STR)
			continue;
		s = (const char **)(void *)((char *)c + d->fields[i].offset);
		if (*s && !(*s = strdup(*s)))
			return -ENOMEM;
	}
	if (!c->node)
		return -ENOMEM;
	x->n++;
	return 0;
}

static int read_sqlite(const char *dir, struct recs *x)
{
	struct bcn_store_config cfg;
	struct bcn_store *s;
	char err[512];
	int rc;

	bcn_store_config_defaults(&cfg);
	cfg.backend = BCN_STORE_SQLITE;
	cfg.existing = 1;
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", dir);
	rc = bcn_store_open(&cfg, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "store_es_bench: %s\n", err);
		return rc;
	}
	for (int l = 1; rc == 0 && l < BCN_LAYER_MAX; l++) {
		struct bcn_store_query q = { l, NULL, 0, ALL_FROM, ALL_TO, 0,
					     BCN_STORE_PART_ANY, false };

		rc = bcn_store_scan(s, &q, keep, x);
	}
	bcn_store_close(s);
	return rc;
}

static int open_es(const char *url, const char *prefix, struct bcn_store **s)
{
	struct bcn_store_config cfg;
	char err[512];
	int rc;

	bcn_store_config_defaults(&cfg);
	cfg.backend = BCN_STORE_OPENSEARCH;
	snprintf(cfg.url, sizeof(cfg.url), "%s", url);
	snprintf(cfg.index_prefix, sizeof(cfg.index_prefix), "%s", prefix);
	cfg.retention_days = 36500;
	rc = bcn_store_open(&cfg, s, err, sizeof(err));
	if (rc)
		fprintf(stderr, "store_es_bench: %s\n", err);
	return rc;
}

/* The most frequent key among n (a small table; ties: the first seen). */
struct top {
	char key[TOP_MAX][KEY_MAX];
	size_t count[TOP_MAX], n;
};

static void top_add(struct top *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->key[i], key)) {
			t->count[i]++;
			return;
		}
	if (t->n < TOP_MAX) {
		snprintf(t->key[t->n], KEY_MAX, "%s", key);
		t->count[t->n++] = 1;
	}
}

static const char *top_best(const struct top *t)
{
	size_t best = 0;

	for (size_t i = 1; i < t->n; i++)
		if (t->count[i] > t->count[best])
			best = i;
	return t->n ? t->key[best] : "";
}

/* Numbers records per node (seq by node in order of appearance, idx
 * within 1,000), so identities are distinct and the same every run. */
static void identities(const struct recs *x, struct bcn_store_item *it)
{
	static struct top nodes;

	memset(&nodes, 0, sizeof(nodes));
	for (size_t i = 0; i < x->n; i++) {
		size_t k;

		top_add(&nodes, x->r[i].node);
		for (k = 0; k < nodes.n && strcmp(nodes.key[k], x->r[i].node); k++)
			;
		it[i].rec = &x->r[i];
		/* beyond the table: numbers of their own, still distinct */
		it[i].seq = k < nodes.n ? nodes.count[k] / 1000 : 1000000 + i / 1000;
		it[i].idx = (uint32_t)((k < nodes.n ? nodes.count[k] : i) % 1000);
	}
}

static int load(const char *dir, const char *url, const char *prefix,
		unsigned shape)
{
	static struct top jobs, ents;
	struct recs x = { 0 };
	struct bcn_store_item *it = NULL;
	struct bcn_store *s = NULL;
	char err[512], buf[BCN_ENTITY_MAX];
	double spent = 0;
	int rc;

	rc = read_sqlite(dir, &x);
	if (!rc && !(it = calloc(x.n ? x.n : 1, sizeof(*it))))
		rc = -ENOMEM;
	if (!rc)
		identities(&x, it);
	if (!rc)
		rc = open_es(url, prefix, &s);
	if (!rc && (rc = bcn_store_es_set_shape(s, shape, err, sizeof(err))))
		fprintf(stderr, "store_es_bench: %s\n", err);
	for (size_t i = 0; !rc && i < x.n; i += BATCH) {
		double t0 = now_s();

		rc = bcn_store_append(s, it + i, x.n - i < BATCH ? x.n - i : BATCH);
		spent += now_s() - t0;
	}
	for (size_t i = 0; !rc && i < x.n; i++) {
		const struct bcn_record *r = &x.r[i];
		int layer = bcn_record_desc(r->type)->layer;

		if (layer == BCN_LAYER_CLIENT && r->job) {
			snprintf(buf, sizeof(buf), "%" PRIu64, r->job);
			top_add(&jobs, buf);
		}
		if (layer == BCN_LAYER_OST &&
		    bcn_record_entity(r, buf, sizeof(buf)) == 0)
			top_add(&ents, buf);
	}
	if (!rc)
		printf("{\"prefix\":\"%s\",\"shape\":%u,\"records\":%zu,"
		       "\"append_s\":%.3f,\"append_rps\":%.0f,\"job\":\"%s\","
		       "\"entity\":\"%s\"}\n", prefix, shape, x.n, spent,
		       spent > 0 ? (double)x.n / spent : 0, top_best(&jobs),
		       top_best(&ents));
	else
		fprintf(stderr, "store_es_bench: load: %s\n", bcn_strerror(rc));
	bcn_store_close(s);
	free(it);
	return rc;
}

static int count_rec(void *arg, const struct bcn_record *r)
{
	(void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

static int count_bucket(void *arg, const struct bcn_store_bucket *b)
{
	*(uint64_t *)arg += b->records;
	return 0;
}

/* Best of ROUNDS of a scan (bucket 0) or a sum; *n the records seen. */
static int timed(struct bcn_store *s, const struct bcn_store_query *q,
		 int64_t bucket, double *best, uint64_t *n)
{
	int rc = 0;

	*best = 1e30;
	for (int k = 0; rc == 0 && k < ROUNDS; k++) {
		double t0 = now_s();

		*n = 0;
		rc = bucket ? bcn_store_sum(s, q, bucket, count_bucket, n) :
		     bcn_store_scan(s, q, count_rec, n);
		if (now_s() - t0 < *best)
			*best = now_s() - t0;
	}
	return rc;
}

static int scan(const char *url, const char *prefix, const char *job,
		const char *entity)
{
	const int64_t minute = 60ll * 1000000000ll;
	struct bcn_store_query qj = { BCN_LAYER_CLIENT, NULL, 0, 0, ALL_TO, 0,
				      BCN_STORE_PART_TOTAL, false };
	struct bcn_store_query qe = { BCN_LAYER_OST, entity, 0, 0, ALL_TO, 0,
				      BCN_STORE_PART_TOTAL, false };
	struct bcn_store *s = NULL;
	double t[4];
	uint64_t n[4];
	int rc;

	qj.job = strtoull(job, NULL, 10);
	rc = open_es(url, prefix, &s);
	if (!rc)
		rc = timed(s, &qj, 0, &t[0], &n[0]);
	if (!rc)
		rc = timed(s, &qj, minute, &t[1], &n[1]);
	if (!rc)
		rc = timed(s, &qe, 0, &t[2], &n[2]);
	if (!rc)
		rc = timed(s, &qe, minute, &t[3], &n[3]);
	if (!rc)
		printf("{\"prefix\":\"%s\",\"job_scan_s\":%.4f,\"job_records\":%"
		       PRIu64 ",\"job_sum_1m_s\":%.4f,\"entity_scan_s\":%.4f,"
		       "\"entity_records\":%" PRIu64 ",\"entity_sum_1m_s\":%.4f,"
		       "\"sums_match\":%s}\n", prefix, t[0], n[0], t[1], t[2],
		       n[2], t[3], n[1] == n[0] && n[3] == n[2] ? "true" : "false");
	else
		fprintf(stderr, "store_es_bench: scan: %s\n", bcn_strerror(rc));
	bcn_store_close(s);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 6 && !strcmp(argv[1], "load")) {
		char *end;
		unsigned long shape = strtoul(argv[5], &end, 10);

		if (*end || shape > BCN_ES_SHAPE_ALL) {
			fprintf(stderr, "store_es_bench: bad shape %s\n", argv[5]);
			return 2;
		}
		rc = load(argv[2], argv[3], argv[4], (unsigned)shape);
	} else if (argc == 6 && !strcmp(argv[1], "scan")) {
		rc = scan(argv[2], argv[3], argv[4], argv[5]);
	} else {
		fprintf(stderr, "usage: store_es_bench load SQLITE_DIR URL PREFIX "
			"SHAPE\n       store_es_bench scan URL PREFIX JOB ENTITY\n");
		return 2;
	}
	return rc ? 1 : 0;
}
