/* Tests of compress/iorun (first-pass compression of I/O operations):
 * a table of traces built from segments (contiguous, strided, zero and
 * negative strides, breaks, interleaved descriptors, eviction, close,
 * flush, reset, max_count, offsets near 2^64) with the exact runs they
 * must give; durations; expand; and a randomized lossless check of both
 * modes against the original traces and a reference of the paper's
 * merge. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/record.h"
#include "compress/iorun.h"

#define K4 UINT64_C(4096)
#define K64 UINT64_C(65536)
#define K256 UINT64_C(262144)
#define TOP (UINT64_C(1) << 63)
#define R BCN_IO_READ
#define W BCN_IO_WRITE
#define SK BCN_IO_SEEK
#define ST BCN_IO_STAT

#define SEGS_MAX 6
#define RUNS_MAX 12
#define OPS_MAX 64

/* n operations op/fd/file/size at off, off + step, ... (modulo 2^64) */
struct seg {
	uint8_t op;
	int64_t fd;
	uint64_t file, off, size;
	int64_t step;
	unsigned n;
};

struct want {
	uint8_t op;
	int64_t fd;
	uint64_t file, offset, size, count;
	int64_t stride;
};

enum end { END_FLUSH, END_CLOSE, END_RESET };

struct scase {
	const char *name;
	enum bcn_iorun_mode mode;
	unsigned slots;
	uint64_t max_count;
	int interleave;                 /* round-robin over the segments */
	struct seg segs[SEGS_MAX];      /* up to the first with n == 0 */
	enum end end;                   /* END_CLOSE: close_fd(end_fd), flush */
	int64_t end_fd;
	unsigned nbefore;               /* runs emitted while adding */
	unsigned nend;                  /* runs emitted by the end action */
	struct want runs[RUNS_MAX];     /* all runs, up to count == 0 */
};

#define C BCN_IORUN_CONTIG
#define S BCN_IORUN_STRIDED

