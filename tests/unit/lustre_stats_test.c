/* Tests of collectors/lustre/lustre_stats: the timestamp forms, counter
 * lines, the name -> slot maps (fallbacks, repeated names) and golden
 * values from the real stats files of tests/data/lustre (obdfilter stats
 * of Lustre 1.8.3 to 2.15.4, md_stats, export stats, osd and client
 * stats), as their EXPECTED.md files state them; plus the line splitter
 * fed in chunks of every size. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/lustre/lustre_stats.h"
#include "common/error.h"
#include "common/text.h"
#include "lustre_fixture.h"

#define NS 1000000000LL

/* ---- timestamps ------------------------------------------------------ */

struct time_case {
	const char *in;
	int rc;
	int64_t ns;
};

static const struct time_case time_cases[] = {
	{ "1704924117.040584137 secs.nsecs", 0, 1704924117 * NS + 40584137 },
	{ "1438693064.430544 secs.usecs", 0, 1438693064 * NS + 430544000 },
	/* old kernels printed usecs unpadded: 20113 us */
	{ "1438693238.20113 secs.usecs", 0, 1438693238 * NS + 20113000 },
	/* rename_stats pads nsecs with spaces (%9lu) and has no unit */
	{ "1510781853. 10473844", 0, 1510781853 * NS + 10473844 },
	{ " 1537070542", 0, 1537070542 * NS },
	{ "1534158712.738772898 (secs.nsecs)", 0,
	  1534158712 * NS + 738772898 },
	{ "1284151749.963667 (secs.usecs)", 0, 1284151749 * NS + 963667000 },
	{ "520199.994662740 secs.nsecs", 0, 520199 * NS + 994662740 },
	{ "0.000003398 secs.nsecs", 0, 3398 },
	{ "1.5", 0, NS + 500000000 },
	{ "12.25  ", 0, 12 * NS + 250000000 },
	{ "9223372036.854775807", 0, INT64_MAX },
	{ "9223372036.854775808", -BCN_ERANGE, 0 },
	{ "9223372037", -BCN_ERANGE, 0 },
	{ "99999999999999999999999", -BCN_ERANGE, 0 },
	{ "1.1000000 secs.usecs", -BCN_ERANGE, 0 },
	{ "", -BCN_ESYNTAX, 0 },
	{ "   ", -BCN_ESYNTAX, 0 },
	{ "abc", -BCN_ESYNTAX, 0 },
	{ "1.", -BCN_ESYNTAX, 0 },
	{ "1.1234567890", -BCN_ESYNTAX, 0 },
	{ "1 secs.msecs", -BCN_ESYNTAX, 0 },
	{ "1.5 secs.usecs extra", -BCN_ESYNTAX, 0 },
	{ "1.5 (secs.nsecs", -BCN_ESYNTAX, 0 },
	{ "1.5x", -BCN_ESYNTAX, 0 },
	{ "-1", -BCN_ESYNTAX, 0 },
};

static void test_time(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
		const struct time_case *c = &time_cases[i];
		int64_t ns = -7;
		int rc = bcn_lustre_parse_time(c->in, strlen(c->in), &ns);

		if (rc != c->rc || (rc == 0 && ns != c->ns))
			fail_msg("'%s': rc %d ns %lld, want %d %lld", c->in, rc,
				 (long long)ns, c->rc, (long long)c->ns);
		if (rc)
			assert_int_equal(ns, -7);
	}
}

static void test_time_line(void **state)
{
	int64_t snap = -1, start = -1, el = -1;
	const char *l;

	(void)state;
	l = "snapshot_time:         1534158712.738772898 (secs.nsecs)";
	assert_int_equal(bcn_lustre_time_line(l, l + strlen(l), &snap, &start,
					      &el), 1);
	assert_int_equal(snap, 1534158712 * NS + 738772898);
	l = "start_time                1704403917.045921397 secs.nsecs";
	assert_int_equal(bcn_lustre_time_line(l, l + strlen(l), &snap, &start,
					      &el), 1);
	assert_int_equal(start, 1704403917 * NS + 45921397);
	l = "elapsed_time: 2340.955406625 secs.nsecs";
	assert_int_equal(bcn_lustre_time_line(l, l + strlen(l), &snap, &start,
					      &el), 1);
	assert_int_equal(el, 2340 * NS + 955406625);
	l = "snapshot_timex 1";
	assert_int_equal(bcn_lustre_time_line(l, l + strlen(l), &snap, &start,
					      &el), 0);
	l = "read_bytes 1 samples [bytes] 1 1 1";
	assert_int_equal(bcn_lustre_time_line(l, l + strlen(l), &snap, &start,
					      &el), 0);
	l = "snapshot_time nonsense";
	assert_int_equal(bcn_lustre_time_line(l, l + strlen(l), &snap, &start,
					      &el), -BCN_ESYNTAX);
}

