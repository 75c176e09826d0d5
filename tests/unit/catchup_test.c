/* Tests of analysis/anomaly/catchup's planner: table-driven cases of one
 * or two stores' counts, marks and previous counts (a history arriving,
 * settled, late data re-opening an interval and the rounds that read it,
 * an interval never examined between examined ones, a second store added
 * later), and the names marks are kept under. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/anomaly/catchup.h"
#include "jobdb/marks.h"

#define N_ BCN_CATCHUP_NONE
#define IV 6

struct plan_case {
	const char *what;
	size_t ns, follow;
	uint64_t cur[2][IV], mark[2][IV], prev[2][IV];
	int settled;                    /* prev NULL */
	const char *want;               /* per interval: . N C F */
};

static const struct plan_case cases[] = {
	{ "a new database: every interval with its count is new, settled",
	  1, 2, { { 0, 5, 7, 0, 3, 0 } }, { { N_, N_, N_, N_, N_, N_ } },
	  { { 0 } }, 1, "NNNNNN" },
	{ "a history still arriving waits until two checks agree",
	  1, 2, { { 5, 5, 9, 2, 0, 0 } }, { { N_, N_, N_, N_, N_, N_ } },
	  { { 5, 5, 4, N_, 0, 0 } }, 0, "NN..NN" },
	{ "nothing changed: nothing is due",
	  1, 2, { { 5, 5, 9, 2, 0, 0 } }, { { 5, 5, 9, 2, 0, 0 } },
	  { { 5, 5, 9, 2, 0, 0 } }, 0, "......" },
	{ "late data re-opens its interval and the rounds reading it",
	  1, 2, { { 5, 6, 9, 2, 1, 0 } }, { { 5, 5, 9, 2, 1, 0 } },
	  { { 5, 6, 9, 2, 1, 0 } }, 0, ".CFF.." },
	{ "the follow-up of a re-opened interval stops at the window",
	  1, 1, { { 6, 5, 9, 2, 1, 0 } }, { { 5, 5, 9, 2, 1, 0 } },
	  { { 6, 5, 9, 2, 1, 0 } }, 0, "CF...." },
	{ "late data still arriving is not examined yet, nor what follows",
	  1, 2, { { 5, 7, 9, 2, 1, 0 } }, { { 5, 5, 9, 2, 1, 0 } },
	  { { 5, 6, 9, 2, 1, 0 } }, 0, "......" },
	{ "a re-opened interval next to a new one",
	  1, 3, { { 5, 6, 9, 4, 0, 0 } }, { { 5, 5, 9, N_, N_, N_ } },
	  { { 5, 6, 9, 4, 0, 0 } }, 0, ".CFNNN" },
	{ "an interval never examined between examined ones",
	  1, 2, { { 5, 5, 9, 2, 0, 0 } }, { { 5, 5, N_, 2, 0, 0 } },
	  { { 5, 5, 9, 2, 0, 0 } }, 0, "..N..." },
	{ "a second store added later makes every interval due once",
	  2, 2, { { 5, 5, 0, 0, 0, 0 }, { 1, 0, 0, 3, 0, 0 } },
	  { { 5, 5, 0, 0, 0, 0 }, { N_, N_, N_, N_, N_, N_ } },
	  { { 0 } }, 1, "CCCCCC" },
	{ "a change in one store of two re-opens the interval",
	  2, 0, { { 5, 5, 0, 0, 0, 0 }, { 1, 0, 0, 4, 0, 0 } },
	  { { 5, 5, 0, 0, 0, 0 }, { 1, 0, 0, 3, 0, 0 } },
	  { { 5, 5, 0, 0, 0, 0 }, { 1, 0, 0, 4, 0, 0 } }, 0, "...C.." },
};

static void test_plan(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct plan_case *c = &cases[k];
		uint64_t cur[2 * IV], mark[2 * IV], prev[2 * IV];
		uint8_t due[IV];
		char got[IV + 1];
		size_t n, want_n = 0;

		for (size_t s = 0; s < c->ns; s++)
			for (size_t i = 0; i < IV; i++) {
				cur[s * IV + i] = c->cur[s][i];
				mark[s * IV + i] = c->mark[s][i];
				prev[s * IV + i] = c->prev[s][i];
			}
		n = bcn_catchup_plan(IV, c->ns, cur, mark,
				     c->settled ? NULL : prev, c->follow, due);
		for (size_t i = 0; i < IV; i++) {
			got[i] = ".NCF"[due[i]];
			want_n += c->want[i] != '.';
		}
		got[IV] = 0;
		if (strcmp(got, c->want) || n != want_n)
			fail_msg("%s: got %s (%zu due), want %s", c->what, got,
				 n, c->want);
	}
}

static void test_store_name(void **state)
{
	struct bcn_store s;
	char name[BCN_MARK_STORE_MAX + 1], other[BCN_MARK_STORE_MAX + 1];

	(void)state;
	memset(&s, 0, sizeof(s));
	s.cfg.backend = BCN_STORE_SQLITE;
	snprintf(s.cfg.dir, sizeof(s.cfg.dir), "/var/lib/beacon/store");
	bcn_catchup_store_name(&s, name, sizeof(name));
	assert_string_equal(name, "sqlite:/var/lib/beacon/store");
	s.cfg.backend = BCN_STORE_OPENSEARCH;
	snprintf(s.cfg.url, sizeof(s.cfg.url), "http://10.0.0.1:9200");
	snprintf(s.cfg.index_prefix, sizeof(s.cfg.index_prefix), "beacon");
	bcn_catchup_store_name(&s, name, sizeof(name));
	assert_string_equal(name, "opensearch:http://10.0.0.1:9200/beacon");
	/* long directories: cut, and two that differ only at the end differ */
	s.cfg.backend = BCN_STORE_SQLITE;
	memset(s.cfg.dir, 'd', 300);
	s.cfg.dir[300] = 0;
	bcn_catchup_store_name(&s, name, sizeof(name));
	s.cfg.dir[299] = 'e';
	bcn_catchup_store_name(&s, other, sizeof(other));
	assert_true(strlen(name) <= BCN_MARK_STORE_MAX);
	assert_true(strlen(other) <= BCN_MARK_STORE_MAX);
	assert_string_not_equal(name, other);
	assert_memory_equal(name, "sqlite:dddd", 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_store_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
