/* Tests of columnar payloads (proto/columnar.c): byte-exact round trips
 * of the row form for every record type, extreme values and io runs;
 * every truncation and classes of corruption give a clear error; frames
 * with the columnar flag decode to the same records as row frames. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "common/error.h"
#include "proto/columnar.h"
#include "proto/fileid.h"
#include "proto/frame.h"
#include "proto/varint.h"
#include "recgen.h"

static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;

static const char *const pool[] = {
	"", "cn001", "lustre-OST0003", "/scratch/u/ckpt.0001", "日本語", "a",
};
static struct recgen gen = { 0x9e3779b97f4a7c15ull, pool, 6, 1 };

/* The row payload of the records added to b (string count, table,
 * records) into rows, and their columnar payload into cols. */
static void payloads(struct bcn_frame_builder *b, struct bcn_col_enc *e,
		     struct bcn_buf *rows, struct bcn_buf *cols)
{
	uint8_t cnt[BCN_VARINT_MAX];
	size_t cl = bcn_varint_put(cnt, b->nstr);

	bcn_buf_reset(rows);
	bcn_buf_reset(cols);
	assert_int_equal(bcn_buf_add(rows, cnt, cl), 0);
	assert_int_equal(bcn_buf_add(rows, b->strs.data, b->strs.len), 0);
	assert_int_equal(bcn_buf_add(cols, rows->data, rows->len), 0);
	assert_int_equal(bcn_buf_add(rows, b->recs.data, b->recs.len), 0);
	assert_int_equal(bcn_col_encode(e, b->recs.data, b->recs.len, b->nrec,
					cols), 0);
}

/* Columns back to rows must give the rows byte for byte. */
static void assert_exact(struct bcn_frame_builder *b, struct bcn_col_enc *e)
{
	struct bcn_buf rows, cols, back;

	bcn_buf_init(&rows, 64 << 20);
	bcn_buf_init(&cols, 64 << 20);
	bcn_buf_init(&back, 64 << 20);
	payloads(b, e, &rows, &cols);
	assert_int_equal(bcn_col_decode(cols.data, cols.len, b->nrec, &back), 0);
	assert_int_equal(back.len, rows.len);
	assert_memory_equal(back.data, rows.data, rows.len);
	bcn_buf_free(&rows);
	bcn_buf_free(&cols);
	bcn_buf_free(&back);
}

static void test_random_every_type(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	struct bcn_record r;

	(void)state;
	assert_non_null(e);
	bcn_frame_builder_init(&b, &lim, 0);
	for (int i = 0; i < 2000; i++) {
		bcn_record_init(&r, (enum bcn_rec_type)(1 + i % (BCN_REC_TYPE_MAX - 1)));
		r.t = (int64_t)(recgen_next(&gen) >> 1) - (int64_t)(1ull << 62);
		recgen_fields(&gen, &r);
		if (r.type == BCN_REC_IO)       /* few processes and files */
			r.u.io.pid = recgen_next(&gen) % 5;
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	}
	assert_exact(&b, e);
	/* each type alone too, with the encoder reused */
	for (int t = 1; t < BCN_REC_TYPE_MAX; t++) {
		bcn_frame_builder_free(&b);
		bcn_frame_builder_init(&b, &lim, 0);
		for (int i = 0; i < 3; i++) {
			bcn_record_init(&r, (enum bcn_rec_type)t);
			r.t = (int64_t)recgen_next(&gen);
			recgen_fields(&gen, &r);
			assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
		}
		assert_exact(&b, e);
	}
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
}

