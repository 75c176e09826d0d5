/* Slurm hostlist expressions: a pure parser that expands an expression held
 * in a (pointer, length) buffer into host names, and the inverse that
 * compresses a list of names into ranges. Rules: docs/hostlist.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/hostlist.h"

/* Initial sizes of the growing arrays of a builder. */
#define HL_ARENA_MIN 4096
#define HL_OFFS_MIN  256

static const uint64_t hl_p10[BCN_HOSTLIST_MAX_DIGITS + 1] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
};

/* Numbers lo..hi of one bracket, all printed at the same width (0: as is). */
struct hl_ival {
	uint64_t lo, hi;
	unsigned width;
};

/* One number of a bracket and the width it is printed at. */
struct hl_num {
	uint64_t v;
	unsigned width;
};

struct hl_group {
	struct hl_num *nums;
	size_t n;
	unsigned maxlen;        /* longest number as printed */
};

/* One top-level element: lit[0] grp[0] lit[1] ... grp[ngroups-1] lit[ngroups]. */
struct hl_elem {
	const char *lit[BCN_HOSTLIST_MAX_GROUPS + 1];
	size_t litlen[BCN_HOSTLIST_MAX_GROUPS + 1];
	struct hl_group grp[BCN_HOSTLIST_MAX_GROUPS];
	size_t ngroups;
	size_t count;   /* names the element expands to */
	size_t col;     /* offset of the element, for messages */
};

/* Parser state over the caller's buffer. */
struct hl_parser {
	const char *s;
	size_t len;
	size_t pos;
	size_t max;     /* the caller's maximum, for messages */
	char *err;
	size_t errlen;
};

/* Names under construction: an arena of NUL-terminated names and offsets. */
struct hl_builder {
	char *arena;
	size_t len, cap;
	size_t *offs;
	size_t n, ncap;
};

/* Canonical sort key of a name: text before and after its last digit run,
 * the run's value and its zero-padded width (0 when not padded). */
struct hl_key {
	const char *name;
	size_t len;
	size_t plen;    /* prefix: name[0..plen) */
	size_t sfx;     /* suffix: name[sfx..len) */
	uint64_t v;
	unsigned width;
	bool num;       /* false: no usable digit run, prefix is the name */
};

static bool hl_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

/* Characters a name may hold: printable ASCII except blank and "[],". */
static bool hl_namechar(char ch)
{
	unsigned char c = (unsigned char)ch;

	return c > 0x20 && c < 0x7f && c != '[' && c != ']' && c != ',';
}

static unsigned hl_ndigits(uint64_t v)
{
	unsigned n = 1;

	while (n < BCN_HOSTLIST_MAX_DIGITS + 1 && v >= hl_p10[n])
		n++;
	return n;
}

/* Width a value is really printed at when its range pads to width w:
 * padding only matters while the value has fewer digits than w. */
static unsigned hl_eff_width(uint64_t v, unsigned w)
{
	return (w > 1 && v < hl_p10[w - 1]) ? w : 0;
}

/* Writes v zero-padded to width into dst (room for 20 bytes); returns the
 * number of characters written. */
static size_t hl_fmt_num(char *dst, uint64_t v, unsigned width)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width && n < sizeof(tmp))
		tmp[n++] = '0';
	for (i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
	return n;
}

