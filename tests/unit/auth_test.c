/* Unit tests of proto/auth: HMAC-SHA256 against the RFC 4231 test
 * vectors, the handshake MACs against known answers computed with an
 * independent implementation (Python's hmac), the key file parser and
 * loader, and the two handshake state machines driven against each other:
 * success, wrong keys both ways, a replayed AUTH, node changes and frames
 * out of order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "proto/auth.h"
#include "common/error.h"
#include "proto/frame.h"

static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* RFC 4231, section 4: test cases 1 to 7 for HMAC-SHA-256. */
static void test_rfc4231(void **state)
{
	static const char *const t7 =
		"This is a test using a larger than block-size key and a "
		"larger than block-size data. The key needs to be hashed "
		"before being used by the HMAC algorithm.";
	struct {
		uint8_t key[131];
		size_t klen;
		uint8_t data[160];
		size_t dlen;
		const char *mac;
		size_t maclen;
	} tc[7];
	uint8_t want[BCN_AUTH_LEN], got[BCN_AUTH_LEN];

	memset(tc, 0, sizeof(tc));
	memset(tc[0].key, 0x0b, tc[0].klen = 20);
	memcpy(tc[0].data, "Hi There", tc[0].dlen = 8);
	tc[0].mac = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7";
	memcpy(tc[1].key, "Jefe", tc[1].klen = 4);
	memcpy(tc[1].data, "what do ya want for nothing?", tc[1].dlen = 28);
	tc[1].mac = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
	memset(tc[2].key, 0xaa, tc[2].klen = 20);
	memset(tc[2].data, 0xdd, tc[2].dlen = 50);
	tc[2].mac = "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe";
	for (int i = 0; i < 25; i++)
		tc[3].key[i] = (uint8_t)(i + 1);
	tc[3].klen = 25;
	memset(tc[3].data, 0xcd, tc[3].dlen = 50);
	tc[3].mac = "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b";
	memset(tc[4].key, 0x0c, tc[4].klen = 20);
	memcpy(tc[4].data, "Test With Truncation", tc[4].dlen = 20);
	tc[4].mac = "a3b6167473100ee06e0c796c2955552b";     /* 128 bits */
	memset(tc[5].key, 0xaa, tc[5].klen = 131);
	memcpy(tc[5].data, "Test Using Larger Than Block-Size Key - Hash Key First",
	       tc[5].dlen = 54);
	tc[5].mac = "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54";
	memset(tc[6].key, 0xaa, tc[6].klen = 131);
	memcpy(tc[6].data, t7, tc[6].dlen = strlen(t7));
	tc[6].mac = "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2";
	for (int i = 0; i < 7; i++) {
		size_t n = strlen(tc[i].mac) / 2;

		unhex(tc[i].mac, want, n);
		assert_int_equal(bcn_auth_hmac(tc[i].key, tc[i].klen, tc[i].data,
					       tc[i].dlen, got), 0);
		assert_memory_equal(got, want, n);
	}
}

static void fixed_key(struct bcn_auth_key *k, uint8_t base)
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < 32; i++)
		k->bytes[i] = (uint8_t)(base + i);
	k->len = 32;
}

/* Known answers from Python: hmac.new(bytes(range(32)),
 * b"BCN1-C" + ns + nc + b"cn00042", sha256) and "BCN1-S" + nc + ns. */
static void test_handshake_macs(void **state)
{
	struct bcn_auth_key k;
	uint8_t nc[32], ns[32], mac[32], want[32];

	fixed_key(&k, 0);
	memset(nc, 0x11, sizeof(nc));
	memset(ns, 0x22, sizeof(ns));
	assert_int_equal(bcn_auth_client_mac(k.bytes, nc, ns, "cn00042", mac), 0);
	unhex("fef2f17907138e2f0bf069abf585da129b7bd790805e5cf7193b4cb5d9dc90a8",
	      want, 32);
	assert_memory_equal(mac, want, 32);
	assert_true(bcn_auth_mac_equal(mac, want));
	assert_int_equal(bcn_auth_server_mac(k.bytes, nc, ns, "cn00042", mac), 0);
	unhex("5929bb9a5a076d33c3de48077a624a4dce0c1f391fbe9bff02f842022aa1727b",
	      want, 32);
	assert_memory_equal(mac, want, 32);
	want[31] ^= 1;
	assert_false(bcn_auth_mac_equal(mac, want));
	assert_int_equal(bcn_auth_client_mac(k.bytes, nc, ns, "", mac), -EINVAL);
}

