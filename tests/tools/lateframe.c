/* Test helper: writes one frame holding one io record (a late record of
 * a job) to a frame file, for `beacon replay`; with "ost TARGET" after
 * the arguments, a whole-target ost record of TARGET instead (no job id,
 * BYTES written: a record of the job's window that does not name it).
 * usage: lateframe FILE NODE SEQ JOB T_SECONDS BYTES [ost TARGET] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "proto/frame.h"

int main(int argc, char **argv)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf wire;
	FILE *out;
	int rc;

	if (argc != 7 && (argc != 9 || strcmp(argv[7], "ost"))) {
		fprintf(stderr, "usage: lateframe FILE NODE SEQ JOB T_SECONDS "
			"BYTES [ost TARGET]\n");
		return 2;
	}
	if (argc == 9) {
		bcn_record_init(&r, BCN_REC_OST);
		r.u.ost.target = argv[8];
		r.u.ost.write_bytes = strtoull(argv[6], NULL, 10);
		r.dur = 1000000000ll;
	} else {
		bcn_record_init(&r, BCN_REC_IO);
		r.job = strtoull(argv[4], NULL, 10);
		r.u.io.op = BCN_IO_WRITE;
		r.u.io.pid = 4242;
		r.u.io.file = 77;
		r.u.io.size = strtoull(argv[6], NULL, 10);
	}
	r.t = strtoll(argv[5], NULL, 10) * 1000000000ll;
	bcn_buf_init(&wire, 1u << 20);
	rc = bcn_frame_builder_init(&b, &lim, 6);
	if (!rc)
		rc = bcn_frame_builder_add(&b, &r);
	if (!rc)
		rc = bcn_frame_builder_finish(&b, argv[2],
					      strtoull(argv[3], NULL, 10), &wire);
	if (rc) {
		fprintf(stderr, "lateframe: %s\n", bcn_strerror(rc));
		return 1;
	}
	out = fopen(argv[1], "wb");
	if (!out || fwrite(wire.data, 1, wire.len, out) != wire.len ||
	    fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	return 0;
}
