/* Tests of schema 3 of the embedded store (store/store_blocks.c), below
 * what tests/unit/store_test.c checks through the interface:
 *   - randomised equivalence: the same batches (frames split anywhere,
 *     batches appended again, identities with and without nrec) go into
 *     a schema 2 store (one row per record, the oracle) and a schema 3
 *     store that is compacted at random moments; random scans, sums and
 *     counts must give the same answers, byte for byte;
 *   - identities: appending again after compaction stores nothing,
 *     runs stay few when frames are consecutive, nrec = 0 still dedupes;
 *   - a node whose frame numbers skip is held to node_runs runs a day,
 *     its excess records refused and counted, other nodes unaffected;
 *   - late records into a compacted chunk: merged with a small L1
 *     block of their key, a block of their own beside a big one;
 *   - compaction from append once a chunk is closed;
 *   - a schema 2 day and a schema 3 day answer one query together;
 *   - a day file of a newer schema is refused with -BCN_EVERSION.
 * The day files are inspected with SQLite directly. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "proto/record.h"
#include "store/store.h"
#include "recgen.h"

#define SEC BCN_NS_PER_SEC
#define HOUR (3600 * SEC)
#define DAY BCN_STORE_DAY_NS
#define BASE (1704844800ll * SEC)       /* 2024-01-10T00:00:00Z */
#define NREC 4000
#define JSON_MAX (256u << 20)
#define NPOOL(a) (sizeof(a) / sizeof((a)[0]))

static const char *const nodes[] = { "cn1", "cn2", "oss1", "oss2", "sw" };
static const char *const strpool[] = {
	"", "lustre-OST0000", "lustre-OST0001", "10.0.0.1@tcp", "slurm.42", "7",
};
static const enum bcn_rec_type types[] = {
	BCN_REC_IO, BCN_REC_OST, BCN_REC_MDS, BCN_REC_PORT, BCN_REC_FWD_RPC,
	BCN_REC_FWD_REQ, BCN_REC_JOB,
};
static const uint64_t jobs[] = { 0, 7, 42, UINT64_MAX };

static char root[PATH_MAX - 64];
static unsigned next_dir;

struct recs {
	struct bcn_record rec[NREC];
	struct bcn_store_item it[NREC];
	size_t n;
};

static void fresh_dir(char *dir, size_t len)
{
	int n = snprintf(dir, len, "%s/s%02u", root, next_dir++);

	assert_true(n > 0 && (size_t)n < len);
}

static struct bcn_store *open_store_runs(const char *dir, int schema,
				       uint64_t node_runs)
{
	struct bcn_store_config cfg;
	struct bcn_store *s = NULL;
	char err[256];

	bcn_store_config_defaults(&cfg);
	snprintf(cfg.dir, sizeof(cfg.dir), "%s", dir);
	cfg.schema = schema;
	if (node_runs)
		cfg.node_runs = node_runs;
	if (bcn_store_open(&cfg, &s, err, sizeof(err)))
		fail_msg("open %s: %s", dir, err);
	return s;
}

static struct bcn_store *open_store(const char *dir, int schema)
{
	return open_store_runs(dir, schema, 0);
}

/* Random records in frames of 1..8 records of one node, consecutive
 * sequence numbers per node; t over two days, mostly in a few hours. */
