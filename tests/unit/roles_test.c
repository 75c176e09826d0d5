/* Unit tests of logsrv/roles: the role map's grammar, lookups with and
 * without a default, and the record types each role allows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/error.h"
#include "logsrv/roles.h"
#include "proto/record.h"

#define T(x) (1u << (x))

static void test_lookup(void **state)
{
	static const char map[] =
		"# site roles\n"
		"\n"
		"cn[001-100] compute\n"
		"fwd[1-4]   forwarding\n"
		"oss[1-2] oss\n"
		"  mds1\tmds  \n"
		"sched1 scheduler\n"
		"cn050 none\n";         /* a later line wins */
	struct bcn_roles *r;
	char err[256];

	(void)state;
	assert_int_equal(bcn_roles_parse(map, sizeof(map) - 1, BCN_ROLE_NONE,
					 &r, err, sizeof(err)), 0);
	assert_int_equal(bcn_roles_count(r), 100 + 4 + 2 + 1 + 1);
	assert_int_equal(bcn_roles_of(r, "cn001"), BCN_ROLE_COMPUTE);
	assert_int_equal(bcn_roles_of(r, "cn100"), BCN_ROLE_COMPUTE);
	assert_int_equal(bcn_roles_of(r, "cn050"), BCN_ROLE_NONE);
	assert_int_equal(bcn_roles_of(r, "fwd3"), BCN_ROLE_FORWARDING);
	assert_int_equal(bcn_roles_of(r, "oss2"), BCN_ROLE_OSS);
	assert_int_equal(bcn_roles_of(r, "mds1"), BCN_ROLE_MDS);
	assert_int_equal(bcn_roles_of(r, "sched1"), BCN_ROLE_SCHEDULER);
	assert_int_equal(bcn_roles_of(r, "cn101"), BCN_ROLE_NONE);  /* default */
	assert_int_equal(bcn_roles_of(NULL, "cn101"), BCN_ROLE_ANY);
	bcn_roles_free(r);
}

static void test_types(void **state)
{
	(void)state;
	assert_true(bcn_role_types(BCN_ROLE_COMPUTE) & T(BCN_REC_IO));
	assert_false(bcn_role_types(BCN_ROLE_COMPUTE) & T(BCN_REC_OST));
	assert_false(bcn_role_types(BCN_ROLE_COMPUTE) & T(BCN_REC_JOB));
	assert_true(bcn_role_types(BCN_ROLE_COMPUTE) & T(BCN_REC_TRACE_LOSS));
	assert_false(bcn_role_types(BCN_ROLE_OSS) & T(BCN_REC_TRACE_LOSS));
	assert_true(bcn_role_types(BCN_ROLE_OSS) & T(BCN_REC_OST));
	assert_false(bcn_role_types(BCN_ROLE_OSS) & T(BCN_REC_MDS));
	assert_true(bcn_role_types(BCN_ROLE_MDS) & T(BCN_REC_MDS));
	assert_true(bcn_role_types(BCN_ROLE_FORWARDING) & T(BCN_REC_FWD_RPC));
	assert_false(bcn_role_types(BCN_ROLE_FORWARDING) & T(BCN_REC_IO));
	assert_int_equal(bcn_role_types(BCN_ROLE_SWITCH),
			 T(BCN_REC_PORT) | T(BCN_REC_TOPOLOGY) | T(BCN_REC_HEALTH));
	assert_int_equal(bcn_role_types(BCN_ROLE_SCHEDULER),
			 T(BCN_REC_JOB) | T(BCN_REC_HEALTH));
	for (int r = BCN_ROLE_COMPUTE; r < BCN_ROLE_NONE; r++)
		assert_true(bcn_role_types(r) & T(BCN_REC_HEALTH));
	assert_int_equal(bcn_role_types(BCN_ROLE_NONE), 0);
	for (int t = 1; t < BCN_REC_TYPE_MAX; t++)
		assert_true(bcn_role_types(BCN_ROLE_ANY) & T(t));
}

static void test_errors(void **state)
{
	static const struct { const char *text, *why; int rc; } bad[] = {
		{ "cn1 compute\ncn2 wizard\n", "line 2: unknown role", -BCN_ESYNTAX },
		{ "cn[3-1] compute\n", "line 1: bad hostlist", -BCN_ESYNTAX },
		{ "cn1\n", "line 1: want", -BCN_ESYNTAX },
		{ "cn1 compute extra\n", "line 1: want", -BCN_ESYNTAX },
		{ "cn[0-2000000] compute\n", "line 1: bad hostlist", -BCN_ESYNTAX },
	};
	struct bcn_roles *r = (struct bcn_roles *)1;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(bcn_roles_parse(bad[i].text, strlen(bad[i].text),
						 BCN_ROLE_ANY, &r, err,
						 sizeof(err)), bad[i].rc);
		assert_null(r);
		assert_non_null(strstr(err, bad[i].why));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
