/* beacon-sim's scale mode (scale.h): the collectors' records, built from
 * the simulator's state after each tick and sent on one connection per
 * collector, with each collector's health record every health_every.
 * Collector k (compute nodes first, then forwarding nodes, OSS, MDS and
 * switches, in index order) belongs to the process whose part K/N has
 * k % N == K; compute nodes without client collection (no_client) have
 * no collector and no connection. */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fileid.h"
#include "collectors/forwarder/fwdreq.h"
#include "collectors/lustre/lustre_hist.h"
#include "proto/auth.h"
#include "common/error.h"
#include "common/log.h"
#include "delivery/sender.h"
#include "delivery/shardmap.h"
#include "collectors/switch/topofile.h"
#include "compress/iorun.h"
#include "sim/scale.h"
#include "sim/sim_int.h"

#define FWD_SAMPLES 4096                /* exact percentiles up to this
					 * many requests per window */
#define CLIENT_SLOTS 8                  /* as beacon-clientd's LWFS source */
#define PATH_ARENA (64u << 20)
#define CREC_MAX (1u << 24)             /* client runs in one tick */
#define MTU_UNIT 4                      /* port data counters: 4 bytes */
#define TOPO_EVERY_NS 3600000000000ll   /* topology records, as beacon-swd */

enum { K_CN, K_FWD, K_OSS, K_MDS, K_SW, K_MAX };
static const struct {
	const char *prefix;
	int width;
	const char *program;            /* the daemon, in health records */
} kind_name[K_MAX] = {
	{ "cn", 5, "beacon-clientd" }, { "fwd", 3, "beacon-fwdd" },
	{ "oss", 3, "beacon-ostd" }, { "mds", 2, "beacon-mdsd" },
	{ "sw", 2, "beacon-swd" },
};

/* One compute-node io run of this tick. */
struct crec {
	uint64_t node, job, pid;
	struct bcn_iorun run;
	size_t path;                    /* offset in paths, or SIZE_MAX */
	size_t seq;                     /* position when added: sort key */
};

struct bcn_sim_scale {
	struct bcn_sim *s;
	struct bcn_auth_key key;
	struct bcn_sim_wire *w;
	uint64_t part_k, part_n;
	uint64_t first[K_MAX + 1];      /* first collector index per kind */
	size_t nconns;
	struct bcn_frame_builder b;
	/* compute nodes */
	struct bcn_iorun_ctx io;
	uint64_t cur_node, cur_job, cur_pid;
	bool cur_set;
	char cur_path[BCN_SIM_FSNAME_MAX + 128];
	size_t cur_path_len;
	uint64_t cur_file;              /* bcn_file_id of cur_path */
	struct crec *crec;
	size_t ncrec, crec_cap;
	struct bcn_buf paths;
	/* forwarding nodes: beacon-fwdd's windows, for the owned ones, and
	 * their osc devices' counters when last sent (nfwd x nost, made at
	 * a device's first RPC) */
	struct bcn_fwdreq *fwdq;
	struct bcn_sim_osc_ctr **oprev;
	/* switches */
	struct bcn_sim_port *pprev;
	int64_t sw_last;                /* last switch sample; < 0: none */
	int64_t sw_from;                /* tick the first one starts at */
	struct bcn_topo_link *links;    /* the fabric's cabling, file order */
	size_t nlinks, links_cap;
	int64_t topo_last;              /* when sent; < 0: never */
	uint64_t build_errors;
	/* health records: records made per connection slot, samples */
	uint64_t *made;
	uint64_t samples, sw_samples;
	size_t nplayed;                 /* collectors with a connection */
	int64_t started;                /* simulated ns; < 0: not yet */
	int64_t health_last, health_next;
};

static bool owned(const struct bcn_sim_scale *x, uint64_t k)
{
	return k % x->part_n == x->part_k;
}

static size_t slot(const struct bcn_sim_scale *x, uint64_t k)
{
	return (size_t)(k / x->part_n);
}

/* Whether this process plays collector k: owned, and not a compute node
 * without client collection (no_client: no collector, no connection). */
static bool plays(const struct bcn_sim_scale *x, uint64_t k)
{
	return owned(x, k) &&
	       (k >= x->first[K_FWD] || !x->s->noclient[k - x->first[K_CN]]);
}

static int64_t tick_ns(const struct bcn_sim *s)
{
	return (int64_t)(s->tick_s * 1e9);
}

/* Start of the tick just simulated. */
static int64_t tick_t(const struct bcn_sim *s)
{
	return s->epoch_ns + (int64_t)((double)(s->tick - 1) * s->tick_s *
				       1e9);
}

