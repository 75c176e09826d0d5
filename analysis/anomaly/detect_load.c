/* Threshold rules over forwarding nodes and MDTs (detect_int.h,
 * docs/anomaly.md): cache thrashing and metadata storms, with the jobs
 * they name. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/detect_int.h"
#include "common/error.h"

struct trule {
	const char *kind;
	struct bcn_grid *g;
	int (*flag)(const struct round *r, const double *row, size_t b,
		    double *value);
	int64_t min_ms;
	double limit;                   /* for the evidence and severity */
	const char *value_name;
	int accuse;                     /* J_ field, or -1 */
	bool behind_fwd;                /* jobs are those behind the node */
	bool total;                     /* min_ms of flagged buckets in all
					 * (intermittent), not a span */
};

static int flag_thrash(const struct round *r, const double *row, size_t b,
		       double *value)
{
	double back = bcn_grid_at(&r->fwd, row, b, F_BACK_RD), front = bcn_grid_at(&r->fwd, row, b, F_RD);

	*value = front > 0 ? back / front : back > 0 ? INFINITY : 0;
	if (back / r->secs >= (double)r->c->thrash_min_bytes &&
	    back * 100 >= (double)r->c->thrash_pct * front)
		return BCN_RUN_FLAGGED;
	return back > 0 || front > 0 ? BCN_RUN_NORMAL : BCN_RUN_IDLE;
}

static int flag_fwd_storm(const struct round *r, const double *row, size_t b,
			  double *value)
{
	double m = bcn_grid_at(&r->fwd, row, b, F_META);

	*value = m / r->secs;
	return *value >= (double)r->c->storm_fwd_rate ? BCN_RUN_FLAGGED :
	       m > 0 ? BCN_RUN_NORMAL : BCN_RUN_IDLE;
}

static int flag_mdt_storm(const struct round *r, const double *row, size_t b,
			  double *value)
{
	double m = bcn_grid_at(&r->mds, row, b, M_OPS);

	*value = m / r->secs;
	return *value >= (double)r->c->storm_mdt_rate ? BCN_RUN_FLAGGED :
	       m > 0 ? BCN_RUN_NORMAL : BCN_RUN_IDLE;
}


/* The jobs with at least 30% of field f over the run, anywhere. */
static void name_top_jobs(struct round *r, struct bcn_anomaly *a, int f,
			  const struct bcn_run *run)
{
	double total = 0;

	for (size_t i = 0; i < r->jobs.nrows; i++)
		total += bcn_detect_job_sum(r, strtoull(bcn_grid_name(&r->jobs, i), NULL, 10),
				 f, run->first, run->last);
	for (size_t i = 0; i < r->jobs.nrows && a->njobs < 4; i++) {
		uint64_t id = strtoull(bcn_grid_name(&r->jobs, i), NULL, 10);

		if (total > 0 && bcn_detect_job_sum(r, id, f, run->first, run->last) >=
		    0.3 * total) {
			a->jobs[a->njobs].job = id;
			a->jobs[a->njobs++].role = BCN_ANOMALY_ACCUSED;
		}
	}
}

static int trule_row(struct round *r, const struct trule *t, size_t i,
		     struct bcn_anomaly *a)
{
	const double *row = bcn_grid_row(t->g, i);
	struct bcn_run runs[RUNS_MAX];
	double v;
	size_t n;
	int rc = 0;

	for (size_t b = 0; b < t->g->nb; b++)
		r->state[b] = (uint8_t)t->flag(r, row, b, &v);
	n = bcn_grid_runs(r->state, t->g->nb, bcn_detect_buckets(r, r->c->gap_ms),
			  t->total ? 1 : bcn_detect_buckets(r, t->min_ms),
			  t->total ? bcn_detect_buckets(r, t->min_ms) : 2, runs, RUNS_MAX);
	for (size_t k = 0; !rc && k < n; k++) {
		double mx = 0;

		for (size_t b = runs[k].first; b <= runs[k].last; b++) {
			t->flag(r, row, b, &v);
			if (isfinite(v))
				mx = fmax(mx, v);
		}
		bcn_anomaly_init(a, t->kind, bcn_grid_name(t->g, i),
			     bcn_detect_severity(mx, t->limit), mx / t->limit);
		snprintf(a->evidence, sizeof(a->evidence), "{\"%s\":%.2f,"
			 "\"limit\":%.2f,\"buckets\":%zu,\"bucket_s\":%.0f}",
			 t->value_name, mx, t->limit, runs[k].flagged, r->secs);
		if (t->behind_fwd)
			bcn_detect_name_jobs(r, a, bcn_grid_name(t->g, i), &runs[k],
				  t->accuse >= 0 ? t->accuse : J_OST_BYTES,
				  t->accuse >= 0);
		else if (t->accuse >= 0)
			name_top_jobs(r, a, t->accuse, &runs[k]);
		rc = bcn_detect_emit(r, a, t->g, &runs[k]);
	}
	return rc;
}

static int run_trule(struct round *r, const struct trule *t)
{
	struct bcn_anomaly *a = malloc(sizeof(*a));
	int rc = 0;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < t->g->nrows; i++)
		rc = trule_row(r, t, i, a);
	free(a);
	return rc;
}

int bcn_detect_rules_load(struct round *r)
{
	const struct bcn_detect_config *c = r->c;
	const struct trule t[] = {
		{ "cache_thrash", &r->fwd, flag_thrash, c->thrash_min_ms,
		  (double)c->thrash_pct / 100, "backend_read_ratio", -1, true,
		  true },
		{ "md_storm", &r->fwd, flag_fwd_storm, c->storm_min_ms,
		  (double)c->storm_fwd_rate, "meta_per_s", J_MD_OPS, true, false },
		{ "md_storm", &r->mds, flag_mdt_storm, c->storm_min_ms,
		  (double)c->storm_mdt_rate, "ops_per_s", J_MD_OPS, false, false },
	};
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(t) / sizeof(t[0]); i++)
		rc = run_trule(r, &t[i]);
	return rc;
}
