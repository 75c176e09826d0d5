/* The archive encoder (compress/archive.h, format in docs/archive.md):
 * sorts the records into one sequence per node, orders the nodes (the
 * job's node list: a hostlist expression in canonical order, then the
 * names no expression can hold), groups the nodes whose sequences have
 * the same shape, and writes each group as its node set and template
 * with every column stored the cheapest exact way: constant, affine in
 * the node index, list of values, a numbered string, each possibly
 * relative to the column one same-type record earlier. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "compress/archive_int.h"
#include "proto/varint.h"

#define ENC_LEVEL 9                     /* zlib: an archive is written once */
#define HASH_SEED UINT64_C(0xcbf29ce484222325)
#define HASH_MUL UINT64_C(0x100000001b3)

struct enode {
	const char *name;
	size_t first, n;                /* its records: items[first .. +n) */
	uint64_t k;                     /* index in the job's node list */
	uint64_t hash;                  /* of its shape */
	size_t group;
	bool in_hostlist;
};

struct estr {
	const char *p;
	size_t len;
};

struct egroup {
	size_t first, m;                /* members: byshape[first .. +m) */
};

struct enc {
	uint64_t job;
	struct arc_colmaps maps;
	struct bcn_archive_stats *st;
	struct arc_item *items;
	uint64_t *shape;                /* per item: type and enumerations */
	size_t n;
	struct enode *nodes;
	size_t nnodes;
	size_t *byk;                    /* node ids by job index */
	size_t *byshape;                /* node ids by (shape, k) */
	struct egroup *groups;
	size_t ngroups;
	/* string table: interned (pointer, length) pairs, index from 1 */
	struct estr *strs;
	uint32_t *slots;
	size_t nstr, str_cap, slot_cap;
	struct bcn_buf tab;             /* the table's entries as written */
	struct bcn_buf g;               /* node list and groups */
	struct bcn_buf scratch;         /* hostlist expressions */
	/* one column over a group's members */
	uint64_t *vals, *res, *ks;
	size_t *lens;
	const char **svals;
	int rc;                         /* first error, sticky */
};

/* ---- output helpers ------------------------------------------------- */

static void put_u(struct enc *e, uint64_t v)
{
	uint8_t tmp[BCN_VARINT_MAX];

	if (!e->rc)
		e->rc = bcn_buf_add(&e->g, tmp, bcn_varint_put(tmp, v));
}

static void put_s(struct enc *e, uint64_t v)
{
	put_u(e, bcn_zigzag((int64_t)v));
}

static void put_bytes(struct enc *e, const void *p, size_t n)
{
	put_u(e, n);
	if (!e->rc && n)
		e->rc = bcn_buf_add(&e->g, p, n);
}

static size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t slen(uint64_t v)
{
	return vlen(bcn_zigzag((int64_t)v));
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HASH_MUL;
	return h;
}

/* ---- string table --------------------------------------------------- */

static int str_grow(struct enc *e)
{
	size_t cap = e->slot_cap ? e->slot_cap * 2 : 1024;
	uint32_t *slots = calloc(cap, sizeof(*slots));
	struct estr *strs;

	if (!slots)
		return -ENOMEM;
	strs = realloc(e->strs, (cap / 2 + 1) * sizeof(*strs));
	if (!strs) {
		free(slots);
		return -ENOMEM;
	}
	e->strs = strs;
	e->str_cap = cap / 2 + 1;
	for (size_t i = 1; i <= e->nstr; i++) {
		size_t s = hash_bytes(strs[i].p, strs[i].len, HASH_SEED) & (cap - 1);

		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = (uint32_t)i;
	}
	free(e->slots);
	e->slots = slots;
	e->slot_cap = cap;
	return 0;
}

/* The index of p[0..len-1] in the table (0 for the empty string),
 * adding it on first use. */
