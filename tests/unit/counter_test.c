/* Tests of collectors/runtime/counter: the delta rule over a table of cases (plain
 * increases, 32- and 64-bit wraps, saturated counters of several widths,
 * resets, out-of-range values), and the counter table: first samples,
 * deltas and their time windows, vector length changes, forgetting after
 * missed sweeps, the bound on entities, and many entities through growth
 * and deletion against a reference model. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/runtime/counter.h"
#include "common/error.h"

#define U32MAX UINT64_C(0xffffffff)

struct delta_case {
	uint8_t kind;
	uint64_t prev, cur;
	uint64_t delta;
	unsigned flags;
};

static const struct delta_case delta_cases[] = {
	/* ordinary increases and no change */
	{ BCN_COUNTER_U64, 0, 0, 0, 0 },
	{ BCN_COUNTER_U64, 10, 25, 15, 0 },
	{ BCN_COUNTER_U64, 0, UINT64_MAX, UINT64_MAX, 0 },
	{ BCN_COUNTER_U32, 100, U32MAX, U32MAX - 100, 0 },
	/* 64-bit wraps */
	{ BCN_COUNTER_U64, UINT64_MAX, 0, 1, BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_U64, UINT64_MAX - 9, 5, 15, BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_U64, UINT64_C(1) << 63, 0, 0, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_U64, (UINT64_C(1) << 63) + 1, 0,
	  (UINT64_C(1) << 63) - 1, BCN_COUNTER_F_WRAP },
	/* 64-bit resets: a restarted OSS, a remounted target */
	{ BCN_COUNTER_U64, 1000, 5, 5, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_U64, 1000, 0, 0, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_U64, 123456789012, 42, 42, BCN_COUNTER_F_RESET },
	/* 32-bit wraps and resets */
	{ BCN_COUNTER_U32, U32MAX, 0, 1, BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_U32, U32MAX - 99, 100, 200, BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_U32, 3000000000u, 1000000000u, 1000000000u,
	  BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_U32, 4000000000u, 100000000u, 394967296u,
	  BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_U32, 1000, 999, 999, BCN_COUNTER_F_RESET },
	/* a 32-bit counter reading above 2^32 - 1: taken as 64-bit */
	{ BCN_COUNTER_U32, 10, U32MAX + 6, U32MAX - 4, BCN_COUNTER_F_RANGE },
	{ BCN_COUNTER_U32, U32MAX + 6, 7, 7,
	  BCN_COUNTER_F_RANGE | BCN_COUNTER_F_RESET },
	/* saturating 32-bit counters (IB PortCounters) */
	{ BCN_COUNTER_SAT32, 100, 200, 100, 0 },
	{ BCN_COUNTER_SAT32, 100, U32MAX, U32MAX - 100,
	  BCN_COUNTER_F_SATURATED },
	{ BCN_COUNTER_SAT32, U32MAX, U32MAX, 0, BCN_COUNTER_F_SATURATED },
	{ BCN_COUNTER_SAT32, U32MAX, 0, 0, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_SAT32, U32MAX, 17, 17, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_SAT32, U32MAX - 1, 5, 5, BCN_COUNTER_F_RESET },
	/* narrower saturating counters: 16-bit symbol errors, 8-bit link
	 * downed, 4-bit local link integrity errors */
	{ BCN_COUNTER_SAT(16), 65000, 65535, 535, BCN_COUNTER_F_SATURATED },
	{ BCN_COUNTER_SAT(16), 65535, 65535, 0, BCN_COUNTER_F_SATURATED },
	{ BCN_COUNTER_SAT(16), 100, 90, 90, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_SAT(8), 3, 255, 252, BCN_COUNTER_F_SATURATED },
	{ BCN_COUNTER_SAT(4), 2, 15, 13, BCN_COUNTER_F_SATURATED },
	{ BCN_COUNTER_SAT(4), 2, 16, 14, BCN_COUNTER_F_RANGE },
	{ BCN_COUNTER_SAT(64), 5, UINT64_MAX, UINT64_MAX - 5,
	  BCN_COUNTER_F_SATURATED },
	/* narrow wrapping counters */
	{ BCN_COUNTER_WRAP(16), 65530, 4, 10, BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_WRAP(8), 200, 100, 100, BCN_COUNTER_F_RESET },
	{ BCN_COUNTER_WRAP(8), 250, 2, 8, BCN_COUNTER_F_WRAP },
	{ BCN_COUNTER_WRAP(1), 1, 0, 0, BCN_COUNTER_F_RESET },
	/* invalid kinds are 64-bit wrapping counters */
	{ 0, UINT64_MAX, 3, 4, BCN_COUNTER_F_WRAP },
	{ 65, 7, 9, 2, 0 },
	{ BCN_COUNTER_SAT_FLAG, UINT64_MAX, UINT64_MAX, 0, 0 },
};

