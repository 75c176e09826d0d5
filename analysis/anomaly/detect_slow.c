/* slow_ost and slow_fwd (detect_int.h, docs/anomaly.md): the paper's
 * long-running rule confirmed by the jobs an OST served or a forwarding
 * node's service time, and the service-time rules that compare a
 * component's time per request with its peers at least as loaded. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/detect_int.h"
#include "analysis/anomaly/median.h"
#include "common/error.h"

#define SVC_PEERS 3                     /* peers a queued time is held to */
#define SVC_BAND 2.0                    /* ... loaded at most this times more */
#define SVC_UTIL_MAX 0.8                /* near the busiest load seen, a time
					 * is not held to less loaded peers' */

/* ---- the rules ---- */

static double bw_of(const struct round *r, const double *row, size_t b,
		    bool fwd)
{
	double bytes = fwd ? bcn_grid_at(&r->fwd, row, b, F_RD) +
			     bcn_grid_at(&r->fwd, row, b, F_WR) :
			     bcn_grid_at(&r->ost, row, b, O_BYTES);

	return bytes / r->secs;
}

/* The known peak of each row of g into ref: the configured one, or the
 * largest bandwidth of the row or of the median row, whichever is
 * larger. */
static int known_peaks(const struct round *r, const struct bcn_grid *g,
		       bool fwd, double cfg_peak, double *ref)
{
	double *peaks = calloc(g->nrows ? g->nrows : 1, sizeof(*peaks)), med;

	if (!peaks)
		return -ENOMEM;
	for (size_t i = 0; i < g->nrows; i++) {
		for (size_t b = 0; b < g->nb; b++) {
			double bw = bw_of(r, bcn_grid_row(g, i), b, fwd);

			if (bw > ref[i])
				ref[i] = bw;
		}
		peaks[i] = ref[i];
	}
	med = bcn_median(peaks, g->nrows);
	for (size_t i = 0; i < g->nrows; i++)
		ref[i] = cfg_peak > 0 ? cfg_peak : fmax(ref[i], med);
	free(peaks);
	return 0;
}


/* What a job moved per OST over a window, for the job-relative rate. */
struct jrel {
	struct bcn_tally pairs;         /* "job/target": v[0] bytes */
	struct bcn_tally jobs;          /* "job": v[0] bytes, v[1] OSTs */
	int fail;
};

static int jrel_take(void *arg, const struct bcn_record *x)
{
	struct jrel *j = arg;
	struct bcn_tally_entry *p, *e;
	struct bcn_record_totals t;
	char key[BCN_ENTITY_MAX + 24];
	bool fresh;
	int rc;

	if (x->type != BCN_REC_OST || !x->job ||
	    bcn_store_record_part(x) != BCN_STORE_PART_JOB)
		return 0;
	bcn_record_totals(x, &t);
	snprintf(key, sizeof(key), "%" PRIu64 "/%s", x->job, x->u.ost.target);
	fresh = !bcn_tally_find(&j->pairs, key);
	if ((rc = bcn_tally_get(&j->pairs, key, &p)))
		return rc == -BCN_EFULL ? 0 : rc;
	p->v[0] += t.read_bytes + t.write_bytes;
	snprintf(key, sizeof(key), "%" PRIu64, x->job);
	if ((rc = bcn_tally_get(&j->jobs, key, &e)))
		return rc == -BCN_EFULL ? 0 : rc;
	e->v[0] += t.read_bytes + t.write_bytes;
	e->v[1] += fresh;
	return 0;
}

/* The job-relative rate of target over [from, to): what the jobs that
 * also used other OSTs moved on it, against what they moved on their
 * average OST (1: served like the others; a slow OST serves each job
 * less). *njobs gets how many such jobs there were. */
static int ost_job_ratio(struct round *r, const char *target, int64_t from,
			 int64_t to, double *ratio, size_t *njobs,
			 struct bcn_anomaly *a)
{
	struct bcn_store_query q = { .layer = BCN_LAYER_OST, .from = from,
				     .to = to, .part = BCN_STORE_PART_JOB };
	struct jrel j = { .fail = 0 };
	double num = 0, den = 0;
	char key[BCN_ENTITY_MAX + 24];
	int rc;

