/* The router (web/web_int.h): one table of the API's endpoints with
 * their method, whom they serve, whether they change state (CSRF) and
 * the parameters they take. Paths under /api/ that match none are 404,
 * a known path with another method 405; anonymous requests to an
 * endpoint that needs a user get 401, a user's to an administrator's
 * endpoint 403; /metrics goes to the metrics (web/api_metrics.c),
 * everything else to the static files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "web/auth.h"
#include "web/web_int.h"

enum who_may { ANYONE, USER, ADMIN };

struct route {
	const char *method;
	const char *pattern;            /* '#': one decimal id segment; a
					 * final '*': the rest, not empty */
	enum who_may may;
	const char *const *params;
	bcn_web_handler *fn;
};

static const char *const p_none[] = { NULL };
static const char *const p_jobs[] = { "user", "from", "to", "state", "mode",
	"min_bytes", "limit", "offset", NULL };
static const char *const p_series[] = { "layer", "entity", "from", "to",
	"step", "part", NULL };
static const char *const p_overview[] = { "to", "window", "group", NULL };
static const char *const p_heatmap[] = { "layer", "from", "to", NULL };
static const char *const p_anomalies[] = { "from", "to", "kind",
	"component", "state", "job", "limit", "offset", NULL };
static const char *const p_net[] = { "from", "to", "step", NULL };

static const struct route routes[] = {
	{ "GET", "/api/v1/openapi.json", ANYONE, p_none, bcn_web_openapi },
	{ "POST", "/api/v1/login", ANYONE, p_none, bcn_web_login },
	{ "POST", "/api/v1/logout", USER, p_none, bcn_web_logout },
	{ "GET", "/api/v1/me", USER, p_none, bcn_web_me },
	{ "GET", "/api/v1/jobs", USER, p_jobs, bcn_web_jobs },
	{ "GET", "/api/v1/jobs/#", USER, p_none, bcn_web_job },
	{ "GET", "/api/v1/series", USER, p_series, bcn_web_series },
	{ "GET", "/api/v1/overview", USER, p_overview, bcn_web_overview },
	{ "GET", "/api/v1/heatmap", USER, p_heatmap, bcn_web_heatmap },
	{ "GET", "/api/v1/anomalies", USER, p_anomalies, bcn_web_anomalies },
	{ "GET", "/api/v1/anomalies/#", USER, p_none, bcn_web_anomaly },
	{ "POST", "/api/v1/anomalies/#/ack", ADMIN, p_none,
	  bcn_web_anomaly_ack },
	{ "GET", "/api/v1/network/switches", ADMIN, p_net, bcn_web_net_switches },
	{ "GET", "/api/v1/network/switches/*", ADMIN, p_net, bcn_web_net_series },
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))
_Static_assert(NROUTES <= BCN_WEB_EP_STATIC, "more routes than metrics endpoints");

/* Whether path matches pattern; the '#' segment's number into *id. */
static bool match(const char *pattern, const char *path, uint64_t *id)
{
	while (*pattern && *path) {
		if (pattern[0] == '*' && !pattern[1])
			return true;
		if (*pattern == '#') {
			const char *s = path;
			uint64_t v = 0;

			for (; *s >= '0' && *s <= '9'; s++) {
				if (v > (UINT64_MAX - 9) / 10 || s - path >= 19)
					return false;
				v = v * 10 + (uint64_t)(*s - '0');
			}
			if (s == path || !v)
				return false;
			*id = v;
			path = s;
			pattern++;
			continue;
		}
		if (*pattern++ != *path++)
			return false;
	}
	return !*pattern && !*path;
}

static bool is_get(const char *m)
{
	return !strcmp(m, "GET") || !strcmp(m, "HEAD");
}

/* The route for q, or NULL with p set (404, 405). */
static const struct route *find(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const struct route *other = NULL;

	for (size_t i = 0; i < NROUTES; i++) {
		const struct route *r = &routes[i];

		if (!match(r->pattern, q->path, &q->id))
			continue;
		q->ep = i;
		if (!strcmp(r->method, q->method) ||
		    (!strcmp(r->method, "GET") && is_get(q->method)))
			return r;
		other = r;
	}
	if (other) {
		snprintf(p->allow, sizeof(p->allow), "%s", other->method);
		bcn_web_error(p, 405, "method not allowed", NULL);
	} else {
		bcn_web_error(p, 404, "no such endpoint", NULL);
	}
	return NULL;
}

static int api(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const struct route *r = find(q, p);

	if (!r)
		return 0;
	if (bcn_web_params_check(q, r->params, p))
		return 0;
	if (r->may != ANYONE) {
		if (bcn_web_auth_identify(q))
			return bcn_web_error(p, 503, "the job database is "
					     "unavailable", NULL);
	}
	if (r->may != ANYONE && !q->who.known)
		return bcn_web_error(p, 401, "log in first", NULL);
	if (!is_get(q->method) && r->may != ANYONE &&
	    !bcn_web_auth_csrf_ok(q))
		return bcn_web_error(p, 403, "missing or wrong CSRF token",
				     "X-CSRF-Token");
	if (r->may == ADMIN && q->who.role != BCN_ROLE_ADMIN)
		return bcn_web_error(p, 403, "administrators only", NULL);
	p->status = 200;
	p->type = "application/json";
	return r->fn(q, p);
}

size_t bcn_web_routes(void)
{
	return NROUTES;
}

void bcn_web_route(size_t i, const char **method, const char **pattern)
{
	*method = i < NROUTES ? routes[i].method : "";
	*pattern = i < NROUTES ? routes[i].pattern : "";
}

int bcn_web_dispatch(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	int rc;

	q->ep = BCN_WEB_EP_STATIC;
	if (!strcmp(q->path, "/metrics")) {
		q->ep = BCN_WEB_EP_METRICS;
		rc = bcn_web_metrics(q, p);
	} else if (strncmp(q->path, "/api/", 5) && strcmp(q->path, "/api")) {
		return bcn_web_static(q, p);
	} else {
		q->ep = BCN_WEB_EP_UNMATCHED;
		rc = api(q, p);
	}
	if (rc < 0) {
		pthread_mutex_lock(&q->w->lock);
		bcn_complain(&q->w->backend_log, BCN_LOG_ERR, "%s %s: %s",
			     q->method, q->path, bcn_strerror(rc));
		pthread_mutex_unlock(&q->w->lock);
		bcn_web_error(p, rc == -EIO ? 503 : 500, rc == -EIO ?
			      "a backend is unavailable" : "internal error",
			      NULL);
		rc = 0;
	}
	return rc;
}
