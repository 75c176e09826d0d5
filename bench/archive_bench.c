/* Second-pass compression benchmark (compress/archive): the records of
 * one simulated 1,024-node job, as the first pass leaves them (io runs
 * per node and sample, OST and MDT job_stats windows), in several
 * patterns. For each: the first pass's bytes (DATA frames, zlib level 1,
 * as the collectors send them, each node's records in as few frames as
 * the limits allow), the same frames at zlib level 9 (what zlib alone
 * would gain), the archive's bytes, the ratio over the first pass, and
 * encode and decode throughput in records per second (best of 3; decode
 * checks the whole archive, then hands out every record). One JSON
 * object per line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "compress/archive.h"
#include "compress/recset.h"
#include "proto/fileid.h"
#include "proto/record.h"

#define NODES 1024
#define OSTS 32
#define MDTS 1
#define REPEAT 3
#define JOB 4103947
#define SEC INT64_C(1000000000)
#define MIB UINT64_C(1048576)
#define T0 INT64_C(1790000000000000000)
#define OUT_MAX ((size_t)1 << 31)

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
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add(struct bcn_recset *s, const struct bcn_record *r)
{
	if (bcn_recset_add(s, r)) {
		fprintf(stderr, "archive_bench: out of memory\n");
		exit(1);
	}
}

struct pattern {
	const char *name;
	int shared;                     /* n-1: one file, rank-strided */
	int jitter;                     /* per-node time and size noise */
	unsigned phases, ticks;         /* I/O phases, samples per phase */
};

static struct bcn_record io(const char *node, int64_t t, uint64_t op,
			    uint64_t k)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_IO);
	r.node = node;
	r.t = t;
	r.job = JOB;
	r.u.io.op = op;
	r.u.io.rank = (int64_t)k;
	r.u.io.pid = 23000 + (k * 7) % 5000;
	return r;
}

/* Node k's records of one phase: an open, a write run per sample (as
 * the first pass flushes runs every sample), a close. */
static void node_phase(struct bcn_recset *s, const struct pattern *p,
		       uint64_t k, unsigned ph, int64_t t)
{
	char node[16], path[96];
	uint64_t per = 128 * MIB, off;
	struct bcn_record r;

	snprintf(node, sizeof(node), "cn%05" PRIu64, k + 1);
	if (p->shared)
		snprintf(path, sizeof(path), "/lustre/proj/run%u/shared.h5", ph);
	else
		snprintf(path, sizeof(path), "/lustre/proj/run%u/ckpt.%05"
			 PRIu64, ph, k);
	r = io(node, t, BCN_IO_OPEN, k);
	r.u.io.fd = (int64_t)(rnd() >> 40) | 0x1000;      /* handle */
	r.u.io.file = bcn_file_id(path, strlen(path));
	r.u.io.path = path;
	add(s, &r);
	r.u.io.path = "";
	for (unsigned i = 0; i < p->ticks; i++) {
		uint64_t n = 16 + (p->jitter ? rnd() % 3 : 0);

		r.u.io.op = BCN_IO_WRITE;
		r.t = t + (int64_t)i * SEC + SEC / 100 +
		      (p->jitter ? (int64_t)(rnd() % 2000000) : 0);
		r.dur = SEC - SEC / 50;
		r.u.io.size = MIB;
		r.u.io.count = n;
		off = (uint64_t)i * 16 * MIB;
		r.u.io.offset = p->shared ? off * NODES + k * per : off;
		r.u.io.stride = (int64_t)MIB;
		r.u.io.busy = (uint64_t)r.dur - 1000 * (p->jitter ? rnd() % 999 : 0);
		add(s, &r);
	}
	r.u.io.op = BCN_IO_CLOSE;
	r.t = t + (int64_t)p->ticks * SEC;
	r.dur = SEC / 1000;
	r.u.io.size = r.u.io.count = 1;
	r.u.io.offset = r.u.io.busy = 0;
	r.u.io.stride = 0;
	r.u.io.count = 1;
	add(s, &r);
}

