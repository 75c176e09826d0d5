/* Windowed distributions with bounded memory: exact moments and log2
 * buckets, exact nearest-rank percentiles by in-place selection over up to
 * max_samples kept samples, log-linear histograms beyond (wdist.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/forwarder/wdist.h"
#include "common/log.h"

#define TAG_BITS 3
#define TAG_MASK ((UINT64_C(1) << TAG_BITS) - 1)
#define SUB (UINT64_C(1) << BCN_WDIST_SUB_BITS)
#define SELECT_ROUNDS_MAX 64    /* then sort the rest of the range */

static const unsigned pcts[3] = { 50, 95, 99 };

int bcn_wdist_init(struct bcn_wdist *w, unsigned ntags, size_t max_samples)
{
	memset(w, 0, sizeof(*w));
	if (ntags == 0 || ntags > BCN_WDIST_TAGS_MAX ||
	    max_samples < BCN_WDIST_SAMPLES_MIN ||
	    max_samples > BCN_WDIST_SAMPLES_MAX)
		return -EINVAL;
	w->ntags = ntags;
	w->max_samples = max_samples;
	w->rng = UINT64_C(0x9e3779b97f4a7c15);
	return 0;
}

void bcn_wdist_free(struct bcn_wdist *w)
{
	free(w->v);
	free(w->fine);
	memset(w, 0, sizeof(*w));
}

uint64_t bcn_wdist_rank(uint64_t n, unsigned p)
{
	return n / 100 * p + ((n % 100) * p + 99) / 100;
}

/* Index of v in the log-linear histogram: exact below 2^SUB_BITS, then
 * 2^SUB_BITS sub-buckets per power of two. */
static size_t fine_index(uint64_t v)
{
	unsigned e;

	if (v < SUB)
		return (size_t)v;
	e = 63 - (unsigned)__builtin_clzll(v);
	return ((size_t)(e - BCN_WDIST_SUB_BITS + 1) << BCN_WDIST_SUB_BITS) |
	       (size_t)((v >> (e - BCN_WDIST_SUB_BITS)) & (SUB - 1));
}

/* The smallest value of histogram bucket i. */
static uint64_t fine_low(size_t i)
{
	unsigned e;

	if (i < SUB)
		return i;
	e = (unsigned)(i >> BCN_WDIST_SUB_BITS) + BCN_WDIST_SUB_BITS - 1;
	return (SUB + (i & (SUB - 1))) << (e - BCN_WDIST_SUB_BITS);
}

/* Moves the kept samples into the histograms; from now on this window's
 * samples go there directly. Returns 0 or -ENOMEM. */
static int spill(struct bcn_wdist *w)
{
	size_t i;

	if (!w->fine) {
		w->fine = calloc((size_t)w->ntags * BCN_WDIST_FINE_BUCKETS,
				 sizeof(*w->fine));
		if (!w->fine)
			return -ENOMEM;
	}
	for (i = 0; i < w->n; i++) {
		unsigned tag = (unsigned)(w->v[i] & TAG_MASK);

		w->fine[(size_t)tag * BCN_WDIST_FINE_BUCKETS +
			fine_index(w->v[i] >> TAG_BITS)]++;
	}
	w->n = 0;
	w->spilled = true;
	w->spills++;
	return 0;
}

/* Makes room for one more kept sample. Returns 0, -ENOMEM, or -ENOSPC
 * once max_samples are kept. */
