/* Tests of the record model and the frame codec: round trips of every
 * record type, and one test per class of malformed input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "common/clock.h"
#include "common/error.h"
#include "proto/frame.h"
#include "proto/varint.h"
#include "recgen.h"

static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;

static const char *const pool[] = {
	"", "cn001", "lustre-OST0003", "172.20.20.2@o2ib", "\"quoted\" \\ path",
	"/scratch/user/ckpt.0001", "日本語", "tab\there", "a",
};
static struct recgen gen = { 88172645463325252ull, pool, sizeof(pool) / sizeof(pool[0]), 1 };

static uint64_t rnd(void)
{
	return recgen_next(&gen);
}

static void fill_random(struct bcn_record *r, enum bcn_rec_type type)
{
	bcn_record_init(r, type);
	r->t = (int64_t)(rnd() >> 2) - (int64_t)(1ull << 60);
	recgen_fields(&gen, r);
}

static void assert_same(const struct bcn_record *a, const struct bcn_record *b)
{
	struct bcn_buf ja, jb;

	bcn_buf_init(&ja, 1 << 20);
	bcn_buf_init(&jb, 1 << 20);
	assert_int_equal(bcn_record_to_json(a, &ja), 0);
	assert_int_equal(bcn_record_to_json(b, &jb), 0);
	bcn_buf_add(&ja, "", 1);
	bcn_buf_add(&jb, "", 1);
	assert_string_equal((char *)ja.data, (char *)jb.data);
	bcn_buf_free(&ja);
	bcn_buf_free(&jb);
}

#define NREC 600

/* Recomputes the checksum so that damage inside the frame is seen by the
 * content checks rather than the checksum. */
static void reseal(uint8_t *p, size_t len)
{
	uint32_t crc = (uint32_t)crc32(0, p, 28);

	crc = (uint32_t)crc32(crc, p + 32, (uInt)(len - 32));
	for (int i = 0; i < 4; i++)
		p[28 + i] = (uint8_t)(crc >> (8 * i));
}

/* zstd > 0 compresses with zstd at level, with a hash table of 2^hlog
 * entries when hlog is not 0. */
static void roundtrip_codec(int level, int zstd, int hlog)
{
	static struct bcn_record in[NREC];
	struct bcn_frame_builder b;
	struct bcn_frame f;
	struct bcn_record out;
	struct bcn_buf wire;
	size_t used;

	bcn_buf_init(&wire, 64 << 20);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, level), 0);
	if (zstd)
		assert_int_equal(bcn_frame_builder_zstd(&b, level), 0);
	if (hlog)
		assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, hlog), 0);
	for (int i = 0; i < NREC; i++) {
		fill_random(&in[i], (enum bcn_rec_type)(1 + i % (BCN_REC_TYPE_MAX - 1)));
		in[i].node = "cn00042";
		assert_int_equal(bcn_frame_builder_add(&b, &in[i]), 0);
	}
	assert_int_equal(bcn_frame_builder_count(&b), NREC);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn00042", 77, &wire), 0);
	assert_int_equal(bcn_frame_builder_count(&b), 0);

	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, wire.data, wire.len, &lim, &used), 0);
	assert_int_equal(used, wire.len);
	assert_int_equal(f.hdr.seq, 77);
	assert_int_equal(f.hdr.count, NREC);
	assert_string_equal(f.node, "cn00042");
	assert_int_equal(!!(f.hdr.flags & BCN_FRAME_F_ZLIB),
			 !zstd && level != 0);
	assert_int_equal(!!(f.hdr.flags & BCN_FRAME_F_ZSTD), zstd);
	for (int i = 0; i < NREC; i++) {
		assert_int_equal(bcn_frame_next(&f, &out), 1);
		assert_same(&in[i], &out);
	}
	assert_int_equal(bcn_frame_next(&f, &out), 0);
	bcn_frame_rewind(&f);
	assert_int_equal(bcn_frame_validate(&f), 0);
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
}

static void roundtrip(int level) { roundtrip_codec(level, 0, 0); }
static void test_roundtrip_zlib(void **state) { roundtrip(1); }
static void test_roundtrip_zstd(void **state)
{
	roundtrip_codec(-1, 1, 0);
	roundtrip_codec(3, 1, 0);
	/* the collectors' fast settings, and the smallest table */
	roundtrip_codec(-2, 1, 10);
	roundtrip_codec(-7, 1, 6);
}

/* The hash table size is zstd's to bound, and only for a zstd builder. */
static void test_zstd_hashlog_bounds(void **state)
{
	struct bcn_frame_builder b;

	assert_int_equal(bcn_frame_builder_init(&b, &lim, 1), 0);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 10), -EINVAL);
	assert_int_equal(bcn_frame_builder_zstd(&b, -2), 0);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 5), -EINVAL);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 31), -EINVAL);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 10), 0);
	assert_int_equal(bcn_frame_builder_zstd_hashlog(&b, 0), 0);
	bcn_frame_builder_free(&b);
}
static void test_roundtrip_stored(void **state) { roundtrip(0); }

/* Each record type alone, with the builder reused across frames. */
static void test_roundtrip_each_type(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	struct bcn_frame f;
	struct bcn_record in, out;
	size_t used, off = 0;

	bcn_buf_init(&wire, 1 << 20);
	bcn_frame_builder_init(&b, &lim, 6);
	for (int t = 1; t < BCN_REC_TYPE_MAX; t++) {
		fill_random(&in, (enum bcn_rec_type)t);
		in.node = "n";
		assert_int_equal(bcn_frame_builder_add(&b, &in), 0);
		assert_int_equal(bcn_frame_builder_finish(&b, "n", (uint64_t)t, &wire), 0);
	}
	bcn_frame_init(&f);
	for (int t = 1; t < BCN_REC_TYPE_MAX; t++) {
		assert_int_equal(bcn_frame_open(&f, wire.data + off, wire.len - off, &lim, &used), 0);
		off += used;
		assert_int_equal(f.hdr.seq, (uint64_t)t);
		assert_int_equal(bcn_frame_next(&f, &out), 1);
		assert_int_equal(out.type, (uint64_t)t);
		assert_int_equal(bcn_frame_next(&f, &out), 0);
	}
	assert_int_equal(off, wire.len);
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
}

