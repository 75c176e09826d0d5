/* beacon job ID [--config FILE] [--json] [--KEY VALUE ...]: the per-job I/O
 * report (docs/report.md), computed from the record store and the job
 * database, as text with sparklines or as one JSON object. The
 * configuration file's store_*, jobdb_*, report_*, advice_* and cache_*
 * keys apply (one file for every beacon command). */
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/cache.h"
#include "analysis/report.h"
#include "analysis/stores.h"
#include "cli/commands.h"
#include "analysis/anomaly/jobcheck.h"
#include "cli/options.h"
#include "common/error.h"
#include "jobdb/jobdb.h"
#include "store/store.h"
#include "store/store_config.h"

#define JOB_ERR_MAX 512
#define JOB_OUT_MAX (64u << 20)

struct job_conf {
	struct bcn_store_settings store;
	struct bcn_stores_config stores;
	struct bcn_jobdb_config db;
	struct bcn_report_config rc;
	struct bcn_cache_config cache;
	struct bcn_detect_config det;
	struct bcn_jobcheck_config jc;
	bool json, fresh;
};

#define M(m) BCN_CFG_MEMBER(struct job_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_STORE_CONFIG_OPTIONS(struct job_conf, store),
	BCN_STORES_CONFIG_OPTIONS(struct job_conf, stores),
	BCN_JOBDB_CONFIG_OPTIONS(struct job_conf, db),
	BCN_REPORT_CONFIG_OPTIONS(struct job_conf, rc),
	BCN_ADVICE_CONFIG_OPTIONS(struct job_conf, rc.advice),
	BCN_CACHE_CONFIG_OPTIONS(struct job_conf, cache),
	BCN_DETECT_CONFIG_OPTIONS(struct job_conf, det),
	BCN_JOBCHECK_CONFIG_OPTIONS(struct job_conf, jc),
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "Print the report as one JSON object." },
	{ "fresh", BCN_CFG_BOOL, M(fresh), .def = "no",
	  .help = "Compute the report anew even when the cache holds it." },
	{ .name = NULL }
};
#undef M

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The generation of job id's window in the cache (read before the
 * report is computed, docs/report.md). Returns 0 or a negative code. */
static int job_gen(struct job_conf *c, uint64_t id, struct bcn_cache *cache,
		   uint64_t *gen)
{
	struct bcn_jobdb *db = NULL;
	char err[JOB_ERR_MAX];
	int64_t from, to;
	int rc = bcn_jobdb_open(&c->db, &db, err, sizeof(err));

	if (!rc)
		rc = bcn_report_window(db, id, now_ns(), &c->rc, &from, &to);
	if (db)
		bcn_jobdb_close(db);
	return rc ? rc : bcn_cache_generation(cache, from, to, gen);
}

/* Computes the report, stores its JSON in the cache (if any) with the
 * generation gen. */
static int compute(struct job_conf *c, uint64_t id, struct bcn_cache *cache,
		   uint64_t gen, struct bcn_report **rep, char *err, size_t n)
{
	struct bcn_stores st = { .n = 0 };
	struct bcn_jobcheck_result jr;
	struct bcn_jobdb *db = NULL;
	struct bcn_buf js;
	int rc;

	bcn_buf_init(&js, JOB_OUT_MAX);
	c->store.cfg.existing = true;
	rc = bcn_jobdb_open(&c->db, &db, err, n);
	if (!rc)
		rc = bcn_stores_open(&c->store.cfg, &c->stores, &st, err, n);
	if (rc)
		goto out;
	rc = bcn_report_compute(&st, db, id, now_ns(), &c->rc, rep);
	if (rc == -ENOENT) {
		snprintf(err, n, "no job %" PRIu64 " in the job database "
			 "(beacon import-jobs)", id);
		goto out;
	}
	if (rc) {
		snprintf(err, n, "job %" PRIu64 ": %s", id, bcn_strerror(rc));
		goto out;
	}
	/* the history verdict, as beacon-analyzd gives it (nothing stored) */
	if ((*rep)->end &&
	    (rc = bcn_jobcheck_run(&c->jc, &c->det, &st, db, *rep, false,
				   now_ns(), &jr))) {
		snprintf(err, n, "job %" PRIu64 ": checking its history: %s", id,
			 rc == -EIO ? bcn_jobdb_error(db) : bcn_strerror(rc));
		goto out;
	}
	if (cache && !bcn_report_to_json(*rep, true, &js))
		(void)bcn_cache_put(cache, id, gen, (const char *)js.data,
				    js.len);
out:
	bcn_buf_free(&js);
	bcn_stores_close(&st);
	if (db)
		bcn_jobdb_close(db);
	return rc;
}

static int show(struct job_conf *c, uint64_t id)
{
	struct bcn_cache *cache = NULL;
	struct bcn_report *rep = NULL;
	char err[JOB_ERR_MAX];
	struct bcn_buf out;
	uint64_t gen = 0;
	int rc;

	bcn_buf_init(&out, JOB_OUT_MAX);
	if (c->cache.host[0] && bcn_cache_open(&c->cache, &cache, err,
					       sizeof(err)))
		fprintf(stderr, "beacon job: %s (going on without it)\n", err);
	if (cache && job_gen(c, id, cache, &gen)) {
		bcn_cache_close(cache);         /* not cached, not stored */
		cache = NULL;
	}
	if (cache && c->json && !c->fresh &&
	    bcn_cache_get(cache, id, gen, &out) == 1) {
		rc = 0;
		goto print;
	}
	rc = compute(c, id, cache, gen, &rep, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon job: %s\n", err);
		goto out;
	}
	setlocale(LC_CTYPE, "");
	rc = c->json ? bcn_report_to_json(rep, false, &out) :
	     bcn_report_to_text(rep, false, isatty(1) &&
				!strcmp(nl_langinfo(CODESET), "UTF-8"), &out);
print:
	if (!rc && c->json)
		rc = bcn_buf_adds(&out, "\n");
	if (!rc && fwrite(out.data, 1, out.len, stdout) != out.len)
		rc = -EIO;
	if (rc)
		fprintf(stderr, "beacon job: %s\n", bcn_strerror(rc));
out:
	bcn_report_free(rep);
	bcn_cache_close(cache);
	bcn_buf_free(&out);
	return rc ? 1 : 0;
}

int bcn_cmd_job(int argc, char **argv)
{
	static struct job_conf c;
	char err[JOB_ERR_MAX], *end;
	const char *ids = NULL;
	int rc, argi;
	uint64_t id;

	memset(&c, 0, sizeof(c));
	if (argc > 1 && argv[1][0] != '-') {     /* beacon job ID --opts */
		ids = argv[1];
		argv++;
		argc--;
	}
	rc = bcn_cli_configure(tab, &c, "store_,analysis_,jobdb_,report_,advice_,cache_,anomaly_",
			       argc, argv, &argi, err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		printf("usage: beacon job ID [--config FILE] [--json] [--fresh]\n"
		       "Prints the I/O report of one job.\n\n");
		bcn_config_help(tab, stdout);
		return 0;
	}
	if (!rc && !ids && argi < argc)
		ids = argv[argi++];
	if (!rc && argi < argc)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unexpected "
			      "argument '%s'", argv[argi]);
	if (!rc && !ids)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "which job? "
			      "(beacon job ID)");
	if (!rc) {
		errno = 0;
		id = strtoull(ids, &end, 10);
		if (errno || *end || end == ids || !id)
			rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX,
				      "bad job id '%s'", ids);
	}
	if (!rc)
		rc = bcn_store_settings_apply(&c.store, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon job: %s\n", err);
		return 2;
	}
	return show(&c, id);
}
