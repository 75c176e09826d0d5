/* The record store: one narrow interface over two backends, used by the
 * log servers' flusher (append), the analysis server and `beacon query`
 * (scan, sum). Backends:
 *   - sqlite:     embedded, no server; one database per UTC day in a
 *                 directory, WAL mode (store/store_sqlite.c);
 *   - opensearch: OpenSearch 2 / Elasticsearch 7-8 over the REST API with
 *                 libcurl; daily indices per layer (store/store_es.c).
 *
 * Every record has a deterministic identity: (sender node, frame sequence
 * number, position in the frame). Both backends write by that identity, so
 * appending the same record twice stores it once. Records are partitioned
 * by the UTC day of their start time t. */
#ifndef BCN_STORE_H
#define BCN_STORE_H

#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto/record.h"

#define BCN_STORE_URL_MAX 512
#define BCN_STORE_PREFIX_MAX 64
#define BCN_STORE_DAY_NS (86400ll * 1000000000ll)

enum bcn_store_backend {
	BCN_STORE_SQLITE = 0,
	BCN_STORE_OPENSEARCH = 1,
};

struct bcn_store_config {
	int backend;                    /* enum bcn_store_backend */
	char dir[PATH_MAX];             /* sqlite: directory of day databases */
	char url[BCN_STORE_URL_MAX];    /* opensearch: e.g. http://127.0.0.1:9200 */
	char index_prefix[BCN_STORE_PREFIX_MAX]; /* opensearch: index names
					 * <prefix>-<layer>-YYYY.MM.DD */
	char user[64];                  /* opensearch: basic auth user, or "" */
	char password_file[PATH_MAX];   /* opensearch: file holding the password */
	int replicas;                   /* opensearch: number_of_replicas */
	int shards;                     /* opensearch: number_of_shards */
	int64_t retention_days;         /* whole days kept; default 183 */
	int64_t timeout_ms;             /* per request (opensearch) or busy
					 * timeout (sqlite) */
	bool existing;                  /* sqlite: the directory must exist
					 * already (readers); never created */
	int schema;                     /* sqlite: schema of new day files:
					 * 0 the newest (3, record blocks),
					 * 2 one row per record (benchmarks
					 * and tests compare the two) */
	uint64_t node_runs;             /* sqlite schema 3: identity runs
					 * kept per sender node and day; a
					 * record that would start one more
					 * is refused and counted
					 * (bcn_store_refused); 0: default */
};

#define BCN_STORE_NODE_RUNS_DEF 4096
#define BCN_STORE_NODE_RUNS_MIN 16
#define BCN_STORE_NODE_RUNS_MAX 65536

/* Fills cfg with the defaults: sqlite in "./beacon-store", prefix
 * "beacon", 1 shard, 0 replicas, 183 days, 30 s timeout. */
void bcn_store_config_defaults(struct bcn_store_config *cfg);

struct bcn_store;

/* One record to append, with its identity; rec->node is the sender. */
struct bcn_store_item {
	const struct bcn_record *rec;
	uint64_t seq;                   /* sequence number of its frame */
	uint32_t idx;                   /* its position in the frame, from 0 */
	uint32_t nrec;                  /* records in its frame; 0: unknown.
					 * The sqlite store keeps identities
					 * as runs of consecutive ones, and a
					 * run crosses to the next frame only
					 * after the last record of one
					 * (idx == nrec - 1) */
};

/* The part of its entity's statistics a record is. An OSS or MDS sends,
 * per interval and target, the target's own totals (client "" and jobid
 * "") and, from the same counters, per-job records (Lustre job_stats) and
 * per-export records: all with the target as entity. Adding a target's
 * total to its parts counts the same I/O twice, so queries select one
 * part (docs/store.md, "Parts").
 *   TOTAL   every record that is not a part: a target's or a node's own
 *           totals, and every record of the layers other than ost and mds
 *   JOB     an ost or mds record with a non-empty jobid
 *   CLIENT  an ost or mds record with a non-empty client and an empty
 *           jobid
 * BCN_STORE_PART_ANY selects every record, parts and totals alike (its
 * sums then count the I/O of a target once per part that shows it). */
enum bcn_store_part {
	BCN_STORE_PART_ANY = -1,        /* queries only */
	BCN_STORE_PART_TOTAL = 0,
	BCN_STORE_PART_JOB = 1,
	BCN_STORE_PART_CLIENT = 2,
	BCN_STORE_PART_MAX
};

/* The part of a valid record r (enum bcn_store_part, never ANY). */
int bcn_store_record_part(const struct bcn_record *r);

/* Name of a part ("total", "job", "client", "any"), or "?". */
const char *bcn_store_part_name(int part);

/* Parses a part name as bcn_store_part_name() writes it ("any"
 * included). Returns 0 and *part, or -BCN_ESYNTAX. */
int bcn_store_part_parse(const char *name, int *part);

/* Selects records of one layer. A zero-initialised query (with a layer)
 * selects every target total and node record of that layer. */
struct bcn_store_query {
	int layer;                      /* enum bcn_layer, required */
	const char *entity;             /* bcn_record_entity(); NULL: any */
	uint64_t job;                   /* 0: any job */
	int64_t from, to;               /* t in [from, to), ns since epoch */
	uint64_t limit;                 /* scan: at most this many; 0: all */
	int part;                       /* enum bcn_store_part, default 0:
					 * TOTAL; see bcn_store_query_part() */
	bool any_order;                 /* scan: the records in whatever
					 * order the backend reads them
					 * fastest (for callers that only
					 * aggregate); with a limit, which
					 * records come is then unspecified */
};