/* ---- counter lines --------------------------------------------------- */

static void test_counter_line(void **state)
{
	struct bcn_lustre_counter c;
	const char *l;

	(void)state;
	l = "write_bytes               1432924 samples [bytes] 1 1048576 "
	    "744266735272";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.name_len, 11);
	assert_memory_equal(c.name, "write_bytes", 11);
	assert_int_equal(c.unit_len, 5);
	assert_memory_equal(c.unit, "bytes", 5);
	assert_int_equal(c.samples, 1432924);
	assert_int_equal(c.nvals, 3);
	assert_int_equal(c.min, 1);
	assert_int_equal(c.max, 1048576);
	assert_int_equal(c.sum, 744266735272ULL);

	/* 1.8.3: get_page = '2456607 samples [usec] 0 273229 411988283
	 * 2328085303377' */
	l = "get_page                  2456607 samples [usec] 0 273229 "
	    "411988283 2328085303377";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.nvals, 4);
	assert_int_equal(c.samples, 2456607);
	assert_int_equal(c.sum, 411988283);
	assert_int_equal(c.sumsq, 2328085303377ULL);

	/* osc write_bytes sumsq above 2^63 */
	l = "write_bytes               18210280 samples [bytes] 4096 4194304 "
	    "65298098221056 10009909738331963392";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.sumsq, 10009909738331963392ULL);

	l = "punch                     1164130 samples [reqs]";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.samples, 1164130);
	assert_int_equal(c.nvals, 0);

	/* 2.0 prints min/max/sum/sumsq even for [reqs] */
	l = "open                      28853 samples [reqs] 0 0 0 0";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.samples, 28853);
	assert_int_equal(c.nvals, 4);

	/* llite's [regs] (sic) is still a count */
	l = "open                      136 samples [regs]";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.samples, 136);

	l = "x 1 sample [reqs]";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "x 1 samples [reqs] 5";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "x 1 samples [reqs] 1 2 3 4 5";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "x 1 samples reqs";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "x 1 samples [reqs";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "x 18446744073709551616 samples [reqs]";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ERANGE);
	l = "x 18446744073709551615 samples [reqs]";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c), 0);
	assert_int_equal(c.samples, UINT64_MAX);
	l = "x 1samples [reqs]";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "x 1 samples [reqs] 1 2 3x";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
	l = "lonely";
	assert_int_equal(bcn_lustre_counter_parse(l, strlen(l), &c),
			 -BCN_ESYNTAX);
}

/* ---- maps ------------------------------------------------------------ */

static void test_map_init(void **state)
{
	static const struct bcn_lustre_field bad_slot[] = { { "a", 3, 0 } };
	static const struct bcn_lustre_field bad_value[] = { { "a", 0, 7 } };
	static const struct bcn_lustre_field empty[] = { { "", 0, 0 } };
	static const struct bcn_lustre_field many[] = {
		{ "a", 0, 0 }, { "a", 1, 0 }, { "a", 2, 0 }, { "a", 0, 1 },
		{ "a", 1, 1 },
	};
	struct bcn_lustre_map m;
	uint8_t idx[BCN_LUSTRE_MAP_REFS];

	(void)state;
	assert_int_equal(bcn_lustre_map_init(&m, bad_slot, 1, 3), -EINVAL);
	assert_int_equal(bcn_lustre_map_init(&m, bad_value, 1, 3), -EINVAL);
	assert_int_equal(bcn_lustre_map_init(&m, empty, 1, 3), -EINVAL);
	assert_int_equal(bcn_lustre_map_init(&m, many, 5, 3), -EINVAL);
	assert_int_equal(bcn_lustre_map_init(&m, many, 4, 3), 0);
	assert_int_equal(bcn_lustre_map_find(&m, "a", 1, idx), 4);
	assert_int_equal(bcn_lustre_map_find(&m, "b", 1, idx), 0);
	assert_int_equal(bcn_lustre_map_find(&m, "a\0", 2, idx), 0);
	assert_int_equal(bcn_lustre_map_find(&m, "", 0, idx), 0);
	assert_int_equal(bcn_lustre_map_init(&m, many, 4,
					     BCN_LUSTRE_SLOTS_MAX + 1),
			 -EINVAL);
	/* the shipped tables are valid */
	assert_int_equal(bcn_lustre_map_init(&m, bcn_lustre_ost_fields,
					     bcn_lustre_ost_nfields,
					     BCN_LUSTRE_OST_SLOTS), 0);
	assert_int_equal(bcn_lustre_map_find(&m, "read_bytes", 10, idx), 2);
	assert_int_equal(bcn_lustre_map_init(&m, bcn_lustre_md_fields,
					     bcn_lustre_md_nfields,
					     BCN_LUSTRE_MD_SLOTS), 0);
}