static uint64_t intern(struct enc *e, const char *p, size_t len)
{
	uint8_t tmp[BCN_VARINT_MAX];
	size_t s;

	if (len == 0 || e->rc)
		return 0;
	if ((e->nstr + 1) * 2 > e->slot_cap && (e->rc = str_grow(e)))
		return 0;
	s = hash_bytes(p, len, HASH_SEED) & (e->slot_cap - 1);
	for (; e->slots[s]; s = (s + 1) & (e->slot_cap - 1)) {
		const struct estr *x = &e->strs[e->slots[s]];

		if (x->len == len && memcmp(x->p, p, len) == 0)
			return e->slots[s];
	}
	e->rc = bcn_buf_add(&e->tab, tmp, bcn_varint_put(tmp, len));
	if (!e->rc)
		e->rc = bcn_buf_add(&e->tab, p, len);
	if (e->rc)
		return 0;
	e->strs[++e->nstr] = (struct estr){ p, len };
	e->slots[s] = (uint32_t)e->nstr;
	return e->nstr;
}

/* ---- sequences, node order and groups ------------------------------- */

static const struct bcn_record *rec(const struct enc *e, size_t node,
				    size_t p)
{
	return e->items[e->nodes[node].first + p].r;
}

static uint64_t shape_of(const struct enc *e, const struct bcn_record *r)
{
	const struct arc_colmap *m = &e->maps.map[r->type];
	uint64_t w = r->type;

	for (unsigned j = 0; j < m->nenums; j++)
		w |= *(const uint64_t *)((const char *)r + m->enum_off[j])
		     << (8 + 8 * j);
	return w;
}

/* Checks the records, sorts them per node, fills the nodes. */
static int split_nodes(struct enc *e, const struct bcn_record *recs)
{
	for (size_t i = 0; i < e->n; i++) {
		if (bcn_record_check(&recs[i]) || !recs[i].node ||
		    strnlen(recs[i].node, BCN_STR_MAX + 1) > BCN_STR_MAX)
			return -BCN_ERANGE;
		e->items[i] = (struct arc_item){ &recs[i], i };
	}
	bcn_archive_sort_items(e->items, e->n);
	for (size_t i = 0; i < e->n; i++) {
		struct enode *nd = &e->nodes[e->nnodes];

		e->shape[i] = shape_of(e, e->items[i].r);
		if (i == 0 || strcmp(e->items[i].r->node,
				     e->items[i - 1].r->node) != 0) {
			*nd = (struct enode){ .name = e->items[i].r->node,
					      .first = i, .hash = HASH_SEED };
			e->nnodes++;
			nd = &e->nodes[e->nnodes - 1];
		} else {
			nd--;
		}
		nd->n++;
		nd->hash = hash_bytes(&e->shape[i], sizeof(e->shape[i]),
				      nd->hash);
	}
	return 0;
}

static int cmp_name(const void *key, const void *elt)
{
	return strcmp(key, ((const struct enode *)elt)->name);
}

/* Marks the nodes the expression expr expands to, which must be exactly
 * the want nodes offered, each once, and gives them their job index
 * from *k on in expansion order. Returns whether it held. */
static bool expr_covers(struct enc *e, const struct bcn_buf *expr,
			size_t want, uint64_t *k)
{
	struct bcn_hostlist hl;
	bool ok;

	if (bcn_hostlist_expand((const char *)expr->data, expr->len, want,
				&hl, NULL, 0))
		return false;
	ok = hl.n == want;
	for (size_t i = 0; ok && i < hl.n; i++) {
		struct enode *nd = bsearch(hl.hosts[i], e->nodes, e->nnodes,
					   sizeof(*e->nodes), cmp_name);

		ok = nd && !nd->in_hostlist &&
		     bcn_archive_hostname_ok(nd->name, strlen(nd->name));
		if (ok) {
			nd->in_hostlist = true;
			nd->k = (*k)++;
			e->byk[nd->k] = (size_t)(nd - e->nodes);
		}
	}
	bcn_hostlist_free(&hl);
	return ok;
}

