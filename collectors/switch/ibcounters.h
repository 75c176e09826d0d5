/* InfiniBand port counters: what beacon-swd records of a port, where each
 * counter comes from (the sysfs files of an HCA port, the fields of
 * perfquery's output for switch ports), its width and unit, and pure
 * parsers for both sources (docs/collectors.md, "beacon-swd"). */
#ifndef BCN_IBCOUNTERS_H
#define BCN_IBCOUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/record.h"

/* The counters of one port, in this order: the five traffic counters,
 * then the error counters in the order of BCN_PORT_ERRS (bcn_port_err). */
enum bcn_ib_counter {
	BCN_IB_XMIT_DATA,       /* PortXmitData, 4-byte words */
	BCN_IB_RCV_DATA,        /* PortRcvData, 4-byte words */
	BCN_IB_XMIT_PKTS,
	BCN_IB_RCV_PKTS,
	BCN_IB_XMIT_WAIT,       /* ticks with data to send and no credits */
	BCN_IB_ERRORS,          /* + enum bcn_port_err */
	BCN_IB_NCOUNTERS = BCN_IB_ERRORS + BCN_PE_MAX
};

/* The 64-bit copies of the traffic counters an HCA may also expose in
 * counters_ext/ (port_xmit_data_64, ...): BCN_IB_NCOUNTERS + i for
 * traffic counter i < BCN_IB_EXT_N. */
#define BCN_IB_EXT_N 4
#define BCN_IB_NVALUES (BCN_IB_NCOUNTERS + BCN_IB_EXT_N)

/* One counter: its names and behaviour. */
struct bcn_ib_counter_info {
	const char *sysfs;      /* file in ports/N/counters/ */
	const char *sysfs_ext;  /* file in ports/N/counters_ext/, or NULL */
	const char *perfquery;  /* field of perfquery's output */
	const char *perfquery_old; /* its name in older infiniband-diags */
	uint8_t pq_len, pq_old_len;     /* their lengths */
	uint8_t bits;           /* width in PortCounters (saturating) */
	uint8_t scale;          /* units of the record field per count */
};

/* The table of the BCN_IB_NCOUNTERS counters. */
extern const struct bcn_ib_counter_info bcn_ib_counters[BCN_IB_NCOUNTERS];

/* The counter a sysfs file name stands for: for a file of counters/
 * (ext false) or counters_ext/ (ext true). Returns its index in the
 * values of a port (below BCN_IB_NVALUES), or -1 for a file beacon-swd
 * does not record (unicast/multicast packets, port_rcv_discards, ...).
 * Pure. */
int bcn_ib_sysfs_counter(const char *name, bool ext);

/* Parses the text of one sysfs counter file (a decimal number, then
 * optional white space) of buf[0..len-1] into *value, in the file's own
 * units (see bcn_ib_counters[].scale). Returns 0; -BCN_ESYNTAX for
 * anything else, e.g. "N/A (no PMA)" on adapters without a performance
 * management agent; -BCN_ERANGE above 2^64 - 1. Pure. */
int bcn_ib_sysfs_parse(const char *buf, size_t len, uint64_t *value);

/* The counter kind (collectors/runtime/counter.h) of value index i read from sysfs:
 * the PortCounters width, saturating, for counters/ (values above it are
 * taken as 64-bit by the delta rule, as kernels that use the extended
 * counters print them), 64-bit wrapping for counters_ext/. Pure. */
uint8_t bcn_ib_sysfs_kind(unsigned i);

/* Counters of one port as perfquery printed them. */
struct bcn_ib_pq_port {
	uint64_t lid;
	uint64_t port;          /* 255: all ports summed (perfquery -a) */
	bool extended;          /* "Port extended counters" (-x): 64-bit */
	uint32_t present;       /* bit i: v[i] was in the output */
	uint64_t v[BCN_IB_NCOUNTERS];   /* in perfquery's units (words) */
};

#define BCN_IB_PQ_MAX_PORTS 512         /* ports in one output */

/* Parses the text perfquery wrote (buf[0..len-1]): one block per port,
 * each starting with a line "# Port counters: Lid L port P" or
 * "# Port extended counters: Lid L port P (CapMask: ...)", then lines
 * "Name:....value". Blocks of other kinds (PortRcvErrorDetails from -E,
 * ...) and fields beacon-swd does not record are passed over. Writes at
 * most max ports to out and their number to *n; *skipped (may be NULL)
 * gets the number of malformed lines passed over (no colon, a bad
 * number, a repeated field, a field outside a block). Returns 0, or
 * -BCN_EFULL when the output holds more than max ports (the first max
 * are written). Pure. */
int bcn_ib_perfquery_parse(const char *buf, size_t len,
			   struct bcn_ib_pq_port *out, size_t max, size_t *n,
			   uint64_t *skipped);

/* The counter kind of counter i of a perfquery block: 64-bit wrapping
 * for extended blocks, the PortCounters width, saturating, otherwise.
 * Pure. */
uint8_t bcn_ib_perfquery_kind(unsigned i, bool extended);

/* Fills the counter fields of a port record (xmit/rcv bytes and packets,
 * xmit_wait, errors) from the deltas of the BCN_IB_NCOUNTERS counters,
 * scaled to the record's units (data words x 4 = bytes; saturating at
 * 2^64 - 1). Pure. */
void bcn_ib_fill_record(struct bcn_rec_port *p, const uint64_t *delta);

#endif