static void make_recs(struct recs *x, size_t n, uint64_t seed, int nrec_mode)
{
	struct recgen g = { seed, strpool, NPOOL(strpool), 0 };
	uint64_t seq[NPOOL(nodes)] = { 0 };
	size_t i = 0;

	while (i < n) {
		size_t node = recgen_next(&g) % NPOOL(nodes);
		uint32_t k = 1 + (uint32_t)(recgen_next(&g) % 8);
		bool known = nrec_mode == 1 || (nrec_mode == 2 && recgen_next(&g) % 2);

		if (k > n - i)
			k = (uint32_t)(n - i);
		seq[node]++;
		for (uint32_t j = 0; j < k; j++, i++) {
			struct bcn_record *r = &x->rec[i];

			bcn_record_init(r, types[recgen_next(&g) % NPOOL(types)]);
			recgen_fields(&g, r);
			r->node = nodes[node];
			r->job = jobs[recgen_next(&g) % NPOOL(jobs)];
			r->dur = 10 * SEC;
			r->t = BASE + (int64_t)(recgen_next(&g) % (recgen_next(&g) % 4 ?
				6 * HOUR : 2 * DAY)) / SEC * SEC;
			x->it[i] = (struct bcn_store_item){ r, seq[node], j,
							    known ? k : 0 };
		}
	}
	x->n = n;
}

struct collect {
	struct bcn_buf json;
	uint64_t calls;
};

static int collect_rec(void *arg, const struct bcn_record *r)
{
	struct collect *c = arg;

	c->calls++;
	assert_int_equal(bcn_record_to_json(r, &c->json), 0);
	assert_int_equal(bcn_buf_add(&c->json, "\n", 1), 0);
	return 0;
}

static int collect_bucket(void *arg, const struct bcn_store_bucket *b)
{
	struct collect *c = arg;

	c->calls++;
	assert_int_equal(bcn_buf_printf(&c->json, "%" PRId64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 "\n", b->t, b->records, b->sum.read_bytes,
		b->sum.write_bytes, b->sum.read_ops, b->sum.write_ops,
		b->sum.meta_ops, b->sum.other_ops), 0);
	return 0;
}

static void same(struct collect *a, struct collect *b, const char *what)
{
	if (a->calls != b->calls || a->json.len != b->json.len ||
	    (a->json.len && memcmp(a->json.data, b->json.data, a->json.len)))
		fail_msg("%s differs: %" PRIu64 " vs %" PRIu64 " calls:\n%.*s\n"
			 "--- schema 2 ---\n%.*s", what, a->calls, b->calls,
			 (int)(a->json.len > 1500 ? 1500 : a->json.len),
			 (const char *)a->json.data,
			 (int)(b->json.len > 1500 ? 1500 : b->json.len),
			 (const char *)b->json.data);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of c's text in byte order, in place. */
static void sort_lines(struct collect *c)
{
	char **line = calloc(c->calls + 1, sizeof(*line)), *text, *p;
	size_t n = 0;

	assert_non_null(line);
	assert_non_null(text = malloc(c->json.len + 1));
	if (c->json.len)
		memcpy(text, c->json.data, c->json.len);
	text[c->json.len] = '\0';
	for (p = text; *p && n <= c->calls; n++) {
		line[n] = p;
		p = strchr(p, '\n');
		assert_non_null(p);
		*p++ = '\0';
	}
	assert_int_equal(n, c->calls);
	qsort(line, n, sizeof(*line), cmp_line);
	bcn_buf_reset(&c->json);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bcn_buf_printf(&c->json, "%s\n", line[i]), 0);
	free(text);
	free(line);
}

/* q's records in any order (q->any_order) from s3: the same records as
 * in q's order from s2, whose text is in b. */
static void compare_any(struct bcn_store *s3, const struct bcn_store_query *q,
			struct collect *b)
{
	struct bcn_store_query any = *q;
	struct collect a;

	any.any_order = true;
	bcn_buf_init(&a.json, JSON_MAX);
	a.calls = 0;
	assert_int_equal(bcn_store_scan(s3, &any, collect_rec, &a), 0);
	sort_lines(&a);
	sort_lines(b);
	same(&a, b, "scan in any order");
	bcn_buf_free(&a.json);
}

