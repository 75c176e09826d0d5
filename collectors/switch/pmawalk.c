/* The directed-route walk of pmawalk.h. Switches are expanded in
 * breadth-first order; each keeps its parent and the parent's port that
 * leads to it, so a route is rebuilt from the tree (no path stored per
 * node). Visited switches are found by GUID in an open-addressing table
 * sized from max. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "collectors/switch/pmawalk.h"
#include "common/log.h"

#define WALK_NODE_SWITCH 2              /* NodeInfo.NodeType */
#define WALK_PORT_DOWN 1                /* PortInfo.PortState */

struct walk_sw {
	struct bcn_pma_node node;
	int parent;                     /* index, -1: reached from the root */
	uint8_t via;                    /* parent's port (root: its port) */
	uint8_t hops;
};

struct walk {
	struct ibmad_port *mad;
	int timeout_ms;
	unsigned max_hops;
	struct walk_sw *sw;
	size_t n, max;
	int *slot;                      /* GUID table: index + 1, 0 free */
	size_t nslot;
	uint64_t dropped;
	uint8_t buf[IB_SMP_DATA_SIZE * 4];
};

/* The directed route to switch i, then one more hop out of port `out`
 * (0: none), into id. Returns false when it would be too long. */
static bool walk_route(const struct walk *w, int i, uint8_t out,
		       ib_portid_t *id)
{
	uint8_t rev[BCN_PMA_HOPS_MAX + 1];
	int k = 0;

	memset(id, 0, sizeof(*id));
	for (int j = i; j >= 0; j = w->sw[j].parent) {
		rev[k++] = w->sw[j].via;
		if (w->sw[j].via == 0)          /* the root switch itself */
			k--;
		if (k >= BCN_PMA_HOPS_MAX)
			return false;
	}
	if (out)
		if (k + 1 > BCN_PMA_HOPS_MAX)
			return false;
	for (int h = 0; h < k; h++)
		id->drpath.p[h + 1] = rev[k - 1 - h];
	id->drpath.cnt = k;
	if (out)
		id->drpath.p[++id->drpath.cnt] = out;
	return true;
}

/* NodeInfo at id: type, port count, GUID. Returns 0 or -EIO. */
static int walk_nodeinfo(struct walk *w, ib_portid_t *id, int *type,
			 int *nports, uint64_t *guid, int *localport)
{
	memset(w->buf, 0, sizeof(w->buf));
	if (!smp_query_via(w->buf, id, IB_ATTR_NODE_INFO, 0,
			   (unsigned)w->timeout_ms, w->mad))
		return -EIO;
	*type = (int)mad_get_field(w->buf, 0, IB_NODE_TYPE_F);
	*nports = (int)mad_get_field(w->buf, 0, IB_NODE_NPORTS_F);
	*guid = mad_get_field64(w->buf, 0, IB_NODE_GUID_F);
	if (localport)
		*localport = (int)mad_get_field(w->buf, 0,
						IB_NODE_LOCAL_PORT_F);
	return 0;
}

/* The table slot of guid (free or holding it). */
static size_t walk_slot(const struct walk *w, uint64_t guid)
{
	size_t h = (size_t)((guid * 0x9e3779b97f4a7c15ull) >> 20) %
		w->nslot;

	while (w->slot[h] && w->sw[w->slot[h] - 1].node.guid != guid)
		h = (h + 1) % w->nslot;
	return h;
}

/* Adds a switch reached from parent through port via, unless known. */
static void walk_add(struct walk *w, uint64_t guid, int nports, int parent,
		     uint8_t via, uint8_t hops)
{
	size_t h = walk_slot(w, guid);
	struct walk_sw *s;

	if (w->slot[h])
		return;
	if (w->n >= w->max) {
		w->dropped++;
		return;
	}
	s = &w->sw[w->n];
	memset(s, 0, sizeof(*s));
	s->node.guid = guid;
	s->node.nports = (uint8_t)(nports > BCN_PMA_PORTS_MAX ?
				   BCN_PMA_PORTS_MAX : nports);
	s->parent = parent;
	s->via = via;
	s->hops = hops;
	w->slot[h] = (int)++w->n;
}

