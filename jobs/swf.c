/* Standard Workload Format logs into jobs (jobs/swf.h). Fields, 1-based:
 * 1 job number, 2 submit (s after UnixStartTime), 3 wait (s), 4 run time
 * (s), 5 allocated processors, 11 status, 12 user id, 14 executable
 * number, 16 partition number; -1 is "unknown" everywhere. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/text.h"
#include "common/timefmt.h"
#include "jobs/swf.h"

#define SWF_FIELDS 18
#define SWF_NUM_MAX 9.0e15      /* larger numbers are not SWF */

struct swf {
	int64_t origin;         /* UnixStartTime, s */
	int64_t max_nodes, max_procs;
	struct bcn_jobparse_row row;
	char name[32], partition[32];
};

/* A field as a number: integer or decimal, -1 (or any negative) is
 * unknown. */
static int num(struct bcn_jobparse_row *r, int i, int64_t *v)
{
	char tmp[40], *end;
	double d;

	if (r->f[i].len >= sizeof(tmp))
		return bcn_jobparse_fail(r, "field %d too long", i + 1);
	memcpy(tmp, r->f[i].p, r->f[i].len);
	tmp[r->f[i].len] = '\0';
	d = strtod(tmp, &end);
	if (end == tmp || *end || !isfinite(d) || fabs(d) > SWF_NUM_MAX)
		return bcn_jobparse_fail(r, "field %d is not a number: \"%s\"",
					 i + 1, tmp);
	*v = d < 0 ? -1 : (int64_t)d;
	return 0;
}

static int status_state(int64_t st)
{
	switch (st) {
	case 0: return BCN_JOB_FAILED;
	case 1: return BCN_JOB_COMPLETED;
	case 2: return BCN_JOB_REQUEUED;        /* partial, to be continued */
	case 3: return BCN_JOB_COMPLETED;       /* last partial, completed */
	case 4: return BCN_JOB_FAILED;          /* last partial, failed */
	case 5: return BCN_JOB_CANCELLED;
	case -1: return BCN_JOB_UNKNOWN;
	default: return -1;
	}
}

/* "; Key: value" header lines. */
static void header(struct swf *s, const char *p, const char *e)
{
	static const char *const keys[] = { "UnixStartTime:", "MaxNodes:",
					    "MaxProcs:" };
	int64_t *dst[] = { &s->origin, &s->max_nodes, &s->max_procs };

	p = bcn_text_skip_space(p + 1, e);
	for (size_t k = 0; k < 3; k++) {
		size_t n = strlen(keys[k]);
		const char *q;
		uint64_t v;

		if ((size_t)(e - p) <= n || memcmp(p, keys[k], n))
			continue;
		q = bcn_text_skip_space(p + n, e);
		if (!bcn_text_u64(&q, e, &v) && v <= INT64_MAX / 2)
			*dst[k] = (int64_t)v;
	}
}

static int add_s(int64_t base_ns, int64_t s, int64_t *out)
{
	if (s > INT64_MAX / BCN_NS_PER_SEC ||
	    __builtin_add_overflow(base_ns, s * BCN_NS_PER_SEC, out))
		return -BCN_ERANGE;
	return 0;
}

static int times(struct swf *s, const int64_t *v, struct bcn_job *j)
{
	if (v[1] < 0)
		return 0;
	if (add_s(0, s->origin, &j->submit) ||
	    add_s(j->submit, v[1], &j->submit))
		goto range;
	if (v[2] < 0)
		return 0;
	if (add_s(j->submit, v[2], &j->start))
		goto range;
	if (v[3] >= 0 && add_s(j->start, v[3], &j->end))
		goto range;
	return 0;
range:
	return bcn_jobparse_fail(&s->row, "time out of range");
}

static int row_job(struct swf *s, const char *line, size_t len,
		   struct bcn_job *j)
{
	struct bcn_jobparse_row *r = &s->row;
	int64_t v[SWF_FIELDS];
	int rc = bcn_jobparse_split_ws(r, line, len);

	if (rc)
		return rc;
	if (r->n != SWF_FIELDS)
		return bcn_jobparse_fail(r, "%zu fields, SWF has %d", r->n,
					 SWF_FIELDS);
	for (int i = 0; i < SWF_FIELDS; i++) {
		rc = num(r, i, &v[i]);
		if (rc)
			return rc;
	}
	bcn_job_init(j);
	if (v[0] <= 0)
		return bcn_jobparse_fail(r, "bad job number");
	j->id = (uint64_t)v[0];
	j->state = status_state(v[10]);
	if (j->state < 0)
		return bcn_jobparse_fail(r, "unknown status %lld",
					 (long long)v[10]);
	j->uid = v[11];
	j->ntasks = v[4] > 0 ? (uint64_t)v[4] : 0;
	j->ncpus = j->ntasks;
	if (s->max_nodes > 0 && s->max_nodes == s->max_procs)
		j->nnodes = j->ntasks;
	if (v[13] >= 0) {
		snprintf(s->name, sizeof(s->name), "app%lld", (long long)v[13]);
		j->name = s->name;
	}
	if (v[15] >= 0) {
		snprintf(s->partition, sizeof(s->partition), "%lld",
			 (long long)v[15]);
		j->partition = s->partition;
	}
	rc = times(s, v, j);
	return rc ? rc : bcn_jobparse_check(r, j);
}

int bcn_swf_parse(const char *buf, size_t len,
		  const struct bcn_jobparse_opts *o, bcn_job_fn *fn,
		  bcn_jobparse_err_fn *err, void *arg,
		  struct bcn_jobparse_stats *st)
{
	const char *pos = buf, *end = buf + len;
	struct bcn_jobparse_stats local;
	struct bcn_text_line l;
	struct swf *s;
	int rc = 0;

	(void)o;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	rc = bcn_jobparse_row_init(&s->row);
	while (!rc && bcn_text_next_line(&pos, end, &l)) {
		const char *p = bcn_text_skip_space(l.p, l.end);
		struct bcn_job j;

		st->lines++;
		if (p == l.end)
			continue;
		if (*p == ';') {
			header(s, p, l.end);
			continue;
		}
		if (row_job(s, p, (size_t)(l.end - p), &j)) {
			st->rejected++;
			if (err)
				err(arg, st->lines, s->row.reason);
			continue;
		}
		st->rows++;
		rc = fn(arg, &j);
	}
	bcn_jobparse_row_free(&s->row);
	free(s);
	return rc;
}
