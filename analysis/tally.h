/* Counting structures of the analysis, bounded by their creator: a map
 * from 64-bit keys to 64-bit values (open addressing) and a map from
 * strings (node, target and file names) to a few counters. Both refuse
 * a new key beyond their maximum with -BCN_EFULL, so that a report's
 * memory is set by configuration, never by what the records hold. */
#ifndef BCN_TALLY_H
#define BCN_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- uint64 -> uint64 ---- */

struct bcn_u64map {
	uint64_t *keys, *vals;
	uint8_t *used;
	size_t n, cap, max;
};

/* An empty map that will hold at most max keys. */
void bcn_u64map_init(struct bcn_u64map *m, size_t max);
void bcn_u64map_free(struct bcn_u64map *m);

/* The value slot of key, inserted as 0 when new (*fresh says which).
 * Returns 0, -BCN_EFULL (max keys) or -ENOMEM. */
int bcn_u64map_get(struct bcn_u64map *m, uint64_t key, uint64_t **val,
		   bool *fresh);

/* The value of key into *val: true when the map holds it. */
bool bcn_u64map_find(const struct bcn_u64map *m, uint64_t key, uint64_t *val);

/* ---- string -> counters ---- */

#define BCN_TALLY_VALS 6

struct bcn_tally_entry {
	char *key;
	uint64_t v[BCN_TALLY_VALS];
	char *str;                      /* a string value, owned, or NULL */
};

struct bcn_tally {
	struct bcn_tally_entry *e;      /* in insertion order */
	size_t *slot;                   /* hash table of indices + 1 */
	size_t n, cap, nslot, max;
};

void bcn_tally_init(struct bcn_tally *t, size_t max);
void bcn_tally_free(struct bcn_tally *t);

/* The entry of key (copied when new, counters 0). Returns 0, -BCN_EFULL
 * or -ENOMEM. The pointer lives until the next bcn_tally_get. */
int bcn_tally_get(struct bcn_tally *t, const char *key,
		  struct bcn_tally_entry **out);

/* Sets e's string value to a copy of s. Returns 0 or -ENOMEM. */
int bcn_tally_set_str(struct bcn_tally_entry *e, const char *s);

/* The entry of key, or NULL. */
struct bcn_tally_entry *bcn_tally_find(const struct bcn_tally *t,
				       const char *key);

/* 64-bit FNV-1a of n bytes, continuing from h (start with 0). */
uint64_t bcn_tally_hash(uint64_t h, const void *p, size_t n);

#endif
