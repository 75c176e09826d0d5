/* Component anomaly detectors (detect.h, docs/anomaly.md): one scan per
 * layer fills time grids per component, then each rule flags buckets and
 * turns runs of flagged buckets into anomalies. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/detect.h"
#include "analysis/anomaly/grid.h"
#include "analysis/anomaly/median.h"
#include "analysis/network.h"
#include "common/error.h"

#define NS_MS 1000000ll
#define RUNS_MAX 64
#define JOBS_NODES_MAX 4096             /* nodes looked at behind one fwd */

/* Grid fields by layer. */
enum { F_RD, F_WR, F_RWREQ, F_PROC, F_META, F_QUEUE, F_BACK_RD, F_BACK_WR };
enum { O_BYTES, O_IOS, O_IOTIME, O_IOS_BW };
enum { M_OPS };
enum { S_XMIT, S_RCV };
enum { J_OST_BYTES, J_MD_OPS };

void bcn_detect_config_defaults(struct bcn_detect_config *c)
{
	memset(c, 0, sizeof(*c));
	c->bucket_ms = 60000;
	c->lookback_ms = 3 * 3600000ll;
	c->gap_ms = 600000;
	c->max_components = 200000;
	c->slow_pct = 30;
	c->slow_min_ms = 3600000;
	c->slow_min_buckets = 5;
	c->slow_job_pct = 50;
	c->service_pct = 150;
	c->service_min_ms = 300000;
	c->service_min_reqs = 50;
	c->ost_service_pct = 150;
	c->ost_service_min_ms = 300000;
	c->ost_service_min_ios = 20;
	c->thrash_pct = 200;
	c->thrash_min_bytes = 16u << 20;
	c->thrash_min_ms = 180000;
	c->storm_fwd_rate = 5000;
	c->storm_mdt_rate = 20000;
	c->storm_min_ms = 180000;
	c->queue_high = 64;
	c->queue_min_ms = 300000;
	c->prone_meta_rate = 300;
	c->prone_iops = 10000;
	c->prone_share_pct = 30;
	c->hot_pct = 150;
	c->hot_util_pct = 80;
	c->hot_min_bytes = 1u << 20;
	c->hot_min_ms = 300000;
}

/* Everything one round holds. */
struct round {
	const struct bcn_detect_config *c;
	const struct bcn_stores *ss;
	struct bcn_jobdb *db;
	struct bcn_grid fwd, ost, mds, sw, jobs;
	struct bcn_net topo;            /* switch ports' cabling, from
					 * topology records */
	struct bcn_detect_stats *st;
	bcn_anomaly_fn *found;
	void *found_arg;
	int64_t now;
	double secs;                    /* bucket length, s */
	uint8_t *state;                 /* one row of bucket states */
	char *err;
	size_t errlen;
	int fail;                       /* first grid error */
};

/* ---- filling the grids ---- */

static double *cell(struct round *r, struct bcn_grid *g, const char *entity,
		    int64_t t)
{
	double *c = NULL;
	int rc = bcn_grid_cell(g, entity, t, &c);

	if (rc == -BCN_EFULL)
		r->st->skipped++;
	else if (rc && !r->fail)
		r->fail = rc;
	return c;
}

static void take_fwd_req(struct round *r, const struct bcn_record *x)
{
	const struct bcn_rec_fwd_req *q = &x->u.fwd_req;
	double *c = cell(r, &r->fwd, x->node, x->t);

	if (!c)
		return;
	switch (q->cls) {
	case BCN_FWD_READ:
	case BCN_FWD_WRITE:
		c[q->cls == BCN_FWD_READ ? F_RD : F_WR] += (double)q->bytes;
		c[F_RWREQ] += (double)q->count;
		c[F_PROC] += (double)q->proc.sum;
		break;
	case BCN_FWD_META:
		c[F_META] += (double)q->count;
		break;
	case BCN_FWD_ALL:
		if ((double)q->queue.p95 > c[F_QUEUE])
			c[F_QUEUE] = (double)q->queue.p95;
		break;
	default:
		break;
	}
}

/* The disk I/Os of an OST's brw_stats "I/O time" histograms and their
 * time in ms: record bucket b holds times in (2^(b-1), 2^b] ms (b 0: at
 * most 1 ms), taken at three quarters of 2^b (half a ms for b 0). The
 * I/Os are also summed weighted by the record's bandwidth (bytes/s over
 * its interval): over a bucket, the load its average I/O met. */
static void take_iotime(double *c, const struct bcn_record *x, double bytes)
{
	const struct bcn_rec_ost *o = &x->u.ost;
	double time = 0, ios = 0;
	double bw = x->dur > 0 ? bytes / ((double)x->dur / 1e9) : 0;

	for (size_t b = 0; b < BCN_HIST_BUCKETS; b++) {
		double n = (double)o->iotime_read[b] + (double)o->iotime_write[b];

		ios += n;
		time += n * (b ? 0.75 * ldexp(1, (int)b) : 0.5);
	}
	c[O_IOS] += ios;
	c[O_IOTIME] += time;
	c[O_IOS_BW] += ios * bw;
}