	bcn_tally_init(&j.pairs, r->c->max_components);
	bcn_tally_init(&j.jobs, r->c->max_components);
	*njobs = 0;
	rc = bcn_stores_scan(r->ss, &q, jrel_take, &j);
	for (size_t i = 0; !rc && i < j.jobs.n; i++) {
		struct bcn_tally_entry *e = &j.jobs.e[i], *p;

		snprintf(key, sizeof(key), "%s/%s", e->key, target);
		if (!(p = bcn_tally_find(&j.pairs, key)))
			continue;
		if (a->njobs < BCN_ANOMALY_JOBS_MAX) {
			a->jobs[a->njobs].job = strtoull(e->key, NULL, 10);
			a->jobs[a->njobs++].role = BCN_ANOMALY_AFFECTED;
		}
		if (e->v[1] < 2)
			continue;
		num += (double)p->v[0];
		den += (double)e->v[0] / (double)e->v[1];
		(*njobs)++;
	}
	*ratio = den > 0 ? num / den : 1;
	bcn_tally_free(&j.pairs);
	bcn_tally_free(&j.jobs);
	return rc;
}

/* The mean time per request of component i of g (fields f_time over
 * f_req: a forwarding node's service time, an OST's disk I/O time) over
 * buckets [b0, b1] against the median of its peers' over the same
 * buckets. */
static double service_ratio(const struct bcn_grid *g,
			    int f_time, int f_req, size_t i, size_t b0,
			    size_t b1, double *mine_t, double *peers_t)
{
	double *v = calloc(g->nrows ? g->nrows : 1, sizeof(*v)), mine = 0;
	size_t n = 0;

	for (size_t k = 0; k < g->nrows; k++) {
		double t = 0, req = 0;

		for (size_t b = b0; b <= b1; b++) {
			t += bcn_grid_at(g, bcn_grid_row(g, k), b, f_time);
			req += bcn_grid_at(g, bcn_grid_row(g, k), b, f_req);
		}
		if (req <= 0)
			continue;
		if (k == i)
			mine = t / req;
		else if (v)
			v[n++] = t / req;
	}
	*mine_t = mine;
	*peers_t = v ? bcn_median(v, n) : 0;
	free(v);
	return *peers_t > 0 ? mine / *peers_t : 0;
}

/* Confirms a slow run: an OST must serve the jobs that also use other
 * OSTs less than slow_job_pct of their average OST (and, with disk I/O
 * times, take ost_service_pct of its peers' median time per I/O over the
 * run), a forwarding node must take service_pct of its peers' service
 * time: a component that is merely lightly used is not slow. Writes the
 * evidence. */
static int confirm_slow(struct round *r, struct bcn_grid *g, size_t i,
			bool fwd, const struct bcn_run *run, double mx,
			const double *ref, struct bcn_anomaly *a, bool *yes)
{
	int64_t from = g->from + (int64_t)run->first * g->bucket;
	int64_t to = g->from + (int64_t)(run->last + 1) * g->bucket;
	size_t len, njobs = 0;
	double ratio = 1, mine = 0, peers = 0;
	int rc = 0;

	snprintf(a->evidence, sizeof(a->evidence), "{\"rule\":\"peak\","
		 "\"max_bw\":%.0f,\"known_peak\":%.0f,\"pct_of_peak\":%.1f,"
		 "\"limit_pct\":%" PRIu64 ",\"buckets_in_use\":%zu,", mx,
		 ref[i], 100 * mx / ref[i], r->c->slow_pct, run->flagged);
	len = strlen(a->evidence);
	if (fwd) {
		ratio = service_ratio(g, F_PROC, F_RWREQ, i, run->first,
				      run->last, &mine, &peers);
		*yes = ratio * 100 >= (double)r->c->service_pct;
		snprintf(a->evidence + len, sizeof(a->evidence) - len,
			 "\"service_us\":%.1f,\"peers_service_us\":%.1f}", mine,
			 peers);
	} else {
		rc = ost_job_ratio(r, bcn_grid_name(g, i), from, to, &ratio, &njobs,
				   a);
		*yes = njobs > 0 && ratio * 100 < (double)r->c->slow_job_pct;
		len += (size_t)snprintf(a->evidence + len, sizeof(a->evidence) -
					len, "\"job_relative_rate\":%.3f,"
					"\"jobs_compared\":%zu", ratio, njobs);
		/* with its disk I/O times (brw_stats), a slow OST is also
		 * slower per I/O than its peers over the run; a lightly used
		 * one is not */
		ratio = service_ratio(g, O_IOTIME, O_IOS, i, run->first,
				      run->last, &mine, &peers);
		if (peers > 0 && mine > 0) {
			*yes = *yes && ratio * 100 >= (double)r->c->ost_service_pct;
			snprintf(a->evidence + len, sizeof(a->evidence) - len,
				 ",\"service_ms\":%.1f,\"peers_service_ms\":%.1f",
				 mine, peers);
			len = strlen(a->evidence);
		}
		snprintf(a->evidence + len, sizeof(a->evidence) - len, "}");
	}
	return rc;
}