static struct bcn_lustre_map ost_map, md_map;

static int setup_maps(void **state)
{
	(void)state;
	if (bcn_lustre_map_init(&ost_map, bcn_lustre_ost_fields,
				bcn_lustre_ost_nfields, BCN_LUSTRE_OST_SLOTS) ||
	    bcn_lustre_map_init(&md_map, bcn_lustre_md_fields,
				bcn_lustre_md_nfields, BCN_LUSTRE_MD_SLOTS))
		return -1;
	return 0;
}

/* Parses tests/data/lustre/<rel> through map into *st (returns 0 or the
 * parser's code). */
static int parse_file(const char *rel, const struct bcn_lustre_map *map,
		      struct bcn_lustre_stats *st)
{
	size_t len;
	char *buf = lfx_read(rel, &len);
	int rc = bcn_lustre_stats_parse(buf, len, map, st);

	free(buf);
	return rc;
}

#define OSTV(st, op) ((st).vals.v[BCN_OST_##op])
#define MDV(st, op) ((st).vals.v[BCN_MD_##op])
#define RB(st) ((st).vals.v[BCN_LUSTRE_OST_READ_BYTES])
#define WB(st) ((st).vals.v[BCN_LUSTRE_OST_WRITE_BYTES])
#define HAS(st, slot) (((st).vals.present >> (slot)) & 1)

/* ---- OST golden files ---------------------------------------------- */

static void test_ost_18(void **state)
{
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("ost/lmt-1.8.3/proc/fs/lustre/obdfilter/"
				    "lc1-OST0000/stats", &ost_map, &st), 0);
	/* snapshot_time = '1284241188.775657 secs.usecs' */
	assert_int_equal(st.snapshot_ns, 1284241188 * NS + 775657000);
	assert_int_equal(st.start_ns, -1);
	/* write_bytes = '1432924 samples [bytes] 1 1048576 744266735272' */
	assert_int_equal(OSTV(st, WRITE), 1432924);
	assert_int_equal(WB(st), 744266735272ULL);
	assert_int_equal(OSTV(st, READ), 1023683);
	assert_int_equal(RB(st), 471987441490ULL);
	/* punch = '1164130 samples [reqs]' */
	assert_int_equal(OSTV(st, PUNCH), 1164130);
	/* 1.8 names set_info set_info_async */
	assert_int_equal(OSTV(st, SET_INFO), 1);
	assert_int_equal(OSTV(st, STATFS), 5236154);
	assert_int_equal(st.malformed, 0);
	/* get_page, cache_*, process_config, connect, ... are not mapped */
	assert_true(st.unmapped >= 7);
}

static void test_ost_210_hpe(void **state)
{
	static const struct bcn_lustre_field fields[] = {
		{ "ping", 0, BCN_LUSTRE_SAMPLES },
		{ "connect", 1, BCN_LUSTRE_SAMPLES },
		{ "statfs", 2, BCN_LUSTRE_SAMPLES },
		{ "create", 3, BCN_LUSTRE_SAMPLES },
		{ "write_bytes", 4, BCN_LUSTRE_SUM },
	};
	struct bcn_lustre_map own;
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("ost/lustre_exporter-2.10.1/obdfilter/"
				    "lustrefs-OST0000/stats", &ost_map, &st),
			 0);
	assert_int_equal(st.snapshot_ns, 1510782606 * NS + 789180921);
	assert_int_equal(OSTV(st, WRITE), 4298711);
	assert_int_equal(WB(st), 16552048697344ULL);
	assert_int_equal(OSTV(st, CREATE), 2);
	/* two statfs lines (35359, 124430): the first one wins */
	assert_int_equal(OSTV(st, STATFS), 35359);
	assert_int_equal(OSTV(st, PUNCH), 57);
	/* never-read counters are absent, so zero */
	assert_false(HAS(st, BCN_OST_READ));
	assert_int_equal(OSTV(st, READ), 0);
	assert_int_equal(RB(st), 0);

	/* any table works: the exporter's own counters */
	assert_int_equal(bcn_lustre_map_init(&own, fields, 5, 5), 0);
	assert_int_equal(parse_file("ost/lustre_exporter-2.10.1/obdfilter/"
				    "lustrefs-OST0002/stats", &own, &st), 0);
	assert_int_equal(st.vals.v[0], 645);
	assert_int_equal(st.vals.v[1], 1);
	assert_int_equal(st.vals.v[2], 35354);
	assert_int_equal(st.vals.v[3], 2);
	assert_int_equal(parse_file("ost/lustre_exporter-2.10.1/obdfilter/"
				    "lustrefs-OST0000/stats", &own, &st), 0);
	assert_int_equal(st.vals.v[0], 141);
	assert_int_equal(st.vals.v[1], 1);
	assert_int_equal(st.vals.v[2], 35359);
	assert_int_equal(st.vals.v[4], 16552048697344ULL);
	/* the export of the same OST */
	assert_int_equal(parse_file("ost/lustre_exporter-2.10.1/obdfilter/"
				    "lustrefs-OST0000/exports/172.20.20.2@o2ib"
				    "/stats", &ost_map, &st), 0);
	assert_int_equal(st.malformed, 0);
	assert_true(st.counters > 0);
}

