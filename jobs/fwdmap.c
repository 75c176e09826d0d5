/* The compute-to-forwarding map file into entries (jobs/fwdmap.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/text.h"
#include "jobs/fwdmap.h"

static int entry(struct bcn_jobparse_row *r, const char *p, size_t len,
		 struct bcn_fwdmap_entry *e)
{
	int rc = bcn_jobparse_split_ws(r, p, len);

	if (rc)
		return rc;
	if (r->n < 2 || r->n > 4)
		return bcn_jobparse_fail(r, "%zu fields, want 2 to 4", r->n);
	rc = bcn_jobparse_str(r, r->f[0], BCN_JOB_NODELIST_MAX, "hostlist",
			      &e->compute);
	if (!rc)
		rc = bcn_jobparse_hostlist(r, e->compute, NULL);
	if (!rc)
		rc = bcn_jobparse_str(r, r->f[1], BCN_FWDMAP_NAME_MAX,
				      "forwarding node", &e->fwd);
	e->from = 0;
	e->to = 0;
	if (!rc && r->n > 2)
		rc = bcn_jobparse_time(r, r->f[2], 0, "from", &e->from);
	if (!rc && r->n > 3)
		rc = bcn_jobparse_time(r, r->f[3], 0, "to", &e->to);
	if (rc)
		return rc;
	if (!e->to)
		e->to = INT64_MAX;
	if (e->to <= e->from)
		return bcn_jobparse_fail(r, "\"to\" is not after \"from\"");
	return 0;
}

int bcn_fwdmap_parse(const char *buf, size_t len, bcn_fwdmap_fn *fn,
		     bcn_jobparse_err_fn *err, void *arg,
		     struct bcn_jobparse_stats *st)
{
	const char *pos = buf, *end = buf + len;
	struct bcn_jobparse_stats local;
	struct bcn_jobparse_row row;
	struct bcn_text_line l;
	int rc;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	rc = bcn_jobparse_row_init(&row);
	while (!rc && bcn_text_next_line(&pos, end, &l)) {
		const char *p = bcn_text_skip_space(l.p, l.end);
		struct bcn_fwdmap_entry e;

		st->lines++;
		if (p == l.end || *p == '#')
			continue;
		if ((size_t)(l.end - p) > BCN_JOBPARSE_LINE_MAX) {
			bcn_jobparse_fail(&row, "line too long");
		} else if (!entry(&row, p, (size_t)(l.end - p), &e)) {
			st->rows++;
			rc = fn(arg, &e);
			continue;
		}
		st->rejected++;
		if (err)
			err(arg, st->lines, row.reason);
	}
	bcn_jobparse_row_free(&row);
	return rc;
}
