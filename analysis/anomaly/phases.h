/* I/O phases of a bandwidth series (docs/anomaly.md, "I/O phases"), as
 * IOSI (FAST'14) finds them: the series is denoised with a wavelet
 * transform (dwt.h), the stretches where the denoised signal stays above
 * a fraction of its peak are phases, stretches closer than a gap are one
 * phase, and each phase is trimmed to its first and last moving bucket.
 * Volumes and peaks come from the raw series, so they are exact. */
#ifndef BCN_ANOMALY_PHASES_H
#define BCN_ANOMALY_PHASES_H

#include <stddef.h>
#include <stdint.h>

struct bcn_phase_config {
	int wavelet;                    /* enum bcn_wavelet */
	int level;                      /* <= 0: the largest possible */
	double floor;                   /* fraction of the denoised peak */
	size_t gap;                     /* buckets: closer phases are one */
	size_t min_len;                 /* buckets: shorter ones are dropped
					 * unless they hold a tenth of the
					 * volume */
};

/* db2, level 4, floor 0.1, gap 2, min_len 1. */
void bcn_phase_config_defaults(struct bcn_phase_config *c);

struct bcn_phase {
	int64_t start, end;             /* ns: [first bucket, last bucket + 1) */
	double volume;                  /* bytes */
	double mean_bw, peak_bw;        /* bytes/s: volume / (end - start);
					 * the busiest bucket */
};

/* The phases of bytes[0..n) (bytes moved per bucket of step_ns from t0),
 * at most max into out, in time order; *nout gets how many (a series
 * with more phases keeps the max largest by volume, still in time
 * order). A series with nothing moved has none. Returns 0, -EINVAL or
 * -ENOMEM (and the dwt.h codes for series it cannot transform). */
int bcn_phases_find(const double *bytes, size_t n, int64_t t0, int64_t step_ns,
		    const struct bcn_phase_config *c, struct bcn_phase *out,
		    size_t max, size_t *nout);

#endif
