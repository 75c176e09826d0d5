/* A set of records that owns its strings: what a caller collects from a
 * store scan, a frame stream or a decoded archive (whose records are
 * valid only during a callback) before handing them to the archive
 * encoder as one array. Also a total order on records, to compare two
 * sets as multisets. */
#ifndef BCN_RECSET_H
#define BCN_RECSET_H

#include <stddef.h>
#include <stdint.h>

#include "proto/record.h"

struct bcn_recset_chunk;

struct bcn_recset {
	struct bcn_record *recs;        /* recs[0 .. n-1] */
	size_t n, cap;
	size_t max;                     /* records it may hold */
	struct bcn_recset_chunk *chunks; /* string storage, newest first */
	size_t bytes;                   /* string bytes held */
};

/* An empty set that may hold up to max records. */
void bcn_recset_init(struct bcn_recset *s, size_t max);

/* Frees the records and strings; the set is empty and reusable after
 * bcn_recset_init. */
void bcn_recset_free(struct bcn_recset *s);

/* Appends a copy of r and of its strings (node and string fields of its
 * type; a NULL string is copied as ""). Returns 0, -BCN_ERANGE (a type
 * that does not exist), -BCN_EFULL (max records) or -ENOMEM. */
int bcn_recset_add(struct bcn_recset *s, const struct bcn_record *r);

/* Callback form of bcn_recset_add for store scans and archive decoding
 * (arg is the set). */
int bcn_recset_add_fn(void *arg, const struct bcn_record *r);

/* A total order on records: type, node, t, dur, job, then every field of
 * the type in description order (strings by bytes). 0 exactly when the
 * records are equal in every field the record model has. */
int bcn_recset_cmp(const struct bcn_record *a, const struct bcn_record *b);

/* Sorts the set's records by bcn_recset_cmp. */
void bcn_recset_sort(struct bcn_recset *s);

#endif
