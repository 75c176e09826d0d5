/* Tests of collectors/lustre/lustre_osc over a real Lustre 2.10.1 client's
 * osc device (tests/data/forwarder, see PROVENANCE.md): the osc stats
 * through collectors/lustre's parser and the forwarder's map, rpc_stats
 * through collectors/lustre's parser folded into log2 buckets, the import
 * parser, target names, and the fwd_rpc record built from the deltas of
 * two samples. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/lustre/lustre_osc.h"
#include "common/buf.h"
#include "collectors/runtime/counter.h"
#include "common/error.h"

#define OSC BCN_TEST_DATA "/forwarder/lustre_exporter-2.10.1/osc/" \
	"lustrefs-OST0000-osc-ffff88105db50000/"
#define H BCN_HIST_BUCKETS

static struct bcn_lustre_map map;

static void load(const char *path, struct bcn_buf *b)
{
	bcn_buf_init(b, BCN_LUSTRE_OSC_FILE_MAX);
	assert_int_equal(bcn_buf_read_file(b, path), 0);
}

/* Replaces the first occurrence of from in b by to. */
static void edit(struct bcn_buf *b, const char *from, const char *to)
{
	char *p = memmem(b->data, b->len, from, strlen(from));
	struct bcn_buf out;
	size_t off;

	assert_non_null(p);
	off = (size_t)((uint8_t *)p - b->data);
	bcn_buf_init(&out, BCN_LUSTRE_OSC_FILE_MAX);
	assert_int_equal(bcn_buf_add(&out, b->data, off), 0);
	assert_int_equal(bcn_buf_adds(&out, to), 0);
	assert_int_equal(bcn_buf_add(&out, b->data + off + strlen(from),
				     b->len - off - strlen(from)), 0);
	bcn_buf_free(b);
	*b = out;
}

static void parse(const struct bcn_buf *st, const struct bcn_buf *rs,
		  uint64_t *v, struct bcn_lustre_rpc *rpc)
{
	struct bcn_lustre_stats stats;

	assert_int_equal(bcn_lustre_stats_parse((const char *)st->data,
						st->len, &map, &stats), 0);
	assert_int_equal(stats.malformed, 0);
	assert_int_equal(bcn_lustre_rpc_parse((const char *)rs->data, rs->len,
					      rpc), 0);
	assert_int_equal(rpc->c.malformed, 0);
	bcn_lustre_osc_counters(&stats, rpc, v);
}

static int setup(void **state)
{
	(void)state;
	return bcn_lustre_map_init(&map, bcn_lustre_osc_fields, bcn_lustre_osc_nfields,
				   BCN_LUSTRE_OSC_SLOTS);
}

static void test_fixture_counters(void **state)
{
	static const uint64_t pages_write[] = {
		1537, 1489, 2876, 5860, 11916, 24502, 51901, 117183, 458648,
		1145365, 16389010
	};
	struct bcn_lustre_rpc rpc;
	struct bcn_buf st, rs;
	uint64_t v[BCN_LUSTRE_OSC_NCOUNTERS], sum = 0;
	unsigned i;

	(void)state;
	load(OSC "stats", &st);
	load(OSC "rpc_stats", &rs);
	parse(&st, &rs, v, &rpc);
	/* stats: ost_write samples are the write RPCs; no reads at all */
	assert_int_equal(v[BCN_LUSTRE_OSC_WRITE_RPCS], 18210286);
	assert_int_equal(v[BCN_LUSTRE_OSC_WRITE_BYTES], 65298098221056ULL);
	assert_int_equal(v[BCN_LUSTRE_OSC_READ_RPCS], 0);
	assert_int_equal(v[BCN_LUSTRE_OSC_READ_BYTES], 0);
	/* pages per rpc 1, 2, 4, ..., 1024 are buckets 0 .. 10 */
	for (i = 0; i < H; i++) {
		uint64_t want = i < 11 ? pages_write[i] : 0;

		assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + H + i], want);
		assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + i], 0);
		sum += v[BCN_LUSTRE_OSC_SLOTS + H + i];
	}
	assert_int_equal(sum, 18210287);
	/* RPCs in flight 0..15 fold into buckets [0,2) [2,4) [4,8) [8,16) */
	assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + 3 * H + 0], 1053804);
	assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + 3 * H + 1], 3518152 + 4520192);
	assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + 3 * H + 2],
			 3656921 + 2350050 + 1396192 + 832325);
	assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + 3 * H + 3],
			 497409 + 272560 + 91419 + 18683 + 2399 + 174 + 5 + 2);
	for (i = 4; i < H; i++)
		assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + 3 * H + i], 0);
	for (i = 0; i < H; i++)
		assert_int_equal(v[BCN_LUSTRE_OSC_SLOTS + 2 * H + i], 0);
	/* gauges */
	assert_int_equal(rpc.read_in_flight, 0);
	assert_int_equal(rpc.write_in_flight, 6);
	assert_int_equal(rpc.pending_write_pages, 1244);
	assert_int_equal(rpc.pending_read_pages, 0);
	bcn_buf_free(&st);
	bcn_buf_free(&rs);
}

