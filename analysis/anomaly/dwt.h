/* The discrete wavelet transform of a 1-D signal (docs/wavelets.md), equal
 * to PyWavelets' dwt, idwt, wavedec, waverec and threshold for the
 * Daubechies wavelets db1 (Haar) to db10, and the universal-threshold
 * denoising the anomaly detector runs on its series.
 *
 * Conventions, those of pywt: the analysis filters are dec_lo (the
 * Daubechies scaling filter reversed) and dec_hi; a single level gives
 * approximation cA and detail cD coefficients of bcn_dwt_coeff_len(n)
 * samples each; a multilevel decomposition is ordered [cA_n, cD_n, ...,
 * cD_1], cD_1 the finest.
 *
 * Numbers: every input (signal or coefficients) must be finite, else
 * -EDOM; a result that overflows to infinity (inputs near DBL_MAX) gives
 * -ERANGE. Lengths above BCN_DWT_LEN_MAX give -E2BIG, so that no size
 * arithmetic can overflow. Nothing here prints or exits; errors are
 * negative errno values. */
#ifndef BCN_DWT_H
#define BCN_DWT_H

#include <stdbool.h>
#include <stddef.h>

/* longest signal or coefficient array accepted */
#define BCN_DWT_LEN_MAX ((size_t)1 << 26)
/* deepest decomposition accepted (dwt_max_level of BCN_DWT_LEN_MAX is 26) */
#define BCN_DWT_LEVEL_MAX 32

/* Wavelets: dbN is N (N vanishing moments, 2N taps); Haar is db1. */
enum bcn_wavelet {
	BCN_WAVELET_HAAR = 1,
	BCN_WAVELET_DB1 = 1,
	BCN_WAVELET_DB2 = 2,
	BCN_WAVELET_DB3 = 3,
	BCN_WAVELET_DB4 = 4,
	BCN_WAVELET_DB10 = 10,
};

/* Border extension modes, pywt's of the same names. Symmetric (0, the
 * default) mirrors the signal including its edge sample; periodization
 * treats the signal (its last sample repeated once if the length is odd)
 * as one period and gives ceil(n/2) coefficients, a non-redundant
 * transform; the others give floor((n + taps - 1)/2) coefficients:
 * zero pads with zeros, constant repeats the edge samples, periodic
 * repeats the signal, reflect mirrors it about the edge samples. */
enum bcn_dwt_mode {
	BCN_DWT_SYMMETRIC = 0,
	BCN_DWT_PERIODIZATION,
	BCN_DWT_ZERO,
	BCN_DWT_CONSTANT,
	BCN_DWT_PERIODIC,
	BCN_DWT_REFLECT,
	BCN_DWT_MODES
};

/* Sets *w from a name "haar", "db1" .. "db10" (pywt's names); 0, or
 * -EINVAL for another name. */
int bcn_wavelet_parse(const char *name, int *w);

/* The name of wavelet w ("haar" for db1), or NULL if w is not one. */
const char *bcn_wavelet_name(int w);

/* The number of taps of wavelet w's filters (2N for dbN), 0 if w is not
 * a wavelet. */
size_t bcn_wavelet_taps(int w);

/* The four filters of wavelet w as pywt gives them (dec_lo, dec_hi,
 * rec_lo, rec_hi), each of bcn_wavelet_taps(w) samples; any may be NULL.
 * 0, or -EINVAL. */
int bcn_wavelet_filters(int w, double *dec_lo, double *dec_hi,
			double *rec_lo, double *rec_hi);

/* Sets *mode from a pywt mode name ("symmetric", "periodization", "zero",
 * "constant", "periodic", "reflect"); 0, or -EINVAL. */
int bcn_dwt_mode_parse(const char *name, int *mode);

/* The name of mode, or NULL if it is not one. */
const char *bcn_dwt_mode_name(int mode);

/* pywt.dwt_coeff_len: the length of cA (and of cD) of one level over n
 * samples; 0 if n is 0 or above BCN_DWT_LEN_MAX or the wavelet or mode
 * is unknown. */
size_t bcn_dwt_coeff_len(size_t n, int wavelet, int mode);

/* The length pywt.idwt gives from m coefficients of each kind: 2m in
 * periodization, else 2m - taps + 2; 0 if that is not positive (m too
 * short for the wavelet, an error in pywt) or the arguments are bad. */
size_t bcn_idwt_len(size_t m, int wavelet, int mode);

/* pywt.dwt_max_level: floor(log2(n / (taps - 1))), 0 when n < taps - 1;
 * -EINVAL for an unknown wavelet. */
int bcn_dwt_max_level(size_t n, int wavelet);

/* pywt.dwt(x, wavelet, mode): one level over x[0..n), n >= 1, into ca and
 * cd, each of bcn_dwt_coeff_len(n) samples (not overlapping x). 0, or
 * -EINVAL, -E2BIG, -EDOM, -ERANGE. */
