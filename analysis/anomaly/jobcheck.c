/* Job-level anomaly checks: history clustering, aggressors, stragglers
 * (jobcheck.h, docs/anomaly.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advice.h"
#include "analysis/anomaly/dbscan.h"
#include "analysis/anomaly/jobcheck.h"
#include "analysis/anomaly/median.h"

#define PHASES_PER_JOB 64               /* phases read of an earlier run */
#define MEMBERS_MAX 4096                /* forwarding nodes + OSTs of a job */
#define NEIGHBOURS_MAX 32

void bcn_jobcheck_config_defaults(struct bcn_jobcheck_config *c)
{
	c->history_min = 3;
	c->history_max = 50;
	c->eps_pct = 25;
	c->slowdown_pct = 150;
	c->straggler_nodes = 32;
	c->straggler_pct = 60;
}

/* The phases of the earlier runs, into a growing array. */
struct hist {
	struct bcn_jobdb_io_phase *p;
	uint32_t *job_of;               /* which earlier run, per phase */
	size_t n, jobs;
};

static int load_history(const struct bcn_jobcheck_config *c,
			struct bcn_jobdb *db, const struct bcn_report *r,
			struct hist *h)
{
	uint64_t *ids = calloc(c->history_max, sizeof(*ids));
	int n, rc = 0;

	if (!ids)
		return -ENOMEM;
	n = bcn_jobdb_history(db, r->name, r->nnodes, r->start, r->job, ids,
			      c->history_max);
	if (n < 0) {
		rc = n;
		goto out;
	}
	h->p = calloc((size_t)n * PHASES_PER_JOB + 1, sizeof(*h->p));
	h->job_of = calloc((size_t)n * PHASES_PER_JOB + 1, sizeof(*h->job_of));
	if (!h->p || !h->job_of) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		int got = bcn_jobdb_io_phases(db, ids[i], h->p + h->n,
					      PHASES_PER_JOB);

		if (got < 0) {
			rc = got;
			goto out;
		}
		for (int k = 0; k < got; k++)
			h->job_of[h->n + (size_t)k] = (uint32_t)h->jobs;
		h->n += (size_t)got;
		h->jobs += got > 0;
	}
out:
	free(ids);
	return rc;
}

static double dur_s(int64_t a, int64_t b)
{
	return (double)(b - a) / 1e9;
}

/* Points (duration, volume) of the history then of the job, each divided
 * by the history's median; DBSCAN labels them. */
static int cluster(const struct bcn_jobcheck_config *c, const struct hist *h,
		   const struct bcn_report *r, double *pts, int32_t *labels)
{
	size_t n = h->n + r->nio_phases, nc;
	double *v = malloc((h->n ? h->n : 1) * sizeof(*v)), md, mv;
	size_t minpts;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		v[i] = dur_s(h->p[i].start, h->p[i].end);
	md = fmax(bcn_median(v, h->n), 1e-9);
	for (size_t i = 0; i < h->n; i++)
		v[i] = h->p[i].volume;
	mv = fmax(bcn_median(v, h->n), 1);
	free(v);
	for (size_t i = 0; i < n; i++) {
		bool mine = i >= h->n;
		const struct bcn_phase *q = mine ? &r->io_phases[i - h->n] : NULL;

		pts[2 * i] = (mine ? dur_s(q->start, q->end) :
			      dur_s(h->p[i].start, h->p[i].end)) / md;
		pts[2 * i + 1] = (mine ? q->volume : h->p[i].volume) / mv;
	}
	minpts = h->jobs / 2 > 2 ? h->jobs / 2 : 2;
	return bcn_dbscan(pts, n, 2, (double)c->eps_pct / 100,
			  minpts < 5 ? minpts : 5, labels, &nc);
}

/* How many earlier runs have a phase in cluster lab. */
static size_t runs_in(const struct hist *h, const int32_t *labels, int32_t lab)
{
	size_t n = 0;
	uint32_t last = UINT32_MAX;

	for (size_t k = 0; k < h->n; k++)      /* phases come run by run */
		if (labels[k] == lab && h->job_of[k] != last) {
			last = h->job_of[k];
			n++;
		}
	return n;
}

/* The median bandwidth of the cluster nearest to point i among the
 * history's clusters that hold phases of at least need earlier runs (a
 * behaviour of the application, not of one run), 0 when there is none. */
