/* Frame codec: envelope, checksum, compression and the compact record
 * encoding driven by the field tables of proto/record.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/clock.h"
#include "common/error.h"
#include "proto/frame.h"
#include "proto/varint.h"

#define CRC_SPAN 28     /* header bytes covered by the checksum */

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

int bcn_frame_header_parse(const uint8_t *buf, size_t len,
			   const struct bcn_frame_limits *lim,
			   struct bcn_frame_header *h)
{
	if (len < BCN_FRAME_HDR_LEN) {
		/* reject garbage as early as the bytes allow */
		if (memcmp(buf, BCN_FRAME_MAGIC, len < 4 ? len : 4) != 0)
			return -BCN_EMAGIC;
		return -BCN_ETRUNC;
	}
	if (memcmp(buf, BCN_FRAME_MAGIC, 4) != 0)
		return -BCN_EMAGIC;
	h->version = buf[4];
	h->kind = buf[5];
	h->flags = buf[6];
	h->node_len = buf[7];
	h->body_len = get_le32(buf + 8);
	h->count = get_le32(buf + 12);
	h->seq = get_le64(buf + 16);
	h->raw_len = get_le32(buf + 24);
	h->crc = get_le32(buf + 28);
	if (h->version < BCN_PROTO_VERSION_MIN || h->version > BCN_PROTO_VERSION)
		return -BCN_EVERSION;
	if (h->kind == 0 || h->kind >= BCN_FRAME_KIND_MAX ||
	    (h->flags & ~(BCN_FRAME_F_ZLIB | BCN_FRAME_F_MAC |
			  BCN_FRAME_F_ZSTD | BCN_FRAME_F_COLUMNAR |
			  BCN_FRAME_F_IODELTA)) ||
	    (h->flags & BCN_FRAME_F_ZLIB && h->flags & BCN_FRAME_F_ZSTD) ||
	    (h->flags & BCN_FRAME_F_COLUMNAR &&
	     h->flags & BCN_FRAME_F_IODELTA) ||
	    ((h->flags & BCN_FRAME_F_MAC) && h->version < 2))
		return -BCN_EKIND;
	if (h->body_len > lim->max_body || h->raw_len > lim->max_raw ||
	    h->count > lim->max_records)
		return -BCN_ETOOBIG;
	if (h->body_len < h->node_len + bcn_frame_mac_len(h))
		return -BCN_ECORRUPT;
	return 0;
}

void bcn_frame_init(struct bcn_frame *f)
{
	memset(f, 0, sizeof(*f));
}

void bcn_frame_free(struct bcn_frame *f)
{
	free(f->raw);
	free(f->strings);
	free(f->str);
	free(f->refd);
	bcn_buf_free(&f->cols);
	bcn_frame_init(f);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *n;

	if (need <= *cap)
		return 0;
	n = realloc(*p, need * elem);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = need;
	return 0;
}

/* A zstd payload: exactly one zstd frame of exactly raw_len bytes, with
 * no window beyond the declared size (one-shot: the output buffer is
 * the window). */
static int open_zstd(struct bcn_frame *f, const uint8_t *pl, size_t plen)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(pl, plen);
	size_t fl = ZSTD_findFrameCompressedSize(pl, plen), n;

	if (ZSTD_isError(fl) || fl != plen || fcs != f->hdr.raw_len)
		return -BCN_ECORRUPT;
	n = ZSTD_decompress(f->raw, f->hdr.raw_len, pl, plen);
	if (ZSTD_isError(n))
		return ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ?
		       -ENOMEM : -BCN_ECORRUPT;
	return n == f->hdr.raw_len ? 0 : -BCN_ECORRUPT;
}

