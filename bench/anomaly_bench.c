/* The component anomaly detectors over one simulated day of a machine of
 * TaihuLight's size (docs/anomaly.md, "Cost"): 288 forwarding nodes, 864
 * OSTs, 4 MDTs, 256 leaf switches of 37 ports and 10,000 jobs are written
 * into an embedded store as their collectors would send them (forwarding
 * request windows and osc RPCs, OST totals and job_stats parts every
 * minute, MDT totals and parts, switch ports every 10 minutes), with five
 * injected faults: a slow OST, a slow forwarding node, cache thrashing, a
 * metadata storm at an MDT and a hot switch uplink. Then the day is
 * analysed as beacon-analyzd's catch-up does, one round per 10-minute
 * interval, each over the three hours before its end. Printed: the records written, the wall seconds and peak memory
 * of the detection (all rounds, and the slowest round), and which
 * injections were found with the right kind and component (recall) and
 * how many distinct findings matched none (precision).
 *
 * usage: anomaly_bench STORE_DIR [HOURS [FWD [OSTS [JOBS]]]] */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/anomaly/detect.h"
#include "analysis/stores.h"
#include "common/error.h"
#include "common/text.h"
#include "store/store.h"
#include "node_seq.h"

#define NS 1000000000ll
#define MIN (60 * NS)
#define BATCH 8192
#define MDTS 4
#define SWITCHES 256
#define PORTS 37                        /* 36 nodes and an uplink */
#define STRIPES 4
#define MAXF 4096
#define MAXO 8192
#define ROUNDS_PER_HOUR 6               /* detect_interval 10m */

struct job {
	int64_t start, end;
	uint32_t fwd, nfwd, ost;
	double bw;                      /* bytes/s of the whole job */
	double md;                      /* metadata ops/s */
};

struct filler {
	struct bcn_store *st;
	struct bcn_record recs[BATCH];
	struct bcn_store_item items[BATCH];
	char jobid[BATCH][24];
	size_t n;
	uint64_t total;
	struct node_seq seqs;           /* per sending node */
	int err;
};

static char fwd_name[MAXF][16], ost_name[MAXO][24], mdt_name[MDTS][24];
static char sw_name[SWITCHES][16];
static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static void flush(struct filler *f)
{
	if (f->n && !f->err)
		f->err = bcn_store_append(f->st, f->items, f->n);
	f->total += f->n;
	f->n = 0;
}

static struct bcn_record *next(struct filler *f, int type, const char *node,
			       int64_t t, int64_t dur)
{
	struct bcn_record *r;

	if (f->n == BATCH)
		flush(f);
	r = &f->recs[f->n];
	bcn_record_init(r, type);
	r->node = node;
	r->t = t;
	r->dur = dur;
	f->items[f->n] = (struct bcn_store_item){ r,
		node_seq_next(&f->seqs, node), 0, 1 };
	f->n++;
	return r;
}

/* The injected faults, by hour of the day. */
static bool slow_ost(uint32_t o, int64_t h) { return o == 100 && h >= 3 && h < 6; }
static bool slow_fwd(uint32_t k, int64_t h) { return k == 10 && h >= 8 && h < 10; }
static bool thrash(uint32_t k, int64_t h) { return k == 20 && h == 12; }
static bool storm(int m, int64_t h, int64_t min) { return m == 1 && h == 14 && min < 10; }
static bool hot(int s, int64_t h) { return s == 5 && h == 16; }

struct minute {
	double *fwd_bytes, *ost_bytes;
	double mdt_ops[MDTS];
};

static bool io_minute(const struct job *j, int64_t t)
{
	return t >= j->start && t < j->end && ((t - j->start) / MIN) % 15 < 5;
}

