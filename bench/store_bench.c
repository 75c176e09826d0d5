/* The embedded store before and after record blocks (issue 19), on the
 * same records: every record of a source store (bench/store_bench.sh fills
 * one from beacon-sim's scale mode) is appended, in time order and in
 * frames per node and second (one frame per collector and tick, as the
 * flusher gets them), in batches of 8,192, into a schema 2 store (one row
 * per record) and a schema 3 store (blocks), which is then flushed
 * (compaction). Printed, one JSON object per line: bytes per record and
 * per node per day, append records/s, and the time of per-job,
 * per-entity and layer scans and bucketed sums on both, with their
 * ratios; every query's answer (records and sums) must be the same on
 * both stores, or the bench fails.
 *
 * usage: store_bench SOURCE_DIR OUT_DIR NODES SECONDS
 *   NODES    compute nodes of the run (bytes per node per day)
 *   SECONDS  simulated seconds the records cover */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/error.h"
#include "store/store.h"

#define BATCH 8192
#define ARENA_BLOCK (1u << 20)
#define REPS 3
#define NJOBS 3

struct arena {
	char *cur;
	size_t left;
	char **blocks;
	size_t n;
};

struct data {
	struct bcn_record *rec;
	struct bcn_store_item *it;
	size_t n, cap;
	struct arena strs;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *keep(struct arena *a, const char *s)
{
	size_t len = strlen(s) + 1;
	char **nb;

	if (len > ARENA_BLOCK)
		return NULL;
	if (len > a->left) {
		nb = realloc(a->blocks, (a->n + 1) * sizeof(*nb));
		if (!nb)
			return NULL;
		a->blocks = nb;
		a->cur = malloc(ARENA_BLOCK);
		if (!a->cur)
			return NULL;
		a->blocks[a->n++] = a->cur;
		a->left = ARENA_BLOCK;
	}
	memcpy(a->cur, s, len);
	a->cur += len;
	a->left -= len;
	return a->cur - len;
}

/* Copies r with its strings (node and string fields) into d. */
static int take(void *arg, const struct bcn_record *r)
{
	struct data *d = arg;
	const struct bcn_record_desc *desc = bcn_record_desc(r->type);
	struct bcn_record *c;

	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 65536;
		struct bcn_record *nr = realloc(d->rec, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		d->rec = nr;
		d->cap = nc;
	}
	c = &d->rec[d->n];
	*c = *r;
	if (!(c->node = keep(&d->strs, r->node)))
		return -ENOMEM;
	for (size_t f = 0; f < desc->nfields; f++) {
		const char **p;

		if (desc->fields[f].kind != BCN_F_STR)
			continue;
		p = (const char **)((char *)c + desc->fields[f].offset);
		if (!(*p = keep(&d->strs, *p)))
			return -ENOMEM;
	}
	d->n++;
	return 0;
}

static int cmp_node_t(const void *a, const void *b)
{
	const struct bcn_store_item *x = a, *y = b;
	int c = strcmp(x->rec->node, y->rec->node);

	if (c)
		return c;
	return (x->rec->t > y->rec->t) - (x->rec->t < y->rec->t);
}

static int cmp_send(const void *a, const void *b)
{
	const struct bcn_store_item *x = a, *y = b;
	int64_t tx = x->rec->t / 1000000000ll, ty = y->rec->t / 1000000000ll;
	int c;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	c = strcmp(x->rec->node, y->rec->node);
	if (c)
		return c;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Identities: per node, a frame per second of t. Then the items in the
 * order of sending: by second, node, position. */
static int make_items(struct data *d)
{
	size_t a, b;

	d->it = calloc(d->n ? d->n : 1, sizeof(*d->it));
	if (!d->it)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		d->it[i].rec = &d->rec[i];
	qsort(d->it, d->n, sizeof(*d->it), cmp_node_t);
	for (a = 0; a < d->n; a = b) {
		const char *node = d->it[a].rec->node;
		uint64_t seq = 1;

		for (b = a; b < d->n && !strcmp(d->it[b].rec->node, node); ) {
			int64_t sec = d->it[b].rec->t / 1000000000ll;
			size_t e = b;

			while (e < d->n && !strcmp(d->it[e].rec->node, node) &&
			       d->it[e].rec->t / 1000000000ll == sec)
				e++;
			for (size_t k = b; k < e; k++) {
				d->it[k].seq = seq;
				d->it[k].idx = (uint32_t)(k - b);
				d->it[k].nrec = (uint32_t)(e - b);
			}
			seq++;
			b = e;
		}
	}
	qsort(d->it, d->n, sizeof(*d->it), cmp_send);
	return 0;
}

static int load(const char *dir, struct data *d)
{
	struct bcn_store_config cfg;
	struct bcn_store *s;
	char err[256];
	int rc;

	bcn_store_config_defaults(&cfg);
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", dir);
	cfg.existing = true;
	rc = bcn_store_open(&cfg, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "store_bench: %s\n", err);
		return rc;
	}
	for (int layer = 1; layer < BCN_LAYER_MAX && !rc; layer++) {
		struct bcn_store_query q = { layer, NULL, 0, INT64_MIN,
					     INT64_MAX, 0, BCN_STORE_PART_ANY };

		rc = bcn_store_scan(s, &q, take, d);
	}
	bcn_store_close(s);
	return rc ? rc : make_items(d);
}

/* Bytes of the regular files in dir. */
static uint64_t dir_bytes(const char *dir)
{
	char path[4200];
	struct dirent *de;
	struct stat sb;
	uint64_t sum = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!stat(path, &sb) && S_ISREG(sb.st_mode))
			sum += (uint64_t)sb.st_size;
	}
	closedir(d);
	return sum;
}

