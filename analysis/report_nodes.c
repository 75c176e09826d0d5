/* Compute nodes of a job's report (report_nodes.h, docs/report.md "Depth"):
 * bcn_rnodes_add() spreads each io record's bytes over its node's row of
 * the heatmap and counts its data operations for its node and process;
 * bcn_rnodes_finish() names the rows and finds the stragglers against
 * the medians. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_nodes.h"
#include "analysis/anomaly/median.h"
#include "common/error.h"
#include "common/hostlist.h"
#include "common/timefmt.h"

#define SEC 1000000000ll
#define ROW_NAME_MAX (1u << 20)         /* a row's hostlist, at most */

enum { V_READ, V_WRITE, V_OPS, V_BUSY, V_PROCS, V_ROW };

struct bcn_rnodes_proc {
	size_t node;                    /* index in names */
	uint64_t pid;
	int64_t rank;
	uint64_t bytes, ops, busy;
	int64_t first, last;            /* its data operations' span */
};

void bcn_rnodes_config_defaults(struct bcn_rnodes_config *c)
{
	c->cols_max = 60;
	c->rows_max = 128;
	c->nodes_max = 1u << 20;
	c->procs_max = 65536;
	c->slow_pct = 50;
	c->long_pct = 200;
	c->min_nodes = 4;
	c->min_bytes = 64ull << 20;
	c->list_max = 10;
}

static void partial(struct bcn_rnodes *n, const char *why)
{
	if (!n->partial)
		snprintf(n->why, sizeof(n->why), "%s", why);
	n->partial = true;
}

/* Columns: [from, to) in at most cols_max of one step, whole seconds
 * when a column is longer than one. */
static void columns(struct bcn_rnodes *n, int64_t from, int64_t to)
{
	uint64_t span = to > from ? (uint64_t)to - (uint64_t)from : 1;
	uint64_t cols = n->cfg.cols_max ? n->cfg.cols_max : 1;
	uint64_t step = (span + cols - 1) / cols;

	if (step > (uint64_t)SEC)
		step = (step + SEC - 1) / SEC * SEC;
	n->from = from;
	n->step = (int64_t)step;
	n->ncols = (size_t)((span + step - 1) / step);
	n->to = from + (int64_t)(step * n->ncols);
}

/* The nodelist's nodes into names, in order, at most nodes_max; their
 * rows. */
static int nodelist_rows(struct bcn_rnodes *n, const char *nodelist)
{
	struct bcn_hostlist hl = { 0 };
	struct bcn_tally_entry *e;
	int rc = bcn_hostlist_expand(nodelist ? nodelist : "",
				     nodelist ? strlen(nodelist) : 0,
				     BCN_HOSTLIST_MAX_HOSTS, &hl, NULL, 0);

	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		partial(n, "the job's nodelist does not expand");
		return 0;
	}
	for (size_t i = 0; !rc && i < hl.n; i++)
		rc = bcn_tally_get(&n->names, hl.hosts[i], &e);
	bcn_hostlist_free(&hl);
	if (rc == -BCN_EFULL)
		partial(n, "more nodes than nodes_max");
	else if (rc)
		return rc;
	n->nlist = n->names.n;  /* duplicates once */
	n->nrows = n->nlist < n->cfg.rows_max ? n->nlist :
		   (size_t)n->cfg.rows_max;
	for (size_t i = 0; i < n->nlist; i++)
		n->names.e[i].v[V_ROW] = (uint64_t)((unsigned __int128)i *
						    n->nrows / n->nlist) + 1;
	return 0;
}

