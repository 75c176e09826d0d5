/* The record model: one versioned set of record types shared by every
 * collector, the log server, the record store and the analysis.
 *
 * Every record covers the time interval [t, t + dur) (nanoseconds since the
 * Unix epoch, UTC) and says its type, and so its layer. The per-type fields
 * are described once, in field tables (bcn_record_desc), which drive the
 * binary codec, the JSON output and the documentation (docs/records.md).
 * Counters in windowed records are per-interval deltas, never raw totals. */
#ifndef BCN_RECORD_H
#define BCN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Bumped when a record type gains, loses or changes a field. */
#define BCN_RECORD_VERSION 1

#define BCN_HIST_BUCKETS 32     /* log2 buckets: [0,2), [2,4), [4,8), ... */
#define BCN_STR_MAX 4096        /* longest string a record may carry */

enum bcn_layer {
	BCN_LAYER_CLIENT = 1,   /* compute nodes */
	BCN_LAYER_FORWARD,      /* I/O forwarding nodes */
	BCN_LAYER_OST,          /* object storage servers and targets */
	BCN_LAYER_MDS,          /* metadata servers and targets */
	BCN_LAYER_SWITCH,       /* InfiniBand switches and HCAs */
	BCN_LAYER_JOB,          /* batch-system job records */
	BCN_LAYER_COLLECTOR,    /* the collectors' own health */
	BCN_LAYER_MAX
};

enum bcn_rec_type {
	BCN_REC_IO = 1,         /* compute-node I/O operation, or a run of them */
	BCN_REC_FWD_REQ,        /* forwarding-node request statistics, per window */
	BCN_REC_FWD_RPC,        /* forwarding-node Lustre client RPCs, per OST */
	BCN_REC_OST,            /* OST statistics, per window */
	BCN_REC_MDS,            /* MDT statistics, per interval */
	BCN_REC_PORT,           /* switch or HCA port counters, per interval */
	BCN_REC_JOB,            /* a batch job */
	BCN_REC_TOPOLOGY,       /* what one switch port is cabled to */
	BCN_REC_TRACE_LOSS,     /* what the tracer of one process lost */
	BCN_REC_HEALTH,         /* a collector's own counters */
	BCN_REC_TYPE_MAX
};

/* X-macro lists: (identifier, name used in JSON and docs). */
#define BCN_IO_OPS(X) \
	X(OPEN, "open") X(CLOSE, "close") X(READ, "read") X(WRITE, "write") \
	X(SEEK, "seek") X(SYNC, "sync") X(TRUNCATE, "truncate") \
	X(STAT, "stat") X(UNLINK, "unlink") X(RENAME, "rename") \
	X(MKDIR, "mkdir") X(RMDIR, "rmdir") X(OTHER, "other")

#define BCN_FWD_CLASSES(X) \
	X(ALL, "all") X(READ, "read") X(WRITE, "write") X(META, "meta") \
	X(OTHER, "other")

#define BCN_OST_OPS(X) \
	X(READ, "read") X(WRITE, "write") X(GETATTR, "getattr") \
	X(SETATTR, "setattr") X(PUNCH, "punch") X(SYNC, "sync") \
	X(DESTROY, "destroy") X(CREATE, "create") X(STATFS, "statfs") \
	X(GET_INFO, "get_info") X(SET_INFO, "set_info") \
	X(QUOTACTL, "quotactl")

#define BCN_MD_OPS(X) \
	X(OPEN, "open") X(CLOSE, "close") X(MKNOD, "mknod") X(LINK, "link") \
	X(UNLINK, "unlink") X(MKDIR, "mkdir") X(RMDIR, "rmdir") \
	X(RENAME, "rename") X(GETATTR, "getattr") X(SETATTR, "setattr") \
	X(GETXATTR, "getxattr") X(SETXATTR, "setxattr") X(STATFS, "statfs") \
	X(SYNC, "sync") X(SAMEDIR_RENAME, "samedir_rename") \
	X(CROSSDIR_RENAME, "crossdir_rename") \
	X(PARALLEL_RENAME_FILE, "parallel_rename_file") \
	X(PARALLEL_RENAME_DIR, "parallel_rename_dir") \
	X(READ, "read") X(WRITE, "write") X(PUNCH, "punch") \
	X(MIGRATE, "migrate") X(CREATE, "create")

