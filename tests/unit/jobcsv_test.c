/* Unit tests of jobs/jobcsv: quoting, column order, bad rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/error.h"
#include "jobs/jobcsv.h"
#include "jobparse_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)

static void test_good_and_bad(void **state)
{
	static const char text[] =
		"job,user,name,nodelist,start,end,state,exit_code,ntasks\r\n"
		"7,alice,\"my, \"\"quoted\"\"\nname\",cn[1-4],1700000000,"
		"2023-11-14T23:13:20Z,COMPLETED,0,64\r\n"
		"8,bob,x,cn[4-1],1700000000,1700000100,COMPLETED,0,1\n"
		"9,bob,x,cn1,1700000100,1700000000,COMPLETED,0,1\n"
		"10,bob,x,cn1,1700000000,1700000100,DONE,0,1\n"
		"11,bob,x,cn1,1700000000\n"
		"12,bob,\"open quote,cn1,1,2,COMPLETED,0,1\n";
	static const struct { uint64_t line; const char *reason; } bad[] = {
		{ 4, "bad hostlist" }, { 5, "end before start" },
		{ 6, "unknown state" }, { 7, "5 columns" },
		{ 8, "unterminated quote" },
	};
	struct bcn_jobparse_stats st;
	struct jp_got *g = jp_new();

	(void)state;
	assert_int_equal(bcn_jobcsv_parse(text, sizeof(text) - 1, NULL, jp_job,
					  jp_err, g, &st), 0);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->jobs[0].j.id, 7);
	assert_string_equal(g->jobs[0].name, "my, \"quoted\"\nname");
	assert_string_equal(g->jobs[0].nodelist, "cn[1-4]");
	assert_int_equal(g->jobs[0].j.nnodes, 4);
	assert_int_equal(g->jobs[0].j.ntasks, 64);
	assert_int_equal(g->jobs[0].j.start, S(1700000000));
	assert_int_equal(g->jobs[0].j.end, S(1700003600));
	assert_int_equal(g->jobs[0].j.uid, -1);
	assert_int_equal(g->nbad, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(g->bad_line[i], bad[i].line);
		assert_non_null(strstr(g->bad_reason[i], bad[i].reason));
	}
	assert_int_equal(st.rejected, 5);
	free(g);
}

static void test_headers(void **state)
{
	static const char *const bad[] = {
		"user,name\n1,2\n", "job,colour\n1,red\n", "job,job\n1,1\n",
	};
	static const char last[] = "name,job\nlast,5";  /* no final newline */
	struct jp_got *g = jp_new();

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		memset(g, 0, sizeof(*g));
		assert_int_equal(bcn_jobcsv_parse(bad[i], strlen(bad[i]), NULL,
						  jp_job, jp_err, g, NULL),
				 -BCN_ESYNTAX);
		assert_int_equal(g->n, 0);
		assert_int_equal(g->nbad, 1);
	}
	memset(g, 0, sizeof(*g));
	assert_int_equal(bcn_jobcsv_parse(last, strlen(last), NULL, jp_job,
					  jp_err, g, NULL), 0);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->jobs[0].j.id, 5);
	assert_string_equal(g->jobs[0].name, "last");
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_and_bad),
		cmocka_unit_test(test_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