/* The job_stats parts of the active jobs; fills m. */
static void jobs_minute(struct filler *f, const struct job *jobs, size_t nj,
			int64_t t, int64_t h, struct minute *m)
{
	for (size_t i = 0; i < nj; i++) {
		const struct job *j = &jobs[i];
		struct bcn_record *r;

		if (!io_minute(j, t))
			continue;
		for (uint32_t s = 0; s < STRIPES; s++) {
			uint32_t o = j->ost + s;
			double b = j->bw * 60 / STRIPES * (slow_ost(o, h) ? 0.2 : 1);

			r = next(f, BCN_REC_OST, "oss", t, MIN);
			snprintf(f->jobid[f->n - 1], 24, "%zu", i + 1);
			r->job = i + 1;
			r->u.ost.target = ost_name[o];
			r->u.ost.jobid = f->jobid[f->n - 1];
			r->u.ost.write_bytes = (uint64_t)b;
			m->ost_bytes[o] += b;
		}
		for (uint32_t k = 0; k < j->nfwd; k++)
			m->fwd_bytes[j->fwd + k] += j->bw * 60 / j->nfwd *
						   (slow_fwd(j->fwd + k, h) ? 0.3 : 1);
		r = next(f, BCN_REC_MDS, "mds", t, MIN);
		snprintf(f->jobid[f->n - 1], 24, "%zu", i + 1);
		r->job = i + 1;
		r->u.mds.target = mdt_name[i % MDTS];
		r->u.mds.jobid = f->jobid[f->n - 1];
		r->u.mds.ops[BCN_MD_OPEN] = (uint64_t)(j->md * 60);
		m->mdt_ops[i % MDTS] += j->md * 60;
	}
}

static void fwd_minute(struct filler *f, uint32_t nf, int64_t t, int64_t h,
		       const struct minute *m)
{
	for (uint32_t k = 0; k < nf; k++) {
		double b = m->fwd_bytes[k], reqs = b / (1 << 20);
		struct bcn_record *r;

		for (int c = BCN_FWD_ALL; c <= BCN_FWD_META; c++) {
			r = next(f, BCN_REC_FWD_REQ, fwd_name[k], t, MIN);
			r->u.fwd_req.cls = (uint64_t)c;
			if (c == BCN_FWD_ALL) {
				r->u.fwd_req.queue.count = 60;
				r->u.fwd_req.queue.p95 = b > 0 ? 4 : 0;
				continue;
			}
			if (c == BCN_FWD_META) {
				r->u.fwd_req.count = b > 0 ? 600 : 0;
				continue;
			}
			r->u.fwd_req.count = (uint64_t)(reqs * (c == BCN_FWD_READ ? 0.3 : 0.7));
			r->u.fwd_req.bytes = (uint64_t)(b * (c == BCN_FWD_READ ? 0.3 : 0.7));
			r->u.fwd_req.proc.count = r->u.fwd_req.count;
			r->u.fwd_req.proc.sum = r->u.fwd_req.count *
						(slow_fwd(k, h) ? 20000 : 5000);
		}
		r = next(f, BCN_REC_FWD_RPC, fwd_name[k], t, MIN);
		r->u.fwd_rpc.target = ost_name[k % 864];
		r->u.fwd_rpc.read_bytes = (uint64_t)(b * 0.3 * (thrash(k, h) ? 8 : 1));
		r->u.fwd_rpc.write_bytes = (uint64_t)(b * 0.7);
	}
}

static void servers_minute(struct filler *f, uint32_t no, int64_t t, int64_t h,
			   int64_t min, const struct minute *m)
{
	for (uint32_t o = 0; o < no; o++) {
		struct bcn_record *r = next(f, BCN_REC_OST, "oss", t, MIN);

		r->u.ost.target = ost_name[o];
		r->u.ost.write_bytes = (uint64_t)m->ost_bytes[o];
	}
	for (int d = 0; d < MDTS; d++) {
		struct bcn_record *r = next(f, BCN_REC_MDS, "mds", t, MIN);

		r->u.mds.target = mdt_name[d];
		r->u.mds.ops[BCN_MD_OPEN] = (uint64_t)m->mdt_ops[d] +
					    (storm(d, h, min) ? 30000 * 60 : 0);
	}
	if (min % 10)
		return;
	for (int s = 0; s < SWITCHES; s++) {
		double up = 0;

		for (uint64_t p = 1; p <= PORTS; p++) {
			struct bcn_record *r = next(f, BCN_REC_PORT, sw_name[s], t,
						    10 * MIN);
			double v = p < PORTS ? (double)(1 + rnd() % 8) * 1e9 :
				   up * (hot(s, h) ? 4 : 1);

			r->u.port.sw = sw_name[s];
			r->u.port.port = p;
			r->u.port.xmit_bytes = (uint64_t)(v / 2);
			r->u.port.rcv_bytes = (uint64_t)(v / 2);
			up += v;
		}
	}
}