static const struct scase cases[] = {
	{ "contiguous, contig", C, 1, 0, 0, { { W, 3, 1, 0, K4, K4, 10 } },
	  END_FLUSH, 0, 0, 1, { { W, 3, 1, 0, K4, 10, K4 } } },
	{ "contiguous, strided", S, 4, 0, 0, { { W, 3, 1, 0, K4, K4, 10 } },
	  END_FLUSH, 0, 0, 1, { { W, 3, 1, 0, K4, 10, K4 } } },
	{ "positive stride", S, 4, 0, 0, { { W, 3, 1, K4, K4, K256, 8 } },
	  END_FLUSH, 0, 0, 1, { { W, 3, 1, K4, K4, 8, K256 } } },
	{ "positive stride, contig", C, 4, 0, 0, { { W, 3, 1, 0, K4, K256, 3 } },
	  END_FLUSH, 0, 2, 1, { { W, 3, 1, 0, K4, 1, 0 },
	  { W, 3, 1, K256, K4, 1, 0 }, { W, 3, 1, 2 * K256, K4, 1, 0 } } },
	{ "repeated stat", S, 4, 0, 0, { { ST, -1, 7, 0, 0, 0, 5 } },
	  END_FLUSH, 0, 0, 1, { { ST, -1, 7, 0, 0, 5, 0 } } },
	{ "repeated stat, contig", C, 1, 0, 0, { { ST, -1, 7, 0, 0, 0, 5 } },
	  END_FLUSH, 0, 0, 1, { { ST, -1, 7, 0, 0, 5, 0 } } },
	{ "rewrite, stride 0", S, 4, 0, 0, { { W, 3, 1, 2 * K4, K4, 0, 4 } },
	  END_FLUSH, 0, 0, 1, { { W, 3, 1, 2 * K4, K4, 4, 0 } } },
	{ "rewrite, contig", C, 1, 0, 0, { { W, 3, 1, 2 * K4, K4, 0, 3 } },
	  END_FLUSH, 0, 2, 1, { { W, 3, 1, 2 * K4, K4, 1, 0 },
	  { W, 3, 1, 2 * K4, K4, 1, 0 }, { W, 3, 1, 2 * K4, K4, 1, 0 } } },
	{ "backward scan", S, 4, 0, 0, { { R, 3, 1, 9 * K4, K4, -4096, 10 } },
	  END_FLUSH, 0, 0, 1, { { R, 3, 1, 9 * K4, K4, 10, -4096 } } },
	{ "backward scan, contig", C, 1, 0, 0,
	  { { R, 3, 1, 9 * K4, K4, -4096, 2 } }, END_FLUSH, 0, 1, 1,
	  { { R, 3, 1, 9 * K4, K4, 1, 0 }, { R, 3, 1, 8 * K4, K4, 1, 0 } } },
	{ "second op fixes the stride", S, 4, 0, 0,
	  { { W, 3, 1, 0, K4, 100, 2 }, { W, 3, 1, 300, K4, 0, 1 } },
	  END_FLUSH, 0, 1, 1,
	  { { W, 3, 1, 0, K4, 2, 100 }, { W, 3, 1, 300, K4, 1, 0 } } },
	{ "size change", S, 4, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 3 }, { W, 3, 1, 3 * K4, 2 * K4, 8192, 2 } },
	  END_FLUSH, 0, 1, 1, { { W, 3, 1, 0, K4, 3, K4 },
	  { W, 3, 1, 3 * K4, 2 * K4, 2, 8192 } } },
	{ "size change, contig", C, 1, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 3 }, { W, 3, 1, 3 * K4, 2 * K4, 8192, 2 } },
	  END_FLUSH, 0, 1, 1, { { W, 3, 1, 0, K4, 3, K4 },
	  { W, 3, 1, 3 * K4, 2 * K4, 2, 8192 } } },
	{ "op change", S, 1, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 2 }, { R, 3, 1, 2 * K4, K4, K4, 2 } },
	  END_FLUSH, 0, 1, 1, { { W, 3, 1, 0, K4, 2, K4 },
	  { R, 3, 1, 2 * K4, K4, 2, K4 } } },
	{ "fd change, contig", C, 1, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 2 }, { W, 4, 1, 2 * K4, K4, K4, 2 } },
	  END_FLUSH, 0, 1, 1, { { W, 3, 1, 0, K4, 2, K4 },
	  { W, 4, 1, 2 * K4, K4, 2, K4 } } },
	{ "file change, contig", C, 1, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 2 }, { W, 3, 2, 2 * K4, K4, K4, 2 } },
	  END_FLUSH, 0, 1, 1, { { W, 3, 1, 0, K4, 2, K4 },
	  { W, 3, 2, 2 * K4, K4, 2, K4 } } },
	{ "cp, strided", S, 2, 0, 1,
	  { { R, 3, 1, 0, K64, 65536, 4 }, { W, 4, 2, 0, K64, 65536, 4 } },
	  END_FLUSH, 0, 0, 2, { { R, 3, 1, 0, K64, 4, 65536 },
	  { W, 4, 2, 0, K64, 4, 65536 } } },
	{ "cp, contig ignores slots", C, 8, 0, 1,
	  { { R, 3, 1, 0, K64, 65536, 3 }, { W, 4, 2, 0, K64, 65536, 3 } },
	  END_FLUSH, 0, 5, 1,
	  { { R, 3, 1, 0, K64, 1, 0 }, { W, 4, 2, 0, K64, 1, 0 },
	    { R, 3, 1, K64, K64, 1, 0 }, { W, 4, 2, K64, K64, 1, 0 },
	    { R, 3, 1, 2 * K64, K64, 1, 0 }, { W, 4, 2, 2 * K64, K64, 1, 0 } } },
	{ "cp, strided with one slot", S, 1, 0, 1,
	  { { R, 3, 1, 0, K64, 65536, 2 }, { W, 4, 2, 0, K64, 65536, 2 } },
	  END_FLUSH, 0, 3, 1,
	  { { R, 3, 1, 0, K64, 1, 0 }, { W, 4, 2, 0, K64, 1, 0 },
	    { R, 3, 1, K64, K64, 1, 0 }, { W, 4, 2, K64, K64, 1, 0 } } },
	{ "lseek+read, strided", S, 2, 0, 1,
	  { { SK, 3, 1, 0, 0, 65536, 4 }, { R, 3, 1, 0, K64, 65536, 4 } },
	  END_FLUSH, 0, 0, 2, { { SK, 3, 1, 0, 0, 4, 65536 },
	  { R, 3, 1, 0, K64, 4, 65536 } } },
	{ "lseek+read, contig", C, 1, 0, 1,
	  { { SK, 3, 1, 0, 0, 65536, 2 }, { R, 3, 1, 0, K64, 65536, 2 } },
	  END_FLUSH, 0, 3, 1,
	  { { SK, 3, 1, 0, 0, 1, 0 }, { R, 3, 1, 0, K64, 1, 0 },
	    { SK, 3, 1, K64, 0, 1, 0 }, { R, 3, 1, K64, K64, 1, 0 } } },
	{ "LRU eviction", S, 2, 0, 0,
	  { { W, 3, 1, 0, K4, 0, 1 }, { W, 4, 2, 0, K4, 0, 1 },
	    { W, 3, 1, K4, K4, 0, 1 }, { W, 5, 3, 0, K4, 0, 1 },
	    { W, 3, 1, 2 * K4, K4, 0, 1 }, { W, 6, 4, 0, K4, 0, 1 } },
	  END_FLUSH, 0, 2, 2,
	  { { W, 4, 2, 0, K4, 1, 0 }, { W, 5, 3, 0, K4, 1, 0 },
	    { W, 3, 1, 0, K4, 3, K4 }, { W, 6, 4, 0, K4, 1, 0 } } },
	{ "close_fd", S, 5, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 2 }, { W, 4, 2, 0, K4, 0, 1 },
	    { R, 3, 1, 0, K4, 0, 1 }, { W, 5, 3, 0, K4, 0, 1 },
	    { W, 3, 9, 0, K4, 0, 1 } },
	  END_CLOSE, 3, 0, 3,
	  { { W, 3, 1, 0, K4, 2, K4 }, { R, 3, 1, 0, K4, 1, 0 },
	    { W, 3, 9, 0, K4, 1, 0 }, { W, 4, 2, 0, K4, 1, 0 },
	    { W, 5, 3, 0, K4, 1, 0 } } },
	{ "close_fd of no run", S, 4, 0, 0, { { W, 3, 1, 0, K4, K4, 2 } },
	  END_CLOSE, 4, 0, 0, { { W, 3, 1, 0, K4, 2, K4 } } },
	{ "flush order", S, 4, 0, 0,
	  { { W, 3, 1, 0, K4, 0, 1 }, { W, 4, 2, 0, K4, 0, 1 },
	    { W, 5, 3, 0, K4, 0, 1 }, { W, 3, 1, K4, K4, 0, 1 },
	    { W, 4, 2, K4, K4, 0, 1 } },
	  END_FLUSH, 0, 0, 3,
	  { { W, 5, 3, 0, K4, 1, 0 }, { W, 3, 1, 0, K4, 2, K4 },
	    { W, 4, 2, 0, K4, 2, K4 } } },
	{ "reset", S, 4, 0, 1,
	  { { W, 3, 1, 0, K4, K4, 3 }, { R, 4, 2, 0, K4, K4, 3 } },
	  END_RESET, 0, 0, 0, { { 0 } } },
	{ "reset after a break", C, 1, 0, 0,
	  { { W, 3, 1, 0, K4, K4, 3 }, { R, 4, 2, 0, K4, K4, 3 } },
	  END_RESET, 0, 1, 0, { { W, 3, 1, 0, K4, 3, K4 } } },
	{ "max_count", S, 2, 4, 0, { { W, 3, 1, 0, K4, K4, 10 } },
	  END_FLUSH, 0, 2, 1, { { W, 3, 1, 0, K4, 4, K4 },
	  { W, 3, 1, 4 * K4, K4, 4, K4 }, { W, 3, 1, 8 * K4, K4, 2, K4 } } },
	{ "max_count 1", C, 1, 1, 0, { { W, 3, 1, 0, K4, K4, 3 } },
	  END_FLUSH, 0, 3, 0, { { W, 3, 1, 0, K4, 1, 0 },
	  { W, 3, 1, K4, K4, 1, 0 }, { W, 3, 1, 2 * K4, K4, 1, 0 } } },
	{ "wrap past 2^64", S, 4, 0, 0,
	  { { W, 3, 1, 0 - 2 * K4, K4, 4096, 3 } }, END_FLUSH, 0, 1, 1,
	  { { W, 3, 1, 0 - 2 * K4, K4, 2, 4096 }, { W, 3, 1, 0, K4, 1, 0 } } },
	{ "wrap past 2^64, contig", C, 1, 0, 0,
	  { { W, 3, 1, 0 - 2 * K4, K4, 4096, 3 } }, END_FLUSH, 0, 1, 1,
	  { { W, 3, 1, 0 - 2 * K4, K4, 2, 4096 }, { W, 3, 1, 0, K4, 1, 0 } } },
	{ "wrap below 0", S, 4, 0, 0, { { R, 3, 1, K4, K4, -4096, 3 } },
	  END_FLUSH, 0, 1, 1,
	  { { R, 3, 1, K4, K4, 2, -4096 }, { R, 3, 1, 0 - K4, K4, 1, 0 } } },
	{ "stride 2^63 does not fit", S, 4, 0, 0,
	  { { W, 3, 1, 0, 1, INT64_MIN, 2 } }, END_FLUSH, 0, 1, 1,
	  { { W, 3, 1, 0, 1, 1, 0 }, { W, 3, 1, TOP, 1, 1, 0 } } },
	{ "stride -2^63 fits", S, 4, 0, 0,
	  { { W, 3, 1, TOP, 1, INT64_MIN, 2 } }, END_FLUSH, 0, 0, 1,
	  { { W, 3, 1, TOP, 1, 2, INT64_MIN } } },
	{ "stride -(2^63 + 1) does not fit", S, 4, 0, 0,
	  { { W, 3, 1, TOP + 1, 1, INT64_MAX, 2 } }, END_FLUSH, 0, 1, 1,
	  { { W, 3, 1, TOP + 1, 1, 1, 0 }, { W, 3, 1, 0, 1, 1, 0 } } },
	{ "stride INT64_MAX up to 2^64-2", S, 4, 0, 0,
	  { { W, 3, 1, 0, 1, INT64_MAX, 3 } }, END_FLUSH, 0, 0, 1,
	  { { W, 3, 1, 0, 1, 3, INT64_MAX } } },
	{ "contig size over INT64_MAX", C, 1, 0, 0,
	  { { W, 3, 1, 0, TOP, INT64_MIN, 2 } }, END_FLUSH, 0, 1, 1,
	  { { W, 3, 1, 0, TOP, 1, 0 }, { W, 3, 1, TOP, TOP, 1, 0 } } },
};