static int open_compressed(struct bcn_frame *f, const uint8_t *pl,
			   size_t plen, const struct bcn_frame_limits *lim)
{
	uLongf dlen = f->hdr.raw_len;
	uLong slen = plen;
	int rc;

	/* a bomb is refused before its output is allocated */
	if ((f->hdr.flags & (BCN_FRAME_F_ZLIB | BCN_FRAME_F_ZSTD)) &&
	    lim->max_ratio &&
	    f->hdr.raw_len > BCN_FRAME_RATIO_FLOOR &&
	    f->hdr.raw_len > (uint64_t)plen * lim->max_ratio)
		return -BCN_ECORRUPT;
	rc = grow((void **)&f->raw, &f->raw_cap, f->hdr.raw_len ? f->hdr.raw_len : 1, 1);
	if (rc)
		return rc;
	if (f->hdr.flags & BCN_FRAME_F_ZSTD)
		return open_zstd(f, pl, plen);
	if (!(f->hdr.flags & BCN_FRAME_F_ZLIB)) {
		if (plen != f->hdr.raw_len)
			return -BCN_ECORRUPT;
		memcpy(f->raw, pl, plen);
		return 0;
	}
	rc = uncompress2(f->raw, &dlen, pl, &slen);
	if (rc == Z_MEM_ERROR)
		return -ENOMEM;
	/* Z_BUF_ERROR: more output than declared, or input cut short */
	if (rc != Z_OK || dlen != f->hdr.raw_len || slen != plen)
		return -BCN_ECORRUPT;
	return 0;
}

/* Turns a columnar payload in f->raw into the row form, which may be at
 * most max_raw bytes, and for a compressed payload above the ratio floor
 * at most max_ratio times the bytes sent. */
static int open_columnar(struct bcn_frame *f, size_t plen,
			 const struct bcn_frame_limits *lim)
{
	size_t max = lim->max_raw, cap;
	uint8_t *t;
	int rc;

	if ((f->hdr.flags & (BCN_FRAME_F_ZLIB | BCN_FRAME_F_ZSTD)) &&
	    lim->max_ratio && (uint64_t)plen * lim->max_ratio < max)
		max = (uint64_t)plen * lim->max_ratio > BCN_FRAME_RATIO_FLOOR ?
		      (size_t)plen * lim->max_ratio : BCN_FRAME_RATIO_FLOOR;
	bcn_buf_reset(&f->cols);
	f->cols.max = max;
	rc = bcn_col_decode(f->raw, f->hdr.raw_len, f->hdr.count, &f->cols);
	if (rc)
		return rc == -ENOMEM ? rc : -BCN_ECORRUPT;
	/* the rows become the payload; the columns' buffer is reused */
	t = f->raw;
	f->raw = f->cols.data;
	f->cols.data = t;
	f->raw_len = f->cols.len;
	cap = f->raw_cap;
	f->raw_cap = f->cols.cap;
	f->cols.cap = cap;
	f->cols.len = 0;
	return 0;
}

static int open_payload(struct bcn_frame *f, const uint8_t *pl, size_t plen,
			const struct bcn_frame_limits *lim)
{
	int rc = open_compressed(f, pl, plen, lim);

	f->raw_len = f->hdr.raw_len;
	if (rc || !(f->hdr.flags & BCN_FRAME_F_COLUMNAR))
		return rc;
	return open_columnar(f, plen, lim);
}

static int open_strings(struct bcn_frame *f, const struct bcn_frame_limits *lim)
{
	const uint8_t *p = f->raw, *end = f->raw + f->raw_len;
	uint64_t n, len;
	size_t used = 0;
	int rc;

	if (bcn_varint_get(&p, end, &n))
		return -BCN_ECORRUPT;
	if (n > lim->max_strings || n > (uint64_t)(end - p))
		return -BCN_ETOOBIG;
	rc = grow((void **)&f->str, &f->str_cap, n + 1, sizeof(*f->str));
	if (!rc)    /* every entry needs its bytes and a NUL, bounded by raw */
		rc = grow((void **)&f->strings, &f->strings_cap,
			  f->raw_len + 1, 1);
	if (!rc)
		rc = grow((void **)&f->refd, &f->refd_cap, n / 8 + 1, 1);
	if (rc)
		return rc;
	f->str[0] = "";
	for (uint64_t i = 1; i <= n; i++) {
		if (bcn_varint_get(&p, end, &len) || len > BCN_STR_MAX ||
		    len > (uint64_t)(end - p) || memchr(p, 0, len))
			return -BCN_ECORRUPT;
		memcpy(f->strings + used, p, len);
		f->strings[used + len] = '\0';
		f->str[i] = f->strings + used;
		used += len + 1;
		p += len;
	}
	f->nstr = (uint32_t)n;
	f->first = f->cur = p;
	f->end = end;
	return 0;
}

