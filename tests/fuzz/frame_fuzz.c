/* libFuzzer target: the frame decoder over arbitrary bytes, as a stream
 * of frames. Every decoded record is also rendered as JSON and must
 * survive re-encoding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void reencode(struct bcn_frame *f)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf json, wire;

	bcn_buf_init(&json, 1 << 20);
	bcn_buf_init(&wire, 1 << 24);
	bcn_frame_builder_init(&b, &lim, 1);
	while (bcn_frame_next(f, &r) == 1) {
		bcn_buf_reset(&json);
		if (bcn_record_to_json(&r, &json))
			__builtin_trap();
		/* a record the decoder accepted is one the encoder accepts */
		if (bcn_frame_builder_add(&b, &r) && bcn_frame_builder_count(&b) == 0)
			__builtin_trap();
	}
	if (bcn_frame_builder_count(&b) &&
	    bcn_frame_builder_finish(&b, f->node, f->hdr.seq, &wire))
		__builtin_trap();
	bcn_frame_builder_free(&b);
	bcn_buf_free(&json);
	bcn_buf_free(&wire);
}

/* Gives frames a correct checksum, so that mutations reach the payload
 * decoder instead of stopping at the checksum. */
static void reseal_all(uint8_t *d, size_t size)
{
	size_t off = 0;

	while (off + 32 <= size) {
		uint32_t body = (uint32_t)d[off + 8] | (uint32_t)d[off + 9] << 8 |
				(uint32_t)d[off + 10] << 16 | (uint32_t)d[off + 11] << 24;
		uint32_t crc;

		if (body > size - off - 32)
			return;
		crc = (uint32_t)crc32(0, d + off, 28);
		crc = (uint32_t)crc32(crc, d + off + 32, body);
		for (int i = 0; i < 4; i++)
			d[off + 28 + i] = (uint8_t)(crc >> (8 * i));
		off += 32 + body;
	}
}

static void decode_stream(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	/* inputs starting with 'R' are decoded with checksums repaired */
	if (size > 1 && data[0] == 'R') {
		copy = malloc(size - 1);
		if (!copy)
			return 0;
		memcpy(copy, data + 1, size - 1);
		reseal_all(copy, size - 1);
		decode_stream(copy, size - 1);
		free(copy);
		return 0;
	}
	decode_stream(data, size);
	return 0;
}

static void decode_stream(const uint8_t *data, size_t size)
{
	/* small limits so the fuzzer reaches the size checks */
	static const struct bcn_frame_limits lim = { 1 << 16, 1 << 18, 4096, 512, 64, 0, 0 };
	struct bcn_frame f;
	size_t off = 0, used;

	bcn_frame_init(&f);
	while (off < size) {
		int rc = bcn_frame_open(&f, data + off, size - off, &lim, &used);

		if (rc == 0) {
			if (f.hdr.kind == BCN_FRAME_DATA && bcn_frame_validate(&f) == 0)
				reencode(&f);
			off += used;
		} else {
			off += bcn_frame_resync(data + off, size - off);
		}
	}
	bcn_frame_free(&f);
}