int bcn_rnodes_init(struct bcn_rnodes *n, const char *nodelist, int64_t from,
		    int64_t to, const struct bcn_rnodes_config *c)
{
	size_t cells;
	int rc;

	memset(n, 0, sizeof(*n));
	n->cfg = *c;
	n->last = n->last_proc = SIZE_MAX;
	bcn_tally_init(&n->names, (size_t)c->nodes_max);
	bcn_u64map_init(&n->proc_ix, (size_t)c->procs_max);
	columns(n, from, to);
	if ((rc = nodelist_rows(n, nodelist)))
		return rc;
	cells = (n->nrows + 1) * n->ncols;
	n->rd = calloc(cells, sizeof(*n->rd));
	n->wr = calloc(cells, sizeof(*n->wr));
	return n->rd && n->wr ? 0 : -ENOMEM;
}

void bcn_rnodes_free(struct bcn_rnodes *n)
{
	bcn_tally_free(&n->names);
	bcn_u64map_free(&n->proc_ix);
	free(n->procs);
	free(n->rd);
	free(n->wr);
	memset(n, 0, sizeof(*n));
}

/* The column of time x: before from the first, after to the last. */
static size_t col_of(const struct bcn_rnodes *n, int64_t x)
{
	uint64_t k;

	if (x < n->from)
		return 0;
	k = ((uint64_t)x - (uint64_t)n->from) / (uint64_t)n->step;
	return k >= n->ncols ? n->ncols - 1 : (size_t)k;
}

/* Spreads bytes over the columns [t, t + dur) overlaps, in proportion,
 * the remainder carried: the cells add up to bytes exactly. */
static void spread(const struct bcn_rnodes *n, uint64_t *row, int64_t t,
		   int64_t dur, uint64_t bytes)
{
	int64_t e;
	size_t a, b;
	uint64_t done = 0;

	if (!bytes)
		return;
	if (dur <= 0 || __builtin_add_overflow(t, dur, &e))
		e = dur <= 0 ? t : INT64_MAX;
	a = col_of(n, t);
	b = e > t ? col_of(n, e - 1) : a;
	for (size_t k = a; k < b; k++) {
		__int128 hi = (__int128)n->from + (__int128)(k + 1) * n->step;
		uint64_t upto = (uint64_t)((unsigned __int128)bytes *
			(unsigned __int128)(hi - t) / (unsigned __int128)
			((__int128)e - t));

		row[k] += upto - done;
		done = upto;
	}
	row[b] += bytes - done;
}

/* The tally entry of node (the last record's again when the same), or
 * NULL beyond nodes_max. Returns 0 or -ENOMEM. */
static int node_get(struct bcn_rnodes *n, const char *node,
		    struct bcn_tally_entry **out)
{
	int rc;

	if (n->last < n->names.n && !strcmp(n->names.e[n->last].key, node)) {
		*out = &n->names.e[n->last];
		return 0;
	}
	rc = bcn_tally_get(&n->names, node, out);
	if (rc == -BCN_EFULL) {
		partial(n, "more nodes than nodes_max");
		*out = NULL;
		return 0;
	}
	if (rc)
		return rc;
	n->last = (size_t)(*out - n->names.e);
	return 0;
}

