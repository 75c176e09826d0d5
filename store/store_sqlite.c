/* The embedded record store backend: one SQLite database per UTC day of
 * record time, <dir>/beacon-YYYYMMDD.db, in WAL mode with synchronous=FULL
 * so that a batch is on disk when append returns 0. New days have schema
 * 3, records in compressed blocks (store/store_blocks.c); this file keeps
 * the day files, the dispatch by schema and schema 2, where records are
 * kept whole as compact binary (the frame codec's one-record payload)
 * next to the columns the queries filter, order and sum on (and schema
 * 1, upgraded to 2). docs/store.md describes the layouts.
 *
 * uint64 values (seq, job, the totals) are stored as the int64 with the
 * same 64 bits; sums add the low and high 32-bit halves separately, so
 * they are exact for every value, and scans order seq as unsigned.
 *
 * A handle is used by one thread at a time; a scan or sum callback must
 * not call back into the same handle (it gets -EBUSY). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/error.h"
#include "proto/frame.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "store/store.h"
#include "store/sq_int.h"

#define SQ_MAX_DAYS 100000              /* day files one query considers */
#define SQ_SCHEMA_VERSION 2             /* PRAGMA user_version; 1: before
					 * the part column */
#define SQ_BLOB_MAX (1u << 20)          /* one packed record; a record's
					 * strings are at most 5 x 4096 B */
#define SQ_NAME_LEN 18                  /* "beacon-YYYYMMDD.db" */
#define SQ_SUFFIX_MAX 8                 /* "-wal", "-shm" and the NUL */
#define SQ_HALF_MASK 0xffffffffull


#define SQ_COLS "node, seq, idx, layer, type, entity, job, t, dur, " \
	"read_bytes, write_bytes, read_ops, write_ops, meta_ops, other_ops, " \
	"rec, part"

/* Parameters: ?1 layer, ?2 from, ?3 to, ?4 entity, ?5 job, ?6 limit,
 * ?7 bucket width, ?8 part. */
#define SQ_WHERE " FROM records WHERE layer = ?1 AND t >= ?2 AND t < ?3"
#define SQ_E " AND entity = ?4"
#define SQ_J " AND job = ?5"
#define SQ_P " AND part = ?8"
/* every part: an IN list (not no condition) keeps part's place in the
 * indexes usable, one range of t per part */
#define SQ_ANY " AND part IN (0, 1, 2)"
_Static_assert(BCN_STORE_PART_MAX == 3, "SQ_ANY lists every part");
/* the 8 variants of a query: + 1 entity, + 2 job, + 4 any part */
#define SQ_VARIANTS(id, MK) \
	[id] = MK(SQ_P), [id + 1] = MK(SQ_E SQ_P), \
	[id + 2] = MK(SQ_J SQ_P), [id + 3] = MK(SQ_E SQ_J SQ_P), \
	[id + 4] = MK(SQ_ANY), [id + 5] = MK(SQ_E SQ_ANY), \
	[id + 6] = MK(SQ_J SQ_ANY), [id + 7] = MK(SQ_E SQ_J SQ_ANY)
/* unsigned order of seq: its int64 image is negative from 2^63 on */
#define SQ_SCAN_SQL(w) "SELECT node, rec" SQ_WHERE w \
	" ORDER BY t, node, seq < 0, seq, idx LIMIT ?6"
#define SQ_HALVES(c) "SUM(" c " & 4294967295), SUM((" c " >> 32) & 4294967295)"
/* floor(t / width) without overflow, also for negative t */
#define SQ_SUM_SQL(w) "SELECT CASE WHEN t >= 0 THEN t / ?7 " \
	"ELSE -((-1 - t) / ?7) - 1 END AS k, COUNT(*), " \
	SQ_HALVES("read_bytes") ", " SQ_HALVES("write_bytes") ", " \
	SQ_HALVES("read_ops") ", " SQ_HALVES("write_ops") ", " \
	SQ_HALVES("meta_ops") ", " SQ_HALVES("other_ops") \
	SQ_WHERE w " GROUP BY k ORDER BY k"
#define SQ_COUNT_SQL(w) "SELECT COUNT(*)" SQ_WHERE w

static const char *const sq_sql[SQ_NSTMT] = {
	[SQ_BEGIN] = "BEGIN IMMEDIATE",
	[SQ_COMMIT] = "COMMIT",
	[SQ_ROLLBACK] = "ROLLBACK",
	[SQ_INSERT] = "INSERT OR IGNORE INTO records (" SQ_COLS ") VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
		"?15, ?16, ?17)",
	SQ_VARIANTS(SQ_SCAN, SQ_SCAN_SQL),
	SQ_VARIANTS(SQ_SUM, SQ_SUM_SQL),
	SQ_VARIANTS(SQ_COUNT, SQ_COUNT_SQL),
};

#define SQ_STR(x) #x
#define SQ_XSTR(x) SQ_STR(x)
#define SQ_SET_VERSION "PRAGMA user_version = " SQ_XSTR(SQ_SCHEMA_VERSION)
/* The indexes of schema 2: part is an equality term of nearly every query
 * (the default is TOTAL), so it comes right before t. */
#define SQ_INDEXES \
	"CREATE INDEX IF NOT EXISTS records_t ON records (layer, part, t)", \
	"CREATE INDEX IF NOT EXISTS records_entity ON records " \
	"(layer, entity, part, t)", \
	"CREATE INDEX IF NOT EXISTS records_job ON records (layer, job, part, t)"