static double nearest_bw(const struct hist *h, const double *pts,
			 const int32_t *labels, size_t i, size_t need)
{
	double best = INFINITY, *v;
	int32_t lab = -1;
	size_t n = 0;

	for (size_t k = 0; k < h->n; k++) {
		double dx = pts[2 * k] - pts[2 * i], dy = pts[2 * k + 1] - pts[2 * i + 1];

		if (labels[k] >= 0 && dx * dx + dy * dy < best &&
		    (labels[k] == lab || runs_in(h, labels, labels[k]) >= need)) {
			best = dx * dx + dy * dy;
			lab = labels[k];
		}
	}
	if (lab < 0 || !(v = malloc(h->n * sizeof(*v))))
		return 0;
	for (size_t k = 0; k < h->n; k++)
		if (labels[k] == lab)
			v[n++] = h->p[k].mean_bw;
	best = bcn_median(v, n);
	free(v);
	return best;
}

static int put(struct bcn_jobdb *db, const struct bcn_detect_config *dc,
	       struct bcn_anomaly *a, bool store, int64_t now,
	       struct bcn_jobcheck_result *res)
{
	int rc;

	res->anomalies++;
	if (!store)
		return 0;
	rc = bcn_jobdb_anomaly_put(db, a, dc->gap_ms * 1000000ll, now);
	return rc < 0 ? rc : 0;
}

/* ---- aggressors ---- */

/* Whether job's stored summary shows interference-prone features; what
 * it shows goes to why. */
static bool prone(const struct bcn_detect_config *dc, struct bcn_jobdb *db,
		  uint64_t job, char *why, size_t n)
{
	struct bcn_jobdb_summary m;

	memset(&m, 0, sizeof(m));
	if (bcn_jobdb_get_summary(db, job, &m) != 1)
		return false;
	if (!strcmp(m.mode, "N-1"))
		snprintf(why, n, "N-1");
	else if (m.meta_rate_io >= (double)dc->prone_meta_rate)
		snprintf(why, n, "%.0f metadata ops/s", m.meta_rate_io);
	else if (m.iops >= (double)dc->prone_iops)
		snprintf(why, n, "%.0f IOPS", m.iops);
	else
		return false;
	return true;
}

/* The other jobs on the job's OSTs in [from, to) (their job_stats
 * parts), at most NEIGHBOURS_MAX, with the OST each was seen on. */
struct ost_nb {
	const struct bcn_report *r;
	uint64_t jobs[NEIGHBOURS_MAX];
	char via[NEIGHBOURS_MAX][BCN_REPORT_NAME_MAX];
	size_t n;
};

static int ost_nb_take(void *arg, const struct bcn_record *x)
{
	struct ost_nb *nb = arg;
	bool mine = false;

	if (x->type != BCN_REC_OST || !x->job || x->job == nb->r->job ||
	    nb->n >= NEIGHBOURS_MAX)
		return 0;
	for (size_t i = 0; i < nb->r->nparts && !mine; i++)
		mine = !strcmp(nb->r->parts[i].layer, "ost") &&
		       !strcmp(nb->r->parts[i].component, x->u.ost.target);
	for (size_t i = 0; mine && i < nb->n; i++)
		if (nb->jobs[i] == x->job)
			return 0;
	if (mine) {
		snprintf(nb->via[nb->n], sizeof(nb->via[0]), "%s", x->u.ost.target);
		nb->jobs[nb->n++] = x->job;
	}
	return 0;
}

/* Names job k as an accused of a when it is prone, adding the evidence
 * and the message; returns whether it did. */
static bool accuse(const struct bcn_detect_config *dc, struct bcn_jobdb *db,
		   uint64_t job, const char *via, struct bcn_anomaly *a,
		   size_t *found, char *msg, size_t msglen)
{
	size_t ml = strlen(msg), el = strlen(a->evidence);
	char why[64];

	for (size_t j = 0; j < a->njobs; j++)
		if (a->jobs[j].job == job)
			return false;
	if (a->njobs >= BCN_ANOMALY_JOBS_MAX || !prone(dc, db, job, why, sizeof(why)))
		return false;
	a->jobs[a->njobs].job = job;
	a->jobs[a->njobs++].role = BCN_ANOMALY_ACCUSED;
	if (!(*found)++)
		snprintf(a->component, sizeof(a->component), "%s", via);
	if (ml + 80 < msglen)
		snprintf(msg + ml, msglen - ml, "%s%" PRIu64 " (%s, via %.40s)",
			 *found > 1 ? ", " : "", job, why, via);
	if (el + 120 < sizeof(a->evidence))
		snprintf(a->evidence + el, sizeof(a->evidence) - el, "%s{\"job\":%"
			 PRIu64 ",\"why\":\"%s\",\"via\":\"%.64s\"}",
			 *found > 1 ? "," : "", job, why, via);
	return true;
}

