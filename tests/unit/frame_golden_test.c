/* Golden wire bytes: frames written by hand from docs/protocol.md (header
 * layout, varints, zigzag, string table, record fields in the order of
 * docs/records.md), so that the decoder and the encoder are checked
 * against the specification and not only against each other. Each frame
 * is decoded and every field compared; where the encoder is deterministic
 * (uncompressed DATA, ACK) encoding the same content must give the same
 * bytes. The checksums (zlib's crc32) and the zlib stream of the
 * compressed frame (level 9) were computed once with Python's zlib. The
 * golden frames are of protocol version 1, which decoders still read;
 * encoders write version 2, the same bytes but for the version and so the
 * checksum, which as_v2() recomputes with zlib. */
#include <zlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/error.h"
#include "proto/frame.h"

/* The payload both DATA frames carry (45 bytes), annotated. */
#define GOLDEN_PAYLOAD \
	0x01,                   /* S = 1 string */ \
	0x02, 0x2f, 0x61,       /* "/a" */ \
	/* record 1: io open */ \
	0x01,                   /* type 1 io */ \
	0xd0, 0x0f,             /* zigzag(1000 - 0) = 2000 */ \
	0x05,                   /* dur 5 */ \
	0xac, 0x02,             /* job 300 */ \
	0x00,                   /* step 0 */ \
	0x01,                   /* rank zigzag(-1) */ \
	0x07,                   /* pid 7 */ \
	0x00,                   /* op 0 open */ \
	0x06,                   /* fd zigzag(3) */ \
	0xb4, 0x24,             /* file 0x1234 */ \
	0x01,                   /* path: string 1 */ \
	0x00, 0x00,             /* offset 0, size 0 */ \
	0x01,                   /* count 1 */ \
	0x00,                   /* stride zigzag(0) */ \
	0x0a,                   /* busy 10 */ \
	/* record 2: io read, 3 operations of 4096 bytes */ \
	0x01,                   /* type 1 io */ \
	0xe8, 0x07,             /* zigzag(1500 - 1000) = 1000 */ \
	0x00,                   /* dur 0 */ \
	0xac, 0x02,             /* job 300 */ \
	0x00,                   /* step 0 */ \
	0x04,                   /* rank zigzag(2) */ \
	0x07,                   /* pid 7 */ \
	0x02,                   /* op 2 read */ \
	0x06,                   /* fd zigzag(3) */ \
	0xb4, 0x24,             /* file 0x1234 */ \
	0x00,                   /* path: the empty string */ \
	0x80, 0x20,             /* offset 4096 */ \
	0x80, 0x20,             /* size 4096 */ \
	0x03,                   /* count 3 */ \
	0x80, 0x40,             /* stride zigzag(4096) = 8192 */ \
	0x00                    /* busy 0 */

static const uint8_t data_plain[] = {
	'B', 'C', 'N', 'F',     /* magic */
	0x01,                   /* version 1 */
	0x01,                   /* kind 1 DATA */
	0x00,                   /* flags: not compressed */
	0x03,                   /* node length */
	0x30, 0x00, 0x00, 0x00, /* body length 3 + 45 */
	0x02, 0x00, 0x00, 0x00, /* 2 records */
	0x2a, 0, 0, 0, 0, 0, 0, 0, /* sequence 42 */
	0x2d, 0x00, 0x00, 0x00, /* raw length 45 */
	0xf2, 0x93, 0xd4, 0xc0, /* crc32 of bytes 0..27 and the body */
	'c', 'n', '1',
	GOLDEN_PAYLOAD,
};

static const uint8_t data_zlib[] = {
	'B', 'C', 'N', 'F', 0x01, 0x01,
	0x01,                   /* flags: zlib */
	0x03,
	0x36, 0x00, 0x00, 0x00, /* body length 3 + 51 */
	0x02, 0x00, 0x00, 0x00,
	0x2b, 0, 0, 0, 0, 0, 0, 0, /* sequence 43 */
	0x2d, 0x00, 0x00, 0x00, /* raw length 45 (decompressed) */
	0xce, 0xd2, 0xe8, 0xb4,
	'c', 'n', '1',
	0x78, 0xda, 0x63, 0x64, 0xd2, 0x4f, 0x64, 0xbc, 0xc0, 0xcf, 0xba,
	0x86, 0x89, 0x81, 0x91, 0x9d, 0x81, 0x6d, 0x8b, 0x0a, 0x23, 0x03,
	0x03, 0x23, 0x03, 0x17, 0xe3, 0x0b, 0x76, 0x06, 0xa0, 0x10, 0x0b,
	0x3b, 0x13, 0x50, 0x88, 0xa1, 0x41, 0xa1, 0x41, 0x81, 0xb9, 0xc1,
	0x81, 0x01, 0x00, 0xa5, 0xf3, 0x07, 0xa5,
};

