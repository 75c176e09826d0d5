/* GET /metrics (web/metrics.h, docs/api.md "Metrics"): the Prometheus
 * text format 0.0.4, to the addresses of web_metrics_allow or to
 * administrators (others 403). The request counters are the service's
 * own; open anomalies come from the job database, the log servers'
 * health from the statistics hashes they publish in the cache's Redis
 * (the hash beacon:logsrvs maps their redis_prefix to their name), the
 * collectors' from their health records (web/metrics_collectors.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "web/auth.h"
#include "web/web_int.h"

#define BCN_WEB_LOGSRV_REGISTRY "beacon:logsrvs" /* logsrv's REGISTRY_KEY */
#define NAME_MAX_ 256

/* A statistic of the log servers' hash and the metric it becomes. */
struct lsfield {
	const char *field, *metric, *type, *help;
	double scale;
};

static const struct lsfield lsfields[] = {
	{ "time", "beacon_logsrv_last_seen_seconds", "gauge",
	  "When the log server last published its statistics (Unix time).", 1 },
	{ "conns", "beacon_logsrv_connections", "gauge",
	  "Open collector connections.", 1 },
	{ "frames_in", "beacon_logsrv_frames_accepted_total", "counter",
	  "Frames accepted since the log server started.", 1 },
	{ "records_in", "beacon_logsrv_records_accepted_total", "counter",
	  "Records accepted since the log server started.", 1 },
	{ "flushed", "beacon_logsrv_records_stored_total", "counter",
	  "Records moved into the record store.", 1 },
	{ "rejected", "beacon_logsrv_frames_rejected_total", "counter",
	  "Frames rejected (bad, too old, not allowed).", 1 },
	{ "dup", "beacon_logsrv_frames_duplicate_total", "counter",
	  "Frames received again (deduplicated).", 1 },
	{ "store_errors", "beacon_logsrv_store_errors_total", "counter",
	  "Failed appends to the record store.", 1 },
	{ "backlog", "beacon_logsrv_backlog_frames", "gauge",
	  "Frames queued in Redis for the store (-1: unknown).", 1 },
	{ "pending", "beacon_logsrv_pending_frames", "gauge",
	  "Frames waiting to be written to Redis.", 1 },
	{ "lag_p50_ms", "beacon_logsrv_lag_p50_seconds", "gauge",
	  "Median ingest lag of the last statistics interval.", 0.001 },
	{ "lag_p99_ms", "beacon_logsrv_lag_p99_seconds", "gauge",
	  "99th percentile ingest lag of the last statistics interval.", 0.001 },
	{ "lag_max_ms", "beacon_logsrv_lag_max_seconds", "gauge",
	  "Largest ingest lag of the last statistics interval.", 0.001 },
};
#define NLS (sizeof(lsfields) / sizeof(lsfields[0]))

struct logsrv {
	char prefix[NAME_MAX_], name[NAME_MAX_];
	int64_t v[NLS];
	bool has[NLS];
};

struct logsrvs {
	struct logsrv *v;
	size_t n;
};

struct kinds {
	char kind[BCN_WEB_KINDS_MAX][BCN_ANOMALY_KIND_MAX];
	uint64_t n[BCN_WEB_KINDS_MAX];
	size_t nk;
	uint64_t seen;
};

/* The labels of endpoint ep, status class c, without braces. */
static int ep_labels(struct bcn_buf *b, size_t ep, size_t c)
{
	const char *method = "", *path = "";
	char cls[8];
	int rc;

	if (ep == BCN_WEB_EP_STATIC)
		path = "static";
	else if (ep == BCN_WEB_EP_UNMATCHED)
		path = "unmatched";
	else if (ep == BCN_WEB_EP_METRICS)
		path = "/metrics";
	else
		bcn_web_route(ep, &method, &path);
	snprintf(cls, sizeof(cls), "%zuxx", c + 1);
	rc = bcn_web_metrics_kv(b, "endpoint", path, true);
	if (!rc && method[0])
		rc = bcn_web_metrics_kv(b, "method", method, false);
	return rc ? rc : bcn_web_metrics_kv(b, "status", cls, false);
}

static bool ep_known(size_t ep)
{
	return ep < bcn_web_routes() || ep >= BCN_WEB_EP_STATIC;
}

static int requests(struct bcn_web_metrics *m, struct bcn_buf *b)
{
	int rc = bcn_web_metrics_family(b, "beacon_web_requests_total",
			"counter", "Requests answered, by endpoint (route "
			"pattern, # an id), method and status class.");

	for (size_t e = 0; !rc && e < BCN_WEB_ENDPOINTS_MAX; e++)
		for (size_t c = 0; !rc && ep_known(e) && c < BCN_WEB_CLASSES;
		     c++) {
			uint64_t n = atomic_load(&m->count[e][c]);

			if (!n)
				continue;
			rc = bcn_buf_adds(b, "beacon_web_requests_total{");
			if (!rc)
				rc = ep_labels(b, e, c);
			if (!rc)
				rc = bcn_buf_printf(b, "} %" PRIu64 "\n", n);
		}
	return rc;
}

