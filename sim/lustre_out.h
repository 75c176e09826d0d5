/* The Lustre files beacon-sim writes for its OSS and MDS nodes: what a
 * real Lustre 2.15 server shows under /proc/fs/lustre, from the
 * simulator's cumulative counters, so that beacon-ostd and beacon-mdsd
 * read the simulated cluster exactly as they read a real one.
 *
 * Every file is written whole to a temporary name and renamed into place,
 * so that a collector reading at any moment sees one consistent
 * snapshot. The text is formatted into a caller's buffer first (pure
 * functions, unit-tested by parsing them back with collectors/lustre),
 * then written.
 *
 * What the simulator does not model is written as a real server with the
 * same counts could have written it:
 *  - request latencies: every "[usecs]" counter has min, max, sum and
 *    sumsq 0 (requests served in under a microsecond);
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
#include "common/record.h"

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

/* Writes the len bytes at data to dir/name (mode 0644) through
 * dir/.name.tmp and a rename, creating dir and its parents (mode 0755)
 * first; the temporary file is removed on failure. name must be a plain
 * file name (no '/', not "." or ".."). Returns 0, -EINVAL, -ENAMETOOLONG
 * or another negative errno. */
int bcn_sim_write_file(const char *dir, const char *name, const void *data,
		       size_t len);

#endif
