/* Records from JSON: the exact inverse of bcn_record_to_json, driven by the
 * same field tables (proto/record.c), over jansson.
 *
 * jansson keeps integers in a json_int_t (long long), so a uint64 above
 * INT64_MAX would not parse. bcn_json_load turns every such number that
 * stands as a value into a string of its decimal digits before jansson
 * sees the text, and bcn_json_u64 reads either form back, so every uint64
 * round-trips exactly. */
#ifndef BCN_RECORD_JSON_H
#define BCN_RECORD_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/record.h"

/* Room for the node and every string field of the record type with the
 * most strings (job: 5), each at its longest, with terminators. */
#define BCN_RECORD_ARENA_SIZE (8 * (BCN_STR_MAX + 1))

/* Deepest nesting bcn_json_load follows (jansson's own parser limit). */
#define BCN_JSON_MAX_DEPTH 2048

/* Storage for the strings of decoded records. A fixed block, so that the
 * strings already handed out never move. */
struct bcn_record_arena {
	size_t used;
	char data[BCN_RECORD_ARENA_SIZE];
};

/* Forgets every string of the arena; records decoded into it before become
 * invalid. */
void bcn_record_arena_reset(struct bcn_record_arena *a);

/* Parses len bytes of JSON text (one value of any kind, nothing after it;
 * duplicate object keys are errors). Integers above INT64_MAX and up to
 * UINT64_MAX that stand as values become strings of their digits.
 * Returns 0 and *out (release it with json_decref), or -BCN_ESYNTAX with
 * jansson's message and position in err, or -ENOMEM. */
int bcn_json_load(const char *buf, size_t len, json_t **out, char *err,
		  size_t errlen);

/* Reads a uint64 from a value of a document loaded by bcn_json_load: a
 * non-negative integer, or a string of decimal digits (no sign, no leading
 * zero) whose value is above INT64_MAX. Returns 0 or -BCN_ERANGE. */
int bcn_json_u64(const json_t *v, uint64_t *out);

/* Decodes one record from the object v as bcn_record_to_json writes it:
 * every key it writes must be there (type, layer, node, t, dur, job and
 * each field of the type), and no other. Strings are copied into a; r is
 * valid until the arena is reset. The result passes bcn_record_check.
 * Returns 0, -BCN_ECORRUPT (shape: missing, unknown or mistyped keys),
 * -BCN_ERANGE (values: unknown enum names, negative or oversized numbers,
 * strings longer than BCN_STR_MAX or with NUL bytes) or -BCN_EFULL (the
 * arena is full), with a message naming the key in err. */
int bcn_record_from_json_value(const json_t *v, struct bcn_record_arena *a,
			       struct bcn_record *r, char *err, size_t errlen);

/* bcn_json_load and bcn_record_from_json_value over a buffer. */
int bcn_record_from_json(const char *buf, size_t len,
			 struct bcn_record_arena *a, struct bcn_record *r,
			 char *err, size_t errlen);

#endif
