/* Component anomaly detectors (detect.h, docs/anomaly.md): one scan per
 * layer fills time grids per component, then each rule (detect_slow.c,
 * detect_load.c, detect_interf.c, detect_hot.c) flags buckets and turns
 * runs of flagged buckets into anomalies. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/detect_int.h"
#include "analysis/anomaly/median.h"
#include "common/error.h"

#define JOBS_NODES_MAX 4096             /* nodes looked at behind one fwd */

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
	c->service_min_ms = 180000;
	c->service_min_reqs = 50;
	c->ost_service_pct = 150;
	c->ost_service_min_ms = 180000;
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
	c->interference_pct = 150;
	c->hot_pct = 150;
	c->hot_util_pct = 80;
	c->hot_min_bytes = 1u << 20;
	c->hot_min_ms = 300000;
}

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

size_t bcn_detect_buckets(const struct round *r, int64_t ms)
{
	int64_t b = r->c->bucket_ms;

	return (size_t)((ms + b - 1) / b);
}

const char * bcn_detect_severity(double ratio, double limit)
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

size_t bcn_detect_add_job(uint64_t id, uint64_t *jobs, uint32_t *nodes_of,
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
			bcn_detect_add_job(ids[k], jobs, nodes_of, &n, max);
	}
	free(b.nodes);
	return n;
}

/* Sum of field f of job's row over buckets [b0, b1]. */
double  bcn_detect_job_sum(const struct round *r, uint64_t job, int f, size_t b0,
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

/* Remembers that a slow_fwd run covers row i's buckets of run: what the
 * node's own slowness explains is no interference. */
static void mark_slow_fwd(struct round *r, const struct bcn_anomaly *a,
			  const struct bcn_grid *g, const struct bcn_run *run)
{
	size_t i;

	const struct bcn_tally_entry *e;

	if (g != &r->fwd || strcmp(a->kind, "slow_fwd") ||
	    !(e = bcn_tally_find(&g->names, a->component)))
		return;
	i = (size_t)e->v[0];
	if (!r->slow_fwd &&
	    !(r->slow_fwd = calloc(g->nrows > 0 ? g->nrows : 1, g->nb)))
		return;         /* then interference is judged without it */
	for (size_t b = run->first; b <= run->last && b < g->nb; b++)
		r->slow_fwd[i * g->nb + b] = 1;
}

/* Fills a's window from a run and stores it. */
int  bcn_detect_emit(struct round *r, struct bcn_anomaly *a, const struct bcn_grid *g,
		const struct bcn_run *run)
{
	int rc;

	mark_slow_fwd(r, a, g, run);

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
void  bcn_detect_name_jobs(struct round *r, struct bcn_anomaly *a, const char *fwd,
		      const struct bcn_run *run, int f, bool accuse)
{
	uint64_t jobs[BCN_ANOMALY_JOBS_MAX];
	uint32_t nodes[BCN_ANOMALY_JOBS_MAX];
	double v[BCN_ANOMALY_JOBS_MAX], total = 0;
	int64_t mid = r->fwd.from + (int64_t)((run->first + run->last) / 2) *
		      r->fwd.bucket;
	size_t n = bcn_detect_jobs_behind(r->db, fwd, mid, jobs, nodes, BCN_ANOMALY_JOBS_MAX);

	for (size_t i = 0; i < n; i++)
		total += v[i] = bcn_detect_job_sum(r, jobs[i], f, run->first, run->last);
	for (size_t i = 0; i < n; i++) {
		bool acc = accuse && total > 0 && v[i] >= 0.3 * total;

		a->jobs[a->njobs].job = jobs[i];
		a->jobs[a->njobs++].role = acc ? BCN_ANOMALY_ACCUSED :
					   BCN_ANOMALY_AFFECTED;
	}
}

/* ---- the round ---- */

static int rules(struct round *r)
{
	int rc = bcn_detect_rule_slow(r, &r->ost, false);

	rc = rc ? rc : bcn_detect_rule_slow(r, &r->fwd, true);
	rc = rc ? rc : bcn_detect_rules_service(r);
	rc = rc ? rc : bcn_detect_rules_load(r);
	rc = rc ? rc : bcn_detect_rule_interference(r);
	return rc ? rc : bcn_detect_rule_hot(r);
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
	free(r.slow_fwd);
	bcn_net_free(&r.topo);
	for (size_t i = 0; i < 5; i++)
		bcn_grid_free(grids[i]);
	return rc;
}

