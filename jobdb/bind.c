/* Bindings, errors, lazily prepared statements and transactions shared
 * by the job database's source files (jobdb/jobdb_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jobdb/jobdb_int.h"

void bcn_jobdb_binds_init(struct binds *x)
{
	memset(x, 0, sizeof(*x));
}

static MYSQL_BIND *next(struct binds *x)
{
	MYSQL_BIND *b = &x->b[x->n];

	b->length = &x->len[x->n];
	b->is_null = &x->null[x->n];
	x->n++;
	return b;
}

void bcn_jobdb_b_u64(struct binds *x, const uint64_t *v)
{
	MYSQL_BIND *b = next(x);

	b->buffer_type = MYSQL_TYPE_LONGLONG;
	b->buffer = (void *)v;
	b->is_unsigned = 1;
}

void bcn_jobdb_b_f64(struct binds *x, const double *v)
{
	MYSQL_BIND *b = next(x);

	b->buffer_type = MYSQL_TYPE_DOUBLE;
	b->buffer = (void *)v;
}

void bcn_jobdb_b_i64(struct binds *x, const int64_t *v)
{
	MYSQL_BIND *b = next(x);

	b->buffer_type = MYSQL_TYPE_LONGLONG;
	b->buffer = (void *)v;
}

void bcn_jobdb_b_str(struct binds *x, const char *s, size_t cap)
{
	MYSQL_BIND *b = next(x);

	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = (void *)s;
	b->buffer_length = cap ? cap : strlen(s);
	x->len[x->n - 1] = cap ? 0 : strlen(s);
}

void bcn_jobdb_str_fix(const struct binds *r, int k, char *buf, size_t cap)
{
	size_t n = r->len[k];

	if (r->null[k])
		n = 0;
	buf[n < cap - 1 ? n : cap - 1] = '\0';
}

int bcn_jobdb_fail(struct bcn_jobdb *db, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof(db->err), fmt, ap);
	va_end(ap);
	return rc;
}

int bcn_jobdb_sfail(struct bcn_jobdb *db, MYSQL_STMT *s)
{
	return bcn_jobdb_fail(db, -EIO, "job database: %s", mysql_stmt_error(s));
}

int bcn_jobdb_stmt_fail(struct bcn_jobdb *db, int i)
{
	return bcn_jobdb_sfail(db, db->st[i]);
}

int bcn_jobdb_lazy(struct bcn_jobdb *db, int slot, const char *sql,
		   MYSQL_STMT **out)
{
	MYSQL_STMT *s;

	if (slot < 0 || slot >= BCN_JOBDB_LAZY_MAX)
		return bcn_jobdb_fail(db, -EINVAL, "job database: statement "
				      "slot %d", slot);
	if (!db->lazy[slot]) {
		s = mysql_stmt_init(db->my);
		if (!s)
			return bcn_jobdb_fail(db, -ENOMEM, "job database: out "
					      "of memory");
		if (mysql_stmt_prepare(s, sql, strlen(sql))) {
			int rc = bcn_jobdb_sfail(db, s);

			mysql_stmt_close(s);
			return rc;
		}
		db->lazy[slot] = s;
	}
	*out = db->lazy[slot];
	return 0;
}

int bcn_jobdb_exec(struct bcn_jobdb *db, MYSQL_STMT *s, struct binds *x)
{
	if ((x && x->n && mysql_stmt_bind_param(s, x->b)) ||
	    mysql_stmt_execute(s))
		return bcn_jobdb_sfail(db, s);
	return 0;
}

int bcn_jobdb_lazy_exec(struct bcn_jobdb *db, int slot, const char *sql,
			struct binds *x, MYSQL_STMT **out)
{
	MYSQL_STMT *s;
	int rc = bcn_jobdb_lazy(db, slot, sql, &s);

	if (!rc)
		rc = bcn_jobdb_exec(db, s, x);
	if (!rc && out)
		*out = s;
	return rc;
}

int bcn_jobdb_begin(struct bcn_jobdb *db)
{
	if (mysql_autocommit(db->my, 0))
		return bcn_jobdb_fail(db, -EIO, "job database: %s",
				      mysql_error(db->my));
	return 0;
}

int bcn_jobdb_commit(struct bcn_jobdb *db)
{
	int rc = 0;

	if (mysql_commit(db->my)) {
		rc = bcn_jobdb_fail(db, -EIO, "job database: %s",
				    mysql_error(db->my));
		mysql_rollback(db->my);
	}
	mysql_autocommit(db->my, 1);
	return rc;
}

void bcn_jobdb_rollback(struct bcn_jobdb *db)
{
	mysql_rollback(db->my);
	mysql_autocommit(db->my, 1);
}
