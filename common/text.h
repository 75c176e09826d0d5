/* Scanning text in memory: the small pieces the parsers of files and
 * options share (Lustre statistics, sysfs counters, key files, /proc
 * files, command-line numbers). Blanks in two flavours, decimal digits,
 * unsigned 64-bit decimals with an overflow check (a prefix, or the whole
 * of a buffer), hex digits both ways, and iteration over the lines of a
 * buffer. Every function works on [p, end) or (p, len) and never needs a
 * NUL; none allocates. The one-character tests are inline: the Lustre
 * parsers call them per byte of megabytes of job_stats. */
#ifndef BCN_TEXT_H
#define BCN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A blank inside a line: ' ', '\t', '\r', '\v' or '\f' (isspace() in the
 * C locale, but not '\n'). */
static inline bool bcn_text_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A blank of a whole small file (a key, a sysfs value): ' ', '\t', '\r'
 * or '\n'. */
static inline bool bcn_text_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A decimal digit '0'..'9'. */
static inline bool bcn_text_is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* The first byte of [p, end) that is not bcn_text_is_space (end if none). */
static inline const char *bcn_text_skip_space(const char *p, const char *end)
{
	while (p < end && bcn_text_is_space(*p))
		p++;
	return p;
}

/* The end of [p, end) without its trailing bcn_text_is_space bytes. */
static inline const char *bcn_text_trim_space(const char *p, const char *end)
{
	while (end > p && bcn_text_is_space(end[-1]))
		end--;
	return end;
}

/* The value of a hex digit ('0'..'9', 'a'..'f', 'A'..'F'), or -1. */
int bcn_text_hexval(char c);

/* Makes n bytes at p safe to print on a terminal: every control
 * character but the newline (C0, DEL, and C1 as UTF-8 encodes it) becomes
 * '?', so that a job name cannot move the cursor or retitle a window. */
void bcn_text_defang(char *p, size_t n);

/* Writes the n bytes of in as 2n lower-case hex digits to out (no NUL). */
void bcn_text_hex(char *out, const uint8_t *in, size_t n);

/* Parses the decimal digits at [*p, end) (no sign, no blanks) into *v and
 * advances *p past them; what follows the digits is the caller's. Returns
 * 0, -BCN_ESYNTAX when *p is not a digit, or -BCN_ERANGE when the number
 * exceeds UINT64_MAX (*p and *v unchanged on failure). */
int bcn_text_u64(const char **p, const char *end, uint64_t *v);

/* Parses the whole of p[0..len) as a decimal (digits only). Returns 0,
 * -BCN_ESYNTAX (empty, or a byte that is not a digit before any
 * overflow), or -BCN_ERANGE (*v unchanged on failure). */
int bcn_text_u64_all(const char *p, size_t len, uint64_t *v);

/* One line of a buffer, without its '\n'. */
struct bcn_text_line {
	const char *p;
	const char *end;
};

/* Takes the line at *pos of a buffer ending at end into *l and moves *pos
 * past its '\n' (to end for a last line without one). Returns false, with
 * *l untouched, when *pos == end: "a\n" is one line, "a\n\nb" three. */
static inline bool bcn_text_next_line(const char **pos, const char *end,
				      struct bcn_text_line *l)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	l->p = p;
	l->end = nl ? nl : end;
	*pos = nl ? nl + 1 : end;
	return true;
}

#endif
