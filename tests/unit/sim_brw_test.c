/* Tests of sim/ost_brw: the disk I/O time model (base, queueing, cap,
 * slowness), the spread of a tick's I/Os over the log2 rows against a
 * brute-force tally of the same times, its mean against the model's,
 * bulk RPCs into pages and sizes, a tick settled (times, I/Os in
 * flight), the brw_stats text parsed back with collectors/lustre's
 * parser and its rows laid out as a real 2.15 file's, and the deltas
 * beacon-ostd would make of two readings. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/lustre/lustre_hist.h"
#include "sim/ost_brw.h"

#define NS(s) ((int64_t)(s) * 1000000000)
#define MIB (1ull << 20)

static void test_io_ms(void **state)
{
	(void)state;
	assert_true(fabs(bcn_sim_brw_io_ms(8, 0, 1) - 8) < 1e-9);
	assert_true(fabs(bcn_sim_brw_io_ms(8, -1, 1) - 8) < 1e-9);
	assert_true(fabs(bcn_sim_brw_io_ms(8, 0.5, 1) - 16) < 1e-9);
	/* utilisation capped at 0.95: at most 20 times the base */
	assert_true(fabs(bcn_sim_brw_io_ms(8, 0.95, 1) - 160) < 1e-6);
	assert_true(fabs(bcn_sim_brw_io_ms(8, 3, 1) - 160) < 1e-6);
	assert_true(fabs(bcn_sim_brw_io_ms(8, NAN, 1) - 8) < 1e-9);
	/* a slow OST: FACTOR 0.25 takes 4 times as long per I/O */
	assert_true(fabs(bcn_sim_brw_io_ms(8, 0.5, 0.25) - 64) < 1e-9);
	/* no slowness outside (0, 1] */
	assert_true(fabs(bcn_sim_brw_io_ms(8, 0, 0) - 8) < 1e-9);
	assert_true(fabs(bcn_sim_brw_io_ms(8, 0, 2) - 8) < 1e-9);
}

/* The spread by brute force: each time floored and tallied. */
static void brute(uint64_t n, double mean, double phase,
		  uint64_t out[BCN_SIM_BRW_HIST])
{
	for (uint64_t k = 0; k < n; k++) {
		double t = mean * (0.5 + ((double)k + phase) / (double)n);

		out[bcn_lustre_tally_log2((uint64_t)floor(t),
					  BCN_SIM_BRW_HIST)]++;
	}
}

static void test_spread_brute(void **state)
{
	static const double means[] = { 0.3, 1, 2.5, 7.9, 8, 10, 33.3, 160,
					1000.5, 5e6 };
	static const uint64_t ns[] = { 1, 2, 3, 7, 30, 100, 257, 1000 };
	static const double phases[] = { 0, 0.1, 0.5, 0.999 };
	uint64_t a[BCN_SIM_BRW_HIST], b[BCN_SIM_BRW_HIST], sum;

	(void)state;
	for (size_t m = 0; m < sizeof(means) / sizeof(means[0]); m++)
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			for (size_t p = 0; p < 4; p++) {
				memset(a, 0, sizeof(a));
				memset(b, 0, sizeof(b));
				bcn_sim_brw_spread(ns[i], means[m], phases[p],
						   a);
				brute(ns[i], means[m], phases[p], b);
				sum = 0;
				for (int k = 0; k < BCN_SIM_BRW_HIST; k++)
					sum += a[k];
				assert_int_equal(sum, ns[i]);
				assert_memory_equal(a, b, sizeof(a));
			}
	/* nothing for no I/O; a bad mean or phase still counts them */
	memset(a, 0, sizeof(a));
	bcn_sim_brw_spread(0, 8, 0, a);
	bcn_sim_brw_spread(5, NAN, 0, a);
	assert_int_equal(a[0], 5);
	bcn_sim_brw_spread(5, 8, 7, a);
	bcn_sim_brw_spread(5, INFINITY, 0, a);
	assert_int_equal(a[BCN_SIM_BRW_HIST - 1], 5);
	sum = 0;
	for (int k = 0; k < BCN_SIM_BRW_HIST; k++)
		sum += a[k];
	assert_int_equal(sum, 15);
}

/* The I/Os in the mean's row and its neighbours (two below when the
 * mean is just above a power of two), and the
 * histogram's mean (a row at 3/4 of its label) near the model's. */
