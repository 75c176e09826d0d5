/* libFuzzer target: the log server's connection state machine (logsrv/
 * conn.h) over an arbitrary byte stream, in process: handshake, framing,
 * content checks, answers. The first byte chooses the mode: bit 0 turns
 * authentication off, bit 1 feeds the stream in one piece (else frame by
 * frame, as the envelopes announce), bit 2 repairs frame checksums so that
 * mutations reach the content checks, bit 3 seals each frame after the
 * handshake with its frame MAC, as a collector does (else the frames meet
 * the MAC check as they are). The server's nonce is pinned after each
 * HELLO, so a stream holding an AUTH made with the test key's node key and
 * that nonce authenticates (tests/fuzz/corpus/logsrv_conn, made by
 * tests/fuzz/corpus/logsrv_conn.py). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "logsrv/conn.h"

#define MODE_NOAUTH 0x01
#define MODE_WHOLE 0x02
#define MODE_RESEAL 0x04
#define MODE_SEAL 0x08

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The test key: bytes 0x00, 0x01, .. 0x1f; the pinned server nonce: 0x5a. */
static void test_key(struct bcn_auth_key *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < BCN_AUTH_KEY_MIN; i++)
		k->bytes[i] = (uint8_t)i;
	k->len = BCN_AUTH_KEY_MIN;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The length of the next piece to feed: one frame as its header says,
 * else the rest. */
static size_t piece_len(const uint8_t *d, size_t size)
{
	size_t body;

	if (size < BCN_FRAME_HDR_LEN)
		return size;
	body = le32(d + 8);
	return body > size - BCN_FRAME_HDR_LEN ? size : BCN_FRAME_HDR_LEN + body;
}

static void reseal(uint8_t *d, size_t len)
{
	uint32_t crc;

	if (len < BCN_FRAME_HDR_LEN || le32(d + 8) != len - BCN_FRAME_HDR_LEN)
		return;
	crc = (uint32_t)crc32(0, d, 28);
	crc = (uint32_t)crc32(crc, d + BCN_FRAME_HDR_LEN, (uInt)(len - BCN_FRAME_HDR_LEN));
	for (int i = 0; i < 4; i++)
		d[28 + i] = (uint8_t)(crc >> (8 * i));
}

/* The submit hook: what is submitted must be a whole, checked DATA frame
 * of the authenticated node. */
static int submit(void *arg, struct bcn_conn *c, const struct bcn_frame *f,
		  const uint8_t *p, size_t len)
{
	uint64_t *n = arg;

	if (len < BCN_FRAME_HDR_LEN || len != BCN_FRAME_HDR_LEN + (size_t)f->hdr.body_len ||
	    f->hdr.kind != BCN_FRAME_DATA || c->state != BCN_CONN_READY ||
	    (c->node[0] && strcmp(c->node, f->node)))
		__builtin_trap();
	(*n)++;
	return 0;
}

/* Feeds p[0..len-1] to c as the server reads: at most the room left in
 * c->in at a time. Returns 0, or -1 once c must close. */
static int feed(struct bcn_conn_ctx *x, struct bcn_conn *c, const uint8_t *p,
		size_t len)
{
	while (len) {
		size_t room = c->in.max - c->in.len, n = len < room ? len : room;
		int was = c->state, rc;

		if (n == 0 || bcn_buf_add(&c->in, p, n))
			return -1;      /* the server closes it too */
		p += n;
		len -= n;
		rc = bcn_conn_parse(x, c);
		if (c->in.len > c->in.max || (rc && !c->why))
			__builtin_trap();
		if (was == BCN_CONN_HELLO && c->state == BCN_CONN_AUTH)
			memset(c->auth.ns, 0x5a, sizeof(c->auth.ns));
		bcn_buf_reset(&c->out);         /* the answers leave */
		if (rc)
			return -1;
	}
	return 0;
}

/* Feeds one piece, sealed with the connection's next frame MAC when
 * asked and the handshake is done (a piece that is not one whole unsealed
 * frame goes as it is). */
static int sealed_feed(struct bcn_conn_ctx *x, struct bcn_conn *c,
		       uint8_t mode, const uint8_t *p, size_t len)
{
	struct bcn_seal peer;
	struct bcn_buf b;
	int rc;

	if (!(mode & MODE_SEAL) || !x->key || c->state != BCN_CONN_READY)
		return feed(x, c, p, len);
	peer = c->auth.rx;      /* the collector's side of the same key */
	bcn_buf_init(&b, (size_t)1 << 20);
	if (bcn_seal_frame(&peer, p, len, &b))
		rc = feed(x, c, p, len);
	else
		rc = feed(x, c, b.data, b.len);
	bcn_buf_free(&b);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bcn_logsrv_stats st;
	struct bcn_auth_key key;
	struct bcn_conn_ctx x = { 0 };
	struct bcn_conn c = { 0 };
	uint64_t submitted = 0;
	uint8_t *copy, mode;
	size_t off = 0;

	if (size < 1)
		return 0;
	mode = data[0];
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	size--;
	test_key(&key);
	x.st = &st;
	x.name = "fuzzsrv";
	x.key = mode & MODE_NOAUTH ? NULL : &key;
	x.lim = (struct bcn_frame_limits){ .max_body = 1 << 16,
		.max_raw = 1 << 18, .max_records = 4096, .max_strings = 512,
		.max_ratio = 128 };
	x.submit = submit;
	x.submit_arg = &submitted;
	bcn_conn_ctx_init(&x);
	snprintf(c.peer, sizeof(c.peer), "fuzz");
	if (bcn_conn_start(&x, &c, 0))
		__builtin_trap();
	while (off < size) {
		size_t n = mode & MODE_WHOLE ? size - off : piece_len(copy + off, size - off);

		if (mode & MODE_RESEAL)
			reseal(copy + off, n);
		if (sealed_feed(&x, &c, mode, copy + off, n))
			break;
		off += n;
	}
	if (getenv("BCN_FUZZ_VERBOSE"))    /* seeds: how far did they get? */
		fprintf(stderr, "logsrv_conn_fuzz: %llu frames submitted\n",
			(unsigned long long)submitted);
	bcn_conn_release(&c);
	bcn_conn_ctx_free(&x);
	free(copy);
	return 0;
}
