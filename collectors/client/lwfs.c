/* Parser of the LWFS forwarding-client trace log (docs/lwfs-log.md): a
 * strict, allocation-free pure function over one line. */
#include <stdbool.h>
#include <string.h>

#include "collectors/client/lwfs.h"
#include "common/error.h"
#include "common/text.h"
#include "proto/record.h"
#include "common/timefmt.h"

#define SEC_MAX 9223372035LL    /* seconds whose ns (+ fraction) fit int64 */

#define X_NAME(id, name, io) { name, sizeof(name) - 1, io },
static const struct { const char *name; size_t len; uint8_t io; } ops[] = {
	BCN_LWFS_OPS(X_NAME)
};

#define X_MSG(id, msg) msg,
static const char *const messages[] = { BCN_LWFS_ERRORS(X_MSG) };

/* A cursor over the line. */
struct cur {
	const char *p, *end;
	enum bcn_lwfs_error err;
};

/* Records why the line is malformed; returns the matching code. */
static int fail(struct cur *c, enum bcn_lwfs_error e)
{
	c->err = e;
	switch (e) {
	case BCN_LWFS_E_LONG: case BCN_LWFS_E_DATE_RANGE:
	case BCN_LWFS_E_TIME_RANGE: case BCN_LWFS_E_EPOCH_RANGE:
	case BCN_LWFS_E_PID_RANGE: case BCN_LWFS_E_NAME_LONG:
	case BCN_LWFS_E_ARGS_MAX: case BCN_LWFS_E_PATH_LONG:
	case BCN_LWFS_E_HANDLE_RANGE: case BCN_LWFS_E_KEY_LONG:
	case BCN_LWFS_E_VALUE_RANGE: case BCN_LWFS_E_RESULT_RANGE:
	case BCN_LWFS_E_END_RANGE: case BCN_LWFS_E_RESULT_SIZE:
		return -BCN_ERANGE;
	default:
		return -BCN_ESYNTAX;
	}
}

