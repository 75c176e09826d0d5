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
 * Built with RocksDB (bench/CMakeLists.txt finds librocksdb-dev), the
 * same records also go, as the same blocks (one per layer, part, entity,
 * job part's job and hour; store/block.c), into a RocksDB with zstd under
 * keys layer|part|entity|hour|job and a job index
 * 0xff|job|layer|block key, and one entity scan and the per-job scans
 * are timed there against schema 3 (same record counts required).
 *
 * usage: store_bench SOURCE_DIR OUT_DIR NODES SECONDS [APPEND_REPS]
 *   NODES    compute nodes of the run (bytes per node per day)
 *   SECONDS  simulated seconds the records cover
 *   APPEND_REPS  only the schema 3 appends (with the final flush), that
 *            many times into fresh stores, one line each and a last line
 *            with the medians (for comparing builds of the store) */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/error.h"
#include "store/block.h"
#include "store/store.h"
#ifdef BCN_HAVE_ROCKSDB
#include <rocksdb/c.h>
#endif

#define BATCH 8192
#define ARENA_BLOCK (1u << 20)
#define REPS 3
#define NJOBS 3
#define APPEND_REPS_MAX 99

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
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
					     INT64_MAX, 0, BCN_STORE_PART_ANY, false };

		rc = bcn_store_scan(s, &q, take, d);
	}
	bcn_store_close(s);
	return rc ? rc : make_items(d);
}

/* CPU time of the process (user and system), seconds. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
		if (strncmp(de->d_name, "LOG", 3) && !stat(path, &sb) &&
		    S_ISREG(sb.st_mode))
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
	double cpu_s;                   /* CPU time of appends and flush */
	uint64_t bytes;
};

static int write_store(const struct data *d, const char *dir, int schema,
		       struct written *w)
{
	struct bcn_store *s = open_out(dir, schema);
	double t0, c0;
	int rc = 0;

