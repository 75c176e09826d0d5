/* The archive decoder (compress/archive.h, format in docs/archive.md): a
 * pure function over one buffer. Nothing the archive declares is trusted:
 * every count is checked against the limits and against the bytes left
 * before it is used, memory is taken as the body is read and counted
 * against lim->max_memory, and the whole archive (every record it
 * expands to) is checked before the first record is handed out. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "compress/archive_int.h"
#include "proto/varint.h"

#define INFLATE_CHUNK (256u << 10)
#define NONE SIZE_MAX

/* One stored column, with ARC_REL resolved: an integer is
 * a + b * k + (list ? lists[list - 1 + i] : 0) for member i of index k;
 * a string is str[s1] (CONST), str[s1] + (a + b * k padded to width) +
 * str[s2] (NUM) or str[lists[list - 1 + i]] (LIST). */
struct dcol {
	uint16_t c;
	uint8_t kind;
	uint8_t width;
	uint32_t s1, s2;
	uint64_t a, b;
	size_t list;
};

struct dpos {
	uint64_t type;
	uint64_t en[ARC_ENUMS_MAX];
	size_t col0, ncol;
};

struct dgroup {
	size_t mem0, m;                 /* members: mem[mem0 .. +m), by k */
	size_t pos0, len;               /* template: pos[pos0 .. +len) */
};

struct dec {
	const struct bcn_archive_limits *lim;
	struct bcn_archive_stats st;
	struct arc_colmaps maps;
	uint64_t mem;                   /* bytes taken, against max_memory */
	struct bcn_buf body;
	const uint8_t *p, *end;         /* body cursor */
	char *arena;
	const char **str;               /* str[0] = "", then the table */
	size_t nstr;
	struct bcn_hostlist hl;         /* the job's expression, expanded */
	const char **names;             /* by job index k */
	size_t *byname;                 /* k in byte order of the names */
	size_t *grp, *midx;             /* per k: group and member index */
	uint64_t *mem_k;
	size_t nmem, mem_cap;
	struct dgroup *groups;
	struct dpos *pos;
	size_t npos, pos_cap;
	struct dcol *cols;
	size_t ncols, col_cap;
	uint64_t *lists;
	size_t nlists, list_cap;
	uint64_t records;               /* sum of m * len so far */
	char num[ARC_STRS_MAX][BCN_STR_MAX + 1];
};

/* ---- memory and input ----------------------------------------------- */

/* Takes n bytes of the memory budget. */
static int take(struct dec *d, uint64_t n)
{
	if (n > d->lim->max_memory - d->mem)
		return -BCN_ETOOBIG;
	d->mem += n;
	return 0;
}

/* arr grown to hold need elements of size elem, or NULL with *rc set
 * (arr is then left as it was). */
static void *grow(struct dec *d, void *arr, size_t *cap, size_t need,
		  size_t elem, int *rc)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return arr;
	while (ncap < need && ncap <= SIZE_MAX / 2 / elem)
		ncap *= 2;
	if (ncap < need) {
		*rc = -BCN_ETOOBIG;
		return NULL;
	}
	*rc = take(d, (uint64_t)(ncap - *cap) * elem);
	if (*rc)
		return NULL;
	p = realloc(arr, ncap * elem);
	if (!p) {
		*rc = -ENOMEM;
		return NULL;
	}
	*cap = ncap;
	return p;
}

static void *zalloc(struct dec *d, size_t n, size_t elem, int *rc)
{
	void *p;

	if (n && n > SIZE_MAX / elem) {
		*rc = -BCN_ETOOBIG;
		return NULL;
	}
	if ((*rc = take(d, (uint64_t)n * elem)))
		return NULL;
	p = calloc(n ? n : 1, elem);
	if (!p)
		*rc = -ENOMEM;
	return p;
}

static int get_u(struct dec *d, uint64_t *v)
{
	return bcn_varint_get(&d->p, d->end, v) ? -BCN_ECORRUPT : 0;
}

static int get_s(struct dec *d, uint64_t *v)
{
	uint64_t z;
	int rc = get_u(d, &z);

	*v = rc ? 0 : (uint64_t)bcn_unzigzag(z);
	return rc;
}

/* A count of items that take at least one byte each. */
static int get_count(struct dec *d, uint64_t *n)
{
	int rc = get_u(d, n);

	return rc ? rc : *n > (uint64_t)(d->end - d->p) ? -BCN_ECORRUPT : 0;
}

