/* Columnar DATA payloads (proto/columnar.h, docs/protocol.md "Columnar
 * payloads"): the row form's records split into one column per (record
 * type, value slot), with io times and offsets predicted per process and
 * per file, files per descriptor or by their path; long columns of wide
 * values transposed where an entropy estimate says it pays. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "proto/columnar.h"
#include "proto/fileid.h"
#include "proto/record.h"
#include "proto/varint.h"

#define BASE_SLOTS 3            /* t, dur, job */
#define FIELDS_MAX 64           /* fields of one record type */
#define DIST_SCALARS 7          /* count, sum, min, max, p50, p95, p99 */
#define CACHE_BITS 10           /* predictor entries: 1024 per kind */
#define CACHE_N (1u << CACHE_BITS)
#define REC_BYTES_MAX (BCN_COL_SLOTS_MAX * BCN_VARINT_MAX)
/* values of a column that estimate() looks at, at most (about) */
#define ESTIMATE_SAMPLES 1024
/* columns of fewer values are stored as varints in order */
#define STREAMS_MIN_N 64
/* what a byte stream of its own costs the compressor beyond its
 * entropy (a Huffman table, about), in bytes */
#define STREAM_COST 24
/* bytes of a column, and of the columns before it, that make it begin a
 * part of its own (bcn_col_enc_cuts) */
#define CUT_MIN 1024

/* Where each field's values lie among a record type's slots. */
struct layout {
	const struct bcn_record_desc *d;
	uint16_t nslots;
	bool flat;              /* one slot per field, always present (no
				 * vector or distribution fields) */
	uint16_t first[FIELDS_MAX];
	/* io only: the slots the predictors use, 0 when not io */
	uint16_t pid, fd, file, path, offset, size, count, stride, busy;
};

/* A direct-mapped table of the last value per key: the end of a
 * process's previous io record, or of a file's, or a descriptor's file.
 * Encoder and decoder update theirs alike, so their predictions agree. */
struct cache {
	uint64_t key[CACHE_N], val[CACHE_N];
	uint8_t used[CACHE_N];
};

/* What both directions track while walking the records in order. */
struct predict {
	struct cache stream, file, fd;
	uint64_t last_t;
	/* the file id of each string of the table as a path (1..nstr:
	 * string references count from 1, 0 is the empty string) */
	const uint64_t *path_id;
	uint64_t nstr;
	bool paths;             /* BCN_COL_F_PATHS: the path predicts */
};

/* A column while a payload is encoded: its values as plain varints in
 * order (about a byte or two a value, not eight: frames of some hundred
 * KiB may go columnar in little memory), and what choosing a mode needs,
 * kept as they come. */
struct col {
	uint8_t *b;             /* the varints (none while same) */
	size_t len, cap;        /* bytes of them, and of room */
	size_t delta;           /* bytes the zigzag deltas would take */
	uint64_t first, last;   /* the first and the latest value */
	uint32_t n;
	bool same;              /* every value is the first: only n counts
				 * them (most columns of io records) */
	uint8_t mode;
	size_t bytes;           /* encoded, for bcn_col_enc_stats */
	/* values whose plain ([0]) and delta ([1]) varints take more than
	 * k bytes: the sizes of the transposed streams */
	uint32_t over[2][BCN_VARINT_MAX];
};

struct bcn_col_enc {
	struct predict pr;
	struct col cols[BCN_REC_TYPE_MAX][BCN_COL_SLOTS_MAX];
	struct layout lay[BCN_REC_TYPE_MAX];
	bool have_lay;
	size_t cuts[BCN_COL_CUTS_MAX], ncuts, since;
	uint64_t *path_id, path_cap;
	/* byte counts of estimate(): the transposed streams of the plain
	 * and the delta varints */
	uint32_t hist[2][BCN_VARINT_MAX][256];
};

/* The slots type's columns may use: its layout's (the type column, 0,
 * has one). Loops stop there, so that the columns of slots no type has
 * stay untouched (and out of resident memory). */
static unsigned used_slots(const struct bcn_col_enc *e, unsigned type)
{
	return type ? e->lay[type].nslots : 1;
}

static unsigned field_slots(const struct bcn_field *f)
{
	switch (f->kind) {
	case BCN_F_VEC:
		return 1u + f->n;
	case BCN_F_DIST:
		return DIST_SCALARS + 1 + BCN_HIST_BUCKETS;
	default:
		return 1;
	}
}

static uint16_t slot_named(const struct layout *l, const char *name)
{
	for (size_t i = 0; i < l->d->nfields; i++)
		if (strcmp(l->d->fields[i].name, name) == 0)
			return l->first[i];
	return 0;
}