static int take(void *arg, const struct bcn_record *x)
{
	struct round *r = arg;
	char ent[BCN_ENTITY_MAX], id[24];
	int rc;
	struct bcn_record_totals t;
	double *c;

	r->st->records++;
	if (r->fail)
		return r->fail;
	bcn_record_totals(x, &t);
	switch (x->type) {
	case BCN_REC_FWD_REQ:
		take_fwd_req(r, x);
		break;
	case BCN_REC_FWD_RPC:
		if ((c = cell(r, &r->fwd, x->node, x->t))) {
			c[F_BACK_RD] += (double)x->u.fwd_rpc.read_bytes;
			c[F_BACK_WR] += (double)x->u.fwd_rpc.write_bytes;
		}
		break;
	case BCN_REC_OST:
	case BCN_REC_MDS: {
		int part = bcn_store_record_part(x);
		bool ost = x->type == BCN_REC_OST;

		if (part == BCN_STORE_PART_JOB && x->job) {
			snprintf(id, sizeof(id), "%" PRIu64, x->job);
			if ((c = cell(r, &r->jobs, id, x->t)))
				c[ost ? J_OST_BYTES : J_MD_OPS] += ost ?
					(double)(t.read_bytes + t.write_bytes) :
					(double)(t.meta_ops + t.read_ops +
						 t.write_ops + t.other_ops);
		} else if (part == BCN_STORE_PART_TOTAL) {
			const char *tg = ost ? x->u.ost.target : x->u.mds.target;

			if ((c = cell(r, ost ? &r->ost : &r->mds, tg, x->t)))
				c[0] += ost ? (double)(t.read_bytes + t.write_bytes) :
					(double)(t.meta_ops + t.read_ops +
						 t.write_ops + t.other_ops);
			if (c && ost)
				take_iotime(c, x, (double)(t.read_bytes +
							   t.write_bytes));
		}
		break;
	}
	case BCN_REC_PORT:
		if (!bcn_record_entity(x, ent, sizeof(ent)) &&
		    (c = cell(r, &r->sw, ent, x->t))) {
			c[S_XMIT] += (double)x->u.port.xmit_bytes;
			c[S_RCV] += (double)x->u.port.rcv_bytes;
		}
		break;
	case BCN_REC_TOPOLOGY:
		if ((rc = bcn_net_take_topology(&r->topo, x)) && !r->fail)
			r->fail = rc;
		break;
	default:
		break;
	}
	return 0;
}

static int fill(struct round *r, const struct bcn_stores *ss, int64_t from,
		int64_t to)
{
	static const int layers[] = { BCN_LAYER_FORWARD, BCN_LAYER_OST,
				      BCN_LAYER_MDS, BCN_LAYER_SWITCH };
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct bcn_store_query q = {
			.layer = layers[i], .from = from, .to = to,
			.part = BCN_STORE_PART_ANY,
		};

		rc = bcn_stores_scan(ss, &q, take, r);
	}
	if (!rc && r->fail)
		rc = r->fail;
	if (rc)
		bcn_seterr(r->err, r->errlen, "anomaly detection: reading the "
			   "store: %s", bcn_strerror(rc));
	return rc;
}

/* ---- helpers of the rules ---- */

static size_t buckets_of(const struct round *r, int64_t ms)
{
	int64_t b = r->c->bucket_ms;

	return (size_t)((ms + b - 1) / b);
}

static const char *severity_of(double ratio, double limit)
{
	return ratio >= 2 * limit ? "critical" : "warning";
}

/* Jobs running on the compute nodes behind forwarding node fwd at t,
 * each once with how many of its nodes are behind fwd, at most max. The
 * map is read whole first: one statement at a time on the connection. */
struct behind {
	const char *fwd;
	char (*nodes)[BCN_JOB_STR_MAX + 1];
	size_t n;
};

static int behind_node(void *arg, const char *node, const char *fwd)
{
	struct behind *b = arg;

	if (strcmp(fwd, b->fwd) || b->n >= JOBS_NODES_MAX)
		return 0;
	snprintf(b->nodes[b->n++], BCN_JOB_STR_MAX + 1, "%s", node);
	return 0;
}

/* Counts a node of job id in jobs[0..*n) (added when new and there is
 * room). Returns its index, or max when the list was full. */
static size_t add_job(uint64_t id, uint64_t *jobs, uint32_t *nodes_of,
		      size_t *n, size_t max)
{
	size_t k = 0;

	while (k < *n && jobs[k] != id)
		k++;
	if (k == *n) {
		if (*n >= max)
			return max;
		nodes_of[k] = 0;
		jobs[(*n)++] = id;
	}
	nodes_of[k]++;
	return k;
}

size_t bcn_detect_jobs_behind(struct bcn_jobdb *db, const char *fwd, int64_t t,
			      uint64_t *jobs, uint32_t *nodes_of, size_t max)
{
	struct behind b = { fwd, NULL, 0 };
	uint64_t ids[16];
	size_t n = 0;

	if (!db || !(b.nodes = malloc(JOBS_NODES_MAX * sizeof(*b.nodes))))
		return 0;
	if (bcn_jobdb_fwd_map(db, t, behind_node, &b) < 0)
		b.n = 0;
	for (size_t i = 0; i < b.n; i++) {
		int got = bcn_jobdb_jobs_on(db, b.nodes[i], t, ids, 16);

		for (int k = 0; k < got; k++)
			add_job(ids[k], jobs, nodes_of, &n, max);
	}
	free(b.nodes);
	return n;
}

/* Sum of field f of job's row over buckets [b0, b1]. */
static double job_sum(const struct round *r, uint64_t job, int f, size_t b0,
		      size_t b1)
{
	struct bcn_tally_entry *e;
	char id[24];
	double s = 0;

	snprintf(id, sizeof(id), "%" PRIu64, job);
	if (!(e = bcn_tally_find(&r->jobs.names, id)))
		return 0;
	for (size_t b = b0; b <= b1; b++)
		s += bcn_grid_at(&r->jobs, bcn_grid_row(&r->jobs, e->v[0]), b, f);
	return s;
}

