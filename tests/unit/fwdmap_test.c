/* Unit tests of jobs/fwdmap: entries, open times, bad lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobs/fwdmap.h"
#include "jobparse_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)

struct got {
	char compute[4][64], fwd[4][32];
	int64_t from[4], to[4];
	size_t n;
	struct jp_got bad;
};

static int entry(void *arg, const struct bcn_fwdmap_entry *e)
{
	struct got *g = arg;

	if (g->n >= 4)
		return -1;
	snprintf(g->compute[g->n], 64, "%s", e->compute);
	snprintf(g->fwd[g->n], 32, "%s", e->fwd);
	g->from[g->n] = e->from;
	g->to[g->n] = e->to;
	g->n++;
	return 0;
}

static void bad(void *arg, uint64_t line, const char *reason)
{
	jp_err(&((struct got *)arg)->bad, line, reason);
}

static void test_entries(void **state)
{
	static const char text[] =
		"# compute  forwarding  from  to\n"
		"\n"
		"cn[0000-0255] fwd001\n"
		"  cn[0256-0511]\tfwd002 1700000000 2023-11-15T00:00:00Z\n"
		"cn[0256-0511] fwd003 2023-11-15T00:00:00Z -\n"
		"cn[9-1] fwd004\n"
		"cn1 fwd005 200 100\n"
		"cn1\n"
		"cn1 fwd006 yesterday\n"
		"cn1 fwd007 1 2 3\n";
	static const struct { uint64_t line; const char *reason; } want[] = {
		{ 6, "bad hostlist" }, { 7, "not after" }, { 8, "1 fields" },
		{ 9, "bad from time" }, { 10, "5 fields" },
	};
	struct got *g = calloc(1, sizeof(*g));
	struct bcn_jobparse_stats st;

	(void)state;
	assert_int_equal(bcn_fwdmap_parse(text, sizeof(text) - 1, entry, bad,
					  g, &st), 0);
	assert_int_equal(g->n, 3);
	assert_string_equal(g->compute[0], "cn[0000-0255]");
	assert_string_equal(g->fwd[0], "fwd001");
	assert_int_equal(g->from[0], 0);
	assert_int_equal(g->to[0], INT64_MAX);
	assert_int_equal(g->from[1], S(1700000000));
	assert_int_equal(g->to[1], S(1700006400));
	assert_int_equal(g->from[2], S(1700006400));
	assert_int_equal(g->to[2], INT64_MAX);
	assert_int_equal(g->bad.nbad, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(g->bad.bad_line[i], want[i].line);
		assert_non_null(strstr(g->bad.bad_reason[i], want[i].reason));
	}
	assert_int_equal(st.lines, 10);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
