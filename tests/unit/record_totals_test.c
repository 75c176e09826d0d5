/* Oracle for bcn_record_totals(): an independent table, written by hand,
 * of where every operation of every record type counts (read, write,
 * metadata or other), checked one operation at a time, so that a swapped
 * classification in proto/record.c fails here and not only in a mirror. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto/record.h"

enum cls { R, W, M, O };

/* the totals one operation class should give for count ops of size bytes */
static void expect(const struct bcn_record_totals *t, enum cls c,
		   uint64_t count, uint64_t bytes, const char *what)
{
	struct bcn_record_totals w;

	memset(&w, 0, sizeof(w));
	switch (c) {
	case R: w.read_ops = count; w.read_bytes = bytes; break;
	case W: w.write_ops = count; w.write_bytes = bytes; break;
	case M: w.meta_ops = count; break;
	case O: w.other_ops = count; break;
	}
	if (memcmp(t, &w, sizeof(w)) != 0)
		fail_msg("%s: totals r %ju/%ju w %ju/%ju m %ju o %ju, want class %d",
			 what, (uintmax_t)t->read_ops, (uintmax_t)t->read_bytes,
			 (uintmax_t)t->write_ops, (uintmax_t)t->write_bytes,
			 (uintmax_t)t->meta_ops, (uintmax_t)t->other_ops, (int)c);
}

static void test_io(void **state)
{
	static const struct { enum bcn_io_op op; enum cls c; } tab[] = {
		{ BCN_IO_OPEN, M }, { BCN_IO_CLOSE, M }, { BCN_IO_READ, R },
		{ BCN_IO_WRITE, W }, { BCN_IO_SEEK, O }, { BCN_IO_SYNC, O },
		{ BCN_IO_TRUNCATE, O }, { BCN_IO_STAT, M },
		{ BCN_IO_UNLINK, M }, { BCN_IO_RENAME, M }, { BCN_IO_MKDIR, M },
		{ BCN_IO_RMDIR, M }, { BCN_IO_OTHER, O },
	};
	struct bcn_record_totals t;
	struct bcn_record r;

	(void)state;
	assert_int_equal(sizeof(tab) / sizeof(tab[0]), BCN_IO_OP_MAX);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.u.io.op = tab[i].op;
		r.u.io.count = 3;
		r.u.io.size = 4096;
		bcn_record_totals(&r, &t);
		expect(&t, tab[i].c, 3, tab[i].c <= W ? 3 * 4096 : 0, "io op");
	}
}

static void test_ost(void **state)
{
	static const struct { enum bcn_ost_op op; enum cls c; } tab[] = {
		{ BCN_OST_READ, R }, { BCN_OST_WRITE, W },
		{ BCN_OST_GETATTR, M }, { BCN_OST_SETATTR, M },
		{ BCN_OST_PUNCH, O }, { BCN_OST_SYNC, O },
		{ BCN_OST_DESTROY, M }, { BCN_OST_CREATE, M },
		{ BCN_OST_STATFS, M }, { BCN_OST_GET_INFO, O },
		{ BCN_OST_SET_INFO, O }, { BCN_OST_QUOTACTL, O },
	};
	struct bcn_record_totals t;
	struct bcn_record r;

	(void)state;
	assert_int_equal(sizeof(tab) / sizeof(tab[0]), BCN_OST_OP_MAX);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		bcn_record_init(&r, BCN_REC_OST);
		r.u.ost.ops[tab[i].op] = 7;
		if (tab[i].c == R)
			r.u.ost.read_bytes = 700;
		if (tab[i].c == W)
			r.u.ost.write_bytes = 700;
		bcn_record_totals(&r, &t);
		expect(&t, tab[i].c, 7, tab[i].c <= W ? 700 : 0, "ost op");
	}
}

