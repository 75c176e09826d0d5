/* Tests of collectors/lustre/lustre_hist: brw_stats of every layout in
 * tests/data/lustre (1.8.3, 2.0.53, 2.10.x, 2.12.9, 2.15.4, the telegraf
 * file without blank lines, lustre-collector's files with data, empty and
 * with the 2.15 header) and osc/mdc rpc_stats, with the values their
 * EXPECTED.md files state; the log2 bucket mapping; malformed input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/lustre/lustre_hist.h"
#include "common/error.h"
#include "lustre_fixture.h"

#define NS 1000000000LL
#define K 1024ULL
#define M (1024ULL * 1024)

/* label, read, write */
struct row {
	uint64_t label, rd, wr;
};

static struct bcn_lustre_brw *brw_file(const char *rel)
{
	struct bcn_lustre_brw *b = malloc(sizeof(*b));
	size_t len;
	char *buf = lfx_read(rel, &len);

	assert_non_null(b);
	assert_int_equal(bcn_lustre_brw_parse(buf, len, b), 0);
	free(buf);
	return b;
}

static void check_rows(const struct bcn_lustre_hist *h, const struct row *r,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t rd = bcn_lustre_hist_get(h, 0, r[i].label);
		uint64_t wr = bcn_lustre_hist_get(h, 1, r[i].label);

		if (rd != r[i].rd || wr != r[i].wr)
			fail_msg("label %llu: %llu/%llu, want %llu/%llu",
				 (unsigned long long)r[i].label,
				 (unsigned long long)rd,
				 (unsigned long long)wr,
				 (unsigned long long)r[i].rd,
				 (unsigned long long)r[i].wr);
	}
}

#define ROWS(h, ...) do { \
	static const struct row r_[] = { __VA_ARGS__ }; \
	check_rows(h, r_, sizeof(r_) / sizeof(r_[0])); \
} while (0)

static void test_210_hpe(void **state)
{
	struct bcn_lustre_brw *b = brw_file("ost/lustre_exporter-2.10.1/"
					    "osd-zfs/lustrefs-OST0000/brw_stats");
	uint64_t h[BCN_HIST_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(b->snapshot_ns, 1510782606 * NS + 797216394);
	assert_int_equal(b->c.malformed, 0);
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 13, 153 }, { 2, 10, 157 },
	     { 16, 0, 1367 }, { 128, 0, 13817 }, { 1 * K, 0, 4059303 });
	ROWS(&b->sec[BCN_BRW_IN_FLIGHT], { 1, 23, 4096740 }, { 2, 0, 174382 },
	     { 3, 0, 20244 }, { 4, 0, 4037 }, { 5, 0, 1577 }, { 6, 0, 925 },
	     { 7, 0, 579 }, { 8, 0, 190 }, { 9, 0, 35 }, { 10, 0, 3 });
	ROWS(&b->sec[BCN_BRW_IO_SIZE], { 8, 4, 0 }, { 32, 1, 0 }, { 64, 1, 0 },
	     { 128, 1, 0 }, { 256, 1, 0 }, { 512, 1, 0 }, { 1024, 2, 0 },
	     { 4096, 0, 153 }, { 8192, 12, 157 },
	     { 16384, 0, 358 }, { 32768, 0, 679 }, { 65536, 0, 1367 },
	     { 131072, 0, 2911 }, { 262144, 0, 6161 }, { 524288, 0, 13817 },
	     { 1048576, 0, 58945 }, { 2097152, 0, 154861 },
	     { 4194304, 0, 4059303 });
	assert_int_equal(b->sec[BCN_BRW_PAGES].ncols, 2);
	/* osd-zfs has no discontiguous blocks or fragmented I/Os tables */
	assert_false(b->c.present & (1u << BCN_BRW_DISCONT_BLOCKS));
	assert_true(b->c.present & (1u << BCN_BRW_IO_TIME));
	/* pages per bulk: label 2^i is bucket i */
	bcn_lustre_hist_log2(&b->sec[BCN_BRW_PAGES], 1, h);
	assert_int_equal(h[0], 153);
	assert_int_equal(h[1], 157);
	assert_int_equal(h[4], 1367);
	assert_int_equal(h[7], 13817);
	assert_int_equal(h[10], 4059303);
	free(b);
}

