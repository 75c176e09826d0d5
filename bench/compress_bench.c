/* First-pass compression benchmark (compress/iorun): synthetic
 * per-process traces of HPC I/O patterns, each process with its own
 * compressor as in the tracer; for each pattern the records emitted in
 * strided mode and with the paper's contiguous merge, the compression
 * ratio (operations per emitted record) and the strided throughput over
 * the compression loop alone (traces pre-generated, best of 3). One JSON
 * object per line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/record.h"
#include "compress/iorun.h"

#define OPS 1000000             /* operations per pattern, all processes */
#define RANKS 64
#define PROCS_MAX 64
#define SLOTS 8                 /* open runs per compressor, strided mode */
#define REPEAT 3
#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)
#define T0 INT64_C(1700000000000000000)

static uint64_t st = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return st;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Operations of every process of one pattern, process after process. */
struct trace {
	struct bcn_ioop *ops;
	size_t n;
	size_t end[PROCS_MAX];          /* end of each process's operations */
	unsigned nproc;
	size_t limit;                   /* end of the current process's share */
	int64_t clk;                    /* the current process's clock, ns */
};

static void proc_begin(struct trace *t, unsigned nproc)
{
	t->limit = t->n + OPS / nproc;
	t->clk = T0 + (int64_t)(rnd() % 1000000);
}

static void proc_end(struct trace *t)
{
	t->end[t->nproc++] = t->n;
}

static size_t room(const struct trace *t)
{
	return t->limit - t->n;
}

/* One operation, timed: about 2 GB/s for data, 20 us for metadata. */
static void put(struct trace *t, uint8_t op, int64_t fd, uint64_t file,
		uint64_t off, uint64_t size)
{
	struct bcn_ioop *o = &t->ops[t->n++];
	int64_t dur = size ? 1000 + (int64_t)(size / 2) : 20000;

	if (t->n > t->limit) {
		fprintf(stderr, "compress_bench: generator overran its share\n");
		exit(1);
	}
	o->op = op;
	o->fd = fd;
	o->file = file;
	o->offset = off;
	o->size = size;
	o->start = t->clk;
	o->end = t->clk + dur + (int64_t)(rnd() % 500);
	t->clk = o->end + (int64_t)(rnd() % 2000);
}

static uint64_t file_id(uint64_t a, uint64_t b)
{
	return (a * 0x9e3779b97f4a7c15ull) ^ (b + 1) * 0xc2b2ae3d27d4eb4full;
}

/* Each rank checkpoints into its own file per step: stat, open, up to
 * 128 writes of 1 MiB, close. */
static void gen_nn(struct trace *t)
{
	for (unsigned r = 0; r < RANKS; r++) {
		proc_begin(t, RANKS);
		for (uint64_t s = 0; room(t) >= 4; s++) {
			uint64_t f = file_id(r, s), w = room(t) - 3;

			w = w > 128 ? 128 : w;
			put(t, BCN_IO_STAT, -1, f, 0, 0);
			put(t, BCN_IO_OPEN, 3, f, 0, 0);
			for (uint64_t i = 0; i < w; i++)
				put(t, BCN_IO_WRITE, 3, f, i * MIB, MIB);
			put(t, BCN_IO_CLOSE, 3, f, 0, 0);
		}
		proc_end(t);
	}
}

/* Ranks interleave blocks of B in one shared file: rank r writes block
 * i at (i * RANKS + r) * B; with per_group ranks per file (n-m) rank r
 * uses file r / per_group and stride per_group * B. */
static void gen_shared(struct trace *t, uint64_t b, unsigned per_group,
		       int segmented)
{
	for (unsigned r = 0; r < RANKS; r++) {
		uint64_t f = file_id(1000 + r / per_group, 7);
		uint64_t w, seg = (OPS / RANKS) * b;

		proc_begin(t, RANKS);
		put(t, BCN_IO_OPEN, 5, f, 0, 0);
		w = room(t) - 1;
		for (uint64_t i = 0; i < w; i++) {
			uint64_t off = segmented ? r * seg + i * b
				: (i * per_group + r % per_group) * b;

			put(t, BCN_IO_WRITE, 5, f, off, b);
		}
		put(t, BCN_IO_CLOSE, 5, f, 0, 0);
		proc_end(t);
	}
}

static void gen_n1_strided(struct trace *t)
{
	gen_shared(t, 256 * KIB, RANKS, 0);
}

static void gen_n1_segmented(struct trace *t)
{
	gen_shared(t, MIB, RANKS, 1);
}

static void gen_nm(struct trace *t)
{
	gen_shared(t, MIB, RANKS / 8, 0);
}

/* Rank 0 alone: reads inputs in bursts of equal pieces of 4 KiB .. 1 MiB,
 * writes a result of 1 MiB pieces after each input. */
