/* Frame builder: encodes records into the compact payload (string table,
 * delta-encoded times, varints), compresses it and wraps it in a frame. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "common/error.h"
#include "proto/frame.h"
#include "proto/varint.h"

#define REC_WORST 4096          /* bound on one encoded record */
#define IODELTA_FIELDS 16       /* an io row's mask and fields, at most */
/* bound on what one record adds to the raw payload: itself and at most
 * four new strings of the string table */
#define ADD_WORST (REC_WORST + 4 * (BCN_STR_MAX + BCN_VARINT_MAX))
#define CRC_SPAN 28
#define COL_HASHLOG 12          /* columns' zstd table (frame_codec auto) */

static uint32_t hash_str(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

int bcn_frame_builder_init(struct bcn_frame_builder *b,
			   const struct bcn_frame_limits *lim, int level)
{
	memset(b, 0, sizeof(*b));
	bcn_buf_init(&b->recs, lim->max_raw);
	bcn_buf_init(&b->strs, lim->max_raw);
	bcn_buf_init(&b->zbuf, (size_t)lim->max_body + 64);
	bcn_buf_init(&b->cbuf, lim->max_raw);
	b->max_strings = lim->max_strings;
	b->max_records = lim->max_records;
	b->level = level;
	return 0;
}

int bcn_frame_builder_zstd(struct bcn_frame_builder *b, int level)
{
	if (!b->zctx && !(b->zctx = ZSTD_createCCtx()))
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(b->zctx,
						ZSTD_c_compressionLevel,
						level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(b->zctx, ZSTD_c_hashLog,
						b->row_hashlog)))
		return -EINVAL;
	b->level = level;
	b->zstd = 1;
	b->zheld = 0;           /* the context holds the rows' settings */
	return 0;
}

int bcn_frame_builder_zstd_hashlog(struct bcn_frame_builder *b, int hash_log)
{
	/* zstd refuses a value out of its bounds */
	if (!b->zctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(b->zctx, ZSTD_c_hashLog,
						hash_log)))
		return -EINVAL;
	b->row_hashlog = hash_log;
	/* the rows' level, in case the context held the columns' */
	if (b->zheld &&
	    ZSTD_isError(ZSTD_CCtx_setParameter(b->zctx,
						ZSTD_c_compressionLevel,
						b->level)))
		return -EINVAL;
	b->zheld = 0;
	return 0;
}

int bcn_frame_builder_columnar(struct bcn_frame_builder *b)
{
	if (!b->cenc && !(b->cenc = bcn_col_enc_new()))
		return -ENOMEM;
	return 0;
}

int bcn_frame_builder_columnar_level(struct bcn_frame_builder *b, int level)
{
	if (!b->zctx || level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
		return -EINVAL;
	b->col_level = level;
	b->col_set = true;
	if (b->zheld == 1)
		b->zheld = -1;  /* the next columns take the new level */
	return 0;
}

/* Gives zctx the settings of columns (cols) or of rows, when it holds the
 * other's: between frames, so that one context's buffers serve both. */
static int zstd_settings(struct bcn_frame_builder *b, bool cols)
{
	ZSTD_CCtx *z = b->zctx;

	cols = cols && b->col_set;
	if (b->zheld == (int8_t)cols)
		return 0;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel,
						cols ? b->col_level :
						b->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_hashLog,
						cols ? COL_HASHLOG :
						b->row_hashlog)))
		return -EIO;
	b->zheld = (int8_t)cols;
	return 0;
}

void bcn_frame_builder_columnar_allow(struct bcn_frame_builder *b,
				      bool allow)
{
	b->col_off = !allow;
}

bool bcn_frame_builder_last_columnar(const struct bcn_frame_builder *b)
{
	return b->last_columnar;
}

void bcn_frame_builder_free(struct bcn_frame_builder *b)
{
	ZSTD_freeCCtx(b->zctx);
	bcn_col_enc_free(b->cenc);
	bcn_buf_free(&b->cbuf);
	bcn_buf_free(&b->recs);
	bcn_buf_free(&b->strs);
	bcn_buf_free(&b->zbuf);
	free(b->slots);
	free(b->offs);
	memset(b, 0, sizeof(*b));
}