#define BCN_PORT_ERRS(X) \
	X(SYMBOL_ERROR, "symbol_error") \
	X(LINK_ERROR_RECOVERY, "link_error_recovery") \
	X(LINK_DOWNED, "link_downed") X(RCV_ERRORS, "port_rcv_errors") \
	X(RCV_REMOTE_PHYSICAL_ERRORS, "port_rcv_remote_physical_errors") \
	X(RCV_SWITCH_RELAY_ERRORS, "port_rcv_switch_relay_errors") \
	X(XMIT_DISCARDS, "port_xmit_discards") \
	X(XMIT_CONSTRAINT_ERRORS, "port_xmit_constraint_errors") \
	X(RCV_CONSTRAINT_ERRORS, "port_rcv_constraint_errors") \
	X(LOCAL_LINK_INTEGRITY_ERRORS, "local_link_integrity_errors") \
	X(EXCESSIVE_BUFFER_OVERRUN_ERRORS, "excessive_buffer_overrun_errors") \
	X(VL15_DROPPED, "VL15_dropped")

#define BCN_X_IO(id, name) BCN_IO_##id,
#define BCN_X_FWD(id, name) BCN_FWD_##id,
#define BCN_X_OST(id, name) BCN_OST_##id,
#define BCN_X_MD(id, name) BCN_MD_##id,
#define BCN_X_PE(id, name) BCN_PE_##id,
enum bcn_io_op { BCN_IO_OPS(BCN_X_IO) BCN_IO_OP_MAX };
enum bcn_fwd_class { BCN_FWD_CLASSES(BCN_X_FWD) BCN_FWD_CLASS_MAX };
enum bcn_ost_op { BCN_OST_OPS(BCN_X_OST) BCN_OST_OP_MAX };
enum bcn_md_op { BCN_MD_OPS(BCN_X_MD) BCN_MD_OP_MAX };
enum bcn_port_err { BCN_PORT_ERRS(BCN_X_PE) BCN_PE_MAX };

/* A distribution over one window: exact moments and percentiles as the
 * collector computed them from every sample, plus log2 buckets. */
struct bcn_dist {
	uint64_t count, sum, min, max;
	uint64_t p50, p95, p99;
	uint64_t hist[BCN_HIST_BUCKETS];
};

struct bcn_rec_io {
	uint64_t step;          /* Slurm step id */
	int64_t rank;           /* MPI rank, -1 when unknown */
	uint64_t pid;
	uint64_t op;            /* enum bcn_io_op */
	int64_t fd;             /* descriptor or forwarding handle, -1 none */
	uint64_t file;          /* stable 64-bit id of the path */
	const char *path;       /* the path, on open records only, else "" */
	uint64_t offset;        /* offset of the first operation */
	uint64_t size;          /* bytes per operation */
	uint64_t count;         /* operations the record stands for, >= 1 */
	int64_t stride;         /* offset step between consecutive operations */
	uint64_t busy;          /* sum of operation durations, ns */
};

struct bcn_rec_fwd_req {
	uint64_t cls;           /* enum bcn_fwd_class */
	uint64_t count;         /* requests completed in the window */
	uint64_t bytes;
	struct bcn_dist latency;        /* queue + service, microseconds */
	struct bcn_dist proc;           /* service only, microseconds */
	struct bcn_dist queue;          /* queue length samples (class all) */
};

struct bcn_rec_fwd_rpc {
	const char *target;     /* OST name, e.g. lustre-OST0003 */
	uint64_t read_rpcs, write_rpcs;
	uint64_t read_bytes, write_bytes;
	uint64_t in_flight;     /* RPCs in flight when sampled */
	uint64_t pending_pages; /* dirty pages waiting for an RPC */
	uint64_t pages_read[BCN_HIST_BUCKETS];     /* pages per RPC */
	uint64_t pages_write[BCN_HIST_BUCKETS];
	uint64_t flight_read[BCN_HIST_BUCKETS];    /* RPCs in flight at send */
	uint64_t flight_write[BCN_HIST_BUCKETS];
};

struct bcn_rec_ost {
	const char *target;     /* OST name, e.g. lustre-OST0003 */
	const char *client;     /* export NID, "" for the whole target */
	const char *jobid;      /* Lustre job id verbatim, "" for all jobs */
	uint64_t read_bytes, write_bytes;
	uint64_t ops[BCN_OST_OP_MAX];
	uint64_t pages_read[BCN_HIST_BUCKETS];     /* pages per bulk RPC */
	uint64_t pages_write[BCN_HIST_BUCKETS];
	uint64_t iotime_read[BCN_HIST_BUCKETS];    /* disk I/O time, ms */
	uint64_t iotime_write[BCN_HIST_BUCKETS];
};

