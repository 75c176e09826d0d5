/* Helper of tests/integration/store_crash.sh: a writer of the embedded
 * store to be killed with SIGKILL at any moment, and the check after.
 *
 *   store_crasher write DIR FIRST [LAST]   appends batches FIRST,
 *       FIRST+1, ... forever or up to LAST (FIRST - 1 again first: a
 *       retried batch), printing
 *       "ok B" once append returned 0 for batch B, and flushing (a
 *       compaction of everything) after every 5th batch
 *   store_crasher read DIR ROUNDS [FROM]
 *       scans the store (from batch FROM's time on, where a writer
 *       appends and compacts) ROUNDS times (in order and
 *       in any order, by turns): no scan may see a record twice or one
 *       no batch holds, nor fewer records than the scan before; prints
 *       the rounds and the last count; exit 1 otherwise
 *   store_crasher check DIR CONFIRMED
 *       checks that every record of batches 0..CONFIRMED is stored once
 *       and nothing else is, but the batch after it (in flight when the
 *       writer died); prints the number of records; exit 1 otherwise
 *
 * Batch B holds BATCH io records of 8 nodes, one frame per node (seq
 * B + 1, nrec known), t = B * 5 min + its index in ms, so that a time
 * chunk closes every 12 batches and appends compact; the io record's
 * file field is its global number. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "store/store.h"

#define BATCH 500
#define NODES 8
#define BASE (1704844800ll * 1000000000ll)
#define STEP (300ll * 1000000000ll)

static const char *const nodes[NODES] = {
	"cn1", "cn2", "cn3", "cn4", "cn5", "cn6", "cn7", "cn8",
};

static void make_batch(uint64_t b, struct bcn_record *r,
		       struct bcn_store_item *it)
{
	uint32_t pos[NODES] = { 0 };

	for (uint32_t i = 0; i < BATCH; i++) {
		uint32_t n = i % NODES;

		bcn_record_init(&r[i], BCN_REC_IO);
		r[i].node = nodes[n];
		r[i].t = BASE + (int64_t)b * STEP + (int64_t)i * 1000000;
		r[i].dur = 1000000;
		r[i].job = 1 + b % 3;
		r[i].u.io.op = BCN_IO_WRITE;
		r[i].u.io.size = 4096;
		r[i].u.io.file = b * BATCH + i;
		it[i] = (struct bcn_store_item){ &r[i], b + 1, pos[n]++,
						 BATCH / NODES };
	}
}

static struct bcn_store *open_dir(const char *dir)
{
	struct bcn_store_config cfg;
	struct bcn_store *s = NULL;
	char err[256];

	bcn_store_config_defaults(&cfg);
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", dir);
	cfg.retention_days = 36500;
	if (bcn_store_open(&cfg, &s, err, sizeof(err)))
		fprintf(stderr, "store_crasher: %s\n", err);
	return s;
}

static int writer(const char *dir, uint64_t first, uint64_t last)
{
	static struct bcn_record r[BATCH];
	static struct bcn_store_item it[BATCH];
	struct bcn_store *s = open_dir(dir);
	int rc;

	if (!s)
		return 1;
	for (uint64_t b = first ? first - 1 : 0; b <= last; b++) {
		make_batch(b, r, it);
		rc = bcn_store_append(s, it, BATCH);
		if (rc == -EBUSY)
			continue;       /* retried, as the flusher does */
		if (rc) {
			fprintf(stderr, "store_crasher: append %" PRIu64
				": %s\n", b, bcn_strerror(rc));
			return 1;
		}
		printf("ok %" PRIu64 "\n", b);
		fflush(stdout);
		if (b % 5 == 4 && (rc = bcn_store_flush(s)) && rc != -EBUSY) {
			fprintf(stderr, "store_crasher: flush: %s\n",
				bcn_strerror(rc));
			return 1;
		}
	}
	bcn_store_close(s);
	return 0;
}

struct seen {
	uint8_t *count;
	uint64_t max, bad;
};

static int note(void *arg, const struct bcn_record *r)
{
	struct seen *x = arg;

	if (r->u.io.file >= x->max || x->count[r->u.io.file] == 255)
		x->bad++;
	else
		x->count[r->u.io.file]++;
	return 0;
}