/* Fills a's window from a run and stores it. */
static int emit(struct round *r, struct bcn_anomaly *a, const struct bcn_grid *g,
		const struct bcn_run *run)
{
	int rc;

	a->from = g->from + (int64_t)run->first * g->bucket;
	a->to = g->from + (int64_t)(run->last + 1) * g->bucket;
	r->st->found++;
	if (r->found)
		r->found(r->found_arg, a);
	if (!r->db)
		return 0;
	rc = bcn_jobdb_anomaly_put(r->db, a, r->c->gap_ms * NS_MS, r->now);
	if (rc == BCN_JOBDB_INSERTED)
		r->st->inserted++;
	else if (rc == BCN_JOBDB_UPDATED)
		r->st->updated++;
	if (rc < 0)
		bcn_seterr(r->err, r->errlen, "anomaly %s %s: %s", a->kind,
			   a->component, bcn_jobdb_error(r->db));
	return rc < 0 ? rc : 0;
}

/* Names the jobs behind fwd during the run: the one or two that moved
 * the most through the OSTs (or asked the MDTs the most, field f) as
 * accused when accuse, the others as affected. */
static void name_jobs(struct round *r, struct bcn_anomaly *a, const char *fwd,
		      const struct bcn_run *run, int f, bool accuse)
{
	uint64_t jobs[BCN_ANOMALY_JOBS_MAX];
	uint32_t nodes[BCN_ANOMALY_JOBS_MAX];
	double v[BCN_ANOMALY_JOBS_MAX], total = 0;
	int64_t mid = r->fwd.from + (int64_t)((run->first + run->last) / 2) *
		      r->fwd.bucket;
	size_t n = bcn_detect_jobs_behind(r->db, fwd, mid, jobs, nodes, BCN_ANOMALY_JOBS_MAX);

	for (size_t i = 0; i < n; i++)
		total += v[i] = job_sum(r, jobs[i], f, run->first, run->last);
	for (size_t i = 0; i < n; i++) {
		bool acc = accuse && total > 0 && v[i] >= 0.3 * total;

		a->jobs[a->njobs].job = jobs[i];
		a->jobs[a->njobs++].role = acc ? BCN_ANOMALY_ACCUSED :
					   BCN_ANOMALY_AFFECTED;
	}
}

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

/* The mean service time of a forwarding node's reads and writes over
 * buckets [b0, b1] against the median of its peers' over the same
 * buckets. */
static double fwd_service_ratio(const struct round *r, size_t i, size_t b0,
				size_t b1, double *mine_us, double *peers_us)
{
	const struct bcn_grid *g = &r->fwd;
	double *v = calloc(g->nrows ? g->nrows : 1, sizeof(*v)), mine = 0;
	size_t n = 0;

	for (size_t k = 0; k < g->nrows; k++) {
		double proc = 0, req = 0;

		for (size_t b = b0; b <= b1; b++) {
			proc += bcn_grid_at(g, bcn_grid_row(g, k), b, F_PROC);
			req += bcn_grid_at(g, bcn_grid_row(g, k), b, F_RWREQ);
		}
		if (req <= 0)
			continue;
		if (k == i)
			mine = proc / req;
		else if (v)
			v[n++] = proc / req;
	}
	*mine_us = mine;
	*peers_us = v ? bcn_median(v, n) : 0;
	free(v);
	return *peers_us > 0 ? mine / *peers_us : 0;
}

/* Confirms a slow run: an OST must serve the jobs that also use other
 * OSTs less than slow_job_pct of their average OST, a forwarding node
 * must take service_pct of its peers' service time: a component that is
 * merely lightly used is not slow. Writes the evidence. */
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
		ratio = fwd_service_ratio(r, i, run->first, run->last, &mine,
					  &peers);
		*yes = ratio * 100 >= (double)r->c->service_pct;
		snprintf(a->evidence + len, sizeof(a->evidence) - len,
			 "\"service_us\":%.1f,\"peers_service_us\":%.1f}", mine,
			 peers);
	} else {
		rc = ost_job_ratio(r, bcn_grid_name(g, i), from, to, &ratio, &njobs,
				   a);
		*yes = njobs > 0 && ratio * 100 < (double)r->c->slow_job_pct;
		snprintf(a->evidence + len, sizeof(a->evidence) - len,
			 "\"job_relative_rate\":%.3f,\"jobs_compared\":%zu}",
			 ratio, njobs);
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
	n = bcn_grid_runs(r->state, g->nb, g->nb, buckets_of(r, r->c->slow_min_ms),
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
			name_jobs(r, a, bcn_grid_name(g, i), &runs[k],
				  J_OST_BYTES, false);
		rc = emit(r, a, g, &runs[k]);
	}
	free(a);
	return rc;
}

/* slow_ost, slow_fwd by the paper's rule: in use, under slow_pct of the
 * known peak for slow_min_duration while some peer was at or above it. */
static int rule_slow(struct round *r, struct bcn_grid *g, bool fwd)
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

/* A service-time rule: the grid's time and request fields, how its load
 * is read, and its thresholds. A component's time per request is
 * compared, bucket by bucket, with the median of its peers that carried
 * at least its load then: a healthy component's time grows with its
 * load (its own queue), so a peer at least as busy is no faster unless
 * this one is slow. The load is the bytes of the bucket, or, with
 * f_req_bw, the load the average request met (the records' bandwidths
 * weighted by their requests: a burst that queued most of a bucket's
 * requests counts as the load they met, not as its bucket's mean). */