static int rehash(struct bcn_frame_builder *b)
{
	uint32_t ncap = b->slot_cap ? b->slot_cap * 2 : 256;
	uint32_t *slots = calloc(ncap, sizeof(*slots));
	uint32_t *offs = realloc(b->offs, (ncap / 2) * sizeof(*offs));

	if (!slots || !offs) {
		free(slots);
		if (offs)
			b->offs = offs;
		return -ENOMEM;
	}
	b->offs = offs;
	for (uint32_t i = 0; i < b->nstr; i++) {
		const uint8_t *e = b->strs.data + offs[i];
		const uint8_t *p = e;
		uint64_t len = 0;

		bcn_varint_get(&p, b->strs.data + b->strs.len, &len);
		uint32_t h = hash_str((const char *)p, len) & (ncap - 1);

		while (slots[h])
			h = (h + 1) & (ncap - 1);
		slots[h] = i + 1;
	}
	free(b->slots);
	b->slots = slots;
	b->slot_cap = ncap;
	return 0;
}

/* Returns the wire index of s (0 for ""), adding it to the table, or
 * -BCN_ERANGE for a string bcn_record_check refuses. */
static int intern(struct bcn_frame_builder *b, const char *s, uint64_t *idx)
{
	uint8_t hdr[BCN_VARINT_MAX];
	uint32_t h, mask;
	size_t n;
	int rc;

	if (!s)
		return -BCN_ERANGE;
	if (!s[0]) {
		*idx = 0;
		return 0;
	}
	n = strnlen(s, BCN_STR_MAX + 1);
	if (n > BCN_STR_MAX)
		return -BCN_ERANGE;
	if ((b->nstr + 1) * 2 > b->slot_cap && (rc = rehash(b)))
		return rc;
	mask = b->slot_cap - 1;
	for (h = hash_str(s, n) & mask; b->slots[h]; h = (h + 1) & mask) {
		const uint8_t *p = b->strs.data + b->offs[b->slots[h] - 1];
		uint64_t len = 0;

		bcn_varint_get(&p, b->strs.data + b->strs.len, &len);
		if (len == n && memcmp(p, s, n) == 0) {
			*idx = b->slots[h];
			return 0;
		}
	}
	if (b->nstr >= b->max_strings)
		return -BCN_EFULL;
	size_t hl = bcn_varint_put(hdr, n), at = b->strs.len;

	rc = bcn_buf_reserve(&b->strs, hl + n);
	if (rc)
		return rc;
	bcn_buf_add(&b->strs, hdr, hl);
	bcn_buf_add(&b->strs, s, n);
	b->offs[b->nstr++] = (uint32_t)at;
	b->slots[h] = b->nstr;
	*idx = b->nstr;
	return 0;
}

/* Forgets the strings interned after the table held nstr entries in slen
 * bytes, so that a record that failed half-way leaves none behind (a
 * string no record references makes the frame malformed). Entries are
 * only ever added, so clearing the newer ones breaks no older probe. */
static void unintern(struct bcn_frame_builder *b, uint32_t nstr, size_t slen)
{
	if (b->nstr == nstr)
		return;
	for (uint32_t h = 0; h < b->slot_cap; h++)
		if (b->slots[h] > nstr)
			b->slots[h] = 0;
	b->nstr = nstr;
	b->strs.len = slen;
}

static uint8_t *put_vec(uint8_t *p, const uint64_t *v, unsigned n)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < n; i++)
		if (v[i])
			mask |= 1ull << i;
	p += bcn_varint_put(p, mask);
	for (unsigned i = 0; i < n; i++)
		if (v[i])
			p += bcn_varint_put(p, v[i]);
	return p;
}