static int histogram_of(struct bcn_web_metrics *m, struct bcn_buf *b,
			size_t e, size_t c)
{
	const char *name = "beacon_web_request_duration_seconds";
	uint64_t cum = 0;
	int rc = 0;

	for (size_t k = 0; !rc && k < BCN_WEB_BUCKETS; k++) {
		cum += atomic_load(&m->bucket[e][c][k]);
		rc = bcn_buf_printf(b, "%s_bucket{", name);
		if (!rc)
			rc = ep_labels(b, e, c);
		if (!rc)
			rc = bcn_buf_printf(b, ",le=\"%s\"} %" PRIu64 "\n",
					    bcn_web_metrics_bucket_le(k), cum);
	}
	if (!rc)
		rc = bcn_buf_printf(b, "%s_sum{", name);
	if (!rc)
		rc = ep_labels(b, e, c);
	if (!rc)
		rc = bcn_buf_printf(b, "} %.9f\n%s_count{",
				    (double)atomic_load(&m->sum_ns[e][c]) / 1e9,
				    name);
	if (!rc)
		rc = ep_labels(b, e, c);
	return rc ? rc : bcn_buf_printf(b, "} %" PRIu64 "\n", cum);
}

static int latency(struct bcn_web_metrics *m, struct bcn_buf *b)
{
	int rc = bcn_web_metrics_family(b,
			"beacon_web_request_duration_seconds", "histogram",
			"Time from the request to its answer, by endpoint, "
			"method and status class.");

	for (size_t e = 0; !rc && e < BCN_WEB_ENDPOINTS_MAX; e++)
		for (size_t c = 0; !rc && ep_known(e) && c < BCN_WEB_CLASSES;
		     c++)
			if (atomic_load(&m->count[e][c]))
				rc = histogram_of(m, b, e, c);
	return rc;
}

static int own(struct bcn_web_metrics *m, struct bcn_buf *b)
{
	int rc = bcn_web_metrics_family(b, "beacon_web_report_cache_total",
			"counter", "Job report requests answered from the "
			"cache (hit) or computed (miss).");

	if (!rc)
		rc = bcn_buf_printf(b, "beacon_web_report_cache_total{result="
				    "\"hit\"} %" PRIu64 "\n"
				    "beacon_web_report_cache_total{result="
				    "\"miss\"} %" PRIu64 "\n",
				    atomic_load(&m->cache_hits),
				    atomic_load(&m->cache_misses));
	if (!rc)
		rc = bcn_web_metrics_family(b,
			"beacon_web_login_failures_total", "counter",
			"Log-ins refused for a wrong user or password.");
	if (!rc)
		rc = bcn_buf_printf(b, "beacon_web_login_failures_total %"
				    PRIu64 "\n",
				    atomic_load(&m->login_failures));
	return rc;
}

static int count_kind(void *arg, const struct bcn_anomaly *a)
{
	struct kinds *k = arg;
	size_t i;

	k->seen++;
	for (i = 0; i < k->nk && strcmp(k->kind[i], a->kind); i++)
		;
	if (i == k->nk) {
		if (k->nk == BCN_WEB_KINDS_MAX)
			return 0;
		snprintf(k->kind[k->nk++], sizeof(k->kind[0]), "%s", a->kind);
	}
	k->n[i]++;
	return 0;
}

/* Open anomalies by kind, a page at a time; under w->lock. */
static int anomalies(struct bcn_web *w, struct kinds *k)
{
	struct bcn_anomaly_filter f;
	uint64_t before;
	int rc;

	memset(&f, 0, sizeof(f));
	f.state = "open";
	f.limit = 1000;
	do {
		before = k->seen;
		rc = bcn_jobdb_anomalies(w->db, &f, count_kind, k);
		f.offset += f.limit;
	} while (!rc && k->seen - before == f.limit &&
		 k->seen < BCN_WEB_ANOMALIES_SCAN_MAX);
	return rc;
}

static int one_logsrv(void *arg, const char *member, const char *label,
		      size_t n, const char *const *names,
		      const char *const *values)
{
	struct logsrvs *l = arg;
	struct logsrv *s;

	if (!n)
		return 0;       /* registered, its statistics expired */
	s = &l->v[l->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->prefix, sizeof(s->prefix), "%s", member);
	snprintf(s->name, sizeof(s->name), "%s", label);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < NLS; k++)
			if (!strcmp(names[i], lsfields[k].field)) {
				s->v[k] = strtoll(values[i], NULL, 10);
				s->has[k] = true;
			}
	}
	return 0;
}

