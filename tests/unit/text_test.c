/* Tests of common/text: table-driven cases for the decimal parsers (the
 * 2^64 edge, leading and trailing junk, empty input, the prefix parser's
 * stopping point), hex digits (upper, lower, invalid) and hex strings,
 * the blank classes, trimming, and line iteration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/error.h"
#include "common/text.h"

#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

struct u64_case {
	const char *in;
	int rc;                 /* of bcn_text_u64_all */
	uint64_t v;             /* of either, when it succeeds */
	int prefix_rc;          /* of bcn_text_u64 */
	size_t prefix_len;      /* digits it consumes */
};

static const struct u64_case u64_cases[] = {
	{ "0", 0, 0, 0, 1 },
	{ "7", 0, 7, 0, 1 },
	{ "000123", 0, 123, 0, 6 },
	{ "1234567890123456789", 0, UINT64_C(1234567890123456789), 0, 19 },
	{ "18446744073709551615", 0, UINT64_MAX, 0, 20 },
	{ "018446744073709551615", 0, UINT64_MAX, 0, 21 },
	{ "18446744073709551616", -BCN_ERANGE, 0, -BCN_ERANGE, 0 },
	{ "18446744073709551620", -BCN_ERANGE, 0, -BCN_ERANGE, 0 },
	{ "99999999999999999999", -BCN_ERANGE, 0, -BCN_ERANGE, 0 },
	{ "184467440737095516150", -BCN_ERANGE, 0, -BCN_ERANGE, 0 },
	{ "99999999999999999999x", -BCN_ERANGE, 0, -BCN_ERANGE, 0 },
	{ "", -BCN_ESYNTAX, 0, -BCN_ESYNTAX, 0 },
	{ " 1", -BCN_ESYNTAX, 0, -BCN_ESYNTAX, 0 },
	{ "+1", -BCN_ESYNTAX, 0, -BCN_ESYNTAX, 0 },
	{ "-1", -BCN_ESYNTAX, 0, -BCN_ESYNTAX, 0 },
	{ "x1", -BCN_ESYNTAX, 0, -BCN_ESYNTAX, 0 },
	{ "12 ", -BCN_ESYNTAX, 12, 0, 2 },
	{ "12\n", -BCN_ESYNTAX, 12, 0, 2 },
	{ "12x", -BCN_ESYNTAX, 12, 0, 2 },
	{ "1.5", -BCN_ESYNTAX, 1, 0, 1 },
	{ "0x10", -BCN_ESYNTAX, 0, 0, 1 },
	{ "18446744073709551615 ", -BCN_ESYNTAX, UINT64_MAX, 0, 20 },
};

static void test_u64(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(u64_cases) / sizeof(u64_cases[0]); i++) {
		const struct u64_case *c = &u64_cases[i];
		size_t len = strlen(c->in);
		const char *p = c->in;
		uint64_t v = SENTINEL;
		int rc = bcn_text_u64_all(c->in, len, &v);

		print_message("case %zu: '%s'\n", i, c->in);
		assert_int_equal(rc, c->rc);
		assert_true(v == (rc ? SENTINEL : c->v));
		v = SENTINEL;
		rc = bcn_text_u64(&p, c->in + len, &v);
		assert_int_equal(rc, c->prefix_rc);
		assert_int_equal((size_t)(p - c->in), c->prefix_len);
		if (rc == 0)
			assert_true(v == c->v);
		else
			assert_true(v == SENTINEL);
	}
}

/* The parsers stop at the given end, not at a NUL. */
static void test_u64_bounded(void **state)
{
	const char *s = "12345";
	const char *p = s;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(bcn_text_u64(&p, s + 3, &v), 0);
	assert_true(v == 123);
	assert_ptr_equal(p, s + 3);
	assert_int_equal(bcn_text_u64_all(s, 2, &v), 0);
	assert_true(v == 12);
	p = s;
	assert_int_equal(bcn_text_u64(&p, s, &v), -BCN_ESYNTAX);
}