/* Run once per new database, in one transaction. */
static const char *const sq_schema[] = {
	"CREATE TABLE IF NOT EXISTS records ("
	"node TEXT NOT NULL, seq INTEGER NOT NULL, idx INTEGER NOT NULL, "
	"layer INTEGER NOT NULL, type INTEGER NOT NULL, "
	"entity TEXT NOT NULL, job INTEGER NOT NULL, "
	"t INTEGER NOT NULL, dur INTEGER NOT NULL, "
	"read_bytes INTEGER NOT NULL, write_bytes INTEGER NOT NULL, "
	"read_ops INTEGER NOT NULL, write_ops INTEGER NOT NULL, "
	"meta_ops INTEGER NOT NULL, other_ops INTEGER NOT NULL, "
	"rec BLOB NOT NULL, part INTEGER NOT NULL DEFAULT 0, "
	"PRIMARY KEY (node, seq, idx))",
	SQ_INDEXES,
	SQ_SET_VERSION,
};

/* Schema 1 to 2, in one transaction: the part column (the records' parts
 * are filled in between these two lists), then the new indexes. */
static const char *const sq_to_v2_before[] = {
	"ALTER TABLE records ADD COLUMN part INTEGER NOT NULL DEFAULT 0",
};
static const char *const sq_to_v2_after[] = {
	"DROP INDEX IF EXISTS records_t",
	"DROP INDEX IF EXISTS records_entity",
	"DROP INDEX IF EXISTS records_job",
	SQ_INDEXES,
	SQ_SET_VERSION,
};
#define SQ_PART_FN "bcn_record_part"
/* ?1, ?2: the layers with parts (ost, mds); totals keep the default 0 */
#define SQ_TO_V2_PARTS "UPDATE records SET part = " SQ_PART_FN "(rec) " \
	"WHERE layer IN (?1, ?2) AND " SQ_PART_FN "(rec) <> 0"
#define SQ_NLIST(a) (sizeof(a) / sizeof((a)[0]))


/* Buckets of a sum, merged across day files. */
struct sq_sum {
	bcn_store_bucket_fn *fn;
	void *arg;
	int64_t width;
	int rc;                         /* of fn, from a schema 3 day */
	bool have;
	int64_t k;                      /* bucket number of b */
	struct bcn_store_bucket b;
};

static const struct bcn_frame_limits sq_lim = BCN_FRAME_LIMITS_DEFAULT;


static int sq_code(int src)
{
	switch (src & 0xff) {
	case SQLITE_OK: return 0;
	case SQLITE_BUSY: case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_READONLY: return -EROFS;
	case SQLITE_PERM: case SQLITE_AUTH: return -EACCES;
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_CORRUPT: case SQLITE_NOTADB: return -BCN_ECORRUPT;
	case SQLITE_TOOBIG: return -BCN_ETOOBIG;
	case SQLITE_CONSTRAINT: case SQLITE_MISMATCH: case SQLITE_RANGE:
		return -EINVAL;
	default: return -EIO;
	}
}

/* Logs a failure of a day database (rate-limited) and returns its code. */
int sq_fail(struct sq_store *s, sqlite3 *db, const char *what, int src)
{
	const char *file = db ? sqlite3_db_filename(db, "main") : NULL;

	bcn_complain(&s->complain, BCN_LOG_ERR, "store: %s: %s: %s",
		     file && file[0] ? file : s->path, what,
		     db ? sqlite3_errmsg(db) : sqlite3_errstr(src));
	return sq_code(src);
}

/* Writes the path of a day's file plus suffix into s->path. */
static int day_path(struct sq_store *s, int64_t day, const char *suffix)
{
	int64_t y, m, d;
	int n;

	if (bcn_timefmt_civil(day, &y, &m, &d))
		return -BCN_ERANGE;
	n = snprintf(s->path, sizeof(s->path), "%s/beacon-%04" PRId64 "%02"
		     PRId64 "%02" PRId64 ".db%s", s->base.cfg.dir, y, m, d,
		     suffix);
	return n < 0 || (size_t)n >= sizeof(s->path) ? -ENAMETOOLONG : 0;
}

/* The day a file name "beacon-YYYYMMDD.db" stands for. Returns 0, or
 * -BCN_ESYNTAX for a name that is not a day file's. */
static int day_of_name(const char *name, int64_t *day)
{
	int64_t v[3] = { 0, 0, 0 };
	static const int width[3] = { 4, 2, 2 };
	const char *p = name + 7;

	if (strlen(name) != SQ_NAME_LEN || memcmp(name, "beacon-", 7) ||
	    strcmp(name + 15, ".db"))
		return -BCN_ESYNTAX;
	for (int f = 0; f < 3; f++) {
		for (int k = 0; k < width[f]; k++, p++) {
			if (*p < '0' || *p > '9')
				return -BCN_ESYNTAX;
			v[f] = v[f] * 10 + (*p - '0');
		}
	}
	return bcn_timefmt_days(v[0], v[1], v[2], day) ? -BCN_ESYNTAX : 0;
}