struct capture {
	struct bcn_iorun runs[OPS_MAX];
	unsigned n;
};

static void capture(void *arg, const struct bcn_iorun *run)
{
	struct capture *c = arg;

	assert_true(c->n < OPS_MAX);
	c->runs[c->n++] = *run;
}

/* The operations of a case, in order; returns how many. */
static unsigned build(const struct scase *sc, struct bcn_ioop *ops)
{
	unsigned nseg = 0, n = 0, k, more = 1;

	while (nseg < SEGS_MAX && sc->segs[nseg].n)
		nseg++;
	for (k = 0; more; k++) {
		more = 0;
		for (unsigned s = 0; s < nseg; s++) {
			const struct seg *g = &sc->segs[s];
			unsigned lo = sc->interleave ? k : 0;
			unsigned hi = sc->interleave ? k + 1 : g->n;

			for (unsigned j = lo; j < hi && j < g->n; j++) {
				struct bcn_ioop *o = &ops[n];

				assert_true(n < OPS_MAX);
				memset(o, 0, sizeof(*o));
				o->op = g->op;
				o->fd = g->fd;
				o->file = g->file;
				o->offset = g->off + (uint64_t)j * (uint64_t)g->step;
				o->size = g->size;
				o->start = 1000 * (int64_t)n;
				o->end = o->start + 100;
				n++;
				more = sc->interleave;
			}
		}
	}
	return n;
}

