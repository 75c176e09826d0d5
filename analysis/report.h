/* The per-job I/O report (docs/report.md): what one batch job did to every
 * layer of the I/O path, computed from the record store and the job
 * database by beacon-analyzd, `beacon job` and the web service.
 *
 *   client   the job's io records: bytes, bandwidth over time (1 s
 *            buckets), IOPS, request sizes, operation mix, metadata
 *            operations, the nodes and processes doing I/O, the I/O mode
 *            and the I/O phases;
 *   forward  the forwarding nodes of its I/O nodes (the job database's
 *            map): the job's bytes through each, each node's own traffic,
 *            latency and queue in the job's window, the job's share;
 *   ost/mds  the job's job_stats parts per target, each target's own
 *            total in the window and the job's share of it;
 *   findings the advice (analysis/advice.h).
 *
 * Memory is bounded by struct bcn_report_config; a report that hit a
 * bound says so (partial, with the reason) and its figures are low. */
#ifndef BCN_REPORT_H
#define BCN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/advice.h"
#include "analysis/network.h"
#include "analysis/anomaly/phases.h"
#include "analysis/report_files.h"
#include "analysis/report_nodes.h"
#include "common/buf.h"
#include "common/config.h"
#include "jobs/job.h"
#include "proto/record.h"

struct bcn_stores;
struct bcn_jobdb;

#define BCN_REPORT_NAME_MAX 256
/* The version of the report's JSON (docs/report.md, "Versions"): raised
 * when a key changes meaning or goes; added keys do not raise it. */
#define BCN_REPORT_VERSION 2
#define BCN_REPORT_MODE_MAX 8
#define BCN_REPORT_WHY_MAX 160

struct bcn_report_config {
	int64_t margin_ms;              /* records this long before the start
					 * and after the end still count */
	uint64_t series_max;            /* points of the bandwidth series */
	uint64_t seconds_max;           /* 1 s buckets kept; beyond, coarser */
	uint64_t pairs_max;             /* distinct (file, process) pairs */
	uint64_t nodes_max;             /* distinct I/O nodes */
	uint64_t targets_max;           /* distinct OSTs, MDTs, fwd nodes */
	int64_t phase_gap_ms;           /* idle gap that ends a phase */
	uint64_t phases_max;
	uint64_t phase_modes_max;       /* phases of a mixed job given a mode */
	int64_t topology_age_ms;        /* topology records this long before
					 * the window still describe it */
	uint64_t net_imbalance_pct;     /* switch_imbalance: busiest switch
					 * over the others' median, percent */
	uint64_t net_min_bytes;         /* ... carrying at least this much */
	struct bcn_rfiles_config files; /* the files table */
	struct bcn_rnodes_config nodes; /* the node heatmap, stragglers */
	uint64_t cover_pct;             /* a node whose collector vouched for
					 * less of the job is not covered */
	int64_t health_grace_ms;        /* a health record vouches this long
					 * past its time */
	int64_t cover_lookback_ms;      /* servers seen this long before the
					 * window are expected in it */
	struct bcn_advice_config advice;
};

/* Configuration keys report_* for a struct bcn_report_config member m
 * (the advice_* keys are separate: BCN_ADVICE_CONFIG_OPTIONS). */