static int open_body(struct bcn_frame *f, const uint8_t *body,
		     const struct bcn_frame_limits *lim)
{
	const uint8_t *pl = body + f->hdr.node_len;
	size_t plen = f->hdr.body_len - f->hdr.node_len - bcn_frame_mac_len(&f->hdr);
	int rc;

	memcpy(f->node, body, f->hdr.node_len);
	f->node[f->hdr.node_len] = '\0';
	if (memchr(f->node, 0, f->hdr.node_len))
		return -BCN_ECORRUPT;
	if (f->hdr.kind == BCN_FRAME_ACK) {
		if (plen != 1 || f->hdr.raw_len != 1 ||
		    (f->hdr.flags & ~BCN_FRAME_F_MAC) ||
		    f->hdr.count || pl[0] >= BCN_ACK_STATUS_MAX)
			return -BCN_ECORRUPT;
		f->ack_status = pl[0];
		return 0;
	}
	if (f->hdr.kind != BCN_FRAME_DATA) {     /* handshake frames */
		if (plen != BCN_AUTH_LEN || f->hdr.raw_len != BCN_AUTH_LEN ||
		    f->hdr.flags || f->hdr.count ||
		    (f->hdr.kind == BCN_FRAME_HELLO && f->hdr.node_len == 0))
			return -BCN_ECORRUPT;
		memcpy(f->auth, pl, BCN_AUTH_LEN);
		return 0;
	}
	if (f->hdr.node_len == 0)
		return -BCN_ECORRUPT;
	rc = open_payload(f, pl, plen, lim);
	return rc ? rc : open_strings(f, lim);
}

/* Fixes the window of record times that bcn_frame_validate accepts. */
static void set_window(struct bcn_frame *f, const struct bcn_frame_limits *lim)
{
	int64_t now;

	f->windowed = lim->max_age_ns > 0 || lim->max_ahead_ns > 0;
	f->t_lo = INT64_MIN;
	f->t_hi = INT64_MAX;
	if (!f->windowed)
		return;
	now = bcn_real_ns();
	if (lim->max_age_ns > 0 && __builtin_sub_overflow(now, lim->max_age_ns, &f->t_lo))
		f->t_lo = INT64_MIN;
	if (lim->max_ahead_ns > 0 && __builtin_add_overflow(now, lim->max_ahead_ns, &f->t_hi))
		f->t_hi = INT64_MAX;
}

int bcn_frame_open(struct bcn_frame *f, const uint8_t *buf, size_t len,
		   const struct bcn_frame_limits *lim, size_t *consumed)
{
	size_t total;
	uint32_t crc;
	int rc;

	*consumed = 0;
	f->cur = f->end = f->first = NULL;
	f->seen = 0;
	f->last_t = 0;
	memset(&f->pio, 0, sizeof(f->pio));
	f->pjob = 0;
	f->nstr = 0;
	rc = bcn_frame_header_parse(buf, len, lim, &f->hdr);
	if (rc)
		return rc;
	total = BCN_FRAME_HDR_LEN + (size_t)f->hdr.body_len;
	if (len < total) {
		*consumed = total;
		return -BCN_ETRUNC;
	}
	crc = (uint32_t)crc32(0L, buf, CRC_SPAN);
	crc = (uint32_t)crc32(crc, buf + BCN_FRAME_HDR_LEN, f->hdr.body_len);
	if (crc != f->hdr.crc)
		return -BCN_ECHECKSUM;
	set_window(f, lim);
	rc = open_body(f, buf + BCN_FRAME_HDR_LEN, lim);
	if (rc)
		return rc;
	*consumed = total;
	return 0;
}