/* Every field at its extremes, every counter set. */
static void fill_extreme(struct bcn_record *r, enum bcn_rec_type type, int hi)
{
	const struct bcn_record_desc *d = bcn_record_desc(type);

	bcn_record_init(r, type);
	r->t = hi ? INT64_MAX : INT64_MIN;
	r->dur = hi ? INT64_MAX : 0;
	r->job = hi ? UINT64_MAX : 0;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct bcn_field *f = &d->fields[i];
		char *p = (char *)r + f->offset;
		size_t n = f->kind == BCN_F_VEC ? f->n :
			   sizeof(struct bcn_dist) / sizeof(uint64_t);

		switch (f->kind) {
		case BCN_F_U64:
			*(uint64_t *)p = hi ? UINT64_MAX : 0;
			break;
		case BCN_F_I64:
			*(int64_t *)p = hi ? INT64_MAX : INT64_MIN;
			break;
		case BCN_F_ENUM:
			*(uint64_t *)p = hi ? f->n - 1u : 0;
			break;
		case BCN_F_STR:
			*(const char **)p = hi ? "/x/y" : "";
			break;
		default:
			for (size_t k = 0; k < n; k++)
				((uint64_t *)p)[k] = hi ? UINT64_MAX - k : 1;
		}
	}
	if (type == BCN_REC_IO && r->u.io.count == 0)
		r->u.io.count = 1;
}

static void test_extremes(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	struct bcn_record r;

	(void)state;
	bcn_frame_builder_init(&b, &lim, 0);
	for (int k = 0; k < 4; k++)
		for (int t = 1; t < BCN_REC_TYPE_MAX; t++) {
			fill_extreme(&r, (enum bcn_rec_type)t, k & 1);
			assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
		}
	assert_exact(&b, e);
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
}

/* io runs as the tracer sends them: several processes, sequential
 * offsets per file, small gaps. */
static void add_io_runs(struct bcn_frame_builder *b, int n)
{
	struct bcn_record r;
	int64_t t[4] = { 1700000000000000000, 1700000000000000000,
			 1700000000000000000, 1700000000000000000 };
	uint64_t off[8] = { 0 };

	for (int i = 0; i < n; i++) {
		unsigned p = (unsigned)i % 4, f = (unsigned)(i * 7) % 8;

		bcn_record_init(&r, BCN_REC_IO);
		r.t = t[p] + (int64_t)(recgen_next(&gen) % 3000);
		r.dur = 1000 + (int64_t)(recgen_next(&gen) % 500);
		r.job = 77;
		r.u.io.pid = 4000 + p;
		r.u.io.rank = (int64_t)p;
		r.u.io.op = i % 3 ? BCN_IO_READ : BCN_IO_WRITE;
		r.u.io.fd = 3 + (int64_t)f;
		r.u.io.file = 0x1234567890abcdefull * (f + 1);
		r.u.io.offset = off[f];
		r.u.io.size = 1 << 20;
		r.u.io.count = 1 + (uint64_t)(i % 5 == 0);
		r.u.io.stride = 1 << 20;
		r.u.io.busy = (uint64_t)r.dur;
		off[f] += r.u.io.count << 20;
		t[p] = r.t + r.dur;
		assert_int_equal(bcn_frame_builder_add(b, &r), 0);
	}
}

/* n reads of one process whose durations are 2^21 or 2^35 ns in turn
 * plus up to 127 ns of noise: varints of four or six bytes, only the
 * first noisy, and no use in deltas. */
static void add_noisy_durs(struct bcn_frame_builder *b, int n)
{
	struct bcn_record r;

	for (int i = 0; i < n; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1700000000000000000 + i * (1ll << 36);
		r.dur = (i & 1 ? 1ll << 35 : 1ll << 21) +
			(int64_t)(recgen_next(&gen) % 128);
		r.u.io.pid = 4000;
		r.u.io.op = BCN_IO_READ;
		r.u.io.fd = 3;
		r.u.io.file = 99;
		r.u.io.offset = (uint64_t)i << 12;
		r.u.io.size = 1 << 12;
		r.u.io.busy = (uint64_t)r.dur;
		assert_int_equal(bcn_frame_builder_add(b, &r), 0);
	}
}

/* Columnar frames decode to the records of row frames, and on io runs
 * take fewer bytes with each compressor. */