#define BCN_REPORT_CONFIG_OPTIONS(type, m) \
	{ "report_margin", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.margin_ms), .max = 86400000, .def = "60s", \
	  .help = "A job's records this long before its start and after its " \
		  "end count (collectors' windows straddle both)." }, \
	{ "report_phase_gap", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.phase_gap_ms), .min = 1000, \
	  .max = 86400000, .def = "5s", \
	  .help = "I/O idle for longer than this ends an I/O phase." }, \
	{ "report_series_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.series_max), .min = 16, .max = 100000, \
	  .def = "2048", .help = "Points of the bandwidth series." }, \
	{ "report_seconds_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.seconds_max), .min = 60, .max = 31622400, \
	  .def = "691200", .help = "1 s buckets a report keeps; longer jobs " \
				   "get coarser buckets (and peaks)." }, \
	{ "report_pairs_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.pairs_max), .min = 16, .max = 1u << 30, \
	  .def = "4194304", .help = "Distinct (file, process) pairs a " \
				    "report counts before it is partial." }, \
	{ "report_nodes_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.nodes_max), .min = 1, .max = 1u << 24, \
	  .def = "1048576", .help = "Distinct I/O nodes per report." }, \
	{ "report_targets_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.targets_max), .min = 1, .max = 1u << 24, \
	  .def = "65536", .help = "Distinct OSTs, MDTs and forwarding " \
				  "nodes per report." }, \
	{ "report_phases_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.phases_max), .min = 1, .max = 1000000, \
	  .def = "1000", .help = "I/O phases per report." }, \
	{ "report_phase_modes_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.phase_modes_max), .max = 1000000, \
	  .def = "64", .help = "Phases of a mixed job whose own I/O mode is " \
			     "found (a scan each); 0: none." }, \
	{ "report_topology_age", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.topology_age_ms), .min = 60000, \
	  .max = 31 * 86400000ll, .def = "2h", \
	  .help = "Topology records this long before a job's window still " \
		  "describe the fabric (beacon-swd resends them hourly)." }, \
	{ "report_net_imbalance_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.net_imbalance_pct), .min = 100, \
	  .max = 1000000, .def = "300", \
	  .help = "switch_imbalance: the busiest switch's volume over the " \
		  "median of the job's other switches, percent..." }, \
	{ "report_net_min_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.net_min_bytes), .max = 1ll << 60, \
	  .def = "1g", .help = "...when it carried at least this many bytes " \
			     "to and from the job's nodes." }, \
	BCN_RFILES_CONFIG_OPTIONS(type, m.files), \
	BCN_RNODES_CONFIG_OPTIONS(type, m.nodes), \
	{ "report_cover_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.cover_pct), .min = 1, .max = 100, \
	  .def = "90", .help = "A job's node counts as covered by client " \
			       "collection when its beacon-clientd vouched " \
			       "for this percent of the job's time." }, \
	{ "report_health_grace", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.health_grace_ms), .min = 1000, \
	  .max = 86400000, .def = "2m", \
	  .help = "A collector's health record vouches for it this long " \
		  "after its time (keep above the collectors' " \
		  "health_interval)." }, \
	{ "report_cover_lookback", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.cover_lookback_ms), .min = 10000, \
	  .max = 86400000, .def = "5m", \
	  .help = "OSTs and MDTs that reported this long before a job's " \
		  "window but not at its end count as missing for it." }

/* Fills c with the defaults of docs/report.md. */
void bcn_report_config_defaults(struct bcn_report_config *c);

/* One point of the bandwidth series: bytes in [t, t + step). */
struct bcn_report_point {
	int64_t t;
	uint64_t read_bytes, write_bytes;
};

struct bcn_report_part {
	char layer[8];                  /* "forward", "ost", "mds" */
	char component[BCN_REPORT_NAME_MAX];
	uint64_t read_bytes, write_bytes, ops;  /* the job's */
	uint64_t total_read, total_write, total_ops;    /* the component's */
	double share;                   /* job / component, 0..1 */
	double lat_mean_us, lat_p95_us, queue_mean;     /* forward only */
	uint64_t nodes;                 /* forward: job nodes behind it */
	uint64_t nodes_traced;          /* forward: of them, covered by
					 * client collection */
	uint64_t records;               /* the component's own records in
					 * the window (0: it did not report) */
	int64_t busy_ns;                /* ost: time its job parts moved
					 * the job's bytes over */
	double rate;                    /* ost: the job's bytes per second
					 * of busy_ns */
	double iotime_ms;               /* ost: mean disk I/O time of its
					 * bulk RPCs (brw_stats), 0: none */
	double proc_mean_us;            /* forward: service time */
	double wait_mean_us;            /* forward: queueing, latency less
					 * service */
};