static void test_mds(void **state)
{
	static const struct { enum bcn_md_op op; enum cls c; } tab[] = {
		{ BCN_MD_OPEN, M }, { BCN_MD_CLOSE, M }, { BCN_MD_MKNOD, M },
		{ BCN_MD_LINK, M }, { BCN_MD_UNLINK, M }, { BCN_MD_MKDIR, M },
		{ BCN_MD_RMDIR, M }, { BCN_MD_RENAME, M },
		{ BCN_MD_GETATTR, M }, { BCN_MD_SETATTR, M },
		{ BCN_MD_GETXATTR, M }, { BCN_MD_SETXATTR, M },
		{ BCN_MD_STATFS, M }, { BCN_MD_SYNC, M },
		{ BCN_MD_SAMEDIR_RENAME, M }, { BCN_MD_CROSSDIR_RENAME, M },
		{ BCN_MD_PARALLEL_RENAME_FILE, M },
		{ BCN_MD_PARALLEL_RENAME_DIR, M },
		{ BCN_MD_READ, R }, { BCN_MD_WRITE, W }, { BCN_MD_PUNCH, O },
		{ BCN_MD_MIGRATE, M }, { BCN_MD_CREATE, M },
	};
	struct bcn_record_totals t;
	struct bcn_record r;

	(void)state;
	assert_int_equal(sizeof(tab) / sizeof(tab[0]), BCN_MD_OP_MAX);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		bcn_record_init(&r, BCN_REC_MDS);
		r.u.mds.ops[tab[i].op] = 5;
		bcn_record_totals(&r, &t);
		expect(&t, tab[i].c, 5, 0, "mds op");
	}
}

static void test_fwd_port(void **state)
{
	static const struct { enum bcn_fwd_class cls; int c; } tab[] = {
		{ BCN_FWD_ALL, -1 }, { BCN_FWD_READ, R }, { BCN_FWD_WRITE, W },
		{ BCN_FWD_META, M }, { BCN_FWD_OTHER, O },
	};
	struct bcn_record_totals t, zero;
	struct bcn_record r;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		bcn_record_init(&r, BCN_REC_FWD_REQ);
		r.u.fwd_req.cls = tab[i].cls;
		r.u.fwd_req.count = 9;
		r.u.fwd_req.bytes = tab[i].c == R || tab[i].c == W ? 900 : 0;
		bcn_record_totals(&r, &t);
		if (tab[i].c < 0)     /* the sum of the others: counted once */
			assert_memory_equal(&t, &zero, sizeof(t));
		else
			expect(&t, (enum cls)tab[i].c, 9, r.u.fwd_req.bytes, "fwd class");
	}
	bcn_record_init(&r, BCN_REC_FWD_RPC);
	r.u.fwd_rpc.read_rpcs = 2;
	r.u.fwd_rpc.read_bytes = 20;
	bcn_record_totals(&r, &t);
	expect(&t, R, 2, 20, "fwd_rpc read");
	bcn_record_init(&r, BCN_REC_FWD_RPC);
	r.u.fwd_rpc.write_rpcs = 3;
	r.u.fwd_rpc.write_bytes = 30;
	bcn_record_totals(&r, &t);
	expect(&t, W, 3, 30, "fwd_rpc write");
	bcn_record_init(&r, BCN_REC_PORT);
	r.u.port.rcv_pkts = 4;
	r.u.port.rcv_bytes = 40;
	bcn_record_totals(&r, &t);
	expect(&t, R, 4, 40, "port rcv");
	bcn_record_init(&r, BCN_REC_PORT);
	r.u.port.xmit_pkts = 5;
	r.u.port.xmit_bytes = 50;
	bcn_record_totals(&r, &t);
	expect(&t, W, 5, 50, "port xmit");
	bcn_record_init(&r, BCN_REC_JOB);
	bcn_record_totals(&r, &t);
	assert_memory_equal(&t, &zero, sizeof(t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_ost),
		cmocka_unit_test(test_mds),
		cmocka_unit_test(test_fwd_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