/* The job's node list: writes it and gives every node its index. */
static void node_list(struct enc *e)
{
	const char **names = (const char **)e->svals;
	size_t nsafe = 0;
	uint64_t k = 0;

	for (size_t i = 0; i < e->nnodes; i++)
		if (bcn_archive_hostname_ok(e->nodes[i].name,
					    strlen(e->nodes[i].name)))
			names[nsafe++] = e->nodes[i].name;
	bcn_buf_reset(&e->scratch);
	if (nsafe && (bcn_hostlist_format(names, nsafe, &e->scratch) ||
		      !expr_covers(e, &e->scratch, nsafe, &k))) {
		for (size_t i = 0; i < e->nnodes; i++)
			e->nodes[i].in_hostlist = false;
		bcn_buf_reset(&e->scratch);
		k = 0;
	}
	put_bytes(e, e->scratch.data, e->scratch.len);
	put_u(e, e->nnodes - k);
	for (size_t i = 0; i < e->nnodes; i++) {
		struct enode *nd = &e->nodes[i];

		if (nd->in_hostlist)
			continue;
		nd->k = k++;
		e->byk[nd->k] = i;
		put_u(e, intern(e, nd->name, strlen(nd->name)));
	}
}

/* Orders node ids by shape (hash, length, shape words), then index. */
static int cmp_shape(const void *a, const void *b, void *arg)
{
	const struct enc *e = arg;
	const struct enode *p = &e->nodes[*(const size_t *)a];
	const struct enode *q = &e->nodes[*(const size_t *)b];

	if (p->hash != q->hash)
		return p->hash < q->hash ? -1 : 1;
	if (p->n != q->n)
		return p->n < q->n ? -1 : 1;
	for (size_t i = 0; i < p->n; i++)
		if (e->shape[p->first + i] != e->shape[q->first + i])
			return e->shape[p->first + i] <
			       e->shape[q->first + i] ? -1 : 1;
	return p->k < q->k ? -1 : p->k > q->k;
}

static bool same_shape(const struct enc *e, size_t a, size_t b)
{
	const struct enode *p = &e->nodes[a], *q = &e->nodes[b];

	return p->hash == q->hash && p->n == q->n &&
	       memcmp(&e->shape[p->first], &e->shape[q->first],
		      p->n * sizeof(uint64_t)) == 0;
}

/* Groups: runs of nodes of the same shape, members in index order. */
static void make_groups(struct enc *e)
{
	for (size_t i = 0; i < e->nnodes; i++)
		e->byshape[i] = i;
	qsort_r(e->byshape, e->nnodes, sizeof(*e->byshape), cmp_shape, e);
	for (size_t i = 0; i < e->nnodes; i++) {
		size_t id = e->byshape[i];

		if (i == 0 || !same_shape(e, e->byshape[i - 1], id))
			e->groups[e->ngroups++] = (struct egroup){ i, 0 };
		e->groups[e->ngroups - 1].m++;
		e->nodes[id].group = e->ngroups - 1;
	}
}

/* Whether the expression in e->scratch expands to names[0..n-1], in
 * that order. */
static bool expands_to(struct enc *e, const char **names, size_t n)
{
	struct bcn_hostlist hl;
	bool ok;

	if (bcn_hostlist_expand((const char *)e->scratch.data, e->scratch.len,
				n, &hl, NULL, 0))
		return false;
	ok = hl.n == n;
	for (size_t i = 0; ok && i < n; i++)
		ok = strcmp(hl.hosts[i], names[i]) == 0;
	bcn_hostlist_free(&hl);
	return ok;
}

/* A group's node set: an expression of its members that are in the
 * job's expression (when it expands back to exactly them), then the
 * indices of the others, ascending, as differences. */
static void node_set(struct enc *e, const size_t *mem, size_t m)
{
	const char **names = (const char **)e->svals;
	size_t nh = 0;
	uint64_t next = 0;
	bool expr;

	for (size_t i = 0; i < m; i++)
		if (e->nodes[mem[i]].in_hostlist)
			names[nh++] = e->nodes[mem[i]].name;
	bcn_buf_reset(&e->scratch);
	expr = nh > 0 && bcn_hostlist_format(names, nh, &e->scratch) == 0 &&
	       expands_to(e, names, nh);
	if (!expr) {
		bcn_buf_reset(&e->scratch);
		nh = 0;
	}
	put_bytes(e, e->scratch.data, e->scratch.len);
	put_u(e, m - nh);
	for (size_t i = 0; i < m; i++) {
		const struct enode *nd = &e->nodes[mem[i]];

		if (expr && nd->in_hostlist)
			continue;
		put_u(e, nd->k - next);
		next = nd->k + 1;
	}
}

/* ---- columns -------------------------------------------------------- */