static int check(const char *dir, uint64_t confirmed)
{
	struct bcn_store_query q = { BCN_LAYER_CLIENT, NULL, 0, INT64_MIN,
				     INT64_MAX, 0, BCN_STORE_PART_ANY, false };
	struct bcn_store *s = open_dir(dir);
	struct seen x = { NULL, (confirmed + 2) * BATCH, 0 };
	uint64_t missing = 0, twice = 0, total = 0, extra = 0;
	int rc;

	x.count = calloc(x.max, 1);
	if (!s || !x.count)
		return 1;
	rc = bcn_store_scan(s, &q, note, &x);
	bcn_store_close(s);
	if (rc) {
		fprintf(stderr, "store_crasher: scan: %s\n", bcn_strerror(rc));
		return 1;
	}
	for (uint64_t i = 0; i < x.max; i++) {
		total += x.count[i];
		twice += x.count[i] > 1;
		if (i < (confirmed + 1) * BATCH)
			missing += x.count[i] == 0;
		else
			extra += x.count[i] != 0;
	}
	printf("records %" PRIu64 " missing %" PRIu64 " twice %" PRIu64
	       " unknown %" PRIu64 " in-flight %" PRIu64 "\n", total, missing,
	       twice, x.bad, extra);
	free(x.count);
	return missing || twice || x.bad ? 1 : 0;
}

#define READ_FILES_MAX (1u << 24)       /* file numbers a reader tracks */

static int reader(const char *dir, uint64_t rounds, uint64_t from)
{
	struct bcn_store_query q = { BCN_LAYER_CLIENT, NULL, 0, INT64_MIN,
				     INT64_MAX, 0, BCN_STORE_PART_ANY, false };
	struct bcn_store *s = open_dir(dir);
	struct seen x = { NULL, READ_FILES_MAX, 0 };
	uint64_t before = 0, total = 0, twice = 0;
	int rc = 0;

	x.count = malloc(x.max);
	if (!s || !x.count)
		return 1;
	q.from = BASE + (int64_t)from * STEP;
	for (uint64_t k = 0; k < rounds && !rc; k++) {
		memset(x.count, 0, x.max);
		q.any_order = k % 2;
		rc = bcn_store_scan(s, &q, note, &x);
		total = twice = 0;
		for (uint64_t i = 0; i < x.max; i++) {
			total += x.count[i];
			twice += x.count[i] > 1;
		}
		if (rc || twice || x.bad || total < before) {
			fprintf(stderr, "store_crasher: read %" PRIu64 " (%s): %s, "
				"%" PRIu64 " records (%" PRIu64 " before), %" PRIu64
				" twice, %" PRIu64 " unknown\n", k,
				q.any_order ? "any order" : "in order",
				bcn_strerror(rc), total, before, twice, x.bad);
			rc = 1;
		}
		before = total;
	}
	bcn_store_close(s);
	free(x.count);
	if (!rc)
		printf("reads %" PRIu64 " records %" PRIu64 "\n", rounds, total);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t n, last = UINT64_MAX;
	char *end;

	if (argc == 5 && (!strcmp(argv[1], "write") ||
			  !strcmp(argv[1], "read"))) {
		errno = 0;
		last = strtoull(argv[4], &end, 10);
		if (errno || *end || end == argv[4]) {
			fprintf(stderr, "store_crasher: bad number '%s'\n",
				argv[4]);
			return 2;
		}
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: store_crasher write|read|check DIR N\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[3], &end, 10);
	if (errno || *end || end == argv[3]) {
		fprintf(stderr, "store_crasher: bad number '%s'\n", argv[3]);
		return 2;
	}
	if (!strcmp(argv[1], "write"))
		return writer(argv[2], n, last);
	if (!strcmp(argv[1], "check"))
		return check(argv[2], n);
	if (!strcmp(argv[1], "read"))
		return reader(argv[2], n, last == UINT64_MAX ? 0 : last);
	fprintf(stderr, "usage: store_crasher write|read|check DIR N\n");
	return 2;
}
