/* The Lustre files beacon-sim writes for its OSS and MDS nodes: what a
 * real Lustre 2.15 server shows under /proc/fs/lustre, from the
 * simulator's cumulative counters, so that beacon-ostd and beacon-mdsd
 * read the simulated cluster exactly as they read a real one; and the
 * osc files of its forwarding nodes' Lustre clients (stats, rpc_stats,
 * import of one OST's osc device) for beacon-fwdd.
 *
 * Every file is written whole to a temporary name and renamed into place,
 * so that a collector reading at any moment sees one consistent
 * snapshot. The text is formatted into a caller's buffer first (pure
 * functions, unit-tested by parsing them back with collectors/lustre),
 * then written.
 *
 * What the simulator does not model is written as a real server with the
 * same counts could have written it:
 *  - server request latencies: every "[usecs]" counter of an OST or MDT
 *    has min, max, sum and sumsq 0 (requests served in under a
 *    microsecond); the osc devices' carry what the caller counted (the
 *    OST's modelled disk I/O time, ost_brw.h);
 *  - the sizes of single requests: of n requests of s bytes in all, the
 *    smallest min and the largest max, the other n - 2 are taken as equal
 *    as integers allow (q = (s - min - max) / (n - 2), the remainder as
 *    q + 1); sumsq (modulo 2^64, as Lustre's wraps) and the job_stats
 *    size histogram are those of these sizes. min and max are first
 *    moved, if need be, to the nearest values n and s allow (so min and
 *    max left 0 come out near s / n); with n = 1 the request is s bytes;
 *  - job_stats times: every job's snapshot_time is now_ns and its
 *    start_time start_ns.
 * Counter names, their order, units and layout are 2.15's (obdfilter
 * ofd counters; mdt counters, whose read_bytes/write_bytes count the
 * data-on-MDT reads and writes with 0 bytes). */
#ifndef BCN_SIM_LUSTRE_OUT_H
#define BCN_SIM_LUSTRE_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/record.h"

#define BCN_SIM_JOBID_MAX 32    /* with the NUL, as LUSTRE_JOBID_SIZE */

/* Cumulative counters of one OST (obdfilter/<fs>-OSTxxxx/stats) or of
 * one job on it (an entry of job_stats). Request counts are per
 * operation (enum bcn_ost_op); bytes with the smallest and largest
 * request seen. read_bytes and write_bytes are written only with a
 * non-zero ops[BCN_OST_READ] / ops[BCN_OST_WRITE] (Lustre counts bytes
 * per request: no request, no bytes). */
struct bcn_sim_ost_ctr {
	char jobid[BCN_SIM_JOBID_MAX];  /* job_stats entries only */
	uint64_t ops[BCN_OST_OP_MAX];   /* requests; READ and WRITE too */
	uint64_t read_bytes, write_bytes;
	uint64_t read_min, read_max, write_min, write_max;
};

/* Cumulative counters of one MDT (mdt/<fs>-MDTxxxx/md_stats) or of one
 * job on it (enum bcn_md_op). ops[BCN_MD_CREATE] is never written: 2.15
 * MDTs have no such counter (a create counts as an open or a mknod). */
struct bcn_sim_mdt_ctr {
	char jobid[BCN_SIM_JOBID_MAX];  /* job_stats entries only */
	uint64_t ops[BCN_MD_OP_MAX];
};

/* Formats an obdfilter stats file at time now_ns for a target started at
 * start_ns, into out (emptied first): snapshot_time, start_time and
 * elapsed_time lines ("%-25s SECS.NNNNNNNNN secs.nsecs"), then one line
 * per non-zero counter, "%-25s N samples [unit] min max sum sumsq", units
 * [bytes] for read_bytes/write_bytes and [usecs] for the rest. Returns 0,
 * -EINVAL (a time below 0, or start_ns after now_ns) or a buf error (out
 * then holds part of the text). */
int bcn_sim_fmt_ost_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_ost_ctr *c);

/* Formats an OST job_stats file for n jobs (jobs may be NULL when n is
 * 0): "job_stats:", then per job "- job_id:" (quoted, with \xHH escapes,
 * as 2.15 does for ids holding ':' or bytes outside [A-Za-z0-9.@_:/-] or
 * starting with '@'), snapshot_time, start_time, elapsed_time and one
 * line per counter, zero or not, "{ samples: N, unit: U, min: .., max:
 * .., sum: .., sumsq: .. }" plus ", hist: { 4K: 35, ... }" on
 * read_bytes/write_bytes. Returns as bcn_sim_fmt_ost_stats. */
int bcn_sim_fmt_ost_jobstats(struct bcn_buf *out, int64_t now_ns,
			     int64_t start_ns,
			     const struct bcn_sim_ost_ctr *jobs, size_t n);

/* Formats an MDT md_stats file (as bcn_sim_fmt_ost_stats). */
int bcn_sim_fmt_mdt_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_mdt_ctr *c);