int bcn_frame_open_raw(struct bcn_frame *f, const uint8_t *p, size_t len,
		       uint32_t count, const char *node,
		       const struct bcn_frame_limits *lim)
{
	size_t nl = strlen(node);
	int rc;

	if (nl > BCN_NODE_MAX)
		return -EINVAL;
	if (len > lim->max_raw || count > lim->max_records)
		return -BCN_ETOOBIG;
	memset(&f->hdr, 0, sizeof(f->hdr));
	f->hdr.version = BCN_PROTO_VERSION;
	f->hdr.kind = BCN_FRAME_DATA;
	f->hdr.node_len = (uint8_t)nl;
	f->hdr.count = count;
	f->hdr.raw_len = (uint32_t)len;
	memcpy(f->node, node, nl + 1);
	f->cur = f->end = f->first = NULL;
	f->seen = 0;
	f->last_t = 0;
	memset(&f->pio, 0, sizeof(f->pio));
	f->pjob = 0;
	f->windowed = false;
	rc = grow((void **)&f->raw, &f->raw_cap, len ? len : 1, 1);
	if (rc)
		return rc;
	memcpy(f->raw, p, len);
	f->raw_len = len;
	return open_strings(f, lim);
}

static int get_field(struct bcn_frame *f, const struct bcn_field *fd,
		     struct bcn_record *r)
{
	char *p = (char *)r + fd->offset;
	uint64_t v, mask;
	uint64_t *vec;

	if (fd->kind == BCN_F_DIST) {
		struct bcn_dist *d = (struct bcn_dist *)p;
		uint64_t *m[] = { &d->count, &d->sum, &d->min, &d->max,
				  &d->p50, &d->p95, &d->p99 };

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (bcn_varint_get(&f->cur, f->end, m[i]))
				return -BCN_ECORRUPT;
		vec = d->hist;
		v = BCN_HIST_BUCKETS;
		goto vector;
	}
	if (bcn_varint_get(&f->cur, f->end, &v))
		return -BCN_ECORRUPT;
	switch (fd->kind) {
	case BCN_F_U64:
		*(uint64_t *)p = v;
		return 0;
	case BCN_F_I64:
		*(int64_t *)p = bcn_unzigzag(v);
		return 0;
	case BCN_F_ENUM:
		if (v >= fd->n)
			return -BCN_ECORRUPT;
		*(uint64_t *)p = v;
		return 0;
	case BCN_F_STR:
		if (v > f->nstr)
			return -BCN_ECORRUPT;
		f->refd[v >> 3] |= (uint8_t)(1u << (v & 7));
		*(const char **)p = f->str[v];
		return 0;
	case BCN_F_VEC:
		vec = (uint64_t *)p;
		mask = v;
		v = fd->n;
		goto masked;
	}
	return -BCN_ECORRUPT;
vector:
	if (bcn_varint_get(&f->cur, f->end, &mask))
		return -BCN_ECORRUPT;
masked:
	if (v < 64 && (mask >> v))
		return -BCN_ECORRUPT;
	for (unsigned i = 0; i < v; i++) {
		vec[i] = 0;
		if (!(mask & (1ull << i)))
			continue;
		if (bcn_varint_get(&f->cur, f->end, &vec[i]) || vec[i] == 0)
			return -BCN_ECORRUPT;
	}
	return 0;
}

/* One masked field of the delta row form: read when bit is set in m (and
 * then different from the previous value, as the encoder writes it: one
 * encoding per record list), else the previous value. */
static int get_masked(struct bcn_frame *f, uint64_t m, unsigned bit,
		      uint64_t prev, uint64_t *v)
{
	if (!(m & (1u << bit))) {
		*v = prev;
		return 0;
	}
	if (bcn_varint_get(&f->cur, f->end, v) || *v == prev)
		return -BCN_ECORRUPT;
	return 0;
}

