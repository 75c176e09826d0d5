/* Tests of collectors/client/procio: the /proc/<pid>/io, /proc/<pid>/stat
 * and /proc/stat btime parsers over real files of this kernel
 * (tests/data/proc, see PROVENANCE.md; the expected values were read off
 * the files by eye), and table-driven edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/client/procio.h"
#include "common/buf.h"
#include "common/error.h"

#define PROC BCN_TEST_DATA "/proc/"

static void load(const char *name, struct bcn_buf *b)
{
	bcn_buf_init(b, 1 << 20);
	assert_int_equal(bcn_buf_read_file(b, name), 0);
}

static void test_io_files(void **state)
{
	static const struct {
		const char *file;
		uint64_t v[BCN_PROCIO_NCOUNTERS];
	} files[] = {
		{ PROC "self_io", { 6976, 0, 10, 0, 0, 0, 0 } },
		{ PROC "busy_io", { 10074460, 8390319, 797, 37, 0, 8433664, 0 } },
	};
	struct bcn_procio io;
	struct bcn_buf b;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		load(files[i].file, &b);
		assert_int_equal(bcn_procio_parse_io((const char *)b.data,
						     b.len, &io, NULL), 0);
		assert_int_equal(io.have, (1u << BCN_PROCIO_NCOUNTERS) - 1);
		assert_int_equal(io.rchar, files[i].v[0]);
		assert_int_equal(io.wchar, files[i].v[1]);
		assert_int_equal(io.syscr, files[i].v[2]);
		assert_int_equal(io.syscw, files[i].v[3]);
		assert_int_equal(io.read_bytes, files[i].v[4]);
		assert_int_equal(io.write_bytes, files[i].v[5]);
		assert_int_equal(io.cancelled_write_bytes, files[i].v[6]);
		bcn_buf_free(&b);
	}
}

#define IO4 "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\n"

static void test_io_cases(void **state)
{
	static const struct { const char *in; int rc; uint64_t rchar; } c[] = {
		{ IO4, 0, 1 },
		{ "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4", 0, 1 },
		{ IO4 "read_bytes: 5\nnew_counter: 9\n", 0, 1 },
		{ "rchar: 18446744073709551615\nwchar: 2\nsyscr: 3\nsyscw: 4\n",
		  0, UINT64_MAX },
		{ "rchar: 18446744073709551616\nwchar: 2\nsyscr: 3\nsyscw: 4\n",
		  -BCN_ERANGE, 0 },
		{ "rchar: 1\nwchar: 2\nsyscr: 3\n", -BCN_ESYNTAX, 0 },
		{ IO4 "rchar: 1\n", -BCN_ESYNTAX, 0 },
		{ IO4 "\n", -BCN_ESYNTAX, 0 },
		{ "rchar:1\nwchar: 2\nsyscr: 3\nsyscw: 4\n", -BCN_ESYNTAX, 0 },
		{ "rchar: -1\nwchar: 2\nsyscr: 3\nsyscw: 4\n", -BCN_ESYNTAX, 0 },
		{ "rchar: 1 \nwchar: 2\nsyscr: 3\nsyscw: 4\n", -BCN_ESYNTAX, 0 },
		{ "rchar: \nwchar: 2\nsyscr: 3\nsyscw: 4\n", -BCN_ESYNTAX, 0 },
		{ ": 1\n" IO4, -BCN_ESYNTAX, 0 },
		{ "rchar 1\n", -BCN_ESYNTAX, 0 },
		{ "", -BCN_ESYNTAX, 0 },
	};
	struct bcn_procio io;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *why = NULL;
		int rc = bcn_procio_parse_io(c[i].in, strlen(c[i].in), &io,
					     &why);

		if (rc != c[i].rc)
			fail_msg("case %zu: rc %d, want %d (%s)", i, rc,
				 c[i].rc, why ? why : "-");
		if (rc)
			assert_non_null(why);
		else
			assert_int_equal(io.rchar, c[i].rchar);
	}
}

struct stat_want {
	const char *file;
	int64_t pid;
	const char *comm;
	char state;
	int64_t ppid, pgrp, session, tpgid;
	uint64_t flags, minflt, cminflt, majflt, cmajflt, utime, stime;
	int64_t cutime, cstime, priority, nice, threads;
	uint64_t starttime, vsize;
	int64_t rss;
};

static void test_stat_files(void **state)
{
	static const struct stat_want w[] = {
		{ PROC "self_stat", 27532, "cat", 'R', 27528, 27528, 17911, -1,
		  4194304, 115, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 1107729,
		  3133440, 393 },
		{ PROC "init_stat", 1, "process_api", 'S', 0, 0, 0, -1,
		  4194560, 208215, 244395091, 0, 14124, 706, 2190, 1001466,
		  116557, 10, -10, 14, 28, 42516480, 2676 },
		{ PROC "odd_comm_stat", 27580, "a) (b c", 'S', 27579, 27528,
		  17911, -1, 4194304, 126, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1,
		  1107751, 2990080, 389 },
		{ PROC "kworker_stat", 6, "kworker/R-kvfree_rcu_reclaim", 'I',
		  2, 0, 0, -1, 69238880, 0, 0, 0, 0, 0, 0, 0, 0, 0, -20, 1, 28,
		  0, 0 },
	};
	struct bcn_procstat st;
	struct bcn_buf b;

	(void)state;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		load(w[i].file, &b);
		assert_int_equal(bcn_procio_parse_stat((const char *)b.data,
						       b.len, &st, NULL), 0);
		assert_int_equal(st.pid, w[i].pid);
		assert_string_equal(st.comm, w[i].comm);
		assert_int_equal(st.comm_len, strlen(w[i].comm));
		assert_false(st.comm_cut);
		assert_int_equal(st.state, w[i].state);
		assert_int_equal(st.ppid, w[i].ppid);
		assert_int_equal(st.pgrp, w[i].pgrp);
		assert_int_equal(st.session, w[i].session);
		assert_int_equal(st.tty_nr, 0);
		assert_int_equal(st.tpgid, w[i].tpgid);
		assert_int_equal(st.flags, w[i].flags);
		assert_int_equal(st.minflt, w[i].minflt);
		assert_int_equal(st.cminflt, w[i].cminflt);
		assert_int_equal(st.majflt, w[i].majflt);
		assert_int_equal(st.cmajflt, w[i].cmajflt);
		assert_int_equal(st.utime, w[i].utime);
		assert_int_equal(st.stime, w[i].stime);
		assert_int_equal(st.cutime, w[i].cutime);
		assert_int_equal(st.cstime, w[i].cstime);
		assert_int_equal(st.priority, w[i].priority);
		assert_int_equal(st.nice, w[i].nice);
		assert_int_equal(st.num_threads, w[i].threads);
		assert_int_equal(st.itrealvalue, 0);
		assert_int_equal(st.starttime, w[i].starttime);
		assert_int_equal(st.vsize, w[i].vsize);
		assert_int_equal(st.rss, w[i].rss);
		assert_int_equal(st.nfields, 24);
		bcn_buf_free(&b);
	}
}

#define F20 " S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0"

static void test_stat_cases(void **state)
{
	static const struct {
		const char *in;
		int rc;
		const char *comm;
		uint64_t starttime;
		unsigned nfields;
	} c[] = {
		{ "5 (x)" F20 " 77", 0, "x", 77, 22 },
		{ "5 (x)" F20 " 77 4096", 0, "x", 77, 23 },
		{ "5 (x)" F20 " 77 4096 3 9 9 9\n", 0, "x", 77, 24 },
		{ "5 ())" F20 " 77\n", 0, ")", 77, 22 },
		{ "5 ()" F20 " 77", 0, "", 77, 22 },
		{ "5 (a b) (c)" F20 " 77", 0, "a b) (c", 77, 22 },
		{ "5 (x\ny)" F20 " 77", 0, "x\ny", 77, 22 },
		{ "5 (x)" F20, -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 (x)" F20 " -77", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 (x)" F20 "  77", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 (x)" F20 " 77 ", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 (x)" F20 " 18446744073709551616", -BCN_ERANGE, NULL, 0,
		  0 },
		{ "5 (x) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77",
		  -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 (x) S x 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77",
		  -BCN_ESYNTAX, NULL, 0, 0 },
		{ "0 (x)" F20 " 77", -BCN_ERANGE, NULL, 0, 0 },
		{ "-5 (x)" F20 " 77", -BCN_ERANGE, NULL, 0, 0 },
		{ "5(x)" F20 " 77", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "(x)" F20 " 77", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 x)" F20 " 77", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "5 (x" F20 " 77", -BCN_ESYNTAX, NULL, 0, 0 },
		{ "", -BCN_ESYNTAX, NULL, 0, 0 },
	};
	struct bcn_procstat st;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *why = NULL;
		int rc = bcn_procio_parse_stat(c[i].in, strlen(c[i].in), &st,
					       &why);

		if (rc != c[i].rc)
			fail_msg("case %zu \"%s\": rc %d, want %d (%s)", i,
				 c[i].in, rc, c[i].rc, why ? why : "-");
		if (rc) {
			assert_non_null(why);
			continue;
		}
		assert_int_equal(st.pid, 5);
		assert_string_equal(st.comm, c[i].comm);
		assert_int_equal(st.starttime, c[i].starttime);
		assert_int_equal(st.nfields, c[i].nfields);
		assert_int_equal(st.state, 'S');
		assert_int_equal(st.priority, 20);
	}
}

/* A comm longer than COMM_MAX is kept cut, and flagged. */
static void test_stat_long_comm(void **state)
{
	char line[256], comm[BCN_PROCIO_COMM_MAX + 2];
	struct bcn_procstat st;

	(void)state;
	memset(comm, 'c', sizeof(comm) - 1);
	comm[sizeof(comm) - 1] = '\0';
	snprintf(line, sizeof(line), "9 (%s)" F20 " 1", comm);
	assert_int_equal(bcn_procio_parse_stat(line, strlen(line), &st, NULL),
			 0);
	assert_true(st.comm_cut);
	assert_int_equal(st.comm_len, BCN_PROCIO_COMM_MAX + 1);
	assert_int_equal(strlen(st.comm), BCN_PROCIO_COMM_MAX);
}

