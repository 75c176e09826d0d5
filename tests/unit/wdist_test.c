/* Tests of collectors/forwarder/wdist (windowed distributions): exact
 * moments, log2 buckets and nearest-rank percentiles against a sorting
 * oracle over generated data of many shapes and sizes, per class and for
 * the union; the bounded error once a window spills past its sample
 * limit; window reset; clamping and saturation. (Against numpy:
 * tests/integration/fwdd_percentiles.sh.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/forwarder/wdist.h"

#define NTAGS 4
#define MAX_N 20000

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

enum shape { UNIFORM_SMALL, UNIFORM_BIG, EXPONENTIAL, LOGNORMAL, CONSTANT,
	     BIMODAL, SHAPES };

static uint64_t sample(enum shape s)
{
	switch (s) {
	case UNIFORM_SMALL:
		return rnd() % 10;
	case UNIFORM_BIG:
		return rnd() % 1000000000;
	case EXPONENTIAL:       /* geometric magnitudes */
		return rnd() % (UINT64_C(2) << __builtin_ctzll(rnd() | 1u << 30));
	case LOGNORMAL:         /* a bell of magnitudes around 2^12 */
		return (UINT64_C(1) << (6 + rnd() % 5 + rnd() % 5 + rnd() % 5)) +
		       rnd() % 4096;
	case CONSTANT:
		return 42;
	case BIMODAL:
		return rnd() % 2 ? 100 + rnd() % 5 : 100000 + rnd() % 50;
	default:
		return 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The oracle: nearest-rank percentiles of a sorted copy. */
static void oracle(const uint64_t *v, size_t n, struct bcn_dist *d)
{
	uint64_t *s = malloc((n ? n : 1) * sizeof(*s));
	size_t i;

	assert_non_null(s);
	memset(d, 0, sizeof(*d));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	d->count = n;
	for (i = 0; i < n; i++) {
		d->sum += s[i];
		d->hist[bcn_hist_bucket(s[i])]++;
	}
	if (n) {
		d->min = s[0];
		d->max = s[n - 1];
		d->p50 = s[(n * 50 + 99) / 100 - 1];
		d->p95 = s[(n * 95 + 99) / 100 - 1];
		d->p99 = s[(n * 99 + 99) / 100 - 1];
	}
	free(s);
}

static void assert_dist_equal(const struct bcn_dist *a,
			      const struct bcn_dist *b)
{
	unsigned i;

	assert_int_equal(a->count, b->count);
	assert_int_equal(a->sum, b->sum);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->p50, b->p50);
	assert_int_equal(a->p95, b->p95);
	assert_int_equal(a->p99, b->p99);
	for (i = 0; i < BCN_HIST_BUCKETS; i++)
		assert_int_equal(a->hist[i], b->hist[i]);
}

