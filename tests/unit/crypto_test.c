/* Tests of proto/crypto: HMAC-SHA256 against RFC 4231's test cases 1, 2,
 * 3 and 6, HKDF-SHA256 against RFC 5869's test cases 1 to 3, the parts
 * form against the one-buffer form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/text.h"
#include "proto/crypto.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	bcn_text_hex(out, b, n);
	out[2 * n] = '\0';
}

static void fill(uint8_t *b, size_t n, int from)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(from + (int)i);
}

static void test_hmac_rfc4231(void **state)
{
	uint8_t k1[20], k3[20], d3[50], k6[131], mac[32];
	char h[65];

	(void)state;
	memset(k1, 0x0b, sizeof(k1));
	bcn_hmac_sha256(k1, sizeof(k1), (const uint8_t *)"Hi There", 8, mac);
	hex(mac, 32, h);
	assert_string_equal(h, "b0344c61d8db38535ca8afceaf0bf12b"
			       "881dc200c9833da726e9376c2e32cff7");
	bcn_hmac_sha256((const uint8_t *)"Jefe", 4,
			(const uint8_t *)"what do ya want for nothing?", 28, mac);
	hex(mac, 32, h);
	assert_string_equal(h, "5bdcc146bf60754e6a042426089575c7"
			       "5a003f089d2739839dec58b964ec3843");
	memset(k3, 0xaa, sizeof(k3));
	memset(d3, 0xdd, sizeof(d3));
	bcn_hmac_sha256(k3, sizeof(k3), d3, sizeof(d3), mac);
	hex(mac, 32, h);
	assert_string_equal(h, "773ea91e36800e46854db8ebd09181a7"
			       "2959098b3ef8c122d9635514ced565fe");
	memset(k6, 0xaa, sizeof(k6));
	bcn_hmac_sha256(k6, sizeof(k6), (const uint8_t *)
			"Test Using Larger Than Block-Size Key - Hash Key First",
			54, mac);
	hex(mac, 32, h);
	assert_string_equal(h, "60e431591ee0b67f0d8a26aacbf5b77f"
			       "8e0bc6213728c5140546040f0ee37f54");
}

static void test_hmac_parts(void **state)
{
	static const char msg[] = "what do ya want for nothing?";
	uint8_t a[32], b[32];
	struct bcn_crypto_part parts[] = {
		{ msg, 4 }, { NULL, 0 }, { msg + 4, 10 }, { msg + 14, 14 },
	};

	(void)state;
	bcn_hmac_sha256((const uint8_t *)"Jefe", 4, (const uint8_t *)msg, 28, a);
	bcn_hmac_sha256_parts((const uint8_t *)"Jefe", 4, parts, 4, b);
	assert_memory_equal(a, b, 32);
}

static void test_hkdf_rfc5869(void **state)
{
	uint8_t ikm[80], salt[80], info[80], okm[82];
	char h[2 * 82 + 1];

	(void)state;
	memset(ikm, 0x0b, 22);
	fill(salt, 13, 0);
	fill(info, 10, 0xf0);
	assert_int_equal(bcn_hkdf_sha256(salt, 13, ikm, 22, info, 10, okm, 42),
			 0);
	hex(okm, 42, h);
	assert_string_equal(h, "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a"
			       "4c5db02d56ecc4c5bf34007208d5b887185865");
	fill(ikm, 80, 0);
	fill(salt, 80, 0x60);
	fill(info, 80, 0xb0);
	assert_int_equal(bcn_hkdf_sha256(salt, 80, ikm, 80, info, 80, okm, 82),
			 0);
	hex(okm, 82, h);
	assert_string_equal(h, "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efa"
			       "d8a050cc4c19afa97c59045a99cac7827271cb41c65e59"
			       "0e09da3275600c2f09b8367793a9aca3db71cc30c58179"
			       "ec3e87c14c01d5c1f3434f1d87");
	memset(ikm, 0x0b, 22);
	assert_int_equal(bcn_hkdf_sha256(NULL, 0, ikm, 22, NULL, 0, okm, 42), 0);
	hex(okm, 42, h);
	assert_string_equal(h, "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee187"
			       "9ec3454e5f3c738d2d9d201395faa4b61a96c8");
	assert_int_equal(bcn_hkdf_sha256(NULL, 0, ikm, 22, NULL, 0, okm, 0),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_hmac_parts),
		cmocka_unit_test(test_hkdf_rfc5869),
	};
	return cmocka_run_group_tests_name("crypto", tests, NULL, NULL);
}
