/* The out-of-line pieces of the text kit (text.h): hex digits and the
 * decimal parsers. */
#include "common/error.h"
#include "common/text.h"

int bcn_text_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void bcn_text_hex(char *out, const uint8_t *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
}

int bcn_text_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	const char *fast = end - p > 19 ? p + 19 : end;
	uint64_t x = 0;

	if (p >= end || !bcn_text_is_digit(*p))
		return -BCN_ESYNTAX;
	/* 19 digits cannot overflow */
	for (; p < fast && bcn_text_is_digit(*p); p++)
		x = x * 10 + (uint64_t)(*p - '0');
	for (; p < end && bcn_text_is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (x > UINT64_MAX / 10 ||
		    (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return -BCN_ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	*pp = p;
	return 0;
}

int bcn_text_u64_all(const char *p, size_t len, uint64_t *v)
{
	const char *q = p, *end = p + len;
	uint64_t x;
	int rc;

	if (len == 0)
		return -BCN_ESYNTAX;
	rc = bcn_text_u64(&q, end, &x);
	if (rc)
		return rc;
	if (q != end)
		return -BCN_ESYNTAX;
	*v = x;
	return 0;
}

void bcn_text_defang(char *p, size_t n)
{
	unsigned char *u = (unsigned char *)p;

	for (size_t i = 0; i < n; i++) {
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			u[i] = '?';
		else if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 &&
			 u[i + 1] <= 0x9f)
			u[i] = u[i + 1] = '?';
	}
}