static void make_jobs(struct job *jobs, size_t nj, uint32_t nf, uint32_t no,
		      int64_t t0, int64_t hours)
{
	for (size_t i = 0; i < nj; i++) {
		struct job *j = &jobs[i];

		j->start = t0 + (int64_t)((double)i / (double)nj * (double)hours * 3600) * NS;
		j->end = j->start + (int64_t)(10 + rnd() % 50) * MIN;
		j->nfwd = 1 + (uint32_t)(rnd() % 4);
		j->fwd = (uint32_t)(rnd() % (nf - j->nfwd + 1));
		j->ost = (uint32_t)(rnd() % (no - STRIPES + 1));
		j->bw = (double)(50 + rnd() % 450) * 1e6;
		j->md = (double)(rnd() % 200);
	}
}

/* Distinct findings: kind and component, first seen. */
struct seen {
	char key[64][BCN_ANOMALY_KIND_MAX + BCN_ANOMALY_COMPONENT_MAX];
	size_t n;
};

static int on_found(void *arg, const struct bcn_anomaly *a)
{
	struct seen *s = arg;
	char key[sizeof(s->key[0])];

	snprintf(key, sizeof(key), "%s %s", a->kind, a->component);
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key))
			return 0;
	if (s->n < 64)
		memcpy(s->key[s->n++], key, sizeof(key));
	return 0;
}

static int fill_day(struct bcn_store *st, int64_t t0, int64_t hours,
		    uint32_t nf, uint32_t no, size_t nj, uint64_t *records)
{
	static struct filler f;
	struct job *jobs = calloc(nj, sizeof(*jobs));
	struct minute m = { calloc(nf, sizeof(double)), calloc(no, sizeof(double)),
			    { 0 } };
	int rc = -ENOMEM;

	if (!jobs || !m.fwd_bytes || !m.ost_bytes || node_seq_init(&f.seqs))
		goto out;
	f.st = st;
	make_jobs(jobs, nj, nf, no, t0, hours);
	for (int64_t min = 0; min < hours * 60 && !f.err; min++) {
		int64_t t = t0 + min * MIN, h = min / 60;

		memset(m.fwd_bytes, 0, nf * sizeof(double));
		memset(m.ost_bytes, 0, no * sizeof(double));
		memset(m.mdt_ops, 0, sizeof(m.mdt_ops));
		jobs_minute(&f, jobs, nj, t, h, &m);
		fwd_minute(&f, nf, t, h, &m);
		servers_minute(&f, no, t, h, min % 60, &m);
	}
	flush(&f);
	if (!f.err)             /* the store's final layout */
		f.err = bcn_store_flush(f.st);
	rc = f.err;
	*records = f.total;
out:
	node_seq_free(&f.seqs);
	free(jobs);
	free(m.fwd_bytes);
	free(m.ost_bytes);
	return rc;
}

static const char *const injected[] = {
	"slow_ost fs-OST0064", "slow_fwd fwd011", "cache_thrash fwd021",
	"md_storm fs-MDT0001", "hot_switch sw006/37",
};

/* argv[i] as a number within [lo, hi], or def when absent; -1: bad. */
static int64_t arg(int argc, char **argv, int i, int64_t def, int64_t lo,
		   int64_t hi)
{
	uint64_t v;

	if (argc <= i)
		return def;
	if (bcn_text_u64_all(argv[i], strlen(argv[i]), &v) ||
	    v < (uint64_t)lo || v > (uint64_t)hi)
		return -1;
	return (int64_t)v;
}

