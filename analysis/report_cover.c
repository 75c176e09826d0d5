/* Coverage of the per-job report (report.h, docs/report.md "Coverage"):
 * which of the components a job needed reported while it ran, per layer,
 * and from that the source of the job's volume.
 *
 *   client   the job's nodes (its nodelist); a node is covered when its
 *            beacon-clientd's health records vouch for report_cover_pct
 *            of the job's time (each vouches from its previous one to
 *            report_health_grace past its own), or, for a collector that
 *            sends no health records, when the job's io records came
 *            from it;
 *   forward  the forwarding nodes of the job's nodes (the map), covered
 *            when they sent request windows in the job's window
 *            (report_parts.c counts them);
 *   ost/mds  the targets known around the job: those with the job's
 *            job_stats parts, those the forwarding nodes' Lustre clients
 *            sent RPCs to, and those that reported in the lookback before
 *            the window; one that reported before but neither in the
 *            window's parts nor at its end is missing.
 *
 * The volume then comes from the client layer when it is complete, else
 * from the OSTs' job_stats parts, and the partial_coverage finding says
 * what is missing and what the figures are bounded by. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_int.h"
#include "analysis/stores.h"
#include "common/error.h"
#include "common/hostlist.h"

#define NS_PER_MS 1000000ll

/* Jobs of at most this many nodes read their nodes' collector records
 * node by node; larger ones every collector's (a query each would cost
 * more than the whole layer's few records a minute per collector). */
#define COVER_BY_NODE 64

/* jnodes' counters */
#define JN_COVERED_NS 0
#define JN_UNTIL 1
#define JN_COVERED 2
#define JN_HEALTH 3

const char *bcn_report_layer_name(int l)
{
	static const char *const names[BCN_COVER_MAX] = {
		"client", "forward", "ost", "mds",
	};

	return l >= 0 && l < BCN_COVER_MAX ? names[l] : "?";
}

int bcn_report_missing_list(struct bcn_report_cover *cv, const char **names,
			size_t n)
{
	struct bcn_buf b;
	size_t k = n;
	int rc;

	free(cv->missing);
	cv->missing = NULL;
	bcn_buf_init(&b, BCN_COVER_MISSING_MAX);
	for (;;) {
		bcn_buf_reset(&b);
		rc = bcn_hostlist_format(names, k, &b);
		if (!rc && k < n)
			rc = bcn_buf_adds(&b, ",...");
		if (rc != -BCN_EFULL && rc != -BCN_ETOOBIG)
			break;
		k /= 2;
	}
	if (!rc)
		rc = bcn_buf_add(&b, "", 1);
	if (!rc && !(cv->missing = strdup((const char *)b.data)))
		rc = -ENOMEM;
	bcn_buf_free(&b);
	return rc;
}

/* ---- the client layer ---- */

struct health_pass {
	struct bcn_report_cpass *c;
	int64_t from, to, grace;
};

/* A beacon-clientd health record of one of the job's nodes: it vouches
 * for [t - dur, t + grace], clipped to the job, past what its node's
 * earlier ones vouched for (the scan is in time order). */
static int health_record(void *arg, const struct bcn_record *r)
{
	struct health_pass *p = arg;
	struct bcn_tally_entry *e;
	int64_t a, b, until;

	if (r->type != BCN_REC_HEALTH ||
	    strcmp(r->u.health.program, "beacon-clientd") ||
	    !(e = bcn_tally_find(&p->c->jnodes, r->node)))
		return 0;
	e->v[JN_HEALTH]++;
	until = (int64_t)e->v[JN_UNTIL];
	a = r->t - r->dur;
	b = r->t + p->grace;
	if (a < until)
		a = until;
	if (b > p->to)
		b = p->to;
	if (b > a) {
		e->v[JN_COVERED_NS] += (uint64_t)(b - a);
		e->v[JN_UNTIL] = (uint64_t)b;
	}
	return 0;
}

/* The job's nodes into c->jnodes; 0 with nothing when it has no
 * nodelist, -BCN_EFULL beyond nodes_max. */
static int job_nodes(struct bcn_report_cpass *c,
		     const struct bcn_report_config *cfg)
{
	struct bcn_report *r = c->r;
	struct bcn_hostlist hl;
	struct bcn_tally_entry *e;
	int rc;

	if (!r->nodelist || !r->nodelist[0])
		return 0;
	rc = bcn_hostlist_expand(r->nodelist, strlen(r->nodelist),
				 cfg->nodes_max, &hl, NULL, 0);
	if (rc == -BCN_ETOOBIG)
		return -BCN_EFULL;
	if (rc)
		return rc == -ENOMEM ? rc : 0;  /* not a hostlist: unknown */
	for (size_t i = 0; !rc && i < hl.n; i++)
		if (!(rc = bcn_tally_get(&c->jnodes, hl.hosts[i], &e)))
			e->v[JN_UNTIL] = (uint64_t)(r->start > 0 ? r->start : 0);
	bcn_hostlist_free(&hl);
	return rc;
}