static void gen_11(struct trace *t)
{
	static const uint64_t sizes[] = { 4 * KIB, 16 * KIB, 64 * KIB,
					  256 * KIB, MIB };

	proc_begin(t, 1);
	for (uint64_t k = 0; room(t) >= 6; k++) {
		uint64_t in = file_id(k, 1), outf = file_id(k, 2), off = 0;
		uint64_t reads = room(t) - 5, writes;

		reads = reads > 4000 ? 4000 : reads;
		writes = reads / 10;
		reads -= writes;
		put(t, BCN_IO_OPEN, 3, in, 0, 0);
		while (reads) {
			uint64_t sz = sizes[rnd() % 5], n = 1 + rnd() % 32;

			for (; n && reads; n--, reads--, off += sz)
				put(t, BCN_IO_READ, 3, in, off, sz);
		}
		put(t, BCN_IO_CLOSE, 3, in, 0, 0);
		put(t, BCN_IO_OPEN, 4, outf, 0, 0);
		for (uint64_t i = 0; i < writes; i++)
			put(t, BCN_IO_WRITE, 4, outf, i * MIB, MIB);
		put(t, BCN_IO_CLOSE, 4, outf, 0, 0);
	}
	proc_end(t);
}

/* A row-major array of RANKS * 8 doubles per row: rank r writes its 64
 * byte piece of every row (stride 4 KiB), one array per step. */
static void gen_column(struct trace *t)
{
	for (unsigned r = 0; r < RANKS; r++) {
		proc_begin(t, RANKS);
		for (uint64_t s = 0; room(t) >= 3; s++) {
			uint64_t f = file_id(2000 + s, 3), rows = room(t) - 2;

			rows = rows > 1024 ? 1024 : rows;
			put(t, BCN_IO_OPEN, 3, f, 0, 0);
			for (uint64_t i = 0; i < rows; i++)
				put(t, BCN_IO_WRITE, 3, f, i * RANKS * 64 + r * 64,
				    64);
			put(t, BCN_IO_CLOSE, 3, f, 0, 0);
		}
		proc_end(t);
	}
}

/* cp of many files: read fd 3 / write fd 4 in 128 KiB pieces, the tail
 * shorter, then the read that returns 0. */
static void gen_cp(struct trace *t)
{
	const uint64_t b = 128 * KIB;

	proc_begin(t, 1);
	for (uint64_t k = 0; room(t) >= 8; k++) {
		uint64_t src = file_id(k, 4), dst = file_id(k, 5);
		uint64_t blocks = 1 + rnd() % 2000, tail = rnd() % b, i;

		if (blocks * 2 + 7 > room(t))
			blocks = (room(t) - 7) / 2;
		put(t, BCN_IO_STAT, -1, src, 0, 0);
		put(t, BCN_IO_OPEN, 3, src, 0, 0);
		put(t, BCN_IO_OPEN, 4, dst, 0, 0);
		for (i = 0; i + 1 < blocks; i++) {
			put(t, BCN_IO_READ, 3, src, i * b, b);
			put(t, BCN_IO_WRITE, 4, dst, i * b, b);
		}
		put(t, BCN_IO_READ, 3, src, i * b, tail);
		put(t, BCN_IO_WRITE, 4, dst, i * b, tail);
		put(t, BCN_IO_READ, 3, src, i * b + tail, 0);
		put(t, BCN_IO_CLOSE, 3, src, 0, 0);
		put(t, BCN_IO_CLOSE, 4, dst, 0, 0);
	}
	proc_end(t);
}

/* Each rank reads its file by lseek(x) + read(64 KiB at x), x contiguous. */
static void gen_lseek_read(struct trace *t)
{
	for (unsigned r = 0; r < RANKS; r++) {
		uint64_t f = file_id(3000 + r, 6), n;

		proc_begin(t, RANKS);
		put(t, BCN_IO_OPEN, 3, f, 0, 0);
		n = (room(t) - 1) / 2;
		for (uint64_t i = 0; i < n; i++) {
			put(t, BCN_IO_SEEK, 3, f, i * 64 * KIB, 0);
			put(t, BCN_IO_READ, 3, f, i * 64 * KIB, 64 * KIB);
		}
		put(t, BCN_IO_CLOSE, 3, f, 0, 0);
		proc_end(t);
	}
}

/* Reads of 4 KiB at random aligned offsets of a 64 GiB shared file. */
static void gen_random(struct trace *t)
{
	uint64_t f = file_id(4000, 7);

	for (unsigned r = 0; r < RANKS; r++) {
		proc_begin(t, RANKS);
		put(t, BCN_IO_OPEN, 3, f, 0, 0);
		while (room(t) > 1)
			put(t, BCN_IO_READ, 3, f, (rnd() % (16 * MIB)) * 4 * KIB,
			    4 * KIB);
		put(t, BCN_IO_CLOSE, 3, f, 0, 0);
		proc_end(t);
	}
}

/* One rank's activities interleaved, each staying on for a while:
 * checkpoint writes (fd 5), strided input reads (fd 3), small log appends
 * of varying size (fd 4), stats of random files, lseek+read (fd 6). */