static void test_telegraf(void **state)
{
	struct bcn_lustre_brw *b = brw_file("ost/telegraf-v2.12/osd-ldiskfs/"
					    "OST0001/brw_stats");
	uint64_t h[BCN_HIST_BUCKETS] = { 0 };

	(void)state;
	/* no blank lines between sections, spaces after the labels */
	assert_int_equal(b->c.malformed, 0);
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 5271, 337023 }, { 2, 3030, 5672 },
	     { 4, 4449, 255983 }, { 8, 2780, 33612 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 43942683, 337023 },
	     { 1, 0, 5672 }, { 2, 0, 28016 }, { 3, 0, 227967 },
	     { 4, 0, 12869 });
	ROWS(&b->sec[BCN_BRW_IN_FLIGHT], { 1, 2892221, 1437946 },
	     { 2, 2763141, 44373 }, { 3, 3014304, 2677 }, { 4, 3212360, 183 });
	ROWS(&b->sec[BCN_BRW_IO_TIME], { 1, 521780, 0 }, { 16, 6035560, 0 },
	     { 128, 5044958, 0 }, { 1 * K, 651, 0 });
	ROWS(&b->sec[BCN_BRW_IO_SIZE], { 1, 0, 327301 }, { 16, 0, 0 },
	     { 128, 35, 209 }, { 1 * K, 0, 1703 }, { 16 * K, 4449, 255983 },
	     { 128 * K, 855, 23 }, { 1 * M, 43866371, 850248 });
	bcn_lustre_hist_log2(&b->sec[BCN_BRW_IO_TIME], 0, h);
	assert_int_equal(h[0], 521780);
	assert_int_equal(h[4], 6035560);
	assert_int_equal(h[7], 5044958);
	assert_int_equal(h[10], 651);
	free(b);
}

static void test_lmt(void **state)
{
	struct bcn_lustre_brw *b;

	(void)state;
	b = brw_file("ost/lmt-1.8.3/proc/fs/lustre/obdfilter/lc1-OST0000/"
		     "brw_stats");
	assert_int_equal(b->snapshot_ns, 1284151749 * NS + 963667000);
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 683431, 63521 }, { 2, 3595, 3033 },
	     { 4, 5838, 1835 }, { 8, 10539, 855 }, { 16, 20281, 43603 },
	     { 32, 45235, 855 }, { 64, 70152, 4652 }, { 128, 123578, 5177 },
	     { 256, 1792023, 8168607 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 2719033, 8289033 });
	ROWS(&b->sec[BCN_BRW_DISCONT_BLOCKS], { 0, 2717451, 8283581 });
	ROWS(&b->sec[BCN_BRW_FRAGS], { 1, 2704094, 8283581 });
	assert_int_equal(b->c.present, (1u << BCN_BRW_SECTIONS) - 1 -
			 (1u << BCN_BRW_BLOCK_MAPS));
	assert_int_equal(b->c.malformed, 0);
	free(b);

	b = brw_file("ost/lmt-2.0.53/proc/fs/lustre/obdfilter/lustre-OST0000/"
		     "brw_stats");
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 726, 591 }, { 2, 0, 35 },
	     { 4, 0, 46 }, { 8, 0, 32 }, { 16, 0, 11 }, { 32, 0, 8 },
	     { 64, 0, 7 }, { 128, 0, 3 }, { 256, 0, 7 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 726, 737 });
	assert_int_equal(b->c.malformed, 0);
	free(b);

	b = brw_file("ost/lmt-2.10.8/proc/fs/lustre/obdfilter/lquake-OST0000/"
		     "brw_stats");
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 5713132, 276485 },
	     { 2, 861, 2062606 }, { 4, 251, 54343 }, { 8, 339, 250247 },
	     { 16, 340, 71438 }, { 32, 308, 1294 }, { 64, 289, 1065 },
	     { 128, 558, 2831 }, { 256, 1973261, 2650680 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 7689339, 276485 });
	assert_int_equal(b->c.malformed, 0);
	free(b);

	b = brw_file("ost/lmt-2.12.9_12/proc/fs/lustre/osd-zfs/lquake-OST0000/"
		     "brw_stats");
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 475, 0 }, { 2, 28, 0 },
	     { 256, 0, 2400 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 503, 0 }, { 31, 0, 2400 });
	ROWS(&b->sec[BCN_BRW_IN_FLIGHT], { 1, 499, 2399 }, { 2, 4, 1 });
	ROWS(&b->sec[BCN_BRW_IO_TIME], { 4, 1, 0 }, { 8, 4, 0 },
	     { 16, 10, 0 }, { 32, 6, 0 }, { 64, 3, 0 });
	ROWS(&b->sec[BCN_BRW_IO_SIZE], { 8, 19, 0 }, { 32, 1, 0 },
	     { 64, 1, 0 }, { 128, 440, 0 }, { 256, 1, 0 }, { 512, 1, 0 },
	     { 2048, 4, 0 }, { 4096, 4, 0 }, { 8192, 32, 0 },
	     { 1048576, 0, 2400 });
	assert_int_equal(b->c.malformed, 0);
	free(b);

	/* 2.15: debugfs, start_time/elapsed_time without parentheses */
	b = brw_file("ost/lmt-2.15.4_1/sys/kernel/debug/lustre/osd-zfs/"
		     "lflood-OST0001/brw_stats");
	assert_int_equal(b->snapshot_ns, 1704924117 * NS + 50780452);
	assert_int_equal(b->start_ns, 1704403915 * NS + 835730745);
	assert_int_equal(b->elapsed_ns, 520201 * NS + 215049707);
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 213, 0 }, { 2, 20, 0 },
	     { 4, 0, 0 }, { 256, 1705491, 1703982 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 1705724, 0 },
	     { 31, 0, 1703982 });
	ROWS(&b->sec[BCN_BRW_IO_SIZE], { 8, 7, 0 }, { 32, 1, 0 }, { 64, 1, 0 },
	     { 128, 190, 0 }, { 256, 1, 0 }, { 512, 1, 0 }, { 1 * K, 4, 0 },
	     { 8 * K, 28, 0 }, { 1 * M, 1705491, 1703982 });
	assert_int_equal(bcn_lustre_hist_total(&b->sec[BCN_BRW_PAGES], 1),
			 1703982);
	assert_int_equal(b->c.malformed, 0);
	free(b);
}

