/* Unit tests of analysis/report_files.c: each access pattern class of a
 * run and between runs, runs of 2^40 operations counted without a loop,
 * misalignment against a brute force, records of many streams shuffled
 * (exact as in order while within the window; unordered beyond it),
 * N-N paths grouped with the top rows, the rest and the overflow adding
 * up to the job exactly, every bound making the result partial, paths,
 * sizes, times, processes and the JSON. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/report_files.h"
#include "common/error.h"
#include "json_check.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

struct io_spec {
	const char *node;
	uint64_t pid;
	int op;
	uint64_t file;
	uint64_t offset, size, count;
	int64_t stride;
	int64_t t, dur;
	uint64_t busy;
};

static struct bcn_record rec(const struct io_spec *s)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_IO);
	r.node = s->node ? s->node : "cn01";
	r.job = 7;
	r.t = s->t;
	r.dur = s->dur;
	r.u.io.pid = s->pid;
	r.u.io.rank = (int64_t)s->pid;
	r.u.io.op = (uint64_t)s->op;
	r.u.io.file = s->file;
	r.u.io.offset = s->offset;
	r.u.io.size = s->size;
	r.u.io.count = s->count;
	r.u.io.stride = s->stride;
	r.u.io.busy = s->busy;
	return r;
}

static void add(struct bcn_rfiles *f, const struct io_spec *s)
{
	struct bcn_record r = rec(s);
	struct bcn_record_totals t;

	bcn_record_totals(&r, &t);
	assert_int_equal(bcn_rfiles_add(f, &r, &t), 0);
}

static void open_rec(struct bcn_rfiles *f, uint64_t pid, uint64_t file,
		     const char *path, int64_t t)
{
	struct io_spec s = { .pid = pid, .op = BCN_IO_OPEN, .file = file,
			     .count = 1, .t = t, .dur = 1000, .busy = 1000 };
	struct bcn_record r = rec(&s);
	struct bcn_record_totals tot;

	r.u.io.path = path;
	bcn_record_totals(&r, &tot);
	assert_int_equal(bcn_rfiles_add(f, &r, &tot), 0);
}

static struct bcn_rfiles_config cfg(void)
{
	struct bcn_rfiles_config c;

	bcn_rfiles_config_defaults(&c);
	return c;
}

/* The sum of the rows, the rest and the overflow equals the total. */
static void assert_adds_up(const struct bcn_rfiles_result *res)
{
	struct bcn_rfiles_stats s;

	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < res->nrows + 2; i++) {
		const struct bcn_rfiles_stats *x =
			i < res->nrows ? &res->rows[i].s :
			i == res->nrows ? &res->rest.s : &res->overflow.s;

		s.read_bytes += x->read_bytes;
		s.write_bytes += x->write_bytes;
		s.read_ops += x->read_ops;
		s.write_ops += x->write_ops;
		s.meta_ops += x->meta_ops;
		s.consec_ops += x->consec_ops;
		s.seq_ops += x->seq_ops;
		s.random_ops += x->random_ops;
		s.unordered_ops += x->unordered_ops;
		s.read_time += x->read_time;
		s.write_time += x->write_time;
		s.meta_time += x->meta_time;
	}
	assert_int_equal(s.read_bytes, res->total.read_bytes);
	assert_int_equal(s.write_bytes, res->total.write_bytes);
	assert_int_equal(s.read_ops, res->total.read_ops);
	assert_int_equal(s.write_ops, res->total.write_ops);
	assert_int_equal(s.meta_ops, res->total.meta_ops);
	assert_int_equal(s.consec_ops, res->total.consec_ops);
	assert_int_equal(s.seq_ops, res->total.seq_ops);
	assert_int_equal(s.random_ops, res->total.random_ops);
	assert_int_equal(s.unordered_ops, res->total.unordered_ops);
	assert_int_equal(s.read_time, res->total.read_time);
	assert_int_equal(s.write_time, res->total.write_time);
	assert_int_equal(s.meta_time, res->total.meta_time);
	/* every data operation has exactly one class */
	assert_int_equal(s.consec_ops + s.seq_ops + s.random_ops +
			 s.unordered_ops, s.read_ops + s.write_ops);
}

