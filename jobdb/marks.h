/* What the component anomaly detectors have examined (docs/anomaly.md,
 * "Catch-up"): per record store and interval, how many records the store
 * held in that interval when the detectors went over it. An interval
 * without a mark has not been examined; one whose store now holds another
 * number of records has changed since (late data) and is examined again.
 * The newest mark's end is the store's watermark. */
#ifndef BCN_JOBDB_MARKS_H
#define BCN_JOBDB_MARKS_H

#include <stddef.h>
#include <stdint.h>

#include "jobdb/jobdb.h"

#define BCN_MARK_STORE_MAX 255          /* bytes of a store's name */

struct bcn_detect_mark {
	int64_t t, len;                 /* the interval [t, t + len), ns */
	uint64_t records;               /* in the store when examined */
	int64_t examined;               /* when (wall clock, ns) */
	uint32_t rounds;                /* times it was examined */
};

/* The marks of store with t in [from, to), ascending by t, at most max
 * into out. Returns how many, or a negative code (bcn_jobdb_error). */
int bcn_jobdb_marks(struct bcn_jobdb *db, const char *store, int64_t from,
		    int64_t to, struct bcn_detect_mark *out, size_t max);

/* Records that interval [t, t + len) of store held records records when
 * it was examined at now (a new mark, or the old one updated with one
 * more round). Returns 0 or a negative code. */
int bcn_jobdb_mark_put(struct bcn_jobdb *db, const char *store, int64_t t,
		       int64_t len, uint64_t records, int64_t now);

/* The store's watermark, the end of its newest mark, in *wm (0: none).
 * Returns 0 or a negative code. */
int bcn_jobdb_mark_watermark(struct bcn_jobdb *db, const char *store,
			     int64_t *wm);

/* Forgets store's marks that start before before. Returns how many, or a
 * negative code. */
int bcn_jobdb_marks_prune(struct bcn_jobdb *db, const char *store,
			  int64_t before);

#endif