/* One query of every kind on both stores, same answers. */
static void compare(struct bcn_store *s3, struct bcn_store *s2,
		    const struct bcn_store_query *q, int64_t bucket)
{
	struct collect a, b;
	uint64_t n3, n2;

	bcn_buf_init(&a.json, JSON_MAX);
	bcn_buf_init(&b.json, JSON_MAX);
	a.calls = b.calls = 0;
	assert_int_equal(bcn_store_scan(s3, q, collect_rec, &a), 0);
	assert_int_equal(bcn_store_scan(s2, q, collect_rec, &b), 0);
	same(&a, &b, "scan");
	if (!q->limit)
		compare_any(s3, q, &b);
	bcn_buf_reset(&a.json);
	bcn_buf_reset(&b.json);
	a.calls = b.calls = 0;
	assert_int_equal(bcn_store_sum(s3, q, bucket, collect_bucket, &a), 0);
	assert_int_equal(bcn_store_sum(s2, q, bucket, collect_bucket, &b), 0);
	same(&a, &b, "sum");
	assert_int_equal(bcn_store_count(s3, q, &n3), 0);
	assert_int_equal(bcn_store_count(s2, q, &n2), 0);
	assert_int_equal(n3, n2);
	bcn_buf_free(&a.json);
	bcn_buf_free(&b.json);
}

static void random_query(struct recgen *g, struct bcn_store_query *q,
			 int64_t *bucket)
{
	static const char *const ents[] = {
		"cn1", "oss1", "lustre-OST0000", "lustre-OST0001", "7", "42",
	};
	static const int64_t widths[] = { 7 * SEC, HOUR, 5 * HOUR, DAY };

	memset(q, 0, sizeof(*q));
	q->layer = 1 + (int)(recgen_next(g) % (BCN_LAYER_MAX - 1));
	q->entity = recgen_next(g) % 3 ? NULL : ents[recgen_next(g) % NPOOL(ents)];
	q->job = recgen_next(g) % 3 ? 0 : jobs[recgen_next(g) % NPOOL(jobs)];
	q->part = (int)(recgen_next(g) % (BCN_STORE_PART_MAX + 1)) - 1;
	q->from = recgen_next(g) % 4 ? BASE + (int64_t)(recgen_next(g) % (2 * DAY))
		  : INT64_MIN;
	q->to = recgen_next(g) % 4 ? q->from + (int64_t)(recgen_next(g) % DAY)
		: INT64_MAX;
	if (q->from == INT64_MIN && q->to != INT64_MAX)
		q->to = BASE + (int64_t)(recgen_next(g) % (2 * DAY));
	q->limit = recgen_next(g) % 4 ? 0 : 1 + recgen_next(g) % 50;
	*bucket = widths[recgen_next(g) % NPOOL(widths)];
}

/* The same batches into both schemas, compaction at random moments,
 * random queries after every few batches. */
