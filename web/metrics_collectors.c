/* The collectors' health in /metrics (docs/api.md, "Metrics"): each log
 * server keeps every collector's latest health record in the Redis hash
 * <redis_prefix>:collectors (node -> the record as JSON, docs/logsrv.md);
 * this reads those hashes through the log servers' registry and writes,
 * per program, how many collectors report, how many went silent or lost
 * their log server, and the sums of what they dropped; then, for at most
 * web_metrics_collectors of them (the troubled first), one series per
 * collector and counter. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/error.h"
#include "proto/frame.h"
#include "store/record_json.h"
#include "web/web_int.h"

#define BCN_WEB_LOGSRV_REGISTRY "beacon:logsrvs" /* logsrv's REGISTRY_KEY */
#define PROG_MAX 64                     /* program names kept */

/* One collector's latest account, as the metrics need it. */
struct coll {
	char node[BCN_NODE_MAX + 1];
	char prog[PROG_MAX];
	int64_t seen_ns;                /* t of its latest health record */
	struct bcn_rec_health h;
	bool silent, trouble;
};

struct colls {
	struct coll *v;
	size_t n, cap, max;             /* max: collectors read at most */
	uint64_t bad, over;             /* entries unreadable, past max */
	int64_t now_ns, silent_ns;
	struct bcn_record_arena *arena;
};

/* A per-collector counter or gauge and where its value is. */
struct cfield {
	const char *metric, *type, *help;
	size_t off;                     /* in struct bcn_rec_health */
};

#define HOFF(m) offsetof(struct bcn_rec_health, m)
static const struct cfield cfields[] = {
	{ "beacon_collector_records_total", "counter",
	  "Records the collector made since it started.", HOFF(records) },
	{ "beacon_collector_acked_records_total", "counter",
	  "Records the log servers confirmed as stored.", HOFF(acked_records) },
	{ "beacon_collector_dropped_records_total", "counter",
	  "Records given up (send buffer full, rejected).",
	  HOFF(dropped_records) },
	{ "beacon_collector_send_errors_total", "counter",
	  "Frames that could not be queued for sending.", HOFF(send_errors) },
	{ "beacon_collector_sample_errors_total", "counter",
	  "Samples that failed.", HOFF(sample_errors) },
	{ "beacon_collector_overruns_total", "counter",
	  "Ticks missed because sampling took longer than the interval.",
	  HOFF(overruns) },
	{ "beacon_collector_file_errors_total", "counter",
	  "Files that could not be read or parsed.", HOFF(file_errors) },
	{ "beacon_collector_reconnects_total", "counter",
	  "Sessions with a log server after the first.", HOFF(reconnects) },
	{ "beacon_collector_buffered_bytes", "gauge",
	  "Bytes waiting for a log server's acknowledgement.",
	  HOFF(buffered_bytes) },
	{ "beacon_collector_connected", "gauge",
	  "1 while the collector has a session with a log server.",
	  HOFF(connected) },
};
#define NCF (sizeof(cfields) / sizeof(cfields[0]))

static uint64_t hval(const struct bcn_rec_health *h, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)h + off, sizeof(v));
	return v;
}

/* Decodes one hash entry (node -> health record JSON) into *c. Returns 0
 * or a negative code (not a health record of that node). */
static int parse_one(struct colls *l, const char *node, const char *json,
		     struct coll *c)
{
	struct bcn_record r;
	char err[128];
	int rc;

	bcn_record_arena_reset(l->arena);
	rc = bcn_record_from_json(json, strlen(json), l->arena, &r, err,
				  sizeof(err));
	if (rc)
		return rc;
	if (r.type != BCN_REC_HEALTH || strcmp(r.node, node))
		return -BCN_ECORRUPT;
	memset(c, 0, sizeof(*c));
	snprintf(c->node, sizeof(c->node), "%s", node);
	snprintf(c->prog, sizeof(c->prog), "%s", r.u.health.program);
	c->h = r.u.health;
	c->h.program = NULL;            /* the arena's: not kept */
	c->seen_ns = r.t;
	c->silent = l->now_ns - r.t > l->silent_ns;
	c->trouble = c->silent || !c->h.connected || c->h.dropped_records ||
		     c->h.send_errors || c->h.sample_errors || c->h.overruns;
	return 0;
}

static int one_hash(void *arg, const char *member, const char *label_,
		    size_t n, const char *const *names,
		    const char *const *values)
{
	struct colls *l = arg;

	(void)member;
	(void)label_;
	for (size_t i = 0; i < n; i++) {
		if (l->n == l->max) {
			l->over += n - i;
			return 0;
		}
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 256;
			struct coll *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			l->v = v;
			l->cap = cap;
		}
		if (parse_one(l, names[i], values[i], &l->v[l->n]))
			l->bad++;
		else
			l->n++;
	}
	return 0;
}

/* Troubled collectors first, then by node name. */
static int cmp_coll(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;

	if (x->trouble != y->trouble)
		return x->trouble ? -1 : 1;
	return strcmp(x->node, y->node);
}

/* Per-program aggregates: programs[] distinct, counts and sums. */
struct prog {
	char name[PROG_MAX];
	uint64_t n, silent, down, dropped;
};

