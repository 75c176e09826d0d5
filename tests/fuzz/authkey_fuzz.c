/* libFuzzer target for the key file parser of proto/auth. Parses the
 * input as a key file; a key it accepts must be BCN_AUTH_KEY_MIN ..
 * BCN_AUTH_KEY_MAX bytes, format back to text that parses to the same key,
 * and equal the input's hex digits; a refusal must leave the key zeroed
 * and say why. Broken invariants abort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/auth.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Checks the key against the digits of the input, read independently. */
static void check_digits(const uint8_t *data, size_t size,
			 const struct bcn_auth_key *k)
{
	size_t n = 0;

	for (size_t i = 0; i < size; i++) {
		int v = hexval(data[i]);

		if (v < 0)
			continue;
		if (n / 2 >= k->len)
			abort();
		if ((n % 2 == 0 ? k->bytes[n / 2] >> 4 : k->bytes[n / 2] & 15) != v)
			abort();
		n++;
	}
	if (n != 2 * k->len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct bcn_auth_key zero;
	struct bcn_auth_key k, back;
	struct bcn_buf text;
	char err[256];
	int rc;

	rc = bcn_auth_key_parse((const char *)data, size, &k, err, sizeof(err));
	if (rc) {
		if ((rc != -BCN_ESYNTAX && rc != -BCN_ERANGE) || !err[0] ||
		    memcmp(&k, &zero, sizeof(k)))
			abort();
		return 0;
	}
	if (k.len < BCN_AUTH_KEY_MIN || k.len > BCN_AUTH_KEY_MAX)
		abort();
	check_digits(data, size, &k);
	bcn_buf_init(&text, 4 * BCN_AUTH_KEY_MAX);
	if (bcn_auth_key_format(&k, &text) ||
	    bcn_auth_key_parse((const char *)text.data, text.len, &back, err,
			       sizeof(err)) ||
	    back.len != k.len || memcmp(back.bytes, k.bytes, k.len))
		abort();
	bcn_buf_free(&text);
	return 0;
}
