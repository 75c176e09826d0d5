/* Job records as CSV, for schedulers other than Slurm (docs/jobdb.md,
 * "Job record formats"): RFC 4180 (comma separated, '"' quoting with ""
 * for a quote, quoted fields may span lines), a header row naming the
 * columns. */
#ifndef BCN_JOBCSV_H
#define BCN_JOBCSV_H

#include "jobs/jobparse.h"

/* Parses buf[0..len). Columns (any order; "job" required, others
 * optional, unknown names are an error so that typos do not pass):
 * job, step, array_job, array_task, user, uid, account, partition, name,
 * nodelist, nnodes, ntasks, ncpus, submit, start, end, state, exit_code.
 * Times are epoch seconds or ISO 8601 (UTC when no zone is given). Calls
 * fn per row, err per rejected row; returns 0, fn's value, -ENOMEM or
 * -BCN_ESYNTAX for an unusable header (then err gets its reason). */
int bcn_jobcsv_parse(const char *buf, size_t len,
		     const struct bcn_jobparse_opts *o, bcn_job_fn *fn,
		     bcn_jobparse_err_fn *err, void *arg,
		     struct bcn_jobparse_stats *st);

#endif
