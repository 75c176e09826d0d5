/* /api/v1/series?layer=&entity=&from=&to=&step=[&part=]: the bucketed
 * sums of one component's records (bcn_store_sum over every store),
 * with a bounded range (web_range_max) and number of points
 * (web_points_max); for a forwarding node also each bucket's request
 * latency and queue length (its class "all" fwd_req records' merged
 * distributions). A user gets only a component their jobs used,
 * within one of those jobs' windows (web/access.h); otherwise 403. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "proto/record.h"
#include "web/access.h"
#include "web/web_int.h"

#define NS ((int64_t)1000000000)
#define HOUR_NS (3600 * NS)

static const char *const layers[] = { "client", "forward", "ost", "mds",
	"switch", NULL };

/* A bucket's merged latency (us) and queue length distributions. */
struct fstat {
	uint64_t lat_n, lat_sum, lat_max, q_n, q_sum, q_max;
};

struct acc {
	int64_t base, step;
	size_t n;
	struct bcn_store_bucket *b;
	struct fstat *f;                /* forward only, else NULL */
};

static int add_fwd(void *arg, const struct bcn_record *r)
{
	struct acc *a = arg;
	const struct bcn_rec_fwd_req *q = &r->u.fwd_req;
	int64_t k = bcn_timefmt_floor_div(r->t - a->base, a->step);
	struct fstat *f;

	if (r->type != BCN_REC_FWD_REQ || q->cls != BCN_FWD_ALL || k < 0 ||
	    (size_t)k >= a->n)
		return 0;
	f = &a->f[k];
	f->lat_n += q->latency.count;
	f->lat_sum += q->latency.sum;
	if (q->latency.count && q->latency.max > f->lat_max)
		f->lat_max = q->latency.max;
	f->q_n += q->queue.count;
	f->q_sum += q->queue.sum;
	if (q->queue.count && q->queue.max > f->q_max)
		f->q_max = q->queue.max;
	return 0;
}

static int fstat_json(const struct fstat *f, struct bcn_buf *out)
{
	int rc = 0;

	if (f->lat_n)
		rc = bcn_buf_printf(out, ",\"latency_mean_us\":%.1f,"
				    "\"latency_max_us\":%" PRIu64,
				    (double)f->lat_sum / (double)f->lat_n,
				    f->lat_max);
	if (!rc && f->q_n)
		rc = bcn_buf_printf(out, ",\"queue_mean\":%.2f,\"queue_max\":"
				    "%" PRIu64, (double)f->q_sum /
				    (double)f->q_n, f->q_max);
	return rc;
}

static int add(void *arg, const struct bcn_store_bucket *b)
{
	struct acc *a = arg;
	int64_t k = (b->t - a->base) / a->step;
	struct bcn_store_bucket *d;

	if (k < 0 || (size_t)k >= a->n)
		return 0;
	d = &a->b[k];
	d->records += b->records;
	d->sum.read_bytes += b->sum.read_bytes;
	d->sum.write_bytes += b->sum.write_bytes;
	d->sum.read_ops += b->sum.read_ops;
	d->sum.write_ops += b->sum.write_ops;
	d->sum.meta_ops += b->sum.meta_ops;
	d->sum.other_ops += b->sum.other_ops;
	return 0;
}

static int points_json(const struct acc *a, struct bcn_buf *out)
{
	char t[BCN_TIMEFMT_OUT_MAX];
	bool first = true;
	int rc = 0;

	for (size_t i = 0; !rc && i < a->n; i++) {
		const struct bcn_store_bucket *b = &a->b[i];

		if (!b->records)
			continue;
		bcn_timefmt_format(a->base + (int64_t)i * a->step, t, sizeof(t));
		rc = bcn_buf_printf(out, "%s{\"t\":\"%s\",\"records\":%" PRIu64
				    ",\"read_bytes\":%" PRIu64 ",\"write_bytes\":"
				    "%" PRIu64 ",\"read_ops\":%" PRIu64
				    ",\"write_ops\":%" PRIu64 ",\"meta_ops\":"
				    "%" PRIu64 ",\"other_ops\":%" PRIu64,
				    first ? "" : ",", t, b->records,
				    b->sum.read_bytes, b->sum.write_bytes,
				    b->sum.read_ops, b->sum.write_ops,
				    b->sum.meta_ops, b->sum.other_ops);
		if (!rc && a->f)
			rc = fstat_json(&a->f[i], out);
		if (!rc)
			rc = bcn_buf_adds(out, "}");
		first = false;
	}
	return rc;
}

