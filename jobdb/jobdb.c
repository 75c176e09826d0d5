/* The job database over MariaDB Connector/C (jobdb/jobdb.h): connection,
 * migrations, prepared statements and the operations on jobs and the
 * compute-to-forwarding map. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/hostlist.h"
#include "jobdb/jobdb.h"
#include "jobdb/jobdb_int.h"
#include "jobdb/schema.h"

#define PASSWORD_MAX 256
#define STR_CAP BCN_JOBDB_STR_CAP

/* The prepared statements, by index. */
enum {
	ST_JOB_UPSERT, ST_STEP_UPSERT, ST_NODES_DEL, ST_NODE_INS,
	ST_MAP_UPSERT, ST_MAPNODE_UPSERT, ST_FWD_OF, ST_JOBS_ON, ST_JOB_GET,
	ST_LIST, ST_SUM_UPSERT, ST_PARTS_DEL, ST_PART_INS, ST_PHASES_DEL,
	ST_PHASE_INS, ST_FINDINGS_DEL, ST_FINDING_INS, ST_SUM_GET, ST_FWD_MAP,
	ST_DUE, ST_RUNNING, ST_MAX
};
_Static_assert(ST_MAX == BCN_JOBDB_ST_MAX, "BCN_JOBDB_ST_MAX");

#define JOB_COLS "id, array_job, array_task, user, uid, account, `partition`," \
	" name, nodelist, nnodes, ntasks, ncpus, submit_ns, start_ns, end_ns," \
	" state, exit_code, exit_signal"

static const char *const sql[ST_MAX] = {
	[ST_JOB_UPSERT] = "INSERT INTO jobs (" JOB_COLS ", updated_ns) VALUES"
		" (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON DUPLICATE KEY UPDATE"
		" array_job=VALUES(array_job), array_task=VALUES(array_task),"
		" user=VALUES(user), uid=VALUES(uid), account=VALUES(account),"
		" `partition`=VALUES(`partition`), name=VALUES(name),"
		" nodelist=VALUES(nodelist), nnodes=VALUES(nnodes),"
		" ntasks=VALUES(ntasks), ncpus=VALUES(ncpus),"
		" submit_ns=VALUES(submit_ns), start_ns=VALUES(start_ns),"
		" end_ns=VALUES(end_ns), state=VALUES(state),"
		" exit_code=VALUES(exit_code), exit_signal=VALUES(exit_signal),"
		" updated_ns=IF(ROW(array_job, array_task, user, uid, account,"
		" `partition`, name, nodelist, nnodes, ntasks, ncpus, submit_ns,"
		" start_ns, end_ns, state, exit_code, exit_signal) <=> ROW("
		" VALUES(array_job), VALUES(array_task), VALUES(user), VALUES(uid),"
		" VALUES(account), VALUES(`partition`), VALUES(name),"
		" VALUES(nodelist), VALUES(nnodes), VALUES(ntasks), VALUES(ncpus),"
		" VALUES(submit_ns), VALUES(start_ns), VALUES(end_ns),"
		" VALUES(state), VALUES(exit_code), VALUES(exit_signal)),"
		" updated_ns, VALUES(updated_ns))",
	[ST_STEP_UPSERT] = "INSERT INTO job_steps (job, step, name, nodelist,"
		" nnodes, ntasks, start_ns, end_ns, state, exit_code) VALUES"
		" (?,?,?,?,?,?,?,?,?,?) ON DUPLICATE KEY UPDATE name=VALUES(name),"
		" nodelist=VALUES(nodelist), nnodes=VALUES(nnodes),"
		" ntasks=VALUES(ntasks), start_ns=VALUES(start_ns),"
		" end_ns=VALUES(end_ns), state=VALUES(state),"
		" exit_code=VALUES(exit_code)",
	[ST_NODES_DEL] = "DELETE FROM job_nodes WHERE job = ?",
	[ST_NODE_INS] = "INSERT INTO job_nodes (node, job, start_ns, end_ns)"
		" VALUES (?,?,?,?) ON DUPLICATE KEY UPDATE start_ns=VALUES(start_ns),"
		" end_ns=VALUES(end_ns)",
	[ST_MAP_UPSERT] = "INSERT IGNORE INTO fwdmap (compute, compute_hash,"
		" fwd, from_ns, to_ns) VALUES (?,?,?,?,?)",
	[ST_MAPNODE_UPSERT] = "INSERT INTO fwdmap_nodes (node, from_ns, to_ns,"
		" fwd) VALUES (?,?,?,?) ON DUPLICATE KEY UPDATE to_ns=VALUES(to_ns),"
		" fwd=VALUES(fwd)",
	[ST_FWD_OF] = "SELECT fwd FROM fwdmap_nodes WHERE node = ? AND"
		" from_ns <= ? AND to_ns > ? ORDER BY from_ns DESC LIMIT 1",
	[ST_JOBS_ON] = "SELECT job FROM job_nodes WHERE node = ? AND"
		" start_ns <= ? AND end_ns > ? ORDER BY start_ns LIMIT 1000",
	[ST_JOB_GET] = "SELECT " JOB_COLS " FROM jobs WHERE id = ?",
	[ST_LIST] = "SELECT " JOB_COLS ", s.read_bytes, s.write_bytes, s.mode"
		" FROM jobs LEFT JOIN job_summary s ON s.job = jobs.id"
		" WHERE (? = '' OR user = ?)"
		" AND (? = 0 OR end_ns = 0 OR end_ns > ?)"
		" AND (? = 0 OR start_ns < ?) AND (? = '' OR state = ?)"
		" AND (? = '' OR s.mode = ?)"
		" AND (? = 0 OR s.read_bytes + s.write_bytes >= ?)"
		" ORDER BY start_ns DESC, id DESC LIMIT ? OFFSET ?",
	[ST_SUM_UPSERT] = "REPLACE INTO job_summary (job, computed_ns, partial,"
		" read_bytes, write_bytes, read_bw_mean, read_bw_peak,"
		" write_bw_mean, write_bw_peak, iops, meta_ops, io_nodes, io_procs,"
		" mode, meta_rate_io) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_PARTS_DEL] = "DELETE FROM job_layer WHERE job = ?",
	[ST_PART_INS] = "INSERT INTO job_layer (job, layer, component,"
		" read_bytes, write_bytes, ops, share) VALUES (?,?,?,?,?,?,?)",
	[ST_PHASES_DEL] = "DELETE FROM job_phases WHERE job = ?",
	[ST_PHASE_INS] = "INSERT INTO job_phases (job, idx, start_ns, end_ns,"
		" read_bytes, write_bytes) VALUES (?,?,?,?,?,?)",
	[ST_FINDINGS_DEL] = "DELETE FROM job_findings WHERE job = ?",
	[ST_FINDING_INS] = "INSERT INTO job_findings (job, code, severity,"
		" message, evidence) VALUES (?,?,?,?,?)",
	[ST_SUM_GET] = "SELECT computed_ns, partial, read_bytes, write_bytes,"
		" read_bw_mean, read_bw_peak, write_bw_mean, write_bw_peak, iops,"
		" meta_ops, io_nodes, io_procs, mode, meta_rate_io FROM job_summary"
		" WHERE job = ?",
	[ST_FWD_MAP] = "SELECT node, fwd FROM fwdmap_nodes WHERE from_ns <= ?"
		" AND to_ns > ? ORDER BY node, from_ns DESC",
	[ST_DUE] = "SELECT id FROM jobs LEFT JOIN job_summary s ON s.job = jobs.id"
		" WHERE end_ns > 0 AND end_ns <= ? AND (s.job IS NULL OR"
		" s.computed_ns < end_ns + ?) ORDER BY end_ns, id LIMIT ?",
	[ST_RUNNING] = "SELECT id FROM jobs WHERE start_ns > 0 AND end_ns = 0"
		" AND state = 'RUNNING' ORDER BY start_ns DESC LIMIT ?",
};