static const uint8_t ack_dup[] = {
	'B', 'C', 'N', 'F', 0x01,
	0x02,                   /* kind 2 ACK */
	0x00,
	0x04,                   /* node length */
	0x05, 0x00, 0x00, 0x00, /* body length 4 + 1 */
	0x00, 0x00, 0x00, 0x00, /* no records */
	0x2a, 0, 0, 0, 0, 0, 0, 0, /* acknowledges 42 */
	0x01, 0x00, 0x00, 0x00, /* raw length 1 */
	0xf4, 0x5d, 0x81, 0x34,
	's', 'r', 'v', '1',
	0x01,                   /* status 1 duplicate */
};

static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;

/* The two records of GOLDEN_PAYLOAD, as the record model holds them. */
static void golden_records(struct bcn_record r[2])
{
	memset(r, 0, 2 * sizeof(*r));
	r[0].type = BCN_REC_IO;
	r[0].t = 1000;
	r[0].dur = 5;
	r[0].job = 300;
	r[0].u.io = (struct bcn_rec_io){ .step = 0, .rank = -1, .pid = 7,
		.op = BCN_IO_OPEN, .fd = 3, .file = 0x1234, .path = "/a",
		.offset = 0, .size = 0, .count = 1, .stride = 0, .busy = 10 };
	r[1].type = BCN_REC_IO;
	r[1].t = 1500;
	r[1].dur = 0;
	r[1].job = 300;
	r[1].u.io = (struct bcn_rec_io){ .step = 0, .rank = 2, .pid = 7,
		.op = BCN_IO_READ, .fd = 3, .file = 0x1234, .path = "",
		.offset = 4096, .size = 4096, .count = 3, .stride = 4096,
		.busy = 0 };
}

static void assert_io_equal(const struct bcn_record *g, const struct bcn_record *w)
{
	assert_int_equal(g->type, w->type);
	assert_string_equal(g->node, "cn1");
	assert_int_equal(g->t, w->t);
	assert_int_equal(g->dur, w->dur);
	assert_int_equal(g->job, w->job);
	assert_int_equal(g->u.io.step, w->u.io.step);
	assert_int_equal(g->u.io.rank, w->u.io.rank);
	assert_int_equal(g->u.io.pid, w->u.io.pid);
	assert_int_equal(g->u.io.op, w->u.io.op);
	assert_int_equal(g->u.io.fd, w->u.io.fd);
	assert_int_equal(g->u.io.file, w->u.io.file);
	assert_string_equal(g->u.io.path, w->u.io.path);
	assert_int_equal(g->u.io.offset, w->u.io.offset);
	assert_int_equal(g->u.io.size, w->u.io.size);
	assert_int_equal(g->u.io.count, w->u.io.count);
	assert_int_equal(g->u.io.stride, w->u.io.stride);
	assert_int_equal(g->u.io.busy, w->u.io.busy);
}

/* Decodes a golden DATA frame and checks its header and both records. */
static void check_data(const uint8_t *wire, size_t len, uint8_t flags,
		       uint32_t body_len, uint64_t seq, uint32_t crc)
{
	struct bcn_record want[2], r;
	struct bcn_frame f;
	size_t used = 0;

	golden_records(want);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, wire, len, &lim, &used), 0);
	assert_int_equal(used, len);
	assert_int_equal(f.hdr.version, 1);
	assert_int_equal(f.hdr.kind, BCN_FRAME_DATA);
	assert_int_equal(f.hdr.flags, flags);
	assert_int_equal(f.hdr.node_len, 3);
	assert_int_equal(f.hdr.body_len, body_len);
	assert_int_equal(f.hdr.count, 2);
	assert_int_equal(f.hdr.seq, seq);
	assert_int_equal(f.hdr.raw_len, 45);
	assert_int_equal(f.hdr.crc, crc);
	assert_string_equal(f.node, "cn1");
	assert_int_equal(bcn_frame_validate(&f), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(bcn_frame_next(&f, &r), 1);
		assert_io_equal(&r, &want[i]);
	}
	assert_int_equal(bcn_frame_next(&f, &r), 0);
	bcn_frame_free(&f);
}

/* The version-2 form of a golden version-1 frame: version byte 2 and the
 * checksum over bytes 0..27 and the body recomputed. */