int main(int argc, char **argv)
{
	int64_t hours = arg(argc, argv, 2, 24, 4, 48);
	int64_t nf_ = arg(argc, argv, 3, 288, 32, MAXF);
	int64_t no_ = arg(argc, argv, 4, 864, 128, MAXO);
	int64_t nj_ = arg(argc, argv, 5, 10000, 1, 10000000);
	uint32_t nf = (uint32_t)nf_, no = (uint32_t)no_;
	size_t nj = (size_t)nj_;
	int64_t t0 = ((int64_t)time(NULL) - (hours + 1) * 3600) / 86400 * 86400 * NS;
	struct bcn_store_config cfg;
	struct bcn_detect_config dc;
	struct bcn_detect_stats ds;
	struct bcn_stores ss = { .n = 0 };
	static struct seen seen;
	uint64_t records = 0, read = 0;
	double t, fill_s, worst = 0, total = 0;
	size_t hit = 0;
	char err[512];
	int rc;

	if (argc < 2 || hours < 0 || nf_ < 0 || no_ < 0 || nj_ < 0) {
		fprintf(stderr, "usage: anomaly_bench STORE_DIR [HOURS 4..48 [FWD "
			"32..%d [OSTS 128..%d [JOBS]]]]\n", MAXF, MAXO);
		return 2;
	}
	for (uint32_t k = 0; k < nf; k++)
		snprintf(fwd_name[k], sizeof(fwd_name[k]), "fwd%03u", k + 1);
	for (uint32_t o = 0; o < no; o++)
		snprintf(ost_name[o], sizeof(ost_name[o]), "fs-OST%04x", o);
	for (int d = 0; d < MDTS; d++)
		snprintf(mdt_name[d], sizeof(mdt_name[d]), "fs-MDT%04x", d);
	for (int s = 0; s < SWITCHES; s++)
		snprintf(sw_name[s], sizeof(sw_name[s]), "sw%03d", s + 1);
	bcn_store_config_defaults(&cfg);
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", argv[1]);
	if ((rc = bcn_store_open(&cfg, &ss.s[0], err, sizeof(err)))) {
		fprintf(stderr, "anomaly_bench: %s\n", err);
		return 1;
	}
	ss.n = 1;
	t = now_s();
	rc = fill_day(ss.s[0], t0, hours, nf, no, nj, &records);
	fill_s = now_s() - t;
	if (rc) {
		fprintf(stderr, "anomaly_bench: writing the day: %s\n", bcn_strerror(rc));
		return 1;
	}
	bcn_detect_config_defaults(&dc);
	/* one round per 10-minute interval, as beacon-analyzd's catch-up
	 * examines a day (docs/anomaly.md, "Catch-up") */
	for (int64_t h = 1; h <= (hours + 1) * ROUNDS_PER_HOUR; h++) {
		double r0 = now_s();

		if ((rc = bcn_detect_round(&dc, &ss, NULL, t0 + h * (3600 /
					   ROUNDS_PER_HOUR) * NS, t0, on_found,
					   &seen, &ds, err, sizeof(err)))) {
			fprintf(stderr, "anomaly_bench: %s\n", err);
			return 1;
		}
		read += ds.records;
		worst = now_s() - r0 > worst ? now_s() - r0 : worst;
	}
	total = now_s() - t;
	total -= fill_s;
	for (size_t i = 0; i < sizeof(injected) / sizeof(injected[0]); i++)
		for (size_t k = 0; k < seen.n; k++)
			hit += !strcmp(seen.key[k], injected[i]);
	printf("{\"bench\":\"anomaly_detect\",\"hours\":%" PRId64 ",\"fwd\":%u,"
	       "\"osts\":%u,\"mdts\":%d,\"switch_ports\":%d,\"jobs\":%zu,"
	       "\"records\":%" PRIu64 ",\"write_s\":%.1f,\"rounds\":%" PRId64
	       ",\"records_read\":%" PRIu64 ",\"detect_s\":%.2f,"
	       "\"slowest_round_s\":%.2f,\"peak_rss_kb\":%ld,\"injected\":%zu,"
	       "\"found\":%zu,\"distinct_findings\":%zu,\"recall\":%.3f,"
	       "\"precision\":%.3f}\n", hours, nf, no, MDTS, SWITCHES * PORTS, nj,
	       records, fill_s, (hours + 1) * ROUNDS_PER_HOUR, read, total,
	       worst, peak_kb(),
	       sizeof(injected) / sizeof(injected[0]), hit, seen.n,
	       (double)hit / (double)(sizeof(injected) / sizeof(injected[0])),
	       seen.n ? (double)hit / (double)seen.n : 0.0);
	for (size_t k = 0; k < seen.n; k++)
		fprintf(stderr, "anomaly_bench: found %s\n", seen.key[k]);
	bcn_store_close(ss.s[0]);
	return 0;
}