/* Binds x's parameters to statement i and runs it. */
static int run(struct bcn_jobdb *db, int i, struct binds *x)
{
	if ((x && x->n && mysql_stmt_bind_param(db->st[i], x->b)) ||
	    mysql_stmt_execute(db->st[i]))
		return bcn_jobdb_stmt_fail(db, i);
	return 0;
}

/* A statement without parameters, run once (DDL of the migrations). */
static int run_once(struct bcn_jobdb *db, const char *text)
{
	MYSQL_STMT *s = mysql_stmt_init(db->my);
	int rc = 0;

	if (!s)
		return bcn_jobdb_fail(db, -ENOMEM, "job database: out of memory");
	if (mysql_stmt_prepare(s, text, strlen(text)) || mysql_stmt_execute(s))
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_stmt_error(s));
	mysql_stmt_close(s);
	return rc;
}

/* Reads a password file's first line. */
static int read_password(const char *path, char *pw, size_t n, char *err,
			 size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return bcn_fail(err, errlen, -errno, "jobdb_password_file %s: %s",
				path, strerror(errno));
	got = read(fd, pw, n - 1);
	close(fd);
	if (got < 0)
		return bcn_fail(err, errlen, -EIO, "jobdb_password_file %s: "
				"cannot read", path);
	pw[got] = '\0';
	pw[strcspn(pw, "\r\n")] = '\0';
	return 0;
}

