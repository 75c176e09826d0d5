/* The access policy (web/access.h) over a user's grants
 * (jobdb/grants.h), loaded per request and searched in full: bounded by
 * web_grants_max. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "web/access.h"
#include "web/web_int.h"

int bcn_web_scope_load(struct bcn_web_req *q, int64_t from, int64_t to,
		       struct bcn_web_scope *s)
{
	size_t max = q->w->cfg->grants_max;
	int n;

	memset(s, 0, sizeof(*s));
	if (q->who.role == BCN_ROLE_ADMIN) {
		s->all = true;
		return 0;
	}
	s->g = calloc(max, sizeof(*s->g));
	if (!s->g)
		return -ENOMEM;
	pthread_mutex_lock(&q->w->lock);
	n = bcn_jobdb_grants(q->w->db, q->who.user, from, to, s->g, max);
	pthread_mutex_unlock(&q->w->lock);
	if (n < 0) {
		bcn_web_scope_free(s);
		return n;
	}
	s->n = (size_t)n;
	return 0;
}

void bcn_web_scope_free(struct bcn_web_scope *s)
{
	free(s->g);
	s->g = NULL;
	s->n = 0;
}

static bool same(const struct bcn_grant *g, const char *layer,
		 const char *entity)
{
	return !strcmp(g->layer, layer) && !strcmp(g->entity, entity);
}

bool bcn_web_scope_covers(const struct bcn_web_scope *s, const char *layer,
			  const char *entity, int64_t from, int64_t to)
{
	if (s->all)
		return true;
	for (size_t i = 0; i < s->n; i++)
		if (same(&s->g[i], layer, entity) && s->g[i].from <= from &&
		    to <= s->g[i].to)
			return true;
	return false;
}

bool bcn_web_scope_has(const struct bcn_web_scope *s, const char *layer,
		       const char *entity)
{
	if (s->all)
		return true;
	for (size_t i = 0; i < s->n; i++)
		if (same(&s->g[i], layer, entity))
			return true;
	return false;
}

bool bcn_web_scope_at(const struct bcn_web_scope *s, const char *layer,
		      const char *entity, int64_t t)
{
	if (s->all)
		return true;
	for (size_t i = 0; i < s->n; i++)
		if (same(&s->g[i], layer, entity) && s->g[i].from <= t &&
		    t < s->g[i].to)
			return true;
	return false;
}

int bcn_web_may_see_job(struct bcn_web_req *q, uint64_t job)
{
	struct bcn_job j;
	int rc;

	rc = bcn_jobdb_get_job(q->w->db, job, &j);
	if (rc <= 0)
		return rc;
	if (q->who.role == BCN_ROLE_ADMIN)
		return 1;
	return !strcmp(j.user, q->who.user);
}
