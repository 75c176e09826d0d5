/* hot_switch (detect_int.h, docs/anomaly.md, docs/network.md "Hot
 * uplinks"): uplinks near their link rate or far above their peers with
 * the topology, else a switch's busiest port against the others. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/detect_int.h"
#include "analysis/anomaly/median.h"
#include "common/error.h"

/* ---- hot_switch ---- */

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct bcn_grid *g = arg;

	return strcmp(bcn_grid_name(g, *(const size_t *)a),
		      bcn_grid_name(g, *(const size_t *)b));
}

static size_t prefix_len(const char *name)
{
	const char *s = strrchr(name, '/');

	return s ? (size_t)(s - name) : strlen(name);
}

static double port_bytes(const struct bcn_grid *g, size_t row, size_t b)
{
	const double *x = bcn_grid_row(g, row);

	return bcn_grid_at(g, x, b, S_XMIT) + bcn_grid_at(g, x, b, S_RCV);
}

/* The busier direction of a port in bucket b, bytes. */
static double port_dir(const struct bcn_grid *g, size_t row, size_t b)
{
	const double *x = bcn_grid_row(g, row);

	return fmax(bcn_grid_at(g, x, b, S_XMIT), bcn_grid_at(g, x, b, S_RCV));
}

/* One switch without topology: rows idx[0..n) are its ports; its
 * busiest port against all the others. */
static int hot_one(struct round *r, const size_t *idx, size_t n,
		   struct bcn_anomaly *a)
{
	const struct bcn_grid *g = &r->sw;
	const double lim = (double)r->c->hot_pct / 100;
	struct bcn_run runs[RUNS_MAX];
	size_t nr, top = idx[0];
	int rc = 0;

	for (size_t b = 0; b < g->nb; b++) {
		double sum = 0, mx = 0;
		size_t arg = idx[0];

		for (size_t k = 0; k < n; k++) {
			double v = port_bytes(g, idx[k], b);

			sum += v;
			if (v > mx) {
				mx = v;
				arg = idx[k];
			}
		}
		r->state[b] = sum <= 0 ? BCN_RUN_IDLE :
			      mx / r->secs >= (double)r->c->hot_min_bytes &&
			      mx >= lim * (sum - mx) ? BCN_RUN_FLAGGED :
			      BCN_RUN_NORMAL;
		if (r->state[b] == BCN_RUN_FLAGGED)
			top = arg;
	}
	nr = bcn_grid_runs(r->state, g->nb, bcn_detect_buckets(r, r->c->gap_ms),
			   bcn_detect_buckets(r, r->c->hot_min_ms), 2, runs, RUNS_MAX);
	for (size_t k = 0; !rc && k < nr; k++) {
		double port = 0, rest = 0;

		for (size_t b = runs[k].first; b <= runs[k].last; b++)
			for (size_t j = 0; j < n; j++)
				*(idx[j] == top ? &port : &rest) +=
					port_bytes(g, idx[j], b);
		bcn_anomaly_init(a, "hot_switch", bcn_grid_name(g, top),
			     bcn_detect_severity(port / fmax(rest, 1), lim),
			     port / fmax(rest, 1));
		snprintf(a->evidence, sizeof(a->evidence), "{\"port_units\":%.0f,"
			 "\"other_ports_units\":%.0f,\"ratio\":%.2f,\"limit\":%.2f,"
			 "\"ports\":%zu,\"uplink\":\"busiest port\"}", port, rest,
			 port / fmax(rest, 1), lim, n);
		rc = bcn_detect_emit(r, a, g, &runs[k]);
	}
	return rc;
}

/* The cabling of grid row i ("switch/port"), or NULL. */
static const struct bcn_net_link *row_link(const struct round *r, size_t i)
{
	const char *nm = bcn_grid_name(&r->sw, i), *sl = strrchr(nm, '/');
	char sw[BCN_ENTITY_MAX];
	char *end;
	unsigned long long p;

	if (!sl || (size_t)(sl - nm) >= sizeof(sw))
		return NULL;
	p = strtoull(sl + 1, &end, 10);
	if (*end)
		return NULL;
	memcpy(sw, nm, (size_t)(sl - nm));
	sw[sl - nm] = 0;
	return bcn_net_link_of(&r->topo, sw, p);
}

/* A switch with topology: its uplinks and host ports (grid rows), the
 * uplinks' rates, scratch for medians. */
struct upset {
	const size_t *up, *down;
	size_t nu, nd;
	double *rate, *scratch;
};

/* The median of the other uplinks' busier direction in bucket b, bytes;
 * -1 without peers. */
static double peer_median(const struct round *r, const struct upset *x,
			  size_t u, size_t b)
{
	size_t k = 0;

	for (size_t j = 0; j < x->nu; j++)
		if (j != u)
			x->scratch[k++] = port_dir(&r->sw, x->up[j], b);
	return k ? bcn_median(x->scratch, k) : -1;
}

