/* Test helper for the log server's ingest lag: writes a frame stream whose
 * records end a known time before now, one frame per SPEC.
 * usage: lagframes OUT NODE SPEC...
 * SPEC is KIND:AGE:N, N records of KIND (io or job) whose interval ends
 * AGE seconds before now (negative: in the future). Frames are numbered
 * 1, 2, 3 ... in the order of the SPECs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/error.h"
#include "proto/frame.h"

#define NS 1000000000ll
#define DUR (10 * NS)   /* each record covers 10 s */

static int add_records(struct bcn_frame_builder *b, const char *kind,
		       int64_t end, long n)
{
	struct bcn_record r;
	int rc = 0;

	for (long i = 0; i < n && rc == 0; i++) {
		if (!strcmp(kind, "job")) {
			bcn_record_init(&r, BCN_REC_JOB);
			r.job = 5000 + (uint64_t)i;
			r.u.job.submit = end - DUR - NS;
			r.u.job.state = "RUNNING";
		} else {
			bcn_record_init(&r, BCN_REC_IO);
			r.job = 1000;
			r.u.io.op = BCN_IO_WRITE;
			r.u.io.fd = 3;
			r.u.io.offset = (uint64_t)i << 20;
			r.u.io.size = 1 << 20;
			r.u.io.count = 1;
		}
		r.t = end - DUR;
		r.dur = DUR;
		rc = bcn_frame_builder_add(b, &r);
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	int64_t now = bcn_real_ns();
	FILE *out;
	int rc = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: lagframes OUT NODE KIND:AGE:N...\n");
		return 2;
	}
	bcn_buf_init(&wire, 1 << 24);
	bcn_frame_builder_init(&b, &lim, 6);
	for (int i = 3; i < argc && rc == 0; i++) {
		char kind[8];
		long age, n;

		if (sscanf(argv[i], "%7[a-z]:%ld:%ld", kind, &age, &n) != 3 || n < 1 ||
		    (strcmp(kind, "io") && strcmp(kind, "job"))) {
			fprintf(stderr, "lagframes: bad spec '%s'\n", argv[i]);
			return 2;
		}
		rc = add_records(&b, kind, now - (int64_t)age * NS, n);
		if (!rc)
			rc = bcn_frame_builder_finish(&b, argv[2], (uint64_t)(i - 2), &wire);
	}
	out = rc ? NULL : fopen(argv[1], "wb");
	if (!rc && (!out || fwrite(wire.data, 1, wire.len, out) != wire.len ||
		    fclose(out)))
		rc = -EIO;
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	if (rc) {
		fprintf(stderr, "lagframes: %s\n", bcn_strerror(rc));
		return 1;
	}
	return 0;
}
