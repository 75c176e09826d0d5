/* A user's grants (jobdb/grants.h): one prepared statement over the
 * node-to-job index and the job_layer table (lazy slot
 * BCN_JOBDB_LAZY_USER + 12). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "jobdb/grants.h"
#include "jobdb/jobdb_int.h"

enum { GR_LIST = BCN_JOBDB_LAZY_USER + 12, GR_END };
_Static_assert(GR_END <= BCN_JOBDB_LAZY_USER + 16, "grant slots");

#define JOB_IN " j.user = ? AND j.start_ns > 0 AND j.start_ns < ? AND" \
	" (j.end_ns = 0 OR j.end_ns > ?)"
static const char sql_list[] = "SELECT layer, entity, job, start_ns, end_ns"
	" FROM (SELECT 'client' AS layer, n.node AS entity, j.id AS job,"
	" j.start_ns, j.end_ns FROM job_nodes n JOIN jobs j ON j.id = n.job"
	" WHERE" JOB_IN " UNION ALL SELECT l.layer, l.component, j.id,"
	" j.start_ns, j.end_ns FROM job_layer l JOIN jobs j ON j.id = l.job"
	" WHERE" JOB_IN ") g ORDER BY start_ns DESC, job DESC LIMIT ?";

int bcn_jobdb_grants(struct bcn_jobdb *db, const char *user, int64_t since,
		     int64_t until, struct bcn_grant *out, size_t max)
{
	uint64_t limit = max;
	struct bcn_grant g;
	struct binds x, r;
	MYSQL_STMT *s;
	size_t n = 0;
	int rc;

	if (!max || !user || !user[0])
		return 0;
	if (until <= 0)
		until = INT64_MAX;
	bcn_jobdb_binds_init(&x);
	for (int i = 0; i < 2; i++) {
		bcn_jobdb_b_str(&x, user, 0);
		bcn_jobdb_b_i64(&x, &until);
		bcn_jobdb_b_i64(&x, &since);
	}
	bcn_jobdb_b_u64(&x, &limit);
	if ((rc = bcn_jobdb_lazy_exec(db, GR_LIST, sql_list, &x, &s)))
		return rc;
	memset(&g, 0, sizeof(g));
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_str(&r, g.layer, sizeof(g.layer) - 1);
	bcn_jobdb_b_str(&r, g.entity, sizeof(g.entity) - 1);
	bcn_jobdb_b_u64(&r, &g.job);
	bcn_jobdb_b_i64(&r, &g.from);
	bcn_jobdb_b_i64(&r, &g.to);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		bcn_jobdb_str_fix(&r, 0, g.layer, sizeof(g.layer));
		bcn_jobdb_str_fix(&r, 1, g.entity, sizeof(g.entity));
		if (g.to == 0)
			g.to = INT64_MAX;
		if (n < max)
			out[n++] = g;
	}
	mysql_stmt_free_result(s);
	if (rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return (int)n;
}
