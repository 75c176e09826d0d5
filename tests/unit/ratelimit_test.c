/* Unit tests of web/ratelimit: a key is blocked after limit failures
 * until its window ends, other keys are not; a full table gives way
 * to new keys by evicting the oldest window and never grows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "web/ratelimit.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define LONG_KEY "u:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void limit_and_window(void **state)
{
	struct bcn_ratelimit *rl = bcn_ratelimit_new(16, 3, S(60));

	(void)state;
	assert_non_null(rl);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(bcn_ratelimit_blocked(rl, "u:alice", S(10 + i)), 0);
		bcn_ratelimit_fail(rl, "u:alice", S(10 + i));
	}
	assert_int_equal(bcn_ratelimit_blocked(rl, "u:alice", S(20)), S(50));
	assert_int_equal(bcn_ratelimit_blocked(rl, "u:bob", S(20)), 0);
	assert_int_equal(bcn_ratelimit_blocked(rl, "u:alice", S(69)), S(1));
	assert_int_equal(bcn_ratelimit_blocked(rl, "u:alice", S(70)), 0);
	/* a new window starts from nothing */
	bcn_ratelimit_fail(rl, "u:alice", S(71));
	assert_int_equal(bcn_ratelimit_blocked(rl, "u:alice", S(72)), 0);
	bcn_ratelimit_free(rl);
}

static void bounded(void **state)
{
	struct bcn_ratelimit *rl = bcn_ratelimit_new(4, 1, S(60));
	char k[32];

	(void)state;
	for (int i = 0; i < 4; i++) {
		snprintf(k, sizeof(k), "a:%d", i);
		bcn_ratelimit_fail(rl, k, S(i));
	}
	for (int i = 0; i < 4; i++) {
		snprintf(k, sizeof(k), "a:%d", i);
		assert_true(bcn_ratelimit_blocked(rl, k, S(5)) > 0);
	}
	/* a fifth key evicts the oldest, a:0 */
	bcn_ratelimit_fail(rl, "a:new", S(6));
	assert_true(bcn_ratelimit_blocked(rl, "a:new", S(7)) > 0);
	assert_int_equal(bcn_ratelimit_blocked(rl, "a:0", S(7)), 0);
	assert_true(bcn_ratelimit_blocked(rl, "a:3", S(7)) > 0);
	/* a very long key is cut, not overflowed, and still limited */
	bcn_ratelimit_fail(rl, LONG_KEY, S(8));
	assert_true(bcn_ratelimit_blocked(rl, LONG_KEY, S(9)) > 0);
	assert_null(bcn_ratelimit_new(0, 1, S(1)));
	bcn_ratelimit_free(rl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limit_and_window),
		cmocka_unit_test(bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
