/* libFuzzer target for the job-record parsers (jobs/sacct, swf, jobcsv,
 * fwdmap). The first byte picks the parser (and, for sacct, whether the
 * columns come from a header, a column list or a multi-byte delimiter);
 * the rest is the input. Every delivered job must satisfy what the
 * parsers promise (an id, end not before start, strings within their
 * caps, a known state), every rejected row must come with a reason, and
 * no more rows than lines may come out. A broken promise aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/fwdmap.h"
#include "jobs/jobcsv.h"
#include "jobs/sacct.h"
#include "jobs/swf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_job(void *arg, const struct bcn_job *j)
{
	(void)arg;
	if (!j->id || (j->start && j->end && j->end < j->start))
		abort();
	if (j->state < 0 || j->state >= BCN_JOB_STATE_MAX)
		abort();
	if (strlen(j->user) > BCN_JOB_STR_MAX || strlen(j->name) > BCN_JOB_STR_MAX ||
	    strlen(j->step) > BCN_JOB_STR_MAX ||
	    strlen(j->nodelist) > BCN_JOB_NODELIST_MAX)
		abort();
	return 0;
}

static int on_map(void *arg, const struct bcn_fwdmap_entry *e)
{
	(void)arg;
	if (!e->fwd[0] || e->to <= e->from)
		abort();
	return 0;
}

static void on_err(void *arg, uint64_t line, const char *reason)
{
	(void)arg;
	if (!line || !reason[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_jobparse_opts o = { 0 };
	struct bcn_jobparse_stats st;
	const char *buf = (const char *)data + 1;
	size_t len;
	int rc;

	if (size < 1)
		return 0;
	len = size - 1;
	switch (data[0] % 6) {
	case 0:
		rc = bcn_sacct_parse(buf, len, NULL, on_job, on_err, NULL, &st);
		break;
	case 1:
		o.columns = "JobID,JobIDRaw,User,UID,NodeList,NNodes,Start,End,"
			    "State,ExitCode,Submit,NTasks";
		rc = bcn_sacct_parse(buf, len, &o, on_job, on_err, NULL, &st);
		break;
	case 2:
		o.columns = "JobID,JobName,NodeList,State,Start,End";
		o.delim = "\xe2\x98\x83";
		o.utc_offset_s = 3600;
		rc = bcn_sacct_parse(buf, len, &o, on_job, on_err, NULL, &st);
		break;
	case 3:
		rc = bcn_swf_parse(buf, len, NULL, on_job, on_err, NULL, &st);
		break;
	case 4:
		rc = bcn_jobcsv_parse(buf, len, NULL, on_job, on_err, NULL, &st);
		break;
	default:
		rc = bcn_fwdmap_parse(buf, len, on_map, on_err, NULL, &st);
		break;
	}
	if (rc > 0 || st.rows + st.rejected > st.lines)
		abort();
	return 0;
}
