/* A simulated OST's brw_stats: the disk I/O time model of beacon-sim and
 * the file Lustre 2.15 shows for it
 * (/sys/kernel/debug/lustre/osd-ldiskfs/<target>/brw_stats).
 *
 * Every bulk RPC the OST serves is one disk I/O of its size. Its disk I/O
 * time is a base time (the configuration's ost_io_ms: one I/O of rpc_bytes
 * on an idle OST) times the queueing factor 1 / (1 - u), u the OST's
 * utilisation in the tick (what it served over ost_bw, at most 0.95),
 * divided by an injected slow_ost FACTOR while one is active. A tick's
 * I/Os of one direction are spread evenly over [mean / 2, 3 mean / 2]
 * (a fixed pattern shifted by a phase the caller derives from the seed
 * and the tick), taken in whole milliseconds as Lustre measures them,
 * and tallied into the log2 rows as the kernel does (the row labelled 2^i
 * counts values in (2^(i-1), 2^i]), so the histogram's mean follows the
 * model's. The disk I/Os in flight as each is submitted are Little's law's
 * I/Os per second times the I/O time (at least 1).
 *
 * Pure functions over the caller's counters; the simulator keeps one
 * struct bcn_sim_brw_ctr per OST (sim_int.h). */
#ifndef BCN_SIM_OST_BRW_H
#define BCN_SIM_OST_BRW_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/record.h"

#define BCN_SIM_BRW_HIST 32             /* OBD_HIST_MAX */
#define BCN_SIM_BRW_UTIL_MAX 0.95       /* utilisation cap of the model */
#define BCN_SIM_BRW_IO_MS_MAX 10000     /* largest ost_io_ms */

/* Cumulative histograms of one OST, [0] reads, [1] writes, indexed by
 * the kernel's bucket (lprocfs_oh_tally_log2: label 2^i; flight: linear,
 * row i = i I/Os in flight), and this tick's I/Os not yet timed. */
struct bcn_sim_brw_ctr {
	uint64_t pages[2][BCN_SIM_BRW_HIST];    /* bulk RPCs by pages */
	uint64_t iotime[2][BCN_SIM_BRW_HIST];   /* disk I/Os by ms */
	uint64_t iosize[2][BCN_SIM_BRW_HIST];   /* disk I/Os by bytes */
	uint64_t flight[2][BCN_SIM_BRW_HIST];   /* by I/Os in flight */
	uint64_t tick_ios[2];                   /* served, not yet timed */
	uint64_t tick_bytes;                    /* served this tick */
};

/* Counts bytes of direction dir (0 read, 1 write) served as bulk RPCs of
 * rpc bytes (the last smaller; rpc > 0): their pages (4 KiB each) and
 * disk I/O sizes tallied, their number added to the tick's I/Os. Nothing
 * for 0 bytes or a dir other than 0 and 1. */
void bcn_sim_brw_bulk(struct bcn_sim_brw_ctr *c, int dir, uint64_t bytes,
		      uint64_t rpc);

/* The model's mean disk I/O time in ms: base_ms / (1 - min(util, 0.95))
 * / slow (slow in (0, 1], 1 when not injected or out of range; util
 * below 0 or NaN is 0). */
double bcn_sim_brw_io_ms(double base_ms, double util, double slow);

/* Adds n I/Os with times spread evenly over [mean_ms / 2, 3 mean_ms / 2]
 * (the k-th at mean_ms * (1/2 + (k + phase) / n), phase in [0, 1)), each
 * floored to whole ms and tallied into out by its kernel log2 bucket.
 * O(buckets), not O(n). */
void bcn_sim_brw_spread(uint64_t n, double mean_ms, double phase,
			uint64_t out[BCN_SIM_BRW_HIST]);

/* Ends a tick of tick_s seconds: the tick's I/Os of each direction get
 * times of mean io_ms (spread with phase[dir]) and their I/Os in flight;
 * the tick's counts are reset. */
void bcn_sim_brw_settle(struct bcn_sim_brw_ctr *c, double io_ms,
			double tick_s, const double phase[2]);

/* What beacon-ostd makes of two readings of the file, p then c: adds the
 * differences of "pages per bulk r/w" and "I/O time (1/1000s)" to the
 * ost record r's pages_read, pages_write, iotime_read and iotime_write,
 * each row (labelled 2^b, the kernel's bucket b) to the record bucket of
 * its label (bcn_lustre_log2_bucket). Returns whether any is non-zero. */
bool bcn_sim_brw_delta(const struct bcn_sim_brw_ctr *c,
		       const struct bcn_sim_brw_ctr *p, struct bcn_record *r);

/* Formats the brw_stats file of c at now_ns for a target started at
 * start_ns into out (emptied first), as osd-ldiskfs 2.15 prints it: the
 * snapshot_time, start_time and elapsed_time lines, then the sections
 * "pages per bulk r/w", "discontiguous pages", "discontiguous blocks",
 * "disk fragmented I/Os", "disk I/Os in flight", "I/O time (1/1000s)",
 * "disk I/O size" and "block maps msec" (the simulator's I/Os are
 * contiguous, unfragmented and need no block maps), each a blank line,
 * two title lines and, when it counts anything, rows
 * "LABEL:\t\t%10lu %3u %3u   | %4lu %3u %3u" from the first non-empty
 * row up to the one where both columns are complete. Returns 0, -EINVAL
 * (a time below 0, start_ns after now_ns, c NULL) or a buf error. */
int bcn_sim_fmt_brw_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_brw_ctr *c);

#endif