struct bcn_rec_mds {
	const char *target;     /* MDT name */
	const char *client;     /* export NID, "" for the whole target */
	const char *jobid;      /* Lustre job id verbatim, "" for all jobs */
	uint64_t ops[BCN_MD_OP_MAX];
};

struct bcn_rec_port {
	const char *sw;         /* switch GUID, or HCA name on hosts */
	uint64_t port;
	uint64_t xmit_bytes, rcv_bytes;
	uint64_t xmit_pkts, rcv_pkts;
	uint64_t xmit_wait;     /* ticks with data waiting, no credits */
	uint64_t errors[BCN_PE_MAX];
};

/* Kinds of the far end of a cabled switch port (topology records). */
enum bcn_topo_kind { BCN_TOPO_HOST, BCN_TOPO_SWITCH, BCN_TOPO_KIND_MAX };

/* What one switch port is cabled to, as seen at t; a newer record of the
 * same switch and port supersedes it. */
struct bcn_rec_topology {
	const char *sw;         /* switch GUID, as in port records */
	const char *sw_name;    /* switch node description, or "" */
	uint64_t port;
	uint64_t remote_kind;   /* enum bcn_topo_kind */
	const char *remote;     /* remote node GUID */
	uint64_t remote_port;
	const char *remote_name;        /* remote node description: the host
					 * name of an HCA, a switch's name */
	uint64_t rate;          /* link data rate, bytes/s, 0 unknown */
};

struct bcn_rec_job {
	const char *user;
	uint64_t uid;
	const char *name;       /* job name / application */
	const char *partition;
	const char *nodelist;   /* Slurm hostlist expression */
	uint64_t nnodes;
	uint64_t ntasks;
	int64_t submit;         /* ns since the epoch */
	const char *state;      /* COMPLETED, RUNNING, FAILED, ... */
	int64_t exit_code;
};

/* What one traced process's records miss (docs/tracer.md, "Nothing lost
 * in silence"): beacon-clientd's account when the process's stream
 * ends, is cut (the process gone without its end) or is forgotten with
 * gaps. The job's client-layer figures are lower bounds when a job has
 * any. */
struct bcn_rec_trace_loss {
	uint64_t pid;
	uint64_t dropped_ops;   /* operations the tracer could not send */
	uint64_t lost_datagrams; /* sequence gaps: datagrams never seen */
	uint64_t untraced;      /* calls passed through untraced */
	uint64_t cut;           /* 1: the stream's end never came */
	uint64_t partial;       /* 1: a thread's runs were lost at the end */
};

/* A collector's account of itself (docs/collectors.md, "Health"): sent
 * every health_interval by each collector daemon. Unlike other records
 * its counters are totals since the daemon started (started), so that a
 * lost record loses nothing and a restart shows as counters going back
 * to zero, as Prometheus counters do; the gauges are the values at t. */
struct bcn_rec_health {
	const char *program;    /* beacon-clientd, beacon-ostd, ... */
	int64_t started;        /* ns since the epoch */
	uint64_t samples;
	uint64_t sample_errors;
	uint64_t overruns;      /* ticks missed: sampling too slow */
	uint64_t file_errors;
	uint64_t skipped_lines;
	uint64_t bad_records;
	uint64_t records;       /* records made */
	uint64_t acked_records; /* records the log servers confirmed */
	uint64_t dropped_records; /* records given up: buffer full, rejected */
	uint64_t send_errors;   /* frames that could not be queued */
	uint64_t buffered_bytes; /* gauge: waiting for an acknowledgement */
	uint64_t buffer_max;    /* gauge: the send buffer's capacity */
	uint64_t connected;     /* gauge: 1 while a session is up */
	uint64_t reconnects;
	uint64_t connect_failures;
	uint64_t resent;        /* frames written again */
	uint64_t cpu_ns;        /* CPU of sampling and framing */
};

struct bcn_record {
	uint64_t type;          /* enum bcn_rec_type */
	const char *node;       /* sending node; filled in by the decoder */
	int64_t t;              /* start, ns since the Unix epoch */
	int64_t dur;            /* length of the interval, ns, >= 0 */
	uint64_t job;           /* Slurm job id, 0 when not attributed */
	union {
		struct bcn_rec_io io;
		struct bcn_rec_fwd_req fwd_req;
		struct bcn_rec_fwd_rpc fwd_rpc;
		struct bcn_rec_ost ost;
		struct bcn_rec_mds mds;
		struct bcn_rec_port port;
		struct bcn_rec_job job;
		struct bcn_rec_topology topo;
		struct bcn_rec_trace_loss trace_loss;
		struct bcn_rec_health health;
	} u;
};

