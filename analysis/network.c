/* Network traffic by switch (network.h): the topology map, the switch
 * sums and the imbalance figure. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/median.h"
#include "analysis/network.h"
#include "common/error.h"

void bcn_net_init(struct bcn_net *n, int64_t at, size_t sw_max)
{
	memset(n, 0, sizeof(*n));
	n->at = at;
	n->sw_max = sw_max;
	bcn_tally_init(&n->link_idx, 2 * (size_t)BCN_NET_LINKS_MAX);
	bcn_tally_init(&n->nodes, 1u << 24);
	bcn_tally_init(&n->sw_idx, sw_max);
}

void bcn_net_free(struct bcn_net *n)
{
	free(n->links);
	free(n->sw);
	bcn_tally_free(&n->link_idx);
	bcn_tally_free(&n->nodes);
	bcn_tally_free(&n->sw_idx);
	memset(n, 0, sizeof(*n));
}

int bcn_net_add_node(struct bcn_net *n, const char *node)
{
	struct bcn_tally_entry *e;

	n->job = true;
	return bcn_tally_get(&n->nodes, node, &e);
}

static void copy(char *dst, const char *src)
{
	snprintf(dst, BCN_NET_NAME_MAX, "%s", src);
}

/* Does record time t replace a link seen at old? Newest at or before at
 * wins; after at, only while nothing at or before at is known, the
 * oldest. */
static bool better(int64_t at, int64_t old, int64_t t)
{
	if (t <= at)
		return old > at || t >= old;
	return old > at && t < old;
}

static void fill_link(struct bcn_net_link *l, const struct bcn_record *r)
{
	const struct bcn_rec_topology *x = &r->u.topo;
	size_t k = strcspn(x->remote_name, " \t");

	copy(l->sw, x->sw);
	copy(l->sw_name, x->sw_name);
	l->port = x->port;
	l->kind = x->remote_kind;
	copy(l->remote, x->remote);
	l->remote_port = x->remote_port;
	snprintf(l->host, sizeof(l->host), "%.*s",
		 (int)(k < BCN_NET_NAME_MAX ? k : BCN_NET_NAME_MAX - 1),
		 x->remote_name);
	l->rate = x->rate;
	l->t = r->t;
}

static int index_link(struct bcn_net *n, const char *sw, uint64_t port,
		      size_t i)
{
	char key[2 * BCN_NET_NAME_MAX];
	struct bcn_tally_entry *e;
	int rc;

	if (!sw[0])
		return 0;
	snprintf(key, sizeof(key), "%s/%" PRIu64, sw, port);
	if ((rc = bcn_tally_get(&n->link_idx, key, &e)))
		return rc;
	e->v[0] = i + 1;
	return 0;
}

int bcn_net_take_topology(struct bcn_net *n, const struct bcn_record *r)
{
	const struct bcn_net_link *old;
	struct bcn_net_link *l;
	size_t i;
	int rc;

	if (r->type != BCN_REC_TOPOLOGY)
		return 0;
	old = bcn_net_link_of(n, r->u.topo.sw, r->u.topo.port);
	if (old && strcmp(old->sw, r->u.topo.sw))
		old = NULL;     /* a name that is another switch's GUID */
	if (old) {
		if (!better(n->at, old->t, r->t))
			return 0;
		i = (size_t)(old - n->links);
	} else {
		if (n->nlinks >= BCN_NET_LINKS_MAX) {
			n->dropped++;
			return 0;
		}
		if (n->nlinks == n->links_cap) {
			size_t cap = n->links_cap ? 2 * n->links_cap : 256;

			if (!(l = realloc(n->links, cap * sizeof(*l))))
				return -ENOMEM;
			n->links = l;
			n->links_cap = cap;
		}
		i = n->nlinks++;
	}
	l = &n->links[i];
	fill_link(l, r);
	rc = index_link(n, l->sw, l->port, i);
	if (!rc)
		rc = index_link(n, l->sw_name, l->port, i);
	return rc == -BCN_EFULL ? 0 : rc;
}

const struct bcn_net_link *bcn_net_link_of(const struct bcn_net *n,
					   const char *sw, uint64_t port)
{
	char key[BCN_STR_MAX + 32];
	const struct bcn_tally_entry *e;

	snprintf(key, sizeof(key), "%s/%" PRIu64, sw, port);
	e = bcn_tally_find(&n->link_idx, key);
	return e && e->v[0] ? &n->links[e->v[0] - 1] : NULL;
}