static int cmp_day(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The days in [first, last] that have a file, ascending, in *out
 * (malloc'd, may be NULL when *n is 0). */
static int list_days(struct sq_store *s, int64_t first, int64_t last,
		     int64_t **out, size_t *n)
{
	int64_t *v = NULL, *nv, day;
	size_t cap = 0, cnt = 0;
	struct dirent *de;
	int rc = 0;
	DIR *dir;

	*out = NULL;
	*n = 0;
	dir = opendir(s->base.cfg.dir);
	if (!dir) {
		rc = -errno;
		BCN_ERR("store %s: %s", s->base.cfg.dir, strerror(errno));
		return rc;
	}
	for (errno = 0; (de = readdir(dir)) != NULL; errno = 0) {
		if (day_of_name(de->d_name, &day) || day < first || day > last)
			continue;
		if (cnt == SQ_MAX_DAYS) {
			rc = -BCN_EFULL;
			goto out;
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		v[cnt++] = day;
	}
	if (errno) {
		rc = -errno;
		BCN_ERR("store %s: reading the directory: %s", s->base.cfg.dir,
			strerror(errno));
		goto out;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_day);
out:
	closedir(dir);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n = cnt;
	return 0;
}

static void day_close(struct sq_day *dd)
{
	if (!dd->db)
		return;
	sq3_detach(dd);
	for (int k = 0; k < SQ_NSTMT; k++)
		sqlite3_finalize(dd->st[k]);
	if (sqlite3_close_v2(dd->db) != SQLITE_OK)
		BCN_WARN("store: closing a day database: %s",
			 sqlite3_errmsg(dd->db));
	memset(dd, 0, sizeof(*dd));
}

/* The cached statement id of dd, prepared on first use and reset. */
static int day_stmt(struct sq_store *s, struct sq_day *dd, int id,
		    sqlite3_stmt **out)
{
	int src;

	if (!dd->st[id]) {
		src = sqlite3_prepare_v3(dd->db, sq_sql[id], -1,
					 SQLITE_PREPARE_PERSISTENT,
					 &dd->st[id], NULL);
		if (src != SQLITE_OK)
			return sq_fail(s, dd->db, "preparing a statement", src);
	}
	sqlite3_reset(dd->st[id]);
	sqlite3_clear_bindings(dd->st[id]);
	*out = dd->st[id];
	return 0;
}

/* Runs one statement without parameters to completion; *val (may be
 * NULL) gets the first column of its (last) row, if it has any. */
int sq_run_sql(sqlite3 *db, const char *sql, int64_t *val)
{
	sqlite3_stmt *st;
	int src;

	src = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (src != SQLITE_OK)
		return src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		if (val)
			*val = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return src == SQLITE_DONE ? SQLITE_OK : src;
}

/* Switches db to WAL mode; fails when the file system cannot have it. */
static int set_wal(sqlite3 *db)
{
	sqlite3_stmt *st;
	const char *mode;
	int src;

	src = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
	if (src != SQLITE_OK)
		return src;
	src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		mode = (const char *)sqlite3_column_text(st, 0);
		src = mode && strcmp(mode, "wal") == 0 ? SQLITE_OK :
		      SQLITE_CANTOPEN;
	}
	sqlite3_finalize(st);
	return src;
}

/* Runs the n statements of list, without parameters, in order. */
int sq_run_list(struct sq_store *s, sqlite3 *db, const char *const *list,
		    size_t n, const char *what)
{
	int src = SQLITE_OK;

	for (size_t k = 0; src == SQLITE_OK && k < n; k++)
		src = sq_run_sql(db, list[k], NULL);
	return src == SQLITE_OK ? 0 : sq_fail(s, db, what, src);
}

static int version_error(struct sq_store *s, int64_t version)
{
	BCN_ERR("store %s: %s has schema version %" PRId64 ", newer than "
		"this beacon knows (%d): written by a newer beacon?",
		s->base.cfg.dir, s->path, version, SQ3_SCHEMA_VERSION);
	return -BCN_EVERSION;
}

/* SQL function bcn_record_part(rec): the part (bcn_store_record_part) of
 * a stored record, for the migration to schema 2. A record that does not
 * decode is an error of the statement (and sets s->damaged). */
static void part_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sq_store *s = sqlite3_user_data(ctx);
	const void *blob = sqlite3_value_blob(argv[0]);
	int len = sqlite3_value_bytes(argv[0]);
	struct bcn_record r;

	(void)argc;
	if (!blob || len <= 0 || (unsigned)len > SQ_BLOB_MAX ||
	    bcn_frame_open_raw(&s->frame, blob, (size_t)len, 1, "-", &sq_lim) ||
	    bcn_frame_next(&s->frame, &r) != 1) {
		s->damaged = true;
		sqlite3_result_error(ctx, "a stored record does not decode", -1);
		return;
	}
	sqlite3_result_int(ctx, bcn_store_record_part(&r));
}

/* Sets the part column of the ost and mds rows of a schema 1 database
 * from their stored records; *marked gets the number of parts. */
static int fill_parts(struct sq_store *s, sqlite3 *db, int64_t *marked)
{
	sqlite3_stmt *st = NULL;
	int src;

	s->damaged = false;
	src = sqlite3_create_function_v2(db, SQ_PART_FN, 1, SQLITE_UTF8 |
					 SQLITE_DETERMINISTIC |
					 SQLITE_DIRECTONLY, s, part_fn, NULL,
					 NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_prepare_v2(db, SQ_TO_V2_PARTS, -1, &st, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_bind_int(st, 1, BCN_LAYER_OST);
	if (src == SQLITE_OK)
		src = sqlite3_bind_int(st, 2, BCN_LAYER_MDS);
	if (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_DONE)
		src = SQLITE_OK;
	*marked = src == SQLITE_OK ? sqlite3_changes64(db) : 0;
	sqlite3_finalize(st);
	sqlite3_create_function_v2(db, SQ_PART_FN, 1, SQLITE_UTF8, NULL, NULL,
				   NULL, NULL, NULL);
	if (src == SQLITE_OK)
		return 0;
	src = sq_fail(s, db, "marking the parts of the stored records", src);
	return s->damaged ? -BCN_ECORRUPT : src;
}

/* Schema 1 to 2 inside the caller's transaction: the part column, the
 * parts of the stored records, the indexes with part. */
static int upgrade_v1(struct sq_store *s, sqlite3 *db)
{
	int64_t marked = 0;
	int rc;

	rc = sq_run_list(s, db, sq_to_v2_before, SQ_NLIST(sq_to_v2_before),
		      "adding the part column");
	if (!rc)
		rc = fill_parts(s, db, &marked);
	if (!rc)
		rc = sq_run_list(s, db, sq_to_v2_after, SQ_NLIST(sq_to_v2_after),
			      "indexing the part column");
	if (!rc)
		BCN_NOTICE("store: %s: schema 1 upgraded to 2 (%" PRId64
			   " job and client parts)", s->path, marked);
	return rc;
}

/* Creates the schema of a new database or upgrades an older one, in one
 * transaction that reads the version again: another process may have
 * done it since the caller looked. */
static int day_upgrade(struct sq_store *s, sqlite3 *db)
{
	int64_t version = 0;
	int rc = 0, src;

	src = sq_run_sql(db, "BEGIN IMMEDIATE", NULL);
	if (src == SQLITE_OK)
		src = sq_run_sql(db, "PRAGMA user_version", &version);
	if (src != SQLITE_OK)
		rc = sq_fail(s, db, "upgrading the schema", src);
	else if (version == 0 && s->base.cfg.schema == SQ_SCHEMA_VERSION)
		rc = sq_run_list(s, db, sq_schema, SQ_NLIST(sq_schema),
			      "creating the schema");
	else if (version == 0)
		rc = sq3_create(s, db);
	else if (version == 1)
		rc = upgrade_v1(s, db);
	else if (version != SQ_SCHEMA_VERSION && version != SQ3_SCHEMA_VERSION)
		rc = version_error(s, version);
	if (!rc && (src = sq_run_sql(db, "COMMIT", NULL)) != SQLITE_OK)
		rc = sq_fail(s, db, "committing the schema", src);
	if (rc && sqlite3_get_autocommit(db) == 0)
		sq_run_sql(db, "ROLLBACK", NULL);
	return rc;
}

/* Sets up a freshly opened database: WAL, durability, schema; *version
 * gets its schema (2 or 3). */
static int day_setup(struct sq_store *s, sqlite3 *db, int64_t *version)
{
	int src, rc;

	src = sqlite3_busy_timeout(db, s->base.cfg.timeout_ms > INT_MAX ?
				   INT_MAX : (int)s->base.cfg.timeout_ms);
	if (src == SQLITE_OK)
		src = set_wal(db);
	if (src == SQLITE_OK)
		src = sq_run_sql(db, "PRAGMA synchronous = FULL", NULL);
	if (src == SQLITE_OK)
		src = sq_run_sql(db, "PRAGMA user_version", version);
	if (src != SQLITE_OK)
		return sq_fail(s, db, "opening", src);
	if (*version == SQ_SCHEMA_VERSION || *version == SQ3_SCHEMA_VERSION)
		return 0;
	if (*version < 0 || *version > SQ3_SCHEMA_VERSION)
		return version_error(s, *version);
	rc = day_upgrade(s, db);
	if (!rc && (src = sq_run_sql(db, "PRAGMA user_version", version)))
		rc = sq_fail(s, db, "opening", src);
	return rc;
}

/* The open database of a day, opening (and with create, creating) it in
 * the least recently used slot. Returns 0, -ENOENT when the file does not
 * exist and create is false, or another negative code. */
static int day_open(struct sq_store *s, int64_t day, bool create,
		    struct sq_day **out)
{
	struct sq_day *dd = &s->days[0];
	struct stat sb;
	sqlite3 *db = NULL;
	int64_t version = 0;
	int rc, src;

	for (int k = 0; k < SQ_OPEN_DAYS; k++) {
		if (s->days[k].db && s->days[k].day == day) {
			s->days[k].used = ++s->clock;
			*out = &s->days[k];
			return 0;
		}
		if (!s->days[k].db || (dd->db && s->days[k].used < dd->used))
			dd = &s->days[k];
	}
	rc = day_path(s, day, "");
	if (rc)
		return rc;
	if (!create && stat(s->path, &sb))
		return errno == ENOENT ? -ENOENT : -errno;
	day_close(dd);
	src = sqlite3_open_v2(s->path, &db, SQLITE_OPEN_READWRITE |
			      (create ? SQLITE_OPEN_CREATE : 0) |
			      SQLITE_OPEN_NOMUTEX, NULL);
	rc = src == SQLITE_OK ? day_setup(s, db, &version) :
	     sq_fail(s, db, "opening", src);
	if (rc) {
		sqlite3_close(db);
		return rc;
	}
	dd->db = db;
	dd->day = day;
	dd->used = ++s->clock;
	dd->schema = version;
	if (version == SQ3_SCHEMA_VERSION && (rc = sq3_attach(s, dd))) {
		day_close(dd);
		return rc;
	}
	*out = dd;
	return 0;
}

static int bind_item(struct sq_store *s, sqlite3_stmt *st,
		     const struct bcn_store_item *it)
{
	const struct bcn_record *r = it->rec;
	struct bcn_record_totals tot;
	int rc, src;

	bcn_buf_reset(&s->blob);
	rc = bcn_frame_builder_pack(&s->fb, r, &s->blob);
	if (!rc)
		rc = bcn_record_entity(r, s->entity, sizeof(s->entity));
	if (rc)
		return rc;
	bcn_record_totals(r, &tot);
	src = sqlite3_bind_text(st, 1, r->node, -1, SQLITE_STATIC);
	src |= sqlite3_bind_int64(st, 2, u2i(it->seq));
	src |= sqlite3_bind_int64(st, 3, it->idx);
	src |= sqlite3_bind_int64(st, 4, bcn_record_desc(r->type)->layer);
	src |= sqlite3_bind_int64(st, 5, u2i(r->type));
	src |= sqlite3_bind_text(st, 6, s->entity, -1, SQLITE_STATIC);
	src |= sqlite3_bind_int64(st, 7, u2i(r->job));
	src |= sqlite3_bind_int64(st, 8, r->t);
	src |= sqlite3_bind_int64(st, 9, r->dur);
	src |= sqlite3_bind_int64(st, 10, u2i(tot.read_bytes));
	src |= sqlite3_bind_int64(st, 11, u2i(tot.write_bytes));
	src |= sqlite3_bind_int64(st, 12, u2i(tot.read_ops));
	src |= sqlite3_bind_int64(st, 13, u2i(tot.write_ops));
	src |= sqlite3_bind_int64(st, 14, u2i(tot.meta_ops));
	src |= sqlite3_bind_int64(st, 15, u2i(tot.other_ops));
	src |= sqlite3_bind_blob(st, 16, s->blob.data, (int)s->blob.len,
				 SQLITE_STATIC);
	src |= sqlite3_bind_int(st, 17, bcn_store_record_part(r));
	return src == SQLITE_OK ? 0 : -EINVAL;
}

/* Stores the items refs[0..n) of one day in one transaction. */
static int append_day(struct sq_store *s, int64_t day,
		      const struct bcn_store_item *items,
		      const struct sq_ref *refs, size_t n)
{
	sqlite3_stmt *ins = NULL, *st = NULL;
	struct sq_day *dd;
	int rc, src;

	rc = day_open(s, day, true, &dd);
	if (!rc && dd->schema == SQ3_SCHEMA_VERSION)
		return sq3_append(s, dd, items, refs, n);
	if (!rc)
		rc = day_stmt(s, dd, SQ_INSERT, &ins);
	if (!rc)
		rc = day_stmt(s, dd, SQ_BEGIN, &st);
	if (rc)
		return rc;
	src = sqlite3_step(st);
	if (src != SQLITE_DONE)
		return sq_fail(s, dd->db, "beginning a transaction", src);
	for (size_t k = 0; k < n && !rc; k++) {
		sqlite3_reset(ins);
		rc = bind_item(s, ins, &items[refs[k].i]);
		if (!rc && (src = sqlite3_step(ins)) != SQLITE_DONE)
			rc = sq_fail(s, dd->db, "inserting", src);
	}
	sqlite3_reset(ins);
	sqlite3_clear_bindings(ins);
	if (!rc && !(rc = day_stmt(s, dd, SQ_COMMIT, &st)) &&
	    (src = sqlite3_step(st)) != SQLITE_DONE)
		rc = sq_fail(s, dd->db, "committing", src);
	if (rc && sqlite3_get_autocommit(dd->db) == 0 &&
	    (day_stmt(s, dd, SQ_ROLLBACK, &st) ||
	     sqlite3_step(st) != SQLITE_DONE))
		BCN_WARN("store %s: rollback failed: %s", s->base.cfg.dir,
			 sqlite3_errmsg(dd->db));
	return rc;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct sq_ref *x = a, *y = b;

	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int sq_append(struct bcn_store *bs, const struct bcn_store_item *items,
		     size_t n)
{
	const int64_t day_ns = BCN_STORE_DAY_NS;
	struct sq_store *s = (struct sq_store *)bs;
	struct sq_ref *refs;
	size_t a, b;
	int rc = 0;

	if (s->busy)
		return -EBUSY;
	if (n > SIZE_MAX / sizeof(*refs))
		return -ENOMEM;
	refs = malloc(n * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (strlen(items[i].rec->node) > BCN_NODE_MAX) {
			free(refs);
			return -EINVAL;
		}
		refs[i].day = bcn_timefmt_floor_div(items[i].rec->t, day_ns);
		refs[i].i = i;
	}
	qsort(refs, n, sizeof(*refs), cmp_ref);
	s->busy = true;
	for (a = 0; a < n && !rc; a = b) {
		for (b = a + 1; b < n && refs[b].day == refs[a].day; b++)
			;
		rc = append_day(s, refs[a].day, items, refs + a, b - a);
	}
	s->busy = false;
	free(refs);
	if (!rc)
		bcn_complain_release(&s->complain, BCN_LOG_NOTICE,
				     "store %s: appending works again",
				     s->base.cfg.dir);
	return rc;
}

/* Prepares the query statement base (+ variant) of a day and binds q
 * (whose part the front end resolved). */
static int bind_query(struct sq_store *s, struct sq_day *dd, int base,
		      const struct bcn_store_query *q, sqlite3_stmt **out)
{
	bool any = q->part == BCN_STORE_PART_ANY;
	int id = base + (q->entity ? 1 : 0) + (q->job ? 2 : 0) + (any ? 4 : 0);
	sqlite3_stmt *st = NULL;
	int rc, src;

	rc = day_stmt(s, dd, id, &st);
	if (rc)
		return rc;
	src = sqlite3_bind_int64(st, 1, q->layer);
	src |= sqlite3_bind_int64(st, 2, q->from);
	src |= sqlite3_bind_int64(st, 3, q->to);
	if (q->entity)
		src |= sqlite3_bind_text(st, 4, q->entity, -1, SQLITE_STATIC);
	if (q->job)
		src |= sqlite3_bind_int64(st, 5, u2i(q->job));
	if (!any)
		src |= sqlite3_bind_int(st, 8, q->part);
	if (src != SQLITE_OK)
		return sq_fail(s, dd->db, "binding", src);
	*out = st;
	return 0;
}

/* Calls each(s, dd, q, ctx) for every day file overlapping [from, to),
 * in ascending order, until it returns non-zero or *stop (stop may be
 * NULL) becomes true. */
typedef int sq_day_fn(struct sq_store *s, struct sq_day *dd,
		      const struct bcn_store_query *q, void *ctx);

static int for_days(struct sq_store *s, const struct bcn_store_query *q,
		    sq_day_fn *each, void *ctx, const bool *stop)
{
	const int64_t day_ns = BCN_STORE_DAY_NS;
	struct sq_day *dd;
	int64_t *days;
	size_t n;
	int rc;

	if (s->busy)
		return -EBUSY;
	if (q->from >= q->to)
		return 0;
	rc = list_days(s, bcn_timefmt_floor_div(q->from, day_ns),
		       bcn_timefmt_floor_div(q->to - 1, day_ns), &days, &n);
	if (rc)
		return rc;
	s->busy = true;
	for (size_t k = 0; k < n && !rc && !(stop && *stop); k++) {
		rc = day_open(s, days[k], false, &dd);
		if (rc == -ENOENT) {    /* expired since we listed it */
			rc = 0;
			continue;
		}
		if (!rc)
			rc = each(s, dd, q, ctx);
	}
	s->busy = false;
	free(days);
	return rc;
}

struct sq_scan {
	bcn_store_record_fn *fn;
	void *arg;
	uint64_t left;                  /* UINT64_MAX: no limit */
	bool full;                      /* the limit is reached */
};

/* One record of a schema 3 day to the scan's callback, within its limit;
 * 1 with c->full stops at the limit. */
static int scan3_rec(void *arg, const struct bcn_record *r)
{
	struct sq_scan *c = arg;
	int rc = c->fn(c->arg, r);

	if (rc)
		return rc;
	if (c->left != UINT64_MAX && --c->left == 0) {
		c->full = true;
		return 1;
	}
	return 0;
}

/* One row of a scan: decodes the record and hands it to the caller. */
static int scan_row(struct sq_store *s, sqlite3_stmt *st,
		    const struct bcn_store_query *q, struct sq_scan *c)
{
	const char *node = (const char *)sqlite3_column_text(st, 0);
	const void *blob = sqlite3_column_blob(st, 1);
	int len = sqlite3_column_bytes(st, 1);
	const struct bcn_record_desc *d;
	struct bcn_record r;
	int rc;

	if (!node || !blob || len <= 0 || (unsigned)len > SQ_BLOB_MAX)
		return -BCN_ECORRUPT;
	rc = bcn_frame_open_raw(&s->frame, blob, (size_t)len, 1, node, &sq_lim);
	if (rc)
		return rc == -EINVAL ? -BCN_ECORRUPT : rc;
	rc = bcn_frame_next(&s->frame, &r);
	if (rc != 1)
		return rc < 0 ? rc : -BCN_ECORRUPT;
	d = bcn_record_desc(r.type);
	if (!d || d->layer != q->layer)
		return -BCN_ECORRUPT;
	return c->fn(c->arg, &r);
}

static int scan_day(struct sq_store *s, struct sq_day *dd,
		    const struct bcn_store_query *q, void *ctx)
{
	struct sq_scan *c = ctx;
	int rc, src = SQLITE_DONE;
	sqlite3_stmt *st;

	if (dd->schema == SQ3_SCHEMA_VERSION) {
		rc = sq3_query(s, dd, q, scan3_rec, c);
		return rc == 1 && c->full ? 0 : rc;
	}
	rc = bind_query(s, dd, SQ_SCAN, q, &st);
	if (rc)
		return rc;
	if (sqlite3_bind_int64(st, 6, c->left > INT64_MAX ? -1 :
			       (int64_t)c->left) != SQLITE_OK)
		return -EINVAL;
	while (!rc && c->left && (src = sqlite3_step(st)) == SQLITE_ROW) {
		rc = scan_row(s, st, q, c);
		if (rc == -BCN_ECORRUPT)
			BCN_ERR("store %s: a damaged record in %s",
				s->base.cfg.dir, sqlite3_db_filename(dd->db, NULL));
		if (c->left != UINT64_MAX)
			c->left--;
	}
	if (!rc && c->left && src != SQLITE_DONE)
		rc = sq_fail(s, dd->db, "scanning", src);
	sqlite3_reset(st);
	c->full = c->left == 0;
	return rc;
}

static int sq_scan(struct bcn_store *bs, const struct bcn_store_query *q,
		   bcn_store_record_fn *fn, void *arg)
{
	struct sq_scan c = { fn, arg, q->limit ? q->limit : UINT64_MAX, false };

	return for_days((struct sq_store *)bs, q, scan_day, &c, &c.full);
}

/* hi * 2^32 + lo, saturated at UINT64_MAX. */
static uint64_t join_halves(sqlite3_stmt *st, int col)
{
	uint64_t lo = i2u(sqlite3_column_int64(st, col));
	uint64_t hi = i2u(sqlite3_column_int64(st, col + 1));

	if (hi > SQ_HALF_MASK)
		return UINT64_MAX;
	hi <<= 32;
	add_sat(&hi, lo);
	return hi;
}

static int sum_flush(struct sq_sum *m)
{
	if (!m->have)
		return 0;
	m->have = false;
	return m->fn(m->arg, &m->b);
}

/* Adds one SQL row (k, count, 12 half sums) to the pending bucket, or
 * hands the pending one over and starts the next. */
static int sum_row(struct sq_sum *m, sqlite3_stmt *st)
{
	int64_t k = sqlite3_column_int64(st, 0);
	uint64_t *sum[6] = {
		&m->b.sum.read_bytes, &m->b.sum.write_bytes,
		&m->b.sum.read_ops, &m->b.sum.write_ops,
		&m->b.sum.meta_ops, &m->b.sum.other_ops,
	};
	int rc;

	if (!m->have || m->k != k) {
		rc = sum_flush(m);
		if (rc)
			return rc;
		memset(&m->b, 0, sizeof(m->b));
		m->have = true;
		m->k = k;
		if (__builtin_mul_overflow(k, m->width, &m->b.t))
			m->b.t = INT64_MIN;     /* t within a bucket of it */
	}
	add_sat(&m->b.records, i2u(sqlite3_column_int64(st, 1)));
	for (int c = 0; c < 6; c++)
		add_sat(sum[c], join_halves(st, 2 + 2 * c));
	return 0;
}

/* One record of a schema 3 day into the sum's buckets. */
static int sum3_rec(void *arg, const struct bcn_record *r)
{
	struct sq_sum *m = arg;
	int64_t k = bcn_timefmt_floor_div(r->t, m->width);
	struct bcn_record_totals t;

	if (!m->have || m->k != k) {
		m->rc = sum_flush(m);
		if (m->rc)
			return m->rc;
		memset(&m->b, 0, sizeof(m->b));
		m->have = true;
		m->k = k;
		if (__builtin_mul_overflow(k, m->width, &m->b.t))
			m->b.t = INT64_MIN;
	}
	bcn_record_totals(r, &t);
	add_sat(&m->b.records, 1);
	add_sat(&m->b.sum.read_bytes, t.read_bytes);
	add_sat(&m->b.sum.write_bytes, t.write_bytes);
	add_sat(&m->b.sum.read_ops, t.read_ops);
	add_sat(&m->b.sum.write_ops, t.write_ops);
	add_sat(&m->b.sum.meta_ops, t.meta_ops);
	add_sat(&m->b.sum.other_ops, t.other_ops);
	return 0;
}

static int sum_day(struct sq_store *s, struct sq_day *dd,
		   const struct bcn_store_query *q, void *ctx)
{
	struct sq_sum *m = ctx;
	int rc, src = SQLITE_DONE;
	sqlite3_stmt *st;

	if (dd->schema == SQ3_SCHEMA_VERSION)
		return sq3_query(s, dd, q, sum3_rec, m);

	rc = bind_query(s, dd, SQ_SUM, q, &st);
	if (rc)
		return rc;
	if (sqlite3_bind_int64(st, 7, m->width) != SQLITE_OK)
		return -EINVAL;
	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW)
		rc = sum_row(m, st);
	if (!rc && src != SQLITE_DONE)
		rc = sq_fail(s, dd->db, "summing", src);
	sqlite3_reset(st);
	return rc;
}

static int sq_sum(struct bcn_store *bs, const struct bcn_store_query *q,
		  int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg)
{
	struct sq_sum m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.fn = fn;
	m.arg = arg;
	m.width = bucket_ns;
	rc = for_days((struct sq_store *)bs, q, sum_day, &m, NULL);
	return rc ? rc : sum_flush(&m);
}

static int count3_rec(void *arg, const struct bcn_record *r)
{
	(void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

static int count_day(struct sq_store *s, struct sq_day *dd,
		     const struct bcn_store_query *q, void *ctx)
{
	uint64_t *count = ctx;
	sqlite3_stmt *st;
	int rc, src;

	if (dd->schema == SQ3_SCHEMA_VERSION) {
		struct bcn_store_query any = *q;

		any.any_order = true;   /* a count needs no order */
		return sq3_query(s, dd, &any, count3_rec, count);
	}

	rc = bind_query(s, dd, SQ_COUNT, q, &st);
	if (rc)
		return rc;
	src = sqlite3_step(st);
	if (src == SQLITE_ROW)
		*count += i2u(sqlite3_column_int64(st, 0));
	else
		rc = sq_fail(s, dd->db, "counting", src);
	sqlite3_reset(st);
	return rc;
}

static int sq_count(struct bcn_store *bs, const struct bcn_store_query *q,
		    uint64_t *count)
{
	*count = 0;
	return for_days((struct sq_store *)bs, q, count_day, count, NULL);
}

/* Whether day ended more than retention days before now. */
static bool day_expired(int64_t day, int64_t retention, int64_t now_ns)
{
	const int64_t day_ns = BCN_STORE_DAY_NS;
	int64_t now_day = bcn_timefmt_floor_div(now_ns, day_ns);
	int64_t into = now_ns - now_day * day_ns, edge;

	/* (day + 1 + retention) * day_ns < now_ns, without overflow */
	if (__builtin_add_overflow(day, 1, &edge) ||
	    __builtin_add_overflow(edge, retention, &edge))
		return false;
	return edge < now_day || (edge == now_day && into > 0);
}

/* Deletes the files of one day; the database goes last, so that a crash
 * in between cannot leave a write-ahead log for a later file to replay. */
static int remove_day(struct sq_store *s, int64_t day)
{
	static const char *const suffix[] = { "-wal", "-shm", "" };
	int rc = 0;

	for (int k = 0; k < SQ_OPEN_DAYS; k++)
		if (s->days[k].db && s->days[k].day == day)
			day_close(&s->days[k]);
	for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]) && !rc; k++) {
		rc = day_path(s, day, suffix[k]);
		if (!rc && unlink(s->path) && errno != ENOENT) {
			rc = -errno;
			BCN_ERR("store: removing %s: %s", s->path,
				strerror(errno));
		}
	}
	return rc;
}

static int sq_expire(struct bcn_store *bs, int64_t now_ns, uint64_t *removed)
{
	struct sq_store *s = (struct sq_store *)bs;
	int64_t *days;
	size_t n;
	int rc;

	*removed = 0;
	if (s->busy)
		return -EBUSY;
	rc = list_days(s, INT64_MIN, INT64_MAX, &days, &n);
	for (size_t k = 0; k < n && !rc; k++) {
		if (!day_expired(days[k], s->base.cfg.retention_days, now_ns))
			continue;
		rc = remove_day(s, days[k]);
		if (!rc) {
			(*removed)++;
			BCN_NOTICE("store: expired %s", s->path);
		}
	}
	free(days);
	return rc;
}

/* mkdir -p: creates dir and its missing parents. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	size_t len = strlen(dir);
	struct stat sb;

	if (len == 0 || len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0750) && errno != EEXIST)
			return -errno;
		p[i] = dir[i];
	}
	if (stat(dir, &sb))
		return -errno;
	return S_ISDIR(sb.st_mode) ? 0 : -ENOTDIR;
}

/* Checks that dir is an existing directory, creating nothing. */
static int dir_exists(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb))
		return -errno;
	return S_ISDIR(sb.st_mode) ? 0 : -ENOTDIR;
}

