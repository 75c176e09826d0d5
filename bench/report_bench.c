/* Time to a per-job report (docs/report.md), uncached and cached, for jobs
 * of several sizes with one hour of I/O each, on the store a configuration
 * file describes (SQLite or OpenSearch). For each size N: a job of N
 * nodes is written into the store (every node one io record every STEP
 * seconds, N-N, 1 MiB writes; its forwarding nodes, one per 256 nodes,
 * with their request windows every second; 64 OSTs with their own totals
 * and the job's parts every 10 s), the job and the forwarding map into
 * the job database; then the report is computed REPS times (uncached) and
 * fetched from the Redis cache 200 times. One JSON object per size, with
 * the paper's and this targets beside the figures.
 *
 * usage: report_bench CONFIG NODES:STEP[,NODES:STEP...] [REPS]
 * BCN_BENCH_STORE_SCHEMA=2 writes the sqlite store with one row per
 * record (schema 2) instead of blocks, for a before/after comparison.
 * CONFIG holds store_*, jobdb_* and cache_* keys (cache_host required). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/cache.h"
#include "analysis/report.h"
#include "analysis/stores.h"
#include "common/config.h"
#include "common/error.h"
#include "jobdb/jobdb.h"
#include "store/store.h"
#include "node_seq.h"
#include "store/store_config.h"

#define NS 1000000000ll
#define HOUR 3600
#define OSTS 64
#define BATCH 8192

struct conf {
	struct bcn_store_settings store;
	struct bcn_jobdb_config db;
	struct bcn_cache_config cache;
};

#define M(m) BCN_CFG_MEMBER(struct conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_STORE_CONFIG_OPTIONS(struct conf, store),
	BCN_JOBDB_CONFIG_OPTIONS(struct conf, db),
	BCN_CACHE_CONFIG_OPTIONS(struct conf, cache),
	{ .name = NULL }
};
#undef M

static char ost_names[OSTS][24];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct filler {
	struct bcn_store *st;
	struct bcn_record recs[BATCH];
	struct bcn_store_item items[BATCH];
	char names[BATCH][48];
	char jobid[24];
	size_t n;
	uint64_t total, seq_base;        /* job << 32: jobs never share */
	struct node_seq seqs;           /* per sending node */
	int err;
};

static void flush(struct filler *f)
{
	if (f->n && !f->err)
		f->err = bcn_store_append(f->st, f->items, f->n);
	f->total += f->n;
	f->n = 0;
}

static struct bcn_record *next(struct filler *f, int type, const char *node)
{
	struct bcn_record *r;

	if (f->n == BATCH)
		flush(f);
	r = &f->recs[f->n];
	bcn_record_init(r, type);
	snprintf(f->names[f->n], sizeof(f->names[0]), "%s", node);
	r->node = f->names[f->n];
	f->items[f->n] = (struct bcn_store_item){ r,
		f->seq_base + node_seq_next(&f->seqs, f->names[f->n]), 0, 1 };
	f->n++;
	return r;
}

static void fill_second(struct filler *f, uint64_t job, uint64_t nodes,
			int64_t t, int s, int step)
{
	char node[48];

	if (s % step == 0)
		for (uint64_t i = 0; i < nodes; i++) {
			struct bcn_record *r;

			snprintf(node, sizeof(node), "b%" PRIu64 "n%06" PRIu64,
				 job, i);
			r = next(f, BCN_REC_IO, node);
			r->t = t;
			r->dur = (int64_t)step * NS - 1000;
			r->job = job;
			r->u.io.op = BCN_IO_WRITE;
			r->u.io.pid = 1000;
			r->u.io.file = job * 1000000 + i;
			r->u.io.size = 1 << 20;
			r->u.io.count = (uint64_t)step * 8;
			r->u.io.offset = (uint64_t)s * 8 << 20;
			r->u.io.stride = 1 << 20;
		}
	for (uint64_t k = 0; k < (nodes + 255) / 256; k++)
		for (int c = BCN_FWD_ALL; c <= BCN_FWD_WRITE; c++) {
			struct bcn_record *r;

			snprintf(node, sizeof(node), "b%" PRIu64 "f%03" PRIu64,
				 job, k);
			r = next(f, BCN_REC_FWD_REQ, node);
			r->t = t;
			r->dur = NS;
			r->u.fwd_req.cls = (uint64_t)c;
			r->u.fwd_req.count = 2048;
			r->u.fwd_req.bytes = c == BCN_FWD_ALL ? 0 : 2048ull << 20;
		}
	if (s % 10)
		return;
	for (int o = 0; o < OSTS; o++)
		for (int part = 0; part < 2; part++) {
			struct bcn_record *r;

			snprintf(node, sizeof(node), "oss%02d", o / 8);
			r = next(f, BCN_REC_OST, node);
			r->t = t;
			r->dur = 10 * NS;
			r->u.ost.target = ost_names[o];
			r->job = part ? job : 0;
			r->u.ost.jobid = part ? f->jobid : "";
			r->u.ost.write_bytes = (nodes * (part ? 80ull : 100ull)
						<< 20) / OSTS;
		}
}

