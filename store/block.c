/* The record block codec (block.h): column-wise, table-driven from the
 * record descriptors, zstd-compressed with its content checksum.
 *
 * Block:   "BK" version(1) flags(0) | varint nrec | varint rawlen |
 *          one zstd frame of rawlen bytes (content size and checksum set)
 * Raw:     varint ndict | ndict x (varint len, bytes, NUL) |
 *          varint ncols | ncols x varint column length | the columns
 * The column set is fixed by the record descriptors (every column of every
 * type is present, empty ones with length 0), so a block of another
 * record version has another ncols and is refused. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "common/error.h"
#include "proto/frame.h"
#include "proto/varint.h"
#include "store/block.h"

enum { C_TYPE, C_NODE, C_SEQ, C_IDX, C_T, C_DUR, C_JOB, C_FIXED };

#define BLK_COLS_MAX 1024
#define DIST_WORDS (sizeof(struct bcn_dist) / sizeof(uint64_t))

/* Where the words of each record type's fields live, and their columns. */
struct blk_map {
	uint16_t base[BCN_REC_TYPE_MAX];        /* first column of a type */
	uint16_t nwords[BCN_REC_TYPE_MAX];
	uint16_t end[BCN_REC_TYPE_MAX];         /* bytes of a record of the
						 * type that its fields cover */
	uint16_t off[BLK_COLS_MAX];             /* per column: offset in the
						 * record */
	uint8_t str[BLK_COLS_MAX];              /* 1: a string column */
	uint64_t lim[BLK_COLS_MAX];             /* an enum column's values
						 * are below this; 0: no
						 * enum */
	unsigned ncols;
	int err;
};

static struct blk_map blk_map;
static pthread_once_t blk_once = PTHREAD_ONCE_INIT;

static void map_add(struct blk_map *m, size_t off, const struct bcn_field *f)
{
	if (m->ncols >= BLK_COLS_MAX || off > UINT16_MAX) {
		m->err = -EINVAL;
		return;
	}
	m->off[m->ncols] = (uint16_t)off;
	m->lim[m->ncols] = f->kind == BCN_F_ENUM ? f->n : 0;
	m->str[m->ncols++] = f->kind == BCN_F_STR;
}

static void map_build(void)
{
	struct blk_map *m = &blk_map;

	m->ncols = C_FIXED;
	for (uint64_t t = 1; t < BCN_REC_TYPE_MAX; t++) {
		const struct bcn_record_desc *d = bcn_record_desc(t);

		m->base[t] = (uint16_t)m->ncols;
		for (size_t f = 0; d && f < d->nfields; f++) {
			const struct bcn_field *fl = &d->fields[f];
			size_t words = fl->kind == BCN_F_VEC ? fl->n :
				       fl->kind == BCN_F_DIST ? DIST_WORDS : 1;

			for (size_t w = 0; w < words; w++)
				map_add(m, fl->offset + w * sizeof(uint64_t), fl);
		}
		m->nwords[t] = (uint16_t)(m->ncols - m->base[t]);
		m->end[t] = (uint16_t)offsetof(struct bcn_record, u);
		for (unsigned c = m->base[t]; c < m->ncols; c++)
			if (m->off[c] + 8u > m->end[t])
				m->end[t] = (uint16_t)(m->off[c] + 8u);
	}
}

/* A decompression context per thread, freed when the thread ends. */
static pthread_key_t blk_dctx_key;
static int blk_dctx_err;

static void dctx_free(void *p)
{
	ZSTD_freeDCtx(p);
}

static void map_once(void)
{
	map_build();
	blk_dctx_err = pthread_key_create(&blk_dctx_key, dctx_free);
}

static const struct blk_map *get_map(void)
{
	pthread_once(&blk_once, map_once);
	return blk_map.err || blk_dctx_err ? NULL : &blk_map;
}

size_t bcn_block_record_size(uint64_t type)
{
	const struct blk_map *m = get_map();

	if (!m || type == 0 || type >= BCN_REC_TYPE_MAX)
		return sizeof(struct bcn_record);
	return m->end[type];
}

