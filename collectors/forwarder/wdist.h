/* Windowed distributions with bounded memory: samples of a few classes
 * (tags) are added during a window, then finished into one struct
 * bcn_dist per class and one for their union.
 *
 * Method (docs/fwdlog.md, "Statistics"): count, sum, min, max and the 32
 * log2 buckets are kept exactly as samples arrive. Up to max_samples
 * samples of the window are also kept, tagged with their class, in one
 * array; at the end of the window the array is partitioned by class in
 * place and the nearest-rank p50/p95/p99 of each class and of the union
 * are found by selection (expected linear time), so they are exact. When a
 * window brings more samples than that, the kept samples and every later
 * one go into per-class log-linear histograms of 2^BCN_WDIST_SUB_BITS
 * sub-buckets per power of two instead: the percentiles are then the lower
 * bound of the sub-bucket holding the nearest-rank sample, less than
 * 2^-BCN_WDIST_SUB_BITS (0.8%) below the exact value, clamped to
 * [min, max]. Memory: 8 bytes per kept sample (the array grows by
 * doubling up to max_samples) plus, only after a spill, ntags *
 * BCN_WDIST_FINE_BUCKETS * 8 bytes. */
#ifndef BCN_WDIST_H
#define BCN_WDIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/log.h"
#include "proto/record.h"

#define BCN_WDIST_TAGS_MAX 8            /* classes: a tag takes 3 bits */
#define BCN_WDIST_VALUE_MAX ((UINT64_C(1) << 60) - 1) /* larger: clamped */
#define BCN_WDIST_SUB_BITS 7            /* log-linear: 128 per octave */
#define BCN_WDIST_FINE_BUCKETS \
	((61 - BCN_WDIST_SUB_BITS) << BCN_WDIST_SUB_BITS)
#define BCN_WDIST_SAMPLES_MIN 16
#define BCN_WDIST_SAMPLES_MAX (1u << 24)
#define BCN_WDIST_GROW_FIRST 1024       /* first allocation, samples */

struct bcn_wdist {
	unsigned ntags;
	size_t max_samples;
	uint64_t *v;                    /* value << 3 | tag */
	size_t n, cap;
	bool spilled;                   /* this window uses the histograms */
	bool coarse;                    /* ... or only the log2 buckets */
	uint64_t *fine;                 /* ntags * FINE_BUCKETS, or NULL */
	struct bcn_dist acc[BCN_WDIST_TAGS_MAX];
	uint64_t rng;                   /* pivot choice in selection */
	uint64_t spills;                /* windows that spilled, ever */
	struct bcn_complain oom;
};

/* Prepares w for ntags classes (1..TAGS_MAX), keeping at most max_samples
 * (SAMPLES_MIN..SAMPLES_MAX) samples per window. Allocates nothing yet.
 * Returns 0 or -EINVAL. */
int bcn_wdist_init(struct bcn_wdist *w, unsigned ntags, size_t max_samples);
void bcn_wdist_free(struct bcn_wdist *w);

/* Adds one sample of class tag (< ntags); values above VALUE_MAX count as
 * VALUE_MAX. Never fails: when memory for the sample array or the
 * histograms cannot be had, the sample still counts in the exact moments
 * and buckets and the percentiles fall back to the log2 buckets (logged
 * once per window). */
void bcn_wdist_add(struct bcn_wdist *w, unsigned tag, uint64_t value);

/* Writes the window's distribution of each class to per_tag[0..ntags) and
 * of their union to *all (either may be NULL), then empties w for the next
 * window. Distributions without samples are all zero. */
void bcn_wdist_finish(struct bcn_wdist *w, struct bcn_dist *per_tag,
		      struct bcn_dist *all);

/* Samples added to class tag in the current window. */
static inline uint64_t bcn_wdist_count(const struct bcn_wdist *w,
				       unsigned tag)
{
	return w->acc[tag].count;
}

/* The log2 bucket (0..BCN_HIST_BUCKETS-1) of a value: bucket 0 holds
 * [0, 2), bucket i holds [2^i, 2^(i+1)), the last one also everything
 * above. */
static inline unsigned bcn_hist_bucket(uint64_t v)
{
	unsigned b;

	if (v < 2)
		return 0;
	b = 63 - (unsigned)__builtin_clzll(v);
	return b < BCN_HIST_BUCKETS ? b : BCN_HIST_BUCKETS - 1;
}

/* The 1-based nearest rank of percentile p (0 < p <= 100) among n > 0
 * samples: ceil(p * n / 100). */
uint64_t bcn_wdist_rank(uint64_t n, unsigned p);

#endif