static int slow_row(struct round *r, struct bcn_grid *g, size_t i, bool fwd,
		    const double *ref, const uint32_t *busy)
{
	const double frac = (double)r->c->slow_pct / 100;
	const double *row = bcn_grid_row(g, i);
	struct bcn_run runs[RUNS_MAX];
	struct bcn_anomaly *a;
	size_t n;
	int rc = 0;

	for (size_t b = 0; b < g->nb; b++) {
		double bw = bw_of(r, row, b, fwd);
		bool me_busy = bw >= frac * ref[i];

		r->state[b] = bw <= 0 ? BCN_RUN_IDLE : me_busy ? BCN_RUN_NORMAL :
			      busy[b] > 0 ? BCN_RUN_FLAGGED : BCN_RUN_IDLE;
	}
	n = bcn_grid_runs(r->state, g->nb, g->nb, bcn_detect_buckets(r, r->c->slow_min_ms),
			  r->c->slow_min_buckets, runs, RUNS_MAX);
	if (!n)
		return 0;
	if (!(a = malloc(sizeof(*a))))
		return -ENOMEM;
	for (size_t k = 0; !rc && k < n; k++) {
		double mx = 0;
		bool yes = false;

		for (size_t b = runs[k].first; b <= runs[k].last; b++)
			mx = fmax(mx, bw_of(r, row, b, fwd));
		bcn_anomaly_init(a, fwd ? "slow_fwd" : "slow_ost", bcn_grid_name(g, i),
			     mx < frac * ref[i] / 2 ? "critical" : "warning",
			     ref[i] / fmax(mx, 1));
		if ((rc = confirm_slow(r, g, i, fwd, &runs[k], mx, ref, a, &yes)) ||
		    !yes)
			continue;
		if (fwd)
			bcn_detect_name_jobs(r, a, bcn_grid_name(g, i), &runs[k],
				  J_OST_BYTES, false);
		rc = bcn_detect_emit(r, a, g, &runs[k]);
	}
	free(a);
	return rc;
}

/* slow_ost, slow_fwd by the paper's rule: in use, under slow_pct of the
 * known peak for slow_min_duration while some peer was at or above it. */
int bcn_detect_rule_slow(struct round *r, struct bcn_grid *g, bool fwd)
{
	double *ref = calloc(g->nrows ? g->nrows : 1, sizeof(*ref));
	uint32_t *busy = calloc(g->nb, sizeof(*busy));
	const double frac = (double)r->c->slow_pct / 100;
	int rc = -ENOMEM;

	if (!ref || !busy)
		goto out;
	if ((rc = known_peaks(r, g, fwd, (double)(fwd ? r->c->fwd_peak :
						   r->c->ost_peak), ref)))
		goto out;
	for (size_t i = 0; i < g->nrows; i++)
		for (size_t b = 0; b < g->nb; b++)
			if (bw_of(r, bcn_grid_row(g, i), b, fwd) >= frac * ref[i])
				busy[b]++;
	for (size_t i = 0; !rc && i < g->nrows; i++)
		rc = slow_row(r, g, i, fwd, ref, busy);
out:
	free(ref);
	free(busy);
	return rc;
}

/* A service-time rule: the grid's time and request fields and its
 * thresholds. A component's time per request is compared, bucket by
 * bucket, with its peers':
 * - when the time includes the component's own queue (queued: an OST's
 *   disk I/O time), with the median of the (up to) three peers nearest
 *   to its load among those that carried at least its load and at most
 *   SVC_BAND times it: a healthy component's time grows with its load, so
 *   a peer as busy or a little busier is no faster unless this one is
 *   slow (and a saturated one far busier says nothing). The load is the
 *   one its requests met: the records' bandwidths weighted by their
 *   requests (f_req_bw), so that a burst that queued most of a bucket's
 *   requests counts as the load they met, not as its bucket's mean;
 * - else (a forwarding node's service time, queue excluded), with the
 *   median of every other component that served minreq requests. */
