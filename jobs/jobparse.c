/* Field splitting and conversions shared by the job-record parsers
 * (jobs/jobparse.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "common/text.h"
#include "common/timefmt.h"
#include "jobs/jobparse.h"

#define SCRATCH_LEN (BCN_JOBPARSE_LINE_MAX + BCN_JOBPARSE_COLS_MAX)

int bcn_jobparse_row_init(struct bcn_jobparse_row *r)
{
	memset(r, 0, sizeof(*r));
	r->scratch = malloc(SCRATCH_LEN);
	return r->scratch ? 0 : -ENOMEM;
}

void bcn_jobparse_row_free(struct bcn_jobparse_row *r)
{
	free(r->scratch);
	r->scratch = NULL;
}

int bcn_jobparse_fail(struct bcn_jobparse_row *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	return -BCN_ESYNTAX;
}

static int add_field(struct bcn_jobparse_row *r, const char *p, size_t len)
{
	if (r->n >= BCN_JOBPARSE_COLS_MAX) {
		bcn_jobparse_fail(r, "more than %d columns",
				  BCN_JOBPARSE_COLS_MAX);
		return -BCN_ETOOBIG;
	}
	r->f[r->n].p = p;
	r->f[r->n].len = len;
	r->n++;
	return 0;
}

int bcn_jobparse_split(struct bcn_jobparse_row *r, const char *line,
		       size_t len, const char *delim, size_t dlen)
{
	const char *p = line, *end = line + len;
	int rc;

	r->n = 0;
	r->used = 0;
	for (;;) {
		const char *q = dlen ? memmem(p, (size_t)(end - p), delim, dlen)
				     : NULL;
		if (!q)
			return add_field(r, p, (size_t)(end - p));
		rc = add_field(r, p, (size_t)(q - p));
		if (rc)
			return rc;
		p = q + dlen;
	}
}

int bcn_jobparse_split_ws(struct bcn_jobparse_row *r, const char *line,
			  size_t len)
{
	const char *p = line, *end = line + len;
	int rc;

	r->n = 0;
	r->used = 0;
	for (;;) {
		const char *s;

		while (p < end && bcn_text_is_blank(*p))
			p++;
		if (p == end)
			return 0;
		s = p;
		while (p < end && !bcn_text_is_blank(*p))
			p++;
		rc = add_field(r, s, (size_t)(p - s));
		if (rc)
			return rc;
	}
}

int bcn_jobparse_str(struct bcn_jobparse_row *r, struct bcn_jobparse_field f,
		     size_t max, const char *what, const char **out)
{
	char *s;

	if (f.len > max || r->used + f.len + 1 > SCRATCH_LEN) {
		bcn_jobparse_fail(r, "%s longer than %zu bytes", what, max);
		return -BCN_ETOOBIG;
	}
	if (f.len && memchr(f.p, '\0', f.len))
		return bcn_jobparse_fail(r, "%s holds a NUL byte", what);
	s = r->scratch + r->used;
	if (f.len)
		memcpy(s, f.p, f.len);
	s[f.len] = '\0';
	r->used += f.len + 1;
	*out = s;
	return 0;
}

int bcn_jobparse_eq(struct bcn_jobparse_field f, const char *name)
{
	return strlen(name) == f.len && !strncasecmp(f.p, name, f.len);
}

int bcn_jobparse_u64(struct bcn_jobparse_row *r, struct bcn_jobparse_field f,
		     uint64_t dflt, const char *what, uint64_t *v)
{
	if (!f.len) {
		*v = dflt;
		return 0;
	}
	if (bcn_text_u64_all(f.p, f.len, v))
		return bcn_jobparse_fail(r, "bad %s \"%.*s\"", what,
					 (int)(f.len > 32 ? 32 : f.len), f.p);
	return 0;
}

/* "YYYY-MM-DDTHH:MM:SS" with no zone: local time. */
static int local_time(const char *s, size_t len, int64_t off, int64_t *ns)
{
	char tmp[BCN_TIMEFMT_IN_MAX + 2];
	int rc;

	if (len < 16 || len > BCN_TIMEFMT_IN_MAX || s[4] != '-' ||
	    (s[10] != 'T' && s[10] != ' '))
		return -BCN_ESYNTAX;
	memcpy(tmp, s, len);
	tmp[len] = 'Z';
	rc = bcn_timefmt_parse(tmp, len + 1, ns);
	if (rc)
		return rc;
	if (__builtin_sub_overflow(*ns, off * BCN_NS_PER_SEC, ns))
		return -BCN_ERANGE;
	return 0;
}

int bcn_jobparse_time(struct bcn_jobparse_row *r, struct bcn_jobparse_field f,
		      int64_t utc_offset_s, const char *what, int64_t *ns)
{
	const char *s = f.p;
	size_t n = f.len;

	*ns = 0;
	if (!n || bcn_jobparse_eq(f, "Unknown") || bcn_jobparse_eq(f, "None") ||
	    bcn_jobparse_eq(f, "-"))
		return 0;
	if (!bcn_timefmt_parse(s, n, ns))
		return 0;
	if (!local_time(s, n, utc_offset_s, ns))
		return 0;
	return bcn_jobparse_fail(r, "bad %s time \"%.*s\"", what,
				 (int)(n > 40 ? 40 : n), s);
}

int bcn_jobparse_hostlist(struct bcn_jobparse_row *r, const char *expr,
			  uint64_t *n)
{
	struct bcn_hostlist hl;
	char err[128];
	int rc;

	rc = bcn_hostlist_expand(expr, strlen(expr), BCN_HOSTLIST_MAX_HOSTS,
				 &hl, err, sizeof(err));
	if (rc)
		return bcn_jobparse_fail(r, "bad hostlist: %s", err);
	if (n)
		*n = hl.n;
	bcn_hostlist_free(&hl);
	return 0;
}

int bcn_jobparse_check(struct bcn_jobparse_row *r, const struct bcn_job *j)
{
	if (!j->id)
		return bcn_jobparse_fail(r, "job id 0");
	if (j->state < 0 || j->state >= BCN_JOB_STATE_MAX)
		return bcn_jobparse_fail(r, "unknown state");
	if (j->start && j->end && j->end < j->start)
		return bcn_jobparse_fail(r, "end before start");
	return 0;
}