struct svc {
	const char *kind, *unit;
	struct bcn_grid *g;
	int f_time, f_req, f_req_bw, f_load[2];
	double minreq, lim;
	int64_t min_ms;
	uint64_t pct;
};

/* Component i's time per request and load in bucket b: 0, or -1 below
 * minreq requests. */
static int svc_at(const struct svc *x, size_t i, size_t b, double *t,
		  double *load)
{
	const double *row = bcn_grid_row(x->g, i);
	double req = bcn_grid_at(x->g, row, b, x->f_req);

	if (req < x->minreq || req <= 0)
		return -1;
	*t = bcn_grid_at(x->g, row, b, x->f_time) / req;
	if (x->f_req_bw >= 0)
		*load = bcn_grid_at(x->g, row, b, x->f_req_bw) / req;
	else
		*load = bcn_grid_at(x->g, row, b, x->f_load[0]) +
			bcn_grid_at(x->g, row, b, x->f_load[1]);
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

/* Inserts v into the sorted array s of n values. */
static void sorted_insert(double *s, size_t n, double v)
{
	size_t k = n;

	while (k > 0 && s[k - 1] > v) {
		s[k] = s[k - 1];
		k--;
	}
	s[k] = v;
}

/* ref[i * nb + b]: the median time of component i's peers at least as
 * loaded in bucket b (0: fewer than two such peers, or i idle). Going
 * down the loads, the peers of each are the ones before it. */
static void svc_refs(const struct svc *x, struct svc_pt *p, double *pre,
		     double *ref)
{
	const struct bcn_grid *g = x->g;

	for (size_t b = 0; b < g->nb; b++) {
		size_t n = 0;

		for (size_t i = 0; i < g->nrows; i++) {
			ref[i * g->nb + b] = 0;
			if (!svc_at(x, i, b, &p[n].t, &p[n].load))
				p[n++].i = i;
		}
		qsort(p, n, sizeof(*p), by_load_desc);
		for (size_t k = 0; k < n; k++) {
			if (k >= 2)
				ref[p[k].i * g->nb + b] = k % 2 ? pre[k / 2] :
					(pre[k / 2 - 1] + pre[k / 2]) / 2;
			sorted_insert(pre, k, p[k].t);
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
			 severity_of(mine / peers, x->lim), mine / peers);
	snprintf(a->evidence, sizeof(a->evidence), "{\"rule\":\"service_time\","
		 "\"service_%s\":%.1f,\"peers_median_%s\":%.1f,\"slowdown\":"
		 "%.2f,\"limit_pct\":%" PRIu64 ",\"requests\":%.0f,"
		 "\"peers\":\"at least as loaded\"}", x->unit, mine / req,
		 x->unit, peers / req, mine / peers, x->pct, req);
	if (x->g == &r->fwd)
		name_jobs(r, a, bcn_grid_name(x->g, i), run, J_OST_BYTES, false);
	return emit(r, a, x->g, run);
}

/* slow_fwd, slow_ost by service time: a component's mean time per
 * request (a forwarding node's reads and writes, an OST's disk I/Os) at
 * pct of the median of its peers at least as loaded, or more, in
 * buckets that make min_ms in all, with no bucket in between in which it
 * was as fast as they were (idle ones in between do not count). */
static int rule_service(struct round *r, const struct svc *x)
{
	const struct bcn_grid *g = x->g;
	size_t cells = g->nrows * g->nb;
	struct svc_pt *p = calloc(g->nrows ? g->nrows : 1, sizeof(*p));
	double *pre = calloc(g->nrows ? g->nrows : 1, sizeof(*pre));
	double *ref = calloc(cells ? cells : 1, sizeof(*ref));
	struct bcn_run runs[RUNS_MAX];
	struct bcn_anomaly *a = malloc(sizeof(*a));
	int rc = -ENOMEM;

	if (!p || !pre || !ref || !a)
		goto out;
	svc_refs(x, p, pre, ref);
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
				  buckets_of(r, x->min_ms), runs, RUNS_MAX);
		for (size_t k = 0; !rc && k < n; k++)
			rc = svc_emit(r, x, i, ref, &runs[k], a);
	}
out:
	free(p);
	free(pre);
	free(ref);
	free(a);
	return rc;
}

/* The service-time rules. */
static int rules_service(struct round *r)
{
	const struct bcn_detect_config *c = r->c;
	const struct svc sv[] = {
		{ "slow_fwd", "us", &r->fwd, F_PROC, F_RWREQ, -1, { F_RD, F_WR },
		  (double)c->service_min_reqs, (double)c->service_pct / 100,
		  c->service_min_ms, c->service_pct },
		{ "slow_ost", "ms", &r->ost, O_IOTIME, O_IOS, O_IOS_BW,
		  { O_BYTES, O_BYTES }, (double)c->ost_service_min_ios,
		  (double)c->ost_service_pct / 100, c->ost_service_min_ms,
		  c->ost_service_pct },
	};
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(sv) / sizeof(sv[0]); i++)
		rc = rule_service(r, &sv[i]);
	return rc;
}

/* A threshold rule: flag() gives a bucket's state and the value the
 * evidence reports (its maximum over the run); accuse picks the jobs
 * field that names aggressors (-1: none named). */
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

static int flag_queue(const struct round *r, const double *row, size_t b,
		      double *value)
{
	double busy = bcn_grid_at(&r->fwd, row, b, F_RWREQ) + bcn_grid_at(&r->fwd, row, b, F_META);

	*value = bcn_grid_at(&r->fwd, row, b, F_QUEUE);
	return *value >= (double)r->c->queue_high ? BCN_RUN_FLAGGED :
	       busy > 0 ? BCN_RUN_NORMAL : BCN_RUN_IDLE;
}