struct fit {
	uint8_t kind;
	uint64_t a, b;
	size_t cost;                    /* bytes after the kind byte */
};

/* a, b with v[i] == a + b * k[i] (modulo 2^64) for every i, b from the
 * exact difference quotient of the first two. */
static bool fit_affine(const uint64_t *v, const uint64_t *k, size_t m,
		       uint64_t *a, uint64_t *b)
{
	int64_t dk = (int64_t)(k[1] - k[0]), dv = (int64_t)(v[1] - v[0]);

	if (dk <= 0 || dv % dk != 0)
		return false;
	*b = (uint64_t)(dv / dk);
	*a = v[0] - *b * k[0];
	for (size_t i = 2; i < m; i++)
		if (*a + *b * k[i] != v[i])
			return false;
	return true;
}

/* The cheapest exact form of the m values v. */
static void fit_ints(const uint64_t *v, const uint64_t *k, size_t m,
		     struct fit *f)
{
	size_t i, list;

	for (i = 1; i < m && v[i] == v[0]; i++)
		;
	if (i == m) {
		*f = (struct fit){ v[0] ? ARC_K_CONST : ARC_K_ZERO, v[0], 0,
				   v[0] ? slen(v[0]) : 0 };
		return;
	}
	list = slen(v[0]);
	for (i = 1; i < m; i++)
		list += slen(v[i] - v[i - 1]);
	*f = (struct fit){ ARC_K_LIST, 0, 0, list };
	if (fit_affine(v, k, m, &f->a, &f->b) &&
	    slen(f->a) + slen(f->b) <= list) {
		f->kind = ARC_K_AFFINE;
		f->cost = slen(f->a) + slen(f->b);
	}
}

static void put_col(struct enc *e, size_t c, size_t *c0, uint8_t kind)
{
	enum bcn_archive_col s = (kind & ARC_REL) ? BCN_ARCHIVE_COL_REL :
		(kind & ARC_K_MASK) == ARC_K_AFFINE ? BCN_ARCHIVE_COL_AFFINE :
		(kind & ARC_K_MASK) == ARC_K_LIST ? BCN_ARCHIVE_COL_LIST :
		(kind & ARC_K_MASK) == ARC_K_NUM ? BCN_ARCHIVE_COL_NUMBERED :
		BCN_ARCHIVE_COL_CONST;

	put_u(e, c - *c0 + 1);
	put_u(e, kind);
	*c0 = c + 1;
	e->st->cols[s]++;
}

static void put_fit(struct enc *e, const struct fit *f, const uint64_t *v,
		    size_t m)
{
	switch (f->kind) {
	case ARC_K_CONST:
		put_s(e, f->a);
		break;
	case ARC_K_AFFINE:
		put_s(e, f->a);
		put_s(e, f->b);
		break;
	case ARC_K_LIST:
		put_s(e, v[0]);
		for (size_t i = 1; i < m; i++)
			put_s(e, v[i] - v[i - 1]);
		break;
	}
}

static uint64_t load(const struct bcn_record *r, size_t off)
{
	return *(const uint64_t *)((const char *)r + off);
}

/* Integer column c of position p of a group (prev: the position of the
 * same type before it, or SIZE_MAX), as raw values or relative to prev,
 * whichever is smaller; raw zeros are not written. */
