/* Tests of collectors/client/tracer/tclock: the tracer's clock from the
 * time-stamp counter, driven with synthetic readings (a 2.6 GHz counter):
 * no conversion before two calibration intervals agree, conversion within
 * a nanosecond or two of the clock afterwards, short intervals ignored,
 * a clock step or an implausible counter stops conversion until two
 * intervals agree again, readings outside the span fall back, times
 * handed out never go back by a small amount, a change in progress
 * falls back, and the clock source test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/client/tracer/tclock.h"

#define GHZ26(ns) ((uint64_t)((unsigned __int128)(ns) * 26 / 10))
#define T0 1764300000000000000LL        /* a realistic wall clock */
#define C0 123456789ULL                 /* the counter then */
#define SEC 1000000000LL

/* The anchor of a 2.6 GHz counter at clock time T0 + ns. */
static void anchor_at(struct bcn_tclock *c, int64_t ns)
{
	bcn_tclock_anchor(c, C0 + GHZ26(ns), T0 + ns);
}

static void assert_near(int64_t a, int64_t b, int64_t tol)
{
	assert_true(a - b <= tol && b - a <= tol);
}

static void test_calibration(void **state)
{
	struct bcn_tclock c;
	int64_t ns = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_false(bcn_tclock_at(&c, C0, &ns));
	assert_true(bcn_tclock_due(&c, T0, SEC));
	anchor_at(&c, 0);
	assert_false(bcn_tclock_at(&c, C0 + 10, &ns));
	/* no rate yet: due again after the calibration interval */
	assert_false(bcn_tclock_due(&c, T0 + BCN_TCLOCK_MIN_NS - 1, SEC));
	assert_true(bcn_tclock_due(&c, T0 + BCN_TCLOCK_MIN_NS, SEC));
	assert_false(bcn_tclock_ready(&c));
	anchor_at(&c, SEC);             /* one rate: not yet trusted */
	assert_false(bcn_tclock_at(&c, C0 + GHZ26(SEC + 5), &ns));
	anchor_at(&c, 2 * SEC);         /* two that agree */
	assert_true(bcn_tclock_ready(&c));
	/* a rate: due after the interval given */
	assert_false(bcn_tclock_due(&c, T0 + 2 * SEC + SEC / 2, SEC));
	assert_true(bcn_tclock_due(&c, T0 + 3 * SEC, SEC));
	for (int64_t d = 0; d < 2 * SEC - 1000; d += 99999989) {
		assert_true(bcn_tclock_at(&c, C0 + GHZ26(2 * SEC + d), &ns));
		assert_near(ns, T0 + 2 * SEC + d, 2);
	}
	/* before the anchor, or past its span: the caller reads the clock */
	assert_false(bcn_tclock_at(&c, C0 + GHZ26(2 * SEC) - 1, &ns));
	assert_false(bcn_tclock_at(&c, C0 + GHZ26(4 * SEC + 1000), &ns));
	/* a change in progress (a signal handler sees gen odd) */
	c.gen++;
	assert_false(bcn_tclock_at(&c, C0 + GHZ26(2 * SEC + 5), &ns));
	c.gen++;
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(3 * SEC), &ns));
}

/* A thread calibrates over two intervals of BCN_TCLOCK_MIN_NS, measures
 * again BCN_TCLOCK_SETTLE_NS later, then every interval; anchors each
 * misplaced by 20 ns (the clock read between two counter readings) give
 * times within a microsecond meanwhile. */
static void test_fast_calibration(void **state)
{
	struct bcn_tclock c;
	int64_t ns = 0, at;

	(void)state;
	memset(&c, 0, sizeof(c));
	anchor_at(&c, 0);
	at = BCN_TCLOCK_MIN_NS + 100;
	bcn_tclock_anchor(&c, C0 + GHZ26(at), T0 + at + 20);
	assert_false(bcn_tclock_ready(&c));
	at += BCN_TCLOCK_MIN_NS + 100;
	bcn_tclock_anchor(&c, C0 + GHZ26(at), T0 + at - 20);
	assert_true(bcn_tclock_ready(&c));
	for (int64_t d = 0; d < BCN_TCLOCK_SETTLE_NS; d += 999983) {
		assert_true(bcn_tclock_at(&c, C0 + GHZ26(at + d), &ns));
		assert_near(ns, T0 + at + d, 1000);
	}
	/* a rate of a short interval: measured again after SETTLE_NS, not
	 * after the interval asked for */
	assert_false(bcn_tclock_due(&c, c.at_ns + BCN_TCLOCK_SETTLE_NS - 1,
				    SEC));
	assert_true(bcn_tclock_due(&c, c.at_ns + BCN_TCLOCK_SETTLE_NS, SEC));
	/* unless the interval asked for is shorter */
	assert_true(bcn_tclock_due(&c, c.at_ns + BCN_TCLOCK_MIN_NS,
				   BCN_TCLOCK_MIN_NS));
	at += BCN_TCLOCK_SETTLE_NS;
	anchor_at(&c, at);
	assert_true(bcn_tclock_ready(&c));
	assert_false(bcn_tclock_due(&c, T0 + at + BCN_TCLOCK_SETTLE_NS, SEC));
	assert_true(bcn_tclock_due(&c, T0 + at + SEC, SEC));
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(at + SEC / 2), &ns));
	/* (0.2 ppm: the start of that interval was 20 ns off) */
	assert_near(ns, T0 + at + SEC / 2, 200);
}

