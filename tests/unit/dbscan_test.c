/* Tests of analysis/anomaly/dbscan: table-driven small cases whose labels
 * were worked out by hand (ties at exactly eps, a border point reachable
 * from two clusters, cluster numbers in the order of the lowest-index core
 * point, min_samples 0 and 1, all noise, duplicates, 1-D, 2-D and 3-D,
 * coordinates far beyond the grid's range, tiny and huge eps; those with
 * rounding at stake checked against scikit-learn 1.2.1) and the errors. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/anomaly/dbscan.h"

#define MAXP 16

struct dbscan_case {
	const char *name;
	size_t n, dim;
	double eps;
	size_t min_samples;
	double pts[MAXP * 3];
	size_t nclusters;
	int32_t labels[MAXP];
};

static const struct dbscan_case cases[] = {
	{ "1-D, a distance of exactly eps counts", 4, 1, 1.0, 2,
	  { 0, 1, 2, 5 }, 1, { 0, 0, 0, -1 } },
	{ "1-D, just beyond eps does not", 2, 1, 1.0, 2,
	  { 0, 1.0000000000000002 }, 0, { -1, -1 } },
	{ "2-D, a 3-4-5 triangle: exactly eps", 2, 2, 5.0, 2,
	  { 0, 0, 3, 4 }, 1, { 0, 0 } },
	{ "2-D, 3-4-5 with eps a hair below 5", 2, 2, 4.999999999999999, 2,
	  { 0, 0, 3, 4 }, 0, { -1, -1 } },
	/* B = {4, 5, 5, 5} first: the border point 2.5 (three neighbours:
	 * 1, 2.5 and 4, at exactly eps) goes to cluster 0, B */
	{ "border point between two clusters, B first", 9, 1, 1.5, 4,
	  { 5, 4, 2.5, 0, 1, 5, 5, 0, 0 }, 2, { 0, 0, 0, 1, 1, 0, 0, 1, 1 } },
	{ "border point between two clusters, A first", 9, 1, 1.5, 4,
	  { 0, 1, 2.5, 4, 5, 5, 5, 0, 0 }, 2, { 0, 0, 0, 1, 1, 1, 1, 0, 0 } },
	/* point 0 (3) is a border point of the cluster seeded by point 5
	 * (1): clusters are numbered by their lowest-index core point */
	{ "numbered by the lowest-index core point", 7, 1, 1.0, 3,
	  { 3, 10, 10.5, 11, 0, 1, 2 }, 2, { 1, 0, 0, 0, 1, 1, 1 } },
	{ "a chain: interior core, ends border", 10, 1, 1.0, 3,
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, 1, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ "min_samples 1: every point core", 3, 1, 1.0, 1,
	  { 0, 10, 20 }, 3, { 0, 1, 2 } },
	{ "min_samples 0: every point core", 4, 1, 1.0, 0,
	  { 20, 0, 10, 0.5 }, 3, { 0, 1, 2, 1 } },
	{ "all noise", 3, 1, 1.0, 2, { 0, 10, 20 }, 0, { -1, -1, -1 } },
	{ "min_samples above n: all noise", 3, 1, 100.0, 4,
	  { 0, 1, 2 }, 0, { -1, -1, -1 } },
	{ "duplicates: five, min_samples 5", 5, 2, 0.5, 5,
	  { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, 1, { 0, 0, 0, 0, 0 } },
	{ "duplicates: five, min_samples 6", 5, 2, 0.5, 6,
	  { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, 0, { -1, -1, -1, -1, -1 } },
	/* the origin has 4 neighbours (the unit vectors at exactly eps), the
	 * unit vectors 2 (sqrt 2 apart): border points */
	{ "3-D, a core point and its border", 5, 3, 1.0, 4,
	  { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 5, 5 }, 1, { 0, 0, 0, 0, -1 } },
	{ "3-D, two clusters", 6, 3, 1.0, 2,
	  { 0, 0, 0, 9, 9, 9, 0, 0, 1, 9, 9, 8, 4, 4, 4, 0, 1, 1 }, 2,
	  { 0, 1, 0, 1, -1, 0 } },
	/* x / eps beyond 2^47: the sorted fallback (spacing 16 at 1e17) */
	{ "coordinates of 1e17, eps 16", 4, 1, 16.0, 2,
	  { 1e17, 100000000000000016.0, 100000000000000032.0, 0 }, 1,
	  { 0, 0, 0, -1 } },
	/* x / eps between 2^30 and 2^47: cells of side 2 eps */
	{ "coordinates of 1e12, eps 1", 4, 2, 1.0, 2,
	  { 1e12, 0, 1e12 + 1, 0, 1e12 + 3, 0, -1e12, 0 }, 1, { 0, 0, -1, -1 } },
	/* eps * eps underflows to 0, and so do the squares: scikit-learn's
	 * tree takes them all (and so do we) */
	{ "eps 1e-300", 4, 1, 1e-300, 2,
	  { 0, 1e-300, 3e-300, 1 }, 1, { 0, 0, 0, -1 } },
	/* eps * eps overflows: every pair is within it */
	{ "eps 1e200", 3, 1, 1e200, 3, { 0, 1e300, -1e300 }, 1, { 0, 0, 0 } },
	{ "eps 1e200, min_samples 4", 3, 1, 1e200, 4,
	  { 0, 1e300, -1e300 }, 0, { -1, -1, -1 } },
	/* fl(0.3 + 0) vs (0.2, -0.1) has rd 1 ulp above eps * eps, but its
	 * node's upper bound, sqrt'ed, is eps: scikit-learn takes it */
	{ "a tie by the tree's node bound", 3, 2, 0.14142135623730953, 1,
	  { 0.30000000000000004, 0, 0.2, -0.1, 0.2, -0.1 }, 1, { 0, 0, 0 } },
	{ "a single point, min_samples 1", 1, 2, 1.0, 1, { 7, 7 }, 1, { 0 } },
	{ "a single point, min_samples 2", 1, 2, 1.0, 2, { 7, 7 }, 0, { -1 } },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct dbscan_case *k = &cases[c];
		int32_t labels[MAXP];
		size_t ncl = 99;
		memset(labels, 0x5a, sizeof(labels));
		print_message("case %zu: %s\n", c, k->name);
		assert_int_equal(bcn_dbscan(k->pts, k->n, k->dim, k->eps,
					    k->min_samples, labels, &ncl), 0);
		assert_int_equal(ncl, k->nclusters);
		for (size_t i = 0; i < k->n; i++)
			assert_int_equal(labels[i], k->labels[i]);
		assert_int_equal(labels[k->n], 0x5a5a5a5a); /* no write beyond n */
	}
}

