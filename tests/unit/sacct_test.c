/* Unit tests of jobs/sacct: golden tests over real sacct outputs
 * (tests/data/slurm, see PROVENANCE.md) and table-driven bad rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/error.h"
#include "jobs/sacct.h"
#include "jobparse_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)

static const char xdmod_cols[] =
	"jobid,jobidraw,cluster,partition,qos,account,group,gid,user,uid,"
	"submit,eligible,start,end,elapsed,exitcode,state,nnodes,ncpus,"
	"reqcpus,reqmem,reqtres,alloctres,timelimit,nodelist,jobname";

static struct jp_got *parse_file(const char *rel, const char *cols,
				 const char *delim,
				 struct bcn_jobparse_stats *st)
{
	struct bcn_jobparse_opts o = { .columns = cols, .delim = delim };
	struct jp_got *g = jp_new();
	size_t len;
	char *buf = jp_read(rel, &len);

	assert_non_null(g);
	assert_non_null(buf);
	assert_int_equal(bcn_sacct_parse(buf, len, &o, jp_job, jp_err, g, st),
			 0);
	free(buf);
	return g;
}

static void test_xdmod_accounting(void **state)
{
	struct bcn_jobparse_stats st;
	struct jp_got *g = parse_file("slurm/accounting-logs.log", xdmod_cols,
				      NULL, &st);
	const struct jp_job *a = &g->jobs[0], *c = &g->jobs[1], *z;

	(void)state;
	assert_int_equal(g->nbad, 0);
	assert_int_equal(st.rows, g->n);
	assert_true(g->n >= 4);
	assert_int_equal(a->j.id, 4103947);
	assert_int_equal(a->j.submit, S(1435327020));
	assert_int_equal(a->j.start, S(1435460150));
	assert_int_equal(a->j.end, S(1435719350));
	assert_int_equal(a->j.exit_code, 1);
	assert_int_equal(a->j.exit_signal, 0);
	assert_int_equal(a->j.state, BCN_JOB_TIMEOUT);
	assert_int_equal(a->j.nnodes, 32);
	assert_int_equal(a->j.ncpus, 256);
	assert_int_equal(a->j.uid, 192837);
	assert_string_equal(a->partition, "general-compute");
	assert_string_equal(a->name, "1AbC-2-3");
	assert_true(!strncmp(a->nodelist, "d07n07s02,d07n19s02,", 20));
	assert_int_equal(c->j.id, 4107166);
	assert_int_equal(c->j.state, BCN_JOB_CANCELLED);
	assert_string_equal(c->user, "hanx");
	assert_string_equal(c->nodelist, "k10n26s01,k13n36s01,k13n37s01");
	assert_int_equal(c->j.nnodes, 3);
	z = &g->jobs[3];
	assert_int_equal(z->j.id, 5692623);
	assert_string_equal(z->partition, "");
	assert_int_equal(z->j.start, S(1470035049));
	assert_int_equal(z->j.end, S(1470035049));
	assert_int_equal(z->j.nnodes, 0);
	free(g);
}

static void test_xdmod_arrays_states_utf8(void **state)
{
	struct jp_got *g;

	(void)state;
	g = parse_file("slurm/accounting-logs-with-job-arrays.log",
		       xdmod_cols, NULL, NULL);
	assert_int_equal(g->nbad, 0);
	assert_int_equal(g->jobs[0].j.array_job, 4103947);
	assert_int_equal(g->jobs[0].j.array_task, 100);
	assert_int_equal(g->jobs[1].j.array_job, 4103947);
	assert_int_equal(g->jobs[1].j.array_task, -1);  /* _[1-3] */
	free(g);

	g = parse_file("slurm/unknown-job-state.log", xdmod_cols, NULL, NULL);
	assert_int_equal(g->n, 0);
	assert_int_equal(g->nbad, 2);
	assert_int_equal(g->bad_line[0], 1);
	assert_int_equal(g->bad_line[1], 2);
	assert_string_equal(g->bad_reason[0], "unknown state \"FOO\"");
	free(g);

	g = parse_file("slurm/non-ended-job-state.log", xdmod_cols, NULL, NULL);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->jobs[0].j.state, BCN_JOB_RUNNING);
	assert_int_equal(g->jobs[1].j.state, BCN_JOB_PENDING);
	assert_int_equal(g->jobs[1].j.start, 0);
	free(g);

	g = parse_file("slurm/utf8-multibyte-chars.log", xdmod_cols, NULL,
		       NULL);
	assert_int_equal(g->n, 1);
	assert_string_equal(g->jobs[0].name, "a\xc3\xa0" "b");
	free(g);
}

