/* The per-job report's other layers (report.h): the forwarding nodes of
 * the job's I/O nodes with their own traffic, latency and queue, and the
 * OSTs and MDTs whose job_stats name the job, with their totals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_int.h"
#include "common/error.h"
#include "jobdb/jobdb.h"
#include "analysis/stores.h"

/* ---- forwarding ---- */

struct fwd_pass {
	struct bcn_report_cpass *c;
	struct bcn_tally *fwds;         /* fwd -> job read, write, ops, nodes */
	int err;
};

/* fwds' counters: the job's read, write, ops through it (its covered
 * nodes'), job nodes behind it, of them covered by client collection,
 * and I/O nodes behind it */
#define FW_NODES 3
#define FW_TRACED 4
#define FW_IO 5

/* A map entry: a job node (its nodelist, or an I/O node when the job has
 * none) and its forwarding node. */
static int map_node(void *arg, const char *node, const char *fwd)
{
	struct fwd_pass *p = arg;
	struct bcn_tally_entry *n = bcn_tally_find(&p->c->nodes, node), *f;
	struct bcn_tally_entry *j = bcn_tally_find(&p->c->jnodes, node);
	int rc;

	if (!n && !j)
		return 0;
	if ((rc = bcn_tally_get(p->fwds, fwd, &f))) {
		p->err = rc;
		return 1;
	}
	f->v[FW_NODES]++;
	if (!j || j->v[2])      /* covered: its I/O is known */
		f->v[FW_TRACED]++;
	if (!n)
		return 0;
	f->v[0] += n->v[0];
	f->v[1] += n->v[1];
	f->v[2] += n->v[2];
	f->v[FW_IO]++;
	return 0;
}

/* What one forwarding node did in the window (its fwd_req records). */
struct fwd_load {
	struct bcn_report_part *p;
	struct bcn_tally *rpc_targets;
	uint64_t lat_n, lat_sum, proc_n, proc_sum, q_n, q_sum;
};

/* Notes an OST the forwarding node's Lustre client moved data to or
 * from (coverage of the OST layer). */
static void rpc_target(struct fwd_load *l, const struct bcn_rec_fwd_rpc *f)
{
	struct bcn_tally_entry *e;

	if (f->read_bytes || f->write_bytes)
		(void)bcn_tally_get(l->rpc_targets, f->target, &e);
}

static int fwd_record(void *arg, const struct bcn_record *r)
{
	struct fwd_load *l = arg;
	const struct bcn_rec_fwd_req *f = &r->u.fwd_req;

	if (r->type == BCN_REC_FWD_RPC) {
		rpc_target(l, &r->u.fwd_rpc);
		return 0;
	}
	if (r->type != BCN_REC_FWD_REQ)
		return 0;
	l->p->records++;
	switch (f->cls) {
	case BCN_FWD_READ:
		l->p->total_read += f->bytes;
		l->p->total_ops += f->count;
		break;
	case BCN_FWD_WRITE:
		l->p->total_write += f->bytes;
		l->p->total_ops += f->count;
		break;
	case BCN_FWD_ALL:
		l->lat_n += f->latency.count;
		l->lat_sum += f->latency.sum;
		l->proc_n += f->proc.count;
		l->proc_sum += f->proc.sum;
		if ((double)f->latency.p95 > l->p->lat_p95_us)
			l->p->lat_p95_us = (double)f->latency.p95;
		l->q_n += f->queue.count;
		l->q_sum += f->queue.sum;
		break;
	default:
		l->p->total_ops += f->count;
		break;
	}
	return 0;
}

static double share(uint64_t part, uint64_t total)
{
	if (!total)
		return part ? 1.0 : 0.0;
	return part >= total ? 1.0 : (double)part / (double)total;
}

static struct bcn_report_part *new_part(struct bcn_report *r, size_t *cap)
{
	struct bcn_report_part *p;

	if (r->nparts == *cap) {
		size_t n = *cap ? *cap * 2 : 16;

		p = realloc(r->parts, n * sizeof(*p));
		if (!p)
			return NULL;
		r->parts = p;
		*cap = n;
	}
	p = &r->parts[r->nparts++];
	memset(p, 0, sizeof(*p));
	return p;
}

/* Forwarding coverage: nodes that sent request windows in the window,
 * the others listed. */