struct bcn_report_phase {
	int64_t start, end;
	uint64_t read_bytes, write_bytes;
	uint64_t meta_ops;
	char mode[BCN_REPORT_MODE_MAX]; /* of a mixed job's phase, or "" */
};

/* The job's network part (docs/network.md): its switches, the histogram
 * of their volume (xmit + rcv of the ports facing its nodes) and the
 * imbalance figure. */
struct bcn_report_net {
	struct bcn_net_switch *sw;      /* by name */
	size_t nsw;
	uint64_t hist[BCN_NET_HIST_BINS];
	uint64_t bin_bytes;
	double imbalance;
	char busiest[BCN_NET_NAME_MAX];
	uint64_t unplaced;              /* nodes on no cabled port */
};

/* Coverage of one layer (docs/report.md, "Coverage"): which of the
 * components the job needed from it reported while it ran. */
enum bcn_report_layer {
	BCN_COVER_CLIENT,               /* the job's nodes (beacon-clientd) */
	BCN_COVER_FORWARD,              /* their forwarding nodes */
	BCN_COVER_OST,                  /* the file system's OSTs */
	BCN_COVER_MDS,                  /* its MDTs */
	BCN_COVER_MAX
};

#define BCN_COVER_MISSING_MAX 4096      /* bytes of a missing hostlist */

struct bcn_report_cover {
	bool known;                     /* the expected set is known */
	bool complete;                  /* every expected one reported */
	uint64_t expected, reported;
	uint64_t interrupted;           /* client: vouched for only part */
	uint64_t served;                /* ost, mds: those with job parts */
	char *missing;                  /* hostlist of the others, or NULL */
};

/* The job's volume from the servers' job_stats (OST parts): what the
 * report states when client collection does not cover the job. */
struct bcn_report_client {
	uint64_t read_bytes, write_bytes, read_ops, write_ops;
	double read_bw_mean, write_bw_mean, iops;
	uint64_t io_nodes;
};

struct bcn_report {
	/* the job */
	uint64_t job;
	char user[BCN_JOB_STR_MAX + 1], name[BCN_JOB_STR_MAX + 1];
	char account[BCN_JOB_STR_MAX + 1], partition[BCN_JOB_STR_MAX + 1];
	char state[24];
	char *nodelist;
	uint64_t nnodes, ntasks;
	int64_t submit, start, end;     /* end 0: running (window to now) */
	int64_t computed;               /* when, ns */
	int64_t window_from, window_to;

	/* client layer */
	uint64_t records;
	uint64_t read_bytes, write_bytes;
	uint64_t read_ops, write_ops, meta_ops_client, other_ops;
	uint64_t op_count[BCN_IO_OP_MAX];
	uint64_t size_hist[BCN_HIST_BUCKETS];   /* data ops by log2 size */
	int64_t io_first, io_last;      /* first start, last end of data I/O */
	int64_t read_time, write_time;  /* per phase, first start to last end
					 * of its reads (writes), summed */
	double read_bw_mean, read_bw_peak, write_bw_mean, write_bw_peak;
	double iops, meta_rate_io;      /* data ops/s; client meta ops/s in
					 * the I/O phases */
	uint64_t io_nodes, io_procs, files, shared_files;
	uint64_t busiest_proc_bytes;    /* the process that moved the most */
	char mode[BCN_REPORT_MODE_MAX];
	uint64_t meta_ops;              /* MDT job_stats ops, else client's */
	struct bcn_report_loss {        /* the job's trace_loss records */
		uint64_t processes, dropped_ops, lost_datagrams, untraced;
		uint64_t cut, partial;
	} loss;

	int64_t step_ns;
	struct bcn_report_point *series;
	size_t nseries;