static void test_ack(void **state)
{
	struct bcn_buf wire;
	struct bcn_frame f;
	size_t used;

	bcn_buf_init(&wire, 1024);
	assert_int_equal(bcn_frame_ack_encode(123456789012ull, BCN_ACK_DUPLICATE, "logsrv1", &wire), 0);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, wire.data, wire.len, &lim, &used), 0);
	assert_int_equal(f.hdr.kind, BCN_FRAME_ACK);
	assert_int_equal(f.hdr.seq, 123456789012ull);
	assert_int_equal(f.ack_status, BCN_ACK_DUPLICATE);
	assert_int_equal(bcn_frame_ack_encode(1, BCN_ACK_STATUS_MAX, "x", &wire), -EINVAL);
	bcn_frame_free(&f);
	bcn_buf_free(&wire);
}

static void test_handshake_frames(void **state)
{
	uint8_t nonce[BCN_AUTH_LEN];
	struct bcn_buf wire;
	struct bcn_frame f;
	size_t used, off = 0;

	for (int i = 0; i < BCN_AUTH_LEN; i++)
		nonce[i] = (uint8_t)(i * 7 + 1);
	bcn_buf_init(&wire, 4096);
	for (int k = BCN_FRAME_HELLO; k < BCN_FRAME_KIND_MAX; k++)
		assert_int_equal(bcn_frame_ctl_encode((enum bcn_frame_kind)k,
				 k == BCN_FRAME_HELLO ? "cn7" : "", nonce, &wire), 0);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_HELLO, "", nonce, &wire), -EINVAL);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_DATA, "x", nonce, &wire), -EINVAL);
	bcn_frame_init(&f);
	for (int k = BCN_FRAME_HELLO; k < BCN_FRAME_KIND_MAX; k++) {
		assert_int_equal(bcn_frame_open(&f, wire.data + off, wire.len - off, &lim, &used), 0);
		assert_int_equal(f.hdr.kind, k);
		assert_memory_equal(f.auth, nonce, BCN_AUTH_LEN);
		off += used;
	}
	/* a handshake frame with a short payload is corrupt */
	uint8_t bad[96];
	memcpy(bad, wire.data, BCN_FRAME_HDR_LEN + 3 + 31);
	bad[8] = 3 + 31;
	bad[24] = 31;
	reseal(bad, BCN_FRAME_HDR_LEN + 3 + 31);
	assert_int_equal(bcn_frame_open(&f, bad, BCN_FRAME_HDR_LEN + 3 + 31, &lim, &used), -BCN_ECORRUPT);
	bcn_frame_free(&f);
	bcn_buf_free(&wire);
}

/* A small valid frame for the malformed-input tests. */
static void sample_frame(struct bcn_buf *wire, int level)
{
	struct bcn_frame_builder b;
	struct bcn_record r;

	bcn_buf_init(wire, 1 << 20);
	bcn_frame_builder_init(&b, &lim, level);
	for (int i = 0; i < 20; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1700000000000000000ll + i * 1000;
		r.job = 42;
		r.u.io.op = BCN_IO_WRITE;
		r.u.io.size = 4096;
		r.u.io.offset = (uint64_t)i * 4096;
		r.u.io.path = "/scratch/f";
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	}
	assert_int_equal(bcn_frame_builder_finish(&b, "cn1", 9, wire), 0);
	bcn_frame_builder_free(&b);
}

static int open_bytes(const uint8_t *p, size_t len, const struct bcn_frame_limits *l)
{
	struct bcn_frame f;
	size_t used;
	int rc;

	bcn_frame_init(&f);
	rc = bcn_frame_open(&f, p, len, l, &used);
	if (rc == 0 && f.hdr.kind == BCN_FRAME_DATA)
		rc = bcn_frame_validate(&f);
	bcn_frame_free(&f);
	return rc;
}

static void test_truncated(void **state)
{
	struct bcn_buf w;

	sample_frame(&w, 1);
	for (size_t n = 0; n < w.len; n++)
		assert_int_equal(open_bytes(w.data, n, &lim), -BCN_ETRUNC);
	assert_int_equal(open_bytes(w.data, w.len, &lim), 0);
	bcn_buf_free(&w);
}

static void test_oversized(void **state)
{
	struct bcn_frame_limits small = lim;
	struct bcn_buf w;

	sample_frame(&w, 1);
	small.max_body = 16;
	assert_int_equal(open_bytes(w.data, w.len, &small), -BCN_ETOOBIG);
	small = lim;
	small.max_raw = 64;
	assert_int_equal(open_bytes(w.data, w.len, &small), -BCN_ETOOBIG);
	small = lim;
	small.max_records = 19;
	assert_int_equal(open_bytes(w.data, w.len, &small), -BCN_ETOOBIG);
	/* a header claiming 4 GiB is refused before any body arrives */
	w.data[8] = w.data[9] = w.data[10] = w.data[11] = 0xff;
	assert_int_equal(open_bytes(w.data, 32, &lim), -BCN_ETOOBIG);
	bcn_buf_free(&w);
}

static void test_checksum(void **state)
{
	struct bcn_buf w;

	sample_frame(&w, 1);
	for (size_t i = 0; i < w.len; i++) {
		if (i < 28 && i != 16 && i != 17)
			continue;       /* header fields have their own errors */
		w.data[i] ^= 0x40;
		assert_int_equal(open_bytes(w.data, w.len, &lim), -BCN_ECHECKSUM);
		w.data[i] ^= 0x40;
	}
	bcn_buf_free(&w);
}

static void test_version_magic_kind(void **state)
{
	struct bcn_buf w;

	sample_frame(&w, 1);
	w.data[4] = BCN_PROTO_VERSION + 1;
	assert_int_equal(open_bytes(w.data, w.len, &lim), -BCN_EVERSION);
	w.data[4] = 0;
	assert_int_equal(open_bytes(w.data, w.len, &lim), -BCN_EVERSION);
	w.data[4] = BCN_PROTO_VERSION;
	w.data[5] = BCN_FRAME_KIND_MAX;
	assert_int_equal(open_bytes(w.data, w.len, &lim), -BCN_EKIND);
	w.data[5] = BCN_FRAME_DATA;
	w.data[6] |= 0x80;
	assert_int_equal(open_bytes(w.data, w.len, &lim), -BCN_EKIND);
	w.data[6] &= 0x7f;
	w.data[0] = 'X';
	assert_int_equal(open_bytes(w.data, w.len, &lim), -BCN_EMAGIC);
	assert_int_equal(open_bytes(w.data, 2, &lim), -BCN_EMAGIC);
	bcn_buf_free(&w);
}