static void test_collector_files(void **state)
{
	struct bcn_lustre_brw *b;
	unsigned i;

	(void)state;
	/* starts with an empty line; the block maps row uses spaces */
	b = brw_file("ost/lustre-collector/brw_stats_with_data.txt");
	assert_int_equal(b->snapshot_ns, 1534158712 * NS + 738772898);
	ROWS(&b->sec[BCN_BRW_PAGES], { 32, 0, 1 }, { 64, 0, 0 },
	     { 128, 0, 0 }, { 256, 1, 0 }, { 512, 0, 0 }, { 1 * K, 0, 8 });
	ROWS(&b->sec[BCN_BRW_DISCONT_PAGES], { 0, 0, 6 }, { 1, 0, 3 });
	ROWS(&b->sec[BCN_BRW_DISCONT_BLOCKS], { 0, 0, 9 });
	ROWS(&b->sec[BCN_BRW_FRAGS], { 1, 0, 1 }, { 2, 0, 0 }, { 3, 0, 0 },
	     { 4, 0, 8 });
	/* as the file prints them (see docs/collectors-lustre.md) */
	ROWS(&b->sec[BCN_BRW_IN_FLIGHT], { 1, 0, 2704 }, { 2, 0, 3180 },
	     { 4, 0, 7370 }, { 8, 0, 17365 }, { 16, 0, 40726 },
	     { 32, 0, 44513 }, { 64, 0, 116 });
	ROWS(&b->sec[BCN_BRW_IO_TIME], { 32, 0, 1 }, { 64, 0, 0 },
	     { 128, 0, 2 }, { 256, 0, 6 });
	ROWS(&b->sec[BCN_BRW_IO_SIZE], { 128 * K, 0, 1 }, { 256 * K, 0, 0 },
	     { 512 * K, 0, 0 }, { 1 * M, 0, 32 });
	ROWS(&b->sec[BCN_BRW_BLOCK_MAPS], { 1, 12689, 0 });
	assert_int_equal(b->c.present, (1u << BCN_BRW_SECTIONS) - 1);
	assert_int_equal(b->c.malformed, 0);
	free(b);

	b = brw_file("ost/lustre-collector/"
		     "brw_stats_with_start_and_elapsed_time.txt");
	assert_int_equal(b->snapshot_ns, 1684867636 * NS + 682465202);
	assert_int_equal(b->start_ns, 1684865295 * NS + 727058577);
	assert_int_equal(b->elapsed_ns, 2340 * NS + 955406625);
	assert_int_equal(b->c.present, (1u << BCN_BRW_SECTIONS) - 1);
	assert_int_equal(b->c.rows, 0);
	for (i = 0; i < BCN_BRW_SECTIONS; i++)
		assert_int_equal(b->sec[i].n, 0);
	assert_int_equal(b->c.malformed, 0);
	free(b);

	b = brw_file("ost/lustre-collector/brw_stats_empty.txt");
	assert_int_equal(b->snapshot_ns, 1534429278 * NS + 185762481);
	assert_int_equal(b->start_ns, -1);
	assert_int_equal(b->c.present, (1u << BCN_BRW_SECTIONS) - 1);
	assert_int_equal(b->c.rows, 0);
	assert_int_equal(b->c.malformed, 0);
	free(b);
}