/* Consumes ch if it is next. */
static bool eat(struct cur *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* Exactly n digits into *v. */
static bool fixed(struct cur *c, int n, int64_t *v)
{
	int64_t x = 0;

	if (c->end - c->p < n)
		return false;
	for (int i = 0; i < n; i++) {
		if (!bcn_text_is_digit(c->p[i]))
			return false;
		x = x * 10 + (c->p[i] - '0');
	}
	c->p += n;
	*v = x;
	return true;
}

/* "." 1*9DIGIT after the seconds, scaled to ns; nothing is 0. */
static int fraction(struct cur *c, int64_t *ns)
{
	int n = 0;

	*ns = 0;
	if (!eat(c, '.'))
		return 0;
	while (c->p < c->end && bcn_text_is_digit(*c->p)) {
		if (++n > 9)
			return fail(c, BCN_LWFS_E_FRACTION);
		*ns = *ns * 10 + (*c->p++ - '0');
	}
	if (n == 0)
		return fail(c, BCN_LWFS_E_FRACTION);
	for (; n < 9; n++)
		*ns *= 10;
	return 0;
}

/* "[" YYYY-MM-DD SP HH:MM:SS [fraction] "]" in the log's local time. */
static int timestamp(struct cur *c, int32_t utc_offset, int64_t *t)
{
	int64_t y, mo, d, h, mi, s, frac, days, sec;
	int rc;

	if (!eat(c, '['))
		return fail(c, BCN_LWFS_E_OPEN_BRACKET);
	if (!fixed(c, 4, &y) || !eat(c, '-') || !fixed(c, 2, &mo) ||
	    !eat(c, '-') || !fixed(c, 2, &d))
		return fail(c, BCN_LWFS_E_DATE);
	if (!eat(c, ' ') || !fixed(c, 2, &h) || !eat(c, ':') ||
	    !fixed(c, 2, &mi) || !eat(c, ':') || !fixed(c, 2, &s))
		return fail(c, BCN_LWFS_E_TIME);
	rc = fraction(c, &frac);
	if (rc)
		return rc;
	if (!eat(c, ']'))
		return fail(c, BCN_LWFS_E_CLOSE_BRACKET);
	if (bcn_timefmt_days(y, mo, d, &days))
		return fail(c, BCN_LWFS_E_DATE_RANGE);
	if (h > 23 || mi > 59 || s > 59)
		return fail(c, BCN_LWFS_E_TIME_RANGE);
	sec = days * 86400 + h * 3600 + mi * 60 + s - utc_offset;
	if (sec < 0 || sec > SEC_MAX)
		return fail(c, BCN_LWFS_E_EPOCH_RANGE);
	*t = sec * 1000000000 + frac;
	return 0;
}

/* The process id: 1..PID_MAX, no leading zeros. */
static int pid(struct cur *c, uint32_t *out)
{
	uint64_t v = 0;
	int n = 0;

	while (c->p < c->end && bcn_text_is_digit(*c->p)) {
		if (++n > 10)
			return fail(c, BCN_LWFS_E_PID_RANGE);
		v = v * 10 + (uint64_t)(*c->p++ - '0');
	}
	if (n == 0 || (n > 1 && c->p[-n] == '0'))
		return fail(c, BCN_LWFS_E_PID);
	if (v == 0 || v > BCN_LWFS_PID_MAX)
		return fail(c, BCN_LWFS_E_PID_RANGE);
	*out = (uint32_t)v;
	return 0;
}

/* [A-Z][A-Z0-9_]* and the operation it names. */
static int opname(struct cur *c, struct bcn_lwfs_line *out)
{
	const char *q = c->p;
	size_t n, i;

	if (q == c->end || (unsigned char)(*q - 'A') >= 26)
		return fail(c, BCN_LWFS_E_NAME);
	while (q < c->end && ((unsigned char)(*q - 'A') < 26 ||
			      bcn_text_is_digit(*q) || *q == '_'))
		q++;
	n = (size_t)(q - c->p);
	if (n > BCN_LWFS_NAME_MAX)
		return fail(c, BCN_LWFS_E_NAME_LONG);
	out->name = c->p;
	out->name_len = n;
	out->lop = BCN_LWFS_UNKNOWN;
	out->op = BCN_IO_OTHER;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (ops[i].len == n && memcmp(ops[i].name, c->p, n) == 0) {
			out->lop = (uint8_t)i;
			out->op = ops[i].io;
			break;
		}
	}
	c->p = q;
	if (!eat(c, '('))
		return fail(c, BCN_LWFS_E_OPEN_PAREN);
	return 0;
}

/* Whether an argument ends here: at ',', ')' or the end of the line. */
static bool arg_end(const struct cur *c)
{
	return c->p == c->end || *c->p == ',' || *c->p == ')';
}

/* A quoted path; its raw bytes go to *raw, *rlen and its length once
 * unescaped to *dlen. */
static int path(struct cur *c, const char **raw, size_t *rlen, size_t *dlen)
{
	const char *q = ++c->p;
	size_t n = 0;
	int hi, lo;

	for (;;) {
		if (q == c->end)
			return fail(c, BCN_LWFS_E_QUOTE);
		if (*q == '"')
			break;
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			return fail(c, BCN_LWFS_E_PATH_CHAR);
		if (*q == '\\') {
			if (c->end - q < 2)
				return fail(c, BCN_LWFS_E_QUOTE);
			if (q[1] == 'x') {
				if (c->end - q < 4 ||
				    (hi = bcn_text_hexval(q[2])) < 0 ||
				    (lo = bcn_text_hexval(q[3])) < 0)
					return fail(c, BCN_LWFS_E_ESCAPE);
				if (hi == 0 && lo == 0)
					return fail(c, BCN_LWFS_E_PATH_NUL);
				q += 2;
			} else if (!strchr("\"\\nt", q[1]) || q[1] == '\0') {
				return fail(c, BCN_LWFS_E_ESCAPE);
			}
			q++;
		}
		q++;
		n++;
	}
	*raw = c->p;
	*rlen = (size_t)(q - c->p);
	*dlen = n;
	c->p = q + 1;
	if (n == 0)
		return fail(c, BCN_LWFS_E_PATH_EMPTY);
	if (n > BCN_LWFS_PATH_MAX)
		return fail(c, BCN_LWFS_E_PATH_LONG);
	if (!arg_end(c))
		return fail(c, BCN_LWFS_E_ARG);
	return 0;
}