/* A string table index. */
static int get_str(struct dec *d, uint32_t *idx)
{
	uint64_t v;
	int rc = get_u(d, &v);

	if (!rc && v > d->nstr)
		rc = -BCN_ECORRUPT;
	*idx = rc ? 0 : (uint32_t)v;
	return rc;
}

/* ---- envelope ------------------------------------------------------- */

/* One inflate step into at most room bytes at the end of the body (or a
 * spare byte when room is 0, to see that nothing follows). */
static int inflate_step(struct dec *d, z_stream *z, size_t room, int *zr)
{
	uint8_t spare;
	size_t before;
	int rc = 0;

	if (room && (rc = bcn_buf_reserve(&d->body, room)))
		return rc;
	z->next_out = room ? d->body.data + d->body.len : &spare;
	z->avail_out = room ? (uInt)room : 1;
	before = z->avail_out;
	*zr = inflate(z, Z_NO_FLUSH);
	if (!room && z->avail_out != before)
		return -BCN_ECORRUPT;           /* more than the header says */
	d->body.len += before - z->avail_out;
	if (*zr != Z_OK && *zr != Z_STREAM_END)
		return *zr == Z_MEM_ERROR ? -ENOMEM : -BCN_ECORRUPT;
	return 0;
}

static int inflate_body(struct dec *d, const uint8_t *zb, uint64_t zlen)
{
	z_stream z;
	int zr = Z_OK, rc;

	if (zlen > UINT32_MAX)
		return -BCN_ETOOBIG;
	rc = take(d, d->st.body_raw);
	if (rc)
		return rc;
	bcn_buf_init(&d->body, (size_t)d->st.body_raw);
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)zb;
	z.avail_in = (uInt)zlen;
	while (!rc && zr != Z_STREAM_END) {
		size_t room = (size_t)d->st.body_raw - d->body.len;
		uInt in = z.avail_in;
		size_t out = d->body.len;

		rc = inflate_step(d, &z, room > INFLATE_CHUNK ? INFLATE_CHUNK :
				  room, &zr);
		if (!rc && zr == Z_OK && in == z.avail_in && out == d->body.len)
			rc = -BCN_ECORRUPT;     /* no progress: input ended */
	}
	if (!rc && (z.avail_in || d->body.len != d->st.body_raw))
		rc = -BCN_ECORRUPT;
	inflateEnd(&z);
	if (!rc && d->body.len == 0)
		rc = -BCN_ECORRUPT;     /* even an empty job has a node list */
	if (!rc) {
		d->p = d->body.data;
		d->end = d->body.data + d->body.len;
	}
	return rc;
}

/* ---- string table and node list ------------------------------------- */

static int strings(struct dec *d)
{
	uint64_t n;
	char *w;
	int rc = get_count(d, &n);

	if (rc)
		return rc;
	d->nstr = (size_t)n;
	d->str = zalloc(d, d->nstr + 1, sizeof(*d->str), &rc);
	if (!rc)
		d->arena = zalloc(d, (size_t)(d->end - d->p) + d->nstr + 1, 1,
				  &rc);
	if (rc)
		return rc;
	d->str[0] = "";
	w = d->arena;
	for (size_t i = 1; i <= d->nstr; i++) {
		uint64_t len;

		rc = get_u(d, &len);
		if (!rc && (len > BCN_STR_MAX || len > (uint64_t)(d->end - d->p) ||
			    memchr(d->p, 0, (size_t)len)))
			rc = -BCN_ECORRUPT;
		if (rc)
			return rc;
		memcpy(w, d->p, (size_t)len);
		w[len] = '\0';
		d->str[i] = w;
		w += len + 1;
		d->p += len;
	}
	return 0;
}

/* An inline hostlist expression, expanded (at most max names) into hl. */
static int expression(struct dec *d, size_t max, struct bcn_hostlist *hl)
{
	uint64_t len;
	int rc = get_count(d, &len);

	if (rc)
		return rc;
	rc = bcn_hostlist_expand((const char *)d->p, (size_t)len, max, hl,
				 NULL, 0);
	d->p += len;
	if (rc)
		return rc == -ENOMEM ? rc : -BCN_ECORRUPT;
	rc = take(d, hl->arena_len + hl->n * sizeof(char *));
	if (rc)
		bcn_hostlist_free(hl);
	return rc;
}

static int cmp_k(const void *a, const void *b, void *arg)
{
	const char *const *names = arg;

	return strcmp(names[*(const size_t *)a], names[*(const size_t *)b]);
}