static int aggregate(const struct colls *l, struct bcn_buf *b)
{
	static const struct { const char *metric, *help; size_t off; } ag[] = {
		{ "beacon_collectors", "Collectors with a health record, by "
		  "program.", offsetof(struct prog, n) },
		{ "beacon_collectors_silent", "Collectors whose latest health "
		  "record is older than web_collector_silent.",
		  offsetof(struct prog, silent) },
		{ "beacon_collectors_disconnected", "Collectors without a "
		  "session with a log server at their latest health record.",
		  offsetof(struct prog, down) },
		{ "beacon_collectors_dropped_records", "Records the collectors "
		  "dropped since they started, summed.",
		  offsetof(struct prog, dropped) },
	};
	struct prog p[PROG_MAX];
	size_t np = 0;
	int rc = 0;

	memset(p, 0, sizeof(p));
	for (size_t i = 0; i < l->n; i++) {
		const struct coll *c = &l->v[i];
		size_t k;

		for (k = 0; k < np && strcmp(p[k].name, c->prog); k++)
			;
		if (k == np) {
			if (np == PROG_MAX)
				continue;
			snprintf(p[np++].name, PROG_MAX, "%s", c->prog);
		}
		p[k].n++;
		p[k].silent += c->silent;
		p[k].down += !c->h.connected;
		p[k].dropped += c->h.dropped_records;
	}
	for (size_t a = 0; !rc && a < sizeof(ag) / sizeof(ag[0]); a++) {
		rc = bcn_web_metrics_family(b, ag[a].metric, "gauge",
					    ag[a].help);
		for (size_t k = 0; !rc && k < np; k++) {
			uint64_t v;

			memcpy(&v, (const char *)&p[k] + ag[a].off, sizeof(v));
			rc = bcn_buf_printf(b, "%s{", ag[a].metric);
			if (!rc)
				rc = bcn_web_metrics_kv(b, "program",
							p[k].name, true);
			if (!rc)
				rc = bcn_buf_printf(b, "} %" PRIu64 "\n", v);
		}
	}
	return rc;
}

/* Appends metric{node="..",program=".."} for collector c. */
static int series_head(struct bcn_buf *b, const char *metric,
		       const struct coll *c)
{
	int rc = bcn_buf_printf(b, "%s{", metric);

	if (!rc)
		rc = bcn_web_metrics_kv(b, "node", c->node, true);
	if (!rc)
		rc = bcn_web_metrics_kv(b, "program", c->prog, false);
	return rc;
}

static int series(const struct colls *l, size_t shown, struct bcn_buf *b)
{
	const char *seen = "beacon_collector_last_seen_seconds";
	int rc = bcn_web_metrics_family(b, seen, "gauge", "Time of the "
					"collector's latest health record "
					"(Unix time).");

	for (size_t i = 0; !rc && i < shown; i++) {
		rc = series_head(b, seen, &l->v[i]);
		if (!rc)
			rc = bcn_buf_printf(b, "} %.3f\n",
					    (double)l->v[i].seen_ns / 1e9);
	}
	for (size_t f = 0; !rc && f < NCF; f++) {
		const struct cfield *cf = &cfields[f];

		rc = bcn_web_metrics_family(b, cf->metric, cf->type, cf->help);
		for (size_t i = 0; !rc && i < shown; i++) {
			rc = series_head(b, cf->metric, &l->v[i]);
			if (!rc)
				rc = bcn_buf_printf(b, "} %" PRIu64 "\n",
						    hval(&l->v[i].h, cf->off));
		}
	}
	return rc;
}

int bcn_web_collector_lines(struct bcn_web *w, struct bcn_buf *b)
{
	const struct bcn_web_config *cfg = w->cfg;
	struct colls l;
	size_t shown;
	int rc;

	memset(&l, 0, sizeof(l));
	l.max = BCN_WEB_COLLECTORS_READ_MAX;
	l.now_ns = bcn_real_ns();
	l.silent_ns = cfg->collector_silent_ms * 1000000;
	l.arena = malloc(sizeof(*l.arena));
	if (!l.arena)
		return -ENOMEM;
	pthread_mutex_lock(&w->lock);
	rc = w->cache ? bcn_cache_registry(w->cache, BCN_WEB_LOGSRV_REGISTRY,
					   ":collectors", BCN_WEB_LOGSRVS_MAX,
					   one_hash, &l) : 0;
	pthread_mutex_unlock(&w->lock);
	if (rc == -EIO)
		rc = 0;         /* beacon_web_backend_up says Redis is down */
	if (rc)
		goto out;
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_coll);
	shown = l.n < cfg->metrics_collectors ? l.n : cfg->metrics_collectors;
	rc = aggregate(&l, b);
	if (!rc)
		rc = bcn_web_metrics_family(b, "beacon_collectors_unlisted",
			"gauge", "Collectors left out of the per-collector "
			"series (web_metrics_collectors, the troubled "
			"first), or whose health could not be read.");
	if (!rc)
		rc = bcn_buf_printf(b, "beacon_collectors_unlisted{reason="
				    "\"limit\"} %zu\nbeacon_collectors_unlisted"
				    "{reason=\"unreadable\"} %" PRIu64 "\n",
				    l.n - shown + (size_t)l.over, l.bad);
	if (!rc)
		rc = series(&l, shown, b);
out:
	free(l.v);
	free(l.arena);
	return rc;
}