static void test_btime(void **state)
{
	static const struct { const char *in; int rc; int64_t bt; } c[] = {
		{ "cpu 1 2\nbtime 1795303790\nprocesses 5\n", 0, 1795303790 },
		{ "btime 0", 0, 0 },
		{ "cpu 1 2\nbtime x\n", -BCN_ESYNTAX, 0 },
		{ "cpu 1 2\nbtime \n", -BCN_ESYNTAX, 0 },
		{ "cpu 1 2\nxbtime 5\n", -BCN_ESYNTAX, 0 },
		{ "btime 99999999999\n", -BCN_ESYNTAX, 0 },
		{ "", -BCN_ESYNTAX, 0 },
	};
	struct bcn_buf b;
	int64_t bt;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		bt = -1;
		assert_int_equal(bcn_procio_parse_btime(c[i].in,
							strlen(c[i].in), &bt),
				 c[i].rc);
		if (c[i].rc == 0)
			assert_int_equal(bt, c[i].bt);
	}
	load(PROC "stat", &b);
	assert_int_equal(bcn_procio_parse_btime((const char *)b.data, b.len,
						&bt), 0);
	assert_int_equal(bt, 1795303790);
	bcn_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io_files),
		cmocka_unit_test(test_io_cases),
		cmocka_unit_test(test_stat_files),
		cmocka_unit_test(test_stat_cases),
		cmocka_unit_test(test_stat_long_comm),
		cmocka_unit_test(test_btime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
