/* Time parsing and formatting: epoch seconds, ISO 8601 and durations to
 * nanoseconds since the epoch and back, with the proleptic Gregorian
 * calendar computed here (no libc time zone state). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"

#define DAY_NS (BCN_SEC_PER_DAY * BCN_NS_PER_SEC)
#define FRAC_DIGITS 9           /* nanoseconds */
#define YEAR_MIN 1
#define YEAR_MAX 9999
#define DAYS_TO_1970 719162     /* days from 0001-01-01 to 1970-01-01 */
#define DAYS_400Y 146097
#define DAYS_100Y 36524
#define DAYS_4Y 1461
#define DAYS_1Y 365

static const int16_t month_start[12] = {
	0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334
};

/* A cursor over the text being parsed. */
struct tcur {
	const char *p;
	size_t i, n;
};

static bool is_leap(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int64_t month_days(int64_t y, int64_t m)
{
	static const int8_t len[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	return len[m - 1] + (m == 2 && is_leap(y));
}

int64_t bcn_timefmt_floor_div(int64_t ns, int64_t unit)
{
	return ns / unit - (ns % unit < 0);
}

int bcn_timefmt_days(int64_t y, int64_t m, int64_t d, int64_t *days)
{
	int64_t yy = y - 1;

	if (y < YEAR_MIN || y > YEAR_MAX || m < 1 || m > 12 || d < 1 ||
	    d > month_days(y, m))
		return -BCN_ERANGE;
	*days = yy * 365 + yy / 4 - yy / 100 + yy / 400 + month_start[m - 1] +
		(m > 2 && is_leap(y)) + d - 1 - DAYS_TO_1970;
	return 0;
}

int bcn_timefmt_civil(int64_t days, int64_t *y, int64_t *m, int64_t *d)
{
	int64_t n, q400, q100, q4, q1, year, start;

	if (days < -DAYS_TO_1970 || days > 2932896)     /* 9999-12-31 */
		return -BCN_ERANGE;
	n = days + DAYS_TO_1970;        /* days since 0001-01-01 */
	q400 = n / DAYS_400Y;
	n %= DAYS_400Y;
	q100 = n / DAYS_100Y;
	if (q100 == 4)                  /* the last day of a 400-year cycle */
		q100 = 3;
	n -= q100 * DAYS_100Y;
	q4 = n / DAYS_4Y;
	n -= q4 * DAYS_4Y;
	q1 = n / DAYS_1Y;
	if (q1 == 4)                    /* the last day of a leap year */
		q1 = 3;
	n -= q1 * DAYS_1Y;              /* day of the year, from 0 */
	year = q400 * 400 + q100 * 100 + q4 * 4 + q1 + 1;
	for (int64_t mo = 12; mo >= 1; mo--) {
		start = month_start[mo - 1] + (mo > 2 && is_leap(year));
		if (n >= start) {
			*y = year;
			*m = mo;
			*d = n - start + 1;
			return 0;
		}
	}
	return -BCN_ERANGE;     /* not reached: n >= 0 = month_start[0] */
}

static bool cur_digit(const struct tcur *c)
{
	return c->i < c->n && c->p[c->i] >= '0' && c->p[c->i] <= '9';
}

static bool cur_eat(struct tcur *c, char ch)
{
	if (c->i < c->n && c->p[c->i] == ch) {
		c->i++;
		return true;
	}
	return false;
}

/* Exactly n digits. */
static int cur_fixed(struct tcur *c, unsigned n, int64_t *v)
{
	*v = 0;
	for (unsigned k = 0; k < n; k++) {
		if (!cur_digit(c))
			return -BCN_ESYNTAX;
		*v = *v * 10 + (c->p[c->i++] - '0');
	}
	return 0;
}

/* One or more digits; *over is set when the value does not fit. */
static int cur_number(struct tcur *c, int64_t *v, bool *over)
{
	size_t start = c->i;

	*v = 0;
	*over = false;
	while (cur_digit(c)) {
		int d = c->p[c->i++] - '0';

		if (__builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, d, v))
			*over = true;
	}
	return c->i > start ? 0 : -BCN_ESYNTAX;
}

/* '.' already eaten: 1 to 9 digits of a second, as nanoseconds. */
static int cur_fraction(struct tcur *c, int64_t *ns)
{
	unsigned nd = 0;

	*ns = 0;
	while (cur_digit(c)) {
		if (++nd > FRAC_DIGITS)
			return -BCN_ESYNTAX;
		*ns = *ns * 10 + (c->p[c->i++] - '0');
	}
	if (nd == 0)
		return -BCN_ESYNTAX;
	for (; nd < FRAC_DIGITS; nd++)
		*ns *= 10;
	return 0;
}

static int combine(int64_t secs, int64_t frac, int64_t *ns)
{
	int64_t v;

	if (secs < 0 && frac > 0) {     /* INT64_MIN is not a whole second */
		secs++;
		frac -= BCN_NS_PER_SEC;
	}
	if (__builtin_mul_overflow(secs, BCN_NS_PER_SEC, &v) ||
	    __builtin_add_overflow(v, frac, &v))
		return -BCN_ERANGE;
	*ns = v;
	return 0;
}

static int parse_epoch(struct tcur *c, int64_t *ns)
{
	int64_t secs, frac = 0;
	bool over;
	int rc;

	rc = cur_number(c, &secs, &over);
	if (!rc && cur_eat(c, '.'))
		rc = cur_fraction(c, &frac);
	if (!rc && c->i != c->n)
		rc = -BCN_ESYNTAX;
	if (rc)
		return rc;
	return over ? -BCN_ERANGE : combine(secs, frac, ns);
}

/* The fields of an ISO 8601 text; parsed first, range-checked after. */
struct iso {
	int64_t y, mo, d, h, mi, s, frac;
	int64_t off_sign, off_h, off_m;
};

static int iso_zone(struct tcur *c, struct iso *t)
{
	if (cur_eat(c, 'Z') || cur_eat(c, 'z'))
		return 0;
	if (cur_eat(c, '+'))
		t->off_sign = 1;
	else if (cur_eat(c, '-'))
		t->off_sign = -1;
	else
		return -BCN_ESYNTAX;    /* a time needs its zone */
	if (cur_fixed(c, 2, &t->off_h))
		return -BCN_ESYNTAX;
	if (cur_eat(c, ':') || cur_digit(c))
		return cur_fixed(c, 2, &t->off_m);
	return 0;
}

static int iso_fields(struct tcur *c, struct iso *t)
{
	if (cur_fixed(c, 4, &t->y) || !cur_eat(c, '-') ||
	    cur_fixed(c, 2, &t->mo) || !cur_eat(c, '-') ||
	    cur_fixed(c, 2, &t->d))
		return -BCN_ESYNTAX;
	if (c->i == c->n)
		return 0;               /* a date alone: midnight UTC */
	if (!cur_eat(c, 'T') && !cur_eat(c, 't') && !cur_eat(c, ' '))
		return -BCN_ESYNTAX;
	if (cur_fixed(c, 2, &t->h) || !cur_eat(c, ':') ||
	    cur_fixed(c, 2, &t->mi))
		return -BCN_ESYNTAX;
	if (cur_eat(c, ':')) {
		if (cur_fixed(c, 2, &t->s))
			return -BCN_ESYNTAX;
		if (cur_eat(c, '.') && cur_fraction(c, &t->frac))
			return -BCN_ESYNTAX;
	}
	if (iso_zone(c, t))
		return -BCN_ESYNTAX;
	return c->i == c->n ? 0 : -BCN_ESYNTAX;
}

static int parse_iso(struct tcur *c, int64_t *ns)
{
	struct iso t;
	int64_t days, secs;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = iso_fields(c, &t);
	if (rc)
		return rc;
	if (t.h > 23 || t.mi > 59 || t.s > 59 || t.off_h > 23 || t.off_m > 59)
		return -BCN_ERANGE;
	rc = bcn_timefmt_days(t.y, t.mo, t.d, &days);
	if (rc)
		return rc;
	/* |days| < 3.7e6, so none of this overflows */
	secs = days * BCN_SEC_PER_DAY + t.h * 3600 + t.mi * 60 + t.s -
	       t.off_sign * (t.off_h * 3600 + t.off_m * 60);
	return combine(secs, t.frac, ns);
}

int bcn_timefmt_parse(const char *s, size_t len, int64_t *ns)
{
	struct tcur c = { s, 0, len };
	bool date = len > 4 && s[4] == '-';

	if (len == 0 || len > BCN_TIMEFMT_IN_MAX)
		return -BCN_ESYNTAX;
	for (size_t k = 0; date && k < 4; k++)
		date = s[k] >= '0' && s[k] <= '9';
	return date ? parse_iso(&c, ns) : parse_epoch(&c, ns);
}

int bcn_timefmt_parse_duration(const char *s, size_t len, int64_t *ns)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", BCN_NS_PER_SEC }, { "m", 60 * BCN_NS_PER_SEC },
		{ "h", 3600 * BCN_NS_PER_SEC }, { "d", DAY_NS },
		{ "w", 7 * DAY_NS },
	};
	struct tcur c = { s, 0, len };
	int64_t v, mult = BCN_NS_PER_SEC;
	bool over, found;
	size_t ulen;

	if (len == 0 || len > BCN_TIMEFMT_IN_MAX || cur_number(&c, &v, &over))
		return -BCN_ESYNTAX;
	ulen = len - c.i;
	found = ulen == 0;
	for (size_t k = 0; !found && k < sizeof(units) / sizeof(units[0]); k++) {
		if (strlen(units[k].name) == ulen &&
		    memcmp(units[k].name, s + c.i, ulen) == 0) {
			mult = units[k].ns;
			found = true;
		}
	}
	if (!found)
		return -BCN_ESYNTAX;
	if (over || v == 0 || __builtin_mul_overflow(v, mult, &v))
		return -BCN_ERANGE;
	*ns = v;
	return 0;
}

int bcn_timefmt_format(int64_t ns, char *buf, size_t len)
{
	int64_t days = bcn_timefmt_floor_div(ns, DAY_NS);
	int64_t rem = ns % DAY_NS, y, mo, d, secs, frac;
	char fr[FRAC_DIGITS + 2] = "";
	int n;

	if (rem < 0)
		rem += DAY_NS;
	/* int64 nanoseconds span 1677..2262, well inside 1..9999 */
	if (bcn_timefmt_civil(days, &y, &mo, &d))
		return -BCN_ERANGE;
	secs = rem / BCN_NS_PER_SEC;
	frac = rem % BCN_NS_PER_SEC;
	if (frac) {
		int k = FRAC_DIGITS;

		snprintf(fr, sizeof(fr), ".%09lld", (long long)frac);
		while (fr[k] == '0')
			fr[k--] = '\0';
	}
	n = snprintf(buf, len, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld%sZ",
		     (long long)y, (long long)mo, (long long)d,
		     (long long)(secs / 3600), (long long)(secs / 60 % 60),
		     (long long)(secs % 60), fr);
	return n < 0 || (size_t)n >= len ? -BCN_EFULL : 0;
}