static void finish(struct bcn_rfiles *f, struct bcn_rfiles_result *res)
{
	struct bcn_buf b;

	assert_int_equal(bcn_rfiles_finish(f, res), 0);
	assert_adds_up(res);
	bcn_buf_init(&b, 1 << 24);
	assert_int_equal(bcn_rfiles_to_json(res, &b), 0);
	if (!json_check((const char *)b.data, b.len))
		fail_msg("invalid JSON: %.*s", (int)b.len, (const char *)b.data);
	bcn_buf_free(&b);
}

/* ---- patterns ---- */

struct pattern_case {
	const char *what;
	struct io_spec r[3];
	size_t n;
	uint64_t consec, seq, random;
};

#define RD(o, sz, c, st, tt) { .pid = 1, .op = BCN_IO_READ, .file = 9, \
	.offset = (o), .size = (sz), .count = (c), .stride = (st), .t = (tt), \
	.dur = 10 }
#define WR(o, sz, c, st, tt) { .pid = 1, .op = BCN_IO_WRITE, .file = 9, \
	.offset = (o), .size = (sz), .count = (c), .stride = (st), .t = (tt), \
	.dur = 10 }

static const struct pattern_case patterns[] = {
	{ "contiguous run from 0", { RD(0, 4096, 10, 4096, 100) }, 1,
	  10, 0, 0 },
	{ "contiguous run after a hole", { RD(8192, 4096, 10, 4096, 100) }, 1,
	  9, 1, 0 },
	{ "strided run", { RD(0, 4096, 10, 8192, 100) }, 1, 1, 9, 0 },
	{ "same offset again", { RD(0, 4096, 10, 0, 100) }, 1, 1, 0, 9 },
	{ "overlapping", { RD(0, 4096, 5, 1024, 100) }, 1, 1, 0, 4 },
	{ "backwards", { RD(40960, 4096, 10, -4096, 100) }, 1, 0, 1, 9 },
	{ "next run adjacent", { RD(0, 100, 1, 100, 100),
				 RD(100, 100, 1, 100, 200) }, 2, 2, 0, 0 },
	{ "next run after a gap", { RD(0, 100, 3, 100, 100),
				    RD(1000, 100, 1, 100, 200) }, 2, 3, 1, 0 },
	{ "next run before", { RD(1000, 100, 1, 100, 100),
			       RD(0, 100, 1, 100, 200) }, 2, 0, 1, 1 },
	{ "a strided run's end is its last op's", {
	  RD(0, 10, 3, 100, 100), RD(210, 10, 1, 10, 200) }, 2, 2, 2, 0 },
	{ "reads and writes are separate streams", {
	  RD(0, 100, 1, 100, 100), WR(0, 100, 1, 100, 150),
	  RD(100, 100, 1, 100, 200) }, 3, 3, 0, 0 },
	{ "zero-size ops", { RD(0, 0, 4, 0, 100) }, 1, 4, 0, 0 },
};

static void test_patterns(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
		const struct pattern_case *c = &patterns[k];
		struct bcn_rfiles_config co = cfg();
		struct bcn_rfiles f;
		struct bcn_rfiles_result res;

		bcn_rfiles_init(&f, &co);
		for (size_t i = 0; i < c->n; i++)
			add(&f, &c->r[i]);
		finish(&f, &res);
		if (res.total.consec_ops != c->consec ||
		    res.total.seq_ops != c->seq ||
		    res.total.random_ops != c->random ||
		    res.total.unordered_ops)
			fail_msg("%s: %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
				 c->what, res.total.consec_ops, res.total.seq_ops,
				 res.total.random_ops, res.total.unordered_ops);
		/* the same figures on the file's row */
		assert_int_equal(res.nrows, 1);
		assert_int_equal(res.rows[0].s.consec_ops, c->consec);
		bcn_rfiles_result_free(&res);
		bcn_rfiles_free(&f);
	}
}