/* Two samples, the second with the counters raised as a client writing
 * ten 4 MiB RPCs and reading two 1-page ones would: the record carries
 * exactly those deltas and the gauges of the second sample. */
static void test_record_from_deltas(void **state)
{
	struct bcn_counter_table *t;
	struct bcn_lustre_rpc rpc;
	struct bcn_buf st, rs;
	struct bcn_record r;
	uint64_t v[BCN_LUSTRE_OSC_NCOUNTERS], d[BCN_LUSTRE_OSC_NCOUNTERS];
	int64_t prev;
	unsigned i;

	(void)state;
	assert_int_equal(bcn_counter_table_new("osc", 16, 3, &t), 0);
	load(OSC "stats", &st);
	load(OSC "rpc_stats", &rs);
	parse(&st, &rs, v, &rpc);
	assert_true(bcn_counter_update(t, "x", v, NULL, BCN_LUSTRE_OSC_NCOUNTERS,
				       1000, d, NULL, &prev) &
		    BCN_COUNTER_F_FIRST);
	edit(&st, "ost_write                 18210286",
	     "ost_write                 18210296");
	edit(&st, "65298098221056", "65298140164096");
	edit(&st, "obd_ping", "ost_read                  2 samples [usec] "
	     "1 1 2 2\nread_bytes                2 samples [bytes] 4096 4096 "
	     "8192 33554432\nobd_ping");
	edit(&rs, "write RPCs in flight: 6", "write RPCs in flight: 3");
	edit(&rs, "1024:\t\t         0   0   0   |   16389010",
	     "1024:\t\t         0   0   0   |   16389020");
	edit(&rs, "1:\t\t         0   0   0   |       1537",
	     "1:\t\t         2   0   0   |       1537");
	edit(&rs, "1:\t\t         0   0   0   |    1053804",
	     "1:\t\t         2   0   0   |    1053804");
	edit(&rs, "3:\t\t         0   0   0   |    4520192",
	     "3:\t\t         0   0   0   |    4520202");
	parse(&st, &rs, v, &rpc);
	assert_int_equal(bcn_counter_update(t, "x", v, NULL,
					    BCN_LUSTRE_OSC_NCOUNTERS, 2000, d, NULL,
					    &prev), 0);
	assert_int_equal(prev, 1000);
	bcn_lustre_osc_record(&r, "lustrefs-OST0000", prev, 2000 - prev, d, &rpc,
		       UINT64_MAX);
	assert_int_equal(bcn_record_check(&r), 0);
	assert_int_equal(r.type, BCN_REC_FWD_RPC);
	assert_int_equal(r.t, 1000);
	assert_int_equal(r.dur, 1000);
	assert_string_equal(r.u.fwd_rpc.target, "lustrefs-OST0000");
	assert_int_equal(r.u.fwd_rpc.write_rpcs, 10);
	assert_int_equal(r.u.fwd_rpc.write_bytes, 41943040);
	assert_int_equal(r.u.fwd_rpc.read_rpcs, 2);
	assert_int_equal(r.u.fwd_rpc.read_bytes, 8192);
	assert_int_equal(r.u.fwd_rpc.in_flight, 3);
	assert_int_equal(r.u.fwd_rpc.pending_pages, 1244);
	for (i = 0; i < H; i++) {
		assert_int_equal(r.u.fwd_rpc.pages_write[i], i == 10 ? 10 : 0);
		assert_int_equal(r.u.fwd_rpc.pages_read[i], i == 0 ? 2 : 0);
		assert_int_equal(r.u.fwd_rpc.flight_read[i], i == 0 ? 2 : 0);
		assert_int_equal(r.u.fwd_rpc.flight_write[i], i == 1 ? 10 : 0);
	}
	/* without the in-flight lines import's count is used */
	rpc.have &= ~(uint32_t)(BCN_RPC_HAVE_READ_IN_FLIGHT |
				BCN_RPC_HAVE_WRITE_IN_FLIGHT);
	bcn_lustre_osc_record(&r, "lustrefs-OST0000", prev, 1000, d, &rpc, 8);
	assert_int_equal(r.u.fwd_rpc.in_flight, 8);
	bcn_lustre_osc_record(&r, "lustrefs-OST0000", prev, 1000, d, NULL,
		       UINT64_MAX);
	assert_int_equal(r.u.fwd_rpc.in_flight, 0);
	assert_int_equal(r.u.fwd_rpc.pending_pages, 0);
	bcn_counter_table_free(t);
	bcn_buf_free(&st);
	bcn_buf_free(&rs);
}