static void test_equivalence(void **state)
{
	static struct recs x;
	char d2[PATH_MAX], d3[PATH_MAX];
	struct recgen g = { 0x9e3779b97f4a7c15ull, strpool, 1, 0 };
	struct bcn_store *s2, *s3;
	struct bcn_store_query q;
	int64_t bucket;

	(void)state;
	for (int mode = 0; mode < 3; mode++) {
		size_t a = 0;

		fresh_dir(d2, sizeof(d2));
		fresh_dir(d3, sizeof(d3));
		s2 = open_store(d2, 2);
		s3 = open_store(d3, 0);
		make_recs(&x, NREC, 1234567 + (uint64_t)mode, mode);
		while (a < x.n) {
			size_t len[3], perm[3], n = 0, end = a, back;

			/* up to three batches, appended in a random order: a
			 * frame's rest may come after the next frame */
			for (; n < 3 && end < x.n; n++) {
				len[n] = 1 + recgen_next(&g) % 400;
				if (len[n] > x.n - end)
					len[n] = x.n - end;
				end += len[n];
			}
			for (size_t k = 0; k < n; k++)
				perm[k] = k;
			for (size_t k = n; k-- > 1;) {    /* Fisher-Yates */
				size_t j = (size_t)(recgen_next(&g) % (k + 1));
				size_t t = perm[k];

				perm[k] = perm[j];
				perm[j] = t;
			}
			for (size_t k = 0; k < n; k++) {
				size_t off = a;

				for (size_t j = 0; j < perm[k]; j++)
					off += len[j];
				assert_int_equal(bcn_store_append(s3, x.it + off,
								  len[perm[k]]), 0);
				assert_int_equal(bcn_store_append(s2, x.it + off,
								  len[perm[k]]), 0);
			}
			a = end;
			/* a retried or overlapping batch */
			back = recgen_next(&g) % a;
			if (recgen_next(&g) % 3 == 0)
				assert_int_equal(bcn_store_append(s3, x.it + back,
					a - back > 700 ? 700 : a - back), 0);
			if (recgen_next(&g) % 3 == 0)
				assert_int_equal(bcn_store_flush(s3), 0);
			for (int k = 0; k < 6; k++) {
				random_query(&g, &q, &bucket);
				compare(s3, s2, &q, bucket);
			}
		}
		assert_int_equal(bcn_store_flush(s3), 0);
		for (int k = 0; k < 60; k++) {
			random_query(&g, &q, &bucket);
			compare(s3, s2, &q, bucket);
		}
		/* and once more every record: nothing new */
		assert_int_equal(bcn_store_append(s3, x.it, x.n), 0);
		for (int layer = 1; layer < BCN_LAYER_MAX; layer++) {
			q = (struct bcn_store_query){ layer, NULL, 0, INT64_MIN,
				INT64_MAX, 0, BCN_STORE_PART_ANY, false };
			compare(s3, s2, &q, HOUR);
		}
		bcn_store_close(s2);
		bcn_store_close(s3);
	}
}

/* The first column of the first row of sql over a day file of dir. */
static int64_t sql_val(const char *dir, const char *day, const char *sql)
{
	char path[PATH_MAX + 32];
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t v = -1;

	snprintf(path, sizeof(path), "%s/beacon-%s.db", dir, day);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
			 SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return v;
}

static uint64_t count_all(struct bcn_store *s, int layer)
{
	struct bcn_store_query q = { layer, NULL, 0, INT64_MIN, INT64_MAX, 0,
				     BCN_STORE_PART_ANY, false };
	uint64_t n;

	assert_int_equal(bcn_store_count(s, &q, &n), 0);
	return n;
}

/* n ost records of oss1 at BASE + t0 + 10 s steps, one per frame. */
static void ost_frames(struct recs *x, size_t n, int64_t t0, uint64_t seq0,
		       uint32_t nrec)
{
	for (size_t i = 0; i < n; i++) {
		struct bcn_record *r = &x->rec[i];

		bcn_record_init(r, BCN_REC_OST);
		r->node = "oss1";
		r->t = BASE + t0 + (int64_t)i * 10 * SEC;
		r->dur = 10 * SEC;
		r->u.ost.target = "lustre-OST0000";
		r->u.ost.read_bytes = 1000 * i;
		x->it[i] = (struct bcn_store_item){ r, seq0 + i, 0, nrec };
	}
	x->n = n;
}

/* Appending again, before and after compaction, stores nothing; frames
 * in order make one run; nrec = 0 makes one run per frame but dedupes. */