static void test_ost_2108(void **state)
{
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("ost/lmt-2.10.8/proc/fs/lustre/obdfilter/"
				    "lquake-OST0000/stats", &ost_map, &st), 0);
	assert_int_equal(OSTV(st, READ), 7688839);
	assert_int_equal(RB(st), 2092334829568ULL);
	assert_int_equal(OSTV(st, WRITE), 5370989);
	assert_int_equal(WB(st), 2798370021441ULL);
	assert_int_equal(OSTV(st, DESTROY), 3152534);
	assert_int_equal(OSTV(st, PUNCH), 8214);
	assert_int_equal(OSTV(st, SYNC), 128);
	assert_int_equal(OSTV(st, CREATE), 583);
	assert_int_equal(OSTV(st, SETATTR), 540);
	assert_int_equal(OSTV(st, GET_INFO), 18);
	/* statfs 1218621 then 297051: first wins (LMT keeps the last) */
	assert_int_equal(OSTV(st, STATFS), 1218621);
	assert_int_equal(st.counters, 16);
	assert_int_equal(st.malformed, 0);
}

static void test_ost_212(void **state)
{
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("ost/lmt-2.12.9_12/proc/fs/lustre/"
				    "obdfilter/lquake-OST0000/stats", &ost_map,
				    &st), 0);
	assert_int_equal(st.snapshot_ns, 1705616007 * NS + 24163818);
	assert_int_equal(OSTV(st, WRITE), 2400);
	assert_int_equal(WB(st), 2516582400ULL);
	assert_int_equal(OSTV(st, DESTROY), 20);
	assert_int_equal(OSTV(st, CREATE), 33);
	assert_int_equal(OSTV(st, STATFS), 1626647);
	assert_false(HAS(st, BCN_LUSTRE_OST_READ_BYTES));
	assert_int_equal(parse_file("ost/lmt-2.12.9_12/proc/fs/lustre/"
				    "obdfilter/lquake-OST0001/stats", &ost_map,
				    &st), 0);
	assert_int_equal(OSTV(st, WRITE), 1048);
	assert_int_equal(WB(st), 1098907648ULL);
	assert_int_equal(OSTV(st, DESTROY), 20);
}

static void test_ost_215(void **state)
{
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("ost/lmt-2.15.4_1/proc/fs/lustre/"
				    "obdfilter/lflood-OST0001/stats", &ost_map,
				    &st), 0);
	assert_int_equal(st.snapshot_ns, 1704924117 * NS + 40584137);
	assert_int_equal(st.start_ns, 1704403917 * NS + 45921397);
	assert_int_equal(st.elapsed_ns, 520199 * NS + 994662740);
	assert_int_equal(OSTV(st, READ), 1705491);
	assert_int_equal(RB(st), 1788336930816ULL);
	assert_int_equal(OSTV(st, WRITE), 1704066);
	assert_int_equal(WB(st), 1786842710016ULL);
	assert_int_equal(OSTV(st, DESTROY), 480013);
	assert_int_equal(OSTV(st, CREATE), 85);
	assert_int_equal(OSTV(st, STATFS), 406158);
	assert_int_equal(OSTV(st, SET_INFO), 53469);
	/* "read" (latency) was preferred over read_bytes for the count */
	assert_int_equal(st.vals.rank[BCN_OST_READ], BCN_OST_READ);
	assert_int_equal(st.unmapped, 0);
	assert_int_equal(parse_file("ost/lmt-2.15.4_1/proc/fs/lustre/"
				    "obdfilter/lflood-OST0000/stats", &ost_map,
				    &st), 0);
	assert_int_equal(OSTV(st, CREATE), 8);
	assert_int_equal(OSTV(st, STATFS), 400666);
	assert_int_equal(OSTV(st, SET_INFO), 52735);
	assert_int_equal(OSTV(st, READ), 0);
	assert_int_equal(OSTV(st, WRITE), 0);
}

