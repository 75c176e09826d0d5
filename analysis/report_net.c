/* The per-job report's network part (report.h, docs/network.md): the
 * topology valid for the job's window, then its port records, summed
 * per switch the job's nodes hang off; the histogram of the job's volume
 * across those switches and the switch_imbalance finding. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_int.h"
#include "analysis/stores.h"
#include "common/error.h"
#include "common/hostlist.h"

static int take_topo(void *arg, const struct bcn_record *r)
{
	return bcn_net_take_topology(arg, r);
}

static int take_port(void *arg, const struct bcn_record *r)
{
	return bcn_net_take_port(arg, r);
}

static int by_name(const void *a, const void *b)
{
	const struct bcn_net_switch *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* The job's nodes into n; 1 when its node list does not parse. */
static int job_nodes(struct bcn_net *n, const struct bcn_report *r,
		     const struct bcn_report_config *cfg)
{
	struct bcn_hostlist hl;
	char err[160];
	int rc;

	rc = bcn_hostlist_expand(r->nodelist, strlen(r->nodelist),
				 cfg->nodes_max, &hl, err, sizeof(err));
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return 1;
	n->job = true;          /* a job without nodes has no switches */
	for (size_t i = 0; !rc && i < hl.n; i++)
		rc = bcn_net_add_node(n, hl.hosts[i]);
	bcn_hostlist_free(&hl);
	return rc == -BCN_EFULL ? 1 : rc;
}

static int finding(struct bcn_report *r, const struct bcn_report_config *cfg,
		   const uint64_t *vol, size_t top)
{
	const struct bcn_report_net *nt = r->net;
	double lim = (double)cfg->net_imbalance_pct / 100;
	struct bcn_buf ev;
	char msg[320];
	int rc;

	if (nt->nsw < 2 || vol[top] < cfg->net_min_bytes || nt->imbalance < lim)
		return 0;
	snprintf(msg, sizeof(msg), "Switch %.64s carried %.1fx the median "
		 "traffic of the job's other %zu switches: its nodes' "
		 "placement or their I/O is uneven.", nt->busiest,
		 nt->imbalance, nt->nsw - 1);
	bcn_buf_init(&ev, 511);
	rc = bcn_buf_adds(&ev, "{\"switch\":");
	rc = rc ? rc : bcn_buf_add_json_str(&ev, nt->busiest);
	rc = rc ? rc : bcn_buf_printf(&ev, ",\"bytes\":%" PRIu64 ",\"imbalance"
		"\":%.2f,\"limit\":%.2f,\"switches\":%zu}", vol[top],
		nt->imbalance, lim, nt->nsw);
	rc = rc ? rc : bcn_buf_add(&ev, "", 1);
	if (!rc)
		rc = bcn_advice_add(r, "switch_imbalance", nt->imbalance >=
				    2 * lim ? "critical" : "warning", msg,
				    (const char *)ev.data);
	bcn_buf_free(&ev);
	return rc == -BCN_EFULL ? 0 : rc;
}

/* Moves n's switches into r->net with the figures. */
static int summarise(struct bcn_report *r, struct bcn_net *n,
		     const struct bcn_report_config *cfg)
{
	struct bcn_report_net *nt = calloc(1, sizeof(*nt));
	uint64_t *vol = malloc((n->nsw ? n->nsw : 1) * sizeof(*vol));
	size_t top;
	int rc = 0;

	if (!nt || !vol) {
		free(nt);
		free(vol);
		return -ENOMEM;
	}
	qsort(n->sw, n->nsw, sizeof(*n->sw), by_name);
	nt->sw = n->sw;
	nt->nsw = n->nsw;
	nt->unplaced = n->unplaced;
	n->sw = NULL;
	n->nsw = n->sw_cap = 0;
	r->net = nt;
	for (size_t i = 0; i < nt->nsw; i++)
		vol[i] = nt->sw[i].xmit + nt->sw[i].rcv;
	bcn_net_histogram(vol, nt->nsw, nt->hist, &nt->bin_bytes);
	rc = bcn_net_imbalance(vol, nt->nsw, &nt->imbalance, &top);
	if (!rc && nt->nsw)
		snprintf(nt->busiest, sizeof(nt->busiest), "%s",
			 nt->sw[top].name);
	if (!rc)
		rc = finding(r, cfg, vol, top);
	free(vol);
	return rc == -ENOSPC ? 0 : rc;
}

int bcn_report_network(const struct bcn_stores *st, struct bcn_report *r,
		       const struct bcn_report_config *cfg)
{
	int64_t age = cfg->topology_age_ms * 1000000;
	struct bcn_store_query q = {
		.layer = BCN_LAYER_SWITCH,
		.from = r->window_from > age ? r->window_from - age : 0,
		.to = r->window_to + age,
	};
	struct bcn_net n;
	int rc;

	bcn_net_init(&n, r->window_to, cfg->targets_max);
	if ((rc = job_nodes(&n, r, cfg)) == 1) {
		bcn_report_partial(r, "node list not understood: no network "
				   "part");
		rc = 0;
		goto out;
	}
	if (rc || (rc = bcn_stores_scan(st, &q, take_topo, &n)))
		goto out;
	if ((rc = bcn_net_select(&n)) || !n.nsw)
		goto out;
	if (n.dropped)
		bcn_report_partial(r, "more switches than targets_max");
	q.from = r->window_from;
	q.to = r->window_to;
	q.any_order = true;     /* the ports' bytes only add up */
	if ((rc = bcn_stores_scan(st, &q, take_port, &n)))
		goto out;
	rc = summarise(r, &n, cfg);
out:
	bcn_net_free(&n);
	return rc;
}