static int grow(struct bcn_wdist *w)
{
	size_t cap = w->cap ? w->cap * 2 : BCN_WDIST_GROW_FIRST;
	uint64_t *v;

	if (w->cap >= w->max_samples)
		return -ENOSPC;
	if (cap > w->max_samples)
		cap = w->max_samples;
	v = realloc(w->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->v = v;
	w->cap = cap;
	return 0;
}

/* A sample that does not fit the kept array: grow the array, or spill to
 * the histograms, or (out of memory) count it in the moments only. */
static void add_slow(struct bcn_wdist *w, unsigned tag, uint64_t value)
{
	int rc;

	if (w->coarse)
		return;
	if (!w->spilled) {
		rc = grow(w);
		if (rc == 0) {
			w->v[w->n++] = value << TAG_BITS | tag;
			return;
		}
		if (spill(w) != 0) {
			bcn_complain(&w->oom, BCN_LOG_WARNING,
				     "out of memory for percentiles; they come "
				     "from the log2 buckets");
			w->coarse = true;
			return;
		}
	}
	w->fine[(size_t)tag * BCN_WDIST_FINE_BUCKETS + fine_index(value)]++;
}

void bcn_wdist_add(struct bcn_wdist *w, unsigned tag, uint64_t value)
{
	struct bcn_dist *d = &w->acc[tag];

	if (value > BCN_WDIST_VALUE_MAX)
		value = BCN_WDIST_VALUE_MAX;
	if (d->count == 0 || value < d->min)
		d->min = value;
	if (value > d->max)
		d->max = value;
	d->count++;
	d->sum = d->sum + value < d->sum ? UINT64_MAX : d->sum + value;
	d->hist[bcn_hist_bucket(value)]++;
	if (w->n < w->cap && !w->spilled && !w->coarse)
		w->v[w->n++] = value << TAG_BITS | tag;
	else
		add_slow(w, tag, value);
}

static inline void swap(uint64_t *a, size_t i, size_t j)
{
	uint64_t t = a[i];

	a[i] = a[j];
	a[j] = t;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Rearranges a[lo, hi) so that a[k] holds the value of rank k (0-based
 * from a), with nothing larger before it and nothing smaller after it:
 * Hoare's selection (Wirth's "Find") around a random pivot. Equal values
 * stop both scans and are swapped, so runs of equal values split evenly
 * instead of going quadratic; after SELECT_ROUNDS_MAX rounds the remaining
 * range is sorted. */
static void select_k(uint64_t *a, size_t lo, size_t hi, size_t k,
		     uint64_t *rng)
{
	ptrdiff_t l = (ptrdiff_t)lo, r = (ptrdiff_t)hi - 1, kk = (ptrdiff_t)k;
	unsigned rounds = 0;

	while (l < r) {
		ptrdiff_t i = l, j = r;
		uint64_t x;

		if (++rounds > SELECT_ROUNDS_MAX) {
			qsort(a + l, (size_t)(r - l + 1), sizeof(*a), cmp_u64);
			return;
		}
		x = a[l + (ptrdiff_t)(next_rand(rng) % (uint64_t)(r - l + 1))];
		do {
			while (a[i] < x)
				i++;
			while (x < a[j])
				j--;
			if (i <= j) {
				swap(a, (size_t)i, (size_t)j);
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
}

/* p50/p95/p99 of the samples a[lo, hi) by three nested selections. */
static void exact_pcts(uint64_t *a, size_t lo, size_t hi, struct bcn_dist *d,
		       uint64_t *rng)
{
	uint64_t *out[3] = { &d->p50, &d->p95, &d->p99 };
	size_t from = lo, i;

	if (hi == lo)
		return;
	for (i = 0; i < 3; i++) {
		size_t k = lo + (size_t)bcn_wdist_rank(hi - lo, pcts[i]) - 1;

		if (k >= from) {
			select_k(a, from, hi, k, rng);
			from = k;
		}
		*out[i] = a[k] >> TAG_BITS;
	}
}

/* Groups the kept samples by tag in place (American flag sort); seg gets
 * the start of each tag's run, seg[ntags] the end. */
static void partition_tags(struct bcn_wdist *w, size_t *seg)
{
	size_t next[BCN_WDIST_TAGS_MAX], cnt[BCN_WDIST_TAGS_MAX] = { 0 };
	size_t i;
	unsigned t;

	for (i = 0; i < w->n; i++)
		cnt[w->v[i] & TAG_MASK]++;
	seg[0] = 0;
	for (t = 0; t < w->ntags; t++) {
		seg[t + 1] = seg[t] + cnt[t];
		next[t] = seg[t];
	}
	for (t = 0; t < w->ntags; t++) {
		while (next[t] < seg[t + 1]) {
			unsigned tt = (unsigned)(w->v[next[t]] & TAG_MASK);

			if (tt == t)
				next[t]++;
			else
				swap(w->v, next[t], next[tt]++);
		}
	}
}

/* The value of 1-based rank r in the log2 buckets: its bucket's lower
 * bound. */
static uint64_t coarse_rank(const struct bcn_dist *d, uint64_t r)
{
	uint64_t seen = 0;
	unsigned i;

	for (i = 0; i < BCN_HIST_BUCKETS; i++) {
		seen += d->hist[i];
		if (seen >= r)
			return i == 0 ? 0 : UINT64_C(1) << i;
	}
	return d->max;
}

static uint64_t clamp(uint64_t v, const struct bcn_dist *d)
{
	return v < d->min ? d->min : v > d->max ? d->max : v;
}

/* p50/p95/p99 of d from the histograms of tags [t0, t1), in one walk over
 * the buckets between those of d's min and max. */
static void fine_pcts(const struct bcn_wdist *w, unsigned t0, unsigned t1,
		      struct bcn_dist *d)
{
	uint64_t *out[3] = { &d->p50, &d->p95, &d->p99 };
	size_t i = fine_index(d->min), last = fine_index(d->max);
	uint64_t seen = 0, rank[3];
	unsigned k = 0, t;

	for (t = 0; t < 3; t++)
		rank[t] = bcn_wdist_rank(d->count, pcts[t]);
	for (; i <= last && k < 3; i++) {
		for (t = t0; t < t1; t++)
			seen += w->fine[(size_t)t * BCN_WDIST_FINE_BUCKETS + i];
		while (k < 3 && seen >= rank[k])
			*out[k++] = fine_low(i);
	}
	while (k < 3)
		*out[k++] = d->max;     /* not reached: counts agree */
}

/* Percentiles of d from the histograms (tags [t0, t1)) or log2 buckets,
 * clamped to [min, max]. */
static void approx_pcts(const struct bcn_wdist *w, unsigned t0, unsigned t1,
			struct bcn_dist *d)
{
	uint64_t *out[3] = { &d->p50, &d->p95, &d->p99 };
	unsigned i;

	if (d->count == 0)
		return;
	if (w->coarse) {
		for (i = 0; i < 3; i++)
			*out[i] = coarse_rank(d, bcn_wdist_rank(d->count,
								pcts[i]));
	} else {
		fine_pcts(w, t0, t1, d);
	}
	for (i = 0; i < 3; i++)
		*out[i] = clamp(*out[i], d);
}

static void merge(struct bcn_dist *all, const struct bcn_dist *d)
{
	unsigned i;

	if (d->count == 0)
		return;
	if (all->count == 0 || d->min < all->min)
		all->min = d->min;
	if (d->max > all->max)
		all->max = d->max;
	all->count += d->count;
	all->sum = all->sum + d->sum < all->sum ? UINT64_MAX : all->sum + d->sum;
	for (i = 0; i < BCN_HIST_BUCKETS; i++)
		all->hist[i] += d->hist[i];
}

void bcn_wdist_finish(struct bcn_wdist *w, struct bcn_dist *per_tag,
		      struct bcn_dist *all)
{
	struct bcn_dist d[BCN_WDIST_TAGS_MAX], u;
	size_t seg[BCN_WDIST_TAGS_MAX + 1];
	unsigned t;

	memset(&u, 0, sizeof(u));
	for (t = 0; t < w->ntags; t++) {
		d[t] = w->acc[t];
		merge(&u, &d[t]);
	}
	if (w->spilled || w->coarse) {
		for (t = 0; t < w->ntags; t++)
			approx_pcts(w, t, t + 1, &d[t]);
		approx_pcts(w, 0, w->ntags, &u);
	} else {
		partition_tags(w, seg);
		for (t = 0; t < w->ntags; t++)
			exact_pcts(w->v, seg[t], seg[t + 1], &d[t], &w->rng);
		exact_pcts(w->v, 0, w->n, &u, &w->rng);
	}
	if (per_tag)
		memcpy(per_tag, d, w->ntags * sizeof(*d));
	if (all)
		*all = u;
	if (w->spilled && u.count) {
		/* empty the buckets this window can have touched */
		size_t lo = fine_index(u.min), hi = fine_index(u.max);

		for (t = 0; t < w->ntags; t++)
			memset(w->fine + (size_t)t * BCN_WDIST_FINE_BUCKETS + lo,
			       0, (hi - lo + 1) * sizeof(*w->fine));
	}
	memset(w->acc, 0, sizeof(w->acc));
	w->n = 0;
	w->spilled = false;
	w->coarse = false;
}
