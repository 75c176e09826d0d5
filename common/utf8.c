/* UTF-8 validation and repair. */
#include <string.h>

#include "common/utf8.h"

size_t bcn_utf8_valid(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], len, lo = 0x80, hi = 0xbf;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		else
			return i;
		if (c == 0xe0)
			lo = 0xa0;              /* overlong */
		else if (c == 0xed)
			hi = 0x9f;              /* surrogates */
		else if (c == 0xf0)
			lo = 0x90;              /* overlong */
		else if (c == 0xf4)
			hi = 0x8f;              /* above U+10FFFF */
		if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (unsigned k = 2; k < len; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return i;
		i += len;
	}
	return n;
}

int bcn_utf8_sanitize(struct bcn_buf *b, size_t from, size_t *replaced)
{
	static const char fffd[] = "\xef\xbf\xbd";
	size_t i = from, bad = 0, len = b->len;
	struct bcn_buf tmp;
	int rc = 0;

	*replaced = 0;
	if (from >= len ||
	    bcn_utf8_valid((const char *)b->data + from, len - from) == len - from)
		return 0;
	bcn_buf_init(&tmp, b->max);
	rc = bcn_buf_add(&tmp, b->data, from);
	while (rc == 0 && i < len) {
		size_t ok = bcn_utf8_valid((const char *)b->data + i, len - i);

		rc = bcn_buf_add(&tmp, b->data + i, ok);
		i += ok;
		if (rc == 0 && i < len) {
			rc = bcn_buf_add(&tmp, fffd, 3);
			bad++;
			i++;
		}
	}
	if (rc) {
		bcn_buf_free(&tmp);
		return rc;
	}
	bcn_buf_free(b);
	*b = tmp;
	*replaced = bad;
	return 0;
}
