/* Catch-up of the component detectors (docs/anomaly.md, "Catch-up"):
 * whatever the wall clock says, every complete interval of the record
 * stores since their watermark is examined, in time order, once; an
 * interval that late data changed within the horizon is examined again.
 * What was examined is kept in the job database (jobdb/marks.h), so a
 * restart, a log server's backlog or a history import is examined exactly
 * once. */
#ifndef BCN_ANOMALY_CATCHUP_H
#define BCN_ANOMALY_CATCHUP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/anomaly/detect.h"
#include "analysis/stores.h"
#include "common/config.h"
#include "jobdb/jobdb.h"

#define BCN_CATCHUP_INTERVALS_MAX 4096  /* intervals one check looks at */
#define BCN_CATCHUP_FAR_NS (30 * 86400000000000ll)  /* never further back */
#define BCN_CATCHUP_NONE UINT64_MAX     /* no mark, no earlier count */

struct bcn_catchup_config {
	int64_t interval_ms;            /* detect_interval; 0: never */
	int64_t check_ms;               /* detect_check */
	int64_t settle_ms;              /* detect_settle */
	int64_t horizon_ms;             /* detect_horizon */
	uint64_t rounds_max;            /* detect_rounds_max */
};

#define BCN_CATCHUP_CONFIG_OPTIONS(type, m) \
	{ "detect_interval", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.interval_ms), .max = 86400000, .def = "10m", \
	  .help = "The component detectors examine the stores an interval " \
		  "of this length at a time (each round reads anomaly_" \
		  "lookback up to the interval's end); 0: never." }, \
	{ "detect_check", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.check_ms), \
	  .min = 1000, .max = 86400000, .def = "5m", \
	  .help = "How often the stores are checked for complete intervals " \
		  "not yet examined and for late data." }, \
	{ "detect_settle", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.settle_ms), \
	  .max = 86400000, .def = "2m", \
	  .help = "An interval is complete this long after its end (and when " \
		  "its records stopped changing between two checks)." }, \
	{ "detect_horizon", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.horizon_ms), .min = 3600000, \
	  .max = 30 * 86400000ll, .def = "12h", \
	  .help = "Late data up to this old re-opens an examined interval; " \
		  "a new job database starts this far back." }, \
	{ "detect_rounds_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.rounds_max), .min = 1, .max = 4096, \
	  .def = "24", .help = "Intervals examined per check, at most (the " \
	  "rest wait for the next check)." }

/* Why an interval is due (bcn_catchup_plan). */
enum {
	BCN_CATCHUP_SKIP = 0,
	BCN_CATCHUP_NEW,                /* never examined */
	BCN_CATCHUP_CHANGED,            /* its records changed since */
	BCN_CATCHUP_FOLLOW,             /* a round reading a changed one */
};

/* Plans one check over n consecutive intervals and ns stores. cur, mark
 * and prev are ns rows of n counts (row s of store s): the records each
 * interval holds now, when it was examined (BCN_CATCHUP_NONE: never), and
 * at the previous check (BCN_CATCHUP_NONE: unknown); prev NULL takes
 * the counts as settled. An interval is due NEW or CHANGED when some
 * store's count differs from its mark and every store's count equals its
 * previous one (so a history still arriving is examined once it stopped
 * changing); each of the follow intervals after a CHANGED one that were
 * examined is due FOLLOW (its round's window holds the changed one).
 * Fills due[n] and returns the number due. Pure. */
size_t bcn_catchup_plan(size_t n, size_t ns, const uint64_t *cur,
			const uint64_t *mark, const uint64_t *prev,
			size_t follow, uint8_t *due);

struct bcn_catchup_stats {
	uint64_t checks, rounds, empty, reopened, failed;
	uint64_t inserted, updated, closed, skipped;    /* of the rounds */
	uint64_t pending;               /* due, left for the next check */
	int64_t watermark;              /* the oldest store's, ns; 0: none */
};

struct bcn_catchup;

/* Called after each round (e.g. to queue the alerts of what it found
 * before a later round closes it); its non-zero return is ignored. */
typedef void bcn_catchup_round_fn(void *arg, int64_t end);

int bcn_catchup_new(const struct bcn_catchup_config *c,
		    struct bcn_catchup **out);
void bcn_catchup_free(struct bcn_catchup *cu);

/* One check at wall clock now: counts each store's records per interval
 * (the layers the detectors read), plans, runs bcn_detect_round for each
 * due interval in time order (at most rounds_max; an interval without
 * records anywhere is marked without a round), and marks what it
 * examined. settled: take the counts as settled (a single pass: `beacon
 * anomalies detect`, analyzd --once) instead of waiting for two equal
 * checks. Adds to *st. Returns 0, or a negative code with err set (what
 * was examined before stays marked). */
int bcn_catchup_check(struct bcn_catchup *cu, const struct bcn_detect_config *dc,
		      const struct bcn_stores *ss, struct bcn_jobdb *db,
		      int64_t now, bool settled, bcn_catchup_round_fn *after,
		      void *arg, struct bcn_catchup_stats *st, char *err,
		      size_t errlen);

/* The name a store's marks are kept under: "sqlite:DIR" or
 * "opensearch:URL/PREFIX", cut to BCN_MARK_STORE_MAX bytes with a hash of
 * the whole when longer. */
void bcn_catchup_store_name(const struct bcn_store *s, char *out, size_t cap);

#endif
