/* libFuzzer target for beacon-swd's PerfMgt attribute decoders
 * (collectors/switch/pmamad.c): the first byte picks the port expected,
 * the rest is the attribute data, copied to a buffer of exactly its
 * length (reading past it is caught). Checks: only the documented
 * results, -BCN_ETRUNC exactly for short input, the traffic counters of
 * PortCountersExtended overwrite only their four entries, the 4-bit and
 * 8/16-bit error fields stay within their widths. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/switch/pmamad.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v[BCN_IB_NCOUNTERS], w[BCN_IB_NCOUNTERS];
	uint16_t cap;
	uint8_t port, *buf;
	size_t len;
	int rc;

	if (!size)
		return 0;
	port = data[0];
	len = size - 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	rc = bcn_pma_cpi_parse(buf, len, &cap);
	if (rc != (len < BCN_PMA_CPI_LEN ? -BCN_ETRUNC : 0))
		abort();
	rc = bcn_pma_pc_parse(buf, len, port, v);
	if (len < BCN_PMA_PC_LEN ? rc != -BCN_ETRUNC :
	    rc != (buf[1] == port ? 0 : -BCN_ECORRUPT))
		abort();
	if (!rc) {
		for (unsigned i = 0; i < BCN_IB_NCOUNTERS; i++)
			if (v[i] >> bcn_ib_counters[i].bits)
				abort();
	}
	memset(w, 0xa5, sizeof(w));
	rc = bcn_pma_pcx_parse(buf, len, port, w);
	if (len < BCN_PMA_PCX_LEN ? rc != -BCN_ETRUNC :
	    rc != (buf[1] == port ? 0 : -BCN_ECORRUPT))
		abort();
	for (unsigned i = BCN_IB_EXT_N; i < BCN_IB_NCOUNTERS; i++)
		if (w[i] != 0xa5a5a5a5a5a5a5a5ull)
			abort();
	free(buf);
	return 0;
}
