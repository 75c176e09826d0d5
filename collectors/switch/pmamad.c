/* PerfMgt attribute decoding for beacon-swd's PMA source: byte offsets of
 * ClassPortInfo, PortCounters and PortCountersExtended from the InfiniBand
 * architecture specification (vol. 1, 16.1.3.5, 16.1.4.11, 13.4.8.1); all
 * fields big-endian. */
#include "collectors/switch/pmamad.h"
#include "common/error.h"

#define E(x) (BCN_IB_ERRORS + BCN_PE_##x)
#define PC_PORT_SELECT 1

static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* One PortCounters field: its counter, byte offset and size in bytes
 * (0: the 4-bit fields of byte 19). */
static const struct {
	uint8_t ctr, off, len;
} pc_fields[] = {
	{ E(SYMBOL_ERROR), 4, 2 },
	{ E(LINK_ERROR_RECOVERY), 6, 1 },
	{ E(LINK_DOWNED), 7, 1 },
	{ E(RCV_ERRORS), 8, 2 },
	{ E(RCV_REMOTE_PHYSICAL_ERRORS), 10, 2 },
	{ E(RCV_SWITCH_RELAY_ERRORS), 12, 2 },
	{ E(XMIT_DISCARDS), 14, 2 },
	{ E(XMIT_CONSTRAINT_ERRORS), 16, 1 },
	{ E(RCV_CONSTRAINT_ERRORS), 17, 1 },
	{ E(VL15_DROPPED), 22, 2 },
	{ BCN_IB_XMIT_DATA, 24, 4 },
	{ BCN_IB_RCV_DATA, 28, 4 },
	{ BCN_IB_XMIT_PKTS, 32, 4 },
	{ BCN_IB_RCV_PKTS, 36, 4 },
	{ BCN_IB_XMIT_WAIT, 40, 4 },
};

int bcn_pma_cpi_parse(const uint8_t *buf, size_t len, uint16_t *capmask)
{
	if (len < BCN_PMA_CPI_LEN)
		return -BCN_ETRUNC;
	*capmask = (uint16_t)be(buf + 2, 2);
	return 0;
}

bool bcn_pma_ext_supported(uint16_t capmask)
{
	return capmask & (BCN_PMA_CAP_EXT_WIDTH | BCN_PMA_CAP_EXT_NOIETF);
}

int bcn_pma_pc_parse(const uint8_t *buf, size_t len, uint8_t port,
		     uint64_t v[BCN_IB_NCOUNTERS])
{
	if (len < BCN_PMA_PC_LEN)
		return -BCN_ETRUNC;
	if (buf[PC_PORT_SELECT] != port)
		return -BCN_ECORRUPT;
	for (size_t i = 0; i < sizeof(pc_fields) / sizeof(pc_fields[0]); i++)
		v[pc_fields[i].ctr] = be(buf + pc_fields[i].off,
					 pc_fields[i].len);
	/* byte 19: LocalLinkIntegrityErrors in the high nibble,
	 * ExcessiveBufferOverrunErrors in the low one */
	v[E(LOCAL_LINK_INTEGRITY_ERRORS)] = buf[19] >> 4;
	v[E(EXCESSIVE_BUFFER_OVERRUN_ERRORS)] = buf[19] & 0xf;
	return 0;
}

int bcn_pma_pcx_parse(const uint8_t *buf, size_t len, uint8_t port,
		      uint64_t v[BCN_IB_NCOUNTERS])
{
	if (len < BCN_PMA_PCX_LEN)
		return -BCN_ETRUNC;
	if (buf[PC_PORT_SELECT] != port)
		return -BCN_ECORRUPT;
	v[BCN_IB_XMIT_DATA] = be(buf + 8, 8);
	v[BCN_IB_RCV_DATA] = be(buf + 16, 8);
	v[BCN_IB_XMIT_PKTS] = be(buf + 24, 8);
	v[BCN_IB_RCV_PKTS] = be(buf + 32, 8);
	return 0;
}
