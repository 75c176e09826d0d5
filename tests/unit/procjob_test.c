/* Tests of collectors/client/procjob: Slurm job and step from cgroup
 * texts (v1 and v2 layouts, special steps, paths that are not Slurm's,
 * malformed lines), job, step and rank from environment blocks (real
 * kernel output in tests/data/proc, precedence, bad values), and how the
 * two are combined. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/client/procjob.h"
#include "common/buf.h"

#define PROC BCN_TEST_DATA "/proc/"
#define NO UINT64_MAX                   /* absent */

struct cg_case {
	const char *in;
	uint64_t job, step, bad;
};

static const struct cg_case cgs[] = {
	{ "4:memory:/slurm/uid_1000/job_1234/step_0/task_2\n", 1234, 0, 0 },
	{ "0::/system.slice/slurmstepd.scope/job_1234/step_0/user/task_0\n",
	  1234, 0, 0 },
	{ "0::/system.slice/slurmstepd.scope/job_77/step_batch/user/task_0",
	  77, BCN_PROCJOB_STEP_BATCH, 0 },
	{ "0::/system.slice/slurmstepd.scope/job_77/step_extern/slurm\n", 77,
	  BCN_PROCJOB_STEP_EXTERN, 0 },
	{ "0::/system.slice/slurmstepd.scope/job_77/step_interactive/user\n",
	  77, BCN_PROCJOB_STEP_INTERACTIVE, 0 },
	{ "7:freezer:/slurm_node012/uid_0/job_4294967295/step_4294967295\n",
	  4294967295ULL, 4294967295ULL, 0 },
	/* a job without a step directory (slurmstepd itself) */
	{ "0::/system.slice/slurmstepd.scope/job_9\n", 9, NO, 0 },
	{ "0::/system.slice/slurmstepd.scope/job_9/slurm\n", 9, NO, 0 },
	/* v1: the first line with a step wins over one without */
	{ "11:cpuset:/slurm/uid_5/job_9\n"
	  "10:memory:/slurm/uid_5/job_9/step_3/task_0\n"
	  "9:devices:/slurm/uid_5/job_10/step_4\n", 9, 3, 0 },
	{ "12:pids:/user.slice\n"
	  "4:memory:/slurm/uid_1000/job_1234/step_0/task_2\n"
	  "1:name=systemd:/system.slice/slurmd.service\n", 1234, 0, 0 },
	/* not Slurm's */
	{ "0::/user.slice/user-1000.slice/session-3.scope\n", NO, NO, 0 },
	{ "0::/job_1234/step_0\n", NO, NO, 0 },
	{ "0::/docker/job_1234/step_0\n", NO, NO, 0 },
	{ "0::/slurm/job_0/step_0\n", NO, NO, 0 },
	{ "0::/slurm/job_4294967296/step_0\n", NO, NO, 0 },
	{ "0::/slurm/job_12a/step_0\n", NO, NO, 0 },
	{ "0::/slurm/job_/step_0\n", NO, NO, 0 },
	{ "0::/slurm/job_5/step_x\n", 5, NO, 0 },
	{ "0::/slurm/job_5/step_\n", 5, NO, 0 },
	{ "0::/slurm/uid_1/job_5/x/step_1\n", 5, NO, 0 },
	{ "0::/\n", NO, NO, 0 },
	{ "", NO, NO, 0 },
	/* malformed lines are counted and skipped */
	{ "garbage\n0::/slurm/job_5/step_1\n", 5, 1, 1 },
	{ "1:cpu\n:x:/slurm/job_5\n2:cpu:\n3:cpu:rel/slurm/job_6\n", NO, NO,
	  4 },
	{ "\n\n0::/slurm/job_5/step_1", 5, 1, 0 },
};

static void check(const struct bcn_procjob *j, uint64_t job, uint64_t step)
{
	assert_int_equal(j->has_job, job != NO);
	if (job != NO)
		assert_int_equal(j->job, job);
	assert_int_equal(j->has_step, step != NO);
	if (step != NO)
		assert_int_equal(j->step, step);
}

static void test_cgroup_cases(void **state)
{
	struct bcn_procjob j;

	(void)state;
	for (size_t i = 0; i < sizeof(cgs) / sizeof(cgs[0]); i++) {
		bcn_procjob_cgroup(cgs[i].in, strlen(cgs[i].in), &j);
		if (j.has_job != (cgs[i].job != NO) ||
		    j.bad_lines != cgs[i].bad)
			fail_msg("case %zu \"%s\": has_job %d, %llu bad", i,
				 cgs[i].in, j.has_job,
				 (unsigned long long)j.bad_lines);
		check(&j, cgs[i].job, cgs[i].step);
		assert_false(j.has_rank);
	}
}

/* This machine's real cgroup file: a hybrid v1/v2 layout, no Slurm. */
static void test_cgroup_real(void **state)
{
	struct bcn_procjob j;
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, 65536);
	assert_int_equal(bcn_buf_read_file(&b, PROC "self_cgroup"), 0);
	bcn_procjob_cgroup((const char *)b.data, b.len, &j);
	assert_false(j.has_job);
	assert_int_equal(j.bad_lines, 0);
	bcn_buf_free(&b);
}

struct env_case {
	const char *in;
	size_t len;
	uint64_t job, step;
	int64_t rank;                   /* -1: absent */
};

#define ENV(s) s, sizeof(s) - 1

