/* Tests of logsrv/lagdist: the lag of a record against a table of cases
 * (past, present, future, overflowing times); bucket edges; percentiles of
 * generated data of several shapes against a sorting oracle, never below
 * the exact value and within 1/64 above it; empty distributions; values
 * beyond the last bucket; and intervals merged into run totals against
 * one distribution of everything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "logsrv/lagdist.h"

#define MS 1000000ll            /* ns */
#define NOW 1700000000000000000ll
#define MAX_N 20000

struct lag_case {
	int64_t now, t, dur;
	uint64_t ms;
};

static const struct lag_case lag_cases[] = {
	{ NOW, NOW - 30000 * MS, 0, 30000 },            /* ended 30 s ago */
	{ NOW, NOW - 130000 * MS, 10000 * MS, 120000 }, /* 10 s long, ended 2 min ago */
	{ NOW, NOW - 1500000, 0, 1 },                   /* 1.5 ms: rounded down */
	{ NOW, NOW - 999999, 0, 0 },
	{ NOW, NOW, 0, 0 },                             /* ends now */
	{ NOW, NOW - 5 * MS, 5 * MS, 0 },
	{ NOW, NOW + 3600000 * MS, 0, 0 },              /* from the future: 0 */
	{ NOW, NOW + 500000, 0, 0 },                    /* half a ms ahead */
	{ NOW, NOW + 1, 0, 0 },
	{ NOW, NOW - 10 * MS, 3600000 * MS, 0 },        /* still running */
	{ NOW, INT64_MAX, INT64_MAX, 0 },               /* end overflows upwards */
	{ NOW, INT64_MIN, -1, (uint64_t)NOW / 1000000 + UINT64_C(9223372036854) },
	{ NOW, 0, 0, (uint64_t)NOW / 1000000 },         /* the epoch */
	{ INT64_MAX, INT64_MIN, 0, UINT64_MAX / 1000000 },
	{ INT64_MIN, INT64_MAX, 0, 0 },
};

static void test_lag_ms(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(lag_cases) / sizeof(lag_cases[0]); i++) {
		const struct lag_case *c = &lag_cases[i];

		if (bcn_lag_ms(c->now, c->t, c->dur) != c->ms)
			fail_msg("case %zu: lag %llu, expected %llu", i,
				 (unsigned long long)bcn_lag_ms(c->now, c->t, c->dur),
				 (unsigned long long)c->ms);
	}
}

/* Buckets tile the values: each starts one after the previous one ends,
 * every value lands in the bucket whose range holds it, and a bucket is at
 * most 1/64 of its lowest value wide. */
static void test_buckets(void **state)
{
	static const uint64_t values[] = {
		0, 1, 63, 64, 65, 127, 128, 129, 130, 255, 256, 1000, 29999, 30000,
		30001, 120000, 3600000, 86400000, (UINT64_C(1) << 39) + 12345,
		(UINT64_C(1) << 40) - 1,
	};

	(void)state;
	assert_int_equal(bcn_lagdist_bucket_low(0), 0);
	for (unsigned i = 1; i < BCN_LAGDIST_BUCKETS; i++) {
		uint64_t lo = bcn_lagdist_bucket_low(i), hi = bcn_lagdist_bucket_high(i);

		assert_int_equal(lo, bcn_lagdist_bucket_high(i - 1) + 1);
		assert_true(hi >= lo);
		if (i + 1 < BCN_LAGDIST_BUCKETS)
			assert_true((hi - lo + 1) * 64 <= (lo > 64 ? lo : 64));
		assert_int_equal(bcn_lagdist_bucket(lo), i);
		assert_int_equal(bcn_lagdist_bucket(hi), i);
	}
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		unsigned b = bcn_lagdist_bucket(values[i]);

		assert_true(bcn_lagdist_bucket_low(b) <= values[i]);
		assert_true(bcn_lagdist_bucket_high(b) >= values[i]);
	}
	/* values below 128 ms are exact */
	for (uint64_t v = 0; v < 128; v++)
		assert_int_equal(bcn_lagdist_bucket_low(bcn_lagdist_bucket(v)), v);
	/* beyond the range: the last bucket */
	assert_int_equal(bcn_lagdist_bucket(UINT64_C(1) << 40), BCN_LAGDIST_BUCKETS - 1);
	assert_int_equal(bcn_lagdist_bucket(UINT64_MAX), BCN_LAGDIST_BUCKETS - 1);
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

enum shape { CONSTANT, UNIFORM, LOG_UNIFORM, BIMODAL, SMALL, SHAPES };

