/* /api/v1/overview (the load of every forwarding node, OST and MDT over
 * the last window: bytes/s read and written, operations/s; for
 * forwarding nodes their request latency and queue length, for MDTs, to
 * an administrator, the metadata load by client and client group) and
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
#include "jobdb/jobdb.h"
#include "proto/record.h"
#include "web/access.h"
#include "web/web_int.h"

#define NS ((int64_t)1000000000)
#define HOUR_NS (3600 * NS)
#define COMPONENTS_MAX 4096
#define SLOTS (2 * COMPONENTS_MAX)     /* open addressing, power of 2 */
#define NAME_MAX_ 256
#define CLIENTS_TOP 20                  /* clients named per MDT */
#define GROUPS_MAX 64                   /* groups named per MDT */
#define MAP_MAX 65536                   /* compute nodes of the fwd map */

struct comp {
	char name[NAME_MAX_];
	struct bcn_record_totals sum;
	/* forward: the latency (us) and queue length distributions of the
	 * class "all" records, merged */
	uint64_t lat_n, lat_sum, lat_max, q_n, q_sum, q_max;
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
	if (r->type == BCN_REC_FWD_REQ && r->u.fwd_req.cls == BCN_FWD_ALL) {
		const struct bcn_rec_fwd_req *f = &r->u.fwd_req;

		c->lat_n += f->latency.count;
		c->lat_sum += f->latency.sum;
		if (f->latency.count && f->latency.max > c->lat_max)
			c->lat_max = f->latency.max;
		c->q_n += f->queue.count;
		c->q_sum += f->queue.sum;
		if (f->queue.count && f->queue.max > c->q_max)
			c->q_max = f->queue.max;
	}
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
static int scan_part(struct bcn_web_req *q, struct table *t, int64_t from,
		     int64_t to, int part, bcn_store_record_fn *fn)
{
	struct bcn_store_query qy;

	memset(&qy, 0, sizeof(qy));
	qy.layer = bcn_layer_parse(t->layer);
	qy.from = from;
	qy.to = to;
	qy.part = part;
	t->fwd_nodes = qy.layer == BCN_LAYER_FORWARD;
	t->mds = qy.layer == BCN_LAYER_MDS;
	t->c = calloc(COMPONENTS_MAX, sizeof(*t->c));
	if (!t->c)
		return -ENOMEM;
	return bcn_stores_scan(&q->w->st, &qy, fn, t);
}

static int scan(struct bcn_web_req *q, struct table *t, int64_t from,
		int64_t to)
{
	return scan_part(q, t, from, to, BCN_STORE_PART_TOTAL, on_record);
}

/* Per-export mds records: entries "TARGET\tNID" (an administrator's scope
 * only: the caller asks for none otherwise). */
static int on_client(void *arg, const struct bcn_record *r)
{
	struct table *t = arg;
	struct bcn_record_totals tt;
	char key[NAME_MAX_];
	struct comp *c;
	int n;

	if (r->type != BCN_REC_MDS || !r->u.mds.client[0])
		return 0;
	n = snprintf(key, sizeof(key), "%s\t%s", r->u.mds.target,
		     r->u.mds.client);
	if (n < 0 || (size_t)n >= sizeof(key) || !(c = lookup(t, key)))
		return 0;
	bcn_record_totals(r, &tt);
	c->sum.meta_ops += tt.meta_ops;
	return 0;
}

/* The compute-to-forwarding map at one time, sorted by node. */
struct fwdmap {
	struct { char node[64], fwd[64]; } *e;
	size_t n;
	bool full;
};

static int map_add(void *arg, const char *node, const char *fwd)
{
	struct fwdmap *m = arg;

	if (m->n >= MAP_MAX || strlen(node) >= sizeof(m->e->node) ||
	    strlen(fwd) >= sizeof(m->e->fwd)) {
		m->full = true;
		return 0;
	}
	snprintf(m->e[m->n].node, sizeof(m->e->node), "%s", node);
	snprintf(m->e[m->n].fwd, sizeof(m->e->fwd), "%s", fwd);
	m->n++;
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* The group of a client NID: with by_fwd, the forwarding node the map
 * gives the NID's host part (before '@'), else the NID itself. */
static const char *group_of(const struct fwdmap *m, bool by_fwd,
			    const char *nid)
{
	char host[64];
	size_t len = strcspn(nid, "@");
	const char *hit;

	if (!by_fwd || !m->n || len >= sizeof(host))
		return nid;
	memcpy(host, nid, len);
	host[len] = '\0';
	hit = (const char *)bsearch(host, m->e, m->n, sizeof(*m->e), map_cmp);
	return hit ? hit + sizeof(m->e->node) : nid;
}

struct clients {
	struct table t;                 /* "TARGET\tNID" -> meta ops */
	struct fwdmap map;
	bool by_fwd;
	double secs;
};

static int cmp_ops(const void *a, const void *b)
{
	const struct comp *x = *(const struct comp *const *)a;
	const struct comp *y = *(const struct comp *const *)b;

	if (x->sum.meta_ops != y->sum.meta_ops)
		return x->sum.meta_ops < y->sum.meta_ops ? 1 : -1;
	return strcmp(x->name, y->name);
}

struct group { char name[NAME_MAX_]; uint64_t ops; };

static int groups_json(const struct clients *cl, const struct comp **v,
		       size_t n, size_t skip, struct bcn_buf *b)
{
	struct group *g = calloc(GROUPS_MAX, sizeof(*g));
	size_t ng = 0, i, k;
	uint64_t rest = 0;
	int rc;

	if (!g)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *name = group_of(&cl->map, cl->by_fwd,
					    v[i]->name + skip);

		for (k = 0; k < ng && strcmp(g[k].name, name); k++)
			;
		if (k == ng && ng < GROUPS_MAX) {
			snprintf(g[ng].name, sizeof(g[ng].name), "%s", name);
			g[ng++].ops = 0;
		}
		if (k < ng)
			g[k].ops += v[i]->sum.meta_ops;
		else
			rest += v[i]->sum.meta_ops;
	}
	rc = bcn_buf_adds(b, ",\"groups\":[");
	for (k = 0; !rc && k < ng; k++) {
		rc = bcn_buf_adds(b, k ? ",{\"group\":" : "{\"group\":");
		if (!rc)
			rc = bcn_buf_add_json_str(b, g[k].name);
		if (!rc)
			rc = bcn_buf_printf(b, ",\"meta_ops_rate\":%.2f}",
					    g[k].ops / cl->secs);
	}
	if (!rc)
		rc = bcn_buf_printf(b, "],\"groups_others\":%.2f",
				    rest / cl->secs);
	free(g);
	return rc;
}

/* ,"clients":[...],"clients_others":R,"groups":[...],"groups_others":R
 * of one MDT: its CLIENTS_TOP busiest exports and the rest. */
static int clients_json(const struct clients *cl, const char *mdt,
			struct bcn_buf *b)
{
	const struct comp **v = calloc(cl->t.n + 1, sizeof(*v));
	size_t n = 0, len = strlen(mdt), i;
	uint64_t rest = 0;
	int rc;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < cl->t.n; i++)
		if (!strncmp(cl->t.c[i].name, mdt, len) &&
		    cl->t.c[i].name[len] == '\t')
			v[n++] = &cl->t.c[i];
	qsort(v, n, sizeof(*v), cmp_ops);
	rc = bcn_buf_adds(b, ",\"clients\":[");
	for (i = 0; !rc && i < n; i++) {
		if (i >= CLIENTS_TOP) {
			rest += v[i]->sum.meta_ops;
			continue;
		}
		rc = bcn_buf_adds(b, i ? ",{\"client\":" : "{\"client\":");
		if (!rc)
			rc = bcn_buf_add_json_str(b, v[i]->name + len + 1);
		if (!rc)
			rc = bcn_buf_printf(b, ",\"meta_ops_rate\":%.2f}",
					    v[i]->sum.meta_ops / cl->secs);
	}
	if (!rc)
		rc = bcn_buf_printf(b, "],\"clients_others\":%.2f",
				    rest / cl->secs);
	if (!rc)
		rc = groups_json(cl, v, n, len + 1, b);
	free(v);
	return rc;
}