static void test_import(void **state)
{
	static const struct { const char *in; int rc; uint64_t v; } t[] = {
		{ "import:\n    rpcs:\n       inflight: 3\n", 0, 3 },
		{ "import:\n    rpcs:\n       unregistering: 0\n"
		  "       inflight: 12 \n", 0, 12 },
		{ "import:\n    connection:\n       inflight: 3\n    rpcs:\n"
		  "       timeouts: 0\n", -ENOENT, 0 },
		{ "import:\n    rpcs:\n    inflight: 3\n", -ENOENT, 0 },
		{ "import:\n    rpcs:\n       inflight: x\n", -BCN_ESYNTAX, 0 },
		{ "import:\n    rpcs:\n       inflight: 3 usec\n",
		  -BCN_ESYNTAX, 0 },
		{ "", -ENOENT, 0 },
	};
	struct bcn_buf b;
	uint64_t v;
	size_t i;

	(void)state;
	load(OSC "import", &b);
	assert_int_equal(bcn_lustre_osc_import_inflight((const char *)b.data, b.len,
						 &v), 0);
	assert_int_equal(v, 8);
	bcn_buf_free(&b);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 0;
		assert_int_equal(bcn_lustre_osc_import_inflight(t[i].in,
							 strlen(t[i].in), &v),
				 t[i].rc);
		if (t[i].rc == 0)
			assert_int_equal(v, t[i].v);
	}
}

static void test_target_name(void **state)
{
	static const struct { const char *in; int rc; const char *out; } t[] = {
		{ "lustrefs-OST0000-osc-ffff88105db50000", 0,
		  "lustrefs-OST0000" },
		{ "my-osc-fs-OST002a-osc-ffff9c1e", 0, "my-osc-fs-OST002a" },
		{ "lustre-OST0003-osc-MDT0000", 0, "lustre-OST0003" },
		{ "lustrefs-MDT0000-mdc-ffff88105db50000", -EINVAL, NULL },
		{ "lustrefs-OST0000-osc-", -EINVAL, NULL },
		{ "-OST0000-osc-ffff", -EINVAL, NULL },
		{ "lustrefs-OST-osc-ffff", -EINVAL, NULL },
		{ "osc", -EINVAL, NULL },
		{ "", -EINVAL, NULL },
	};
	char out[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(bcn_lustre_osc_target_name(t[i].in, out,
						     sizeof(out)), t[i].rc);
		if (t[i].rc == 0)
			assert_string_equal(out, t[i].out);
	}
	assert_int_equal(bcn_lustre_osc_target_name(t[0].in, out, 16), -BCN_EFULL);
	assert_int_equal(bcn_lustre_osc_target_name(t[0].in, out, 17), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_counters),
		cmocka_unit_test(test_record_from_deltas),
		cmocka_unit_test(test_import),
		cmocka_unit_test(test_target_name),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