static uint64_t draw(enum shape s)
{
	switch (s) {
	case CONSTANT:
		return 30000;
	case UNIFORM:
		return rnd() % 200000;
	case LOG_UNIFORM:
		return (rnd() % 1000000) >> (rnd() % 20);
	case BIMODAL:
		return rnd() % 10 ? 1000 + rnd() % 500 : 120000 + rnd() % 60000;
	case SMALL:
	default:
		return rnd() % 100;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* exact nearest-rank quantile of sorted v[0..n) */
static uint64_t oracle(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if ((double)rank < q * (double)n)
		rank++;
	return v[rank ? rank - 1 : 0];
}

static void check_quantiles(const struct bcn_lagdist *d, const uint64_t *sorted,
			    size_t n, const char *what)
{
	static const double qs[] = { 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0 };

	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t exact = oracle(sorted, n, qs[k]);
		uint64_t est = bcn_lagdist_quantile(d, qs[k]);

		/* never below; above by at most 1/64 (exact below 128) */
		if (est < exact || (est - exact) * 64 > exact)
			fail_msg("%s n=%zu q=%g: estimate %llu, exact %llu", what, n,
				 qs[k], (unsigned long long)est, (unsigned long long)exact);
	}
}

static void test_quantiles(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 10, 99, 100, 101, 1000, MAX_N };
	uint64_t *v = malloc(MAX_N * sizeof(*v));
	struct bcn_lagdist *d = malloc(sizeof(*d));
	char what[64];

	(void)state;
	assert_non_null(v);
	assert_non_null(d);
	rng_state = 88172645463325252ull;
	for (int s = 0; s < SHAPES; s++) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			uint64_t sum = 0;

			bcn_lagdist_reset(d);
			for (size_t i = 0; i < n; i++) {
				v[i] = draw((enum shape)s);
				sum += v[i];
				bcn_lagdist_add(d, v[i]);
			}
			qsort(v, n, sizeof(*v), cmp_u64);
			assert_int_equal(d->count, n);
			assert_int_equal(d->sum_ms, sum);
			assert_int_equal(d->max_ms, v[n - 1]);
			snprintf(what, sizeof(what), "shape %d", s);
			check_quantiles(d, v, n, what);
		}
	}
	free(v);
	free(d);
}

static void test_empty(void **state)
{
	struct bcn_lagdist *d = malloc(sizeof(*d)), *e = malloc(sizeof(*e));

	(void)state;
	assert_non_null(d);
	assert_non_null(e);
	bcn_lagdist_reset(d);
	bcn_lagdist_reset(e);
	assert_int_equal(d->count, 0);
	assert_int_equal(bcn_lagdist_quantile(d, 0.5), 0);
	assert_int_equal(bcn_lagdist_quantile(d, 0.99), 0);
	assert_int_equal(d->max_ms, 0);
	/* merging an empty interval changes nothing */
	bcn_lagdist_add(d, 500);
	bcn_lagdist_merge(d, e);
	assert_int_equal(d->count, 1);
	assert_int_equal(d->sum_ms, 500);
	assert_int_equal(bcn_lagdist_quantile(d, 0.5), 500);
	/* a reset interval is empty again */
	bcn_lagdist_reset(d);
	assert_memory_equal(d, e, sizeof(*d));
	free(d);
	free(e);
}

/* lags of 0 (future records) and of decades count like any other value */
static void test_extremes(void **state)
{
	struct bcn_lagdist *d = malloc(sizeof(*d));
	uint64_t huge = bcn_lag_ms(NOW, INT64_MIN, 0);

	(void)state;
	assert_non_null(d);
	bcn_lagdist_reset(d);
	bcn_lagdist_add(d, bcn_lag_ms(NOW, NOW + 60 * MS, 0));
	bcn_lagdist_add(d, bcn_lag_ms(NOW, NOW + 61 * MS, 0));
	bcn_lagdist_add(d, huge);
	assert_int_equal(d->count, 3);
	assert_int_equal(bcn_lagdist_quantile(d, 0.5), 0);
	assert_int_equal(bcn_lagdist_quantile(d, 0.99), huge);
	assert_int_equal(d->max_ms, huge);
	/* the sum saturates instead of wrapping */
	bcn_lagdist_add(d, UINT64_MAX);
	assert_int_equal(d->sum_ms, UINT64_MAX);
	assert_int_equal(bcn_lagdist_quantile(d, 1.0), UINT64_MAX);
	free(d);
}

/* A run's totals, made by merging each interval and resetting it, equal one
 * distribution of every value; each interval sees only its own values. */
static void test_merge(void **state)
{
	struct bcn_lagdist *iv = malloc(sizeof(*iv)), *tot = malloc(sizeof(*tot));
	struct bcn_lagdist *all = malloc(sizeof(*all));
	uint64_t *v = malloc(MAX_N * sizeof(*v));
	size_t n = 0;

	(void)state;
	assert_true(iv && tot && all && v);
	bcn_lagdist_reset(iv);
	bcn_lagdist_reset(tot);
	bcn_lagdist_reset(all);
	rng_state = 2463534242ull;
	for (int interval = 0; interval < 50; interval++) {
		/* some intervals are empty */
		size_t k = interval % 7 == 3 ? 0 : rnd() % 400;
		uint64_t imax = 0;

		for (size_t i = 0; i < k; i++) {
			uint64_t x = draw((enum shape)(interval % SHAPES));

			bcn_lagdist_add(iv, x);
			bcn_lagdist_add(all, x);
			v[n++] = x;
			imax = x > imax ? x : imax;
		}
		assert_int_equal(iv->count, k);
		assert_int_equal(iv->max_ms, imax);
		if (!k)
			assert_int_equal(bcn_lagdist_quantile(iv, 0.99), 0);
		bcn_lagdist_merge(tot, iv);
		bcn_lagdist_reset(iv);
	}
	assert_memory_equal(tot, all, sizeof(*tot));
	qsort(v, n, sizeof(*v), cmp_u64);
	check_quantiles(tot, v, n, "totals");
	free(iv);
	free(tot);
	free(all);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lag_ms),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
