/* Generations of the record store's time (common/cachegen.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/cachegen.h"

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

size_t bcn_cachegen_marks(int64_t t, int64_t dur,
			  struct bcn_cachegen_mark *out, size_t cap)
{
	int64_t end, m0, m1;
	size_t n = 0;

	if (t < 0)
		t = 0;
	if (dur < 1)
		dur = 1;
	end = t > INT64_MAX - dur ? INT64_MAX : t + dur;
	m0 = t / BCN_CACHEGEN_BUCKET_NS;
	m1 = (end - 1) / BCN_CACHEGEN_BUCKET_NS;
	if (m1 - m0 < BCN_CACHEGEN_PER_DAY) {
		for (int64_t m = m0; m <= m1; m++, n++)
			if (n < cap)
				out[n] = (struct bcn_cachegen_mark){
					m / BCN_CACHEGEN_PER_DAY,
					(int32_t)(m % BCN_CACHEGEN_PER_DAY) };
		return n;
	}
	m0 /= BCN_CACHEGEN_PER_DAY;
	m1 /= BCN_CACHEGEN_PER_DAY;
	if (m1 - m0 >= BCN_CACHEGEN_DAYS_MAX)
		m1 = m0 + BCN_CACHEGEN_DAYS_MAX - 1;
	for (int64_t d = m0; d <= m1; d++, n++)
		if (n < cap)
			out[n] = (struct bcn_cachegen_mark){ d,
							     BCN_CACHEGEN_ALL };
	return n;
}

int bcn_cachegen_key(const char *prefix, int64_t day, char *out, size_t n)
{
	int w = snprintf(out, n, "%sgen:%" PRId64, prefix, day);

	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

void bcn_cachegen_field(int32_t field, char *out, size_t n)
{
	if (field == BCN_CACHEGEN_ALL)
		snprintf(out, n, "a");
	else if (field == BCN_CACHEGEN_TOTAL)
		snprintf(out, n, "d");
	else
		snprintf(out, n, "%" PRId32, field);
}

void bcn_cachegen_window_fields(int64_t from, int64_t to, int64_t day,
				int32_t *fields, size_t *n)
{
	int64_t d0 = day * BCN_CACHEGEN_DAY_NS, d1 = d0 + BCN_CACHEGEN_DAY_NS;
	int64_t a = from > d0 ? from : d0, b = to < d1 ? to : d1;

	*n = 0;
	if (a <= d0 && b >= d1) {
		fields[(*n)++] = BCN_CACHEGEN_TOTAL;
		return;
	}
	fields[(*n)++] = BCN_CACHEGEN_ALL;
	if (b <= a)
		return;
	for (int64_t m = floor_div(a - d0, BCN_CACHEGEN_BUCKET_NS);
	     m <= floor_div(b - 1 - d0, BCN_CACHEGEN_BUCKET_NS) &&
	     m < BCN_CACHEGEN_PER_DAY; m++)
		fields[(*n)++] = (int32_t)m;
}

int bcn_cachegen_mark_cmp(const void *a, const void *b)
{
	const struct bcn_cachegen_mark *x = a, *y = b;

	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return (x->field > y->field) - (x->field < y->field);
}
