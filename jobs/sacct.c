/* sacct --parsable2 records into jobs (jobs/sacct.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/text.h"
#include "jobs/sacct.h"

/* The columns beacon reads, by the name sacct's --format uses. */
#define SACCT_COLS(X) \
	X(JOBIDRAW, "JobIDRaw") X(JOBID, "JobID") X(USER, "User") \
	X(UID, "UID") X(ACCOUNT, "Account") X(PARTITION, "Partition") \
	X(JOBNAME, "JobName") X(NODELIST, "NodeList") X(NNODES, "NNodes") \
	X(NTASKS, "NTasks") X(NCPUS, "NCPUS") X(ALLOCCPUS, "AllocCPUS") \
	X(SUBMIT, "Submit") X(START, "Start") X(END, "End") \
	X(STATE, "State") X(EXITCODE, "ExitCode")

#define X_ENUM(id, name) C_##id,
enum { SACCT_COLS(X_ENUM) C_MAX };
#undef X_ENUM
#define X_NAME(id, name) name,
static const char *const col_names[C_MAX] = { SACCT_COLS(X_NAME) };
#undef X_NAME

struct layout {
	int at[C_MAX];          /* field index of each known column, or -1 */
	size_t ncols;
};

struct parse {
	const struct bcn_jobparse_opts *o;
	const char *delim;
	size_t dlen;
	struct layout lay;
	struct bcn_jobparse_row row;
	char step[BCN_JOB_STR_MAX + 1];
};

static int layout_set(struct layout *lay, const struct bcn_jobparse_row *r)
{
	for (int c = 0; c < C_MAX; c++)
		lay->at[c] = -1;
	for (size_t i = 0; i < r->n; i++) {
		struct bcn_jobparse_field f = r->f[i];

		f.p = bcn_text_skip_space(f.p, f.p + f.len);
		f.len = (size_t)(bcn_text_trim_space(f.p, r->f[i].p +
						     r->f[i].len) - f.p);
		for (int c = 0; c < C_MAX; c++)
			if (lay->at[c] < 0 && bcn_jobparse_eq(f, col_names[c]))
				lay->at[c] = (int)i;
	}
	lay->ncols = r->n;
	if (lay->at[C_JOBID] < 0 && lay->at[C_JOBIDRAW] < 0)
		return -BCN_ESYNTAX;
	return 0;
}

/* Comma-separated column names, as for sacct --format. */
static int layout_from_names(struct parse *p, const char *names)
{
	int rc = bcn_jobparse_split(&p->row, names, strlen(names), ",", 1);

	return rc ? rc : layout_set(&p->lay, &p->row);
}

static struct bcn_jobparse_field col(const struct parse *p, int c)
{
	struct bcn_jobparse_field none = { "", 0 };

	return p->lay.at[c] < 0 ? none : p->row.f[p->lay.at[c]];
}

static int parse_u64(const char **s, const char *end, uint64_t *v)
{
	return bcn_text_u64(s, end, v);
}

int bcn_sacct_jobid(const char *s, size_t len, uint64_t raw,
		    struct bcn_job *j, char *step, size_t stepmax)
{
	const char *p = s, *end = s + len;
	uint64_t base, v;
	size_t n = 0;

	if (parse_u64(&p, end, &base) || !base)
		return -BCN_ESYNTAX;
	j->id = raw ? raw : base;
	if (p < end && *p == '_') {
		j->array_job = base;
		p++;
		if (p < end && *p == '[') {
			const char *q = memchr(p, ']', (size_t)(end - p));

			if (!q)
				return -BCN_ESYNTAX;
			p = q + 1;
		} else {
			if (parse_u64(&p, end, &v) || v > INT64_MAX)
				return -BCN_ESYNTAX;
			j->array_task = (int64_t)v;
		}
	}
	if (p < end && *p == '+') {       /* het component: kept in step */
		const char *q = p + 1;

		if (parse_u64(&q, end, &v))
			return -BCN_ESYNTAX;
		n = (size_t)(q - p);
		p = q;
	}
	if (p < end && (*p != '.' || p + 1 == end))
		return -BCN_ESYNTAX;
	if ((size_t)(end - s) - (size_t)(p - s) + n + 1 > stepmax)
		return -BCN_ETOOBIG;
	memcpy(step, p - n, n);
	if (p < end) {              /* "+1.0" keeps its dot, "0" has none */
		const char *from = n ? p : p + 1;

		memcpy(step + n, from, (size_t)(end - from));
		n += (size_t)(end - from);
	}
	step[n] = '\0';
	j->step = step;
	return 0;
}

