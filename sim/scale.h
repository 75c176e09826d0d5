/* beacon-sim's scale mode (docs/sim.md, "Scale mode"): instead of writing
 * the files the collectors read, the simulator speaks the wire protocol
 * to the log servers as every one of those collectors — a connection per
 * compute node, forwarding node, OSS, MDS and switch — with the records
 * the collector would have sent: the LWFS source's compressed io runs,
 * beacon-fwdd's request windows (through its own code), beacon-ostd's and
 * beacon-mdsd's per-target and per-job deltas, beacon-swd's port deltas,
 * and every collector's health records. Compute nodes without client
 * collection (no_client) get no connection. Several processes can share
 * one cluster (part K/N). */
#ifndef BCN_SIM_SCALE_H
#define BCN_SIM_SCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"
#include "sim/wire.h"

struct bcn_sim_scale;

/* Scale mode for s: loads the key, resolves every owned collector's log
 * server (shard map or server list) and registers its connection, and
 * takes over the compute nodes' operations. Returns 0, -EINVAL (bad
 * settings), the key's and shard map's errors, or -ENOMEM; err gets a
 * message. */
int bcn_sim_scale_new(struct bcn_sim *s, struct bcn_sim_scale **out,
		      char *err, size_t errlen);
void bcn_sim_scale_free(struct bcn_sim_scale *x);

/* After a tick: the tick's records of every owned collector, framed and
 * queued on its connection, and the collectors' health records when due
 * (the first after the first tick sent). Returns 0 or a negative code
 * (frames that could not be built are counted in the statistics, not
 * fatal). */
int bcn_sim_scale_send(struct bcn_sim_scale *x);

/* After a warm-up tick: consumes the tick's state without sending, so
 * that the first records sent cover only the ticks after the warm-up. */
void bcn_sim_scale_skip(struct bcn_sim_scale *x);

struct bcn_sim_wire *bcn_sim_scale_wire(struct bcn_sim_scale *x);

/* Whether this process writes the sacct and truth files (part 0 does, so
 * that parts sharing an output directory do not race). */
bool bcn_sim_scale_writes_jobs(const struct bcn_sim_scale *x);

/* Collectors this process plays (with a connection), and records it
 * built but could not queue. */
size_t bcn_sim_scale_collectors(const struct bcn_sim_scale *x);
uint64_t bcn_sim_scale_build_errors(const struct bcn_sim_scale *x);

#endif