int bcn_dwt(const double *x, size_t n, int wavelet, int mode, double *ca,
	    double *cd);

/* pywt.idwt(ca, cd, wavelet, mode): the signal from m coefficients of
 * each kind, either array NULL meaning zeros (not both), into out of
 * bcn_idwt_len(m) samples, that length also stored in *outlen. 0, or
 * -EINVAL (also m too short for the wavelet), -E2BIG, -EDOM, -ERANGE. */
int bcn_idwt(const double *ca, const double *cd, size_t m, int wavelet,
	     int mode, double *out, size_t *outlen);

/* A multilevel decomposition, pywt's list [cA_level, cD_level, ...,
 * cD_1] in one owned array: array i (0 = cA_level, i >= 1 = cD_(level+1-i))
 * is len[i] samples at c + the sum of len[0..i). */
struct bcn_wavedec {
	int wavelet;
	int mode;
	int level;                              /* 0: c is the signal itself */
	size_t n;                               /* the input's length */
	size_t len[BCN_DWT_LEVEL_MAX + 1];      /* len[0..level] */
	size_t total;                           /* sum of len[0..level] */
	double *c;                              /* malloc'ed, total samples */
};

/* pywt.wavedec(x, wavelet, mode, level): into *out, which the caller
 * frees with bcn_wavedec_free (on error *out holds nothing to free, and
 * freeing it is harmless). level <= 0 means pywt's default,
 * bcn_dwt_max_level(n) (which may be 0: the signal alone). A level above
 * that is computed as pywt does (pywt warns that every coefficient then
 * feels the borders; we do not), up to BCN_DWT_LEVEL_MAX, beyond which
 * -EINVAL. n >= 1. 0, or -EINVAL, -E2BIG, -EDOM, -ERANGE, -ENOMEM. */
int bcn_wavedec(const double *x, size_t n, int wavelet, int mode, int level,
		struct bcn_wavedec *out);

/* Array i of d (see struct bcn_wavedec), its length in *len; NULL if i
 * is out of range. */
double *bcn_wavedec_array(const struct bcn_wavedec *d, int i, size_t *len);

/* The length bcn_waverec gives for d: len[0] at level 0, else
 * bcn_idwt_len(len[level]) (for a d from bcn_wavedec: n, or n + 1 for an
 * odd n, as pywt); 0 if d is inconsistent. */
size_t bcn_waverec_len(const struct bcn_wavedec *d);

/* pywt.waverec(coeffs, wavelet, mode): the signal from d (possibly
 * modified, same lengths) into out[0..cap), its length in *outlen. As in
 * pywt an approximation one sample longer than the next detail array
 * loses its last sample. 0, or -EINVAL (d inconsistent), -ENOBUFS (cap
 * below bcn_waverec_len(d), which is in *outlen), -EDOM, -ERANGE,
 * -ENOMEM. */
int bcn_waverec(const struct bcn_wavedec *d, double *out, size_t cap,
		size_t *outlen);

/* Frees d's array and zeroes d; d may be NULL. */
void bcn_wavedec_free(struct bcn_wavedec *d);

/* pywt.threshold(c, t, 'soft' or 'hard') in place on c[0..n). Soft is
 * computed as pywt does, x * max(0, 1 - t/|x|), except that a zero stays
 * zero when t is 0 (pywt gives NaN, 0/0); hard zeroes x when |x| < t and
 * keeps it when |x| >= t (a tie is kept, as in pywt). A NaN stays NaN. */
void bcn_dwt_threshold(double *c, size_t n, double t, bool soft);

/* The universal threshold of d: sigma * sqrt(2 ln n), n = d->n and sigma =
 * median(|cD_1|) / 0.6745 (the median of an even count is the mean of the
 * two middle values, as numpy). NaN if d has no detail level or on a bad
 * d or allocation failure. */
double bcn_dwt_universal_threshold(const struct bcn_wavedec *d);

struct bcn_dwt_denoise_opts {
	int wavelet;
	int mode;
	int level;                      /* <= 0: bcn_dwt_max_level */
	bool soft;                      /* soft thresholding, else hard */
	double scale;                   /* multiplies the universal threshold */
};

/* Defaults: db4, symmetric, the maximum level, soft, scale 1. */
void bcn_dwt_denoise_opts_defaults(struct bcn_dwt_denoise_opts *o);

/* Wavelet denoising: wavedec of x[0..n), every detail array (not the
 * approximation) thresholded with scale * the universal threshold,
 * waverec, the first n samples into out (which may be x). n of 0 or 1, or
 * a decomposition of level 0 (n too short for the wavelet), copies x.
 * 0, or -EINVAL (also scale negative or not finite), -E2BIG, -EDOM,
 * -ERANGE, -ENOMEM. */
int bcn_dwt_denoise(const double *x, size_t n,
		    const struct bcn_dwt_denoise_opts *o, double *out);

#endif
