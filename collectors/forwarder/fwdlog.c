/* Parser of the forwarding-server request log (docs/fwdlog.md): a strict,
 * allocation-free pure function over one line. */
#include <stdbool.h>
#include <string.h>

#include "collectors/forwarder/fwdlog.h"
#include "common/error.h"
#include "proto/record.h"

/* Operation names of the metadata class, sorted (binary search); read and
 * write are their own classes, any other name that follows the grammar is
 * of class "other". */
#define OP(s) { s, sizeof(s) - 1 }
static const struct { const char *name; size_t len; } meta_ops[] = {
	OP("access"), OP("close"), OP("create"), OP("getattr"),
	OP("getxattr"), OP("link"), OP("listxattr"), OP("lookup"),
	OP("mkdir"), OP("mknod"), OP("open"), OP("readdir"), OP("readlink"),
	OP("removexattr"), OP("rename"), OP("rmdir"), OP("setattr"),
	OP("setxattr"), OP("stat"), OP("statfs"), OP("symlink"),
	OP("truncate"), OP("unlink"),
};

/* A cursor over the line: fields are separated by exactly one space. */
struct cur {
	const char *p, *end;
	const char *why;
};

static int fail(struct cur *c, int rc, const char *why)
{
	c->why = why;
	return rc;
}

static bool at_end(const struct cur *c)
{
	return c->p == c->end;
}

/* Consumes the single space before the next field. */
static int sep(struct cur *c, const char *what)
{
	if (c->p == c->end || *c->p != ' ')
		return fail(c, -BCN_ESYNTAX, what);
	c->p++;
	return 0;
}

/* The length of the field at the cursor: bytes up to a space or the end. */
static size_t field_len(const struct cur *c)
{
	const char *q = c->p;

	while (q < c->end && *q != ' ')
		q++;
	return (size_t)(q - c->p);
}

/* A decimal number of 1..max_digits digits without leading zeros, ending
 * at a space or the end of the line: one pass over its digits. */