/* Two processes on one file: their streams do not interleave. */
static void test_processes_apart(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;

	(void)state;
	bcn_rfiles_init(&f, &co);
	for (int i = 0; i < 10; i++) {  /* interleaved in time, each its own
					 * half of the file, contiguous */
		struct io_spec a = RD((uint64_t)i * 100, 100, 1, 100, i * 10);
		struct io_spec b = RD(5000 + (uint64_t)i * 100, 100, 1, 100,
				      i * 10 + 5);

		b.pid = 2;
		add(&f, &a);
		add(&f, &b);
	}
	finish(&f, &res);
	assert_int_equal(res.total.consec_ops, 19);
	assert_int_equal(res.total.seq_ops, 1);    /* pid 2 starts at 5000 */
	assert_int_equal(res.total.random_ops, 0);
	assert_int_equal(res.rows[0].procs, 2);
	assert_int_equal(res.procs, 2);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

/* ---- huge runs and alignment ---- */

static void test_huge_run(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;
	uint64_t n = 1ull << 40;
	struct io_spec w = { .pid = 1, .op = BCN_IO_WRITE, .file = 1,
			     .offset = 0, .size = 4096, .count = n,
			     .stride = 4096, .t = 1000, .dur = 1000,
			     .busy = 900 };
	struct io_spec r = { .pid = 1, .op = BCN_IO_READ, .file = 1,
			     .offset = 512, .size = 4096, .count = n,
			     .stride = 8192, .t = 3000, .dur = 1000,
			     .busy = 700 };

	(void)state;
	bcn_rfiles_init(&f, &co);
	add(&f, &w);
	add(&f, &r);
	finish(&f, &res);
	assert_int_equal(res.total.write_ops, n);
	assert_int_equal(res.total.write_bytes, n * 4096);
	assert_int_equal(res.total.read_ops, n);
	assert_int_equal(res.total.consec_ops, n);         /* the writes */
	assert_int_equal(res.total.seq_ops, n);            /* the reads */
	/* writes: one in 256 starts a 1 MiB stripe; all start a page */
	assert_int_equal(res.total.misaligned_page, n);    /* reads at +512 */
	assert_int_equal(res.total.misaligned_stripe, n - n / 256 + n);
	assert_int_equal(res.total.small_write_ops, n);
	assert_int_equal(res.total.small_read_ops, n);
	assert_int_equal(res.total.write_time, 900);
	assert_int_equal(res.total.read_time, 700);
	assert_int_equal(res.rows[0].size_common, 4096);
	assert_int_equal(res.rows[0].size_common_ops, 2 * n);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

static uint64_t brute_misaligned(uint64_t off, int64_t stride, uint64_t n,
				 uint64_t a)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i++) {
		__int128 o = (__int128)off + (__int128)i * stride;
		__int128 m = o % (__int128)a;

		bad += m != 0;
	}
	return bad;
}

static void test_misaligned(void **state)
{
	static const uint64_t aligns[] = { 2, 3, 6, 12, 4096, 1u << 20, 1000 };
	uint64_t x = 88172645463325252ull;

	(void)state;
	assert_int_equal(bcn_rfiles_misaligned(5, 3, 100, 0), 0);
	assert_int_equal(bcn_rfiles_misaligned(5, 3, 100, 1), 0);
	assert_int_equal(bcn_rfiles_misaligned(0, 0, 100, 4096), 0);
	assert_int_equal(bcn_rfiles_misaligned(1, 0, 100, 4096), 100);
	/* 2^40 operations of a stride 3 pages apart from page 1: exact */
	assert_int_equal(bcn_rfiles_misaligned(4096, 3 * 4096, 1ull << 40,
					       1u << 20),
			 (1ull << 40) - (1ull << 40) / 256);
	for (int k = 0; k < 20000; k++) {
		uint64_t a = aligns[k % 7], n, off;
		int64_t stride;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = x % 300;
		off = (x >> 9) % (4 * a) + (k & 1 ? a * 1000 : 0);
		stride = (int64_t)((x >> 23) % (6 * a)) - (int64_t)(3 * a);
		if (k % 5 == 0)
			stride = (int64_t)(a * ((x >> 40) % 4));
		if ((__int128)off + (__int128)(n ? n - 1 : 0) * stride < 0)
			continue;       /* offsets never go below 0 */
		assert_int_equal(bcn_rfiles_misaligned(off, stride, n, a),
				 brute_misaligned(off, stride, n, a));
	}
}

/* ---- order ---- */

#define STREAMS 6
#define RUNS 60

/* A random walk of runs per stream: adjacent, holes, jumps back. */
static void walk(struct io_spec *rs, uint64_t seed)
{
	uint64_t x = seed;

	for (int s = 0; s < STREAMS; s++) {
		uint64_t off = 0;

		for (int i = 0; i < RUNS; i++) {
			struct io_spec *r = &rs[s * RUNS + i];
			uint64_t c;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			c = 1 + x % 4;
			memset(r, 0, sizeof(*r));
			r->pid = 1 + (uint64_t)s / 2;
			r->op = s % 2 ? BCN_IO_WRITE : BCN_IO_READ;
			r->file = 100 + (uint64_t)s % 3;
			r->size = 4096;
			r->count = c;
			r->stride = x % 7 == 0 ? 8192 : 4096;
			r->offset = x % 5 == 0 ? off + 4096 :
				    x % 11 == 0 && off > 65536 ? off - 65536 : off;
			r->t = (int64_t)i * 1000 + s;
			r->dur = 500;
			off = r->offset + (c - 1) * (uint64_t)r->stride + 4096;
		}
	}
}