static void test_garbage(void **state)
{
	uint8_t g[4096];

	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(g); i++)
			g[i] = (uint8_t)rnd();
		assert_int_equal(open_bytes(g, sizeof(g), &lim), -BCN_EMAGIC);
		memcpy(g, "BCNF\x01\x01\x00\x03", 8);   /* plausible header */
		int rc = open_bytes(g, sizeof(g), &lim);
		assert_true(rc == -BCN_ETOOBIG || rc == -BCN_ECHECKSUM ||
			    rc == -BCN_ETRUNC || rc == -BCN_ECORRUPT);
	}
	memset(g, 0, sizeof(g));
	assert_int_equal(open_bytes(g, sizeof(g), &lim), -BCN_EMAGIC);
}

/* Builds a frame around a raw payload written by hand. */
static size_t hand_frame(uint8_t *out, const uint8_t *payload, size_t plen,
			 uint32_t count, uint32_t raw_len)
{
	memset(out, 0, 32);
	memcpy(out, "BCNF\x01\x01\x00\x01", 8);
	uint32_t body = (uint32_t)plen + 1;
	for (int i = 0; i < 4; i++) {
		out[8 + i] = (uint8_t)(body >> (8 * i));
		out[12 + i] = (uint8_t)(count >> (8 * i));
		out[24 + i] = (uint8_t)(raw_len >> (8 * i));
	}
	out[32] = 'n';
	memcpy(out + 33, payload, plen);
	reseal(out, 33 + plen);
	return 33 + plen;
}

static void test_corrupt_payload(void **state)
{
	/* io record: type 1, dt, dur, job, step, rank, pid, op, fd, file,
	 * path, offset, size, count, stride, busy */
	const uint8_t good[] = { 0, 1, 2, 0, 5, 0, 1, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0 };
	uint8_t p[64], f[128];
	struct {
		const char *what;
		size_t at;
		uint8_t val;
		uint32_t count;
		int rc;
	} cases[] = {
		{ "good", 0, 0, 1, 0 },
		{ "unknown record type", 1, 99, 1, -BCN_ECORRUPT },
		{ "record type 0", 1, 0, 1, -BCN_ECORRUPT },
		{ "op out of range", 8, 60, 1, -BCN_ECORRUPT },
		{ "string index past table", 11, 3, 1, -BCN_ECORRUPT },
		{ "io count zero", 14, 0, 1, -BCN_ECORRUPT },
		{ "count says two", 0, 0, 2, -BCN_ECORRUPT },
		{ "count says zero", 0, 0, 0, -BCN_ECORRUPT },
		{ "unterminated varint", 16, 0x80, 1, -BCN_ECORRUPT },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(p, good, sizeof(good));
		if (cases[i].at)
			p[cases[i].at] = cases[i].val;
		size_t n = hand_frame(f, p, sizeof(good), cases[i].count, sizeof(good));
		print_message("case %s\n", cases[i].what);
		assert_int_equal(open_bytes(f, n, &lim), cases[i].rc);
	}
	/* declared raw length larger and smaller than the payload */
	size_t n = hand_frame(f, good, sizeof(good), 1, sizeof(good) + 1);
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	/* a vector with a bit set beyond its length */
	const uint8_t port[] = { 0, 6, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80, 0x80, 0x01 };
	n = hand_frame(f, port, sizeof(port), 1, sizeof(port));
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	/* a string with a NUL inside */
	const uint8_t str[] = { 1, 3, 'a', 0, 'b' };
	n = hand_frame(f, str, sizeof(str), 0, sizeof(str));
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
}

/* Opens the hand-made delta form payload p (n bytes, count records). */
static int open_delta(const uint8_t *p, size_t n, uint32_t count)
{
	uint8_t f[128];
	size_t fl = hand_frame(f, p, n, count, (uint32_t)n);

	f[6] = BCN_FRAME_F_IODELTA;
	reseal(f, fl);
	return open_bytes(f, fl, &lim);
}

/* io records in the delta row form (BCN_FRAME_F_IODELTA) written by
 * hand: a field is the previous io record's unless its mask bit is set;
 * offset and stride are in units of the size when SCALED. Refused: a
 * set bit whose value equals the previous one (or a path reference of
 * 0), a bit beyond the mask's, a count left at the zero before the first
 * io record, SCALED where the size does not divide both or is 0, and no
 * SCALED where it does (one encoding per record list). */
