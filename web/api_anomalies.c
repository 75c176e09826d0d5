/* /api/v1/anomalies (the list, docs/anomaly.md's contract of `beacon
 * anomalies --json`), /api/v1/anomalies/ID (one) and POST
 * /api/v1/anomalies/ID/ack (administrators, with the CSRF token). A user
 * sees only the anomalies that name one of their jobs: the list pages
 * over those (limit and offset count the user's anomalies), and another
 * anomaly is 404, as if it did not exist. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "jobdb/anomalies.h"
#include "web/access.h"
#include "web/web_int.h"

#define DAY_NS (86400ll * 1000000000ll)
#define USER_JOBS_MAX 100000
#define SCAN_PAGE 1000                  /* anomalies per query of a user's
					 * list */

struct alist {
	struct bcn_buf *out;
	const uint64_t *mine;           /* a user's job ids, sorted */
	size_t nmine;
	uint64_t n;                     /* written */
	uint64_t skip, limit;           /* a user's paging */
	uint64_t seen;                  /* rows the database gave */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool names_mine(const struct alist *l, const struct bcn_anomaly *a)
{
	for (size_t i = 0; i < a->njobs; i++)
		if (bsearch(&a->jobs[i].job, l->mine, l->nmine,
			    sizeof(uint64_t), cmp_u64))
			return true;
	return false;
}

static int one(void *arg, const struct bcn_anomaly *a)
{
	struct alist *l = arg;
	int rc;

	l->seen++;
	if (l->mine) {
		if (!names_mine(l, a) || l->n >= l->limit)
			return 0;
		if (l->skip) {
			l->skip--;
			return 0;
		}
	}
	if (l->n && (rc = bcn_buf_adds(l->out, ",")))
		return rc;
	l->n++;
	return bcn_anomaly_to_json(a, l->out);
}

struct ids {
	uint64_t *v;
	size_t n, cap;
};

static int collect(void *arg, const struct bcn_job *j,
		   const struct bcn_jobdb_usage *u)
{
	struct ids *x = arg;

	(void)u;
	if (x->n < x->cap)
		x->v[x->n++] = j->id;
	return 0;
}

/* The ids of the user's jobs in [from, to), sorted; under w->lock. */
static int my_jobs(struct bcn_web_req *q, int64_t from, int64_t to,
		   struct ids *x)
{
	struct bcn_jobdb_filter f;
	int rc;

	memset(&f, 0, sizeof(f));
	x->cap = USER_JOBS_MAX;
	x->v = calloc(x->cap, sizeof(uint64_t));
	if (!x->v)
		return -ENOMEM;
	f.user = q->who.user;
	f.since = from;
	f.until = to;
	f.state = -1;
	f.limit = x->cap;
	rc = bcn_jobdb_list_jobs(q->w->db, &f, collect, x);
	qsort(x->v, x->n, sizeof(uint64_t), cmp_u64);
	return rc;
}

int bcn_web_anomalies(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const struct bcn_web_config *c = q->w->cfg;
	struct bcn_anomaly_filter f;
	struct alist l = { .out = &p->body };
	struct ids mine = { NULL, 0, 0 };
	int64_t from, to;
	int rc;

	memset(&f, 0, sizeof(f));
	if (bcn_web_param_range(q, p, 7 * DAY_NS, c->range_max_ms * 1000000,
				&from, &to) ||
	    bcn_web_param_word(q, p, "kind", BCN_ANOMALY_KIND_MAX - 1, &f.kind) ||
	    bcn_web_param_word(q, p, "component", BCN_ANOMALY_COMPONENT_MAX - 1,
			       &f.component) ||
	    bcn_web_param_word(q, p, "state", BCN_ANOMALY_STATE_MAX - 1,
			       &f.state) ||
	    bcn_web_param_u64(q, p, "job", 0, 0, UINT64_MAX, &f.job) ||
	    bcn_web_param_u64(q, p, "limit", 100, 1, c->page_max, &f.limit) ||
	    bcn_web_param_u64(q, p, "offset", 0, 0, 1000000, &f.offset))
		return 0;
	f.since = from;
	f.until = to;
	pthread_mutex_lock(&q->w->lock);
	rc = 0;
	if (q->who.role != BCN_ROLE_ADMIN) {
		rc = my_jobs(q, 0, INT64_MAX, &mine);
		l.mine = mine.v;
		l.nmine = mine.n;
	}
	if (!rc)
		rc = bcn_buf_adds(&p->body, "{\"anomalies\":[");
	if (!rc && !l.mine) {
		rc = bcn_jobdb_anomalies(q->w->db, &f, one, &l);
	} else if (!rc) {
		/* a user's page: the database's pages filtered to theirs */
		l.skip = f.offset;
		l.limit = f.limit;
		f.offset = 0;
		f.limit = SCAN_PAGE;
		do {
			l.seen = 0;
			rc = bcn_jobdb_anomalies(q->w->db, &f, one, &l);
			f.offset += SCAN_PAGE;
		} while (!rc && l.seen == SCAN_PAGE && l.n < l.limit);
	}
	pthread_mutex_unlock(&q->w->lock);
	if (!rc)
		rc = bcn_buf_printf(&p->body, "],\"count\":%" PRIu64 "}", l.n);
	free(mine.v);
	return rc;
}

int bcn_web_anomaly(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	struct alist l = { .out = &p->body };
	struct ids mine = { NULL, 0, 0 };
	struct bcn_anomaly *a = calloc(1, sizeof(*a));
	int rc, found;

	if (!a)
		return -ENOMEM;
	pthread_mutex_lock(&q->w->lock);
	found = rc = bcn_jobdb_anomaly_get(q->w->db, q->id, a);
	if (rc == 1 && q->who.role != BCN_ROLE_ADMIN) {
		rc = my_jobs(q, 0, INT64_MAX, &mine);
		l.mine = mine.v;
		l.nmine = mine.n;
		if (!rc && !names_mine(&l, a))
			found = 0;
	}
	pthread_mutex_unlock(&q->w->lock);
	if (rc >= 0 && !found)
		rc = bcn_web_error(p, 404, "no such anomaly", NULL);
	else if (rc >= 0)
		rc = bcn_anomaly_to_json(a, &p->body);
	free(mine.v);
	free(a);
	return rc;
}

int bcn_web_anomaly_ack(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	int rc;

	pthread_mutex_lock(&q->w->lock);
	rc = bcn_jobdb_anomaly_ack(q->w->db, q->id, q->who.user, bcn_web_now());
	pthread_mutex_unlock(&q->w->lock);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return bcn_web_error(p, 404, "no such open anomaly", NULL);
	return bcn_buf_printf(&p->body, "{\"id\":%" PRIu64 ",\"state\":"
			      "\"acknowledged\",\"acked_by\":\"%s\"}", q->id,
			      q->who.user);
}
