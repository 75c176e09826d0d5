/* Per-interval deltas of cumulative counters: the delta rule for one
 * counter (wraps, saturation, resets) and a bounded hash table of the
 * previous values of many entities (open addressing, linear probing,
 * backward-shift deletion). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/runtime/counter.h"
#include "common/error.h"
#include "common/log.h"

#define TABLE_NAME_MAX 64
#define TABLE_MIN_SLOTS 64u             /* initial slots, a power of two */

/* One entity: its counters, then its NUL-terminated name. */
struct entry {
	uint64_t hash;
	int64_t t_ns;                   /* when the values were sampled */
	uint32_t n;                     /* counters */
	uint32_t seen;                  /* sweep generation of last update */
	char *name;                     /* points after vals[n] */
	uint64_t vals[];
};

struct bcn_counter_table {
	char name[TABLE_NAME_MAX];
	struct entry **slots;
	size_t cap;                     /* slots, a power of two */
	size_t max;                     /* entities at most */
	unsigned forget_after;
	uint32_t gen;                   /* sweeps so far */
	struct bcn_counter_stats st;
	struct bcn_complain resets;
};

/* Width in bits (1..64) and saturation of a kind; bad kinds are U64. */
static unsigned kind_bits(uint8_t kind, bool *sat)
{
	unsigned bits = kind & (uint8_t)~BCN_COUNTER_SAT_FLAG;

	*sat = (kind & BCN_COUNTER_SAT_FLAG) != 0;
	if (bits == 0 || bits > 64) {
		*sat = false;
		bits = 64;
	}
	return bits;
}

uint64_t bcn_counter_max(uint8_t kind)
{
	bool sat;
	unsigned bits = kind_bits(kind, &sat);

	return bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

unsigned bcn_counter_delta(uint8_t kind, uint64_t prev, uint64_t cur,
			   uint64_t *delta)
{
	bool sat;
	uint64_t max, d;
	unsigned f = 0;

	kind_bits(kind, &sat);
	max = bcn_counter_max(kind);
	if (prev > max || cur > max) {
		f |= BCN_COUNTER_F_RANGE;
		max = UINT64_MAX;
		sat = false;
	}
	if (sat && cur == max)
		f |= BCN_COUNTER_F_SATURATED;
	if (cur >= prev) {
		*delta = cur - prev;
		return f;
	}
	if (!sat) {
		d = (cur - prev) & max;         /* modulo 2^bits */
		if (d <= max / 2) {
			*delta = d;
			return f | BCN_COUNTER_F_WRAP;
		}
	}
	*delta = cur;
	return f | BCN_COUNTER_F_RESET;
}

/* FNV-1a, 64-bit. */
static uint64_t hash_name(const char *s, size_t len)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

int bcn_counter_table_new(const char *name, size_t max_entities,
			  unsigned forget_after,
			  struct bcn_counter_table **out)
{
	struct bcn_counter_table *t;

	*out = NULL;
	if (max_entities < 1 || max_entities > BCN_COUNTER_TABLE_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cap = TABLE_MIN_SLOTS;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return -ENOMEM;
	}
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "counters");
	t->max = max_entities;
	t->forget_after = forget_after;
	*out = t;
	return 0;
}

void bcn_counter_table_free(struct bcn_counter_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i]);
	free(t->slots);
	free(t);
}

/* The slot holding entity, or the empty slot where it would go. */
static size_t find_slot(const struct bcn_counter_table *t, const char *name,
			size_t len, uint64_t h)
{
	size_t mask = t->cap - 1, i = (size_t)h & mask;

	for (;;) {
		const struct entry *e = t->slots[i];

		if (!e || (e->hash == h && !memcmp(e->name, name, len) &&
			   e->name[len] == '\0'))
			return i;
		i = (i + 1) & mask;
	}
}

