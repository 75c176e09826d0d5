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

static int map_node(void *arg, const char *node, const char *fwd)
{
	struct fwd_pass *p = arg;
	struct bcn_tally_entry *n = bcn_tally_find(&p->c->nodes, node), *f;
	int rc;

	if (!n)
		return 0;
	if ((rc = bcn_tally_get(p->fwds, fwd, &f))) {
		p->err = rc;
		return 1;
	}
	f->v[0] += n->v[0];
	f->v[1] += n->v[1];
	f->v[2] += n->v[2];
	f->v[3]++;
	return 0;
}

/* What one forwarding node did in the window (its fwd_req records). */
struct fwd_load {
	struct bcn_report_part *p;
	uint64_t lat_n, lat_sum, q_n, q_sum;
};

static int fwd_record(void *arg, const struct bcn_record *r)
{
	struct fwd_load *l = arg;
	const struct bcn_rec_fwd_req *f = &r->u.fwd_req;

	if (r->type != BCN_REC_FWD_REQ)
		return 0;
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

static int forward_parts(const struct bcn_stores *st, struct bcn_jobdb *db,
			 struct bcn_report *r, struct bcn_report_cpass *c,
			 const struct bcn_report_config *cfg, size_t *cap)
{
	struct bcn_tally fwds;
	struct fwd_pass fp = { c, &fwds, 0 };
	int rc = 0;

	bcn_tally_init(&fwds, cfg->targets_max);
	if (c->nodes.n) {
		rc = bcn_jobdb_fwd_map(db, r->io_first ? r->io_first : r->start,
				       map_node, &fp);
		rc = fp.err ? fp.err : rc < 0 ? rc : 0;
	}
	for (size_t i = 0; !rc && i < fwds.n; i++) {
		struct bcn_tally_entry *e = &fwds.e[i];
		struct bcn_report_part *p = new_part(r, cap);
		struct fwd_load l = { .p = p };
		struct bcn_store_query q = {
			.layer = BCN_LAYER_FORWARD, .entity = e->key,
			.from = r->window_from, .to = r->window_to,
			.any_order = true,   /* they only add up */
		};

		if (!p) {
			rc = -ENOMEM;
			break;
		}
		snprintf(p->layer, sizeof(p->layer), "forward");
		snprintf(p->component, sizeof(p->component), "%s", e->key);
		p->read_bytes = e->v[0];
		p->write_bytes = e->v[1];
		p->ops = e->v[2];
		p->nodes = e->v[3];
		rc = bcn_stores_scan(st, &q, fwd_record, &l);
		p->share = share(p->read_bytes + p->write_bytes,
				 p->total_read + p->total_write);
		if (l.lat_n)
			p->lat_mean_us = (double)l.lat_sum / (double)l.lat_n;
		if (l.q_n)
			p->queue_mean = (double)l.q_sum / (double)l.q_n;
	}
	if (rc == -BCN_EFULL) {
		bcn_report_partial(r, "more forwarding nodes than targets_max");
		rc = 0;
	}
	bcn_tally_free(&fwds);
	return rc;
}

/* ---- OSTs and MDTs ---- */

struct tgt_pass {
	struct bcn_tally t;             /* target -> read, write, ops */
	bool totals;                    /* counting the targets' own records */
	struct bcn_tally_entry *only;   /* totals of this target */
};

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
		e->v[3] += rd;
		e->v[4] += wr;
		e->v[5] += ops;
		return 0;
	}
	if ((rc = bcn_tally_get(&p->t, target, &e)))
		return rc;
	e->v[0] += rd;
	e->v[1] += wr;
	e->v[2] += ops;
	return 0;
}

static int target_parts(const struct bcn_stores *st, struct bcn_report *r,
			const struct bcn_report_config *cfg, int layer,
			size_t *cap)
{
	struct tgt_pass tp = { .totals = false };
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
		p->share = layer == BCN_LAYER_OST ?
			   share(p->read_bytes + p->write_bytes,
				 p->total_read + p->total_write) :
			   share(p->ops, p->total_ops);
		if (layer == BCN_LAYER_MDS)
			r->meta_ops += p->ops;
	}
	bcn_tally_free(&tp.t);
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
	if ((rc = target_parts(st, r, cfg, BCN_LAYER_OST, &cap)))
		return rc;
	if ((rc = target_parts(st, r, cfg, BCN_LAYER_MDS, &cap)))
		return rc;
	if (!r->meta_ops)
		r->meta_ops = r->meta_ops_client;
	if (r->nparts)
		qsort(r->parts, r->nparts, sizeof(*r->parts), by_component);
	return 0;
}