/* The part q selects, in *part: q->part, except that TOTAL (the default)
 * with a job (q->job != 0) on the layers ost and mds selects the JOB
 * parts: the collectors put a job id on job_stats records only, never on
 * a target's totals or an export's records, so a job's records there are
 * its JOB parts (ask for ANY to get every record carrying the job). Other
 * layers hold only totals, whatever their job. Every query call resolves
 * the part this way before the backend sees the query. Returns 0, or
 * -EINVAL when q->part is no enum bcn_store_part. */
int bcn_store_query_part(const struct bcn_store_query *q, int *part);

/* Sums over one time bucket [t, t + bucket) of the records whose t lies
 * in it. */
struct bcn_store_bucket {
	int64_t t;
	uint64_t records;
	struct bcn_record_totals sum;
};

/* Scan callback: return 0 to go on, anything else to stop the scan (the
 * scan then returns that value). r and its strings are valid only during
 * the call. */
typedef int bcn_store_record_fn(void *arg, const struct bcn_record *r);
typedef int bcn_store_bucket_fn(void *arg, const struct bcn_store_bucket *b);

/* Opens (creating what is missing: directory, index template) the store
 * cfg describes. Returns 0 and *out, or a negative code with a message in
 * err. */
int bcn_store_open(const struct bcn_store_config *cfg, struct bcn_store **out,
		   char *err, size_t errlen);
void bcn_store_close(struct bcn_store *s);

/* Makes n records durable. Returns 0 only when every one of them is stored
 * (now or before: appends are idempotent by identity) or refused for its
 * sender (sqlite: a node whose identities of the day already make
 * cfg.node_runs runs; counted by bcn_store_refused, logged); otherwise a
 * negative code, and the caller retries the same batch later. A backend that can
 * tell which items failed retries only those, a bounded number of times,
 * before it gives up. */
int bcn_store_append(struct bcn_store *s, const struct bcn_store_item *items,
		     size_t n);

/* Calls fn for each record matching q, in ascending order of t (ties in
 * order of node, seq, idx), or in any order when q->any_order is set.
 * Returns 0, fn's non-zero value, or a negative code. */
int bcn_store_scan(struct bcn_store *s, const struct bcn_store_query *q,
		   bcn_store_record_fn *fn, void *arg);

/* Calls fn for each non-empty bucket of width bucket_ns (buckets start at
 * multiples of bucket_ns since the epoch), in ascending order, with the
 * sums of the records matching q (q->limit is ignored). */
int bcn_store_sum(struct bcn_store *s, const struct bcn_store_query *q,
		  int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg);

/* Counts the records matching q (q->limit is ignored). */
int bcn_store_count(struct bcn_store *s, const struct bcn_store_query *q,
		    uint64_t *count);

/* Finishes the writes appends leave for later: the sqlite backend
 * compacts every day's newest blocks (level 0) into their final blocks
 * (docs/store.md, "Schema 3"); a no-op for opensearch. Writers call it
 * before they exit, benchmarks before they measure. Returns 0 or a
 * negative code (nothing is lost either way: appended records are
 * durable before). */
int bcn_store_flush(struct bcn_store *s);

/* Records that appends refused since the store was opened because their
 * sender had too many identity runs that day (sqlite; docs/store.md,
 * "Identity runs"); 0 for backends that refuse none. */
uint64_t bcn_store_refused(const struct bcn_store *s);

/* Deletes whole days (databases or indices) that ended more than
 * retention_days before now_ns. *removed (may be NULL) gets the number of
 * days or indices deleted. */
int bcn_store_expire(struct bcn_store *s, int64_t now_ns, uint64_t *removed);

/* Backend-specific implementation; store.c dispatches to it. scan, sum
 * and count get a checked query whose part bcn_store_query_part() has
 * resolved: TOTAL, JOB or CLIENT select that part, ANY every record. */
struct bcn_store_ops {
	const char *name;
	int (*open)(const struct bcn_store_config *cfg, struct bcn_store **out,
		    char *err, size_t errlen);
	void (*close)(struct bcn_store *s);
	int (*append)(struct bcn_store *s, const struct bcn_store_item *items,
		      size_t n);
	int (*scan)(struct bcn_store *s, const struct bcn_store_query *q,
		    bcn_store_record_fn *fn, void *arg);
	int (*sum)(struct bcn_store *s, const struct bcn_store_query *q,
		   int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg);
	int (*count)(struct bcn_store *s, const struct bcn_store_query *q,
		     uint64_t *count);
	int (*expire)(struct bcn_store *s, int64_t now_ns, uint64_t *removed);
	int (*flush)(struct bcn_store *s);      /* may be NULL */
	uint64_t (*refused)(const struct bcn_store *s);  /* may be NULL */
};

/* Every backend's struct starts with this header. */
struct bcn_store {
	const struct bcn_store_ops *ops;
	struct bcn_store_config cfg;
};

extern const struct bcn_store_ops bcn_store_sqlite_ops;
extern const struct bcn_store_ops bcn_store_es_ops;

#endif