static void run_order(const struct io_spec *rs, const size_t *order,
		      struct bcn_rfiles_result *res)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;

	bcn_rfiles_init(&f, &co);
	for (size_t i = 0; i < STREAMS * RUNS; i++)
		add(&f, &rs[order[i]]);
	finish(&f, res);
	bcn_rfiles_free(&f);
}

static int key_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void test_out_of_order(void **state)
{
	static struct io_spec rs[STREAMS * RUNS];
	static size_t in_order[STREAMS * RUNS], shuffled[STREAMS * RUNS];
	static uint64_t keys[STREAMS * RUNS][2];
	struct bcn_rfiles_result a, b;
	uint64_t x = 2463534242ull;

	(void)state;
	walk(rs, 12345);
	for (size_t i = 0; i < STREAMS * RUNS; i++)
		in_order[i] = i;
	run_order(rs, in_order, &a);
	assert_true(a.total.seq_ops > 0 && a.total.random_ops > 0 &&
		    a.total.consec_ops > 0);
	/* streams interleaved at random, each record at most 2 behind */
	for (size_t i = 0; i < STREAMS * RUNS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		keys[i][0] = ((i % RUNS) * 4 + x % 9) * 16 + x % 16;
		keys[i][1] = i;
	}
	qsort(keys, STREAMS * RUNS, sizeof(keys[0]), key_cmp);
	for (size_t i = 0; i < STREAMS * RUNS; i++)
		shuffled[i] = (size_t)keys[i][1];
	run_order(rs, shuffled, &b);
	assert_int_equal(b.total.unordered_ops, 0);
	assert_int_equal(b.total.consec_ops, a.total.consec_ops);
	assert_int_equal(b.total.seq_ops, a.total.seq_ops);
	assert_int_equal(b.total.random_ops, a.total.random_ops);
	bcn_rfiles_result_free(&b);
	/* every stream backwards: beyond the window, first ops unordered */
	for (size_t i = 0; i < STREAMS * RUNS; i++)
		shuffled[i] = STREAMS * RUNS - 1 - i;
	run_order(rs, shuffled, &b);
	assert_true(b.total.unordered_ops > 0);
	assert_true(b.total.unordered_ops <= STREAMS * RUNS);
	assert_int_equal(b.total.read_ops, a.total.read_ops);
	bcn_rfiles_result_free(&b);
	bcn_rfiles_result_free(&a);
}

/* Runs of one stream in every order of 4 (the window): always exact. */
static void test_window_permutations(void **state)
{
	struct io_spec rs[4] = {
		RD(0, 100, 2, 100, 100), RD(200, 100, 1, 100, 200),
		RD(900, 100, 1, 100, 300), RD(0, 100, 1, 100, 400),
	};
	(void)state;
	for (int n = 0; n < 24; n++) {
		struct bcn_rfiles_config co = cfg();
		struct bcn_rfiles f;
		struct bcn_rfiles_result res;
		int k = n, rest[4] = { 0, 1, 2, 3 }, m = 4, p[4];

		/* the n-th permutation: digits of n in bases 4, 3, 2, 1 pick
		 * from what is left (a different n, a different order) */
		for (int i = 0; i < 4; i++) {
			int pick = k % m;

			k /= m;
			p[i] = rest[pick];
			rest[pick] = rest[--m];
		}
		bcn_rfiles_init(&f, &co);
		for (int i = 0; i < 4; i++)
			add(&f, &rs[p[i]]);
		finish(&f, &res);
		assert_int_equal(res.total.consec_ops, 3);
		assert_int_equal(res.total.seq_ops, 1);
		assert_int_equal(res.total.random_ops, 1);
		assert_int_equal(res.total.unordered_ops, 0);
		bcn_rfiles_result_free(&res);
		bcn_rfiles_free(&f);
	}
}

/* ---- groups, rows and bounds ---- */

