/* The per-job report, client layer and assembly (report.h): one scan of
 * the job's io records gives bytes, operations, request sizes, the
 * processes and files (the I/O mode), the 1 s bandwidth buckets, the
 * phases and the means; report_parts.c adds the other layers. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/report_int.h"
#include "common/error.h"
#include "jobdb/jobdb.h"
#include "analysis/stores.h"

#define SEC 1000000000ll

void bcn_report_config_defaults(struct bcn_report_config *c)
{
	memset(c, 0, sizeof(*c));
	c->margin_ms = 60000;
	c->series_max = 2048;
	c->seconds_max = 8 * 86400;
	c->pairs_max = 4u << 20;
	c->nodes_max = 1u << 20;
	c->targets_max = 1u << 16;
	c->phase_gap_ms = 5000;
	c->phases_max = 1000;
	c->phase_modes_max = 64;
	c->topology_age_ms = 2 * 3600000ll;
	c->net_imbalance_pct = 300;
	c->net_min_bytes = 1ull << 30;
	bcn_rfiles_config_defaults(&c->files);
	bcn_rnodes_config_defaults(&c->nodes);
	c->cover_pct = 90;
	c->health_grace_ms = 120000;
	c->cover_lookback_ms = 300000;
	bcn_advice_config_defaults(&c->advice);
}

#define MODE_PCT 95

/* Whether part is at least MODE_PCT percent of whole. */
static bool most(uint64_t part, uint64_t whole)
{
	return (unsigned __int128)part * 100 >= (unsigned __int128)whole * MODE_PCT;
}

const char *bcn_report_mode(const struct bcn_report_mode_in *m)
{
	if (!m->bytes || !m->procs)
		return "none";
	if (m->procs == 1 || most(m->top_proc_bytes, m->bytes))
		return "1-1";
	if (most(m->private_bytes, m->bytes))
		return "N-N";
	if (most(m->shared_bytes, m->bytes))
		return most(m->global_bytes, m->shared_bytes) ? "N-1" : "N-M";
	return "mixed";
}

void bcn_report_partial(struct bcn_report *r, const char *why)
{
	if (!r->partial)
		snprintf(r->why, sizeof(r->why), "%s", why);
	r->partial = true;
}

/* ---- the client pass ---- */

static unsigned size_bucket(uint64_t size)
{
	unsigned b = size < 2 ? 0 : 63u - (unsigned)__builtin_clzll(size);

	return b < BCN_HIST_BUCKETS ? b : BCN_HIST_BUCKETS - 1;
}

/* Spreads bytes over the seconds [t, t + dur) overlaps, exactly. */
static void spread(struct bcn_report_cpass *c, uint64_t *col, int64_t t,
		   int64_t dur, uint64_t bytes)
{
	int64_t s = t - c->base, e = s + dur, unit = c->unit;
	uint64_t done = 0;

	if (!bytes)
		return;
	if (s < 0)
		s = 0;
	if (e <= s || dur <= 0 || s / unit == (e - 1) / unit) {
		size_t i = (size_t)(s / unit);   /* within one bucket */

		col[i < c->nsec ? i : c->nsec - 1] += bytes;
		return;
	}
	for (int64_t b = s / unit * unit; b < e; b += unit) {
		int64_t hi = b + unit < e ? b + unit : e;
		size_t i = (size_t)(b / unit);
		uint64_t upto = (uint64_t)((unsigned __int128)bytes *
					   (uint64_t)(hi - s) / (uint64_t)(e - s));

		col[i < c->nsec ? i : c->nsec - 1] += upto - done;
		done = upto;
	}
}

/* Notes a record's [t, t + dur) in the first-start and last-end columns
 * of the buckets it starts and ends in. */
