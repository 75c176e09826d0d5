/* Points in time and durations as people type them: epoch seconds, ISO 8601
 * (UTC or with an offset) and durations with units, converted to and from
 * nanoseconds since the Unix epoch. Pure functions over (pointer, length)
 * buffers: no locale, no time zone database, no global state. Also the
 * proleptic Gregorian calendar arithmetic the stores use to name their
 * daily files and indices. */
#ifndef BCN_TIMEFMT_H
#define BCN_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#define BCN_NS_PER_SEC 1000000000ll
#define BCN_SEC_PER_DAY 86400ll
#define BCN_TIMEFMT_IN_MAX 64   /* longest text the parsers accept */
#define BCN_TIMEFMT_OUT_MAX 40  /* enough for any bcn_timefmt_format output */

/* Parses a point in time into *ns (nanoseconds since 1970-01-01T00:00:00Z):
 *   - epoch seconds: digits, optionally '.' and 1 to 9 digits of fraction
 *     ("1704921530", "1704921530.25"); no sign, no blanks;
 *   - an ISO 8601 date, midnight UTC ("2024-01-10");
 *   - an ISO 8601 date and time: YYYY-MM-DD, 'T' (or 't' or one space),
 *     hh:mm, optionally :ss and '.' with 1 to 9 digits of fraction, then a
 *     zone that is required: 'Z' (or 'z'), or +hh:mm, -hh:mm, +hhmm, -hhmm
 *     ("2024-01-10T21:18:50Z", "2024-01-10T21:18:50.5+08:00").
 * A text of exactly four digits followed by '-' is a date; other digit
 * strings are epoch seconds. Leap seconds (:60) are refused.
 * Returns 0, -BCN_ESYNTAX (grammar, or len > BCN_TIMEFMT_IN_MAX) or
 * -BCN_ERANGE (a field out of range: month 13, 30 February, hour 24, or a
 * time outside what int64 nanoseconds hold, 1677..2262). */
int bcn_timefmt_parse(const char *s, size_t len, int64_t *ns);

/* Parses a positive duration into *ns: digits followed by an optional unit
 * ns, us, ms, s, m, h, d or w (lower case); a bare number is seconds
 * ("90", "15m", "1h", "7d"). Returns 0, -BCN_ESYNTAX or -BCN_ERANGE (zero,
 * or more than INT64_MAX nanoseconds). */
int bcn_timefmt_parse_duration(const char *s, size_t len, int64_t *ns);

/* Writes ns as ISO 8601 UTC, "2024-01-10T21:18:50Z", with a fraction of
 * up to 9 digits (trailing zeros removed) when ns is not a whole second:
 * "2024-01-10T21:18:50.25Z". bcn_timefmt_parse reads it back to ns.
 * Returns 0 or -BCN_EFULL when len bytes are too few
 * (BCN_TIMEFMT_OUT_MAX always suffices). */
int bcn_timefmt_format(int64_t ns, char *buf, size_t len);

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d.
 * Returns 0, or -BCN_ERANGE for a year outside 1..9999 or a month or day
 * that does not exist. */
int bcn_timefmt_days(int64_t y, int64_t m, int64_t d, int64_t *days);

/* The date of a day number (days since 1970-01-01). Returns 0, or
 * -BCN_ERANGE for a day outside the years 1..9999. */
int bcn_timefmt_civil(int64_t days, int64_t *y, int64_t *m, int64_t *d);

/* floor(ns / unit) for unit > 0, also for negative ns: the number of the
 * day (unit BCN_SEC_PER_DAY * BCN_NS_PER_SEC) or bucket ns falls in. */
int64_t bcn_timefmt_floor_div(int64_t ns, int64_t unit);

#endif
