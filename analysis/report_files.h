/* The per-job report's files (docs/report.md, "Files and access
 * patterns"): what a job did to each file and group of files, fed record
 * by record from the report's client pass, as Darshan's job summary and
 * Drishti's insights show it from a Darshan log.
 *
 *   per file     path, bytes and operations per direction, metadata
 *                operations, the processes that touched it, smallest,
 *                largest and most common request size, I/O time (busy
 *                of reads, writes, metadata), first and last time, the
 *                access pattern of its data operations (consecutive,
 *                sequential, random), small and misaligned requests;
 *   rows         the files grouped by their path with runs of digits
 *                made '#' (an N-N job's rank0007.dat and rank0008.dat
 *                are rank#.dat), the top rows by bytes, the rest summed,
 *                what the bounds left out in an overflow row: the rows,
 *                the rest and the overflow add up to the job exactly;
 *   job          the same figures over every file, file counts by
 *                direction, the I/O time per process.
 *
 * Records may come in any order (the store's scan is any_order): the
 * access pattern keeps, per (process, file, direction), the latest
 * BCN_RFILES_WINDOW runs by start time, so that it is exact unless a run
 * comes after that many later runs of its stream (then its first
 * operation is counted "unordered"). Memory is bounded by struct
 * bcn_rfiles_config, never by the records. */
#ifndef BCN_REPORT_FILES_H
#define BCN_REPORT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/tally.h"
#include "common/buf.h"
#include "common/config.h"
#include "proto/frame.h"
#include "proto/record.h"

#define BCN_RFILES_WINDOW 4             /* runs kept per stream */
#define BCN_RFILES_SIZES 4              /* sizes kept per file (common) */
#define BCN_RFILES_WHY_MAX 160

struct bcn_rfiles_config {
	uint64_t files_max;             /* distinct files (65536) */
	uint64_t groups_max;            /* distinct groups (16384) */
	uint64_t rows_max;              /* rows of the result (20) */
	uint64_t pairs_max;             /* (process, file) pairs (262144) */
	uint64_t procs_max;             /* processes (65536) */
	uint64_t stripe_bytes;          /* alignment: Lustre stripe (1 MiB) */
	uint64_t page_bytes;            /* alignment: page (4 KiB) */
	uint64_t small_bytes;           /* requests below are small (1 MiB) */
};

/* Fills c with the defaults above (those of the keys below). */
void bcn_rfiles_config_defaults(struct bcn_rfiles_config *c);

/* Configuration keys for a struct bcn_rfiles_config member m of type. */
#define BCN_RFILES_CONFIG_OPTIONS(type, m) \
	{ "report_files_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.files_max), .min = 1, .max = 1 << 24, \
	  .def = "65536", .help = "Distinct files the file table tracks; " \
				  "beyond, their figures go to its overflow." }, \
	{ "report_file_groups_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.groups_max), .min = 1, .max = 1 << 24, \
	  .def = "16384", .help = "Distinct groups of files (paths with " \
				  "their digits made '#')." }, \
	{ "report_file_rows", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.rows_max), .min = 1, .max = 100000, \
	  .def = "20", .help = "Rows of the file table (files or groups, " \
			       "most bytes first); the rest is summed." }, \
	{ "report_file_pairs_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.pairs_max), .min = 1, .max = 1 << 26, \
	  .def = "262144", .help = "Distinct (process, file) pairs whose " \
				   "access pattern is followed." }, \
	{ "report_file_procs_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.procs_max), .min = 1, .max = 1 << 24, \
	  .def = "65536", .help = "Distinct processes whose I/O time is " \
				  "counted." }, \
	{ "report_stripe_size", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.stripe_bytes), .max = 1ll << 40, \
	  .def = "1m", .help = "Requests not starting at a multiple of " \
			       "this are misaligned (Lustre's stripe); 0: " \
			       "not counted." }, \
	{ "report_page_size", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.page_bytes), .max = 1ll << 40, \
	  .def = "4k", .help = "The same against pages; 0: not counted." }, \
	{ "report_small_size", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.small_bytes), .max = 1ll << 40, \
	  .def = "1m", .help = "Requests smaller than this are small." }

/* Figures of a file, a row, or the job. Times are ns. */
struct bcn_rfiles_stats {
	uint64_t read_bytes, write_bytes;
	uint64_t read_ops, write_ops, meta_ops, other_ops;
	uint64_t consec_ops;            /* start where the previous ended */
	uint64_t seq_ops;               /* start after it, not adjacent */
	uint64_t random_ops;            /* start before it: backwards,
					 * overlapping, the same offset */
	uint64_t unordered_ops;         /* first of a run whose predecessor
					 * is not known (arrived too late) */
	uint64_t small_read_ops, small_write_ops;
	uint64_t misaligned_stripe, misaligned_page;    /* data ops */
	uint64_t read_time, write_time, meta_time;      /* busy sums */
	uint64_t size_min, size_max;    /* of data ops; 0, 0 without */
	int64_t first, last;            /* first start, last end; 0 without */
};

