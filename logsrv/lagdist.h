/* A bounded distribution of delays in milliseconds (the log server's
 * ingest lag: how long after a sample's end it reached the record store).
 * A log-scale histogram in the manner of HdrHistogram: values below 64 ms
 * have a bucket each, every power of two above is split into 64 buckets,
 * so a percentile is never below the exact one and at most 1/64 (1.6%)
 * above it; count, sum and maximum are exact. Values of 2^40 ms (35 years)
 * and more share the last bucket. Not thread-safe: the caller locks. */
#ifndef BCN_LAGDIST_H
#define BCN_LAGDIST_H

#include <stdint.h>

#define BCN_LAGDIST_SUB_BITS 6                  /* 64 buckets per octave */
#define BCN_LAGDIST_SUB (1u << BCN_LAGDIST_SUB_BITS)
#define BCN_LAGDIST_MAX_BITS 40                 /* values below 2^40 ms */
#define BCN_LAGDIST_BUCKETS \
	(BCN_LAGDIST_SUB * (BCN_LAGDIST_MAX_BITS - BCN_LAGDIST_SUB_BITS + 1))

struct bcn_lagdist {
	uint64_t count;
	uint64_t sum_ms;                        /* saturates */
	uint64_t max_ms;
	uint64_t bucket[BCN_LAGDIST_BUCKETS];
};

/* The delay in whole milliseconds (rounded down) from the end of the
 * interval [t, t + dur) to now, all in ns since the epoch; 0 when the
 * interval ends at or after now. Defined for every input (no overflow). */
uint64_t bcn_lag_ms(int64_t now_ns, int64_t t, int64_t dur);

/* Empties d. */
void bcn_lagdist_reset(struct bcn_lagdist *d);

/* Adds one value. */
void bcn_lagdist_add(struct bcn_lagdist *d, uint64_t ms);

/* Adds every value of src to dst. */
void bcn_lagdist_merge(struct bcn_lagdist *dst, const struct bcn_lagdist *src);

/* The nearest-rank q-quantile (0 < q <= 1; q = 0.99 for p99): the highest
 * value of the bucket holding the ceil(q * count)-th smallest value, but
 * at most the maximum. 0 when d is empty. */
uint64_t bcn_lagdist_quantile(const struct bcn_lagdist *d, double q);

/* The bucket of a value, and the lowest and highest values of a bucket
 * (for tests and for readers of a published histogram). */
unsigned bcn_lagdist_bucket(uint64_t ms);
uint64_t bcn_lagdist_bucket_low(unsigned i);
uint64_t bcn_lagdist_bucket_high(unsigned i);

#endif