static void test_delta_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(delta_cases) / sizeof(delta_cases[0]); i++) {
		const struct delta_case *c = &delta_cases[i];
		uint64_t d = 0xdeadbeef;
		unsigned f = bcn_counter_delta(c->kind, c->prev, c->cur, &d);

		if (f != c->flags || d != c->delta)
			print_error("case %zu: kind 0x%x %llu -> %llu: delta %llu "
				    "flags 0x%x, want %llu 0x%x\n", i, c->kind,
				    (unsigned long long)c->prev,
				    (unsigned long long)c->cur,
				    (unsigned long long)d, f,
				    (unsigned long long)c->delta, c->flags);
		assert_int_equal(f, c->flags);
		assert_int_equal(d, c->delta);
	}
}

static void test_max(void **state)
{
	(void)state;
	assert_int_equal(bcn_counter_max(BCN_COUNTER_U32), U32MAX);
	assert_int_equal(bcn_counter_max(BCN_COUNTER_SAT32), U32MAX);
	assert_true(bcn_counter_max(BCN_COUNTER_U64) == UINT64_MAX);
	assert_int_equal(bcn_counter_max(BCN_COUNTER_SAT(16)), 65535);
	assert_int_equal(bcn_counter_max(BCN_COUNTER_WRAP(1)), 1);
	assert_true(bcn_counter_max(0) == UINT64_MAX);
	assert_true(bcn_counter_max(100) == UINT64_MAX);
}

/* One step of a scripted entity: values fed, deltas and flags expected. */
struct step {
	uint64_t cur[3];
	uint64_t delta[3];
	int rc;
};

static void test_table_steps(void **state)
{
	static const uint8_t kinds[3] = { BCN_COUNTER_U64, BCN_COUNTER_SAT32,
					  BCN_COUNTER_U32 };
	static const struct step steps[] = {
		{ { 100, 10, 4294967200u }, { 0, 0, 0 }, BCN_COUNTER_F_FIRST },
		{ { 150, 20, 4294967290u }, { 50, 10, 90 }, 0 },
		{ { 150, 4294967295u, 10 }, { 0, 4294967275u, 16 },
		  BCN_COUNTER_F_SATURATED | BCN_COUNTER_F_WRAP },
		{ { 160, 4294967295u, 20 }, { 10, 0, 10 },
		  BCN_COUNTER_F_SATURATED },
		{ { 5, 0, 3 }, { 5, 0, 3 }, BCN_COUNTER_F_RESET },
		{ { 6, 1, 4 }, { 1, 1, 1 }, 0 },
	};
	struct bcn_counter_table *t;
	struct bcn_counter_stats st;
	uint64_t d[3];
	uint8_t cf[3];
	int64_t prev;

	assert_int_equal(bcn_counter_table_new("test", 10, 3, &t), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int rc = bcn_counter_update(t, "mlx5_0/1", steps[i].cur, kinds,
					    3, 1000 * (int64_t)(i + 1), d, cf,
					    &prev);

		assert_int_equal(rc, steps[i].rc);
		assert_memory_equal(d, steps[i].delta, sizeof(d));
		assert_int_equal(prev, i ? 1000 * (int64_t)i : 1000);
		bcn_counter_sweep(t);
	}
	/* per-counter flags of the last reset-free step: all clear */
	assert_int_equal(cf[0] | cf[1] | cf[2], 0);
	bcn_counter_table_stats(t, &st);
	assert_int_equal(st.entities, 1);
	assert_int_equal(st.updates, 6);
	assert_int_equal(st.first, 1);
	assert_int_equal(st.resets, 1);
	assert_int_equal(st.wraps, 1);
	assert_int_equal(st.saturated, 2);
	assert_int_equal(st.dropped, 0);
	bcn_counter_table_free(t);
}