/* The switch of link l, created when new (NULL over the cap). */
static struct bcn_net_switch *switch_of(struct bcn_net *n,
					const struct bcn_net_link *l, int *rc)
{
	struct bcn_tally_entry *e;
	struct bcn_net_switch *s;

	*rc = bcn_tally_get(&n->sw_idx, l->sw, &e);
	if (*rc == -BCN_EFULL) {
		n->dropped++;
		*rc = 0;
		return NULL;
	}
	if (*rc)
		return NULL;
	if (e->v[0])
		return &n->sw[e->v[0] - 1];
	if (n->nsw == n->sw_cap) {
		size_t cap = n->sw_cap ? 2 * n->sw_cap : 16;

		if (!(s = realloc(n->sw, cap * sizeof(*s)))) {
			*rc = -ENOMEM;
			return NULL;
		}
		n->sw = s;
		n->sw_cap = cap;
	}
	s = &n->sw[n->nsw];
	e->v[0] = ++n->nsw;
	memset(s, 0, sizeof(*s));
	copy(s->guid, l->sw);
	copy(s->name, l->sw_name[0] ? l->sw_name : l->sw);
	return s;
}

static bool job_host(const struct bcn_net *n, const struct bcn_net_link *l)
{
	return l->kind == BCN_TOPO_HOST && l->host[0] &&
	       bcn_tally_find(&n->nodes, l->host);
}

int bcn_net_select(struct bcn_net *n)
{
	int rc = 0;

	/* switches first, in the topology's order ... */
	for (size_t i = 0; !rc && i < n->nlinks; i++)
		if (!n->job || job_host(n, &n->links[i]))
			switch_of(n, &n->links[i], &rc);
	/* ... then their cabled ports by kind, and the nodes placed */
	for (size_t i = 0; !rc && i < n->nlinks; i++) {
		const struct bcn_net_link *l = &n->links[i];
		const struct bcn_tally_entry *e = bcn_tally_find(&n->sw_idx, l->sw);
		struct bcn_tally_entry *h;

		if (e && e->v[0]) {
			struct bcn_net_switch *s = &n->sw[e->v[0] - 1];

			if (l->kind == BCN_TOPO_SWITCH)
				s->uplinks++;
			else
				s->downlinks++;
			if (l->kind == BCN_TOPO_HOST && (!n->job || job_host(n, l)))
				s->job_ports++;
		}
		if (n->job && job_host(n, l) &&
		    (h = bcn_tally_find(&n->nodes, l->host)))
			h->v[0] = 1;
	}
	for (size_t i = 0; i < n->nodes.n; i++)
		n->unplaced += !n->nodes.e[i].v[0];
	return rc;
}

static void add_sat(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

int bcn_net_take_port(struct bcn_net *n, const struct bcn_record *r)
{
	const struct bcn_rec_port *p = &r->u.port;
	const struct bcn_net_link *l;
	const struct bcn_tally_entry *e;
	struct bcn_net_switch *s;

	if (r->type != BCN_REC_PORT || !(l = bcn_net_link_of(n, p->sw, p->port)))
		return 0;
	if (!(e = bcn_tally_find(&n->sw_idx, l->sw)) || !e->v[0])
		return 0;
	s = &n->sw[e->v[0] - 1];
	add_sat(&s->total_xmit, p->xmit_bytes);
	add_sat(&s->total_rcv, p->rcv_bytes);
	if (l->kind == BCN_TOPO_SWITCH) {
		add_sat(&s->up_xmit, p->xmit_bytes);
		add_sat(&s->up_rcv, p->rcv_bytes);
		return 0;
	}
	add_sat(&s->down_xmit, p->xmit_bytes);
	add_sat(&s->down_rcv, p->rcv_bytes);
	if (!n->job || job_host(n, l)) {
		add_sat(&s->xmit, p->xmit_bytes);
		add_sat(&s->rcv, p->rcv_bytes);
	}
	return 0;
}

int bcn_net_imbalance(const uint64_t *v, size_t n, double *ratio,
		      size_t *argmax)
{
	double *rest, med;
	size_t top = 0, k = 0;

	*argmax = 0;
	*ratio = 0;
	if (n < 2)
		return 0;
	for (size_t i = 1; i < n; i++)
		if (v[i] > v[top])
			top = i;
	*argmax = top;
	if (!(rest = malloc((n - 1) * sizeof(*rest))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (i != top)
			rest[k++] = (double)v[i];
	med = bcn_median(rest, k);
	free(rest);
	*ratio = (double)v[top] / (med >= 1 ? med : 1);
	return 0;
}

void bcn_net_histogram(const uint64_t *v, size_t n,
		       uint64_t hist[BCN_NET_HIST_BINS], uint64_t *width)
{
	uint64_t mx = 0;

	memset(hist, 0, BCN_NET_HIST_BINS * sizeof(*hist));
	for (size_t i = 0; i < n; i++)
		if (v[i] > mx)
			mx = v[i];
	*width = mx ? mx / BCN_NET_HIST_BINS + (mx % BCN_NET_HIST_BINS != 0) : 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = *width ? v[i] / *width : 0;

		hist[b < BCN_NET_HIST_BINS ? b : BCN_NET_HIST_BINS - 1]++;
	}
}