/* An uplink's share of what the host ports moved in bucket b, bytes;
 * -1 without host ports (a spine). */
static double down_share(const struct round *r, const struct upset *x,
			 size_t b)
{
	double sum = 0;

	for (size_t j = 0; j < x->nd; j++)
		sum += port_bytes(&r->sw, x->down[j], b);
	return x->nd ? sum / (double)x->nu : -1;
}

/* Is uplink u hot in bucket b: at least hot_min_bytes/s in its busier
 * direction, and that direction at hot_util of its rate, or at hot_pct
 * of its peer uplinks' median, or its bytes at hot_pct of its share of
 * the host ports' bytes (a leaf's uplinks carry what its hosts send and
 * receive, no more: the excess is traffic from elsewhere). */
static bool uplink_hot(const struct round *r, const struct upset *x,
		       size_t u, size_t b)
{
	const double hot = (double)r->c->hot_pct / 100;
	double v = port_dir(&r->sw, x->up[u], b), med, share;

	if (v / r->secs < (double)r->c->hot_min_bytes)
		return false;
	if (x->rate[u] > 0 && v / r->secs / x->rate[u] >=
	    (double)r->c->hot_util_pct / 100)
		return true;
	med = peer_median(r, x, u, b);
	if (med >= 0 && v >= hot * fmax(med, 1))
		return true;
	share = down_share(r, x, b);
	return share >= 0 && port_bytes(&r->sw, x->up[u], b) >= hot * fmax(share, 1);
}

/* Names the jobs on a leaf's hosts during the run of a hot uplink: the
 * jobs running (by the job database) on the hosts its host ports are
 * cabled to, each weighed by its hosts' port bytes over the run (a host
 * running several jobs splits its bytes among them). When the hosts'
 * traffic explains the uplink's (their share at least half of its bytes)
 * the jobs with 30% or more of it are accused, the others affected; when
 * it does not (traffic from elsewhere crosses the leaf), every job there
 * is affected. *share_pct gets the hosts' share of the uplink's bytes. */
static void name_leaf_jobs(struct round *r, const struct upset *x,
			   double up_bytes, const struct bcn_run *run,
			   struct bcn_anomaly *a, double *share_pct)
{
	uint64_t jobs[BCN_ANOMALY_JOBS_MAX], ids[16];
	uint32_t unused[BCN_ANOMALY_JOBS_MAX];
	double v[BCN_ANOMALY_JOBS_MAX] = { 0 }, hosts = 0;
	int64_t mid = r->sw.from + (int64_t)((run->first + run->last) / 2) *
		      r->sw.bucket;
	size_t n = 0;
	bool accuse;

	*share_pct = 0;
	for (size_t j = 0; r->db && j < x->nd; j++) {
		const struct bcn_net_link *l = row_link(r, x->down[j]);
		double bytes = 0;
		int got;

		if (!l || l->kind != BCN_TOPO_HOST || !l->host[0])
			continue;
		for (size_t b = run->first; b <= run->last; b++)
			bytes += port_bytes(&r->sw, x->down[j], b);
		hosts += bytes;
		got = bcn_jobdb_jobs_on(r->db, l->host, mid, ids, 16);
		for (int k = 0; k < got; k++) {
			size_t at = bcn_detect_add_job(ids[k], jobs, unused, &n,
					    BCN_ANOMALY_JOBS_MAX);

			if (at < BCN_ANOMALY_JOBS_MAX)  /* not when full */
				v[at] += bytes / got;
		}
	}
	*share_pct = up_bytes > 0 ? 100 * hosts / (double)x->nu / up_bytes : 0;
	accuse = up_bytes > 0 && hosts / (double)x->nu >= 0.5 * up_bytes;
	for (size_t i = 0; i < n && a->njobs < BCN_ANOMALY_JOBS_MAX; i++) {
		bool acc = accuse && hosts > 0 && v[i] >= 0.3 * hosts;

		a->jobs[a->njobs].job = jobs[i];
		a->jobs[a->njobs++].role = acc ? BCN_ANOMALY_ACCUSED :
					   BCN_ANOMALY_AFFECTED;
	}
}

/* The anomaly of one run of hot buckets of uplink u: scored by its mean
 * utilisation over the run when that reached hot_util, else by its
 * bytes over its share of the host ports' (a leaf) or over its peers'
 * median (a spine). */