static void test_spread_mean(void **state)
{
	static const double means[] = { 6, 8, 10, 16, 33, 100, 160 };
	uint64_t h[BCN_SIM_BRW_HIST];
	unsigned mb;

	(void)state;
	for (size_t m = 0; m < sizeof(means) / sizeof(means[0]); m++) {
		double est = 0;
		uint64_t near = 0;

		memset(h, 0, sizeof(h));
		bcn_sim_brw_spread(1000, means[m], 0.37, h);
		mb = bcn_lustre_tally_log2((uint64_t)means[m],
					   BCN_SIM_BRW_HIST);
		for (unsigned i = 0; i < BCN_SIM_BRW_HIST; i++) {
			est += (double)h[i] * 0.75 * (double)(1ull << i);
			if (i + 2 >= mb && i <= mb + 1)
				near += h[i];
		}
		est /= 1000;
		assert_int_equal(near, 1000);
		assert_true(est > means[m] * 0.75 && est < means[m] * 1.25);
	}
}

static void test_bulk_and_settle(void **state)
{
	struct bcn_sim_brw_ctr c;
	const double phase[2] = { 0.25, 0.75 };
	uint64_t n = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	/* 2.5 MiB read in 1 MiB RPCs: two of 256 pages, one of 128 */
	bcn_sim_brw_bulk(&c, 0, 5 * MIB / 2, MIB);
	assert_int_equal(c.pages[0][8], 2);
	assert_int_equal(c.pages[0][7], 1);
	assert_int_equal(c.iosize[0][20], 2);
	assert_int_equal(c.iosize[0][19], 1);
	/* a write of 5000 bytes: one RPC of 2 pages */
	bcn_sim_brw_bulk(&c, 1, 5000, MIB);
	assert_int_equal(c.pages[1][1], 1);
	assert_int_equal(c.iosize[1][13], 1);
	bcn_sim_brw_bulk(&c, 1, 0, MIB);
	bcn_sim_brw_bulk(&c, 2, MIB, MIB);
	bcn_sim_brw_bulk(&c, 1, MIB, 0);
	assert_int_equal(c.tick_ios[0], 3);
	assert_int_equal(c.tick_ios[1], 1);
	assert_int_equal(c.tick_bytes, 5 * MIB / 2 + 5000);
	/* 4 I/Os in 1 s of 40 ms each: 0.16 in flight, at least 1 */
	bcn_sim_brw_settle(&c, 40, 1.0, phase);
	assert_int_equal(c.tick_ios[0] + c.tick_ios[1] + c.tick_bytes, 0);
	assert_int_equal(c.flight[0][1], 3);
	assert_int_equal(c.flight[1][1], 1);
	for (int i = 0; i < BCN_SIM_BRW_HIST; i++)
		n += c.iotime[0][i];
	assert_int_equal(n, 3);
	/* 400 I/Os in 0.5 s of 20 ms: 16 in flight */
	bcn_sim_brw_bulk(&c, 1, 400 * MIB, MIB);
	bcn_sim_brw_settle(&c, 20, 0.5, phase);
	assert_int_equal(c.flight[1][16], 400);
	/* a settled tick without I/O changes nothing */
	bcn_sim_brw_settle(&c, 20, 0.5, phase);
	assert_int_equal(c.flight[1][16], 400);
}

static const char *text(struct bcn_buf *b)
{
	return (const char *)b->data;
}

static void sample(struct bcn_sim_brw_ctr *c)
{
	const double phase[2] = { 0.5, 0.1 };

	memset(c, 0, sizeof(*c));
	bcn_sim_brw_bulk(c, 0, 90 * MIB, MIB);
	bcn_sim_brw_bulk(c, 1, 10 * MIB + 4096, MIB);
	bcn_sim_brw_settle(c, 10, 1.0, phase);
}

static void test_format_parse(void **state)
{
	struct bcn_sim_brw_ctr c;
	struct bcn_lustre_brw *p = malloc(sizeof(*p));
	struct bcn_buf b;

	(void)state;
	assert_non_null(p);
	sample(&c);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_brw_stats(&b, NS(1790000010),
					       NS(1790000000), &c), 0);
	assert_int_equal(bcn_lustre_brw_parse(text(&b), b.len, p), 0);
	assert_int_equal(p->c.malformed, 0);
	assert_int_equal(p->c.unknown, 0);
	assert_int_equal(p->snapshot_ns, NS(1790000010));
	assert_int_equal(p->start_ns, NS(1790000000));
	assert_int_equal(p->elapsed_ns, NS(10));
	assert_int_equal(p->c.present, (1u << BCN_BRW_SECTIONS) - 1);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_PAGES], 0, 256),
			 90);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_PAGES], 1, 256),
			 10);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_PAGES], 1, 1), 1);
	assert_int_equal(bcn_lustre_hist_total(&p->sec[BCN_BRW_IO_TIME], 0),
			 90);
	assert_int_equal(bcn_lustre_hist_total(&p->sec[BCN_BRW_IO_TIME], 1),
			 11);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_IO_SIZE], 0,
					     MIB), 90);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_IO_SIZE], 1,
					     4096), 1);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_DISCONT_PAGES],
					     1, 0), 11);
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_FRAGS], 0, 1),
			 90);
	assert_int_equal(p->sec[BCN_BRW_BLOCK_MAPS].n, 0);
	/* every time in (5, 15] ms: rows 8 and 16 */
	assert_int_equal(bcn_lustre_hist_get(&p->sec[BCN_BRW_IO_TIME], 0, 8) +
			 bcn_lustre_hist_get(&p->sec[BCN_BRW_IO_TIME], 0, 16),
			 90);
	free(p);
	bcn_buf_free(&b);
}

