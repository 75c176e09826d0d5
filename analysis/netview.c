/* Fabric-wide network views (netview.h): topology first, then the port
 * records of the window into one row per switch (or port) with time
 * buckets. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/netview.h"
#include "common/error.h"

#define POINTS_MAX (1u << 22)           /* buckets of all rows together */

struct pass {
	struct bcn_net net;
	struct bcn_netview *v;
	const char *sw;                 /* port rows of this switch, or NULL */
	struct bcn_tally idx;           /* row key -> index + 1 */
	size_t cap;
	int err;
};

static int take_topo(void *arg, const struct bcn_record *r)
{
	struct pass *p = arg;

	return bcn_net_take_topology(&p->net, r);
}

/* A switch port known without topology: beacon-swd names PMA targets by
 * GUID ("0x...") or LID ("lid..."); other names are a host's own HCA. */
static bool fabric_name(const char *s)
{
	return !strncmp(s, "0x", 2) || !strncmp(s, "lid", 3);
}

static struct bcn_netview_row *row_of(struct pass *p, const char *key)
{
	struct bcn_netview *v = p->v;
	struct bcn_tally_entry *e;
	struct bcn_netview_row *r;
	int rc = bcn_tally_get(&p->idx, key, &e);

	if (rc == -BCN_EFULL || (!rc && !e->v[0] &&
				 (v->nrows + 1) * v->nb > POINTS_MAX)) {
		v->dropped++;
		return NULL;
	}
	if (rc) {
		p->err = rc;
		return NULL;
	}
	if (e->v[0])
		return &v->rows[e->v[0] - 1];
	if (v->nrows == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;

		if (!(r = realloc(v->rows, cap * sizeof(*r)))) {
			p->err = -ENOMEM;
			return NULL;
		}
		v->rows = r;
		p->cap = cap;
	}
	r = &v->rows[v->nrows];
	memset(r, 0, sizeof(*r));
	if (!(r->series = calloc(v->nb, sizeof(*r->series)))) {
		p->err = -ENOMEM;
		return NULL;
	}
	e->v[0] = ++v->nrows;
	return r;
}

static void add(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

static int take_port(void *arg, const struct bcn_record *x)
{
	struct pass *p = arg;
	const struct bcn_rec_port *q = &x->u.port;
	const struct bcn_net_link *l;
	struct bcn_netview_row *r;
	char key[BCN_STR_MAX + 32];
	const char *sw, *name;
	size_t b;

	if (x->type != BCN_REC_PORT)
		return 0;
	l = bcn_net_link_of(&p->net, q->sw, q->port);
	if (!l && !fabric_name(q->sw))
		return 0;
	sw = l ? l->sw : q->sw;
	name = l && l->sw_name[0] ? l->sw_name : sw;
	if (p->sw && strcmp(p->sw, sw) && strcmp(p->sw, name) &&
	    strcmp(p->sw, q->sw))
		return 0;
	if (p->sw)
		snprintf(key, sizeof(key), "%" PRIu64, q->port);
	else
		snprintf(key, sizeof(key), "%s", sw);
	if (!(r = row_of(p, key)))
		return p->err;
	if (!r->name[0]) {
		snprintf(r->name, sizeof(r->name), "%s", name);
		snprintf(r->guid, sizeof(r->guid), "%s", l ? l->sw : "");
		if (p->sw) {
			r->port = q->port;
			snprintf(p->v->sw, sizeof(p->v->sw), "%s", name);
		}
		if (p->sw && l) {
			snprintf(r->kind, sizeof(r->kind), "%s",
				 bcn_topo_kind_name(l->kind));
			snprintf(r->remote, sizeof(r->remote), "%s",
				 l->host);
			r->rate = l->rate;
		}
	}
	add(&r->xmit, q->xmit_bytes);
	add(&r->rcv, q->rcv_bytes);
	if (l && l->kind == BCN_TOPO_SWITCH) {
		add(&r->up_xmit, q->xmit_bytes);
		add(&r->up_rcv, q->rcv_bytes);
	} else if (l) {
		add(&r->down_xmit, q->xmit_bytes);
		add(&r->down_rcv, q->rcv_bytes);
	}
	b = (size_t)((x->t - p->v->from) / p->v->step);
	if (x->t >= p->v->from && b < p->v->nb) {
		add(&r->series[b].xmit, q->xmit_bytes);
		add(&r->series[b].rcv, q->rcv_bytes);
	}
	return 0;
}

static int by_row(const void *a, const void *b)
{
	const struct bcn_netview_row *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return strcmp(x->name, y->name);
}

int bcn_netview_compute(const struct bcn_stores *st, int64_t from, int64_t to,
			int64_t step, const char *sw, int64_t topo_age_ns,
			struct bcn_netview **out)
{
	struct bcn_store_query q = {
		.layer = BCN_LAYER_SWITCH, .to = to,
		.from = from > topo_age_ns ? from - topo_age_ns : 0,
	};
	struct pass p = { .sw = sw };
	struct bcn_netview *v;
	int rc;

	*out = NULL;
	if (to <= from || step <= 0)
		return -EINVAL;
	if (!(v = calloc(1, sizeof(*v))))
		return -ENOMEM;
	v->from = from;
	v->to = to;
	v->step = step;
	if ((to - from) / step >= BCN_NETVIEW_BUCKETS_MAX)
		v->step = (to - from) / BCN_NETVIEW_BUCKETS_MAX + 1;
	v->nb = (size_t)((to - from + v->step - 1) / v->step);
	p.v = v;
	bcn_net_init(&p.net, to, 1);
	bcn_tally_init(&p.idx, BCN_NETVIEW_ROWS_MAX);
	rc = bcn_stores_scan(st, &q, take_topo, &p);
	q.from = from;
	if (!rc)
		rc = bcn_stores_scan(st, &q, take_port, &p);
	if (!rc && p.err)
		rc = p.err;
	if (!rc && sw && !v->nrows)
		rc = -ENOENT;
	bcn_net_free(&p.net);
	bcn_tally_free(&p.idx);
	if (rc) {
		bcn_netview_free(v);
		return rc;
	}
	qsort(v->rows, v->nrows, sizeof(*v->rows), by_row);
	*out = v;
	return 0;
}

void bcn_netview_free(struct bcn_netview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nrows; i++)
		free(v->rows[i].series);
	free(v->rows);
	free(v);
}
