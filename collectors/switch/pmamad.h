/* Decoding of Performance Management MAD attribute data (InfiniBand
 * architecture specification vol. 1, 16.1.3 and 16.1.4): ClassPortInfo,
 * PortCounters and PortCountersExtended as a switch's or adapter's PMA
 * answers them, into beacon-swd's counter vector (ibcounters.h). Pure
 * functions over the attribute data (the 192 bytes after the 64-byte
 * header of a PerfMgt MAD, as libibmad's pma_query_via returns them). */
#ifndef BCN_PMAMAD_H
#define BCN_PMAMAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/switch/ibcounters.h"

#define BCN_PMA_ATTR_CPI 0x0001         /* ClassPortInfo */
#define BCN_PMA_ATTR_PC 0x0012          /* PortCounters */
#define BCN_PMA_ATTR_PCX 0x001d         /* PortCountersExtended */
#define BCN_PMA_DATA_LEN 192            /* attribute data of a PerfMgt MAD */

/* ClassPortInfo.CapabilityMask bits of the PerfMgt class. */
#define BCN_PMA_CAP_EXT_WIDTH 0x0200    /* PortCountersExtended */
#define BCN_PMA_CAP_EXT_NOIETF 0x0400   /* ... without its IETF fields */
#define BCN_PMA_CAP_XMIT_WAIT 0x1000    /* PortXmitWait is kept */

/* Lengths of the attributes' fields beacon-swd reads. */
#define BCN_PMA_CPI_LEN 4
#define BCN_PMA_PC_LEN 44
#define BCN_PMA_PCX_LEN 40

/* Reads CapabilityMask (bytes 2-3, big-endian) of ClassPortInfo data
 * buf[0..len-1] into *capmask. Returns 0, or -BCN_ETRUNC when len is
 * below BCN_PMA_CPI_LEN. Pure. */
int bcn_pma_cpi_parse(const uint8_t *buf, size_t len, uint16_t *capmask);

/* Whether a PMA with this capability mask answers PortCountersExtended
 * with the 64-bit data and packet counters. Pure. */
bool bcn_pma_ext_supported(uint16_t capmask);

/* Reads the PortCounters data buf[0..len-1] of port `port` into
 * v[0..BCN_IB_NCOUNTERS-1] (ibcounters.h order, in the PMA's own units:
 * data in 4-byte words). Returns 0; -BCN_ETRUNC when len is below
 * BCN_PMA_PC_LEN; -BCN_ECORRUPT when PortSelect is not `port` (an answer
 * for another port). Pure. */
int bcn_pma_pc_parse(const uint8_t *buf, size_t len, uint8_t port,
		     uint64_t v[BCN_IB_NCOUNTERS]);

/* Reads the PortCountersExtended data buf[0..len-1] of port `port`: the
 * four 64-bit traffic counters into v[BCN_IB_XMIT_DATA..BCN_IB_RCV_PKTS]
 * (the other entries of v are left alone). Returns 0, -BCN_ETRUNC or
 * -BCN_ECORRUPT as bcn_pma_pc_parse. Pure. */
int bcn_pma_pcx_parse(const uint8_t *buf, size_t len, uint8_t port,
		      uint64_t v[BCN_IB_NCOUNTERS]);

#endif