static void check_run(const char *name, unsigned i, const struct want *w,
		      const struct bcn_iorun *r)
{
	if (r->op != w->op || r->fd != w->fd || r->file != w->file ||
	    r->offset != w->offset || r->size != w->size ||
	    r->count != w->count || r->stride != w->stride)
		fail_msg("%s: run %u is op %u fd %lld file %llu offset %llu "
			 "size %llu count %llu stride %lld", name, i, r->op,
			 (long long)r->fd, (unsigned long long)r->file,
			 (unsigned long long)r->offset,
			 (unsigned long long)r->size,
			 (unsigned long long)r->count, (long long)r->stride);
	assert_int_equal(r->busy, 100 * r->count);
	assert_true(r->last - r->first >= 100);
}

static void test_table(void **state)
{
	static struct bcn_ioop ops[OPS_MAX];
	static struct capture c;

	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		const struct scase *sc = &cases[t];
		struct bcn_iorun_ctx x;
		unsigned nops = build(sc, ops), nwant = 0, after_end;

		while (nwant < RUNS_MAX && sc->runs[nwant].count)
			nwant++;
		c.n = 0;
		bcn_iorun_init(&x, sc->mode, sc->slots, sc->max_count, capture,
			       &c);
		for (unsigned i = 0; i < nops; i++)
			bcn_iorun_add(&x, &ops[i]);
		if (c.n != sc->nbefore)
			fail_msg("%s: %u runs while adding", sc->name, c.n);
		assert_int_equal(x.ops_in, nops);
		if (sc->end == END_CLOSE)
			bcn_iorun_close_fd(&x, sc->end_fd);
		else if (sc->end == END_RESET)
			bcn_iorun_reset(&x);
		else
			bcn_iorun_flush(&x);
		if (c.n != sc->nbefore + sc->nend)
			fail_msg("%s: %u runs after the end", sc->name, c.n);
		after_end = c.n;
		bcn_iorun_flush(&x);
		assert_int_equal(x.nopen, 0);
		if (sc->end == END_RESET) {
			assert_int_equal(c.n, after_end);
			assert_int_equal(x.ops_in, 0);
			assert_int_equal(x.runs_out, 0);
		} else {
			assert_int_equal(x.runs_out, c.n);
		}
		if (c.n != nwant)
			fail_msg("%s: %u runs, want %u", sc->name, c.n, nwant);
		for (unsigned i = 0; i < c.n; i++)
			check_run(sc->name, i, &sc->runs[i], &c.runs[i]);
	}
}