/* Fills the layout of every record type. Returns 0, or -BCN_ERANGE when a
 * type has more slots or fields than the caps (a descriptor error). */
static int layouts(struct layout *lay)
{
	memset(lay, 0, sizeof(*lay) * BCN_REC_TYPE_MAX);
	for (unsigned t = 1; t < BCN_REC_TYPE_MAX; t++) {
		struct layout *l = &lay[t];
		unsigned s = BASE_SLOTS;

		l->d = bcn_record_desc(t);
		if (!l->d || l->d->nfields > FIELDS_MAX)
			return -BCN_ERANGE;
		l->flat = true;
		for (size_t i = 0; i < l->d->nfields; i++) {
			l->first[i] = (uint16_t)s;
			s += field_slots(&l->d->fields[i]);
			l->flat = l->flat && field_slots(&l->d->fields[i]) == 1;
		}
		if (s > BCN_COL_SLOTS_MAX)
			return -BCN_ERANGE;
		l->nslots = (uint16_t)s;
		if (t != BCN_REC_IO)
			continue;
		l->pid = slot_named(l, "pid");
		l->file = slot_named(l, "file");
		l->path = slot_named(l, "path");
		l->offset = slot_named(l, "offset");
		l->size = slot_named(l, "size");
		l->count = slot_named(l, "count");
		l->stride = slot_named(l, "stride");
		l->fd = slot_named(l, "fd");
		l->busy = slot_named(l, "busy");
	}
	return 0;
}

/* Supplies the value of one slot: read from a row, or from a column. */
typedef int slot_get_fn(void *ctx, unsigned type, unsigned slot, uint64_t *v);

/* Walks the slots of one record of layout l in row order, getting each
 * present value into vals and marking it in pres: vector elements are
 * present only where their bitmask says so. Returns 0 or -BCN_ECORRUPT
 * (a bitmask with bits beyond the vector, or get's error). */
static int walk(const struct layout *l, unsigned type, slot_get_fn *get,
		void *ctx, uint64_t *vals, uint8_t *pres)
{
	unsigned s;
	int rc;

	memset(pres, 0, l->nslots);
	for (s = 0; s < BASE_SLOTS; s++) {
		if ((rc = get(ctx, type, s, &vals[s])))
			return rc;
		pres[s] = 1;
	}
	for (size_t i = 0; i < l->d->nfields; i++) {
		const struct bcn_field *f = &l->d->fields[i];
		unsigned n = f->kind == BCN_F_VEC ? f->n : BCN_HIST_BUCKETS;

		s = l->first[i];
		if (f->kind == BCN_F_DIST) {
			for (unsigned k = 0; k < DIST_SCALARS; k++, s++) {
				if ((rc = get(ctx, type, s, &vals[s])))
					return rc;
				pres[s] = 1;
			}
		} else if (f->kind != BCN_F_VEC) {
			if ((rc = get(ctx, type, s, &vals[s])))
				return rc;
			pres[s] = 1;
			continue;
		}
		if ((rc = get(ctx, type, s, &vals[s])))
			return rc;
		pres[s] = 1;
		if (n < 64 && (vals[s] >> n))
			return -BCN_ECORRUPT;
		for (unsigned k = 0; k < n; k++) {
			if (!(vals[s] & (1ull << k)))
				continue;
			if ((rc = get(ctx, type, s + 1 + k, &vals[s + 1 + k])))
				return rc;
			pres[s + 1 + k] = 1;
		}
	}
	return 0;
}

static unsigned cache_at(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> (64 - CACHE_BITS));
}

static uint64_t cache_get(const struct cache *c, uint64_t key, uint64_t miss)
{
	unsigned i = cache_at(key);

	return c->used[i] && c->key[i] == key ? c->val[i] : miss;
}

static void cache_put(struct cache *c, uint64_t key, uint64_t val)
{
	unsigned i = cache_at(key);

	c->used[i] = 1;
	c->key[i] = key;
	c->val[i] = val;
}

static void predict_reset(struct predict *pr)
{
	memset(pr, 0, sizeof(*pr));
}

/* Walks the string table (count, then entries) at [p, end): *n entries
 * ending at *after, with the file id of entry i (from 1) in (*ids)[i],
 * the array grown (*cap entries) as needed. Returns 0, -BCN_ECORRUPT
 * (an entry passes end or BCN_STR_MAX) or -ENOMEM. */
