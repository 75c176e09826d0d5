/* libFuzzer target for the Slurm job parsers (collectors/client/procjob):
 * the input is read as a cgroup file and as an environment block, and the
 * two results are merged; every field must stay in its documented range,
 * the malformed line count below the number of lines, and the merge must
 * follow its rules. A broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/client/procjob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool special(uint64_t step)
{
	return step == BCN_PROCJOB_STEP_BATCH ||
	       step == BCN_PROCJOB_STEP_EXTERN ||
	       step == BCN_PROCJOB_STEP_INTERACTIVE;
}

static void check(const struct bcn_procjob *j)
{
	if ((j->has_job && (j->job == 0 || j->job > BCN_PROCJOB_ID_MAX)) ||
	    (!j->has_job && j->job) ||
	    (j->has_step && j->step > BCN_PROCJOB_ID_MAX && !special(j->step)) ||
	    (j->has_rank && (j->rank < 0 || j->rank > BCN_PROCJOB_RANK_MAX)) ||
	    (!j->has_rank && j->rank))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct bcn_procjob cg, env, m;
	uint64_t lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += p[i] == '\n';
	bcn_procjob_cgroup(p, size, &cg);
	check(&cg);
	if (cg.has_rank || cg.bad_lines > lines || (cg.has_step && !cg.has_job))
		abort();
	bcn_procjob_environ(p, size, &env);
	check(&env);
	if (env.bad_lines)
		abort();
	bcn_procjob_merge(&cg, &env, &m);
	if (m.has_job != (cg.has_job || env.has_job) ||
	    (cg.has_job && (m.job != cg.job || m.has_step != cg.has_step)) ||
	    (!cg.has_job && env.has_job && m.job != env.job) ||
	    (m.has_job && !m.has_step && m.step != BCN_PROCJOB_STEP_NONE) ||
	    (m.has_rank && m.rank != env.rank) || (m.has_rank && !env.has_rank))
		abort();
	return 0;
}