/* The layout of lmt-2.15.4_1's brw_stats: header, titles, rows. */
static void test_format_layout(void **state)
{
	struct bcn_sim_brw_ctr c;
	struct bcn_buf b;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.pages[0][0] = 213;
	c.pages[0][1] = 20;
	c.pages[0][8] = 1705491;
	c.pages[1][8] = 1703982;
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_brw_stats(&b, NS(1704924117) + 50780452,
					       NS(1704403915) + 835730745,
					       &c), 0);
	assert_non_null(strstr(text(&b),
		"snapshot_time:            1704924117.050780452 secs.nsecs\n"
		"start_time:               1704403915.835730745 secs.nsecs\n"
		"elapsed_time:             520201.215049707 secs.nsecs\n"
		"\n"
		"                           read      |     write\n"
		"pages per bulk r/w     rpcs  % cum % |  rpcs        % cum %\n"
		"1:\t\t       213   0   0   |    0   0   0\n"
		"2:\t\t        20   0   0   |    0   0   0\n"
		"4:\t\t         0   0   0   |    0   0   0\n"));
	assert_non_null(strstr(text(&b),
		"256:\t\t   1705491  99 100   | 1703982 100 100\n"
		"\n"
		"                           read      |     write\n"
		"discontiguous pages    rpcs  % cum % |  rpcs        % cum %\n"
		"0:\t\t   1705724 100 100   | 1703982 100 100\n"));
	assert_non_null(strstr(text(&b),
		"I/O time (1/1000s)     ios   % cum % |  ios         % cum %\n"
		"\n"));
	assert_non_null(strstr(text(&b),
		"block maps msec        maps  % cum % |  maps        % cum %\n"));
	assert_int_equal(text(&b)[b.len - 1], '\n');
	assert_int_equal(bcn_sim_fmt_brw_stats(&b, NS(1), NS(2), &c), -EINVAL);
	assert_int_equal(bcn_sim_fmt_brw_stats(&b, -1, 0, &c), -EINVAL);
	assert_int_equal(bcn_sim_fmt_brw_stats(&b, NS(2), NS(1), NULL),
			 -EINVAL);
	bcn_buf_free(&b);
}

/* Labels beyond 2^9 and 2^19 as the kernel prints them. */
static void test_format_labels(void **state)
{
	struct bcn_sim_brw_ctr c;
	struct bcn_buf b;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.iosize[0][12] = 3;
	c.iosize[1][22] = 1;
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_brw_stats(&b, NS(2), NS(1), &c), 0);
	assert_non_null(strstr(text(&b),
		"4K:\t\t         3 100 100   |    0   0   0\n"));
	assert_non_null(strstr(text(&b),
		"4M:\t\t         0   0 100   |    1 100 100\n"));
	bcn_buf_free(&b);
}

/* beacon-ostd's deltas: the pages and I/O time rows of the interval. */
static void test_delta(void **state)
{
	struct bcn_sim_brw_ctr p, c;
	struct bcn_record r;
	uint64_t n = 0;

	(void)state;
	sample(&p);
	c = p;
	bcn_record_init(&r, BCN_REC_OST);
	assert_false(bcn_sim_brw_delta(&c, &p, &r));
	bcn_sim_brw_bulk(&c, 1, 3 * MIB, MIB);
	bcn_sim_brw_settle(&c, 40, 1.0, (const double[2]){ 0, 0 });
	assert_true(bcn_sim_brw_delta(&c, &p, &r));
	assert_int_equal(r.u.ost.pages_write[8], 3);
	assert_int_equal(r.u.ost.pages_read[8], 0);
	for (int i = 0; i < BCN_HIST_BUCKETS; i++) {
		n += r.u.ost.iotime_write[i];
		assert_int_equal(r.u.ost.iotime_read[i], 0);
	}
	assert_int_equal(n, 3);
	/* 40 ms: spread over [20, 60], rows 32 and 64 */
	assert_int_equal(r.u.ost.iotime_write[5] + r.u.ost.iotime_write[6],
			 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io_ms),
		cmocka_unit_test(test_spread_brute),
		cmocka_unit_test(test_spread_mean),
		cmocka_unit_test(test_bulk_and_settle),
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_format_layout),
		cmocka_unit_test(test_format_labels),
		cmocka_unit_test(test_delta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