/* "0x" 1*16HEXDIG, at most INT64_MAX (so that it fits a record's fd). */
static int hex(struct cur *c, uint64_t *v, enum bcn_lwfs_error bad)
{
	int n = 0, d;

	*v = 0;
	if (c->end - c->p < 2 || c->p[0] != '0' || c->p[1] != 'x')
		return fail(c, bad);
	c->p += 2;
	while (c->p < c->end && (d = bcn_text_hexval(*c->p)) >= 0) {
		if (++n > 16)
			return fail(c, BCN_LWFS_E_HANDLE_RANGE);
		*v = *v << 4 | (uint64_t)d;
		c->p++;
	}
	if (n == 0)
		return fail(c, bad);
	if (*v > INT64_MAX)
		return fail(c, BCN_LWFS_E_HANDLE_RANGE);
	return 0;
}

/* A value: "0x" hex, or ["-"] digits ["." 1*9DIGIT]. */
struct value {
	uint64_t mag;           /* magnitude of the integer part */
	bool neg, is_hex, has_frac;
	int64_t frac_ns;        /* the fraction as ns */
};

static int value(struct cur *c, struct value *v)
{
	int n = 0, d;

	memset(v, 0, sizeof(*v));
	if (c->end - c->p > 2 && c->p[0] == '0' && c->p[1] == 'x') {
		v->is_hex = true;
		c->p += 2;
		while (c->p < c->end && (d = bcn_text_hexval(*c->p)) >= 0) {
			if (++n > 16)
				return fail(c, BCN_LWFS_E_VALUE_RANGE);
			v->mag = v->mag << 4 | (uint64_t)d;
			c->p++;
		}
		return n ? 0 : fail(c, BCN_LWFS_E_VALUE);
	}
	v->neg = eat(c, '-');
	while (c->p < c->end && bcn_text_is_digit(*c->p)) {
		d = *c->p++ - '0';
		if (v->mag > (UINT64_MAX - (uint64_t)d) / 10)
			return fail(c, BCN_LWFS_E_VALUE_RANGE);
		v->mag = v->mag * 10 + (uint64_t)d;
		n++;
	}
	if (n == 0)
		return fail(c, BCN_LWFS_E_VALUE);
	if (c->p < c->end && *c->p == '.') {
		v->has_frac = true;
		if (fraction(c, &v->frac_ns))
			return fail(c, BCN_LWFS_E_VALUE);
	}
	return 0;
}

/* Applies a key's value to the line: size, offset and dur are used, other
 * keys only checked. */
static int apply_key(struct cur *c, const char *key, size_t n,
		     const struct value *v, struct bcn_lwfs_line *out)
{
	bool is_size = n == 4 && memcmp(key, "size", 4) == 0;
	bool is_offset = n == 6 && memcmp(key, "offset", 6) == 0;

	if (is_size || is_offset) {
		if (v->neg || v->has_frac)
			return fail(c, BCN_LWFS_E_INT_KEY);
		if (is_size) {
			out->has_size = true;
			out->size = v->mag;
		} else {
			out->has_offset = true;
			out->offset = v->mag;
		}
	} else if (n == 3 && memcmp(key, "dur", 3) == 0) {
		if (v->neg || v->is_hex)
			return fail(c, BCN_LWFS_E_DUR);
		if (v->mag > (uint64_t)SEC_MAX)
			return fail(c, BCN_LWFS_E_VALUE_RANGE);
		out->has_dur = true;
		out->dur = (int64_t)v->mag * 1000000000 + v->frac_ns;
	} else if (v->neg && v->mag > (uint64_t)INT64_MAX + 1) {
		return fail(c, BCN_LWFS_E_VALUE_RANGE);
	}
	return 0;
}

