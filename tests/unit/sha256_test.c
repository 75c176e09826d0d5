/* Tests of proto/sha256: the FIPS 180-4 example messages, messages of
 * every length around the block and padding boundaries against a
 * byte-at-a-time update, and constant-time comparison. HMAC-SHA256 is
 * tested against RFC 4231 in auth_test.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/sha256.h"

#define BIG_DIGEST "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363"

static void hex(const uint8_t d[BCN_SHA256_LEN], char out[2 * BCN_SHA256_LEN + 1])
{
	for (int i = 0; i < BCN_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_vectors(void **state)
{
	static const struct { const char *msg; const char *digest; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	uint8_t d[BCN_SHA256_LEN];
	char h[2 * BCN_SHA256_LEN + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		bcn_sha256(v[i].msg, strlen(v[i].msg), d);
		hex(d, h);
		assert_string_equal(h, v[i].digest);
	}
}

static void test_million_a(void **state)
{
	struct bcn_sha256 c;
	uint8_t d[BCN_SHA256_LEN], chunk[1000];
	char h[2 * BCN_SHA256_LEN + 1];

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	bcn_sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		bcn_sha256_update(&c, chunk, sizeof(chunk));
	bcn_sha256_final(&c, d);
	hex(d, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Every length from 0 to 200 (the padding cases around 55, 56, 64, 119,
 * 120, 128 ...): one update equals byte-by-byte updates. */
static void test_split_updates(void **state)
{
	uint8_t msg[200], a[BCN_SHA256_LEN], b[BCN_SHA256_LEN];
	struct bcn_sha256 c;

	(void)state;
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 31 + 7);
	for (size_t n = 0; n <= sizeof(msg); n++) {
		bcn_sha256(msg, n, a);
		bcn_sha256_init(&c);
		for (size_t i = 0; i < n; i++)
			bcn_sha256_update(&c, msg + i, 1);
		bcn_sha256_final(&c, b);
		assert_memory_equal(a, b, BCN_SHA256_LEN);
	}
	/* 768 bytes 0..255 three times, against Python's hashlib */
	uint8_t big[768];
	char h[2 * BCN_SHA256_LEN + 1];

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)i;
	bcn_sha256(big, sizeof(big), a);
	hex(a, h);
	assert_string_equal(h, BIG_DIGEST);
}

static void test_ct_equal(void **state)
{
	uint8_t a[32] = { 1, 2, 3 }, b[32] = { 1, 2, 3 };

	(void)state;
	assert_true(bcn_ct_equal(a, b, 32));
	b[31] ^= 0x80;
	assert_false(bcn_ct_equal(a, b, 32));
	assert_true(bcn_ct_equal(a, b, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_split_updates),
		cmocka_unit_test(test_ct_equal),
	};

	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
