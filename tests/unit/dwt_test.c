/* Unit tests of analysis/anomaly/dwt: the filters' orthonormality, the
 * coefficient lengths and levels against a table from pywt, perfect
 * reconstruction for every wavelet and mode over lengths 1..70, a few
 * coefficients from pywt, thresholds, denoising and the errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/dwt.h"

#define NMAX 70
#define WMAX 10

static uint64_t state = 88172645463325252ull;

static double rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (double)(state >> 11) / (double)(1ull << 53) * 2 - 1;
}

static void assert_close(double got, double want, double scale, double tol)
{
	double d = fabs(got - want), m = fmax(fabs(want), scale);

	if (!(d <= tol * m))
		fail_msg("got %.17g, want %.17g (scale %g)", got, want, scale);
}

static void test_filters(void **st)
{
	double lo[2 * WMAX], hi[2 * WMAX], rlo[2 * WMAX], rhi[2 * WMAX];

	for (int w = 1; w <= WMAX; w++) {
		size_t f = bcn_wavelet_taps(w);
		double s = 0;

		assert_int_equal(f, 2 * (size_t)w);
		assert_int_equal(bcn_wavelet_filters(w, lo, hi, rlo, rhi), 0);
		for (size_t k = 0; k < f; k++)
			s += lo[k];
		assert_close(s, sqrt(2), 0, 1e-15);
		/* orthonormal under even shifts, lo and hi orthogonal */
		for (size_t sh = 0; sh < f; sh += 2) {
			double ll = 0, hh = 0, lh = 0;

			for (size_t k = 0; k + sh < f; k++) {
				ll += lo[k] * lo[k + sh];
				hh += hi[k] * hi[k + sh];
				lh += lo[k] * hi[k + sh];
			}
			assert_close(ll, sh ? 0 : 1, 1, 1e-15);
			assert_close(hh, sh ? 0 : 1, 1, 1e-15);
			assert_close(lh, 0, 1, 1e-15);
		}
		/* w vanishing moments: sum k^p hi[k] = 0 for p < w */
		for (int p = 0; p < w; p++) {
			double m = 0, scale = 0;

			for (size_t k = 0; k < f; k++) {
				m += pow((double)k, p) * hi[k];
				scale += fabs(pow((double)k, p) * hi[k]);
			}
			assert_close(m, 0, scale, 1e-12);
		}
		for (size_t k = 0; k < f; k++)
			assert_true(rlo[k] == lo[f - 1 - k] && rhi[k] == hi[f - 1 - k]);
	}
	assert_int_equal(bcn_wavelet_filters(0, lo, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(bcn_wavelet_filters(WMAX + 1, NULL, NULL, NULL, NULL), -EINVAL);
	(void)st;
}

static void test_names(void **st)
{
	static const char *const good[] = { "haar", "db1", "db2", "db3", "db4", "db10" };
	static const int ids[] = { 1, 1, 2, 3, 4, 10 };
	static const char *const bad[] = { "", "db0", "db11", "Haar", "db", "sym4", "db2 " };
	static const char *const modes[] = { "symmetric", "periodization", "zero",
					      "constant", "periodic", "reflect" };
	int w = -1, m = -1;

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		assert_int_equal(bcn_wavelet_parse(good[i], &w), 0);
		assert_int_equal(w, ids[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(bcn_wavelet_parse(bad[i], &w), -EINVAL);
	assert_int_equal(bcn_wavelet_parse(NULL, &w), -EINVAL);
	assert_string_equal(bcn_wavelet_name(1), "haar");
	assert_string_equal(bcn_wavelet_name(4), "db4");
	assert_null(bcn_wavelet_name(0));
	assert_null(bcn_wavelet_name(11));
	for (int i = 0; i < BCN_DWT_MODES; i++) {
		assert_int_equal(bcn_dwt_mode_parse(modes[i], &m), 0);
		assert_int_equal(m, i);
		assert_string_equal(bcn_dwt_mode_name(i), modes[i]);
	}
	assert_int_equal(BCN_DWT_SYMMETRIC, 0);
	assert_int_equal(bcn_dwt_mode_parse("smooth", &m), -EINVAL);
	assert_null(bcn_dwt_mode_name(BCN_DWT_MODES));
	(void)st;
}

/* From pywt 1.1.1 (the version on the test machine): for each n and
 * wavelet haar, db2, db3, db4, pywt.dwt_coeff_len(n, dec_len, 'symmetric'),
 * the same under 'periodization', and pywt.dwt_max_level(n, dec_len). */
static const struct {
	size_t n;
	size_t sym[4], per[4];
	int lev[4];
} len_table[] = {
	{ 1, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, { 0, 0, 0, 0 } },
	{ 2, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, { 1, 0, 0, 0 } },
	{ 3, { 2, 3, 4, 5 }, { 2, 2, 2, 2 }, { 1, 0, 0, 0 } },
	{ 5, { 3, 4, 5, 6 }, { 3, 3, 3, 3 }, { 2, 0, 0, 0 } },
	{ 7, { 4, 5, 6, 7 }, { 4, 4, 4, 4 }, { 2, 1, 0, 0 } },
	{ 13, { 7, 8, 9, 10 }, { 7, 7, 7, 7 }, { 3, 2, 1, 0 } },
	{ 14, { 7, 8, 9, 10 }, { 7, 7, 7, 7 }, { 3, 2, 1, 1 } },
	{ 17, { 9, 10, 11, 12 }, { 9, 9, 9, 9 }, { 4, 2, 1, 1 } },
	{ 64, { 32, 33, 34, 35 }, { 32, 32, 32, 32 }, { 6, 4, 3, 3 } },
	{ 100, { 50, 51, 52, 53 }, { 50, 50, 50, 50 }, { 6, 5, 4, 3 } },
	{ 1000, { 500, 501, 502, 503 }, { 500, 500, 500, 500 }, { 9, 8, 7, 7 } },
};

static void test_lengths(void **st)
{
	for (size_t i = 0; i < sizeof(len_table) / sizeof(*len_table); i++) {
		for (int w = 1; w <= 4; w++) {
			size_t n = len_table[i].n;

			assert_int_equal(bcn_dwt_coeff_len(n, w, BCN_DWT_SYMMETRIC),
					 len_table[i].sym[w - 1]);
			assert_int_equal(bcn_dwt_coeff_len(n, w, BCN_DWT_PERIODIZATION),
					 len_table[i].per[w - 1]);
			assert_int_equal(bcn_dwt_max_level(n, w), len_table[i].lev[w - 1]);
		}
	}
	assert_int_equal(bcn_dwt_coeff_len(0, 1, 0), 0);
	assert_int_equal(bcn_dwt_coeff_len(BCN_DWT_LEN_MAX + 1, 1, 0), 0);
	assert_int_equal(bcn_dwt_coeff_len(5, 0, 0), 0);
	assert_int_equal(bcn_dwt_coeff_len(5, 1, BCN_DWT_MODES), 0);
	assert_int_equal(bcn_dwt_max_level(BCN_DWT_LEN_MAX, 1), 26);
	assert_int_equal(bcn_dwt_max_level(5, 0), -EINVAL);
	assert_int_equal(bcn_idwt_len(4, 4, BCN_DWT_SYMMETRIC), 2);
	assert_int_equal(bcn_idwt_len(3, 4, BCN_DWT_SYMMETRIC), 0);
	assert_int_equal(bcn_idwt_len(3, 4, BCN_DWT_PERIODIZATION), 6);
	(void)st;
}

/* pywt.dwt([1, 2, 3, 4, 5], 'db2', mode), pywt 1.1.1 */
static void test_known_coeffs(void **st)
{
	static const double x[] = { 1, 2, 3, 4, 5 };
	static const double sa[] = { 1.7677669529663689, 2.310789034541149,
				     5.2686256818386, 7.105742988925982 };
	static const double sd[] = { -0.6123724356957945, 1.6653345369377348e-16,
				     0.48296291314453466, 0.12940952255126037 };
	static const double pa[] = { 3.3113900378907246, 3.7250025969142437,
				     7.105742988925983 };
	static const double pd[] = { -0.6470476127563018, 1.1102230246251565e-16,
				     2.061261175129397 };
	static const double x8[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double ca[4], cd[4];
	struct bcn_wavedec d;

	assert_int_equal(bcn_dwt(x, 5, 2, BCN_DWT_SYMMETRIC, ca, cd), 0);
	for (int i = 0; i < 4; i++) {
		assert_close(ca[i], sa[i], 7.2, 1e-14);
		assert_close(cd[i], sd[i], 7.2, 1e-14);
	}
	assert_int_equal(bcn_dwt(x, 5, 2, BCN_DWT_PERIODIZATION, ca, cd), 0);
	for (int i = 0; i < 3; i++) {
		assert_close(ca[i], pa[i], 7.2, 1e-14);
		assert_close(cd[i], pd[i], 7.2, 1e-14);
	}
	/* pywt's docstring: wavedec([1..8], 'db1', level=2) */
	assert_int_equal(bcn_wavedec(x8, 8, 1, BCN_DWT_SYMMETRIC, 2, &d), 0);
	assert_int_equal(d.level, 2);
	assert_int_equal(d.total, 8);
	assert_close(d.c[0], 5, 13, 1e-15);
	assert_close(d.c[1], 13, 13, 1e-15);
	assert_close(d.c[2], -2, 13, 1e-15);
	assert_close(d.c[3], -2, 13, 1e-15);
	for (int i = 4; i < 8; i++)
		assert_close(d.c[i], -sqrt(0.5), 13, 1e-15);
	bcn_wavedec_free(&d);
	(void)st;
}

/* waverec(wavedec(x)) == x, and the extra sample of an odd length. */
static void roundtrip(const double *x, size_t n, int w, int mode, int level)
{
	struct bcn_wavedec d;
	double out[NMAX + 1], scale = 0;
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		scale = fmax(scale, fabs(x[i]));
	assert_int_equal(bcn_wavedec(x, n, w, mode, level, &d), 0);
	assert_int_equal(bcn_waverec_len(&d), d.level ? n + (n & 1) : n);
	assert_int_equal(bcn_waverec(&d, out, sizeof(out) / sizeof(*out), &len), 0);
	assert_int_equal(len, bcn_waverec_len(&d));
	for (size_t i = 0; i < n; i++)
		assert_close(out[i], x[i], scale, 1e-12);
	bcn_wavedec_free(&d);
}

static void test_perfect_reconstruction(void **st)
{
	double x[NMAX];

	for (int w = 1; w <= WMAX; w++) {
		for (int mode = 0; mode < BCN_DWT_MODES; mode++) {
			for (size_t n = 1; n <= NMAX; n++) {
				int top = bcn_dwt_max_level(n, w);

				for (size_t i = 0; i < n; i++)
					x[i] = rnd() * 1000;
				for (int level = 0; level <= top + 2; level++)
					roundtrip(x, n, w, mode, level);
			}
		}
	}
	(void)st;
}

static void test_single_level(void **st)
{
	double x[NMAX], ca[NMAX], cd[NMAX], out[2 * NMAX];
	size_t len;

	for (int w = 1; w <= WMAX; w++) {
		for (int mode = 0; mode < BCN_DWT_MODES; mode++) {
			for (size_t n = 1; n <= NMAX; n++) {
				size_t m = bcn_dwt_coeff_len(n, w, mode);

				for (size_t i = 0; i < n; i++)
					x[i] = rnd();
				assert_int_equal(bcn_dwt(x, n, w, mode, ca, cd), 0);
				assert_int_equal(bcn_idwt(ca, cd, m, w, mode, out, &len), 0);
				assert_int_equal(len, n + (n & 1));
				for (size_t i = 0; i < n; i++)
					assert_close(out[i], x[i], 1, 1e-12);
			}
		}
	}
	(void)st;
}

static const struct {
	double x, t, soft, hard;
} thr_table[] = {
	/* pywt.threshold(x, t, 'soft' | 'hard'), pywt 1.1.1 */
	{ -3, 1, -2, -3 }, { -1, 1, 0, -1 }, { -0.5, 1, 0, 0 }, { 0.5, 1, 0, 0 },
	{ 1, 1, 0, 1 }, { 3, 1, 2, 3 }, { 0, 1, 0, 0 }, { 2.5, 0, 2.5, 2.5 },
	{ 1e300, 1e299, 9e299, 1e300 }, { -1e-300, 2e-300, 0, 0 },
	/* pywt gives NaN for soft (0/0); 0 stays 0 here */
	{ 0, 0, 0, 0 },
};

static void test_threshold(void **st)
{
	for (size_t i = 0; i < sizeof(thr_table) / sizeof(*thr_table); i++) {
		double s = thr_table[i].x, h = thr_table[i].x;

		bcn_dwt_threshold(&s, 1, thr_table[i].t, true);
		bcn_dwt_threshold(&h, 1, thr_table[i].t, false);
		assert_close(s, thr_table[i].soft, fabs(thr_table[i].x), 1e-15);
		assert_true(h == thr_table[i].hard);
	}
	{
		double v = NAN;

		bcn_dwt_threshold(&v, 1, 1, true);
		assert_true(isnan(v));
		v = NAN;
		bcn_dwt_threshold(&v, 1, 1, false);
		assert_true(isnan(v));
	}
	bcn_dwt_threshold(NULL, 0, 1, true);
	(void)st;
}

static void test_universal(void **st)
{
	/* haar, level 1: cD_1 = (x[2k] - x[2k+1]) / sqrt 2 */
	static const double x[] = { 0, 2, 0, 4, 0, 6, 0, 8 };
	struct bcn_wavedec d;
	double t, want;

	assert_int_equal(bcn_wavedec(x, 8, 1, 0, 1, &d), 0);
	/* |cD_1| = 2, 4, 6, 8 over sqrt 2: median 5 / sqrt 2 */
	want = 5 / sqrt(2) / 0.6745 * sqrt(2 * log(8));
	t = bcn_dwt_universal_threshold(&d);
	assert_close(t, want, 0, 1e-15);
	bcn_wavedec_free(&d);
	assert_int_equal(bcn_wavedec(x, 7, 1, 0, 1, &d), 0);
	/* |cD_1| = 2, 4, 6, 0 (the last pair mirrored): (2 + 4) / 2 */
	want = 3 / sqrt(2) / 0.6745 * sqrt(2 * log(7));
	assert_close(bcn_dwt_universal_threshold(&d), want, 0, 1e-15);
	bcn_wavedec_free(&d);
	assert_int_equal(bcn_wavedec(x, 1, 1, 0, 0, &d), 0);
	assert_int_equal(d.level, 0);
	assert_true(isnan(bcn_dwt_universal_threshold(&d)));
	bcn_wavedec_free(&d);
	assert_true(isnan(bcn_dwt_universal_threshold(NULL)));
	(void)st;
}

static void test_denoise(void **st)
{
	struct bcn_dwt_denoise_opts o;
	double x[512], y[512], one = 42, z;
	double err_in = 0, err_out = 0;

	bcn_dwt_denoise_opts_defaults(&o);
	assert_int_equal(o.wavelet, 4);
	assert_int_equal(o.mode, BCN_DWT_SYMMETRIC);
	assert_true(o.soft && o.scale == 1.0 && o.level == 0);
	/* a smooth wave and noise: denoising at level 4 brings it closer to
	 * the wave (squared error about 170 before, 12 after with pywt) */
	o.level = 4;
	for (int i = 0; i < 512; i++) {
		double clean = 10 * sin(i / 40.0);

		x[i] = clean + rnd();
		err_in += (x[i] - clean) * (x[i] - clean);
	}
	assert_int_equal(bcn_dwt_denoise(x, 512, &o, y), 0);
	for (int i = 0; i < 512; i++) {
		double clean = 10 * sin(i / 40.0);

		err_out += (y[i] - clean) * (y[i] - clean);
	}
	if (!(err_out < err_in / 4))
		fail_msg("squared error %g before, %g after", err_in, err_out);
	/* in place gives the same */
	assert_int_equal(bcn_dwt_denoise(x, 512, &o, x), 0);
	assert_memory_equal(x, y, sizeof(x));
	/* 0 and 1 samples, and too short for a level: a copy */
	o.level = 0;
	assert_int_equal(bcn_dwt_denoise(NULL, 0, &o, NULL), 0);
	assert_int_equal(bcn_dwt_denoise(&one, 1, &o, &z), 0);
	assert_true(z == 42);
	assert_int_equal(bcn_dwt_denoise(x, 6, &o, y), 0);
	assert_memory_equal(x, y, 6 * sizeof(*x));
	/* a constant stays constant (pywt: NaN, soft(0, 0)) */
	for (int i = 0; i < 64; i++)
		x[i] = 3.25;
	o.wavelet = 1;
	assert_int_equal(bcn_dwt_denoise(x, 64, &o, y), 0);
	for (int i = 0; i < 64; i++)
		assert_close(y[i], 3.25, 0, 1e-14);
	(void)st;
}

static void test_errors(void **st)
{
	double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, ca[8], cd[8], out[16];
	struct bcn_dwt_denoise_opts o;
	struct bcn_wavedec d;
	size_t len;

	assert_int_equal(bcn_dwt(NULL, 8, 1, 0, ca, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, 0, 1, 0, ca, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, 8, 0, 0, ca, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, 8, 11, 0, ca, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, 8, 1, -1, ca, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, 8, 1, BCN_DWT_MODES, ca, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, 8, 1, 0, NULL, cd), -EINVAL);
	assert_int_equal(bcn_dwt(x, BCN_DWT_LEN_MAX + 1, 1, 0, ca, cd), -E2BIG);
	x[3] = NAN;
	assert_int_equal(bcn_dwt(x, 8, 1, 0, ca, cd), -EDOM);
	assert_int_equal(bcn_wavedec(x, 8, 1, 0, 0, &d), -EDOM);
	assert_null(d.c);
	bcn_wavedec_free(&d);
	x[3] = INFINITY;
	assert_int_equal(bcn_dwt(x, 8, 1, 0, ca, cd), -EDOM);
	x[2] = 1.7e308;         /* (x[2] + x[3]) / sqrt 2 overflows */
	x[3] = 1.7e308;
	assert_int_equal(bcn_dwt(x, 8, 1, 0, ca, cd), -ERANGE);
	x[2] = 3;
	x[3] = 4;
	assert_int_equal(bcn_idwt(NULL, NULL, 4, 1, 0, out, &len), -EINVAL);
	assert_int_equal(bcn_idwt(x, x, 3, 4, 0, out, &len), -EINVAL);
	assert_int_equal(bcn_idwt(x, NULL, 3, 4, BCN_DWT_PERIODIZATION, out, &len), 0);
	assert_int_equal(len, 6);
	assert_int_equal(bcn_wavedec(x, 8, 1, 0, BCN_DWT_LEVEL_MAX + 1, &d), -EINVAL);
	assert_int_equal(bcn_wavedec(x, 0, 1, 0, 0, &d), -EINVAL);
	assert_int_equal(bcn_wavedec(x, 8, 1, 0, BCN_DWT_LEVEL_MAX, &d), 0);
	assert_int_equal(d.level, BCN_DWT_LEVEL_MAX);
	assert_int_equal(bcn_waverec(&d, out, 7, &len), -ENOBUFS);
	assert_int_equal(len, 8);
	d.len[1]++;     /* inconsistent */
	assert_int_equal(bcn_waverec(&d, out, 16, &len), -EINVAL);
	assert_int_equal(bcn_waverec_len(&d), 0);
	d.len[1]--;
	assert_int_equal(bcn_waverec(&d, out, 16, &len), 0);
	d.c[0] = NAN;
	assert_int_equal(bcn_waverec(&d, out, 16, &len), -EDOM);
	bcn_wavedec_free(&d);
	assert_int_equal(bcn_waverec(&d, out, 16, &len), -EINVAL);
	assert_null(bcn_wavedec_array(&d, 0, &len));
	bcn_wavedec_free(NULL);
	bcn_dwt_denoise_opts_defaults(&o);
	assert_int_equal(bcn_dwt_denoise(x, 8, NULL, out), -EINVAL);
	o.scale = -1;
	assert_int_equal(bcn_dwt_denoise(x, 8, &o, out), -EINVAL);
	o.scale = NAN;
	assert_int_equal(bcn_dwt_denoise(x, 8, &o, out), -EINVAL);
	o.scale = 1;
	o.wavelet = 0;
	assert_int_equal(bcn_dwt_denoise(x, 8, &o, out), -EINVAL);
	o.wavelet = 1;
	assert_int_equal(bcn_dwt_denoise(x, BCN_DWT_LEN_MAX + 1, &o, out), -E2BIG);
	x[0] = -INFINITY;
	assert_int_equal(bcn_dwt_denoise(x, 8, &o, out), -EDOM);
	(void)st;
}

static void test_arrays(void **st)
{
	double x[100];
	struct bcn_wavedec d;
	size_t len, sum = 0;

	for (int i = 0; i < 100; i++)
		x[i] = i;
	assert_int_equal(bcn_wavedec(x, 100, 2, 0, 0, &d), 0);
	assert_int_equal(d.level, 5);
	assert_int_equal(d.n, 100);
	for (int i = 0; i <= d.level; i++) {
		assert_ptr_equal(bcn_wavedec_array(&d, i, &len), d.c + sum);
		assert_int_equal(len, d.len[i]);
		sum += len;
	}
	assert_int_equal(sum, d.total);
	assert_int_equal(d.len[d.level], 51);       /* cD_1 */
	assert_null(bcn_wavedec_array(&d, d.level + 1, &len));
	assert_null(bcn_wavedec_array(&d, -1, &len));
	bcn_wavedec_free(&d);
	(void)st;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_known_coeffs),
		cmocka_unit_test(test_perfect_reconstruction),
		cmocka_unit_test(test_single_level),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_universal),
		cmocka_unit_test(test_denoise),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_arrays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