	struct bcn_report_part *parts;
	size_t nparts;
	struct bcn_report_phase *phases;
	size_t nphases;
	struct bcn_phase *io_phases;    /* by wavelet denoising of the
					 * series (analysis/anomaly/phases.h) */
	size_t nio_phases;
	struct bcn_advice_finding *findings;
	size_t nfindings;
	struct bcn_report_net *net;     /* NULL: no topology for its nodes */

	/* coverage: what reported, and where the volume comes from */
	struct bcn_report_cover cover[BCN_COVER_MAX];
	char volume_source[8];          /* "client", "ost" or "none" */
	bool volume_exact;              /* from a layer complete for the job */
	bool client_sample;             /* mode, processes, files from part
					 * of the job's nodes */
	struct bcn_report_client client;        /* the client layer's own
						 * figures, always */
	struct bcn_rfiles_result *file_table;   /* files, patterns, times */
	struct bcn_rnodes_result *compute;      /* heatmap, stragglers */
	uint64_t ost_read_ops, ost_write_ops;   /* bulk RPCs of its parts */
	int64_t server_wait_ns;         /* its requests' time in forwarding
					 * queues (an estimate, summed) */

	bool partial;
	char why[BCN_REPORT_WHY_MAX];
};

/* Who moved the bytes, for bcn_report_mode: processes are (node, pid,
 * rank); a file is private when one process touched it, global when more
 * than half of the processes did. */
struct bcn_report_mode_in {
	uint64_t bytes;                 /* read and written */
	uint64_t procs;                 /* processes that moved data */
	uint64_t top_proc_bytes;        /* the busiest process's bytes */
	uint64_t private_bytes;         /* bytes of private files */
	uint64_t shared_bytes;          /* bytes of files shared by more */
	uint64_t global_bytes;          /* bytes of global files */
};

/* The I/O mode (docs/report.md), by where 95% of the bytes went: "none"
 * without data; "1-1" when one process moved them; "N-N" when private
 * files hold them; "N-1" when shared files hold them and those are
 * global; "N-M" when shared files hold them, shared by groups; "mixed"
 * otherwise. A launcher's log or a tool's output does not change a
 * job's mode. */
const char *bcn_report_mode(const struct bcn_report_mode_in *m);

/* The name of coverage layer l ("client", "forward", "ost", "mds"). */
const char *bcn_report_layer_name(int l);

/* Computes job's report from store st and db (the job, the forwarding
 * map), at time now_ns (the end of a running job's window). *out is
 * freed with bcn_report_free. Returns 0, 0 with (*out)->partial when a
 * bound was hit, -ENOENT when db has no such job, or a negative code
 * from the store or the database. */
int bcn_report_compute(const struct bcn_stores *st, struct bcn_jobdb *db,
		       uint64_t job, int64_t now_ns,
		       const struct bcn_report_config *cfg,
		       struct bcn_report **out);

void bcn_report_free(struct bcn_report *r);

/* The window of job's report at now_ns (what bcn_report_compute reads:
 * [start - report_margin, end + report_margin), a running job's end
 * being now) into *from and *to, for the cache's generation. Returns 0,
 * -ENOENT when db has no such job, or a negative code. */
int bcn_report_window(struct bcn_jobdb *db, uint64_t job, int64_t now_ns,
		      const struct bcn_report_config *cfg, int64_t *from,
		      int64_t *to);

/* Stores the report's summary, parts, phases and findings in db. */
int bcn_report_save(struct bcn_jobdb *db, const struct bcn_report *r);

/* The report as one JSON object (docs/report.md), cached as given. */
int bcn_report_to_json(const struct bcn_report *r, bool cached,
		       struct bcn_buf *out);

/* The report as text for a terminal, with sparklines when utf8. */
int bcn_report_to_text(const struct bcn_report *r, bool cached, bool utf8,
		       struct bcn_buf *out);

#endif