static void test_init_clamps(void **state)
{
	struct bcn_iorun_ctx x;

	bcn_iorun_init(&x, BCN_IORUN_CONTIG, 8, 0, NULL, NULL);
	assert_int_equal(x.slots, 1);
	bcn_iorun_init(&x, BCN_IORUN_STRIDED, 0, 0, NULL, NULL);
	assert_int_equal(x.slots, 1);
	bcn_iorun_init(&x, BCN_IORUN_STRIDED, 1000, 0, NULL, NULL);
	assert_int_equal(x.slots, BCN_IORUN_SLOTS_MAX);
	assert_int_equal(x.nopen, 0);
	/* without a callback runs are still counted */
	for (unsigned i = 0; i < 40; i++) {
		struct bcn_ioop op = { W, (int64_t)i, 1, 0, K4, 0, 1 };

		bcn_iorun_add(&x, &op);
		assert_true(x.nopen <= BCN_IORUN_SLOTS_MAX);
	}
	assert_int_equal(x.runs_out, 40 - BCN_IORUN_SLOTS_MAX);
	bcn_iorun_flush(&x);
	assert_int_equal(x.runs_out, 40);
}

struct time_case {
	int64_t start[3], end[3];
	int64_t first, last;
	uint64_t busy;
};

static const struct time_case time_cases[] = {
	{ { 100, 200, 300 }, { 150, 250, 400 }, 100, 400, 50 + 50 + 100 },
	/* a negative duration counts as 0 */
	{ { 100, 200, 300 }, { 150, 180, 400 }, 100, 400, 50 + 0 + 100 },
	/* last is the largest end, not the end of the last operation */
	{ { 100, 200, 300 }, { 1000, 300, 350 }, 100, 1000, 900 + 100 + 50 },
	{ { 100, 200, 300 }, { 50, 60, 70 }, 100, 70, 0 },
	/* no signed overflow; busy saturates */
	{ { INT64_MIN, INT64_MIN, 0 }, { INT64_MAX, INT64_MAX, 0 }, INT64_MIN,
	  INT64_MAX, UINT64_MAX },
	{ { INT64_MIN, 0, 0 }, { INT64_MAX, 0, 0 }, INT64_MIN, INT64_MAX,
	  UINT64_MAX },
};

