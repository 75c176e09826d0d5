/* Schema 3 of the embedded store's day files: records in compressed
 * blocks (store/block.c) instead of one row each (docs/store.md,
 * "Schema 3").
 *
 *   L0   an append writes, per layer, one block of the batch's new records
 *        (part -1, entity ""), sorted in the scan order;
 *   L1   compaction rewrites the L0 blocks of closed time chunks into one
 *        block per (layer, part, entity, chunk), merging with the L1 block
 *        already there, and deletes them, in one transaction.
 *
 * Identities are kept as runs of consecutive (seq, idx) per node (table
 * runs), held in memory per open day and reloaded when another connection
 * changed the file. Queries go through the day chunk by chunk: the
 * blocks of one chunk are merged in the scan order (t, node, seq, idx)
 * with a heap of block readers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "store/sq_int.h"

#define SQ3_CHUNK_NS (3600ll * BCN_NS_PER_SEC)  /* default time chunk */
#define SQ3_CHUNK_MIN (60ll * BCN_NS_PER_SEC)   /* bounds of the chunk_ns */
#define SQ3_CHUNK_MAX BCN_STORE_DAY_NS          /* setting of a file */
#define SQ3_GRACE_NS (120ll * BCN_NS_PER_SEC)   /* a chunk closes this long
						 * after its end */
#define SQ3_L0_MAX 65536        /* L0 records of a layer that force a
				 * compaction step, closed chunk or not */
#define SQ3_STEP_MAX 196608     /* L0 records one compaction step decodes
				 * (48 bytes each beside the record: 9 MiB) */
#define SQ3_STEP_BYTES (32u << 20) /* bytes of decoded records a step
				 * holds (a record of type T takes
				 * bcn_block_record_size(T): ~250 bytes for
				 * io, at most 1.2 KiB), beyond one block */
#define SQ3_ARENA_CHUNK (1u << 20) /* the records' arena grows by this */
#define SQ3_BLOCK_MAX 16384     /* records per written block */
#define SQ3_MERGE_MAX 256       /* L1 blocks this big are not merged with
				 * late records again (bounds memory and the
				 * rewriting of a chunk's blocks) */
#define SQ3_RUNS_MAX (1u << 20) /* identity runs of a day in memory (all
				 * nodes; one node: cfg.node_runs) */
#define SQ3_OPEN_MAX 16384      /* blocks one query window holds open */
#define SQ3_LATER_MAX (1u << 20) /* blocks an any-order window lists (16
				  * bytes each, read one at a time): a
				  * chunk of 40,960 nodes' blocks */

static const struct bcn_block_limits sq3_lim = BCN_BLOCK_LIMITS_DEFAULT;

/* A run of consecutive identities of one node: [lo, hi]. */
struct sq3_run {
	char *node;
	uint64_t seq_lo, seq_hi;
	uint32_t idx_lo, idx_hi;
	bool last;              /* hi is the last record of its frame */
	bool dirty;             /* to be written */
};

struct sq3_key {
	char *node;
	uint64_t seq;
	uint32_t idx;
};

/* Statements of a schema 3 day, prepared on first use. */
enum sq3_stmt {
	S3_RUN_DEL, S3_RUN_PUT, S3_BLOCK_PUT, S3_JOB_PUT, S3_L0_STATS,
	S3_BLOCK_DEL, S3_BLOCK_JOBS_DEL, S3_L1_KEY, S3_L0_OLD, S3_RANGE_L0,
	S3_MIN, S3_MAX, S3_BLOCK_GET,
	S3_QUERY,               /* + variant: 1 L0, 2 any part, 4 entity, 8 job,
				 * 16 ids only */
	S3_NSTMT = S3_QUERY + 32
};

static const char *const sq3_sql[S3_QUERY] = {
	[S3_RUN_DEL] = "DELETE FROM runs WHERE node = ?1 AND seq_lo = ?2 AND "
		"idx_lo = ?3",
	[S3_RUN_PUT] = "INSERT OR REPLACE INTO runs VALUES (?1, ?2, ?3, ?4, "
		"?5, ?6)",
	[S3_BLOCK_PUT] = "INSERT INTO blocks (level, layer, part, entity, job, "
		"t_min, t_max, n, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
		"?9)",
	[S3_JOB_PUT] = "INSERT OR IGNORE INTO block_jobs VALUES (?1, ?2)",
	[S3_L0_STATS] = "SELECT COALESCE(SUM(n), 0), COALESCE(SUM(t_max < ?2), "
		"0) FROM blocks WHERE layer = ?1 AND part = -1",
	[S3_BLOCK_DEL] = "DELETE FROM blocks WHERE id = ?1",
	[S3_BLOCK_JOBS_DEL] = "DELETE FROM block_jobs WHERE block = ?1",
	[S3_L1_KEY] = "SELECT id, data FROM blocks WHERE layer = ?1 AND "
		"entity = ?2 AND part = ?3 AND t_min >= ?4 AND t_min < ?5 AND "
		"job = ?6 AND n < ?7",
	[S3_L0_OLD] = "SELECT id, data, n FROM blocks WHERE layer = ?1 AND "
		"part = -1 AND t_max < ?2 ORDER BY id",
	[S3_RANGE_L0] = "SELECT MIN(t_min), MAX(t_max) FROM blocks WHERE "
		"layer = ?1 AND part = -1",
	/* one aggregate over an index prefix: a single index lookup */
	[S3_MIN] = "SELECT MIN(t_min) FROM blocks WHERE layer = ?1 AND "
		"part = ?2",
	[S3_MAX] = "SELECT MAX(t_min) FROM blocks WHERE layer = ?1 AND "
		"part = ?2",
	[S3_BLOCK_GET] = "SELECT data FROM blocks WHERE id = ?1",
};

struct sq3_day {
	sqlite3_stmt *st[S3_NSTMT];
	int64_t chunk;          /* chunk_ns of the file */
	bool loaded;            /* runs mirror the table */
	int64_t data_version;   /* PRAGMA data_version when loaded */
	struct sq3_run *runs;   /* sorted by (node, seq_lo, idx_lo) */
	size_t nruns, cap;
	struct sq3_key *gone;   /* runs merged away: delete their rows */
	size_t ngone, capgone;
};

#define NLIST(a) (sizeof(a) / sizeof((a)[0]))

static const char *const sq3_schema[] = {
	"CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, "
	"value INTEGER NOT NULL) WITHOUT ROWID",
	"CREATE TABLE IF NOT EXISTS blocks (id INTEGER PRIMARY KEY, "
	"level INTEGER NOT NULL, layer INTEGER NOT NULL, "
	"part INTEGER NOT NULL, entity TEXT NOT NULL, "
	"job INTEGER NOT NULL, t_min INTEGER NOT NULL, "
	"t_max INTEGER NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL)",
	"CREATE INDEX IF NOT EXISTS blocks_t ON blocks (layer, part, t_min)",
	"CREATE INDEX IF NOT EXISTS blocks_entity ON blocks "
	"(layer, entity, part, t_min)",
	"CREATE TABLE IF NOT EXISTS block_jobs (job INTEGER NOT NULL, "
	"block INTEGER NOT NULL, PRIMARY KEY (job, block)) WITHOUT ROWID",
	"CREATE INDEX IF NOT EXISTS block_jobs_block ON block_jobs (block)",
	"CREATE TABLE IF NOT EXISTS runs (node TEXT NOT NULL, "
	"seq_lo INTEGER NOT NULL, idx_lo INTEGER NOT NULL, "
	"seq_hi INTEGER NOT NULL, idx_hi INTEGER NOT NULL, "
	"last INTEGER NOT NULL, PRIMARY KEY (node, seq_lo, idx_lo)) "
	"WITHOUT ROWID",
	"PRAGMA user_version = 3",
};