	if (!s)
		return -EIO;
	c0 = cpu_s();
	t0 = now_s();
	for (size_t a = 0; a < d->n && !rc; a += BATCH)
		rc = bcn_store_append(s, d->it + a,
				      d->n - a < BATCH ? d->n - a : BATCH);
	w->append_s = now_s() - t0;
	t0 = now_s();
	if (!rc)
		rc = bcn_store_flush(s);
	w->flush_s = now_s() - t0;
	w->cpu_s = cpu_s() - c0;
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

#ifdef BCN_HAVE_ROCKSDB
#define CHUNK (3600ll * 1000000000ll)

struct keyed {
	const struct bcn_store_item *it;
	char key[300];          /* layer|part|entity\0|chunk|job */
	size_t klen;
};

static void put_be64(char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (char)(v & 0xff);
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(x->key, y->key, n);

	if (c)
		return c;
	if (x->klen != y->klen)
		return x->klen < y->klen ? -1 : 1;
	if (x->it->rec->t != y->it->rec->t)
		return x->it->rec->t < y->it->rec->t ? -1 : 1;
	c = strcmp(x->it->rec->node, y->it->rec->node);
	if (c)
		return c;
	if (x->it->seq != y->it->seq)
		return x->it->seq < y->it->seq ? -1 : 1;
	return (x->it->idx > y->it->idx) - (x->it->idx < y->it->idx);
}

static size_t make_key(const struct bcn_record *r, char *key)
{
	char ent[BCN_ENTITY_MAX];
	int part = bcn_store_record_part(r);
	size_t len, n = 0;
	int64_t chunk = r->t >= 0 ? r->t / CHUNK : -((-1 - r->t) / CHUNK) - 1;

	if (bcn_record_entity(r, ent, sizeof(ent)))
		ent[0] = 0;
	len = strlen(ent);
	if (len > 250)
		len = 250;
	key[n++] = (char)bcn_record_desc(r->type)->layer;
	key[n++] = (char)part;
	memcpy(key + n, ent, len);
	n += len;
	key[n++] = 0;
	put_be64(key + n, (uint64_t)chunk ^ (1ull << 63));
	n += 8;
	put_be64(key + n, part == BCN_STORE_PART_JOB ? r->job : 0);
	return n + 8;
}

struct rocks {
	rocksdb_t *db;
	rocksdb_options_t *opt;
	rocksdb_readoptions_t *ro;
	double write_s;
	uint64_t bytes, blocks;
};

/* The job index key of job, layer and block key k. */
static size_t job_key(uint64_t job, int layer, const char *k, size_t klen,
		      char *out)
{
	out[0] = (char)0xff;
	put_be64(out + 1, job);
	out[9] = (char)layer;
	memcpy(out + 10, k, klen);
	return 10 + klen;
}

static int rocks_write(const struct data *d, const char *dir, struct rocks *x)
{
	struct keyed *ks = calloc(d->n, sizeof(*ks));
	struct bcn_block_item *bi = calloc(d->n, sizeof(*bi));
	rocksdb_writeoptions_t *wo = rocksdb_writeoptions_create();
	struct bcn_block_enc *e = NULL;
	struct bcn_buf blk;
	char *err = NULL, jk[400];
	double t0 = now_s();
	size_t a, b;
	int rc = 0;

	bcn_buf_init(&blk, BCN_BLOCK_RAW_MAX);
	x->opt = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(x->opt, 1);
	rocksdb_options_set_compression(x->opt, rocksdb_zstd_compression);
	rocksdb_writeoptions_set_sync(wo, 1);
	x->db = rocksdb_open(x->opt, dir, &err);
	if (!ks || !bi || !x->db || bcn_block_enc_new(3, &e)) {
		fprintf(stderr, "store_bench: rocksdb: %s\n", err ? err : "no memory");
		rc = -EIO;
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		ks[i].it = &d->it[i];
		ks[i].klen = make_key(d->it[i].rec, ks[i].key);
	}
	qsort(ks, d->n, sizeof(*ks), cmp_keyed);
	for (a = 0; a < d->n && !rc; a = b) {
		rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
		uint64_t last_job = 0;

		for (b = a; b < d->n && ks[b].klen == ks[a].klen &&
		     !memcmp(ks[b].key, ks[a].key, ks[a].klen); b++)
			bi[b - a] = (struct bcn_block_item){ ks[b].it->rec,
				ks[b].it->seq, ks[b].it->idx };
		bcn_buf_reset(&blk);
		rc = bcn_block_encode(e, bi, b - a, &blk);
		rocksdb_writebatch_put(wb, ks[a].key, ks[a].klen,
				       (const char *)blk.data, blk.len);
		for (size_t i = a; i < b; i++) {
			uint64_t j = ks[i].it->rec->job;

			if (!j || j == last_job)
				continue;
			last_job = j;
			rocksdb_writebatch_put(wb, jk, job_key(j, ks[a].key[0],
					       ks[a].key, ks[a].klen, jk), "", 0);
		}
		rocksdb_write(x->db, wo, wb, &err);
		rocksdb_writebatch_destroy(wb);
		x->blocks++;
		if (err)
			rc = -EIO;
	}
	if (!rc) {
		rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();

		rocksdb_flushoptions_set_wait(fo, 1);
		rocksdb_flush(x->db, fo, &err);
		rocksdb_flushoptions_destroy(fo);
		rocksdb_compact_range(x->db, NULL, 0, NULL, 0);
	}
	x->write_s = now_s() - t0;
	x->ro = rocksdb_readoptions_create();
out:
	if (err) {
		fprintf(stderr, "store_bench: rocksdb: %s\n", err);
		rocksdb_free(err);
		rc = -EIO;
	}
	rocksdb_writeoptions_destroy(wo);
	bcn_block_enc_free(e);
	bcn_buf_free(&blk);
	free(ks);
	free(bi);
	return rc;
}

/* Decodes a block value and counts its records of layer (and job). */
static int rocks_count_block(const char *v, size_t len, int layer,
			     uint64_t job, struct digest *g)
{
	static const struct bcn_block_limits lim = BCN_BLOCK_LIMITS_DEFAULT;
	struct bcn_block_reader *b;
	struct bcn_record r;
	uint64_t seq;
	uint32_t idx;
	int rc = bcn_block_open(v, len, &lim, &b);

	while (!rc && (rc = bcn_block_next(b, &r, &seq, &idx)) == 1) {
		rc = 0;
		if (bcn_record_desc(r.type)->layer == layer &&
		    (!job || r.job == job))
			g->n++;
	}
	bcn_block_close(b);
	return rc < 0 ? rc : 0;
}

/* An entity scan (prefix layer|part|entity) or a job scan (the index). */
static int rocks_query(struct rocks *x, const struct bq *q, double *best,
		       struct digest *g)
{
	char pre[300], *v;
	size_t plen = 0, vlen;
	int rc = 0;