static int path_ids(const uint8_t *p, const uint8_t *end, uint64_t **ids,
		    uint64_t *cap, uint64_t *n, const uint8_t **after)
{
	uint64_t len;

	if (bcn_varint_get(&p, end, n) || *n > (uint64_t)(end - p))
		return -BCN_ECORRUPT;
	if (*n + 1 > *cap) {
		uint64_t *v = realloc(*ids, (size_t)(*n + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*ids = v;
		*cap = *n + 1;
	}
	for (uint64_t i = 1; i <= *n; i++) {
		if (bcn_varint_get(&p, end, &len) || len > BCN_STR_MAX ||
		    len > (uint64_t)(end - p))
			return -BCN_ECORRUPT;
		(*ids)[i] = bcn_file_id((const char *)p, (size_t)len);
		p += len;
	}
	*after = p;
	return 0;
}

/* Where the next operation of an io record's file is expected: just
 * after the last operation of its run. */
static uint64_t io_end(const struct layout *l, const uint64_t *v)
{
	uint64_t stride = (uint64_t)bcn_unzigzag(v[l->stride]);

	return v[l->offset] + (v[l->count] - 1) * stride + v[l->size];
}

static uint64_t fd_key(const struct layout *l, const uint64_t *v)
{
	return v[l->pid] * 0x100000001b3ull ^ v[l->fd];
}

/* Row values to column values (dir > 0) or back (dir < 0): slot 0 holds
 * the row's zigzag(t - t_prev); in columns an io record's holds
 * zigzag(t - end of the process's previous io record) (t_prev when there
 * is none). An io record's file is stored as the difference to the file
 * its process's descriptor last had (0: the same), its offset as
 * zigzag(offset - end of the file's previous run) (0 when none) and its
 * busy time as zigzag(busy - dur). Arithmetic wraps, so every input maps
 * back. */
static void transform(struct predict *pr, const struct layout *l,
		      unsigned type, uint64_t *v, int dir)
{
	uint64_t t, pred, key, fpred, file;

	if (type != BCN_REC_IO) {
		pr->last_t += (uint64_t)bcn_unzigzag(v[0]);
		return;
	}
	pred = cache_get(&pr->stream, v[l->pid], pr->last_t);
	if (dir > 0) {
		t = pr->last_t + (uint64_t)bcn_unzigzag(v[0]);
		v[0] = bcn_zigzag((int64_t)(t - pred));
	} else {
		t = pred + (uint64_t)bcn_unzigzag(v[0]);
		v[0] = bcn_zigzag((int64_t)(t - pr->last_t));
	}
	pr->last_t = t;
	cache_put(&pr->stream, v[l->pid], t + v[1]);
	key = fd_key(l, v);
	fpred = cache_get(&pr->fd, key, 0);
	/* a record that names its path (an open) has the path's id */
	if (pr->paths && v[l->path] && v[l->path] <= pr->nstr)
		fpred = pr->path_id[v[l->path]];
	if (dir < 0)
		v[l->file] += fpred;
	file = v[l->file];
	cache_put(&pr->fd, key, file);
	pred = cache_get(&pr->file, file, 0);
	if (dir > 0) {
		cache_put(&pr->file, file, io_end(l, v));
		v[l->offset] = bcn_zigzag((int64_t)(v[l->offset] - pred));
		v[l->file] = file - fpred;
	} else {
		v[l->offset] = pred + (uint64_t)bcn_unzigzag(v[l->offset]);
		cache_put(&pr->file, file, io_end(l, v));
	}
	if (dir > 0)
		v[l->busy] = bcn_zigzag((int64_t)(v[l->busy] - v[1]));
	else
		v[l->busy] = v[1] + (uint64_t)bcn_unzigzag(v[l->busy]);
}

/* ---- encoder ---- */

struct bcn_col_enc *bcn_col_enc_new(void)
{
	return calloc(1, sizeof(struct bcn_col_enc));
}

void bcn_col_enc_free(struct bcn_col_enc *e)
{
	if (!e)
		return;
	for (unsigned t = 0; t < BCN_REC_TYPE_MAX; t++)
		for (unsigned s = 0; s < BCN_COL_SLOTS_MAX; s++)
			free(e->cols[t][s].b);
	free(e->path_id);
	free(e);
}

static inline size_t varint_len(uint64_t v)
{
	/* 7 bits a byte: bits needed (at least 1), rounded up; (b + 6) *
	 * 37 >> 8 is (b + 6) / 7 for every b up to 64 */
	unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);

	return ((bits + 6) * 37) >> 8;
}

/* Doubles c's room (out of col_push's way: it is rare). */
static __attribute__((noinline)) int col_grow(struct col *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 256;
	uint8_t *nb = realloc(c->b, ncap);

	if (!nb)
		return -ENOMEM;
	c->b = nb;
	c->cap = ncap;
	return 0;
}

static void col_reset(struct col *c)
{
	c->len = c->delta = 0;
	c->first = c->last = 0;
	c->n = 0;
	c->same = true;
	c->bytes = 0;
	memset(c->over, 0, sizeof(c->over));
}

/* Counts v's plain or delta (d) varint of vl bytes in c->over. */
static inline void col_count(struct col *c, int d, size_t vl)
{
	for (size_t k = 1; k < vl; k++)
		c->over[d][k]++;
}

/* Appends v, its zigzag delta of dl bytes, to c's varints. */
static inline int col_put_one(struct col *c, uint64_t v, size_t dl)
{
	if (c->cap - c->len < BCN_VARINT_MAX && col_grow(c))
		return -ENOMEM;
	if (v < 0x80) {
		c->b[c->len++] = (uint8_t)v;
	} else {
		size_t pl = bcn_varint_put(c->b + c->len, v);

		c->len += pl;
		col_count(c, 0, pl);
	}
	c->delta += dl;
	col_count(c, 1, dl);
	return 0;
}

/* Ends c's run of equal values: writes the n copies of the first that
 * were only counted, as col_push would have one by one. */
static __attribute__((noinline)) int col_unsame(struct col *c)
{
	uint32_t n = c->n;

	c->same = false;
	c->n = 0;
	c->last = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (col_put_one(c, c->first,
				varint_len(bcn_zigzag((int64_t)(c->first -
								c->last)))))
			return -ENOMEM;
		c->last = c->first;
		c->n++;
	}
	return 0;
}