/* The jobs with at least 30% of field f over the run, anywhere. */
static void name_top_jobs(struct round *r, struct bcn_anomaly *a, int f,
			  const struct bcn_run *run)
{
	double total = 0;

	for (size_t i = 0; i < r->jobs.nrows; i++)
		total += job_sum(r, strtoull(bcn_grid_name(&r->jobs, i), NULL, 10),
				 f, run->first, run->last);
	for (size_t i = 0; i < r->jobs.nrows && a->njobs < 4; i++) {
		uint64_t id = strtoull(bcn_grid_name(&r->jobs, i), NULL, 10);

		if (total > 0 && job_sum(r, id, f, run->first, run->last) >=
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
	n = bcn_grid_runs(r->state, t->g->nb, buckets_of(r, r->c->gap_ms),
			  t->total ? 1 : buckets_of(r, t->min_ms),
			  t->total ? buckets_of(r, t->min_ms) : 2, runs, RUNS_MAX);
	for (size_t k = 0; !rc && k < n; k++) {
		double mx = 0;

		for (size_t b = runs[k].first; b <= runs[k].last; b++) {
			t->flag(r, row, b, &v);
			if (isfinite(v))
				mx = fmax(mx, v);
		}
		bcn_anomaly_init(a, t->kind, bcn_grid_name(t->g, i),
			     severity_of(mx, t->limit), mx / t->limit);
		snprintf(a->evidence, sizeof(a->evidence), "{\"%s\":%.2f,"
			 "\"limit\":%.2f,\"buckets\":%zu,\"bucket_s\":%.0f}",
			 t->value_name, mx, t->limit, runs[k].flagged, r->secs);
		if (t->behind_fwd)
			name_jobs(r, a, bcn_grid_name(t->g, i), &runs[k],
				  t->accuse >= 0 ? t->accuse : J_OST_BYTES,
				  t->accuse >= 0);
		else if (t->accuse >= 0)
			name_top_jobs(r, a, t->accuse, &runs[k]);
		rc = emit(r, a, t->g, &runs[k]);
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


/* ---- interference ---- */

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

static int interference_run(struct round *r, size_t i, const struct bcn_run *run,
			    struct bcn_anomaly *a)
{
	const char *fwd = bcn_grid_name(&r->fwd, i);
	const double *row = bcn_grid_row(&r->fwd, i);
	uint64_t jobs[BCN_ANOMALY_JOBS_MAX];
	uint32_t nodes[BCN_ANOMALY_JOBS_MAX];
	int64_t mid = r->fwd.from + (int64_t)((run->first + run->last) / 2) *
		      r->fwd.bucket;
	size_t n = bcn_detect_jobs_behind(r->db, fwd, mid, jobs, nodes, BCN_ANOMALY_JOBS_MAX);
	size_t len, accused = 0;
	double bytes = 0, qmax = 0;
	char ev[256];

	for (size_t b = run->first; b <= run->last; b++) {
		bytes += bcn_grid_at(&r->fwd, row, b, F_RD) + bcn_grid_at(&r->fwd, row, b, F_WR);
		qmax = fmax(qmax, bcn_grid_at(&r->fwd, row, b, F_QUEUE));
	}
	bcn_anomaly_init(a, "interference", fwd, "warning", qmax /
		     (double)r->c->queue_high);
	len = (size_t)snprintf(a->evidence, sizeof(a->evidence), "{\"queue_p95\""
			       ":%.0f,\"limit\":%" PRIu64 ",\"fwd_bytes\":%.0f,"
			       "\"aggressors\":[", qmax, r->c->queue_high, bytes);
	for (size_t k = 0; k < n; k++) {
		struct bcn_job j;
		double share = 0;

		if (bcn_jobdb_get_job(r->db, jobs[k], &j) == 1 && j.nnodes && bytes > 0)
			share = job_sum(r, jobs[k], J_OST_BYTES, run->first,
					run->last) * nodes[k] / (double)j.nnodes / bytes;
		a->jobs[a->njobs].job = jobs[k];
		a->jobs[a->njobs].role = BCN_ANOMALY_AFFECTED;
		if (prone(r, jobs[k], fmin(share, 1), ev, sizeof(ev))) {
			a->jobs[a->njobs].role = BCN_ANOMALY_ACCUSED;
			if (len + strlen(ev) + 4 < sizeof(a->evidence))
				len += (size_t)snprintf(a->evidence + len,
							sizeof(a->evidence) - len,
							"%s%s", accused ? "," : "", ev);
			accused++;
		}
		a->njobs++;
	}
	snprintf(a->evidence + len, sizeof(a->evidence) - len, "]}");
	if (!accused || a->njobs <= accused)
		return 0;               /* no aggressor, or nobody to suffer */
	if (qmax >= 2 * (double)r->c->queue_high)
		snprintf(a->severity, sizeof(a->severity), "critical");
	return emit(r, a, &r->fwd, run);
}

/* interference: a forwarding node congested (queue at or above
 * queue_high) for queue_min_duration, with a job behind it showing
 * interference-prone features and other jobs sharing it. */
static int rule_interference(struct round *r)
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
		n = bcn_grid_runs(r->state, r->fwd.nb, buckets_of(r, r->c->gap_ms),
				  buckets_of(r, r->c->queue_min_ms), 2, runs,
				  RUNS_MAX);
		for (size_t k = 0; !rc && k < n; k++)
			rc = interference_run(r, i, &runs[k], a);
	}
	free(a);
	return rc;
}

/* ---- hot_switch ---- */

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct bcn_grid *g = arg;

	return strcmp(bcn_grid_name(g, *(const size_t *)a),
		      bcn_grid_name(g, *(const size_t *)b));
}

static size_t prefix_len(const char *name)
{
	const char *s = strrchr(name, '/');

	return s ? (size_t)(s - name) : strlen(name);
}

static double port_bytes(const struct bcn_grid *g, size_t row, size_t b)
{
	const double *x = bcn_grid_row(g, row);

	return bcn_grid_at(g, x, b, S_XMIT) + bcn_grid_at(g, x, b, S_RCV);
}

/* The busier direction of a port in bucket b, bytes. */
static double port_dir(const struct bcn_grid *g, size_t row, size_t b)
{
	const double *x = bcn_grid_row(g, row);

	return fmax(bcn_grid_at(g, x, b, S_XMIT), bcn_grid_at(g, x, b, S_RCV));
}

/* One switch without topology: rows idx[0..n) are its ports; its
 * busiest port against all the others. */
static int hot_one(struct round *r, const size_t *idx, size_t n,
		   struct bcn_anomaly *a)
{
	const struct bcn_grid *g = &r->sw;
	const double lim = (double)r->c->hot_pct / 100;
	struct bcn_run runs[RUNS_MAX];
	size_t nr, top = idx[0];
	int rc = 0;

	for (size_t b = 0; b < g->nb; b++) {
		double sum = 0, mx = 0;
		size_t arg = idx[0];

		for (size_t k = 0; k < n; k++) {
			double v = port_bytes(g, idx[k], b);

			sum += v;
			if (v > mx) {
				mx = v;
				arg = idx[k];
			}
		}
		r->state[b] = sum <= 0 ? BCN_RUN_IDLE :
			      mx / r->secs >= (double)r->c->hot_min_bytes &&
			      mx >= lim * (sum - mx) ? BCN_RUN_FLAGGED :
			      BCN_RUN_NORMAL;
		if (r->state[b] == BCN_RUN_FLAGGED)
			top = arg;
	}
	nr = bcn_grid_runs(r->state, g->nb, buckets_of(r, r->c->gap_ms),
			   buckets_of(r, r->c->hot_min_ms), 2, runs, RUNS_MAX);
	for (size_t k = 0; !rc && k < nr; k++) {
		double port = 0, rest = 0;

		for (size_t b = runs[k].first; b <= runs[k].last; b++)
			for (size_t j = 0; j < n; j++)
				*(idx[j] == top ? &port : &rest) +=
					port_bytes(g, idx[j], b);
		bcn_anomaly_init(a, "hot_switch", bcn_grid_name(g, top),
			     severity_of(port / fmax(rest, 1), lim),
			     port / fmax(rest, 1));
		snprintf(a->evidence, sizeof(a->evidence), "{\"port_units\":%.0f,"
			 "\"other_ports_units\":%.0f,\"ratio\":%.2f,\"limit\":%.2f,"
			 "\"ports\":%zu,\"uplink\":\"busiest port\"}", port, rest,
			 port / fmax(rest, 1), lim, n);
		rc = emit(r, a, g, &runs[k]);
	}
	return rc;
}

/* The cabling of grid row i ("switch/port"), or NULL. */
static const struct bcn_net_link *row_link(const struct round *r, size_t i)
{
	const char *nm = bcn_grid_name(&r->sw, i), *sl = strrchr(nm, '/');
	char sw[BCN_ENTITY_MAX];
	char *end;
	unsigned long long p;

	if (!sl || (size_t)(sl - nm) >= sizeof(sw))
		return NULL;
	p = strtoull(sl + 1, &end, 10);
	if (*end)
		return NULL;
	memcpy(sw, nm, (size_t)(sl - nm));
	sw[sl - nm] = 0;
	return bcn_net_link_of(&r->topo, sw, p);
}

/* A switch with topology: its uplinks and host ports (grid rows), the
 * uplinks' rates, scratch for medians. */
struct upset {
	const size_t *up, *down;
	size_t nu, nd;
	double *rate, *scratch;
};

/* The median of the other uplinks' busier direction in bucket b, bytes;
 * -1 without peers. */
static double peer_median(const struct round *r, const struct upset *x,
			  size_t u, size_t b)
{
	size_t k = 0;

	for (size_t j = 0; j < x->nu; j++)
		if (j != u)
			x->scratch[k++] = port_dir(&r->sw, x->up[j], b);
	return k ? bcn_median(x->scratch, k) : -1;
}

/* An uplink's share of what the host ports moved in bucket b, bytes;
 * -1 without host ports (a spine). */
static double down_share(const struct round *r, const struct upset *x,
			 size_t b)
{
	double sum = 0;

	for (size_t j = 0; j < x->nd; j++)
		sum += port_bytes(&r->sw, x->down[j], b);
	return x->nd ? sum / (double)x->nu : -1;
}

/* Is uplink u hot in bucket b: at least hot_min_bytes/s in its busier
 * direction, and that direction at hot_util of its rate, or at hot_pct
 * of its peer uplinks' median, or its bytes at hot_pct of its share of
 * the host ports' bytes (a leaf's uplinks carry what its hosts send and
 * receive, no more: the excess is traffic from elsewhere). */
static bool uplink_hot(const struct round *r, const struct upset *x,
		       size_t u, size_t b)
{
	const double hot = (double)r->c->hot_pct / 100;
	double v = port_dir(&r->sw, x->up[u], b), med, share;

	if (v / r->secs < (double)r->c->hot_min_bytes)
		return false;
	if (x->rate[u] > 0 && v / r->secs / x->rate[u] >=
	    (double)r->c->hot_util_pct / 100)
		return true;
	med = peer_median(r, x, u, b);
	if (med >= 0 && v >= hot * fmax(med, 1))
		return true;
	share = down_share(r, x, b);
	return share >= 0 && port_bytes(&r->sw, x->up[u], b) >= hot * fmax(share, 1);
}

/* Names the jobs on a leaf's hosts during the run of a hot uplink: the
 * jobs running (by the job database) on the hosts its host ports are
 * cabled to, each weighed by its hosts' port bytes over the run (a host
 * running several jobs splits its bytes among them). When the hosts'
 * traffic explains the uplink's (their share at least half of its bytes)
 * the jobs with 30% or more of it are accused, the others affected; when
 * it does not (traffic from elsewhere crosses the leaf), every job there
 * is affected. *share_pct gets the hosts' share of the uplink's bytes. */
static void name_leaf_jobs(struct round *r, const struct upset *x,
			   double up_bytes, const struct bcn_run *run,
			   struct bcn_anomaly *a, double *share_pct)
{
	uint64_t jobs[BCN_ANOMALY_JOBS_MAX], ids[16];
	uint32_t unused[BCN_ANOMALY_JOBS_MAX];
	double v[BCN_ANOMALY_JOBS_MAX] = { 0 }, hosts = 0;
	int64_t mid = r->sw.from + (int64_t)((run->first + run->last) / 2) *
		      r->sw.bucket;
	size_t n = 0;
	bool accuse;

	*share_pct = 0;
	for (size_t j = 0; r->db && j < x->nd; j++) {
		const struct bcn_net_link *l = row_link(r, x->down[j]);
		double bytes = 0;
		int got;

		if (!l || l->kind != BCN_TOPO_HOST || !l->host[0])
			continue;
		for (size_t b = run->first; b <= run->last; b++)
			bytes += port_bytes(&r->sw, x->down[j], b);
		hosts += bytes;
		got = bcn_jobdb_jobs_on(r->db, l->host, mid, ids, 16);
		for (int k = 0; k < got; k++) {
			size_t at = add_job(ids[k], jobs, unused, &n,
					    BCN_ANOMALY_JOBS_MAX);

			if (at < BCN_ANOMALY_JOBS_MAX)  /* not when full */
				v[at] += bytes / got;
		}
	}
	*share_pct = up_bytes > 0 ? 100 * hosts / (double)x->nu / up_bytes : 0;
	accuse = up_bytes > 0 && hosts / (double)x->nu >= 0.5 * up_bytes;
	for (size_t i = 0; i < n && a->njobs < BCN_ANOMALY_JOBS_MAX; i++) {
		bool acc = accuse && hosts > 0 && v[i] >= 0.3 * hosts;

		a->jobs[a->njobs].job = jobs[i];
		a->jobs[a->njobs++].role = acc ? BCN_ANOMALY_ACCUSED :
					   BCN_ANOMALY_AFFECTED;
	}
}

/* The anomaly of one run of hot buckets of uplink u: scored by its mean
 * utilisation over the run when that reached hot_util, else by its
 * bytes over its share of the host ports' (a leaf) or over its peers'
 * median (a spine). */
static int hot_uplink_run(struct round *r, const struct upset *x, size_t u,
			  const struct bcn_run *run, struct bcn_anomaly *a)
{
	const struct bcn_grid *g = &r->sw;
	const struct bcn_net_link *l = row_link(r, x->up[u]);
	size_t nb = run->last - run->first + 1;
	double dir = 0, bytes = 0, peers = 0, share = 0, hosts_pct;
	double secs = (double)nb * r->secs, util, score, lim;

	for (size_t b = run->first; b <= run->last; b++) {
		dir += port_dir(g, x->up[u], b);
		bytes += port_bytes(g, x->up[u], b);
		peers += fmax(peer_median(r, x, u, b), 0);
		share += fmax(down_share(r, x, b), 0);
	}
	util = x->rate[u] > 0 ? dir / secs / x->rate[u] : 0;
	if (util >= (double)r->c->hot_util_pct / 100) {
		score = util;
		lim = (double)r->c->hot_util_pct / 100;
	} else {
		score = x->nd ? bytes / fmax(share, 1) : dir / fmax(peers, 1);
		lim = (double)r->c->hot_pct / 100;
	}
	bcn_anomaly_init(a, "hot_switch", bcn_grid_name(g, x->up[u]),
			 severity_of(score, lim), score);
	name_leaf_jobs(r, x, bytes, run, a, &hosts_pct);
	snprintf(a->evidence, sizeof(a->evidence), "{\"uplink\":true,"
		 "\"bytes_per_s\":%.0f,\"rate\":%.0f,\"utilisation\":%.3f,"
		 "\"peer_median_bytes_per_s\":%.0f,\"peers\":%zu,"
		 "\"host_share_bytes_per_s\":%.0f,\"host_ports\":%zu,"
		 "\"hosts_pct_of_uplink\":%.1f,"
		 "\"limit\":%.2f,\"remote_port\":%" PRIu64 "}", dir / secs,
		 x->rate[u], util, peers / secs, x->nu - 1, share / secs, x->nd,
		 hosts_pct, lim, l ? l->remote_port : 0);
	return emit(r, a, g, run);
}

/* One switch with topology: each uplink on its own, a run names it. */
static int hot_uplinks(struct round *r, struct upset *x,
		       struct bcn_anomaly *a)
{
	const struct bcn_grid *g = &r->sw;
	struct bcn_run runs[RUNS_MAX];
	int rc = 0;

	x->rate = calloc(2 * x->nu, sizeof(double));
	if (!x->rate)
		return -ENOMEM;
	x->scratch = x->rate + x->nu;
	for (size_t u = 0; u < x->nu; u++)
		x->rate[u] = (double)row_link(r, x->up[u])->rate;
	for (size_t u = 0; !rc && u < x->nu; u++) {
		size_t nr;

		for (size_t b = 0; b < g->nb; b++)
			r->state[b] = port_bytes(g, x->up[u], b) <= 0 ?
				BCN_RUN_IDLE : uplink_hot(r, x, u, b) ?
				BCN_RUN_FLAGGED : BCN_RUN_NORMAL;
		nr = bcn_grid_runs(r->state, g->nb, buckets_of(r, r->c->gap_ms),
				   buckets_of(r, r->c->hot_min_ms), 2, runs,
				   RUNS_MAX);
		for (size_t k = 0; !rc && k < nr; k++)
			rc = hot_uplink_run(r, x, u, &runs[k], a);
	}
	free(x->rate);
	return rc;
}

/* The rows of one switch: its uplinks (by topology) on their own when
 * it has any, else the busiest-port rule. up has room for n rows. */
static int hot_switch(struct round *r, const size_t *idx, size_t n,
		      size_t *up, struct bcn_anomaly *a)
{
	struct upset x = { .up = up, .down = up + n };
	size_t *down = up + n;

	for (size_t k = 0; k < n; k++) {
		const struct bcn_net_link *l = row_link(r, idx[k]);

		if (l && l->kind == BCN_TOPO_SWITCH)
			up[x.nu++] = idx[k];
		else if (l)
			down[x.nd++] = idx[k];
	}
	if (x.nu)
		return hot_uplinks(r, &x, a);
	return n >= 2 ? hot_one(r, idx, n, a) : 0;
}

static int rule_hot(struct round *r)
{
	size_t n = r->sw.nrows, *idx = malloc((n ? n : 1) * sizeof(*idx));
	size_t *up = malloc((n ? 2 * n : 1) * sizeof(*up));
	struct bcn_anomaly *a = malloc(sizeof(*a));
	int rc = 0;

	if (!idx || !up || !a) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_name, &r->sw);
	for (size_t s = 0, e; !rc && s < n; s = e) {
		const char *first = bcn_grid_name(&r->sw, idx[s]);
		size_t pl = prefix_len(first);

		for (e = s + 1; e < n; e++) {
			const char *nm = bcn_grid_name(&r->sw, idx[e]);

			if (prefix_len(nm) != pl || strncmp(nm, first, pl))
				break;
		}
		rc = hot_switch(r, idx + s, e - s, up, a);
	}
out:
	free(idx);
	free(up);
	free(a);
	return rc;
}

