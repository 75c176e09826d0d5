/* The job database (docs/jobdb.md): batch jobs, their steps, the node-to-
 * job index, the compute-to-forwarding map, and the per-job report tables
 * of the analysis, in MariaDB or MySQL through the client library
 * (MariaDB Connector/C). Every statement is prepared once per connection
 * and run with bound values: no SQL is ever built from data. The schema
 * is versioned; bcn_jobdb_open applies the migrations this program knows
 * and refuses a database that a newer program has migrated further.
 *
 * Times are nanoseconds since the Unix epoch (UTC) in BIGINT columns; the
 * views of docs/jobdb.md show them as DATETIME. */
#ifndef BCN_JOBDB_H
#define BCN_JOBDB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "jobs/job.h"

#define BCN_JOBDB_SCHEMA 4              /* the newest schema this knows */
#define BCN_JOBDB_HOST_MAX 256
#define BCN_JOBDB_NAME_MAX 64
#define BCN_JOBDB_NODES_MAX (1u << 20)  /* nodes one job may name */

struct bcn_jobdb_config {
	char host[BCN_JOBDB_HOST_MAX];  /* "" with socket set: the socket */
	uint64_t port;
	char socket[PATH_MAX];
	char user[BCN_JOBDB_NAME_MAX];
	char password_file[PATH_MAX];   /* "" : no password */
	char database[BCN_JOBDB_NAME_MAX];
	int64_t timeout_ms;             /* connect, read and write */
};

/* Configuration keys jobdb_host, jobdb_port, jobdb_socket, jobdb_user,
 * jobdb_password_file, jobdb_database, jobdb_timeout for a struct
 * bcn_jobdb_config member m of a program's configuration type. */
#define BCN_JOBDB_CONFIG_OPTIONS(type, m) \
	{ "jobdb_host", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.host), \
	  .def = "127.0.0.1", \
	  .help = "Job database server (MariaDB/MySQL) host." }, \
	{ "jobdb_port", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.port), \
	  .min = 1, .max = 65535, .def = "3306", \
	  .help = "Job database server port." }, \
	{ "jobdb_socket", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.socket), \
	  .help = "Unix socket of the job database server (instead of " \
		  "host and port)." }, \
	{ "jobdb_user", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.user), \
	  .min = 1, .def = "beacon", .help = "Job database user." }, \
	{ "jobdb_password_file", BCN_CFG_PATH, \
	  BCN_CFG_MEMBER(type, m.password_file), \
	  .help = "File holding the job database user's password (mode " \
		  "0600); empty: no password." }, \
	{ "jobdb_database", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.database), \
	  .min = 1, .def = "beacon", .help = "Job database name." }, \
	{ "jobdb_timeout", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.timeout_ms), .min = 1000, \
	  .max = 3600000, .def = "30s", \
	  .help = "Connect, read and write timeout of the job database." }

struct bcn_jobdb;

/* Connects, applies missing migrations (each recorded in schema_version)
 * and prepares the statements. Returns 0 and *out, or a negative code with
 * a message in err: -ECONNREFUSED (cannot connect), -EACCES (refused
 * user), -EPROTO (the database's schema is newer than BCN_JOBDB_SCHEMA),
 * -EIO (any other server error). */
int bcn_jobdb_open(const struct bcn_jobdb_config *cfg, struct bcn_jobdb **out,
		   char *err, size_t errlen);
void bcn_jobdb_close(struct bcn_jobdb *db);

/* The schema version the database is at. */
int bcn_jobdb_schema(struct bcn_jobdb *db);

/* The last error's message. */
const char *bcn_jobdb_error(const struct bcn_jobdb *db);

enum bcn_jobdb_upsert {
	BCN_JOBDB_INSERTED = 1,
	BCN_JOBDB_UPDATED = 2,
	BCN_JOBDB_UNCHANGED = 3,
};

/* Stores a job, or a step when j->step is not "" (keyed by (id, step)):
 * inserted, or updated in place (never duplicated). For a job with a node
 * list its rows in the node-to-job index are replaced, in one
 * transaction. Returns an enum bcn_jobdb_upsert, or a negative code:
 * -BCN_ESYNTAX (a node list that does not expand), -BCN_ETOOBIG (more
 * than BCN_JOBDB_NODES_MAX nodes), -EIO. */
int bcn_jobdb_upsert_job(struct bcn_jobdb *db, const struct bcn_job *j);

/* Stores a compute-to-forwarding entry, idempotently (the same entry twice
 * is stored once), and its expansion per node. Returns an enum
 * bcn_jobdb_upsert or a negative code as above. */
int bcn_jobdb_add_fwdmap(struct bcn_jobdb *db, const struct bcn_fwdmap_entry *e);

/* The forwarding node of a compute node at time t into fwd (size n):
 * returns 1 when found, 0 when the map has none, or a negative code. */
int bcn_jobdb_fwd_of(struct bcn_jobdb *db, const char *node, int64_t t,
		     char *fwd, size_t n);

/* Calls fn(arg, node, fwd) for every compute node the map gives a
 * forwarding node at time t; fn's non-zero return stops and is returned.
 * Returns the number of nodes, fn's value or a negative code. */
typedef int bcn_jobdb_map_fn(void *arg, const char *node, const char *fwd);
int bcn_jobdb_fwd_map(struct bcn_jobdb *db, int64_t t, bcn_jobdb_map_fn *fn,
		      void *arg);