static inline int col_push(struct col *c, uint64_t v)
{
	if (c->same) {
		if (!c->n)
			c->first = v;
		if (v == c->first) {    /* counted, not written */
			c->last = v;
			c->n++;
			return 0;
		}
		if (col_unsame(c))
			return -ENOMEM;
	}
	if (col_put_one(c, v, varint_len(bcn_zigzag((int64_t)(v - c->last)))))
		return -ENOMEM;
	c->last = v;
	c->n++;
	return 0;
}

/* The next value of a column's varints (written by col_push: well
 * formed, so no end check beyond the caller's count). */
static inline uint64_t col_next(const uint8_t **p)
{
	uint64_t v = 0;

	if (**p < 0x80)
		return *(*p)++;
	(void)bcn_varint_get(p, *p + BCN_VARINT_MAX, &v);
	return v;
}

struct row_src {
	const uint8_t *p, *end;
};

static int row_get(void *ctx, unsigned type, unsigned slot, uint64_t *v)
{
	struct row_src *r = ctx;

	(void)type;
	(void)slot;
	return bcn_varint_get(&r->p, r->end, v) ? -BCN_ECORRUPT : 0;
}

/* x * log2(x) in 1/256 bits, for x < 2^32 (log2 to within 0.09 bits:
 * the choice of modes needs no more). */
static uint64_t xlog2x(uint32_t x)
{
	unsigned e;
	uint32_t frac;

	if (x < 2)
		return 0;
	e = 31u - (unsigned)__builtin_clz(x);
	frac = e >= 8 ? (x >> (e - 8)) & 0xff : (x << (8 - e)) & 0xff;
	return (uint64_t)x * ((e << 8) + frac);
}

/* Order-0 entropy of the bytes counted in h (n of them), in bytes. */
static size_t entropy(const uint32_t *h, uint32_t n)
{
	uint64_t bits = xlog2x(n);

	for (unsigned i = 0; i < 256; i++)
		bits -= xlog2x(h[i]);
	return (size_t)(bits >> 11) + 1;
}

/* Counts the varint bytes of v into the histograms of the transposed
 * streams (ht[k]: byte k of each varint, nt[k] of them). */
static inline void count_varint(uint32_t (*ht)[256], uint32_t *nt, uint64_t v)
{
	unsigned k = 0;

	while (v >= 0x80) {
		ht[k][(v & 0x7f) | 0x80]++;
		nt[k++]++;
		v >>= 7;
	}
	ht[k][v]++;
	nt[k]++;
}

/* Estimates what a column of n values costs after the general-purpose
 * compressor as varints (0: plain, 1: zigzag deltas) and as transposed
 * varints (2, 3), from each byte stream's order-0 entropy (the varints'
 * stream counts the bytes of all the transposed ones) over at most
 * about ESTIMATE_SAMPLES values evenly spread; returns the cheapest. The transposed form must save a tenth: the estimate knows
 * nothing of the repeats the compressor finds in either. */