static int ids(struct parse *p, struct bcn_job *j)
{
	struct bcn_jobparse_field id = col(p, C_JOBID), raw = col(p, C_JOBIDRAW);
	uint64_t rawid = 0;
	const char *dot;

	if (raw.len) {
		const char *q = raw.p;

		if (parse_u64(&q, raw.p + raw.len, &rawid) || !rawid)
			return bcn_jobparse_fail(&p->row, "bad JobIDRaw");
		if (!id.len)
			id = raw;
		/* A step's raw id is "123.batch": its step comes from JobID. */
		dot = memchr(raw.p, '.', raw.len);
		if (!dot && q != raw.p + raw.len)
			return bcn_jobparse_fail(&p->row, "bad JobIDRaw");
	}
	if (bcn_sacct_jobid(id.p, id.len, rawid, j, p->step, sizeof(p->step)))
		return bcn_jobparse_fail(&p->row, "bad JobID \"%.*s\"",
					 (int)(id.len > 40 ? 40 : id.len), id.p);
	return 0;
}

static int strings(struct parse *p, struct bcn_job *j)
{
	struct bcn_jobparse_row *r = &p->row;
	struct bcn_jobparse_field nl = col(p, C_NODELIST);
	int rc;

	rc = bcn_jobparse_str(r, col(p, C_USER), BCN_JOB_STR_MAX, "User",
			      &j->user);
	if (!rc)
		rc = bcn_jobparse_str(r, col(p, C_ACCOUNT), BCN_JOB_STR_MAX,
				      "Account", &j->account);
	if (!rc)
		rc = bcn_jobparse_str(r, col(p, C_PARTITION), BCN_JOB_STR_MAX,
				      "Partition", &j->partition);
	if (!rc)
		rc = bcn_jobparse_str(r, col(p, C_JOBNAME), BCN_JOB_STR_MAX,
				      "JobName", &j->name);
	if (bcn_jobparse_eq(nl, "None assigned") || bcn_jobparse_eq(nl, "(null)"))
		nl.len = 0;
	if (!rc)
		rc = bcn_jobparse_str(r, nl, BCN_JOB_NODELIST_MAX, "NodeList",
				      &j->nodelist);
	return rc;
}

static int numbers(struct parse *p, struct bcn_job *j)
{
	struct bcn_jobparse_row *r = &p->row;
	struct bcn_jobparse_field cpus = col(p, C_NCPUS);
	uint64_t uid, hosts = 0;
	int rc;

	if (!cpus.len)
		cpus = col(p, C_ALLOCCPUS);
	rc = bcn_jobparse_u64(r, col(p, C_UID), UINT64_MAX, "UID", &uid);
	if (!rc && uid != UINT64_MAX && uid > INT64_MAX)
		rc = bcn_jobparse_fail(r, "bad UID");
	j->uid = uid == UINT64_MAX ? -1 : (int64_t)uid;
	if (!rc)
		rc = bcn_jobparse_u64(r, col(p, C_NTASKS), 0, "NTasks",
				      &j->ntasks);
	if (!rc)
		rc = bcn_jobparse_u64(r, cpus, 0, "NCPUS", &j->ncpus);
	if (!rc && j->nodelist[0])
		rc = bcn_jobparse_hostlist(r, j->nodelist, &hosts);
	if (!rc)
		rc = bcn_jobparse_u64(r, col(p, C_NNODES), hosts, "NNodes",
				      &j->nnodes);
	return rc;
}

