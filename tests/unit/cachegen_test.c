/* Tests of common/cachegen: the marks of records against a table of
 * cases (a minute, minute edges, a day boundary, a record longer than a
 * day, negative times, an overflowing end, the day cap), the fields a
 * window reads, and, over random records and windows against a model of
 * the Redis hashes, the property the cache rests on: a record that
 * overlaps a window changes the window's sum; a short record whose
 * minutes the window does not touch leaves it alone. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cachegen.h"

#define S 1000000000ll
#define MIN (60 * S)
#define DAY (86400 * S)
#define D0 (20000 * DAY)        /* a day in 2024 */

static void test_marks_table(void **state)
{
	struct bcn_cachegen_mark m[BCN_CACHEGEN_DAYS_MAX + 8];
	size_t n;

	(void)state;
	n = bcn_cachegen_marks(D0 + 5 * S, 10 * S, m, 8);       /* in minute 0 */
	assert_int_equal(n, 1);
	assert_true(m[0].day == 20000 && m[0].field == 0);
	n = bcn_cachegen_marks(D0 + 50 * S, 10 * S, m, 8);      /* ends on the edge */
	assert_int_equal(n, 1);
	n = bcn_cachegen_marks(D0 + 50 * S, 10 * S + 1, m, 8);  /* one ns over */
	assert_int_equal(n, 2);
	assert_int_equal(m[1].field, 1);
	n = bcn_cachegen_marks(D0 - 30 * S, MIN, m, 8);         /* over midnight */
	assert_int_equal(n, 2);
	assert_true(m[0].day == 19999 && m[0].field == 1439);
	assert_true(m[1].day == 20000 && m[1].field == 0);
	n = bcn_cachegen_marks(D0, 0, m, 8);                    /* dur 0: its minute */
	assert_int_equal(n, 1);
	n = bcn_cachegen_marks(D0 + 1, DAY, m, 8);              /* 1441 minutes */
	assert_int_equal(n, 2);
	assert_true(m[0].field == BCN_CACHEGEN_ALL && m[1].day == 20001);
	n = bcn_cachegen_marks(D0, DAY, m, 8);                  /* exactly a day */
	assert_int_equal(n, 1440);                              /* more than cap */
	n = bcn_cachegen_marks(-5 * S, S, m, 8);                /* before the epoch */
	assert_true(n == 1 && m[0].day == 0 && m[0].field == 0);
	n = bcn_cachegen_marks(D0, INT64_MAX, m, BCN_CACHEGEN_DAYS_MAX + 8);
	assert_int_equal(n, BCN_CACHEGEN_DAYS_MAX);             /* capped */
	n = bcn_cachegen_marks(INT64_MAX - S, INT64_MAX, m, 8);
	assert_int_equal(n, 1);
}

static void test_key_field(void **state)
{
	char k[BCN_CACHEGEN_KEY_MAX], f[BCN_CACHEGEN_FIELD_MAX];

	(void)state;
	assert_int_equal(bcn_cachegen_key("beacon:report:", 20000, k, sizeof(k)), 0);
	assert_string_equal(k, "beacon:report:gen:20000");
	assert_int_equal(bcn_cachegen_key("beacon:report:", 20000, k, 10),
			 -ENAMETOOLONG);
	bcn_cachegen_field(BCN_CACHEGEN_ALL, f, sizeof(f));
	assert_string_equal(f, "a");
	bcn_cachegen_field(BCN_CACHEGEN_TOTAL, f, sizeof(f));
	assert_string_equal(f, "d");
	bcn_cachegen_field(1439, f, sizeof(f));
	assert_string_equal(f, "1439");
}

static void test_window_fields(void **state)
{
	int32_t f[BCN_CACHEGEN_PER_DAY + 1];
	size_t n;

	(void)state;
	bcn_cachegen_window_fields(D0 - S, D0 + DAY + S, 20000, f, &n);
	assert_true(n == 1 && f[0] == BCN_CACHEGEN_TOTAL);      /* whole day */
	bcn_cachegen_window_fields(D0 + 90 * S, D0 + 150 * S, 20000, f, &n);
	assert_int_equal(n, 3);                                 /* a, 1, 2 */
	assert_true(f[0] == BCN_CACHEGEN_ALL && f[1] == 1 && f[2] == 2);
	bcn_cachegen_window_fields(D0 + 60 * S, D0 + 120 * S, 20000, f, &n);
	assert_true(n == 2 && f[1] == 1);                       /* [1 min, 2 min) */
	bcn_cachegen_window_fields(D0 + DAY - S, D0 + DAY + 5 * S, 20000, f, &n);
	assert_true(n == 2 && f[1] == 1439);
	bcn_cachegen_window_fields(D0 + DAY - S, D0 + DAY + 5 * S, 20001, f, &n);
	assert_true(n == 2 && f[1] == 0);
	bcn_cachegen_window_fields(D0, D0 + DAY - 1, 20000, f, &n);
	assert_int_equal(n, 1 + 1440);                          /* all but 1 ns */
}

/* The model of Redis: hash[day - base][field + 2] counts. */
#define DAYS 4
static uint64_t model[DAYS][BCN_CACHEGEN_PER_DAY + 2];

static void bump(int64_t t, int64_t dur)
{
	static struct bcn_cachegen_mark m[BCN_CACHEGEN_PER_DAY * 2];
	size_t n = bcn_cachegen_marks(t, dur, m, sizeof(m) / sizeof(m[0]));

	assert_true(n <= sizeof(m) / sizeof(m[0]));
	for (size_t i = 0; i < n; i++) {
		int64_t d = m[i].day - 20000;

		if (d < 0 || d >= DAYS)
			continue;
		model[d][m[i].field + 2]++;
		model[d][BCN_CACHEGEN_TOTAL + 2]++;
	}
}

static uint64_t window_sum(int64_t from, int64_t to)
{
	int32_t f[BCN_CACHEGEN_PER_DAY + 1];
	uint64_t sum = 0;
	size_t n;

	for (int64_t d = from / DAY; d <= (to - 1) / DAY; d++) {
		bcn_cachegen_window_fields(from, to, d, f, &n);
		for (size_t i = 0; i < n; i++)
			sum += model[d - 20000][f[i] + 2];
	}
	return sum;
}

static int64_t rnd(int64_t max)
{
	return (int64_t)(((uint64_t)rand() << 31 ^ (uint64_t)rand()) %
			 (uint64_t)max);
}

static void test_property(void **state)
{
	(void)state;
	srand(16);
	memset(model, 0, sizeof(model));
	for (int i = 0; i < 20000; i++) {
		/* windows and records within the middle two days */
		int64_t from = D0 + DAY + rnd(DAY), to = from + 1 + rnd(DAY / 2);
		int64_t t = D0 + DAY + rnd(DAY), dur = i % 7 ? rnd(10 * MIN) :
						      rnd(2 * DAY);
		int64_t end = t + (dur ? dur : 1);
		uint64_t before, after;

		if (to > D0 + 3 * DAY)
			to = D0 + 3 * DAY;
		before = window_sum(from, to);
		bump(t, dur);
		after = window_sum(from, to);
		if (t < to && end > from)       /* overlaps: a miss */
			assert_true(after > before);
		/* a short record in minutes the window does not touch (only
		 * records longer than a day of minutes bump whole days) */
		if (dur < 10 * MIN && ((end - 1) / MIN < from / MIN ||
				       t / MIN > (to - 1) / MIN))
			assert_true(after == before);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks_table),
		cmocka_unit_test(test_key_field),
		cmocka_unit_test(test_window_fields),
		cmocka_unit_test(test_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