static unsigned estimate(struct bcn_col_enc *e, const struct col *c)
{
	uint32_t (*h)[BCN_VARINT_MAX][256] = e->hist;
	uint32_t nt[2][BCN_VARINT_MAX], all[256], nb;
	size_t cost[4];
	const uint8_t *p = c->b;
	uint64_t prev = 0, v = 0;
	uint32_t step = c->n / ESTIMATE_SAMPLES + 1;
	unsigned best = 0;

	memset(e->hist, 0, sizeof(e->hist));
	memset(nt, 0, sizeof(nt));
	for (uint32_t i = 0, skip = 0; i < c->n; i++, prev = v) {
		v = col_next(&p);
		if (skip) {     /* (a count down: no division a value) */
			skip--;
			continue;
		}
		skip = step - 1;
		count_varint(h[0], nt[0], v);
		count_varint(h[1], nt[1], bcn_zigzag((int64_t)(v - prev)));
	}
	for (unsigned m = 0; m < 2; m++) {
		memset(all, 0, sizeof(all));
		nb = 0;
		cost[2 + m] = 0;
		for (unsigned k = 0; k < BCN_VARINT_MAX && nt[m][k]; k++) {
			for (unsigned b = 0; b < 256; b++)
				all[b] += h[m][k][b];
			nb += nt[m][k];
			cost[2 + m] += entropy(h[m][k], nt[m][k]) * step +
				       STREAM_COST;
		}
		cost[m] = entropy(all, nb) * step;
		cost[2 + m] += cost[2 + m] / 9;
	}
	for (unsigned m = 1; m < 4; m++)
		if (cost[m] < cost[best])
			best = m;
	return best;
}

/* Chooses the mode for c (constant when all values are equal; else for
 * columns long and wide enough to tell, the least estimated cost after
 * the compressor; else the shortest varints) and returns its payload length
 * (the same in either layout of the varints). */
static size_t col_choose(struct bcn_col_enc *e, struct col *c)
{
	size_t plain = c->len, delta = c->delta;
	unsigned m;

	if (c->same) {
		c->mode = BCN_COL_CONST;
		return varint_len(c->first);
	}
	c->mode = delta < plain ? BCN_COL_DELTA : BCN_COL_PLAIN;
	/* the estimate takes time: for columns of some length where a
	 * quarter of the values or more take two bytes or more */
	if (c->n >= STREAMS_MIN_N &&
	    (delta < plain ? delta : plain) >= c->n + c->n / 4) {
		m = estimate(e, c);
		c->mode = m == 0 ? BCN_COL_PLAIN : m == 1 ? BCN_COL_DELTA :
			  m == 2 ? BCN_COL_TPLAIN : BCN_COL_TDELTA;
	}
	return c->mode == BCN_COL_DELTA || c->mode == BCN_COL_TDELTA ?
	       delta : plain;
}

/* Writes c's values in mode c->mode at p (len bytes, room checked by the
 * caller): the transposed modes put byte k of each varint in stream k,
 * the streams one after the other. */
static void col_put(const struct col *c, uint8_t *p)
{
	uint8_t *at[BCN_VARINT_MAX], tmp[BCN_VARINT_MAX];
	const uint8_t *q;
	uint64_t prev = 0, v, x;
	int d = c->mode == BCN_COL_DELTA || c->mode == BCN_COL_TDELTA;
	bool t = c->mode == BCN_COL_TPLAIN || c->mode == BCN_COL_TDELTA;

	if (c->mode == BCN_COL_CONST) {
		bcn_varint_put(p, c->first);
		return;
	}
	if (c->mode == BCN_COL_PLAIN) {         /* as they are kept */
		memcpy(p, c->b, c->len);
		return;
	}
	/* stream 0 holds a byte of every value, stream k one of every
	 * value of more than k bytes */
	at[0] = p;
	for (unsigned k = 1; k < BCN_VARINT_MAX; k++)
		at[k] = at[k - 1] + (k == 1 ? c->n : c->over[d][k - 1]);
	q = c->b;
	if (t && !d) {          /* the kept varints' bytes, dealt out */
		for (unsigned k = 0; q < c->b + c->len; q++) {
			*at[k]++ = *q;
			k = *q & 0x80 ? k + 1 : 0;
		}
		return;
	}
	for (uint32_t i = 0; i < c->n; i++) {
		x = col_next(&q);
		v = d ? bcn_zigzag((int64_t)(x - prev)) : x;
		prev = x;
		if (!t) {
			p += bcn_varint_put(p, v);
			continue;
		}
		size_t vl = bcn_varint_put(tmp, v);

		for (size_t k = 0; k < vl; k++)
			*at[k]++ = tmp[k];
	}
}

