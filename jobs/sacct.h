/* Slurm accounting records as `sacct --parsable2` (or --parsable, or with
 * --delimiter) prints them: one job, array task, heterogeneous component
 * or step per line (docs/jobdb.md, "Job record formats"). */
#ifndef BCN_SACCT_H
#define BCN_SACCT_H

#include "jobs/jobparse.h"

/* Parses buf[0..len): the header line names the columns unless
 * o->columns does. Known columns (any case, any order, others ignored):
 * JobIDRaw, JobID, User, UID, Account, Partition, JobName, NodeList,
 * NNodes, NTasks, NCPUS, AllocCPUS, Submit, Start, End, State, ExitCode;
 * JobID or JobIDRaw is required. Calls fn per row, err per rejected row
 * (err may be NULL). st (may be NULL) gets the counts. Returns 0, fn's
 * non-zero value, -ENOMEM, or -BCN_ESYNTAX when the header itself is
 * unusable (then nothing is delivered). */
int bcn_sacct_parse(const char *buf, size_t len,
		    const struct bcn_jobparse_opts *o, bcn_job_fn *fn,
		    bcn_jobparse_err_fn *err, void *arg,
		    struct bcn_jobparse_stats *st);

/* Parses a JobID as sacct prints it ("123", "123_4", "123_[1-3]",
 * "123+1", "123.batch", "123_4.0") into the job's id, array_job,
 * array_task and step (the step text and a het "+N" suffix are written
 * to step, at most stepmax bytes with the NUL). raw (may be 0) is the
 * JobIDRaw number, which wins for the id. Returns 0 or -BCN_ESYNTAX. */
int bcn_sacct_jobid(const char *s, size_t len, uint64_t raw,
		    struct bcn_job *j, char *step, size_t stepmax);

#endif
