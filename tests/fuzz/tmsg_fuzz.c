/* libFuzzer target for the tracer datagram decoder
 * (collectors/client/tracer/tmsg): any input is parsed as a datagram; every
 * record the decoder accepts must satisfy its promises (op in range,
 * count >= 1, last >= first >= 0, the path inside the input and at most
 * BCN_TMSG_PATH_MAX bytes, offsets moving forward in 8-byte steps) and
 * must encode back to the same bytes. A broken promise aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/client/tracer/tmsg.h"
#include "common/error.h"
#include "proto/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t again[BCN_TMSG_REC_LEN + BCN_TMSG_PATH_MAX + 8];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_tmsg_hdr h;
	struct bcn_tmsg_rec r;
	size_t off = BCN_TMSG_HDR_LEN, prev, n;
	int rc = bcn_tmsg_parse_hdr(data, size, &h);

	if (rc) {
		if (rc != -BCN_ETRUNC && rc != -BCN_EMAGIC &&
		    rc != -BCN_EVERSION)
			abort();
		return 0;
	}
	for (uint32_t i = 0; i < h.nrec && i < 100000; i++) {
		prev = off;
		rc = bcn_tmsg_next(data, size, &off, &r);
		if (rc) {
			if ((rc != -BCN_ETRUNC && rc != -BCN_ERANGE) ||
			    off != prev)
				abort();
			break;  /* the daemon skips the rest of the datagram */
		}
		if (off <= prev || off > size || (off - prev) % 8 ||
		    r.run.op >= BCN_IO_OP_MAX || r.run.count == 0 ||
		    r.run.last < r.run.first || r.run.first < 0 ||
		    r.path_len > BCN_TMSG_PATH_MAX ||
		    (r.path && (r.path < (const char *)data ||
				r.path + r.path_len > (const char *)data + size)))
			abort();
		n = bcn_tmsg_put_rec(again, &r.run, r.path, r.path_len);
		/* all but the reserved byte 1 and the padding */
		if (n != off - prev || again[0] != data[prev] ||
		    memcmp(again + 2, data + prev + 2,
			   BCN_TMSG_REC_LEN + r.path_len - 2))
			abort();
	}
	return 0;
}