/* Formats an MDT job_stats file (as bcn_sim_fmt_ost_jobstats). */
int bcn_sim_fmt_mdt_jobstats(struct bcn_buf *out, int64_t now_ns,
			     int64_t start_ns,
			     const struct bcn_sim_mdt_ctr *jobs, size_t n);

#define BCN_SIM_OSC_HIST 32     /* OBD_HIST_MAX */

/* Cumulative counters of one osc device (a client's import of one OST),
 * index [0] reads, [1] writes. Bulk RPCs with their bytes and smallest
 * and largest size (modelled in the stats file as the OST's are);
 * req_active as samples, min, max, sum and sumsq of the requests active
 * as each was sent; the RPCs' waiting times from sending to the reply
 * (reads, writes, connects); the rpc_stats histograms of lprocfs: pages[d][i]
 * RPCs of (2^(i-1), 2^i] pages (i = 0: 1 page), flight[d][n] RPCs sent
 * with n in flight (themselves included), offset[d][i] RPCs starting at
 * page offset 0 (i = 0) or in [2^(i-1), 2^i); and the gauges now. */
/* The waiting times of some RPCs, microseconds. */
struct bcn_sim_osc_wait {
	uint64_t min, max, sum, sumsq;
};

struct bcn_sim_osc_ctr {
	uint64_t rpcs[2], bytes[2], min[2], max[2];
	uint64_t connects;                      /* ost_connect RPCs */
	struct bcn_sim_osc_wait wait[3];        /* of the rpcs[0], rpcs[1]
						 * and connects */
	uint64_t active_n, active_min, active_max, active_sum, active_sumsq;
	uint64_t pages[2][BCN_SIM_OSC_HIST];
	uint64_t flight[2][BCN_SIM_OSC_HIST];
	uint64_t offset[2][BCN_SIM_OSC_HIST];
	uint64_t in_flight[2];                  /* RPCs in flight now */
	uint64_t pending_pages[2];              /* pages queued now */
};

/* What an osc import file names. */
struct bcn_sim_osc_import {
	const char *device;     /* <fs>-OSTxxxx-osc-<instance> */
	const char *target;     /* <fs>-OSTxxxx */
	const char *nid;        /* the OSS, e.g. 10.10.0.1@o2ib */
	uint64_t max_brw_size;  /* bytes of a full bulk RPC */
};

/* Formats an osc device's stats file (2.15 keeps it in debugfs,
 * /sys/kernel/debug/lustre/osc/<device>/stats): the three time lines as
 * bcn_sim_fmt_ost_stats, then the non-zero ptlrpc client counters in
 * their order: req_waittime (every RPC, [usecs], c's wait[] together),
 * req_active ([reqs]), read_bytes and write_bytes ([bytes]), ost_read,
 * ost_write, ost_connect ([usecs], wait[0], [1], [2]). Returns as
 * bcn_sim_fmt_ost_stats. */
int bcn_sim_fmt_osc_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_osc_ctr *c);

/* Formats an osc rpc_stats file (/proc/fs/lustre/osc/<device>/rpc_stats)
 * as osc_rpc_stats_seq_show prints it: the time lines ("snapshot_time:"
 * padded to 25 columns), the RPCs in flight and pending pages now, then
 * the sections "pages per rpc", "rpcs in flight" (from 1) and "offset",
 * each "N:\t\t%10lu %3u %3u   | %10lu %3u %3u" rows of read and write
 * counts with their percentages, up to the row where both columns are
 * complete. Returns as bcn_sim_fmt_ost_stats. */
int bcn_sim_fmt_osc_rpc_stats(struct bcn_buf *out, int64_t now_ns,
			      int64_t start_ns,
			      const struct bcn_sim_osc_ctr *c);

/* Formats an osc import file (/proc/fs/lustre/osc/<device>/import): the
 * YAML of lprocfs_import_seq_show for a FULL import of imp->target at
 * imp->nid, "inflight:" the RPCs in flight of c (reads and writes),
 * "avg_waittime:" req_waittime's sum over its samples (0 without), the
 * bytes per RPC averages of the directions c has RPCs of. Returns 0,
 * -EINVAL (a NULL name) or a buf error. */
int bcn_sim_fmt_osc_import(struct bcn_buf *out,
			   const struct bcn_sim_osc_import *imp,
			   const struct bcn_sim_osc_ctr *c);

/* Writes the len bytes at data to dir/name (mode 0644) through
 * dir/.name.tmp and a rename, creating dir and its parents (mode 0755)
 * first; the temporary file is removed on failure. name must be a plain
 * file name (no '/', not "." or ".."). Returns 0, -EINVAL, -ENAMETOOLONG
 * or another negative errno. */
int bcn_sim_write_file(const char *dir, const char *name, const void *data,
		       size_t len);

#endif
