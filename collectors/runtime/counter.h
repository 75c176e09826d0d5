/* Per-interval deltas of cumulative counters (docs/collectors.md, "Counter
 * semantics"): the kernel exposes running totals (Lustre stats, InfiniBand
 * port counters, ...); records carry what happened in one interval. This
 * module turns totals into deltas across wraps (32- and 64-bit, or any
 * width), saturating counters (InfiniBand PortCounters stick at their
 * maximum), resets (a restarted OSS or a remounted target: the value goes
 * down) and entities that appear or disappear while a collector runs.
 *
 * bcn_counter_delta() is the pure rule for one counter. A counter table
 * remembers the previous values of many entities (an entity is a string
 * such as "lustre-OST0003" or "mlx5_0/1", holding a vector of counters
 * addressed by index), bounded in size, and forgets entities that stop
 * being sampled. */
#ifndef BCN_COUNTER_H
#define BCN_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a counter behaves at its top, in one byte: the width in bits
 * (1..64) and whether it wraps to zero or sticks at its maximum. */
#define BCN_COUNTER_SAT_FLAG 0x80
#define BCN_COUNTER_WRAP(bits) ((uint8_t)(bits))
#define BCN_COUNTER_SAT(bits) ((uint8_t)(BCN_COUNTER_SAT_FLAG | (bits)))
#define BCN_COUNTER_U64 BCN_COUNTER_WRAP(64)    /* the usual kernel u64 */
#define BCN_COUNTER_U32 BCN_COUNTER_WRAP(32)    /* wraps at 2^32 */
#define BCN_COUNTER_SAT32 BCN_COUNTER_SAT(32)   /* sticks at 2^32 - 1 */

/* Flags of a delta (bcn_counter_delta's result, OR-ed over a vector by
 * bcn_counter_update). */
#define BCN_COUNTER_F_FIRST 0x01        /* no previous value: no delta */
#define BCN_COUNTER_F_WRAP 0x02         /* passed its top and wrapped */
#define BCN_COUNTER_F_RESET 0x04        /* went down: delta = new value */
#define BCN_COUNTER_F_SATURATED 0x08    /* at its maximum: the delta is a
					 * lower bound (0 if it already was) */
#define BCN_COUNTER_F_RANGE 0x10        /* a value above the kind's width:
					 * taken as a 64-bit counter */

/* Bounds of a counter table. */
#define BCN_COUNTER_ENTITY_MAX 1024     /* longest entity name, bytes */
#define BCN_COUNTER_VEC_MAX 1024        /* counters per entity */
#define BCN_COUNTER_TABLE_MAX (1u << 24)/* entities per table */

/* The delta of one counter of the given kind from prev to cur, into
 * *delta; returns its flags (0 for an ordinary increase). Pure.
 *  - cur >= prev: delta = cur - prev; SATURATED too if a saturating
 *    counter reads its maximum (the true increase may be larger).
 *  - cur < prev on a wrapping counter whose difference modulo 2^bits is
 *    below half its range: WRAP, delta = that difference.
 *  - any other cur < prev: RESET, delta = cur (what accumulated since the
 *    reset; more may have been lost before it).
 *  - prev or cur above the width's maximum: treated as 64-bit, RANGE.
 * An invalid kind (width 0 or above 64) is taken as BCN_COUNTER_U64. */
unsigned bcn_counter_delta(uint8_t kind, uint64_t prev, uint64_t cur,
			   uint64_t *delta);

/* The largest value of a counter kind (2^bits - 1). Pure. */
uint64_t bcn_counter_max(uint8_t kind);

struct bcn_counter_table;

struct bcn_counter_stats {
	uint64_t entities;      /* remembered now */
	uint64_t updates;       /* bcn_counter_update calls that succeeded */
	uint64_t first;         /* of those: first samples (no delta) */
	uint64_t resets;        /* updates where some counter went down */
	uint64_t wraps;         /* counters that wrapped */
	uint64_t saturated;     /* counters read at their maximum */
	uint64_t dropped;       /* updates refused: table full */
	uint64_t forgotten;     /* entities forgotten after missed sweeps */
};

/* Creates a table of at most max_entities entities (1 ..
 * BCN_COUNTER_TABLE_MAX) that forgets an entity after forget_after
 * consecutive sweeps without an update (0: never forget). name prefixes
 * the log messages (e.g. "ports"). Returns 0, -EINVAL or -ENOMEM. */
int bcn_counter_table_new(const char *name, size_t max_entities,
			  unsigned forget_after,
			  struct bcn_counter_table **out);

/* Frees the table; NULL is a no-op. */
void bcn_counter_table_free(struct bcn_counter_table *t);

/* Feeds the n current values cur[] of entity (a NUL-terminated name,
 * 1 .. BCN_COUNTER_ENTITY_MAX - 1 bytes) sampled at now_ns. kinds[i] is
 * the kind of counter i (kinds NULL: all BCN_COUNTER_U64). Writes
 * delta[i] for each counter, cflags[i] its flags if cflags is not NULL,
 * and *prev_ns (may be NULL) the time of the previous sample of this
 * entity (now_ns on a first sample), so the deltas cover
 * [*prev_ns, now_ns).
 * An entity seen for the first time, or with a different n than before,
 * is a first sample: the values are remembered, every delta is 0 and the
 * result has BCN_COUNTER_F_FIRST. A reset (a counter going down) is
 * logged, rate-limited. Returns the flags OR-ed over the counters (>= 0);
 * -EINVAL for a bad name or n (0 or above BCN_COUNTER_VEC_MAX);
 * -BCN_EFULL when the entity is new and the table is full (counted in
 * dropped; deltas are 0); -ENOMEM. */
int bcn_counter_update(struct bcn_counter_table *t, const char *entity,
		       const uint64_t *cur, const uint8_t *kinds, size_t n,
		       int64_t now_ns, uint64_t *delta, uint8_t *cflags,
		       int64_t *prev_ns);

/* Ends a sample: entities not updated during the last forget_after sweeps
 * are forgotten (they reappear later as first samples). Call it once per
 * sample, after the updates. Returns the number forgotten now. */
size_t bcn_counter_sweep(struct bcn_counter_table *t);

/* Forgets one entity. Returns 1 if it was known, else 0. */
int bcn_counter_forget(struct bcn_counter_table *t, const char *entity);

/* Copies the counters of the table into *st. */
void bcn_counter_table_stats(const struct bcn_counter_table *t,
			     struct bcn_counter_stats *st);

/* Whether the n deltas at v are all zero (nothing moved). */
static inline bool bcn_counter_all_zero(const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

#endif
