/* Log-scale histogram of delays in milliseconds (logsrv/lagdist.h). */
#include <string.h>

#include "logsrv/lagdist.h"

#define LAST (BCN_LAGDIST_BUCKETS - 1u)

uint64_t bcn_lag_ms(int64_t now_ns, int64_t t, int64_t dur)
{
	int64_t end;

	if (__builtin_add_overflow(t, dur, &end))
		end = dur > 0 ? INT64_MAX : INT64_MIN;
	if (end >= now_ns)
		return 0;
	/* now_ns > end: the difference fits in uint64_t */
	return ((uint64_t)now_ns - (uint64_t)end) / 1000000u;
}

void bcn_lagdist_reset(struct bcn_lagdist *d)
{
	memset(d, 0, sizeof(*d));
}

unsigned bcn_lagdist_bucket(uint64_t ms)
{
	unsigned e;

	if (ms < BCN_LAGDIST_SUB)
		return (unsigned)ms;
	e = 63u - (unsigned)__builtin_clzll(ms);
	if (e >= BCN_LAGDIST_MAX_BITS)
		return LAST;
	return (e - BCN_LAGDIST_SUB_BITS) * BCN_LAGDIST_SUB +
	       (unsigned)(ms >> (e - BCN_LAGDIST_SUB_BITS));
}

uint64_t bcn_lagdist_bucket_low(unsigned i)
{
	unsigned e;

	if (i < 2 * BCN_LAGDIST_SUB)
		return i;
	if (i > LAST)
		i = LAST;
	e = i / BCN_LAGDIST_SUB + BCN_LAGDIST_SUB_BITS - 1;
	return (uint64_t)(i % BCN_LAGDIST_SUB + BCN_LAGDIST_SUB)
	       << (e - BCN_LAGDIST_SUB_BITS);
}

uint64_t bcn_lagdist_bucket_high(unsigned i)
{
	unsigned e;

	if (i >= LAST)
		return UINT64_MAX;      /* also holds every larger value */
	if (i < 2 * BCN_LAGDIST_SUB)
		return i;
	e = i / BCN_LAGDIST_SUB + BCN_LAGDIST_SUB_BITS - 1;
	return bcn_lagdist_bucket_low(i) + (UINT64_C(1) << (e - BCN_LAGDIST_SUB_BITS)) - 1;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

void bcn_lagdist_add(struct bcn_lagdist *d, uint64_t ms)
{
	d->bucket[bcn_lagdist_bucket(ms)]++;
	d->count++;
	d->sum_ms = add_sat(d->sum_ms, ms);
	if (ms > d->max_ms)
		d->max_ms = ms;
}

void bcn_lagdist_merge(struct bcn_lagdist *dst, const struct bcn_lagdist *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < BCN_LAGDIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum_ms = add_sat(dst->sum_ms, src->sum_ms);
	if (src->max_ms > dst->max_ms)
		dst->max_ms = src->max_ms;
}

uint64_t bcn_lagdist_quantile(const struct bcn_lagdist *d, double q)
{
	double r = q * (double)d->count;
	uint64_t rank, seen = 0;

	if (!d->count)
		return 0;
	rank = r >= (double)d->count ? d->count : (uint64_t)r;
	if ((double)rank < r)
		rank++;         /* ceil */
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < BCN_LAGDIST_BUCKETS; i++) {
		seen += d->bucket[i];
		if (seen >= rank) {
			uint64_t hi = bcn_lagdist_bucket_high(i);

			return hi < d->max_ms ? hi : d->max_ms;
		}
	}
	return d->max_ms;
}