/* The job and fields of an io record in the delta row form
 * (BCN_FRAME_F_IODELTA, docs/protocol.md). */
static int get_io_delta(struct bcn_frame *f, struct bcn_record *r)
{
	const struct bcn_rec_io *q = &f->pio;
	struct bcn_rec_io *io = &r->u.io;
	const uint64_t prev[BCN_IODELTA_BITS] = {
		[BCN_IODELTA_JOB] = f->pjob,
		[BCN_IODELTA_STEP] = q->step,
		[BCN_IODELTA_RANK] = bcn_zigzag(q->rank),
		[BCN_IODELTA_PID] = q->pid,
		[BCN_IODELTA_OP] = q->op,
		[BCN_IODELTA_FD] = bcn_zigzag(q->fd),
		[BCN_IODELTA_FILE] = q->file,
		[BCN_IODELTA_PATH] = 0,
		[BCN_IODELTA_SIZE] = q->size,
		[BCN_IODELTA_COUNT] = q->count,
	};
	/* the masked fields in the order they are written */
	static const uint8_t order[] = {
		BCN_IODELTA_JOB, BCN_IODELTA_STEP, BCN_IODELTA_RANK,
		BCN_IODELTA_PID, BCN_IODELTA_OP, BCN_IODELTA_FD,
		BCN_IODELTA_FILE, BCN_IODELTA_PATH, BCN_IODELTA_SIZE,
		BCN_IODELTA_COUNT,
	};
	uint64_t m, v[BCN_IODELTA_BITS], off, st;
	int64_t stride;
	bool scaled;

	if (bcn_varint_get(&f->cur, f->end, &m) || m >> BCN_IODELTA_BITS)
		return -BCN_ECORRUPT;
	for (size_t i = 0; i < sizeof(order); i++)
		if (get_masked(f, m, order[i], prev[order[i]], &v[order[i]]))
			return -BCN_ECORRUPT;
	if (v[BCN_IODELTA_PATH] > f->nstr || v[BCN_IODELTA_OP] >= BCN_IO_OP_MAX ||
	    bcn_varint_get(&f->cur, f->end, &off))
		return -BCN_ECORRUPT;
	stride = q->stride;
	if (m & 1u << BCN_IODELTA_STRIDE) {
		if (bcn_varint_get(&f->cur, f->end, &st))
			return -BCN_ECORRUPT;
		stride = bcn_unzigzag(st);
	}
	scaled = m & 1u << BCN_IODELTA_SCALED;
	io->size = v[BCN_IODELTA_SIZE];
	/* scaled: both were divided by the size; the stride when it came
	 * (a repeated one is the previous record's as it was) */
	if (scaled && (io->size == 0 || io->size > INT64_MAX ||
		       __builtin_mul_overflow(off, io->size, &off) ||
		       ((m & 1u << BCN_IODELTA_STRIDE) &&
			__builtin_mul_overflow(stride, (int64_t)io->size,
					       &stride))))
		return -BCN_ECORRUPT;
	/* one encoding per record: SCALED exactly when the size divides */
	if (scaled != bcn_iodelta_scaled(io->size, off, stride) ||
	    ((m & 1u << BCN_IODELTA_STRIDE) && stride == q->stride) ||
	    bcn_varint_get(&f->cur, f->end, &io->busy))
		return -BCN_ECORRUPT;
	f->refd[v[BCN_IODELTA_PATH] >> 3] |=
		(uint8_t)(1u << (v[BCN_IODELTA_PATH] & 7));
	io->path = f->str[v[BCN_IODELTA_PATH]];
	r->job = v[BCN_IODELTA_JOB];
	io->step = v[BCN_IODELTA_STEP];
	io->rank = bcn_unzigzag(v[BCN_IODELTA_RANK]);
	io->pid = v[BCN_IODELTA_PID];
	io->op = v[BCN_IODELTA_OP];
	io->fd = bcn_unzigzag(v[BCN_IODELTA_FD]);
	io->file = v[BCN_IODELTA_FILE];
	io->count = v[BCN_IODELTA_COUNT];
	io->offset = off;
	io->stride = stride;
	return 0;
}