static void test_iodelta_hand(void **state)
{
	/* strings 0; io: type, dt, dur, mask job|pid|fd|count, job 5, pid
	 * 7, fd zigzag(3), count 1, offset 0, busy 0; io: type, dt, dur,
	 * mask 0, offset 9, busy 0 */
	const uint8_t good[] = { 0, 1, 2, 0, 0xd0, 0x06, 5, 7, 6, 1, 0, 0,
				 1, 0, 0, 0, 9, 0 };
	const uint8_t same[] = { 0, 1, 2, 0, 0xd0, 0x06, 5, 7, 6, 1, 0, 0,
				 1, 0, 0, 0x80, 0x02, 7, 9, 0 };
	const uint8_t wide[] = { 0, 1, 2, 0, 0xd0, 0x26, 5, 7, 6, 1, 0, 0 };
	const uint8_t nocount[] = { 0, 1, 2, 0, 0xc0, 0x06, 5, 7, 6, 0, 0 };
	const uint8_t badop[] = { 0, 1, 2, 0, 0xf0, 0x06, 5, 7, 60, 6, 1, 0, 0 };
	const uint8_t path0[] = { 0, 1, 2, 0, 0x90, 0x07, 5, 7, 0, 1, 0, 0 };
	const uint8_t path1[] = { 0, 1, 2, 0, 0x90, 0x07, 5, 7, 1, 1, 0, 0 };
	/* scaled|stride|size|count|job|pid|fd: size 4096, count 2, offset
	 * 2 (8192), stride zigzag(3) (12288); then scaled, the stride
	 * repeated, offset 5 (20480) */
	const uint8_t scaled[] = { 0, 1, 2, 0, 0xdb, 0x06, 5, 7, 6, 0x80, 0x20,
				   2, 2, 6, 0, 1, 0, 0, 1, 5, 0 };
	/* the same first record unscaled: 8192, zigzag(12288) */
	const uint8_t unscaled[] = { 0, 1, 2, 0, 0xda, 0x06, 5, 7, 6, 0x80,
				     0x20, 2, 0x80, 0x40, 0x80, 0xc0, 0x01, 0 };
	/* scaled with size 0 */
	const uint8_t size0[] = { 0, 1, 2, 0, 0x91, 0x06, 5, 7, 1, 3, 0 };
	/* the scaled record, then the size 3000 with the stride 12288 kept */
	const uint8_t notdiv[] = { 0, 1, 2, 0, 0xdb, 0x06, 5, 7, 6, 0x80, 0x20,
				   2, 2, 6, 0, 1, 0, 0, 9, 0xb8, 0x17, 1, 0 };
	/* an offset that overflows once multiplied by the size */
	const uint8_t ovf[] = { 0, 1, 2, 0, 0xdb, 0x06, 5, 7, 6, 0x80, 0x20,
				2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0xff, 0x7f, 6, 0 };
	struct {
		const char *what;
		const uint8_t *p;
		size_t n;
		uint32_t count;
		int rc;
	} cases[] = {
		{ "good", good, sizeof(good), 2, 0 },
		{ "a set bit with the previous value", same, sizeof(same), 2, -BCN_ECORRUPT },
		{ "a bit beyond the mask", wide, sizeof(wide), 1, -BCN_ECORRUPT },
		{ "count zero from the start", nocount, sizeof(nocount), 1, -BCN_ECORRUPT },
		{ "op out of range", badop, sizeof(badop), 1, -BCN_ECORRUPT },
		{ "path bit with reference 0", path0, sizeof(path0), 1, -BCN_ECORRUPT },
		{ "path reference past the table", path1, sizeof(path1), 1, -BCN_ECORRUPT },
		{ "scaled", scaled, sizeof(scaled), 2, 0 },
		{ "divisible but not scaled", unscaled, sizeof(unscaled), 1, -BCN_ECORRUPT },
		{ "scaled by size 0", size0, sizeof(size0), 1, -BCN_ECORRUPT },
		{ "scaled, stride not divisible", notdiv, sizeof(notdiv), 2, -BCN_ECORRUPT },
		{ "scaled offset overflows", ovf, sizeof(ovf), 1, -BCN_ECORRUPT },
		{ "truncated", good, sizeof(good) - 1, 2, -BCN_ECORRUPT },
	};
	uint8_t f[128];
	struct bcn_frame fr;
	struct bcn_record r;
	size_t n, used;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case %s\n", cases[i].what);
		assert_int_equal(open_delta(cases[i].p, cases[i].n,
					    cases[i].count), cases[i].rc);
	}
	/* the good one: the second record takes the first's job, pid, fd,
	 * count */
	n = hand_frame(f, good, sizeof(good), 2, sizeof(good));
	f[6] = BCN_FRAME_F_IODELTA;
	reseal(f, n);
	bcn_frame_init(&fr);
	assert_int_equal(bcn_frame_open(&fr, f, n, &lim, &used), 0);
	for (int pass = 0; pass < 2; pass++) {  /* again after a rewind */
		assert_int_equal(bcn_frame_next(&fr, &r), 1);
		assert_int_equal(r.job, 5);
		assert_int_equal(r.u.io.pid, 7);
		assert_int_equal(r.u.io.offset, 0);
		assert_int_equal(bcn_frame_next(&fr, &r), 1);
		assert_int_equal(r.job, 5);
		assert_int_equal(r.u.io.pid, 7);
		assert_int_equal(r.u.io.fd, 3);
		assert_int_equal(r.u.io.count, 1);
		assert_int_equal(r.u.io.offset, 9);
		assert_int_equal(r.u.io.rank, 0);
		assert_int_equal(bcn_frame_next(&fr, &r), 0);
		bcn_frame_rewind(&fr);
	}
	/* the scaled one: offsets and strides times the size */
	n = hand_frame(f, scaled, sizeof(scaled), 2, sizeof(scaled));
	f[6] = BCN_FRAME_F_IODELTA;
	reseal(f, n);
	assert_int_equal(bcn_frame_open(&fr, f, n, &lim, &used), 0);
	assert_int_equal(bcn_frame_next(&fr, &r), 1);
	assert_int_equal(r.u.io.size, 4096);
	assert_int_equal(r.u.io.offset, 8192);
	assert_int_equal(r.u.io.stride, 12288);
	assert_int_equal(bcn_frame_next(&fr, &r), 1);
	assert_int_equal(r.u.io.offset, 20480);
	assert_int_equal(r.u.io.stride, 12288);
	assert_int_equal(r.u.io.count, 2);
	/* the same bytes as plain rows are another record list: refused */
	n = hand_frame(f, good, sizeof(good), 2, sizeof(good));
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	bcn_frame_free(&fr);
}

/* Builds a frame of the records in[0..n) with the delta form on (cols:
 * with a column encoder too) and checks that it decodes to them, twice
 * (rewound). Returns the frame's raw payload length. */
static uint32_t iodelta_frame(const struct bcn_record *in, int n, bool delta,
			      bool cols)
{
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	struct bcn_frame f;
	struct bcn_record out;
	size_t used;
	uint32_t raw;

	bcn_buf_init(&wire, 64 << 20);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 0), 0);
	assert_int_equal(bcn_frame_builder_zstd(&b, -2), 0);
	if (cols)
		assert_int_equal(bcn_frame_builder_columnar(&b), 0);
	bcn_frame_builder_iodelta(&b, delta);
	for (int i = 0; i < n; i++)
		assert_int_equal(bcn_frame_builder_add(&b, &in[i]), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn7", 1, &wire), 0);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, wire.data, wire.len, &lim, &used), 0);
	assert_int_equal(!!(f.hdr.flags & BCN_FRAME_F_IODELTA), delta);
	assert_false(delta && (f.hdr.flags & BCN_FRAME_F_COLUMNAR));
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			assert_int_equal(bcn_frame_next(&f, &out), 1);
			assert_same(&in[i], &out);
		}
		assert_int_equal(bcn_frame_next(&f, &out), 0);
		bcn_frame_rewind(&f);
	}
	assert_int_equal(bcn_frame_validate(&f), 0);
	raw = f.hdr.raw_len;
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	return raw;
}

/* Round trips of the delta form: io records that change a random few of
 * their fields from one to the next, every other record type among
 * them, opens with paths; the builder turned to it takes effect at its
 * next frame. Repeated fields take fewer bytes than in plain rows. */
