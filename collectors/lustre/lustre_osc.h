/* The Lustre client's per-OST osc files (on a forwarding node:
 * osc/<fs>-OSTxxxx-osc-<id>/{stats,rpc_stats,import}): the "rpcs:
 * inflight:" entry of import, the name of the OST behind an osc
 * directory, the map of osc stats counters (parsed by lustre_stats.h;
 * rpc_stats by lustre_hist.h), and the mapping of one device's counters
 * onto the fwd_rpc record. Pure: the callers read the files.
 * docs/collectors.md describes the files. */
#ifndef BCN_LUSTRE_OSC_H
#define BCN_LUSTRE_OSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/lustre/lustre_hist.h"
#include "collectors/lustre/lustre_stats.h"
#include "proto/record.h"

#define BCN_LUSTRE_OSC_FILE_MAX (1u << 20)     /* largest osc file read */

/* Finds "inflight: N" in the "rpcs:" block of an osc import file.
 * Returns 0, -ENOENT when absent, or -BCN_ESYNTAX/-BCN_ERANGE. */
int bcn_lustre_osc_import_inflight(const char *buf, size_t len,
				   uint64_t *inflight);

/* The OST an osc device talks to, from its directory name
 * "<fs>-OSTxxxx-osc-<instance>": writes "<fs>-OSTxxxx" to out. Returns 0,
 * -EINVAL for a name of another form, or -BCN_EFULL. */
int bcn_lustre_osc_target_name(const char *dir, char *out, size_t len);

/* Slots of the osc stats map (collectors/lustre/lustre_stats.h): RPCs by
 * the ost_read/ost_write counters (falling back to the samples of
 * read_bytes/write_bytes), bytes by the sums of read_bytes/write_bytes. */
enum bcn_lustre_osc_slot {
	BCN_LUSTRE_OSC_READ_RPCS = 0,
	BCN_LUSTRE_OSC_WRITE_RPCS,
	BCN_LUSTRE_OSC_READ_BYTES,
	BCN_LUSTRE_OSC_WRITE_BYTES,
	BCN_LUSTRE_OSC_SLOTS
};

extern const struct bcn_lustre_field bcn_lustre_osc_fields[];
extern const size_t bcn_lustre_osc_nfields;

/* The counter vector of one target: the four stats slots, then the four
 * rpc_stats histograms folded into BCN_HIST_BUCKETS log2 buckets each
 * (pages per RPC read, write; RPCs in flight read, write). */
#define BCN_LUSTRE_OSC_NCOUNTERS (BCN_LUSTRE_OSC_SLOTS + 4 * BCN_HIST_BUCKETS)

/* Fills v[BCN_LUSTRE_OSC_NCOUNTERS] with the running totals of one
 * sample; stats or rpc may be NULL when that file could not be had (its part is 0). */
void bcn_lustre_osc_counters(const struct bcn_lustre_stats *stats,
			     const struct bcn_lustre_rpc *rpc, uint64_t *v);

/* Makes r the fwd_rpc record of target (which r points to) over [t,
 * t + dur) from the deltas d[BCN_LUSTRE_OSC_NCOUNTERS] and the gauges of rpc
 * (NULL: unknown, 0): RPCs in flight are read + write RPCs in flight, or
 * in_flight (import's count) when rpc lacks them and in_flight is not
 * UINT64_MAX; pending pages are pending write + read pages. */
void bcn_lustre_osc_record(struct bcn_record *r, const char *target, int64_t t,
			   int64_t dur, const uint64_t *d,
			   const struct bcn_lustre_rpc *rpc, uint64_t in_flight);

#endif