int bcn_frame_next(struct bcn_frame *f, struct bcn_record *r)
{
	const struct bcn_record_desc *d;
	uint64_t type, dt, dur;
	bool delta;
	int rc;

	if (f->hdr.kind != BCN_FRAME_DATA || !f->cur)
		return -BCN_ECORRUPT;
	if (f->cur == f->end)
		return f->seen == f->hdr.count ? 0 : -BCN_ECORRUPT;
	if (f->seen == f->hdr.count)
		return -BCN_ECORRUPT;   /* bytes after the last record */
	if (bcn_varint_get(&f->cur, f->end, &type) ||
	    !(d = bcn_record_desc(type)))
		return -BCN_ECORRUPT;
	/* every field of the type is decoded below, so the record needs no
	 * clearing (the other members of the union are left as they were) */
	r->type = type;
	delta = type == BCN_REC_IO && (f->hdr.flags & BCN_FRAME_F_IODELTA);
	if (bcn_varint_get(&f->cur, f->end, &dt) ||
	    bcn_varint_get(&f->cur, f->end, &dur) || dur > INT64_MAX ||
	    (!delta && bcn_varint_get(&f->cur, f->end, &r->job)))
		return -BCN_ECORRUPT;
	r->t = (int64_t)((uint64_t)f->last_t + (uint64_t)bcn_unzigzag(dt));
	r->dur = (int64_t)dur;
	r->node = f->node;
	if (delta) {
		rc = get_io_delta(f, r);
		if (rc)
			return rc;
	} else {
		for (size_t i = 0; i < d->nfields; i++) {
			rc = get_field(f, &d->fields[i], r);
			if (rc)
				return rc;
		}
	}
	if (type == BCN_REC_IO && r->u.io.count == 0)
		return -BCN_ECORRUPT;
	if (delta) {
		f->pio = r->u.io;
		f->pjob = r->job;
	}
	f->last_t = r->t;
	f->seen++;
	return 1;
}

void bcn_frame_rewind(struct bcn_frame *f)
{
	f->cur = f->first;
	f->seen = 0;
	f->last_t = 0;
	memset(&f->pio, 0, sizeof(f->pio));
	f->pjob = 0;
}

static bool in_window(const struct bcn_frame *f, const struct bcn_record *r)
{
	int64_t end;

	if (__builtin_add_overflow(r->t, r->dur, &end))
		end = INT64_MAX;
	return r->t <= f->t_hi && end >= f->t_lo;
}

/* Returns whether every entry of the string table was referenced. */
static bool all_referenced(const struct bcn_frame *f)
{
	for (uint32_t i = 1; i <= f->nstr; i++)
		if (!(f->refd[i >> 3] & (1u << (i & 7))))
			return false;
	return true;
}

int bcn_frame_validate(struct bcn_frame *f)
{
	struct bcn_record r;
	int rc, out = 0;

	if (f->hdr.kind != BCN_FRAME_DATA || !f->first)
		return -BCN_ECORRUPT;
	bcn_frame_rewind(f);
	memset(f->refd, 0, f->nstr / 8 + 1);
	f->types = 0;
	while ((rc = bcn_frame_next(f, &r)) == 1) {
		if (r.type < 32)
			f->types |= 1u << r.type;
		if (f->windowed && !in_window(f, &r))
			out = -BCN_ERANGE;
	}
	if (rc == 0 && !all_referenced(f))
		rc = -BCN_ECORRUPT;
	bcn_frame_rewind(f);
	return rc ? rc : out;
}

size_t bcn_frame_resync(const uint8_t *buf, size_t len)
{
	for (size_t i = 1; i < len; i++) {
		size_t n = len - i < 4 ? len - i : 4;

		/* a magic cut by the end of buf may continue after it */
		if (memcmp(buf + i, BCN_FRAME_MAGIC, n) == 0)
			return i;
	}
	return len;
}
