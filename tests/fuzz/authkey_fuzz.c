/* libFuzzer target for the key file parser of proto/auth. Parses the
 * input as a key file; a key it accepts must be BCN_AUTH_KEY_MIN ..
 * BCN_AUTH_KEY_MAX bytes, format back to text that parses to the same key,
 * and equal the input's hex digits (after the "node NAME" line of a node
 * key, whose name must be the line's); a refusal must leave the key zeroed
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
	if (k.node[0]) {
		/* the name is on the first line that is not blank */
		size_t b = 0;
		const uint8_t *nl, *at;

		while (b < size && (data[b] == ' ' || data[b] == '\t' ||
				    data[b] == '\r' || data[b] == '\n'))
			b++;
		nl = memchr(data + b, '\n', size - b);
		at = memmem(data + b, nl ? (size_t)(nl - data - b) : 0, k.node,
			    strlen(k.node));
		if (!nl || !at)
			abort();
		check_digits(nl + 1, size - (size_t)(nl + 1 - data), &k);
	} else {
		check_digits(data, size, &k);
	}
	bcn_buf_init(&text, 4 * BCN_AUTH_KEY_MAX + BCN_NODE_MAX + 16);
	if (bcn_auth_key_format(&k, &text) ||
	    bcn_auth_key_parse((const char *)text.data, text.len, &back, err,
			       sizeof(err)) ||
	    back.len != k.len || memcmp(back.bytes, k.bytes, k.len) ||
	    strcmp(back.node, k.node))
		abort();
	bcn_buf_free(&text);
	return 0;
}