static int forward_cover(struct bcn_report *r, struct bcn_tally *fwds,
			 const uint64_t *records)
{
	struct bcn_report_cover *cv = &r->cover[BCN_COVER_FORWARD];
	const char **miss = calloc(fwds->n + 1, sizeof(*miss));
	size_t nmiss = 0;
	int rc = 0;

	if (!miss)
		return -ENOMEM;
	for (size_t i = 0; i < fwds->n; i++) {
		if (records[i])
			cv->reported++;
		else
			miss[nmiss++] = fwds->e[i].key;
	}
	cv->expected = fwds->n;
	cv->known = fwds->n > 0;
	cv->complete = cv->known && !nmiss;
	if (nmiss)
		rc = bcn_report_missing_list(cv, miss, nmiss);
	free(miss);
	return rc;
}

/* The job's requests through forwarding node p (its bytes at the node's
 * mean request size) times their mean wait, into r->server_wait_ns. */
static void server_wait(struct bcn_report *r, const struct bcn_report_part *p)
{
	uint64_t job = p->read_bytes + p->write_bytes;
	uint64_t all = p->total_read + p->total_write;
	double reqs;

	if (!job || !all || !p->total_ops || p->wait_mean_us <= 0)
		return;
	reqs = (double)job * (double)p->total_ops / (double)all;
	r->server_wait_ns += (int64_t)(reqs * p->wait_mean_us * 1000.0);
}

/* One forwarding node's part: its own traffic in the window. */
static int forward_part(const struct bcn_stores *st, struct bcn_report *r,
			struct bcn_report_cpass *c, struct bcn_tally_entry *e,
			struct bcn_report_part *p)
{
	struct fwd_load l = { .p = p, .rpc_targets = &c->rpc_targets };
	struct bcn_store_query q = {
		.layer = BCN_LAYER_FORWARD, .entity = e->key,
		.from = r->window_from, .to = r->window_to,
		.any_order = true,   /* they only add up */
	};
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->layer, sizeof(p->layer), "forward");
	snprintf(p->component, sizeof(p->component), "%s", e->key);
	p->read_bytes = e->v[0];
	p->write_bytes = e->v[1];
	p->ops = e->v[2];
	p->nodes = e->v[FW_NODES];
	p->nodes_traced = e->v[FW_TRACED];
	rc = bcn_stores_scan(st, &q, fwd_record, &l);
	p->share = share(p->read_bytes + p->write_bytes,
			 p->total_read + p->total_write);
	if (l.lat_n)
		p->lat_mean_us = (double)l.lat_sum / (double)l.lat_n;
	if (l.proc_n)
		p->proc_mean_us = (double)l.proc_sum / (double)l.proc_n;
	if (l.lat_n && l.proc_n && p->lat_mean_us > p->proc_mean_us)
		p->wait_mean_us = p->lat_mean_us - p->proc_mean_us;
	if (l.q_n)
		p->queue_mean = (double)l.q_sum / (double)l.q_n;
	server_wait(r, p);
	return rc;
}

/* The forwarding nodes of the job's nodes: each one's part when an I/O
 * node of the job, or a node whose I/O is unknown (no client
 * collection), is behind it; all of them for the coverage. */
