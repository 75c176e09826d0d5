/* Records from JSON (the inverse of bcn_record_to_json) and a jansson
 * loader that keeps uint64 values above INT64_MAX exact. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "store/record_json.h"

#define U64_DIGITS 20                   /* digits of UINT64_MAX */
#define I64_DIGITS 19                   /* digits of INT64_MAX */
#define DIST_KEYS 8                     /* count ... p99, hist */

static const char u64_max_str[] = "18446744073709551615";
static const char i64_max_str[] = "9223372036854775807";

void bcn_record_arena_reset(struct bcn_record_arena *a)
{
	a->used = 0;
}

/* Whether the n digits at p are a number above INT64_MAX that fits in a
 * uint64 (and no leading zero, which JSON does not allow anyway). */
static int big_u64(const char *p, size_t n)
{
	if (n == 0 || p[0] == '0')
		return 0;
	if (n == I64_DIGITS)
		return memcmp(p, i64_max_str, I64_DIGITS) > 0;
	if (n == U64_DIGITS)
		return memcmp(p, u64_max_str, U64_DIGITS) <= 0;
	return 0;
}

/* Walks JSON text outside and inside strings, tracking whether each
 * number stands where a value goes. Counts the big unsigned values and,
 * when out is not NULL, copies the text to out with those values quoted.
 * Returns the count, or 0 when the nesting is deeper than jansson takes
 * (jansson then rejects the text on its own). */
static size_t quote_big(const char *buf, size_t len, char *out)
{
	uint8_t in_array[BCN_JSON_MAX_DEPTH / 8 + 1];
	size_t i = 0, o = 0, count = 0, depth = 0;
	char prev = 0;

	while (i < len) {
		char c = buf[i];

		if (c == '"') {
			size_t j = i + 1;

			while (j < len && buf[j] != '"')
				j += buf[j] == '\\' ? 2 : 1;
			j = j < len ? j + 1 : len;
			if (out)
				memcpy(out + o, buf + i, j - i);
			o += j - i;
			i = j;
			prev = '"';
			continue;
		}
		if (c == '-' || (c >= '0' && c <= '9')) {
			size_t j = i, digits = 1;
			int value = prev == 0 || prev == ':' || prev == '[' ||
				    (prev == ',' && depth > 0 &&
				     (in_array[(depth - 1) / 8] >> ((depth - 1) % 8) & 1));

			while (j < len && strchr("-+.eE0123456789", buf[j]) &&
			       buf[j] != '\0')
				j++;
			for (size_t k = i; k < j; k++)
				digits &= buf[k] >= '0' && buf[k] <= '9';
			if (value && digits && big_u64(buf + i, j - i)) {
				count++;
				if (out) {
					out[o] = '"';
					memcpy(out + o + 1, buf + i, j - i);
					out[o + 1 + j - i] = '"';
				}
				o += j - i + 2;
			} else {
				if (out)
					memcpy(out + o, buf + i, j - i);
				o += j - i;
			}
			i = j;
			prev = '0';
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth >= BCN_JSON_MAX_DEPTH)
				return 0;
			if (c == '[')
				in_array[depth / 8] |= (uint8_t)(1u << (depth % 8));
			else
				in_array[depth / 8] &= (uint8_t)~(1u << (depth % 8));
			depth++;
		} else if ((c == '}' || c == ']') && depth > 0) {
			depth--;
		}
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			prev = c;
		if (out)
			out[o] = c;
		o++;
		i++;
	}
	return count;
}

int bcn_json_load(const char *buf, size_t len, json_t **out, char *err,
		  size_t errlen)
{
	size_t n = quote_big(buf, len, NULL);
	char *copy = NULL;
	json_error_t je;

	*out = NULL;
	if (n) {
		copy = malloc(len + 2 * n);
		if (!copy)
			return bcn_fail(err, errlen, -ENOMEM, "out of memory");
		quote_big(buf, len, copy);
		buf = copy;
		len += 2 * n;
	}
	*out = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(copy);
	if (!*out)
		return bcn_fail(err, errlen, -BCN_ESYNTAX, "JSON: %s at line %d column %d",
			    je.text, je.line, je.column);
	return 0;
}