/* Parses and checks the parameters into qy and a. */
static int params(struct bcn_web_req *q, struct bcn_web_resp *p,
		  struct bcn_store_query *qy, struct acc *a, const char **layer)
{
	const struct bcn_web_config *c = q->w->cfg;
	const char *part;
	int64_t from, to;
	size_t i;

	if (bcn_web_param_word(q, p, "layer", 16, layer) ||
	    bcn_web_param_word(q, p, "entity", BCN_ENTITY_MAX - 1, &qy->entity) ||
	    bcn_web_param_word(q, p, "part", 8, &part) ||
	    bcn_web_param_range(q, p, HOUR_NS, c->range_max_ms * 1000000, &from,
				&to) ||
	    bcn_web_param_duration(q, p, "step", 60 * NS, NS,
				   c->range_max_ms * 1000000, &a->step))
		return -EINVAL;
	for (i = 0; layers[i] && strcmp(layers[i], *layer); i++)
		;
	if (!layers[i])
		return bcn_web_error(p, 400, "layer is one of client, forward, "
				     "ost, mds, switch", "layer"), -EINVAL;
	if (!qy->entity[0])
		return bcn_web_error(p, 400, "entity is required", "entity"),
		       -EINVAL;
	if (a->step % NS)
		return bcn_web_error(p, 400, "step is whole seconds", "step"),
		       -EINVAL;
	if ((to - from) / a->step >= (int64_t)c->points_max)
		return bcn_web_error(p, 400, "too many points: a longer step "
				     "or a shorter range", "step"), -EINVAL;
	qy->part = BCN_STORE_PART_TOTAL;
	if (part[0] && bcn_store_part_parse(part, &qy->part))
		return bcn_web_error(p, 400, "part is total, job, client or "
				     "any", "part"), -EINVAL;
	qy->layer = bcn_layer_parse(*layer);
	qy->from = from;
	qy->to = to;
	a->base = bcn_timefmt_floor_div(from, a->step) * a->step;
	a->n = (size_t)((to - a->base + a->step - 1) / a->step);
	return 0;
}

static int allowed(struct bcn_web_req *q, struct bcn_web_resp *p,
		   const char *layer, const struct bcn_store_query *qy)
{
	struct bcn_web_scope s;
	int rc = bcn_web_scope_load(q, qy->from, qy->to, &s);

	if (rc)
		return rc;
	if (!bcn_web_scope_has(&s, layer, qy->entity))
		rc = bcn_web_error(p, 403, "not a component of your jobs",
				   "entity") ? 0 : 1;
	else if (!bcn_web_scope_covers(&s, layer, qy->entity, qy->from, qy->to))
		rc = bcn_web_error(p, 403, "outside the window of your job on "
				   "this component", "from") ? 0 : 1;
	bcn_web_scope_free(&s);
	return rc;
}

int bcn_web_series(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	struct bcn_store_query qy;
	struct acc a;
	const char *layer;
	int rc;

	memset(&qy, 0, sizeof(qy));
	memset(&a, 0, sizeof(a));
	if (params(q, p, &qy, &a, &layer))
		return 0;
	if ((rc = allowed(q, p, layer, &qy)))
		return rc > 0 ? 0 : rc;
	a.b = calloc(a.n, sizeof(*a.b));
	if (qy.layer == BCN_LAYER_FORWARD)
		a.f = calloc(a.n, sizeof(*a.f));
	if (!a.b || (qy.layer == BCN_LAYER_FORWARD && !a.f)) {
		rc = -ENOMEM;
		goto out;
	}
	pthread_mutex_lock(&q->w->lock);
	for (size_t i = 0; !rc && i < q->w->st.n; i++)
		rc = bcn_store_sum(q->w->st.s[i], &qy, a.step, add, &a);
	if (!rc && a.f)
		rc = bcn_stores_scan(&q->w->st, &qy, add_fwd, &a);
	pthread_mutex_unlock(&q->w->lock);
	if (!rc)
		rc = bcn_buf_adds(&p->body, "{\"layer\":");
	if (!rc)
		rc = bcn_buf_add_json_str(&p->body, layer);
	if (!rc)
		rc = bcn_buf_adds(&p->body, ",\"entity\":");
	if (!rc)
		rc = bcn_buf_add_json_str(&p->body, qy.entity);
	if (!rc)
		rc = bcn_buf_printf(&p->body, ",\"step\":%" PRId64 ",\"points\":[",
				    a.step / NS);
	if (!rc)
		rc = points_json(&a, &p->body);
	if (!rc)
		rc = bcn_buf_adds(&p->body, "]}");
out:
	free(a.f);
	free(a.b);
	return rc < 0 ? rc : 0;
}