static void test_identity(void **state)
{
	static struct recs x;
	char dir[PATH_MAX];
	struct bcn_store *s;

	(void)state;
	fresh_dir(dir, sizeof(dir));
	s = open_store(dir, 0);
	ost_frames(&x, 300, 0, 1000, 1);
	assert_int_equal(bcn_store_append(s, x.it, 200), 0);
	assert_int_equal(bcn_store_append(s, x.it + 100, 200), 0);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 300);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM runs"), 1);
	assert_int_equal(bcn_store_flush(s), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks "
				 "WHERE level = 0"), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks "
				 "WHERE level = 1"), 1);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks "
				 "WHERE level = 0"), 0);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 300);
	/* unknown frame sizes: a run per frame, still stored once */
	ost_frames(&x, 50, 2 * HOUR, 5000, 0);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(bcn_store_flush(s), 0);
	assert_int_equal(bcn_store_append(s, x.it + 10, 20), 0);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 350);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM runs"), 51);
	/* a frame of 3 records whose middle one comes last */
	ost_frames(&x, 3, 4 * HOUR, 9000, 3);
	for (size_t i = 0; i < 3; i++)
		x.it[i] = (struct bcn_store_item){ &x.rec[i], 9000, (uint32_t)i, 3 };
	assert_int_equal(bcn_store_append(s, &x.it[0], 1), 0);
	assert_int_equal(bcn_store_append(s, &x.it[2], 1), 0);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 352);
	assert_int_equal(bcn_store_append(s, &x.it[1], 1), 0);
	assert_int_equal(bcn_store_append(s, x.it, 3), 0);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 353);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM runs "
				 "WHERE seq_lo = 9000"), 1);
	bcn_store_close(s);
}

/* One ost record of node about target at BASE + i * 10 s, frame seq. */
static void node_rec(struct recs *x, const char *node, const char *target,
		     size_t i, uint64_t seq)
{
	struct bcn_record *r = &x->rec[x->n];

	bcn_record_init(r, BCN_REC_OST);
	r->node = node;
	r->t = BASE + (int64_t)i * 10 * SEC;
	r->dur = 10 * SEC;
	r->u.ost.target = target;
	r->u.ost.read_bytes = seq;
	x->it[x->n++] = (struct bcn_store_item){ r, seq, 0, 1 };
}

static uint64_t count_target(struct bcn_store *s, const char *target)
{
	struct bcn_store_query q = { BCN_LAYER_OST, target, 0, INT64_MIN,
				     INT64_MAX, 0, BCN_STORE_PART_ANY, false };
	uint64_t n;

	assert_int_equal(bcn_store_count(s, &q, &n), 0);
	return n;
}

/* A node whose frame numbers skip (seq += 2) makes a run per frame: at
 * node_runs of them its records that would start another are refused
 * and counted, while the other nodes' records in the same batches are
 * all stored, once; a resend that fills a gap merges two runs and makes
 * room for one more. */
static void test_node_runs(void **state)
{
	static struct recs x;
	char dir[PATH_MAX];
	struct bcn_store *s;

	(void)state;
	fresh_dir(dir, sizeof(dir));
	s = open_store_runs(dir, 0, 16);
	x.n = 0;
	for (size_t i = 0; i < 100; i++) {     /* interleaved, one batch */
		node_rec(&x, "bad", "lustre-OST0000", i, 1000 + 2 * i);
		node_rec(&x, "oss1", "lustre-OST0001", i, 1 + i);
		node_rec(&x, "oss2", "lustre-OST0002", i, 501 + i);
	}
	assert_int_equal(bcn_store_append(s, x.it, 150), 0);
	assert_int_equal(bcn_store_append(s, x.it + 150, x.n - 150), 0);
	assert_int_equal(count_target(s, "lustre-OST0000"), 16);
	assert_int_equal(count_target(s, "lustre-OST0001"), 100);
	assert_int_equal(count_target(s, "lustre-OST0002"), 100);
	assert_int_equal(bcn_store_refused(s), 84);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM runs "
				 "WHERE node = 'bad'"), 16);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM runs "
				 "WHERE node <> 'bad'"), 2);
	/* again, before and after compaction: stored once, refused again */
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(bcn_store_flush(s), 0);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(count_target(s, "lustre-OST0000"), 16);
	assert_int_equal(count_target(s, "lustre-OST0001"), 100);
	assert_int_equal(count_target(s, "lustre-OST0002"), 100);
	assert_int_equal(bcn_store_refused(s), 3 * 84);
	/* seq 1001 joins the runs of 1000 and 1002: room for 1032 */
	x.n = 0;
	node_rec(&x, "bad", "lustre-OST0000", 0, 1001);
	node_rec(&x, "bad", "lustre-OST0000", 16, 1032);
	node_rec(&x, "bad", "lustre-OST0000", 17, 1034);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(count_target(s, "lustre-OST0000"), 18);
	assert_int_equal(bcn_store_refused(s), 3 * 84 + 1);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM runs "
				 "WHERE node = 'bad'"), 16);
	bcn_store_close(s);
	/* the runs come back from the file: still full for that node */
	s = open_store_runs(dir, 0, 16);
	x.n = 0;
	node_rec(&x, "bad", "lustre-OST0000", 18, 1036);
	node_rec(&x, "oss1", "lustre-OST0001", 100, 101);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	assert_int_equal(bcn_store_refused(s), 1);
	assert_int_equal(count_target(s, "lustre-OST0000"), 18);
	assert_int_equal(count_target(s, "lustre-OST0001"), 101);
	bcn_store_close(s);
}