/* Compacts the level 0 blocks of every schema 3 day. */
static int sq_flush(struct bcn_store *bs)
{
	struct sq_store *s = (struct sq_store *)bs;
	struct sq_day *dd;
	int64_t *days;
	size_t n;
	int rc;

	if (s->busy)
		return -EBUSY;
	rc = list_days(s, INT64_MIN, INT64_MAX, &days, &n);
	if (rc)
		return rc;
	s->busy = true;
	for (size_t k = 0; k < n && !rc; k++) {
		rc = day_open(s, days[k], false, &dd);
		if (rc == -ENOENT) {
			rc = 0;
			continue;
		}
		if (!rc && dd->schema == SQ3_SCHEMA_VERSION)
			rc = sq3_compact_all(s, dd);
	}
	s->busy = false;
	free(days);
	return rc;
}

static uint64_t sq_refused(const struct bcn_store *bs)
{
	return ((const struct sq_store *)bs)->refused;
}

static void sq_close(struct bcn_store *bs)
{
	struct sq_store *s = (struct sq_store *)bs;

	for (int k = 0; k < SQ_OPEN_DAYS; k++)
		day_close(&s->days[k]);
	bcn_block_enc_free(s->enc);
	sq3_pool_free(s);
	bcn_buf_free(&s->blk);
	bcn_frame_builder_free(&s->fb);
	bcn_frame_free(&s->frame);
	bcn_buf_free(&s->blob);
	free(s);
}