/* Jobs whose report is due, at most max ids into ids, oldest end first:
 * ended at or before ended_before without a report computed at or after
 * their end plus settle_ns. Returns how many, or a negative code. */
int bcn_jobdb_reports_due(struct bcn_jobdb *db, int64_t ended_before,
			  int64_t settle_ns, uint64_t *ids, size_t max);

/* Jobs running now (started, no end), at most max ids, most recent
 * start first. Returns how many, or a negative code. */
int bcn_jobdb_running(struct bcn_jobdb *db, uint64_t *ids, size_t max);

/* The ids of the jobs that ran on node at time t (started at or before t,
 * not ended before it; a job without an end is running), at most max of
 * them into ids. Returns how many, or a negative code. */
int bcn_jobdb_jobs_on(struct bcn_jobdb *db, const char *node, int64_t t,
		      uint64_t *ids, size_t max);

/* A job as stored, with its strings copied into the struct's own storage
 * (valid until the next call on db). Returns 1, 0 (no such job) or a
 * negative code. */
int bcn_jobdb_get_job(struct bcn_jobdb *db, uint64_t id, struct bcn_job *j);

/* Selects jobs for bcn_jobdb_list_jobs; "" / 0 / -1 leave a field open. */
struct bcn_jobdb_filter {
	const char *user;               /* "" or NULL: any */
	int64_t since, until;           /* jobs running at some time in
					 * [since, until); 0: open */
	int state;                      /* enum bcn_job_state, -1: any */
	const char *mode;               /* I/O mode of the report ("N-1"...);
					 * "" or NULL: any */
	uint64_t min_bytes;             /* bytes read and written, at least */
	uint64_t limit, offset;         /* limit 0: 1000 */
};

/* What the per-job report found, for jobs that have one. */
struct bcn_jobdb_usage {
	uint64_t read_bytes, write_bytes;
	char mode[16];
};

/* Called per listed job; u is NULL when the job has no report yet. */
typedef int bcn_jobdb_job_fn(void *arg, const struct bcn_job *j,
			     const struct bcn_jobdb_usage *u);

/* Calls fn for each job matching f, most recent start first; fn's
 * non-zero return stops the listing and is returned. The job's strings
 * live during the call. A mode or min_bytes filter selects only jobs with
 * a report. Returns 0, fn's value, or a negative code. */
int bcn_jobdb_list_jobs(struct bcn_jobdb *db, const struct bcn_jobdb_filter *f,
			bcn_jobdb_job_fn *fn, void *arg);

/* The per-job report as beacon-analyzd stores it (docs/jobdb.md). */
struct bcn_jobdb_summary {
	uint64_t job;
	int64_t computed;               /* when, ns */
	bool partial;                   /* some bound was hit: figures low */
	uint64_t read_bytes, write_bytes;
	double read_bw_mean, read_bw_peak, write_bw_mean, write_bw_peak;
	double iops;
	uint64_t meta_ops, io_nodes, io_procs;
	char mode[16];                  /* "N-N", "N-1", "N-M", "1-1", ... */
	double meta_rate_io;            /* client metadata ops/s in I/O
					 * phases (schema 2) */
};

/* The job's part of one component of a layer. */
struct bcn_jobdb_part {
	const char *layer;              /* "forward", "ost", "mds", "switch" */
	const char *component;          /* fwd001, simfs-OST0003, ... */
	uint64_t read_bytes, write_bytes, ops;
	double share;                   /* of the component's load, 0..1 */
};

struct bcn_jobdb_phase {
	int64_t start, end;
	uint64_t read_bytes, write_bytes;
};

/* An I/O phase as the wavelet analysis finds it (analysis/anomaly/
 * phases.h): kept so that later runs of the same application compare
 * with it. */
struct bcn_jobdb_io_phase {
	int64_t start, end;
	double volume, mean_bw, peak_bw;
};

struct bcn_jobdb_finding {
	const char *code, *severity, *message;
	const char *evidence;           /* the numbers, a JSON object */
};

struct bcn_jobdb_report {
	struct bcn_jobdb_summary summary;
	const struct bcn_jobdb_part *parts;
	size_t nparts;
	const struct bcn_jobdb_phase *phases;
	size_t nphases;
	const struct bcn_jobdb_finding *findings;
	size_t nfindings;
	const struct bcn_jobdb_io_phase *io_phases;
	size_t nio_phases;
};

/* Replaces the job's report (summary, parts, phases, findings) in one
 * transaction: a reader sees the old one or the new one. Returns 0 or a
 * negative code (nothing changed). */
int bcn_jobdb_put_report(struct bcn_jobdb *db, const struct bcn_jobdb_report *r);

/* The job's I/O phases as stored with its report, at most max into out.
 * Returns how many, or a negative code. */
int bcn_jobdb_io_phases(struct bcn_jobdb *db, uint64_t job,
			struct bcn_jobdb_io_phase *out, size_t max);

/* Earlier runs of an application at one scale: the jobs named name on
 * nnodes nodes that ended at or before before_ns and have a report,
 * except job, most recent end first, at most max into ids. Returns how
 * many, or a negative code. */
int bcn_jobdb_history(struct bcn_jobdb *db, const char *name, uint64_t nnodes,
		      int64_t before_ns, uint64_t job, uint64_t *ids, size_t max);

/* The job's summary: 1, 0 when it has none, or a negative code. */
int bcn_jobdb_get_summary(struct bcn_jobdb *db, uint64_t job,
			  struct bcn_jobdb_summary *m);

#endif