static int col_write(struct bcn_col_enc *e, struct col *c, unsigned type,
		     unsigned slot, struct bcn_buf *out)
{
	uint8_t h[4 * BCN_VARINT_MAX + 1];
	size_t len = col_choose(e, c), hl = 0;
	int rc;

	hl += bcn_varint_put(h + hl, type);
	hl += bcn_varint_put(h + hl, slot);
	hl += bcn_varint_put(h + hl, c->n);
	h[hl++] = (uint8_t)(c->mode | (type == BCN_REC_IO &&
				       slot == e->lay[type].file ?
				       BCN_COL_F_PATHS : 0));
	hl += bcn_varint_put(h + hl, len);
	c->bytes = hl + len;
	rc = bcn_buf_reserve(out, hl + len);
	if (rc)
		return rc;
	/* a long column begins a part unless the part so far is short */
	if (len >= CUT_MIN && e->since >= CUT_MIN &&
	    e->ncuts < BCN_COL_CUTS_MAX) {
		e->cuts[e->ncuts++] = out->len;
		e->since = 0;
	}
	e->since += hl + len;
	bcn_buf_add(out, h, hl);
	col_put(c, out->data + out->len);
	out->len += len;
	return 0;
}

/* Splits the count records of recs into e's columns. */
static int enc_split(struct bcn_col_enc *e, const uint8_t *recs, size_t rlen,
		     uint32_t count)
{
	struct row_src src = { recs, rlen ? recs + rlen : recs };
	uint64_t vals[BCN_COL_SLOTS_MAX], type;
	uint8_t pres[BCN_COL_SLOTS_MAX];
	int rc;

	for (uint32_t k = 0; k < count; k++) {
		if (bcn_varint_get(&src.p, src.end, &type) || type == 0 ||
		    type >= BCN_REC_TYPE_MAX)
			return -BCN_ECORRUPT;
		const struct layout *l = &e->lay[type];

		if (l->flat) {  /* every slot in order: no walk (most
				 * records are io records) */
			for (unsigned s = 0; s < l->nslots; s++)
				if (src.p < src.end && *src.p < 0x80)
					vals[s] = *src.p++;     /* most */
				else if (bcn_varint_get(&src.p, src.end,
							&vals[s]))
					return -BCN_ECORRUPT;
			memset(pres, 1, l->nslots);
		} else {
			rc = walk(l, (unsigned)type, row_get, &src, vals, pres);
			if (rc)
				return rc;
		}
		transform(&e->pr, l, (unsigned)type, vals, 1);
		rc = col_push(&e->cols[0][0], type);
		for (unsigned s = 0; !rc && s < l->nslots; s++)
			if (pres[s])
				rc = col_push(&e->cols[type][s], vals[s]);
		if (rc)
			return rc;
	}
	return src.p == src.end ? 0 : -BCN_ECORRUPT;
}

int bcn_col_encode(struct bcn_col_enc *e, const uint8_t *recs, size_t rlen,
		   uint32_t count, struct bcn_buf *out)
{
	uint8_t h[BCN_VARINT_MAX];
	const uint8_t *after;
	uint32_t ncols = 0;
	int rc;

	if (!e->have_lay) {
		rc = layouts(e->lay);
		if (rc)
			return rc;
		e->have_lay = true;
	}
	predict_reset(&e->pr);
	/* out holds the string table, exactly: paths predict files */
	rc = path_ids(out->data, out->data + out->len, &e->path_id,
		      &e->path_cap, &e->pr.nstr, &after);
	if (rc)
		return rc;
	if (after != out->data + out->len)
		return -BCN_ECORRUPT;
	e->pr.path_id = e->path_id;
	e->pr.paths = true;
	for (unsigned t = 0; t < BCN_REC_TYPE_MAX; t++)
		for (unsigned s = 0; s < used_slots(e, t); s++)
			col_reset(&e->cols[t][s]);
	rc = enc_split(e, recs, rlen, count);
	if (rc)
		return rc;
	for (unsigned t = 0; t < BCN_REC_TYPE_MAX; t++)
		for (unsigned s = 0; s < used_slots(e, t); s++)
			ncols += e->cols[t][s].n > 0;
	e->ncuts = 0;
	e->since = out->len;
	rc = bcn_buf_add(out, h, bcn_varint_put(h, ncols));
	for (unsigned t = 0; !rc && t < BCN_REC_TYPE_MAX; t++)
		for (unsigned s = 0; !rc && s < used_slots(e, t); s++)
			if (e->cols[t][s].n)
				rc = col_write(e, &e->cols[t][s], t, s, out);
	return rc;
}

size_t bcn_col_enc_cuts(const struct bcn_col_enc *e, size_t *cuts,
			size_t max)
{
	size_t n = e->ncuts < max ? e->ncuts : max;

	memcpy(cuts, e->cuts, n * sizeof(*cuts));
	return n;
}

static const char *slot_name(const struct layout *l, unsigned slot)
{
	static const char *const base[BASE_SLOTS] = { "t", "dur", "job" };
	const char *name = "?";

	if (slot < BASE_SLOTS)
		return base[slot];
	for (size_t i = 0; i < l->d->nfields; i++)
		if (l->first[i] <= slot)
			name = l->d->fields[i].name;
	return name;
}