int bcn_json_u64(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);

		if (x < 0)
			return -BCN_ERANGE;
		*out = (uint64_t)x;
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		uint64_t x = 0;

		if (strlen(s) != n || !big_u64(s, n))
			return -BCN_ERANGE;
		for (size_t i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -BCN_ERANGE;
			x = x * 10 + (uint64_t)(s[i] - '0');
		}
		*out = x;
		return 0;
	}
	return -BCN_ERANGE;
}

/* Copies a JSON string into the arena. */
static int arena_str(struct bcn_record_arena *a, const json_t *v,
		     const char **out)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);

	if (n > BCN_STR_MAX || memchr(s, '\0', n))
		return -BCN_ERANGE;
	if (n + 1 > sizeof(a->data) - a->used)
		return -BCN_EFULL;
	memcpy(a->data + a->used, s, n);
	a->data[a->used + n] = '\0';
	*out = a->data + a->used;
	a->used += n + 1;
	return 0;
}

static int get_i64(const json_t *v, int64_t *out)
{
	if (!json_is_integer(v))
		return -BCN_ECORRUPT;
	*out = json_integer_value(v);
	return 0;
}

static int get_u64(const json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) && !json_is_string(v))
		return -BCN_ECORRUPT;
	return bcn_json_u64(v, out);
}