static int hl_fail(struct hl_parser *p, int rc, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int hl_fail(struct hl_parser *p, int rc, size_t pos, const char *fmt, ...)
{
	char msg[192];
	va_list ap;

	if (!p->err || p->errlen == 0)
		return rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s at column %zu", msg, pos + 1);
	return rc;
}

/* Reports the character at pos as unexpected; what says what was wanted. */
static int hl_badchar(struct hl_parser *p, size_t pos, const char *what)
{
	unsigned char c = (unsigned char)p->s[pos];

	if (c >= 0x20 && c < 0x7f)
		return hl_fail(p, -BCN_ESYNTAX, pos,
			       "unexpected character '%c'%s", c, what);
	return hl_fail(p, -BCN_ESYNTAX, pos, "unexpected byte 0x%02x%s", c,
		       what);
}

/* Reports the character at p->pos (or the end) where a number was expected
 * inside the bracket opened at offset open, dash set after a '-'. */
static int hl_unexpected(struct hl_parser *p, size_t open, bool dash)
{
	char c;

	if (p->pos >= p->len)
		return hl_fail(p, -BCN_ESYNTAX, open, "unclosed '['");
	c = p->s[p->pos];
	if (c == '[')
		return hl_fail(p, -BCN_ESYNTAX, p->pos, "nested '['");
	if (dash)
		return hl_badchar(p, p->pos, ", expected the end of the range");
	if (c == ',' || c == ']')
		return hl_fail(p, -BCN_ESYNTAX, p->pos, "empty range element");
	return hl_badchar(p, p->pos, " in range");
}

/* Reads the number at p->pos (a digit is there); *ndig gets its length
 * including leading zeros. */
static int hl_number(struct hl_parser *p, uint64_t *v, unsigned *ndig)
{
	size_t start = p->pos;
	uint64_t x = 0;

	while (p->pos < p->len && hl_isdigit(p->s[p->pos])) {
		if (p->pos - start >= BCN_HOSTLIST_MAX_DIGITS)
			return hl_fail(p, -BCN_ERANGE, start,
				       "number longer than %d digits",
				       BCN_HOSTLIST_MAX_DIGITS);
		x = x * 10 + (uint64_t)(p->s[p->pos] - '0');
		p->pos++;
	}
	*v = x;
	*ndig = (unsigned)(p->pos - start);
	return 0;
}

/* Appends the numbers lo..hi written with width digits (from the text of
 * lo) as up to two intervals of one effective width each. */
static int hl_add_ival(struct hl_ival **iv, size_t *n, size_t *cap,
		       uint64_t lo, uint64_t hi, unsigned width)
{
	struct hl_ival *t;
	uint64_t lim = width > 1 ? hl_p10[width - 1] : 0;

	if (*n + 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;

		t = realloc(*iv, ncap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		*iv = t;
		*cap = ncap;
	}
	if (lo < lim)
		(*iv)[(*n)++] = (struct hl_ival){ lo, hi < lim ? hi : lim - 1, width };
	if (hi >= lim)
		(*iv)[(*n)++] = (struct hl_ival){ lo > lim ? lo : lim, hi, 0 };
	return 0;
}

/* Order for merging: by width, then start. */
static int hl_ival_cmp(const void *a, const void *b)
{
	const struct hl_ival *x = a, *y = b;

	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

/* Order for output: by start, then width. */
static int hl_ival_lo_cmp(const void *a, const void *b)
{
	const struct hl_ival *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	return 0;
}

/* qsort() unless the array is already in order, which is the common case
 * (a single range, or a list that was expanded from an expression). */
static void hl_sort(void *base, size_t n, size_t size,
		    int (*cmp)(const void *, const void *))
{
	const char *p = base;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0)
			break;
	if (i < n)
		qsort(base, n, size, cmp);
}

static int hl_num_cmp(const void *a, const void *b)
{
	const struct hl_num *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	return 0;
}

/* Merges overlapping intervals of equal width, counts the distinct numbers
 * (failing beyond budget) and fills g with them in (value, width) order. */
static int hl_group_fill(struct hl_parser *p, size_t open, struct hl_ival *iv,
			 size_t niv, size_t budget, struct hl_group *g)
{
	size_t i, m = 0, k = 0;
	uint64_t count = 0, v;

	qsort(iv, niv, sizeof(*iv), hl_ival_cmp);
	for (i = 0; i < niv; i++) {
		if (m > 0 && iv[m - 1].width == iv[i].width &&
		    iv[i].lo <= iv[m - 1].hi + 1) {
			if (iv[i].hi > iv[m - 1].hi)
				iv[m - 1].hi = iv[i].hi;
			continue;
		}
		iv[m++] = iv[i];
	}
	for (i = 0; i < m; i++) {
		count += iv[i].hi - iv[i].lo + 1;
		if (count > budget)
			return hl_fail(p, -BCN_ETOOBIG, open,
				       "expands to more than %zu hosts", p->max);
	}
	/* widths apart, the numbers now come out (nearly always) in order */
	hl_sort(iv, m, sizeof(*iv), hl_ival_lo_cmp);
	g->nums = malloc((size_t)count * sizeof(*g->nums));
	if (!g->nums)
		return -ENOMEM;
	g->maxlen = 0;
	for (i = 0; i < m; i++) {
		unsigned len = hl_ndigits(iv[i].hi);

		if (len < iv[i].width)
			len = iv[i].width;
		if (len > g->maxlen)
			g->maxlen = len;
		for (v = iv[i].lo; v <= iv[i].hi; v++)
			g->nums[k++] = (struct hl_num){ v, iv[i].width };
	}
	g->n = k;
	hl_sort(g->nums, g->n, sizeof(*g->nums), hl_num_cmp);
	return 0;
}

/* Parses a bracket whose '[' is at offset open (p->pos is just past it)
 * through its ']'; at most budget numbers. */
static int hl_bracket(struct hl_parser *p, size_t open, size_t budget,
		      struct hl_group *g)
{
	struct hl_ival *iv = NULL;
	size_t niv = 0, cap = 0, at;
	uint64_t lo = 0, hi = 0;
	unsigned w = 0, hw = 0;
	int rc;

	for (;;) {
		if (p->pos >= p->len || !hl_isdigit(p->s[p->pos])) {
			rc = hl_unexpected(p, open, false);
			goto out;
		}
		at = p->pos;
		rc = hl_number(p, &lo, &w);
		if (rc)
			goto out;
		hi = lo;
		if (p->pos < p->len && p->s[p->pos] == '-') {
			p->pos++;
			if (p->pos >= p->len || !hl_isdigit(p->s[p->pos])) {
				rc = hl_unexpected(p, open, true);
				goto out;
			}
			rc = hl_number(p, &hi, &hw);
			if (rc)
				goto out;
			if (hi < lo) {
				rc = hl_fail(p, -BCN_ERANGE, at,
					     "descending range %llu-%llu",
					     (unsigned long long)lo,
					     (unsigned long long)hi);
				goto out;
			}
		}
		rc = hl_add_ival(&iv, &niv, &cap, lo, hi, w);
		if (rc)
			goto out;
		if (p->pos < p->len && p->s[p->pos] == ']') {
			p->pos++;
			break;
		}
		if (p->pos >= p->len || p->s[p->pos] != ',') {
			rc = hl_unexpected(p, open, false);
			goto out;
		}
		p->pos++;
	}
	rc = hl_group_fill(p, open, iv, niv, budget, g);
out:
	free(iv);
	return rc;
}

static void hl_elem_free(struct hl_elem *e)
{
	size_t i;

	for (i = 0; i < e->ngroups; i++) {
		free(e->grp[i].nums);
		e->grp[i].nums = NULL;
	}
	e->ngroups = 0;
}

/* Parses one top-level element at p->pos up to a top-level ',' or the end;
 * fails if it would expand to more than budget names. */
static int hl_elem_parse(struct hl_parser *p, size_t budget, struct hl_elem *e)
{
	size_t start = p->pos, open, ng = 0;
	int rc;

	e->ngroups = 0;
	e->count = 1;
	e->col = p->pos;
	for (;;) {
		while (p->pos < p->len && hl_namechar(p->s[p->pos]))
			p->pos++;
		e->lit[ng] = p->s + start;
		e->litlen[ng] = p->pos - start;
		if (e->litlen[ng] > BCN_HOSTLIST_NAME_MAX)
			return hl_fail(p, -BCN_ERANGE, start,
				       "name longer than %d characters",
				       BCN_HOSTLIST_NAME_MAX);
		if (p->pos >= p->len || p->s[p->pos] == ',')
			break;
		if (p->s[p->pos] == ']')
			return hl_fail(p, -BCN_ESYNTAX, p->pos, "unmatched ']'");
		if (p->s[p->pos] != '[')
			return hl_badchar(p, p->pos, "");
		if (ng == BCN_HOSTLIST_MAX_GROUPS)
			return hl_fail(p, -BCN_ERANGE, p->pos,
				       "more than %d bracket groups",
				       BCN_HOSTLIST_MAX_GROUPS);
		open = p->pos++;
		rc = hl_bracket(p, open, budget / e->count, &e->grp[ng]);
		if (rc)
			return rc;
		e->count *= e->grp[ng].n;
		e->ngroups = ++ng;
		start = p->pos;
	}
	if (ng == 0 && e->litlen[0] == 0)
		return hl_fail(p, -BCN_ESYNTAX, p->pos, "empty element");
	if (e->count > budget)
		return hl_fail(p, -BCN_ETOOBIG, e->col,
			       "expands to more than %zu hosts", p->max);
	return 0;
}

/* Makes room for names more names of bytes bytes in all, at least
 * doubling what is there. */
static int hl_reserve(struct hl_builder *b, size_t names, size_t bytes)
{
	size_t ncap;
	void *t;

	if (b->ncap - b->n < names) {
		ncap = b->ncap ? b->ncap * 2 : HL_OFFS_MIN;
		if (ncap < b->n + names)
			ncap = b->n + names;
		t = realloc(b->offs, ncap * sizeof(*b->offs));
		if (!t)
			return -ENOMEM;
		b->offs = t;
		b->ncap = ncap;
	}
	if (b->cap - b->len < bytes) {
		ncap = b->cap ? b->cap * 2 : HL_ARENA_MIN;
		if (ncap < b->len + bytes)
			ncap = b->len + bytes;
		t = realloc(b->arena, ncap);
		if (!t)
			return -ENOMEM;
		b->arena = t;
		b->cap = ncap;
	}
	return 0;
}

static int hl_push(struct hl_builder *b, const char *name, size_t len)
{
	int rc = hl_reserve(b, 1, len + 1);

	if (rc)
		return rc;
	memcpy(b->arena + b->len, name, len);
	b->arena[b->len + len] = '\0';
	b->offs[b->n++] = b->len;
	b->len += len + 1;
	return 0;
}

/* Builds the name for the group indices idx into name; returns its length
 * or 0 if it would exceed BCN_HOSTLIST_NAME_MAX. */
static size_t hl_build_name(const struct hl_elem *e, const size_t *idx,
			    char *name)
{
	char num[24];
	size_t n = e->litlen[0], g, k;

	memcpy(name, e->lit[0], n);
	for (g = 0; g < e->ngroups; g++) {
		const struct hl_num *x = &e->grp[g].nums[idx[g]];

		k = hl_fmt_num(num, x->v, x->width);
		if (n + k + e->litlen[g + 1] > BCN_HOSTLIST_NAME_MAX)
			return 0;
		memcpy(name + n, num, k);
		n += k;
		memcpy(name + n, e->lit[g + 1], e->litlen[g + 1]);
		n += e->litlen[g + 1];
	}
	return n;
}

/* Appends every name of e to b, leftmost group varying slowest. The
 * longest name (each group's widest number) is checked up front. */
static int hl_elem_emit(struct hl_parser *p, const struct hl_elem *e,
			struct hl_builder *b)
{
	size_t idx[BCN_HOSTLIST_MAX_GROUPS] = { 0 };
	char name[BCN_HOSTLIST_NAME_MAX + 1];
	size_t n = e->litlen[0], g;
	int rc;

	for (g = 0; g < e->ngroups; g++)
		n += e->litlen[g + 1] + e->grp[g].maxlen;
	if (n > BCN_HOSTLIST_NAME_MAX)
		return hl_fail(p, -BCN_ERANGE, e->col,
			       "name longer than %d characters",
			       BCN_HOSTLIST_NAME_MAX);
	rc = hl_reserve(b, e->count, e->count * (n + 1));
	if (rc)
		return rc;
	for (;;) {
		n = hl_build_name(e, idx, name);
		if (n == 0)
			return -BCN_ERANGE;     /* cannot happen: checked above */
		rc = hl_push(b, name, n);
		if (rc)
			return rc;
		for (g = e->ngroups; g > 0; g--) {
			if (++idx[g - 1] < e->grp[g - 1].n)
				break;
			idx[g - 1] = 0;
		}
		if (g == 0)
			return 0;
	}
}

/* Hands the builder's names over to out. */
static int hl_finish(struct hl_builder *b, struct bcn_hostlist *out)
{
	size_t i;

	if (b->n > 0) {
		out->hosts = malloc(b->n * sizeof(*out->hosts));
		if (!out->hosts)
			return -ENOMEM;
		for (i = 0; i < b->n; i++)
			out->hosts[i] = b->arena + b->offs[i];
	}
	out->n = b->n;
	out->arena = b->arena;
	out->arena_len = b->len;
	b->arena = NULL;
	return 0;
}

int bcn_hostlist_expand(const char *expr, size_t len, size_t max_hosts,
			struct bcn_hostlist *out, char *err, size_t errlen)
{
	struct hl_parser p = { expr, len, 0, max_hosts, err, errlen };
	struct hl_builder b = { 0 };
	struct hl_elem e = { .ngroups = 0 };
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (!expr && len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (max_hosts > BCN_HOSTLIST_MAX_HOSTS)
		max_hosts = BCN_HOSTLIST_MAX_HOSTS;
	p.max = max_hosts;
	while (len > 0) {
		rc = hl_elem_parse(&p, max_hosts - b.n, &e);
		if (!rc)
			rc = hl_elem_emit(&p, &e, &b);
		hl_elem_free(&e);
		if (rc || p.pos >= len)
			break;
		p.pos++;        /* the ',' */
		while (p.pos < len && (expr[p.pos] == ' ' || expr[p.pos] == '\t'))
			p.pos++;
		if (p.pos >= len) {
			rc = hl_fail(&p, -BCN_ESYNTAX, p.pos, "empty element");
			break;
		}
	}
	if (!rc)
		rc = hl_finish(&b, out);
	free(b.arena);
	free(b.offs);
	return rc;
}

void bcn_hostlist_free(struct bcn_hostlist *hl)
{
	if (!hl)
		return;
	free(hl->hosts);
	free(hl->arena);
	memset(hl, 0, sizeof(*hl));
}

static void hl_key_init(struct hl_key *k, const char *name, size_t len)
{
	size_t end = len, start, i;
	uint64_t v = 0;

	while (end > 0 && !hl_isdigit(name[end - 1]))
		end--;
	start = end;
	while (start > 0 && hl_isdigit(name[start - 1]))
		start--;
	k->name = name;
	k->len = len;
	k->num = end > 0 && end - start <= BCN_HOSTLIST_MAX_DIGITS;
	if (!k->num) {
		k->plen = len;
		k->sfx = len;
		k->v = 0;
		k->width = 0;
		return;
	}
	for (i = start; i < end; i++)
		v = v * 10 + (uint64_t)(name[i] - '0');
	k->plen = start;
	k->sfx = end;
	k->v = v;
	k->width = end - start > hl_ndigits(v) ? (unsigned)(end - start) : 0;
}

static int hl_memcmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Order of the group a name belongs to: prefix, suffix, digit run or not. */
static int hl_group_cmp(const struct hl_key *x, const struct hl_key *y)
{
	int c = hl_memcmp(x->name, x->plen, y->name, y->plen);

	if (c)
		return c;
	c = hl_memcmp(x->name + x->sfx, x->len - x->sfx,
		      y->name + y->sfx, y->len - y->sfx);
	if (c)
		return c;
	return (int)x->num - (int)y->num;
}

static int hl_key_cmp(const void *a, const void *b)
{
	const struct hl_key *x = a, *y = b;
	int c = hl_group_cmp(x, y);

	if (c)
		return c;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	return 0;
}

int bcn_hostlist_sort_unique(struct bcn_hostlist *hl)
{
	struct hl_key *keys;
	size_t i, m = 0;

	if (!hl)
		return -EINVAL;
	if (hl->n < 2)
		return 0;
	keys = malloc(hl->n * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < hl->n; i++)
		hl_key_init(&keys[i], hl->hosts[i], strlen(hl->hosts[i]));
	hl_sort(keys, hl->n, sizeof(*keys), hl_key_cmp);
	for (i = 0; i < hl->n; i++) {
		if (m > 0 && hl_key_cmp(&keys[m - 1], &keys[i]) == 0)
			continue;
		keys[m++] = keys[i];
	}
	for (i = 0; i < m; i++)
		hl->hosts[i] = (char *)keys[i].name;
	hl->n = m;
	free(keys);
	return 0;
}

static int hl_add_num(struct bcn_buf *out, uint64_t v, unsigned width)
{
	char num[24];

	return bcn_buf_add(out, num, hl_fmt_num(num, v, width));
}

/* Appends the ranges of the sorted, unique keys k[0..n-1] of one group,
 * each range continuing while the next number is one more and prints at
 * the width the range's first number dictates. */
static int hl_add_ranges(struct bcn_buf *out, const struct hl_key *k, size_t n)
{
	size_t i = 0, j;
	int rc = 0;

	while (rc == 0 && i < n) {
		j = i;
		while (j + 1 < n && k[j + 1].v == k[j].v + 1 &&
		       k[j + 1].width == hl_eff_width(k[j + 1].v, k[i].width))
			j++;
		if (i > 0)
			rc = bcn_buf_add(out, ",", 1);
		if (!rc)
			rc = hl_add_num(out, k[i].v, k[i].width);
		if (!rc && j > i)
			rc = bcn_buf_add(out, "-", 1);
		if (!rc && j > i)
			rc = hl_add_num(out, k[j].v, k[i].width);
		i = j + 1;
	}
	return rc;
}

/* Appends one group (keys sorted, duplicates removed): a lone name as is,
 * several as prefix[ranges]suffix. */
static int hl_add_group(struct bcn_buf *out, const struct hl_key *k, size_t n)
{
	int rc;

	if (n == 1 || !k[0].num)
		return bcn_buf_add(out, k[0].name, k[0].len);
	rc = bcn_buf_add(out, k[0].name, k[0].plen);
	if (!rc)
		rc = bcn_buf_add(out, "[", 1);
	if (!rc)
		rc = hl_add_ranges(out, k, n);
	if (!rc)
		rc = bcn_buf_add(out, "]", 1);
	if (!rc)
		rc = bcn_buf_add(out, k[0].name + k[0].sfx, k[0].len - k[0].sfx);
	return rc;
}

/* Fills keys for hosts[0..n-1], checking each name; -EINVAL if one is bad. */
static int hl_keys_load(const char *const *hosts, size_t n, struct hl_key *keys)
{
	size_t i, j, len;

	for (i = 0; i < n; i++) {
		if (!hosts[i])
			return -EINVAL;
		len = strnlen(hosts[i], BCN_HOSTLIST_NAME_MAX + 1);
		if (len == 0 || len > BCN_HOSTLIST_NAME_MAX)
			return -EINVAL;
		for (j = 0; j < len; j++)
			if (!hl_namechar(hosts[i][j]))
				return -EINVAL;
		hl_key_init(&keys[i], hosts[i], len);
	}
	return 0;
}

int bcn_hostlist_format(const char *const *hosts, size_t n, struct bcn_buf *out)
{
	struct hl_key *keys = NULL;
	size_t i, j, m = 0, old;
	int rc = 0;

	if (!out || (!hosts && n))
		return -EINVAL;
	if (n > BCN_HOSTLIST_MAX_HOSTS)
		return -BCN_ETOOBIG;
	if (n == 0)
		return 0;
	old = out->len;
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	rc = hl_keys_load(hosts, n, keys);
	if (rc)
		goto out;
	hl_sort(keys, n, sizeof(*keys), hl_key_cmp);
	for (i = 0; i < n; i++)
		if (m == 0 || hl_key_cmp(&keys[m - 1], &keys[i]) != 0)
			keys[m++] = keys[i];
	for (i = 0; rc == 0 && i < m; i = j) {
		for (j = i + 1; j < m && hl_group_cmp(&keys[i], &keys[j]) == 0; j++)
			;
		if (i > 0)
			rc = bcn_buf_add(out, ",", 1);
		if (!rc)
			rc = hl_add_group(out, keys + i, j - i);
	}
out:
	if (rc)
		out->len = old;
	free(keys);
	return rc;
}
