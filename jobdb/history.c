/* The wavelet I/O phases of jobs and the earlier runs of an application
 * at one scale (jobdb.h), for the job anomaly check of analysis/anomaly. */
#include <errno.h>
#include <string.h>

#include "jobdb/jobdb_int.h"

#define HISTORY_SCAN_MAX 100000         /* rows a history query reads */

enum {
	HS_DEL = BCN_JOBDB_LAZY_HISTORY, HS_INS, HS_GET, HS_RUNS, HS_END
};
_Static_assert(HS_END <= BCN_JOBDB_LAZY_HISTORY + 16, "history slots");

static const char sql_del[] = "DELETE FROM job_io_phases WHERE job = ?";
static const char sql_ins[] = "INSERT INTO job_io_phases (job, idx, start_ns,"
	" end_ns, volume, mean_bw, peak_bw) VALUES (?,?,?,?,?,?,?)";
static const char sql_get[] = "SELECT start_ns, end_ns, volume, mean_bw,"
	" peak_bw FROM job_io_phases WHERE job = ? ORDER BY idx LIMIT ?";
static const char sql_runs[] = "SELECT j.id FROM jobs j JOIN job_summary s"
	" ON s.job = j.id WHERE j.name = ? AND j.nnodes = ? AND j.end_ns > 0"
	" AND j.end_ns <= ? AND j.id <> ? ORDER BY j.end_ns DESC, j.id DESC"
	" LIMIT ?";

int bcn_jobdb_io_phases_replace(struct bcn_jobdb *db, uint64_t job,
				const struct bcn_jobdb_io_phase *p, size_t n)
{
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &job);
	rc = bcn_jobdb_lazy_exec(db, HS_DEL, sql_del, &x, NULL);
	for (size_t i = 0; !rc && i < n; i++) {
		const uint64_t idx = i;

		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_u64(&x, &job);
		bcn_jobdb_b_u64(&x, &idx);
		bcn_jobdb_b_i64(&x, &p[i].start);
		bcn_jobdb_b_i64(&x, &p[i].end);
		bcn_jobdb_b_f64(&x, &p[i].volume);
		bcn_jobdb_b_f64(&x, &p[i].mean_bw);
		bcn_jobdb_b_f64(&x, &p[i].peak_bw);
		rc = bcn_jobdb_lazy_exec(db, HS_INS, sql_ins, &x, NULL);
	}
	return rc;
}

int bcn_jobdb_io_phases(struct bcn_jobdb *db, uint64_t job,
			struct bcn_jobdb_io_phase *out, size_t max)
{
	struct bcn_jobdb_io_phase row;
	uint64_t lim = max;
	MYSQL_STMT *s;
	struct binds x, r;
	size_t n = 0;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &job);
	bcn_jobdb_b_u64(&x, &lim);
	if ((rc = bcn_jobdb_lazy_exec(db, HS_GET, sql_get, &x, &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_i64(&r, &row.start);
	bcn_jobdb_b_i64(&r, &row.end);
	bcn_jobdb_b_f64(&r, &row.volume);
	bcn_jobdb_b_f64(&r, &row.mean_bw);
	bcn_jobdb_b_f64(&r, &row.peak_bw);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 && n < max)
		out[n++] = row;
	mysql_stmt_free_result(s);
	if (rc != 0 && rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return (int)n;
}

int bcn_jobdb_history(struct bcn_jobdb *db, const char *name, uint64_t nnodes,
		      int64_t before_ns, uint64_t job, uint64_t *ids, size_t max)
{
	uint64_t lim = max < HISTORY_SCAN_MAX ? max : HISTORY_SCAN_MAX, id = 0;
	MYSQL_STMT *s;
	struct binds x, r;
	size_t n = 0;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, name, 0);
	bcn_jobdb_b_u64(&x, &nnodes);
	bcn_jobdb_b_i64(&x, &before_ns);
	bcn_jobdb_b_u64(&x, &job);
	bcn_jobdb_b_u64(&x, &lim);
	if ((rc = bcn_jobdb_lazy_exec(db, HS_RUNS, sql_runs, &x, &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_u64(&r, &id);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 && n < max)
		ids[n++] = id;
	mysql_stmt_free_result(s);
	if (rc != 0 && rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return (int)n;
}