static int connect_db(struct bcn_jobdb *db, const struct bcn_jobdb_config *c,
		      char *err, size_t errlen)
{
	unsigned int tmo = (unsigned int)((c->timeout_ms + 999) / 1000);
	char pw[PASSWORD_MAX] = "";
	my_bool off = 0;
	int rc = 0;

	db->my = mysql_init(NULL);
	if (!db->my)
		return bcn_fail(err, errlen, -ENOMEM, "job database: out of memory");
	if (c->password_file[0] &&
	    (rc = read_password(c->password_file, pw, sizeof(pw), err, errlen)))
		return rc;
	mysql_options(db->my, MYSQL_OPT_CONNECT_TIMEOUT, &tmo);
	mysql_options(db->my, MYSQL_OPT_READ_TIMEOUT, &tmo);
	mysql_options(db->my, MYSQL_OPT_WRITE_TIMEOUT, &tmo);
	mysql_options(db->my, MYSQL_OPT_RECONNECT, &off);
	mysql_options(db->my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	if (!mysql_real_connect(db->my, c->socket[0] ? NULL : c->host, c->user,
				pw[0] ? pw : NULL, c->database,
				c->socket[0] ? 0 : (unsigned int)c->port,
				c->socket[0] ? c->socket : NULL, 0)) {
		unsigned int e = mysql_errno(db->my);

		rc = e == ER_ACCESS_DENIED_ERROR || e == ER_DBACCESS_DENIED_ERROR ?
		     -EACCES : e >= CR_MIN_ERROR && e <= CR_MAX_ERROR ?
		     -ECONNREFUSED : -EIO;
		bcn_seterr(err, errlen, "job database %s@%s: %s", c->user,
			   c->socket[0] ? c->socket : c->host,
			   mysql_error(db->my));
	}
	explicit_bzero(pw, sizeof(pw));
	return rc;
}

/* The version recorded in schema_version (0: a new database). */
static int schema_version(struct bcn_jobdb *db, int *v)
{
	static const char q[] = "SELECT COALESCE(MAX(version), 0) FROM schema_version";
	MYSQL_STMT *s = mysql_stmt_init(db->my);
	struct binds r;
	int64_t got = 0;
	int rc = 0;

	if (!s)
		return bcn_jobdb_fail(db, -ENOMEM, "job database: out of memory");
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_i64(&r, &got);
	if (mysql_stmt_prepare(s, q, sizeof(q) - 1) || mysql_stmt_execute(s) ||
	    mysql_stmt_bind_result(s, r.b) || mysql_stmt_fetch(s))
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_stmt_error(s));
	mysql_stmt_close(s);
	*v = (int)got;
	return rc;
}

static int record_version(struct bcn_jobdb *db, int v)
{
	static const char q[] = "INSERT INTO schema_version (version, applied_ns)"
				" VALUES (?, ?)";
	MYSQL_STMT *s = mysql_stmt_init(db->my);
	int64_t ver = v, now = bcn_real_ns();
	struct binds x;
	int rc = 0;

	if (!s)
		return bcn_jobdb_fail(db, -ENOMEM, "job database: out of memory");
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &ver);
	bcn_jobdb_b_i64(&x, &now);
	if (mysql_stmt_prepare(s, q, sizeof(q) - 1) ||
	    mysql_stmt_bind_param(s, x.b) || mysql_stmt_execute(s))
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_stmt_error(s));
	mysql_stmt_close(s);
	return rc;
}

static int migrate(struct bcn_jobdb *db)
{
	int v, rc;

	rc = run_once(db, "CREATE TABLE IF NOT EXISTS schema_version ("
		      " version INT NOT NULL PRIMARY KEY,"
		      " applied_ns BIGINT NOT NULL) ENGINE=InnoDB");
	if (!rc)
		rc = schema_version(db, &v);
	if (rc)
		return rc;
	if (v > BCN_JOBDB_SCHEMA)
		return bcn_jobdb_fail(db, -EPROTO, "the job database is at schema version "
			    "%d, newer than this program's %d: upgrade beacon", v,
			    BCN_JOBDB_SCHEMA);
	for (int m = v + 1; m <= BCN_JOBDB_SCHEMA; m++) {
		for (const char *const *q = bcn_jobdb_migrations[m]; *q; q++)
			if ((rc = run_once(db, *q)))
				return rc;
		if ((rc = record_version(db, m)))
			return rc;
	}
	db->schema = BCN_JOBDB_SCHEMA;
	return 0;
}