static int number(struct cur *c, unsigned max_digits, uint64_t *v,
		  const char *what)
{
	const char *p = c->p;
	uint64_t x = 0;

	while (p < c->end && (unsigned char)(*p - '0') < 10) {
		x = x * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (p == c->p || (p < c->end && *p != ' '))
		return fail(c, -BCN_ESYNTAX, what);
	if ((size_t)(p - c->p) > max_digits)
		return fail(c, -BCN_ERANGE, what);
	if (p - c->p > 1 && c->p[0] == '0')
		return fail(c, -BCN_ESYNTAX, what);
	c->p = p;
	*v = x;
	return 0;
}

/* <sec> "." <9 digits>: the completion time. */
static int timestamp(struct cur *c, int64_t *t)
{
	uint64_t sec = 0, ns = 0;
	size_t n = 0;
	int i;

	while (c->p + n < c->end && c->p[n] >= '0' && c->p[n] <= '9') {
		if (n >= 10)
			return fail(c, -BCN_ERANGE, "time out of range");
		sec = sec * 10 + (uint64_t)(c->p[n] - '0');
		n++;
	}
	if (n == 0 || (n > 1 && c->p[0] == '0'))
		return fail(c, -BCN_ESYNTAX, "bad time seconds");
	c->p += n;
	if (sec > (uint64_t)BCN_FWDLOG_SEC_MAX)
		return fail(c, -BCN_ERANGE, "time out of range");
	if (c->end - c->p < 10 || *c->p != '.')
		return fail(c, -BCN_ESYNTAX, "time needs 9 digits of ns");
	c->p++;
	for (i = 0; i < 9; i++) {
		unsigned char d = (unsigned char)c->p[i];

		if (d < '0' || d > '9')
			return fail(c, -BCN_ESYNTAX, "time needs 9 digits of ns");
		ns = ns * 10 + (d - '0');
	}
	c->p += 9;
	if (c->p < c->end && *c->p != ' ')
		return fail(c, -BCN_ESYNTAX, "time needs 9 digits of ns");
	*t = (int64_t)sec * 1000000000 + (int64_t)ns;
	return 0;
}

/* An optional trailing token (client, handle): 1..TOKEN_MAX visible ASCII
 * characters. */
static int token(struct cur *c, const char *what)
{
	size_t n = field_len(c), i;

	if (n == 0)
		return fail(c, -BCN_ESYNTAX, what);
	if (n > BCN_FWDLOG_TOKEN_MAX)
		return fail(c, -BCN_ERANGE, what);
	for (i = 0; i < n; i++)
		if ((unsigned char)c->p[i] < 0x21 || (unsigned char)c->p[i] > 0x7e)
			return fail(c, -BCN_ESYNTAX, what);
	c->p += n;
	return 0;
}

unsigned bcn_fwdlog_op_class(const char *op, size_t n)
{
	size_t lo = 0, hi = sizeof(meta_ops) / sizeof(meta_ops[0]);

	if (n == 4 && memcmp(op, "read", 4) == 0)
		return BCN_FWD_READ;
	if (n == 5 && memcmp(op, "write", 5) == 0)
		return BCN_FWD_WRITE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t m = meta_ops[mid].len < n ? meta_ops[mid].len : n;
		int c = memcmp(meta_ops[mid].name, op, m);

		if (c == 0)
			c = meta_ops[mid].len < n ? -1 : meta_ops[mid].len > n;
		if (c == 0)
			return BCN_FWD_META;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return BCN_FWD_OTHER;
}

/* <op>: [a-z][a-z0-9_]*, at most OP_MAX bytes, ending at a space. */
static int opname(struct cur *c, unsigned *cls)
{
	const char *p = c->p;
	size_t n;

	if (p == c->end || (unsigned char)(*p - 'a') >= 26)
		return fail(c, -BCN_ESYNTAX, "bad operation");
	while (p < c->end && ((unsigned char)(*p - 'a') < 26 ||
			      (unsigned char)(*p - '0') < 10 || *p == '_'))
		p++;
	if (p < c->end && *p != ' ')
		return fail(c, -BCN_ESYNTAX, "bad operation");
	n = (size_t)(p - c->p);
	if (n > BCN_FWDLOG_OP_MAX)
		return fail(c, -BCN_ERANGE, "operation name too long");
	*cls = bcn_fwdlog_op_class(c->p, n);
	c->p = p;
	return 0;
}

/* "#beacon-fwdlog" SP <version> [SP <free text>], or a comment. */
static int hash_line(struct cur *c, struct bcn_fwdlog_line *out)
{
	size_t mlen = sizeof(BCN_FWDLOG_MAGIC) - 1;
	uint64_t v;
	int rc;

	if ((size_t)(c->end - c->p) < mlen ||
	    memcmp(c->p, BCN_FWDLOG_MAGIC, mlen) != 0 ||
	    (c->p + mlen < c->end && c->p[mlen] != ' ')) {
		out->kind = BCN_FWDLOG_COMMENT;
		return 0;
	}
	c->p += mlen;
	rc = sep(c, "header needs a version");
	if (!rc)
		rc = number(c, 9, &v, "bad header version");
	if (rc)
		return rc;
	if (!at_end(c) && ((rc = sep(c, "bad header")) != 0 ||
			   (at_end(c) && (rc = fail(c, -BCN_ESYNTAX,
						    "bad header")) != 0)))
		return rc;
	if (v != BCN_FWDLOG_VERSION)
		return fail(c, -BCN_EVERSION, "unsupported format version");
	out->kind = BCN_FWDLOG_HEADER;
	out->version = (unsigned)v;
	return 0;
}

/* <op> SP <bytes> SP <latency_us> SP <proc_us> [SP <client> [SP <handle>]] */
static int request(struct cur *c, struct bcn_fwdlog_line *out)
{
	int rc;

	rc = opname(c, &out->cls);
	if (!rc)
		rc = sep(c, "missing bytes");
	if (!rc)
		rc = number(c, BCN_FWDLOG_DIGITS_MAX, &out->bytes, "bad bytes");
	if (!rc)
		rc = sep(c, "missing latency");
	if (!rc)
		rc = number(c, BCN_FWDLOG_DIGITS_MAX, &out->latency,
			    "bad latency");
	if (!rc)
		rc = sep(c, "missing processing time");
	if (!rc)
		rc = number(c, BCN_FWDLOG_DIGITS_MAX, &out->proc,
			    "bad processing time");
	if (rc)
		return rc;
	if (out->proc > out->latency)
		return fail(c, -BCN_ERANGE, "processing time above latency");
	if (!at_end(c) && ((rc = sep(c, "bad client")) != 0 ||
			   (rc = token(c, "bad client")) != 0))
		return rc;
	if (!at_end(c) && ((rc = sep(c, "bad handle")) != 0 ||
			   (rc = token(c, "bad handle")) != 0))
		return rc;
	if (!at_end(c))
		return fail(c, -BCN_ESYNTAX, "extra fields");
	out->kind = BCN_FWDLOG_REQUEST;
	return 0;
}

int bcn_fwdlog_parse(const char *p, size_t len, struct bcn_fwdlog_line *out,
		     const char **why)
{
	struct cur c = { p, p + len, NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > BCN_FWDLOG_LINE_MAX) {
		rc = fail(&c, -BCN_ERANGE, "line too long");
		goto out;
	}
	if (len == 0) {
		rc = fail(&c, -BCN_ESYNTAX, "empty line");
		goto out;
	}
	if (p[0] == '#') {
		rc = hash_line(&c, out);
		goto out;
	}
	rc = timestamp(&c, &out->t);
	if (!rc)
		rc = sep(&c, "missing operation");
	if (rc)
		goto out;
	if (c.end - c.p >= 2 && c.p[0] == 'Q' && c.p[1] == ' ') {
		c.p += 2;
		rc = number(&c, BCN_FWDLOG_DIGITS_MAX, &out->queue,
			    "bad queue length");
		if (!rc && !at_end(&c))
			rc = fail(&c, -BCN_ESYNTAX, "extra fields");
		if (!rc)
			out->kind = BCN_FWDLOG_QUEUE;
		goto out;
	}
	rc = request(&c, out);
out:
	if (rc) {
		memset(out, 0, sizeof(*out));
		if (why)
			*why = c.why;
	}
	return rc;
}