/* key "=" value; keys[] holds the keys seen so far, for repeats. */
static int keyval(struct cur *c, const char **keys, size_t *klens,
		  size_t nkeys, struct bcn_lwfs_line *out)
{
	const char *key = c->p;
	struct value v;
	size_t n, i;
	int rc;

	while (c->p < c->end && ((unsigned char)(*c->p - 'a') < 26 ||
				 bcn_text_is_digit(*c->p) || *c->p == '_'))
		c->p++;
	n = (size_t)(c->p - key);
	if (n > BCN_LWFS_KEY_MAX)
		return fail(c, BCN_LWFS_E_KEY_LONG);
	if (!eat(c, '='))
		return fail(c, BCN_LWFS_E_KEY);
	for (i = 0; i < nkeys; i++)
		if (klens[i] == n && memcmp(keys[i], key, n) == 0)
			return fail(c, BCN_LWFS_E_DUP_KEY);
	keys[nkeys] = key;
	klens[nkeys] = n;
	rc = value(c, &v);
	if (rc)
		return rc;
	if (!arg_end(c))
		return fail(c, BCN_LWFS_E_VALUE);
	return apply_key(c, key, n, &v, out);
}

/* One argument: a path, a handle or key=value. */
static int arg(struct cur *c, const char **keys, size_t *klens, size_t *nkeys,
	       struct bcn_lwfs_line *out)
{
	int rc;

	if (*c->p == '"') {
		if (!out->path)
			return path(c, &out->path, &out->path_len,
				    &out->path_dlen);
		if (!out->path2)
			return path(c, &out->path2, &out->path2_len,
				    &out->path2_dlen);
		return fail(c, BCN_LWFS_E_PATHS);
	}
	if (*c->p == '0' && c->end - c->p >= 2 && c->p[1] == 'x') {
		if (out->has_handle)
			return fail(c, BCN_LWFS_E_HANDLES);
		rc = hex(c, &out->handle, BCN_LWFS_E_HANDLE);
		if (!rc && !arg_end(c))
			rc = fail(c, BCN_LWFS_E_HANDLE);
		out->has_handle = rc == 0;
		return rc;
	}
	if ((unsigned char)(*c->p - 'a') < 26) {
		rc = keyval(c, keys, klens, *nkeys, out);
		(*nkeys)++;
		return rc;
	}
	return fail(c, BCN_LWFS_E_ARG);
}

/* [ arg *( "," *SP arg ) ] ")" */
static int args(struct cur *c, struct bcn_lwfs_line *out)
{
	const char *keys[BCN_LWFS_ARGS_MAX];
	size_t klens[BCN_LWFS_ARGS_MAX], nkeys = 0;
	unsigned n = 0;
	int rc;

	if (eat(c, ')'))
		return 0;
	for (;;) {
		if (c->p == c->end)
			return fail(c, BCN_LWFS_E_CLOSE_PAREN);
		if (++n > BCN_LWFS_ARGS_MAX)
			return fail(c, BCN_LWFS_E_ARGS_MAX);
		rc = arg(c, keys, klens, &nkeys, out);
		if (rc)
			return rc;
		if (eat(c, ')'))
			return 0;
		if (!eat(c, ','))
			return fail(c, BCN_LWFS_E_CLOSE_PAREN);
		while (eat(c, ' '))
			;
	}
}