static void test_frames_same_records(void **state)
{
	static const int levels[][2] = { { 0, 0 }, { 6, 0 }, { 3, 1 } };
	struct bcn_buf rowf, colf;
	size_t used;

	(void)state;
	bcn_buf_init(&rowf, 64 << 20);
	bcn_buf_init(&colf, 64 << 20);
	for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
		struct bcn_frame_builder b, c;
		struct bcn_frame fr, fc;
		struct bcn_record a, z;
		uint64_t s0 = gen.state;
		int ra, rz;

		bcn_buf_reset(&rowf);
		bcn_buf_reset(&colf);
		bcn_frame_builder_init(&b, &lim, levels[k][0]);
		bcn_frame_builder_init(&c, &lim, levels[k][0]);
		if (levels[k][1]) {
			assert_int_equal(bcn_frame_builder_zstd(&b, levels[k][0]), 0);
			assert_int_equal(bcn_frame_builder_zstd(&c, levels[k][0]), 0);
		}
		assert_int_equal(bcn_frame_builder_columnar(&c), 0);
		add_io_runs(&b, 3000);
		gen.state = s0;
		add_io_runs(&c, 3000);
		assert_int_equal(bcn_frame_builder_finish(&b, "cn1", 5, &rowf), 0);
		assert_int_equal(bcn_frame_builder_finish(&c, "cn1", 5, &colf), 0);
		assert_true(colf.len < rowf.len);
		bcn_frame_init(&fr);
		bcn_frame_init(&fc);
		assert_int_equal(bcn_frame_open(&fr, rowf.data, rowf.len, &lim, &used), 0);
		assert_int_equal(bcn_frame_open(&fc, colf.data, colf.len, &lim, &used), 0);
		assert_int_equal(used, colf.len);
		assert_true(fc.hdr.flags & BCN_FRAME_F_COLUMNAR);
		assert_false(fr.hdr.flags & BCN_FRAME_F_COLUMNAR);
		assert_int_equal(bcn_frame_validate(&fc), 0);
		assert_int_equal(fc.raw_len, fr.raw_len);
		assert_memory_equal(fc.raw, fr.raw, fr.raw_len);
		while ((ra = bcn_frame_next(&fr, &a)) == 1) {
			rz = bcn_frame_next(&fc, &z);
			assert_int_equal(rz, 1);
			assert_int_equal(a.t, z.t);
			assert_int_equal(a.u.io.offset, z.u.io.offset);
		}
		assert_int_equal(ra, 0);
		assert_int_equal(bcn_frame_next(&fc, &z), 0);
		bcn_frame_free(&fr);
		bcn_frame_free(&fc);
		bcn_frame_builder_free(&b);
		bcn_frame_builder_free(&c);
	}
	bcn_buf_free(&rowf);
	bcn_buf_free(&colf);
}

/* With columnar payloads on and a level of their own, frames go as
 * columns while allowed and as rows (the rows' level) when not, switching
 * back and forth, with the same records; the builder says which. */
/* The length of the columnar frame b makes of the io runs that the
 * generator gives from state s0. */
static size_t cols_frame_len(struct bcn_frame_builder *b, struct bcn_buf *w,
			     uint64_t s0)
{
	bcn_buf_reset(w);
	gen.state = s0;
	add_io_runs(b, 2000);
	bcn_frame_builder_columnar_allow(b, true);
	assert_int_equal(bcn_frame_builder_finish(b, "cn1", 5, w), 0);
	assert_true(bcn_frame_builder_last_columnar(b));
	return w->len;
}