static void as_v2(const uint8_t *g, size_t n, uint8_t *out)
{
	uint32_t crc;

	memcpy(out, g, n);
	out[4] = 2;
	crc = (uint32_t)crc32(0L, out, 28);
	crc = (uint32_t)crc32(crc, out + 32, (uInt)(n - 32));
	for (int i = 0; i < 4; i++)
		out[28 + i] = (uint8_t)(crc >> (8 * i));
}

/* Encodes the golden records at compression level (0: none) as frame seq
 * of cn1 into out. */
static void encode(int level, uint64_t seq, struct bcn_buf *out)
{
	struct bcn_frame_builder b;
	struct bcn_record r[2];

	golden_records(r);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, level), 0);
	assert_int_equal(bcn_frame_builder_add(&b, &r[0]), 0);
	assert_int_equal(bcn_frame_builder_add(&b, &r[1]), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn1", seq, out), 0);
	bcn_frame_builder_free(&b);
}

static void test_data_plain(void **state)
{
	uint8_t v2[sizeof(data_plain)];
	struct bcn_buf out;

	(void)state;
	check_data(data_plain, sizeof(data_plain), 0, 48, 42, 0xc0d493f2u);
	/* the encoding is canonical: the same records give the same bytes */
	bcn_buf_init(&out, 1 << 20);
	encode(0, 42, &out);
	as_v2(data_plain, sizeof(data_plain), v2);
	assert_int_equal(out.len, sizeof(v2));
	assert_memory_equal(out.data, v2, sizeof(v2));
	bcn_buf_free(&out);
}

static void test_data_zlib(void **state)
{
	struct bcn_buf out;
	struct bcn_frame f;
	size_t used = 0;

	(void)state;
	check_data(data_zlib, sizeof(data_zlib), BCN_FRAME_F_ZLIB, 54, 43,
		   0xb4e8d2ceu);
	/* zlib's bytes depend on its version: the encoder's compressed frame
	 * must carry the same header fields and, inflated, the same payload */
	bcn_buf_init(&out, 1 << 20);
	encode(9, 43, &out);
	assert_int_equal(out.data[4], BCN_PROTO_VERSION);
	assert_memory_equal(out.data, data_zlib, 4);            /* magic */
	assert_memory_equal(out.data + 5, data_zlib + 5, 3);    /* kind .. node length */
	assert_memory_equal(out.data + 12, data_zlib + 12, 16); /* count, seq, raw length */
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, out.data, out.len, &lim, &used), 0);
	assert_int_equal(f.hdr.raw_len, 45);
	assert_memory_equal(f.raw, data_plain + 35, 45);
	bcn_frame_free(&f);
	bcn_buf_free(&out);
}

static void test_ack(void **state)
{
	uint8_t v2[sizeof(ack_dup)];
	struct bcn_buf out;
	struct bcn_frame f;
	size_t used = 0;

	(void)state;
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, ack_dup, sizeof(ack_dup), &lim, &used), 0);
	assert_int_equal(used, sizeof(ack_dup));
	assert_int_equal(f.hdr.version, 1);
	assert_int_equal(f.hdr.kind, BCN_FRAME_ACK);
	assert_int_equal(f.hdr.flags, 0);
	assert_int_equal(f.hdr.node_len, 4);
	assert_int_equal(f.hdr.body_len, 5);
	assert_int_equal(f.hdr.count, 0);
	assert_int_equal(f.hdr.seq, 42);
	assert_int_equal(f.hdr.raw_len, 1);
	assert_int_equal(f.hdr.crc, 0x34815df4u);
	assert_string_equal(f.node, "srv1");
	assert_int_equal(f.ack_status, BCN_ACK_DUPLICATE);
	bcn_frame_free(&f);
	bcn_buf_init(&out, 1 << 10);
	assert_int_equal(bcn_frame_ack_encode(42, BCN_ACK_DUPLICATE, "srv1", &out), 0);
	as_v2(ack_dup, sizeof(ack_dup), v2);
	assert_int_equal(out.len, sizeof(v2));
	assert_memory_equal(out.data, v2, sizeof(v2));
	bcn_buf_free(&out);
}

/* One byte of a golden frame's payload changed is a checksum error: the
 * checksum covers the body. */
static void test_damaged(void **state)
{
	uint8_t w[sizeof(data_plain)];
	struct bcn_frame f;
	size_t used = 0;

	(void)state;
	memcpy(w, data_plain, sizeof(w));
	w[sizeof(w) - 1] ^= 0x01;       /* busy 0 -> 1: still valid varint */
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, w, sizeof(w), &lim, &used), -BCN_ECHECKSUM);
	bcn_frame_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_plain),
		cmocka_unit_test(test_data_zlib),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
