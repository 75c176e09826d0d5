/* interference (detect_int.h, docs/anomaly.md): a congested forwarding
 * node, not slow itself, with an interference-prone job behind it that
 * was active through the congestion while another job behind the node
 * moved far less than it moves without it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/detect_int.h"
#include "common/error.h"

/* ---- interference ---- */

static int flag_queue(const struct round *r, const double *row, size_t b,
		      double *value)
{
	double busy = bcn_grid_at(&r->fwd, row, b, F_RWREQ) + bcn_grid_at(&r->fwd, row, b, F_META);

	*value = bcn_grid_at(&r->fwd, row, b, F_QUEUE);
	return *value >= (double)r->c->queue_high ? BCN_RUN_FLAGGED :
	       busy > 0 ? BCN_RUN_NORMAL : BCN_RUN_IDLE;
}

/* What makes a job behind a congested forwarding node a likely
 * aggressor (the paper's interference-prone features), into ev. */
static bool prone(struct round *r, uint64_t job, double share,
		  char *ev, size_t evlen)
{
	struct bcn_jobdb_summary m;
	bool n1 = false, md = false, iops = false, bw;

	memset(&m, 0, sizeof(m));
	if (bcn_jobdb_get_summary(r->db, job, &m) == 1) {
		n1 = !strcmp(m.mode, "N-1");
		md = m.meta_rate_io >= (double)r->c->prone_meta_rate;
		iops = m.iops >= (double)r->c->prone_iops;
	}
	bw = share * 100 >= (double)r->c->prone_share_pct;
	snprintf(ev, evlen, "{\"job\":%" PRIu64 ",\"share\":%.3f,\"mode\":\"%s\","
		 "\"meta_rate_io\":%.1f,\"iops\":%.1f}", job, share, m.mode,
		 m.meta_rate_io, m.iops);
	return md || (bw && (n1 || iops));
}

/* Whether job moved bytes (or asked metadata operations) in bucket b. */
static bool active(const struct round *r, uint64_t job, size_t b)
{
	return bcn_detect_job_sum(r, job, J_OST_BYTES, b, b) > 0 ||
	       bcn_detect_job_sum(r, job, J_MD_OPS, b, b) > 0;
}

/* What job did to the others behind the congested node in the run. */
struct harm {
	size_t busy;                    /* congested buckets job was active in */
	uint64_t victim;                /* a job slowed, or 0 */
	double with, without;           /* the others' bytes through the node
					 * per bucket while job was active in
					 * the congestion, and while it was
					 * not */
};

/* Whether a job of jobs[0..n) other than job moved bytes in bucket b;
 * *who gets the first. */
static bool others_active(const struct round *r, uint64_t job,
			  const uint64_t *jobs, size_t n, size_t b,
			  uint64_t *who)
{
	for (size_t k = 0; k < n; k++)
		if (jobs[k] != job &&
		    bcn_detect_job_sum(r, jobs[k], J_OST_BYTES, b, b) > 0) {
			*who = jobs[k];
			return true;
		}
	return false;
}

/* How long job was active in the run's congestion, and what the others
 * behind the node got through it: their bytes per bucket (the node's
 * bytes less job's part of them, frac of its bytes being its nodes
 * behind the node) in the congested buckets of the run with job active,
 * and in the window's buckets without job, both while another job moved
 * bytes. Returns the others' slowdown, without / with (0 when either is
 * missing): the evidence that job, not the node's load in general, hurt
 * its neighbours (a node every checkpoint saturates is congested with or
 * without it). */
static double harm_of(const struct round *r, size_t i, const struct bcn_run *run,
		      uint64_t job, double frac, const uint64_t *jobs,
		      size_t n, struct harm *h)
{
	const double *row = bcn_grid_row(&r->fwd, i);
	double bw = 0, bo = 0;
	size_t nw = 0, no = 0;

	memset(h, 0, sizeof(*h));
	for (size_t b = 0; b < r->fwd.nb; b++) {
		double mine = bcn_detect_job_sum(r, job, J_OST_BYTES, b, b) * frac;
		double node = bcn_grid_at(&r->fwd, row, b, F_RD) +
			      bcn_grid_at(&r->fwd, row, b, F_WR);
		bool on = active(r, job, b), in = b >= run->first && b <= run->last;
		bool cong = bcn_grid_at(&r->fwd, row, b, F_QUEUE) >=
			    (double)r->c->queue_high;
		uint64_t who = 0;

		h->busy += in && on && cong;
		if (!others_active(r, job, jobs, n, b, &who))
			continue;
		if (!on) {
			bo += node;
			no++;
		} else if (in && cong) {
			bw += fmax(node - mine, 0);
			nw++;
			h->victim = h->victim ? h->victim : who;
		}
	}
	h->with = nw ? bw / (double)nw : 0;
	h->without = no ? bo / (double)no : 0;
	return nw && no && h->with > 0 ? h->without / h->with :
	       nw && no && h->without > 0 ? 1e9 : 0;
}

/* Whether the node's own slowness (a slow_fwd run of this round) covers
 * part of the run. */
static bool explained_by_slow(const struct round *r, size_t i,
			      const struct bcn_run *run)
{
	for (size_t b = run->first; r->slow_fwd && b <= run->last; b++)
		if (r->slow_fwd[i * r->fwd.nb + b])
			return true;
	return false;
}

/* Judges job k behind a congested node: prone (its features), active
 * in queue_min_duration of the congestion, and the others behind the
 * node moving interference_pct as much through it per bucket without it
 * as with it (harm_of). Appends its evidence to ev. */