static void test_hexval(void **state)
{
	static const struct { char c; int v; } cases[] = {
		{ '0', 0 }, { '9', 9 }, { 'a', 10 }, { 'f', 15 }, { 'A', 10 },
		{ 'F', 15 }, { 'c', 12 }, { 'D', 13 }, { 'g', -1 }, { 'G', -1 },
		{ '/', -1 }, { ':', -1 }, { '@', -1 }, { '`', -1 }, { ' ', -1 },
		{ '\0', -1 }, { 'x', -1 }, { (char)0xe9, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(bcn_text_hexval(cases[i].c), cases[i].v);
}

static void test_hex(void **state)
{
	static const uint8_t in[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
	char out[2 * sizeof(in) + 1];

	(void)state;
	memset(out, '#', sizeof(out));
	bcn_text_hex(out, in, sizeof(in));
	assert_memory_equal(out, "00017f80abff", 12);
	assert_int_equal(out[12], '#');
	bcn_text_hex(out, in, 0);
	assert_int_equal(out[0], '0');
	for (size_t i = 0; i < sizeof(in); i++)
		assert_int_equal(bcn_text_hexval(out[2 * i]) << 4 |
				 bcn_text_hexval(out[2 * i + 1]), in[i]);
}

static void test_blanks(void **state)
{
	const char *s = " \t\r\v\fx y \t";
	const char *end = s + strlen(s);

	(void)state;
	assert_true(bcn_text_is_space(' ') && bcn_text_is_space('\f'));
	assert_false(bcn_text_is_space('\n') || bcn_text_is_space('x') ||
		     bcn_text_is_space('\0'));
	assert_true(bcn_text_is_blank('\n') && bcn_text_is_blank('\r'));
	assert_false(bcn_text_is_blank('\v') || bcn_text_is_blank('\f'));
	assert_true(bcn_text_is_digit('0') && bcn_text_is_digit('9'));
	assert_false(bcn_text_is_digit('/') || bcn_text_is_digit(':'));
	assert_ptr_equal(bcn_text_skip_space(s, end), s + 5);
	assert_ptr_equal(bcn_text_trim_space(s, end), s + 8);
	assert_ptr_equal(bcn_text_skip_space(s, s + 3), s + 3);
	assert_ptr_equal(bcn_text_trim_space(s, s + 5), s);
	assert_ptr_equal(bcn_text_skip_space(end, end), end);
}

static void test_lines(void **state)
{
	static const struct {
		const char *in;
		unsigned n;
		const char *joined;     /* lines joined by '|' */
	} cases[] = {
		{ "", 0, "" },
		{ "a", 1, "a" },
		{ "a\n", 1, "a" },
		{ "\n", 1, "" },
		{ "a\n\nb", 3, "a||b" },
		{ "ab\ncd\n", 2, "ab|cd" },
		{ "\n\n", 2, "|" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *pos = cases[i].in, *end = pos + strlen(pos);
		struct bcn_text_line l;
		char joined[64] = "";
		size_t o = 0;
		unsigned n = 0;

		while (bcn_text_next_line(&pos, end, &l)) {
			if (n++)
				joined[o++] = '|';
			memcpy(joined + o, l.p, (size_t)(l.end - l.p));
			o += (size_t)(l.end - l.p);
		}
		joined[o] = '\0';
		assert_int_equal(n, cases[i].n);
		assert_string_equal(joined, cases[i].joined);
		assert_ptr_equal(pos, end);
	}
}

/* Terminal controls in names become '?'; newlines, text and UTF-8
 * letters stay. */
static void test_defang(void **state)
{
	static const struct { const char *in, *out; } t[] = {
		{ "wrf run 3\n", "wrf run 3\n" },
		{ "evil\033]0;pwned\007x", "evil?]0;pwned?x" },
		{ "tab\there\rcr\x7f", "tab?here?cr?" },
		{ "c1 \xc2\x9b" "31m", "c1 ??31m" },
		{ "caf\xc3\xa9 \xc2\xa0nbsp", "caf\xc3\xa9 \xc2\xa0nbsp" },
		{ "\xc2", "\xc2" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char b[64];

		snprintf(b, sizeof(b), "%s", t[i].in);
		bcn_text_defang(b, strlen(b));
		assert_string_equal(b, t[i].out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_u64_bounded),
		cmocka_unit_test(test_hexval),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_blanks),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_defang),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