static void span(struct bcn_report_cpass *c, int64_t *first, int64_t *last,
		 int64_t t, int64_t dur)
{
	int64_t s = t - c->base < 0 ? 0 : t - c->base;
	int64_t e = t + dur - c->base;
	size_t a = (size_t)(s / c->unit), b;

	b = e > s ? (size_t)((e - 1) / c->unit) : a;
	a = a < c->nsec ? a : c->nsec - 1;
	b = b < c->nsec ? b : c->nsec - 1;
	if (t < first[a])
		first[a] = t;
	if (t + dur > last[b])
		last[b] = t + dur;
}

/* The tally entry of node, the last one's again when it is the same (a
 * node's records come in runs). */
static int node_entry(struct bcn_report_cpass *c, const char *node,
		      struct bcn_tally_entry **e)
{
	int rc;

	if (c->last_node < c->nodes.n &&
	    !strcmp(c->nodes.e[c->last_node].key, node)) {
		*e = &c->nodes.e[c->last_node];
		return 0;
	}
	if ((rc = bcn_tally_get(&c->nodes, node, e)))
		return rc;
	c->last_node = (size_t)(*e - c->nodes.e);
	return 0;
}

static int client_record(void *arg, const struct bcn_record *r)
{
	struct bcn_report_cpass *c = arg;
	struct bcn_report *rep = c->r;
	struct bcn_record_totals t;
	struct bcn_tally_entry *e;
	uint64_t data, bytes;
	int rc;

	if (r->type == BCN_REC_TRACE_LOSS) {
		const struct bcn_rec_trace_loss *l = &r->u.trace_loss;

		rep->loss.processes++;
		rep->loss.dropped_ops += l->dropped_ops;
		rep->loss.lost_datagrams += l->lost_datagrams;
		rep->loss.untraced += l->untraced;
		rep->loss.cut += l->cut != 0;
		rep->loss.partial += l->partial != 0;
		return 0;
	}
	if (r->type != BCN_REC_IO)
		return 0;
	rep->records++;
	bcn_record_totals(r, &t);
	data = t.read_ops + t.write_ops;
	bytes = t.read_bytes + t.write_bytes;
	rep->read_bytes += t.read_bytes;
	rep->write_bytes += t.write_bytes;
	rep->read_ops += t.read_ops;
	rep->write_ops += t.write_ops;
	rep->meta_ops_client += t.meta_ops;
	rep->other_ops += t.other_ops;
	rep->op_count[r->u.io.op < BCN_IO_OP_MAX ? r->u.io.op :
		      BCN_IO_OTHER] += r->u.io.count;
	if ((rc = bcn_rfiles_add(&c->rf, r, &t)) ||
	    (rc = bcn_rnodes_add(&c->rn, r, &t)))
		return rc;
	if (t.meta_ops)
		spread(c, c->cli.meta, r->t, 0, t.meta_ops);
	if (!data)
		return 0;
	rep->size_hist[size_bucket(r->u.io.size)] += data;
	if (!rep->io_first || r->t < rep->io_first)
		rep->io_first = r->t;
	if (r->t + r->dur > rep->io_last)
		rep->io_last = r->t + r->dur;
	spread(c, c->cli.rd, r->t, r->dur, t.read_bytes);
	spread(c, c->cli.wr, r->t, r->dur, t.write_bytes);
	if (t.read_ops)
		span(c, c->cli.rfirst, c->cli.rlast, r->t, r->dur);
	if (t.write_ops)
		span(c, c->cli.wfirst, c->cli.wlast, r->t, r->dur);
	rc = node_entry(c, r->node, &e);
	if (!rc) {
		e->v[0] += t.read_bytes;
		e->v[1] += t.write_bytes;
		e->v[2] += data;
		rc = bcn_iomode_add(&c->who, r, bytes);
	}
	if (rc == -BCN_EFULL) {
		bcn_report_partial(rep, "too many nodes, processes or files "
				   "for the configured bounds");
		rc = 0;
	}
	return rc;
}