/* Counts the covered nodes and lists the others. */
static int client_verdict(struct bcn_report_cpass *c,
			  const struct bcn_report_config *cfg, int64_t len)
{
	struct bcn_report_cover *cv = &c->r->cover[BCN_COVER_CLIENT];
	const char **miss = calloc(c->jnodes.n + 1, sizeof(*miss));
	size_t nmiss = 0;
	int rc = 0;

	if (!miss)
		return -ENOMEM;
	for (size_t i = 0; i < c->jnodes.n; i++) {
		struct bcn_tally_entry *e = &c->jnodes.e[i];
		bool io = bcn_tally_find(&c->nodes, e->key) != NULL;
		bool vouched = (unsigned __int128)e->v[JN_COVERED_NS] * 100 >=
			       (unsigned __int128)len * cfg->cover_pct;

		if (vouched || (io && !e->v[JN_HEALTH])) {
			e->v[JN_COVERED] = 1;
			cv->reported++;
			continue;
		}
		if (e->v[JN_HEALTH])
			cv->interrupted++;
		miss[nmiss++] = e->key;
	}
	cv->expected = c->jnodes.n;
	cv->known = true;
	cv->complete = nmiss == 0;
	if (nmiss)
		rc = bcn_report_missing_list(cv, miss, nmiss);
	free(miss);
	return rc;
}

int bcn_report_cover_client(const struct bcn_stores *st, struct bcn_report *r,
			    const struct bcn_report_config *cfg,
			    struct bcn_report_cpass *c, int64_t now)
{
	struct bcn_report_cover *cv = &r->cover[BCN_COVER_CLIENT];
	int64_t grace = cfg->health_grace_ms * NS_PER_MS;
	struct health_pass hp = { c, r->start, r->end ? r->end : now, grace };
	struct bcn_store_query q = { .layer = BCN_LAYER_COLLECTOR };
	int rc;

	cv->complete = true;    /* unknown: as before coverage was known */
	rc = job_nodes(c, cfg);
	if (rc == -BCN_EFULL) {
		bcn_report_partial(r, "more nodes than nodes_max: coverage "
				   "unknown");
		return 0;
	}
	if (rc || !c->jnodes.n)
		return rc;
	if (hp.to <= hp.from)
		hp.to = hp.from + 1;
	q.from = hp.from - grace;
	q.to = hp.to + grace;
	if (q.from < 0)
		q.from = 0;
	/* a small job's nodes one by one (their records alone are read), a
	 * large one's with every collector's in one scan */
	for (size_t i = 0; !rc && c->jnodes.n <= COVER_BY_NODE &&
	     i < c->jnodes.n; i++) {
		q.entity = c->jnodes.e[i].key;
		rc = bcn_stores_scan(st, &q, health_record, &hp);
	}
	if (!rc && c->jnodes.n > COVER_BY_NODE)
		rc = bcn_stores_scan(st, &q, health_record, &hp);
	return rc ? rc : client_verdict(c, cfg, hp.to - hp.from);
}

/* ---- OSTs and MDTs ---- */

/* targets' flags */
#define TG_PART 1u              /* has the job's parts */
#define TG_WINDOW 2u            /* reported in the window (its totals) */
#define TG_BEFORE 4u            /* reported in the lookback before */
#define TG_END 8u               /* reported at the window's end */
#define TG_RPC 16u              /* a forwarding client sent it RPCs */

struct seen_pass {
	struct bcn_tally *t;
	uint64_t flag;
};

static int seen_record(void *arg, const struct bcn_record *r)
{
	struct seen_pass *p = arg;
	struct bcn_tally_entry *e;
	const char *target;

	if (r->type == BCN_REC_OST)
		target = r->u.ost.target;
	else if (r->type == BCN_REC_MDS)
		target = r->u.mds.target;
	else
		return 0;
	if (bcn_tally_get(p->t, target, &e))
		return 0;       /* bounded: the rest stay unknown */
	e->v[0] |= p->flag;
	return 0;
}

static int seen_scan(const struct bcn_stores *st, int layer, int64_t from,
		     int64_t to, struct bcn_tally *t, uint64_t flag)
{
	struct seen_pass p = { t, flag };
	struct bcn_store_query q = {
		.layer = layer, .from = from > 0 ? from : 0, .to = to,
		.any_order = true,
	};

	if (q.to <= q.from)
		return 0;
	return bcn_stores_scan(st, &q, seen_record, &p);
}

