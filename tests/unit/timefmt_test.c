/* Tests of common/timefmt: table-driven cases for the time and duration
 * parsers (accepted forms, every class of error, range edges), the
 * calendar against the C library's gmtime_r over a wide span of days, and
 * format/parse round trips. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "common/error.h"
#include "common/timefmt.h"

#define S(x) ((int64_t)(x) * BCN_NS_PER_SEC)

struct time_case {
	const char *in;
	int rc;
	int64_t ns;
};

static const struct time_case time_cases[] = {
	/* epoch seconds */
	{ "0", 0, 0 },
	{ "1704921530", 0, S(1704921530) },
	{ "1704921530.25", 0, S(1704921530) + 250000000 },
	{ "1704921530.000000001", 0, S(1704921530) + 1 },
	{ "1704921530.123456789", 0, S(1704921530) + 123456789 },
	{ "0001704921530", 0, S(1704921530) },
	{ "9223372036", 0, S(9223372036) },
	{ "9223372036.854775807", 0, INT64_MAX },
	{ "9223372036.854775808", -BCN_ERANGE, 0 },
	{ "9223372037", -BCN_ERANGE, 0 },
	{ "99999999999999999999999", -BCN_ERANGE, 0 },
	{ "2024", 0, S(2024) },
	{ "1704921530.", -BCN_ESYNTAX, 0 },
	{ "1704921530.1234567890", -BCN_ESYNTAX, 0 },
	{ ".5", -BCN_ESYNTAX, 0 },
	{ "-5", -BCN_ESYNTAX, 0 },
	{ "+5", -BCN_ESYNTAX, 0 },
	{ " 5", -BCN_ESYNTAX, 0 },
	{ "5 ", -BCN_ESYNTAX, 0 },
	{ "5s", -BCN_ESYNTAX, 0 },
	{ "1e9", -BCN_ESYNTAX, 0 },
	{ "0x10", -BCN_ESYNTAX, 0 },
	{ "", -BCN_ESYNTAX, 0 },
	{ "now", -BCN_ESYNTAX, 0 },
	/* dates */
	{ "1970-01-01", 0, 0 },
	{ "2024-01-10", 0, S(1704844800) },
	{ "2024-02-29", 0, S(1709164800) },
	{ "2000-02-29", 0, S(951782400) },
	{ "1969-12-31", 0, S(-86400) },
	{ "2262-04-11", 0, S(9223286400) },
	{ "2262-04-12", -BCN_ERANGE, 0 },
	{ "1677-09-22", 0, S(-9223286400) },
	{ "1677-09-21", -BCN_ERANGE, 0 },
	{ "2023-02-29", -BCN_ERANGE, 0 },
	{ "1900-02-29", -BCN_ERANGE, 0 },
	{ "2024-04-31", -BCN_ERANGE, 0 },
	{ "2024-13-01", -BCN_ERANGE, 0 },
	{ "2024-00-10", -BCN_ERANGE, 0 },
	{ "2024-01-00", -BCN_ERANGE, 0 },
	{ "0000-01-01", -BCN_ERANGE, 0 },
	{ "2024-1-10", -BCN_ESYNTAX, 0 },
	{ "2024-01-1", -BCN_ESYNTAX, 0 },
	{ "2024/01/10", -BCN_ESYNTAX, 0 },
	{ "2024-01-10x", -BCN_ESYNTAX, 0 },
	{ "20240110", 0, S(20240110) },         /* digits: epoch seconds */
	/* date and time */
	{ "2024-01-10T21:18:50Z", 0, S(1704921530) },
	{ "2024-01-10t21:18:50z", 0, S(1704921530) },
	{ "2024-01-10 21:18:50Z", 0, S(1704921530) },
	{ "2024-01-10T21:18Z", 0, S(1704921480) },
	{ "2024-01-10T21:18:50.5Z", 0, S(1704921530) + 500000000 },
	{ "2024-01-10T21:18:50.000000001Z", 0, S(1704921530) + 1 },
	{ "2024-01-10T21:18:50.1234567890Z", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T21:18:50.Z", -BCN_ESYNTAX, 0 },
	{ "2024-01-11T05:18:50+08:00", 0, S(1704921530) },
	{ "2024-01-11T05:18:50+0800", 0, S(1704921530) },
	{ "2024-01-11T05:18:50+08", 0, S(1704921530) },
	{ "2024-01-10T16:48:50-04:30", 0, S(1704921530) },
	{ "2024-01-10T00:30:00+01:00", 0, S(1704843000) },
	{ "2024-01-10T21:18:50", -BCN_ESYNTAX, 0 },     /* zone required */
	{ "2024-01-10T21:18:50+8:00", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T21:18:50+08:0", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T21:18:50+08:", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T21:18:50ZZ", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T21:18:50 Z", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T21Z", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T1:18:50Z", -BCN_ESYNTAX, 0 },
	{ "2024-01-10T24:00:00Z", -BCN_ERANGE, 0 },
	{ "2024-01-10T23:60:00Z", -BCN_ERANGE, 0 },
	{ "2016-12-31T23:59:60Z", -BCN_ERANGE, 0 },     /* leap second */
	{ "2024-01-10T21:18:50+24:00", -BCN_ERANGE, 0 },
	{ "2024-01-10T21:18:50+08:60", -BCN_ERANGE, 0 },
	{ "2262-04-11T23:47:16.854775807Z", 0, INT64_MAX },
	{ "2262-04-11T23:47:16.854775808Z", -BCN_ERANGE, 0 },
	{ "1677-09-21T00:12:43.145224192Z", 0, INT64_MIN },
	{ "1677-09-21T00:12:43.145224191Z", -BCN_ERANGE, 0 },
	{ "1677-09-21T01:12:43.145224192+01:00", 0, INT64_MIN },
	{ "9999-12-31T23:59:59Z", -BCN_ERANGE, 0 },
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
		const struct time_case *c = &time_cases[i];
		int64_t ns = 12345;
		int rc = bcn_timefmt_parse(c->in, strlen(c->in), &ns);

		if (rc != c->rc || (rc == 0 && ns != c->ns))
			fail_msg("'%s': rc %d ns %lld, expected rc %d ns %lld",
				 c->in, rc, (long long)ns, c->rc,
				 (long long)c->ns);
		if (rc)
			assert_int_equal(ns, 12345);    /* untouched */
	}
}