void bcn_report_bucket_add(struct bcn_report_cpass *c,
			   struct bcn_report_buckets *b, int64_t t,
			   int64_t dur, uint64_t rd, uint64_t wr)
{
	spread(c, b->rd, t, dur, rd);
	spread(c, b->wr, t, dur, wr);
	if (rd)
		span(c, b->rfirst, b->rlast, t, dur);
	if (wr)
		span(c, b->wfirst, b->wlast, t, dur);
}

void bcn_report_bucket_meta(struct bcn_report_cpass *c,
			    struct bcn_report_buckets *b, int64_t t,
			    int64_t dur, uint64_t ops)
{
	spread(c, b->meta, t, dur, ops);
}

static int buckets_init(struct bcn_report_buckets *b, size_t n)
{
	b->rd = calloc(n, sizeof(*b->rd));
	b->wr = calloc(n, sizeof(*b->wr));
	b->meta = calloc(n, sizeof(*b->meta));
	b->rfirst = malloc(n * sizeof(*b->rfirst));
	b->wfirst = malloc(n * sizeof(*b->wfirst));
	b->rlast = calloc(n, sizeof(*b->rlast));
	b->wlast = calloc(n, sizeof(*b->wlast));
	if (!b->rd || !b->wr || !b->meta || !b->rfirst || !b->wfirst ||
	    !b->rlast || !b->wlast)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		b->rfirst[i] = b->wfirst[i] = INT64_MAX;
	return 0;
}

static void buckets_free(struct bcn_report_buckets *b)
{
	free(b->rd);
	free(b->wr);
	free(b->meta);
	free(b->rfirst);
	free(b->wfirst);
	free(b->rlast);
	free(b->wlast);
}

/* The files and node accumulators, bounded by the report's configuration. */
static int depth_init(struct bcn_report_cpass *c,
		      const struct bcn_report_config *cfg)
{
	struct bcn_report *r = c->r;
	int64_t margin = cfg->margin_ms * 1000000;

	bcn_rfiles_init(&c->rf, &cfg->files);
	c->rf_on = true;
	c->rn_on = true;        /* freed whatever init returns */
	return bcn_rnodes_init(&c->rn, r->nodelist ? r->nodelist : "",
			       r->window_from + margin, r->window_to - margin,
			       &cfg->nodes);
}

static int cpass_init(struct bcn_report_cpass *c, struct bcn_report *r,
		      const struct bcn_report_config *cfg)
{
	int64_t span = r->window_to - r->window_from;
	uint64_t n;
	int rc;

	memset(c, 0, sizeof(*c));
	c->r = r;
	c->unit = SEC;
	while ((uint64_t)(span / c->unit) + 2 > cfg->seconds_max)
		c->unit *= 2;
	if (c->unit != SEC)
		bcn_report_partial(r, "job longer than seconds_max: peaks "
				   "over coarser buckets");
	c->base = r->window_from / c->unit * c->unit;
	n = (uint64_t)((r->window_to - c->base) / c->unit) + 2;
	c->nsec = (size_t)n;
	bcn_iomode_init(&c->who, cfg->pairs_max);
	bcn_tally_init(&c->nodes, cfg->nodes_max);
	bcn_tally_init(&c->jnodes, cfg->nodes_max);
	bcn_tally_init(&c->rpc_targets, cfg->targets_max);
	c->last_node = SIZE_MAX;
	if ((rc = depth_init(c, cfg)))
		return rc;
	if ((rc = buckets_init(&c->cli, c->nsec)))
		return rc;
	return buckets_init(&c->srv, c->nsec);
}

void bcn_report_cpass_free(struct bcn_report_cpass *c)
{
	buckets_free(&c->cli);
	buckets_free(&c->srv);
	bcn_iomode_free(&c->who);
	bcn_tally_free(&c->nodes);
	bcn_tally_free(&c->jnodes);
	bcn_tally_free(&c->rpc_targets);
	if (c->rf_on)
		bcn_rfiles_free(&c->rf);
	if (c->rn_on)
		bcn_rnodes_free(&c->rn);
}