static ZSTD_DCtx *get_dctx(void)
{
	ZSTD_DCtx *d = pthread_getspecific(blk_dctx_key);

	if (!d) {
		d = ZSTD_createDCtx();
		if (d && pthread_setspecific(blk_dctx_key, d)) {
			ZSTD_freeDCtx(d);
			d = NULL;
		}
	}
	return d;
}

/* ---- encoder ---- */

struct dict_slot {
	const char *s;          /* NULL: free */
	size_t len;
	uint32_t id;
};

struct bcn_block_enc {
	ZSTD_CCtx *cctx;
	struct bcn_buf cols[BLK_COLS_MAX];
	struct bcn_buf raw;
	struct dict_slot *slot;
	size_t nslot;           /* power of two */
	uint32_t ndict;
	const char **strs;      /* by id */
	size_t cap_strs;
	uint64_t prev[BLK_COLS_MAX];
	int level;              /* zstd level set in cctx */
	uint8_t used[BCN_REC_TYPE_MAX]; /* types of the block being encoded:
					 * only their columns need a reset */
};

int bcn_block_enc_new(int level, struct bcn_block_enc **out)
{
	struct bcn_block_enc *e;

	*out = NULL;
	if (!get_map())
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->cctx = ZSTD_createCCtx();
	if (!e->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel,
						level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_checksumFlag,
						1))) {
		bcn_block_enc_free(e);
		return -ENOMEM;
	}
	e->level = level;
	for (unsigned c = 0; c < BLK_COLS_MAX; c++)
		bcn_buf_init(&e->cols[c], BCN_BLOCK_RAW_MAX);
	bcn_buf_init(&e->raw, BCN_BLOCK_RAW_MAX);
	*out = e;
	return 0;
}

int bcn_block_enc_level(struct bcn_block_enc *e, int level)
{
	if (level == e->level)
		return 0;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(e->cctx,
						ZSTD_c_compressionLevel, level)))
		return -EINVAL;
	e->level = level;
	return 0;
}

void bcn_block_enc_free(struct bcn_block_enc *e)
{
	if (!e)
		return;
	ZSTD_freeCCtx(e->cctx);
	for (unsigned c = 0; c < BLK_COLS_MAX; c++)
		bcn_buf_free(&e->cols[c]);
	bcn_buf_free(&e->raw);
	free(e->slot);
	free(e->strs);
	free(e);
}

static int put_var(struct bcn_buf *b, uint64_t v)
{
	int rc;

	if (v < 0x80 && b->len < b->cap && b->len < b->max) {
		b->data[b->len++] = (uint8_t)v;        /* most deltas: 0 */
		return 0;
	}
	rc = bcn_buf_reserve(b, BCN_VARINT_MAX);

	if (rc)
		return rc;
	b->len += bcn_varint_put(b->data + b->len, v);
	return 0;
}

static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

static int dict_grow(struct bcn_block_enc *e)
{
	size_t n = e->nslot ? e->nslot * 2 : 256;
	struct dict_slot *ns = calloc(n, sizeof(*ns)), *os = e->slot;

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < e->nslot; i++) {
		size_t h;

		if (!os[i].s)
			continue;
		h = str_hash(os[i].s, os[i].len) & (n - 1);
		while (ns[h].s)
			h = (h + 1) & (n - 1);
		ns[h] = os[i];
	}
	free(os);
	e->slot = ns;
	e->nslot = n;
	return 0;
}

