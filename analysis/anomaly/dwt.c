/* The discrete wavelet transform (dwt.h): the Daubechies filters, one
 * level of analysis and synthesis under each border mode, the multilevel
 * decomposition and reconstruction, thresholding and denoising, all
 * computed as PyWavelets does (docs/wavelets.md). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/dwt.h"
#include "analysis/anomaly/median.h"

#define DB_MAX 10
#define TAPS_MAX (2 * DB_MAX)

/* The Daubechies extremal-phase scaling filters h (pywt's rec_lo), db1 to
 * db10 one after the other, 2N taps for dbN, normalised to sum sqrt(2).
 * Computed for this file by spectral factorisation in 50-digit arithmetic
 * (the roots of sum_k C(N-1+k, k) y^k, mapped to z inside the unit circle,
 * times (1 + z)^N); they agree with the published tables and with pywt's
 * filters to the last bit of a double. */
static const double scaling[] = {
	/* db1 */
	0.70710678118654752440, 0.70710678118654752440,
	/* db2 */
	0.48296291314453414337, 0.83651630373780790558, 0.22414386804201338103,
	-0.12940952255126038117,
	/* db3 */
	0.33267055295008261600, 0.80689150931109257649, 0.45987750211849157010,
	-0.13501102001025458870, -0.085441273882026661693, 0.035226291885709536603,
	/* db4 */
	0.23037781330889650086, 0.71484657055291564709, 0.63088076792985890788,
	-0.027983769416859854211, -0.18703481171909308408, 0.030841381835560763627,
	0.032883011666885199735, -0.010597401785069032105,
	/* db5 */
	0.16010239797419291448, 0.60382926979718967054, 0.72430852843777292773,
	0.13842814590132073151, -0.24229488706638203186, -0.032244869584638374648,
	0.077571493840045713523, -0.0062414902127982742742, -0.012580751999081999469,
	0.0033357252854737712780,
	/* db6 */
	0.11154074335010946362, 0.49462389039845308568, 0.75113390802109535068,
	0.31525035170919762909, -0.22626469396543982008, -0.12976686756726193556,
	0.097501605587323049102, 0.027522865530305728626, -0.031582039317486029565,
	0.00055384220116149613925, 0.0047772575109455106396, -0.0010773010853084795649,
	/* db7 */
	0.077852054085009179020, 0.39653931948191730654, 0.72913209084623511992,
	0.46978228740519312247, -0.14390600392856497541, -0.22403618499387498264,
	0.071309219266830264751, 0.080612609151083071913, -0.038029936935014413580,
	-0.016574541630666880654, 0.012550998556099840613, 0.00042957797292136652113,
	-0.0018016407040474909153, 0.00035371379997452024845,
	/* db8 */
	0.054415842243104009955, 0.31287159091429997066, 0.67563073629728980681,
	0.58535468365420671277, -0.015829105256349305667, -0.28401554296154692652,
	0.00047248457391328277036, 0.12874742662047845886, -0.017369301001807546170,
	-0.044088253930794751507, 0.013981027917398281649, 0.0087460940474057767164,
	-0.0048703529934515743104, -0.00039174037337694704630, 0.00067544940645056936637,
	-0.00011747678412476953373,
	/* db9 */
	0.038077947363878346589, 0.24383467461259035373, 0.60482312369011111190,
	0.65728807805130053808, 0.13319738582500757619, -0.29327378327917490881,
	-0.096840783222976460514, 0.14854074933810638014, 0.030725681479333379212,
	-0.067632829061329973676, 0.00025094711483145195759, 0.022361662123679097205,
	-0.0047232047577513972779, -0.0042815036824634298345, 0.0018476468830562264766,
	0.00023038576352319596721, -0.00025196318894271013697, 0.000039347320316271599481,
	/* db10 */
	0.026670057900555553587, 0.18817680007769148902, 0.52720118893172558648,
	0.68845903945360356574, 0.28117234366057746075, -0.24984642432731537942,
	-0.19594627437737704350, 0.12736934033579326008, 0.093057364603572351160,
	-0.071394147166397087145, -0.029457536821875812858, 0.033212674059341001740,
	0.0036065535669561696554, -0.010733175483330575044, 0.0013953517470529011658,
	0.0019924052951850561172, -0.00068585669495971162656, -0.00011646685512928545095,
	0.000093588670320069591334, -0.000013264202894521244812,
};