static struct bcn_store *open_out(const char *dir, int schema)
{
	struct bcn_store_config cfg;
	struct bcn_store *s = NULL;
	char err[256];

	bcn_store_config_defaults(&cfg);
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", dir);
	cfg.schema = schema;
	cfg.retention_days = 36500;
	if (bcn_store_open(&cfg, &s, err, sizeof(err)))
		fprintf(stderr, "store_bench: %s\n", err);
	return s;
}

struct written {
	double append_s, flush_s;
	uint64_t bytes;
};

static int write_store(const struct data *d, const char *dir, int schema,
		       struct written *w)
{
	struct bcn_store *s = open_out(dir, schema);
	double t0;
	int rc = 0;

	if (!s)
		return -EIO;
	t0 = now_s();
	for (size_t a = 0; a < d->n && !rc; a += BATCH)
		rc = bcn_store_append(s, d->it + a,
				      d->n - a < BATCH ? d->n - a : BATCH);
	w->append_s = now_s() - t0;
	t0 = now_s();
	if (!rc)
		rc = bcn_store_flush(s);
	w->flush_s = now_s() - t0;
	bcn_store_close(s);
	w->bytes = dir_bytes(dir);
	return rc;
}

/* What a query returned: a digest to compare the two stores by. */
struct digest {
	uint64_t n;
	uint64_t h;
};

static int digest_rec(void *arg, const struct bcn_record *r)
{
	struct digest *g = arg;

	g->n++;
	g->h = (g->h ^ (uint64_t)r->t ^ r->type ^ r->job) * 1099511628211ull;
	for (const char *p = r->node; *p; p++)
		g->h = (g->h ^ (uint8_t)*p) * 1099511628211ull;
	return 0;
}

static int digest_bucket(void *arg, const struct bcn_store_bucket *b)
{
	struct digest *g = arg;

	g->n += b->records;
	g->h = (g->h ^ (uint64_t)b->t ^ b->sum.read_bytes ^ b->sum.write_bytes ^
		b->sum.meta_ops) * 1099511628211ull;
	return 0;
}

