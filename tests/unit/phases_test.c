/* Tests of analysis/anomaly/phases: bursts separated by idle time are
 * one phase each with their exact volume, start and end; a short dip
 * inside a burst does not split it (the gap); noise well under the floor
 * makes no phase; a lone spike is a phase; more phases than room keeps
 * the largest, in time order; empty, idle and constant series; bad
 * arguments. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/anomaly/phases.h"

#define N 600
#define S 1000000000ll

/* bursts [a, b) of height h in x. */
static void burst(double *x, size_t a, size_t b, double h)
{
	for (size_t i = a; i < b; i++)
		x[i] = h;
}

static size_t find(const double *x, size_t n, size_t max, struct bcn_phase *p)
{
	struct bcn_phase_config c;
	size_t np = 0;

	bcn_phase_config_defaults(&c);
	assert_int_equal(bcn_phases_find(x, n, 100 * S, S, &c, p, max, &np), 0);
	return np;
}

static void test_bursts(void **state)
{
	static double x[N];
	struct bcn_phase p[16];
	size_t np;

	(void)state;
	memset(x, 0, sizeof(x));
	burst(x, 50, 110, 1e8);         /* 60 s at 100 MB/s */
	burst(x, 300, 330, 4e8);        /* 30 s at 400 MB/s */
	burst(x, 500, 520, 2e8);
	x[80] = 0;                      /* a one-second dip: same phase */
	np = find(x, N, 16, p);
	assert_int_equal(np, 3);
	assert_int_equal(p[0].start, 150 * S);
	assert_int_equal(p[0].end, 210 * S);
	assert_true(p[0].volume == 59 * 1e8);
	assert_true(fabs(p[0].peak_bw - 1e8) < 1e-6);
	assert_int_equal(p[1].start, 400 * S);
	assert_int_equal(p[1].end, 430 * S);
	assert_true(p[1].volume == 30 * 4e8);
	assert_true(fabs(p[1].mean_bw - 4e8) < 1e-3);
	assert_int_equal(p[2].start, 600 * S);
	assert_true(p[2].volume == 20 * 2e8);
	/* noise a thousand times smaller makes no phase of its own */
	for (size_t i = 0; i < N; i++)
		if (x[i] == 0 && i % 7 == 0)
			x[i] = 1e5;
	np = find(x, N, 16, p);
	assert_int_equal(np, 3);
	/* two phases of room keep the two largest, in time order */
	np = find(x, N, 2, p);
	assert_int_equal(np, 2);
	assert_int_equal(p[0].start / S, 150);
	assert_int_equal(p[1].start / S, 400);
}

static void test_edges(void **state)
{
	static double x[N];
	struct bcn_phase_config c;
	struct bcn_phase p[4];
	size_t np = 9;

	(void)state;
	memset(x, 0, sizeof(x));
	assert_int_equal(find(x, N, 4, p), 0);          /* idle */
	assert_int_equal(find(x, 0, 4, p), 0);          /* empty */
	x[200] = 5e9;                                   /* one spike */
	np = find(x, N, 4, p);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].start, 300 * S);
	assert_int_equal(p[0].end, 301 * S);
	assert_true(p[0].volume == 5e9);
	burst(x, 0, N, 3e6);                            /* constant */
	np = find(x, N, 4, p);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].start, 100 * S);
	assert_int_equal(p[0].end, (100 + N) * S);
	np = find(x, 3, 4, p);                          /* too short to transform */
	assert_int_equal(np, 1);
	bcn_phase_config_defaults(&c);
	assert_int_equal(bcn_phases_find(x, N, 0, 0, &c, p, 4, &np), -EINVAL);
	assert_int_equal(bcn_phases_find(x, N, 0, S, &c, p, 0, &np), -EINVAL);
	c.floor = 1.5;
	assert_int_equal(bcn_phases_find(x, N, 0, S, &c, p, 4, &np), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