/* [ " => " handle ] [ " = " result ] at the end of the line. */
static int tail(struct cur *c, struct bcn_lwfs_line *out)
{
	uint64_t mag = 0;
	bool neg;
	int n = 0, rc;

	if (c->end - c->p >= 4 && memcmp(c->p, " => ", 4) == 0) {
		c->p += 4;
		rc = hex(c, &out->ret_handle, BCN_LWFS_E_RET_HANDLE);
		if (rc)
			return rc;
		out->has_ret_handle = true;
	}
	if (c->p == c->end)
		return 0;
	if (c->end - c->p < 3 || memcmp(c->p, " = ", 3) != 0)
		return fail(c, BCN_LWFS_E_TRAILING);
	c->p += 3;
	neg = eat(c, '-');
	while (c->p < c->end && bcn_text_is_digit(*c->p)) {
		if (++n > 19)
			return fail(c, BCN_LWFS_E_RESULT_RANGE);
		mag = mag * 10 + (uint64_t)(*c->p++ - '0');
	}
	if (n == 0 || (neg && mag == 0))
		return fail(c, BCN_LWFS_E_RESULT);
	if (mag > INT64_MAX)
		return fail(c, BCN_LWFS_E_RESULT_RANGE);
	if (c->p != c->end)
		return fail(c, BCN_LWFS_E_TRAILING);
	out->has_result = true;
	out->result = neg ? -(int64_t)mag : (int64_t)mag;
	return 0;
}

/* What each operation needs (docs/lwfs-log.md, "Operations"). */
static int check_op(struct cur *c, const struct bcn_lwfs_line *l)
{
	bool failed = l->has_result && l->result < 0;

	switch (l->lop) {
	case BCN_LWFS_READ:
	case BCN_LWFS_WRITE:
		if (!l->has_handle)
			return fail(c, BCN_LWFS_E_NEED_HANDLE);
		if (!l->has_size)
			return fail(c, BCN_LWFS_E_NEED_SIZE);
		if (!l->has_offset)
			return fail(c, BCN_LWFS_E_NEED_OFFSET);
		if (l->size > UINT64_MAX - l->offset)
			return fail(c, BCN_LWFS_E_END_RANGE);
		if (l->has_result && l->result > 0 &&
		    (uint64_t)l->result > l->size)
			return fail(c, BCN_LWFS_E_RESULT_SIZE);
		break;
	case BCN_LWFS_OPEN:
	case BCN_LWFS_CREATE:
		if (!l->path)
			return fail(c, BCN_LWFS_E_NEED_PATH);
		if (failed && l->has_ret_handle)
			return fail(c, BCN_LWFS_E_FAILED_HANDLE);
		if (!failed && !l->has_ret_handle)
			return fail(c, BCN_LWFS_E_NEED_RET_HANDLE);
		break;
	case BCN_LWFS_RELEASE:
	case BCN_LWFS_FSYNC:
		if (!l->has_handle)
			return fail(c, BCN_LWFS_E_NEED_HANDLE);
		break;
	case BCN_LWFS_TRUNCATE:
	case BCN_LWFS_GETATTR:
	case BCN_LWFS_SETATTR:
		if (!l->has_handle && !l->path)
			return fail(c, BCN_LWFS_E_NEED_TARGET);
		break;
	case BCN_LWFS_UNLINK:
	case BCN_LWFS_MKDIR:
	case BCN_LWFS_RMDIR:
	case BCN_LWFS_LOOKUP:
		if (!l->path)
			return fail(c, BCN_LWFS_E_NEED_PATH);
		break;
	case BCN_LWFS_RENAME:
		if (!l->path2)
			return fail(c, BCN_LWFS_E_NEED_TWO_PATHS);
		break;
	default:
		break;
	}
	return 0;
}

