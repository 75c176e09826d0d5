/* What the job database's source files share (jobdb.c, bind.c and the
 * files of the anomaly, alert and account tables): the connection
 * object, parameter and result bindings, and statements that a file
 * prepares on first use. Not part of the interface (jobdb.h). */
#ifndef BCN_JOBDB_INT_H
#define BCN_JOBDB_INT_H

#include <stddef.h>
#include <stdint.h>

#include <mysql.h>

#include "jobdb/jobdb.h"

#define BCN_JOBDB_PARAMS_MAX 24
#define BCN_JOBDB_STR_CAP (BCN_JOB_STR_MAX + 1)

/* Statements of jobdb.c, prepared when the database is opened. */
#define BCN_JOBDB_ST_MAX 21

/* Statements the other files prepare on first use, by slot: each file
 * owns a range. */
enum {
	BCN_JOBDB_LAZY_ANOMALY = 0,     /* anomalies.c: 16 slots */
	BCN_JOBDB_LAZY_ALERT = 16,      /* alerts.c: 16 slots */
	BCN_JOBDB_LAZY_USER = 32,       /* users.c: 16 slots */
	BCN_JOBDB_LAZY_HISTORY = 48,    /* history.c: 16 slots */
	BCN_JOBDB_LAZY_MARK = 64,       /* marks.c: 16 slots */
	BCN_JOBDB_LAZY_MAX = 80
};

/* The strings of a job read back. */
struct bcn_jobdb_row {
	char user[BCN_JOBDB_STR_CAP], account[BCN_JOBDB_STR_CAP];
	char partition[BCN_JOBDB_STR_CAP];
	char name[BCN_JOBDB_STR_CAP], state[32];
	char *nodelist;                 /* BCN_JOB_NODELIST_MAX + 1 */
};

struct bcn_jobdb {
	MYSQL *my;
	MYSQL_STMT *st[BCN_JOBDB_ST_MAX];
	MYSQL_STMT *lazy[BCN_JOBDB_LAZY_MAX];
	int schema;
	char err[512];
	struct bcn_jobdb_row row;
};

/* Parameter or result bindings, filled in order. */
struct binds {
	MYSQL_BIND b[BCN_JOBDB_PARAMS_MAX];
	unsigned long len[BCN_JOBDB_PARAMS_MAX];
	my_bool null[BCN_JOBDB_PARAMS_MAX];
	int n;
};

void bcn_jobdb_binds_init(struct binds *x);
/* Binds a parameter or a result column; the value lives in the caller. */
void bcn_jobdb_b_u64(struct binds *x, const uint64_t *v);
void bcn_jobdb_b_f64(struct binds *x, const double *v);
void bcn_jobdb_b_i64(struct binds *x, const int64_t *v);
/* A string parameter (cap 0: strlen(s)), or a result buffer of cap bytes. */
void bcn_jobdb_b_str(struct binds *x, const char *s, size_t cap);

/* Puts a message into db->err and returns rc. */
int bcn_jobdb_fail(struct bcn_jobdb *db, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* -EIO with statement i's (of jobdb.c) or s's error as the message. */
int bcn_jobdb_stmt_fail(struct bcn_jobdb *db, int i);
int bcn_jobdb_sfail(struct bcn_jobdb *db, MYSQL_STMT *s);

/* The statement in lazy slot, prepared from sql on first use. Returns 0
 * and *out, or a negative code (message in db->err). */
int bcn_jobdb_lazy(struct bcn_jobdb *db, int slot, const char *sql,
		   MYSQL_STMT **out);

/* Binds x (may be NULL or empty) to s and executes it. */
int bcn_jobdb_exec(struct bcn_jobdb *db, MYSQL_STMT *s, struct binds *x);

/* Runs lazy statement slot (sql) with parameters x. */
int bcn_jobdb_lazy_exec(struct bcn_jobdb *db, int slot, const char *sql,
			struct binds *x, MYSQL_STMT **out);

/* NUL-terminates a fetched string result column k of r in buf (cap
 * bytes, as bound). */
void bcn_jobdb_str_fix(const struct binds *r, int k, char *buf, size_t cap);

/* Replaces the job's I/O phases (history.c), inside the caller's
 * transaction. */
int bcn_jobdb_io_phases_replace(struct bcn_jobdb *db, uint64_t job,
				const struct bcn_jobdb_io_phase *p, size_t n);

/* Transactions over the connection: 0 or -EIO. */
int bcn_jobdb_begin(struct bcn_jobdb *db);
int bcn_jobdb_commit(struct bcn_jobdb *db);
void bcn_jobdb_rollback(struct bcn_jobdb *db);

#endif
