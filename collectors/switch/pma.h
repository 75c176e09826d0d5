/* beacon-swd's PMA source: queries the Performance Management Agents of
 * InfiniBand switches through libibmad/libibumad from one local adapter
 * port (no process per sample): ClassPortInfo once per switch, then
 * PortCounters and, where supported, PortCountersExtended of every linked
 * port. Switches come from a discovery walk of the fabric (pmawalk.h),
 * all of them or the configured ones (docs/network.md). */
#ifndef BCN_PMA_H
#define BCN_PMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/switch/ibcounters.h"
#include "collectors/switch/swd.h"

#define BCN_PMA_CA_MAX 64               /* adapter name */
#define BCN_PMA_MAX_SWITCHES 4096       /* switches sampled */

enum bcn_pma_ext { BCN_PMA_EXT_AUTO, BCN_PMA_EXT_NO };

struct bcn_pma_conf {
	const char *ca;                 /* "" or NULL: the first adapter */
	int port;                       /* 0: its first active port */
	int timeout_ms;                 /* per MAD (per attempt) */
	int retries;                    /* attempts after the first */
	int64_t budget_ms;              /* of one sample */
	enum bcn_pma_ext ext;           /* NO: PortCounters only */
	unsigned max_hops;              /* of the discovery walk */
	const struct bcn_swd_target *only; /* switches to sample, or NULL */
	size_t nonly;
};

/* What one sample did. */
struct bcn_pma_stats {
	uint64_t switches;              /* sampled without a miss */
	uint64_t ports;                 /* ports read */
	uint64_t misses;                /* switches that did not answer */
	uint64_t over_budget;           /* switches left out: budget spent */
	uint64_t bad;                   /* answers that did not decode */
};

/* Called for each port read: sw the switch name, v the counter values in
 * PMA units, ext whether v[XMIT_DATA..RCV_PKTS] are the 64-bit ones.
 * A negative return stops the sample with that code. */
typedef int (*bcn_pma_port_fn)(void *arg, const char *sw, unsigned port,
			       const uint64_t v[BCN_IB_NCOUNTERS], bool ext);

struct bcn_pma;

/* Opens the local port given by conf (copied, but conf->only must
 * outlive the handle). Returns 0 with *out or a negative code (logged). */
int bcn_pma_open(const struct bcn_pma_conf *conf, struct bcn_pma **out);

/* Walks the fabric and replaces the switch list with what it found (all
 * switches, or those of conf->only; configured ones not found are logged
 * rate-limited). On failure the previous list stays. Returns 0 or a
 * negative code (logged). */
int bcn_pma_discover(struct bcn_pma *p);

/* Queries every listed switch once, calling fn for each port read. A
 * switch that does not answer within the timeout (and retries) is left
 * for this sample and counted; the others go on. Returns 0 or what fn
 * returned. */
int bcn_pma_sample(struct bcn_pma *p, bcn_pma_port_fn fn, void *arg,
		   struct bcn_pma_stats *st);

/* The number of switches listed. */
size_t bcn_pma_nswitches(const struct bcn_pma *p);

/* Closes the port and frees p (NULL is fine). */
void bcn_pma_close(struct bcn_pma *p);

#endif