/* The jobs with interference-prone features behind the job's forwarding
 * nodes or on its OSTs in [from, to), into a (accused), with the
 * evidence. */
static size_t aggressors(const struct bcn_detect_config *dc,
			 const struct bcn_stores *ss, struct bcn_jobdb *db,
			 const struct bcn_report *r, int64_t from, int64_t to,
			 struct bcn_anomaly *a, char *msg, size_t msglen)
{
	struct bcn_store_query q = { .layer = BCN_LAYER_OST, .from = from,
				     .to = to, .part = BCN_STORE_PART_JOB };
	uint64_t jobs[NEIGHBOURS_MAX];
	uint32_t nodes[NEIGHBOURS_MAX];
	struct ost_nb *nb = calloc(1, sizeof(*nb));
	size_t found = 0;

	for (size_t i = 0; i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		size_t n;

		if (strcmp(p->layer, "forward"))
			continue;
		n = bcn_detect_jobs_behind(db, p->component, from + (to - from) / 2,
					   jobs, nodes, NEIGHBOURS_MAX);
		for (size_t k = 0; k < n; k++)
			if (jobs[k] != r->job)
				(void)accuse(dc, db, jobs[k], p->component, a, &found,
					     msg, msglen);
	}
	if (nb && ss) {
		nb->r = r;
		if (!bcn_stores_scan(ss, &q, ost_nb_take, nb))
			for (size_t k = 0; k < nb->n; k++)
				(void)accuse(dc, db, nb->jobs[k], nb->via[k], a,
					     &found, msg, msglen);
	}
	free(nb);
	return found;
}

/* ---- history ---- */

/* The interference anomaly of a job slowed in [from, to): its likely
 * aggressors, when it has any, into a, the report and db. */
static int interference(const struct bcn_detect_config *dc,
			const struct bcn_stores *ss, struct bcn_jobdb *db,
			struct bcn_report *r, int64_t from, int64_t to,
			double worst, struct bcn_anomaly *a, bool store,
			int64_t now, struct bcn_jobcheck_result *res)
{
	char msg[256], id[24];
	size_t el;

	snprintf(id, sizeof(id), "%" PRIu64, r->job);
	bcn_anomaly_init(a, "interference", id, "warning", worst);
	a->jobs[a->njobs++] = (struct bcn_anomaly_job){ r->job, BCN_ANOMALY_AFFECTED };
	a->from = from;
	a->to = to;
	snprintf(a->evidence, sizeof(a->evidence), "{\"victim\":%" PRIu64
		 ",\"slowdown\":%.2f,\"aggressors\":[", r->job, worst);
	snprintf(msg, sizeof(msg), "Likely aggressors: ");
	if (!aggressors(dc, ss, db, r, from, to, a, msg, sizeof(msg)))
		return 0;
	el = strlen(a->evidence);
	snprintf(a->evidence + el, sizeof(a->evidence) - el, "]}");
	(void)bcn_advice_add(r, "likely_aggressors", "warning", msg, a->evidence);
	return put(db, dc, a, store, now, res);
}

