/* Test helper: writes a deterministic frame stream with every record type
 * to a file, and the expected `beacon decode --summary` totals (computed
 * independently of the decoder, from the generated values) to another.
 * usage: mkframes FRAMES_OUT EXPECTED_OUT [FRAMES [RECORDS_PER_FRAME [NODE]]]
 * Frames alternate between the nodes cn001 and cn002, or all come from
 * NODE when it is given (numbered 1, 2, 3 ...). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "proto/frame.h"

static uint64_t state = 12345;

static uint64_t rnd(void)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return state >> 33;
}

int main(int argc, char **argv)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	struct bcn_record r;
	uint64_t ops[2][4] = { { 0 } }, bytes[2][4] = { { 0 } }, recs[2][4] = { { 0 } };
	const char *nodes[] = { "cn001", "cn002" };
	long frames = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
	long per = argc > 4 ? strtol(argv[4], NULL, 10) : 100;
	FILE *out, *exp;
	int rc;

	if (argc > 5)
		nodes[0] = nodes[1] = argv[5];
	if (argc < 3 || frames <= 0 || per <= 0) {
		fprintf(stderr, "usage: mkframes FRAMES_OUT EXPECTED_OUT [FRAMES [PER]]\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	exp = fopen(argv[2], "w");
	if (!out || !exp)
		return 1;
	bcn_buf_init(&wire, 1 << 26);
	bcn_frame_builder_init(&b, &lim, 6);
	for (long fr = 0; fr < frames; fr++) {
		int n = argc > 5 ? 0 : (int)(fr % 2);

		for (long i = 0; i < per; i++) {
			int w = (int)(rnd() % 2);   /* 0 read, 1 write */

			bcn_record_init(&r, BCN_REC_IO);
			r.t = 1700000000000000000ll + fr * 1000000000ll + i * 1000;
			r.dur = 500;
			r.job = 1000 + (uint64_t)(i % 2);
			r.u.io.op = w ? BCN_IO_WRITE : BCN_IO_READ;
			r.u.io.fd = 3;
			r.u.io.size = 1 + rnd() % 1048576;
			r.u.io.count = 1 + rnd() % 64;
			r.u.io.stride = (int64_t)r.u.io.size;
			rc = bcn_frame_builder_add(&b, &r);
			if (rc)
				goto fail;
			recs[n][(i % 2) * 2 + w]++;
			ops[n][(i % 2) * 2 + w] += r.u.io.count;
			bytes[n][(i % 2) * 2 + w] += r.u.io.count * r.u.io.size;
		}
		rc = bcn_frame_builder_finish(&b, nodes[n],
					      argc > 5 ? (uint64_t)fr + 1 : (uint64_t)fr / 2 + 1, &wire);
		if (rc)
			goto fail;
	}
	if (fwrite(wire.data, 1, wire.len, out) != wire.len)
		return 1;
	for (int j = 0; j < 2; j++)
		for (int n = 0; n < 2; n++)
			for (int w = 0; w < 2; w++) {
				int k = j * 2 + w;

				if (!recs[n][k])
					continue;
				fprintf(exp, "{\"layer\":\"client\",\"job\":%d,\"node\":\"%s\","
					"\"op\":\"%s\",\"records\":%" PRIu64 ",\"ops\":%" PRIu64
					",\"bytes\":%" PRIu64 "}\n", 1000 + j, nodes[n],
					w ? "write" : "read", recs[n][k], ops[n][k], bytes[n][k]);
			}
	fclose(out);
	fclose(exp);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	return 0;
fail:
	fprintf(stderr, "mkframes: %s\n", bcn_strerror(rc));
	return 1;
}
