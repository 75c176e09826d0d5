/* /api/v1/overview (the load of every forwarding node, OST and MDT over
 * the last window: bytes/s read and written, operations/s) and
 * /api/v1/heatmap?layer= (the peak load of each component per hour:
 * bytes/s for forward and ost, metadata operations/s for mds), by one
 * scan of the records per layer into a bounded table of components. A
 * user sees only the components of their jobs and, of those, only the
 * records inside their jobs' windows (web/access.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "proto/record.h"
#include "web/access.h"
#include "web/web_int.h"

#define NS ((int64_t)1000000000)
#define HOUR_NS (3600 * NS)
#define COMPONENTS_MAX 4096
#define SLOTS (2 * COMPONENTS_MAX)     /* open addressing, power of 2 */
#define NAME_MAX_ 256

struct comp {
	char name[NAME_MAX_];
	struct bcn_record_totals sum;
	double *peak;                   /* heatmap: per hour */
};

struct table {
	const char *layer;
	const struct bcn_web_scope *scope;
	bool fwd_nodes;                 /* forward: request records only */
	struct comp *c;
	uint16_t slot[SLOTS];            /* index + 1 into c, 0: empty */
	size_t n;
	int64_t from;
	size_t hours;                   /* heatmap: > 0 */
	bool mds;
	bool full;
};

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct comp *lookup(struct table *t, const char *name)
{
	size_t k = hash(name) & (SLOTS - 1);
	struct comp *c;

	for (; t->slot[k]; k = (k + 1) & (SLOTS - 1))
		if (!strcmp(t->c[t->slot[k] - 1].name, name))
			return &t->c[t->slot[k] - 1];
	if (t->n >= COMPONENTS_MAX) {
		t->full = true;
		return NULL;
	}
	c = &t->c[t->n];
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (t->hours && !(c->peak = calloc(t->hours, sizeof(double))))
		return NULL;
	t->slot[k] = (uint16_t)(++t->n);
	return c;
}

static int on_record(void *arg, const struct bcn_record *r)
{
	struct table *t = arg;
	struct bcn_record_totals tt;
	char name[BCN_ENTITY_MAX];
	struct comp *c;

	if (t->fwd_nodes && r->type != BCN_REC_FWD_REQ)
		return 0;
	if (bcn_record_entity(r, name, sizeof(name)) || strlen(name) >= NAME_MAX_)
		return 0;
	if (!bcn_web_scope_at(t->scope, t->layer, name, r->t))
		return 0;
	if (!(c = lookup(t, name)))
		return 0;
	bcn_record_totals(r, &tt);
	c->sum.read_bytes += tt.read_bytes;
	c->sum.write_bytes += tt.write_bytes;
	c->sum.read_ops += tt.read_ops;
	c->sum.write_ops += tt.write_ops;
	c->sum.meta_ops += tt.meta_ops;
	c->sum.other_ops += tt.other_ops;
	if (t->hours) {
		int64_t h = (r->t - t->from) / HOUR_NS;
		double amount = t->mds ? (double)tt.meta_ops :
				(double)(tt.read_bytes + tt.write_bytes);
		double rate = amount * NS / (double)(r->dur > NS ? r->dur : NS);

		if (h >= 0 && (size_t)h < t->hours && rate > c->peak[h])
			c->peak[h] = rate;
	}
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; t->c && i < t->n; i++)
		free(t->c[i].peak);
	free(t->c);
	t->c = NULL;
}

/* Scans one layer over [from, to) into t; under w->lock. */
static int scan(struct bcn_web_req *q, struct table *t, int64_t from,
		int64_t to)
{
	struct bcn_store_query qy;

	memset(&qy, 0, sizeof(qy));
	qy.layer = bcn_layer_parse(t->layer);
	qy.from = from;
	qy.to = to;
	qy.part = BCN_STORE_PART_TOTAL;
	t->fwd_nodes = qy.layer == BCN_LAYER_FORWARD;
	t->mds = qy.layer == BCN_LAYER_MDS;
	t->c = calloc(COMPONENTS_MAX, sizeof(*t->c));
	if (!t->c)
		return -ENOMEM;
	return bcn_stores_scan(&q->w->st, &qy, on_record, t);
}