/* The files table and the node heatmap of what the client pass read. */
static int depth_finish(struct bcn_report_cpass *c)
{
	struct bcn_report *r = c->r;
	int rc;

	if (!(r->file_table = calloc(1, sizeof(*r->file_table))) ||
	    !(r->compute = calloc(1, sizeof(*r->compute))))
		return -ENOMEM;
	if ((rc = bcn_rfiles_finish(&c->rf, r->file_table)))
		return rc;
	return bcn_rnodes_finish(&c->rn, r->compute);
}

/* Mode, processes, files and the busiest process. */
static int client_mode(struct bcn_report_cpass *c)
{
	struct bcn_report *r = c->r;
	struct bcn_iomode_result m;
	int rc = bcn_iomode_flush(&c->who);

	if (rc == -BCN_EFULL) {
		bcn_report_partial(r, "too many nodes, processes or files "
				   "for the configured bounds");
		rc = 0;
	}
	if (rc)
		return rc;
	bcn_iomode_result(&c->who, r->read_bytes + r->write_bytes, &m);
	r->io_procs = m.procs;
	r->io_nodes = c->nodes.n;
	r->files = m.files;
	r->shared_files = m.shared_files;
	r->busiest_proc_bytes = m.busiest_proc_bytes;
	snprintf(r->mode, sizeof(r->mode), "%s", m.mode);
	return 0;
}

/* The mode of one phase of a mixed job: its records scanned again. */
struct phase_pass {
	struct bcn_iomode who;
	uint64_t bytes;
};

static int phase_record(void *arg, const struct bcn_record *r)
{
	struct phase_pass *p = arg;
	struct bcn_record_totals t;

	if (r->type != BCN_REC_IO)
		return 0;
	bcn_record_totals(r, &t);
	if (!t.read_ops && !t.write_ops)
		return 0;
	p->bytes += t.read_bytes + t.write_bytes;
	return bcn_iomode_add(&p->who, r, t.read_bytes + t.write_bytes);
}

/* Each phase's mode when the job as a whole is mixed (a job that reads
 * one shared input, N-1, and writes a file per process, N-N), for the
 * first phase_modes_max phases. */
static int phase_modes(const struct bcn_stores *st, struct bcn_report *r,
		       const struct bcn_report_config *cfg)
{
	int rc = 0;

	if (strcmp(r->mode, "mixed") || r->nphases < 2)
		return 0;
	for (size_t k = 0; !rc && k < r->nphases && k < cfg->phase_modes_max;
	     k++) {
		struct bcn_report_phase *ph = &r->phases[k];
		struct bcn_store_query q = {
			.layer = BCN_LAYER_CLIENT, .job = r->job,
			.from = ph->start, .to = ph->end,
			.any_order = true,   /* they only add up */
		};
		struct phase_pass p = { .bytes = 0 };
		struct bcn_iomode_result m;

		bcn_iomode_init(&p.who, cfg->pairs_max);
		rc = bcn_stores_scan(st, &q, phase_record, &p);
		if (!rc)
			rc = bcn_iomode_flush(&p.who);
		if (!rc) {
			bcn_iomode_result(&p.who, p.bytes, &m);
			snprintf(ph->mode, sizeof(ph->mode), "%s", m.mode);
		}
		bcn_iomode_free(&p.who);
	}
	if (rc == -BCN_EFULL) {
		bcn_report_partial(r, "too many processes or files in a phase");
		rc = 0;
	}
	return rc;
}

/* First start and last end of a column's records in buckets [a, b]:
 * the length, 0 when none. Moves *lo and *hi to cover them. */
static int64_t span_of(const int64_t *first, const int64_t *last, size_t a,
		       size_t b, int64_t *lo, int64_t *hi)
{
	int64_t f = INT64_MAX, l = 0;

	for (size_t i = a; i <= b; i++) {
		if (first[i] < f)
			f = first[i];
		if (last[i] > l)
			l = last[i];
	}
	if (f == INT64_MAX || l <= f)
		return 0;
	if (f < *lo)
		*lo = f;
	if (l > *hi)
		*hi = l;
	return l - f;
}