/* Kinds of per-type fields; each maps to one wire encoding. */
enum bcn_field_kind {
	BCN_F_U64,      /* unsigned varint */
	BCN_F_I64,      /* zigzag varint */
	BCN_F_ENUM,     /* unsigned varint below n, named by names[] */
	BCN_F_STR,      /* index into the frame's string table */
	BCN_F_VEC,      /* n counters: bitmask of non-zero ones, then them */
	BCN_F_DIST,     /* struct bcn_dist */
};

struct bcn_field {
	const char *name;
	uint8_t kind;
	uint8_t n;                      /* vector length or enum size */
	uint16_t offset;                /* within struct bcn_record */
	const char *const *names;       /* element or enum names, or NULL */
	const char *unit;
	const char *doc;
};

struct bcn_record_desc {
	const char *name;               /* "io", "ost", ... */
	uint8_t layer;                  /* enum bcn_layer */
	const struct bcn_field *fields;
	size_t nfields;
	const char *doc;
};

/* The description of a record type, or NULL for an unknown type. */
const struct bcn_record_desc *bcn_record_desc(uint64_t type);
/* Name of a layer ("client", "forward", ...), or "?" when unknown. */
const char *bcn_layer_name(unsigned layer);
/* Parses a layer or record type name. Returns the layer or -BCN_ESYNTAX. */
int bcn_layer_parse(const char *name);
/* Names of the entries of the enumerations above, "?" when out of range. */
const char *bcn_io_op_name(uint64_t op);
const char *bcn_fwd_class_name(uint64_t cls);
const char *bcn_topo_kind_name(uint64_t kind);
extern const char *const bcn_ost_op_names[BCN_OST_OP_MAX];
extern const char *const bcn_md_op_names[BCN_MD_OP_MAX];
extern const char *const bcn_port_err_names[BCN_PE_MAX];

/* Zeroes r and makes it a valid, empty record of the given type: strings
 * point to "", io counts are 1, ranks and descriptors are -1. */
void bcn_record_init(struct bcn_record *r, enum bcn_rec_type type);

/* Checks what the codec cannot express or later stages rely on: a known
 * type, enums in range, dur >= 0, io count >= 1, strings non-NULL and at
 * most BCN_STR_MAX bytes. Returns 0 or -BCN_ERANGE. */
int bcn_record_check(const struct bcn_record *r);

/* The part of bcn_record_check() that is not about single fields (dur >=
 * 0, io count >= 1), for decoders that check each enum field as they
 * read it and whose strings are checked already. r's type must be known.
 * Returns 0 or -BCN_ERANGE. */
int bcn_record_check_rules(const struct bcn_record *r);

/* Appends r as one JSON object (no newline). Returns 0 or a buf error. */
int bcn_record_to_json(const struct bcn_record *r, struct bcn_buf *out);

/* Calls fn once per operation class a record stands for, with the number
 * of operations and bytes it accounts for: one call for io and fwd_req
 * records, one per non-zero counter for ost/mds/port/rpc records. Used by
 * summaries and bucketed sums. */
typedef void bcn_record_ops_fn(void *arg, const char *op, uint64_t ops,
			       uint64_t bytes);
void bcn_record_ops(const struct bcn_record *r, bcn_record_ops_fn *fn,
		    void *arg);

/* What a record accounts for, in the units every layer shares, so that
 * stores can keep them as columns and sum them per time bucket. Reads and
 * writes are data operations (for switch ports: bytes received and
 * transmitted); meta counts metadata operations (open, close, stat,
 * create, unlink, ...); other the rest. Aggregate fwd_req records of
 * class "all" and job records account for nothing. */
struct bcn_record_totals {
	uint64_t read_bytes, write_bytes;
	uint64_t read_ops, write_ops, meta_ops, other_ops;
};

void bcn_record_totals(const struct bcn_record *r, struct bcn_record_totals *t);

#define BCN_ENTITY_MAX (BCN_STR_MAX + 32)

/* Writes the entity a store scans the record by (docs/records.md): the
 * node for client and forward records, the OST for fwd_rpc, the target
 * for ost and mds, "switch/port" for ports and the job id for jobs.
 * Returns 0 or -BCN_EFULL when it does not fit in len bytes. */
int bcn_record_entity(const struct bcn_record *r, char *buf, size_t len);

/* Number of r's strings (its node and string fields) that are not valid
 * UTF-8, and so change when written as JSON. */
size_t bcn_record_utf8_invalid(const struct bcn_record *r);

#endif