void bcn_col_enc_stats(const struct bcn_col_enc *e, bcn_col_stat_fn *fn,
		       void *arg)
{
	for (unsigned t = 0; t < BCN_REC_TYPE_MAX; t++)
		for (unsigned s = 0; s < used_slots(e, t); s++) {
			const struct col *c = &e->cols[t][s];

			if (c->n)
				fn(arg, t, t ? slot_name(&e->lay[t], s) : "type",
				   c->n, c->bytes, c->mode);
		}
}

/* ---- decoder ---- */

struct cursor {
	const uint8_t *p, *end;
	/* transposed modes: the next byte of each stream */
	const uint8_t *at[BCN_VARINT_MAX];
	uint32_t left;
	uint8_t mode;
	uint64_t val;           /* the constant, or the previous value */
};

struct dec {
	struct predict pr;
	uint64_t *path_id, path_cap;
	struct layout lay[BCN_REC_TYPE_MAX];
	uint16_t idx[BCN_REC_TYPE_MAX][BCN_COL_SLOTS_MAX]; /* cursor + 1 */
	struct cursor *cur;
	uint32_t ncur;
};

static int col_get(void *ctx, unsigned type, unsigned slot, uint64_t *v)
{
	struct dec *d = ctx;
	struct cursor *c;
	uint64_t x;

	if (!d->idx[type][slot])
		return -BCN_ECORRUPT;
	c = &d->cur[d->idx[type][slot] - 1];
	if (c->left == 0)
		return -BCN_ECORRUPT;
	c->left--;
	if (c->mode == BCN_COL_CONST) {
		*v = c->val;
		return 0;
	}
	if (c->mode == BCN_COL_TPLAIN || c->mode == BCN_COL_TDELTA) {
		/* dir_entry sized the streams: each holds a byte for every
		 * continued byte of the one before */
		uint8_t tmp[BCN_VARINT_MAX] = { 0 };    /* (for the compiler:
							 * k bytes are read) */
		const uint8_t *q = tmp;
		unsigned k = 0;

		do
			tmp[k] = *c->at[k]++;
		while ((tmp[k++] & 0x80) && k < BCN_VARINT_MAX);
		if (bcn_varint_get(&q, tmp + k, &x))
			return -BCN_ECORRUPT;
	} else if (bcn_varint_get(&c->p, c->end, &x)) {
		return -BCN_ECORRUPT;
	}
	if (c->mode == BCN_COL_DELTA || c->mode == BCN_COL_TDELTA)
		x = c->val += (uint64_t)bcn_unzigzag(x);
	*v = x;
	return 0;
}

/* Copies the string table (count and entries) at *p to out, checking
 * only that it lies within the payload (the row decoder checks the
 * rest), and notes each entry's id as a path. */
static int copy_strtab(struct dec *d, const uint8_t **p, const uint8_t *end,
		       struct bcn_buf *out)
{
	const uint8_t *q;
	int rc;

	rc = path_ids(*p, end, &d->path_id, &d->path_cap, &d->pr.nstr, &q);
	if (rc)
		return rc;
	d->pr.path_id = d->path_id;
	if (bcn_buf_add(out, *p, (size_t)(q - *p)))
		return -BCN_ETOOBIG;
	*p = q;
	return 0;
}

/* Finds the streams of a transposed column of n values in [c->p,
 * c->end): stream 0 holds n bytes, stream k + 1 one for each byte of
 * stream k with its high bit set, the last none such, and together they
 * fill the column exactly. Leaves c->p at c->end: col_get reads through
 * c->at. Returns 0 or -BCN_ECORRUPT. */
static int streams(struct cursor *c, uint32_t n)
{
	const uint8_t *q = c->p;
	uint64_t want = n, cont;

	for (unsigned k = 0; k < BCN_VARINT_MAX; k++) {
		c->at[k] = q;
		if (want > (uint64_t)(c->end - q))
			return -BCN_ECORRUPT;
		cont = 0;
		for (uint64_t i = 0; i < want; i++)
			cont += q[i] >> 7;
		q += want;
		want = cont;
	}
	if (want || q != c->end)
		return -BCN_ECORRUPT;
	c->p = c->end;
	return 0;
}