/* The dictionary index of s, added if new. */
static int dict_id(struct bcn_block_enc *e, const char *s, uint32_t *id)
{
	size_t len = strlen(s), h;
	int rc;

	if (2 * ((size_t)e->ndict + 1) > e->nslot && (rc = dict_grow(e)))
		return rc;
	h = str_hash(s, len) & (e->nslot - 1);
	for (; e->slot[h].s; h = (h + 1) & (e->nslot - 1)) {
		if (e->slot[h].len == len && !memcmp(e->slot[h].s, s, len)) {
			*id = e->slot[h].id;
			return 0;
		}
	}
	if (e->ndict == BCN_BLOCK_DICT_MAX)
		return -BCN_EFULL;
	if (e->ndict == e->cap_strs) {
		size_t nc = e->cap_strs ? e->cap_strs * 2 : 256;
		const char **ns = realloc(e->strs, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		e->strs = ns;
		e->cap_strs = nc;
	}
	e->strs[e->ndict] = s;
	e->slot[h] = (struct dict_slot){ s, len, e->ndict };
	*id = e->ndict++;
	return 0;
}

static void enc_reset(struct bcn_block_enc *e, const struct blk_map *m)
{
	/* the columns of the types the last block had are the only ones
	 * not empty and zero */
	for (unsigned c = 0; c < C_FIXED; c++) {
		bcn_buf_reset(&e->cols[c]);
		e->prev[c] = 0;
	}
	for (unsigned t = 1; t < BCN_REC_TYPE_MAX; t++) {
		if (!e->used[t])
			continue;
		e->used[t] = 0;
		for (unsigned c = m->base[t]; c < (unsigned)m->base[t] +
		     m->nwords[t]; c++) {
			bcn_buf_reset(&e->cols[c]);
			e->prev[c] = 0;
		}
	}
	bcn_buf_reset(&e->raw);
	if (e->nslot > 1024 && (size_t)e->ndict * 16 < e->nslot) {
		free(e->slot);  /* a big table for a small block: start small */
		e->slot = NULL;
		e->nslot = 0;
	} else if (e->slot) {
		memset(e->slot, 0, e->nslot * sizeof(*e->slot));
	}
	e->ndict = 0;
}

/* Delta of v from the column's previous value, zigzagged. */
static int put_delta(struct bcn_block_enc *e, unsigned c, uint64_t v)
{
	int64_t d = (int64_t)(v - e->prev[c]);

	e->prev[c] = v;
	return put_var(&e->cols[c], bcn_zigzag(d));
}

static int enc_one(struct bcn_block_enc *e, const struct blk_map *m,
		   const struct bcn_block_item *it, int64_t *dt)
{
	const struct bcn_record *r = it->rec;
	const uint8_t *base = (const uint8_t *)r;
	uint32_t id;
	int64_t d;
	int rc;

	if (!r->node || !r->node[0] || strlen(r->node) > BCN_NODE_MAX)
		return -EINVAL;
	if (bcn_record_check(r))
		return -BCN_ERANGE;
	e->used[r->type] = 1;   /* a checked record's type is known */
	rc = put_var(&e->cols[C_TYPE], r->type);
	if (!rc && !(rc = dict_id(e, r->node, &id)))
		rc = put_var(&e->cols[C_NODE], id);
	if (!rc)
		rc = put_delta(e, C_SEQ, it->seq);
	if (!rc)
		rc = put_var(&e->cols[C_IDX], it->idx);
	if (!rc) {      /* delta of delta, wrapping like the decoder */
		d = (int64_t)((uint64_t)r->t - e->prev[C_T]);
		e->prev[C_T] = (uint64_t)r->t;
		rc = put_var(&e->cols[C_T],
			     bcn_zigzag((int64_t)((uint64_t)d - (uint64_t)*dt)));
		*dt = d;
	}
	if (!rc)
		rc = put_delta(e, C_DUR, (uint64_t)r->dur);
	if (!rc)
		rc = put_delta(e, C_JOB, r->job);
	for (unsigned c = m->base[r->type];
	     !rc && c < (unsigned)m->base[r->type] + m->nwords[r->type]; c++) {
		if (m->str[c]) {
			const char *s;

			memcpy(&s, base + m->off[c], sizeof(s));
			if (!(rc = dict_id(e, s, &id)))
				rc = put_var(&e->cols[c], id);
		} else {
			uint64_t v;

			memcpy(&v, base + m->off[c], sizeof(v));
			rc = put_delta(e, c, v);
		}
	}
	return rc;
}

/* The raw payload: dictionary, column lengths, columns. */
static int enc_raw(struct bcn_block_enc *e, const struct blk_map *m)
{
	int rc = put_var(&e->raw, e->ndict);

	for (uint32_t i = 0; !rc && i < e->ndict; i++) {
		size_t len = strlen(e->strs[i]);

		rc = put_var(&e->raw, len);
		if (!rc)
			rc = bcn_buf_add(&e->raw, e->strs[i], len + 1);
	}
	if (!rc)
		rc = put_var(&e->raw, m->ncols);
	for (unsigned c = 0; !rc && c < m->ncols; c++)
		rc = put_var(&e->raw, e->cols[c].len);
	for (unsigned c = 0; !rc && c < m->ncols; c++)
		rc = bcn_buf_add(&e->raw, e->cols[c].data, e->cols[c].len);
	return rc;
}

int bcn_block_encode(struct bcn_block_enc *e, const struct bcn_block_item *items,
		     size_t n, struct bcn_buf *out)
{
	const struct blk_map *m = get_map();
	uint8_t head[BCN_BLOCK_HEADER + 2 * BCN_VARINT_MAX];
	size_t hl = BCN_BLOCK_HEADER, bound, zl, start = out->len;
	int64_t dt = 0;
	int rc = 0;

	if (!m || n == 0 || n > BCN_BLOCK_RECORDS_MAX)
		return -EINVAL;
	enc_reset(e, m);
	for (size_t i = 0; i < n && !rc; i++)
		rc = enc_one(e, m, &items[i], &dt);
	if (!rc)
		rc = enc_raw(e, m);
	if (rc)
		return rc;
	head[0] = 'B';
	head[1] = 'K';
	head[2] = BCN_BLOCK_VERSION;
	head[3] = 0;
	hl += bcn_varint_put(head + hl, n);
	hl += bcn_varint_put(head + hl, e->raw.len);
	bound = ZSTD_compressBound(e->raw.len);
	rc = bcn_buf_reserve(out, hl + bound);
	if (rc)
		return rc;
	memcpy(out->data + out->len, head, hl);
	zl = ZSTD_compress2(e->cctx, out->data + out->len + hl, bound,
			    e->raw.data, e->raw.len);
	if (ZSTD_isError(zl)) {
		out->len = start;
		return -ENOMEM;
	}
	out->len += hl + zl;
	return 0;
}

/* ---- reader ---- */

struct blk_col {
	const uint8_t *p, *end;
	uint64_t prev;
};

struct bcn_block_reader {
	const struct blk_map *m;
	uint8_t *raw;
	uint32_t n, i;
	uint32_t ndict;
	const char **dict;
	uint64_t node_ok;       /* dictionary index + 1 of the last node
				 * name checked, 0: none */
	int64_t dt;
	struct blk_col col[];
};

void bcn_block_close(struct bcn_block_reader *b)
{
	if (!b)
		return;
	free(b->raw);
	free(b->dict);
	free(b);
}

uint32_t bcn_block_count(const struct bcn_block_reader *b)
{
	return b->n;
}

/* The dictionary at *p: every string NUL-terminated, none inside. */
static int open_dict(struct bcn_block_reader *b, const uint8_t **p,
		     const uint8_t *end, const struct bcn_block_limits *lim)
{
	uint64_t nd, len;

	if (bcn_varint_get(p, end, &nd))
		return -BCN_ECORRUPT;
	if (nd > lim->max_dict || nd > (uint64_t)(end - *p) / 2)
		return nd > lim->max_dict ? -BCN_ETOOBIG : -BCN_ECORRUPT;
	b->dict = malloc((nd ? nd : 1) * sizeof(*b->dict));
	if (!b->dict)
		return -ENOMEM;
	b->ndict = (uint32_t)nd;
	for (uint64_t i = 0; i < nd; i++) {
		if (bcn_varint_get(p, end, &len) || len > BCN_STR_MAX ||
		    len >= (uint64_t)(end - *p) || (*p)[len] != 0 ||
		    memchr(*p, 0, len))
			return -BCN_ECORRUPT;
		b->dict[i] = (const char *)*p;
		*p += len + 1;
	}
	return 0;
}

static int open_cols(struct bcn_block_reader *b, const uint8_t *p,
		     const uint8_t *end)
{
	const struct blk_map *m = b->m;
	uint64_t nc, len[BLK_COLS_MAX], total = 0;

	if (bcn_varint_get(&p, end, &nc) || nc != m->ncols)
		return -BCN_ECORRUPT;
	for (unsigned c = 0; c < m->ncols; c++) {
		if (bcn_varint_get(&p, end, &len[c]) ||
		    len[c] > (uint64_t)(end - p))
			return -BCN_ECORRUPT;
		total += len[c];
	}
	if (total != (uint64_t)(end - p))
		return -BCN_ECORRUPT;
	for (unsigned c = 0; c < m->ncols; c++) {
		b->col[c].p = p;
		p += len[c];
		b->col[c].end = p;
		b->col[c].prev = 0;
	}
	return 0;
}

/* Parses the header; *rawlen, *nrec, *z: the zstd frame. */
static int open_head(const uint8_t *p, size_t len,
		     const struct bcn_block_limits *lim, uint64_t *nrec,
		     uint64_t *rawlen, const uint8_t **z)
{
	const uint8_t *end = p + len;

	if (len < BCN_BLOCK_HEADER || p[0] != 'B' || p[1] != 'K')
		return len < BCN_BLOCK_HEADER ? -BCN_ETRUNC : -BCN_EMAGIC;
	if (p[2] != BCN_BLOCK_VERSION)
		return -BCN_EVERSION;
	if (p[3] != 0)
		return -BCN_ECORRUPT;
	p += BCN_BLOCK_HEADER;
	if (bcn_varint_get(&p, end, nrec) || bcn_varint_get(&p, end, rawlen))
		return -BCN_ECORRUPT;
	if (*nrec == 0)
		return -BCN_ECORRUPT;
	if (*nrec > lim->max_records || *rawlen > lim->max_raw ||
	    *rawlen > BCN_BLOCK_RAW_MAX)
		return -BCN_ETOOBIG;
	*z = p;
	return 0;
}

int bcn_block_open(const void *buf, size_t len,
		   const struct bcn_block_limits *lim,
		   struct bcn_block_reader **out)
{
	const struct blk_map *m = get_map();
	const uint8_t *z, *p, *end;
	struct bcn_block_reader *b;
	ZSTD_DCtx *dctx;
	uint64_t nrec, rawlen;
	unsigned long long cs;
	size_t zl, got;
	int rc;

	*out = NULL;
	if (!m)
		return -EINVAL;
	rc = open_head(buf, len, lim, &nrec, &rawlen, &z);
	if (rc)
		return rc;
	zl = len - (size_t)(z - (const uint8_t *)buf);
	cs = ZSTD_getFrameContentSize(z, zl);
	if (cs != rawlen || ZSTD_findFrameCompressedSize(z, zl) != zl)
		return -BCN_ECORRUPT;
	b = calloc(1, sizeof(*b) + m->ncols * sizeof(b->col[0]));
	if (!b)
		return -ENOMEM;
	b->m = m;
	b->n = (uint32_t)nrec;
	b->raw = malloc(rawlen ? rawlen : 1);
	if (!b->raw) {
		rc = -ENOMEM;
		goto out;
	}
	dctx = get_dctx();
	if (!dctx) {
		rc = -ENOMEM;
		goto out;
	}
	got = ZSTD_decompressDCtx(dctx, b->raw, rawlen, z, zl);
	if (ZSTD_isError(got) || got != rawlen) {
		rc = ZSTD_isError(got) && ZSTD_getErrorCode(got) ==
		     ZSTD_error_checksum_wrong ? -BCN_ECHECKSUM : -BCN_ECORRUPT;
		goto out;
	}
	p = b->raw;
	end = b->raw + rawlen;
	rc = open_dict(b, &p, end, lim);
	if (!rc)
		rc = open_cols(b, p, end);
out:
	if (rc) {
		bcn_block_close(b);
		return rc;
	}
	*out = b;
	return 0;
}

/* Most values are one byte (small deltas, zeros): that case inline. */
static inline int get_raw(struct blk_col *c, uint64_t *v)
{
	if (c->p < c->end && *c->p < 0x80) {
		*v = *c->p++;
		return 0;
	}
	return bcn_varint_get(&c->p, c->end, v) ? -BCN_ECORRUPT : 0;
}

static inline int get_delta(struct blk_col *c, uint64_t *v)
{
	uint64_t z;

	if (get_raw(c, &z))
		return -BCN_ECORRUPT;
	c->prev += (uint64_t)bcn_unzigzag(z);
	*v = c->prev;
	return 0;
}

static int get_str(struct bcn_block_reader *b, struct blk_col *c,
		   const char **s)
{
	uint64_t id;

	if (get_raw(c, &id) || id >= b->ndict)
		return -BCN_ECORRUPT;
	*s = b->dict[id];
	return 0;
}

static int next_ident(struct bcn_block_reader *b, struct bcn_record *r,
		      uint64_t *seq, uint32_t *idx)
{
	uint64_t v = 0, dur;
	int rc;

	rc = get_raw(&b->col[C_TYPE], &r->type);
	if (!rc && (r->type == 0 || r->type >= BCN_REC_TYPE_MAX))
		rc = -BCN_ECORRUPT;
	if (!rc && !(rc = get_raw(&b->col[C_NODE], &v))) {
		if (v + 1 != b->node_ok) {      /* a node's records come in runs */
			if (v >= b->ndict || !b->dict[v][0] ||
			    strlen(b->dict[v]) > BCN_NODE_MAX)
				rc = -BCN_ECORRUPT;
			else
				b->node_ok = v + 1;
		}
		r->node = rc ? "" : b->dict[v];
	}
	if (!rc)
		rc = get_delta(&b->col[C_SEQ], seq);
	if (!rc && !(rc = get_raw(&b->col[C_IDX], &v)))
		rc = v > UINT32_MAX ? -BCN_ECORRUPT : 0;
	*idx = (uint32_t)v;
	if (!rc && !(rc = get_raw(&b->col[C_T], &v))) {
		b->dt = (int64_t)((uint64_t)b->dt + (uint64_t)bcn_unzigzag(v));
		b->col[C_T].prev += (uint64_t)b->dt;
		r->t = (int64_t)b->col[C_T].prev;
	}
	if (!rc && !(rc = get_delta(&b->col[C_DUR], &dur)))
		r->dur = (int64_t)dur;
	if (!rc)
		rc = get_delta(&b->col[C_JOB], &r->job);
	return rc;
}

int bcn_block_next(struct bcn_block_reader *b, struct bcn_record *r,
		   uint64_t *seq, uint32_t *idx)
{
	const struct blk_map *m = b->m;
	uint8_t *base = (uint8_t *)r;
	unsigned c, last;
	int rc;

	if (b->i >= b->n)
		return 0;
	/* zeroed: the common fields and those of the record's type (a
	 * whole record is 1.2 KiB, an io record's fields 200 bytes) */
	memset(r, 0, offsetof(struct bcn_record, u));
	rc = next_ident(b, r, seq, idx);
	if (!rc)
		memset(&r->u, 0, m->end[r->type] -
		       offsetof(struct bcn_record, u));
	last = rc ? 0 : (unsigned)m->base[r->type] + m->nwords[r->type];
	for (c = rc ? 0 : m->base[r->type]; !rc && c < last; c++) {
		if (m->str[c]) {
			const char *s = "";

			rc = get_str(b, &b->col[c], &s);
			memcpy(base + m->off[c], &s, sizeof(s));
		} else {
			uint64_t v = 0;

			rc = get_delta(&b->col[c], &v);
			if (m->lim[c] && v >= m->lim[c])
				rc = -BCN_ECORRUPT;     /* an enum's range */
			memcpy(base + m->off[c], &v, sizeof(v));
		}
	}
	/* the dictionary's strings were checked by bcn_block_open, each
	 * enum above: what bcn_record_check() adds is left */
	if (!rc && bcn_record_check_rules(r))
		rc = -BCN_ECORRUPT;
	if (!rc && ++b->i == b->n) {   /* the columns end with the records */
		for (c = 0; c < m->ncols && !rc; c++)
			rc = b->col[c].p != b->col[c].end ? -BCN_ECORRUPT : 0;
	}
	if (rc) {
		b->i = b->n;
		return rc;
	}
	return 1;
}