static void test_rpc_stats(void **state)
{
	struct bcn_lustre_rpc *r = malloc(sizeof(*r));
	uint64_t h[BCN_HIST_BUCKETS] = { 0 };
	size_t len;
	char *buf;

	(void)state;
	assert_non_null(r);
	buf = lfx_read("client/lustre_exporter-2.10.1/osc/"
		       "lustrefs-OST0000-osc-ffff88105db50000/rpc_stats", &len);
	assert_int_equal(bcn_lustre_rpc_parse(buf, len, r), 0);
	free(buf);
	assert_int_equal(r->snapshot_ns, 1510950459 * NS + 787901292);
	assert_int_equal(r->read_in_flight, 0);
	assert_int_equal(r->write_in_flight, 6);
	assert_int_equal(r->pending_write_pages, 1244);
	assert_int_equal(r->pending_read_pages, 0);
	assert_int_equal(r->have, BCN_RPC_HAVE_READ_IN_FLIGHT |
			 BCN_RPC_HAVE_WRITE_IN_FLIGHT |
			 BCN_RPC_HAVE_PENDING_WRITE |
			 BCN_RPC_HAVE_PENDING_READ);
	assert_int_equal(r->c.malformed, 0);
	assert_int_equal(r->sec[BCN_RPC_PAGES].n, 11);
	assert_int_equal(r->sec[BCN_RPC_IN_FLIGHT].n, 16);
	assert_int_equal(r->sec[BCN_RPC_OFFSET].n, 29);
	ROWS(&r->sec[BCN_RPC_PAGES], { 1, 0, 1537 }, { 2, 0, 1489 },
	     { 256, 0, 458648 }, { 1024, 0, 16389010 });
	ROWS(&r->sec[BCN_RPC_IN_FLIGHT], { 0, 0, 0 }, { 1, 0, 1053804 },
	     { 3, 0, 4520192 }, { 15, 0, 2 });
	ROWS(&r->sec[BCN_RPC_OFFSET], { 0, 0, 64 }, { 134217728, 0, 8127518 });
	/* write RPCs: the pages per rpc column adds up */
	assert_int_equal(bcn_lustre_hist_total(&r->sec[BCN_RPC_PAGES], 1),
			 1537 + 1489 + 2876 + 5860 + 11916 + 24502 + 51901 +
			 117183 + 458648 + 1145365 + 16389010);
	assert_int_equal(bcn_lustre_hist_total(&r->sec[BCN_RPC_PAGES], 0), 0);
	/* linear in-flight rows fold: 2 and 3 into bucket 1, 4..7 into 2 */
	bcn_lustre_hist_log2(&r->sec[BCN_RPC_IN_FLIGHT], 1, h);
	assert_int_equal(h[0], 1053804);
	assert_int_equal(h[1], 3518152 + 4520192);
	assert_int_equal(h[2], 3656921 + 2350050 + 1396192 + 832325);
	assert_int_equal(h[3], 497409 + 272560 + 91419 + 18683 + 2399 + 174 +
			 5 + 2);

	/* mdc: one "modify" column */
	buf = lfx_read("client/lustre_exporter-2.10.1/mdc/"
		       "lustrefs-MDT0000-mdc-ffff88105db50000/rpc_stats", &len);
	assert_int_equal(bcn_lustre_rpc_parse(buf, len, r), 0);
	free(buf);
	assert_int_equal(r->have, BCN_RPC_HAVE_MODIFY_IN_FLIGHT);
	assert_int_equal(r->modify_in_flight, 0);
	assert_int_equal(r->sec[BCN_RPC_IN_FLIGHT].ncols, 1);
	ROWS(&r->sec[BCN_RPC_IN_FLIGHT], { 1, 90, 0 }, { 2, 13, 0 },
	     { 7, 53, 0 });
	assert_int_equal(bcn_lustre_hist_total(&r->sec[BCN_RPC_IN_FLIGHT], 1),
			 0);
	assert_int_equal(r->c.malformed, 0);
	free(r);
}