static bool accuse(struct round *r, size_t i, const struct bcn_run *run,
		   const uint64_t *jobs, size_t n, size_t k, double share,
		   double frac, double *ratio, char *ev, size_t evlen)
{
	struct harm h;
	bool p;
	size_t len;

	p = prone(r, jobs[k], fmin(share, 1), ev, evlen);
	*ratio = harm_of(r, i, run, jobs[k], frac, jobs, n, &h);
	len = strlen(ev);
	if (len > 1 && len < evlen)
		snprintf(ev + len - 1, evlen - len + 1, ",\"congested_s\":%.0f,"
			 "\"victim\":%" PRIu64 ",\"others_slowdown\":%.2f,"
			 "\"others_bytes_per_s_with\":%.0f,"
			 "\"others_bytes_per_s_without\":%.0f}",
			 (double)h.busy * r->secs, h.victim, fmin(*ratio, 1e6),
			 h.with / r->secs, h.without / r->secs);
	return p && h.busy >= bcn_detect_buckets(r, r->c->queue_min_ms) &&
	       *ratio * 100 >= (double)r->c->interference_pct;
}

static int interference_run(struct round *r, size_t i, const struct bcn_run *run,
			    struct bcn_anomaly *a)
{
	const char *fwd = bcn_grid_name(&r->fwd, i);
	const double *row = bcn_grid_row(&r->fwd, i);
	uint64_t jobs[BCN_ANOMALY_JOBS_MAX];
	uint32_t nodes[BCN_ANOMALY_JOBS_MAX];
	int64_t mid = r->fwd.from + (int64_t)((run->first + run->last) / 2) *
		      r->fwd.bucket;
	size_t n, len, accused = 0;
	double bytes = 0, qmax = 0, worst = 0;
	char ev[384];

	if (explained_by_slow(r, i, run))
		return 0;
	n = bcn_detect_jobs_behind(r->db, fwd, mid, jobs, nodes,
				   BCN_ANOMALY_JOBS_MAX);
	for (size_t b = run->first; b <= run->last; b++) {
		bytes += bcn_grid_at(&r->fwd, row, b, F_RD) + bcn_grid_at(&r->fwd, row, b, F_WR);
		qmax = fmax(qmax, bcn_grid_at(&r->fwd, row, b, F_QUEUE));
	}
	bcn_anomaly_init(a, "interference", fwd, "warning", qmax /
		     (double)r->c->queue_high);
	len = (size_t)snprintf(a->evidence, sizeof(a->evidence), "{\"queue_p95\""
			       ":%.0f,\"limit\":%" PRIu64 ",\"fwd_bytes\":%.0f,"
			       "\"limit_pct\":%" PRIu64 ",\"aggressors\":[",
			       qmax, r->c->queue_high, bytes,
			       r->c->interference_pct);
	for (size_t k = 0; k < n; k++) {
		struct bcn_job j;
		double share = 0, ratio = 0, frac = 1;

		if (bcn_jobdb_get_job(r->db, jobs[k], &j) == 1 && j.nnodes)
			frac = fmin((double)nodes[k] / (double)j.nnodes, 1);
		if (bytes > 0)
			share = bcn_detect_job_sum(r, jobs[k], J_OST_BYTES, run->first,
						   run->last) * frac / bytes;
		a->jobs[a->njobs].job = jobs[k];
		a->jobs[a->njobs].role = BCN_ANOMALY_AFFECTED;
		if (accuse(r, i, run, jobs, n, k, share, frac, &ratio, ev,
			   sizeof(ev))) {
			a->jobs[a->njobs].role = BCN_ANOMALY_ACCUSED;
			if (len + strlen(ev) + 4 < sizeof(a->evidence))
				len += (size_t)snprintf(a->evidence + len,
							sizeof(a->evidence) - len,
							"%s%s", accused ? "," : "", ev);
			accused++;
			worst = fmax(worst, ratio);
		}
		a->njobs++;
	}
	snprintf(a->evidence + len, sizeof(a->evidence) - len, "]}");
	if (!accused || a->njobs <= accused)
		return 0;               /* no aggressor, or nobody to suffer */
	a->score = fmin(worst, 1e6);
	if (qmax >= 2 * (double)r->c->queue_high &&
	    worst * 100 >= 2 * (double)r->c->interference_pct)
		snprintf(a->severity, sizeof(a->severity), "critical");
	return bcn_detect_emit(r, a, &r->fwd, run);
}

/* interference: a forwarding node congested (queue at or above
 * queue_high) for queue_min_duration, not slow itself, with a job behind
 * it showing interference-prone features that slowed another job behind
 * it (accuse()). */
int bcn_detect_rule_interference(struct round *r)
{
	struct bcn_anomaly *a = malloc(sizeof(*a));
	struct bcn_run runs[RUNS_MAX];
	int rc = 0;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; !rc && r->db && i < r->fwd.nrows; i++) {
		const double *row = bcn_grid_row(&r->fwd, i);
		double v;
		size_t n;

		for (size_t b = 0; b < r->fwd.nb; b++)
			r->state[b] = (uint8_t)flag_queue(r, row, b, &v);
		n = bcn_grid_runs(r->state, r->fwd.nb, bcn_detect_buckets(r, r->c->gap_ms),
				  bcn_detect_buckets(r, r->c->queue_min_ms), 2, runs,
				  RUNS_MAX);
		for (size_t k = 0; !rc && k < n; k++)
			rc = interference_run(r, i, &runs[k], a);
	}
	free(a);
	return rc;
}