static void test_empty(void **state)
{
	size_t ncl = 99;

	(void)state;
	assert_int_equal(bcn_dbscan(NULL, 0, 2, 1.0, 5, NULL, &ncl), 0);
	assert_int_equal(ncl, 0);
}

struct err_case {
	const char *name;
	size_t n, dim;
	double eps;
	double bad;             /* put at pts[1] */
	int rc;
};

static void test_errors(void **state)
{
	const struct err_case errs[] = {
		{ "eps 0", 3, 1, 0.0, 0, -EINVAL },
		{ "eps negative", 3, 1, -1.0, 0, -EINVAL },
		{ "eps NaN", 3, 1, NAN, 0, -EINVAL },
		{ "eps infinite", 3, 1, INFINITY, 0, -EINVAL },
		{ "dim 0", 3, 0, 1.0, 0, -EINVAL },
		{ "dim too large", 1, BCN_DBSCAN_DIM_MAX + 1, 1.0, 0, -EINVAL },
		{ "n too large", BCN_DBSCAN_N_MAX + 1, 1, 1.0, 0, -EINVAL },
		{ "NaN coordinate", 3, 2, 1.0, NAN, -EDOM },
		{ "infinite coordinate", 3, 2, 1.0, INFINITY, -EDOM },
		{ "-infinite coordinate", 3, 1, 1.0, -INFINITY, -EDOM },
	};
	double pts[6 * BCN_DBSCAN_DIM_MAX] = { 0 };
	int32_t labels[6];
	size_t ncl;

	(void)state;
	for (size_t c = 0; c < sizeof(errs) / sizeof(errs[0]); c++) {
		print_message("error case %zu: %s\n", c, errs[c].name);
		pts[1] = errs[c].bad;
		assert_int_equal(bcn_dbscan(pts, errs[c].n, errs[c].dim, errs[c].eps,
					    2, labels, &ncl), errs[c].rc);
	}
	pts[1] = 0;
	assert_int_equal(bcn_dbscan(NULL, 3, 1, 1.0, 2, labels, &ncl), -EINVAL);
	assert_int_equal(bcn_dbscan(pts, 3, 1, 1.0, 2, NULL, &ncl), -EINVAL);
	assert_int_equal(bcn_dbscan(pts, 3, 1, 1.0, 2, labels, NULL), -EINVAL);
}

/* A lattice of spacing 0.5 over many cells, then all points identical. */
static void test_lattice(void **state)
{
	size_t side = 60, n = side * side, ncl;
	double *pts = malloc(n * 2 * sizeof(*pts));
	int32_t *labels = malloc(n * sizeof(*labels));

	(void)state;
	assert_non_null(pts);
	assert_non_null(labels);
	for (size_t i = 0; i < n; i++) {
		pts[2 * i] = (double)(i % side) * 0.5;
		pts[2 * i + 1] = (double)(i / side) * 0.5;
	}
	/* eps 0.5, min_samples 4: inside 5 neighbours, on the edges 4 (core),
	 * the corners 3 (border) */
	assert_int_equal(bcn_dbscan(pts, n, 2, 0.5, 4, labels, &ncl), 0);
	assert_int_equal(ncl, 1);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(labels[i], 0);
	/* eps 0.5, min_samples 6: each point has 5 (itself and 4 at 0.5) */
	assert_int_equal(bcn_dbscan(pts, n, 2, 0.5, 6, labels, &ncl), 0);
	assert_int_equal(ncl, 0);
	for (size_t i = 0; i < n; i++)
		pts[2 * i] = pts[2 * i + 1] = 3.25;
	assert_int_equal(bcn_dbscan(pts, n, 2, 1e-9, n, labels, &ncl), 0);
	assert_int_equal(ncl, 1);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(labels[i], 0);
	free(pts);
	free(labels);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lattice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