static void int_col(struct enc *e, const size_t *mem, size_t m, size_t p,
		    size_t prev, unsigned c, size_t *c0)
{
	const struct arc_colmap *cm = &e->maps.map[rec(e, mem[0], p)->type];
	uint64_t base = c == ARC_COL_JOB ? e->job : 0;
	struct fit raw, rel = { 0, 0, 0, SIZE_MAX };
	size_t off = cm->off[c];

	for (size_t i = 0; i < m; i++)
		e->vals[i] = load(rec(e, mem[i], p), off) - base;
	fit_ints(e->vals, e->ks, m, &raw);
	if (raw.kind == ARC_K_ZERO)
		return;
	if (prev != SIZE_MAX) {
		for (size_t i = 0; i < m; i++)
			e->res[i] = e->vals[i] -
				    (load(rec(e, mem[i], prev), off) - base);
		fit_ints(e->res, e->ks, m, &rel);
	}
	if (rel.cost < raw.cost) {
		put_col(e, c, c0, (uint8_t)(rel.kind | ARC_REL));
		put_fit(e, &rel, e->res, m);
	} else {
		put_col(e, c, c0, raw.kind);
		put_fit(e, &raw, e->vals, m);
	}
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

struct num {
	size_t plen, slen;              /* common prefix and suffix */
	unsigned width;                 /* zero padding, 0: none */
	uint64_t a, b;
};

/* The longest prefix and suffix every string shares, neither ending
 * (prefix) nor starting (suffix) with a digit. */
static void common_ends(const char **s, const size_t *len, size_t m,
			struct num *x)
{
	size_t p = len[0], q;

	for (size_t i = 1; i < m; i++) {
		size_t j = 0;

		while (j < p && j < len[i] && s[i][j] == s[0][j])
			j++;
		p = j;
	}
	while (p && is_digit(s[0][p - 1]))
		p--;
	q = len[0] - p;
	for (size_t i = 1; i < m; i++) {
		size_t j = 0;

		while (j < q && j < len[i] - p &&
		       s[i][len[i] - 1 - j] == s[0][len[0] - 1 - j])
			j++;
		q = j;
	}
	while (q && is_digit(s[0][len[0] - q]))
		q--;
	x->plen = p;
	x->slen = q;
}

/* Whether the strings are prefix + number + suffix with the number
 * affine in the node index, printed with one zero padding. */
static bool try_num(struct enc *e, size_t m, struct num *x)
{
	const char **s = e->svals;
	size_t *len = e->lens;
	bool padded = false;

	for (size_t i = 0; i < m; i++)
		len[i] = strlen(s[i]);
	common_ends(s, len, m, x);
	if (x->plen + x->slen + ARC_NUM_DIGITS > BCN_STR_MAX)
		return false;
	for (size_t i = 0; i < m; i++) {
		const char *d = s[i] + x->plen;
		size_t n = len[i] - x->plen - x->slen;

		if (n == 0 || n > ARC_NUM_DIGITS - 1)
			return false;
		e->vals[i] = 0;
		for (size_t j = 0; j < n; j++) {
			if (!is_digit(d[j]))
				return false;
			e->vals[i] = e->vals[i] * 10 + (uint64_t)(d[j] - '0');
		}
		padded |= n > 1 && d[0] == '0';
	}
	x->width = padded ? (unsigned)(len[0] - x->plen - x->slen) : 0;
	if (!fit_affine(e->vals, e->ks, m, &x->a, &x->b))
		return false;
	for (size_t i = 0; i < m; i++) {
		char buf[ARC_NUM_WIDTH_MAX + 2];
		int n = snprintf(buf, sizeof(buf), "%0*" PRIu64, (int)x->width,
				 e->vals[i]);

		if (n < 0 || (size_t)n != len[i] - x->plen - x->slen ||
		    memcmp(buf, s[i] + x->plen, (size_t)n) != 0)
			return false;
	}
	return true;
}

/* String column c of position p: constant, numbered or a list. */
static void str_col(struct enc *e, const size_t *mem, size_t m, size_t p,
		    unsigned c, size_t *c0)
{
	const struct arc_colmap *cm = &e->maps.map[rec(e, mem[0], p)->type];
	const char **s = (const char **)e->svals;
	struct num x;
	size_t i;

	for (i = 0; i < m; i++)
		s[i] = *(const char *const *)((const char *)rec(e, mem[i], p) +
					      cm->off[c]);
	for (i = 1; i < m && strcmp(s[i], s[0]) == 0; i++)
		;
	if (i == m && !s[0][0])
		return;
	if (i == m) {
		put_col(e, c, c0, ARC_K_CONST);
		put_u(e, intern(e, s[0], strlen(s[0])));
	} else if (try_num(e, m, &x)) {
		put_col(e, c, c0, ARC_K_NUM);
		put_u(e, intern(e, s[0], x.plen));
		put_u(e, intern(e, s[0] + strlen(s[0]) - x.slen, x.slen));
		put_u(e, x.width);
		put_s(e, x.a);
		put_s(e, x.b);
	} else {
		put_col(e, c, c0, ARC_K_LIST);
		for (i = 0; i < m; i++)
			put_u(e, intern(e, s[i], strlen(s[i])));
	}
}

/* ---- groups and the whole body -------------------------------------- */

static void position(struct enc *e, const size_t *mem, size_t m, size_t p,
		     size_t prev)
{
	const struct bcn_record *r = rec(e, mem[0], p);
	const struct arc_colmap *cm = &e->maps.map[r->type];
	size_t c0 = 0;

	put_u(e, r->type);
	for (unsigned j = 0; j < cm->nenums; j++)
		put_u(e, load(r, cm->enum_off[j]));
	for (unsigned c = 0; c < cm->ncols && !e->rc; c++) {
		if (cm->str[c])
			str_col(e, mem, m, p, c, &c0);
		else
			int_col(e, mem, m, p, prev, c, &c0);
	}
	put_u(e, 0);
}

static void group(struct enc *e, const struct egroup *g)
{
	const size_t *mem = &e->byshape[g->first];
	size_t len = e->nodes[mem[0]].n, last[BCN_REC_TYPE_MAX];

	for (size_t i = 0; i < g->m; i++)
		e->ks[i] = e->nodes[mem[i]].k;
	node_set(e, mem, g->m);
	put_u(e, len);
	for (size_t t = 0; t < BCN_REC_TYPE_MAX; t++)
		last[t] = SIZE_MAX;
	for (size_t p = 0; p < len && !e->rc; p++) {
		uint64_t type = rec(e, mem[0], p)->type;

		position(e, mem, g->m, p, last[type]);
		last[type] = p;
	}
	e->st->groups++;
	e->st->templates += len;
	if (g->m > 1)
		e->st->merged_nodes += g->m;
}

/* Node list, then the groups in order of their first member's index. */
static int body(struct enc *e)
{
	node_list(e);
	make_groups(e);
	put_u(e, e->ngroups);
	for (size_t k = 0; k < e->nnodes && !e->rc; k++) {
		size_t id = e->byk[k];
		const struct egroup *g = &e->groups[e->nodes[id].group];

		if (e->byshape[g->first] == id)
			group(e, g);
	}
	return e->rc;
}

/* ---- envelope ------------------------------------------------------- */

/* Compresses the parts into dst (cap bytes). */
static int deflate_parts(const struct bcn_buf *const *parts, size_t nparts,
			 uint8_t *dst, size_t cap, size_t *zlen)
{
	z_stream z;
	int zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, ENC_LEVEL) != Z_OK)
		return -ENOMEM;
	z.next_out = dst;
	z.avail_out = (uInt)cap;
	for (size_t i = 0; i < nparts && zr == Z_OK; i++) {
		if (!parts[i]->len && i + 1 < nparts)
			continue;       /* deflate makes no progress on it */
		z.next_in = parts[i]->data;
		z.avail_in = (uInt)parts[i]->len;
		zr = deflate(&z, i + 1 == nparts ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_OK && z.avail_in)
			zr = Z_BUF_ERROR;
	}
	*zlen = z.total_out;
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}