struct bq {
	const char *name;
	struct bcn_store_query q;
	int64_t bucket;         /* 0: a scan */
};

/* Best of REPS of one query on s; its digest into g. */
static int time_query(struct bcn_store *s, const struct bq *b, double *best,
		      struct digest *g)
{
	int rc = 0;

	*best = 1e9;
	for (int r = 0; r < REPS && !rc; r++) {
		double t0 = now_s();

		memset(g, 0, sizeof(*g));
		rc = b->bucket ? bcn_store_sum(s, &b->q, b->bucket, digest_bucket, g)
			       : bcn_store_scan(s, &b->q, digest_rec, g);
		if (now_s() - t0 < *best)
			*best = now_s() - t0;
	}
	return rc;
}

/* The jobs with the most client records, up to NJOBS. */
static void top_jobs(const struct data *d, uint64_t *jobs)
{
	uint64_t cnt[NJOBS] = { 0 };

	memset(jobs, 0, NJOBS * sizeof(*jobs));
	for (size_t i = 0; i < d->n; i++) {
		uint64_t j = d->rec[i].job, c = 0;
		bool seen = false;

		if (!j || d->rec[i].type != BCN_REC_IO)
			continue;
		for (int k = 0; k < NJOBS; k++)
			seen |= jobs[k] == j;
		if (seen)
			continue;
		for (size_t m = 0; m < d->n; m += 7)   /* sampled count */
			c += d->rec[m].job == j;
		for (int k = 0; k < NJOBS; k++) {
			if (c > cnt[k]) {
				memmove(&cnt[k + 1], &cnt[k], (NJOBS - 1 - (size_t)k) * sizeof(*cnt));
				memmove(&jobs[k + 1], &jobs[k], (NJOBS - 1 - (size_t)k) * sizeof(*jobs));
				cnt[k] = c;
				jobs[k] = j;
				break;
			}
		}
		if (i > 20000)
			break;
	}
}

static int run_queries(const struct data *d, const char *d2, const char *d3)
{
	struct bcn_store *s2 = open_out(d2, 2), *s3 = open_out(d3, 0);
	uint64_t jobs[NJOBS];
	struct bq qs[16];
	size_t nq = 0;
	int rc = 0;
	const int64_t all0 = INT64_MIN, all1 = INT64_MAX;
	const char *ost = NULL, *cn = NULL;

	if (!s2 || !s3)
		return -EIO;
	for (size_t i = 0; i < d->n && (!ost || !cn); i++) {
		if (!ost && d->rec[i].type == BCN_REC_OST)
			ost = d->rec[i].u.ost.target;
		if (!cn && d->rec[i].type == BCN_REC_IO)
			cn = d->rec[i].node;
	}
	top_jobs(d, jobs);
	for (int k = 0; k < NJOBS; k++) {
		if (!jobs[k])
			continue;
		qs[nq++] = (struct bq){ "job_client_scan",
			{ BCN_LAYER_CLIENT, NULL, jobs[k], all0, all1, 0, 0 }, 0 };
		qs[nq++] = (struct bq){ "job_ost_sum_1m",
			{ BCN_LAYER_OST, NULL, jobs[k], all0, all1, 0, 0 },
			60 * 1000000000ll };
	}
	if (ost)
		qs[nq++] = (struct bq){ "entity_ost_scan",
			{ BCN_LAYER_OST, ost, 0, all0, all1, 0, 0 }, 0 };
	if (cn)
		qs[nq++] = (struct bq){ "entity_node_scan",
			{ BCN_LAYER_CLIENT, cn, 0, all0, all1, 0, 0 }, 0 };
	qs[nq++] = (struct bq){ "layer_client_sum_1m",
		{ BCN_LAYER_CLIENT, NULL, 0, all0, all1, 0, 0 }, 60 * 1000000000ll };
	qs[nq++] = (struct bq){ "layer_ost_sum_1m",
		{ BCN_LAYER_OST, NULL, 0, all0, all1, 0, 0 }, 60 * 1000000000ll };
	qs[nq++] = (struct bq){ "layer_forward_scan",
		{ BCN_LAYER_FORWARD, NULL, 0, all0, all1, 0, 0 }, 0 };
	for (size_t k = 0; k < nq && !rc; k++) {
		struct digest g2, g3;
		double t2, t3;

		rc = time_query(s2, &qs[k], &t2, &g2);
		if (!rc)
			rc = time_query(s3, &qs[k], &t3, &g3);
		if (!rc && (g2.n != g3.n || g2.h != g3.h)) {
			fprintf(stderr, "store_bench: %s: the schemas differ "
				"(%" PRIu64 " vs %" PRIu64 ")\n", qs[k].name,
				g2.n, g3.n);
			rc = -EPROTO;
		}
		if (!rc)
			printf("{\"bench\":\"store_query\",\"query\":\"%s\","
			       "\"job\":%" PRIu64 ",\"records\":%" PRIu64 ","
			       "\"schema2_ms\":%.2f,\"schema3_ms\":%.2f,"
			       "\"speedup\":%.2f}\n", qs[k].name, qs[k].q.job,
			       g3.n, t2 * 1e3, t3 * 1e3, t3 > 0 ? t2 / t3 : 0);
	}
	bcn_store_close(s2);
	bcn_store_close(s3);
	return rc;
}