int bcn_jobdb_open(const struct bcn_jobdb_config *cfg, struct bcn_jobdb **out,
		   char *err, size_t errlen)
{
	struct bcn_jobdb *db = calloc(1, sizeof(*db));
	int rc;

	*out = NULL;
	if (!db || !(db->row.nodelist = malloc(BCN_JOB_NODELIST_MAX + 1))) {
		free(db);
		return bcn_fail(err, errlen, -ENOMEM, "job database: out of memory");
	}
	rc = connect_db(db, cfg, err, errlen);
	if (!rc && (rc = migrate(db)))
		bcn_seterr(err, errlen, "%s", db->err);
	for (int i = 0; !rc && i < ST_MAX; i++) {
		db->st[i] = mysql_stmt_init(db->my);
		if (!db->st[i] || mysql_stmt_prepare(db->st[i], sql[i],
						     strlen(sql[i])))
			rc = bcn_fail(err, errlen, -EIO, "job database: preparing "
				      "statement %d: %s", i, db->st[i] ?
				      mysql_stmt_error(db->st[i]) : "no memory");
	}
	if (rc) {
		bcn_jobdb_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void bcn_jobdb_close(struct bcn_jobdb *db)
{
	if (!db)
		return;
	for (int i = 0; i < ST_MAX; i++)
		if (db->st[i])
			mysql_stmt_close(db->st[i]);
	for (int i = 0; i < BCN_JOBDB_LAZY_MAX; i++)
		if (db->lazy[i])
			mysql_stmt_close(db->lazy[i]);
	if (db->my)
		mysql_close(db->my);
	free(db->row.nodelist);
	free(db);
}

int bcn_jobdb_schema(struct bcn_jobdb *db)
{
	return db->schema;
}

const char *bcn_jobdb_error(const struct bcn_jobdb *db)
{
	return db->err[0] ? db->err : "no error";
}

/* ---- jobs ---- */

static int64_t index_end(const struct bcn_job *j)
{
	return j->end ? j->end : INT64_MAX;     /* running: until further notice */
}

/* Replaces the job's rows in the node-to-job index. */
static int index_nodes(struct bcn_jobdb *db, const struct bcn_job *j)
{
	struct bcn_hostlist hl;
	int64_t start = j->start ? j->start : j->submit, end = index_end(j);
	char why[160];
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &j->id);
	rc = run(db, ST_NODES_DEL, &x);
	if (rc || !j->nodelist[0])
		return rc;
	rc = bcn_hostlist_expand(j->nodelist, strlen(j->nodelist),
				 BCN_JOBDB_NODES_MAX, &hl, why, sizeof(why));
	if (rc)
		return bcn_jobdb_fail(db, rc == -BCN_ETOOBIG ? rc : -BCN_ESYNTAX,
			    "job %llu: node list: %s", (unsigned long long)j->id,
			    why);
	for (size_t i = 0; !rc && i < hl.n; i++) {
		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_str(&x, hl.hosts[i], 0);
		bcn_jobdb_b_u64(&x, &j->id);
		bcn_jobdb_b_i64(&x, &start);
		bcn_jobdb_b_i64(&x, &end);
		rc = run(db, ST_NODE_INS, &x);
	}
	bcn_hostlist_free(&hl);
	return rc;
}

static int upsert_main(struct bcn_jobdb *db, const struct bcn_job *j)
{
	const char *state = bcn_job_state_name(j->state);
	int64_t now = bcn_real_ns();
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &j->id);
	bcn_jobdb_b_u64(&x, &j->array_job);
	bcn_jobdb_b_i64(&x, &j->array_task);
	bcn_jobdb_b_str(&x, j->user, 0);
	bcn_jobdb_b_i64(&x, &j->uid);
	bcn_jobdb_b_str(&x, j->account, 0);
	bcn_jobdb_b_str(&x, j->partition, 0);
	bcn_jobdb_b_str(&x, j->name, 0);
	bcn_jobdb_b_str(&x, j->nodelist, 0);
	bcn_jobdb_b_u64(&x, &j->nnodes);
	bcn_jobdb_b_u64(&x, &j->ntasks);
	bcn_jobdb_b_u64(&x, &j->ncpus);
	bcn_jobdb_b_i64(&x, &j->submit);
	bcn_jobdb_b_i64(&x, &j->start);
	bcn_jobdb_b_i64(&x, &j->end);
	bcn_jobdb_b_str(&x, state, 0);
	bcn_jobdb_b_i64(&x, &j->exit_code);
	bcn_jobdb_b_i64(&x, &j->exit_signal);
	bcn_jobdb_b_i64(&x, &now);
	return run(db, ST_JOB_UPSERT, &x);
}

static int upsert_step(struct bcn_jobdb *db, const struct bcn_job *j)
{
	const char *state = bcn_job_state_name(j->state);
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &j->id);
	bcn_jobdb_b_str(&x, j->step, 0);
	bcn_jobdb_b_str(&x, j->name, 0);
	bcn_jobdb_b_str(&x, j->nodelist, 0);
	bcn_jobdb_b_u64(&x, &j->nnodes);
	bcn_jobdb_b_u64(&x, &j->ntasks);
	bcn_jobdb_b_i64(&x, &j->start);
	bcn_jobdb_b_i64(&x, &j->end);
	bcn_jobdb_b_str(&x, state, 0);
	bcn_jobdb_b_i64(&x, &j->exit_code);
	return run(db, ST_STEP_UPSERT, &x);
}

/* INSERT .. ON DUPLICATE KEY UPDATE counts 1 for a new row, 2 for a
 * changed one, 0 for an unchanged one. */