static void test_key_parse(void **state)
{
	static const char hex64[] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	struct bcn_auth_key k, want;
	char buf[600], err[256];

	fixed_key(&want, 0);
	snprintf(buf, sizeof(buf), "%s\n", hex64);
	assert_int_equal(bcn_auth_key_parse(buf, strlen(buf), &k, err,
					    sizeof(err)), 0);
	assert_int_equal(k.len, 32);
	assert_memory_equal(k.bytes, want.bytes, 32);
	/* blanks anywhere, CRLF, upper case */
	snprintf(buf, sizeof(buf), "  0001 0203\t0405060708090A0B0C0D0E0F\r\n"
		 "101112131415161718191a1b1c1d1e1f\r\n\n");
	assert_int_equal(bcn_auth_key_parse(buf, strlen(buf), &k, err,
					    sizeof(err)), 0);
	assert_memory_equal(k.bytes, want.bytes, 32);
	/* 31 bytes: too short */
	assert_int_equal(bcn_auth_key_parse(hex64, 62, &k, err, sizeof(err)),
			 -BCN_ERANGE);
	assert_non_null(strstr(err, "too short"));
	assert_int_equal(k.len, 0);
	/* odd digit count */
	assert_int_equal(bcn_auth_key_parse(hex64, 63, &k, err, sizeof(err)),
			 -BCN_ESYNTAX);
	/* a stray character, with its offset */
	snprintf(buf, sizeof(buf), "%.10sx%s", hex64, hex64 + 10);
	assert_int_equal(bcn_auth_key_parse(buf, strlen(buf), &k, err,
					    sizeof(err)), -BCN_ESYNTAX);
	assert_non_null(strstr(err, "byte 10"));
	/* a NUL inside is not a blank */
	memcpy(buf, hex64, 64);
	buf[64] = '\0';
	buf[65] = '0';
	assert_int_equal(bcn_auth_key_parse(buf, 66, &k, err, sizeof(err)),
			 -BCN_ESYNTAX);
	/* longest key, and one byte more */
	for (int i = 0; i < 2 * BCN_AUTH_KEY_MAX + 2; i++)
		buf[i] = "0123456789abcdef"[i % 16];
	assert_int_equal(bcn_auth_key_parse(buf, 2 * BCN_AUTH_KEY_MAX, &k, err,
					    sizeof(err)), 0);
	assert_int_equal(k.len, BCN_AUTH_KEY_MAX);
	assert_int_equal(bcn_auth_key_parse(buf, 2 * BCN_AUTH_KEY_MAX + 2, &k,
					    err, sizeof(err)), -BCN_ERANGE);
	assert_int_equal(bcn_auth_key_parse("", 0, &k, err, sizeof(err)),
			 -BCN_ERANGE);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_key_load(void **state)
{
	char dir[] = "/tmp/bcn_auth_test.XXXXXX", path[128], err[512];
	struct bcn_auth_key k, g;
	struct bcn_buf b;
	char *big;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/site.key", dir);
	/* generate, format, load back */
	assert_int_equal(bcn_auth_key_generate(&g, 32), 0);
	bcn_buf_init(&b, 1024);
	assert_int_equal(bcn_auth_key_format(&g, &b), 0);
	assert_int_equal(b.len, 65);
	assert_int_equal(b.data[64], '\n');
	assert_int_equal(bcn_buf_add(&b, "", 1), 0);
	write_file(path, (char *)b.data, 0600);
	bcn_buf_free(&b);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)), 0);
	assert_int_equal(k.len, 32);
	assert_memory_equal(k.bytes, g.bytes, 32);
	/* readable by others: refused, with the fix in the message */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "chmod 600"));
	assert_non_null(strstr(err, path));
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)), -EACCES);
	assert_int_equal(chmod(path, 0400), 0);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)), 0);
	/* a bad key names the file */
	write_file(path, "abcd\n", 0600);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)),
			 -BCN_ERANGE);
	assert_non_null(strstr(err, path));
	/* too large */
	big = malloc(BCN_AUTH_KEYFILE_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', BCN_AUTH_KEYFILE_MAX + 1);
	big[BCN_AUTH_KEYFILE_MAX + 1] = '\0';
	write_file(path, big, 0600);
	free(big);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)),
			 -BCN_EFULL);
	/* missing, directory */
	unlink(path);
	assert_int_equal(bcn_auth_key_load(path, &k, err, sizeof(err)), -ENOENT);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(bcn_auth_key_load(dir, &k, err, sizeof(err)), -EINVAL);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(bcn_auth_key_generate(&g, 16), -EINVAL);
}