static void test_allow_switches(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_buf w;
	struct bcn_frame f;
	struct bcn_record r;
	size_t used, len[5];
	uint64_t s0 = gen.state;

	(void)state;
	bcn_buf_init(&w, 64 << 20);
	bcn_frame_builder_init(&b, &lim, 0);
	assert_int_equal(bcn_frame_builder_columnar_level(&b, 1), -EINVAL);
	assert_int_equal(bcn_frame_builder_zstd(&b, -2), 0);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 10), 0);
	assert_int_equal(bcn_frame_builder_columnar(&b), 0);
	assert_int_equal(bcn_frame_builder_columnar_level(&b, 99), -EINVAL);
	assert_int_equal(bcn_frame_builder_columnar_level(&b, 1), 0);
	for (int k = 0; k < 5; k++) {
		bool cols = k == 1 || k == 3;

		/* setting the rows' level again after a columnar frame
		 * leaves the rows as they were */
		if (k == 4)
			assert_int_equal(bcn_frame_builder_zstd(&b, -2), 0);
		bcn_buf_reset(&w);
		gen.state = s0;
		add_io_runs(&b, 2000);
		bcn_frame_builder_columnar_allow(&b, cols);
		assert_int_equal(bcn_frame_builder_finish(&b, "cn1", 5, &w), 0);
		assert_int_equal(bcn_frame_builder_last_columnar(&b), cols);
		bcn_frame_init(&f);
		assert_int_equal(bcn_frame_open(&f, w.data, w.len, &lim, &used), 0);
		assert_int_equal(f.hdr.flags, BCN_FRAME_F_ZSTD |
				 (cols ? BCN_FRAME_F_COLUMNAR : 0));
		assert_int_equal(f.hdr.count, 2000);
		for (int i = 0; i < 2000; i++)
			assert_int_equal(bcn_frame_next(&f, &r), 1);
		assert_int_equal(bcn_frame_next(&f, &r), 0);
		bcn_frame_free(&f);
		len[k] = w.len;
	}
	/* the same records: the same frame each way, columns smaller */
	assert_int_equal(len[0], len[2]);
	assert_int_equal(len[0], len[4]);
	assert_int_equal(len[1], len[3]);
	assert_true(len[1] < len[0]);
	/* a new level for the columns after a columnar frame: the next
	 * columns are what a builder set up with it from the start writes */
	assert_int_equal(cols_frame_len(&b, &w, s0), len[1]);
	assert_int_equal(bcn_frame_builder_columnar_level(&b, 19), 0);
	len[1] = cols_frame_len(&b, &w, s0);
	bcn_frame_builder_free(&b);
	bcn_frame_builder_init(&b, &lim, 0);
	assert_int_equal(bcn_frame_builder_zstd(&b, -2), 0);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 10), 0);
	assert_int_equal(bcn_frame_builder_columnar(&b), 0);
	assert_int_equal(bcn_frame_builder_columnar_level(&b, 19), 0);
	assert_int_equal(cols_frame_len(&b, &w, s0), len[1]);
	assert_int_not_equal(len[1], len[3]);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
}

/* A frame whose columns would be longer than its rows goes as rows. */
static void test_falls_back_to_rows(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf w;
	struct bcn_frame f;
	size_t used;

	(void)state;
	bcn_buf_init(&w, 1 << 20);
	bcn_frame_builder_init(&b, &lim, 0);
	assert_int_equal(bcn_frame_builder_columnar(&b), 0);
	fill_extreme(&r, BCN_REC_FWD_REQ, 0);   /* many columns, one value */
	assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "n", 1, &w), 0);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, w.data, w.len, &lim, &used), 0);
	assert_false(f.hdr.flags & BCN_FRAME_F_COLUMNAR);
	assert_int_equal(bcn_frame_next(&f, &r), 1);
	assert_int_equal(r.type, BCN_REC_FWD_REQ);
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
}

static void mode_mask(void *arg, unsigned type, const char *slot,
		      uint32_t n, size_t bytes, unsigned mode)
{
	unsigned *mask = arg;

	(void)type;
	(void)slot;
	(void)n;
	(void)bytes;
	*mask |= 1u << mode;
}

static void some_cols(struct bcn_buf *cols, uint32_t *count, int nrec)
{
	unsigned mask = 0;
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	struct bcn_buf rows;

	bcn_buf_init(&rows, 1 << 20);
	bcn_buf_init(cols, 1 << 20);
	bcn_frame_builder_init(&b, &lim, 0);
	add_io_runs(&b, nrec > 64 ? 4 : nrec);
	add_noisy_durs(&b, nrec > 64 ? nrec : 0);
	payloads(&b, e, &rows, cols);
	bcn_col_enc_stats(e, mode_mask, &mask);
	/* the damage tests reach the transposed modes' decoder */
	assert_int_equal(!!(mask & (1u << BCN_COL_TPLAIN |
				    1u << BCN_COL_TDELTA)), nrec > 64);
	*count = b.nrec;
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
	bcn_buf_free(&rows);
}