static int count_rec(void *arg, const struct bcn_record *r)
{
	(void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

/* More blocks in one chunk than a time-ordered window holds open (a job
 * of 40,960 nodes, a block each): a scan in any order lists them all and
 * reads them one at a time. */
static void test_many_blocks(void **state)
{
	enum { TARGETS = 17000 };
	static struct recs x;
	static char names[TARGETS][24];
	struct bcn_store_query q = { .layer = BCN_LAYER_OST, .from = INT64_MIN,
				     .to = INT64_MAX, .any_order = true };
	char dir[PATH_MAX];
	struct bcn_store *s;
	uint64_t n = 0;

	(void)state;
	fresh_dir(dir, sizeof(dir));
	s = open_store(dir, 0);
	for (size_t k = 0; k < TARGETS; k += NREC) {
		x.n = 0;
		for (size_t i = k; i < TARGETS && i < k + NREC; i++) {
			snprintf(names[i], sizeof(names[i]), "fs-OST%05zx", i);
			node_rec(&x, "oss1", names[i], 0, 1 + i);
		}
		assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	}
	assert_int_equal(bcn_store_flush(s), 0);
	assert_true(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks") >
		    16384);
	assert_int_equal(bcn_store_scan(s, &q, count_rec, &n), 0);
	assert_int_equal(n, TARGETS);
	bcn_store_close(s);
}

/* Late records of a compacted chunk are merged into its L1 block while
 * that is small, else written beside it; an append whose records close a
 * chunk compacts it without a flush. */
static void test_late_and_closed(void **state)
{
	static struct recs x;
	char dir[PATH_MAX];
	struct bcn_store *s;

	(void)state;
	fresh_dir(dir, sizeof(dir));
	s = open_store(dir, 0);
	ost_frames(&x, 360, 0, 1, 1);           /* the first hour */
	assert_int_equal(bcn_store_append(s, x.it, 100), 0);
	assert_int_equal(bcn_store_flush(s), 0);
	/* later records of the chunk: merged with its small L1 block */
	assert_int_equal(bcn_store_append(s, x.it + 200, 160), 0);
	assert_int_equal(bcn_store_flush(s), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks"), 1);
	assert_int_equal(sql_val(dir, "20240110", "SELECT n FROM blocks"), 260);
	/* late ones: that block has SQ3_MERGE_MAX (256) records or more,
	 * they get a block of their own; the scan merges both */
	assert_int_equal(bcn_store_append(s, x.it + 100, 100), 0);
	assert_int_equal(bcn_store_flush(s), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks"), 2);
	assert_int_equal(sql_val(dir, "20240110", "SELECT SUM(n) FROM blocks"), 360);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 360);
	/* the second hour in L0, then records past its end and the grace */
	ost_frames(&x, 400, HOUR, 1000, 1);
	assert_int_equal(bcn_store_append(s, x.it, 360), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT COUNT(*) FROM blocks "
				 "WHERE level = 0"), 1);
	assert_int_equal(bcn_store_append(s, x.it + 360, 40), 0);
	assert_int_equal(sql_val(dir, "20240110", "SELECT SUM(n) FROM blocks "
				 "WHERE level = 1"), 720);
	assert_int_equal(sql_val(dir, "20240110", "SELECT SUM(n) FROM blocks "
				 "WHERE level = 0"), 40);
	assert_int_equal(count_all(s, BCN_LAYER_OST), 760);
	bcn_store_close(s);
}

/* A day of schema 2 and a day of schema 3 in one query; a newer schema
 * refused, the other days still answer. */
static void test_mixed_and_newer(void **state)
{
	static struct recs x;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct bcn_store *s;
	sqlite3 *db;
	uint64_t n;
	struct bcn_store_query q = { BCN_LAYER_OST, NULL, 0, INT64_MIN,
				     INT64_MAX, 0, 0, false };

	(void)state;
	fresh_dir(dir, sizeof(dir));
	s = open_store(dir, 2);
	ost_frames(&x, 100, -300 * SEC, 1, 1);  /* 30 on 2024-01-09 */
	assert_int_equal(bcn_store_append(s, x.it, 30), 0);
	bcn_store_close(s);
	s = open_store(dir, 0);
	assert_int_equal(bcn_store_append(s, x.it, 100), 0);  /* day 2: new */
	assert_int_equal(sql_val(dir, "20240109", "PRAGMA user_version"), 2);
	assert_int_equal(sql_val(dir, "20240110", "PRAGMA user_version"), 3);
	assert_int_equal(sql_val(dir, "20240109", "SELECT COUNT(*) FROM records"), 30);
	assert_int_equal(bcn_store_count(s, &q, &n), 0);
	assert_int_equal(n, 100);
	bcn_store_close(s);
	snprintf(path, sizeof(path), "%s/beacon-20240110.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 4", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	s = open_store(dir, 0);
	assert_int_equal(bcn_store_count(s, &q, &n), -BCN_EVERSION);
	assert_int_equal(bcn_store_append(s, x.it + 90, 1), -BCN_EVERSION);
	q.to = BASE;
	assert_int_equal(bcn_store_count(s, &q, &n), 0);
	assert_int_equal(n, 30);
	bcn_store_close(s);
}

/* A damaged block is an error of the query, not a crash or a silence. */
static void test_damaged_block(void **state)
{
	static struct recs x;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct bcn_store *s;
	sqlite3 *db;
	uint64_t n;
	struct bcn_store_query q = { BCN_LAYER_OST, NULL, 0, INT64_MIN,
				     INT64_MAX, 0, 0, false };

	(void)state;
	fresh_dir(dir, sizeof(dir));
	s = open_store(dir, 0);
	ost_frames(&x, 100, 0, 1, 1);
	assert_int_equal(bcn_store_append(s, x.it, x.n), 0);
	bcn_store_close(s);
	snprintf(path, sizeof(path), "%s/beacon-20240110.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE blocks SET data = "
		"substr(data, 1, length(data) - 9) || x'000102030405060708'",
		NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	s = open_store(dir, 0);
	assert_true(bcn_store_count(s, &q, &n) < 0);
	assert_true(bcn_store_flush(s) < 0);
	bcn_store_close(s);
}

static int rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static int suite_setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	(void)state;
	n = snprintf(root, sizeof(root), "%s/bcn-store3-XXXXXX",
		     tmp && tmp[0] ? tmp : "/tmp");
	if (n < 0 || (size_t)n >= sizeof(root) || !mkdtemp(root))
		return -1;
	return 0;
}

static int suite_teardown(void **state)
{
	(void)state;
	return rm_rf(root) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equivalence),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_node_runs),
		cmocka_unit_test(test_late_and_closed),
		cmocka_unit_test(test_mixed_and_newer),
		cmocka_unit_test(test_damaged_block),
		cmocka_unit_test(test_many_blocks),
	};

	return cmocka_run_group_tests_name("store_blocks", tests, suite_setup,
					   suite_teardown);
}
