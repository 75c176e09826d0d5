/* CSV job records into jobs (jobs/jobcsv.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "jobs/jobcsv.h"

#define CSV_COLS(X) \
	X(JOB, "job") X(STEP, "step") X(ARRAY_JOB, "array_job") \
	X(ARRAY_TASK, "array_task") X(USER, "user") X(UID, "uid") \
	X(ACCOUNT, "account") X(PARTITION, "partition") X(NAME, "name") \
	X(NODELIST, "nodelist") X(NNODES, "nnodes") X(NTASKS, "ntasks") \
	X(NCPUS, "ncpus") X(SUBMIT, "submit") X(START, "start") \
	X(END, "end") X(STATE, "state") X(EXIT_CODE, "exit_code")

#define X_ENUM(id, name) C_##id,
enum { CSV_COLS(X_ENUM) C_MAX };
#undef X_ENUM
#define X_NAME(id, name) name,
static const char *const col_names[C_MAX] = { CSV_COLS(X_NAME) };
#undef X_NAME

struct csv {
	int at[C_MAX];
	size_t ncols;
	struct bcn_jobparse_row row;
	char *text;             /* unquoted fields of the current record */
	uint64_t line;          /* first line of the current record */
};

/* Reads one record from *pos into c->row, unquoting into c->text.
 * Returns 1 for a record, 0 at the end, or a negative code (the record is
 * then skipped up to the end of its last line). */
static int next_record(struct csv *c, const char **pos, const char *end,
		       struct bcn_jobparse_stats *st)
{
	const char *p = *pos;
	size_t out = 0;
	bool quoted = false, start = true;
	int rc = 0;

	if (p >= end)
		return 0;
	c->row.n = 0;
	c->row.used = 0;
	c->line = ++st->lines;
	c->row.f[0].p = c->text;
	for (; p < end; p++) {
		char ch = *p;

		if (out >= BCN_JOBPARSE_LINE_MAX && !rc)
			rc = bcn_jobparse_fail(&c->row, "record longer than "
					       "%d bytes", BCN_JOBPARSE_LINE_MAX);
		if (quoted) {
			if (ch == '"' && p + 1 < end && p[1] == '"')
				p++;
			else if (ch == '"') {
				quoted = false;
				continue;
			} else if (ch == '\n')
				st->lines++;
			if (!rc)
				c->text[out++] = ch;
			continue;
		}
		if (ch == '"' && start) {
			quoted = true;
			start = false;
			continue;
		}
		if (ch == ',' || ch == '\n') {
			if (!rc && c->row.n >= BCN_JOBPARSE_COLS_MAX)
				rc = bcn_jobparse_fail(&c->row, "too many columns");
			if (!rc) {
				struct bcn_jobparse_field *f = &c->row.f[c->row.n++];

				f->len = (size_t)(c->text + out - f->p);
				if (f->len && f->p[f->len - 1] == '\r' && ch == '\n')
					f->len--;
				if (c->row.n < BCN_JOBPARSE_COLS_MAX)
					c->row.f[c->row.n].p = c->text + out;
			}
			start = true;
			if (ch == '\n') {
				p++;
				break;
			}
			continue;
		}
		start = false;
		if (!rc)
			c->text[out++] = ch;
	}
	if (p == end && (end == *pos || end[-1] != '\n') && !rc &&
	    c->row.n >= BCN_JOBPARSE_COLS_MAX)
		rc = bcn_jobparse_fail(&c->row, "too many columns");
	if (p == end && (end == *pos || end[-1] != '\n') && !rc) {
		struct bcn_jobparse_field *f = &c->row.f[c->row.n++];

		f->len = (size_t)(c->text + out - f->p);
	}
	if (quoted && !rc)
		rc = bcn_jobparse_fail(&c->row, "unterminated quote");
	*pos = p;
	return rc ? rc : 1;
}

static int header(struct csv *c)
{
	for (int k = 0; k < C_MAX; k++)
		c->at[k] = -1;
	for (size_t i = 0; i < c->row.n; i++) {
		int k;

		for (k = 0; k < C_MAX; k++)
			if (bcn_jobparse_eq(c->row.f[i], col_names[k]))
				break;
		if (k == C_MAX)
			return bcn_jobparse_fail(&c->row, "unknown column "
						 "\"%.*s\"", (int)(c->row.f[i].len > 32 ?
						 32 : c->row.f[i].len), c->row.f[i].p);
		if (c->at[k] >= 0)
			return bcn_jobparse_fail(&c->row, "column %s twice",
						 col_names[k]);
		c->at[k] = (int)i;
	}
	c->ncols = c->row.n;
	if (c->at[C_JOB] < 0)
		return bcn_jobparse_fail(&c->row, "no \"job\" column");
	return 0;
}

static struct bcn_jobparse_field col(const struct csv *c, int k)
{
	struct bcn_jobparse_field none = { "", 0 };

	return c->at[k] < 0 ? none : c->row.f[c->at[k]];
}