static int outcome(struct bcn_jobdb *db, int i)
{
	my_ulonglong n = mysql_stmt_affected_rows(db->st[i]);

	return n == 1 ? BCN_JOBDB_INSERTED : n == 0 ? BCN_JOBDB_UNCHANGED
						    : BCN_JOBDB_UPDATED;
}

int bcn_jobdb_upsert_job(struct bcn_jobdb *db, const struct bcn_job *j)
{
	int rc, st;

	if (j->step[0]) {
		rc = upsert_step(db, j);
		return rc ? rc : outcome(db, ST_STEP_UPSERT);
	}
	if (mysql_autocommit(db->my, 0))
		return bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_error(db->my));
	rc = upsert_main(db, j);
	st = rc ? 0 : outcome(db, ST_JOB_UPSERT);
	if (!rc && st != BCN_JOBDB_UNCHANGED)
		rc = index_nodes(db, j);
	if (!rc && mysql_commit(db->my))
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_error(db->my));
	if (rc)
		mysql_rollback(db->my);
	mysql_autocommit(db->my, 1);
	return rc ? rc : st;
}

/* ---- the compute-to-forwarding map ---- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static int map_nodes(struct bcn_jobdb *db, const struct bcn_fwdmap_entry *e)
{
	struct bcn_hostlist hl;
	char why[160];
	struct binds x;
	int rc;

	rc = bcn_hostlist_expand(e->compute, strlen(e->compute),
				 BCN_JOBDB_NODES_MAX, &hl, why, sizeof(why));
	if (rc)
		return bcn_jobdb_fail(db, rc == -BCN_ETOOBIG ? rc : -BCN_ESYNTAX,
			    "forwarding map: %s", why);
	for (size_t i = 0; !rc && i < hl.n; i++) {
		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_str(&x, hl.hosts[i], 0);
		bcn_jobdb_b_i64(&x, &e->from);
		bcn_jobdb_b_i64(&x, &e->to);
		bcn_jobdb_b_str(&x, e->fwd, 0);
		rc = run(db, ST_MAPNODE_UPSERT, &x);
	}
	bcn_hostlist_free(&hl);
	return rc;
}

int bcn_jobdb_add_fwdmap(struct bcn_jobdb *db, const struct bcn_fwdmap_entry *e)
{
	uint64_t h = fnv1a(e->compute);
	struct binds x;
	int rc, st = BCN_JOBDB_UNCHANGED;

	if (mysql_autocommit(db->my, 0))
		return bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_error(db->my));
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, e->compute, 0);
	bcn_jobdb_b_u64(&x, &h);
	bcn_jobdb_b_str(&x, e->fwd, 0);
	bcn_jobdb_b_i64(&x, &e->from);
	bcn_jobdb_b_i64(&x, &e->to);
	rc = run(db, ST_MAP_UPSERT, &x);
	if (!rc && mysql_stmt_affected_rows(db->st[ST_MAP_UPSERT]) == 1) {
		st = BCN_JOBDB_INSERTED;
		rc = map_nodes(db, e);
	}
	if (!rc && mysql_commit(db->my))
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_error(db->my));
	if (rc)
		mysql_rollback(db->my);
	mysql_autocommit(db->my, 1);
	return rc ? rc : st;
}

/* ---- queries ---- */

/* Runs statement i (parameters x) with one string result column of cap
 * bytes into out; calls each(arg) per row. Returns rows, or < 0. */
static int query_str(struct bcn_jobdb *db, int i, struct binds *x, char *out,
		     size_t cap, int (*each)(void *, const char *), void *arg)
{
	MYSQL_STMT *s = db->st[i];
	struct binds r;
	int rows = 0, rc;

	if ((rc = run(db, i, x)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_str(&r, out, cap - 1);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_stmt_fail(db, i);
	while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		out[r.len[0] < cap - 1 ? r.len[0] : cap - 1] = '\0';
		if (each && each(arg, out) == 0)
			rows++;
		else if (!each)
			rows++;
	}
	mysql_stmt_free_result(s);
	return rc == MYSQL_NO_DATA ? rows : bcn_jobdb_stmt_fail(db, i);
}

int bcn_jobdb_fwd_of(struct bcn_jobdb *db, const char *node, int64_t t,
		     char *fwd, size_t n)
{
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, node, 0);
	bcn_jobdb_b_i64(&x, &t);
	bcn_jobdb_b_i64(&x, &t);
	return query_str(db, ST_FWD_OF, &x, fwd, n, NULL, NULL);
}

struct ids {
	uint64_t *ids;
	size_t n, max;
};

static int take_id(void *arg, const char *s)
{
	struct ids *d = arg;

	if (d->n >= d->max)
		return 1;
	d->ids[d->n++] = strtoull(s, NULL, 10);
	return 0;
}

/* Runs statement i (parameters x) whose one column is a job id, at most
 * max of them into ids. Returns how many, or a negative code. */