static void test_rank(void **state)
{
	static const struct { uint64_t n; unsigned p; uint64_t r; } t[] = {
		{ 1, 50, 1 }, { 1, 99, 1 }, { 2, 50, 1 }, { 3, 50, 2 },
		{ 4, 50, 2 }, { 20, 95, 19 }, { 21, 95, 20 }, { 100, 95, 95 },
		{ 101, 95, 96 }, { 100, 99, 99 }, { 101, 99, 100 },
		{ 1000, 99, 990 }, { UINT64_MAX, 100, UINT64_MAX },
		{ UINT64_MAX, 50, UINT64_MAX / 2 + 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(bcn_wdist_rank(t[i].n, t[i].p), t[i].r);
}

static void test_bucket(void **state)
{
	(void)state;
	assert_int_equal(bcn_hist_bucket(0), 0);
	assert_int_equal(bcn_hist_bucket(1), 0);
	assert_int_equal(bcn_hist_bucket(2), 1);
	assert_int_equal(bcn_hist_bucket(3), 1);
	assert_int_equal(bcn_hist_bucket(4), 2);
	assert_int_equal(bcn_hist_bucket(UINT64_C(1) << 31), 31);
	assert_int_equal(bcn_hist_bucket(UINT64_C(1) << 40), 31);
	assert_int_equal(bcn_hist_bucket(UINT64_MAX), 31);
}

/* Windows of every shape and many sizes, classes of uneven weight (one
 * often empty), two windows in a row through the same wdist. */
static void test_exact_against_oracle(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 99, 100, 101, 1000,
					4999, MAX_N };
	uint64_t *all = malloc(MAX_N * sizeof(*all));
	uint64_t *by[NTAGS];
	size_t nby[NTAGS];
	struct bcn_dist got[NTAGS], gall, want;
	struct bcn_wdist w;
	unsigned t, s;
	size_t z, i;

	(void)state;
	assert_non_null(all);
	for (t = 0; t < NTAGS; t++) {
		by[t] = malloc(MAX_N * sizeof(*by[t]));
		assert_non_null(by[t]);
	}
	rng_state = 0x2545f4914f6cdd1dULL;
	assert_int_equal(bcn_wdist_init(&w, NTAGS, MAX_N), 0);
	for (s = 0; s < SHAPES; s++) {
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			memset(nby, 0, sizeof(nby));
			for (i = 0; i < sizes[z]; i++) {
				/* tag 3 is rare, tag 2 empty for odd shapes */
				unsigned r = (unsigned)(rnd() % 16);

				t = r < 8 ? 0 : r < 13 ? 1 : r < 15 ? 2 : 3;
				if (t == 2 && s % 2)
					t = 1;
				all[i] = sample((enum shape)s);
				by[t][nby[t]++] = all[i];
				bcn_wdist_add(&w, t, all[i]);
			}
			bcn_wdist_finish(&w, got, &gall);
			for (t = 0; t < NTAGS; t++) {
				oracle(by[t], nby[t], &want);
				assert_dist_equal(&got[t], &want);
			}
			oracle(all, sizes[z], &want);
			assert_dist_equal(&gall, &want);
			assert_false(w.spilled);
		}
	}
	assert_int_equal(w.spills, 0);
	bcn_wdist_free(&w);
	for (t = 0; t < NTAGS; t++)
		free(by[t]);
	free(all);
}

/* Beyond max_samples the percentiles come from the log-linear histogram:
 * at most 2^-SUB_BITS below the exact value, never above it, within
 * [min, max]; moments and log2 buckets stay exact. */
static void test_spill_bound(void **state)
{
	uint64_t *all = malloc(MAX_N * sizeof(*all));
	uint64_t *by0 = malloc(MAX_N * sizeof(*by0));
	struct bcn_dist got[2], gall, want;
	const double eps = 1.0 / (1 << BCN_WDIST_SUB_BITS);
	struct bcn_wdist w;
	size_t n0, i;
	unsigned s, k;

	(void)state;
	assert_non_null(all);
	assert_non_null(by0);
	rng_state = 88172645463325252ULL;
	assert_int_equal(bcn_wdist_init(&w, 2, 1000), 0);
	for (s = 0; s < SHAPES; s++) {
		n0 = 0;
		for (i = 0; i < MAX_N; i++) {
			unsigned t = (unsigned)(rnd() % 3 == 0);

			all[i] = sample((enum shape)s);
			if (t == 0)
				by0[n0++] = all[i];
			bcn_wdist_add(&w, t, all[i]);
		}
		assert_true(w.spilled);
		bcn_wdist_finish(&w, got, &gall);
		for (k = 0; k < 2; k++) {
			const struct bcn_dist *g = k ? &gall : &got[0];
			uint64_t pw[3], pg[3];
			unsigned j;

			oracle(k ? all : by0, k ? MAX_N : n0, &want);
			assert_int_equal(g->count, want.count);
			assert_int_equal(g->sum, want.sum);
			assert_int_equal(g->min, want.min);
			assert_int_equal(g->max, want.max);
			assert_memory_equal(g->hist, want.hist,
					    sizeof(want.hist));
			pw[0] = want.p50, pw[1] = want.p95, pw[2] = want.p99;
			pg[0] = g->p50, pg[1] = g->p95, pg[2] = g->p99;
			for (j = 0; j < 3; j++) {
				assert_true(pg[j] <= pw[j]);
				assert_true((double)(pw[j] - pg[j]) <=
					    eps * (double)pw[j]);
				assert_true(pg[j] >= g->min);
			}
		}
	}
	/* the next window is exact again, histograms emptied */
	for (i = 0; i < 500; i++)
		bcn_wdist_add(&w, 1, i * 7);
	assert_false(w.spilled);
	bcn_wdist_finish(&w, got, &gall);
	assert_int_equal(got[1].count, 500);
	assert_int_equal(got[1].p50, 249 * 7);
	assert_int_equal(got[1].p99, 494 * 7);
	assert_int_equal(got[0].count, 0);
	assert_int_equal(got[0].p50, 0);
	assert_int_equal(w.spills, SHAPES);
	bcn_wdist_free(&w);
	free(by0);
	free(all);
}