/* The servers' job_stats windows of the phase: per OST and MDT. */
static void server_phase(struct bcn_recset *s, const struct pattern *p,
			 int64_t t)
{
	char node[16], target[32], jobid[16];

	snprintf(jobid, sizeof(jobid), "%d", JOB);
	for (unsigned i = 0; i < p->ticks; i += 10) {
		for (unsigned o = 0; o < OSTS + MDTS; o++) {
			struct bcn_record r;
			uint64_t bytes = NODES / OSTS * 160 * MIB + rnd() % MIB;

			bcn_record_init(&r, o < OSTS ? BCN_REC_OST : BCN_REC_MDS);
			r.t = t + (int64_t)i * SEC;
			r.dur = 10 * SEC;
			r.job = JOB;
			r.node = node;
			if (o < OSTS) {
				snprintf(node, sizeof(node), "oss%03u", o / 4 + 1);
				snprintf(target, sizeof(target), "fs-OST%04x", o);
				r.u.ost.target = target;
				r.u.ost.jobid = jobid;
				r.u.ost.write_bytes = bytes;
				r.u.ost.ops[BCN_OST_WRITE] = bytes / MIB;
				r.u.ost.pages_write[8] = bytes / MIB;
			} else {
				snprintf(node, sizeof(node), "mds%02u", 1);
				r.u.mds.target = "fs-MDT0000";
				r.u.mds.jobid = jobid;
				r.u.mds.ops[BCN_MD_OPEN] = NODES;
				r.u.mds.ops[BCN_MD_CLOSE] = NODES;
			}
			add(s, &r);
		}
	}
}

static void make_job(struct bcn_recset *s, const struct pattern *p)
{
	for (unsigned ph = 0; ph < p->phases; ph++) {
		int64_t t = T0 + (int64_t)ph * 600 * SEC;

		for (uint64_t k = 0; k < NODES; k++)
			node_phase(s, p, k, ph, t);
		server_phase(s, p, t);
	}
}

static int count_rec(void *arg, const struct bcn_record *r)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

static void run(const struct pattern *p)
{
	struct bcn_archive_stats stats;
	struct bcn_recset s;
	struct bcn_buf out;
	uint64_t f1 = 0, f9 = 0, n = 0;
	double enc = 1e30, dec = 1e30;

	bcn_recset_init(&s, (size_t)1 << 26);
	make_job(&s, p);
	bcn_buf_init(&out, OUT_MAX);
	if (bcn_archive_frame_bytes(s.recs, s.n, 1, &f1) ||
	    bcn_archive_frame_bytes(s.recs, s.n, 9, &f9)) {
		fprintf(stderr, "archive_bench: framing failed\n");
		exit(1);
	}
	for (int i = 0; i < REPEAT; i++) {
		double t = now();

		bcn_buf_reset(&out);
		if (bcn_archive_encode(JOB, s.recs, s.n, &out, &stats)) {
			fprintf(stderr, "archive_bench: encoding failed\n");
			exit(1);
		}
		t = now() - t;
		enc = t < enc ? t : enc;
		t = now();
		n = 0;
		if (bcn_archive_decode(out.data, out.len, NULL, count_rec, &n,
				       NULL) || n != s.n) {
			fprintf(stderr, "archive_bench: decoding failed\n");
			exit(1);
		}
		t = now() - t;
		dec = t < dec ? t : dec;
	}
	printf("{\"bench\":\"archive\",\"pattern\":\"%s\",\"nodes\":%d,"
	       "\"records\":%zu,\"groups\":%" PRIu64 ",\"merged_nodes\":%"
	       PRIu64 ",\"first_pass_bytes\":%" PRIu64 ",\"frames_zlib9_bytes\":%"
	       PRIu64 ",\"archive_bytes\":%zu,\"ratio\":%.2f,"
	       "\"ratio_over_zlib9\":%.2f,\"encode_records_per_s\":%.0f,"
	       "\"decode_records_per_s\":%.0f}\n", p->name, NODES, s.n,
	       stats.groups, stats.merged_nodes, f1, f9, out.len,
	       (double)f1 / (double)out.len, (double)f9 / (double)out.len,
	       (double)s.n / enc, (double)s.n / dec);
	fflush(stdout);
	bcn_buf_free(&out);
	bcn_recset_free(&s);
}

int main(void)
{
	static const struct pattern patterns[] = {
		{ "n-n", 0, 0, 8, 60 },
		{ "n-1 strided", 1, 0, 8, 60 },
		{ "n-n jittered", 0, 1, 8, 60 },
	};

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		run(&patterns[i]);
	return 0;
}
