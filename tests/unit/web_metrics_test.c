/* Tests of web/metrics: web_metrics_allow lists (addresses, CIDR blocks,
 * IPv6, separators, and bad entries refused with the entry named), which
 * peers they let in (block edges, IPv4-mapped IPv6, garbage), the label
 * escaping of the text format, and the latency buckets a time falls in
 * (edges inclusive, as le means). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/error.h"
#include "web/metrics.h"

static struct bcn_web_metrics m;

static void test_allow(void **state)
{
	char err[256];

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(bcn_web_metrics_allow_parse(&m, " 127.0.0.1,10.1.0.0/16"
		"  ::1\t2001:db8::/32, 192.168.7.7/0x", err, sizeof(err)),
		-BCN_ESYNTAX);
	assert_non_null(strstr(err, "192.168.7.7/0x"));
	assert_int_equal(bcn_web_metrics_allow_parse(&m, " 127.0.0.1,10.1.0.0/16"
		"  ::1\t2001:db8::/32,", err, sizeof(err)), 0);
	assert_int_equal(m.nallow, 4);
	assert_true(bcn_web_metrics_allowed(&m, "127.0.0.1"));
	assert_false(bcn_web_metrics_allowed(&m, "127.0.0.2"));
	assert_true(bcn_web_metrics_allowed(&m, "10.1.0.0"));
	assert_true(bcn_web_metrics_allowed(&m, "10.1.255.255"));
	assert_false(bcn_web_metrics_allowed(&m, "10.2.0.0"));
	assert_false(bcn_web_metrics_allowed(&m, "10.0.255.255"));
	assert_true(bcn_web_metrics_allowed(&m, "::ffff:10.1.2.3"));
	assert_true(bcn_web_metrics_allowed(&m, "::1"));
	assert_false(bcn_web_metrics_allowed(&m, "::2"));
	assert_true(bcn_web_metrics_allowed(&m, "2001:db8:ffff::1"));
	assert_false(bcn_web_metrics_allowed(&m, "2001:db9::1"));
	assert_false(bcn_web_metrics_allowed(&m, "?"));
	assert_false(bcn_web_metrics_allowed(&m, ""));
	/* odd prefix lengths, the whole space, nothing */
	assert_int_equal(bcn_web_metrics_allow_parse(&m, "192.168.4.0/23",
						     err, sizeof(err)), 0);
	assert_true(bcn_web_metrics_allowed(&m, "192.168.5.200"));
	assert_false(bcn_web_metrics_allowed(&m, "192.168.6.0"));
	assert_false(bcn_web_metrics_allowed(&m, "192.168.3.255"));
	assert_int_equal(bcn_web_metrics_allow_parse(&m, "0.0.0.0/0", err,
						     sizeof(err)), 0);
	assert_true(bcn_web_metrics_allowed(&m, "203.0.113.9"));
	assert_false(bcn_web_metrics_allowed(&m, "::1"));
	/* an IPv4-mapped block is the IPv4 block */
	assert_int_equal(bcn_web_metrics_allow_parse(&m, "::ffff:10.9.0.0/112",
						     err, sizeof(err)), 0);
	assert_true(bcn_web_metrics_allowed(&m, "10.9.200.1"));
	assert_true(bcn_web_metrics_allowed(&m, "::ffff:10.9.0.1"));
	assert_false(bcn_web_metrics_allowed(&m, "10.8.0.1"));
	assert_int_equal(bcn_web_metrics_allow_parse(&m, "", err, sizeof(err)), 0);
	assert_false(bcn_web_metrics_allowed(&m, "127.0.0.1"));
	for (const char *const *b = (const char *const[]){ "10.0.0.0/33",
	     "::/129", "10.0.0.0/", "/8", "localhost", "10.0.0.0/8/8",
	     "1.2.3.4.5", "10.0.0.0/-1", "10.0.0.0/0008", NULL }; *b; b++)
		assert_int_equal(bcn_web_metrics_allow_parse(&m, *b, err,
							     sizeof(err)),
				 -BCN_ESYNTAX);
}

static void test_allow_cap(void **state)
{
	char list[BCN_WEB_ALLOW_MAX * 16 + 32] = "", err[256];

	(void)state;
	for (int i = 0; i <= BCN_WEB_ALLOW_MAX; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "10.0.0.%d,", i);
	assert_int_equal(bcn_web_metrics_allow_parse(&m, list, err,
						     sizeof(err)), -E2BIG);
}

static void test_label(void **state)
{
	static const char in[] = "a\"b\\c\nd\te";
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, 64);
	assert_int_equal(bcn_web_metrics_label(&b, in, sizeof(in) - 1), 0);
	assert_int_equal(b.len, strlen("a\\\"b\\\\c\\nd\te"));
	assert_memory_equal(b.data, "a\\\"b\\\\c\\nd\te", b.len);
	bcn_buf_free(&b);
	bcn_buf_init(&b, 4);            /* bounded: a full buffer is an error */
	assert_int_equal(bcn_web_metrics_label(&b, in, sizeof(in) - 1),
			 -BCN_EFULL);
	bcn_buf_free(&b);
}

static void test_observe(void **state)
{
	(void)state;
	memset(&m, 0, sizeof(m));
	bcn_web_metrics_observe(&m, 0, 200, 1000000);   /* le 0.001 */
	bcn_web_metrics_observe(&m, 0, 204, 1000001);   /* le 0.0025 */
	bcn_web_metrics_observe(&m, 0, 404, -5);        /* clock step: 0 */
	bcn_web_metrics_observe(&m, 0, 503, 10000000001ll); /* +Inf */
	bcn_web_metrics_observe(&m, 0, 999, 1);         /* odd status: 5xx */
	bcn_web_metrics_observe(&m, BCN_WEB_ENDPOINTS_MAX, 200, 1); /* ignored */
	assert_int_equal(m.count[0][1], 2);
	assert_int_equal(m.bucket[0][1][0], 1);
	assert_int_equal(m.bucket[0][1][1], 1);
	assert_int_equal(m.sum_ns[0][1], 2000001);
	assert_int_equal(m.bucket[0][3][0], 1);
	assert_int_equal(m.count[0][4], 2);
	assert_int_equal(m.bucket[0][4][BCN_WEB_BUCKETS - 1], 1);
	assert_string_equal(bcn_web_metrics_bucket_le(0), "0.001");
	assert_string_equal(bcn_web_metrics_bucket_le(BCN_WEB_BUCKETS - 1), "+Inf");
	assert_null(bcn_web_metrics_bucket_le(BCN_WEB_BUCKETS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow),
		cmocka_unit_test(test_allow_cap),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_observe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
