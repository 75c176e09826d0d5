/* Standard Workload Format (SWF 2.2, the Parallel Workloads Archive's
 * format) job logs, so that public workload traces can be replayed
 * (docs/jobdb.md, "Job record formats"). */
#ifndef BCN_SWF_H
#define BCN_SWF_H

#include "jobs/jobparse.h"

/* Parses buf[0..len): ';' header comments ("; UnixStartTime: N" sets the
 * origin of the relative times, "; MaxNodes:" and "; MaxProcs:" tell
 * whether processors are nodes), then one job per line of 18 blank-
 * separated fields. Calls fn per job, err per rejected line. Returns 0,
 * fn's non-zero value or -ENOMEM. */
int bcn_swf_parse(const char *buf, size_t len,
		  const struct bcn_jobparse_opts *o, bcn_job_fn *fn,
		  bcn_jobparse_err_fn *err, void *arg,
		  struct bcn_jobparse_stats *st);

#endif