static int put_field(struct bcn_frame_builder *b, const struct bcn_field *fd,
		     const struct bcn_record *r, uint8_t **pp)
{
	const char *src = (const char *)r + fd->offset;
	uint8_t *p = *pp;
	uint64_t idx;
	int rc;

	switch (fd->kind) {
	case BCN_F_ENUM:
		if (*(const uint64_t *)src >= fd->n)
			return -BCN_ERANGE;
		/* fall through */
	case BCN_F_U64:
		p += bcn_varint_put(p, *(const uint64_t *)src);
		break;
	case BCN_F_I64:
		p += bcn_varint_put(p, bcn_zigzag(*(const int64_t *)src));
		break;
	case BCN_F_STR:
		rc = intern(b, *(const char *const *)src, &idx);
		if (rc)
			return rc;
		p += bcn_varint_put(p, idx);
		break;
	case BCN_F_VEC:
		p = put_vec(p, (const uint64_t *)src, fd->n);
		break;
	case BCN_F_DIST: {
		const struct bcn_dist *d = (const struct bcn_dist *)src;
		const uint64_t m[] = { d->count, d->sum, d->min, d->max,
				       d->p50, d->p95, d->p99 };

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			p += bcn_varint_put(p, m[i]);
		p = put_vec(p, d->hist, BCN_HIST_BUCKETS);
		break;
	}
	}
	*pp = p;
	return 0;
}

/* The io record's fields as io_put writes them: its descriptor's. */
static const struct {
	uint16_t offset;
	uint8_t kind;
} io_order[] = {
#define IO_F(m, k) { offsetof(struct bcn_record, u.io.m), k }
	IO_F(step, BCN_F_U64), IO_F(rank, BCN_F_I64), IO_F(pid, BCN_F_U64),
	IO_F(op, BCN_F_ENUM), IO_F(fd, BCN_F_I64), IO_F(file, BCN_F_U64),
	IO_F(path, BCN_F_STR), IO_F(offset, BCN_F_U64),
	IO_F(size, BCN_F_U64), IO_F(count, BCN_F_U64),
	IO_F(stride, BCN_F_I64), IO_F(busy, BCN_F_U64),
#undef IO_F
};

/* Whether d (the io descriptor) lists exactly io_order's fields. */
static bool io_order_holds(const struct bcn_record_desc *d)
{
	if (d->nfields != sizeof(io_order) / sizeof(io_order[0]))
		return false;
	for (size_t i = 0; i < d->nfields; i++)
		if (d->fields[i].offset != io_order[i].offset ||
		    d->fields[i].kind != io_order[i].kind)
			return false;
	return true;
}

/* io's fields after its path's reference idx, in plain rows: io_order,
 * as put_field would write them one by one. Returns the end. */
static uint8_t *io_plain(const struct bcn_rec_io *io, uint64_t idx,
			 uint8_t *p)
{
	p += bcn_varint_put(p, io->step);
	p += bcn_varint_put(p, bcn_zigzag(io->rank));
	p += bcn_varint_put(p, io->pid);
	p += bcn_varint_put(p, io->op);
	p += bcn_varint_put(p, bcn_zigzag(io->fd));
	p += bcn_varint_put(p, io->file);
	p += bcn_varint_put(p, idx);
	p += bcn_varint_put(p, io->offset);
	p += bcn_varint_put(p, io->size);
	p += bcn_varint_put(p, io->count);
	p += bcn_varint_put(p, bcn_zigzag(io->stride));
	p += bcn_varint_put(p, io->busy);
	return p;
}

/* The record's job and fields in the delta row form (BCN_FRAME_F_IODELTA,
 * docs/protocol.md): the mask of the fields that differ from q's (the
 * previous io record's of the frame, of job pjob; zero before the first),
 * then the fields, each masked one only where its bit is set; the offset
 * and busy always, offset and stride divided by the size when SCALED. */