static int forward_parts(const struct bcn_stores *st, struct bcn_jobdb *db,
			 struct bcn_report *r, struct bcn_report_cpass *c,
			 const struct bcn_report_config *cfg, size_t *cap)
{
	struct bcn_tally fwds;
	struct fwd_pass fp = { c, &fwds, 0 };
	uint64_t *records = NULL;
	int rc = 0;

	bcn_tally_init(&fwds, cfg->targets_max);
	if (c->nodes.n || c->jnodes.n) {
		rc = bcn_jobdb_fwd_map(db, r->io_first ? r->io_first : r->start,
				       map_node, &fp);
		rc = fp.err ? fp.err : rc < 0 ? rc : 0;
	}
	if (!rc && !(records = calloc(fwds.n + 1, sizeof(*records))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < fwds.n; i++) {
		struct bcn_tally_entry *e = &fwds.e[i];
		struct bcn_report_part *p = new_part(r, cap);

		if (!p) {
			rc = -ENOMEM;
			break;
		}
		rc = forward_part(st, r, c, e, p);
		records[i] = p->records;
		if (!e->v[FW_IO] && e->v[FW_TRACED] == e->v[FW_NODES])
			r->nparts--;    /* no I/O of the job through it */
	}
	if (rc == -BCN_EFULL) {
		bcn_report_partial(r, "more forwarding nodes than targets_max");
		rc = 0;
	}
	if (!rc && fwds.n)
		rc = forward_cover(r, &fwds, records);
	free(records);
	bcn_tally_free(&fwds);
	return rc;
}

/* ---- OSTs and MDTs ---- */

struct tgt_pass {
	struct bcn_tally t;             /* target -> read, write, ops */
	int64_t *busy;                  /* by the tally's index: the time of
					 * its job parts with bytes */
	size_t nbusy;
	bool totals;                    /* counting the targets' own records */
	struct bcn_tally_entry *only;   /* totals of this target */
	uint64_t only_records;          /* ... from this many records */
	uint64_t io_n;                  /* ... bulk RPCs in its I/O time
					 * histogram */
	double io_ms;                   /* ... their time, ms */
	struct bcn_report_cpass *c;     /* the job parts over time */
};

/* Notes the time of a job part with bytes for target e. */
static int part_busy(struct tgt_pass *p, const struct bcn_tally_entry *e,
		     int64_t dur)
{
	size_t i = (size_t)(e - p->t.e);

	if (i >= p->nbusy) {
		size_t n = p->nbusy ? p->nbusy * 2 : 64;
		int64_t *b;

		while (n <= i)
			n *= 2;
		if (!(b = realloc(p->busy, n * sizeof(*b))))
			return -ENOMEM;
		memset(b + p->nbusy, 0, (n - p->nbusy) * sizeof(*b));
		p->busy = b;
		p->nbusy = n;
	}
	p->busy[i] += dur > 0 ? dur : 1000000000ll;
	return 0;
}

/* The disk I/O time histograms of a target's own record (brw_stats:
 * label 2^i ms is bucket i, counted at its label). */
static void iotime(struct tgt_pass *p, const struct bcn_rec_ost *o)
{
	for (int i = 0; i < BCN_HIST_BUCKETS; i++) {
		uint64_t n = o->iotime_read[i] + o->iotime_write[i];

		p->io_n += n;
		p->io_ms += (double)n * (double)(1ull << i);
	}
}

/* A job part over time, for the volume from the servers: bytes and bulk
 * RPCs of OSTs, operations of MDTs. */
static void job_part_time(struct tgt_pass *p, const struct bcn_record *r,
			  uint64_t rd, uint64_t wr, uint64_t ops)
{
	struct bcn_report_cpass *c = p->c;

	if (r->type == BCN_REC_OST) {
		bcn_report_bucket_add(c, &c->srv, r->t, r->dur, rd, wr);
		c->r->ost_read_ops += r->u.ost.ops[BCN_OST_READ];
		c->r->ost_write_ops += r->u.ost.ops[BCN_OST_WRITE];
	} else {
		bcn_report_bucket_meta(c, &c->srv, r->t, r->dur, ops);
	}
}

static uint64_t ost_ops(const struct bcn_rec_ost *o)
{
	uint64_t n = 0;

	for (int i = 0; i < BCN_OST_OP_MAX; i++)
		n += o->ops[i];
	return n;
}

static uint64_t mds_ops(const struct bcn_rec_mds *m)
{
	uint64_t n = 0;

	for (int i = 0; i < BCN_MD_OP_MAX; i++)
		n += m->ops[i];
	return n;
}

static int tgt_record(void *arg, const struct bcn_record *r)
{
	struct tgt_pass *p = arg;
	const char *target, *client, *jobid;
	uint64_t rd = 0, wr = 0, ops;
	struct bcn_tally_entry *e;
	int rc;

	if (r->type == BCN_REC_OST) {
		target = r->u.ost.target;
		client = r->u.ost.client;
		jobid = r->u.ost.jobid;
		rd = r->u.ost.read_bytes;
		wr = r->u.ost.write_bytes;
		ops = ost_ops(&r->u.ost);
	} else if (r->type == BCN_REC_MDS) {
		target = r->u.mds.target;
		client = r->u.mds.client;
		jobid = r->u.mds.jobid;
		ops = mds_ops(&r->u.mds);
	} else {
		return 0;
	}
	if (p->totals) {
		/* the target's own record, not a job's or an export's part */
		if (client[0] || jobid[0])
			return 0;
		e = p->only;
		p->only_records++;
		if (r->type == BCN_REC_OST)
			iotime(p, &r->u.ost);
		e->v[3] += rd;
		e->v[4] += wr;
		e->v[5] += ops;
		return 0;
	}
	if ((rc = bcn_tally_get(&p->t, target, &e)))
		return rc;
	job_part_time(p, r, rd, wr, ops);
	if ((rd || wr) && (rc = part_busy(p, e, r->dur)))
		return rc;
	e->v[0] += rd;
	e->v[1] += wr;
	e->v[2] += ops;
	return 0;
}

static int target_parts(const struct bcn_stores *st, struct bcn_report *r,
			const struct bcn_report_config *cfg,
			struct bcn_report_cpass *c, int layer, size_t *cap)
{
	struct tgt_pass tp = { .totals = false, .c = c };
	struct bcn_store_query q = {
		.layer = layer, .job = r->job,
		.from = r->window_from, .to = r->window_to,
		.any_order = true,   /* they only add up */
	};
	int rc;

	bcn_tally_init(&tp.t, cfg->targets_max);
	rc = bcn_stores_scan(st, &q, tgt_record, &tp);
	if (rc == -BCN_EFULL) {
		bcn_report_partial(r, "more targets than targets_max");
		rc = 0;
	}
	tp.totals = true;
	q.job = 0;
	for (size_t i = 0; !rc && i < tp.t.n; i++) {
		struct bcn_tally_entry *e = &tp.t.e[i];
		struct bcn_report_part *p;

		tp.only = e;
		tp.only_records = tp.io_n = 0;
		tp.io_ms = 0;
		q.entity = e->key;
		if ((rc = bcn_stores_scan(st, &q, tgt_record, &tp)))
			break;
		if (!(p = new_part(r, cap))) {
			rc = -ENOMEM;
			break;
		}
		snprintf(p->layer, sizeof(p->layer), "%s",
			 layer == BCN_LAYER_OST ? "ost" : "mds");
		snprintf(p->component, sizeof(p->component), "%s", e->key);
		p->read_bytes = e->v[0];
		p->write_bytes = e->v[1];
		p->ops = e->v[2];
		p->total_read = e->v[3];
		p->total_write = e->v[4];
		p->total_ops = e->v[5];
		p->records = tp.only_records;
		if (i < tp.nbusy && tp.busy[i] > 0) {
			p->busy_ns = tp.busy[i];
			p->rate = (double)(p->read_bytes + p->write_bytes) *
				  1e9 / (double)p->busy_ns;
		}
		if (tp.io_n)
			p->iotime_ms = tp.io_ms / (double)tp.io_n;
		p->share = layer == BCN_LAYER_OST ?
			   share(p->read_bytes + p->write_bytes,
				 p->total_read + p->total_write) :
			   share(p->ops, p->total_ops);
		if (layer == BCN_LAYER_MDS)
			r->meta_ops += p->ops;
	}
	bcn_tally_free(&tp.t);
	free(tp.busy);
	return rc;
}

static int layer_rank(const char *l)
{
	return !strcmp(l, "forward") ? 0 : !strcmp(l, "ost") ? 1 : 2;
}

static int by_component(const void *a, const void *b)
{
	const struct bcn_report_part *p = a, *q = b;
	int d = layer_rank(p->layer) - layer_rank(q->layer);

	return d ? d : strcmp(p->component, q->component);
}

int bcn_report_parts(const struct bcn_stores *st, struct bcn_jobdb *db,
		     struct bcn_report *r, const struct bcn_report_config *cfg,
		     struct bcn_report_cpass *c)
{
	size_t cap = 0;
	int rc;

	if ((rc = forward_parts(st, db, r, c, cfg, &cap)))
		return rc;
	if ((rc = target_parts(st, r, cfg, c, BCN_LAYER_OST, &cap)))
		return rc;
	if ((rc = target_parts(st, r, cfg, c, BCN_LAYER_MDS, &cap)))
		return rc;
	if (!r->meta_ops)
		r->meta_ops = r->meta_ops_client;
	if (r->nparts)
		qsort(r->parts, r->nparts, sizeof(*r->parts), by_component);
	return 0;
}