/* The job's node list: names by index, their byte order, distinctness. */
static int node_list(struct dec *d)
{
	size_t n = (size_t)d->st.nodes;
	uint64_t extra;
	int rc = expression(d, n, &d->hl);

	if (!rc)
		rc = get_u(d, &extra);
	if (!rc && extra != n - d->hl.n)
		rc = -BCN_ECORRUPT;
	if (!rc)
		d->names = zalloc(d, n, sizeof(*d->names), &rc);
	if (!rc)
		d->byname = zalloc(d, n, sizeof(*d->byname), &rc);
	for (size_t k = 0; !rc && k < n; k++) {
		uint32_t idx = 0;

		if (k >= d->hl.n)
			rc = get_str(d, &idx);
		d->names[k] = k < d->hl.n ? d->hl.hosts[k] : d->str[idx];
		d->byname[k] = k;
	}
	if (rc)
		return rc;
	qsort_r(d->byname, n, sizeof(*d->byname), cmp_k, d->names);
	for (size_t j = 1; j < n; j++)
		if (!strcmp(d->names[d->byname[j - 1]], d->names[d->byname[j]]))
			return -BCN_ECORRUPT;   /* a node listed twice */
	return 0;
}

/* The index of the node named name, or NONE. */
static size_t find_node(const struct dec *d, const char *name)
{
	size_t lo = 0, hi = (size_t)d->st.nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, d->names[d->byname[mid]]);

		if (c == 0)
			return d->byname[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NONE;
}