	if (q->q.job) {
		pre[0] = (char)0xff;
		put_be64(pre + 1, q->q.job);
		pre[9] = (char)q->q.layer;
		plen = 10;
	} else {
		pre[plen++] = (char)q->q.layer;
		pre[plen++] = (char)q->q.part;
		memcpy(pre + plen, q->q.entity, strlen(q->q.entity) + 1);
		plen += strlen(q->q.entity) + 1;
	}
	*best = 1e9;
	for (int r = 0; r < REPS && !rc; r++) {
		rocksdb_iterator_t *it = rocksdb_create_iterator(x->db, x->ro);
		double t0 = now_s();

		memset(g, 0, sizeof(*g));
		for (rocksdb_iter_seek(it, pre, plen); !rc &&
		     rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
			size_t kl;
			const char *k = rocksdb_iter_key(it, &kl);
			char *err = NULL;

			if (kl < plen || memcmp(k, pre, plen))
				break;
			if (!q->q.job) {
				const char *val = rocksdb_iter_value(it, &vlen);

				rc = rocks_count_block(val, vlen, q->q.layer, 0, g);
				continue;
			}
			v = rocksdb_get(x->db, x->ro, k + 10, kl - 10, &vlen, &err);
			if (err || !v) {
				rocksdb_free(err);
				rc = -EIO;
				break;
			}
			if ((int)(unsigned char)k[10 + 1] == q->q.part ||
			    q->q.part == BCN_STORE_PART_ANY ||
			    (q->q.layer != BCN_LAYER_OST && q->q.layer != BCN_LAYER_MDS))
				rc = rocks_count_block(v, vlen, q->q.layer,
						       q->q.job, g);
			rocksdb_free(v);
		}
		rocksdb_iter_destroy(it);
		if (now_s() - t0 < *best)
			*best = now_s() - t0;
	}
	return rc;
}

static void rocks_close(struct rocks *x)
{
	if (x->ro)
		rocksdb_readoptions_destroy(x->ro);
	if (x->db)
		rocksdb_close(x->db);
	if (x->opt)
		rocksdb_options_destroy(x->opt);
}
#endif

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

/* The jobs with the most client records, up to NJOBS (0: none). */
static void top_jobs(const struct data *d, uint64_t *jobs)
{
	uint64_t *v = malloc((d->n ? d->n : 1) * sizeof(*v)), cnt[NJOBS] = { 0 };
	size_t n = 0, a, b;

	memset(jobs, 0, NJOBS * sizeof(*jobs));
	if (!v)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->rec[i].job && d->rec[i].type == BCN_REC_IO)
			v[n++] = d->rec[i].job;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (a = 0; a < n; a = b) {
		for (b = a; b < n && v[b] == v[a]; b++)
			;
		for (int k = 0; k < NJOBS; k++) {
			if (b - a > cnt[k]) {
				memmove(&cnt[k + 1], &cnt[k], (NJOBS - 1 - (size_t)k) * sizeof(*cnt));
				memmove(&jobs[k + 1], &jobs[k], (NJOBS - 1 - (size_t)k) * sizeof(*jobs));
				cnt[k] = b - a;
				jobs[k] = v[a];
				break;
			}
		}
	}
	free(v);
}

