/* libFuzzer target for the tracer datagram decoder
 * (collectors/client/tracer/tmsg): any input is parsed as a datagram; every
 * record the decoder accepts must satisfy its promises (op in range,
 * count >= 1, last >= first >= 0, the path inside the input and at most
 * BCN_TMSG_PATH_MAX bytes, offsets moving forward in 8-byte steps) and
 * must encode back, in its shortest form (never longer than it came), to
 * a record that decodes to the same run and path. A broken promise
 * aborts. */
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
	struct bcn_tmsg_rec r2;
	size_t off = BCN_TMSG_HDR_LEN, prev, n, n2;
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
		/* encoded again, in its shortest form: no longer, and it
		 * decodes to the same run and path */
		n = bcn_tmsg_put_rec(again, &r.run, r.path, r.path_len);
		n2 = 0;
		if (n != bcn_tmsg_rec_size(&r.run, r.path_len) ||
		    n > off - prev || bcn_tmsg_next(again, n, &n2, &r2) ||
		    n2 != n || memcmp(&r2.run, &r.run, sizeof(r.run)) ||
		    r2.path_len != r.path_len ||
		    (r.path_len && memcmp(r2.path, r.path, r.path_len)))
			abort();
	}
	return 0;
}