/* Reads switch i's LID and port states, and adds the switches behind
 * its linked ports. */
static void walk_expand(struct walk *w, int i)
{
	struct walk_sw *s = &w->sw[i];
	ib_portid_t id;
	int type, np;
	uint64_t guid;

	if (!walk_route(w, i, 0, &id) ||
	    !smp_query_via(w->buf, &id, IB_ATTR_PORT_INFO, 0,
			   (unsigned)w->timeout_ms, w->mad))
		return;
	s->node.lid = (uint16_t)mad_get_field(w->buf, 0, IB_PORT_LID_F);
	for (unsigned p = 1; p <= s->node.nports; p++) {
		if (!walk_route(w, i, 0, &id))
			return;
		memset(w->buf, 0, sizeof(w->buf));
		if (!smp_query_via(w->buf, &id, IB_ATTR_PORT_INFO, p,
				   (unsigned)w->timeout_ms, w->mad))
			continue;
		if (mad_get_field(w->buf, 0, IB_PORT_STATE_F) <= WALK_PORT_DOWN)
			continue;
		s->node.linked[p / 8] |= (uint8_t)(1u << (p % 8));
		if (s->hops >= w->max_hops || !walk_route(w, i, (uint8_t)p, &id))
			continue;
		if (walk_nodeinfo(w, &id, &type, &np, &guid, NULL))
			continue;
		if (type == WALK_NODE_SWITCH)
			walk_add(w, guid, np, i, (uint8_t)p,
				 (uint8_t)(s->hops + 1));
		s = &w->sw[i];
	}
}

/* Finds the first switch: the local node, or the one behind its port. */
static int walk_root(struct walk *w)
{
	ib_portid_t id;
	int type, np, lp;
	uint64_t guid;

	memset(&id, 0, sizeof(id));
	if (walk_nodeinfo(w, &id, &type, &np, &guid, &lp))
		return -EIO;
	if (type == WALK_NODE_SWITCH) {
		walk_add(w, guid, np, -1, 0, 0);
		return 0;
	}
	id.drpath.cnt = 1;
	id.drpath.p[1] = (uint8_t)lp;
	if (walk_nodeinfo(w, &id, &type, &np, &guid, NULL))
		return 0;               /* nothing behind the port */
	if (type == WALK_NODE_SWITCH)
		walk_add(w, guid, np, -1, (uint8_t)lp, 1);
	return 0;
}

int bcn_pma_walk(struct ibmad_port *mad, int timeout_ms, unsigned max_hops,
		 size_t max, struct bcn_pma_node **out, size_t *n,
		 uint64_t *dropped)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rc = -ENOMEM;

	if (!w)
		return rc;
	w->mad = mad;
	w->timeout_ms = timeout_ms;
	w->max_hops = max_hops && max_hops < BCN_PMA_HOPS_MAX ? max_hops :
		BCN_PMA_HOPS_MAX;
	w->max = max ? max : 1;
	w->nslot = w->max * 2 + 1;
	w->sw = calloc(w->max, sizeof(*w->sw));
	w->slot = calloc(w->nslot, sizeof(*w->slot));
	if (!w->sw || !w->slot)
		goto out;
	rc = walk_root(w);
	for (size_t i = 0; !rc && i < w->n; i++)
		walk_expand(w, (int)i);
	if (rc)
		goto out;
	*out = calloc(w->n ? w->n : 1, sizeof(**out));
	if (!*out) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < w->n; i++)
		(*out)[i] = w->sw[i].node;
	*n = w->n;
	if (dropped)
		*dropped = w->dropped;
out:
	free(w->sw);
	free(w->slot);
	free(w);
	return rc;
}
