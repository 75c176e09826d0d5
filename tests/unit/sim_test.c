/* Tests of beacon-sim's model (sim/sim.c, sim_model.c): the same seed
 * gives the same history and another seed another; the random stream
 * starts and ends jobs; no tick serves more than the OSTs' capacity; an
 * OST asked for more than it serves shares exactly; a slow OST serves its
 * fraction; explicit job and injection lines are checked; the keys of
 * partial client collection and stragglers are parsed and validated, a
 * straggler gets its fraction, and the job truth lines say which nodes
 * were collected and which were slow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The new keys go through the declarative table: parsed with their
 * bounds, and checked against the simulated cluster by bcn_sim_new. */
static int from_text(const char *text, char *err, size_t errlen)
{
	struct bcn_sim *s = NULL;
	int rc;

	defaults();
	rc = bcn_config_parse(bcn_sim_options, &conf, text, strlen(text),
			      "sim.conf", err, errlen);
	if (rc)
		return rc;
	rc = bcn_sim_new(&conf, &s, err, errlen);
	if (rc)
		assert_null(s);
	bcn_sim_free(s);
	return rc;
}

static void test_partial_keys(void **state)
{
	static const struct { const char *text, *want; int rc; } cases[] = {
		{ "no_client = cn[00005-00012,00040]\n", NULL, 0 },
		{ "no_client = cn00064\nno_client_every = 4\n", NULL, 0 },
		{ "no_client =\nhealth_every = 0\n", NULL, 0 },
		{ "health_every = 2d\n", "health_every", -BCN_ERANGE },
		{ "no_client_every = 70000\n", "no_client_every", -BCN_ERANGE },
		{ "no_client = cn00065\n", "'cn00065' is not a compute node",
		  -BCN_ERANGE },
		{ "no_client = cn5\n", "'cn5' is not a compute node",
		  -BCN_ERANGE },
		{ "no_client = fwd001\n", "'fwd001' is not a compute node",
		  -BCN_ERANGE },
		{ "no_client = cn00000\n", "not a compute node", -BCN_ERANGE },
		{ "no_client = cn[00005-\n", "no_client", -BCN_ESYNTAX },
		{ "slow_node = 3 0.25 10 20\nslow_node = 63 1 0 1\n", NULL, 0 },
		{ "slow_node = 3 0 10 20\n", "slow_node", -BCN_ESYNTAX },
		{ "slow_node = 3 1.5 10 20\n", "slow_node", -BCN_ESYNTAX },
		{ "slow_node = 3 0.5 10 0\n", "slow_node", -BCN_ESYNTAX },
		{ "slow_node = 3 0.5 10\n", "slow_node", -BCN_ESYNTAX },
		{ "slow_node = 3 0.5 10 20 x\n", "slow_node", -BCN_ESYNTAX },
		{ "slow_node = 64 0.5 10 20\n", "no compute node 64",
		  -BCN_ERANGE },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(from_text(cases[i].text, err, sizeof(err)),
				 cases[i].rc);
		if (cases[i].want && !strstr(err, cases[i].want))
			fail_msg("%s: %s", cases[i].text, err);
	}
	/* the default: every compute node collected, health every minute */
	defaults();
	assert_string_equal(conf.no_client, "");
	assert_int_equal(conf.no_client_every, 0);
	assert_int_equal(conf.health_every_ms, 60000);
}

/* A straggler asks, and is served, FACTOR of its bandwidth in its window
 * (the OSTs have room: no sharing), its job's other nodes all of theirs. */
static void test_slow_node(void **state)
{
	struct bcn_sim_totals t;
	struct bcn_sim *s;

	(void)state;
	defaults();
	conf.jobs_per_hour = 0;
	conf.compute = 8;
	conf.ost_bw = 1ull << 30;
	snprintf(conf.jobs[0], sizeof(conf.jobs[0]), "a n-n 8 0 100 1000000");
	snprintf(conf.slow_node[0], sizeof(conf.slow_node[0]), "3 0.25 0 5");
	conf.njobs = conf.nslownode = 1;
	s = make();
	run(s, 5, &t);
	assert_int_equal(t.read_bytes, 5 * (7 * 1000000 + 250000));
	run(s, 10, &t);
	assert_int_equal(t.read_bytes, 5 * (7 * 1000000 + 250000) +
			 5 * 8 * 1000000);
	bcn_sim_free(s);
}

/* The job truth lines: client_nodes, uncovered (a hostlist) and
 * slow_nodes, in file mode (collection: the first lwfs_nodes). */
static void test_truth_lines(void **state)
{
	char dir[] = "/tmp/sim_test.XXXXXX", path[64], line[2048], cmd[64];
	struct bcn_sim *s;
	FILE *in;
	int jobs = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	defaults();
	conf.jobs_per_hour = 0;
	conf.compute = 16;
	conf.lwfs_nodes = 12;
	snprintf(conf.out, sizeof(conf.out), "%s/out", dir);
	snprintf(conf.truth, sizeof(conf.truth), "%s/truth.jsonl", dir);
	snprintf(conf.jobs[0], sizeof(conf.jobs[0]), "a n-n 8 0 100 1000000");
	snprintf(conf.jobs[1], sizeof(conf.jobs[1]), "b n-1 8 0 100 1000000");
	snprintf(conf.slow_node[0], sizeof(conf.slow_node[0]), "3 0.5 0 5");
	snprintf(conf.slow_node[1], sizeof(conf.slow_node[1]), "12 0.5 50 5");
	snprintf(conf.no_client, sizeof(conf.no_client), "cn[00002,00004]");
	conf.njobs = conf.nslownode = 2;
	s = make();
	run(s, 20, &(struct bcn_sim_totals){ 0 });
	assert_int_equal(bcn_sim_write_jobs(s), 0);
	bcn_sim_free(s);
	snprintf(path, sizeof(path), "%s/truth.jsonl", dir);
	in = fopen(path, "r");
	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		if (strstr(line, "\"name\":\"a\"")) {
			jobs++;
			assert_non_null(strstr(line, "\"client_nodes\":6,"
					       "\"uncovered\":\"cn[00002,00004]\","
					       "\"slow_nodes\":[\"cn00004\"]"));
		} else if (strstr(line, "\"name\":\"b\"")) {
			jobs++;
			/* cn00013 slows only after these 20 ticks */
			assert_non_null(strstr(line, "\"client_nodes\":4,"
					       "\"uncovered\":\"cn[00013-00016]\","
					       "\"slow_nodes\":[]"));
		} else {
			assert_non_null(strstr(line, "\"kind\":\"slow_node\""));
		}
	}
	fclose(in);
	assert_int_equal(jobs, 2);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_partial_keys),
		cmocka_unit_test(test_slow_node),
		cmocka_unit_test(test_truth_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