static int sq_open(const struct bcn_store_config *cfg, struct bcn_store **out,
		   char *err, size_t errlen)
{
	struct sq_store *s;
	int rc;

	*out = NULL;
	if (cfg->schema != 0 && cfg->schema != SQ_SCHEMA_VERSION &&
	    cfg->schema != SQ3_SCHEMA_VERSION) {
		snprintf(err, errlen, "schema %d: new day files have schema 2 "
			 "or 3", cfg->schema);
		return -EINVAL;
	}
	if (strlen(cfg->dir) + SQ_NAME_LEN + SQ_SUFFIX_MAX + 1 > PATH_MAX) {
		snprintf(err, errlen, "store directory name too long");
		return -ENAMETOOLONG;
	}
	rc = cfg->existing ? dir_exists(cfg->dir) : make_dirs(cfg->dir);
	if (rc) {
		snprintf(err, errlen, "store directory '%s': %s", cfg->dir,
			 bcn_strerror(rc));
		return rc;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->base.ops = &bcn_store_sqlite_ops;
	s->base.cfg = *cfg;
	bcn_buf_init(&s->blob, SQ_BLOB_MAX);
	bcn_buf_init(&s->blk, BCN_BLOCK_RAW_MAX);
	bcn_frame_init(&s->frame);
	rc = bcn_block_enc_new(SQ3_ZSTD_LEVEL, &s->enc);
	if (rc) {
		snprintf(err, errlen, "block encoder: %s", bcn_strerror(rc));
		bcn_frame_free(&s->frame);
		free(s);
		return rc;
	}
	rc = bcn_frame_builder_init(&s->fb, &sq_lim, 0);
	if (rc) {
		bcn_block_enc_free(s->enc);
		snprintf(err, errlen, "record packer: %s", bcn_strerror(rc));
		bcn_frame_free(&s->frame);
		free(s);
		return rc;
	}
	*out = &s->base;
	return 0;
}

const struct bcn_store_ops bcn_store_sqlite_ops = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.append = sq_append,
	.scan = sq_scan,
	.sum = sq_sum,
	.count = sq_count,
	.expire = sq_expire,
	.flush = sq_flush,
	.refused = sq_refused,
};