/* A histogram: an array of at most n counters, the rest zero. */
static int get_hist(const json_t *v, uint64_t *dst, unsigned n)
{
	size_t i;
	json_t *e;
	int rc;

	if (!json_is_array(v))
		return -BCN_ECORRUPT;
	if (json_array_size(v) > n)
		return -BCN_ERANGE;
	json_array_foreach(v, i, e) {
		rc = get_u64(e, &dst[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Named counters: an object of name -> counter; absent ones are zero. */
static int get_named(const json_t *v, const struct bcn_field *f, uint64_t *dst)
{
	const char *key;
	json_t *e;
	int rc;

	if (!json_is_object(v))
		return -BCN_ECORRUPT;
	json_object_foreach((json_t *)v, key, e) {
		unsigned i;

		for (i = 0; i < f->n && strcmp(key, f->names[i]) != 0; i++)
			;
		if (i == f->n)
			return -BCN_ERANGE;
		rc = get_u64(e, &dst[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int get_dist(const json_t *v, struct bcn_dist *d)
{
	static const char *const keys[DIST_KEYS - 1] = {
		"count", "sum", "min", "max", "p50", "p95", "p99" };
	uint64_t *dst[DIST_KEYS - 1] = { &d->count, &d->sum, &d->min, &d->max,
					 &d->p50, &d->p95, &d->p99 };
	int rc;

	if (!json_is_object(v) || json_object_size(v) != DIST_KEYS)
		return -BCN_ECORRUPT;
	for (unsigned i = 0; i < DIST_KEYS - 1; i++) {
		const json_t *e = json_object_get(v, keys[i]);

		if (!e)
			return -BCN_ECORRUPT;
		rc = get_u64(e, dst[i]);
		if (rc)
			return rc;
	}
	if (!json_object_get(v, "hist"))
		return -BCN_ECORRUPT;
	return get_hist(json_object_get(v, "hist"), d->hist, BCN_HIST_BUCKETS);
}

static int get_enum(const json_t *v, const struct bcn_field *f, uint64_t *out)
{
	const char *s = json_string_value(v);

	if (!s)
		return -BCN_ECORRUPT;
	for (unsigned i = 0; i < f->n; i++) {
		if (strcmp(s, f->names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -BCN_ERANGE;
}

static int get_field(const json_t *v, const struct bcn_field *f,
		     struct bcn_record *r, struct bcn_record_arena *a)
{
	char *p = (char *)r + f->offset;

	switch (f->kind) {
	case BCN_F_U64:
		return get_u64(v, (uint64_t *)p);
	case BCN_F_I64:
		return get_i64(v, (int64_t *)p);
	case BCN_F_ENUM:
		return get_enum(v, f, (uint64_t *)p);
	case BCN_F_STR:
		if (!json_is_string(v))
			return -BCN_ECORRUPT;
		return arena_str(a, v, (const char **)p);
	case BCN_F_VEC:
		if (f->names)
			return get_named(v, f, (uint64_t *)p);
		return get_hist(v, (uint64_t *)p, f->n);
	case BCN_F_DIST:
		return get_dist(v, (struct bcn_dist *)p);
	}
	return -BCN_ECORRUPT;
}

/* The record type named by the "type" key, or 0. */
static uint64_t type_of(const json_t *v)
{
	const char *name = json_string_value(json_object_get(v, "type"));

	for (uint64_t t = 1; name && t < BCN_REC_TYPE_MAX; t++)
		if (strcmp(bcn_record_desc(t)->name, name) == 0)
			return t;
	return 0;
}

/* Decodes one key of the object: a common key or a field of d. */
static int get_key(const char *key, const json_t *e,
		   const struct bcn_record_desc *d, struct bcn_record *r,
		   struct bcn_record_arena *a)
{
	if (strcmp(key, "type") == 0)
		return 0;
	if (strcmp(key, "layer") == 0) {
		if (!json_is_string(e))
			return -BCN_ECORRUPT;
		return strcmp(json_string_value(e), bcn_layer_name(d->layer)) ?
		       -BCN_ERANGE : 0;
	}
	if (strcmp(key, "node") == 0) {
		if (!json_is_string(e))
			return -BCN_ECORRUPT;
		return arena_str(a, e, &r->node);
	}
	if (strcmp(key, "t") == 0)
		return get_i64(e, &r->t);
	if (strcmp(key, "dur") == 0)
		return get_i64(e, &r->dur);
	if (strcmp(key, "job") == 0)
		return get_u64(e, &r->job);
	for (size_t i = 0; i < d->nfields; i++)
		if (strcmp(key, d->fields[i].name) == 0)
			return get_field(e, &d->fields[i], r, a);
	return -BCN_ECORRUPT;
}

/* Keys every record has: type, layer, node, t, dur, job. */
#define COMMON_KEYS 6

int bcn_record_from_json_value(const json_t *v, struct bcn_record_arena *a,
			       struct bcn_record *r, char *err, size_t errlen)
{
	const struct bcn_record_desc *d;
	const char *key;
	uint64_t type;
	json_t *e;
	int rc;

	if (!json_is_object(v))
		return bcn_fail(err, errlen, -BCN_ECORRUPT, "record is not an object");
	type = type_of(v);
	if (!type)
		return bcn_fail(err, errlen, -BCN_ECORRUPT,
			    "record has no known \"type\"");
	d = bcn_record_desc(type);
	bcn_record_init(r, (enum bcn_rec_type)type);
	json_object_foreach((json_t *)v, key, e) {
		rc = get_key(key, e, d, r, a);
		if (rc)
			return bcn_fail(err, errlen, rc, "%s record, key \"%s\": %s",
				    d->name, key, rc == -BCN_ECORRUPT ?
				    "unknown key or wrong JSON type" :
				    bcn_strerror(rc));
	}
	/* every key known and none twice: the count tells all are there */
	if (json_object_size(v) != COMMON_KEYS + d->nfields)
		return bcn_fail(err, errlen, -BCN_ECORRUPT,
			    "%s record has %zu keys, want %zu", d->name,
			    json_object_size(v), COMMON_KEYS + d->nfields);
	rc = bcn_record_check(r);
	if (rc)
		return bcn_fail(err, errlen, rc, "%s record out of range", d->name);
	return 0;
}

int bcn_record_from_json(const char *buf, size_t len,
			 struct bcn_record_arena *a, struct bcn_record *r,
			 char *err, size_t errlen)
{
	json_t *v;
	int rc;

	rc = bcn_json_load(buf, len, &v, err, errlen);
	if (rc)
		return rc;
	rc = bcn_record_from_json_value(v, a, r, err, errlen);
	json_decref(v);
	return rc;
}