/* ---- the handshake ---- */

struct pair {
	struct bcn_auth_key ck, sk;
	struct bcn_auth_client c;
	struct bcn_auth_server s;
	struct bcn_buf c2s, s2c;        /* bytes on the wire each way */
	struct bcn_frame f;
};

static int setup_pair(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	fixed_key(&p->ck, 7);
	fixed_key(&p->sk, 7);
	bcn_buf_init(&p->c2s, 1 << 20);
	bcn_buf_init(&p->s2c, 1 << 20);
	bcn_frame_init(&p->f);
	assert_int_equal(bcn_auth_client_init(&p->c, &p->ck, "cn001"), 0);
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, "logsrv1"), 0);
	*state = p;
	return 0;
}

static int teardown_pair(void **state)
{
	struct pair *p = *state;

	bcn_buf_free(&p->c2s);
	bcn_buf_free(&p->s2c);
	bcn_frame_free(&p->f);
	free(p);
	return 0;
}

/* Opens the first frame of b into f and removes it from b. */
static void take(struct bcn_buf *b, struct bcn_frame *f)
{
	size_t used = 0;

	assert_true(b->len > 0);
	assert_int_equal(bcn_frame_open(f, b->data, b->len, &lim, &used), 0);
	memmove(b->data, b->data + used, b->len - used);
	b->len -= used;
}

static int client_step(struct pair *p)
{
	take(&p->s2c, &p->f);
	return bcn_auth_client_step(&p->c, &p->f, &p->c2s);
}

static int server_step(struct pair *p)
{
	take(&p->c2s, &p->f);
	return bcn_auth_server_step(&p->s, &p->f, &p->s2c);
}

/* Runs HELLO and CHALLENGE; the client's AUTH is then in c2s. */
static void up_to_auth(struct pair *p)
{
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(p->c.state, BCN_AUTH_WAIT_CHALLENGE);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(p->s.state, BCN_AUTH_WAIT_AUTH);
	assert_string_equal(p->s.node, "cn001");
	assert_int_equal(client_step(p), 0);
	assert_int_equal(p->c.state, BCN_AUTH_WAIT_WELCOME);
	assert_string_equal(p->c.peer, "logsrv1");
}

static void data_frame(const char *node, uint64_t seq, struct bcn_buf *out)
{
	struct bcn_frame_builder b;
	struct bcn_record r;

	assert_int_equal(bcn_frame_builder_init(&b, &lim, 1), 0);
	bcn_record_init(&r, BCN_REC_IO);
	r.t = 1700000000000000000ll;
	assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, node, seq, out), 0);
	bcn_frame_builder_free(&b);
}

static void test_handshake_ok(void **state)
{
	struct pair *p = *state;

	up_to_auth(p);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(p->s.state, BCN_AUTH_ESTABLISHED);
	assert_int_equal(client_step(p), 0);
	assert_int_equal(p->c.state, BCN_AUTH_ESTABLISHED);
	assert_int_equal(p->c2s.len, 0);
	assert_int_equal(p->s2c.len, 0);
	/* the session: DATA one way, ACK the other */
	data_frame("cn001", 1, &p->c2s);
	assert_int_equal(server_step(p), BCN_AUTH_PASS);
	assert_int_equal(p->f.hdr.seq, 1);
	assert_int_equal(bcn_frame_ack_encode(1, BCN_ACK_STORED, "logsrv1",
					      &p->s2c), 0);
	assert_int_equal(client_step(p), BCN_AUTH_PASS);
	assert_int_equal(p->f.hdr.kind, BCN_FRAME_ACK);
	/* a new connection of the same client starts over */
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(p->c.state, BCN_AUTH_WAIT_CHALLENGE);
}

