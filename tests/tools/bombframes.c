/* Test helper for the log server's memory bounds: writes DATA frames that
 * are small on the wire and large once decompressed, each with sequence
 * numbers 1, 2, 3 ... and records timed now.
 * usage: bombframes OUT NODE FRAMES RAW_BYTES bomb|wide
 *   bomb  one record and RAW_BYTES of strings no record references (the
 *         reviewer's frame: malformed, it must cost the server nothing)
 *   wide  one record per string, each referencing its own (a valid frame,
 *         large after decompression)
 * Strings are 4,000 distinct bytes: in a bomb they compress about a
 * thousandfold, in a wide frame (random letters) less than twofold. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/error.h"
#include "proto/frame.h"
#include "proto/varint.h"

#define SLEN 4000
#define RAW_CAP (1u << 30)

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int add_varint(struct bcn_buf *b, uint64_t v)
{
	uint8_t t[BCN_VARINT_MAX];

	return bcn_buf_add(b, t, bcn_varint_put(t, v));
}

/* One io record at time t (the first of its frame) naming string path. */
static int add_record(struct bcn_buf *b, int64_t dt, uint64_t path)
{
	/* type io, dt, dur, job, step, rank, pid, op write, fd, file, path,
	 * offset, size, count 1, stride, busy */
	uint64_t v[] = { 1, bcn_zigzag(dt), 0, 5, 0, 1, 0, 2, 0, 0, path,
			 0, 0, 1, 0, 0 };
	int rc = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]) && !rc; i++)
		rc = add_varint(b, v[i]);
	return rc;
}

static int payload(struct bcn_buf *raw, uint64_t nstr, int wide, uint32_t *count)
{
	static char s[SLEN];
	int64_t now = bcn_real_ns();
	int rc = add_varint(raw, nstr);

	static uint64_t seed = 88172645463325252ull;

	for (uint64_t i = 0; i < nstr && !rc; i++) {
		memset(s, 'a' + (int)(i % 26), SLEN);
		for (size_t k = 0; wide && k < SLEN; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			s[k] = (char)('a' + (seed >> 33) % 26);
		}
		snprintf(s, 24, "%llu:", (unsigned long long)i);
		s[strlen(s)] = 'x';
		rc = add_varint(raw, SLEN);
		if (!rc)
			rc = bcn_buf_add(raw, s, SLEN);
	}
	*count = wide ? (uint32_t)nstr : 1;
	for (uint32_t i = 0; i < *count && !rc; i++)
		rc = add_record(raw, i ? 0 : now, wide ? i + 1 : 0);
	return rc;
}

static int frame(FILE *out, const char *node, uint64_t seq, const struct bcn_buf *raw,
		 uint32_t count)
{
	size_t nl = strlen(node);
	uLongf zl = compressBound(raw->len);
	uint8_t *f = malloc(BCN_FRAME_HDR_LEN + nl + zl);
	uint32_t crc;
	int rc = 0;

	if (!f)
		return -ENOMEM;
	if (compress2(f + BCN_FRAME_HDR_LEN + nl, &zl, raw->data, raw->len, 9) != Z_OK) {
		free(f);
		return -EIO;
	}
	memcpy(f, BCN_FRAME_MAGIC, 4);
	f[4] = BCN_PROTO_VERSION;
	f[5] = BCN_FRAME_DATA;
	f[6] = BCN_FRAME_F_ZLIB;
	f[7] = (uint8_t)nl;
	put_le(f + 8, nl + zl, 4);
	put_le(f + 12, count, 4);
	put_le(f + 16, seq, 8);
	put_le(f + 24, raw->len, 4);
	memcpy(f + BCN_FRAME_HDR_LEN, node, nl);
	crc = (uint32_t)crc32(0L, f, 28);
	crc = (uint32_t)crc32(crc, f + BCN_FRAME_HDR_LEN, (uInt)(nl + zl));
	put_le(f + 28, crc, 4);
	if (fwrite(f, 1, BCN_FRAME_HDR_LEN + nl + zl, out) != BCN_FRAME_HDR_LEN + nl + zl)
		rc = -EIO;
	free(f);
	return rc;
}

int main(int argc, char **argv)
{
	struct bcn_buf raw;
	uint32_t count;
	FILE *out;
	int rc = 0;

	if (argc != 6 || strlen(argv[2]) == 0 || strlen(argv[2]) > BCN_NODE_MAX ||
	    (strcmp(argv[5], "bomb") && strcmp(argv[5], "wide"))) {
		fprintf(stderr, "usage: bombframes OUT NODE FRAMES RAW_BYTES bomb|wide\n");
		return 2;
	}
	long frames = strtol(argv[3], NULL, 10);
	unsigned long long bytes = strtoull(argv[4], NULL, 10);

	if (frames < 1 || bytes < SLEN || bytes > RAW_CAP) {
		fprintf(stderr, "bombframes: bad FRAMES or RAW_BYTES\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	bcn_buf_init(&raw, RAW_CAP + (RAW_CAP >> 2));
	for (long i = 0; i < frames && !rc; i++) {
		bcn_buf_reset(&raw);
		rc = payload(&raw, bytes / (SLEN + 2), !strcmp(argv[5], "wide"), &count);
		if (!rc)
			rc = frame(out, argv[2], (uint64_t)i + 1, &raw, count);
	}
	bcn_buf_free(&raw);
	if (fclose(out) && !rc)
		rc = -EIO;
	if (rc) {
		fprintf(stderr, "bombframes: %s\n", bcn_strerror(rc));
		return 1;
	}
	return 0;
}