static void test_short_interval(void **state)
{
	struct bcn_tclock c, before;

	(void)state;
	memset(&c, 0, sizeof(c));
	anchor_at(&c, 0);
	anchor_at(&c, SEC);
	before = c;
	anchor_at(&c, SEC + BCN_TCLOCK_MIN_NS - 1);
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_clock_step(void **state)
{
	struct bcn_tclock c;
	int64_t ns = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	anchor_at(&c, 0);
	anchor_at(&c, SEC);
	anchor_at(&c, 2 * SEC);
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(2 * SEC + 7), &ns));
	/* the clock is set 10 s ahead within the next second */
	bcn_tclock_anchor(&c, C0 + GHZ26(3 * SEC), T0 + 13 * SEC);
	assert_false(bcn_tclock_at(&c, C0 + GHZ26(3 * SEC + 7), &ns));
	/* one good interval after it is not enough, two are */
	bcn_tclock_anchor(&c, C0 + GHZ26(4 * SEC), T0 + 14 * SEC);
	assert_false(bcn_tclock_at(&c, C0 + GHZ26(4 * SEC + 7), &ns));
	bcn_tclock_anchor(&c, C0 + GHZ26(5 * SEC), T0 + 15 * SEC);
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(5 * SEC + 7), &ns));
	assert_near(ns, T0 + 15 * SEC + 7, 2);
	/* the counter going back (another machine's after a migration) */
	bcn_tclock_anchor(&c, C0, T0 + 16 * SEC);
	assert_false(bcn_tclock_at(&c, C0 + 100, &ns));
}

static void test_implausible(void **state)
{
	struct bcn_tclock c;
	int64_t ns = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	for (int64_t s = 0; s < 5; s++)         /* a 50 MHz "counter" */
		bcn_tclock_anchor(&c, C0 + (uint64_t)(s * SEC / 20),
				  T0 + s * SEC);
	assert_false(bcn_tclock_at(&c, C0 + 4 * SEC / 20 + 5, &ns));
}

static void test_never_back(void **state)
{
	struct bcn_tclock c;
	int64_t a = 0, b = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	anchor_at(&c, 0);
	anchor_at(&c, SEC);
	anchor_at(&c, 2 * SEC);
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(3 * SEC), &a));
	/* the next anchor puts the same counter 500 ns earlier */
	bcn_tclock_anchor(&c, C0 + GHZ26(3 * SEC), T0 + 3 * SEC - 500);
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(3 * SEC) + 26, &b));
	assert_true(b >= a);
	/* a step back of more than a millisecond passes through */
	c.last = T0 + 3 * SEC + 2000000;
	assert_true(bcn_tclock_at(&c, C0 + GHZ26(3 * SEC) + 26, &b));
	assert_true(b < T0 + 3 * SEC);
}

static void test_usable(void **state)
{
	(void)state;
#if defined(__x86_64__)
	assert_true(bcn_tclock_usable("tsc\n", 4));
	assert_true(bcn_tclock_usable("tsc", 3));
#else
	assert_false(bcn_tclock_usable("tsc\n", 4));
#endif
	assert_false(bcn_tclock_usable("hpet\n", 5));
	assert_false(bcn_tclock_usable("kvm-clock\n", 10));
	assert_false(bcn_tclock_usable("tsc-early\n", 10));
	assert_false(bcn_tclock_usable("", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_fast_calibration),
		cmocka_unit_test(test_short_interval),
		cmocka_unit_test(test_clock_step),
		cmocka_unit_test(test_implausible),
		cmocka_unit_test(test_never_back),
		cmocka_unit_test(test_usable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
