/* The Lustre client of a forwarding node, per OST target: each sample
 * finds the osc devices under <root>/proc/fs/lustre/osc,
 * <root>/sys/kernel/debug/lustre/osc and <root>/sys/fs/lustre/osc (each
 * file from the first of these that has it, as Lustre versions moved
 * them), reads stats, rpc_stats and, when rpc_stats lacks the RPCs in
 * flight, import, and emits one fwd_rpc record of per-interval deltas per
 * target (docs/collectors.md, "beacon-fwdd"). */
#ifndef BCN_FWDRPC_H
#define BCN_FWDRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/lustre/lustre_osc.h"
#include "collectors/lustre/lustre_stats.h"
#include "common/buf.h"
#include "collectors/runtime/collector.h"
#include "collectors/runtime/counter.h"

#define BCN_FWDRPC_TARGETS_DEF 4096
#define BCN_FWDRPC_TARGETS_MAX 65536
#define BCN_FWDRPC_NAME_MAX 256         /* osc device directory name */
#define BCN_FWDRPC_FORGET_SWEEPS 3      /* samples before a gone target's
					 * counters are forgotten */
#define BCN_FWDRPC_RETRY_ABSENT 30      /* samples between looks for a file
					 * no base directory had */

enum { BCN_FWDRPC_PRESENT = 1, BCN_FWDRPC_ABSENT = 2 };

enum bcn_fwdrpc_file { BCN_OSC_STATS, BCN_OSC_RPC_STATS, BCN_OSC_IMPORT,
		       BCN_OSC_NFILES };

struct bcn_fwdrpc_target {
	char dir[BCN_FWDRPC_NAME_MAX];          /* osc device */
	char target[BCN_FWDRPC_NAME_MAX];       /* OST */
	int8_t base[BCN_OSC_NFILES];            /* base index; -1: look it
						 * up, -2: none had it */
	uint8_t found[BCN_OSC_NFILES];          /* last look-up: 0 none yet,
						 * PRESENT or ABSENT */
	bool seen;                              /* in this sample's scan */
};

struct bcn_fwdrpc {
	struct bcn_fwdrpc_target *t;            /* sorted by dir */
	size_t n, cap, max;
	uint64_t samples;
	struct bcn_counter_table *ctr;
	struct bcn_lustre_map map;
	struct bcn_buf fbuf;
	struct bcn_complain full_c;
	bool idle;                              /* also records of devices
						 * that did nothing */
	/* statistics since init */
	uint64_t records, skipped_targets, appeared, disappeared;
	uint64_t idle_records;                  /* not sent: nothing moved */
};

/* Prepares o for at most max_targets targets (1..TARGETS_MAX). Returns 0,
 * -EINVAL or -ENOMEM. */
int bcn_fwdrpc_init(struct bcn_fwdrpc *o, size_t max_targets);
void bcn_fwdrpc_free(struct bcn_fwdrpc *o);

/* Takes one sample closing [t, t + dur) and adds a record per target
 * whose counters have a previous sample (a new target's first sample
 * gives none) and, unless o->idle, that moved: counters that changed, or
 * RPCs in flight or pages pending (a forwarding node of a large system
 * has an osc device per OST, most of them idle at any moment). A target whose stats or rpc_stats cannot be read or parsed
 * this time is reported and skipped: its next record covers both
 * intervals. Returns 0, or a negative code when no base directory could
 * be read for a reason other than its absence. */
int bcn_fwdrpc_sample(struct bcn_fwdrpc *o, struct bcn_collector *c,
		      int64_t t, int64_t dur);

#endif