/* Peaks at the bucket resolution; the means over the phases' busy time:
 * per phase from its first data operation to its last, per direction. */
static void client_rates(struct bcn_report_cpass *c,
			 const struct bcn_report_buckets *bk)
{
	struct bcn_report *r = c->r;
	double unit_s = (double)c->unit / 1e9;
	int64_t busy = 0;

	for (size_t k = 0; k < r->nphases; k++) {
		struct bcn_report_phase *p = &r->phases[k];
		size_t a = (size_t)((p->start - c->base) / c->unit);
		size_t b = (size_t)((p->end - c->base) / c->unit) - 1;
		int64_t lo = INT64_MAX, hi = 0;

		r->read_time += span_of(bk->rfirst, bk->rlast, a, b, &lo, &hi);
		r->write_time += span_of(bk->wfirst, bk->wlast, a, b, &lo,
					 &hi);
		if (hi > lo) {
			busy += hi - lo;
			p->start = lo;  /* exact, no longer the buckets' */
			p->end = hi;
		}
	}
	for (size_t i = 0; i < c->nsec; i++) {
		if ((double)bk->rd[i] / unit_s > r->read_bw_peak)
			r->read_bw_peak = (double)bk->rd[i] / unit_s;
		if ((double)bk->wr[i] / unit_s > r->write_bw_peak)
			r->write_bw_peak = (double)bk->wr[i] / unit_s;
	}
	if (r->read_time > 0)
		r->read_bw_mean = (double)r->read_bytes * 1e9 /
				  (double)r->read_time;
	if (r->write_time > 0)
		r->write_bw_mean = (double)r->write_bytes * 1e9 /
				   (double)r->write_time;
	if (busy > 0)
		r->iops = (double)(r->read_ops + r->write_ops) * 1e9 /
			  (double)busy;
	/* a burst shorter than a bucket: the mean is the better peak */
	if (r->read_bw_mean > r->read_bw_peak)
		r->read_bw_peak = r->read_bw_mean;
	if (r->write_bw_mean > r->write_bw_peak)
		r->write_bw_peak = r->write_bw_mean;
}

/* The series: the buckets between the first and last busy one, merged
 * to at most series_max points. */
static int client_series(struct bcn_report_cpass *c,
			 const struct bcn_report_buckets *b, uint64_t max)
{
	struct bcn_report *r = c->r;
	size_t lo = 0, hi = c->nsec, k, per;

	while (lo < hi && !b->rd[lo] && !b->wr[lo])
		lo++;
	while (hi > lo && !b->rd[hi - 1] && !b->wr[hi - 1])
		hi--;
	if (lo == hi)
		return 0;
	per = (hi - lo + max - 1) / max;
	r->step_ns = c->unit * (int64_t)per;
	r->nseries = (hi - lo + per - 1) / per;
	r->series = calloc(r->nseries, sizeof(*r->series));
	if (!r->series)
		return -ENOMEM;
	for (k = lo; k < hi; k++) {
		struct bcn_report_point *p = &r->series[(k - lo) / per];

		p->t = c->base + (int64_t)(lo + (k - lo) / per * per) * c->unit;
		p->read_bytes += b->rd[k];
		p->write_bytes += b->wr[k];
	}
	return 0;
}