static void test_wrong_key_client(void **state)
{
	struct pair *p = *state;

	p->ck.bytes[5] ^= 0x40;         /* the collector holds another key */
	assert_int_equal(bcn_auth_client_init(&p->c, &p->ck, "cn001"), 0);
	up_to_auth(p);
	assert_int_equal(server_step(p), -EKEYREJECTED);
	assert_int_equal(p->s.state, BCN_AUTH_FAILED);
	assert_int_equal(p->s2c.len, 0);        /* no WELCOME */
	data_frame("cn001", 1, &p->c2s);
	assert_int_equal(server_step(p), -EPROTO);
}

static void test_wrong_key_server(void **state)
{
	struct pair *p = *state;
	struct bcn_auth_key other;
	uint8_t mac[BCN_AUTH_LEN];

	up_to_auth(p);
	/* an impostor answers WELCOME with a MAC made with another key */
	fixed_key(&other, 99);
	assert_int_equal(bcn_auth_server_mac(other.bytes, p->c.nc, p->c.ns, "cn001",
					     mac), 0);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_WELCOME, "evil", mac,
					      &p->s2c), 0);
	assert_int_equal(client_step(p), -EKEYREJECTED);
	assert_int_equal(p->c.state, BCN_AUTH_FAILED);
	/* nor does echoing the client's own AUTH work as a WELCOME */
	bcn_buf_reset(&p->c2s);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	take(&p->c2s, &p->f);
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, ""), 0);
	assert_int_equal(bcn_auth_server_step(&p->s, &p->f, &p->s2c), 0);
	assert_int_equal(client_step(p), 0);
	take(&p->c2s, &p->f);           /* the AUTH */
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_WELCOME, "", p->f.auth,
					      &p->s2c), 0);
	assert_int_equal(client_step(p), -EKEYREJECTED);
}

static void test_replayed_auth(void **state)
{
	struct pair *p = *state;
	struct bcn_buf hello, auth;

	bcn_buf_init(&hello, 4096);
	bcn_buf_init(&auth, 4096);
	up_to_auth(p);
	/* an eavesdropper records HELLO... (re-encoded from the server's
	 * view) and AUTH of a good session */
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_HELLO, "cn001", p->c.nc,
					      &hello), 0);
	assert_int_equal(bcn_buf_add(&auth, p->c2s.data, p->c2s.len), 0);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(p->s.state, BCN_AUTH_ESTABLISHED);
	/* ...and replays them to a new connection: a new challenge */
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, "logsrv1"), 0);
	bcn_buf_reset(&p->s2c);
	assert_int_equal(bcn_buf_add(&p->c2s, hello.data, hello.len), 0);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(bcn_buf_add(&p->c2s, auth.data, auth.len), 0);
	assert_int_equal(server_step(p), -EKEYREJECTED);
	assert_int_equal(p->s.state, BCN_AUTH_FAILED);
	bcn_buf_free(&hello);
	bcn_buf_free(&auth);
}

static void test_node_change(void **state)
{
	struct pair *p = *state;
	uint8_t mac[BCN_AUTH_LEN];

	/* AUTH under another name than HELLO's */
	up_to_auth(p);
	bcn_buf_reset(&p->c2s);
	assert_int_equal(bcn_auth_client_mac(p->c.k, p->c.nc, p->c.ns, "cn002",
					     mac), 0);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_AUTH, "cn002", mac,
					      &p->c2s), 0);
	assert_int_equal(server_step(p), -EPROTO);
	/* DATA under another name after a good handshake */
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, "logsrv1"), 0);
	bcn_buf_reset(&p->s2c);
	up_to_auth(p);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(client_step(p), 0);
	data_frame("cn001", 1, &p->c2s);
	assert_int_equal(server_step(p), BCN_AUTH_PASS);
	data_frame("cn002", 2, &p->c2s);
	assert_int_equal(server_step(p), -EPROTO);
	assert_int_equal(p->s.state, BCN_AUTH_FAILED);
}