static void test_times(void **state)
{
	static struct capture c;

	for (size_t t = 0; t < sizeof(time_cases) / sizeof(time_cases[0]);
	     t++) {
		const struct time_case *tc = &time_cases[t];
		struct bcn_iorun_ctx x;

		c.n = 0;
		bcn_iorun_init(&x, BCN_IORUN_STRIDED, 2, 0, capture, &c);
		for (unsigned i = 0; i < 3; i++) {
			struct bcn_ioop op = { R, 3, 1, i * K4, K4,
					       tc->start[i], tc->end[i] };

			bcn_iorun_add(&x, &op);
		}
		bcn_iorun_flush(&x);
		assert_int_equal(c.n, 1);
		assert_int_equal(c.runs[0].count, 3);
		assert_int_equal(c.runs[0].first, tc->first);
		assert_int_equal(c.runs[0].last, tc->last);
		assert_int_equal(c.runs[0].busy, tc->busy);
	}
}

struct expand_case {
	uint64_t offset, count;
	int64_t stride;
	uint64_t i;
	int rc;
	uint64_t want;
};

static const struct expand_case expand_cases[] = {
	{ 100, 5, -10, 0, 0, 100 },
	{ 100, 5, -10, 4, 0, 60 },
	{ 100, 5, -10, 5, -ERANGE, 0 },
	{ 100, 5, -10, UINT64_MAX, -ERANGE, 0 },
	{ 100, 0, 0, 0, -ERANGE, 0 },
	{ 5, 2, -10, 1, -ERANGE, 0 },
	{ UINT64_MAX - 10, 3, 5, 1, 0, UINT64_MAX - 5 },
	{ UINT64_MAX - 10, 3, 5, 2, 0, UINT64_MAX },
	{ UINT64_MAX - 10, 4, 5, 3, -ERANGE, 0 },
	{ 0, UINT64_MAX, 2, TOP, -ERANGE, 0 },
	{ 0, UINT64_MAX, 2, TOP - 1, 0, UINT64_MAX - 1 },
	{ TOP, 2, INT64_MIN, 1, 0, 0 },
	{ TOP - 1, 2, INT64_MIN, 1, -ERANGE, 0 },
	{ 0, 3, INT64_MAX, 2, 0, UINT64_MAX - 1 },
	{ 7, UINT64_MAX, 0, UINT64_MAX - 1, 0, 7 },
};

static void test_expand(void **state)
{
	for (size_t t = 0; t < sizeof(expand_cases) / sizeof(expand_cases[0]);
	     t++) {
		const struct expand_case *ec = &expand_cases[t];
		struct bcn_iorun run = { W, 4, 9, ec->offset, 512, ec->count,
					 ec->stride, 11, 22, 33 };
		struct bcn_ioop op;
		int rc;

		memset(&op, 0xa5, sizeof(op));
		rc = bcn_iorun_expand(&run, ec->i, &op);
		if (rc != ec->rc)
			fail_msg("expand case %zu: rc %d", t, rc);
		if (rc) {
			assert_int_equal(op.fd, (int64_t)0xa5a5a5a5a5a5a5a5ull);
			continue;
		}
		assert_int_equal(op.op, W);
		assert_int_equal(op.fd, 4);
		assert_int_equal(op.file, 9);
		assert_int_equal(op.size, 512);
		assert_int_equal(op.offset, ec->want);
		assert_int_equal(op.start, ec->i == 0 ? 11 : 0);
		assert_int_equal(op.end, ec->i == ec->count - 1 ? 22 : 0);
	}
}

/* ---- randomized lossless check ---- */

#define TRACE_MAX 400
#define KEYS_MAX 128
#define TRACES 4000

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* An event of a trace: an operation, or close_fd(op.fd) when closing. */
struct event {
	struct bcn_ioop op;
	int closing;
};

struct stream {
	uint8_t op;
	int64_t fd;
	uint64_t file, pos, size;
	int64_t stride;
	int random;
};

struct checker {
	const struct event *ev;
	unsigned nev;
	struct bcn_ioop keys[KEYS_MAX];         /* op, fd, file */
	unsigned nkeys;
	unsigned keyof[TRACE_MAX];
	unsigned order[TRACE_MAX];              /* event indices by key */
	unsigned kstart[KEYS_MAX + 1], cursor[KEYS_MAX];
	enum bcn_iorun_mode mode;
	uint64_t max_count, counts, runs;
};