/* ---- the round ---- */

static int rules(struct round *r)
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
	int rc = rule_slow(r, &r->ost, false);

	rc = rc ? rc : rule_slow(r, &r->fwd, true);
	rc = rc ? rc : rules_service(r);
	for (size_t i = 0; !rc && i < sizeof(t) / sizeof(t[0]); i++)
		rc = run_trule(r, &t[i]);
	rc = rc ? rc : rule_interference(r);
	return rc ? rc : rule_hot(r);
}

int bcn_detect_round(const struct bcn_detect_config *c,
		     const struct bcn_stores *ss, struct bcn_jobdb *db,
		     int64_t to, int64_t now, bcn_anomaly_fn *found, void *arg,
		     struct bcn_detect_stats *st, char *err, size_t errlen)
{
	int64_t b = c->bucket_ms * NS_MS;
	int64_t from = (to - c->lookback_ms * NS_MS) / b * b;
	struct round r = { .c = c, .ss = ss, .db = db, .st = st, .now = now,
			   .found = found, .found_arg = arg,
			   .secs = (double)c->bucket_ms / 1000, .err = err,
			   .errlen = errlen };
	struct bcn_grid *grids[] = { &r.fwd, &r.ost, &r.mds, &r.sw, &r.jobs };
	static const size_t nfields[] = { 8, 4, 1, 2, 2 };
	int rc = 0;

