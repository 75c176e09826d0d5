/* The per-job report's compute nodes (docs/report.md, "Compute
 * nodes: heatmap and stragglers"), fed record by record from the
 * report's client pass:
 *
 *   heatmap     bytes read and written per (row, time column): the rows
 *               are the job's nodes in nodelist order, consecutive nodes
 *               sharing a row when there are more than rows_max (each
 *               row names its nodes as a hostlist), nodes that sent no
 *               record keeping their row of zeros, nodes outside the
 *               nodelist in an "other" row; the columns split [from, to)
 *               evenly. A record's bytes are spread over the columns its
 *               [t, t + dur) overlaps in proportion, in integers, so that
 *               every row and the whole add up exactly (the first column
 *               takes what lies before from, the last what lies after);
 *   stragglers  nodes (and processes) much slower than the job's median
 *               one: bandwidth below slow_pct percent of the median, or
 *               I/O time above long_pct percent of it.
 *
 * A node's I/O time is the busy time of its data operations divided by
 * its processes that moved data (their mean time: processes of a node
 * run side by side), a process's the busy time of its data operations;
 * bandwidth is bytes over that time. Memory is bounded by struct
 * bcn_rnodes_config (nodes, processes, rows x columns), never by the
 * records; beyond a bound the result is partial. */
#ifndef BCN_REPORT_NODES_H
#define BCN_REPORT_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/tally.h"
#include "common/buf.h"
#include "common/config.h"
#include "proto/frame.h"
#include "proto/record.h"

#define BCN_RNODES_WHY_MAX 160

struct bcn_rnodes_config {
	uint64_t cols_max;              /* time columns (60) */
	uint64_t rows_max;              /* node rows (128) */
	uint64_t nodes_max;             /* distinct nodes (1048576) */
	uint64_t procs_max;             /* distinct processes (65536) */
	uint64_t slow_pct;              /* bandwidth below this percent of
					 * the median: slow (50) */
	uint64_t long_pct;              /* I/O time above this percent of
					 * the median: long (200) */
	uint64_t min_nodes;             /* judge only with this many I/O
					 * nodes (processes) (4) */
	uint64_t min_bytes;             /* ... and this many bytes moved by
					 * the straggler or the median (64 MiB) */
	uint64_t list_max;              /* stragglers listed (10) */
};

/* Fills c with the defaults above (those of the keys below). */
void bcn_rnodes_config_defaults(struct bcn_rnodes_config *c);