/* Rewrites the sequence number of the frame in b and reseals it. */
static void set_seq(struct bcn_buf *b, uint64_t seq)
{
	uint32_t crc;

	for (int i = 0; i < 8; i++)
		b->data[16 + i] = (uint8_t)(seq >> (8 * i));
	crc = (uint32_t)crc32(0L, b->data, 28);
	crc = (uint32_t)crc32(crc, b->data + BCN_FRAME_HDR_LEN,
			      b->len - BCN_FRAME_HDR_LEN);
	for (int i = 0; i < 4; i++)
		b->data[28 + i] = (uint8_t)(crc >> (8 * i));
}

static void test_out_of_order(void **state)
{
	struct pair *p = *state;
	uint8_t mac[BCN_AUTH_LEN] = { 0 };

	/* server: AUTH before HELLO */
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_AUTH, "cn001", mac,
					      &p->c2s), 0);
	assert_int_equal(server_step(p), -EPROTO);
	/* server: DATA before WELCOME */
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, ""), 0);
	data_frame("cn001", 1, &p->c2s);
	assert_int_equal(server_step(p), -EPROTO);
	/* server: DATA between HELLO and AUTH */
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, ""), 0);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(server_step(p), 0);
	data_frame("cn001", 1, &p->c2s);
	assert_int_equal(server_step(p), -EPROTO);
	/* server: a second HELLO */
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, ""), 0);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(server_step(p), -EPROTO);
	/* server: a HELLO with a sequence number */
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, ""), 0);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	set_seq(&p->c2s, 5);
	assert_int_equal(server_step(p), -EPROTO);
	/* client: WELCOME before CHALLENGE, ACK before WELCOME */
	bcn_buf_reset(&p->s2c);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_WELCOME, "", mac,
					      &p->s2c), 0);
	assert_int_equal(client_step(p), -EPROTO);
	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	assert_int_equal(bcn_frame_ack_encode(1, BCN_ACK_STORED, "", &p->s2c), 0);
	assert_int_equal(client_step(p), -EPROTO);
	/* client: a frame before start, a step after failure */
	assert_int_equal(bcn_auth_client_init(&p->c, &p->ck, "cn001"), 0);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_CHALLENGE, "", mac,
					      &p->s2c), 0);
	assert_int_equal(client_step(p), -EPROTO);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_CHALLENGE, "", mac,
					      &p->s2c), 0);
	assert_int_equal(client_step(p), -EPROTO);
	/* client: a CHALLENGE where the session expects ACKs */
	bcn_buf_reset(&p->c2s);
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, "logsrv1"), 0);
	up_to_auth(p);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(client_step(p), 0);
	assert_int_equal(bcn_frame_ctl_encode(BCN_FRAME_CHALLENGE, "", mac,
					      &p->s2c), 0);
	assert_int_equal(client_step(p), -EPROTO);
}

static void test_init_args(void **state)
{
	struct bcn_auth_key k;
	struct bcn_auth_client c;
	struct bcn_auth_server s;
	char longname[BCN_NODE_MAX + 2];

	fixed_key(&k, 1);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(bcn_auth_client_init(&c, &k, ""), -EINVAL);
	assert_int_equal(bcn_auth_client_init(&c, &k, longname), -EINVAL);
	assert_int_equal(bcn_auth_client_init(&c, NULL, "a"), -EINVAL);
	assert_int_equal(bcn_auth_server_init(&s, &k, longname), -EINVAL);
	assert_int_equal(bcn_auth_server_init(&s, &k, ""), 0);
	assert_string_equal(bcn_auth_state_name(BCN_AUTH_WAIT_AUTH), "wait-auth");
	assert_string_equal(bcn_auth_state_name((enum bcn_auth_state)99),
			    "unknown");
}

static void test_nonces_differ(void **state)
{
	uint8_t a[BCN_AUTH_LEN], b[BCN_AUTH_LEN];

	assert_int_equal(bcn_auth_nonce(a), 0);
	assert_int_equal(bcn_auth_nonce(b), 0);
	assert_memory_not_equal(a, b, BCN_AUTH_LEN);
}

/* Node keys: a known answer (HKDF-SHA256 computed with Python's hmac),
 * no derivation from a node key, the key file's "node" line. */