/* ---- small SQL helpers ---- */

static int prep(struct sq_store *s, sqlite3 *db, const char *sql,
		sqlite3_stmt **st)
{
	int src = sqlite3_prepare_v2(db, sql, -1, st, NULL);

	return src == SQLITE_OK ? 0 : sq_fail(s, db, "preparing", src);
}

/* Steps st to its end (no rows expected). */
static int step_done(struct sq_store *s, sqlite3 *db, sqlite3_stmt *st,
		     const char *what)
{
	int src = sqlite3_step(st);

	sqlite3_reset(st);
	return src == SQLITE_DONE ? 0 : sq_fail(s, db, what, src);
}

static void win_sql(int variant, char *sql, size_t len);

/* The cached statement id of dd, reset and unbound. */
static int stmt(struct sq_store *s, struct sq_day *dd, int id,
		sqlite3_stmt **out)
{
	sqlite3_stmt **st = &dd->v3->st[id];
	char sql[384];
	int src;

	if (!*st) {
		if (id >= S3_QUERY)
			win_sql(id - S3_QUERY, sql, sizeof(sql));
		src = sqlite3_prepare_v3(dd->db, id >= S3_QUERY ? sql :
					 sq3_sql[id], -1,
					 SQLITE_PREPARE_PERSISTENT, st, NULL);
		if (src != SQLITE_OK)
			return sq_fail(s, dd->db, "preparing", src);
	}
	sqlite3_reset(*st);
	sqlite3_clear_bindings(*st);
	*out = *st;
	return 0;
}

static void rollback(sqlite3 *db)
{
	if (sqlite3_get_autocommit(db) == 0)
		sq_run_sql(db, "ROLLBACK", NULL);
}

int sq3_create(struct sq_store *s, sqlite3 *db)
{
	char sql[96];
	int64_t chunk = SQ3_CHUNK_NS;
	int rc;

	rc = sq_run_list(s, db, sq3_schema, NLIST(sq3_schema),
			 "creating schema 3");
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO settings "
		 "VALUES ('chunk_ns', %" PRId64 ")", chunk);
	if (!rc)
		rc = sq_run_list(s, db, (const char *const[]){ sql }, 1,
				 "writing the settings");
	return rc;
}

int sq3_attach(struct sq_store *s, struct sq_day *dd)
{
	struct sq3_day *v = calloc(1, sizeof(*v));
	int64_t chunk = 0;
	int src;

	if (!v)
		return -ENOMEM;
	src = sq_run_sql(dd->db, "SELECT value FROM settings WHERE key = "
			 "'chunk_ns'", &chunk);
	if (src != SQLITE_OK) {
		free(v);
		return sq_fail(s, dd->db, "reading the settings", src);
	}
	if (chunk < SQ3_CHUNK_MIN || chunk > SQ3_CHUNK_MAX) {
		free(v);
		BCN_ERR("store %s: chunk_ns %" PRId64 " out of [%lld, %lld]",
			sqlite3_db_filename(dd->db, NULL), chunk,
			(long long)SQ3_CHUNK_MIN, (long long)SQ3_CHUNK_MAX);
		return -BCN_ECORRUPT;
	}
	v->chunk = chunk;
	dd->v3 = v;
	return 0;
}

static void runs_clear(struct sq3_day *v)
{
	for (size_t i = 0; i < v->nruns; i++)
		free(v->runs[i].node);
	for (size_t i = 0; i < v->ngone; i++)
		free(v->gone[i].node);
	v->nruns = 0;
	v->ngone = 0;
	v->loaded = false;
}

void sq3_detach(struct sq_day *dd)
{
	struct sq3_day *v = dd->v3;

	if (!v)
		return;
	runs_clear(v);
	for (int k = 0; k < S3_NSTMT; k++)
		sqlite3_finalize(v->st[k]);
	free(v->runs);
	free(v->gone);
	free(v);
	dd->v3 = NULL;
}

/* ---- identity runs ---- */

/* (node, seq, idx) order; seq unsigned. */
static int cmp_ident(const char *an, uint64_t as, uint32_t ai,
		     const char *bn, uint64_t bs, uint32_t bi)
{
	int c = strcmp(an, bn);

	if (c)
		return c;
	if (as != bs)
		return as < bs ? -1 : 1;
	return (ai > bi) - (ai < bi);
}

static int cmp_run(const void *a, const void *b)
{
	const struct sq3_run *x = a, *y = b;

	return cmp_ident(x->node, x->seq_lo, x->idx_lo,
			 y->node, y->seq_lo, y->idx_lo);
}

static int runs_reserve(struct sq3_day *v)
{
	struct sq3_run *nr;
	size_t nc;

	if (v->nruns < v->cap)
		return 0;
	if (v->nruns >= SQ3_RUNS_MAX)
		return -BCN_EFULL;
	nc = v->cap ? v->cap * 2 : 256;
	nr = realloc(v->runs, nc * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	v->runs = nr;
	v->cap = nc;
	return 0;
}

/* Reads the runs table into v (inside the caller's transaction). */
static int runs_load(struct sq_store *s, struct sq_day *dd)
{
	struct sq3_day *v = dd->v3;
	sqlite3_stmt *st = NULL;
	int rc, src;

	runs_clear(v);
	rc = prep(s, dd->db, "SELECT node, seq_lo, idx_lo, seq_hi, idx_hi, "
		  "last FROM runs", &st);
	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *node = (const char *)sqlite3_column_text(st, 0);
		struct sq3_run *r;

		if (!node) {
			rc = -BCN_ECORRUPT;
			break;
		}
		if ((rc = runs_reserve(v)))
			break;
		r = &v->runs[v->nruns];
		r->node = strdup(node);
		if (!r->node) {
			rc = -ENOMEM;
			break;
		}
		r->seq_lo = i2u(sqlite3_column_int64(st, 1));
		r->idx_lo = (uint32_t)sqlite3_column_int64(st, 2);
		r->seq_hi = i2u(sqlite3_column_int64(st, 3));
		r->idx_hi = (uint32_t)sqlite3_column_int64(st, 4);
		r->last = sqlite3_column_int(st, 5) != 0;
		r->dirty = false;
		v->nruns++;
	}
	if (!rc && src != SQLITE_DONE)
		rc = sq_fail(s, dd->db, "reading the identity runs", src);
	sqlite3_finalize(st);
	if (rc) {
		runs_clear(v);
		return rc;
	}
	if (v->nruns)
		qsort(v->runs, v->nruns, sizeof(*v->runs), cmp_run);
	v->loaded = true;
	return 0;
}

/* Makes the runs in memory those of the file (after BEGIN IMMEDIATE). */
static int runs_fresh(struct sq_store *s, struct sq_day *dd)
{
	int64_t dv = 0;
	int src = sq_run_sql(dd->db, "PRAGMA data_version", &dv);

	if (src != SQLITE_OK)
		return sq_fail(s, dd->db, "reading data_version", src);
	if (dd->v3->loaded && dv == dd->v3->data_version)
		return 0;
	dd->v3->data_version = dv;
	return runs_load(s, dd);
}

