/* beacon-swd's fabric walk for the PMA source: a bounded breadth-first
 * walk by directed-route SMPs (NodeInfo, PortInfo) from the local port,
 * listing every switch with its LID, GUID and linked ports. Its memory
 * is bounded by the number of switches asked for and freed by the
 * caller (libibnetdisc's walk leaks per call, which a daemon walking
 * every few minutes cannot afford). */
#ifndef BCN_PMAWALK_H
#define BCN_PMAWALK_H

#include <stddef.h>
#include <stdint.h>

#define BCN_PMA_PORTS_MAX 254           /* ports of one switch read */
#define BCN_PMA_HOPS_MAX 63             /* of a directed route */

struct ibmad_port;

/* One switch found. */
struct bcn_pma_node {
	uint64_t guid;                  /* node GUID */
	uint16_t lid;                   /* of its management port 0 */
	uint8_t nports;
	uint8_t linked[(BCN_PMA_PORTS_MAX + 1) / 8 + 1]; /* bit per port */
};

/* Walks the fabric from the port mad (opened with the SMI and directed
 * route classes), at most max_hops hops (0: BCN_PMA_HOPS_MAX), waiting
 * timeout_ms for each answer (nodes that do not answer are passed by).
 * Writes a calloc'ed array of the switches found, at most max, to *out
 * and their number to *n (free() it). *dropped (may be NULL) gets the
 * switches left out beyond max. Returns 0, -EIO when the local node does
 * not answer, or -ENOMEM. */
int bcn_pma_walk(struct ibmad_port *mad, int timeout_ms, unsigned max_hops,
		 size_t max, struct bcn_pma_node **out, size_t *n,
		 uint64_t *dropped);

#endif