static int slow_phases(const struct bcn_jobcheck_config *c,
		       const struct bcn_detect_config *dc,
		       const struct bcn_stores *ss, struct bcn_jobdb *db,
		       struct bcn_report *r, const struct hist *h,
		       const double *pts, const int32_t *labels, bool store,
		       int64_t now, struct bcn_jobcheck_result *res)
{
	struct bcn_anomaly *a = malloc(sizeof(*a));
	int64_t from = 0, to = 0;
	size_t slow = 0, outliers = 0, unlike = 0;
	double worst = 0, ref = 0, mine = 0;
	char msg[256], id[24];
	int rc = 0;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < r->nio_phases; i++) {
		const struct bcn_phase *p = &r->io_phases[i];
		double bw;

		if (labels[h->n + i] >= 0)
			continue;
		outliers++;
		bw = nearest_bw(h, pts, labels, h->n + i,
				h->jobs / 2 > 2 ? (h->jobs + 1) / 2 : 2);
		unlike += bw <= 0;
		if (bw <= 0 || p->mean_bw * (double)c->slowdown_pct / 100 > bw)
			continue;
		if (!slow++)
			from = p->start;
		to = p->end;
		if (bw / fmax(p->mean_bw, 1) > worst) {
			worst = bw / fmax(p->mean_bw, 1);
			ref = bw;
			mine = p->mean_bw;
		}
	}
	if (!slow && unlike) {
		snprintf(msg, sizeof(msg), "%zu I/O phase(s) of this run are "
			 "like no pattern its %zu earlier runs on %" PRIu64
			 " nodes share: not judged.", unlike, h->jobs, r->nnodes);
		snprintf(a->evidence, sizeof(a->evidence), "{\"unlike_phases\":"
			 "%zu,\"history_jobs\":%zu}", unlike, h->jobs);
		(void)bcn_advice_add(r, "unlike_history", "info", msg,
				     a->evidence);
	}
	if (!slow)
		goto out;
	res->slowdown = worst;
	snprintf(id, sizeof(id), "%" PRIu64, r->job);
	bcn_anomaly_init(a, "job_slowdown", id, "warning", worst);
	if (worst * 100 >= 2 * (double)c->slowdown_pct)
		snprintf(a->severity, sizeof(a->severity), "critical");
	a->jobs[a->njobs++] = (struct bcn_anomaly_job){ r->job, BCN_ANOMALY_AFFECTED };
	a->from = from;
	a->to = to;
	snprintf(a->evidence, sizeof(a->evidence), "{\"slowdown\":%.2f,"
		 "\"phase_bw\":%.0f,\"history_bw\":%.0f,\"slow_phases\":%zu,"
		 "\"outlying_phases\":%zu,\"phases\":%zu,\"history_jobs\":%zu,"
		 "\"history_phases\":%zu}", worst, mine, ref, slow, outliers,
		 r->nio_phases, h->jobs, h->n);
	snprintf(msg, sizeof(msg), "%zu I/O phase(s) ran %.1fx slower than "
		 "this application's %zu earlier runs on %" PRIu64 " nodes.",
		 slow, worst, h->jobs, r->nnodes);
	(void)bcn_advice_add(r, "slower_than_history", a->severity, msg,
			     a->evidence);
	if ((rc = put(db, dc, a, store, now, res)))
		goto out;
	/* who shared its forwarding nodes and OSTs then */
	rc = interference(dc, ss, db, r, from, to, worst, a, store, now, res);
out:
	free(a);
	return rc;
}

static int check_history(const struct bcn_jobcheck_config *c,
			 const struct bcn_detect_config *dc,
			 const struct bcn_stores *ss, struct bcn_jobdb *db,
			 struct bcn_report *r, bool store, int64_t now,
			 struct bcn_jobcheck_result *res)
{
	struct hist h = { .p = NULL };
	double *pts = NULL;
	int32_t *labels = NULL;
	char msg[256], ev[128];
	int rc = load_history(c, db, r, &h);

	res->history_jobs = h.jobs;
	if (rc)
		goto out;
	if (h.jobs < c->history_min) {
		snprintf(msg, sizeof(msg), "Too little history to judge this run: "
			 "%zu earlier run(s) of this application on %" PRIu64
			 " nodes, %" PRIu64 " needed.", h.jobs, r->nnodes,
			 c->history_min);
		snprintf(ev, sizeof(ev), "{\"history_jobs\":%zu,\"needed\":%" PRIu64
			 "}", h.jobs, c->history_min);
		(void)bcn_advice_add(r, "too_little_history", "info", msg, ev);
		goto out;
	}
	pts = malloc((h.n + r->nio_phases) * 2 * sizeof(*pts));
	labels = malloc((h.n + r->nio_phases) * sizeof(*labels));
	if (!pts || !labels) {
		rc = -ENOMEM;
		goto out;
	}
	if (!(rc = cluster(c, &h, r, pts, labels)))
		rc = slow_phases(c, dc, ss, db, r, &h, pts, labels, store, now,
				 res);
out:
	free(h.p);
	free(h.job_of);
	free(pts);
	free(labels);
	return rc;
}