static const struct env_case envs[] = {
	{ ENV("SLURM_JOB_ID=1234\0SLURM_STEP_ID=0\0SLURM_PROCID=3\0"), 1234, 0,
	  3 },
	{ ENV("SLURM_JOBID=55\0SLURM_STEPID=2\0"), 55, 2, -1 },
	{ ENV("SLURM_JOBID=55\0SLURM_JOB_ID=56\0"), 56, NO, -1 },
	{ ENV("SLURM_JOB_ID=56\0SLURM_JOBID=55\0"), 56, NO, -1 },
	/* rank: Open MPI, then PMI, then PMIx, then Slurm's task id */
	{ ENV("SLURM_PROCID=0\0PMI_RANK=7\0OMPI_COMM_WORLD_RANK=9\0"), NO, NO,
	  9 },
	{ ENV("SLURM_PROCID=0\0PMI_RANK=7\0"), NO, NO, 7 },
	{ ENV("PMIX_RANK=4\0SLURM_PROCID=0\0"), NO, NO, 4 },
	{ ENV("SLURM_PROCID=2147483647\0"), NO, NO, 2147483647 },
	/* bad values are ignored, a worse good one is kept */
	{ ENV("SLURM_JOB_ID=12x\0SLURM_JOBID=5\0"), 5, NO, -1 },
	{ ENV("SLURM_JOB_ID=0\0"), NO, NO, -1 },
	{ ENV("SLURM_JOB_ID=\0SLURM_STEP_ID=-1\0"), NO, NO, -1 },
	{ ENV("SLURM_JOB_ID=4294967296\0"), NO, NO, -1 },
	{ ENV("OMPI_COMM_WORLD_RANK=2147483648\0PMI_RANK=1\0"), NO, NO, 1 },
	{ ENV("SLURM_JOB_ID=+5\0SLURM_JOB_ID =6\0"), NO, NO, -1 },
	{ ENV("XSLURM_JOB_ID=5\0SLURM_JOB_ID_X=6\0"), NO, NO, -1 },
	/* a cut block, empty entries, an empty block */
	{ ENV("PATH=/bin\0SLURM_JOB_ID=8"), 8, NO, -1 },
	{ ENV("\0\0SLURM_JOB_ID=8\0\0"), 8, NO, -1 },
	{ ENV(""), NO, NO, -1 },
};

static void test_environ_cases(void **state)
{
	struct bcn_procjob j;

	(void)state;
	for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
		bcn_procjob_environ(envs[i].in, envs[i].len, &j);
		if (j.has_rank != (envs[i].rank >= 0))
			fail_msg("case %zu: has_rank %d", i, j.has_rank);
		check(&j, envs[i].job, envs[i].step);
		if (envs[i].rank >= 0)
			assert_int_equal(j.rank, envs[i].rank);
	}
}

/* Real kernel output of /proc/self/environ (a process started with a
 * known environment). */
static void test_environ_real(void **state)
{
	struct bcn_procjob j;
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, 65536);
	assert_int_equal(bcn_buf_read_file(&b, PROC "environ_slurm"), 0);
	bcn_procjob_environ((const char *)b.data, b.len, &j);
	check(&j, 1234, 0);
	assert_true(j.has_rank);
	assert_int_equal(j.rank, 3);
	bcn_buf_free(&b);
}

static void test_merge(void **state)
{
	static const struct {
		struct bcn_procjob cg, env;
		uint64_t job, step;
		int64_t rank;
	} m[] = {
		/* the cgroup wins for job and step */
		{ { .has_job = true, .job = 5, .has_step = true, .step = 1 },
		  { .has_job = true, .job = 5, .has_step = true, .step = 9,
		    .has_rank = true, .rank = 2 }, 5, 1, 2 },
		/* the rank of another job's environment is stale */
		{ { .has_job = true, .job = 5, .has_step = true, .step = 1 },
		  { .has_job = true, .job = 4, .has_rank = true, .rank = 2 },
		  5, 1, -1 },
		/* environment without a job: its rank is used */
		{ { .has_job = true, .job = 5 },
		  { .has_rank = true, .rank = 6 }, 5,
		  BCN_PROCJOB_STEP_NONE, 6 },
		/* no cgroup job: the environment's */
		{ { .has_job = false },
		  { .has_job = true, .job = 8, .has_step = true, .step = 0,
		    .has_rank = true, .rank = 1 }, 8, 0, 1 },
		{ { .has_job = false }, { .has_job = true, .job = 8 }, 8,
		  BCN_PROCJOB_STEP_NONE, -1 },
		{ { .has_job = false }, { .has_rank = true, .rank = 3 }, 0, 0,
		  3 },
		{ { .has_job = false }, { .has_job = false }, 0, 0, -1 },
	};
	struct bcn_procjob out;

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		bcn_procjob_merge(&m[i].cg, &m[i].env, &out);
		assert_int_equal(out.has_job, m[i].job != 0);
		assert_int_equal(out.job, m[i].job);
		assert_int_equal(out.step, m[i].step);
		assert_int_equal(out.has_rank, m[i].rank >= 0);
		if (m[i].rank >= 0)
			assert_int_equal(out.rank, m[i].rank);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_cases),
		cmocka_unit_test(test_cgroup_real),
		cmocka_unit_test(test_environ_cases),
		cmocka_unit_test(test_environ_real),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