static void test_table_cflags(void **state)
{
	struct bcn_counter_table *t;
	uint64_t v[2] = { 10, 65535 }, d[2];
	uint8_t kinds[2] = { BCN_COUNTER_U64, BCN_COUNTER_SAT(16) }, cf[2];

	(void)state;
	assert_int_equal(bcn_counter_table_new(NULL, 4, 0, &t), 0);
	assert_int_equal(bcn_counter_update(t, "a", v, kinds, 2, 1, d, cf,
					    NULL), BCN_COUNTER_F_FIRST);
	assert_int_equal(cf[0], BCN_COUNTER_F_FIRST);
	assert_int_equal(cf[1], BCN_COUNTER_F_FIRST);
	v[0] = 3;
	assert_int_equal(bcn_counter_update(t, "a", v, kinds, 2, 2, d, cf,
					    NULL),
			 BCN_COUNTER_F_RESET | BCN_COUNTER_F_SATURATED);
	assert_int_equal(cf[0], BCN_COUNTER_F_RESET);
	assert_int_equal(cf[1], BCN_COUNTER_F_SATURATED);
	assert_int_equal(d[0], 3);
	assert_int_equal(d[1], 0);
	/* another vector length: a new first sample */
	assert_int_equal(bcn_counter_update(t, "a", v, NULL, 1, 3, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	v[0] = 8;
	assert_int_equal(bcn_counter_update(t, "a", v, NULL, 1, 4, d, NULL,
					    NULL), 0);
	assert_int_equal(d[0], 5);
	bcn_counter_table_free(t);
}

static void test_table_args(void **state)
{
	struct bcn_counter_table *t;
	char name[BCN_COUNTER_ENTITY_MAX + 1];
	uint64_t v[1] = { 1 }, d[1];

	(void)state;
	assert_int_equal(bcn_counter_table_new("x", 0, 0, &t), -EINVAL);
	assert_null(t);
	assert_int_equal(bcn_counter_table_new("x", BCN_COUNTER_TABLE_MAX + 1,
					       0, &t), -EINVAL);
	assert_int_equal(bcn_counter_table_new("x", 2, 0, &t), 0);
	assert_int_equal(bcn_counter_update(t, "", v, NULL, 1, 0, d, NULL,
					    NULL), -EINVAL);
	assert_int_equal(bcn_counter_update(t, "a", v, NULL, 0, 0, d, NULL,
					    NULL), -EINVAL);
	assert_int_equal(bcn_counter_update(t, "a", v, NULL,
					    BCN_COUNTER_VEC_MAX + 1, 0, d,
					    NULL, NULL), -EINVAL);
	memset(name, 'e', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(bcn_counter_update(t, name, v, NULL, 1, 0, d, NULL,
					    NULL), -EINVAL);
	name[BCN_COUNTER_ENTITY_MAX - 1] = '\0';
	assert_int_equal(bcn_counter_update(t, name, v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	bcn_counter_table_free(t);
	bcn_counter_table_free(NULL);
}

static void test_table_full(void **state)
{
	struct bcn_counter_table *t;
	struct bcn_counter_stats st;
	uint64_t v[1] = { 7 }, d[1] = { 99 };

	(void)state;
	assert_int_equal(bcn_counter_table_new("x", 2, 0, &t), 0);
	assert_int_equal(bcn_counter_update(t, "a", v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	assert_int_equal(bcn_counter_update(t, "b", v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	d[0] = 99;
	assert_int_equal(bcn_counter_update(t, "c", v, NULL, 1, 0, d, NULL,
					    NULL), -BCN_EFULL);
	assert_int_equal(d[0], 0);
	assert_int_equal(bcn_counter_update(t, "c", v, NULL, 1, 0, d, NULL,
					    NULL), -BCN_EFULL);
	/* known entities still work when the table is full */
	v[0] = 9;
	assert_int_equal(bcn_counter_update(t, "b", v, NULL, 1, 0, d, NULL,
					    NULL), 0);
	assert_int_equal(d[0], 2);
	bcn_counter_table_stats(t, &st);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.entities, 2);
	/* room again after forgetting one */
	assert_int_equal(bcn_counter_forget(t, "a"), 1);
	assert_int_equal(bcn_counter_forget(t, "a"), 0);
	assert_int_equal(bcn_counter_update(t, "c", v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	bcn_counter_table_free(t);
}

static void test_table_forget(void **state)
{
	struct bcn_counter_table *t;
	struct bcn_counter_stats st;
	uint64_t v[1] = { 1 }, d[1];

	(void)state;
	/* forgotten after 2 missed samples */
	assert_int_equal(bcn_counter_table_new("x", 8, 2, &t), 0);
	assert_int_equal(bcn_counter_update(t, "stay", v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	assert_int_equal(bcn_counter_update(t, "go", v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	assert_int_equal(bcn_counter_sweep(t), 0);
	/* sample 2: "go" missed once */
	v[0] = 2;
	assert_int_equal(bcn_counter_update(t, "stay", v, NULL, 1, 0, d, NULL,
					    NULL), 0);
	assert_int_equal(bcn_counter_sweep(t), 0);
	/* sample 3: "go" missed twice: forgotten */
	v[0] = 3;
	assert_int_equal(bcn_counter_update(t, "stay", v, NULL, 1, 0, d, NULL,
					    NULL), 0);
	assert_int_equal(bcn_counter_sweep(t), 1);
	/* it comes back as a first sample; "stay" kept its value */
	assert_int_equal(bcn_counter_update(t, "go", v, NULL, 1, 0, d, NULL,
					    NULL), BCN_COUNTER_F_FIRST);
	v[0] = 10;
	assert_int_equal(bcn_counter_update(t, "stay", v, NULL, 1, 0, d, NULL,
					    NULL), 0);
	assert_int_equal(d[0], 7);
	bcn_counter_table_stats(t, &st);
	assert_int_equal(st.forgotten, 1);
	assert_int_equal(st.entities, 2);
	bcn_counter_table_free(t);
}

/* Many entities through growth, sweeps and backward-shift deletion,
 * checked against a plain array of the values each should hold. */
#define MANY 3000

static void test_table_many(void **state)
{
	static uint64_t model[MANY];
	static int alive[MANY];
	struct bcn_counter_table *t;
	struct bcn_counter_stats st;
	char name[32];
	uint64_t v[1], d[1];
	uint64_t rng = 12345;

	(void)state;
	assert_int_equal(bcn_counter_table_new("many", MANY, 1, &t), 0);
	for (int round = 0; round < 20; round++) {
		size_t live = 0;

		for (int i = 0; i < MANY; i++) {
			int rc;

			rng = rng * 6364136223846793005u + 1442695040888963407u;
			/* each entity is sampled in about 2 rounds of 3 */
			if ((rng >> 33) % 3 == 0) {
				alive[i] = 0;   /* missed: forgotten at sweep */
				continue;
			}
			snprintf(name, sizeof(name), "OST%04x/job%d", i, i * 7);
			v[0] = (uint64_t)round * 1000 + (uint64_t)i;
			rc = bcn_counter_update(t, name, v, NULL, 1, round, d,
						NULL, NULL);
			if (alive[i]) {
				assert_int_equal(rc, 0);
				assert_int_equal(d[0], v[0] - model[i]);
			} else {
				assert_int_equal(rc, BCN_COUNTER_F_FIRST);
			}
			model[i] = v[0];
			alive[i] = 1;
			live++;
		}
		bcn_counter_sweep(t);
		bcn_counter_table_stats(t, &st);
		assert_int_equal(st.entities, live);
	}
	bcn_counter_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_table),
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_table_steps),
		cmocka_unit_test(test_table_cflags),
		cmocka_unit_test(test_table_args),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_table_forget),
		cmocka_unit_test(test_table_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
