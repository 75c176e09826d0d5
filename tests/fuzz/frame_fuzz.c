/* libFuzzer target: the frame decoder over arbitrary bytes, as a stream
 * of frames. Every DATA frame that decodes and validates is re-encoded
 * (decode, encode, decode): the records of the new frame, rendered as
 * JSON, must be those of the original one by one, in order and number. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/error.h"
#include "proto/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define JSON_MAX (64u << 20)

/* Decodes the frame the builder b holds (written to wire) and traps unless
 * its records, as JSON lines, are want; then empties wire and want. */
static void compare_reencoded(struct bcn_frame_builder *b, const char *node,
			      uint64_t seq, uint32_t n, struct bcn_buf *wire,
			      struct bcn_buf *want, struct bcn_buf *got)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame g;
	struct bcn_record r;
	size_t used = 0;
	uint32_t k = 0;
	int rc;

	bcn_buf_reset(wire);
	if (bcn_frame_builder_finish(b, node, seq, wire))
		__builtin_trap();
	bcn_frame_init(&g);
	if (bcn_frame_open(&g, wire->data, wire->len, &lim, &used) ||
	    used != wire->len || g.hdr.count != n || g.hdr.seq != seq ||
	    strcmp(g.node, node) != 0 || bcn_frame_validate(&g))
		__builtin_trap();
	bcn_buf_reset(got);
	while ((rc = bcn_frame_next(&g, &r)) == 1) {
		if (bcn_record_to_json(&r, got) || bcn_buf_add(got, "\n", 1))
			__builtin_trap();
		k++;
	}
	if (rc != 0 || k != n || got->len != want->len ||
	    memcmp(got->data, want->data, want->len) != 0)
		__builtin_trap();
	bcn_frame_free(&g);
	bcn_buf_reset(want);
}

static void reencode(struct bcn_frame *f)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf want, got, wire;
	int rc;

	bcn_buf_init(&want, JSON_MAX);
	bcn_buf_init(&got, JSON_MAX);
	bcn_buf_init(&wire, 1 << 24);
	bcn_frame_builder_init(&b, &lim, 1);
	/* delta io rows again where the frame had them: their encoder too */
	bcn_frame_builder_iodelta(&b, f->hdr.flags & BCN_FRAME_F_IODELTA);
	while (bcn_frame_next(f, &r) == 1) {
		/* a record the decoder accepted is one the encoder accepts */
		rc = bcn_frame_builder_add(&b, &r);
		if (rc == -BCN_EFULL && bcn_frame_builder_count(&b)) {
			compare_reencoded(&b, f->node, f->hdr.seq,
					  bcn_frame_builder_count(&b), &wire, &want, &got);
			rc = bcn_frame_builder_add(&b, &r);
		}
		if (rc || bcn_record_to_json(&r, &want) || bcn_buf_add(&want, "\n", 1))
			__builtin_trap();
	}
	if (bcn_frame_builder_count(&b))
		compare_reencoded(&b, f->node, f->hdr.seq, bcn_frame_builder_count(&b),
				  &wire, &want, &got);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&want);
	bcn_buf_free(&got);
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