/* Header and compressed body, appended to out. */
static int finish(struct enc *e, struct bcn_buf *out)
{
	static const struct bcn_archive_limits lim = BCN_ARCHIVE_LIMITS_DEFAULT;
	struct bcn_buf head;
	const struct bcn_buf *parts[3] = { &head, &e->tab, &e->g };
	uint8_t tmp[BCN_VARINT_MAX], *h;
	size_t raw, bound, zlen, start = out->len;
	int rc;

	head = (struct bcn_buf){ tmp, bcn_varint_put(tmp, e->nstr),
				 sizeof(tmp), sizeof(tmp) };
	raw = head.len + e->tab.len + e->g.len;
	if (raw > lim.max_body)
		return -BCN_ETOOBIG;
	bound = deflateBound(NULL, (uLong)raw) + 64;
	rc = bcn_buf_reserve(out, BCN_ARCHIVE_HDR_LEN + bound);
	if (rc)
		return rc;
	h = out->data + start;
	memset(h, 0, BCN_ARCHIVE_HDR_LEN);
	memcpy(h + ARC_H_MAGIC, BCN_ARCHIVE_MAGIC, 8);
	arc_put_le(h + ARC_H_VERSION, BCN_ARCHIVE_VERSION, 2);
	arc_put_le(h + ARC_H_MODEL, BCN_RECORD_VERSION, 4);
	arc_put_le(h + ARC_H_JOB, e->job, 8);
	arc_put_le(h + ARC_H_RECORDS, e->n, 8);
	arc_put_le(h + ARC_H_NODES, e->nnodes, 4);
	arc_put_le(h + ARC_H_GROUPS, e->ngroups, 4);
	arc_put_le(h + ARC_H_RAW, raw, 8);
	rc = deflate_parts(parts, 3, h + BCN_ARCHIVE_HDR_LEN, bound, &zlen);
	if (rc)
		return rc;
	arc_put_le(h + ARC_H_ZLEN, zlen, 8);
	arc_put_le(h + ARC_H_CRC, bcn_archive_crc(h, h + BCN_ARCHIVE_HDR_LEN,
						  zlen), 4);
	out->len = start + BCN_ARCHIVE_HDR_LEN + zlen;
	e->st->body_raw = raw;
	e->st->bytes = BCN_ARCHIVE_HDR_LEN + zlen;
	return 0;
}