static void test_ost_telegraf(void **state)
{
	static const struct bcn_lustre_field cache[] = {
		{ "cache_access", 0, BCN_LUSTRE_SAMPLES },
		{ "cache_hit", 1, BCN_LUSTRE_SAMPLES },
		{ "cache_miss", 2, BCN_LUSTRE_SAMPLES },
		{ "cache_access", 3, BCN_LUSTRE_SUM },
	};
	struct bcn_lustre_stats st, ex;
	struct bcn_lustre_map cmap;

	(void)state;
	assert_int_equal(parse_file("ost/telegraf-v2.12/obdfilter/OST0001/"
				    "stats", &ost_map, &st), 0);
	assert_int_equal(st.snapshot_ns, 1438693064 * NS + 430544000);
	assert_int_equal(RB(st), 78026117632000ULL);
	assert_int_equal(OSTV(st, READ), 203238095);
	assert_int_equal(WB(st), 15201500833981ULL);
	assert_int_equal(OSTV(st, WRITE), 71893382);
	assert_int_equal(OSTV(st, GET_INFO), 1182008495);
	assert_int_equal(OSTV(st, QUOTACTL), 229231);
	assert_int_equal(OSTV(st, SET_INFO), 2);       /* set_info_async */
	assert_int_equal(parse_file("ost/telegraf-v2.12/obdfilter/OST0001/"
				    "exports/10.2.4.27@o2ib1/stats", &ost_map,
				    &ex), 0);
	assert_memory_equal(ex.vals.v, st.vals.v,
			    BCN_LUSTRE_OST_SLOTS * sizeof(st.vals.v[0]));

	/* osd-ldiskfs stats: samples above 2^32; [pages] sums */
	assert_int_equal(bcn_lustre_map_init(&cmap, cache, 4, 4), 0);
	assert_int_equal(parse_file("ost/telegraf-v2.12/osd-ldiskfs/OST0001/"
				    "stats", &cmap, &st), 0);
	assert_int_equal(st.vals.v[0], 19047063027ULL);
	assert_int_equal(st.vals.v[1], 7393729777ULL);
	assert_int_equal(st.vals.v[2], 11653333250ULL);
	assert_int_equal(st.vals.v[3], 19047063027ULL); /* min = max = 1 */
}

static void test_ost_2053(void **state)
{
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("ost/lmt-2.0.53/proc/fs/lustre/obdfilter/"
				    "lustre-OST0000/stats", &ost_map, &st), 0);
	assert_true(st.snapshot_ns > 0);
	assert_int_equal(st.snapshot_ns % 1000, 0);     /* secs.usecs */
	assert_int_equal(st.malformed, 0);
	assert_true(st.unmapped > 0);                   /* get_page, cache_* */
}

/* ---- MDT golden files ---------------------------------------------- */

