/* Test helper: appends a deterministic set of records to the record store
 * described by the store_* keys of a configuration file, in overlapping
 * batches (so the store must drop the repeats), and writes what it stored
 * to another file, one JSON object per record:
 *   {"seq":S,"idx":I,"totals":{"read_bytes":..,...},"rec":{record JSON}}
 * usage: storefill CONFIG EXPECTED_OUT [RECORDS [START_EPOCH_SECONDS
 *        [SPAN_SECONDS]]]
 * Records lie over two days and a bit from two hours before START, or,
 * with SPAN, in [START, START + SPAN) (late data into one interval). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "proto/record.h"
#include "store/store.h"
#include "store/store_config.h"

#define FILL_BATCH 250
#define FILL_OVERLAP 50
#define FILL_MAX 1000000
#define NS 1000000000ll

static uint64_t state = 12345;
static long long span;                  /* seconds; 0: two days */

static uint64_t rnd(void)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return state >> 33;
}

static const char *const nodes[] = { "cn001", "cn002", "oss01", "cn010" };
static const char *const targets[] = {
	"lustre-OST0000", "lustre-OST0001", "lustre-OST0002",
};
static const uint64_t jobs[] = { 0, 101, 102 };
static const char *const jobids[] = { "", "101", "102" };

/* The part an ost or mds record is, as a server sends them: a job's
 * record (jobid, as job_stats names it), else one time in three an
 * export's record, else the target's total (docs/store.md, "Parts"). */
static void set_part(size_t job, const char **client, const char **jobid)
{
	/* two NIDs named as beacon-sim names compute nodes (in its
	 * compute-to-forwarding map) and one address (in no map) */
	static const char *const nids[] = { "10.0.0.1@tcp", "cn00001@o2ib",
		"cn00047@o2ib" };

	*jobid = jobids[job];
	*client = job == 0 && rnd() % 3 == 0 ? nids[rnd() % 3] : "";
}

static void make(struct bcn_record *r, struct bcn_store_item *it, size_t i,
		 int64_t start)
{
	static const enum bcn_rec_type types[] = {
		BCN_REC_OST, BCN_REC_IO, BCN_REC_MDS, BCN_REC_PORT,
		BCN_REC_FWD_RPC,
	};
	size_t job;

	bcn_record_init(r, types[rnd() % 5]);
	r->node = nodes[rnd() % 4];
	/* two days and a bit, from two hours before start */
	if (span)
		r->t = start + (int64_t)(rnd() % (uint64_t)span) * NS;
	else
		r->t = start - 7200 * NS + (int64_t)(rnd() % (50 * 3600)) * NS +
		       (int64_t)(rnd() % 1000) * 1000000;
	r->dur = (int64_t)(rnd() % 10) * NS;
	job = rnd() % 3;
	r->job = jobs[job];
	switch (r->type) {
	case BCN_REC_OST:
		set_part(job, &r->u.ost.client, &r->u.ost.jobid);
		r->u.ost.target = targets[rnd() % 3];
		r->u.ost.read_bytes = rnd() % (1ull << 30);
		r->u.ost.write_bytes = rnd() % (1ull << 30);
		r->u.ost.ops[BCN_OST_READ] = rnd() % 1000;
		r->u.ost.ops[BCN_OST_WRITE] = rnd() % 1000;
		r->u.ost.ops[BCN_OST_STATFS] = rnd() % 10;
		break;
	case BCN_REC_IO:
		r->u.io.op = rnd() % BCN_IO_OP_MAX;
		r->u.io.size = rnd() % 65536;
		r->u.io.count = 1 + rnd() % 20;
		break;
	case BCN_REC_MDS:
		set_part(job, &r->u.mds.client, &r->u.mds.jobid);
		r->u.mds.target = "lustre-MDT0000";
		r->u.mds.ops[BCN_MD_OPEN] = rnd() % 100;
		r->u.mds.ops[BCN_MD_GETATTR] = rnd() % 100;
		break;
	case BCN_REC_PORT:
		r->u.port.sw = "0x7cfe3c0300a6b4e0";
		r->u.port.port = 1 + rnd() % 4;
		r->u.port.xmit_bytes = rnd() % (1ull << 32);
		r->u.port.rcv_bytes = rnd() % (1ull << 32);
		break;
	default:
		r->u.fwd_rpc.target = targets[rnd() % 3];
		r->u.fwd_rpc.write_rpcs = rnd() % 100;
		r->u.fwd_rpc.write_bytes = rnd() % (1ull << 28);
		break;
	}
	it->rec = r;
	it->seq = 1 + i / 100;
	it->nrec = 100;
	it->idx = (uint32_t)(i % 100);
}

