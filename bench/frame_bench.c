/* Frame codec benchmark: encode and decode throughput in records per
 * second and MB/s (of encoded frames), and compressed bytes per record,
 * for the record mixes each layer sends. One JSON object per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/frame.h"

#define PER_FRAME 1000
#define FRAMES 400

static uint64_t st = 7;

static uint64_t rnd(void)
{
	st = st * 6364136223846793005ull + 1442695040888963407ull;
	return st >> 33;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A compute-node trace after first-pass compression: runs of strided
 * writes and reads from a few ranks and files. */
static void mk_io(struct bcn_record *r, long i)
{
	bcn_record_init(r, BCN_REC_IO);
	r->t = 1700000000000000000ll + i * 250000 + (int64_t)(rnd() % 1000);
	r->dur = 20000 + (int64_t)(rnd() % 5000);
	r->job = 4103947;
	r->u.io.rank = i % 64;
	r->u.io.pid = 20000 + (uint64_t)(i % 64);
	r->u.io.op = rnd() % 4 ? BCN_IO_WRITE : BCN_IO_READ;
	r->u.io.fd = 5 + i % 3;
	r->u.io.file = 0x9e3779b97f4a7c15ull * (uint64_t)(i % 64 + 1);
	r->u.io.size = 1u << 20;
	r->u.io.offset = (uint64_t)(i / 64) << 26;
	r->u.io.count = 1 + rnd() % 16;
	r->u.io.stride = 1 << 20;
	r->u.io.busy = r->u.io.count * 900000;
}

/* OST job_stats records: one per (target, job). */
static void mk_ost(struct bcn_record *r, long i)
{
	static char tgt[8][32], job[64][16];

	if (!tgt[0][0]) {
		for (int k = 0; k < 8; k++)
			snprintf(tgt[k], sizeof(tgt[k]), "lustre-OST%04x", k);
		for (int k = 0; k < 64; k++)
			snprintf(job[k], sizeof(job[k]), "%d", 4100000 + k * 37);
	}
	bcn_record_init(r, BCN_REC_OST);
	r->t = 1700000000000000000ll + (i / 512) * 1000000000ll;
	r->dur = 1000000000;
	r->u.ost.target = tgt[i % 8];
	r->u.ost.jobid = job[(i / 8) % 64];
	r->u.ost.read_bytes = rnd() % (64u << 20);
	r->u.ost.write_bytes = rnd() % (256u << 20);
	r->u.ost.ops[BCN_OST_READ] = rnd() % 64;
	r->u.ost.ops[BCN_OST_WRITE] = rnd() % 256;
	r->u.ost.ops[BCN_OST_PUNCH] = rnd() % 3;
	r->u.ost.pages_write[8] = rnd() % 200;
	r->u.ost.pages_write[10] = rnd() % 50;
}

static void bench(const char *name, void (*mk)(struct bcn_record *, long))
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_record *recs = calloc(PER_FRAME * FRAMES, sizeof(*recs));
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	struct bcn_frame f;
	struct bcn_record r;
	double t0, t1, t2;
	size_t off = 0, used, raw = 0;
	long n = 0;

	if (!recs)
		exit(1);
	for (long i = 0; i < PER_FRAME * FRAMES; i++)
		mk(&recs[i], i);
	bcn_buf_init(&wire, 1u << 30);
	bcn_frame_builder_init(&b, &lim, 1);
	t0 = now();
	for (long fr = 0; fr < FRAMES; fr++) {
		for (long i = 0; i < PER_FRAME; i++)
			bcn_frame_builder_add(&b, &recs[fr * PER_FRAME + i]);
		raw += bcn_frame_builder_size(&b);
		if (bcn_frame_builder_finish(&b, "cn00001", (uint64_t)fr, &wire))
			exit(1);
	}
	t1 = now();
	bcn_frame_init(&f);
	while (off < wire.len) {
		if (bcn_frame_open(&f, wire.data + off, wire.len - off, &lim, &used))
			exit(1);
		off += used;
		while (bcn_frame_next(&f, &r) == 1)
			n++;
	}
	t2 = now();
	if (n != PER_FRAME * FRAMES)
		exit(1);
	printf("{\"bench\":\"frame\",\"mix\":\"%s\",\"metric\":\"encode_records_per_s\",\"value\":%.0f}\n",
	       name, n / (t1 - t0));
	printf("{\"bench\":\"frame\",\"mix\":\"%s\",\"metric\":\"encode_MB_per_s\",\"value\":%.1f}\n",
	       name, wire.len / (t1 - t0) / 1e6);
	printf("{\"bench\":\"frame\",\"mix\":\"%s\",\"metric\":\"decode_records_per_s\",\"value\":%.0f}\n",
	       name, n / (t2 - t1));
	printf("{\"bench\":\"frame\",\"mix\":\"%s\",\"metric\":\"decode_MB_per_s\",\"value\":%.1f}\n",
	       name, wire.len / (t2 - t1) / 1e6);
	printf("{\"bench\":\"frame\",\"mix\":\"%s\",\"metric\":\"bytes_per_record\",\"value\":%.2f,"
	       "\"uncompressed\":%.2f,\"in_memory\":%zu}\n",
	       name, (double)wire.len / n, (double)raw / n, sizeof(struct bcn_record));
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	free(recs);
}

int main(void)
{
	bench("io", mk_io);
	bench("ost", mk_ost);
	return 0;
}