/* 40 io runs: varint columns; 300 of add_noisy_durs after 4 io runs:
 * some transposed */
static const int sizes[] = { 40, 300 };

static void test_every_truncation(void **state)
{
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
	struct bcn_buf cols, out;
	uint32_t n;

	(void)state;
	some_cols(&cols, &n, sizes[k]);
	bcn_buf_init(&out, 1 << 20);
	for (size_t len = 0; len < cols.len; len++) {
		bcn_buf_reset(&out);
		assert_int_equal(bcn_col_decode(cols.data, len, n, &out),
				 -BCN_ECORRUPT);
		assert_int_equal(out.len, 0);
	}
	/* a wrong record count is corrupt too */
	assert_int_equal(bcn_col_decode(cols.data, cols.len, n - 1, &out),
			 -BCN_ECORRUPT);
	assert_int_equal(bcn_col_decode(cols.data, cols.len, n + 1, &out),
			 -BCN_ECORRUPT);
	assert_int_equal(bcn_col_decode(cols.data, cols.len, n, &out), 0);
	bcn_buf_free(&cols);
	bcn_buf_free(&out);
	}
}

/* Single-byte damage anywhere: an error or some rows, never a crash;
 * decoding never writes past the output's bound. */
static void test_every_byte_flipped(void **state)
{
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
	struct bcn_buf cols, out;
	uint32_t n;

	(void)state;
	some_cols(&cols, &n, sizes[k]);
	bcn_buf_init(&out, 32768);
	for (size_t i = 0; i < cols.len; i++)
		for (int bit = 0; bit < 8; bit++) {
			int rc;

			cols.data[i] ^= (uint8_t)(1u << bit);
			bcn_buf_reset(&out);
			rc = bcn_col_decode(cols.data, cols.len, n, &out);
			assert_true(rc == 0 || rc == -BCN_ECORRUPT ||
				    rc == -BCN_ETOOBIG);
			assert_true(rc == 0 || out.len == 0);
			cols.data[i] ^= (uint8_t)(1u << bit);
		}
	bcn_buf_free(&cols);
	bcn_buf_free(&out);
	}
}

/* Hand-made payloads: string table "0", then a directory. */
static int decode_hand(const uint8_t *p, size_t len, uint32_t count,
		       size_t max)
{
	struct bcn_buf out;
	int rc;

	bcn_buf_init(&out, max);
	rc = bcn_col_decode(p, len, count, &out);
	bcn_buf_free(&out);
	return rc;
}

static void test_corrupt_directory(void **state)
{
	/* one job record (type 7): type column, then t, dur, job and its
	 * fields as constants; all good first */
	const struct bcn_record_desc *d = bcn_record_desc(BCN_REC_JOB);
	uint8_t p[512];
	size_t n = 0, ncols_at;

	(void)state;
	p[n++] = 0;                             /* no strings */
	ncols_at = n++;
	p[ncols_at] = (uint8_t)(1 + 3 + d->nfields);
	n += (size_t)sprintf((char *)p + n, "%c%c%c%c%c%c", 0, 0, 1, 0, 1, 7);
	for (unsigned s = 0; s < 3 + d->nfields; s++) {
		p[n++] = 7; p[n++] = (uint8_t)s; p[n++] = 1;
		p[n++] = BCN_COL_CONST; p[n++] = 1; p[n++] = 0;
	}
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), 0);
	/* the rows must fit the output's bound */
	assert_int_equal(decode_hand(p, n, 1, 4), -BCN_ETOOBIG);
	/* a second record: the columns run out */
	assert_int_equal(decode_hand(p, n, 2, 1 << 16), -BCN_ECORRUPT);
	/* unknown mode */
	p[2 + 6 + 3] = BCN_COL_MODE_MAX;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	/* the paths flag on another column than io's file, other flags */
	p[2 + 6 + 3] = BCN_COL_CONST | BCN_COL_F_PATHS;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[2 + 6 + 3] = BCN_COL_CONST | 0x20;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[2 + 6 + 3] = BCN_COL_CONST;
	/* a slot beyond the type's */
	p[n - 5] = 200;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	/* columns out of order or twice */
	p[n - 5] = 0;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[n - 5] = (uint8_t)(2 + d->nfields);
	/* unknown record type in the type column */
	p[2 + 5] = 99;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[2 + 5] = 7;
	/* more columns claimed than the payload holds */
	p[ncols_at]++;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[ncols_at]--;
	/* a value count above the record count */
	p[2 + 6 + 2] = 2;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[2 + 6 + 2] = 1;
	/* trailing bytes */
	p[n] = 0;
	assert_int_equal(decode_hand(p, n + 1, 1, 1 << 16), -BCN_ECORRUPT);
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), 0);
}

