/* UTF-8 validation: records carry text from file systems and kernels that
 * need not be valid UTF-8, while JSON and the store must be. */
#ifndef BCN_UTF8_H
#define BCN_UTF8_H

#include <stddef.h>

#include "common/buf.h"

/* Length of the valid UTF-8 prefix of the n bytes at p (no overlong forms,
 * surrogates or code points above U+10FFFF). */
size_t bcn_utf8_valid(const char *p, size_t n);

/* Replaces each invalid UTF-8 byte at or after offset from in b by U+FFFD.
 * Returns 0 and the number of replaced bytes in *replaced, or a buf error
 * (b is then unchanged). */
int bcn_utf8_sanitize(struct bcn_buf *b, size_t from, size_t *replaced);


#endif