/* ---- stragglers ---- */

/* One layer's members: what each carried of the job (per node behind it
 * for forwarding nodes), clustered; the members outside the cluster of
 * the median member and under straggler_pct of its median are
 * stragglers. */
static int stragglers(const struct bcn_jobcheck_config *c,
		      const struct bcn_detect_config *dc, struct bcn_jobdb *db,
		      struct bcn_report *r, const char *layer, bool store,
		      int64_t now, struct bcn_jobcheck_result *res)
{
	size_t idx[MEMBERS_MAX], n = 0, nc;
	double v[MEMBERS_MAX], s[MEMBERS_MAX], med, main_med;
	int32_t labels[MEMBERS_MAX], main_label = -1;
	struct bcn_anomaly *a = NULL;
	char msg[256], id[24];
	int rc = 0;

	for (size_t i = 0; i < r->nparts && n < MEMBERS_MAX; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		bool fwd = !strcmp(p->layer, "forward");

		if (strcmp(p->layer, layer) || (fwd && !p->nodes))
			continue;
		v[n] = (double)(p->read_bytes + p->write_bytes) /
		       (fwd ? (double)p->nodes : 1);
		idx[n++] = i;
	}
	if (n < 3)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	if ((med = bcn_median(s, n)) <= 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		s[i] = v[i] / med;
	rc = bcn_dbscan(s, n, 1, (1 - (double)c->straggler_pct / 100) / 2,
			n / 4 > 2 ? n / 4 : 2, labels, &nc);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)          /* the median member's cluster */
		if (fabs(s[i] - 1) < 1e-9 || (main_label < 0 && labels[i] >= 0 &&
					       fabs(s[i] - 1) < 0.5))
			main_label = labels[i] >= 0 ? labels[i] : main_label;
	if (main_label < 0 || !(a = malloc(sizeof(*a))))
		return main_label < 0 ? 0 : -ENOMEM;
	{
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (labels[i] == main_label)
				s[k++] = v[i];
		main_med = bcn_median(s, k);
	}
	snprintf(id, sizeof(id), "%" PRIu64, r->job);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct bcn_report_part *p = &r->parts[idx[i]];
		double pct = 100 * v[i] / main_med;

		if (labels[i] == main_label || pct >= (double)c->straggler_pct)
			continue;
		bcn_anomaly_init(a, "straggler", p->component, "warning",
				 main_med / fmax(v[i], 1));
		a->jobs[a->njobs++] = (struct bcn_anomaly_job){ r->job,
							       BCN_ANOMALY_AFFECTED };
		a->from = r->io_first ? r->io_first : r->start;
		a->to = r->io_last > a->from ? r->io_last : a->from + 1;
		snprintf(a->evidence, sizeof(a->evidence), "{\"job\":%s,\"layer\":"
			 "\"%s\",\"carried\":%.0f,\"peers_median\":%.0f,"
			 "\"pct_of_peers\":%.1f,\"members\":%zu,\"per_node\":%s}",
			 id, layer, v[i], main_med, pct, n,
			 !strcmp(layer, "forward") ? "true" : "false");
		snprintf(msg, sizeof(msg), "%.80s carried %.0f%% of what the other "
			 "%s members of this job carried (a straggler).",
			 p->component, pct, !strcmp(layer, "forward") ?
			 "forwarding" : "OST");
		(void)bcn_advice_add(r, "straggler", "warning", msg, a->evidence);
		rc = put(db, dc, a, store, now, res);
	}
	free(a);
	return rc;
}

int bcn_jobcheck_run(const struct bcn_jobcheck_config *c,
		     const struct bcn_detect_config *dc,
		     const struct bcn_stores *ss, struct bcn_jobdb *db,
		     struct bcn_report *r, bool store, int64_t now,
		     struct bcn_jobcheck_result *res)
{
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (!r->end || !r->nio_phases)
		return 0;
	rc = check_history(c, dc, ss, db, r, store, now, res);
	if (!rc && r->nnodes >= c->straggler_nodes)
		rc = stragglers(c, dc, db, r, "forward", store, now, res);
	if (!rc && r->nnodes >= c->straggler_nodes)
		rc = stragglers(c, dc, db, r, "ost", store, now, res);
	return rc;
}
