/* The access policy of the web service (docs/api.md, "Access rules"):
 * an administrator sees everything; a user sees their own jobs, and of
 * the record store only the components their jobs used (compute nodes,
 * and the forwarding nodes, OSTs and MDTs their reports name), only
 * within those jobs' windows; never a switch port. */
#ifndef BCN_WEB_ACCESS_H
#define BCN_WEB_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobdb/grants.h"

struct bcn_web_req;

struct bcn_web_scope {
	bool all;                       /* an administrator */
	struct bcn_grant *g;
	size_t n;
};

/* The scope of q's user over [from, to). Takes w->lock. Returns 0 or a
 * negative code; free with bcn_web_scope_free. */
int bcn_web_scope_load(struct bcn_web_req *q, int64_t from, int64_t to,
		       struct bcn_web_scope *s);
void bcn_web_scope_free(struct bcn_web_scope *s);

/* Whether [from, to) of (layer, entity) lies within one window of s. */
bool bcn_web_scope_covers(const struct bcn_web_scope *s, const char *layer,
			  const char *entity, int64_t from, int64_t to);

/* Whether s has (layer, entity) at all, in any window. */
bool bcn_web_scope_has(const struct bcn_web_scope *s, const char *layer,
		       const char *entity);

/* Whether time t of (layer, entity) lies in a window of s. */
bool bcn_web_scope_at(const struct bcn_web_scope *s, const char *layer,
		      const char *entity, int64_t t);

/* Whether q's user may see job: 1, 0 (not theirs, or no such job), or a
 * negative code; the caller holds w->lock. */
int bcn_web_may_see_job(struct bcn_web_req *q, uint64_t job);

#endif