static uint8_t *io_delta(const struct bcn_record *r,
			 const struct bcn_rec_io *q, uint64_t pjob,
			 uint64_t idx, uint8_t *p)
{
	const struct bcn_rec_io *io = &r->u.io;
	bool scaled = bcn_iodelta_scaled(io->size, io->offset, io->stride);
	uint64_t m, off;
	int64_t stride;

	m = (uint64_t)scaled << BCN_IODELTA_SCALED |
	    (uint64_t)(io->stride != q->stride) << BCN_IODELTA_STRIDE |
	    (uint64_t)(io->file != q->file) << BCN_IODELTA_FILE |
	    (uint64_t)(io->size != q->size) << BCN_IODELTA_SIZE |
	    (uint64_t)(io->count != q->count) << BCN_IODELTA_COUNT |
	    (uint64_t)(io->op != q->op) << BCN_IODELTA_OP |
	    (uint64_t)(io->fd != q->fd) << BCN_IODELTA_FD |
	    (uint64_t)(idx != 0) << BCN_IODELTA_PATH |
	    (uint64_t)(io->pid != q->pid) << BCN_IODELTA_PID |
	    (uint64_t)(r->job != pjob) << BCN_IODELTA_JOB |
	    (uint64_t)(io->step != q->step) << BCN_IODELTA_STEP |
	    (uint64_t)(io->rank != q->rank) << BCN_IODELTA_RANK;
	p += bcn_varint_put(p, m);
	if (m & 1u << BCN_IODELTA_JOB)
		p += bcn_varint_put(p, r->job);
	if (m & 1u << BCN_IODELTA_STEP)
		p += bcn_varint_put(p, io->step);
	if (m & 1u << BCN_IODELTA_RANK)
		p += bcn_varint_put(p, bcn_zigzag(io->rank));
	if (m & 1u << BCN_IODELTA_PID)
		p += bcn_varint_put(p, io->pid);
	if (m & 1u << BCN_IODELTA_OP)
		p += bcn_varint_put(p, io->op);
	if (m & 1u << BCN_IODELTA_FD)
		p += bcn_varint_put(p, bcn_zigzag(io->fd));
	if (m & 1u << BCN_IODELTA_FILE)
		p += bcn_varint_put(p, io->file);
	if (m & 1u << BCN_IODELTA_PATH)
		p += bcn_varint_put(p, idx);
	if (m & 1u << BCN_IODELTA_SIZE)
		p += bcn_varint_put(p, io->size);
	if (m & 1u << BCN_IODELTA_COUNT)
		p += bcn_varint_put(p, io->count);
	off = io->offset;
	stride = io->stride;
	if (scaled && !(io->size & (io->size - 1))) {   /* no division */
		off >>= __builtin_ctzll(io->size);
		stride >>= __builtin_ctzll(io->size);   /* (exact: arithmetic) */
	} else if (scaled) {
		off /= io->size;
		stride /= (int64_t)io->size;
	}
	p += bcn_varint_put(p, off);
	if (m & 1u << BCN_IODELTA_STRIDE)
		p += bcn_varint_put(p, bcn_zigzag(stride));
	p += bcn_varint_put(p, io->busy);
	return p;
}

/* The fields of io record r at *pp, in the frame's row form, without the
 * per-field dispatch (most records are io records: it was most of the
 * encoding's time). Returns 0 or put_field's errors. */
static int io_put(struct bcn_frame_builder *b, const struct bcn_record_desc *d,
		  const struct bcn_record *r, uint8_t **pp)
{
	const struct bcn_rec_io *io = &r->u.io;
	uint8_t scratch[2 * IODELTA_FIELDS * BCN_VARINT_MAX], *p0;
	uint64_t idx;
	int rc;

	if (io->op >= d->fields[3].n)
		return -BCN_ERANGE;
	if (io->path && !io->path[0]) {
		idx = 0;                /* most io records: no path */
	} else {
		rc = intern(b, io->path, &idx);
		if (rc)
			return rc;
	}
	if (b->iodelta) {
		*pp = io_delta(r, &b->pio, b->pjob, idx, *pp);
		return 0;
	}
	p0 = *pp;
	*pp = io_plain(io, idx, *pp);
	if (b->dtrack)          /* what the delta form would have taken,
				 * the job moved from the row's head */
		b->dio_diff = (io_delta(r, &b->pio, b->pjob, idx, scratch) -
			       scratch) - (*pp - p0) -
			      (ptrdiff_t)bcn_varint_put(scratch, r->job);
	return 0;
}