static int anomaly_lines(struct bcn_buf *b, const struct kinds *k)
{
	int rc = bcn_web_metrics_family(b, "beacon_anomalies_open", "gauge",
			"Open anomalies in the job database, by kind.");

	for (size_t i = 0; !rc && i < k->nk; i++) {
		rc = bcn_buf_adds(b, "beacon_anomalies_open{");
		if (!rc)
			rc = bcn_web_metrics_kv(b, "kind", k->kind[i], true);
		if (!rc)
			rc = bcn_buf_printf(b, "} %" PRIu64 "\n", k->n[i]);
	}
	return rc;
}

static int logsrv_lines(struct bcn_buf *b, const struct logsrvs *l)
{
	int rc = 0;

	for (size_t f = 0; !rc && f < NLS; f++) {
		rc = bcn_web_metrics_family(b, lsfields[f].metric,
					    lsfields[f].type, lsfields[f].help);
		for (size_t i = 0; !rc && i < l->n; i++) {
			const struct logsrv *s = &l->v[i];

			if (!s->has[f])
				continue;
			rc = bcn_buf_printf(b, "%s{", lsfields[f].metric);
			if (!rc)
				rc = bcn_web_metrics_kv(b, "logsrv", s->name,
							true);
			if (!rc)
				rc = bcn_web_metrics_kv(b, "prefix", s->prefix,
							false);
			if (!rc && lsfields[f].scale == 1)
				rc = bcn_buf_printf(b, "} %" PRId64 "\n", s->v[f]);
			else if (!rc)
				rc = bcn_buf_printf(b, "} %.3f\n", (double)s->v[f] *
						    lsfields[f].scale);
		}
	}
	return rc;
}

static int up_line(struct bcn_buf *b, const char *backend, bool up)
{
	return bcn_buf_printf(b, "beacon_web_backend_up{backend=\"%s\"} %d\n",
			      backend, up ? 1 : 0);
}

/* Whether q may read the metrics: from an allowed address (not through
 * the trusted proxy, whose clients may be anyone), or an administrator. */
static int may_read(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const struct bcn_web_config *c = q->w->cfg;
	bool proxied = c->trust_remote_user && !strcmp(q->peer,
						       c->trusted_proxy);

	if (!proxied && bcn_web_metrics_allowed(&q->w->metrics, q->peer))
		return 1;
	if (bcn_web_auth_identify(q)) {
		bcn_web_error(p, 503, "the job database is unavailable", NULL);
		return 0;
	}
	if (q->who.known && q->who.role == BCN_ROLE_ADMIN)
		return 1;
	bcn_web_error(p, 403, "metrics: not from an allowed address and not "
		      "an administrator", NULL);
	return 0;
}

/* The parts read from the backends, under w->lock. */
static void backends(struct bcn_web *w, struct kinds *k, struct logsrvs *l,
		     bool *db_up, bool *redis_up)
{
	pthread_mutex_lock(&w->lock);
	*db_up = !anomalies(w, k);
	*redis_up = w->cache && !bcn_cache_registry(w->cache,
			BCN_WEB_LOGSRV_REGISTRY, ":stats", BCN_WEB_LOGSRVS_MAX,
			one_logsrv, l);
	pthread_mutex_unlock(&w->lock);
}

int bcn_web_metrics(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	struct bcn_web *w = q->w;
	struct bcn_buf *b = &p->body;
	struct logsrvs l = { NULL, 0 };
	struct kinds *k = NULL;
	bool db_up, redis_up;
	int rc;

	if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD")) {
		snprintf(p->allow, sizeof(p->allow), "GET");
		return bcn_web_error(p, 405, "method not allowed", NULL);
	}
	if ((rc = may_read(q, p)) <= 0)
		return 0;
	k = calloc(1, sizeof(*k));
	l.v = calloc(BCN_WEB_LOGSRVS_MAX, sizeof(*l.v));
	if (!k || !l.v) {
		rc = -ENOMEM;
		goto out;
	}
	backends(w, k, &l, &db_up, &redis_up);
	p->status = 200;
	p->type = "text/plain; version=0.0.4; charset=utf-8";
	rc = requests(&w->metrics, b);
	if (!rc)
		rc = latency(&w->metrics, b);
	if (!rc)
		rc = own(&w->metrics, b);
	if (!rc)
		rc = bcn_web_metrics_family(b, "beacon_web_backend_up", "gauge",
			    "Whether the last read of a backend for these "
			    "metrics worked (jobdb, redis).");
	if (!rc)
		rc = up_line(b, "jobdb", db_up);
	if (!rc)
		rc = up_line(b, "redis", redis_up);
	if (!rc)
		rc = anomaly_lines(b, k);
	if (!rc)
		rc = logsrv_lines(b, &l);
	if (!rc)
		rc = bcn_web_collector_lines(w, b);
out:
	free(k);
	free(l.v);
	return rc;
}
