/* libFuzzer target for beacon-swd's sysfs counter parser: the first byte
 * picks a counter file name (known or not, counters/ or counters_ext/),
 * the rest is the file's text, copied to a buffer of exactly its length.
 * Checks: only the documented results, a failure leaves the value alone,
 * a parsed value prints back to the digits of the input, and the name
 * maps to an index in range. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/switch/ibcounters.h"
#include "common/error.h"

#define FZ_SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"port_xmit_data", "port_rcv_data_64", "symbol_error", "VL15_dropped",
	"port_xmit_wait", "unicast_rcv_packets", "", "port_xmit_packets_64",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char digits[32];
	uint64_t v = FZ_SENTINEL;
	size_t len, dl;
	char *buf;
	bool ext;
	int rc, i;

	if (size < 1)
		return 0;
	ext = data[0] & 0x80;
	i = bcn_ib_sysfs_counter(names[data[0] % 8], ext);
	if (i < -1 || i >= BCN_IB_NVALUES)
		abort();
	len = size - 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	rc = bcn_ib_sysfs_parse(buf, len, &v);
	if (rc) {
		if ((rc != -BCN_ESYNTAX && rc != -BCN_ERANGE) || v != FZ_SENTINEL)
			abort();
	} else {
		/* the input is the decimal digits of v, with no sign, maybe
		 * leading zeros, then white space */
		dl = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
		size_t d = 0;

		while (d < len && buf[d] >= '0' && buf[d] <= '9')
			d++;
		if (d < dl || memcmp(buf + d - dl, digits, dl))
			abort();
		for (size_t k = 0; k + dl < d; k++)
			if (buf[k] != '0')
				abort();
	}
	free(buf);
	return 0;
}
