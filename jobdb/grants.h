/* What a user may see of the record store (docs/api.md, "Access
 * rules"): for each of their jobs that ran at some time in a range, the
 * components it used with the job's window: its compute nodes (layer
 * client, from the node-to-job index) and the forwarding nodes, OSTs and
 * MDTs its report found (job_layer). A component used by no job of the
 * user, or a time outside its jobs' windows, is not theirs. */
#ifndef BCN_JOBDB_GRANTS_H
#define BCN_JOBDB_GRANTS_H

#include <stddef.h>
#include <stdint.h>

#include "jobdb/jobdb.h"

#define BCN_GRANT_ENTITY_MAX 256

struct bcn_grant {
	char layer[16];                 /* "client", "forward", "ost", "mds" */
	char entity[BCN_GRANT_ENTITY_MAX];
	uint64_t job;
	int64_t from, to;               /* the job's window; to INT64_MAX
					 * while it runs */
};

/* The grants of user's jobs running at some time in [since, until), at
 * most max into out (most recent jobs first). Returns how many, or a
 * negative code. */
int bcn_jobdb_grants(struct bcn_jobdb *db, const char *user, int64_t since,
		     int64_t until, struct bcn_grant *out, size_t max);

#endif