/* Phases: runs of busy buckets whose gaps are at most phase_gap. */
static int client_phases(struct bcn_report_cpass *c,
			 const struct bcn_report_buckets *b,
			 const struct bcn_report_config *cfg)
{
	struct bcn_report *r = c->r;
	size_t gap = (size_t)(cfg->phase_gap_ms * 1000000 / c->unit), idle = 0;
	struct bcn_report_phase *p = NULL;
	uint64_t meta_in = 0;
	int64_t in_time = 0;

	for (size_t i = 0; i < c->nsec; i++) {
		bool busy = b->rd[i] || b->wr[i];

		if (!busy) {
			if (p && ++idle > gap)
				p = NULL;
			continue;
		}
		if (!p) {
			if (r->nphases == cfg->phases_max) {
				bcn_report_partial(r, "more phases than "
						   "phases_max");
				break;
			}
			p = &r->phases[r->nphases++];
			p->start = c->base + (int64_t)i * c->unit;
		}
		idle = 0;
		p->end = c->base + (int64_t)(i + 1) * c->unit;
		p->read_bytes += b->rd[i];
		p->write_bytes += b->wr[i];
	}
	for (size_t k = 0; k < r->nphases; k++) {
		struct bcn_report_phase *q = &r->phases[k];

		for (int64_t t = q->start; t < q->end; t += c->unit)
			q->meta_ops += b->meta[(t - c->base) / c->unit];
		meta_in += q->meta_ops;
		in_time += q->end - q->start;
	}
	if (in_time > 0)
		r->meta_rate_io = (double)meta_in * 1e9 / (double)in_time;
	return 0;
}