struct filt {
	size_t taps;
	double lo[TAPS_MAX];    /* dec_lo */
	double hi[TAPS_MAX];    /* dec_hi */
};

static const char *const mode_names[BCN_DWT_MODES] = {
	[BCN_DWT_SYMMETRIC] = "symmetric",
	[BCN_DWT_PERIODIZATION] = "periodization",
	[BCN_DWT_ZERO] = "zero",
	[BCN_DWT_CONSTANT] = "constant",
	[BCN_DWT_PERIODIC] = "periodic",
	[BCN_DWT_REFLECT] = "reflect",
};

static const char *const wavelet_names[DB_MAX + 1] = {
	NULL, "haar", "db2", "db3", "db4", "db5", "db6", "db7", "db8", "db9",
	"db10",
};

static bool wavelet_ok(int w)
{
	return w >= 1 && w <= DB_MAX;
}

static bool mode_ok(int mode)
{
	return mode >= 0 && mode < BCN_DWT_MODES;
}

int bcn_wavelet_parse(const char *name, int *w)
{
	char buf[8];

	if (!name || !w)
		return -EINVAL;
	if (!strcmp(name, "haar")) {
		*w = BCN_WAVELET_HAAR;
		return 0;
	}
	for (int i = 1; i <= DB_MAX; i++) {
		snprintf(buf, sizeof(buf), "db%d", i);
		if (!strcmp(name, buf)) {
			*w = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *bcn_wavelet_name(int w)
{
	return wavelet_ok(w) ? wavelet_names[w] : NULL;
}

size_t bcn_wavelet_taps(int w)
{
	return wavelet_ok(w) ? 2 * (size_t)w : 0;
}

int bcn_wavelet_filters(int w, double *dec_lo, double *dec_hi,
			double *rec_lo, double *rec_hi)
{
	size_t f, off = 0;
	const double *h;

	if (!wavelet_ok(w))
		return -EINVAL;
	for (int i = 1; i < w; i++)
		off += 2 * (size_t)i;
	h = scaling + off;
	f = 2 * (size_t)w;
	/* pywt: rec_lo = h, dec_lo = rec_lo reversed, rec_hi[k] =
	 * (-1)^k h[f-1-k], dec_hi = rec_hi reversed */
	for (size_t k = 0; k < f; k++) {
		double sign = (k & 1) ? -1.0 : 1.0;

		if (rec_lo)
			rec_lo[k] = h[k];
		if (dec_lo)
			dec_lo[k] = h[f - 1 - k];
		if (rec_hi)
			rec_hi[k] = sign * h[f - 1 - k];
		if (dec_hi)
			dec_hi[k] = -sign * h[k];
	}
	return 0;
}

static void filt_get(int w, struct filt *f)
{
	f->taps = bcn_wavelet_taps(w);
	bcn_wavelet_filters(w, f->lo, f->hi, NULL, NULL);
}

int bcn_dwt_mode_parse(const char *name, int *mode)
{
	if (!name || !mode)
		return -EINVAL;
	for (int i = 0; i < BCN_DWT_MODES; i++) {
		if (!strcmp(name, mode_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *bcn_dwt_mode_name(int mode)
{
	return mode_ok(mode) ? mode_names[mode] : NULL;
}

size_t bcn_dwt_coeff_len(size_t n, int wavelet, int mode)
{
	if (!n || n > BCN_DWT_LEN_MAX || !wavelet_ok(wavelet) || !mode_ok(mode))
		return 0;
	if (mode == BCN_DWT_PERIODIZATION)
		return (n + 1) / 2;
	return (n + bcn_wavelet_taps(wavelet) - 1) / 2;
}

size_t bcn_idwt_len(size_t m, int wavelet, int mode)
{
	size_t f = bcn_wavelet_taps(wavelet);

	if (!m || m > BCN_DWT_LEN_MAX || !f || !mode_ok(mode))
		return 0;
	if (mode == BCN_DWT_PERIODIZATION)
		return 2 * m;
	return 2 * m + 2 > f ? 2 * m + 2 - f : 0;
}

int bcn_dwt_max_level(size_t n, int wavelet)
{
	size_t f = bcn_wavelet_taps(wavelet), q;
	int level = 0;

	if (!f)
		return -EINVAL;
	if (n < f - 1)
		return 0;
	/* floor(log2(n / (f - 1))) == floor(log2(floor(n / (f - 1)))) */
	for (q = n / (f - 1); q > 1; q >>= 1)
		level++;
	return level;
}

static bool all_finite(const double *x, size_t n)
{
	uint64_t bad = 0;

	/* an all-ones exponent is an infinity or a NaN; no branch, so that
	 * the compiler vectorises the loop */
	for (size_t i = 0; i < n; i++) {
		uint64_t u;

		memcpy(&u, &x[i], sizeof(u));
		bad |= (~u & UINT64_C(0x7ff0000000000000)) == 0;
	}
	return !bad;
}

/* ---- one level ---- */

/* mathematical modulo, 0 <= result < p */
static ptrdiff_t mod(ptrdiff_t i, ptrdiff_t p)
{
	ptrdiff_t m = i % p;

	return m < 0 ? m + p : m;
}

/* Sample i (any integer) of x[0..n) extended by mode (not periodization). */
static double ext(const double *x, size_t n, ptrdiff_t i, int mode)
{
	ptrdiff_t len = (ptrdiff_t)n, m;

	if (i >= 0 && i < len)
		return x[i];
	switch (mode) {
	case BCN_DWT_ZERO:
		return 0;
	case BCN_DWT_CONSTANT:
		return i < 0 ? x[0] : x[n - 1];
	case BCN_DWT_PERIODIC:
		return x[mod(i, len)];
	case BCN_DWT_REFLECT:
		if (len == 1)
			return x[0];
		m = mod(i, 2 * len - 2);
		return m < len ? x[m] : x[2 * len - 2 - m];
	default:        /* symmetric */
		m = mod(i, 2 * len);
		return m < len ? x[m] : x[2 * len - 1 - m];
	}
}

/* Sample i of x[0..n) under periodization: period n, or n + 1 for an odd
 * n whose last sample is then repeated. */
static double ext_per(const double *x, size_t n, ptrdiff_t i)
{
	ptrdiff_t p = (ptrdiff_t)(n + (n & 1)), m = mod(i, p);

	return m < (ptrdiff_t)n ? x[m] : x[n - 1];
}

/* One level of analysis, m coefficients of each kind:
 *   c[k] = sum_j filter[j] * X[s + 2k - j]
 * with s = 1 (pywt's first full output) or taps/2 under periodization,
 * X the extended signal. */
static void analyse(const double *x, size_t n, const struct filt *f,
		    int mode, double *ca, double *cd, size_t m)
{
	ptrdiff_t s = mode == BCN_DWT_PERIODIZATION ? (ptrdiff_t)f->taps / 2 : 1;
	ptrdiff_t taps = (ptrdiff_t)f->taps, len = (ptrdiff_t)n;

	for (size_t k = 0; k < m; k++) {
		ptrdiff_t i = s + 2 * (ptrdiff_t)k;
		double a = 0, d = 0;

		if (i - (taps - 1) >= 0 && i < len) {
			const double *p = x + i;

			for (ptrdiff_t j = 0; j < taps; j++) {
				a += f->lo[j] * p[-j];
				d += f->hi[j] * p[-j];
			}
		} else {
			for (ptrdiff_t j = 0; j < taps; j++) {
				double v = mode == BCN_DWT_PERIODIZATION ?
					ext_per(x, n, i - j) :
					ext(x, n, i - j, mode);

				a += f->lo[j] * v;
				d += f->hi[j] * v;
			}
		}
		ca[k] = a;
		cd[k] = d;
	}
}

/* Adds the synthesis of c[0..m) with analysis filter h into out[0..len),
 * outside periodization: the transpose of analyse restricted to the
 * samples every term of which exists, pywt's valid part,
 *   out[2p] += sum_i c[p + i] h[2i + 1],  out[2p + 1] += sum_i c[p + i] h[2i]
 * (len = 2m - taps + 2, so p + i < m throughout). */
static void synth_valid(const double *c, const double *h, size_t taps,
			double *out, size_t len)
{
	size_t half = taps / 2;

	for (size_t p = 0; 2 * p < len; p++) {
		const double *q = c + p;
		double even = 0, odd = 0;

		for (size_t i = 0; i < half; i++) {
			even += q[i] * h[2 * i + 1];
			odd += q[i] * h[2 * i];
		}
		out[2 * p] += even;
		if (2 * p + 1 < len)
			out[2 * p + 1] += odd;
	}
}

/* Adds the synthesis of c[0..m) with analysis filter h into out[0..2m)
 * under periodization: the transpose of analyse, each product scattered
 * to its sample modulo 2m. */
static void synth_per(const double *c, size_t m, const double *h,
		      size_t taps, double *out)
{
	ptrdiff_t p = 2 * (ptrdiff_t)m, t = (ptrdiff_t)taps;

	for (size_t k = 0; k < m; k++) {
		ptrdiff_t i = t / 2 + 2 * (ptrdiff_t)k;

		if (i - (t - 1) >= 0 && i < p) {
			for (ptrdiff_t j = 0; j < t; j++)
				out[i - j] += c[k] * h[j];
		} else {
			for (ptrdiff_t j = 0; j < t; j++)
				out[mod(i - j, p)] += c[k] * h[j];
		}
	}
}

/* Both syntheses of synth_valid in one pass, out[n] = (its sum over ca)
 * + (its sum over cd), the same rounding as the two passes over a zeroed
 * out. */
static void synth_valid2(const double *ca, const double *cd,
			 const struct filt *f, double *out, size_t len)
{
	size_t half = f->taps / 2;

	for (size_t p = 0; 2 * p < len; p++) {
		double ae = 0, ao = 0, de = 0, dd = 0;

		for (size_t i = 0; i < half; i++) {
			ae += ca[p + i] * f->lo[2 * i + 1];
			ao += ca[p + i] * f->lo[2 * i];
			de += cd[p + i] * f->hi[2 * i + 1];
			dd += cd[p + i] * f->hi[2 * i];
		}
		out[2 * p] = ae + de;
		if (2 * p + 1 < len)
			out[2 * p + 1] = ao + dd;
	}
}

/* One level of synthesis into out[0..len), len bcn_idwt_len(m) or, outside
 * periodization, less (its first samples); checked args. */
static void synthesise(const double *ca, const double *cd, size_t m,
		       const struct filt *f, int mode, double *out, size_t len)
{
	if (ca && cd && mode != BCN_DWT_PERIODIZATION) {
		synth_valid2(ca, cd, f, out, len);
		return;
	}
	memset(out, 0, len * sizeof(*out));
	if (mode == BCN_DWT_PERIODIZATION) {
		if (ca)
			synth_per(ca, m, f->lo, f->taps, out);
		if (cd)
			synth_per(cd, m, f->hi, f->taps, out);
	} else {
		if (ca)
			synth_valid(ca, f->lo, f->taps, out, len);
		if (cd)
			synth_valid(cd, f->hi, f->taps, out, len);
	}
}

int bcn_dwt(const double *x, size_t n, int wavelet, int mode, double *ca,
	    double *cd)
{
	struct filt f;
	size_t m;

	if (!x || !ca || !cd || !n || !wavelet_ok(wavelet) || !mode_ok(mode))
		return -EINVAL;
	if (n > BCN_DWT_LEN_MAX)
		return -E2BIG;
	if (!all_finite(x, n))
		return -EDOM;
	filt_get(wavelet, &f);
	m = bcn_dwt_coeff_len(n, wavelet, mode);
	analyse(x, n, &f, mode, ca, cd, m);
	if (!all_finite(ca, m) || !all_finite(cd, m))
		return -ERANGE;
	return 0;
}

int bcn_idwt(const double *ca, const double *cd, size_t m, int wavelet,
	     int mode, double *out, size_t *outlen)
{
	struct filt f;
	size_t len;

	if ((!ca && !cd) || !out || !outlen || !m || !wavelet_ok(wavelet) ||
	    !mode_ok(mode))
		return -EINVAL;
	if (m > BCN_DWT_LEN_MAX)
		return -E2BIG;
	len = bcn_idwt_len(m, wavelet, mode);
	if (!len)
		return -EINVAL;
	if ((ca && !all_finite(ca, m)) || (cd && !all_finite(cd, m)))
		return -EDOM;
	filt_get(wavelet, &f);
	synthesise(ca, cd, m, &f, mode, out, len);
	*outlen = len;
	return all_finite(out, len) ? 0 : -ERANGE;
}

/* ---- several levels ---- */

void bcn_wavedec_free(struct bcn_wavedec *d)
{
	if (!d)
		return;
	free(d->c);
	memset(d, 0, sizeof(*d));
}

double *bcn_wavedec_array(const struct bcn_wavedec *d, int i, size_t *len)
{
	size_t off = 0;

	if (!d || !d->c || i < 0 || i > d->level || d->level > BCN_DWT_LEVEL_MAX)
		return NULL;
	for (int k = 0; k < i; k++)
		off += d->len[k];
	if (len)
		*len = d->len[i];
	return d->c + off;
}

/* Fills d's lengths for n samples at level, allocates d->c. */
static int wavedec_layout(struct bcn_wavedec *d, size_t n, int wavelet,
			  int mode, int level)
{
	size_t a = n;

	memset(d, 0, sizeof(*d));
	d->wavelet = wavelet;
	d->mode = mode;
	d->level = level;
	d->n = n;
	for (int l = 1; l <= level; l++) {
		a = bcn_dwt_coeff_len(a, wavelet, mode);
		d->len[level + 1 - l] = a;
		d->total += a;
	}
	d->len[0] = a;
	d->total += a;
	d->c = malloc(d->total * sizeof(*d->c));
	return d->c ? 0 : -ENOMEM;
}

int bcn_wavedec(const double *x, size_t n, int wavelet, int mode, int level,
		struct bcn_wavedec *out)
{
	double *buf[2] = { NULL, NULL }, *cd;
	const double *a = x;
	struct filt f;
	size_t big = 0;
	int rc;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!x || !out || !n || !wavelet_ok(wavelet) || !mode_ok(mode) ||
	    level > BCN_DWT_LEVEL_MAX)
		return -EINVAL;
	if (n > BCN_DWT_LEN_MAX)
		return -E2BIG;
	if (!all_finite(x, n))
		return -EDOM;
	if (level <= 0)
		level = bcn_dwt_max_level(n, wavelet);
	rc = wavedec_layout(out, n, wavelet, mode, level);
	if (rc)
		goto out;
	if (!level) {
		memcpy(out->c, x, n * sizeof(*x));
		goto out;
	}
	/* the approximations between the levels alternate in two buffers
	 * (above the maximum level they may grow from one to the next) */
	for (int l = 1; l <= level; l++)
		big = out->len[l] > big ? out->len[l] : big;
	buf[0] = malloc(2 * big * sizeof(double));
	if (!buf[0]) {
		rc = -ENOMEM;
		goto out;
	}
	buf[1] = buf[0] + big;
	filt_get(wavelet, &f);
	cd = out->c + out->total;
	for (int l = 1; l <= level; l++) {
		size_t m = out->len[level + 1 - l];
		double *ca = l == level ? out->c : buf[l & 1];

		cd -= m;
		analyse(a, l == 1 ? n : out->len[level + 2 - l], &f, mode, ca,
			cd, m);
		a = ca;
	}
	if (!all_finite(out->c, out->total))
		rc = -ERANGE;
out:
	free(buf[0]);
	if (rc)
		bcn_wavedec_free(out);
	return rc;
}

/* Whether d's lengths are those waverec can take (pywt's checks), and the
 * largest length any of its steps gives, in *big. */
static bool wavedec_ok(const struct bcn_wavedec *d, size_t *big)
{
	size_t a, sum = 0;

	if (!d || !wavelet_ok(d->wavelet) || !mode_ok(d->mode) ||
	    d->level < 0 || d->level > BCN_DWT_LEVEL_MAX || !d->c)
		return false;
	for (int i = 0; i <= d->level; i++) {
		if (!d->len[i] || d->len[i] > BCN_DWT_LEN_MAX)
			return false;
		sum += d->len[i];
	}
	if (sum != d->total)
		return false;
	a = d->len[0];
	*big = a;
	for (int i = 1; i <= d->level; i++) {
		if (a != d->len[i] && a != d->len[i] + 1)
			return false;
		a = bcn_idwt_len(d->len[i], d->wavelet, d->mode);
		if (!a)
			return false;
		*big = a > *big ? a : *big;
	}
	return true;
}

size_t bcn_waverec_len(const struct bcn_wavedec *d)
{
	size_t big;

	if (!wavedec_ok(d, &big))
		return 0;
	if (!d->level)
		return d->len[0];
	return bcn_idwt_len(d->len[d->level], d->wavelet, d->mode);
}

/* The reconstruction of d, checked by the caller, its first lim samples
 * into out: the steps alternate in a scratch buffer, the last goes to out
 * directly when it is all wanted or computed as a prefix (a gather), else
 * through the scratch. */
static int reconstruct(const struct bcn_wavedec *d, size_t big, double *out,
		       size_t lim)
{
	double *buf, *dst;
	const double *a = d->c, *cd = d->c + d->len[0];
	struct filt f;

	if (!d->level) {
		memcpy(out, d->c, lim * sizeof(*out));
		return 0;
	}
	buf = malloc(2 * big * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	filt_get(d->wavelet, &f);
	for (int i = 1; i <= d->level; i++) {
		size_t m = d->len[i], len = bcn_idwt_len(m, d->wavelet, d->mode);

		/* a one sample longer than cd loses its last (pywt) */
		dst = buf + (i & 1) * big;
		if (i == d->level && (lim == len || d->mode != BCN_DWT_PERIODIZATION)) {
			dst = out;
			len = lim;
		}
		synthesise(a, cd, m, &f, d->mode, dst, len);
		a = dst;
		cd += m;
	}
	if (a != out)
		memcpy(out, a, lim * sizeof(*out));
	free(buf);
	return all_finite(out, lim) ? 0 : -ERANGE;
}

int bcn_waverec(const struct bcn_wavedec *d, double *out, size_t cap,
		size_t *outlen)
{
	size_t len, big;

	if (!out || !outlen || !wavedec_ok(d, &big))
		return -EINVAL;
	len = bcn_waverec_len(d);
	*outlen = len;
	if (cap < len)
		return -ENOBUFS;
	if (!all_finite(d->c, d->total))
		return -EDOM;
	return reconstruct(d, big, out, len);
}

/* ---- thresholds and denoising ---- */

void bcn_dwt_threshold(double *c, size_t n, double t, bool soft)
{
	for (size_t i = 0; i < n; i++) {
		double mag = fabs(c[i]), k;

		if (!soft) {
			if (mag < t)
				c[i] = 0;
			continue;
		}
		if (mag == 0)
			continue;       /* t/0 is inf, clipped to 0: stays 0 */
		k = 1 - t / mag;
		if (k < 0)
			k = 0;
		c[i] *= k;
	}
}

/* numpy.median of |c[0..n)|, n >= 1; NaN when out of memory. */
static double median_abs(const double *c, size_t n)
{
	double *v = malloc(n * sizeof(*v)), r;

	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(c[i]);
	r = bcn_median(v, n);
	free(v);
	return r;
}

double bcn_dwt_universal_threshold(const struct bcn_wavedec *d)
{
	size_t big, m;
	const double *cd1;

	if (!wavedec_ok(d, &big) || d->level < 1 || !d->n)
		return NAN;
	m = d->len[d->level];
	cd1 = d->c + d->total - m;
	return median_abs(cd1, m) / 0.6745 * sqrt(2 * log((double)d->n));
}

void bcn_dwt_denoise_opts_defaults(struct bcn_dwt_denoise_opts *o)
{
	o->wavelet = BCN_WAVELET_DB4;
	o->mode = BCN_DWT_SYMMETRIC;
	o->level = 0;
	o->soft = true;
	o->scale = 1.0;
}

int bcn_dwt_denoise(const double *x, size_t n,
		    const struct bcn_dwt_denoise_opts *o, double *out)
{
	struct bcn_wavedec d = { 0 };
	size_t big;
	double t;
	int rc;

	if (!o || (n && (!x || !out)) || !wavelet_ok(o->wavelet) ||
	    !mode_ok(o->mode) || !isfinite(o->scale) || o->scale < 0 ||
	    o->level > BCN_DWT_LEVEL_MAX)
		return -EINVAL;
	if (n > BCN_DWT_LEN_MAX)
		return -E2BIG;
	if (!all_finite(x, n))
		return -EDOM;
	rc = n > 1 ? bcn_wavedec(x, n, o->wavelet, o->mode, o->level, &d) : 0;
	if (rc)
		goto out;
	if (n <= 1 || !d.level) {
		if (n)
			memmove(out, x, n * sizeof(*x));
		goto out;
	}
	t = bcn_dwt_universal_threshold(&d);
	if (isnan(t)) {
		rc = -ENOMEM;
		goto out;
	}
	bcn_dwt_threshold(d.c + d.len[0], d.total - d.len[0], t * o->scale,
			  o->soft);
	if (!wavedec_ok(&d, &big) || bcn_waverec_len(&d) < n) {
		rc = -EINVAL;   /* cannot happen: d is bcn_wavedec's */
		goto out;
	}
	rc = reconstruct(&d, big, out, n);
out:
	bcn_wavedec_free(&d);
	return rc;
}
