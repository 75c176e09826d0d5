/* The detectors' marks in the job database (jobdb/marks.h), through
 * prepared statements. */
#include <errno.h>
#include <string.h>

#include "jobdb/jobdb_int.h"
#include "jobdb/marks.h"

enum { MK_GET = BCN_JOBDB_LAZY_MARK, MK_PUT, MK_WM, MK_PRUNE, MK_END };
_Static_assert(MK_END <= BCN_JOBDB_LAZY_MARK + 16, "mark slots");

static const char sql_get[] = "SELECT t_ns, len_ns, records, examined_ns,"
	" rounds FROM detect_marks WHERE store = ? AND t_ns >= ? AND t_ns < ?"
	" ORDER BY t_ns LIMIT ?";
static const char sql_put[] = "INSERT INTO detect_marks (store, t_ns, len_ns,"
	" records, examined_ns, rounds) VALUES (?,?,?,?,?,1)"
	" ON DUPLICATE KEY UPDATE len_ns = VALUES(len_ns),"
	" records = VALUES(records), examined_ns = VALUES(examined_ns),"
	" rounds = rounds + 1";
static const char sql_wm[] = "SELECT COALESCE(MAX(t_ns + len_ns), 0) FROM"
	" detect_marks WHERE store = ?";
static const char sql_prune[] = "DELETE FROM detect_marks WHERE store = ?"
	" AND t_ns < ?";

static int check_store(struct bcn_jobdb *db, const char *store)
{
	size_t n = strlen(store);

	if (n == 0 || n > BCN_MARK_STORE_MAX)
		return bcn_jobdb_fail(db, -EINVAL, "store name of %zu bytes "
				      "(1 to %d)", n, BCN_MARK_STORE_MAX);
	return 0;
}

int bcn_jobdb_marks(struct bcn_jobdb *db, const char *store, int64_t from,
		    int64_t to, struct bcn_detect_mark *out, size_t max)
{
	struct bcn_detect_mark m;
	uint64_t lim = max, rounds = 0;
	MYSQL_STMT *s;
	struct binds x, r;
	size_t n = 0;
	int rc;

	if ((rc = check_store(db, store)))
		return rc;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, store, 0);
	bcn_jobdb_b_i64(&x, &from);
	bcn_jobdb_b_i64(&x, &to);
	bcn_jobdb_b_u64(&x, &lim);
	if ((rc = bcn_jobdb_lazy_exec(db, MK_GET, sql_get, &x, &s)))
		return rc;
	memset(&m, 0, sizeof(m));
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_i64(&r, &m.t);
	bcn_jobdb_b_i64(&r, &m.len);
	bcn_jobdb_b_u64(&r, &m.records);
	bcn_jobdb_b_i64(&r, &m.examined);
	bcn_jobdb_b_u64(&r, &rounds);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 && n < max) {
		m.rounds = rounds > UINT32_MAX ? UINT32_MAX : (uint32_t)rounds;
		out[n++] = m;
	}
	mysql_stmt_free_result(s);
	if (rc != 0 && rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return (int)n;
}

int bcn_jobdb_mark_put(struct bcn_jobdb *db, const char *store, int64_t t,
		       int64_t len, uint64_t records, int64_t now)
{
	struct binds x;
	int rc;

	if ((rc = check_store(db, store)))
		return rc;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, store, 0);
	bcn_jobdb_b_i64(&x, &t);
	bcn_jobdb_b_i64(&x, &len);
	bcn_jobdb_b_u64(&x, &records);
	bcn_jobdb_b_i64(&x, &now);
	return bcn_jobdb_lazy_exec(db, MK_PUT, sql_put, &x, NULL);
}

int bcn_jobdb_mark_watermark(struct bcn_jobdb *db, const char *store,
			     int64_t *wm)
{
	MYSQL_STMT *s;
	struct binds x, r;
	int rc;

	*wm = 0;
	if ((rc = check_store(db, store)))
		return rc;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, store, 0);
	if ((rc = bcn_jobdb_lazy_exec(db, MK_WM, sql_wm, &x, &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_i64(&r, wm);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	rc = mysql_stmt_fetch(s);
	mysql_stmt_free_result(s);
	if (rc != 0 && rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return 0;
}

int bcn_jobdb_marks_prune(struct bcn_jobdb *db, const char *store,
			  int64_t before)
{
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	if ((rc = check_store(db, store)))
		return rc;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, store, 0);
	bcn_jobdb_b_i64(&x, &before);
	if ((rc = bcn_jobdb_lazy_exec(db, MK_PRUNE, sql_prune, &x, &s)))
		return rc;
	return (int)mysql_stmt_affected_rows(s);
}