static void test_slyme_steps(void **state)
{
	struct jp_got *g = parse_file(
		"slurm/sacct_single_parallel_COMPLETED_parsable.out",
		"User,JobID,JobName,State,Partition,NCPUS,NNodes,CPUTime,"
		"TotalCPU,UserCPU,SystemCPU,ReqMem,MaxRSS,Submit,Start,End,"
		"NodeList", NULL, NULL);

	(void)state;
	assert_int_equal(g->nbad, 0);
	assert_int_equal(g->n, 3);
	assert_int_equal(g->jobs[0].j.id, 77454);
	assert_string_equal(g->jobs[0].step, "");
	assert_string_equal(g->jobs[0].user, "jab");
	assert_string_equal(g->jobs[0].nodelist, "hero[4515-4516]");
	assert_int_equal(g->jobs[0].j.nnodes, 2);
	assert_int_equal(g->jobs[0].j.ncpus, 3);
	assert_int_equal(g->jobs[0].j.start, S(1403783488));
	assert_int_equal(g->jobs[0].j.end, S(1403783551));
	assert_int_equal(g->jobs[1].j.id, 77454);
	assert_string_equal(g->jobs[1].step, "batch");
	assert_string_equal(g->jobs[1].user, "");
	assert_string_equal(g->jobs[2].step, "0");
	assert_string_equal(g->jobs[2].nodelist, "hero4516");
	free(g);
}

static void test_snowman_delimiter(void **state)
{
	struct bcn_jobparse_stats st;
	struct jp_got *g = parse_file(
		"slurm/sacct_snowman_delim_excerpt.txt",
		"JobID,JobName,User,Partition,NodeList,NNodes,NCPUs,NTasks,"
		"State,Submit,Start,End,Timelimit,Elapsed,TotalCPU,CPUTime,"
		"UserCPU,SystemCPU,ReqMem,MaxRSS,MaxVMSize,ReqTRES,AllocTRES,"
		"TRESUsageInMax,TRESUsageInTot,TRESUsageOutTot,MaxDiskRead,"
		"MaxDiskWrite,MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MaxVMSizeTask,"
		"MaxDiskReadNode,MaxDiskReadTask,MaxDiskWriteNode,"
		"MaxDiskWriteTask,Comment", "\xe2\x98\x83", &st);
	int seen = 0;

	(void)state;
	assert_int_equal(g->nbad, 0);
	assert_int_equal(st.rows + st.rejected, 45);
	for (size_t i = 0; i < g->n; i++) {
		const struct jp_job *x = &g->jobs[i];

		if (x->j.id == 4047445) {
			assert_int_equal(x->j.state, BCN_JOB_CANCELLED);
			assert_int_equal(x->j.start, 0);
			assert_string_equal(x->nodelist, "");
			assert_int_equal(x->j.submit, S(1693580090));
			seen |= 1;
		}
		if (x->j.id == 7818766 && !x->step[0]) {
			assert_string_equal(x->nodelist, "omni[2-3]");
			assert_int_equal(x->j.nnodes, 2);
			assert_int_equal(x->j.ncpus, 128);
			seen |= 2;
		}
		if (x->j.id == 7818766 && !strcmp(x->step, "0")) {
			assert_int_equal(x->j.ntasks, 128);
			seen |= 4;
		}
		if (x->j.array_job == 5908801) {
			assert_int_equal(x->j.array_task, 3);
			seen |= 8;
		}
	}
	assert_int_equal(seen, 15);
	free(g);
}

/* The header form beacon-sim writes, and rows that must be rejected
 * while the rows after them still arrive. */