static void test_parse_length(void **state)
{
	char buf[BCN_TIMEFMT_IN_MAX + 2];
	int64_t ns;

	(void)state;
	/* the length bounds the parse, not a NUL */
	assert_int_equal(bcn_timefmt_parse("17049215309999", 10, &ns), 0);
	assert_int_equal(ns, S(1704921530));
	assert_int_equal(bcn_timefmt_parse("2024-01-10T00:00:00Zjunk", 20, &ns), 0);
	assert_int_equal(ns, S(1704844800));
	assert_int_equal(bcn_timefmt_parse("2024-01-10", 4, &ns), 0);
	assert_int_equal(ns, S(2024));
	assert_int_equal(bcn_timefmt_parse("12\0" "3", 4, &ns), -BCN_ESYNTAX);
	/* too long, even if it is digits */
	memset(buf, '0', sizeof(buf));
	assert_int_equal(bcn_timefmt_parse(buf, BCN_TIMEFMT_IN_MAX, &ns), 0);
	assert_int_equal(bcn_timefmt_parse(buf, BCN_TIMEFMT_IN_MAX + 1, &ns),
			 -BCN_ESYNTAX);
}

struct dur_case {
	const char *in;
	int rc;
	int64_t ns;
};

static const struct dur_case dur_cases[] = {
	{ "90", 0, S(90) },
	{ "90s", 0, S(90) },
	{ "1ns", 0, 1 },
	{ "250us", 0, 250000 },
	{ "1500ms", 0, 1500000000 },
	{ "15m", 0, S(900) },
	{ "1h", 0, S(3600) },
	{ "7h", 0, S(7 * 3600) },
	{ "1d", 0, S(86400) },
	{ "2w", 0, S(14 * 86400) },
	{ "9223372036854775807ns", 0, INT64_MAX },
	{ "9223372036854775808ns", -BCN_ERANGE, 0 },
	{ "106752d", -BCN_ERANGE, 0 },
	{ "0", -BCN_ERANGE, 0 },
	{ "0s", -BCN_ERANGE, 0 },
	{ "", -BCN_ESYNTAX, 0 },
	{ "s", -BCN_ESYNTAX, 0 },
	{ "1H", -BCN_ESYNTAX, 0 },
	{ "1M", -BCN_ESYNTAX, 0 },
	{ "1 h", -BCN_ESYNTAX, 0 },
	{ "1.5h", -BCN_ESYNTAX, 0 },
	{ "-1h", -BCN_ESYNTAX, 0 },
	{ "1hour", -BCN_ESYNTAX, 0 },
	{ "1hh", -BCN_ESYNTAX, 0 },
	{ "1h1m", -BCN_ESYNTAX, 0 },
};

static void test_duration_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(dur_cases) / sizeof(dur_cases[0]); i++) {
		const struct dur_case *c = &dur_cases[i];
		int64_t ns = 12345;
		int rc = bcn_timefmt_parse_duration(c->in, strlen(c->in), &ns);

		if (rc != c->rc || (rc == 0 && ns != c->ns))
			fail_msg("'%s': rc %d ns %lld, expected rc %d ns %lld",
				 c->in, rc, (long long)ns, c->rc,
				 (long long)c->ns);
	}
}

struct fmt_case {
	int64_t ns;
	const char *out;
};