static int load_json(const struct table *t, double secs, struct bcn_buf *b)
{
	int rc = bcn_buf_printf(b, "\"%s\":[", t->layer);

	for (size_t i = 0; !rc && i < t->n; i++) {
		const struct comp *c = &t->c[i];

		rc = bcn_buf_adds(b, i ? ",{\"entity\":" : "{\"entity\":");
		if (!rc)
			rc = bcn_buf_add_json_str(b, c->name);
		if (!rc)
			rc = bcn_buf_printf(b, ",\"read_bw\":%.1f,\"write_bw\":"
				"%.1f,\"iops\":%.2f,\"meta_ops_rate\":%.2f}",
				c->sum.read_bytes / secs,
				c->sum.write_bytes / secs,
				(c->sum.read_ops + c->sum.write_ops) / secs,
				c->sum.meta_ops / secs);
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

int bcn_web_overview(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	static const char *const lay[] = { "forward", "ost", "mds" };
	const struct bcn_web_config *c = q->w->cfg;
	char ts[BCN_TIMEFMT_OUT_MAX];
	struct bcn_web_scope s;
	int64_t to, win;
	int rc;

	if (bcn_web_param_time(q, p, "to", bcn_web_now(), &to) ||
	    bcn_web_param_duration(q, p, "window", 60 * NS, NS,
				   c->overview_window_max_ms * 1000000, &win))
		return 0;
	if ((rc = bcn_web_scope_load(q, to - win, to, &s)))
		return rc;
	bcn_timefmt_format(to, ts, sizeof(ts));
	rc = bcn_buf_printf(&p->body, "{\"to\":\"%s\",\"window\":%" PRId64,
			    ts, win / NS);
	for (size_t i = 0; !rc && i < 3; i++) {
		struct table t = { .layer = lay[i], .scope = &s };

		pthread_mutex_lock(&q->w->lock);
		rc = scan(q, &t, to - win, to);
		pthread_mutex_unlock(&q->w->lock);
		if (!rc)
			rc = bcn_buf_adds(&p->body, ",");
		if (!rc)
			rc = load_json(&t, (double)win / NS, &p->body);
		table_free(&t);
	}
	if (!rc)
		rc = bcn_buf_adds(&p->body, "}");
	bcn_web_scope_free(&s);
	return rc;
}

static int heat_json(const struct table *t, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, ",\"components\":[");

	for (size_t i = 0; !rc && i < t->n; i++) {
		rc = bcn_buf_adds(b, i ? ",{\"entity\":" : "{\"entity\":");
		if (!rc)
			rc = bcn_buf_add_json_str(b, t->c[i].name);
		if (!rc)
			rc = bcn_buf_adds(b, ",\"peak\":[");
		for (size_t h = 0; !rc && h < t->hours; h++)
			rc = bcn_buf_printf(b, h ? ",%.1f" : "%.1f",
					    t->c[i].peak[h]);
		if (!rc)
			rc = bcn_buf_adds(b, "]}");
	}
	return rc ? rc : bcn_buf_printf(b, "],\"truncated\":%s}",
					t->full ? "true" : "false");
}

int bcn_web_heatmap(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const struct bcn_web_config *c = q->w->cfg;
	struct table t = { .layer = NULL };
	char ts[BCN_TIMEFMT_OUT_MAX];
	struct bcn_web_scope s;
	int64_t from, to;
	const char *layer;
	int rc;

	if (bcn_web_param_word(q, p, "layer", 16, &layer) ||
	    bcn_web_param_range(q, p, 24 * HOUR_NS,
				c->heatmap_range_max_ms * 1000000, &from, &to))
		return 0;
	if (strcmp(layer, "forward") && strcmp(layer, "ost") &&
	    strcmp(layer, "mds"))
		return bcn_web_error(p, 400, "layer is forward, ost or mds",
				     "layer");
	from = bcn_timefmt_floor_div(from, HOUR_NS) * HOUR_NS;
	t.layer = layer;
	t.from = from;
	t.hours = (size_t)((to - from + HOUR_NS - 1) / HOUR_NS);
	if ((rc = bcn_web_scope_load(q, from, to, &s)))
		return rc;
	t.scope = &s;
	pthread_mutex_lock(&q->w->lock);
	rc = scan(q, &t, from, to);
	pthread_mutex_unlock(&q->w->lock);
	bcn_timefmt_format(from, ts, sizeof(ts));
	if (!rc)
		rc = bcn_buf_printf(&p->body, "{\"layer\":\"%s\",\"from\":\"%s\","
				    "\"hours\":%zu,\"unit\":\"%s\"", layer, ts,
				    t.hours, t.mds ? "ops/s" : "bytes/s");
	if (!rc)
		rc = heat_json(&t, &p->body);
	table_free(&t);
	bcn_web_scope_free(&s);
	return rc;
}