/* Configuration keys for a struct bcn_rnodes_config member m of type. */
#define BCN_RNODES_CONFIG_OPTIONS(type, m) \
	{ "report_heatmap_cols", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.cols_max), .min = 1, .max = 100000, \
	  .def = "60", .help = "Time columns of the node heatmap." }, \
	{ "report_heatmap_rows", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.rows_max), .min = 1, .max = 1 << 20, \
	  .def = "128", .help = "Rows of the node heatmap; more nodes " \
				"share rows." }, \
	{ "report_straggler_nodes_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.nodes_max), .min = 1, .max = 1 << 24, \
	  .def = "1048576", .help = "Distinct nodes followed for the " \
				    "heatmap and stragglers." }, \
	{ "report_straggler_procs_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.procs_max), .min = 1, .max = 1 << 24, \
	  .def = "65536", .help = "Distinct processes followed for " \
				  "stragglers." }, \
	{ "report_straggler_slow_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.slow_pct), .min = 1, .max = 100, \
	  .def = "50", .help = "A node (process) whose bandwidth is below " \
			       "this percent of the median is slow..." }, \
	{ "report_straggler_long_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.long_pct), .min = 100, .max = 1000000, \
	  .def = "200", .help = "...or whose I/O time is above this " \
				"percent of the median..." }, \
	{ "report_straggler_min_nodes", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.min_nodes), .min = 2, .max = 1 << 24, \
	  .def = "4", .help = "...among at least this many I/O nodes " \
			      "(processes)..." }, \
	{ "report_straggler_min_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.min_bytes), .max = 1ll << 60, \
	  .def = "64m", .help = "...when it or the median moved this " \
				"many bytes." }, \
	{ "report_straggler_list", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.list_max), .max = 100000, .def = "10", \
	  .help = "Stragglers listed, slowest first." }

struct bcn_rnodes_row {
	char *nodes;                    /* hostlist of its nodes */
	uint64_t count;                 /* nodes */
	uint64_t read_bytes, write_bytes;       /* the sums of read, write */
	uint64_t *read, *write;         /* ncols each */
};

/* A node (pid 0, rank -1) or a process, against the median. */
struct bcn_rnodes_straggler {
	char node[BCN_NODE_MAX + 1];
	uint64_t pid;
	int64_t rank;
	uint64_t bytes, ops, procs;     /* procs: of a node */
	uint64_t time;                  /* I/O time, ns */
	double bw;                      /* bytes/s */
	double bw_ratio, time_ratio;    /* over the median's */
	bool slow, too_long;            /* which rule: bandwidth, time */
};

/* The stragglers among nodes or processes. */
struct bcn_rnodes_judge {
	uint64_t io;                    /* with data and I/O time */
	uint64_t untimed;               /* with data, no busy time */
	bool checked;                   /* enough of them to judge */
	double median_bw;
	uint64_t median_time, median_bytes;
	uint64_t stragglers;            /* found (listed: the first) */
	struct bcn_rnodes_straggler *list;      /* slowest first */
	size_t nlist;
};

struct bcn_rnodes_result {
	int64_t from, to, step;         /* columns [from + i step, ...) */
	size_t ncols;
	struct bcn_rnodes_row *rows;    /* in nodelist order */
	size_t nrows;
	struct bcn_rnodes_row other;    /* nodes not in the nodelist */
	uint64_t read_bytes, write_bytes;       /* all rows and other */
	uint64_t nodes;                 /* of the nodelist */
	struct bcn_rnodes_judge node, proc;
	struct bcn_rnodes_config cfg;
	bool partial;
	char why[BCN_RNODES_WHY_MAX];
};

struct bcn_rnodes_proc;                 /* report_nodes.c */

struct bcn_rnodes {
	struct bcn_rnodes_config cfg;
	int64_t from, to, step;
	size_t ncols, nrows, nlist;     /* nlist: nodelist nodes, first in
					 * names */
	struct bcn_tally names;         /* node -> read, write, ops, busy,
					 * processes, row + 1 */
	uint64_t *rd, *wr;              /* (nrows + 1) x ncols */
	struct bcn_u64map proc_ix;      /* (node, pid, rank) -> index */
	struct bcn_rnodes_proc *procs;
	size_t nprocs, cap_procs;
	size_t last;                    /* the last record's node */
	size_t last_proc;               /* ... and process, SIZE_MAX: none */
	bool partial;
	char why[BCN_RNODES_WHY_MAX];
};

/* Prepares n for the nodes of the Slurm hostlist nodelist (expanded in
 * its order, at most nodes_max) and the heatmap's [from, to) (to <= from:
 * one column at from). A nodelist that does not expand makes the result
 * partial (every node in "other"). Returns 0 or -ENOMEM; n is then
 * freed with bcn_rnodes_free either way. */
int bcn_rnodes_init(struct bcn_rnodes *n, const char *nodelist, int64_t from,
		    int64_t to, const struct bcn_rnodes_config *c);

/* Counts io record r (others are ignored), whose bcn_record_totals() is
 * t: its bytes into the heatmap, its data operations into its node and
 * process. Returns 0 or -ENOMEM (a bound makes the result partial
 * instead). */
int bcn_rnodes_add(struct bcn_rnodes *n, const struct bcn_record *r,
		   const struct bcn_record_totals *t);

/* The heatmap and the stragglers of what was added into *out (freed with
 * bcn_rnodes_result_free); n stays usable. Returns 0 or -ENOMEM. */
int bcn_rnodes_finish(struct bcn_rnodes *n, struct bcn_rnodes_result *out);

void bcn_rnodes_free(struct bcn_rnodes *n);
void bcn_rnodes_result_free(struct bcn_rnodes_result *res);

/* Appends res as one JSON object (docs/report.md, "Depth"). Returns 0,
 * -BCN_EFULL or -ENOMEM. */
int bcn_rnodes_to_json(const struct bcn_rnodes_result *res,
		       struct bcn_buf *out);

#endif