static void gen_mixed(struct trace *t)
{
	for (unsigned r = 0; r < RANKS; r++) {
		uint64_t pos[5] = { 0, 0, 0, 0, 0 }, in = file_id(5000, 8);
		uint64_t ck = file_id(5001 + r, 8), lg = file_id(6000 + r, 8);
		uint64_t aux = file_id(7000 + r, 8);
		unsigned a = 0;

		proc_begin(t, RANKS);
		while (room(t) >= 2) {
			if (rnd() % 10 == 0)
				a = rnd() % 5;
			if (a == 0) {
				put(t, BCN_IO_WRITE, 5, ck, pos[0] * MIB, MIB);
			} else if (a == 1) {
				put(t, BCN_IO_READ, 3, in,
				    (pos[1] * RANKS + r) * 256 * KIB, 256 * KIB);
			} else if (a == 2) {
				uint64_t sz = 60 + rnd() % 4;

				put(t, BCN_IO_WRITE, 4, lg, pos[2], sz);
				pos[2] += sz - 1;
			} else if (a == 3) {
				put(t, BCN_IO_STAT, -1, file_id(rnd() % 64, 9),
				    0, 0);
			} else {
				put(t, BCN_IO_SEEK, 6, aux, pos[4] * 8 * KIB, 0);
				put(t, BCN_IO_READ, 6, aux, pos[4] * 8 * KIB,
				    8 * KIB);
			}
			pos[a]++;
		}
		proc_end(t);
	}
}

struct pattern {
	const char *name;
	void (*gen)(struct trace *t);
};

static const struct pattern patterns[] = {
	{ "n-n", gen_nn },
	{ "n-1-strided", gen_n1_strided },
	{ "n-1-segmented", gen_n1_segmented },
	{ "n-m", gen_nm },
	{ "1-1", gen_11 },
	{ "column", gen_column },
	{ "cp", gen_cp },
	{ "lseek-read", gen_lseek_read },
	{ "random", gen_random },
	{ "mixed", gen_mixed },
};

struct sink {
	uint64_t runs, counts;
};

static void consume(void *arg, const struct bcn_iorun *run)
{
	struct sink *k = arg;

	k->runs++;
	k->counts += run->count;
}

/* Compresses every process of t with its own compressor (closing a
 * descriptor's runs at its close, as the tracer does); returns seconds. */
static double compress(const struct trace *t, enum bcn_iorun_mode mode,
		       struct sink *k)
{
	struct bcn_iorun_ctx x;
	size_t i = 0;
	double t0 = now();

	k->runs = k->counts = 0;
	for (unsigned p = 0; p < t->nproc; p++) {
		bcn_iorun_init(&x, mode, SLOTS, 0, consume, k);
		for (; i < t->end[p]; i++) {
			bcn_iorun_add(&x, &t->ops[i]);
			if (t->ops[i].op == BCN_IO_CLOSE)
				bcn_iorun_close_fd(&x, t->ops[i].fd);
		}
		bcn_iorun_flush(&x);
	}
	return now() - t0;
}

/* The best of REPEAT timings; exits when a run loses operations. */
static double best(const struct trace *t, enum bcn_iorun_mode mode,
		   const char *name, struct sink *k)
{
	double b = 1e30;

	for (int r = 0; r < REPEAT; r++) {
		double s = compress(t, mode, k);

		if (k->counts != t->n) {
			fprintf(stderr, "compress_bench: %s: runs hold %llu "
				"operations of %zu\n", name,
				(unsigned long long)k->counts, t->n);
			exit(1);
		}
		b = s < b ? s : b;
	}
	return b;
}

int main(void)
{
	struct trace t;
	double all_s = 0, all_c = 0;
	size_t all = 0;

	memset(&t, 0, sizeof(t));
	t.ops = calloc(OPS, sizeof(*t.ops));
	if (!t.ops) {
		fprintf(stderr, "compress_bench: out of memory\n");
		return 1;
	}
	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		struct sink ks, kc;
		double ts, tc;

		t.n = 0;
		t.nproc = 0;
		patterns[p].gen(&t);
		ts = best(&t, BCN_IORUN_STRIDED, patterns[p].name, &ks);
		tc = best(&t, BCN_IORUN_CONTIG, patterns[p].name, &kc);
		all += t.n;
		all_s += ts;
		all_c += tc;
		printf("{\"bench\":\"iorun\",\"pattern\":\"%s\",\"ops\":%zu,"
		       "\"procs\":%u,\"slots\":%d,"
		       "\"runs_strided\":%llu,\"ratio_strided\":%.2f,"
		       "\"runs_paper_contig\":%llu,\"ratio_paper_contig\":%.2f,"
		       "\"ops_per_s\":%.0f}\n", patterns[p].name, t.n, t.nproc,
		       SLOTS, (unsigned long long)ks.runs,
		       (double)t.n / (double)ks.runs,
		       (unsigned long long)kc.runs,
		       (double)t.n / (double)kc.runs, (double)t.n / ts);
	}
	printf("{\"bench\":\"iorun\",\"pattern\":\"all\",\"mode\":\"strided\","
	       "\"ops\":%zu,\"ops_per_s\":%.0f}\n", all, (double)all / all_s);
	printf("{\"bench\":\"iorun\",\"pattern\":\"all\",\"mode\":\"contig\","
	       "\"ops\":%zu,\"ops_per_s\":%.0f}\n", all, (double)all / all_c);
	free(t.ops);
	return 0;
}