static void test_iodelta_roundtrip(void **state)
{
	static struct bcn_record in[NREC];
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	struct bcn_frame f;
	size_t used;

	(void)state;
	for (int i = 0; i < NREC; i++) {
		if (i % 7 == 6) {
			fill_random(&in[i], (enum bcn_rec_type)(2 + i % (BCN_REC_TYPE_MAX - 2)));
		} else if (i == 0 || rnd() % 16 == 0) {
			fill_random(&in[i], BCN_REC_IO);
		} else {
			int j = i - 1;

			while (in[j].type != BCN_REC_IO)
				j--;
			in[i] = in[j];
			in[i].t = in[j].t + (int64_t)(rnd() % 100000);
			in[i].u.io.offset = rnd();
			in[i].u.io.busy = rnd() % 5000;
			in[i].u.io.path = rnd() % 4 ? "" : pool[rnd() % 9];
			switch (rnd() % 6) {
			case 0: in[i].u.io.file = rnd(); break;
			case 1: in[i].u.io.size = rnd() % 65536; break;
			case 2: in[i].u.io.stride = (int64_t)(rnd() % 9) - 4; break;
			case 3: in[i].u.io.count = 1 + rnd() % 3; break;
			case 4: in[i].u.io.pid = rnd() % 100; in[i].u.io.fd = 3; break;
			default: break;
			}
			/* half of them aligned: written SCALED */
			if (rnd() % 2 && in[i].u.io.size) {
				if (in[i].u.io.size > 1u << 20)
					in[i].u.io.size = 4096;
				in[i].u.io.offset = rnd() % 100000 *
						    in[i].u.io.size;
				if (rnd() % 2)
					in[i].u.io.stride =
						((int64_t)(rnd() % 9) - 4) *
						(int64_t)in[i].u.io.size;
			}
		}
		in[i].node = "cn7";
	}
	uint32_t plain = iodelta_frame(in, NREC, false, false);
	uint32_t delta = iodelta_frame(in, NREC, true, false);
	assert_true(delta < plain);
	/* with columns allowed the delta form still wins: no columns */
	assert_int_equal(iodelta_frame(in, NREC, true, true), delta);
	/* a plain frame measuring the delta form knows its length exactly;
	 * one without io records, or not measuring, says 0 */
	for (int k = 0; k < 3; k++) {
		size_t pl, dl;

		bcn_buf_init(&wire, 64 << 20);
		assert_int_equal(bcn_frame_builder_init(&b, &lim, 0), 0);
		assert_int_equal(bcn_frame_builder_zstd(&b, -2), 0);
		bcn_frame_builder_measure_delta(&b, k < 2);
		for (int i = 0; i < NREC; i++)
			if (k != 1 || in[i].type != BCN_REC_IO)
				assert_int_equal(bcn_frame_builder_add(&b, &in[i]), 0);
		assert_int_equal(bcn_frame_builder_finish(&b, "cn7", 1, &wire), 0);
		bcn_frame_builder_last_sizes(&b, &pl, &dl);
		assert_int_equal(pl, wire.len - BCN_FRAME_HDR_LEN - 3);
		assert_int_equal(dl, k == 0 ? delta : 0);
		bcn_frame_builder_free(&b);
		bcn_buf_free(&wire);
	}
	/* the first record of a frame fixes the frame's form */
	bcn_buf_init(&wire, 1 << 20);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 0), 0);
	assert_int_equal(bcn_frame_builder_add(&b, &in[0]), 0);
	bcn_frame_builder_iodelta(&b, true);
	assert_int_equal(bcn_frame_builder_add(&b, &in[1]), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn7", 1, &wire), 0);
	assert_int_equal(bcn_frame_builder_add(&b, &in[1]), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn7", 2, &wire), 0);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, wire.data, wire.len, &lim, &used), 0);
	assert_int_equal(f.hdr.flags & BCN_FRAME_F_IODELTA, 0);
	assert_int_equal(bcn_frame_open(&f, wire.data + used, wire.len - used,
					&lim, &used), 0);
	assert_int_equal(f.hdr.flags & BCN_FRAME_F_IODELTA, BCN_FRAME_F_IODELTA);
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
}

static void test_zlib_bomb(void **state)
{
	/* 1 MiB of zeros compresses to ~1 KiB; declaring a small raw length
	 * must fail without inflating past it */
	static uint8_t zeros[1 << 20];
	uint8_t z[8192], f[8300];
	uLongf zl = sizeof(z);

	assert_int_equal(compress2(z, &zl, zeros, sizeof(zeros), 9), Z_OK);
	size_t n = hand_frame(f, z, zl, 0, 4096);
	f[6] = BCN_FRAME_F_ZLIB;
	reseal(f, n);
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	/* corrupt deflate data */
	memset(z + 2, 0xA5, zl - 2);
	n = hand_frame(f, z, zl, 0, 100);
	f[6] = BCN_FRAME_F_ZLIB;
	reseal(f, n);
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
}

/* zstd payloads: exactly one zstd frame whose declared content size is
 * the raw length; anything else is refused before or while decoding. */
static void test_zstd_hostile(void **state)
{
	static uint8_t zeros[1 << 20];
	static uint8_t z[1 << 16], f[(1 << 16) + 64];
	struct bcn_buf wire;
	size_t zl, n;

	/* a bomb: 1 MiB of zeros declared as 4 KiB */
	zl = ZSTD_compress(z, sizeof(z), zeros, sizeof(zeros), 19);
	assert_false(ZSTD_isError(zl));
	n = hand_frame(f, z, zl, 0, 4096);
	f[6] = BCN_FRAME_F_ZSTD;
	reseal(f, n);
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	/* a valid frame of the right size, then trailing bytes */
	zl = ZSTD_compress(z, sizeof(z), zeros, 100, 1);
	assert_false(ZSTD_isError(zl));
	z[zl] = 0x55;
	n = hand_frame(f, z, zl + 1, 0, 100);
	f[6] = BCN_FRAME_F_ZSTD;
	reseal(f, n);
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	/* damaged compressed data */
	memset(z + 6, 0xA5, zl - 6);
	n = hand_frame(f, z, zl, 0, 100);
	f[6] = BCN_FRAME_F_ZSTD;
	reseal(f, n);
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
	/* zlib and zstd at once */
	sample_frame(&wire, 1);
	wire.data[6] = BCN_FRAME_F_ZLIB | BCN_FRAME_F_ZSTD;
	reseal(wire.data, wire.len);
	assert_int_equal(open_bytes(wire.data, wire.len, &lim), -BCN_EKIND);
	/* a zlib payload flagged as zstd */
	wire.data[6] = BCN_FRAME_F_ZSTD;
	reseal(wire.data, wire.len);
	assert_int_equal(open_bytes(wire.data, wire.len, &lim), -BCN_ECORRUPT);
	bcn_buf_free(&wire);
}

/* A string nobody references makes the payload malformed: a frame could
 * otherwise carry megabytes of table that only cost the server memory. */
static void test_unreferenced_string(void **state)
{
	/* one string "abc", then the io record of test_corrupt_payload with
	 * its path (byte 11 of that record, here 5 + 10) naming entry 1 or 0 */
	uint8_t p[] = { 1, 3, 'a', 'b', 'c', 1, 2, 0, 5, 0, 1, 0, 2, 0, 0, 1,
			0, 0, 1, 0, 0 };
	uint8_t f[128];
	size_t n = hand_frame(f, p, sizeof(p), 1, sizeof(p));

	assert_int_equal(open_bytes(f, n, &lim), 0);
	p[15] = 0;
	n = hand_frame(f, p, sizeof(p), 1, sizeof(p));
	assert_int_equal(open_bytes(f, n, &lim), -BCN_ECORRUPT);
}

/* The reviewer's bomb: one record and megabytes of strings nobody uses,
 * compressed a thousandfold. With a ratio bound it is refused before its
 * output is allocated; without one the string table check refuses it. */
static void test_string_table_bomb(void **state)
{
	enum { NSTR = 1000, SLEN = 4000 };
	struct bcn_frame_limits l = lim;
	struct bcn_buf raw, wire;
	struct bcn_frame fr;
	uint8_t hdr[BCN_VARINT_MAX];
	const uint8_t rec[] = { 1, 2, 0, 5, 0, 1, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0 };
	static uint8_t str[SLEN];
	uLongf zl;
	size_t used;

	memset(str, 'x', sizeof(str));
	bcn_buf_init(&raw, 8u << 20);
	bcn_buf_init(&wire, 8u << 20);
	assert_int_equal(bcn_buf_add(&raw, hdr, bcn_varint_put(hdr, NSTR)), 0);
	for (int i = 0; i < NSTR; i++) {
		assert_int_equal(bcn_buf_add(&raw, hdr, bcn_varint_put(hdr, SLEN)), 0);
		assert_int_equal(bcn_buf_add(&raw, str, SLEN), 0);
	}
	assert_int_equal(bcn_buf_add(&raw, rec, sizeof(rec)), 0);
	uint8_t *z = malloc(raw.len), *f;

	assert_non_null(z);
	zl = (uLongf)raw.len;
	assert_int_equal(compress2(z, &zl, raw.data, raw.len, 9), Z_OK);
	assert_true(raw.len > 500 * zl);    /* the bomb really is one */
	assert_int_equal(bcn_buf_reserve(&wire, 64 + zl), 0);
	f = wire.data;
	size_t n = hand_frame(f, z, zl, 1, (uint32_t)raw.len);
	f[6] = BCN_FRAME_F_ZLIB;
	reseal(f, n);
	free(z);

	l.max_ratio = 100;
	bcn_frame_init(&fr);
	assert_int_equal(bcn_frame_open(&fr, f, n, &l, &used), -BCN_ECORRUPT);
	assert_true(fr.raw_cap < BCN_FRAME_RATIO_FLOOR);        /* nothing inflated */
	l.max_ratio = 0;
	assert_int_equal(bcn_frame_open(&fr, f, n, &l, &used), 0);
	assert_int_equal(bcn_frame_validate(&fr), -BCN_ECORRUPT);
	/* a small payload may expand as much as it likes */
	l.max_ratio = 2;
	struct bcn_buf small;

	sample_frame(&small, 9);
	assert_int_equal(open_bytes(small.data, small.len, &l), 0);
	bcn_buf_free(&small);
	bcn_frame_free(&fr);
	bcn_buf_free(&raw);
	bcn_buf_free(&wire);
}

/* A record that fails half-way (the table fills at its second string)
 * leaves no string behind, so the frame stays valid. */
static void test_builder_rollback(void **state)
{
	struct bcn_frame_limits l = lim;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf w;

	l.max_strings = 2;
	bcn_buf_init(&w, 1 << 20);
	assert_int_equal(bcn_frame_builder_init(&b, &l, 1), 0);
	bcn_record_init(&r, BCN_REC_OST);
	r.t = 1700000000000000000ll;
	r.u.ost.target = "A";
	assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	r.u.ost.target = "B";
	r.u.ost.client = "C";
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_EFULL);
	r.u.ost.target = "A";
	r.u.ost.client = "D";
	assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn1", 1, &w), 0);
	assert_int_equal(open_bytes(w.data, w.len, &l), 0);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
}

