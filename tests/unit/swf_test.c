/* Unit tests of jobs/swf: the real HPC2N excerpt (tests/data/swf) and
 * table-driven bad lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobs/swf.h"
#include "jobparse_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define ORIGIN 1027839845ll     /* the file's UnixStartTime */

static const struct jp_job *find(const struct jp_got *g, uint64_t id)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->jobs[i].j.id == id)
			return &g->jobs[i];
	return NULL;
}

static void test_hpc2n(void **state)
{
	struct bcn_jobparse_stats st;
	struct jp_got *g = jp_new();
	const struct jp_job *j;
	size_t len;
	char *buf = jp_read("swf/HPC2N-2002-2.2-cln_excerpt.swf", &len);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(bcn_swf_parse(buf, len, NULL, jp_job, jp_err, g, &st),
			 0);
	assert_int_equal(g->nbad, 0);
	assert_int_equal(g->n, 62);
	assert_int_equal(st.lines, 85);
	/* "4 179350 99808 143967 2 142977 -1 2 144000 -1 1 3 1 -1 -1 1 -1 -1" */
	j = find(g, 4);
	assert_non_null(j);
	assert_int_equal(j->j.submit, S(ORIGIN + 179350));
	assert_int_equal(j->j.start, S(ORIGIN + 179350 + 99808));
	assert_int_equal(j->j.end, S(ORIGIN + 179350 + 99808 + 143967));
	assert_int_equal(j->j.ntasks, 2);
	assert_int_equal(j->j.nnodes, 2);       /* MaxNodes == MaxProcs */
	assert_int_equal(j->j.uid, 3);
	assert_int_equal(j->j.state, BCN_JOB_COMPLETED);
	assert_string_equal(j->partition, "1");
	assert_string_equal(j->name, "");
	/* job 12 has a decimal CPU time (field 6) */
	j = find(g, 12);
	assert_non_null(j);
	assert_int_equal(j->j.ntasks, 40);
	/* job 16: run time and status unknown */
	j = find(g, 16);
	assert_non_null(j);
	assert_int_equal(j->j.state, BCN_JOB_UNKNOWN);
	assert_int_equal(j->j.end, 0);
	assert_null(find(g, 5));                /* numbers skip 4 -> 10 */
	free(buf);
	free(g);
}

static void test_bad_lines(void **state)
{
	static const char text[] =
		"; UnixStartTime: 1000\n"
		"1 10 5 100 4 -1 -1 4 200 -1 1 7 1 3 1 2 -1 -1\n"
		"2 10 5 100 4 -1 -1 4 200 -1 1 7 1 3 1 2 -1\n"
		"3 10 5 100 4 -1 -1 4 200 -1 9 7 1 3 1 2 -1 -1\n"
		"4 10 5 1x0 4 -1 -1 4 200 -1 1 7 1 3 1 2 -1 -1\n"
		"-1 10 5 100 4 -1 -1 4 200 -1 1 7 1 3 1 2 -1 -1\n"
		"6 10 5 100 4 -1 -1 4 200 -1 5 7 1 -1 1 -1 -1 -1\n";
	static const struct { uint64_t line; const char *reason; } bad[] = {
		{ 3, "17 fields" }, { 4, "unknown status 9" },
		{ 5, "field 4 is not a number" }, { 6, "bad job number" },
	};
	struct jp_got *g = jp_new();

	(void)state;
	assert_int_equal(bcn_swf_parse(text, sizeof(text) - 1, NULL, jp_job,
				       jp_err, g, NULL), 0);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->jobs[0].j.id, 1);
	assert_int_equal(g->jobs[0].j.submit, S(1010));
	assert_int_equal(g->jobs[0].j.end, S(1115));
	assert_string_equal(g->jobs[0].name, "app3");
	assert_int_equal(g->jobs[0].j.nnodes, 0);       /* no MaxNodes */
	assert_int_equal(g->jobs[1].j.state, BCN_JOB_CANCELLED);
	assert_int_equal(g->nbad, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(g->bad_line[i], bad[i].line);
		assert_non_null(strstr(g->bad_reason[i], bad[i].reason));
	}
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hpc2n),
		cmocka_unit_test(test_bad_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