/* The I/O phases of the series by wavelet denoising (phases.h). */
static int io_phases(struct bcn_report *r, const struct bcn_report_config *cfg)
{
	struct bcn_phase_config pc;
	double *x;
	int rc;

	if (!r->nseries)
		return 0;
	bcn_phase_config_defaults(&pc);
	x = malloc(r->nseries * sizeof(*x));
	r->io_phases = calloc(cfg->phases_max, sizeof(*r->io_phases));
	if (!x || !r->io_phases) {
		free(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nseries; i++)
		x[i] = (double)(r->series[i].read_bytes + r->series[i].write_bytes);
	rc = bcn_phases_find(x, r->nseries, r->series[0].t, r->step_ns, &pc,
			     r->io_phases, cfg->phases_max, &r->nio_phases);
	free(x);
	return rc;
}

static int client_pass(const struct bcn_stores *st, struct bcn_report *r,
		       const struct bcn_report_config *cfg,
		       struct bcn_report_cpass *c)
{
	struct bcn_store_query q = {
		.layer = BCN_LAYER_CLIENT, .job = r->job,
		.from = r->window_from, .to = r->window_to,
		.any_order = true,   /* they only add up */
	};
	int rc;

	if ((rc = cpass_init(c, r, cfg)))
		return rc;
	r->phases = calloc(cfg->phases_max ? cfg->phases_max : 1,
			   sizeof(*r->phases));
	if (!r->phases)
		return -ENOMEM;
	if ((rc = bcn_stores_scan(st, &q, client_record, c)))
		return rc;
	if ((rc = client_mode(c)))
		return rc;
	if ((rc = depth_finish(c)))
		return rc;
	if ((rc = bcn_report_figures(c, &c->cli, cfg)))
		return rc;
	return phase_modes(st, r, cfg);
}

int bcn_report_figures(struct bcn_report_cpass *c,
		       struct bcn_report_buckets *b,
		       const struct bcn_report_config *cfg)
{
	struct bcn_report *r = c->r;
	int rc;

	free(r->series);
	free(r->io_phases);
	r->series = NULL;
	r->io_phases = NULL;
	r->nseries = r->nio_phases = 0;
	r->step_ns = 0;
	memset(r->phases, 0, (cfg->phases_max ? cfg->phases_max : 1) *
	       sizeof(*r->phases));
	r->nphases = 0;
	r->read_time = r->write_time = 0;
	r->read_bw_mean = r->read_bw_peak = 0;
	r->write_bw_mean = r->write_bw_peak = 0;
	r->iops = r->meta_rate_io = 0;
	if ((rc = client_series(c, b, cfg->series_max)))
		return rc;
	if ((rc = client_phases(c, b, cfg)))
		return rc;
	if ((rc = io_phases(c->r, cfg)))
		return rc;
	client_rates(c, b);
	return 0;
}

/* ---- assembly ---- */

/* [start - margin, end + margin) of j, a running job's end being now. */
static void window_of(const struct bcn_job *j, int64_t now,
		      const struct bcn_report_config *cfg, int64_t *from,
		      int64_t *to)
{
	int64_t start = j->start ? j->start : j->submit;
	int64_t end = j->end ? j->end : now;

	*from = start - cfg->margin_ms * 1000000;
	*to = (end > start ? end : start) + cfg->margin_ms * 1000000;
	if (*from < 0)
		*from = 0;
}

static int copy_job(struct bcn_report *r, const struct bcn_job *j,
		    int64_t now, const struct bcn_report_config *cfg)
{
	r->job = j->id;
	snprintf(r->user, sizeof(r->user), "%s", j->user);
	snprintf(r->name, sizeof(r->name), "%s", j->name);
	snprintf(r->account, sizeof(r->account), "%s", j->account);
	snprintf(r->partition, sizeof(r->partition), "%s", j->partition);
	snprintf(r->state, sizeof(r->state), "%s", bcn_job_state_name(j->state));
	r->nodelist = strdup(j->nodelist);
	r->nnodes = j->nnodes;
	r->ntasks = j->ntasks;
	r->submit = j->submit;
	r->start = j->start ? j->start : j->submit;
	r->end = j->end;
	r->computed = now;
	window_of(j, now, cfg, &r->window_from, &r->window_to);
	return r->nodelist ? 0 : -ENOMEM;
}

int bcn_report_window(struct bcn_jobdb *db, uint64_t job, int64_t now_ns,
		      const struct bcn_report_config *cfg, int64_t *from,
		      int64_t *to)
{
	struct bcn_job j;
	int rc = bcn_jobdb_get_job(db, job, &j);

	if (rc == 0)
		return -ENOENT;
	if (rc < 0)
		return rc;
	window_of(&j, now_ns, cfg, from, to);
	return 0;
}

int bcn_report_compute(const struct bcn_stores *st, struct bcn_jobdb *db,
		       uint64_t job, int64_t now_ns,
		       const struct bcn_report_config *cfg,
		       struct bcn_report **out)
{
	struct bcn_report *r = calloc(1, sizeof(*r));
	struct bcn_report_cpass c;
	struct bcn_job j;
	int rc;

	memset(&c, 0, sizeof(c));
	*out = NULL;
	if (!r)
		return -ENOMEM;
	rc = bcn_jobdb_get_job(db, job, &j);
	if (rc == 0)
		rc = -ENOENT;
	if (rc < 0)
		goto out;
	if ((rc = copy_job(r, &j, now_ns, cfg)))
		goto out;
	if ((rc = client_pass(st, r, cfg, &c)))
		goto out;
	if ((rc = bcn_report_cover_client(st, r, cfg, &c, now_ns)))
		goto out;
	if ((rc = bcn_report_parts(st, db, r, cfg, &c)))
		goto out;
	if ((rc = bcn_report_cover_servers(st, r, cfg, &c, now_ns)))
		goto out;
	if ((rc = bcn_report_choose_source(&c, cfg)))
		goto out;
	if ((rc = bcn_advice_run(r, &cfg->advice)))
		goto out;
	rc = bcn_report_network(st, r, cfg);
out:
	bcn_report_cpass_free(&c);
	if (rc) {
		bcn_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void bcn_report_free(struct bcn_report *r)
{
	if (!r)
		return;
	bcn_report_cover_free(r);
	if (r->file_table)
		bcn_rfiles_result_free(r->file_table);
	if (r->compute)
		bcn_rnodes_result_free(r->compute);
	free(r->file_table);
	free(r->compute);
	free(r->nodelist);
	free(r->series);
	free(r->parts);
	free(r->phases);
	free(r->io_phases);
	free(r->findings);
	if (r->net)
		free(r->net->sw);
	free(r->net);
	free(r);
}