/* Builds a one-record frame at time t (duration dur) and checks it under a
 * window of 7 days back and 1 hour ahead. */
static int window_check(int64_t t, int64_t dur)
{
	struct bcn_frame_limits l = lim;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf w;
	int rc;

	l.max_age_ns = 7 * 86400 * 1000000000ll;
	l.max_ahead_ns = 3600 * 1000000000ll;
	bcn_buf_init(&w, 1 << 20);
	assert_int_equal(bcn_frame_builder_init(&b, &l, 1), 0);
	bcn_record_init(&r, BCN_REC_IO);
	r.t = t;
	r.dur = dur;
	r.u.io.count = 1;
	rc = bcn_frame_builder_add(&b, &r);
	if (!rc)
		rc = bcn_frame_builder_finish(&b, "cn1", 1, &w);
	if (!rc)
		rc = open_bytes(w.data, w.len, &l);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
	return rc;
}

static void test_time_window(void **state)
{
	const int64_t s = 1000000000ll, now = bcn_real_ns();

	assert_int_equal(window_check(now, s), 0);
	assert_int_equal(window_check(now - 6 * 86400 * s, s), 0);
	assert_int_equal(window_check(now + 30 * 60 * s, s), 0);
	/* began 8 days ago but ended within the window: kept */
	assert_int_equal(window_check(now - 8 * 86400 * s, 2 * 86400 * s), 0);
	assert_int_equal(window_check(now - 8 * 86400 * s, s), -BCN_ERANGE);
	assert_int_equal(window_check(now + 2 * 3600 * s, s), -BCN_ERANGE);
	assert_int_equal(window_check(INT64_MAX, 0), -BCN_ERANGE);
	assert_int_equal(window_check(INT64_MAX - s, INT64_MAX), -BCN_ERANGE);
	assert_int_equal(window_check(INT64_MIN, 0), -BCN_ERANGE);
	assert_int_equal(window_check(1704844800 * s, s), -BCN_ERANGE);
}

/* A builder with room refuses a bad record as it encodes it (the check is
 * folded into the encoding) and keeps nothing of it: neither the record
 * nor a string it had interned (a stray string makes a frame malformed). */