static int query_ids(struct bcn_jobdb *db, int i, struct binds *x,
		     uint64_t *ids, size_t max)
{
	struct ids d = { ids, 0, max };
	char buf[32];
	int rc = query_str(db, i, x, buf, sizeof(buf), take_id, &d);

	return rc < 0 ? rc : (int)d.n;
}

int bcn_jobdb_jobs_on(struct bcn_jobdb *db, const char *node, int64_t t,
		      uint64_t *ids, size_t max)
{
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, node, 0);
	bcn_jobdb_b_i64(&x, &t);
	bcn_jobdb_b_i64(&x, &t);
	return query_ids(db, ST_JOBS_ON, &x, ids, max);
}

int bcn_jobdb_fwd_map(struct bcn_jobdb *db, int64_t t, bcn_jobdb_map_fn *fn,
		      void *arg)
{
	MYSQL_STMT *s = db->st[ST_FWD_MAP];
	char node[STR_CAP], fwd[STR_CAP], last[STR_CAP] = "";
	struct binds x, r;
	int rows = 0, rc, stop = 0;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &t);
	bcn_jobdb_b_i64(&x, &t);
	if ((rc = run(db, ST_FWD_MAP, &x)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_str(&r, node, sizeof(node) - 1);
	bcn_jobdb_b_str(&r, fwd, sizeof(fwd) - 1);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_stmt_fail(db, ST_FWD_MAP);
	while (!stop && ((rc = mysql_stmt_fetch(s)) == 0 ||
			 rc == MYSQL_DATA_TRUNCATED)) {
		node[r.len[0] < sizeof(node) - 1 ? r.len[0] : sizeof(node) - 1] = 0;
		fwd[r.len[1] < sizeof(fwd) - 1 ? r.len[1] : sizeof(fwd) - 1] = 0;
		if (!strcmp(node, last))
			continue;       /* the newest entry of a node wins */
		snprintf(last, sizeof(last), "%s", node);
		rows++;
		stop = fn(arg, node, fwd);
	}
	mysql_stmt_free_result(s);
	if (stop)
		return stop;
	return rc == MYSQL_NO_DATA ? rows : bcn_jobdb_stmt_fail(db, ST_FWD_MAP);
}

int bcn_jobdb_reports_due(struct bcn_jobdb *db, int64_t ended_before,
			  int64_t settle_ns, uint64_t *ids, size_t max)
{
	uint64_t lim = max;
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &ended_before);
	bcn_jobdb_b_i64(&x, &settle_ns);
	bcn_jobdb_b_u64(&x, &lim);
	return query_ids(db, ST_DUE, &x, ids, max);
}

int bcn_jobdb_running(struct bcn_jobdb *db, uint64_t *ids, size_t max)
{
	uint64_t lim = max;
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &lim);
	return query_ids(db, ST_RUNNING, &x, ids, max);
}

/* Binds the result columns of JOB_COLS to j and db->row. */
static void bind_job(struct bcn_jobdb *db, struct binds *r, struct bcn_job *j)
{
	struct bcn_jobdb_row *w = &db->row;

	bcn_jobdb_binds_init(r);
	bcn_jobdb_b_u64(r, &j->id);
	bcn_jobdb_b_u64(r, &j->array_job);
	bcn_jobdb_b_i64(r, &j->array_task);
	bcn_jobdb_b_str(r, w->user, sizeof(w->user) - 1);
	bcn_jobdb_b_i64(r, &j->uid);
	bcn_jobdb_b_str(r, w->account, sizeof(w->account) - 1);
	bcn_jobdb_b_str(r, w->partition, sizeof(w->partition) - 1);
	bcn_jobdb_b_str(r, w->name, sizeof(w->name) - 1);
	bcn_jobdb_b_str(r, w->nodelist, BCN_JOB_NODELIST_MAX);
	bcn_jobdb_b_u64(r, &j->nnodes);
	bcn_jobdb_b_u64(r, &j->ntasks);
	bcn_jobdb_b_u64(r, &j->ncpus);
	bcn_jobdb_b_i64(r, &j->submit);
	bcn_jobdb_b_i64(r, &j->start);
	bcn_jobdb_b_i64(r, &j->end);
	bcn_jobdb_b_str(r, w->state, sizeof(w->state) - 1);
	bcn_jobdb_b_i64(r, &j->exit_code);
	bcn_jobdb_b_i64(r, &j->exit_signal);
}

/* NUL-terminates the fetched strings and points j at them. */
static void fix_job(struct bcn_jobdb *db, struct binds *r, struct bcn_job *j)
{
	struct bcn_jobdb_row *w = &db->row;
	char *s[] = { w->user, w->account, w->partition, w->name, w->nodelist,
		      w->state };
	int col[] = { 3, 5, 6, 7, 8, 15 };

	for (int k = 0; k < 6; k++) {
		unsigned long n = r->len[col[k]];
		unsigned long cap = r->b[col[k]].buffer_length;

		s[k][n < cap ? n : cap] = '\0';
	}
	j->step = "";
	j->user = w->user;
	j->account = w->account;
	j->partition = w->partition;
	j->name = w->name;
	j->nodelist = w->nodelist;
	j->state = bcn_job_state_parse(w->state, strlen(w->state));
	if (j->state < 0)
		j->state = BCN_JOB_UNKNOWN;
}