/* Reads one column's directory entry; keys must strictly increase. */
static int dir_entry(struct dec *d, const uint8_t **p, const uint8_t *end,
		     uint32_t count, uint32_t *key)
{
	uint64_t type, slot, n, len;
	struct cursor *c = &d->cur[d->ncur];
	uint8_t flags;

	if (bcn_varint_get(p, end, &type) || bcn_varint_get(p, end, &slot) ||
	    bcn_varint_get(p, end, &n) || *p == end)
		return -BCN_ECORRUPT;
	flags = **p & (uint8_t)~(BCN_COL_F_PATHS - 1);
	c->mode = *(*p)++ & (BCN_COL_F_PATHS - 1);
	if (flags & ~BCN_COL_F_PATHS || (flags && (type != BCN_REC_IO ||
	    slot != d->lay[BCN_REC_IO].file)))
		return -BCN_ECORRUPT;
	d->pr.paths = d->pr.paths || flags;
	if (bcn_varint_get(p, end, &len) || len > (uint64_t)(end - *p) ||
	    type >= BCN_REC_TYPE_MAX || slot >= BCN_COL_SLOTS_MAX ||
	    (type == 0 && slot != 0) || (type && slot >= d->lay[type].nslots) ||
	    n == 0 || n > count || c->mode >= BCN_COL_MODE_MAX ||
	    (d->ncur && (uint32_t)(type * BCN_COL_SLOTS_MAX + slot) <= *key))
		return -BCN_ECORRUPT;
	*key = (uint32_t)(type * BCN_COL_SLOTS_MAX + slot);
	c->p = *p;
	c->end = *p + len;
	c->left = (uint32_t)n;
	c->val = 0;
	*p += len;
	if (c->mode == BCN_COL_CONST &&
	    (bcn_varint_get(&c->p, c->end, &c->val) || c->p != c->end))
		return -BCN_ECORRUPT;
	if ((c->mode == BCN_COL_TPLAIN || c->mode == BCN_COL_TDELTA) &&
	    streams(c, (uint32_t)n))
		return -BCN_ECORRUPT;
	d->idx[type][slot] = (uint16_t)(++d->ncur);
	return 0;
}

static int dec_directory(struct dec *d, const uint8_t **p, const uint8_t *end,
			 uint32_t count)
{
	uint64_t ncols;
	uint32_t key = 0;
	int rc;

	if (bcn_varint_get(p, end, &ncols) || ncols > BCN_COL_COLUMNS_MAX ||
	    ncols > (uint64_t)(end - *p))
		return -BCN_ECORRUPT;
	d->cur = malloc((ncols ? ncols : 1) * sizeof(*d->cur));
	if (!d->cur)
		return -ENOMEM;
	for (uint64_t i = 0; i < ncols; i++)
		if ((rc = dir_entry(d, p, end, count, &key)))
			return rc;
	if (*p != end)
		return -BCN_ECORRUPT;
	if (count && (!d->idx[0][0] || d->cur[d->idx[0][0] - 1].left != count))
		return -BCN_ECORRUPT;
	return 0;
}

/* Rebuilds the rows from the columns into out. */
static int dec_rows(struct dec *d, uint32_t count, struct bcn_buf *out)
{
	uint64_t vals[BCN_COL_SLOTS_MAX], type;
	uint8_t pres[BCN_COL_SLOTS_MAX], rec[REC_BYTES_MAX + BCN_VARINT_MAX];
	int rc;

	for (uint32_t k = 0; k < count; k++) {
		size_t n = 0;

		if (col_get(d, 0, 0, &type) || type == 0 ||
		    type >= BCN_REC_TYPE_MAX)
			return -BCN_ECORRUPT;
		const struct layout *l = &d->lay[type];

		rc = walk(l, (unsigned)type, col_get, d, vals, pres);
		if (rc)
			return rc;
		transform(&d->pr, l, (unsigned)type, vals, -1);
		n += bcn_varint_put(rec, type);
		for (unsigned s = 0; s < l->nslots; s++)
			if (pres[s])
				n += bcn_varint_put(rec + n, vals[s]);
		if (bcn_buf_add(out, rec, n))
			return -BCN_ETOOBIG;
	}
	for (uint32_t i = 0; i < d->ncur; i++)
		if (d->cur[i].left || d->cur[i].p != d->cur[i].end)
			return -BCN_ECORRUPT;
	return 0;
}

int bcn_col_decode(const uint8_t *p, size_t len, uint32_t count,
		   struct bcn_buf *out)
{
	const uint8_t *end = p + len;
	struct dec *d = calloc(1, sizeof(*d));
	size_t start = out->len;
	int rc;

	if (!d)
		return -ENOMEM;
	rc = layouts(d->lay);
	if (!rc)
		rc = copy_strtab(d, &p, end, out);
	if (!rc)
		rc = dec_directory(d, &p, end, count);
	if (!rc)
		rc = dec_rows(d, count, out);
	if (rc)
		out->len = start;
	free(d->cur);
	free(d->path_id);
	free(d);
	return rc;
}