static void test_builder_refuses_in_place(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_record good, r, out;
	struct bcn_frame f;
	struct bcn_buf w;
	char big[BCN_STR_MAX + 2];
	size_t used, size;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 1), 0);
	bcn_record_init(&good, BCN_REC_IO);
	good.t = 1000;
	good.u.io.path = "/scratch/a";
	good.u.io.size = 4096;
	assert_int_equal(bcn_frame_builder_add(&b, &good), 0);
	size = bcn_frame_builder_size(&b);
	r = good;
	r.u.io.op = BCN_IO_OP_MAX;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	r = good;
	r.u.io.path = big;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	r.u.io.path = NULL;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	r = good;
	r.u.io.count = 0;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	r = good;
	r.dur = -1;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	/* a string first, then a bad enum: the string goes again */
	bcn_record_init(&r, BCN_REC_TOPOLOGY);
	r.u.topo.remote_kind = 200;
	r.node = "cn7";
	for (size_t i = 0; i < bcn_record_desc(BCN_REC_TOPOLOGY)->nfields; i++) {
		const struct bcn_field *fd =
			&bcn_record_desc(BCN_REC_TOPOLOGY)->fields[i];

		if (fd->kind == BCN_F_STR)
			*(const char **)((char *)&r + fd->offset) = "new-one";
	}
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	assert_int_equal(bcn_frame_builder_count(&b), 1);
	assert_int_equal(bcn_frame_builder_size(&b), size);
	bcn_buf_init(&w, 1 << 16);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn7", 1, &w), 0);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, w.data, w.len, &lim, &used), 0);
	assert_int_equal(bcn_frame_validate(&f), 0);
	bcn_frame_rewind(&f);
	assert_int_equal(bcn_frame_next(&f, &out), 1);
	good.node = out.node;
	assert_same(&good, &out);
	assert_int_equal(bcn_frame_next(&f, &out), 0);
	bcn_frame_free(&f);
	bcn_buf_free(&w);
	bcn_frame_builder_free(&b);
}

static void test_builder_limits(void **state)
{
	struct bcn_frame_limits l = lim;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_buf w;
	char big[BCN_STR_MAX + 2];

	l.max_records = 3;
	bcn_frame_builder_init(&b, &l, 1);
	bcn_record_init(&r, BCN_REC_MDS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_EFULL);
	r.type = 0;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	bcn_record_init(&r, BCN_REC_IO);
	r.u.io.count = 0;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	r.u.io.count = 1;
	r.u.io.op = BCN_IO_OP_MAX;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	bcn_record_init(&r, BCN_REC_MDS);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	r.u.mds.target = big;
	assert_int_equal(bcn_frame_builder_add(&b, &r), -BCN_ERANGE);
	bcn_buf_init(&w, 1 << 16);
	assert_int_equal(bcn_frame_builder_finish(&b, "", 1, &w), -EINVAL);
	assert_int_equal(bcn_frame_builder_finish(&b, "ok", 1, &w), 0);
	bcn_buf_free(&w);
	bcn_frame_builder_free(&b);
}

static void test_string_table_dedup(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_frame f;
	struct bcn_buf w;
	size_t used;
	char name[32];

	bcn_buf_init(&w, 1 << 24);
	bcn_frame_builder_init(&b, &lim, 0);
	for (int i = 0; i < 5000; i++) {
		bcn_record_init(&r, BCN_REC_OST);
		snprintf(name, sizeof(name), "fs-OST%04x", i % 700);
		r.u.ost.target = name;
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	}
	assert_int_equal(b.nstr, 700);
	assert_int_equal(bcn_frame_builder_finish(&b, "oss1", 1, &w), 0);
	bcn_frame_init(&f);
	assert_int_equal(bcn_frame_open(&f, w.data, w.len, &lim, &used), 0);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fs-OST%04x", i % 700);
		assert_int_equal(bcn_frame_next(&f, &r), 1);
		assert_string_equal(r.u.ost.target, name);
	}
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
}

static void test_varint_edges(void **state)
{
	const uint64_t v[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX,
			       UINT64_MAX - 1, UINT64_MAX };
	uint8_t buf[BCN_VARINT_MAX];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = bcn_varint_put(buf, v[i]);
		const uint8_t *p = buf;
		uint64_t out;

		assert_int_equal(bcn_varint_get(&p, buf + n, &out), 0);
		assert_true(out == v[i]);
		assert_ptr_equal(p, buf + n);
		p = buf;
		if (n > 1)
			assert_int_equal(bcn_varint_get(&p, buf + n - 1, &out), -1);
		assert_true(bcn_unzigzag(bcn_zigzag((int64_t)v[i])) == (int64_t)v[i]);
	}
	/* 11-byte and overflowing 10-byte varints are refused */
	uint8_t over[11];
	memset(over, 0xff, sizeof(over));
	over[10] = 0x01;
	const uint8_t *p = over;
	uint64_t out;
	assert_int_equal(bcn_varint_get(&p, over + 11, &out), -1);
	over[9] = 0x02;
	p = over;
	assert_int_equal(bcn_varint_get(&p, over + 10, &out), -1);
}

/* The rule bcn_varint_get follows, one byte at a time: 0 and the bytes
 * taken, or -1 (the input ends inside the varint, or it passes 64 bits). */
static int varint_ref(const uint8_t *p, size_t len, uint64_t *v, size_t *used)
{
	uint64_t r = 0;

	for (size_t i = 0; i < len && i < BCN_VARINT_MAX; i++) {
		if (i == BCN_VARINT_MAX - 1 && p[i] > 1)
			return -1;
		r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = r;
			*used = i + 1;
			return 0;
		}
	}
	return -1;
}

/* With room for the longest varint bcn_varint_get takes a path without
 * an end check at each byte: both paths agree with the rule on every
 * input, at every length up to and past BCN_VARINT_MAX. */
static void test_varint_paths(void **state)
{
	uint8_t buf[BCN_VARINT_MAX + 4];
	uint32_t x = 12345;

	(void)state;
	for (int round = 0; round < 200000; round++) {
		/* bytes mostly with the continuation bit, ending anywhere */
		for (size_t i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
			if ((x >> 8) % 5)
				buf[i] |= 0x80;
			else if ((x >> 12) % 3 == 0)
				buf[i] &= 0x03;
		}
		for (size_t len = 0; len <= sizeof(buf); len++) {
			const uint8_t *p = buf;
			uint64_t got = 0, want = 0;
			size_t used = 0;
			int rc = bcn_varint_get(&p, buf + len, &got);
			int ref = varint_ref(buf, len, &want, &used);

			assert_int_equal(rc, ref);
			if (rc == 0) {
				assert_true(got == want);
				assert_ptr_equal(p, buf + used);
			} else {
				assert_ptr_equal(p, buf);
			}
		}
	}
}