static void test_clamp_and_saturate(void **state)
{
	struct bcn_dist d;
	struct bcn_wdist w;
	int i;

	(void)state;
	assert_int_equal(bcn_wdist_init(&w, 1, 32), 0);
	bcn_wdist_add(&w, 0, UINT64_MAX);       /* clamped */
	for (i = 0; i < 16; i++)
		bcn_wdist_add(&w, 0, BCN_WDIST_VALUE_MAX);
	bcn_wdist_add(&w, 0, 3);
	bcn_wdist_finish(&w, NULL, &d);
	assert_int_equal(d.count, 18);
	assert_int_equal(d.sum, UINT64_MAX);    /* saturated */
	assert_int_equal(d.max, BCN_WDIST_VALUE_MAX);
	assert_int_equal(d.min, 3);
	assert_int_equal(d.p50, BCN_WDIST_VALUE_MAX);
	assert_int_equal(d.hist[31], 17);
	assert_int_equal(d.hist[1], 1);
	bcn_wdist_free(&w);
	assert_int_equal(bcn_wdist_init(&w, 0, 16), -EINVAL);
	assert_int_equal(bcn_wdist_init(&w, 9, 16), -EINVAL);
	assert_int_equal(bcn_wdist_init(&w, 1, 15), -EINVAL);
	assert_int_equal(bcn_wdist_init(&w, 1, BCN_WDIST_SAMPLES_MAX + 1),
			 -EINVAL);
}

/* Many equal values and sorted or reversed input keep selection fast and
 * right (a naive quickselect would go quadratic). */
static void test_adversarial_orders(void **state)
{
	const size_t n = 200000;
	struct bcn_dist d;
	struct bcn_wdist w;
	size_t i;

	(void)state;
	assert_int_equal(bcn_wdist_init(&w, 2, n), 0);
	for (i = 0; i < n; i++)
		bcn_wdist_add(&w, 0, i);
	bcn_wdist_finish(&w, NULL, &d);
	assert_int_equal(d.p50, n / 2 - 1);
	assert_int_equal(d.p99, n * 99 / 100 - 1);
	for (i = 0; i < n; i++)
		bcn_wdist_add(&w, 1, n - i);
	bcn_wdist_finish(&w, NULL, &d);
	assert_int_equal(d.p95, n * 95 / 100);
	for (i = 0; i < n; i++)
		bcn_wdist_add(&w, i % 2, 5);
	bcn_wdist_finish(&w, NULL, &d);
	assert_int_equal(d.p50, 5);
	assert_int_equal(d.count, n);
	bcn_wdist_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_exact_against_oracle),
		cmocka_unit_test(test_spill_bound),
		cmocka_unit_test(test_clamp_and_saturate),
		cmocka_unit_test(test_adversarial_orders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