static void test_group_name(void **state)
{
	static const char *const cases[][2] = {
		{ "/scratch/out/rank0007.dat", "/scratch/out/rank#.dat" },
		{ "/run42/step_00100/part-7.h5", "/run#/step_#/part-#.h#" },
		{ "a1b22c333", "a#b#c#" },
		{ "123", "#" },
		{ "", "" },
		{ "/no/digits", "/no/digits" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bcn_rfiles_group_name(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
	bcn_rfiles_group_name("/abc/def", out, 5);
	assert_string_equal(out, "/abc");
}

/* An N-N job: 100 ranks each write rank<r>.dat and read a shared mesh;
 * rank 0 writes a log; 3 checkpoint files of 3 ranks. */
static void nn_job(struct bcn_rfiles *f)
{
	char path[64];

	for (uint64_t r = 0; r < 100; r++) {
		struct io_spec w = { .pid = 1000 + r, .op = BCN_IO_WRITE,
				     .file = 1 + r, .size = MIB, .count = 8,
				     .stride = MIB, .t = 2000, .dur = 100,
				     .busy = 50 };
		struct io_spec m = { .pid = 1000 + r, .op = BCN_IO_READ,
				     .file = 500, .offset = r * MIB,
				     .size = 64 * KIB, .count = 16,
				     .stride = 64 * KIB, .t = 1000,
				     .dur = 100, .busy = 30 };

		snprintf(path, sizeof(path), "/scratch/out/rank%04" PRIu64
			 ".dat", r);
		add(f, &w);
		open_rec(f, 1000 + r, 1 + r, path, 1500);
		add(f, &m);
		if (r < 3) {
			w.file = 700 + r;
			w.count = 1;
			add(f, &w);
			snprintf(path, sizeof(path), "/scratch/ckpt/c%" PRIu64,
				 r);
			open_rec(f, 1000 + r, 700 + r, path, 1900);
		}
	}
	open_rec(f, 1000, 500, "/scratch/in/mesh.h5", 900);
	{
		struct io_spec l = { .pid = 1000, .op = BCN_IO_WRITE,
				     .file = 900, .size = 100, .count = 3,
				     .stride = 100, .t = 3000, .dur = 10 };

		add(f, &l);
		open_rec(f, 1000, 900, "/home/u/job.log", 2900);
	}
}

static void test_groups(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;

	(void)state;
	co.rows_max = 2;
	bcn_rfiles_init(&f, &co);
	nn_job(&f);
	finish(&f, &res);
	assert_false(res.partial);
	assert_int_equal(res.files, 100 + 1 + 3 + 1);
	assert_int_equal(res.groups, 4);
	assert_int_equal(res.nrows, 2);
	assert_string_equal(res.rows[0].name, "/scratch/out/rank#.dat");
	assert_true(res.rows[0].group);
	assert_int_equal(res.rows[0].files, 100);
	assert_int_equal(res.rows[0].procs, 100);
	assert_int_equal(res.rows[0].s.write_bytes, 100 * 8 * MIB);
	assert_int_equal(res.rows[0].s.consec_ops, 800);
	/* the mesh, one file read by every rank (100 MiB) */
	assert_string_equal(res.rows[1].name, "/scratch/in/mesh.h5");
	assert_false(res.rows[1].group);
	assert_int_equal(res.rows[1].files, 1);
	assert_int_equal(res.rows[1].procs, 100);
	assert_int_equal(res.rows[1].s.read_bytes, 100 * MIB);
	/* rank r starts at r MiB: sequential, then consecutive */
	assert_int_equal(res.rows[1].s.seq_ops, 99);
	assert_int_equal(res.rows[1].s.consec_ops, 1 + 100 * 15);
	/* the 3 checkpoints and the log in the rest */
	assert_int_equal(res.rest.files, 4);
	assert_int_equal(res.rest.procs, 3);
	assert_int_equal(res.rest.s.read_bytes, 0);
	assert_int_equal(res.rest.s.write_bytes, 3 * MIB + 300);
	assert_int_equal(res.overflow.s.read_bytes + res.overflow.s.write_bytes,
			 0);
	assert_int_equal(res.overflow.files, 0);
	assert_int_equal(res.total.write_bytes, 803 * MIB + 300);
	assert_int_equal(res.read_only, 1);
	assert_int_equal(res.write_only, 104);
	assert_int_equal(res.small_bytes, MIB);
	assert_int_equal(res.total.small_read_ops, 1600);
	assert_int_equal(res.total.small_write_ops, 3);
	assert_int_equal(res.procs, 100);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);

	/* with enough rows: the checkpoints' group, then the log */
	co.rows_max = 10;
	bcn_rfiles_init(&f, &co);
	nn_job(&f);
	finish(&f, &res);
	assert_int_equal(res.nrows, 4);
	assert_string_equal(res.rows[2].name, "/scratch/ckpt/c#");
	assert_true(res.rows[2].group);
	assert_int_equal(res.rows[2].files, 3);
	assert_int_equal(res.rows[2].procs, 3);
	assert_string_equal(res.rows[3].name, "/home/u/job.log");
	assert_false(res.rows[3].group);
	assert_int_equal(res.rest.files, 0);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

static void test_bounds(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;

	(void)state;
	/* files beyond files_max: their bytes in the overflow */
	co.files_max = 10;
	bcn_rfiles_init(&f, &co);
	nn_job(&f);
	finish(&f, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.why, "files_max"));
	assert_int_equal(res.files, 10);
	assert_true(res.overflow.s.write_bytes > 0);
	assert_int_equal(res.total.write_bytes, 803 * MIB + 300);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);

	/* groups beyond groups_max: their files in the overflow, counted */
	co = cfg();
	co.groups_max = 1;
	bcn_rfiles_init(&f, &co);
	nn_job(&f);
	finish(&f, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.why, "groups_max"));
	assert_int_equal(res.groups, 1);
	assert_int_equal(res.rows[0].files, 100);
	assert_int_equal(res.overflow.files, 5);
	assert_int_equal(res.overflow.s.read_bytes, 100 * MIB);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);

	/* pairs beyond pairs_max: first operations unordered */
	co = cfg();
	co.pairs_max = 5;
	bcn_rfiles_init(&f, &co);
	nn_job(&f);
	finish(&f, &res);
	assert_true(res.partial);
	assert_true(res.total.unordered_ops > 0);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);

	/* processes beyond procs_max */
	co = cfg();
	co.procs_max = 7;
	bcn_rfiles_init(&f, &co);
	nn_job(&f);
	finish(&f, &res);
	assert_true(res.partial);
	assert_int_equal(res.procs, 7);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

