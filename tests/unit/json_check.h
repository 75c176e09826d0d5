/* A strict JSON well-formedness check for tests (RFC 8259 grammar: one
 * value, objects, arrays, strings with escapes, numbers, literals; no
 * trailing garbage). Header-only. */
#ifndef BCN_TEST_JSON_CHECK_H
#define BCN_TEST_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct json_check {
	const char *p, *end;
	int depth;
};

static bool jc_value(struct json_check *j);

static void jc_ws(struct json_check *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p) && *j->p)
		j->p++;
}

static bool jc_lit(struct json_check *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static bool jc_digits(struct json_check *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static bool jc_number(struct json_check *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!jc_digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!jc_digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!jc_digits(j))
			return false;
	}
	return true;
}

static bool jc_string(struct json_check *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (++j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p))
				return false;
			if (*j->p == 'u') {
				for (int k = 0; k < 4; k++)
					if (++j->p >= j->end ||
					    !strchr("0123456789abcdefABCDEF", *j->p))
						return false;
			}
		}
	}
	return false;
}

/* Elements of an object (members) or array until close. */
static bool jc_items(struct json_check *j, bool object, char close)
{
	jc_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		jc_ws(j);
		if (object) {
			if (!jc_string(j))
				return false;
			jc_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return false;
		}
		if (!jc_value(j))
			return false;
		jc_ws(j);
		if (j->p >= j->end)
			return false;
		if (*j->p == close) {
			j->p++;
			return true;
		}
		if (*j->p++ != ',')
			return false;
	}
}

static bool jc_value(struct json_check *j)
{
	bool ok;

	jc_ws(j);
	if (j->p >= j->end || ++j->depth > 64)
		return false;
	switch (*j->p) {
	case '{': j->p++; ok = jc_items(j, true, '}'); break;
	case '[': j->p++; ok = jc_items(j, false, ']'); break;
	case '"': ok = jc_string(j); break;
	case 't': ok = jc_lit(j, "true"); break;
	case 'f': ok = jc_lit(j, "false"); break;
	case 'n': ok = jc_lit(j, "null"); break;
	default: ok = jc_number(j); break;
	}
	j->depth--;
	return ok;
}

/* Whether s[0..n) is exactly one JSON value (surrounding space allowed). */
static inline bool json_check(const char *s, size_t n)
{
	struct json_check j = { s, s + n, 0 };

	if (!jc_value(&j))
		return false;
	jc_ws(&j);
	return j.p == j.end;
}

#endif