#ifndef BCN_HAVE_ROCKSDB
struct rocks {
	int none;
};
#endif

/* A query on RocksDB too (entity and job scans), printed as fields. */
static int rocks_fields(struct rocks *x, const struct bq *q,
			const struct digest *g3, char *out, size_t len)
{
	out[0] = 0;
#ifdef BCN_HAVE_ROCKSDB
	struct digest g;
	double t;
	int rc;

	if (!x || q->bucket || (!q->q.entity && !q->q.job))
		return 0;
	rc = rocks_query(x, q, &t, &g);
	if (rc)
		return rc;
	if (g.n != g3->n) {
		fprintf(stderr, "store_bench: %s: rocksdb has %" PRIu64
			" records, schema 3 %" PRIu64 "\n", q->name, g.n, g3->n);
		return -EPROTO;
	}
	snprintf(out, len, ",\"rocksdb_ms\":%.2f", t * 1e3);
#else
	(void)x;
	(void)q;
	(void)g3;
	(void)len;
#endif
	return 0;
}

static int run_queries(const struct data *d, const char *d2, const char *d3,
		       struct rocks *rx)
{
	char extra[64];
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
			{ BCN_LAYER_CLIENT, NULL, jobs[k], all0, all1, 0, 0, false }, 0 };
		qs[nq++] = (struct bq){ "job_ost_sum_1m",
			{ BCN_LAYER_OST, NULL, jobs[k], all0, all1, 0, 0, false },
			60 * 1000000000ll };
	}
	if (ost)
		qs[nq++] = (struct bq){ "entity_ost_scan",
			{ BCN_LAYER_OST, ost, 0, all0, all1, 0, 0, false }, 0 };
	if (cn)
		qs[nq++] = (struct bq){ "entity_node_scan",
			{ BCN_LAYER_CLIENT, cn, 0, all0, all1, 0, 0, false }, 0 };
	qs[nq++] = (struct bq){ "layer_client_sum_1m",
		{ BCN_LAYER_CLIENT, NULL, 0, all0, all1, 0, 0, false }, 60 * 1000000000ll };
	qs[nq++] = (struct bq){ "layer_ost_sum_1m",
		{ BCN_LAYER_OST, NULL, 0, all0, all1, 0, 0, false }, 60 * 1000000000ll };
	qs[nq++] = (struct bq){ "layer_forward_scan",
		{ BCN_LAYER_FORWARD, NULL, 0, all0, all1, 0, 0, false }, 0 };
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
			rc = rocks_fields(rx, &qs[k], &g3, extra, sizeof(extra));
		if (!rc)
			printf("{\"bench\":\"store_query\",\"query\":\"%s\","
			       "\"job\":%" PRIu64 ",\"records\":%" PRIu64 ","
			       "\"schema2_ms\":%.2f,\"schema3_ms\":%.2f,"
			       "\"speedup\":%.2f%s}\n", qs[k].name, qs[k].q.job,
			       g3.n, t2 * 1e3, t3 * 1e3, t3 > 0 ? t2 / t3 : 0,
			       extra);
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

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* APPEND_REPS: the schema 3 appends alone, reps times. */
static int append_reps(const struct data *d, const char *out, int reps,
		       double nodes, double secs)
{
	double rate[APPEND_REPS_MAX], app[APPEND_REPS_MAX], cpu[APPEND_REPS_MAX];
	char dir[4200];
	struct written w = { 0 };
	int rc = 0, k;

	for (k = 0; k < reps && !rc; k++) {
		snprintf(dir, sizeof(dir), "%s/rep%d", out, k);
		rc = write_store(d, dir, 0, &w);
		if (rc)
			break;
		print_write("sqlite_schema3_blocks", d, &w, nodes, secs);
		fflush(stdout);
		rate[k] = (double)d->n / (w.append_s + w.flush_s);
		app[k] = (double)d->n / w.append_s;
		cpu[k] = (double)d->n / w.cpu_s;
	}
	if (rc)
		return rc;
	qsort(rate, (size_t)reps, sizeof(*rate), cmp_dbl);
	qsort(app, (size_t)reps, sizeof(*app), cmp_dbl);
	qsort(cpu, (size_t)reps, sizeof(*cpu), cmp_dbl);
	printf("{\"bench\":\"store_append_median\",\"reps\":%d,"
	       "\"records\":%zu,\"bytes_per_record\":%.2f,"
	       "\"append_records_per_s\":%.0f,"
	       "\"records_per_s_with_flush\":%.0f,"
	       "\"records_per_cpu_s_with_flush\":%.0f,"
	       "\"target_append_records_per_s\":200000}\n", reps, d->n,
	       (double)w.bytes / (double)d->n, app[reps / 2], rate[reps / 2],
	       cpu[reps / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	char d2[4096], d3[4096];
	struct written w2, w3;
	struct data d = { 0 };
	double nodes, secs;
	int rc, reps = 0;

	if (argc == 6) {
		char *end;
		long v;

		errno = 0;
		v = strtol(argv[5], &end, 10);
		reps = errno || end == argv[5] || *end || v < 1 ||
		       v > APPEND_REPS_MAX ? 0 : (int)v;
	}
	if (argc < 5 || argc > 6 || (nodes = strtod(argv[3], NULL)) <= 0 ||
	    (secs = strtod(argv[4], NULL)) <= 0 ||
	    (argc == 6 && (reps < 1 || reps > APPEND_REPS_MAX))) {
		fprintf(stderr, "usage: store_bench SOURCE_DIR OUT_DIR NODES "
			"SECONDS [APPEND_REPS (1..%d)]\n", APPEND_REPS_MAX);
		return 2;
	}
	snprintf(d2, sizeof(d2), "%s/schema2", argv[2]);
	snprintf(d3, sizeof(d3), "%s/schema3", argv[2]);
	rc = load(argv[1], &d);
	if (!rc && d.n == 0)
		rc = -ENOENT;
	if (reps) {
		if (!rc)
			rc = append_reps(&d, argv[2], reps, nodes, secs);
		if (rc)
			fprintf(stderr, "store_bench: %s\n", bcn_strerror(rc));
		return rc ? 1 : 0;
	}
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
	}
#ifdef BCN_HAVE_ROCKSDB
	struct rocks rx = { 0 };
	char dr[4096];

	snprintf(dr, sizeof(dr), "%s/rocksdb", argv[2]);
	if (!rc)
		rc = rocks_write(&d, dr, &rx);
	if (!rc) {
		rx.bytes = dir_bytes(dr);
		printf("{\"bench\":\"store_write\",\"store\":\"rocksdb_blocks\","
		       "\"records\":%zu,\"blocks\":%" PRIu64 ",\"bytes\":%" PRIu64
		       ",\"bytes_per_record\":%.1f,\"bytes_per_node_per_day\":%.0f,"
		       "\"records_per_s_final_layout\":%.0f,"
		       "\"sqlite_schema3_bytes\":%" PRIu64 "}\n", d.n, rx.blocks,
		       rx.bytes, (double)rx.bytes / (double)d.n,
		       (double)rx.bytes / nodes * 86400.0 / secs,
		       (double)d.n / rx.write_s, w3.bytes);
		fflush(stdout);
	}
	if (!rc)
		rc = run_queries(&d, d2, d3, &rx);
	rocks_close(&rx);
#else
	if (!rc)
		rc = run_queries(&d, d2, d3, NULL);
#endif
	if (rc)
		fprintf(stderr, "store_bench: %s\n", bcn_strerror(rc));
	return rc ? 1 : 0;
}