static void test_header_and_bad_rows(void **state)
{
	static const char text[] =
		"JobID|JobName|User|Partition|NNodes|NCPUS|NodeList|Submit|"
		"Start|End|Elapsed|State|ExitCode\n"
		"11|a|u1|p|2|8|cn[01-02]|2026-01-01T00:00:00|"
		"2026-01-01T00:01:00|2026-01-01T01:00:00|00:59:00|COMPLETED|0:0\n"
		"12|b|u1|p|2|8|cn[05-03]|2026-01-01T00:00:00|"
		"2026-01-01T00:01:00|2026-01-01T01:00:00|00:59:00|COMPLETED|0:0\n"
		"13|c|u1|p|1|8|cn01|2026-01-01T00:00:00|2026-01-01T02:00:00|"
		"2026-01-01T01:00:00|00:59:00|COMPLETED|0:0\n"
		"14|d|u1|p|1|8|cn01|2026-01-01T00:00:00|2026-01-01T00:01:00|"
		"2026-01-01T01:00:00|00:59:00|WEIRD|0:0\n"
		"15|e|u1|p|1|8|cn01\n"
		"16|f|u1|p|1|8|cn01|2026-13-01T00:00:00|2026-01-01T00:01:00|"
		"2026-01-01T01:00:00|00:59:00|COMPLETED|0:0\n"
		"x17|g|u1|p|1|8|cn01|||||COMPLETED|0:0\n"
		"18|h|u1|p|1|8|cn01|2026-01-01T00:00:00|2026-01-01T00:01:00|"
		"Unknown|00:59:00|RUNNING|0:0\n";
	static const struct { uint64_t line; const char *reason; } bad[] = {
		{ 3, "bad hostlist" }, { 4, "end before start" },
		{ 5, "unknown state" }, { 6, "7 columns, the header has 13" },
		{ 7, "bad Submit time" }, { 8, "bad JobID" },
	};
	struct jp_got *g = jp_new();

	(void)state;
	assert_int_equal(bcn_sacct_parse(text, sizeof(text) - 1, NULL, jp_job,
					 jp_err, g, NULL), 0);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->jobs[0].j.id, 11);
	assert_int_equal(g->jobs[0].j.nnodes, 2);
	assert_int_equal(g->jobs[0].j.start, S(1767225660));
	assert_int_equal(g->jobs[1].j.id, 18);
	assert_int_equal(g->jobs[1].j.end, 0);
	assert_int_equal(g->nbad, sizeof(bad) / sizeof(bad[0]));
	for (size_t i = 0; i < g->nbad; i++) {
		assert_int_equal(g->bad_line[i], bad[i].line);
		assert_non_null(strstr(g->bad_reason[i], bad[i].reason));
	}
	free(g);
}

static void test_jobid_forms(void **state)
{
	static const struct {
		const char *in;
		uint64_t raw, id, array_job;
		int64_t task;
		const char *step;
	} cases[] = {
		{ "123", 0, 123, 0, -1, "" },
		{ "123.batch", 0, 123, 0, -1, "batch" },
		{ "123_4", 0, 123, 123, 4, "" },
		{ "123_4.0", 130, 130, 123, 4, "0" },
		{ "123_[1-3,7]", 0, 123, 123, -1, "" },
		{ "123+1", 0, 123, 0, -1, "+1" },
		{ "123+1.extern", 0, 123, 0, -1, "+1.extern" },
	};
	static const char *const bad[] = { "", "abc", "0", "12.", "12_",
					   "12_[1-3", "12x", "12+" };
	char step[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bcn_job j;

		bcn_job_init(&j);
		assert_int_equal(bcn_sacct_jobid(cases[i].in,
						 strlen(cases[i].in),
						 cases[i].raw, &j, step,
						 sizeof(step)), 0);
		assert_int_equal(j.id, cases[i].id);
		assert_int_equal(j.array_job, cases[i].array_job);
		assert_int_equal(j.array_task, cases[i].task);
		assert_string_equal(j.step, cases[i].step);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bcn_job j;

		bcn_job_init(&j);
		assert_true(bcn_sacct_jobid(bad[i], strlen(bad[i]), 0, &j, step,
					    sizeof(step)) < 0);
	}
}

static void test_unusable_header(void **state)
{
	static const char text[] = "User|Partition\nu|p\n";
	struct jp_got *g = jp_new();

	(void)state;
	assert_int_equal(bcn_sacct_parse(text, sizeof(text) - 1, NULL, jp_job,
					 jp_err, g, NULL), -BCN_ESYNTAX);
	assert_int_equal(g->n, 0);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdmod_accounting),
		cmocka_unit_test(test_xdmod_arrays_states_utf8),
		cmocka_unit_test(test_slyme_steps),
		cmocka_unit_test(test_snowman_delimiter),
		cmocka_unit_test(test_header_and_bad_rows),
		cmocka_unit_test(test_jobid_forms),
		cmocka_unit_test(test_unusable_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