/* Counts a data record for its process (node index ni). */
static int proc_add(struct bcn_rnodes *n, size_t ni, struct bcn_tally_entry *e,
		    const struct bcn_record *r, uint64_t bytes, uint64_t ops)
{
	const struct bcn_rec_io *io = &r->u.io;
	uint64_t key, ix, *v;
	struct bcn_rnodes_proc *p;
	bool fresh;
	int rc;

	if (n->last_proc < n->nprocs && n->procs[n->last_proc].node == ni &&
	    n->procs[n->last_proc].pid == io->pid &&
	    n->procs[n->last_proc].rank == io->rank) {
		ix = n->last_proc;      /* a process's records come in runs */
		goto found;
	}
	key = bcn_tally_hash(0, &ni, sizeof(ni));
	key = bcn_tally_hash(key, &io->pid, sizeof(io->pid));
	key = bcn_tally_hash(key, &io->rank, sizeof(io->rank));
	if (!bcn_u64map_find(&n->proc_ix, key, &ix)) {
		if (n->nprocs == n->cap_procs && n->nprocs < n->cfg.procs_max) {
			size_t cap = n->cap_procs ? n->cap_procs * 2 : 64;

			p = realloc(n->procs, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			n->procs = p;
			n->cap_procs = cap;
		}
		rc = bcn_u64map_get(&n->proc_ix, key, &v, &fresh);
		if (rc == -BCN_EFULL) {
			partial(n, "more processes than procs_max");
			return 0;
		}
		if (rc)
			return rc;
		ix = *v = n->nprocs++;
		p = &n->procs[ix];
		memset(p, 0, sizeof(*p));
		p->node = ni;
		p->pid = io->pid;
		p->rank = io->rank;
		e->v[V_PROCS]++;
	}
found:
	n->last_proc = (size_t)ix;
	p = &n->procs[ix];
	p->bytes += bytes;
	p->ops += ops;
	p->busy += io->busy;
	if (!p->first || r->t < p->first)
		p->first = r->t;
	if (r->t + r->dur > p->last)
		p->last = r->t + r->dur;
	return 0;
}

int bcn_rnodes_add(struct bcn_rnodes *n, const struct bcn_record *r,
		   const struct bcn_record_totals *t)
{
	struct bcn_tally_entry *e;
	size_t row;
	uint64_t ops;
	int rc;

	if (r->type != BCN_REC_IO)
		return 0;
	ops = t->read_ops + t->write_ops;
	if (!ops)
		return 0;
	if ((rc = node_get(n, r->node, &e)))
		return rc;
	row = e && e->v[V_ROW] ? (size_t)e->v[V_ROW] - 1 : n->nrows;
	spread(n, n->rd + row * n->ncols, r->t, r->dur, t->read_bytes);
	spread(n, n->wr + row * n->ncols, r->t, r->dur, t->write_bytes);
	if (!e)
		return 0;
	e->v[V_READ] += t->read_bytes;
	e->v[V_WRITE] += t->write_bytes;
	e->v[V_OPS] += ops;
	e->v[V_BUSY] += r->u.io.busy;
	return proc_add(n, (size_t)(e - n->names.e), e, r,
			t->read_bytes + t->write_bytes, ops);
}

/* ---- the result ---- */

/* The hostlist of names [a, b) of the tally (those of row when row is
 * not SIZE_MAX: the other nodes), or "N nodes" when it cannot be one. */
static int row_name(const struct bcn_rnodes *n, size_t a, size_t b,
		    char **out)
{
	const char **h = malloc((b > a ? b - a : 1) * sizeof(*h));
	struct bcn_buf buf;
	size_t k = 0;
	int rc;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	for (size_t i = a; i < b; i++)
		h[k++] = n->names.e[i].key;
	bcn_buf_init(&buf, ROW_NAME_MAX);
	rc = bcn_hostlist_format(h, k, &buf);
	if (rc && rc != -ENOMEM) {
		bcn_buf_reset(&buf);
		rc = bcn_buf_printf(&buf, "%zu nodes", k);
	}
	rc = rc ? rc : bcn_buf_add(&buf, "", 1);
	free(h);
	if (rc) {
		bcn_buf_free(&buf);
		return rc == -BCN_EFULL ? -ENOMEM : rc;
	}
	*out = (char *)buf.data;
	return 0;
}

static int row_make(const struct bcn_rnodes *n, size_t row, size_t a,
		    size_t b, struct bcn_rnodes_row *out)
{
	const uint64_t *rd = n->rd + row * n->ncols, *wr = n->wr + row * n->ncols;

	out->count = b - a;
	out->read = malloc(n->ncols * sizeof(*out->read));
	out->write = malloc(n->ncols * sizeof(*out->write));
	if (!out->read || !out->write)
		return -ENOMEM;
	memcpy(out->read, rd, n->ncols * sizeof(*rd));
	memcpy(out->write, wr, n->ncols * sizeof(*wr));
	for (size_t k = 0; k < n->ncols; k++) {
		out->read_bytes += rd[k];
		out->write_bytes += wr[k];
	}
	return row_name(n, a, b, &out->nodes);
}

static int heatmap(const struct bcn_rnodes *n, struct bcn_rnodes_result *res)
{
	size_t a = 0;
	int rc = 0;

	res->rows = calloc(n->nrows ? n->nrows : 1, sizeof(*res->rows));
	if (!res->rows)
		return -ENOMEM;
	res->nrows = n->nrows;
	for (size_t row = 0; !rc && row < n->nrows; row++) {
		size_t b = a;

		while (b < n->nlist && n->names.e[b].v[V_ROW] == row + 1)
			b++;
		rc = row_make(n, row, a, b, &res->rows[row]);
		res->read_bytes += res->rows[row].read_bytes;
		res->write_bytes += res->rows[row].write_bytes;
		a = b;
	}
	rc = rc ? rc : row_make(n, n->nrows, n->nlist, n->names.n, &res->other);
	res->read_bytes += res->other.read_bytes;
	res->write_bytes += res->other.write_bytes;
	return rc;
}

/* One node or process to judge. */
struct rn_item {
	const char *node;
	uint64_t pid, procs;
	int64_t rank;
	uint64_t bytes, ops, time;
	double bw;
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The medians of items' bandwidth, time and bytes (of an even count,
 * the mean of the middle two). */
static int medians(const struct rn_item *it, size_t k, struct bcn_rnodes_judge *j)
{
	double *bw = malloc(k * sizeof(*bw));
	uint64_t *tm = malloc(k * sizeof(*tm)), *by = malloc(k * sizeof(*by));
	int rc = -ENOMEM;

	if (!bw || !tm || !by)
		goto out;
	for (size_t i = 0; i < k; i++) {
		bw[i] = it[i].bw;
		tm[i] = it[i].time;
		by[i] = it[i].bytes;
	}
	qsort(tm, k, sizeof(*tm), u64_cmp);
	qsort(by, k, sizeof(*by), u64_cmp);
	j->median_bw = bcn_median(bw, k);
	j->median_time = k % 2 ? tm[k / 2] : tm[k / 2 - 1] / 2 + tm[k / 2] / 2 +
			 (tm[k / 2 - 1] % 2 + tm[k / 2] % 2) / 2;
	j->median_bytes = k % 2 ? by[k / 2] : by[k / 2 - 1] / 2 + by[k / 2] / 2 +
			  (by[k / 2 - 1] % 2 + by[k / 2] % 2) / 2;
	rc = 0;
out:
	free(bw);
	free(tm);
	free(by);
	return rc;
}

static int straggler_cmp(const void *a, const void *b)
{
	const struct bcn_rnodes_straggler *x = a, *y = b;

	if (x->bw_ratio != y->bw_ratio)
		return x->bw_ratio < y->bw_ratio ? -1 : 1;
	if (x->time_ratio != y->time_ratio)
		return x->time_ratio > y->time_ratio ? -1 : 1;
	return strcmp(x->node, y->node);
}

/* Whether item i is a straggler against the medians of j; fills s. */
static bool straggles(const struct rn_item *i, const struct bcn_rnodes_judge *j,
		      const struct bcn_rnodes_config *c,
		      struct bcn_rnodes_straggler *s)
{
	memset(s, 0, sizeof(*s));
	s->slow = i->bw * 100 < (double)c->slow_pct * j->median_bw;
	s->too_long = (unsigned __int128)i->time * 100 >
		      (unsigned __int128)c->long_pct * j->median_time;
	if (!s->slow && !s->too_long)
		return false;
	if (i->bytes < c->min_bytes && j->median_bytes < c->min_bytes)
		return false;
	snprintf(s->node, sizeof(s->node), "%s", i->node);
	s->pid = i->pid;
	s->rank = i->rank;
	s->bytes = i->bytes;
	s->ops = i->ops;
	s->procs = i->procs;
	s->time = i->time;
	s->bw = i->bw;
	s->bw_ratio = j->median_bw > 0 ? i->bw / j->median_bw : 0;
	s->time_ratio = j->median_time ? (double)i->time /
			(double)j->median_time : 0;
	return true;
}

/* The stragglers among k items into j, the slowest list_max listed. */
static int judge(const struct rn_item *it, size_t k,
		 const struct bcn_rnodes_config *c, struct bcn_rnodes_judge *j)
{
	struct bcn_rnodes_straggler *all;
	int rc;

	j->io = k;
	j->checked = k >= c->min_nodes && k > 0;
	if (!k)
		return 0;
	if ((rc = medians(it, k, j)))
		return rc;
	if (!j->checked)
		return 0;
	all = malloc(k * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		if (straggles(&it[i], j, c, &all[j->stragglers]))
			j->stragglers++;
	qsort(all, j->stragglers, sizeof(*all), straggler_cmp);
	j->nlist = j->stragglers < c->list_max ? j->stragglers :
		   (size_t)c->list_max;
	j->list = all;
	return 0;
}

static double bandwidth(uint64_t bytes, uint64_t time)
{
	return (double)bytes * 1e9 / (double)time;
}

/* The span of each node's processes' data operations, into span[] (by
 * the index in names): the I/O time of records without busy time. */
static void node_spans(const struct bcn_rnodes *n, int64_t *first,
		       int64_t *last)
{
	for (size_t i = 0; i < n->names.n; i++)
		first[i] = last[i] = 0;
	for (size_t i = 0; i < n->nprocs; i++) {
		const struct bcn_rnodes_proc *p = &n->procs[i];

		if (!first[p->node] || p->first < first[p->node])
			first[p->node] = p->first;
		if (p->last > last[p->node])
			last[p->node] = p->last;
	}
}

/* A node's I/O time: its processes' mean busy time, or, when its
 * records carry none (LWFS logs, /proc sampling), the span of its data
 * operations; 0 when neither. */
static uint64_t node_time(const struct bcn_tally_entry *e, int64_t first,
			  int64_t last)
{
	uint64_t procs = e->v[V_PROCS] ? e->v[V_PROCS] : 1;

	if (e->v[V_BUSY] >= procs)
		return e->v[V_BUSY] / procs;
	return last > first ? (uint64_t)(last - first) : 0;
}

/* The nodes' and the processes' stragglers. */
static int stragglers(const struct bcn_rnodes *n, struct bcn_rnodes_result *res)
{
	size_t max = n->names.n > n->nprocs ? n->names.n : n->nprocs, k = 0;
	struct rn_item *it = malloc((max ? max : 1) * sizeof(*it));
	int64_t *first = malloc((n->names.n + 1) * sizeof(*first));
	int64_t *last = malloc((n->names.n + 1) * sizeof(*last));
	int rc = 0;

	if (!it || !first || !last) {
		rc = -ENOMEM;
		goto out;
	}
	node_spans(n, first, last);
	for (size_t i = 0; i < n->names.n; i++) {
		const struct bcn_tally_entry *e = &n->names.e[i];
		uint64_t time = node_time(e, first[i], last[i]);

		if (!e->v[V_OPS])
			continue;
		if (!time) {            /* no time to speak of */
			res->node.untimed++;
			continue;
		}
		it[k] = (struct rn_item){ .node = e->key, .rank = -1,
			.procs = e->v[V_PROCS], .bytes = e->v[V_READ] +
			e->v[V_WRITE], .ops = e->v[V_OPS], .time = time };
		it[k].bw = bandwidth(it[k].bytes, it[k].time);
		k++;
	}
	rc = judge(it, k, &n->cfg, &res->node);
	k = 0;
	for (size_t i = 0; !rc && i < n->nprocs; i++) {
		const struct bcn_rnodes_proc *p = &n->procs[i];
		uint64_t time = p->busy ? p->busy : p->last > p->first ?
				(uint64_t)(p->last - p->first) : 0;

		if (!time) {
			res->proc.untimed++;
			continue;
		}
		it[k] = (struct rn_item){ .node = n->names.e[p->node].key,
			.pid = p->pid, .rank = p->rank, .bytes = p->bytes,
			.ops = p->ops, .time = time };
		it[k].bw = bandwidth(p->bytes, time);
		k++;
	}
	rc = rc ? rc : judge(it, k, &n->cfg, &res->proc);
out:
	free(it);
	free(first);
	free(last);
	return rc;
}

int bcn_rnodes_finish(struct bcn_rnodes *n, struct bcn_rnodes_result *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->from = n->from;
	out->to = n->to;
	out->step = n->step;
	out->ncols = n->ncols;
	out->nodes = n->nlist;
	out->cfg = n->cfg;
	if ((rc = heatmap(n, out)) || (rc = stragglers(n, out))) {
		bcn_rnodes_result_free(out);
		return rc;
	}
	out->partial = n->partial;
	snprintf(out->why, sizeof(out->why), "%s", n->why);
	return 0;
}

static void row_free(struct bcn_rnodes_row *row)
{
	free(row->nodes);
	free(row->read);
	free(row->write);
}

void bcn_rnodes_result_free(struct bcn_rnodes_result *res)
{
	for (size_t i = 0; res->rows && i < res->nrows; i++)
		row_free(&res->rows[i]);
	free(res->rows);
	row_free(&res->other);
	free(res->node.list);
	free(res->proc.list);
	memset(res, 0, sizeof(*res));
}

/* ---- JSON ---- */

static int json_time(struct bcn_buf *b, const char *key, int64_t ns)
{
	char t[BCN_TIMEFMT_OUT_MAX];

	if (bcn_timefmt_format(ns, t, sizeof(t)))
		return bcn_buf_printf(b, "\"%s\":null", key);
	return bcn_buf_printf(b, "\"%s\":\"%s\"", key, t);
}

static int json_cells(struct bcn_buf *b, const char *key, const uint64_t *v,
		      size_t n)
{
	int rc = bcn_buf_printf(b, ",\"%s\":[", key);

	for (size_t i = 0; !rc && i < n; i++)
		rc = bcn_buf_printf(b, "%s%" PRIu64, i ? "," : "", v[i]);
	return rc ? rc : bcn_buf_adds(b, "]");
}

static int json_row(struct bcn_buf *b, const struct bcn_rnodes_row *row,
		    size_t ncols)
{
	int rc = bcn_buf_adds(b, "{\"nodes\":");

	rc = rc ? rc : bcn_buf_add_json_str(b, row->nodes ? row->nodes : "");
	rc = rc ? rc : bcn_buf_printf(b, ",\"count\":%" PRIu64 ",\"read_bytes\":%"
				      PRIu64 ",\"write_bytes\":%" PRIu64,
				      row->count, row->read_bytes,
				      row->write_bytes);
	rc = rc ? rc : json_cells(b, "read", row->read, row->read ? ncols : 0);
	rc = rc ? rc : json_cells(b, "write", row->write,
				  row->write ? ncols : 0);
	return rc ? rc : bcn_buf_adds(b, "}");
}

static int json_heatmap(struct bcn_buf *b, const struct bcn_rnodes_result *r)
{
	int rc = bcn_buf_adds(b, "\"heatmap\":{");

	rc = rc ? rc : json_time(b, "from", r->from);
	rc = rc ? rc : bcn_buf_adds(b, ",");
	rc = rc ? rc : json_time(b, "to", r->to);
	rc = rc ? rc : bcn_buf_printf(b, ",\"step\":%.3f,\"cols\":%zu,"
		"\"nodes\":%" PRIu64 ",\"read_bytes\":%" PRIu64
		",\"write_bytes\":%" PRIu64 ",\"rows\":[",
		(double)r->step / 1e9, r->ncols, r->nodes, r->read_bytes,
		r->write_bytes);
	for (size_t i = 0; !rc && i < r->nrows; i++) {
		rc = i ? bcn_buf_adds(b, ",") : 0;
		rc = rc ? rc : json_row(b, &r->rows[i], r->ncols);
	}
	rc = rc ? rc : bcn_buf_adds(b, "],\"other\":");
	if (!rc && !r->other.count && !r->other.read_bytes &&
	    !r->other.write_bytes)
		rc = bcn_buf_adds(b, "null");
	else if (!rc)
		rc = json_row(b, &r->other, r->ncols);
	return rc ? rc : bcn_buf_adds(b, "}");
}

static int json_straggler(struct bcn_buf *b,
			  const struct bcn_rnodes_straggler *s, bool proc)
{
	int rc = bcn_buf_adds(b, "{\"node\":");

	rc = rc ? rc : bcn_buf_add_json_str(b, s->node);
	if (!rc && proc)
		rc = bcn_buf_printf(b, ",\"pid\":%" PRIu64 ",\"rank\":%" PRId64,
				    s->pid, s->rank);
	else if (!rc)
		rc = bcn_buf_printf(b, ",\"procs\":%" PRIu64, s->procs);
	return rc ? rc : bcn_buf_printf(b, ",\"bytes\":%" PRIu64 ",\"ops\":%"
		PRIu64 ",\"time\":%.6f,\"bw\":%.0f,\"bw_ratio\":%.4f,"
		"\"time_ratio\":%.4f,\"slow\":%s,\"long\":%s}", s->bytes,
		s->ops, (double)s->time / 1e9, s->bw, s->bw_ratio,
		s->time_ratio, s->slow ? "true" : "false",
		s->too_long ? "true" : "false");
}

static int json_judge(struct bcn_buf *b, const char *key,
		      const struct bcn_rnodes_judge *j, bool proc)
{
	int rc = bcn_buf_printf(b, ",\"%s\":{\"io\":%" PRIu64 ",\"untimed\":%"
		PRIu64 ",\"checked\":%s,\"median_bw\":%.0f,\"median_time\":"
		"%.6f,\"median_bytes\":%" PRIu64 ",\"stragglers\":%" PRIu64
		",\"slowest\":[", key, j->io, j->untimed,
		j->checked ? "true" : "false", j->median_bw,
		(double)j->median_time / 1e9, j->median_bytes, j->stragglers);

	for (size_t i = 0; !rc && i < j->nlist; i++) {
		rc = i ? bcn_buf_adds(b, ",") : 0;
		rc = rc ? rc : json_straggler(b, &j->list[i], proc);
	}
	return rc ? rc : bcn_buf_adds(b, "]}");
}

int bcn_rnodes_to_json(const struct bcn_rnodes_result *res,
		       struct bcn_buf *out)
{
	const struct bcn_rnodes_config *c = &res->cfg;
	int rc = bcn_buf_adds(out, "{");

	rc = rc ? rc : json_heatmap(out, res);
	rc = rc ? rc : json_judge(out, "nodes", &res->node, false);
	rc = rc ? rc : json_judge(out, "procs", &res->proc, true);
	rc = rc ? rc : bcn_buf_printf(out, ",\"rules\":{\"slow_pct\":%" PRIu64
		",\"long_pct\":%" PRIu64 ",\"min_nodes\":%" PRIu64
		",\"min_bytes\":%" PRIu64 "},\"partial\":%s,"
		"\"partial_reason\":", c->slow_pct, c->long_pct, c->min_nodes,
		c->min_bytes, res->partial ? "true" : "false");
	rc = rc ? rc : bcn_buf_add_json_str(out, res->why);
	return rc ? rc : bcn_buf_adds(out, "}");
}
