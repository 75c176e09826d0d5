/* libFuzzer target for common/text: feeds arbitrary bytes (copied to a
 * buffer of exactly their length, so reading past it is caught) to the
 * decimal parsers and the line iterator, and checks their invariants
 * against a reference: a whole-buffer parse succeeds exactly when the
 * buffer is 1..n digits whose value fits 64 bits, agrees with the prefix
 * parser, leaves the output alone on failure, and prints back to the same
 * digits without leading zeros; the lines cover the buffer exactly. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/text.h"

#define FZ_SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reference: 1 if s[0..n) is all digits, and its value's overflow. */
static int all_digits(const char *s, size_t n, int *overflow)
{
	uint64_t x = 0;

	*overflow = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9)
			return 0;
		if (x > (UINT64_MAX - d) / 10)
			*overflow = 1;
		x = x * 10 + d;
	}
	return n > 0;
}

static void check_u64(const char *s, size_t n)
{
	uint64_t v = FZ_SENTINEL, w = FZ_SENTINEL;
	const char *p = s;
	char out[24];
	int overflow, digits = all_digits(s, n, &overflow);
	int rc = bcn_text_u64_all(s, n, &v);
	int prc = bcn_text_u64(&p, s + n, &w);

	if ((digits && !overflow && rc != 0) ||
	    (digits && overflow && rc != -BCN_ERANGE) || (!digits && rc == 0))
		abort();
	if (rc) {
		if ((rc != -BCN_ESYNTAX && rc != -BCN_ERANGE) || v != FZ_SENTINEL)
			abort();
	} else {
		size_t z = 0;

		if (prc || w != v || p != s + n)
			abort();
		while (z + 1 < n && s[z] == '0')
			z++;
		snprintf(out, sizeof(out), "%" PRIu64, v);
		if (strlen(out) != n - z || memcmp(out, s + z, n - z))
			abort();
	}
	if (prc == 0 && (p == s || p > s + n ||
			 (p < s + n && bcn_text_is_digit(*p))))
		abort();
	if (prc && (p != s || w != FZ_SENTINEL))
		abort();
}

static void check_lines(const char *s, size_t n)
{
	const char *pos = s, *end = s + n, *expect = s;
	struct bcn_text_line l;

	while (bcn_text_next_line(&pos, end, &l)) {
		if (l.p != expect || l.end > end ||
		    memchr(l.p, '\n', (size_t)(l.end - l.p)))
			abort();
		if (l.end < end && *l.end != '\n')
			abort();
		expect = l.end < end ? l.end + 1 : end;
		if (pos != expect)
			abort();
	}
	if (pos != end)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);

	if (!s)
		return 0;
	if (size)
		memcpy(s, data, size);
	check_u64(s, size);
	check_lines(s, size);
	free(s);
	return 0;
}