static void submit(struct bcn_sim_scale *x, uint64_t k)
{
	int rc = bcn_sim_wire_submit(x->w, slot(x, k), &x->b);

	if (rc) {
		x->build_errors += bcn_frame_builder_count(&x->b);
		bcn_frame_builder_free(&x->b);
		(void)bcn_frame_builder_init(&x->b, &(struct bcn_frame_limits)
					     BCN_FRAME_LIMITS_DEFAULT, 1);
	}
}

/* Adds r to k's frame; a data record (not a health record) counts in
 * k's records made. */
static void add_rec(struct bcn_sim_scale *x, uint64_t k,
		    const struct bcn_record *r, bool data)
{
	int rc = bcn_frame_builder_add(&x->b, r);

	if (rc == -BCN_EFULL) {
		submit(x, k);
		rc = bcn_frame_builder_add(&x->b, r);
	}
	if (rc)
		x->build_errors++;
	else if (data)
		x->made[slot(x, k)]++;
}

static void add(struct bcn_sim_scale *x, uint64_t k, const struct bcn_record *r)
{
	add_rec(x, k, r, true);
}

/* ---- compute nodes: what beacon-clientd's LWFS source sends ------------- */

static void emit_run(void *arg, const struct bcn_iorun *run)
{
	struct bcn_sim_scale *x = arg;
	struct crec *c;

	if (x->ncrec == x->crec_cap) {
		size_t cap = x->crec_cap ? x->crec_cap * 2 : 4096;
		struct crec *n;

		if (cap > CREC_MAX || !(n = realloc(x->crec, cap * sizeof(*n)))) {
			x->build_errors++;
			return;
		}
		x->crec = n;
		x->crec_cap = cap;
	}
	c = &x->crec[x->ncrec];
	c->seq = x->ncrec++;
	c->node = x->cur_node;
	c->job = x->cur_job;
	c->pid = x->cur_pid;
	c->run = *run;
	c->path = SIZE_MAX;
	if (run->op == BCN_IO_OPEN && x->paths.len + x->cur_path_len + 1 <=
	    PATH_ARENA) {
		c->path = x->paths.len;
		if (bcn_buf_add(&x->paths, x->cur_path, x->cur_path_len) ||
		    bcn_buf_add(&x->paths, "", 1))
			c->path = SIZE_MAX;
	}
}

static void client_op(struct bcn_sim *s, const struct bcn_sim_client_op *op,
		      void *arg)
{
	struct bcn_sim_scale *x = arg;
	struct bcn_ioop io = { .fd = (int64_t)op->handle, .start = op->t,
			       .end = op->t };

	if (!owned(x, x->first[K_CN] + op->node))
		return;
	(void)s;
	if (!x->cur_set || op->node != x->cur_node ||
	    op->job->id != x->cur_job) {
		/* a new (node, job): as the LWFS source's handle table, the
		 * file of every operation is that of the phase's path */
		bcn_iorun_flush(&x->io);
		x->cur_node = op->node;
		x->cur_job = op->job->id;
		x->cur_pid = op->pid;
		x->cur_set = true;
		memcpy(x->cur_path, op->path, op->path_len);
		x->cur_path_len = op->path_len;
		x->cur_file = bcn_file_id(op->path, op->path_len);
	}
	io.file = x->cur_file;
	switch (op->kind) {
	case BCN_SIM_OP_OPEN:
		io.op = BCN_IO_OPEN;
		break;
	case BCN_SIM_OP_DATA:
		io.op = op->write ? BCN_IO_WRITE : BCN_IO_READ;
		io.offset = op->offset;
		io.size = op->size;
		break;
	default:
		io.op = BCN_IO_CLOSE;
		break;
	}
	bcn_iorun_add(&x->io, &io);
	if (op->kind == BCN_SIM_OP_RELEASE)
		bcn_iorun_close_fd(&x->io, io.fd);
}