static void test_md_telegraf(void **state)
{
	static const struct { unsigned op; uint64_t v; } want[] = {
		{ BCN_MD_OPEN, 1024577037 }, { BCN_MD_CLOSE, 873243496 },
		{ BCN_MD_MKNOD, 349042 }, { BCN_MD_LINK, 445 },
		{ BCN_MD_UNLINK, 3549417 }, { BCN_MD_MKDIR, 705499 },
		{ BCN_MD_RMDIR, 227434 }, { BCN_MD_RENAME, 629196 },
		{ BCN_MD_GETATTR, 1503663097 }, { BCN_MD_SETATTR, 1898364 },
		{ BCN_MD_GETXATTR, 6145349681ULL },
		{ BCN_MD_SETXATTR, 83969 }, { BCN_MD_STATFS, 2916320 },
		{ BCN_MD_SYNC, 434081 }, { BCN_MD_SAMEDIR_RENAME, 259625 },
		{ BCN_MD_CROSSDIR_RENAME, 369571 },
	};
	struct bcn_lustre_stats st, ex;
	size_t i;

	(void)state;
	assert_int_equal(parse_file("mds/telegraf-v2.12/mdt/OST0001/md_stats",
				    &md_map, &st), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(st.vals.v[want[i].op], want[i].v);
	/* 1438693238.20113 secs.usecs: 20113 microseconds */
	assert_int_equal(st.snapshot_ns, 1438693238 * NS + 20113000);
	assert_int_equal(st.counters, 16);
	assert_int_equal(st.unmapped, 0);
	assert_int_equal(parse_file("mds/telegraf-v2.12/mdt/OST0001/exports/"
				    "10.2.4.27@o2ib1/stats", &md_map, &ex), 0);
	assert_memory_equal(ex.vals.v, st.vals.v,
			    BCN_LUSTRE_MD_SLOTS * sizeof(st.vals.v[0]));
}

static void test_md_versions(void **state)
{
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(parse_file("mds/lmt-2.10.8/proc/fs/lustre/mdt/"
				    "lquake-MDT0000/md_stats", &md_map, &st),
			 0);
	assert_int_equal(MDV(st, OPEN), 24698433);
	assert_int_equal(MDV(st, CLOSE), 24695036);
	assert_int_equal(MDV(st, MKNOD), 14335868);
	assert_int_equal(MDV(st, LINK), 10);
	assert_int_equal(MDV(st, UNLINK), 14335582);
	assert_int_equal(MDV(st, MKDIR), 13347076);
	assert_int_equal(MDV(st, RMDIR), 13347066);
	assert_int_equal(MDV(st, RENAME), 412);
	assert_int_equal(MDV(st, GETATTR), 47436738);
	assert_int_equal(MDV(st, SETATTR), 144733);
	assert_int_equal(MDV(st, GETXATTR), 76058499);
	assert_int_equal(MDV(st, SETXATTR), 10);
	assert_int_equal(MDV(st, STATFS), 138675);
	assert_int_equal(MDV(st, SYNC), 15);
	assert_int_equal(MDV(st, SAMEDIR_RENAME), 387);
	assert_int_equal(MDV(st, CROSSDIR_RENAME), 25);

	assert_int_equal(parse_file("mds/lmt-2.12.9_12/proc/fs/lustre/mdt/"
				    "lquake-MDT0000/md_stats", &md_map, &st),
			 0);
	assert_int_equal(st.snapshot_ns, 1705616006 * NS + 945332690);
	assert_int_equal(MDV(st, GETATTR), 1233);
	assert_int_equal(MDV(st, GETXATTR), 250);
	assert_int_equal(MDV(st, STATFS), 1525058);

	assert_int_equal(parse_file("mds/lmt-2.15.4_1/proc/fs/lustre/mdt/"
				    "lflood-MDT0000/md_stats", &md_map, &st),
			 0);
	assert_int_equal(st.snapshot_ns, 1704923930 * NS + 736404480);
	assert_int_equal(st.start_ns, 1704407718 * NS + 813190064);
	assert_int_equal(st.elapsed_ns, 516211 * NS + 923214416);
	assert_int_equal(MDV(st, GETATTR), 2644);
	assert_int_equal(MDV(st, STATFS), 302669);
	assert_int_equal(st.counters, 2);

	/* 1.8: mds/<target>/stats, counts above 2^31 */
	assert_int_equal(parse_file("mds/lmt-1.8.3/proc/fs/lustre/mds/"
				    "lc1-MDT0000/stats", &md_map, &st), 0);
	assert_int_equal(st.snapshot_ns, 1284240956 * NS + 145593000);
	assert_int_equal(MDV(st, OPEN), 3184513192ULL);
	assert_int_equal(MDV(st, CLOSE), 1523124002);
	assert_int_equal(MDV(st, MKNOD), 13417505);
	assert_int_equal(MDV(st, MKDIR), 23904204);
	assert_int_equal(MDV(st, RMDIR), 7450693);
	assert_int_equal(MDV(st, RENAME), 4666278);

	/* 2.0: md_stats held the service counters mds_getattr/mds_statfs */
	assert_int_equal(parse_file("mds/lmt-2.0.53/proc/fs/lustre/mdt/"
				    "lustre-MDT0000/md_stats", &md_map, &st),
			 0);
	assert_int_equal(MDV(st, GETATTR), 11);
	assert_int_equal(MDV(st, STATFS), 2);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(parse_file("mds/lmt-2.0.53/proc/fs/lustre/mdt/"
				    "lustre-MDT0000/exports/192.168.1.29@tcp/"
				    "stats", &md_map, &st), 0);
	assert_int_equal(MDV(st, OPEN), 23462);
	assert_int_equal(MDV(st, CLOSE), 15493);
	assert_int_equal(MDV(st, RENAME), 2002);

	assert_int_equal(parse_file("mds/lustre_exporter-2.10.1/mdt/"
				    "lustrefs-MDT0000/md_stats", &md_map, &st),
			 0);
	assert_int_equal(MDV(st, OPEN), 10);
	assert_int_equal(MDV(st, CLOSE), 9);
	assert_int_equal(MDV(st, GETATTR), 16);
	assert_int_equal(MDV(st, SETATTR), 57);
	assert_int_equal(MDV(st, STATFS), 1);
	assert_int_equal(MDV(st, GETXATTR), 2);
	assert_int_equal(MDV(st, MKNOD), 1);
}

/* ---- client stats --------------------------------------------------- */

static void test_client(void **state)
{
	static const struct bcn_lustre_field llite[] = {
		{ "read_bytes", 0, BCN_LUSTRE_SAMPLES },
		{ "read_bytes", 1, BCN_LUSTRE_SUM },
		{ "write_bytes", 2, BCN_LUSTRE_SAMPLES },
		{ "write_bytes", 3, BCN_LUSTRE_SUM },
		{ "open", 4, BCN_LUSTRE_SAMPLES },
		{ "inode_permission", 5, BCN_LUSTRE_SAMPLES },
		{ "removexattr", 6, BCN_LUSTRE_SAMPLES },
	};
	struct bcn_lustre_map m;
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(bcn_lustre_map_init(&m, llite, 7, 7), 0);
	assert_int_equal(parse_file("client/lustre_exporter-2.10.1/llite/"
				    "lustrefs-ffff88105db50000/stats", &m, &st),
			 0);
	assert_int_equal(st.vals.v[0], 1);
	assert_int_equal(st.vals.v[1], 4194304);
	assert_int_equal(st.vals.v[2], 89467810);
	assert_int_equal(st.vals.v[3], 93813797294080ULL);
	assert_int_equal(st.vals.v[4], 136);
	assert_int_equal(st.vals.v[5], 398);
	assert_int_equal(st.vals.v[6], 134);
	assert_int_equal(parse_file("client/lustre_exporter-2.10.1/osc/"
				    "lustrefs-OST0000-osc-ffff88105db50000/"
				    "stats", &m, &st), 0);
	assert_int_equal(st.vals.v[2], 18210280);
	assert_int_equal(st.vals.v[3], 65298098221056ULL);
	assert_int_equal(st.malformed, 0);
}

/* ---- bad input ------------------------------------------------------ */

static void test_malformed(void **state)
{
	static const char mixed[] =
		"snapshot_time             1510782606.789180921 secs.nsecs\n"
		"write_bytes               10 samples [bytes] 1 2 30\n"
		"garbage here\n"
		"punch                     x samples [reqs]\n"
		"\n"
		"   \t\n"
		"create                    2 samples [reqs]\n"
		"snapshot_time nope\n"
		"statfs                    7 samples [reqs]";  /* no \n */
	static const char junk[] = "a\nb c d\n\x01\x02\n";
	struct bcn_lustre_stats st;

	(void)state;
	assert_int_equal(bcn_lustre_stats_parse(mixed, strlen(mixed), &ost_map,
						&st), 0);
	assert_int_equal(st.counters, 3);
	assert_int_equal(st.malformed, 3);
	assert_int_equal(WB(st), 30);
	assert_int_equal(OSTV(st, CREATE), 2);
	assert_int_equal(OSTV(st, STATFS), 7);
	assert_int_equal(bcn_lustre_stats_parse(junk, strlen(junk), &ost_map,
						&st), -BCN_ESYNTAX);
	assert_int_equal(st.malformed, 3);
	assert_int_equal(bcn_lustre_stats_parse("", 0, &ost_map, &st), 0);
	assert_int_equal(st.counters, 0);
	assert_int_equal(st.snapshot_ns, -1);
}

/* ---- line splitter ------------------------------------------------- */

struct collect {
	char text[65536];
	size_t len;
	unsigned lines;
};

static int collect_line(void *arg, const char *line, size_t len)
{
	struct collect *c = arg;

	if (c->len + len + 1 > sizeof(c->text))
		return -BCN_EFULL;
	memcpy(c->text + c->len, line, len);
	c->len += len;
	c->text[c->len++] = '|';
	c->lines++;
	return 0;
}

static int stop_line(void *arg, const char *line, size_t len)
{
	unsigned *n = arg;

	(void)line;
	(void)len;
	return ++*n == 2 ? -EINTR : 0;
}

static void split(const char *buf, size_t len, size_t chunk,
		  struct collect *c, uint64_t *overlong)
{
	struct bcn_lustre_lines ls;
	size_t off;

	memset(c, 0, sizeof(*c));
	bcn_lustre_lines_init(&ls);
	for (off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		assert_int_equal(bcn_lustre_lines_feed(&ls, buf + off, n,
						       collect_line, c), 0);
	}
	assert_int_equal(bcn_lustre_lines_end(&ls, collect_line, c), 0);
	*overlong = ls.overlong_lines;
}

static void test_lines_chunks(void **state)
{
	struct collect *whole = malloc(sizeof(*whole));
	struct collect *part = malloc(sizeof(*part));
	size_t len, chunk;
	uint64_t ow, op;
	char *buf = lfx_read("ost/lmt-2.15.4_1/proc/fs/lustre/obdfilter/"
			     "lflood-OST0001/stats", &len);

	(void)state;
	assert_non_null(whole);
	assert_non_null(part);
	split(buf, len, len, whole, &ow);
	assert_int_equal(whole->lines, 11);
	for (chunk = 1; chunk <= len; chunk++) {
		split(buf, len, chunk, part, &op);
		assert_int_equal(part->len, whole->len);
		assert_memory_equal(part->text, whole->text, whole->len);
		assert_int_equal(op, ow);
	}
	free(buf);
	free(whole);
	free(part);
}

static void test_lines_overlong(void **state)
{
	size_t len = 3 * BCN_LUSTRE_LINE_MAX;
	char *buf = malloc(len);
	struct collect *c = malloc(sizeof(*c));
	size_t chunk;
	uint64_t over;
	unsigned n = 0;
	struct bcn_lustre_lines ls;

	(void)state;
	assert_non_null(buf);
	assert_non_null(c);
	/* "a\n", a line of exactly LINE_MAX - 1 bytes (kept), one of
	 * LINE_MAX bytes (skipped), then "b" without a newline */
	memset(buf, 'x', len);
	buf[0] = 'a';
	buf[1] = '\n';
	buf[2 + BCN_LUSTRE_LINE_MAX - 1] = '\n';
	buf[2 + BCN_LUSTRE_LINE_MAX + BCN_LUSTRE_LINE_MAX] = '\n';
	len = 2 + 2 * BCN_LUSTRE_LINE_MAX + 1 + 1;
	buf[len - 1] = 'b';
	for (chunk = 1; chunk <= len; chunk += 97) {
		split(buf, len, chunk, c, &over);
		assert_int_equal(c->lines, 3);
		assert_int_equal(over, 1);
		assert_int_equal(c->len, 2 + BCN_LUSTRE_LINE_MAX + 2);
	}
	/* a callback error stops the splitter */
	bcn_lustre_lines_init(&ls);
	assert_int_equal(bcn_lustre_lines_feed(&ls, "a\nb\nc\n", 6, stop_line,
					       &n), -EINTR);
	assert_int_equal(n, 2);
	free(buf);
	free(c);
}

static void test_u64(void **state)
{
	const char *s = "18446744073709551615x", *p = s;
	uint64_t v;

	(void)state;
	assert_int_equal(bcn_text_u64(&p, s + strlen(s), &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_ptr_equal(p, s + 20);
	s = "18446744073709551616";
	p = s;
	assert_int_equal(bcn_text_u64(&p, s + strlen(s), &v), -BCN_ERANGE);
	assert_ptr_equal(p, s);
	s = "x1";
	p = s;
	assert_int_equal(bcn_text_u64(&p, s + 2, &v), -BCN_ESYNTAX);
	/* the end bounds the number */
	s = "12345";
	p = s;
	assert_int_equal(bcn_text_u64(&p, s + 3, &v), 0);
	assert_int_equal(v, 123);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_time_line),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_counter_line),
		cmocka_unit_test(test_map_init),
		cmocka_unit_test(test_ost_18),
		cmocka_unit_test(test_ost_210_hpe),
		cmocka_unit_test(test_ost_2108),
		cmocka_unit_test(test_ost_212),
		cmocka_unit_test(test_ost_215),
		cmocka_unit_test(test_ost_telegraf),
		cmocka_unit_test(test_ost_2053),
		cmocka_unit_test(test_md_telegraf),
		cmocka_unit_test(test_md_versions),
		cmocka_unit_test(test_client),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lines_chunks),
		cmocka_unit_test(test_lines_overlong),
	};

	return cmocka_run_group_tests(tests, setup_maps, NULL);
}