static int hot_uplink_run(struct round *r, const struct upset *x, size_t u,
			  const struct bcn_run *run, struct bcn_anomaly *a)
{
	const struct bcn_grid *g = &r->sw;
	const struct bcn_net_link *l = row_link(r, x->up[u]);
	size_t nb = run->last - run->first + 1;
	double dir = 0, bytes = 0, peers = 0, share = 0, hosts_pct;
	double secs = (double)nb * r->secs, util, score, lim;

	for (size_t b = run->first; b <= run->last; b++) {
		dir += port_dir(g, x->up[u], b);
		bytes += port_bytes(g, x->up[u], b);
		peers += fmax(peer_median(r, x, u, b), 0);
		share += fmax(down_share(r, x, b), 0);
	}
	util = x->rate[u] > 0 ? dir / secs / x->rate[u] : 0;
	if (util >= (double)r->c->hot_util_pct / 100) {
		score = util;
		lim = (double)r->c->hot_util_pct / 100;
	} else {
		score = x->nd ? bytes / fmax(share, 1) : dir / fmax(peers, 1);
		lim = (double)r->c->hot_pct / 100;
	}
	bcn_anomaly_init(a, "hot_switch", bcn_grid_name(g, x->up[u]),
			 bcn_detect_severity(score, lim), score);
	name_leaf_jobs(r, x, bytes, run, a, &hosts_pct);
	snprintf(a->evidence, sizeof(a->evidence), "{\"uplink\":true,"
		 "\"bytes_per_s\":%.0f,\"rate\":%.0f,\"utilisation\":%.3f,"
		 "\"peer_median_bytes_per_s\":%.0f,\"peers\":%zu,"
		 "\"host_share_bytes_per_s\":%.0f,\"host_ports\":%zu,"
		 "\"hosts_pct_of_uplink\":%.1f,"
		 "\"limit\":%.2f,\"remote_port\":%" PRIu64 "}", dir / secs,
		 x->rate[u], util, peers / secs, x->nu - 1, share / secs, x->nd,
		 hosts_pct, lim, l ? l->remote_port : 0);
	return bcn_detect_emit(r, a, g, run);
}

/* One switch with topology: each uplink on its own, a run names it. */
static int hot_uplinks(struct round *r, struct upset *x,
		       struct bcn_anomaly *a)
{
	const struct bcn_grid *g = &r->sw;
	struct bcn_run runs[RUNS_MAX];
	int rc = 0;

	x->rate = calloc(2 * x->nu, sizeof(double));
	if (!x->rate)
		return -ENOMEM;
	x->scratch = x->rate + x->nu;
	for (size_t u = 0; u < x->nu; u++)
		x->rate[u] = (double)row_link(r, x->up[u])->rate;
	for (size_t u = 0; !rc && u < x->nu; u++) {
		size_t nr;

		for (size_t b = 0; b < g->nb; b++)
			r->state[b] = port_bytes(g, x->up[u], b) <= 0 ?
				BCN_RUN_IDLE : uplink_hot(r, x, u, b) ?
				BCN_RUN_FLAGGED : BCN_RUN_NORMAL;
		nr = bcn_grid_runs(r->state, g->nb, bcn_detect_buckets(r, r->c->gap_ms),
				   bcn_detect_buckets(r, r->c->hot_min_ms), 2, runs,
				   RUNS_MAX);
		for (size_t k = 0; !rc && k < nr; k++)
			rc = hot_uplink_run(r, x, u, &runs[k], a);
	}
	free(x->rate);
	return rc;
}

/* The rows of one switch: its uplinks (by topology) on their own when
 * it has any, else the busiest-port rule. up has room for n rows. */
static int hot_switch(struct round *r, const size_t *idx, size_t n,
		      size_t *up, struct bcn_anomaly *a)
{
	struct upset x = { .up = up, .down = up + n };
	size_t *down = up + n;

	for (size_t k = 0; k < n; k++) {
		const struct bcn_net_link *l = row_link(r, idx[k]);

		if (l && l->kind == BCN_TOPO_SWITCH)
			up[x.nu++] = idx[k];
		else if (l)
			down[x.nd++] = idx[k];
	}
	if (x.nu)
		return hot_uplinks(r, &x, a);
	return n >= 2 ? hot_one(r, idx, n, a) : 0;
}

int bcn_detect_rule_hot(struct round *r)
{
	size_t n = r->sw.nrows, *idx = malloc((n ? n : 1) * sizeof(*idx));
	size_t *up = malloc((n ? 2 * n : 1) * sizeof(*up));
	struct bcn_anomaly *a = malloc(sizeof(*a));
	int rc = 0;

	if (!idx || !up || !a) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_name, &r->sw);
	for (size_t s = 0, e; !rc && s < n; s = e) {
		const char *first = bcn_grid_name(&r->sw, idx[s]);
		size_t pl = prefix_len(first);

		for (e = s + 1; e < n; e++) {
			const char *nm = bcn_grid_name(&r->sw, idx[e]);

			if (prefix_len(nm) != pl || strncmp(nm, first, pl))
				break;
		}
		rc = hot_switch(r, idx + s, e - s, up, a);
	}
out:
	free(idx);
	free(up);
	free(a);
	return rc;
}