static int strs(struct csv *c, struct bcn_job *j)
{
	static const int ks[] = { C_STEP, C_USER, C_ACCOUNT, C_PARTITION,
				  C_NAME, C_NODELIST };
	const char **dst[] = { &j->step, &j->user, &j->account, &j->partition,
			       &j->name, &j->nodelist };
	int rc = 0;

	for (size_t i = 0; !rc && i < 6; i++)
		rc = bcn_jobparse_str(&c->row, col(c, ks[i]),
				      ks[i] == C_NODELIST ? BCN_JOB_NODELIST_MAX
							  : BCN_JOB_STR_MAX,
				      col_names[ks[i]], dst[i]);
	return rc;
}

/* A signed number for uid, array_task and exit_code: "" is -1. */
static int i64(struct csv *c, int k, int64_t *v)
{
	struct bcn_jobparse_field f = col(c, k);
	uint64_t u;

	if (f.len == 2 && !memcmp(f.p, "-1", 2)) {
		*v = -1;
		return 0;
	}
	if (bcn_jobparse_u64(&c->row, f, UINT64_MAX, col_names[k], &u))
		return -BCN_ESYNTAX;
	if (u != UINT64_MAX && u > INT64_MAX)
		return bcn_jobparse_fail(&c->row, "%s out of range",
					 col_names[k]);
	*v = u == UINT64_MAX ? -1 : (int64_t)u;
	return 0;
}

static int nums(struct csv *c, struct bcn_job *j)
{
	struct bcn_jobparse_row *r = &c->row;
	struct bcn_jobparse_field st = col(c, C_STATE);
	uint64_t hosts = 0;
	int rc;

	rc = bcn_jobparse_u64(r, col(c, C_JOB), 0, "job", &j->id);
	if (!rc)
		rc = bcn_jobparse_u64(r, col(c, C_ARRAY_JOB), 0, "array_job",
				      &j->array_job);
	if (!rc)
		rc = i64(c, C_ARRAY_TASK, &j->array_task);
	if (!rc)
		rc = i64(c, C_UID, &j->uid);
	if (!rc)
		rc = i64(c, C_EXIT_CODE, &j->exit_code);
	if (!rc && j->nodelist[0])
		rc = bcn_jobparse_hostlist(r, j->nodelist, &hosts);
	if (!rc)
		rc = bcn_jobparse_u64(r, col(c, C_NNODES), hosts, "nnodes",
				      &j->nnodes);
	if (!rc)
		rc = bcn_jobparse_u64(r, col(c, C_NTASKS), 0, "ntasks",
				      &j->ntasks);
	if (!rc)
		rc = bcn_jobparse_u64(r, col(c, C_NCPUS), 0, "ncpus", &j->ncpus);
	if (!rc)
		rc = bcn_jobparse_time(r, col(c, C_SUBMIT), 0, "submit",
				       &j->submit);
	if (!rc)
		rc = bcn_jobparse_time(r, col(c, C_START), 0, "start", &j->start);
	if (!rc)
		rc = bcn_jobparse_time(r, col(c, C_END), 0, "end", &j->end);
	if (!rc && st.len) {
		j->state = bcn_job_state_parse(st.p, st.len);
		if (j->state < 0)
			rc = bcn_jobparse_fail(r, "unknown state \"%.*s\"",
					       (int)(st.len > 32 ? 32 : st.len),
					       st.p);
	}
	return rc;
}

static int row_job(struct csv *c, struct bcn_job *j)
{
	int rc;

	if (c->row.n != c->ncols)
		return bcn_jobparse_fail(&c->row, "%zu columns, the header "
					 "has %zu", c->row.n, c->ncols);
	bcn_job_init(j);
	rc = strs(c, j);
	if (!rc)
		rc = nums(c, j);
	return rc ? rc : bcn_jobparse_check(&c->row, j);
}

static bool blank(const struct csv *c)
{
	return c->row.n == 0 || (c->row.n == 1 && !c->row.f[0].len);
}

static int parse(struct csv *c, const char *buf, size_t len, bcn_job_fn *fn,
		 bcn_jobparse_err_fn *err, void *arg,
		 struct bcn_jobparse_stats *st)
{
	const char *pos = buf, *end = buf + len;
	bool have_header = false;
	int rc;

	while ((rc = next_record(c, &pos, end, st)) != 0) {
		struct bcn_job j;

		if (rc > 0 && blank(c))
			continue;
		if (rc > 0 && !have_header) {
			if (header(c)) {
				if (err)
					err(arg, c->line, c->row.reason);
				return -BCN_ESYNTAX;
			}
			have_header = true;
			continue;
		}
		if (rc > 0)
			rc = row_job(c, &j);
		if (rc < 0) {
			st->rejected++;
			if (err)
				err(arg, c->line, c->row.reason);
			continue;
		}
		st->rows++;
		rc = fn(arg, &j);
		if (rc)
			return rc;
	}
	return 0;
}

int bcn_jobcsv_parse(const char *buf, size_t len,
		     const struct bcn_jobparse_opts *o, bcn_job_fn *fn,
		     bcn_jobparse_err_fn *err, void *arg,
		     struct bcn_jobparse_stats *st)
{
	struct bcn_jobparse_stats local;
	struct csv *c;
	int rc;

	(void)o;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->text = malloc(BCN_JOBPARSE_LINE_MAX + 1);
	rc = c->text ? bcn_jobparse_row_init(&c->row) : -ENOMEM;
	if (!rc)
		rc = parse(c, buf, len, fn, err, arg, st);
	bcn_jobparse_row_free(&c->row);
	free(c->text);
	free(c);
	return rc;
}