/* A constant column standing for many records expands only as far as
 * the output bound, and frame decoding calls it corrupt. */
static void test_expansion_bound(void **state)
{
	uint8_t p[512];
	size_t n = 0;
	const struct bcn_record_desc *d = bcn_record_desc(BCN_REC_JOB);
	uint8_t cnt[BCN_VARINT_MAX];
	size_t cl = bcn_varint_put(cnt, 1000000);

	(void)state;
	p[n++] = 0;
	p[n++] = (uint8_t)(1 + 3 + d->nfields);
	p[n++] = 0; p[n++] = 0;
	memcpy(p + n, cnt, cl); n += cl;
	p[n++] = BCN_COL_CONST; p[n++] = 1; p[n++] = 7;
	for (unsigned s = 0; s < 3 + d->nfields; s++) {
		p[n++] = 7; p[n++] = (uint8_t)s;
		memcpy(p + n, cnt, cl); n += cl;
		p[n++] = BCN_COL_CONST; p[n++] = 1; p[n++] = 0;
	}
	assert_int_equal(decode_hand(p, n, 1000000, 1 << 20), -BCN_ETOOBIG);
	assert_int_equal(decode_hand(p, n, 1000000, 64 << 20), 0);
}

static void stat_sum(void *arg, unsigned type, const char *slot, uint32_t n,
		     size_t bytes, unsigned mode)
{
	size_t *sum = arg;

	assert_true(type < BCN_REC_TYPE_MAX && slot[0] && n > 0 &&
		    mode < BCN_COL_MODE_MAX);
	*sum += bytes;
}

static void test_stats_cover_payload(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	struct bcn_buf rows, cols;
	size_t sum = 0, strtab;

	(void)state;
	bcn_buf_init(&rows, 1 << 24);
	bcn_buf_init(&cols, 1 << 24);
	bcn_frame_builder_init(&b, &lim, 0);
	add_io_runs(&b, 500);
	strtab = 1 + b.strs.len;
	payloads(&b, e, &rows, &cols);
	bcn_col_enc_stats(e, stat_sum, &sum);
	/* string table, column count (1 byte here), then the columns */
	assert_int_equal(strtab + 1 + sum, cols.len);
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
	bcn_buf_free(&rows);
	bcn_buf_free(&cols);
}

/* A column whose varints' bytes differ in kind by position, over enough
 * records, is stored transposed and comes back exactly; few records
 * never are. */
static void test_transposed(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	unsigned mask = 0;

	(void)state;
	bcn_frame_builder_init(&b, &lim, 0);
	add_noisy_durs(&b, 300);
	assert_exact(&b, e);
	bcn_col_enc_stats(e, mode_mask, &mask);
	assert_true(mask & (1u << BCN_COL_TPLAIN | 1u << BCN_COL_TDELTA));
	bcn_frame_builder_free(&b);
	bcn_frame_builder_init(&b, &lim, 0);
	add_noisy_durs(&b, 40);
	assert_exact(&b, e);
	mask = 0;
	bcn_col_enc_stats(e, mode_mask, &mask);
	assert_false(mask & (1u << BCN_COL_TPLAIN | 1u << BCN_COL_TDELTA));
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
}