static int fwd_json(const struct comp *c, struct bcn_buf *b)
{
	int rc;

	if (c->lat_n)
		rc = bcn_buf_printf(b, ",\"latency_mean_us\":%.1f,"
				    "\"latency_max_us\":%" PRIu64,
				    (double)c->lat_sum / (double)c->lat_n,
				    c->lat_max);
	else
		rc = bcn_buf_adds(b, ",\"latency_mean_us\":null,"
				  "\"latency_max_us\":null");
	if (rc)
		return rc;
	if (c->q_n)
		return bcn_buf_printf(b, ",\"queue_mean\":%.2f,\"queue_max\":"
				      "%" PRIu64, (double)c->q_sum /
				      (double)c->q_n, c->q_max);
	return bcn_buf_adds(b, ",\"queue_mean\":null,\"queue_max\":null");
}

static int load_json(const struct table *t, double secs,
		     const struct clients *cl, struct bcn_buf *b)
{
	int rc = bcn_buf_printf(b, "\"%s\":[", t->layer);

	for (size_t i = 0; !rc && i < t->n; i++) {
		const struct comp *c = &t->c[i];

		rc = bcn_buf_adds(b, i ? ",{\"entity\":" : "{\"entity\":");
		if (!rc)
			rc = bcn_buf_add_json_str(b, c->name);
		if (!rc)
			rc = bcn_buf_printf(b, ",\"read_bw\":%.1f,\"write_bw\":"
				"%.1f,\"iops\":%.2f,\"meta_ops_rate\":%.2f",
				c->sum.read_bytes / secs,
				c->sum.write_bytes / secs,
				(c->sum.read_ops + c->sum.write_ops) / secs,
				c->sum.meta_ops / secs);
		if (!rc && t->fwd_nodes)
			rc = fwd_json(c, b);
		if (!rc && t->mds && cl)
			rc = clients_json(cl, c->name, b);
		if (!rc)
			rc = bcn_buf_adds(b, "}");
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

/* An administrator's per-client MDT data: the exports' records over
 * [from, to) and, grouping by forwarding node, the map at to. */
static int clients_load(struct bcn_web_req *q, struct clients *cl,
			const struct bcn_web_scope *s, int64_t from, int64_t to)
{
	int rc;

	cl->t.layer = "mds";
	cl->t.scope = s;
	if (cl->by_fwd && !(cl->map.e = calloc(MAP_MAX, sizeof(*cl->map.e))))
		return -ENOMEM;
	pthread_mutex_lock(&q->w->lock);
	rc = scan_part(q, &cl->t, from, to, BCN_STORE_PART_CLIENT, on_client);
	if (!rc && cl->by_fwd) {
		rc = bcn_jobdb_fwd_map(q->w->db, to, map_add, &cl->map);
		rc = rc < 0 ? rc : 0;
	}
	pthread_mutex_unlock(&q->w->lock);
	if (!rc && cl->map.n)
		qsort(cl->map.e, cl->map.n, sizeof(*cl->map.e), map_cmp);
	return rc;
}

int bcn_web_overview(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	static const char *const lay[] = { "forward", "ost", "mds" };
	const struct bcn_web_config *c = q->w->cfg;
	char ts[BCN_TIMEFMT_OUT_MAX];
	struct clients cl = { .by_fwd = true };
	struct bcn_web_scope s;
	const char *group;
	int64_t to, win;
	int rc;

	if (bcn_web_param_time(q, p, "to", bcn_web_now(), &to) ||
	    bcn_web_param_duration(q, p, "window", 60 * NS, NS,
				   c->overview_window_max_ms * 1000000, &win) ||
	    bcn_web_param_word(q, p, "group", 8, &group))
		return 0;
	if (group[0] && strcmp(group, "fwd") && strcmp(group, "nid"))
		return bcn_web_error(p, 400, "group is fwd or nid", "group");
	cl.by_fwd = strcmp(group, "nid") != 0;
	cl.secs = (double)win / NS;
	if ((rc = bcn_web_scope_load(q, to - win, to, &s)))
		return rc;
	if (s.all && (rc = clients_load(q, &cl, &s, to - win, to)))
		goto out;
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
			rc = load_json(&t, (double)win / NS, s.all ? &cl : NULL,
				       &p->body);
		table_free(&t);
	}
	if (!rc && s.all)
		rc = bcn_buf_printf(&p->body, ",\"clients_truncated\":%s,"
				    "\"map_truncated\":%s,\"groups_by\":\"%s\"",
				    cl.t.full ? "true" : "false",
				    cl.map.full ? "true" : "false",
				    cl.by_fwd && cl.map.n ? "fwd" : "nid");
	if (!rc)
		rc = bcn_buf_adds(&p->body, "}");
out:
	table_free(&cl.t);
	free(cl.map.e);
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