static const struct fmt_case fmt_cases[] = {
	{ 0, "1970-01-01T00:00:00Z" },
	{ S(1704921530), "2024-01-10T21:18:50Z" },
	{ S(1704921530) + 250000000, "2024-01-10T21:18:50.25Z" },
	{ S(1704921530) + 1, "2024-01-10T21:18:50.000000001Z" },
	{ -1, "1969-12-31T23:59:59.999999999Z" },
	{ S(-86400), "1969-12-31T00:00:00Z" },
	{ INT64_MAX, "2262-04-11T23:47:16.854775807Z" },
	{ INT64_MIN, "1677-09-21T00:12:43.145224192Z" },
	{ S(951868800), "2000-03-01T00:00:00Z" },
};

static void test_format(void **state)
{
	char buf[BCN_TIMEFMT_OUT_MAX];
	int64_t back;

	(void)state;
	for (size_t i = 0; i < sizeof(fmt_cases) / sizeof(fmt_cases[0]); i++) {
		assert_int_equal(bcn_timefmt_format(fmt_cases[i].ns, buf,
						    sizeof(buf)), 0);
		assert_string_equal(buf, fmt_cases[i].out);
		assert_int_equal(bcn_timefmt_parse(buf, strlen(buf), &back), 0);
		assert_int_equal(back, fmt_cases[i].ns);
	}
	/* too small a buffer: an error, and still a terminated string */
	assert_int_equal(bcn_timefmt_format(0, buf, 10), -BCN_EFULL);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(bcn_timefmt_format(0, buf, 21), 0);
	assert_int_equal(bcn_timefmt_format(0, buf, 20), -BCN_EFULL);
}

/* The calendar against gmtime_r, every day from 1677 to 2262 and a wide
 * stride beyond. */
static void check_day(int64_t day)
{
	time_t tt = (time_t)(day * BCN_SEC_PER_DAY);
	int64_t y, m, d, back;
	struct tm tm;

	assert_non_null(gmtime_r(&tt, &tm));
	assert_int_equal(bcn_timefmt_civil(day, &y, &m, &d), 0);
	assert_int_equal(y, tm.tm_year + 1900);
	assert_int_equal(m, tm.tm_mon + 1);
	assert_int_equal(d, tm.tm_mday);
	assert_int_equal(bcn_timefmt_days(y, m, d, &back), 0);
	assert_int_equal(back, day);
}

static void test_calendar(void **state)
{
	int64_t days, y, m, d;

	(void)state;
	for (int64_t day = -106752; day <= 106752; day++)
		check_day(day);
	for (int64_t day = -719162; day <= 2932896; day += 97)
		check_day(day);
	check_day(-719162);
	check_day(2932896);
	assert_int_equal(bcn_timefmt_civil(-719163, &y, &m, &d), -BCN_ERANGE);
	assert_int_equal(bcn_timefmt_civil(2932897, &y, &m, &d), -BCN_ERANGE);
	assert_int_equal(bcn_timefmt_days(10000, 1, 1, &days), -BCN_ERANGE);
	assert_int_equal(bcn_timefmt_days(2024, 2, 30, &days), -BCN_ERANGE);
	assert_int_equal(bcn_timefmt_days(2024, 2, 29, &days), 0);
	assert_int_equal(days, 19782);
}

static void test_floor_div(void **state)
{
	const int64_t day = BCN_SEC_PER_DAY * BCN_NS_PER_SEC;

	(void)state;
	assert_int_equal(bcn_timefmt_floor_div(0, day), 0);
	assert_int_equal(bcn_timefmt_floor_div(day - 1, day), 0);
	assert_int_equal(bcn_timefmt_floor_div(day, day), 1);
	assert_int_equal(bcn_timefmt_floor_div(-1, day), -1);
	assert_int_equal(bcn_timefmt_floor_div(-day, day), -1);
	assert_int_equal(bcn_timefmt_floor_div(-day - 1, day), -2);
	assert_int_equal(bcn_timefmt_floor_div(INT64_MIN, day), -106752);
	assert_int_equal(bcn_timefmt_floor_div(INT64_MAX, day), 106751);
	assert_int_equal(bcn_timefmt_floor_div(INT64_MIN, 1), INT64_MIN);
	assert_int_equal(bcn_timefmt_floor_div(-7, 7), -1);
	assert_int_equal(bcn_timefmt_floor_div(-8, 7), -2);
}

/* format then parse gives back every value, over a spread of magnitudes */
static void test_roundtrip(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char buf[BCN_TIMEFMT_OUT_MAX];
	int64_t back;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		int64_t ns;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ns = (int64_t)(x >> (x % 64));
		if (x & 1)
			ns = -ns;
		if (i % 3 == 0)
			ns -= ns % BCN_NS_PER_SEC;
		assert_int_equal(bcn_timefmt_format(ns, buf, sizeof(buf)), 0);
		assert_int_equal(bcn_timefmt_parse(buf, strlen(buf), &back), 0);
		assert_int_equal(back, ns);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_length),
		cmocka_unit_test(test_duration_table),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_calendar),
		cmocka_unit_test(test_floor_div),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests_name("timefmt", tests, NULL, NULL);
}