/* The fields of r at *pp. Returns 0 or put_field's errors. */
static int put_fields(struct bcn_frame_builder *b,
		      const struct bcn_record_desc *d,
		      const struct bcn_record *r, uint8_t **pp)
{
	int rc = 0;

	if (r->type == BCN_REC_IO) {
		if (!b->io_direct)
			b->io_direct = io_order_holds(d) ? 1 : -1;
		if (b->io_direct > 0)
			return io_put(b, d, r, pp);
	}
	for (size_t i = 0; !rc && i < d->nfields; i++)
		rc = put_field(b, &d->fields[i], r, pp);
	return rc;
}

/* A frame's first record: its row form is set (the delta form only
 * where io records go through io_put), the previous io record zero. */
static void frame_begin(struct bcn_frame_builder *b)
{
	if (!b->io_direct)
		b->io_direct = io_order_holds(bcn_record_desc(BCN_REC_IO)) ?
			       1 : -1;
	b->iodelta = b->iodelta_want && b->io_direct > 0;
	b->io_seen = false;
	memset(&b->pio, 0, sizeof(b->pio));
	b->pjob = 0;
	b->dtrack = b->dtrack_want && !b->iodelta && b->io_direct > 0;
	b->dlen = 0;
}

void bcn_frame_builder_iodelta(struct bcn_frame_builder *b, bool on)
{
	b->iodelta_want = on;
}

void bcn_frame_builder_measure_delta(struct bcn_frame_builder *b, bool on)
{
	b->dtrack_want = on;
}

void bcn_frame_builder_last_sizes(const struct bcn_frame_builder *b,
				  size_t *payload, size_t *delta_raw)
{
	*payload = b->last_plen;
	*delta_raw = b->last_dlen;
}

int bcn_frame_builder_add(struct bcn_frame_builder *b,
			  const struct bcn_record *r)
{
	const struct bcn_record_desc *d = bcn_record_desc(r->type);
	uint32_t nstr = b->nstr;
	size_t slen = b->strs.len;
	uint8_t *start, *p;
	int rc;

	/* each field is checked as it is encoded (bcn_record_check's
	 * rules: a second pass over the fields was a twentieth of
	 * beacon-clientd's time); a bad record is refused before anything
	 * else, as bcn_record_check first would */
	if (!d || bcn_record_check_rules(r))
		return -BCN_ERANGE;
	if (!b->nrec)
		frame_begin(b);
	/* the raw payload must stay within max_raw: records + strings */
	if (b->nrec >= b->max_records ||
	    bcn_frame_builder_size(b) + ADD_WORST > b->recs.max) {
		rc = bcn_record_check(r);
		return rc ? rc : -BCN_EFULL;
	}
	/* (within max_raw, checked above: only the capacity may be short) */
	rc = b->recs.cap - b->recs.len >= REC_WORST ? 0 :
	     bcn_buf_reserve(&b->recs, REC_WORST);
	if (rc) {
		int bad = bcn_record_check(r);

		return bad ? bad : rc;
	}
	start = p = b->recs.data + b->recs.len;
	p += bcn_varint_put(p, r->type);
	p += bcn_varint_put(p, bcn_zigzag((int64_t)((uint64_t)r->t -
							  (uint64_t)b->last_t)));
	p += bcn_varint_put(p, (uint64_t)r->dur);
	if (!b->iodelta || r->type != BCN_REC_IO)
		p += bcn_varint_put(p, r->job); /* (else in io_delta's mask) */
	rc = put_fields(b, d, r, &p);
	if (rc) {       /* recs.len untouched: record dropped */
		unintern(b, nstr, slen);
		/* a full string table: a bad field later on wins */
		if (rc == -BCN_EFULL && bcn_record_check(r))
			rc = -BCN_ERANGE;
		return rc;
	}
	b->recs.len += (size_t)(p - start);
	if (b->dtrack)          /* the delta form's length (io_put's diff) */
		b->dlen += (size_t)((p - start) + (r->type == BCN_REC_IO ?
						   b->dio_diff : 0));
	if (r->type == BCN_REC_IO && (b->iodelta || b->dtrack)) {
		b->pio = r->u.io;       /* the next io record's reference */
		b->pjob = r->job;
		b->io_seen = true;
	}
	b->last_t = r->t;
	b->nrec++;
	return 0;
}

