/* What the two halves of the embedded store share: store_sqlite.c (day
 * files, schema 1 and 2, the dispatch) and store_blocks.c (schema 3, the
 * record blocks). Internal to libbeacon_store. */
#ifndef BCN_SQ_INT_H
#define BCN_SQ_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "common/buf.h"
#include "common/log.h"
#include "proto/frame.h"
#include "store/block.h"
#include "store/store.h"

#define SQ_OPEN_DAYS 8                  /* day databases kept open (LRU) */

/* Cached statements of one day database. */
enum sq_stmt {
	SQ_BEGIN, SQ_COMMIT, SQ_ROLLBACK, SQ_INSERT,
	SQ_SCAN,                        /* + 1 entity, + 2 job, + 4 any part */
	SQ_SUM = SQ_SCAN + 8,
	SQ_COUNT = SQ_SUM + 8,
	SQ_NSTMT = SQ_COUNT + 8
};

struct sq3_day;
struct sq3_pool;

struct sq_day {
	sqlite3 *db;                    /* NULL: free slot */
	int64_t day;                    /* days since 1970-01-01 */
	uint64_t used;                  /* LRU clock */
	sqlite3_stmt *st[SQ_NSTMT];     /* prepared on first use */
	int64_t schema;                 /* its user_version */
	struct sq3_day *v3;             /* schema 3 state, or NULL */
};

struct sq_store {
	struct bcn_store base;
	struct sq_day days[SQ_OPEN_DAYS];
	uint64_t clock;
	bool busy;                      /* inside an operation */
	bool damaged;                   /* the migration met a damaged record */
	struct bcn_frame_builder fb;    /* packs records */
	struct bcn_buf blob;
	struct bcn_frame frame;         /* unpacks them */
	struct bcn_complain complain;   /* repeated write failures */
	struct bcn_complain refusal;    /* records refused (node runs full) */
	uint64_t refused;               /* bcn_store_refused() */
	struct bcn_block_enc *enc;      /* schema 3: encodes blocks */
	struct sq3_pool *pool;          /* schema 3: compaction's buffers */
	struct bcn_buf blk;
	char entity[BCN_ENTITY_MAX];
	struct bcn_record dec;          /* schema 3: compaction decodes here */
	char path[PATH_MAX];
};

/* A batch item and the day it goes to. */
struct sq_ref {
	int64_t day;
	size_t i;
};

/* The two's complement bijection between uint64 and SQLite's int64. */
static inline int64_t u2i(uint64_t v)
{
	int64_t r;

	memcpy(&r, &v, sizeof(r));
	return r;
}

static inline uint64_t i2u(int64_t v)
{
	uint64_t r;

	memcpy(&r, &v, sizeof(r));
	return r;
}

static inline void add_sat(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

/* Logs a failure of a day database (rate-limited); returns its code. */
int sq_fail(struct sq_store *s, sqlite3 *db, const char *what, int src);
/* Runs one statement without parameters to completion; *val (may be
 * NULL) gets the first column of its last row. Returns an SQLite code. */
int sq_run_sql(sqlite3 *db, const char *sql, int64_t *val);
/* Runs the n statements of list in order. Returns 0 or sq_fail's code. */
int sq_run_list(struct sq_store *s, sqlite3 *db, const char *const *list,
		size_t n, const char *what);

/* ---- schema 3 (store_blocks.c) ---- */

#define SQ3_SCHEMA_VERSION 3
#define SQ3_ZSTD_LEVEL 2                /* L1 blocks' compression level */
#define SQ3_ZSTD_LEVEL_L0 1             /* L0 blocks' (rewritten soon) */

/* Creates the schema 3 tables in db, inside the caller's transaction. */
int sq3_create(struct sq_store *s, sqlite3 *db);
/* Sets up (dd->v3) or frees the state of an open schema 3 day. */
int sq3_attach(struct sq_store *s, struct sq_day *dd);
void sq3_detach(struct sq_day *dd);
/* Stores items refs[0..n) of day dd (schema 3) in one transaction, then
 * compacts a bounded amount. */
int sq3_append(struct sq_store *s, struct sq_day *dd,
	       const struct bcn_store_item *items, const struct sq_ref *refs,
	       size_t n);
/* Calls fn for each record of dd matching q (whose part is resolved), in
 * the scan order, until it returns non-zero (returned). */
int sq3_query(struct sq_store *s, struct sq_day *dd,
	      const struct bcn_store_query *q, bcn_store_record_fn *fn,
	      void *arg);
/* Compacts every L0 block of dd into L1 blocks. */
int sq3_compact_all(struct sq_store *s, struct sq_day *dd);
/* Frees the buffers compaction keeps between its steps (s->pool). */
void sq3_pool_free(struct sq_store *s);

#endif