static void test_log2(void **state)
{
	static const struct { uint64_t v; unsigned b; } c[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 },
		{ 8, 3 }, { 1023, 9 }, { 1024, 10 }, { 1ULL << 31, 31 },
		{ 1ULL << 32, 31 }, { UINT64_MAX, 31 },
	};
	struct bcn_lustre_hist h = { 0 };
	uint64_t out[BCN_HIST_BUCKETS] = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_int_equal(bcn_lustre_log2_bucket(c[i].v), c[i].b);
	/* Lustre's power-of-two labels map one to one */
	for (i = 0; i < 32; i++) {
		h.label[i] = 1ULL << i;
		h.count[0][i] = i + 1;
	}
	h.n = 32;
	h.ncols = 1;
	bcn_lustre_hist_log2(&h, 0, out);
	for (i = 0; i < 32; i++)
		assert_int_equal(out[i], i + 1);
	/* a column the table does not have adds nothing */
	bcn_lustre_hist_log2(&h, 1, out);
	bcn_lustre_hist_log2(&h, 7, out);
	assert_int_equal(out[31], 32);
	assert_int_equal(bcn_lustre_hist_get(&h, 0, 3), 0);
	assert_string_equal(bcn_lustre_brw_name(BCN_BRW_IO_TIME),
			    "I/O time (1/1000s)");
	assert_string_equal(bcn_lustre_brw_name(99), "?");
	assert_string_equal(bcn_lustre_rpc_name(BCN_RPC_OFFSET), "offset");
}

static void test_malformed(void **state)
{
	static const char text[] =
		"1:   5 0 0 | 5 0 0\n"                  /* before a title */
		"snapshot_time:         1.5 (secs.nsecs)\n"
		"                           read      |     write\n"
		"pages per bulk r/w     rpcs  % cum % |  rpcs        % cum %\n"
		"1:   10 1 1 | 20 2 2\n"
		"2x:  1 0 0 | 1 0 0\n"                  /* bad label */
		"4:   a 0 0 | 1 0 0\n"                  /* bad number */
		"8:   3 0 0 | 4 0 0 | 5\n"              /* two bars */
		"16:  7 0 0 |\n"                        /* empty write */
		"32K:  9 0 0 | 9 0 0\n"
		"99999999999999999999G: 1 | 1\n"        /* label overflow */
		"weird section        ios   % cum % |  ios   % cum %\n"
		"1:   1 0 0 | 1 0 0\n"                  /* unknown section */
		"read RPCs in flight: 3\n"              /* not in brw_stats */
		"free text\n";
	static const char junk[] = "x\ny\n";
	struct bcn_lustre_brw *b = malloc(sizeof(*b));
	struct bcn_lustre_rpc *r = malloc(sizeof(*r));
	const char *keys;
	size_t i, off, cap = 64 * (BCN_LUSTRE_HIST_ROWS + 8);
	char *many;

	(void)state;
	assert_non_null(b);
	assert_non_null(r);
	assert_int_equal(bcn_lustre_brw_parse(text, strlen(text), b), 0);
	assert_int_equal(b->snapshot_ns, NS + 5);   /* nsecs, as printed */
	ROWS(&b->sec[BCN_BRW_PAGES], { 1, 10, 20 }, { 32 * K, 9, 9 });
	assert_int_equal(b->sec[BCN_BRW_PAGES].n, 2);
	assert_int_equal(b->c.rows, 2);
	assert_int_equal(b->c.unknown, 1);
	/* before a title, 2x, a, two bars, empty, overflow, rpc key, text */
	assert_int_equal(b->c.malformed, 8);
	assert_int_equal(bcn_lustre_brw_parse(junk, strlen(junk), b),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_brw_parse("", 0, b), 0);
	/* rpc_stats: unknown keys are counted, not malformed */
	keys = "new key: 5\nread RPCs in flight: 2\n";
	assert_int_equal(bcn_lustre_rpc_parse(keys, strlen(keys), r), 0);
	assert_int_equal(r->c.unknown, 1);
	assert_int_equal(r->read_in_flight, 2);
	/* rows beyond the table's capacity */
	many = malloc(cap);
	assert_non_null(many);
	off = (size_t)snprintf(many, cap,
			       "offset  rpcs %% cum %% | rpcs %% cum %%\n");
	for (i = 0; i < BCN_LUSTRE_HIST_ROWS + 5; i++)
		off += (size_t)snprintf(many + off, cap - off,
					"%zu: 1 0 0 | 2 0 0\n", i);
	assert_true(off < cap);
	assert_int_equal(bcn_lustre_rpc_parse(many, off, r), 0);
	assert_int_equal(r->sec[BCN_RPC_OFFSET].n, BCN_LUSTRE_HIST_ROWS);
	assert_int_equal(r->c.overflow, 5);
	free(many);
	free(b);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_210_hpe),
		cmocka_unit_test(test_telegraf),
		cmocka_unit_test(test_lmt),
		cmocka_unit_test(test_collector_files),
		cmocka_unit_test(test_rpc_stats),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