/* One hour of a job of `nodes` nodes, starting at t0. */
static int fill(struct bcn_store *st, uint64_t job, uint64_t nodes, int step,
		int64_t t0, uint64_t *records, double *secs)
{
	struct filler *f = calloc(1, sizeof(*f));
	double a = now_s();
	int rc;

	if (!f)
		return -ENOMEM;
	f->st = st;
	f->seq_base = job << 32;
	if (node_seq_init(&f->seqs)) {
		node_seq_free(&f->seqs);
		free(f);
		return -ENOMEM;
	}
	snprintf(f->jobid, sizeof(f->jobid), "%" PRIu64, job);
	for (int s = 0; s < HOUR && !f->err; s++)
		fill_second(f, job, nodes, t0 + (int64_t)s * NS, s, step);
	flush(f);
	if (!f->err)            /* the store's final layout, as after a
				 * log server's stop */
		f->err = bcn_store_flush(st);
	*records = f->total;
	*secs = now_s() - a;
	rc = f->err;
	node_seq_free(&f->seqs);
	free(f);
	return rc;
}

static int add_job(struct bcn_jobdb *db, uint64_t job, uint64_t nodes,
		   int64_t t0)
{
	char list[80], fwd[48], comp[80];
	struct bcn_job j;
	int rc;

	snprintf(list, sizeof(list), "b%" PRIu64 "n[000000-%06" PRIu64 "]",
		 job, nodes - 1);
	bcn_job_init(&j);
	j.id = job;
	j.user = "bench";
	j.name = "nn";
	j.nodelist = list;
	j.nnodes = nodes;
	j.submit = j.start = t0;
	j.end = t0 + (int64_t)HOUR * NS;
	j.state = BCN_JOB_COMPLETED;
	rc = bcn_jobdb_upsert_job(db, &j);
	for (uint64_t k = 0; rc >= 0 && k < (nodes + 255) / 256; k++) {
		uint64_t hi = (k + 1) * 256 < nodes ? (k + 1) * 256 : nodes;
		struct bcn_fwdmap_entry e = { comp, fwd, 0, INT64_MAX };

		snprintf(fwd, sizeof(fwd), "b%" PRIu64 "f%03" PRIu64, job, k);
		snprintf(comp, sizeof(comp), "b%" PRIu64 "n[%06" PRIu64 "-%06"
			 PRIu64 "]", job, k * 256, hi - 1);
		rc = bcn_jobdb_add_fwdmap(db, &e);
	}
	return rc < 0 ? rc : 0;
}

/* A whole decimal number in [lo, hi] from s (up to the end or a ':' or
 * ','), or -1. */
static long number(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || (*end && *end != ':' && *end != ',') ||
	    v < lo || v > hi)
		return -1;
	return v;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	qsort(v, n, sizeof(*v), cmp_d);
	return v[i < n ? i : n - 1];
}