static int by_node(const void *a, const void *b)
{
	const struct crec *p = a, *q = b;

	if (p->node != q->node)
		return p->node < q->node ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static void send_clients(struct bcn_sim_scale *x)
{
	struct bcn_record r;
	size_t i;

	bcn_iorun_flush(&x->io);
	x->cur_set = false;
	/* qsort is not stable: order by node, then by position */
	if (x->ncrec)
		qsort(x->crec, x->ncrec, sizeof(*x->crec), by_node);
	for (i = 0; i < x->ncrec; i++) {
		const struct crec *c = &x->crec[i];

		bcn_record_init(&r, BCN_REC_IO);
		r.t = c->run.first;
		r.dur = c->run.last > c->run.first ?
			c->run.last - c->run.first : 0;
		r.job = c->job;
		r.u.io.step = 0;
		r.u.io.rank = 0;
		r.u.io.pid = c->pid;
		r.u.io.op = c->run.op;
		r.u.io.fd = c->run.fd;
		r.u.io.file = c->run.file;
		if (c->path != SIZE_MAX)
			r.u.io.path = (const char *)x->paths.data + c->path;
		r.u.io.offset = c->run.offset;
		r.u.io.size = c->run.size;
		r.u.io.count = c->run.count;
		r.u.io.stride = c->run.stride;
		r.u.io.busy = c->run.busy;
		add(x, x->first[K_CN] + c->node, &r);
		if (i + 1 == x->ncrec || x->crec[i + 1].node != c->node)
			submit(x, x->first[K_CN] + c->node);
	}
	x->ncrec = 0;
	bcn_buf_reset(&x->paths);
}

/* ---- forwarding nodes: beacon-fwdd's request windows -------------------- */

/* The fwd_rpc record of one osc device as beacon-fwdd makes it from the
 * device's stats and rpc_stats; false when nothing moved (fwdd sends no
 * record then). */
static bool osc_delta(const struct bcn_sim_osc_ctr *c,
		      const struct bcn_sim_osc_ctr *p, struct bcn_record *r)
{
	struct bcn_rec_fwd_rpc *f = &r->u.fwd_rpc;
	unsigned i;

	f->read_rpcs = c->rpcs[0] - p->rpcs[0];
	f->write_rpcs = c->rpcs[1] - p->rpcs[1];
	f->read_bytes = c->bytes[0] - p->bytes[0];
	f->write_bytes = c->bytes[1] - p->bytes[1];
	f->in_flight = c->in_flight[0] + c->in_flight[1];
	f->pending_pages = c->pending_pages[0] + c->pending_pages[1];
	memset(f->pages_read, 0, sizeof(f->pages_read));
	memset(f->pages_write, 0, sizeof(f->pages_write));
	memset(f->flight_read, 0, sizeof(f->flight_read));
	memset(f->flight_write, 0, sizeof(f->flight_write));
	/* rpc_stats rows to record buckets as beacon-fwdd maps them: pages
	 * rows are 2^i pages, in-flight rows i RPCs */
	for (i = 0; i < BCN_SIM_OSC_HIST; i++) {
		f->pages_read[bcn_lustre_log2_bucket(1ull << i)] +=
			c->pages[0][i] - p->pages[0][i];
		f->pages_write[bcn_lustre_log2_bucket(1ull << i)] +=
			c->pages[1][i] - p->pages[1][i];
		f->flight_read[bcn_lustre_log2_bucket(i)] += c->flight[0][i] -
							     p->flight[0][i];
		f->flight_write[bcn_lustre_log2_bucket(i)] +=
			c->flight[1][i] - p->flight[1][i];
	}
	return f->read_rpcs || f->write_rpcs || f->read_bytes ||
	       f->write_bytes || f->in_flight || f->pending_pages;
}

static void send_osc(struct bcn_sim_scale *x, uint64_t f, uint64_t k)
{
	struct bcn_sim *s = x->s;
	char name[BCN_SIM_FSNAME_MAX + 32];
	struct bcn_record r;
	uint64_t o;

	for (o = 0; o < s->nost; o++) {
		const struct bcn_sim_osc_ctr *c = bcn_sim_osc_get(s, f, o);
		struct bcn_sim_osc_ctr **p = &x->oprev[f * s->nost + o];

		if (!c)
			continue;
		if (!*p && !(*p = calloc(1, sizeof(**p)))) {
			x->build_errors++;
			continue;
		}
		snprintf(name, sizeof(name), "%s-OST%04" PRIx64, s->c.fsname, o);
		bcn_record_init(&r, BCN_REC_FWD_RPC);
		r.t = tick_t(s);
		r.dur = tick_ns(s);
		r.u.fwd_rpc.target = name;
		if (osc_delta(c, *p, &r))
			add(x, k, &r);
		**p = *c;
	}
}

static void send_fwd(struct bcn_sim_scale *x)
{
	struct bcn_sim *s = x->s;
	struct bcn_record recs[BCN_FWD_CLASS_MAX];
	struct bcn_follow_pos pos = { .lineno = 2 };
	uint64_t f, k;
	size_t n, i, at, end;

	for (f = 0; f < s->nfwd; f++) {
		struct bcn_buf *l = &s->fwd[f].lines;

		k = x->first[K_FWD] + f;
		if (owned(x, k)) {
			struct bcn_fwdreq *q = &x->fwdq[f];

			for (at = 0; at < l->len; at = end + 1) {
				const char *p = (const char *)l->data + at;
				const char *nl = memchr(p, '\n', l->len - at);

				end = nl ? (size_t)(nl - (const char *)l->data) :
				      l->len;
				(void)bcn_fwdreq_line(q, p, end - at, &pos);
			}
			q->saw_file = true;
			bcn_fwdreq_finish(q, tick_t(s), tick_ns(s), recs, &n);
			for (i = 0; i < n; i++)
				add(x, k, &recs[i]);
			send_osc(x, f, k);
			submit(x, k);
		}
		bcn_buf_reset(l);
	}
}

/* ---- OSS and MDS: beacon-ostd's and beacon-mdsd's deltas -------------- */

static bool ost_delta(const struct bcn_sim_ost_ctr *o,
		      const struct bcn_sim_ost_ctr *p, struct bcn_record *r)
{
	bool any = false;
	unsigned i;

	for (i = 0; i < BCN_OST_OP_MAX; i++) {
		r->u.ost.ops[i] = o->ops[i] - p->ops[i];
		any |= r->u.ost.ops[i] != 0;
	}
	r->u.ost.read_bytes = o->read_bytes - p->read_bytes;
	r->u.ost.write_bytes = o->write_bytes - p->write_bytes;
	return any || r->u.ost.read_bytes || r->u.ost.write_bytes;
}

static void send_ost(struct bcn_sim_scale *x, uint64_t i, uint64_t k)
{
	struct bcn_sim *s = x->s;
	struct bcn_sim_target *t = &s->ost[i];
	char name[BCN_SIM_FSNAME_MAX + 16];
	struct bcn_record r;
	bool moved;
	size_t j;

	snprintf(name, sizeof(name), "%s-OST%04" PRIx64, s->c.fsname, i);
	bcn_record_init(&r, BCN_REC_OST);
	r.t = tick_t(s);
	r.dur = tick_ns(s);
	r.u.ost.target = name;
	r.u.ost.client = "";
	r.u.ost.jobid = "";
	moved = ost_delta(&t->o, &t->po, &r);
	moved = bcn_sim_brw_delta(&t->brw, &t->pbrw, &r) || moved;  /* both */
	if (moved)
		add(x, k, &r);
	t->po = t->o;
	t->pbrw = t->brw;
	/* job records carry no histograms (whole-target only) */
	bcn_record_init(&r, BCN_REC_OST);
	r.t = tick_t(s);
	r.dur = tick_ns(s);
	r.u.ost.target = name;
	r.u.ost.client = "";
	for (j = 0; j < t->njobs; j++) {
		struct bcn_sim_jctr *jc = &t->jobs[j];

		r.job = jc->job;
		r.u.ost.jobid = jc->o.jobid;
		if (ost_delta(&jc->o, &jc->po, &r))
			add(x, k, &r);
		jc->po = jc->o;
	}
}

static void send_mdt(struct bcn_sim_scale *x, uint64_t i, uint64_t k)
{
	struct bcn_sim *s = x->s;
	struct bcn_sim_target *t = &s->mdt[i];
	char name[BCN_SIM_FSNAME_MAX + 16];
	struct bcn_record r;
	size_t j;
	bool any;
	unsigned o;

	snprintf(name, sizeof(name), "%s-MDT%04" PRIx64, s->c.fsname, i);
	bcn_record_init(&r, BCN_REC_MDS);
	r.t = tick_t(s);
	r.dur = tick_ns(s);
	r.u.mds.target = name;
	r.u.mds.client = "";
	r.u.mds.jobid = "";
	for (j = 0; j <= t->njobs; j++) {
		struct bcn_sim_mdt_ctr *m = j ? &t->jobs[j - 1].m : &t->m;
		struct bcn_sim_mdt_ctr *p = j ? &t->jobs[j - 1].pm : &t->pm;

		if (j) {
			r.job = t->jobs[j - 1].job;
			r.u.mds.jobid = m->jobid;
		}
		for (o = 0, any = false; o < BCN_MD_OP_MAX; o++) {
			r.u.mds.ops[o] = m->ops[o] - p->ops[o];
			any |= r.u.mds.ops[o] != 0;
		}
		if (any)
			add(x, k, &r);
		*p = *m;
	}
}

static void send_servers(struct bcn_sim_scale *x)
{
	struct bcn_sim *s = x->s;
	uint64_t o, i, k;

	for (o = 0; o < s->c.oss; o++) {
		k = x->first[K_OSS] + o;
		for (i = o * s->c.osts_per_oss;
		     owned(x, k) && i < (o + 1) * s->c.osts_per_oss; i++)
			send_ost(x, i, k);
		if (owned(x, k))
			submit(x, k);
	}
	for (i = 0; i < s->nmdt; i++) {
		k = x->first[K_MDS] + i;
		if (owned(x, k)) {
			send_mdt(x, i, k);
			submit(x, k);
		}
	}
	for (i = 0; i < s->nost; i++)
		bcn_sim_target_cleanup(s, &s->ost[i]);
	for (i = 0; i < s->nmdt; i++)
		bcn_sim_target_cleanup(s, &s->mdt[i]);
}

/* ---- switches: beacon-swd's port deltas -------------------------------- */

static int keep_link(void *arg, const struct bcn_topo_link *l)
{
	struct bcn_sim_scale *x = arg;

	if (x->nlinks == x->links_cap) {
		size_t cap = x->links_cap ? 2 * x->links_cap : 256;
		struct bcn_topo_link *n = realloc(x->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		x->links = n;
		x->links_cap = cap;
	}
	x->links[x->nlinks++] = *l;
	return 0;
}

/* The cabling as beacon-swd's topology_file would give it: the sim's
 * ibnetdiscover text (sim_ib.c) through the same parser. */
static int load_topology(struct bcn_sim_scale *x)
{
	struct bcn_buf t;
	int rc;

	bcn_buf_init(&t, 64u << 20);
	rc = bcn_sim_ib_topology(x->s, &t);
	if (!rc)
		rc = bcn_topofile_parse((const char *)t.data, t.len, keep_link,
					x, NULL);
	bcn_buf_free(&t);
	return rc;
}

/* Switch sw's topology records at t (beacon-swd sends them hourly); the
 * core switch's with sw 0's. */
static void send_topology(struct bcn_sim_scale *x, uint64_t sw, uint64_t k,
			  int64_t t)
{
	char guid[BCN_TOPO_GUID_MAX], core[BCN_TOPO_GUID_MAX];
	struct bcn_record r;

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, BCN_SIM_SW_GUID + sw + 1);
	snprintf(core, sizeof(core), "0x%016" PRIx64, BCN_SIM_CORE_GUID);
	for (size_t i = 0; i < x->nlinks; i++) {
		const struct bcn_topo_link *l = &x->links[i];

		/* the core's cabling goes with the first leaf's */
		if (strcmp(l->sw, guid) && (sw || strcmp(l->sw, core)))
			continue;
		bcn_topo_link_record(l, t, &r);
		add(x, k, &r);
	}
}

static void send_switches(struct bcn_sim_scale *x)
{
	struct bcn_sim *s = x->s;
	uint64_t per, sw, p, k;
	int64_t now = tick_t(s) + tick_ns(s);
	char name[32];
	struct bcn_record r;
	bool topo;

	if (!s->c.switches || s->tick % (int64_t)s->c.switch_every)
		return;
	per = (s->c.compute + s->c.switches - 1) / s->c.switches;
	if (x->sw_last < 0)
		x->sw_last = s->epoch_ns + (int64_t)((double)x->sw_from *
						     s->tick_s * 1e9);
	topo = x->topo_last < 0 || now - x->topo_last >= TOPO_EVERY_NS;
	if (topo)
		x->topo_last = now;
	for (sw = 0; sw < s->c.switches; sw++) {
		k = x->first[K_SW] + sw;
		if (!owned(x, k))
			continue;
		if (topo)
			send_topology(x, sw, k, now);
		snprintf(name, sizeof(name), "sw%02" PRIu64, sw + 1);
		for (p = 0; p <= per; p++) {
			struct bcn_sim_port *c = &s->ports[sw * (per + 1) + p];
			struct bcn_sim_port *o = &x->pprev[sw * (per + 1) + p];

			bcn_record_init(&r, BCN_REC_PORT);
			r.t = x->sw_last;
			r.dur = now - x->sw_last;
			r.u.port.sw = name;
			r.u.port.port = p + 1;
			r.u.port.xmit_bytes = (c->xmit_bytes / MTU_UNIT -
					       o->xmit_bytes / MTU_UNIT) *
					      MTU_UNIT;
			r.u.port.rcv_bytes = (c->rcv_bytes / MTU_UNIT -
					      o->rcv_bytes / MTU_UNIT) *
					     MTU_UNIT;
			r.u.port.xmit_pkts = c->xmit_pkts - o->xmit_pkts;
			r.u.port.rcv_pkts = c->rcv_pkts - o->rcv_pkts;
			*o = *c;
			add(x, k, &r);
		}
		submit(x, k);
	}
	x->sw_last = now;
	x->sw_samples++;
}

/* ---- every collector: its health record, as the daemons send it ------- */

/* The health record of collector k (kind kind) at now, as maybe_health in
 * collectors/runtime/collector.c fills it: counters since the start,
 * gauges now, acknowledgements as known so far. */
static void send_health_of(struct bcn_sim_scale *x, uint64_t k, int kind,
			   int64_t now)
{
	struct bcn_sim_wire_conn_stats cs = { 0 };
	struct bcn_rec_health *h;
	struct bcn_record r;

	(void)bcn_sim_wire_conn_stats(x->w, slot(x, k), &cs);
	bcn_record_init(&r, BCN_REC_HEALTH);
	r.t = now;
	r.dur = now - x->health_last;
	h = &r.u.health;
	h->program = kind_name[kind].program;
	h->started = x->started;
	h->samples = kind == K_SW ? x->sw_samples : x->samples;
	h->records = x->made[slot(x, k)];
	h->acked_records = cs.acked_records;
	h->dropped_records = cs.dropped_records;
	h->buffered_bytes = cs.queued_bytes;
	h->buffer_max = x->s->c.send_buffer;
	h->connected = cs.up;
	h->reconnects = cs.connects > 1 ? cs.connects - 1 : 0;
	h->connect_failures = cs.connect_failures;
	h->resent = cs.resent;
	add_rec(x, k, &r, false);
	submit(x, k);
}

/* Every health_every of simulated time, from the first tick sent, a
 * health record from every collector this process plays. */
static void send_health(struct bcn_sim_scale *x)
{
	struct bcn_sim *s = x->s;
	int64_t now = tick_t(s) + tick_ns(s);
	uint64_t k;
	int kind = 0;

	x->samples++;
	if (x->started < 0) {
		x->started = x->health_last = tick_t(s);
		x->health_next = now;
	}
	if (s->c.health_every_ms <= 0 || now < x->health_next)
		return;
	for (k = x->part_k; k < x->first[K_MAX]; k += x->part_n) {
		while (k >= x->first[kind + 1])
			kind++;
		if (plays(x, k))
			send_health_of(x, k, kind, now);
	}
	x->health_last = now;
	x->health_next = now + s->c.health_every_ms * 1000000LL;
}

void bcn_sim_scale_skip(struct bcn_sim_scale *x)
{
	struct bcn_sim *s = x->s;
	uint64_t f, i, per;

	bcn_iorun_flush(&x->io);
	x->cur_set = false;
	x->ncrec = 0;
	bcn_buf_reset(&x->paths);
	for (f = 0; f < s->nfwd; f++) {
		bcn_buf_reset(&s->fwd[f].lines);
		for (i = 0; owned(x, x->first[K_FWD] + f) && i < s->nost; i++) {
			const struct bcn_sim_osc_ctr *c = bcn_sim_osc_get(s, f, i);
			struct bcn_sim_osc_ctr **p = &x->oprev[f * s->nost + i];

			if (c && (*p || (*p = malloc(sizeof(**p)))))
				**p = *c;
		}
	}
	for (i = 0; i < s->nost + s->nmdt; i++) {
		struct bcn_sim_target *t = i < s->nost ? &s->ost[i] :
					   &s->mdt[i - s->nost];
		size_t j;

		t->po = t->o;
		t->pm = t->m;
		t->pbrw = t->brw;
		for (j = 0; j < t->njobs; j++) {
			t->jobs[j].po = t->jobs[j].o;
			t->jobs[j].pm = t->jobs[j].m;
		}
		bcn_sim_target_cleanup(s, t);
	}
	per = s->c.switches ? (s->c.compute + s->c.switches - 1) /
			      s->c.switches : 0;
	if (s->c.switches)
		memcpy(x->pprev, s->ports,
		       s->c.switches * (per + 1) * sizeof(*x->pprev));
	x->sw_from = s->tick;
}

int bcn_sim_scale_send(struct bcn_sim_scale *x)
{
	send_clients(x);
	send_fwd(x);
	send_servers(x);
	send_switches(x);
	send_health(x);
	return 0;
}

/* ---- set-up ------------------------------------------------------------- */

static int parse_part(const char *p, uint64_t *k, uint64_t *n)
{
	unsigned long long a, b;
	int used = 0;

	if (sscanf(p, "%llu/%llu%n", &a, &b, &used) != 2 || p[used] ||
	    b < 1 || a >= b || b > 4096)
		return -EINVAL;
	*k = a;
	*n = b;
	return 0;
}

/* The address of endpoint "host:port" or of a shard's primary. */
static int resolve(const struct bcn_shard_endpoint *ep,
		   struct sockaddr_storage *sa, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char port[8];
	int rc;

	snprintf(port, sizeof(port), "%u", (unsigned)ep->port);
	rc = getaddrinfo(ep->host, port, &hints, &ai);
	if (rc)
		return -EHOSTUNREACH;
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* The endpoints: each shard's primary, or the server list. */
struct eps {
	struct sockaddr_storage sa[BCN_SIM_SERVERS_MAX];
	socklen_t len[BCN_SIM_SERVERS_MAX];
	size_t n;
	struct bcn_shardmap *map;
	int shard_ep[BCN_SIM_SERVERS_MAX];      /* shard index -> sa */
};

static int add_conns(struct bcn_sim_scale *x, struct eps *e, char *err,
		     size_t errlen)
{
	uint64_t k, base = bcn_sender_seq_origin(), idx;
	char node[32];
	size_t a;
	int kind = 0, rc;

	for (k = x->part_k; k < x->first[K_MAX]; k += x->part_n) {
		while (k >= x->first[kind + 1])
			kind++;
		if (!plays(x, k))
			continue;       /* no_client: no collector there */
		idx = k - x->first[kind] + 1;
		snprintf(node, sizeof(node), "%s%0*" PRIu64,
			 kind_name[kind].prefix, kind_name[kind].width, idx);
		if (e->map) {
			const struct bcn_shard *sh =
				bcn_shardmap_lookup(e->map, node);

			if (!sh || sh->index >= BCN_SIM_SERVERS_MAX ||
			    e->shard_ep[sh->index] < 0) {
				snprintf(err, errlen, "%s: no log server in "
					 "the shard map", node);
				return -EINVAL;
			}
			a = (size_t)e->shard_ep[sh->index];
		} else {
			a = (size_t)(k % e->n);
		}
		rc = bcn_sim_wire_add(x->w, slot(x, k), node,
				      (const struct sockaddr *)&e->sa[a],
				      e->len[a], base);
		if (rc) {
			snprintf(err, errlen, "%s: %s", node, bcn_strerror(rc));
			return rc;
		}
		x->nplayed++;
	}
	return 0;
}

static int load_eps(const struct bcn_sim_conf *c, struct eps *e, char *err,
		    size_t errlen)
{
	struct bcn_shard_endpoint ep;
	size_t i, n;
	int rc;

	memset(e->shard_ep, -1, sizeof(e->shard_ep));
	if (c->shardmap[0]) {
		rc = bcn_shardmap_load(c->shardmap, &e->map, err, errlen);
		if (rc)
			return rc;
		n = bcn_shardmap_count(e->map) + 1;
		for (i = 0; i < n && i < BCN_SIM_SERVERS_MAX; i++) {
			const struct bcn_shard *sh = i + 1 < n ?
				bcn_shardmap_get(e->map, i) :
				bcn_shardmap_default(e->map);

			if (!sh || !sh->primary.port)
				continue;
			if (resolve(&sh->primary, &e->sa[e->n], &e->len[e->n])) {
				snprintf(err, errlen, "%s: cannot resolve",
					 sh->primary.host);
				return -EHOSTUNREACH;
			}
			e->shard_ep[sh->index] = (int)e->n++;
		}
		return 0;
	}
	for (i = 0; i < c->nservers; i++) {
		rc = bcn_sender_endpoint_parse(c->servers[i],
					       strlen(c->servers[i]), &ep);
		if (!rc)
			rc = resolve(&ep, &e->sa[e->n], &e->len[e->n]);
		if (rc) {
			snprintf(err, errlen, "server %s: %s", c->servers[i],
				 bcn_strerror(rc));
			return rc;
		}
		e->n++;
	}
	if (!e->n) {
		snprintf(err, errlen, "scale mode needs a shard map or a "
			 "server");
		return -EINVAL;
	}
	return 0;
}

static int setup(struct bcn_sim_scale *x, char *err, size_t errlen)
{
	const struct bcn_sim_conf *c = &x->s->c;
	struct bcn_sim_wire_conf wc = {
		.key = &x->key, .window = c->send_window,
		.queue_bytes = c->send_buffer, .backoff_min_ms = 200,
		.backoff_max_ms = 30000, .ack_timeout_ms = 30000,
	};
	uint64_t f, per;
	struct eps *e = calloc(1, sizeof(*e));
	int rc;

	if (!e)
		return -ENOMEM;
	rc = load_eps(c, e, err, errlen);
	if (!rc)
		rc = bcn_sim_wire_new(&wc, x->nconns, &x->w);
	if (!rc)
		rc = add_conns(x, e, err, errlen);
	bcn_shardmap_free(e->map);
	free(e);
	if (rc)
		return rc;
	x->made = calloc(x->nconns + 1, sizeof(*x->made));
	x->fwdq = calloc(x->s->nfwd + 1, sizeof(*x->fwdq));
	x->oprev = calloc(x->s->nfwd * x->s->nost + 1, sizeof(*x->oprev));
	if (!x->made || !x->fwdq || !x->oprev)
		return -ENOMEM;
	for (f = 0; f < x->s->nfwd; f++)
		if (owned(x, x->first[K_FWD] + f) &&
		    (rc = bcn_fwdreq_init(&x->fwdq[f], NULL, FWD_SAMPLES)))
			return rc;
	per = c->switches ? (c->compute + c->switches - 1) / c->switches : 0;
	x->pprev = calloc(c->switches * (per + 1) + 1, sizeof(*x->pprev));
	if (!x->pprev)
		return -ENOMEM;
	return 0;
}

int bcn_sim_scale_new(struct bcn_sim *s, struct bcn_sim_scale **out,
		      char *err, size_t errlen)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_sim_scale *x = calloc(1, sizeof(*x));
	const uint64_t counts[K_MAX] = { s->c.compute, s->nfwd, s->c.oss,
					 s->nmdt, s->c.switches };
	int rc, kind;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	x->s = s;
	rc = parse_part(s->c.part, &x->part_k, &x->part_n);
	if (rc) {
		snprintf(err, errlen, "part: \"%s\" is not K/N with K < N <= "
			 "4096", s->c.part);
		goto out;
	}
	for (kind = 0; kind < K_MAX; kind++)
		x->first[kind + 1] = x->first[kind] + counts[kind];
	x->nconns = (size_t)((x->first[K_MAX] + x->part_n - 1 - x->part_k) /
			     x->part_n);
	rc = bcn_auth_key_load(s->c.key_file, &x->key, err, errlen);
	if (rc)
		goto out;
	bcn_buf_init(&x->paths, PATH_ARENA);
	bcn_iorun_init(&x->io, BCN_IORUN_STRIDED, CLIENT_SLOTS, 0, emit_run, x);
	rc = bcn_frame_builder_init(&x->b, &lim, 1);
	if (!rc)
		rc = setup(x, err, errlen);
	if (rc)
		goto out;
	x->sw_last = -1;
	x->topo_last = -1;
	x->started = -1;
	if (s->c.switches && (rc = load_topology(x))) {
		snprintf(err, errlen, "sim: the fabric's topology: %s",
			 bcn_strerror(rc));
		goto out;
	}
	s->client_fn = client_op;
	s->client_arg = x;
	*out = x;
	return 0;
out:
	bcn_sim_scale_free(x);
	return rc;
}

void bcn_sim_scale_free(struct bcn_sim_scale *x)
{
	uint64_t f;

	if (!x)
		return;
	if (x->s->client_arg == x) {
		x->s->client_fn = NULL;
		x->s->client_arg = NULL;
	}
	for (f = 0; x->fwdq && f < x->s->nfwd; f++)
		if (owned(x, x->first[K_FWD] + f))
			bcn_fwdreq_free(&x->fwdq[f]);
	free(x->fwdq);
	for (f = 0; x->oprev && f < x->s->nfwd * x->s->nost; f++)
		free(x->oprev[f]);
	free(x->oprev);
	free(x->pprev);
	free(x->links);
	free(x->crec);
	free(x->made);
	bcn_buf_free(&x->paths);
	bcn_frame_builder_free(&x->b);
	bcn_sim_wire_free(x->w);
	bcn_auth_key_wipe(&x->key);
	free(x);
}

struct bcn_sim_wire *bcn_sim_scale_wire(struct bcn_sim_scale *x)
{
	return x->w;
}

bool bcn_sim_scale_writes_jobs(const struct bcn_sim_scale *x)
{
	return x->part_k == 0;
}

size_t bcn_sim_scale_collectors(const struct bcn_sim_scale *x)
{
	return x->nplayed;
}

uint64_t bcn_sim_scale_build_errors(const struct bcn_sim_scale *x)
{
	return x->build_errors;
}
