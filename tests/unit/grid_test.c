/* Tests of analysis/anomaly/grid: table-driven runs of flagged buckets
 * (idle gaps tolerated up to a limit, normal buckets ending a run, the
 * minimum span and flagged count, the output bound), and the grid's
 * cells (time outside the window, entity bound, rows kept per entity). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/anomaly/grid.h"
#include "common/error.h"

struct run_case {
	const char *states;             /* '.' idle, 'n' normal, 'F' flagged */
	size_t max_idle, min_len, min_flagged;
	const char *want;               /* "first-last/flagged ..." */
};

static const struct run_case run_cases[] = {
	{ "", 0, 1, 1, "" },
	{ "F", 0, 1, 1, "0-0/1" },
	{ "F", 0, 2, 1, "" },
	{ "FF.FF", 1, 1, 1, "0-4/4" },
	{ "FF..FF", 1, 1, 1, "0-1/2 4-5/2" },
	{ "FFnFF", 5, 1, 1, "0-1/2 3-4/2" },
	{ "..F.F.F..", 1, 5, 3, "2-6/3" },
	{ "..F.F.F..", 1, 5, 4, "" },
	{ "F.......F", 7, 9, 2, "0-8/2" },
	{ "F.......F", 6, 1, 1, "0-0/1 8-8/1" },
	{ "nnnFFFnnn", 0, 3, 3, "3-5/3" },
	{ "FFFF", 0, 1, 5, "" },
	{ "F.F.F.F.F.F.F.F.F.F", 0, 1, 1,
	  "0-0/1 2-2/1 4-4/1 6-6/1 8-8/1 10-10/1 12-12/1 14-14/1" },
};

static void test_runs(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(run_cases) / sizeof(run_cases[0]); k++) {
		const struct run_case *c = &run_cases[k];
		uint8_t st[64];
		struct bcn_run runs[8];
		char got[256] = "";
		size_t n = strlen(c->states), len = 0, nr;

		for (size_t i = 0; i < n; i++)
			st[i] = c->states[i] == 'F' ? BCN_RUN_FLAGGED :
				c->states[i] == 'n' ? BCN_RUN_NORMAL : BCN_RUN_IDLE;
		nr = bcn_grid_runs(st, n, c->max_idle, c->min_len,
				   c->min_flagged, runs, 8);
		for (size_t i = 0; i < nr; i++)
			len += (size_t)snprintf(got + len, sizeof(got) - len,
						"%s%zu-%zu/%zu", i ? " " : "",
						runs[i].first, runs[i].last,
						runs[i].flagged);
		if (strcmp(got, c->want))
			fail_msg("case %zu '%s': got '%s', want '%s'", k,
				 c->states, got, c->want);
	}
}

static void test_cells(void **state)
{
	struct bcn_grid g;
	double *c, *c2;

	(void)state;
	assert_int_equal(bcn_grid_init(&g, 1000, 1000, 10, 8, 4), -EINVAL);
	assert_int_equal(bcn_grid_init(&g, 0, 1000, 0, 8, 4), -EINVAL);
	assert_int_equal(bcn_grid_init(&g, 0, 1000, 10, 0, 4), -EINVAL);
	assert_int_equal(bcn_grid_init(&g, 0, 1000, 10, 9, 4), -EINVAL);
	assert_int_equal(bcn_grid_init(&g, 0, (int64_t)BCN_GRID_BUCKETS_MAX * 10,
				       10, 8, 4), -E2BIG);
	assert_int_equal(bcn_grid_init(&g, 1000, 1095, 10, 8, 2), 0);
	assert_int_equal(g.nb, 10);
	assert_int_equal(bcn_grid_cell(&g, "a", 999, &c), 0);
	assert_null(c);
	assert_int_equal(bcn_grid_cell(&g, "a", 1100, &c), 0);
	assert_null(c);
	assert_int_equal(bcn_grid_cell(&g, "a", 1000, &c), 0);
	assert_non_null(c);
	c[3] += 5;
	assert_int_equal(bcn_grid_cell(&g, "b", 1094, &c2), 0);
	c2[0] = 7;
	assert_int_equal(bcn_grid_cell(&g, "a", 1009, &c), 0);
	assert_true(c[3] == 5);
	assert_int_equal(bcn_grid_cell(&g, "c", 1000, &c), -BCN_EFULL);
	assert_int_equal(g.nrows, 2);
	assert_string_equal(bcn_grid_name(&g, 1), "b");
	assert_true(bcn_grid_at(&g, bcn_grid_row(&g, 1), 9, 0) == 7);
	assert_true(bcn_grid_at(&g, bcn_grid_row(&g, 0), 0, 3) == 5);
	bcn_grid_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