static int bench_size(struct conf *c, struct bcn_stores *ss,
		      struct bcn_jobdb *db, struct bcn_cache *cache,
		      uint64_t nodes, int step, int reps)
{
	int64_t t0 = ((int64_t)time(NULL) - 2 * 86400) / 3600 * 3600 * NS;
	struct bcn_report_config rc;
	double fill_s, unc[64], hit[200];
	struct bcn_report *r = NULL;
	uint64_t job = 900000 + nodes, records;
	struct bcn_buf js;
	int64_t wfrom = 0, wto = 0;
	uint64_t gen = 0;
	int err;

	bcn_report_config_defaults(&rc);
	bcn_buf_init(&js, 256u << 20);
	if ((err = fill(ss->s[0], job, nodes, step, t0, &records, &fill_s)) ||
	    (err = add_job(db, job, nodes, t0)))
		goto out;
	for (int i = 0; i < reps; i++) {
		double a = now_s();

		bcn_report_free(r);
		if ((err = bcn_report_compute(ss, db, job, t0 + 2 * HOUR * NS,
					      &rc, &r)))
			goto out;
		unc[i] = now_s() - a;
	}
	if ((err = bcn_report_to_json(r, true, &js)) ||
	    (err = bcn_report_window(db, job, t0 + 2 * HOUR * NS, &rc, &wfrom,
				     &wto)) ||
	    (err = bcn_cache_generation(cache, wfrom, wto, &gen)) ||
	    (err = bcn_cache_put(cache, job, gen, (const char *)js.data,
				 js.len)))
		goto out;
	for (int i = 0; i < 200; i++) {
		struct bcn_buf got;
		double a = now_s();

		bcn_buf_init(&got, 256u << 20);
		/* a hit: the window's generation, then the entry */
		err = bcn_cache_generation(cache, wfrom, wto, &gen);
		if (!err)
			err = bcn_cache_get(cache, job, gen, &got) == 1 ? 0 :
			      -EIO;
		hit[i] = now_s() - a;
		bcn_buf_free(&got);
		if (err)
			goto out;
	}
	printf("{\"bench\":\"report\",\"store\":\"%s\",\"nodes\":%" PRIu64
	       ",\"record_every_s\":%d,\"records\":%" PRIu64 ",\"fill_records_per_s\":%.0f,"
	       "\"write_bytes\":%" PRIu64 ",\"report_json_bytes\":%zu,"
	       "\"uncached_reps\":%d,\"uncached_p50_ms\":%.1f,\"uncached_p95_ms\":%.1f,"
	       "\"cached_p50_ms\":%.3f,\"cached_p99_ms\":%.3f,"
	       "\"target_uncached_p95_ms_at_1024\":1000,\"target_cached_p99_ms\":100,"
	       "\"paper_most_queries_s\":1}\n",
	       c->store.cfg.backend == BCN_STORE_SQLITE ? "sqlite" : "opensearch",
	       nodes, step, records, (double)records / fill_s, r->write_bytes,
	       js.len, reps, pct(unc, (size_t)reps, 0.5) * 1e3,
	       pct(unc, (size_t)reps, 0.95) * 1e3, pct(hit, 200, 0.5) * 1e3,
	       pct(hit, 200, 0.99) * 1e3);
	fflush(stdout);
out:
	bcn_report_free(r);
	bcn_buf_free(&js);
	return err;
}

int main(int argc, char **argv)
{
	static struct conf c;
	struct bcn_stores ss = { .n = 0 };
	struct bcn_jobdb *db = NULL;
	struct bcn_cache *cache = NULL;
	char err[512], *sizes, *tok, *save;
	int reps = argc > 3 ? (int)number(argv[3], 1, 64) : 5, rc;

	if (argc < 3 || reps < 1) {
		fprintf(stderr, "usage: report_bench CONFIG NODES:STEP[,...] [REPS]\n");
		return 2;
	}
	rc = bcn_config_defaults(tab, &c, err, sizeof(err));
	if (!rc)
		rc = bcn_config_load_prefix(tab, &c, argv[1], "store_,jobdb_,cache_",
					    err, sizeof(err));
	if (!rc)
		rc = bcn_store_settings_apply(&c.store, err, sizeof(err));
	/* BCN_BENCH_STORE_SCHEMA=2: new sqlite days with one row per record,
	 * the layout before issue 19, to compare on the same machine */
	if (!rc && getenv("BCN_BENCH_STORE_SCHEMA"))
		c.store.cfg.schema = strcmp(getenv("BCN_BENCH_STORE_SCHEMA"),
					    "2") ? 0 : 2;
	if (!rc)
		rc = bcn_jobdb_open(&c.db, &db, err, sizeof(err));
	if (!rc)
		rc = bcn_stores_open(&c.store.cfg, NULL, &ss, err, sizeof(err));
	if (!rc)
		rc = bcn_cache_open(&c.cache, &cache, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "report_bench: %s\n", err);
		return 1;
	}
	for (int o = 0; o < OSTS; o++)
		snprintf(ost_names[o], sizeof(ost_names[o]), "bench-OST%04x", o);
	sizes = strdup(argv[2]);
	for (tok = strtok_r(sizes, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		long nodes = number(tok, 1, 1l << 24);
		const char *colon = strchr(tok, ':');
		long step = colon ? number(colon + 1, 1, HOUR) : 1;

		rc = nodes > 0 && step > 0 ? bench_size(&c, &ss, db, cache,
						    (uint64_t)nodes, (int)step,
						    nodes > 4096 ? 1 : reps) :
		     -EINVAL;
		if (rc)
			fprintf(stderr, "report_bench: %s: %s\n", tok,
				rc == -EIO ? bcn_jobdb_error(db) : bcn_strerror(rc));
	}
	free(sizes);
	bcn_cache_close(cache);
	bcn_stores_close(&ss);
	bcn_jobdb_close(db);
	return rc ? 1 : 0;
}
