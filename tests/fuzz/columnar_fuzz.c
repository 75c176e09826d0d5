/* libFuzzer target: the columnar payload decoder (proto/columnar.c) over
 * arbitrary bytes. The first two bytes are the record count (little
 * endian), the rest the payload. Whatever decodes must be a row payload
 * whose records, when they all decode, frame again in columnar form to
 * the same records (decode, encode, decode). Seeds (corpus/columnar/):
 * columnar payloads of frames of io runs, of every record type, of one
 * job record and of 200 io records with transposed columns (transposed),
 * written by bcn_frame_builder_columnar's encoder; also the frame
 * target's corpus has frames with flag bit 3 (columnar-*; -zstd-blocks:
 * one zstd block per long column). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "proto/columnar.h"
#include "proto/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUT_MAX (1u << 20)

/* The records of f as JSON lines into out; 0 or the decoder's error. */
static int json_of(struct bcn_frame *f, struct bcn_buf *out)
{
	struct bcn_record r;
	int rc;

	while ((rc = bcn_frame_next(f, &r)) == 1)
		if (bcn_record_to_json(&r, out) || bcn_buf_add(out, "\n", 1))
			__builtin_trap();
	return rc;
}

static void reencode(struct bcn_frame *f, const struct bcn_buf *want)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_frame g;
	struct bcn_record r;
	struct bcn_buf wire, got;
	size_t used;

	bcn_frame_builder_init(&b, &lim, 0);
	if (bcn_frame_builder_columnar(&b))
		__builtin_trap();
	bcn_frame_rewind(f);
	while (bcn_frame_next(f, &r) == 1)
		if (bcn_frame_builder_add(&b, &r))
			__builtin_trap();
	bcn_buf_init(&wire, 1u << 26);
	bcn_buf_init(&got, 1u << 26);
	if (bcn_frame_builder_finish(&b, "fuzz", 1, &wire))
		__builtin_trap();
	bcn_frame_init(&g);
	if (bcn_frame_open(&g, wire.data, wire.len, &lim, &used) ||
	    json_of(&g, &got) || got.len != want->len || (want->len &&
	    memcmp(got.data, want->data, want->len) != 0))
		__builtin_trap();
	bcn_frame_free(&g);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	bcn_buf_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct bcn_frame_limits lim = { 1 << 20, OUT_MAX, 4096, 512, 0, 0, 0 };
	struct bcn_buf rows, json;
	struct bcn_frame f;
	uint32_t count;
	int rc;

	if (size < 2)
		return 0;
	count = (uint32_t)data[0] | (uint32_t)data[1] << 8;
	bcn_buf_init(&rows, OUT_MAX);
	rc = bcn_col_decode(data + 2, size - 2, count, &rows);
	if (rc != 0 && rc != -BCN_ECORRUPT && rc != -BCN_ETOOBIG)
		__builtin_trap();
	if (rc != 0 && rows.len != 0)
		__builtin_trap();
	if (rc == 0 && count <= lim.max_records) {
		bcn_frame_init(&f);
		bcn_buf_init(&json, 1u << 26);
		if (bcn_frame_open_raw(&f, rows.data, rows.len, count, "fuzz",
				       &lim) == 0 && json_of(&f, &json) == 0)
			reencode(&f, &json);
		bcn_buf_free(&json);
		bcn_frame_free(&f);
	}
	bcn_buf_free(&rows);
	return 0;
}