static void builder_reset(struct bcn_frame_builder *b)
{
	bcn_buf_reset(&b->recs);
	bcn_buf_reset(&b->strs);
	if (b->slots)
		memset(b->slots, 0, b->slot_cap * sizeof(*b->slots));
	b->nstr = 0;
	b->nrec = 0;
	b->last_t = 0;
}

/* The np parts of the raw payload (raw bytes in all) as one zstd frame
 * (its content size in its header), compressed by b->zctx with the
 * columns' settings (cols) or the rows', into b->zbuf after head; with
 * blocks, each part ends a zstd block (ZSTD_e_flush), so that parts of
 * unlike bytes (columns, bcn_col_enc_cuts) get literal tables of their
 * own. */
static int build_zstd(struct bcn_frame_builder *b, bool cols, size_t head,
		      const uint8_t *const *parts, const size_t *lens, int np,
		      size_t raw, size_t *plen, bool blocks)
{
	ZSTD_CCtx *z = b->zctx;
	size_t bound = ZSTD_compressBound(raw), r;
	ZSTD_outBuffer out;
	ZSTD_inBuffer in;
	int rc;

	rc = bcn_buf_reserve(&b->zbuf, head + bound);
	if (rc)
		return rc;
	ZSTD_CCtx_reset(z, ZSTD_reset_session_only);
	rc = zstd_settings(b, cols);
	if (rc)
		return rc;
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z, raw)))
		return -EIO;
	out = (ZSTD_outBuffer){ b->zbuf.data + head, bound, 0 };
	for (int i = 0; i < np; i++) {
		in = (ZSTD_inBuffer){ parts[i], lens[i], 0 };
		do {
			r = ZSTD_compressStream2(z, &out, &in,
						 i == np - 1 ? ZSTD_e_end :
						 blocks ? ZSTD_e_flush :
						 ZSTD_e_continue);
			/* the bound leaves room for a block header per
			 * part (parts are 1 KiB or more): a full output
			 * is a bug, not a loop */
			if (ZSTD_isError(r) || (r && out.pos == out.size))
				return -EIO;
		} while (i == np - 1 || blocks ? r != 0 : in.pos < in.size);
	}
	*plen = out.pos;
	b->zbuf.len = head + out.pos;
	return 0;
}

/* The same through zlib at b->level. */
static int build_zlib(struct bcn_frame_builder *b, size_t head,
		      const uint8_t *const *parts, const size_t *lens, int np,
		      size_t raw, size_t *plen)
{
	z_stream zs;
	size_t bound;
	int rc;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, b->level) != Z_OK)
		return -EIO;
	bound = deflateBound(&zs, raw);
	rc = bcn_buf_reserve(&b->zbuf, head + bound);
	if (rc) {
		deflateEnd(&zs);
		return rc;
	}
	zs.next_out = b->zbuf.data + head;
	zs.avail_out = (uInt)bound;
	for (int i = 0; i < np; i++) {
		zs.next_in = (Bytef *)(uintptr_t)parts[i];
		zs.avail_in = (uInt)lens[i];
		rc = deflate(&zs, i == np - 1 ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_STREAM_ERROR || (i == np - 1 && rc != Z_STREAM_END)) {
			deflateEnd(&zs);
			return -EIO;
		}
	}
	*plen = zs.total_out;
	deflateEnd(&zs);
	b->zbuf.len = head + *plen;
	return 0;
}

/* Makes the columnar payload (string count and table, then the columns
 * of the records) in b->cbuf. */
static int build_columns(struct bcn_frame_builder *b, const uint8_t *cnt,
			 size_t cl)
{
	int rc;

	bcn_buf_reset(&b->cbuf);
	rc = bcn_buf_add(&b->cbuf, cnt, cl);
	if (!rc)
		rc = bcn_buf_add(&b->cbuf, b->strs.data, b->strs.len);
	if (!rc)
		rc = bcn_col_encode(b->cenc, b->recs.data, b->recs.len, b->nrec,
				    &b->cbuf);
	return rc;
}