int bcn_lwfs_parse(const char *p, size_t len, int32_t utc_offset,
		   struct bcn_lwfs_line *out, enum bcn_lwfs_error *err)
{
	struct cur c = { p, NULL, BCN_LWFS_E_OK };
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > 0 && p[len - 1] == '\r')
		len--;
	c.end = p + len;
	if (len == 0)
		rc = fail(&c, BCN_LWFS_E_EMPTY);
	else if (len > BCN_LWFS_LINE_MAX)
		rc = fail(&c, BCN_LWFS_E_LONG);
	else if (utc_offset < -BCN_LWFS_UTC_OFFSET_MAX ||
		 utc_offset > BCN_LWFS_UTC_OFFSET_MAX)
		rc = fail(&c, BCN_LWFS_E_EPOCH_RANGE);
	else
		rc = timestamp(&c, utc_offset, &out->t);
	if (!rc && !eat(&c, ' '))
		rc = fail(&c, BCN_LWFS_E_PID);
	if (!rc)
		rc = pid(&c, &out->pid);
	if (!rc && !eat(&c, ' '))
		rc = fail(&c, BCN_LWFS_E_NAME);
	if (!rc)
		rc = opname(&c, out);
	if (!rc)
		rc = args(&c, out);
	if (!rc)
		rc = tail(&c, out);
	if (!rc)
		rc = check_op(&c, out);
	if (rc) {
		memset(out, 0, sizeof(*out));
		out->lop = BCN_LWFS_OP_MAX;
	}
	if (err)
		*err = c.err;
	return rc;
}

const char *bcn_lwfs_error_str(enum bcn_lwfs_error err)
{
	if ((unsigned)err >= BCN_LWFS_E_MAX)
		return "?";
	return messages[err];
}

const char *bcn_lwfs_op_name(enum bcn_lwfs_op op)
{
	if ((unsigned)op >= sizeof(ops) / sizeof(ops[0]))
		return "?";
	return ops[op].name;
}

int bcn_lwfs_unescape(const char *raw, size_t n, char *out, size_t outlen)
{
	size_t i = 0, o = 0;
	int hi, lo;
	char ch;

	while (i < n) {
		ch = raw[i++];
		if (ch == '\\') {
			if (i == n)
				return -BCN_ESYNTAX;
			ch = raw[i++];
			if (ch == 'n') {
				ch = '\n';
			} else if (ch == 't') {
				ch = '\t';
			} else if (ch == 'x') {
				if (n - i < 2 || (hi = bcn_text_hexval(raw[i])) < 0 ||
				    (lo = bcn_text_hexval(raw[i + 1])) < 0)
					return -BCN_ESYNTAX;
				ch = (char)(hi << 4 | lo);
				i += 2;
			} else if (ch != '"' && ch != '\\') {
				return -BCN_ESYNTAX;
			}
		}
		if (o == outlen)
			return -BCN_EFULL;
		out[o++] = ch;
	}
	return o > (size_t)INT32_MAX ? -BCN_EFULL : (int)o;
}

int bcn_lwfs_parse_utc_offset(const char *s, size_t len, int32_t *secs)
{
	struct cur c = { s, s + len, BCN_LWFS_E_OK };
	int64_t h, m;
	bool neg;

	if (len == 1 && s[0] == 'Z') {
		*secs = 0;
		return 0;
	}
	if (len == 0 || (s[0] != '+' && s[0] != '-'))
		return -BCN_ESYNTAX;
	neg = s[0] == '-';
	c.p++;
	if (!fixed(&c, 2, &h))
		return -BCN_ESYNTAX;
	eat(&c, ':');
	if (!fixed(&c, 2, &m) || c.p != c.end ||
	    (len == 6 && s[3] != ':') || (len != 5 && len != 6))
		return -BCN_ESYNTAX;
	if (h > 23 || m > 59)
		return -BCN_ERANGE;
	*secs = (int32_t)((h * 3600 + m * 60) * (neg ? -1 : 1));
	return 0;
}
