/* Bounded growable byte buffer. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/utf8.h"

void bcn_buf_init(struct bcn_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void bcn_buf_free(struct bcn_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void bcn_buf_reset(struct bcn_buf *b)
{
	b->len = 0;
}

int bcn_buf_reserve(struct bcn_buf *b, size_t n)
{
	size_t need, ncap;
	uint8_t *p;

	if (n > b->max || b->len > b->max - n)
		return -BCN_EFULL;
	need = b->len + n;
	if (need <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	if (ncap > b->max)
		ncap = b->max;
	p = realloc(b->data, ncap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = ncap;
	return 0;
}

int bcn_buf_add(struct bcn_buf *b, const void *p, size_t n)
{
	int rc;

	if (n == 0)
		return 0;
	rc = bcn_buf_reserve(b, n);
	if (rc)
		return rc;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int bcn_buf_adds(struct bcn_buf *b, const char *s)
{
	return bcn_buf_add(b, s, strlen(s));
}

int bcn_buf_printf(struct bcn_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	rc = bcn_buf_reserve(b, (size_t)n + 1);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/* Length of the UTF-8 sequence at p if it is a valid one, else 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] < 0x80 ? 1 : p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;

	return bcn_utf8_valid((const char *)p, strnlen((const char *)p, n)) == n ? n : 0;
}

int bcn_buf_add_json_str(struct bcn_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char esc[6] = { '\\', 'u', '0', '0', 0, 0 };
	int rc = bcn_buf_add(b, "\"", 1);

	while (rc == 0 && *p) {
		size_t n = utf8_len(p);

		if (n == 0) {           /* invalid byte: U+FFFD */
			rc = bcn_buf_add(b, "\\ufffd", 6);
			p++;
		} else if (*p == '"' || *p == '\\') {
			char e[2] = { '\\', (char)*p };

			rc = bcn_buf_add(b, e, 2);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			rc = bcn_buf_add(b, esc, 6);
			p++;
		} else {
			rc = bcn_buf_add(b, p, n);
			p += n;
		}
	}
	return rc ? rc : bcn_buf_add(b, "\"", 1);
}

int bcn_buf_read_file(struct bcn_buf *b, const char *path)
{
	int fd, rc = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		rc = bcn_buf_reserve(b, 65536);
		if (rc == -BCN_EFULL && b->len < b->max)
			rc = bcn_buf_reserve(b, b->max - b->len);
		if (rc) {
			/* a full buffer is fine when the file ends exactly here */
			char c;
			if (rc == -BCN_EFULL && read(fd, &c, 1) == 0)
				rc = 0;
			goto out;
		}
		n = read(fd, b->data + b->len, b->cap - b->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto out;
		}
		if (n == 0)
			goto out;
		b->len += (size_t)n;
	}
out:
	close(fd);
	return rc;
}