/* Writes the raw payload (string count, strings, records; or its
 * columnar form) through zstd, zlib or as is into b->zbuf, after room for
 * the frame header and node. */
static int build_payload(struct bcn_frame_builder *b, size_t head,
			 size_t *plen, size_t *rawlen, uint8_t *flags)
{
	uint8_t cnt[BCN_VARINT_MAX];
	size_t cl = bcn_varint_put(cnt, b->nstr);
	const uint8_t *parts[BCN_COL_CUTS_MAX + 1] = { cnt, b->strs.data,
						      b->recs.data };
	size_t lens[BCN_COL_CUTS_MAX + 1] = { cl, b->strs.len, b->recs.len };
	size_t cuts[BCN_COL_CUTS_MAX], nc = 0;
	int np = 3, rc;

	*flags = b->zstd ? BCN_FRAME_F_ZSTD : b->level ? BCN_FRAME_F_ZLIB : 0;
	/* (a frame without io records stays plain: any log server takes
	 * it) */
	if (b->iodelta && b->io_seen)
		*flags |= BCN_FRAME_F_IODELTA;
	/* columns that would not fit, or take more room than the rows (a
	 * few records of many fields), give way to the rows; the column
	 * transform reads plain rows only */
	rc = b->cenc && !b->col_off && !(*flags & BCN_FRAME_F_IODELTA) ?
	     build_columns(b, cnt, cl) : -BCN_EFULL;
	if (rc && rc != -BCN_EFULL)
		return rc;
	if (!rc && b->cbuf.len <= lens[0] + lens[1] + lens[2]) {
		/* unlike columns compressed a block each (own tables) */
		if (b->zstd)
			nc = bcn_col_enc_cuts(b->cenc, cuts, BCN_COL_CUTS_MAX);
		for (np = 0; (size_t)np <= nc; np++) {
			size_t from = np ? cuts[np - 1] : 0;
			size_t to = (size_t)np < nc ? cuts[np] : b->cbuf.len;

			parts[np] = b->cbuf.data + from;
			lens[np] = to - from;
		}
		*flags |= BCN_FRAME_F_COLUMNAR;
	}
	*rawlen = 0;
	for (int i = 0; i < np; i++)
		*rawlen += lens[i];
	bcn_buf_reset(&b->zbuf);
	if (b->zstd)
		return build_zstd(b, *flags & BCN_FRAME_F_COLUMNAR, head, parts,
				  lens, np, *rawlen, plen, nc > 0);
	if (b->level)
		return build_zlib(b, head, parts, lens, np, *rawlen, plen);
	rc = bcn_buf_reserve(&b->zbuf, head + *rawlen);
	if (rc)
		return rc;
	b->zbuf.len = head;
	for (int i = 0; i < np; i++)
		bcn_buf_add(&b->zbuf, parts[i], lens[i]);
	*plen = *rawlen;
	return 0;
}

static void put_header(uint8_t *h, uint8_t kind, uint8_t flags,
		       uint8_t node_len, uint32_t body, uint32_t count,
		       uint64_t seq, uint32_t raw)
{
	memcpy(h, BCN_FRAME_MAGIC, 4);
	h[4] = BCN_PROTO_VERSION;
	h[5] = kind;
	h[6] = flags;
	h[7] = node_len;
	for (int i = 0; i < 4; i++) {
		h[8 + i] = (uint8_t)(body >> (8 * i));
		h[12 + i] = (uint8_t)(count >> (8 * i));
		h[24 + i] = (uint8_t)(raw >> (8 * i));
	}
	for (int i = 0; i < 8; i++)
		h[16 + i] = (uint8_t)(seq >> (8 * i));
}

static void seal(uint8_t *frame, size_t body_len)
{
	uint32_t crc = (uint32_t)crc32(0L, frame, CRC_SPAN);

	crc = (uint32_t)crc32(crc, frame + BCN_FRAME_HDR_LEN, (uInt)body_len);
	for (int i = 0; i < 4; i++)
		frame[28 + i] = (uint8_t)(crc >> (8 * i));
}