static int write_expected(FILE *out, const struct bcn_store_item *it)
{
	struct bcn_record_totals t;
	struct bcn_buf b;
	int rc;

	bcn_record_totals(it->rec, &t);
	bcn_buf_init(&b, 1 << 20);
	rc = bcn_buf_printf(&b, "{\"seq\":%" PRIu64 ",\"idx\":%" PRIu32
			    ",\"totals\":{\"read_bytes\":%" PRIu64
			    ",\"write_bytes\":%" PRIu64 ",\"read_ops\":%" PRIu64
			    ",\"write_ops\":%" PRIu64 ",\"meta_ops\":%" PRIu64
			    ",\"other_ops\":%" PRIu64 "},\"rec\":", it->seq,
			    it->idx, t.read_bytes, t.write_bytes, t.read_ops,
			    t.write_ops, t.meta_ops, t.other_ops);
	if (!rc)
		rc = bcn_record_to_json(it->rec, &b);
	if (!rc)
		rc = bcn_buf_add(&b, "}\n", 2);
	if (!rc && fwrite(b.data, 1, b.len, out) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc;
}

static int fill(struct bcn_store *s, FILE *out, size_t n, int64_t start)
{
	struct bcn_record *recs = calloc(n, sizeof(*recs));
	struct bcn_store_item *items = calloc(n, sizeof(*items));
	int rc = recs && items ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !rc; i++) {
		make(&recs[i], &items[i], i, start);
		rc = write_expected(out, &items[i]);
	}
	/* batches [k - OVERLAP, k + BATCH): every record but the first
	 * ones goes twice, in two calls */
	for (size_t k = 0; k < n && !rc; k += FILL_BATCH) {
		size_t a = k >= FILL_OVERLAP ? k - FILL_OVERLAP : 0;
		size_t e = k + FILL_BATCH < n ? k + FILL_BATCH : n;

		rc = bcn_store_append(s, items + a, e - a);
	}
	free(recs);
	free(items);
	return rc;
}

int main(int argc, char **argv)
{
	struct bcn_store_settings set = { 0 };
	struct bcn_store *s = NULL;
	char err[512] = "";
	long long n = argc > 3 ? strtoll(argv[3], NULL, 10) : 3000;
	long long start = argc > 4 ? strtoll(argv[4], NULL, 10) : 1704844800;
	FILE *out = NULL;
	int rc;

	span = argc > 5 ? strtoll(argv[5], NULL, 10) : 0;
	if (argc < 3 || n <= 0 || n > FILL_MAX || start <= 0 || span < 0 ||
	    span > 86400 * 365) {
		fprintf(stderr, "usage: storefill CONFIG EXPECTED_OUT [RECORDS "
			"[START [SPAN]]]\n");
		return 2;
	}
	rc = bcn_config_defaults(bcn_store_options, &set, err, sizeof(err));
	if (!rc)
		rc = bcn_store_settings_load(&set, argv[1], err, sizeof(err));
	if (!rc)
		rc = bcn_store_settings_apply(&set, err, sizeof(err));
	if (!rc)
		rc = bcn_store_open(&set.cfg, &s, err, sizeof(err));
	if (!rc) {
		out = fopen(argv[2], "w");
		if (!out) {
			rc = -errno;
			snprintf(err, sizeof(err), "%s: %s", argv[2],
				 strerror(errno));
		}
	}
	if (!rc) {
		rc = fill(s, out, (size_t)n, start * NS);
		if (rc)
			snprintf(err, sizeof(err), "%s", bcn_strerror(rc));
	}
	if (out && fclose(out) && !rc) {
		rc = -EIO;
		snprintf(err, sizeof(err), "%s: write error", argv[2]);
	}
	bcn_store_close(s);
	if (rc)
		fprintf(stderr, "storefill: %s\n", err);
	return rc ? 1 : 0;
}