struct svc {
	const char *kind, *unit;
	struct bcn_grid *g;
	int f_time, f_req, f_req_bw;    /* f_req_bw < 0: not queued */
	double minreq, lim;
	int64_t min_ms;
	uint64_t pct;
};

/* Component i's time per request and the load its requests met in
 * bucket b: 0, or -1 below minreq requests. */
static int svc_at(const struct svc *x, size_t i, size_t b, double *t,
		  double *load)
{
	const double *row = bcn_grid_row(x->g, i);
	double req = bcn_grid_at(x->g, row, b, x->f_req);

	if (req < x->minreq || req <= 0)
		return -1;
	*t = bcn_grid_at(x->g, row, b, x->f_time) / req;
	*load = x->f_req_bw >= 0 ? bcn_grid_at(x->g, row, b, x->f_req_bw) / req : 0;
	return 0;
}

struct svc_pt {
	size_t i;
	double t, load;
};

static int by_load_desc(const void *a, const void *b)
{
	const struct svc_pt *x = a, *y = b;

	return x->load < y->load ? 1 : x->load > y->load ? -1 :
	       x->i < y->i ? -1 : x->i > y->i;
}

/* The median of the (up to) three values. */
static double median3(const double *v, size_t n)
{
	double a = v[0], b = v[1], c;

	if (n < 3)
		return (a + b) / 2;
	c = v[2];
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* Bucket b of a queued rule: the peers of p[k] (sorted by load going
 * down) are the ones just before it, up to SVC_BAND times its load. With
 * fewer than two of those, the ones just after it (less loaded): a
 * healthy component at utilisation u waits at most 1 / (1 - u) times as
 * long as a less loaded one, u its load over the busiest load seen
 * (peak; a lower bound of the capacity, so u errs high and the allowance
 * with it); from SVC_UTIL_MAX on (a component at or near saturation,
 * whose queue can take any length) it is not judged. */
static void refs_queued(const struct svc *x, const struct svc_pt *p,
			size_t n, size_t b, double peak, double *ref)
{
	for (size_t k = 0; k < n; k++) {
		double v[SVC_PEERS], u;
		size_t m = 0;

		for (size_t j = k; j-- > 0 && m < SVC_PEERS;)
			if (p[j].load <= SVC_BAND * p[k].load)
				v[m++] = p[j].t;
			else
				break;
		if (m >= 2) {
			ref[p[k].i * x->g->nb + b] = median3(v, m);
			continue;
		}
		for (m = 0; k + 1 + m < n && m < SVC_PEERS; m++)
			v[m] = p[k + 1 + m].t;
		u = peak > 0 ? p[k].load / peak : 1;
		if (m >= 2 && u < SVC_UTIL_MAX)
			ref[p[k].i * x->g->nb + b] = median3(v, m) / (1 - u);
	}
}

/* Bucket b of a rule without queue: the median of the others. */
static void refs_all(const struct svc *x, const struct svc_pt *p, size_t n,
		     size_t b, double *v, double *ref)
{
	for (size_t k = 0; n >= 3 && k < n; k++) {
		size_t m = 0;

		for (size_t j = 0; j < n; j++)
			if (j != k)
				v[m++] = p[j].t;
		ref[p[k].i * x->g->nb + b] = bcn_median(v, m);
	}
}

/* ref[i * nb + b]: the peers' time component i is held to in bucket b
 * (0: too few peers, or i idle). */
static void svc_refs(const struct svc *x, struct svc_pt *p, double *v,
		     double *ref)
{
	const struct bcn_grid *g = x->g;

	double peak = 0, t, load;

	for (size_t b = 0; b < g->nb; b++)
		for (size_t i = 0; i < g->nrows; i++)
			if (!svc_at(x, i, b, &t, &load) && load > peak)
				peak = load;
	for (size_t b = 0; b < g->nb; b++) {
		size_t n = 0;

		for (size_t i = 0; i < g->nrows; i++) {
			ref[i * g->nb + b] = 0;
			if (!svc_at(x, i, b, &p[n].t, &p[n].load))
				p[n++].i = i;
		}
		if (x->f_req_bw >= 0) {
			qsort(p, n, sizeof(*p), by_load_desc);
			refs_queued(x, p, n, b, peak, ref);
		} else {
			refs_all(x, p, n, b, v, ref);
		}
	}
}

static int svc_emit(struct round *r, const struct svc *x, size_t i,
		    const double *ref, const struct bcn_run *run,
		    struct bcn_anomaly *a)
{
	const double *row = bcn_grid_row(x->g, i);
	double mine = 0, peers = 0, req = 0;

	for (size_t b = run->first; b <= run->last; b++) {
		double q = bcn_grid_at(x->g, row, b, x->f_req);

		if (r->state[b] != BCN_RUN_FLAGGED)
			continue;
		mine += bcn_grid_at(x->g, row, b, x->f_time);
		req += q;
		peers += ref[i * x->g->nb + b] * q;
	}
	bcn_anomaly_init(a, x->kind, bcn_grid_name(x->g, i),
			 bcn_detect_severity(mine / peers, x->lim), mine / peers);
	snprintf(a->evidence, sizeof(a->evidence), "{\"rule\":\"service_time\","
		 "\"service_%s\":%.1f,\"peers_median_%s\":%.1f,\"slowdown\":"
		 "%.2f,\"limit_pct\":%" PRIu64 ",\"requests\":%.0f,"
		 "\"peers\":\"%s\"}", x->unit, mine / req, x->unit, peers / req,
		 mine / peers, x->pct, req, x->f_req_bw >= 0 ?
		 "nearest at least as loaded" : "all");
	if (x->g == &r->fwd)
		bcn_detect_name_jobs(r, a, bcn_grid_name(x->g, i), run, J_OST_BYTES, false);
	return bcn_detect_emit(r, a, x->g, run);
}

/* slow_fwd, slow_ost by service time: a component's mean time per
 * request (a forwarding node's reads and writes, an OST's disk I/Os) at
 * pct of its peers' (struct svc), or more, in
 * buckets that make min_ms in all, with no bucket in between in which it
 * was as fast as they were (idle ones in between do not count). */
static int rule_service(struct round *r, const struct svc *x)
{
	const struct bcn_grid *g = x->g;
	size_t cells = g->nrows * g->nb;
	struct svc_pt *p = calloc(g->nrows ? g->nrows : 1, sizeof(*p));
	double *v = calloc(g->nrows ? g->nrows : 1, sizeof(*v));
	double *ref = calloc(cells ? cells : 1, sizeof(*ref));
	struct bcn_run runs[RUNS_MAX];
	struct bcn_anomaly *a = malloc(sizeof(*a));
	int rc = -ENOMEM;

	if (!p || !v || !ref || !a)
		goto out;
	svc_refs(x, p, v, ref);
	rc = 0;
	for (size_t i = 0; !rc && i < g->nrows; i++) {
		size_t n;

		for (size_t b = 0; b < g->nb; b++) {
			double t, load, m = ref[i * g->nb + b];

			r->state[b] = m <= 0 || svc_at(x, i, b, &t, &load) ?
				      BCN_RUN_IDLE : t >= x->lim * m ?
				      BCN_RUN_FLAGGED : BCN_RUN_NORMAL;
		}
		/* idle buckets never end a run (a bursty workload leaves
		 * long gaps), a normal one does */
		n = bcn_grid_runs(r->state, g->nb, g->nb, 1,
				  bcn_detect_buckets(r, x->min_ms), runs, RUNS_MAX);
		for (size_t k = 0; !rc && k < n; k++)
			rc = svc_emit(r, x, i, ref, &runs[k], a);
	}
out:
	free(p);
	free(v);
	free(ref);
	free(a);
	return rc;
}

/* The service-time rules. */
int bcn_detect_rules_service(struct round *r)
{
	const struct bcn_detect_config *c = r->c;
	const struct svc sv[] = {
		{ "slow_fwd", "us", &r->fwd, F_PROC, F_RWREQ, -1,
		  (double)c->service_min_reqs, (double)c->service_pct / 100,
		  c->service_min_ms, c->service_pct },
		{ "slow_ost", "ms", &r->ost, O_IOTIME, O_IOS, O_IOS_BW,
		  (double)c->ost_service_min_ios, (double)c->ost_service_pct / 100,
		  c->ost_service_min_ms, c->ost_service_pct },
	};
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(sv) / sizeof(sv[0]); i++)
		rc = rule_service(r, &sv[i]);
	return rc;
}