/* ---- the rest of a file's figures ---- */

static void test_file_figures(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;
	struct io_spec rs[] = {
		{ .pid = 1, .op = BCN_IO_READ, .file = 5, .size = 100,
		  .count = 3, .stride = 100, .t = 5000, .dur = 10, .busy = 7 },
		{ .pid = 1, .op = BCN_IO_WRITE, .file = 5, .offset = 4096,
		  .size = 8192, .count = 1, .stride = 0, .t = 9000, .dur = 500,
		  .busy = 400 },
		{ .pid = 2, .op = BCN_IO_READ, .file = 5, .size = 100,
		  .count = 2, .stride = 100, .t = 4000, .dur = 10, .busy = 5 },
		{ .pid = 2, .op = BCN_IO_SYNC, .file = 5, .count = 1,
		  .t = 9600, .dur = 100, .busy = 90 },
		{ .pid = 2, .op = BCN_IO_STAT, .file = 5, .count = 1,
		  .t = 3000, .dur = 5, .busy = 3 },
		{ .pid = 3, .op = BCN_IO_WRITE, .file = 6, .size = 1,
		  .count = 1, .stride = 1, .t = 100, .dur = 1, .busy = 1000 },
	};
	char name[64];

	(void)state;
	bcn_rfiles_init(&f, &co);
	for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
		add(&f, &rs[i]);
	open_rec(&f, 1, 5, "/data/x.bin", 2000); /* after the data records */
	finish(&f, &res);
	assert_int_equal(res.nrows, 2);
	assert_string_equal(res.rows[0].name, "/data/x.bin");
	assert_int_equal(res.rows[0].procs, 2);
	assert_int_equal(res.rows[0].s.size_min, 100);
	assert_int_equal(res.rows[0].s.size_max, 8192);
	assert_int_equal(res.rows[0].size_common, 100);
	assert_int_equal(res.rows[0].size_common_ops, 5);
	assert_true(res.rows[0].size_exact);
	assert_int_equal(res.rows[0].s.read_time, 12);
	assert_int_equal(res.rows[0].s.write_time, 490);   /* sync too */
	assert_int_equal(res.rows[0].s.meta_time, 3 + 1000);   /* open */
	assert_int_equal(res.rows[0].s.meta_ops, 2);
	assert_int_equal(res.rows[0].s.other_ops, 1);
	assert_int_equal(res.rows[0].s.first, 2000);
	assert_int_equal(res.rows[0].s.last, 9700);
	/* reads at 100 and 200 (pid 1), 100 (pid 2); the write at 4096 */
	assert_int_equal(res.rows[0].s.misaligned_stripe, 4);
	assert_int_equal(res.rows[0].s.misaligned_page, 3);
	snprintf(name, sizeof(name), "file %016" PRIx64, (uint64_t)6);
	assert_string_equal(res.rows[1].name, name);
	assert_int_equal(res.read_write, 1);
	assert_int_equal(res.write_only, 1);
	/* busiest: pid 1 (read, write, its open) over pid 3 (1000 ns) */
	assert_int_equal(res.busiest_pid, 1);
	assert_int_equal(res.proc_time_max, 7 + 400 + 1000);
	assert_string_equal(res.busiest_node, "cn01");
	assert_int_equal(res.busiest_rank, 1);
	assert_int_equal(res.procs, 3);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

/* More sizes than the summary keeps: the most common still found. */
static void test_common_size(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;

	(void)state;
	bcn_rfiles_init(&f, &co);
	for (uint64_t i = 0; i < 20; i++) {
		struct io_spec s = { .pid = 1, .op = BCN_IO_READ, .file = 1,
				     .size = i % 2 ? 4096 : 1 + i, .count = 1,
				     .t = (int64_t)i };

		add(&f, &s);
	}
	finish(&f, &res);
	assert_int_equal(res.rows[0].size_common, 4096);
	assert_false(res.rows[0].size_exact);
	assert_true(res.rows[0].size_common_ops >= 10);
	assert_int_equal(res.rows[0].s.size_min, 1);
	assert_int_equal(res.rows[0].s.size_max, 4096);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

static void test_empty_and_json(void **state)
{
	struct bcn_rfiles_config co = cfg();
	struct bcn_rfiles f;
	struct bcn_rfiles_result res;
	struct bcn_buf b;

	(void)state;
	bcn_rfiles_init(&f, &co);
	finish(&f, &res);
	assert_int_equal(res.nrows, 0);
	assert_int_equal(res.files, 0);
	bcn_rfiles_result_free(&res);
	nn_job(&f);
	assert_int_equal(bcn_rfiles_finish(&f, &res), 0);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_rfiles_to_json(&res, &b), 0);
	assert_int_equal(bcn_buf_add(&b, "", 1), 0);
	assert_non_null(strstr((char *)b.data,
			       "\"name\":\"/scratch/out/rank#.dat\",\"group\":true,"
			       "\"files\":100,\"procs\":100"));
	assert_non_null(strstr((char *)b.data, "\"pattern\":{\"consecutive\":"));
	assert_non_null(strstr((char *)b.data, "\"partial\":false"));
	bcn_buf_free(&b);
	/* a buffer too small: an error, never a cut object */
	bcn_buf_init(&b, 100);
	assert_int_equal(bcn_rfiles_to_json(&res, &b), -BCN_EFULL);
	bcn_buf_free(&b);
	bcn_rfiles_result_free(&res);
	bcn_rfiles_free(&f);
}

/* The configuration keys' defaults are bcn_rfiles_config_defaults'. */
struct files_conf {
	struct bcn_rfiles_config f;
};

static void test_config_keys(void **state)
{
	static const struct bcn_config_opt tab[] = {
		BCN_RFILES_CONFIG_OPTIONS(struct files_conf, f),
		{ .name = NULL },
	};
	struct files_conf a, b;
	char err[BCN_CFG_ERR_MAX];

	(void)state;
	memset(&a, 0xff, sizeof(a));
	assert_int_equal(bcn_config_defaults(tab, &a, err, sizeof(err)), 0);
	memset(&b, 0, sizeof(b));
	bcn_rfiles_config_defaults(&b.f);
	assert_memory_equal(&a, &b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_processes_apart),
		cmocka_unit_test(test_huge_run),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_window_permutations),
		cmocka_unit_test(test_group_name),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_file_figures),
		cmocka_unit_test(test_common_size),
		cmocka_unit_test(test_empty_and_json),
		cmocka_unit_test(test_config_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