	memset(st, 0, sizeof(*st));
	to = (to + b - 1) / b * b;
	bcn_net_init(&r.topo, to, c->max_components);
	for (size_t i = 0; !rc && i < 5; i++)
		rc = bcn_grid_init(grids[i], from, to, b, nfields[i],
				   c->max_components);
	if (rc) {
		bcn_seterr(err, errlen, "anomaly detection: window: %s",
			   bcn_strerror(rc));
		goto out;
	}
	if (!(r.state = calloc(r.fwd.nb, 1))) {
		rc = bcn_fail(err, errlen, -ENOMEM, "anomaly detection: out of "
			      "memory");
		goto out;
	}
	if ((rc = fill(&r, ss, from, to)) || (rc = rules(&r)))
		goto out;
	if (db) {
		int n = bcn_jobdb_anomaly_close_ended(db, from - c->gap_ms * NS_MS,
						      now);

		if (n < 0) {
			rc = bcn_fail(err, errlen, n, "closing anomalies: %s",
				      bcn_jobdb_error(db));
			goto out;
		}
		st->closed = (uint64_t)n;
	}
out:
	free(r.state);
	bcn_net_free(&r.topo);
	for (size_t i = 0; i < 5; i++)
		bcn_grid_free(grids[i]);
	return rc;
}