/* One row of the table: a file, a group of files, the rest or the
 * overflow. */
struct bcn_rfiles_row {
	char *name;                     /* path, group ("rank#.dat"), or
					 * "file <id hex>" without a path */
	bool group;                     /* more than one file */
	uint64_t files;                 /* files in it (see overflow) */
	uint64_t procs;                 /* distinct processes */
	uint64_t size_common;           /* most common data request size */
	uint64_t size_common_ops;       /* its operations */
	bool size_exact;                /* at most BCN_RFILES_SIZES sizes
					 * seen: the most common is exact */
	struct bcn_rfiles_stats s;
};

struct bcn_rfiles_result {
	struct bcn_rfiles_row *rows;    /* by bytes, most first */
	size_t nrows;
	struct bcn_rfiles_row rest;     /* files of the groups not listed */
	struct bcn_rfiles_row overflow; /* files beyond files_max (not
					 * counted in files) or groups_max */
	struct bcn_rfiles_stats total;  /* the job: rows + rest + overflow */
	uint64_t files, groups;         /* tracked */
	uint64_t read_only, write_only, read_write, meta_only;  /* files */
	uint64_t procs;                 /* processes with an io record */
	uint64_t proc_time_max;         /* the busiest process's busy sum */
	char busiest_node[BCN_NODE_MAX + 1];
	uint64_t busiest_pid;
	int64_t busiest_rank;
	uint64_t stripe_bytes, page_bytes, small_bytes; /* as configured */
	bool partial;
	char why[BCN_RFILES_WHY_MAX];
};

struct bcn_rfiles_file;                 /* report_files.c */
struct bcn_rfiles_pair;
struct bcn_rfiles_proc;

struct bcn_rfiles {
	struct bcn_rfiles_config cfg;
	struct bcn_u64map file_ix;      /* file id -> index + 1 */
	struct bcn_rfiles_file *files;
	size_t nfiles, cap_files;
	struct bcn_u64map pair_ix;      /* (process, file) -> index + 1 */
	struct bcn_rfiles_pair *pairs;
	size_t npairs, cap_pairs;
	struct bcn_u64map proc_ix;      /* (node, pid, rank) -> index */
	struct bcn_rfiles_proc *procs;
	size_t nprocs, cap_procs;
	struct bcn_rfiles_stats total;  /* the files' and the overflow's,
					 * summed by bcn_rfiles_finish */
	struct bcn_rfiles_stats overflow;
	struct {                        /* the last record's stream: a
					 * process's records of a file come
					 * in runs, looked up once */
		bool on;
		char node[BCN_NODE_MAX + 1];
		uint64_t pid, file, proc;
		int64_t rank;
		size_t file_ix, proc_ix, pair_ix;       /* SIZE_MAX: none */
	} last;
	bool partial;
	char why[BCN_RFILES_WHY_MAX];
};

/* Prepares f with the bounds of c (copied). Allocates nothing yet. */
void bcn_rfiles_init(struct bcn_rfiles *f, const struct bcn_rfiles_config *c);

/* Counts io record r (others are ignored), of any process and file, in
 * any order; t is its bcn_record_totals() (the caller's, computed once
 * per record). Bytes and operations are always counted (in the overflow
 * when a bound is hit: the result is then partial). Returns 0 or
 * -ENOMEM. */
int bcn_rfiles_add(struct bcn_rfiles *f, const struct bcn_record *r,
		   const struct bcn_record_totals *t);

/* The files, groups and rows of what was added into *out (freed with
 * bcn_rfiles_result_free); f stays usable. Returns 0 or -ENOMEM. */
int bcn_rfiles_finish(struct bcn_rfiles *f, struct bcn_rfiles_result *out);

void bcn_rfiles_free(struct bcn_rfiles *f);
void bcn_rfiles_result_free(struct bcn_rfiles_result *res);

/* The group of a path into out (size len, NUL-terminated, cut to fit):
 * every run of decimal digits becomes one '#'. */
void bcn_rfiles_group_name(const char *path, char *out, size_t len);

/* Operations i in [0, n) whose offset off + i * stride is not a multiple
 * of align (0 or 1: none), without a loop over n. */
uint64_t bcn_rfiles_misaligned(uint64_t off, int64_t stride, uint64_t n,
			       uint64_t align);

/* Appends res as one JSON object (docs/report.md, "Depth"). Returns 0,
 * -BCN_EFULL or -ENOMEM. */
int bcn_rfiles_to_json(const struct bcn_rfiles_result *res,
		       struct bcn_buf *out);

#endif
