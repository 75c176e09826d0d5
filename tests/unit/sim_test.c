/* Tests of beacon-sim's model (sim/sim.c, sim_model.c): the same seed
 * gives the same history and another seed another; the random stream
 * starts and ends jobs; no tick serves more than the OSTs' capacity; an
 * OST asked for more than it serves shares exactly; a slow OST serves its
 * fraction; explicit job and injection lines are checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/config.h"
#include "common/error.h"
#include "sim/sim.h"

static struct bcn_sim_conf conf;

static void defaults(void)
{
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(bcn_config_defaults(bcn_sim_options, &conf, NULL, 0),
			 0);
	conf.epoch_s = 1790000000;
}

static struct bcn_sim *make(void)
{
	struct bcn_sim *s = NULL;
	char err[256] = "";

	assert_int_equal(bcn_sim_new(&conf, &s, err, sizeof(err)), 0);
	return s;
}

static void run(struct bcn_sim *s, uint64_t ticks, struct bcn_sim_totals *t)
{
	while (bcn_sim_ticks(s) < ticks)
		bcn_sim_tick(s);
	bcn_sim_totals(s, t);
}

static void test_deterministic(void **state)
{
	struct bcn_sim_totals a, b, c;
	struct bcn_sim *s;

	(void)state;
	defaults();
	conf.jobs_per_hour = 600;
	conf.seed = 11;
	s = make();
	run(s, 3000, &a);
	bcn_sim_free(s);
	s = make();
	run(s, 3000, &b);
	bcn_sim_free(s);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(a.jobs_started > 20);
	assert_true(a.jobs_ended > 5);
	assert_true(a.read_bytes > 0 && a.write_bytes > 0 && a.md_ops > 0);
	conf.seed = 12;
	s = make();
	run(s, 3000, &c);
	bcn_sim_free(s);
	assert_true(memcmp(&a, &c, sizeof(a)) != 0);
}

static void test_capacity(void **state)
{
	struct bcn_sim_totals prev = { 0 }, t;
	uint64_t cap;
	struct bcn_sim *s;

	(void)state;
	defaults();
	conf.jobs_per_hour = 3000;
	conf.job_nodes_max = 64;
	s = make();
	cap = conf.ost_bw * conf.oss * conf.osts_per_oss;
	for (uint64_t k = 1; k <= 1500; k++) {
		run(s, k, &t);
		assert_true(t.read_bytes + t.write_bytes -
			    prev.read_bytes - prev.write_bytes <= cap);
		prev = t;
	}
	bcn_sim_free(s);
}

static void test_shares(void **state)
{
	struct bcn_sim_totals t;
	struct bcn_sim *s;

	(void)state;
	defaults();
	conf.jobs_per_hour = 0;
	conf.compute = 8;
	conf.oss = 1;
	conf.osts_per_oss = 4;
	conf.ost_bw = 1000000;
	conf.stripe_count = 4;
	/* 8 nodes x 1 MB/s read during the 10 s input phase: 2 MB/s per
	 * OST asked, 1 MB/s served; one OST at a tenth */
	snprintf(conf.jobs[0], sizeof(conf.jobs[0]), "a n-1 8 0 100 1000000");
	snprintf(conf.slow_ost[0], sizeof(conf.slow_ost[0]), "2 0.1 0 5");
	conf.njobs = conf.nslow = 1;
	s = make();
	run(s, 5, &t);
	assert_int_equal(t.read_bytes, 5 * (3 * 1000000 + 100000));
	run(s, 10, &t);
	assert_int_equal(t.read_bytes, 5 * (3 * 1000000 + 100000) +
			 5 * 4 * 1000000);
	run(s, 20, &t);         /* the input phase is over: no more reads */
	assert_int_equal(t.read_bytes, 5 * (3 * 1000000 + 100000) +
			 5 * 4 * 1000000);
	bcn_sim_free(s);
}

static void test_bad_lines(void **state)
{
	static const char *const jobs[] = {
		"a n-1 8 0 100", "a x-y 8 0 100 1M", "a n-1 0 0 100 1M",
		"a n-1 8 0 0 1M", "a n-1 8 0 100 1Q", "a n-1 9999 0 100 1M",
	};
	static const char *const slows[] = {
		"1 2 0 10", "1 0.5 0 0", "99 0.5 0 10", "x",
	};
	struct bcn_sim *s = NULL;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		defaults();
		snprintf(conf.jobs[0], sizeof(conf.jobs[0]), "%s", jobs[i]);
		conf.njobs = 1;
		err[0] = '\0';
		assert_true(bcn_sim_new(&conf, &s, err, sizeof(err)) < 0);
		assert_null(s);
		assert_non_null(strstr(err, "job"));
	}
	for (size_t i = 0; i < sizeof(slows) / sizeof(slows[0]); i++) {
		defaults();
		snprintf(conf.slow_ost[0], sizeof(conf.slow_ost[0]), "%s",
			 slows[i]);
		conf.nslow = 1;
		err[0] = '\0';
		assert_true(bcn_sim_new(&conf, &s, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "slow_ost"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_bad_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
