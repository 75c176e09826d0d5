/* I/O phases of a bandwidth series by wavelet denoising (phases.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/dwt.h"
#include "analysis/anomaly/phases.h"

void bcn_phase_config_defaults(struct bcn_phase_config *c)
{
	c->wavelet = BCN_WAVELET_DB2;
	c->level = 4;
	c->floor = 0.1;
	c->gap = 2;
	c->min_len = 1;
}

/* Denoises x into d (level capped by what n allows). */
static int denoise(const double *x, size_t n, const struct bcn_phase_config *c,
		   double *d)
{
	struct bcn_dwt_denoise_opts o;
	int max = bcn_dwt_max_level(n, c->wavelet);

	bcn_dwt_denoise_opts_defaults(&o);
	o.wavelet = c->wavelet;
	o.level = c->level > 0 && c->level < max ? c->level : max;
	if (o.level < 1) {
		memcpy(d, x, n * sizeof(*d));
		return 0;
	}
	return bcn_dwt_denoise(x, n, &o, d);
}

/* Shrinks [*a, *b] to its first and last bucket that moved bytes:
 * false when none did. */
static bool trim(const double *x, size_t *a, size_t *b)
{
	while (*a <= *b && x[*a] <= 0)
		(*a)++;
	while (*b > *a && x[*b] <= 0)
		(*b)--;
	return *a <= *b && x[*a] > 0;
}

static void fill(const double *x, size_t a, size_t b, int64_t t0,
		 int64_t step_ns, struct bcn_phase *p)
{
	double step_s = (double)step_ns / 1e9;

	p->start = t0 + (int64_t)a * step_ns;
	p->end = t0 + (int64_t)(b + 1) * step_ns;
	p->volume = 0;
	p->peak_bw = 0;
	for (size_t i = a; i <= b; i++) {
		p->volume += x[i];
		p->peak_bw = fmax(p->peak_bw, x[i] / step_s);
	}
	p->mean_bw = p->volume / ((double)(b - a + 1) * step_s);
}

/* Keeps the max largest of v[0..n) by volume, in time order. */
static size_t keep_largest(struct bcn_phase *v, size_t n, size_t max)
{
	while (n > max) {
		size_t low = 0;

		for (size_t i = 1; i < n; i++)
			if (v[i].volume < v[low].volume)
				low = i;
		memmove(&v[low], &v[low + 1], (n - low - 1) * sizeof(*v));
		n--;
	}
	return n;
}

int bcn_phases_find(const double *bytes, size_t n, int64_t t0, int64_t step_ns,
		    const struct bcn_phase_config *c, struct bcn_phase *out,
		    size_t max, size_t *nout)
{
	double *d = NULL, peak = 0, total = 0;
	struct bcn_phase *v = NULL;
	size_t nv = 0, i = 0;
	int rc;

	*nout = 0;
	if (step_ns <= 0 || !(c->floor >= 0 && c->floor < 1) || !max)
		return -EINVAL;
	if (!n)
		return 0;
	if (!(d = malloc(n * sizeof(*d))) || !(v = malloc(n * sizeof(*v)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = denoise(bytes, n, c, d)))
		goto out;
	for (size_t k = 0; k < n; k++) {
		peak = fmax(peak, d[k]);
		total += bytes[k];
	}
	while (total > 0 && i < n) {
		size_t a, b, quiet = 0;

		for (; i < n && d[i] <= c->floor * peak; i++)
			;
		if (i == n)
			break;
		a = b = i;
		for (; i < n && quiet <= c->gap; i++) {
			if (d[i] > c->floor * peak) {
				b = i;
				quiet = 0;
			} else {
				quiet++;
			}
		}
		i = b + 1;
		if (!trim(bytes, &a, &b))
			continue;
		fill(bytes, a, b, t0, step_ns, &v[nv]);
		if (b - a + 1 >= c->min_len || v[nv].volume >= total / 10)
			nv++;
	}
	nv = keep_largest(v, nv, max);
	memcpy(out, v, nv * sizeof(*v));
	*nout = nv;
out:
	free(d);
	free(v);
	return rc;
}