static void test_node_key(void **state)
{
	struct bcn_auth_key site, nk, back, bad;
	struct bcn_buf text;
	uint8_t want[32];
	char err[256];

	(void)state;
	fixed_key(&site, 0);
	assert_int_equal(bcn_auth_node_key(&site, "cn001", &nk), 0);
	unhex("12eb96f4b0d8fc1bad4b41583ad571082464de91010c23015e88f3ed9ff4107d",
	      want, 32);
	assert_int_equal(nk.len, 32);
	assert_memory_equal(nk.bytes, want, 32);
	assert_string_equal(nk.node, "cn001");
	assert_int_equal(bcn_auth_node_key(&nk, "cn002", &bad), -EINVAL);
	assert_int_equal(bcn_auth_node_key(&site, "", &bad), -EINVAL);
	bcn_buf_init(&text, 4096);
	assert_int_equal(bcn_auth_key_format(&nk, &text), 0);
	assert_true(text.len > 11 && !memcmp(text.data, "node cn001\n", 11));
	assert_int_equal(bcn_auth_key_parse((char *)text.data, text.len, &back,
					    err, sizeof(err)), 0);
	assert_string_equal(back.node, "cn001");
	assert_memory_equal(back.bytes, want, 32);
	assert_int_equal(bcn_auth_key_parse("node \n00", 9, &bad, err,
					    sizeof(err)), -BCN_ESYNTAX);
	assert_int_equal(bcn_auth_key_parse("node a b\n00", 12, &bad, err,
					    sizeof(err)), -BCN_ESYNTAX);
	bcn_buf_free(&text);
}

/* A node key works for its node through a server holding only the site
 * key, is refused for another name, and cannot be passed off as another
 * node's key. */
static void test_node_key_handshake(void **state)
{
	struct pair *p = *state;
	struct bcn_auth_key nk, forged;
	struct bcn_auth_client c2;

	assert_int_equal(bcn_auth_node_key(&p->ck, "cn001", &nk), 0);
	assert_int_equal(bcn_auth_client_init(&p->c, &nk, "cn001"), 0);
	up_to_auth(p);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(client_step(p), 0);
	assert_int_equal(p->c.state, BCN_AUTH_ESTABLISHED);
	/* the same key for another node: refused before any byte is sent */
	assert_int_equal(bcn_auth_client_init(&c2, &nk, "cn002"),
			 -EKEYREJECTED);
	/* cn001's key bytes relabelled as cn002's: the server derives the
	 * real cn002 key and refuses the AUTH */
	forged = nk;
	snprintf(forged.node, sizeof(forged.node), "cn002");
	assert_int_equal(bcn_auth_client_init(&c2, &forged, "cn002"), 0);
	assert_int_equal(bcn_auth_server_init(&p->s, &p->sk, "logsrv1"), 0);
	bcn_buf_reset(&p->c2s);
	bcn_buf_reset(&p->s2c);
	assert_int_equal(bcn_auth_client_start(&c2, &p->c2s), 0);
	assert_int_equal(server_step(p), 0);
	take(&p->s2c, &p->f);
	assert_int_equal(bcn_auth_client_step(&c2, &p->f, &p->c2s), 0);
	assert_int_equal(server_step(p), -EKEYREJECTED);
	/* a server refuses to run on a node key */
	assert_int_equal(bcn_auth_server_init(&p->s, &nk, "logsrv1"), -EINVAL);
}

/* After the handshake both ends hold the same frame keys, one per
 * direction; a sealed frame checks once, and not when altered, replayed
 * or unsealed. */