/* Hand-made transposed columns: one job record (type 7) whose job slot
 * (2) is transposed; stream sizes must follow the continuation bits. */
static void test_transposed_streams(void **state)
{
	const struct bcn_record_desc *d = bcn_record_desc(BCN_REC_JOB);
	uint8_t p[512];
	size_t n = 0, job_at = 0;

	(void)state;
	p[n++] = 0;
	p[n++] = (uint8_t)(1 + 3 + d->nfields);
	n += (size_t)sprintf((char *)p + n, "%c%c%c%c%c%c", 0, 0, 1, 0, 1, 7);
	for (unsigned s = 0; s < 3 + d->nfields; s++) {
		p[n++] = 7; p[n++] = (uint8_t)s; p[n++] = 1;
		if (s != 2) {
			p[n++] = BCN_COL_CONST; p[n++] = 1; p[n++] = 0;
			continue;
		}
		job_at = n;
		/* 300 = 0xac 0x02: stream 0 holds 0xac, stream 1 0x02 */
		p[n++] = BCN_COL_TPLAIN; p[n++] = 2; p[n++] = 0xac;
		p[n++] = 0x02;
	}
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), 0);
	/* the second stream continued: no third stream to hold it */
	p[job_at + 3] = 0x82;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	/* the first not continued: the second byte is left over */
	p[job_at + 3] = 0x02;
	p[job_at + 2] = 0x2c;
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), -BCN_ECORRUPT);
	p[job_at + 2] = 0xac;
	p[job_at] = BCN_COL_TDELTA;     /* zigzag 300: the same length */
	assert_int_equal(decode_hand(p, n, 1, 1 << 16), 0);
}

/* Opens on fresh descriptors whose file is their path's id, each
 * followed by a read without a path. */
static void add_opens(struct bcn_frame_builder *b, int n)
{
	static const char *const paths[] = { "/scratch/a/ckpt.0", "/x/y",
					     "/lustre/p/run/out.h5" };
	struct bcn_record r;

	for (int i = 0; i < 2 * n; i++) {
		const char *path = paths[(i / 2) % 3];

		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1700000000000000000 + i * 1000;
		r.dur = 500;
		r.u.io.pid = 77;
		r.u.io.op = i % 2 ? BCN_IO_READ : BCN_IO_OPEN;
		r.u.io.fd = 3 + i / 2;
		r.u.io.path = i % 2 ? "" : path;
		r.u.io.file = bcn_file_id(path, strlen(path));
		r.u.io.size = i % 2 ? 4096 : 0;
		r.u.io.busy = 500;
		assert_int_equal(bcn_frame_builder_add(b, &r), 0);
	}
}

/* Finds the directory entry of column (type, slot) of a payload made
 * by payloads(): returns the offset of its mode byte, 0 when absent. */
static size_t mode_at(const struct bcn_buf *cols, unsigned type,
		      unsigned slot)
{
	const uint8_t *p = cols->data, *end = p + cols->len;
	uint64_t n = 0, len = 0, t = 0, s = 0, k = 0;

	assert_int_equal(bcn_varint_get(&p, end, &n), 0);
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(bcn_varint_get(&p, end, &len), 0);
		p += len;
	}
	assert_int_equal(bcn_varint_get(&p, end, &n), 0);
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(bcn_varint_get(&p, end, &t), 0);
		assert_int_equal(bcn_varint_get(&p, end, &s), 0);
		assert_int_equal(bcn_varint_get(&p, end, &k), 0);
		if (t == type && s == slot)
			return (size_t)(p - cols->data);
		p++;
		assert_int_equal(bcn_varint_get(&p, end, &len), 0);
		p += len;
	}
	return 0;
}

/* A path predicts its file: the file column of opens on fresh
 * descriptors is all zeros (constant) with the flag; without the flag
 * (a frame of an encoder before it) the same bytes decode to other
 * files, so the flag is what decides. */