static int enc_alloc(struct enc *e)
{
	static const struct bcn_archive_limits lim = BCN_ARCHIVE_LIMITS_DEFAULT;
	size_t n = e->n ? e->n : 1;

	if (e->n > lim.max_records)
		return -BCN_ETOOBIG;
	e->items = calloc(n, sizeof(*e->items));
	e->shape = calloc(n, sizeof(*e->shape));
	e->nodes = calloc(n, sizeof(*e->nodes));
	e->byk = calloc(n, sizeof(*e->byk));
	e->byshape = calloc(n, sizeof(*e->byshape));
	e->groups = calloc(n, sizeof(*e->groups));
	e->vals = calloc(n, sizeof(*e->vals));
	e->res = calloc(n, sizeof(*e->res));
	e->ks = calloc(n, sizeof(*e->ks));
	e->lens = calloc(n, sizeof(*e->lens));
	e->svals = calloc(n, sizeof(*e->svals));
	bcn_buf_init(&e->tab, lim.max_body);
	bcn_buf_init(&e->g, lim.max_body);
	bcn_buf_init(&e->scratch, lim.max_body);
	if (!e->items || !e->shape || !e->nodes || !e->byk || !e->byshape ||
	    !e->groups || !e->vals || !e->res || !e->ks || !e->lens ||
	    !e->svals)
		return -ENOMEM;
	return 0;
}

static void enc_free(struct enc *e)
{
	free(e->items);
	free(e->shape);
	free(e->nodes);
	free(e->byk);
	free(e->byshape);
	free(e->groups);
	free(e->vals);
	free(e->res);
	free(e->ks);
	free(e->lens);
	free(e->svals);
	free(e->strs);
	free(e->slots);
	bcn_buf_free(&e->tab);
	bcn_buf_free(&e->g);
	bcn_buf_free(&e->scratch);
}

int bcn_archive_encode(uint64_t job, const struct bcn_record *recs, size_t n,
		       struct bcn_buf *out, struct bcn_archive_stats *st)
{
	static const struct bcn_archive_limits lim = BCN_ARCHIVE_LIMITS_DEFAULT;
	struct bcn_archive_stats local;
	struct enc e;
	int rc;

	memset(&e, 0, sizeof(e));
	e.job = job;
	e.n = n;
	e.st = st ? st : &local;
	memset(e.st, 0, sizeof(*e.st));
	rc = bcn_archive_colmaps(&e.maps);
	if (!rc)
		rc = enc_alloc(&e);
	if (!rc)
		rc = split_nodes(&e, recs);
	if (!rc && e.nnodes > lim.max_nodes)
		rc = -BCN_ETOOBIG;
	if (!rc)
		rc = body(&e);
	if (rc == -BCN_EFULL)
		rc = -BCN_ETOOBIG;      /* the body passed the format's maximum */
	if (!rc)
		rc = finish(&e, out);
	if (!rc) {
		e.st->job = job;
		e.st->records = n;
		e.st->nodes = e.nnodes;
	}
	enc_free(&e);
	return rc;
}