static int times_state(struct parse *p, struct bcn_job *j)
{
	struct bcn_jobparse_row *r = &p->row;
	struct bcn_jobparse_field st = col(p, C_STATE), ec = col(p, C_EXITCODE);
	int64_t off = p->o ? p->o->utc_offset_s : 0;
	int rc;

	rc = bcn_jobparse_time(r, col(p, C_SUBMIT), off, "Submit", &j->submit);
	if (!rc)
		rc = bcn_jobparse_time(r, col(p, C_START), off, "Start",
				       &j->start);
	if (!rc)
		rc = bcn_jobparse_time(r, col(p, C_END), off, "End", &j->end);
	if (rc)
		return rc;
	if (st.len) {
		j->state = bcn_job_state_parse(st.p, st.len);
		if (j->state < 0)
			return bcn_jobparse_fail(r, "unknown state \"%.*s\"",
						 (int)(st.len > 32 ? 32 : st.len),
						 st.p);
	}
	if (ec.len) {
		const char *q = ec.p, *end = ec.p + ec.len;
		uint64_t code, sig = 0;

		if (parse_u64(&q, end, &code) || code > 255 ||
		    (q < end && (*q != ':' || (q++, parse_u64(&q, end, &sig)) ||
				 sig > 255)) || q != end)
			return bcn_jobparse_fail(r, "bad ExitCode \"%.*s\"",
						 (int)(ec.len > 32 ? 32 : ec.len),
						 ec.p);
		j->exit_code = (int64_t)code;
		j->exit_signal = (int64_t)sig;
	}
	return 0;
}

static int row_job(struct parse *p, const char *line, size_t len,
		   struct bcn_job *j)
{
	struct bcn_jobparse_row *r = &p->row;
	int rc = bcn_jobparse_split(r, line, len, p->delim, p->dlen);

	if (rc)
		return rc;
	if (r->n == p->lay.ncols + 1 && !r->f[r->n - 1].len)
		r->n--;                 /* --parsable's trailing delimiter */
	if (r->n != p->lay.ncols)
		return bcn_jobparse_fail(r, "%zu columns, the header has %zu",
					 r->n, p->lay.ncols);
	bcn_job_init(j);
	rc = ids(p, j);
	if (!rc)
		rc = strings(p, j);
	if (!rc)
		rc = numbers(p, j);
	if (!rc)
		rc = times_state(p, j);
	return rc ? rc : bcn_jobparse_check(r, j);
}

static int parse_lines(struct parse *p, const char *buf, size_t len,
		       bcn_job_fn *fn, bcn_jobparse_err_fn *err, void *arg,
		       struct bcn_jobparse_stats *st)
{
	const char *pos = buf, *end = buf + len;
	struct bcn_text_line l;
	bool header = !(p->o && p->o->columns);
	int rc;

	while (bcn_text_next_line(&pos, end, &l)) {
		const char *e = l.end;
		struct bcn_job j;

		st->lines++;
		if (e > l.p && e[-1] == '\r')
			e--;
		if (bcn_text_skip_space(l.p, e) == e)
			continue;
		if (header) {
			rc = bcn_jobparse_split(&p->row, l.p, (size_t)(e - l.p),
						p->delim, p->dlen);
			if (rc || layout_set(&p->lay, &p->row))
				return -BCN_ESYNTAX;
			if (p->lay.ncols > 1 && !p->row.f[p->lay.ncols - 1].len)
				p->lay.ncols--;
			header = false;
			continue;
		}
		if ((size_t)(e - l.p) > BCN_JOBPARSE_LINE_MAX) {
			bcn_jobparse_fail(&p->row, "line longer than %d bytes",
					  BCN_JOBPARSE_LINE_MAX);
			rc = -BCN_ETOOBIG;
		} else {
			rc = row_job(p, l.p, (size_t)(e - l.p), &j);
		}
		if (rc) {
			st->rejected++;
			if (err)
				err(arg, st->lines, p->row.reason);
			continue;
		}
		st->rows++;
		rc = fn(arg, &j);
		if (rc)
			return rc;
	}
	return 0;
}

int bcn_sacct_parse(const char *buf, size_t len,
		    const struct bcn_jobparse_opts *o, bcn_job_fn *fn,
		    bcn_jobparse_err_fn *err, void *arg,
		    struct bcn_jobparse_stats *st)
{
	struct bcn_jobparse_stats local;
	struct parse *p;
	int rc;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = o;
	p->delim = o && o->delim && o->delim[0] ? o->delim : "|";
	p->dlen = strlen(p->delim);
	rc = bcn_jobparse_row_init(&p->row);
	if (rc)
		goto out;
	if (o && o->columns) {
		rc = layout_from_names(p, o->columns);
		if (rc)
			goto out;
	}
	rc = parse_lines(p, buf, len, fn, err, arg, st);
out:
	bcn_jobparse_row_free(&p->row);
	free(p);
	return rc;
}