static void test_paths_predict_files(void **state)
{
	const struct bcn_record_desc *d = bcn_record_desc(BCN_REC_IO);
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	struct bcn_buf rows, cols, back;
	unsigned file_slot = 3;
	size_t at;

	(void)state;
	for (size_t i = 0; i < d->nfields && strcmp(d->fields[i].name, "file");
	     i++)
		file_slot++;
	bcn_buf_init(&rows, 1 << 20);
	bcn_buf_init(&cols, 1 << 20);
	bcn_buf_init(&back, 1 << 20);
	bcn_frame_builder_init(&b, &lim, 0);
	add_opens(&b, 30);
	assert_exact(&b, e);
	payloads(&b, e, &rows, &cols);
	at = mode_at(&cols, BCN_REC_IO, file_slot);
	assert_true(at > 0);
	assert_int_equal(cols.data[at], BCN_COL_CONST | BCN_COL_F_PATHS);
	cols.data[at] = BCN_COL_CONST;
	assert_int_equal(bcn_col_decode(cols.data, cols.len, b.nrec, &back), 0);
	assert_int_equal(back.len == rows.len &&
			 memcmp(back.data, rows.data, rows.len) == 0, 0);
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
	bcn_buf_free(&rows);
	bcn_buf_free(&cols);
	bcn_buf_free(&back);
}

/* Long columns begin zstd blocks of their own; short payloads have no
 * cuts; cuts lie within the payload, increasing. */
static void test_cuts(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_col_enc *e = bcn_col_enc_new();
	struct bcn_buf rows, cols;
	size_t cuts[BCN_COL_CUTS_MAX], nc;

	(void)state;
	bcn_buf_init(&rows, 1 << 24);
	bcn_buf_init(&cols, 1 << 24);
	bcn_frame_builder_init(&b, &lim, 0);
	add_io_runs(&b, 3000);
	payloads(&b, e, &rows, &cols);
	nc = bcn_col_enc_cuts(e, cuts, BCN_COL_CUTS_MAX);
	assert_true(nc >= 2);
	for (size_t i = 0; i < nc; i++)
		assert_true(cuts[i] > (i ? cuts[i - 1] : 0) &&
			    cuts[i] < cols.len);
	assert_int_equal(bcn_col_enc_cuts(e, cuts, 1), 1);
	bcn_frame_builder_free(&b);
	bcn_frame_builder_init(&b, &lim, 0);
	add_io_runs(&b, 20);
	payloads(&b, e, &rows, &cols);
	assert_int_equal(bcn_col_enc_cuts(e, cuts, BCN_COL_CUTS_MAX), 0);
	bcn_frame_builder_free(&b);
	bcn_col_enc_free(e);
	bcn_buf_free(&rows);
	bcn_buf_free(&cols);
}

/* The header takes flag bit 3 (columnar) and bit 4 (delta io rows) with
 * each compression, never the two together, and no other new bit. */
static void test_header_flag(void **state)
{
	uint8_t h[BCN_FRAME_HDR_LEN] = "BCNF";
	struct bcn_frame_header hd;

	(void)state;
	h[4] = BCN_PROTO_VERSION;
	h[5] = BCN_FRAME_DATA;
	h[7] = 1;
	h[8] = 1;
	for (unsigned fl = 0; fl < 256; fl++) {
		int rc;

		h[6] = (uint8_t)fl;
		rc = bcn_frame_header_parse(h, sizeof(h), &lim, &hd);
		if ((fl & ~0x1fu) || ((fl & 1) && (fl & 4)) || (fl & 2) ||
		    ((fl & 8) && (fl & 0x10)))
			assert_int_not_equal(rc, 0);
		else
			assert_int_equal(rc, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_every_type),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_frames_same_records),
		cmocka_unit_test(test_falls_back_to_rows),
		cmocka_unit_test(test_allow_switches),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_every_byte_flipped),
		cmocka_unit_test(test_corrupt_directory),
		cmocka_unit_test(test_expansion_bound),
		cmocka_unit_test(test_stats_cover_payload),
		cmocka_unit_test(test_header_flag),
		cmocka_unit_test(test_transposed),
		cmocka_unit_test(test_transposed_streams),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_paths_predict_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