/* Index of the last run starting at or before the identity, or -1. */
static ssize_t runs_find(const struct sq3_day *v, const char *node,
			 uint64_t seq, uint32_t idx)
{
	ssize_t lo = 0, hi = (ssize_t)v->nruns - 1, got = -1;

	while (lo <= hi) {
		ssize_t mid = lo + (hi - lo) / 2;
		const struct sq3_run *r = &v->runs[mid];

		if (cmp_ident(r->node, r->seq_lo, r->idx_lo, node, seq, idx) <= 0) {
			got = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return got;
}

/* Whether (seq, idx) directly follows the end of run r. */
static bool follows(const struct sq3_run *r, uint64_t seq, uint32_t idx)
{
	if (seq == r->seq_hi)
		return r->idx_hi != UINT32_MAX && idx == r->idx_hi + 1;
	return r->last && r->seq_hi != UINT64_MAX && seq == r->seq_hi + 1 &&
	       idx == 0;
}

/* Merges run k + 1 into run k when it starts right after k's end. */
static int runs_merge_next(struct sq3_day *v, size_t k)
{
	struct sq3_run *a = &v->runs[k], *b;
	struct sq3_key *ng;

	if (k + 1 >= v->nruns)
		return 0;
	b = &v->runs[k + 1];
	if (strcmp(a->node, b->node) || !follows(a, b->seq_lo, b->idx_lo))
		return 0;
	if (v->ngone == v->capgone) {
		size_t nc = v->capgone ? v->capgone * 2 : 64;

		ng = realloc(v->gone, nc * sizeof(*ng));
		if (!ng)
			return -ENOMEM;
		v->gone = ng;
		v->capgone = nc;
	}
	v->gone[v->ngone++] = (struct sq3_key){ b->node, b->seq_lo, b->idx_lo };
	a->seq_hi = b->seq_hi;
	a->idx_hi = b->idx_hi;
	a->last = b->last;
	a->dirty = true;
	memmove(b, b + 1, (v->nruns - k - 2) * sizeof(*b));
	v->nruns--;
	return 0;
}

/* Number of runs of node in v (they are next to each other). */
static size_t runs_of(const struct sq3_day *v, const char *node)
{
	ssize_t lo = runs_find(v, node, 0, 0), hi;

	/* the last run before node's first, or node's first itself */
	if (lo < 0 || strcmp(v->runs[lo].node, node) ||
	    v->runs[lo].seq_lo != 0 || v->runs[lo].idx_lo != 0)
		lo++;
	hi = runs_find(v, node, UINT64_MAX, UINT32_MAX);
	return hi >= lo ? (size_t)(hi - lo + 1) : 0;
}

enum sq3_fate { SQ3_DUP, SQ3_FRESH, SQ3_REFUSED };

/* Notes identity it in the runs; *fate: stored before (DUP), not (FRESH),
 * or REFUSED: it would start a run beyond its node's node_runs or the
 * day's SQ3_RUNS_MAX. */
static int runs_add(struct sq3_day *v, const struct bcn_store_item *it,
		    uint64_t node_runs, enum sq3_fate *fate)
{
	const char *node = it->rec->node;
	ssize_t k = runs_find(v, node, it->seq, it->idx);
	struct sq3_run *r = k >= 0 ? &v->runs[k] : NULL;
	bool last = it->nrec && it->idx == it->nrec - 1;
	int rc;

	*fate = SQ3_DUP;
	if (r && !strcmp(r->node, node) &&
	    cmp_ident(node, it->seq, it->idx, node, r->seq_hi, r->idx_hi) <= 0)
		return 0;       /* stored already */
	*fate = SQ3_FRESH;
	if (r && !strcmp(r->node, node) && follows(r, it->seq, it->idx)) {
		r->seq_hi = it->seq;
		r->idx_hi = it->idx;
		r->last = last;
		r->dirty = true;
		return runs_merge_next(v, (size_t)k);
	}
	if (v->nruns >= SQ3_RUNS_MAX || runs_of(v, node) >= node_runs) {
		*fate = SQ3_REFUSED;
		return 0;
	}
	if ((rc = runs_reserve(v)))
		return rc;
	k++;
	memmove(&v->runs[k + 1], &v->runs[k], (v->nruns - (size_t)k) *
		sizeof(*v->runs));
	v->nruns++;
	r = &v->runs[k];
	*r = (struct sq3_run){ strdup(node), it->seq, it->seq, it->idx,
			       it->idx, last, true };
	if (!r->node) {
		memmove(&v->runs[k], &v->runs[k + 1], (v->nruns - (size_t)k - 1) *
			sizeof(*v->runs));
		v->nruns--;
		return -ENOMEM;
	}
	return runs_merge_next(v, (size_t)k);
}

/* Writes the changed runs and deletes the merged ones. */
static int runs_store(struct sq_store *s, struct sq_day *dd)
{
	struct sq3_day *v = dd->v3;
	sqlite3_stmt *del = NULL, *ins = NULL;
	int rc;

	rc = stmt(s, dd, S3_RUN_DEL, &del);
	if (!rc)
		rc = stmt(s, dd, S3_RUN_PUT, &ins);
	for (size_t i = 0; !rc && i < v->ngone; i++) {
		sqlite3_bind_text(del, 1, v->gone[i].node, -1, SQLITE_STATIC);
		sqlite3_bind_int64(del, 2, u2i(v->gone[i].seq));
		sqlite3_bind_int64(del, 3, v->gone[i].idx);
		rc = step_done(s, dd->db, del, "deleting a run");
	}
	for (size_t i = 0; !rc && i < v->nruns; i++) {
		const struct sq3_run *r = &v->runs[i];

		if (!r->dirty)
			continue;
		sqlite3_bind_text(ins, 1, r->node, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 2, u2i(r->seq_lo));
		sqlite3_bind_int64(ins, 3, r->idx_lo);
		sqlite3_bind_int64(ins, 4, u2i(r->seq_hi));
		sqlite3_bind_int64(ins, 5, r->idx_hi);
		sqlite3_bind_int(ins, 6, r->last);
		rc = step_done(s, dd->db, ins, "writing a run");
	}
	return rc;
}

/* After a commit: the runs are clean. */
static void runs_committed(struct sq3_day *v)
{
	for (size_t i = 0; i < v->nruns; i++)
		v->runs[i].dirty = false;
	for (size_t i = 0; i < v->ngone; i++)
		free(v->gone[i].node);
	v->ngone = 0;
}

/* ---- writing blocks ---- */

/* Scan order of block items: t, node, seq (unsigned), idx. */
static int cmp_scan(const void *a, const void *b)
{
	const struct bcn_block_item *x = a, *y = b;

	if (x->rec->t != y->rec->t)
		return x->rec->t < y->rec->t ? -1 : 1;
	return cmp_ident(x->rec->node, x->seq, x->idx,
			 y->rec->node, y->seq, y->idx);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Inserts the block of items[0..n) (sorted in scan order) with its jobs;
 * part -1 and entity "" make it an L0 block. */
static int put_block(struct sq_store *s, struct sq_day *dd, int layer,
		     int part, const char *entity, uint64_t key_job,
		     const struct bcn_block_item *items, size_t n)
{
	sqlite3_stmt *ins = NULL, *job = NULL;
	int64_t tmin = items[0].rec->t, tmax = items[n - 1].rec->t, id;
	uint64_t *jobs = NULL;
	size_t nj = 0;
	int rc;

	bcn_buf_reset(&s->blk);
	rc = bcn_block_enc_level(s->enc, part < 0 ? SQ3_ZSTD_LEVEL_L0 :
				 SQ3_ZSTD_LEVEL);
	if (!rc)
		rc = bcn_block_encode(s->enc, items, n, &s->blk);
	if (!rc)
		rc = stmt(s, dd, S3_BLOCK_PUT, &ins);
	if (rc)
		return rc;
	sqlite3_bind_int(ins, 1, part < 0 ? 0 : 1);
	sqlite3_bind_int(ins, 2, layer);
	sqlite3_bind_int(ins, 3, part);
	sqlite3_bind_text(ins, 4, entity, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 5, u2i(key_job));
	sqlite3_bind_int64(ins, 6, tmin);
	sqlite3_bind_int64(ins, 7, tmax);
	sqlite3_bind_int64(ins, 8, (int64_t)n);
	sqlite3_bind_blob(ins, 9, s->blk.data, (int)s->blk.len, SQLITE_STATIC);
	rc = step_done(s, dd->db, ins, "inserting a block");
	if (rc)
		return rc;
	id = sqlite3_last_insert_rowid(dd->db);
	jobs = malloc(n * sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (items[i].rec->job)
			jobs[nj++] = items[i].rec->job;
	qsort(jobs, nj, sizeof(*jobs), cmp_u64);
	rc = stmt(s, dd, S3_JOB_PUT, &job);
	for (size_t i = 0; !rc && i < nj; i++) {
		if (i && jobs[i] == jobs[i - 1])
			continue;
		sqlite3_bind_int64(job, 1, u2i(jobs[i]));
		sqlite3_bind_int64(job, 2, id);
		rc = step_done(s, dd->db, job, "indexing a block's jobs");
	}
	free(jobs);
	return rc;
}

/* Writes items[0..n) (one layer) as blocks of at most SQ3_BLOCK_MAX. */
static int put_blocks(struct sq_store *s, struct sq_day *dd, int layer,
		      int part, const char *entity, uint64_t key_job,
		      struct bcn_block_item *items, size_t n)
{
	int rc = 0;

	qsort(items, n, sizeof(*items), cmp_scan);
	for (size_t a = 0; a < n && !rc; a += SQ3_BLOCK_MAX)
		rc = put_block(s, dd, layer, part, entity, key_job, items + a,
			       n - a < SQ3_BLOCK_MAX ? n - a : SQ3_BLOCK_MAX);
	return rc;
}

struct sq3_ord {
	const struct bcn_store_item *it;
	int layer;
};

static int cmp_ord(const void *a, const void *b)
{
	const struct sq3_ord *x = a, *y = b;

	return cmp_ident(x->it->rec->node, x->it->seq, x->it->idx,
			 y->it->rec->node, y->it->seq, y->it->idx);
}

static int cmp_ord_layer(const void *a, const void *b)
{
	const struct sq3_ord *x = a, *y = b;

	return (x->layer > y->layer) - (x->layer < y->layer);
}

/* Logs (rate-limited) that records of node were refused. */
static void refused_note(struct sq_store *s, struct sq_day *dd,
			 const char *node, uint64_t node_runs)
{
	bcn_complain(&s->refusal, BCN_LOG_WARNING, "store %s: %s: records of "
		     "node %s refused: its identities of the day make %" PRIu64
		     " runs (store_node_runs) or the day's %u runs are full; "
		     "%" PRIu64 " records refused before", s->base.cfg.dir,
		     sqlite3_db_filename(dd->db, NULL), node, node_runs,
		     SQ3_RUNS_MAX, s->refused);
}

/* The new records of the batch as L0 blocks, the runs updated: inside
 * the caller's transaction. *nrefused: records refused (runs full). */
static int append_blocks(struct sq_store *s, struct sq_day *dd,
			 struct sq3_ord *ord, size_t n, size_t *nrefused)
{
	struct bcn_block_item *bi = NULL;
	uint64_t node_runs = s->base.cfg.node_runs ? s->base.cfg.node_runs :
			     BCN_STORE_NODE_RUNS_DEF;
	size_t kept = 0, a, b, refused = 0;
	enum sq3_fate fate;
	int rc = 0;

	qsort(ord, n, sizeof(*ord), cmp_ord);
	for (size_t i = 0; i < n && !rc; i++) {
		rc = runs_add(dd->v3, ord[i].it, node_runs, &fate);
		if (!rc && fate == SQ3_FRESH)
			ord[kept++] = ord[i];
		if (!rc && fate == SQ3_REFUSED && !refused++)
			refused_note(s, dd, ord[i].it->rec->node, node_runs);
	}
	*nrefused = refused;
	if (rc || !kept)
		return rc ? rc : runs_store(s, dd);
	qsort(ord, kept, sizeof(*ord), cmp_ord_layer);
	bi = malloc(kept * sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	for (a = 0; a < kept && !rc; a = b) {
		for (b = a; b < kept && ord[b].layer == ord[a].layer; b++)
			bi[b - a] = (struct bcn_block_item){ ord[b].it->rec,
				ord[b].it->seq, ord[b].it->idx };
		rc = put_blocks(s, dd, ord[a].layer, -1, "", 0, bi, b - a);
	}
	free(bi);
	return rc ? rc : runs_store(s, dd);
}

static int compact_step(struct sq_store *s, struct sq_day *dd, int layer,
			int64_t horizon, bool *did);

/* One compaction step for the first layer of the batch that needs one:
 * L0 blocks of closed chunks, or too many L0 records. */
static int compact_some(struct sq_store *s, struct sq_day *dd,
			const struct sq3_ord *ord, size_t n, int64_t tmax)
{
	int64_t chunk = dd->v3->chunk, horizon, cnt = 0, closed = 0;
	sqlite3_stmt *st = NULL;
	bool did = false;
	int rc;

	horizon = bcn_timefmt_floor_div(tmax - SQ3_GRACE_NS, chunk) * chunk;
	rc = stmt(s, dd, S3_L0_STATS, &st);
	for (size_t i = 0; !rc && i < n; i++) {
		if (i && ord[i].layer == ord[i - 1].layer)
			continue;
		sqlite3_bind_int(st, 1, ord[i].layer);
		sqlite3_bind_int64(st, 2, horizon);
		if (sqlite3_step(st) == SQLITE_ROW) {
			cnt = sqlite3_column_int64(st, 0);
			closed = sqlite3_column_int64(st, 1);
		}
		sqlite3_reset(st);
		if (cnt >= SQ3_L0_MAX)
			rc = compact_step(s, dd, ord[i].layer, INT64_MAX, &did);
		else if (closed)
			rc = compact_step(s, dd, ord[i].layer, horizon, &did);
		if (did)
			break;
	}
	return rc;
}

int sq3_append(struct sq_store *s, struct sq_day *dd,
	       const struct bcn_store_item *items, const struct sq_ref *refs,
	       size_t n)
{
	struct sq3_ord *ord = malloc(n * sizeof(*ord));
	int64_t tmax = INT64_MIN;
	size_t refused = 0;
	int rc, src;

	if (!ord)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		ord[k].it = &items[refs[k].i];
		ord[k].layer = bcn_record_desc(ord[k].it->rec->type)->layer;
		if (ord[k].it->rec->t > tmax)
			tmax = ord[k].it->rec->t;
	}
	src = sq_run_sql(dd->db, "BEGIN IMMEDIATE", NULL);
	rc = src == SQLITE_OK ? runs_fresh(s, dd) :
	     sq_fail(s, dd->db, "beginning a transaction", src);
	if (!rc)
		rc = append_blocks(s, dd, ord, n, &refused);
	if (!rc && (src = sq_run_sql(dd->db, "COMMIT", NULL)) != SQLITE_OK)
		rc = sq_fail(s, dd->db, "committing", src);
	if (rc) {
		rollback(dd->db);
		runs_clear(dd->v3);
	} else {
		runs_committed(dd->v3);
		s->refused += refused;
	}
	if (!rc) {
		/* the batch is durable; a failed compaction is logged (rate-
		 * limited) and retried by a later append or flush */
		int crc;

		qsort(ord, n, sizeof(*ord), cmp_ord_layer);
		crc = compact_some(s, dd, ord, n, tmax);
		if (crc) {
			rollback(dd->db);
			bcn_complain(&s->complain, BCN_LOG_WARNING, "store %s: "
				     "compacting %s: %s", s->base.cfg.dir,
				     sqlite3_db_filename(dd->db, NULL),
				     bcn_strerror(crc));
		}
	}
	free(ord);
	return rc;
}

/* ---- compaction ---- */

/* A decoded record and what groups it. */
struct sq3_rec {
	struct bcn_record *rec;         /* its bcn_block_record_size() bytes,
					 * in the step's arena */
	uint64_t seq;
	uint32_t idx;
	int part;
	int64_t chunk;
	size_t ent;             /* offset of its entity in the arena */
	const char *entp;       /* the entity, once the arena is complete */
};

struct sq3_step {
	struct bcn_block_reader **rd;   /* readers whose strings are in use */
	size_t nrd, caprd;
	struct sq3_rec *recs;
	size_t nrecs, caprecs;
	struct bcn_buf ents;            /* entities, NUL-terminated, each once */
	uint32_t *slot;                 /* hash of ents: offset + 1, 0 free */
	size_t nslot, nent;
	int64_t chunk;
	struct sq3_pool_buf *pool;      /* where the buffers came from */
};

/* Decoded records, packed: chunks of SQ3_ARENA_CHUNK bytes, kept. */
struct sq3_arena {
	char **chunk;
	size_t nchunk, cur;             /* chunk[cur] is being filled */
	size_t used;                    /* bytes used in chunk[cur] */
	size_t bytes;                   /* bytes handed out */
};

/* The buffers of one step, kept between steps: a compaction step
 * decodes up to SQ3_STEP_MAX records of ~1.2 KiB, and allocating them
 * afresh each time cost as much page faulting as the decoding itself. */
struct sq3_pool_buf {
	struct sq3_rec *recs;
	size_t caprecs;
	struct bcn_buf ents;
	uint32_t *slot;
	size_t nslot;
	struct sq3_arena arena;
};

struct sq3_pool {
	struct sq3_pool_buf b[2];       /* a step's L0 records, a group's L1 */
};

/* Starts step x with the buffers of the store's pool slot k. */
static int step_init(struct sq_store *s, struct sq3_step *x, int64_t chunk,
		     int k)
{
	struct sq3_pool_buf *pb;

	memset(x, 0, sizeof(*x));
	x->chunk = chunk;
	if (!s->pool) {
		s->pool = calloc(1, sizeof(*s->pool));
		if (!s->pool)
			return -ENOMEM;
		for (int i = 0; i < 2; i++)
			bcn_buf_init(&s->pool->b[i].ents, BCN_BLOCK_RAW_MAX);
	}
	pb = &s->pool->b[k];
	pb->arena.cur = 0;
	pb->arena.used = 0;
	pb->arena.bytes = 0;
	x->pool = pb;
	x->recs = pb->recs;
	x->caprecs = pb->caprecs;
	x->ents = pb->ents;
	bcn_buf_reset(&x->ents);
	x->slot = pb->slot;
	x->nslot = pb->nslot;
	if (x->nslot)
		memset(x->slot, 0, x->nslot * sizeof(*x->slot));
	return 0;
}

void sq3_pool_free(struct sq_store *s)
{
	if (!s->pool)
		return;
	for (int i = 0; i < 2; i++) {
		struct sq3_arena *a = &s->pool->b[i].arena;

		for (size_t c = 0; c < a->nchunk; c++)
			free(a->chunk[c]);
		free(a->chunk);
		free(s->pool->b[i].recs);
		free(s->pool->b[i].slot);
		bcn_buf_free(&s->pool->b[i].ents);
	}
	free(s->pool);
	s->pool = NULL;
}

static int step_keep(struct sq3_step *x, struct bcn_block_reader *b)
{
	if (x->nrd == x->caprd) {
		size_t nc = x->caprd ? x->caprd * 2 : 64;
		struct bcn_block_reader **nr = realloc(x->rd, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		x->rd = nr;
		x->caprd = nc;
	}
	x->rd[x->nrd++] = b;
	return 0;
}

/* n bytes (a multiple of 8, at most SQ3_ARENA_CHUNK) of arena a. */
static void *arena_get(struct sq3_arena *a, size_t n)
{
	char *p;

	if (a->nchunk && a->used + n > SQ3_ARENA_CHUNK) {
		a->cur++;
		a->used = 0;
	}
	if (a->cur >= a->nchunk) {
		char **nc = realloc(a->chunk, (a->nchunk + 1) * sizeof(*nc));

		if (!nc)
			return NULL;
		a->chunk = nc;
		if (!(nc[a->nchunk] = malloc(SQ3_ARENA_CHUNK)))
			return NULL;
		a->cur = a->nchunk++;
		a->used = 0;
	}
	p = a->chunk[a->cur] + a->used;
	a->used += n;
	a->bytes += n;
	return p;
}

static uint32_t ent_hash(const char *e)
{
	uint32_t h = 2166136261u;

	for (; *e; e++)
		h = (h ^ (uint8_t)*e) * 16777619u;
	return h;
}

/* Sets *off to the offset in x->ents of entity e, adding it once. */
static int step_intern(struct sq3_step *x, const char *e, size_t *off)
{
	size_t len = strlen(e) + 1, i;
	int rc;

	if ((x->nent + 1) * 2 > x->nslot) {
		size_t nn = x->nslot ? x->nslot * 2 : 1024;
		uint32_t *ns = calloc(nn, sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		for (size_t k = 0; k < x->nslot; k++) {
			uint32_t v = x->slot[k];

			if (!v)
				continue;
			i = ent_hash((const char *)x->ents.data + v - 1) & (nn - 1);
			while (ns[i])
				i = (i + 1) & (nn - 1);
			ns[i] = v;
		}
		free(x->slot);
		x->slot = ns;
		x->nslot = nn;
	}
	i = ent_hash(e) & (x->nslot - 1);
	for (; x->slot[i]; i = (i + 1) & (x->nslot - 1)) {
		if (!strcmp((const char *)x->ents.data + x->slot[i] - 1, e)) {
			*off = x->slot[i] - 1;
			return 0;
		}
	}
	if (x->ents.len + len >= UINT32_MAX)
		return -BCN_EFULL;
	*off = x->ents.len;
	if ((rc = bcn_buf_add(&x->ents, e, len)))
		return rc;
	x->slot[i] = (uint32_t)*off + 1;
	x->nent++;
	return 0;
}

/* Decodes the block blob into x's records. */
static int step_decode(struct sq_store *s, struct sq3_step *x,
		       const void *blob, int len)
{
	struct bcn_block_reader *b;
	size_t size;
	int rc;

	if (!blob || len <= 0)
		return -BCN_ECORRUPT;
	if (!x->pool)
		return -ENOMEM;
	rc = bcn_block_open(blob, (size_t)len, &sq3_lim, &b);
	if (rc)
		return rc;
	if ((rc = step_keep(x, b))) {
		bcn_block_close(b);
		return rc;
	}
	for (;;) {
		struct sq3_rec *r;

		if (x->nrecs == x->caprecs) {
			size_t nc = x->caprecs ? x->caprecs * 2 : 1024;
			struct sq3_rec *nr = realloc(x->recs, nc * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			x->recs = nr;
			x->caprecs = nc;
		}
		r = &x->recs[x->nrecs];
		rc = bcn_block_next(b, &s->dec, &r->seq, &r->idx);
		if (rc <= 0)
			return rc;
		size = (bcn_block_record_size(s->dec.type) + 7) & ~(size_t)7;
		if (!(r->rec = arena_get(&x->pool->arena, size)))
			return -ENOMEM;
		memcpy(r->rec, &s->dec, size);
		r->part = bcn_store_record_part(&s->dec);
		r->chunk = bcn_timefmt_floor_div(s->dec.t, x->chunk);
		rc = bcn_record_entity(&s->dec, s->entity, sizeof(s->entity));
		if (!rc)
			rc = step_intern(x, s->entity, &r->ent);
		if (rc)
			return rc;
		x->nrecs++;
	}
}

/* Sets every record's entity pointer, once the arena is complete. */
static void step_ents(struct sq3_step *x)
{
	for (size_t i = 0; i < x->nrecs; i++)
		x->recs[i].entp = (const char *)x->ents.data + x->recs[i].ent;
}

/* Closes x's readers and gives its buffers back to the pool. */
static void step_free(struct sq3_step *x)
{
	for (size_t i = 0; i < x->nrd; i++)
		bcn_block_close(x->rd[i]);
	free(x->rd);
	if (x->pool) {
		x->pool->recs = x->recs;
		x->pool->caprecs = x->caprecs;
		x->pool->ents = x->ents;
		x->pool->slot = x->slot;
		x->pool->nslot = x->nslot;
	}
}

/* The job of an L1 block's key: job parts (a target's records of one
 * job) get blocks per job, so that a job's query decodes its own records
 * only; other blocks hold every job (0). */
static uint64_t key_job(const struct sq3_rec *r)
{
	return r->part == BCN_STORE_PART_JOB ? r->rec->job : 0;
}

/* Group order: part, entity, key job, chunk (then anything: put_blocks
 * sorts). */
static int cmp_group(const void *a, const void *b)
{
	const struct sq3_rec *x = *(const struct sq3_rec *const *)a;
	const struct sq3_rec *y = *(const struct sq3_rec *const *)b;
	uint64_t jx = key_job(x), jy = key_job(y);

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->ent != y->ent)   /* interned: same entity, same offset */
		return x->ent < y->ent ? -1 : 1;
	if (jx != jy)
		return jx < jy ? -1 : 1;
	return (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

/* Deletes block id and its job entries. */
static int drop_block(struct sq_store *s, struct sq_day *dd, int64_t id)
{
	static const int ids[] = { S3_BLOCK_DEL, S3_BLOCK_JOBS_DEL };
	sqlite3_stmt *st;
	int rc = 0;

	for (size_t k = 0; k < NLIST(ids) && !rc; k++) {
		rc = stmt(s, dd, ids[k], &st);
		if (rc)
			break;
		sqlite3_bind_int64(st, 1, id);
		rc = step_done(s, dd->db, st, "deleting a block");
	}
	return rc;
}

/* Writes the records g[0..n) of one (part, entity, chunk) as L1 blocks,
 * merged with the L1 blocks of that key already there. */
static int merge_group(struct sq_store *s, struct sq_day *dd, int layer,
		       struct sq3_rec *const *g, size_t n)
{
	int64_t cs = g[0]->chunk * dd->v3->chunk;
	struct sq3_step y;
	struct bcn_block_item *bi = NULL;
	sqlite3_stmt *st = NULL;
	int rc, src = SQLITE_DONE;
	size_t m = 0;

	rc = step_init(s, &y, dd->v3->chunk, 1);
	if (!rc)
		rc = stmt(s, dd, S3_L1_KEY, &st);
	if (!rc) {
		sqlite3_bind_int(st, 1, layer);
		sqlite3_bind_text(st, 2, g[0]->entp, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, g[0]->part);
		sqlite3_bind_int64(st, 4, cs);
		sqlite3_bind_int64(st, 5, cs + dd->v3->chunk);
		sqlite3_bind_int64(st, 6, u2i(key_job(g[0])));
		sqlite3_bind_int(st, 7, SQ3_MERGE_MAX);
	}
	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
		rc = step_decode(s, &y, sqlite3_column_blob(st, 1),
				 sqlite3_column_bytes(st, 1));
		if (!rc)
			rc = drop_block(s, dd, sqlite3_column_int64(st, 0));
	}
	if (!rc && src != SQLITE_DONE)
		rc = sq_fail(s, dd->db, "reading a block", src);
	sqlite3_reset(st);
	if (!rc && !(bi = malloc((n + y.nrecs) * sizeof(*bi))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		bi[m++] = (struct bcn_block_item){ g[i]->rec, g[i]->seq,
						   g[i]->idx };
	for (size_t i = 0; !rc && i < y.nrecs; i++)
		bi[m++] = (struct bcn_block_item){ y.recs[i].rec,
						   y.recs[i].seq, y.recs[i].idx };
	if (!rc)
		rc = put_blocks(s, dd, layer, g[0]->part, g[0]->entp,
				key_job(g[0]), bi, m);
	free(bi);
	step_free(&y);
	return rc;
}

/* Reads L0 blocks of layer ending before horizon, oldest first, up to
 * SQ3_STEP_MAX records and SQ3_STEP_BYTES of them (one block at least),
 * into x; their ids into *ids. */
static int step_load(struct sq_store *s, struct sq_day *dd, int layer,
		     int64_t horizon, struct sq3_step *x, int64_t **ids,
		     size_t *nids)
{
	sqlite3_stmt *st = NULL;
	int rc, src = SQLITE_DONE;
	int64_t *v = NULL, *nv;
	size_t cap = 0;

	*nids = 0;
	rc = stmt(s, dd, S3_L0_OLD, &st);
	if (!rc) {
		sqlite3_bind_int(st, 1, layer);
		sqlite3_bind_int64(st, 2, horizon);
	}
	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
		if (*nids && (x->nrecs + (uint64_t)sqlite3_column_int64(st, 2) >
			      SQ3_STEP_MAX ||
			      x->pool->arena.bytes >= SQ3_STEP_BYTES))
			break;  /* the next step takes it */
		if (*nids == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
		}
		v[(*nids)++] = sqlite3_column_int64(st, 0);
		rc = step_decode(s, x, sqlite3_column_blob(st, 1),
				 sqlite3_column_bytes(st, 1));
	}
	if (!rc && src != SQLITE_DONE && src != SQLITE_ROW)
		rc = sq_fail(s, dd->db, "reading a block", src);
	sqlite3_reset(st);
	*ids = v;
	return rc;
}

/* One compaction step of layer in one transaction; *did: it found L0
 * blocks to compact. */
static int compact_step(struct sq_store *s, struct sq_day *dd, int layer,
			int64_t horizon, bool *did)
{
	struct sq3_step x;
	struct sq3_rec **ptr = NULL;
	int64_t *ids = NULL;
	size_t nids = 0, a, b;
	int rc, src;

	*did = false;
	rc = step_init(s, &x, dd->v3->chunk, 0);
	if (rc)
		return rc;
	src = sq_run_sql(dd->db, "BEGIN IMMEDIATE", NULL);
	rc = src == SQLITE_OK ? 0 : sq_fail(s, dd->db, "beginning", src);
	if (!rc)
		rc = step_load(s, dd, layer, horizon, &x, &ids, &nids);
	if (rc || !nids)
		goto out;
	step_ents(&x);
	ptr = malloc((x.nrecs ? x.nrecs : 1) * sizeof(*ptr));
	if (!ptr) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < x.nrecs; i++)
		ptr[i] = &x.recs[i];
	qsort(ptr, x.nrecs, sizeof(*ptr), cmp_group);
	for (a = 0; a < x.nrecs && !rc; a = b) {
		for (b = a + 1; b < x.nrecs && !cmp_group(&ptr[a], &ptr[b]); b++)
			;
		rc = merge_group(s, dd, layer, ptr + a, b - a);
	}
	for (size_t i = 0; i < nids && !rc; i++)
		rc = drop_block(s, dd, ids[i]);
	if (!rc && (src = sq_run_sql(dd->db, "COMMIT", NULL)) != SQLITE_OK)
		rc = sq_fail(s, dd->db, "committing a compaction", src);
	*did = !rc;
out:
	if (sqlite3_get_autocommit(dd->db) == 0) {
		if (rc)
			rollback(dd->db);
		else
			sq_run_sql(dd->db, "COMMIT", NULL);
	}
	free(ptr);
	free(ids);
	step_free(&x);
	return rc;
}

int sq3_compact_all(struct sq_store *s, struct sq_day *dd)
{
	bool did;
	int rc = 0;

	for (int layer = 1; layer < BCN_LAYER_MAX && !rc; layer++)
		do
			rc = compact_step(s, dd, layer, INT64_MAX, &did);
		while (!rc && did);
	return rc;
}

/* ---- queries ---- */

/* A block being merged: its reader and its next matching record. */
struct sq3_cur {
	struct bcn_block_reader *b;
	struct bcn_record rec;
	uint64_t seq;
	uint32_t idx;
	bool l0;
};

/* A block a window reads later, one at a time (q->any_order). */
struct sq3_later {
	int64_t id;
	bool l0;
};

struct sq3_win {
	const struct bcn_store_query *q;
	int64_t lo, hi;                 /* t in [lo, hi) */
	struct sq3_cur *cur;
	size_t ncur, cap;
	struct sq3_cur **heap;
	size_t nheap;
	struct sq3_later *later;        /* q->any_order: blocks not opened */
	size_t nlater, later_cap;
	char ent[BCN_ENTITY_MAX];
};

static bool cur_less(const struct sq3_cur *a, const struct sq3_cur *b)
{
	if (a->rec.t != b->rec.t)
		return a->rec.t < b->rec.t;
	return cmp_ident(a->rec.node, a->seq, a->idx,
			 b->rec.node, b->seq, b->idx) < 0;
}

/* Whether the record of c matches the query (t within the window). */
static bool cur_match(struct sq3_win *w, const struct sq3_cur *c)
{
	const struct bcn_store_query *q = w->q;
	const struct bcn_record *r = &c->rec;

	if (r->t < w->lo || r->t >= w->hi)
		return false;
	if (bcn_record_desc(r->type)->layer != q->layer)
		return false;
	if (q->job && r->job != q->job)
		return false;
	if (!c->l0)
		return true;    /* L1: part and entity selected the block */
	if (q->part != BCN_STORE_PART_ANY &&
	    bcn_store_record_part(r) != q->part)
		return false;
	if (q->entity && (bcn_record_entity(r, w->ent, sizeof(w->ent)) ||
			  strcmp(w->ent, q->entity)))
		return false;
	return true;
}

/* Advances c to its next matching record. Returns 1, 0 at the end (or
 * past the window), or a negative code. */
static int cur_next(struct sq3_win *w, struct sq3_cur *c)
{
	int rc;

	while ((rc = bcn_block_next(c->b, &c->rec, &c->seq, &c->idx)) == 1) {
		if (c->rec.t >= w->hi)
			return 0;       /* blocks are in t order */
		if (cur_match(w, c))
			return 1;
	}
	return rc;
}

static void heap_down(struct sq3_win *w, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct sq3_cur *t;

		if (l < w->nheap && cur_less(w->heap[l], w->heap[m]))
			m = l;
		if (l + 1 < w->nheap && cur_less(w->heap[l + 1], w->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = w->heap[i];
		w->heap[i] = w->heap[m];
		w->heap[m] = t;
		i = m;
	}
}

static void win_free(struct sq3_win *w)
{
	for (size_t i = 0; i < w->ncur; i++)
		bcn_block_close(w->cur[i].b);
	w->ncur = 0;
	w->nheap = 0;
	w->nlater = 0;
}

/* Notes the ids of the blocks st returns, to be read one at a time. */
static int win_later(struct sq_store *s, sqlite3 *db, struct sq3_win *w,
		     sqlite3_stmt *st, bool l0)
{
	int src;

	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		if (w->nlater == SQ3_LATER_MAX)
			return -BCN_EFULL;
		if (w->nlater == w->later_cap) {
			size_t nc = w->later_cap ? w->later_cap * 2 : 64;
			struct sq3_later *nl = realloc(w->later,
						       nc * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			w->later = nl;
			w->later_cap = nc;
		}
		w->later[w->nlater++] = (struct sq3_later){
			sqlite3_column_int64(st, 0), l0 };
	}
	return src == SQLITE_DONE ? 0 : sq_fail(s, db, "listing the blocks", src);
}

/* Opens the blocks the statement st returns as cursors of w. */
static int win_add(struct sq_store *s, sqlite3 *db, struct sq3_win *w,
		   sqlite3_stmt *st, bool l0)
{
	int rc = 0, src;

	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);
		int len = sqlite3_column_bytes(st, 0);
		struct sq3_cur *c;

		if (w->ncur == SQ3_OPEN_MAX)
			return -BCN_EFULL;
		if (w->ncur == w->cap) {
			size_t nc = w->cap ? w->cap * 2 : 64;
			struct sq3_cur *ncur = realloc(w->cur, nc * sizeof(*ncur));
			struct sq3_cur **nh;

			if (!ncur)
				return -ENOMEM;
			w->cur = ncur;
			nh = realloc(w->heap, nc * sizeof(*nh));
			if (!nh)
				return -ENOMEM;
			w->heap = nh;
			w->cap = nc;
		}
		if (!blob || len <= 0)
			return -BCN_ECORRUPT;
		c = &w->cur[w->ncur];
		c->l0 = l0;
		rc = bcn_block_open(blob, (size_t)len, &sq3_lim, &c->b);
		if (!rc)
			w->ncur++;
	}
	if (!rc && src != SQLITE_DONE)
		rc = sq_fail(s, db, "reading the blocks", src);
	return rc;
}

/* The SQL of the blocks of a window, by variant: + 1 level 0 (else 1),
 * + 2 any part, + 4 an entity, + 8 a job, + 16 their ids (else their
 * data). Parameters: ?1 layer, ?2 lo, ?3 hi, ?4 chunk start, ?5 entity,
 * ?6 job, ?7 part. */
static void win_sql(int variant, char *sql, size_t len)
{
	bool l0 = variant & 1;

	snprintf(sql, len, "SELECT %s FROM blocks WHERE layer = ?1 AND "
		 "t_min < ?3 AND t_max >= ?2 AND %s%s%s%s",
		 variant & 16 ? "id" : "data",
		 l0 ? "part = -1" : variant & 2 ? "part IN (0, 1, 2)" :
		 "part = ?7", l0 ? "" : " AND t_min >= ?4",
		 !l0 && (variant & 4) ? " AND entity = ?5" : "",
		 variant & 8 ? " AND id IN (SELECT block FROM block_jobs "
		 "WHERE job = ?6)" : "");
}

/* Opens the L0 and L1 blocks of the window w->[lo, hi) of chunk cs. */
static int win_open(struct sq_store *s, struct sq_day *dd, struct sq3_win *w,
		    int64_t cs)
{
	const struct bcn_store_query *q = w->q;
	int rc = 0, v = (q->part == BCN_STORE_PART_ANY ? 2 : 0) |
		(q->entity ? 4 : 0) | (q->job ? 8 : 0) |
		(q->any_order ? 16 : 0);

	for (int l0 = 1; l0 >= 0 && !rc; l0--) {
		sqlite3_stmt *st = NULL;

		rc = stmt(s, dd, S3_QUERY + (v | l0), &st);
		if (rc)
			break;
		sqlite3_bind_int(st, 1, q->layer);
		sqlite3_bind_int64(st, 2, w->lo);
		sqlite3_bind_int64(st, 3, w->hi);
		sqlite3_bind_int64(st, 4, cs);
		if (q->entity)
			sqlite3_bind_text(st, 5, q->entity, -1, SQLITE_STATIC);
		if (q->job)
			sqlite3_bind_int64(st, 6, u2i(q->job));
		sqlite3_bind_int(st, 7, q->part);
		rc = q->any_order ? win_later(s, dd->db, w, st, l0) :
		     win_add(s, dd->db, w, st, l0);
		sqlite3_reset(st);
	}
	return rc;
}

/* One value of a cached statement with ?1 layer, ?2 part: *v gets it, or
 * stays when NULL; *v2 (may be NULL) the second column. */
static int range_val(struct sq_store *s, struct sq_day *dd, int id, int layer,
		     int part, int64_t *v, int64_t *v2)
{
	sqlite3_stmt *st;
	int rc = stmt(s, dd, id, &st), src;

	if (rc)
		return rc;
	sqlite3_bind_int(st, 1, layer);
	sqlite3_bind_int(st, 2, part);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*v = sqlite3_column_int64(st, 0);
		if (v2)
			*v2 = sqlite3_column_int64(st, 1);
	} else if (src != SQLITE_ROW && src != SQLITE_DONE) {
		rc = sq_fail(s, dd->db, "reading the blocks' range", src);
	}
	sqlite3_reset(st);
	return rc;
}

/* Narrows [*lo, *hi) to the times the blocks q may read cover (L0 blocks,
 * L1 blocks of q's parts), from index lookups. */
static int layer_range(struct sq_store *s, struct sq_day *dd,
		       const struct bcn_store_query *q, int64_t *lo,
		       int64_t *hi)
{
	int64_t a = INT64_MAX, b = INT64_MIN, x, y, chunk = dd->v3->chunk;
	int rc;

	x = INT64_MAX;
	rc = range_val(s, dd, S3_RANGE_L0, q->layer, -1, &x, &y);
	if (!rc && x != INT64_MAX) {
		a = x;
		b = y;
	}
	for (int p = 0; p < BCN_STORE_PART_MAX && !rc; p++) {
		if (q->part != BCN_STORE_PART_ANY && p != q->part)
			continue;
		x = INT64_MAX;
		rc = range_val(s, dd, S3_MIN, q->layer, p, &x, NULL);
		if (rc || x == INT64_MAX)
			continue;
		a = x < a ? x : a;
		rc = range_val(s, dd, S3_MAX, q->layer, p, &x, NULL);
		/* an L1 block ends in the chunk it starts in */
		x = x > INT64_MAX - chunk ? INT64_MAX - 1 :
		    (bcn_timefmt_floor_div(x, chunk) + 1) * chunk - 1;
		b = x > b ? x : b;
	}
	if (rc || a == INT64_MAX) {
		*hi = *lo;
		return rc;
	}
	if (a > *lo)
		*lo = a;
	if (b < *hi - 1)
		*hi = b + 1;
	return 0;
}

/* Merges the window's cursors in scan order into fn. */
static int win_merge(struct sq3_win *w, bcn_store_record_fn *fn, void *arg)
{
	int rc = 0;

	w->nheap = 0;
	for (size_t i = 0; i < w->ncur && !rc; i++) {
		rc = cur_next(w, &w->cur[i]);
		if (rc == 1) {
			w->heap[w->nheap++] = &w->cur[i];
			rc = 0;
		}
	}
	for (size_t i = w->nheap; !rc && i-- > 0;)
		heap_down(w, i);
	while (!rc && w->nheap) {
		struct sq3_cur *c = w->heap[0];

		rc = fn(arg, &c->rec);
		if (rc)
			break;
		rc = cur_next(w, c);
		if (rc == 1) {
			rc = 0;
		} else if (rc == 0) {
			w->heap[0] = w->heap[--w->nheap];
		}
		if (!rc)
			heap_down(w, 0);
	}
	return rc;
}

/* Opens the block of id as c (*found false when it is gone). */
static int open_later(struct sq_store *s, struct sq_day *dd,
		      const struct sq3_later *l, struct sq3_cur *c)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt(s, dd, S3_BLOCK_GET, &st), src;

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, l->id);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);
		int len = sqlite3_column_bytes(st, 0);

		c->l0 = l->l0;
		rc = blob && len > 0 ?
		     bcn_block_open(blob, (size_t)len, &sq3_lim, &c->b) :
		     -BCN_ECORRUPT;
	} else {                        /* one transaction: never gone */
		rc = src == SQLITE_DONE ? -BCN_ECORRUPT :
		     sq_fail(s, dd->db, "reading a block", src);
	}
	sqlite3_reset(st);
	return rc;
}

/* Hands the window's records to fn block after block (q->any_order): no
 * merge, one block in memory at a time, and fn may query the store. */
static int win_drain(struct sq_store *s, struct sq_day *dd, struct sq3_win *w,
		     bcn_store_record_fn *fn, void *arg)
{
	int rc = 0;

	for (size_t i = 0; i < w->nlater && !rc; i++) {
		struct sq3_cur c = { .b = NULL };

		if ((rc = open_later(s, dd, &w->later[i], &c)))
			break;
		while ((rc = cur_next(w, &c)) == 1)
			if ((rc = fn(arg, &c.rec)))
				break;
		bcn_block_close(c.b);
	}
	return rc;
}

static int query_day(struct sq_store *s, struct sq_day *dd,
		     const struct bcn_store_query *q, bcn_store_record_fn *fn,
		     void *arg)
{
	const int64_t day_ns = BCN_STORE_DAY_NS;
	int64_t chunk = dd->v3->chunk, d0, d1, lo, hi, cs;
	struct sq3_win w = { .q = q };
	int rc = 0;

	if (__builtin_mul_overflow(dd->day, day_ns, &d0) ||
	    __builtin_add_overflow(d0, day_ns, &d1))
		return -BCN_ERANGE;
	lo = q->from > d0 ? q->from : d0;
	hi = q->to < d1 ? q->to : d1;
	rc = layer_range(s, dd, q, &lo, &hi);
	for (cs = bcn_timefmt_floor_div(lo, chunk) * chunk; !rc && cs < hi;
	     cs = w.hi) {
		w.lo = cs > lo ? cs : lo;
		w.hi = hi - cs > chunk ? cs + chunk : hi;
		rc = win_open(s, dd, &w, cs);
		if (!rc)
			rc = q->any_order ? win_drain(s, dd, &w, fn, arg) :
			     win_merge(&w, fn, arg);
		if (rc == -BCN_ECORRUPT)
			BCN_ERR("store %s: a damaged block in %s",
				s->base.cfg.dir, sqlite3_db_filename(dd->db, NULL));
		win_free(&w);
	}
	free(w.cur);
	free(w.heap);
	free(w.later);
	return rc;
}

/* The query in one read transaction (when none is open): its L0 and L1
 * statements and the blocks it reads later see one state of the file,
 * whatever a writer in another process compacts meanwhile. */
int sq3_query(struct sq_store *s, struct sq_day *dd,
	      const struct bcn_store_query *q, bcn_store_record_fn *fn,
	      void *arg)
{
	bool tx = sqlite3_get_autocommit(dd->db);
	int rc, src;

	if (tx && (src = sq_run_sql(dd->db, "BEGIN", NULL)) != SQLITE_OK)
		return sq_fail(s, dd->db, "starting a read", src);
	rc = query_day(s, dd, q, fn, arg);
	if (tx && (src = sq_run_sql(dd->db, "COMMIT", NULL)) != SQLITE_OK) {
		sq_run_sql(dd->db, "ROLLBACK", NULL);
		if (!rc)
			rc = sq_fail(s, dd->db, "ending a read", src);
	}
	return rc;
}
