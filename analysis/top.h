/* The cluster-wide per-job I/O view of `beacon top` (and the web's live
 * overview): over one time window, one scan of the compute nodes' records
 * and one of the OSTs' job parts give every job's bandwidth, IOPS and
 * metadata operations, its I/O nodes, the forwarding nodes they use (the
 * job database's map) and the OSTs that served it; the job database adds
 * user, name and size. Jobs sorted by bandwidth, busiest first. */
#ifndef BCN_TOP_H
#define BCN_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/tally.h"
#include "common/buf.h"
#include "jobs/job.h"

struct bcn_stores;
struct bcn_jobdb;

#define BCN_TOP_NAMES_MAX 256           /* forwarding nodes, OSTs per job */

struct bcn_top_job {
	uint64_t job;
	char user[BCN_JOB_STR_MAX + 1], name[BCN_JOB_STR_MAX + 1];
	uint64_t nnodes;                /* 0: not in the job database */
	uint64_t read_bytes, write_bytes, ops, meta_ops, ost_bytes;
	double read_bw, write_bw, iops;
	struct bcn_u64map nodes;        /* I/O nodes (hashes) */
	struct bcn_tally fwds, osts;
};

struct bcn_top {
	int64_t from, to;
	struct bcn_top_job *jobs;
	size_t n;
	uint64_t records;
	uint64_t truncated;             /* jobs beyond jobs_max, not shown */
};

/* Computes the view of [from, to), at most jobs_max jobs (the busiest
 * kept). Returns 0 and *out (free with bcn_top_free), or a negative code. */
int bcn_top_compute(const struct bcn_stores *st, struct bcn_jobdb *db, int64_t from,
		    int64_t to, size_t jobs_max, struct bcn_top **out);
void bcn_top_free(struct bcn_top *t);

/* The view as one JSON object: time, window, and the jobs. */
int bcn_top_to_json(const struct bcn_top *t, struct bcn_buf *out);

/* The view as a screen of at most rows jobs, width columns. */
int bcn_top_to_text(const struct bcn_top *t, size_t rows, size_t width,
		    struct bcn_buf *out);

#endif