int bcn_frame_builder_finish(struct bcn_frame_builder *b, const char *node,
			     uint64_t seq, struct bcn_buf *out)
{
	size_t nl = strlen(node), plen, raw, head;
	uint8_t flags, cnt[BCN_VARINT_MAX];
	int rc;

	if (nl == 0 || nl > BCN_NODE_MAX)
		return -EINVAL;
	head = BCN_FRAME_HDR_LEN + nl;
	rc = build_payload(b, head, &plen, &raw, &flags);
	if (rc)
		return rc;
	b->last_columnar = flags & BCN_FRAME_F_COLUMNAR;
	b->last_plen = plen;
	b->last_dlen = b->dtrack && b->io_seen ?
		       b->dlen + b->strs.len + bcn_varint_put(cnt, b->nstr) : 0;
	if (nl + plen > b->zbuf.max - 64)
		return -BCN_EFULL;
	put_header(b->zbuf.data, BCN_FRAME_DATA, flags, (uint8_t)nl, (uint32_t)(nl + plen), b->nrec, seq,
		   (uint32_t)raw);
	memcpy(b->zbuf.data + BCN_FRAME_HDR_LEN, node, nl);
	seal(b->zbuf.data, nl + plen);
	rc = bcn_buf_add(out, b->zbuf.data, head + plen);
	if (rc)
		return rc;
	builder_reset(b);
	return 0;
}

int bcn_frame_builder_pack(struct bcn_frame_builder *b,
			   const struct bcn_record *r, struct bcn_buf *out)
{
	uint8_t cnt[BCN_VARINT_MAX];
	bool want = b->iodelta_want;
	size_t cl;
	int rc;

	if (b->nrec)
		return -EINVAL;
	b->iodelta_want = false;        /* plain rows: open_raw has no flags */
	rc = bcn_frame_builder_add(b, r);
	b->iodelta_want = want;
	if (rc)
		return rc;
	cl = bcn_varint_put(cnt, b->nstr);
	rc = bcn_buf_reserve(out, cl + b->strs.len + b->recs.len);
	if (!rc) {
		bcn_buf_add(out, cnt, cl);
		bcn_buf_add(out, b->strs.data, b->strs.len);
		bcn_buf_add(out, b->recs.data, b->recs.len);
	}
	builder_reset(b);
	return rc;
}

/* Appends a small uncompressed frame: header, node, payload. */
static int small_frame(uint8_t kind, uint64_t seq, const char *node,
		       const uint8_t *pl, size_t plen, struct bcn_buf *out)
{
	size_t nl = strlen(node);
	uint8_t f[BCN_FRAME_HDR_LEN + BCN_NODE_MAX + BCN_AUTH_LEN];

	if (nl > BCN_NODE_MAX || plen > BCN_AUTH_LEN)
		return -EINVAL;
	put_header(f, kind, 0, (uint8_t)nl, (uint32_t)(nl + plen), 0, seq,
		   (uint32_t)plen);
	memcpy(f + BCN_FRAME_HDR_LEN, node, nl);
	memcpy(f + BCN_FRAME_HDR_LEN + nl, pl, plen);
	seal(f, nl + plen);
	return bcn_buf_add(out, f, BCN_FRAME_HDR_LEN + nl + plen);
}

int bcn_frame_ack_encode(uint64_t seq, enum bcn_ack_status status,
			 const char *node, struct bcn_buf *out)
{
	uint8_t st = (uint8_t)status;

	if ((unsigned)status >= BCN_ACK_STATUS_MAX)
		return -EINVAL;
	return small_frame(BCN_FRAME_ACK, seq, node, &st, 1, out);
}

int bcn_frame_ctl_encode(enum bcn_frame_kind kind, const char *node,
			 const uint8_t data[BCN_AUTH_LEN], struct bcn_buf *out)
{
	if (kind < BCN_FRAME_HELLO || kind >= BCN_FRAME_KIND_MAX ||
	    (kind == BCN_FRAME_HELLO && !node[0]))
		return -EINVAL;
	return small_frame((uint8_t)kind, 0, node, data, BCN_AUTH_LEN, out);
}
