/* Generations of the record store's time (docs/report.md, "The cache"):
 * the log servers count, in Redis, what lands in each minute of each day,
 * and a cached report is valid while the counts covering its window are
 * those it was computed with. This file holds what both sides must agree
 * on: the key of a day, its fields, which fields a stored record bumps
 * and which fields a window reads. Pure functions, no Redis. */
#ifndef BCN_CACHEGEN_H
#define BCN_CACHEGEN_H

#include <stddef.h>
#include <stdint.h>

#define BCN_CACHEGEN_BUCKET_NS (60ll * 1000000000ll)    /* one minute */
#define BCN_CACHEGEN_DAY_NS (86400ll * 1000000000ll)
#define BCN_CACHEGEN_PER_DAY 1440                       /* buckets a day */
#define BCN_CACHEGEN_DAYS_MAX 400       /* days of one record or window */
#define BCN_CACHEGEN_ALL (-1)           /* field "a": the whole day */
#define BCN_CACHEGEN_TOTAL (-2)         /* field "d": every bump of the day */
#define BCN_CACHEGEN_KEY_MAX 128
#define BCN_CACHEGEN_FIELD_MAX 8

/* One bump: a bucket (0..1439) of a day, or BCN_CACHEGEN_ALL. */
struct bcn_cachegen_mark {
	int64_t day;                    /* days since the Unix epoch */
	int32_t field;
};

/* The marks of a record covering [t, t + dur) (ns; t < 0 counts as 0):
 * each minute it touches when that is at most a day of minutes, else
 * BCN_CACHEGEN_ALL of each day it touches (at most BCN_CACHEGEN_DAYS_MAX).
 * Writes at most cap marks into out and returns how many it has (more than
 * cap: the caller makes room and asks again). */
size_t bcn_cachegen_marks(int64_t t, int64_t dur,
			  struct bcn_cachegen_mark *out, size_t cap);

/* The Redis key of day: "<prefix>gen:<day>". Returns 0 or -ENAMETOOLONG. */
int bcn_cachegen_key(const char *prefix, int64_t day, char *out, size_t n);

/* The hash field of a mark's field: the bucket's number, "a" or "d". */
void bcn_cachegen_field(int32_t field, char *out, size_t n);

/* What day `day` of a window [from, to) reads: BCN_CACHEGEN_TOTAL alone
 * when the window covers the whole day (*n = 1), else BCN_CACHEGEN_ALL
 * and the buckets the window touches, in order (*n of them, at most
 * BCN_CACHEGEN_PER_DAY + 1, into fields). */
void bcn_cachegen_window_fields(int64_t from, int64_t to, int64_t day,
				int32_t *fields, size_t *n);

/* Order of marks (day, then field), for qsort. */
int bcn_cachegen_mark_cmp(const void *a, const void *b);

#endif
