/* The fabric's network views (docs/api.md, "Network"; analysis/netview.h):
 *   GET /api/v1/network/switches?from=&to=&step=   traffic per switch
 *   GET /api/v1/network/switches/{guid-or-name}/series?from=&to=&step=
 *                                                  per port of a switch
 * Administrators only (the router's table): a switch port carries every
 * job's traffic that crosses it, so the fabric's views are not a user's;
 * a user sees the switches of their own jobs in the job's report
 * (/api/v1/jobs/{id}, its network part). Ranges are bounded by
 * web_range_max and the points of each row by web_points_max. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/netview.h"
#include "common/error.h"
#include "web/web_int.h"

#define NS ((int64_t)1000000000)
#define HOUR_NS (3600 * NS)
#define PREFIX "/api/v1/network/switches/"
#define SUFFIX "/series"

static int window(struct bcn_web_req *q, struct bcn_web_resp *p,
		  int64_t *from, int64_t *to, int64_t *step)
{
	const struct bcn_web_config *c = q->w->cfg;

	if (bcn_web_param_range(q, p, HOUR_NS, c->range_max_ms * 1000000, from,
				to) ||
	    bcn_web_param_duration(q, p, "step", 60 * NS, NS,
				   c->range_max_ms * 1000000, step))
		return -EINVAL;
	if ((*to - *from) / *step >= (int64_t)c->points_max)
		return bcn_web_error(p, 400, "too many points: a longer step "
				     "or a shorter range", "step"), -EINVAL;
	return 0;
}

static int view(struct bcn_web_req *q, struct bcn_web_resp *p,
		const char *sw, bool series)
{
	struct bcn_netview *v = NULL;
	int64_t from, to, step;
	int rc;

	if (window(q, p, &from, &to, &step))
		return 0;
	pthread_mutex_lock(&q->w->lock);
	rc = bcn_netview_compute(&q->w->st, from, to, step, sw,
				 q->w->cfg->rc.topology_age_ms * 1000000, &v);
	pthread_mutex_unlock(&q->w->lock);
	if (rc == -ENOENT)
		return bcn_web_error(p, 404, "no such switch in the window",
				     NULL);
	if (!rc)
		rc = bcn_netview_to_json(v, series, &p->body);
	bcn_netview_free(v);
	return rc < 0 ? rc : 0;
}

int bcn_web_net_switches(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	return view(q, p, NULL, false);
}

/* The switch named by the path: a word of [A-Za-z0-9._:@+-]. */
int bcn_web_net_series(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const char *s = q->path + strlen(PREFIX);
	size_t n = strlen(s), k = strlen(SUFFIX);
	char sw[BCN_NET_NAME_MAX];

	if (n <= k || strcmp(s + n - k, SUFFIX))
		return bcn_web_error(p, 404, "no such endpoint", NULL);
	n -= k;
	if (n >= sizeof(sw) || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "abcdefghijklmnopqrstuvwxyz0123456789"
				      "._:@+-") < n)
		return bcn_web_error(p, 400, "a switch is its GUID or name "
				     "(letters, digits, ._:@+-)", NULL);
	memcpy(sw, s, n);
	sw[n] = 0;
	return view(q, p, sw, true);
}