int bcn_jobdb_get_job(struct bcn_jobdb *db, uint64_t id, struct bcn_job *j)
{
	MYSQL_STMT *s = db->st[ST_JOB_GET];
	struct binds x, r;
	int rc;

	bcn_job_init(j);
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &id);
	if ((rc = run(db, ST_JOB_GET, &x)))
		return rc;
	bind_job(db, &r, j);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_stmt_fail(db, ST_JOB_GET);
	rc = mysql_stmt_fetch(s);
	if (rc == 0 || rc == MYSQL_DATA_TRUNCATED)
		fix_job(db, &r, j);
	mysql_stmt_free_result(s);
	if (rc == MYSQL_NO_DATA)
		return 0;
	return rc == 0 || rc == MYSQL_DATA_TRUNCATED ? 1 : bcn_jobdb_stmt_fail(db, ST_JOB_GET);
}

int bcn_jobdb_list_jobs(struct bcn_jobdb *db, const struct bcn_jobdb_filter *f,
			bcn_jobdb_job_fn *fn, void *arg)
{
	MYSQL_STMT *s = db->st[ST_LIST];
	const char *state = f->state >= 0 ? bcn_job_state_name(f->state) : "";
	const char *mode = f->mode ? f->mode : "";
	uint64_t limit = f->limit ? f->limit : 1000, offset = f->offset;
	const char *user = f->user ? f->user : "";
	struct bcn_jobdb_usage u;
	struct binds x, r;
	struct bcn_job j;
	int rc, stop = 0;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, user, 0);
	bcn_jobdb_b_str(&x, user, 0);
	bcn_jobdb_b_i64(&x, &f->since);
	bcn_jobdb_b_i64(&x, &f->since);
	bcn_jobdb_b_i64(&x, &f->until);
	bcn_jobdb_b_i64(&x, &f->until);
	bcn_jobdb_b_str(&x, state, 0);
	bcn_jobdb_b_str(&x, state, 0);
	bcn_jobdb_b_str(&x, mode, 0);
	bcn_jobdb_b_str(&x, mode, 0);
	bcn_jobdb_b_u64(&x, &f->min_bytes);
	bcn_jobdb_b_u64(&x, &f->min_bytes);
	bcn_jobdb_b_u64(&x, &limit);
	bcn_jobdb_b_u64(&x, &offset);
	if ((rc = run(db, ST_LIST, &x)))
		return rc;
	bind_job(db, &r, &j);
	bcn_jobdb_b_u64(&r, &u.read_bytes);
	bcn_jobdb_b_u64(&r, &u.write_bytes);
	bcn_jobdb_b_str(&r, u.mode, sizeof(u.mode) - 1);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_stmt_fail(db, ST_LIST);
	while (!stop && ((rc = mysql_stmt_fetch(s)) == 0 ||
			 rc == MYSQL_DATA_TRUNCATED)) {
		fix_job(db, &r, &j);
		u.mode[r.len[20] < sizeof(u.mode) - 1 ? r.len[20] :
		       sizeof(u.mode) - 1] = '\0';
		stop = fn(arg, &j, r.null[18] ? NULL : &u);
	}
	mysql_stmt_free_result(s);
	if (stop)
		return stop;
	return rc == MYSQL_NO_DATA ? 0 : bcn_jobdb_stmt_fail(db, ST_LIST);
}

/* ---- the per-job report ---- */

static int put_summary(struct bcn_jobdb *db, const struct bcn_jobdb_summary *m)
{
	const int64_t partial = m->partial;
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &m->job);
	bcn_jobdb_b_i64(&x, &m->computed);
	bcn_jobdb_b_i64(&x, &partial);
	bcn_jobdb_b_u64(&x, &m->read_bytes);
	bcn_jobdb_b_u64(&x, &m->write_bytes);
	bcn_jobdb_b_f64(&x, &m->read_bw_mean);
	bcn_jobdb_b_f64(&x, &m->read_bw_peak);
	bcn_jobdb_b_f64(&x, &m->write_bw_mean);
	bcn_jobdb_b_f64(&x, &m->write_bw_peak);
	bcn_jobdb_b_f64(&x, &m->iops);
	bcn_jobdb_b_u64(&x, &m->meta_ops);
	bcn_jobdb_b_u64(&x, &m->io_nodes);
	bcn_jobdb_b_u64(&x, &m->io_procs);
	bcn_jobdb_b_str(&x, m->mode, 0);
	bcn_jobdb_b_f64(&x, &m->meta_rate_io);
	return run(db, ST_SUM_UPSERT, &x);
}