static uint64_t pick_size(void)
{
	static const uint64_t sizes[] = { 0, 1, 512, 4096, 65536, 1 << 20,
					  TOP + 4096 };

	if (rnd() % 16 == 0)
		return rnd() % 100000;
	return sizes[rnd() % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void new_stream(struct stream *s)
{
	static const uint8_t ops[] = { R, W, SK, ST };
	uint64_t k = rnd() % 8;

	s->op = ops[rnd() % 4];
	s->fd = (int64_t)(rnd() % 5) - 1 + (rnd() % 5 == 0 ? 0 : 4);
	s->file = rnd() % 4;
	s->size = pick_size();
	s->pos = rnd() % 4 == 0 ? UINT64_MAX - rnd() % (1u << 22)
				 : rnd() % (1u << 30);
	s->random = k == 0;
	if (k <= 2)
		s->stride = (int64_t)s->size;
	else if (k == 3)
		s->stride = 0;
	else if (k == 4)
		s->stride = -(int64_t)(s->size & 0xffffffff);
	else if (k == 5)
		s->stride = (int64_t)(rnd() % (1u << 24)) - (1 << 23);
	else if (k == 6)
		s->stride = (int64_t)(s->size * (1 + rnd() % 64));
	else
		s->stride = (int64_t)rnd();
}

static unsigned gen_trace(struct event *ev)
{
	struct stream st[6];
	unsigned ns = 1 + rnd() % 6, n = 1 + rnd() % TRACE_MAX, cur = 0;
	int64_t t = (int64_t)(rnd() % 1000000);

	for (unsigned s = 0; s < ns; s++)
		new_stream(&st[s]);
	for (unsigned i = 0; i < n; i++) {
		struct stream *s;

		if (rnd() % 4 == 0)
			cur = rnd() % ns;
		s = &st[cur];
		memset(&ev[i], 0, sizeof(ev[i]));
		if (rnd() % 64 == 0) {
			ev[i].closing = 1;
			ev[i].op.fd = s->fd;
			continue;
		}
		if (rnd() % 32 == 0)
			s->size = pick_size();
		if (rnd() % 32 == 0)
			s->pos = rnd();
		ev[i].op.op = s->op;
		ev[i].op.fd = s->fd;
		ev[i].op.file = s->file;
		ev[i].op.offset = s->random ? (rnd() % 4096) * 4096 : s->pos;
		ev[i].op.size = s->size;
		t += (int64_t)(rnd() % 1000);
		ev[i].op.start = t;
		ev[i].op.end = t + (int64_t)(rnd() % 2000) - 100;
		s->pos += (uint64_t)s->stride;
	}
	return n;
}

static unsigned key_index(struct checker *k, const struct bcn_ioop *op,
			  int add)
{
	for (unsigned i = 0; i < k->nkeys; i++)
		if (k->keys[i].op == op->op && k->keys[i].fd == op->fd &&
		    k->keys[i].file == op->file)
			return i;
	if (!add)
		fail_msg("a run of an unknown key");
	assert_true(k->nkeys < KEYS_MAX);
	k->keys[k->nkeys] = *op;
	return k->nkeys++;
}

/* Groups the operations by key, keeping their order. */
static void index_trace(struct checker *k)
{
	unsigned nk;

	k->nkeys = 0;
	for (unsigned i = 0; i < k->nev; i++)
		if (!k->ev[i].closing)
			k->keyof[i] = key_index(k, &k->ev[i].op, 1);
	nk = k->nkeys;
	memset(k->kstart, 0, sizeof(k->kstart));
	for (unsigned i = 0; i < k->nev; i++)
		if (!k->ev[i].closing)
			k->kstart[k->keyof[i] + 1]++;
	for (unsigned i = 0; i < nk; i++)
		k->kstart[i + 1] += k->kstart[i];
	memset(k->cursor, 0, sizeof(k->cursor));
	for (unsigned i = 0; i < k->nev; i++)
		if (!k->ev[i].closing) {
			unsigned key = k->keyof[i];

			k->order[k->kstart[key] + k->cursor[key]++] = i;
		}
	memset(k->cursor, 0, sizeof(k->cursor));
}

/* Each run must rebuild the next count operations of its key. */
static void check_emitted(void *arg, const struct bcn_iorun *run)
{
	struct checker *k = arg;
	struct bcn_ioop op = { run->op, run->fd, run->file, 0, 0, 0, 0 };
	unsigned key = key_index(k, &op, 0);
	int64_t first = INT64_MAX, last = INT64_MIN;
	uint64_t busy = 0;

	assert_true(run->count >= 1);
	assert_true(k->max_count == 0 || run->count <= k->max_count);
	if (run->count == 1)
		assert_int_equal(run->stride, 0);
	else if (k->mode == BCN_IORUN_CONTIG)
		assert_int_equal((uint64_t)run->stride, run->size);
	for (uint64_t i = 0; i < run->count; i++) {
		const struct bcn_ioop *o;
		unsigned pos = k->kstart[key] + k->cursor[key]++;
		uint64_t d;

		assert_true(pos < k->kstart[key + 1]);
		o = &k->ev[k->order[pos]].op;
		assert_int_equal(bcn_iorun_expand(run, i, &op), 0);
		assert_int_equal(op.offset, o->offset);
		assert_int_equal(op.size, o->size);
		if (o->start < first)
			first = o->start;
		if (o->end > last)
			last = o->end;
		d = o->end > o->start ? (uint64_t)(o->end - o->start) : 0;
		busy += d;
	}
	assert_int_equal(bcn_iorun_expand(run, run->count, &op), -ERANGE);
	assert_int_equal(run->first, first);
	assert_int_equal(run->last, last);
	assert_int_equal(run->busy, busy);
	k->counts += run->count;
	k->runs++;
}

/* The paper's merge, written plainly: the runs a trace gives. */
static uint64_t reference_contig(const struct event *ev, unsigned n,
				 uint64_t max_count)
{
	const struct bcn_ioop *cur = NULL;
	uint64_t runs = 0, count = 0, next = 0;
	int next_ok = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct bcn_ioop *o = &ev[i].op;

		if (ev[i].closing) {
			if (cur && cur->fd == o->fd)
				cur = NULL;
			continue;
		}
		if (cur && o->op == cur->op && o->fd == cur->fd &&
		    o->file == cur->file && o->size == cur->size &&
		    next_ok && o->offset == next && cur->size <= INT64_MAX) {
			count++;
		} else {
			cur = o;
			count = 1;
			runs++;
		}
		next_ok = o->offset <= UINT64_MAX - o->size;
		next = o->offset + o->size;
		if (max_count && count == max_count)
			cur = NULL;
	}
	return runs;
}

static void test_lossless_random(void **state)
{
	static const unsigned slots[] = { 1, 2, 3, 5, 16 };
	static const uint64_t maxc[] = { 0, 7 };
	static struct event ev[TRACE_MAX];
	static struct checker k;
	uint64_t total_ops = 0, total_runs[2] = { 0, 0 };

	for (unsigned tr = 0; tr < TRACES; tr++) {
		k.ev = ev;
		k.nev = gen_trace(ev);
		index_trace(&k);
		for (unsigned m = 0; m < 2; m++)
		for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); s++)
		for (size_t c = 0; c < 2; c++) {
			struct bcn_iorun_ctx x;
			unsigned nops = 0;

			k.mode = m ? BCN_IORUN_STRIDED : BCN_IORUN_CONTIG;
			k.max_count = maxc[c];
			k.counts = k.runs = 0;
			memset(k.cursor, 0, sizeof(k.cursor));
			bcn_iorun_init(&x, k.mode, slots[s], k.max_count,
				       check_emitted, &k);
			for (unsigned i = 0; i < k.nev; i++) {
				if (ev[i].closing) {
					bcn_iorun_close_fd(&x, ev[i].op.fd);
					continue;
				}
				bcn_iorun_add(&x, &ev[i].op);
				nops++;
				assert_true(x.nopen <= x.slots);
			}
			bcn_iorun_flush(&x);
			for (unsigned key = 0; key < k.nkeys; key++)
				assert_int_equal(k.kstart[key] + k.cursor[key],
						 k.kstart[key + 1]);
			assert_int_equal(x.ops_in, nops);
			assert_int_equal(k.counts, nops);
			assert_int_equal(x.runs_out, k.runs);
			if (m == 0)
				assert_int_equal(k.runs,
						 reference_contig(ev, k.nev,
								  k.max_count));
			if (s == 0 && c == 0)
				total_runs[m] += k.runs;
			if (m == 0 && s == 0 && c == 0)
				total_ops += nops;
		}
	}
	/* strided mode never emits more runs than the paper's merge here */
	assert_true(total_runs[1] <= total_runs[0]);
	assert_true(total_runs[0] < total_ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_init_clamps),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_lossless_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