/* Makes node k member of group g. */
static int add_member(struct dec *d, size_t g, uint64_t k)
{
	uint64_t *mk;
	int rc = 0;

	if (k >= d->st.nodes || d->grp[k] != NONE)
		return -BCN_ECORRUPT;   /* unknown, or in two groups */
	mk = grow(d, d->mem_k, &d->mem_cap, d->nmem + 1, sizeof(*mk), &rc);
	if (!mk)
		return rc;
	d->mem_k = mk;
	d->mem_k[d->nmem++] = k;
	d->grp[k] = g;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A group's node set: expression, then indices as differences. */
static int node_set(struct dec *d, size_t g)
{
	struct dgroup *gr = &d->groups[g];
	struct bcn_hostlist hl;
	uint64_t extra, next = 0;
	/* no more names than nodes still without a group: the expansions
	 * of all groups together stay within twice the node count */
	int rc = expression(d, (size_t)(d->st.nodes - d->nmem), &hl);

	if (rc)
		return rc;
	gr->mem0 = d->nmem;
	for (size_t i = 0; !rc && i < hl.n; i++) {
		size_t k = find_node(d, hl.hosts[i]);

		rc = k == NONE ? -BCN_ECORRUPT : add_member(d, g, k);
	}
	bcn_hostlist_free(&hl);
	if (!rc)
		rc = get_count(d, &extra);
	for (uint64_t i = 0; !rc && i < extra; i++) {
		uint64_t delta;

		rc = get_u(d, &delta);
		if (!rc && delta >= d->st.nodes - next)
			rc = -BCN_ECORRUPT;
		if (!rc)
			rc = add_member(d, g, next + delta);
		next += delta + 1;
	}
	gr->m = d->nmem - gr->mem0;
	if (!rc && gr->m == 0)
		rc = -BCN_ECORRUPT;
	if (rc)
		return rc;
	qsort(d->mem_k + gr->mem0, gr->m, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < gr->m; i++)
		d->midx[d->mem_k[gr->mem0 + i]] = i;
	return 0;
}

/* ---- columns -------------------------------------------------------- */

/* m values, as stored (first, then differences), appended to the lists;
 * *at gets 1 + the offset of the first. */
static int int_list(struct dec *d, size_t m, size_t *at)
{
	uint64_t *l, v = 0;
	int rc = 0;

	if (m > (size_t)(d->end - d->p))
		return -BCN_ECORRUPT;
	l = grow(d, d->lists, &d->list_cap, d->nlists + m, sizeof(*l), &rc);
	if (!l)
		return rc;
	d->lists = l;
	for (size_t i = 0; !rc && i < m; i++) {
		uint64_t x;

		rc = get_s(d, &x);
		v = i ? v + x : x;
		l[d->nlists + i] = v;
	}
	*at = d->nlists + 1;
	d->nlists += m;
	return rc;
}

/* Column c of the position before (NONE: none), or NULL when it was
 * not stored (zero). */
static const struct dcol *find_col(const struct dec *d, size_t before,
				   unsigned c)
{
	const struct dpos *p = &d->pos[before];
	size_t lo = p->col0, hi = p->col0 + p->ncol;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cols[mid].c == c)
			return &d->cols[mid];
		if (d->cols[mid].c < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Adds the column ref (NULL: zero) to x, for ARC_REL. */
static void add_ref(struct dec *d, struct dcol *x, const struct dcol *ref,
		    size_t m)
{
	if (!ref)
		return;
	x->a += ref->a;
	x->b += ref->b;
	if (ref->list && x->list) {
		for (size_t i = 0; i < m; i++)
			d->lists[x->list - 1 + i] += d->lists[ref->list - 1 + i];
	} else if (ref->list) {
		x->list = ref->list;
	}
}

/* An integer column of group g; before is the position of the same type
 * before this one (NONE: none). */
static int int_col(struct dec *d, const struct dgroup *g, size_t before,
		   uint8_t kind, struct dcol *x)
{
	int rc = 0;

	switch (kind & ARC_K_MASK) {
	case ARC_K_ZERO:
		break;
	case ARC_K_CONST:
		rc = get_s(d, &x->a);
		break;
	case ARC_K_AFFINE:
		rc = get_s(d, &x->a);
		if (!rc)
			rc = get_s(d, &x->b);
		break;
	case ARC_K_LIST:
		rc = int_list(d, g->m, &x->list);
		break;
	default:
		return -BCN_ECORRUPT;
	}
	if (rc || !(kind & ARC_REL))
		return rc;
	if (before == NONE)
		return -BCN_ECORRUPT;
	add_ref(d, x, find_col(d, before, x->c), g->m);
	return 0;
}

/* m string table indices, appended to the lists. */
static int str_list(struct dec *d, size_t m, size_t *at)
{
	uint64_t *l;
	int rc = 0;

	if (m > (size_t)(d->end - d->p))
		return -BCN_ECORRUPT;
	l = grow(d, d->lists, &d->list_cap, d->nlists + m, sizeof(*l), &rc);
	if (!l)
		return rc;
	d->lists = l;
	for (size_t i = 0; !rc && i < m; i++) {
		uint32_t idx;

		rc = get_str(d, &idx);
		l[d->nlists + i] = idx;
	}
	*at = d->nlists + 1;
	d->nlists += m;
	return rc;
}

static int str_col(struct dec *d, const struct dgroup *g, uint8_t kind,
		   struct dcol *x)
{
	uint64_t width = 0;
	int rc;

	switch (kind) {
	case ARC_K_CONST:
		return get_str(d, &x->s1);
	case ARC_K_LIST:
		return str_list(d, g->m, &x->list);
	case ARC_K_NUM:
		rc = get_str(d, &x->s1);
		if (!rc)
			rc = get_str(d, &x->s2);
		if (!rc)
			rc = get_u(d, &width);
		if (!rc)
			rc = get_s(d, &x->a);
		if (!rc)
			rc = get_s(d, &x->b);
		if (!rc && (width > ARC_NUM_WIDTH_MAX ||
			    strlen(d->str[x->s1]) + strlen(d->str[x->s2]) +
			    ARC_NUM_DIGITS > BCN_STR_MAX))
			rc = -BCN_ECORRUPT;
		x->width = (uint8_t)width;
		return rc;
	default:
		return -BCN_ECORRUPT;
	}
}

static enum bcn_archive_col col_stat(uint8_t kind)
{
	switch (kind & ARC_K_MASK) {
	case ARC_K_AFFINE: return BCN_ARCHIVE_COL_AFFINE;
	case ARC_K_LIST: return BCN_ARCHIVE_COL_LIST;
	case ARC_K_NUM: return BCN_ARCHIVE_COL_NUMBERED;
	default: return BCN_ARCHIVE_COL_CONST;
	}
}

/* One stored column of the position being read: its number and code,
 * then its values. Returns 1 at the end of the position's columns. */
static int column(struct dec *d, const struct dgroup *g,
		  const struct arc_colmap *cm, size_t before, unsigned *c0)
{
	struct dcol x = { 0 }, *cols;
	uint64_t gap, kind;
	int rc = get_u(d, &gap);

	if (rc || gap == 0)
		return rc ? rc : 1;
	if (gap - 1 >= (uint64_t)(cm->ncols - *c0))
		return -BCN_ECORRUPT;
	x.c = (uint16_t)(*c0 + gap - 1);
	*c0 = x.c + 1u;
	rc = get_u(d, &kind);
	if (!rc && kind > 0xff)
		rc = -BCN_ECORRUPT;
	if (!rc)
		rc = cm->str[x.c] ? str_col(d, g, (uint8_t)kind, &x) :
				    int_col(d, g, before, (uint8_t)kind, &x);
	if (rc)
		return rc;
	x.kind = (uint8_t)(kind & ARC_K_MASK);
	cols = grow(d, d->cols, &d->col_cap, d->ncols + 1, sizeof(*cols), &rc);
	if (!cols)
		return rc;
	d->cols = cols;
	d->cols[d->ncols++] = x;
	d->st.cols[(kind & ARC_REL) ? BCN_ARCHIVE_COL_REL :
		   col_stat((uint8_t)kind)]++;
	return 0;
}

/* One template position of group g. */
static int position(struct dec *d, const struct dgroup *g, size_t *last)
{
	const struct arc_colmap *cm;
	struct dpos *ps, x = { 0 };
	unsigned c0 = 0;
	int rc = get_u(d, &x.type);

	if (!rc && (x.type == 0 || x.type >= BCN_REC_TYPE_MAX))
		rc = -BCN_ECORRUPT;
	if (rc)
		return rc;
	cm = &d->maps.map[x.type];
	for (unsigned j = 0; !rc && j < cm->nenums; j++) {
		rc = get_u(d, &x.en[j]);
		if (!rc && x.en[j] >= cm->enum_n[j])
			rc = -BCN_ECORRUPT;
	}
	x.col0 = d->ncols;
	while (rc == 0)
		rc = column(d, g, cm, last[x.type], &c0);
	if (rc < 0)
		return rc;
	x.ncol = d->ncols - x.col0;
	ps = grow(d, d->pos, &d->pos_cap, d->npos + 1, sizeof(*ps), &rc);
	if (!ps)
		return rc;
	d->pos = ps;
	last[x.type] = d->npos;
	d->pos[d->npos++] = x;
	return 0;
}

/* Group g: node set, template length, positions. */
static int group(struct dec *d, size_t g)
{
	struct dgroup *gr = &d->groups[g];
	size_t last[BCN_REC_TYPE_MAX];
	uint64_t len;
	int rc = node_set(d, g);

	if (!rc)
		rc = get_count(d, &len);
	if (rc)
		return rc;
	if (len == 0 || len > (d->st.records - d->records) / gr->m)
		return -BCN_ECORRUPT;   /* more records than the header says */
	d->records += len * gr->m;
	gr->pos0 = d->npos;
	gr->len = (size_t)len;
	for (size_t t = 0; t < BCN_REC_TYPE_MAX; t++)
		last[t] = NONE;
	for (size_t p = 0; !rc && p < gr->len; p++)
		rc = position(d, gr, last);
	return rc;
}

/* The groups, then the checks that tie them to the header. */
static int groups(struct dec *d)
{
	uint64_t n;
	int rc = get_u(d, &n);

	if (!rc && n != d->st.groups)
		rc = -BCN_ECORRUPT;
	if (!rc)
		d->groups = zalloc(d, (size_t)n, sizeof(*d->groups), &rc);
	if (!rc)
		d->grp = zalloc(d, (size_t)d->st.nodes, sizeof(*d->grp), &rc);
	if (!rc)
		d->midx = zalloc(d, (size_t)d->st.nodes, sizeof(*d->midx), &rc);
	for (size_t k = 0; !rc && k < d->st.nodes; k++)
		d->grp[k] = NONE;
	for (size_t g = 0; !rc && g < n; g++)
		rc = group(d, g);
	if (rc)
		return rc;
	if (d->nmem != d->st.nodes || d->records != d->st.records ||
	    d->p != d->end)
		return -BCN_ECORRUPT;   /* a node in no group, or bytes left */
	return 0;
}

/* ---- expansion ------------------------------------------------------ */

static uint64_t int_value(const struct dec *d, const struct dcol *x,
			  size_t i, uint64_t k)
{
	uint64_t v = x->a + x->b * k;

	return x->list ? v + d->lists[x->list - 1 + i] : v;
}

static const char *str_value(struct dec *d, const struct dcol *x, size_t i,
			     uint64_t k, unsigned slot)
{
	if (x->kind == ARC_K_CONST)
		return d->str[x->s1];
	if (x->kind == ARC_K_LIST)
		return d->str[d->lists[x->list - 1 + i]];
	snprintf(d->num[slot], sizeof(d->num[slot]), "%s%0*" PRIu64 "%s",
		 d->str[x->s1], (int)x->width, x->a + x->b * k, d->str[x->s2]);
	return d->num[slot];
}

/* Record p of member i (node k) of group g into r. */
static void expand(struct dec *d, const struct dgroup *g, size_t i,
		   uint64_t k, size_t p, struct bcn_record *r)
{
	const struct dpos *ps = &d->pos[g->pos0 + p];
	const struct arc_colmap *cm = &d->maps.map[ps->type];

	memset(r, 0, sizeof(*r));
	r->type = ps->type;
	r->node = d->names[k];
	for (unsigned c = 0; c < cm->ncols; c++)
		if (cm->str[c])
			*(const char **)((char *)r + cm->off[c]) = "";
	r->job = d->st.job;
	for (unsigned j = 0; j < cm->nenums; j++)
		*(uint64_t *)((char *)r + cm->enum_off[j]) = ps->en[j];
	for (size_t j = 0; j < ps->ncol; j++) {
		const struct dcol *x = &d->cols[ps->col0 + j];
		char *at = (char *)r + cm->off[x->c];

		if (cm->str[x->c])
			*(const char **)at = str_value(d, x, i, k,
						       cm->str[x->c] - 1u);
		else
			*(uint64_t *)at = int_value(d, x, i, k) +
					  (x->c == ARC_COL_JOB ? d->st.job : 0);
	}
}

/* Every record, node by node in byte order of the names: checked (fn
 * NULL) or handed to fn. */
static int walk(struct dec *d, bcn_archive_record_fn *fn, void *arg)
{
	struct bcn_record r;

	for (size_t j = 0; j < d->st.nodes; j++) {
		size_t k = d->byname[j];
		const struct dgroup *g = &d->groups[d->grp[k]];
		int64_t last = INT64_MIN;

		for (size_t p = 0; p < g->len; p++) {
			int rc;

			expand(d, g, d->midx[k], k, p, &r);
			if (fn) {
				rc = fn(arg, &r);
				if (rc)
					return rc;
				continue;
			}
			if (bcn_record_check(&r) || r.t < last)
				return -BCN_ECORRUPT;
			last = r.t;
		}
	}
	return 0;
}

static void dec_free(struct dec *d)
{
	bcn_buf_free(&d->body);
	bcn_hostlist_free(&d->hl);
	free(d->arena);
	free(d->str);
	free(d->names);
	free(d->byname);
	free(d->grp);
	free(d->midx);
	free(d->mem_k);
	free(d->groups);
	free(d->pos);
	free(d->cols);
	free(d->lists);
	free(d);
}

/* Header limits and checksum, then the body. */
static int parse(struct dec *d, const uint8_t *buf, size_t len)
{
	uint64_t zlen;
	int rc = bcn_archive_header(buf, len, &d->st, &zlen);

	if (rc)
		return rc;
	if (d->st.records > d->lim->max_records ||
	    d->st.nodes > d->lim->max_nodes ||
	    d->st.body_raw > d->lim->max_body)
		return -BCN_ETOOBIG;
	if (bcn_archive_crc(buf, buf + BCN_ARCHIVE_HDR_LEN, (size_t)zlen) !=
	    (uint32_t)arc_get_le(buf + ARC_H_CRC, 4))
		return -BCN_ECHECKSUM;
	rc = bcn_archive_colmaps(&d->maps);
	if (!rc)
		rc = inflate_body(d, buf + BCN_ARCHIVE_HDR_LEN, zlen);
	if (!rc)
		rc = strings(d);
	if (!rc)
		rc = node_list(d);
	if (!rc)
		rc = groups(d);
	return rc;
}

int bcn_archive_decode(const uint8_t *buf, size_t len,
		       const struct bcn_archive_limits *lim,
		       bcn_archive_record_fn *fn, void *arg,
		       struct bcn_archive_stats *st)
{
	static const struct bcn_archive_limits def = BCN_ARCHIVE_LIMITS_DEFAULT;
	struct dec *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return -ENOMEM;
	d->lim = lim ? lim : &def;
	rc = parse(d, buf, len);
	if (!rc)
		rc = walk(d, NULL, NULL);
	if (!rc && fn)
		rc = walk(d, fn, arg);
	if (!rc && st) {
		*st = d->st;
		st->templates = d->npos;
		for (size_t g = 0; g < d->st.groups; g++)
			if (d->groups[g].m > 1)
				st->merged_nodes += d->groups[g].m;
	}
	dec_free(d);
	return rc;
}
