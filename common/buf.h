/* Growable byte buffer with a hard maximum (after curl's dynbuf): appends
 * that would pass the maximum fail with -BCN_EFULL and leave the buffer as
 * it was. */
#ifndef BCN_BUF_H
#define BCN_BUF_H

#include <stddef.h>
#include <stdint.h>

struct bcn_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t max;     /* appends beyond this many bytes fail */
};

/* Prepares an empty buffer that may grow to max bytes. */
void bcn_buf_init(struct bcn_buf *b, size_t max);
/* Frees the storage; the buffer may be reused after bcn_buf_init. */
void bcn_buf_free(struct bcn_buf *b);
/* Empties the buffer, keeping its storage. */
void bcn_buf_reset(struct bcn_buf *b);
/* Makes room for n more bytes. Returns 0, -BCN_EFULL or -ENOMEM. */
int bcn_buf_reserve(struct bcn_buf *b, size_t n);
/* Appends n bytes. Returns 0, -BCN_EFULL or -ENOMEM. */
int bcn_buf_add(struct bcn_buf *b, const void *p, size_t n);
/* Appends a NUL-terminated string without its terminator. */
int bcn_buf_adds(struct bcn_buf *b, const char *s);
/* Appends printf-style text. Returns 0, -BCN_EFULL or -ENOMEM. */
int bcn_buf_printf(struct bcn_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included; bytes that are not
 * valid UTF-8 become U+FFFD, so the output is always valid JSON. */
int bcn_buf_add_json_str(struct bcn_buf *b, const char *s);

/* Reads a whole file into b (bounded by b->max). Returns 0 or a negative
 * code (-errno, -BCN_EFULL if the file is larger than the maximum). */
int bcn_buf_read_file(struct bcn_buf *b, const char *path);

#endif