static int server_layer(const struct bcn_stores *st, struct bcn_report *r,
			const struct bcn_report_config *cfg,
			struct bcn_report_cpass *c, int layer, int64_t now)
{
	int idx = layer == BCN_LAYER_OST ? BCN_COVER_OST : BCN_COVER_MDS;
	struct bcn_report_cover *cv = &r->cover[idx];
	const char *name = idx == BCN_COVER_OST ? "ost" : "mds";
	int64_t back = cfg->cover_lookback_ms * NS_PER_MS;
	int64_t end = r->window_to < now ? r->window_to : now;
	struct bcn_tally t;
	struct bcn_tally_entry *e;
	const char **miss = NULL;
	size_t nmiss = 0;
	int rc = 0;

	bcn_tally_init(&t, cfg->targets_max);
	for (size_t i = 0; !rc && i < r->nparts; i++)
		if (!strcmp(r->parts[i].layer, name) &&
		    !(rc = bcn_tally_get(&t, r->parts[i].component, &e)))
			e->v[0] |= TG_PART |
				   (r->parts[i].records ? TG_WINDOW : 0);
	for (size_t i = 0; !rc && idx == BCN_COVER_OST &&
	     i < c->rpc_targets.n; i++)
		if (!(rc = bcn_tally_get(&t, c->rpc_targets.e[i].key, &e)))
			e->v[0] |= TG_RPC;
	rc = rc ? rc : seen_scan(st, layer, r->window_from - back,
				 r->window_from, &t, TG_BEFORE);
	if (end - back < r->window_from)
		back = end - r->window_from;
	rc = rc ? rc : seen_scan(st, layer, end - back, end, &t, TG_END);
	if (rc == -BCN_EFULL)
		rc = 0;         /* the first targets_max are judged */
	if (!rc && !(miss = calloc(t.n + 1, sizeof(*miss))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < t.n; i++) {
		uint64_t f = t.e[i].v[0];

		cv->served += (f & TG_PART) != 0;
		if (f & (TG_WINDOW | TG_END))
			cv->reported++;
		else
			miss[nmiss++] = t.e[i].key;
	}
	if (!rc) {
		cv->expected = t.n;
		cv->known = t.n > 0;
		cv->complete = cv->known && !nmiss;
		if (nmiss)
			rc = bcn_report_missing_list(cv, miss, nmiss);
	}
	free(miss);
	bcn_tally_free(&t);
	return rc;
}

int bcn_report_cover_servers(const struct bcn_stores *st,
			     struct bcn_report *r,
			     const struct bcn_report_config *cfg,
			     struct bcn_report_cpass *c, int64_t now)
{
	int rc = server_layer(st, r, cfg, c, BCN_LAYER_OST, now);

	return rc ? rc : server_layer(st, r, cfg, c, BCN_LAYER_MDS, now);
}

/* ---- the source of the volume ---- */

static void keep_client(struct bcn_report *r)
{
	struct bcn_report_client *k = &r->client;

	k->read_bytes = r->read_bytes;
	k->write_bytes = r->write_bytes;
	k->read_ops = r->read_ops;
	k->write_ops = r->write_ops;
	k->read_bw_mean = r->read_bw_mean;
	k->write_bw_mean = r->write_bw_mean;
	k->iops = r->iops;
	k->io_nodes = r->io_nodes;
}

int bcn_report_choose_source(struct bcn_report_cpass *c,
			     const struct bcn_report_config *cfg)
{
	struct bcn_report *r = c->r;
	bool client = r->cover[BCN_COVER_CLIENT].complete;
	uint64_t rd = 0, wr = 0;

	keep_client(r);
	for (size_t i = 0; i < r->nparts; i++)
		if (!strcmp(r->parts[i].layer, "ost")) {
			rd += r->parts[i].read_bytes;
			wr += r->parts[i].write_bytes;
		}
	if (client || !(rd + wr)) {
		bool any = r->records || r->read_bytes || r->write_bytes;

		snprintf(r->volume_source, sizeof(r->volume_source), "%s",
			 any || client ? "client" : "none");
		r->volume_exact = client;
		r->client_sample = !client && any;
		return 0;
	}
	snprintf(r->volume_source, sizeof(r->volume_source), "ost");
	r->volume_exact = r->cover[BCN_COVER_OST].complete;
	r->client_sample = r->records > 0;
	if (!r->client_sample)  /* moved data, but no process was seen */
		snprintf(r->mode, sizeof(r->mode), "unknown");
	r->read_bytes = rd;
	r->write_bytes = wr;
	r->read_ops = r->ost_read_ops;
	r->write_ops = r->ost_write_ops;
	return bcn_report_figures(c, &c->srv, cfg);
}

void bcn_report_cover_free(struct bcn_report *r)
{
	for (int i = 0; i < BCN_COVER_MAX; i++) {
		free(r->cover[i].missing);
		r->cover[i].missing = NULL;
	}
}