static void print_write(const char *name, const struct data *d,
			const struct written *w, double nodes, double secs)
{
	double per_day = (double)w->bytes / nodes * 86400.0 / secs;

	printf("{\"bench\":\"store_write\",\"store\":\"%s\",\"records\":%zu,"
	       "\"bytes\":%" PRIu64 ",\"bytes_per_record\":%.1f,"
	       "\"bytes_per_node_per_day\":%.0f,\"append_records_per_s\":%.0f,"
	       "\"flush_s\":%.2f,\"records_per_s_with_flush\":%.0f,"
	       "\"target_bytes_per_node_per_day\":450000,"
	       "\"target_append_records_per_s\":200000}\n",
	       name, d->n, w->bytes, d->n ? (double)w->bytes / (double)d->n : 0,
	       per_day, w->append_s > 0 ? (double)d->n / w->append_s : 0,
	       w->flush_s, (double)d->n / (w->append_s + w->flush_s));
}

int main(int argc, char **argv)
{
	char d2[4096], d3[4096];
	struct written w2, w3;
	struct data d = { 0 };
	double nodes, secs;
	int rc;

	if (argc != 5 || (nodes = strtod(argv[3], NULL)) <= 0 ||
	    (secs = strtod(argv[4], NULL)) <= 0) {
		fprintf(stderr, "usage: store_bench SOURCE_DIR OUT_DIR NODES "
			"SECONDS\n");
		return 2;
	}
	snprintf(d2, sizeof(d2), "%s/schema2", argv[2]);
	snprintf(d3, sizeof(d3), "%s/schema3", argv[2]);
	rc = load(argv[1], &d);
	if (!rc && d.n == 0)
		rc = -ENOENT;
	if (!rc)
		rc = write_store(&d, d2, 2, &w2);
	if (!rc)
		rc = write_store(&d, d3, 0, &w3);
	if (!rc) {
		print_write("sqlite_schema2_rows", &d, &w2, nodes, secs);
		print_write("sqlite_schema3_blocks", &d, &w3, nodes, secs);
		printf("{\"bench\":\"store_size_ratio\",\"schema2_over_schema3\":"
		       "%.2f,\"append_speedup\":%.2f}\n",
		       (double)w2.bytes / (double)(w3.bytes ? w3.bytes : 1),
		       w2.append_s / (w3.append_s + w3.flush_s));
		fflush(stdout);
		rc = run_queries(&d, d2, d3);
	}
	if (rc)
		fprintf(stderr, "store_bench: %s\n", bcn_strerror(rc));
	return rc ? 1 : 0;
}