static int put_rows(struct bcn_jobdb *db, const struct bcn_jobdb_report *r)
{
	struct binds x;
	int rc = 0;

	for (size_t i = 0; !rc && i < r->nparts; i++) {
		const struct bcn_jobdb_part *p = &r->parts[i];

		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_u64(&x, &r->summary.job);
		bcn_jobdb_b_str(&x, p->layer, 0);
		bcn_jobdb_b_str(&x, p->component, 0);
		bcn_jobdb_b_u64(&x, &p->read_bytes);
		bcn_jobdb_b_u64(&x, &p->write_bytes);
		bcn_jobdb_b_u64(&x, &p->ops);
		bcn_jobdb_b_f64(&x, &p->share);
		rc = run(db, ST_PART_INS, &x);
	}
	for (size_t i = 0; !rc && i < r->nphases; i++) {
		const struct bcn_jobdb_phase *p = &r->phases[i];
		const uint64_t idx = i;

		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_u64(&x, &r->summary.job);
		bcn_jobdb_b_u64(&x, &idx);
		bcn_jobdb_b_i64(&x, &p->start);
		bcn_jobdb_b_i64(&x, &p->end);
		bcn_jobdb_b_u64(&x, &p->read_bytes);
		bcn_jobdb_b_u64(&x, &p->write_bytes);
		rc = run(db, ST_PHASE_INS, &x);
	}
	for (size_t i = 0; !rc && i < r->nfindings; i++) {
		const struct bcn_jobdb_finding *f = &r->findings[i];

		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_u64(&x, &r->summary.job);
		bcn_jobdb_b_str(&x, f->code, 0);
		bcn_jobdb_b_str(&x, f->severity, 0);
		bcn_jobdb_b_str(&x, f->message, 0);
		bcn_jobdb_b_str(&x, f->evidence ? f->evidence : "{}", 0);
		rc = run(db, ST_FINDING_INS, &x);
	}
	if (!rc)
		rc = bcn_jobdb_io_phases_replace(db, r->summary.job, r->io_phases,
						 r->nio_phases);
	return rc;
}

int bcn_jobdb_put_report(struct bcn_jobdb *db, const struct bcn_jobdb_report *r)
{
	static const int del[] = { ST_PARTS_DEL, ST_PHASES_DEL, ST_FINDINGS_DEL };
	struct binds x;
	int rc;

	if (mysql_autocommit(db->my, 0))
		return bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_error(db->my));
	rc = put_summary(db, &r->summary);
	for (size_t i = 0; !rc && i < sizeof(del) / sizeof(del[0]); i++) {
		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_u64(&x, &r->summary.job);
		rc = run(db, del[i], &x);
	}
	if (!rc)
		rc = put_rows(db, r);
	if (!rc && mysql_commit(db->my))
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_error(db->my));
	if (rc)
		mysql_rollback(db->my);
	mysql_autocommit(db->my, 1);
	return rc;
}

int bcn_jobdb_get_summary(struct bcn_jobdb *db, uint64_t job,
			  struct bcn_jobdb_summary *m)
{
	MYSQL_STMT *s = db->st[ST_SUM_GET];
	int64_t partial = 0;
	struct binds x, r;
	int rc;

	memset(m, 0, sizeof(*m));
	m->job = job;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &job);
	if ((rc = run(db, ST_SUM_GET, &x)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_i64(&r, &m->computed);
	bcn_jobdb_b_i64(&r, &partial);
	bcn_jobdb_b_u64(&r, &m->read_bytes);
	bcn_jobdb_b_u64(&r, &m->write_bytes);
	bcn_jobdb_b_f64(&r, &m->read_bw_mean);
	bcn_jobdb_b_f64(&r, &m->read_bw_peak);
	bcn_jobdb_b_f64(&r, &m->write_bw_mean);
	bcn_jobdb_b_f64(&r, &m->write_bw_peak);
	bcn_jobdb_b_f64(&r, &m->iops);
	bcn_jobdb_b_u64(&r, &m->meta_ops);
	bcn_jobdb_b_u64(&r, &m->io_nodes);
	bcn_jobdb_b_u64(&r, &m->io_procs);
	bcn_jobdb_b_str(&r, m->mode, sizeof(m->mode) - 1);
	bcn_jobdb_b_f64(&r, &m->meta_rate_io);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_stmt_fail(db, ST_SUM_GET);
	rc = mysql_stmt_fetch(s);
	if (rc == 0 || rc == MYSQL_DATA_TRUNCATED)
		m->mode[r.len[12] < sizeof(m->mode) - 1 ? r.len[12] :
			sizeof(m->mode) - 1] = '\0';
	m->partial = partial != 0;
	mysql_stmt_free_result(s);
	if (rc == MYSQL_NO_DATA)
		return 0;
	return rc == 0 || rc == MYSQL_DATA_TRUNCATED ? 1 : bcn_jobdb_stmt_fail(db, ST_SUM_GET);
}