static void test_frame_macs(void **state)
{
	struct pair *p = *state;
	struct bcn_buf d, sealed, ack;

	up_to_auth(p);
	assert_int_equal(server_step(p), 0);
	assert_int_equal(client_step(p), 0);
	assert_memory_equal(p->c.tx.key, p->s.rx.key, BCN_SEAL_KEY_LEN);
	assert_memory_equal(p->c.rx.key, p->s.tx.key, BCN_SEAL_KEY_LEN);
	assert_memory_not_equal(p->c.tx.key, p->c.rx.key, BCN_SEAL_KEY_LEN);
	bcn_buf_init(&d, 1 << 20);
	bcn_buf_init(&sealed, 1 << 20);
	bcn_buf_init(&ack, 1 << 20);
	data_frame("cn001", 1, &d);
	assert_int_equal(bcn_seal_frame(&p->c.tx, d.data, d.len, &sealed), 0);
	assert_int_equal(sealed.len, d.len + BCN_FRAME_MAC_LEN);
	/* it still opens as a frame, with the same payload */
	assert_int_equal(bcn_frame_open(&p->f, sealed.data, sealed.len, &lim,
					&(size_t){ 0 }), 0);
	assert_int_equal(p->f.hdr.flags & BCN_FRAME_F_MAC, BCN_FRAME_F_MAC);
	/* altered: refused, and the count does not move */
	sealed.data[40] ^= 1;
	assert_int_equal(bcn_seal_check(&p->s.rx, sealed.data, sealed.len),
			 -EBADMSG);
	sealed.data[40] ^= 1;
	assert_int_equal(bcn_seal_check(&p->s.rx, sealed.data, sealed.len), 0);
	/* replayed: its MAC is of place 0, the next is place 1 */
	assert_int_equal(bcn_seal_check(&p->s.rx, sealed.data, sealed.len),
			 -EBADMSG);
	/* unsealed */
	assert_int_equal(bcn_seal_check(&p->s.rx, d.data, d.len), -EBADMSG);
	/* an ACK the other way */
	assert_int_equal(bcn_frame_ack_encode(1, BCN_ACK_STORED, "logsrv1", &ack),
			 0);
	bcn_buf_reset(&sealed);
	assert_int_equal(bcn_seal_frame(&p->s.tx, ack.data, ack.len, &sealed), 0);
	assert_int_equal(bcn_seal_check(&p->c.tx, sealed.data, sealed.len),
			 -EBADMSG);      /* the other direction's key */
	assert_int_equal(bcn_seal_check(&p->c.rx, sealed.data, sealed.len), 0);
	/* sealing refuses what is not one whole unsealed frame */
	assert_int_equal(bcn_seal_frame(&p->s.tx, sealed.data, sealed.len, &ack),
			 -EINVAL);
	assert_int_equal(bcn_seal_frame(&p->s.tx, d.data, d.len - 1, &ack),
			 -EINVAL);
	bcn_buf_free(&d);
	bcn_buf_free(&sealed);
	bcn_buf_free(&ack);
}

/* A HELLO of protocol version 1 is refused with its own error. */
static void test_v1_hello(void **state)
{
	struct pair *p = *state;
	uint32_t crc;

	assert_int_equal(bcn_auth_client_start(&p->c, &p->c2s), 0);
	p->c2s.data[4] = 1;
	crc = (uint32_t)crc32(0, p->c2s.data, 28);
	crc = (uint32_t)crc32(crc, p->c2s.data + 32, (uInt)(p->c2s.len - 32));
	for (int i = 0; i < 4; i++)
		p->c2s.data[28 + i] = (uint8_t)(crc >> (8 * i));
	assert_int_equal(server_step(p), -EPROTONOSUPPORT);
	assert_int_equal(p->s.state, BCN_AUTH_FAILED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4231),
		cmocka_unit_test(test_handshake_macs),
		cmocka_unit_test(test_key_parse),
		cmocka_unit_test(test_key_load),
		cmocka_unit_test_setup_teardown(test_handshake_ok, setup_pair,
						teardown_pair),
		cmocka_unit_test_setup_teardown(test_wrong_key_client,
						setup_pair, teardown_pair),
		cmocka_unit_test_setup_teardown(test_wrong_key_server,
						setup_pair, teardown_pair),
		cmocka_unit_test_setup_teardown(test_replayed_auth, setup_pair,
						teardown_pair),
		cmocka_unit_test_setup_teardown(test_node_change, setup_pair,
						teardown_pair),
		cmocka_unit_test_setup_teardown(test_out_of_order, setup_pair,
						teardown_pair),
		cmocka_unit_test(test_init_args),
		cmocka_unit_test(test_node_key),
		cmocka_unit_test_setup_teardown(test_node_key_handshake,
						setup_pair, teardown_pair),
		cmocka_unit_test_setup_teardown(test_frame_macs, setup_pair,
						teardown_pair),
		cmocka_unit_test_setup_teardown(test_v1_hello, setup_pair,
						teardown_pair),
		cmocka_unit_test(test_nonces_differ),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