/* Doubles the slots, keeping the load at most 1/2. */
static int grow(struct bcn_counter_table *t)
{
	size_t ncap = t->cap * 2, mask = ncap - 1;
	struct entry **ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct entry *e = t->slots[i];
		size_t j;

		if (!e)
			continue;
		for (j = (size_t)e->hash & mask; ns[j]; j = (j + 1) & mask)
			;
		ns[j] = e;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

/* Empties slot i and shifts the entries of its cluster back. */
static void remove_slot(struct bcn_counter_table *t, size_t i)
{
	size_t mask = t->cap - 1, j = i;

	free(t->slots[i]);
	t->slots[i] = NULL;
	t->st.entities--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!t->slots[j])
			return;
		home = (size_t)t->slots[j]->hash & mask;
		/* the entry at j may fill i unless its home lies in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		t->slots[i] = t->slots[j];
		t->slots[j] = NULL;
		i = j;
	}
}

static struct entry *new_entry(const char *name, size_t len, uint64_t h,
			       const uint64_t *cur, size_t n)
{
	struct entry *e = malloc(sizeof(*e) + n * sizeof(e->vals[0]) + len + 1);

	if (!e)
		return NULL;
	e->hash = h;
	e->n = (uint32_t)n;
	e->name = (char *)&e->vals[n];
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	memcpy(e->vals, cur, n * sizeof(e->vals[0]));
	return e;
}

/* Stores a first sample of entity in slot i (empty, or holding the entity
 * with another vector length). */
static int first_sample(struct bcn_counter_table *t, size_t i,
			const char *name, size_t len, uint64_t h,
			const uint64_t *cur, size_t n, int64_t now_ns)
{
	struct entry *e = new_entry(name, len, h, cur, n);

	if (!e)
		return -ENOMEM;
	e->t_ns = now_ns;
	e->seen = t->gen;
	if (t->slots[i])
		free(t->slots[i]);
	else
		t->st.entities++;
	t->slots[i] = e;
	t->st.updates++;
	t->st.first++;
	return 0;
}

static int check_args(const char *entity, size_t n, size_t *len)
{
	if (!entity || n == 0 || n > BCN_COUNTER_VEC_MAX)
		return -EINVAL;
	*len = strnlen(entity, BCN_COUNTER_ENTITY_MAX);
	if (*len == 0 || *len == BCN_COUNTER_ENTITY_MAX)
		return -EINVAL;
	return 0;
}

int bcn_counter_update(struct bcn_counter_table *t, const char *entity,
		       const uint64_t *cur, const uint8_t *kinds, size_t n,
		       int64_t now_ns, uint64_t *delta, uint8_t *cflags,
		       int64_t *prev_ns)
{
	struct entry *e;
	unsigned all = 0;
	size_t len, i;
	uint64_t h;
	int rc;

	rc = check_args(entity, n, &len);
	if (rc)
		return rc;
	memset(delta, 0, n * sizeof(*delta));
	if (prev_ns)
		*prev_ns = now_ns;
	h = hash_name(entity, len);
	i = find_slot(t, entity, len, h);
	e = t->slots[i];
	if (!e || e->n != n) {
		if (!e && t->st.entities >= t->max) {
			t->st.dropped++;
			return -BCN_EFULL;
		}
		if (!e && (t->st.entities + 1) * 2 > t->cap) {
			rc = grow(t);
			if (rc)
				return rc;
			i = find_slot(t, entity, len, h);
		}
		rc = first_sample(t, i, entity, len, h, cur, n, now_ns);
		if (rc)
			return rc;
		if (cflags)
			memset(cflags, BCN_COUNTER_F_FIRST, n);
		return BCN_COUNTER_F_FIRST;
	}
	for (size_t k = 0; k < n; k++) {
		unsigned f = bcn_counter_delta(kinds ? kinds[k] : BCN_COUNTER_U64,
					       e->vals[k], cur[k], &delta[k]);

		if (f & BCN_COUNTER_F_WRAP)
			t->st.wraps++;
		if (f & BCN_COUNTER_F_SATURATED)
			t->st.saturated++;
		if (cflags)
			cflags[k] = (uint8_t)f;
		all |= f;
		e->vals[k] = cur[k];
	}
	if (prev_ns)
		*prev_ns = e->t_ns;
	e->t_ns = now_ns;
	e->seen = t->gen;
	t->st.updates++;
	if (all & BCN_COUNTER_F_RESET) {
		t->st.resets++;
		bcn_complain(&t->resets, BCN_LOG_NOTICE,
			     "%s: counters of %s went down (restart or reset): "
			     "counting from their new values", t->name, entity);
	}
	return (int)all;
}

size_t bcn_counter_sweep(struct bcn_counter_table *t)
{
	size_t forgotten = 0, i = 0;

	/* entities updated in this sample have seen == gen: missed 0 */
	while (t->forget_after && i < t->cap) {
		struct entry *e = t->slots[i];

		/* remove_slot may move a later entry into i: look again */
		if (e && t->gen - e->seen >= t->forget_after) {
			BCN_DEBUG("%s: forgetting %s, missed %u samples",
				  t->name, e->name, t->gen - e->seen);
			remove_slot(t, i);
			forgotten++;
			continue;
		}
		i++;
	}
	t->st.forgotten += forgotten;
	t->gen++;
	return forgotten;
}

int bcn_counter_forget(struct bcn_counter_table *t, const char *entity)
{
	size_t len, i;

	if (check_args(entity, 1, &len))
		return 0;
	i = find_slot(t, entity, len, hash_name(entity, len));
	if (!t->slots[i])
		return 0;
	remove_slot(t, i);
	return 1;
}

void bcn_counter_table_stats(const struct bcn_counter_table *t,
			     struct bcn_counter_stats *st)
{
	*st = t->st;
}