static void test_json_and_ops(void **state)
{
	struct bcn_record r;
	struct bcn_buf j;

	bcn_buf_init(&j, 4096);
	bcn_record_init(&r, BCN_REC_IO);
	r.node = "cn\"1";
	r.t = 5;
	r.job = 7;
	r.u.io.op = BCN_IO_READ;
	r.u.io.size = 100;
	r.u.io.count = 3;
	assert_int_equal(bcn_record_to_json(&r, &j), 0);
	bcn_buf_add(&j, "", 1);
	assert_non_null(strstr((char *)j.data, "\"type\":\"io\",\"layer\":\"client\",\"node\":\"cn\\\"1\",\"t\":5"));
	assert_non_null(strstr((char *)j.data, "\"op\":\"read\""));
	assert_non_null(strstr((char *)j.data, "\"count\":3"));
	/* strings are JSON-escaped, and invalid UTF-8 becomes U+FFFD */
	static const struct { const char *in, *out; } esc[] = {
		{ "plain", "\"plain\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "tab\there\x01", "\"tab\\u0009here\\u0001\"" },
		{ "\xe6\x97\xa5\xe6\x9c\xac", "\"\xe6\x97\xa5\xe6\x9c\xac\"" },
		{ "a\xff" "b", "\"a\\ufffdb\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                 /* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },   /* surrogate */
		{ "\xe6\x97", "\"\\ufffd\\ufffd\"" },                 /* cut short */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
	};
	for (size_t i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		bcn_buf_reset(&j);
		assert_int_equal(bcn_buf_add_json_str(&j, esc[i].in), 0);
		bcn_buf_add(&j, "", 1);
		assert_string_equal((char *)j.data, esc[i].out);
	}
	assert_int_equal(bcn_layer_parse("ost"), BCN_LAYER_OST);
	assert_int_equal(bcn_layer_parse("fwd_rpc"), BCN_LAYER_FORWARD);
	assert_int_equal(bcn_layer_parse("nope"), -BCN_ESYNTAX);
	bcn_buf_free(&j);
}

static void test_pack_unpack(void **state)
{
	struct bcn_frame_builder b;
	struct bcn_record in, out;
	struct bcn_frame f;
	struct bcn_buf w;

	bcn_buf_init(&w, 1 << 16);
	bcn_frame_builder_init(&b, &lim, 1);
	bcn_frame_init(&f);
	for (int t = 1; t < 2 * BCN_REC_TYPE_MAX - 1; t++) {
		/* the second time round with delta rows asked for: packs
		 * are plain rows still (open_raw has no flags) */
		bcn_frame_builder_iodelta(&b, t >= BCN_REC_TYPE_MAX);
		fill_random(&in, (enum bcn_rec_type)(1 + (t - 1) % (BCN_REC_TYPE_MAX - 1)));
		in.node = "oss7";
		bcn_buf_reset(&w);
		assert_int_equal(bcn_frame_builder_pack(&b, &in, &w), 0);
		assert_int_equal(bcn_frame_builder_count(&b), 0);
		assert_int_equal(bcn_frame_open_raw(&f, w.data, w.len, 1, "oss7", &lim), 0);
		assert_int_equal(bcn_frame_next(&f, &out), 1);
		assert_same(&in, &out);
		assert_int_equal(bcn_frame_next(&f, &out), 0);
		/* a cut packed record is corrupt, never read past its end */
		assert_int_equal(bcn_frame_open_raw(&f, w.data, w.len - 1, 1, "oss7", &lim) ||
				 bcn_frame_next(&f, &out) < 0, 1);
	}
	bcn_frame_free(&f);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
}

static void test_totals_entity(void **state)
{
	struct bcn_record_totals t;
	struct bcn_record r;
	char e[64];

	bcn_record_init(&r, BCN_REC_IO);
	r.u.io.op = BCN_IO_WRITE;
	r.u.io.size = 1 << 20;
	r.u.io.count = 8;
	r.node = "cn5";
	bcn_record_totals(&r, &t);
	assert_true(t.write_bytes == 8u << 20 && t.write_ops == 8 && t.read_ops == 0);
	assert_int_equal(bcn_record_entity(&r, e, sizeof(e)), 0);
	assert_string_equal(e, "cn5");
	assert_int_equal(bcn_record_entity(&r, e, 3), -BCN_EFULL);
	bcn_record_init(&r, BCN_REC_MDS);
	r.u.mds.target = "fs-MDT0000";
	r.u.mds.ops[BCN_MD_OPEN] = 5;
	r.u.mds.ops[BCN_MD_GETATTR] = 7;
	r.u.mds.ops[BCN_MD_READ] = 2;
	bcn_record_totals(&r, &t);
	assert_true(t.meta_ops == 12 && t.read_ops == 2);
	bcn_record_entity(&r, e, sizeof(e));
	assert_string_equal(e, "fs-MDT0000");
	bcn_record_init(&r, BCN_REC_PORT);
	r.u.port.sw = "0x7cfe900300";
	r.u.port.port = 12;
	r.u.port.rcv_bytes = 100;
	bcn_record_totals(&r, &t);
	assert_true(t.read_bytes == 100);
	bcn_record_entity(&r, e, sizeof(e));
	assert_string_equal(e, "0x7cfe900300/12");
	bcn_record_init(&r, BCN_REC_FWD_REQ);
	r.u.fwd_req.cls = BCN_FWD_ALL;
	r.u.fwd_req.count = 10;
	bcn_record_totals(&r, &t);
	assert_true(t.read_ops + t.write_ops + t.meta_ops + t.other_ops == 0);
}

static void test_resync(void **state)
{
	const uint8_t s[] = "xxBCNFyyBC";

	assert_int_equal(bcn_frame_resync(s, 10), 2);
	assert_int_equal(bcn_frame_resync(s + 2, 8), 6);
	assert_int_equal(bcn_frame_resync((const uint8_t *)"abc", 3), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_zlib),
		cmocka_unit_test(test_roundtrip_zstd),
		cmocka_unit_test(test_zstd_hostile),
		cmocka_unit_test(test_roundtrip_stored),
		cmocka_unit_test(test_roundtrip_each_type),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_handshake_frames),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_version_magic_kind),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_corrupt_payload),
		cmocka_unit_test(test_iodelta_hand),
		cmocka_unit_test(test_iodelta_roundtrip),
		cmocka_unit_test(test_zlib_bomb),
		cmocka_unit_test(test_unreferenced_string),
		cmocka_unit_test(test_string_table_bomb),
		cmocka_unit_test(test_builder_rollback),
		cmocka_unit_test(test_time_window),
		cmocka_unit_test(test_zstd_hashlog_bounds),
		cmocka_unit_test(test_builder_limits),
		cmocka_unit_test(test_builder_refuses_in_place),
		cmocka_unit_test(test_string_table_dedup),
		cmocka_unit_test(test_varint_edges),
		cmocka_unit_test(test_varint_paths),
		cmocka_unit_test(test_json_and_ops),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_pack_unpack),
		cmocka_unit_test(test_totals_entity),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
