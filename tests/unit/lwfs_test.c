/* Tests of collectors/client/lwfs (the LWFS client trace log line parser,
 * the grammar of docs/lwfs-log.md): table-driven valid lines of every
 * operation and form, one or more malformed lines per error
 * class, escapes, UTC offsets and the calendar, and a golden pass over
 * tests/data/lwfs/sample.log whose totals were counted by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/client/lwfs.h"
#include "common/buf.h"
#include "common/error.h"
#include "proto/record.h"
#include "lwfs_sample.h"

#define T "[2026-11-21 10:00:00] 4242 "
#define T_NS 1795255200000000000LL      /* 2026-11-21T10:00:00Z */

struct ok_case {
	const char *in;
	int32_t off;                    /* UTC offset, s */
	int64_t dt;                     /* time - T_NS */
	uint32_t pid;                   /* 0: 4242 */
	int lop, op;
	unsigned has;                   /* H_* of the fields present */
	uint64_t handle, ret, size, offset;
	int64_t dur, result;
	const char *path, *path2;       /* unescaped; NULL: absent */
};

enum { H_HANDLE = 1, H_RET = 2, H_SIZE = 4, H_OFFSET = 8, H_DUR = 16,
       H_RESULT = 32 };

#define OK(line, l, o) .in = line, .lop = BCN_LWFS_##l, .op = BCN_IO_##o

static const struct ok_case oks[] = {
	{ OK(T "OPEN(\"/scratch/u1/out.dat\", flags=0x241) => 0x7f3a2c001230",
	     OPEN, OPEN), .has = H_RET, .ret = 0x7f3a2c001230,
	  .path = "/scratch/u1/out.dat" },
	{ OK(T "OPEN(\"/x\", flags=0x0) = -2", OPEN, OPEN), .has = H_RESULT,
	  .path = "/x", .result = -2 },
	{ OK(T "OPEN(\"/x\") => 0x1 = 0", OPEN, OPEN), .has = H_RET | H_RESULT,
	  .ret = 1, .path = "/x", .result = 0 },
	{ OK(T "CREATE(\"/a b/c\", flags=0x42, mode=0x1a4) => 0x10", CREATE,
	     OPEN), .has = H_RET, .ret = 0x10, .path = "/a b/c" },
	{ OK(T "RELEASE(0x7f3a2c001230)", RELEASE, CLOSE), .has = H_HANDLE,
	  .handle = 0x7f3a2c001230 },
	{ OK(T "RELEASE(0x10) = 0", RELEASE, CLOSE), .has = H_HANDLE | H_RESULT,
	  .handle = 0x10, .result = 0 },
	{ OK(T "READ(0x7f3a2c001230, size=4096, offset=8192) = 4096", READ,
	     READ), .has = H_HANDLE | H_SIZE | H_OFFSET | H_RESULT,
	  .handle = 0x7f3a2c001230, .size = 4096, .offset = 8192,
	  .result = 4096 },
	{ OK(T "READ(0x1, size=4096, offset=0)", READ, READ),
	  .has = H_HANDLE | H_SIZE | H_OFFSET, .handle = 1, .size = 4096 },
	{ OK(T "READ(0x1, size=4096, offset=0) = -5", READ, READ),
	  .has = H_HANDLE | H_SIZE | H_OFFSET | H_RESULT, .handle = 1,
	  .size = 4096, .result = -5 },
	{ OK(T "READ(0x1, size=4096, offset=0) = 0", READ, READ),
	  .has = H_HANDLE | H_SIZE | H_OFFSET | H_RESULT, .handle = 1,
	  .size = 4096, .result = 0 },
	{ OK(T "WRITE(0x7f3a2c001230, size=1048576, offset=0)", WRITE, WRITE),
	  .has = H_HANDLE | H_SIZE | H_OFFSET, .handle = 0x7f3a2c001230,
	  .size = 1048576 },
	{ OK(T "WRITE(0x2, size=0x1000, offset=0x2000, dur=0.000350)", WRITE,
	     WRITE), .has = H_HANDLE | H_SIZE | H_OFFSET | H_DUR,
	  .handle = 2, .size = 4096, .offset = 8192, .dur = 350000 },
	{ OK(T "WRITE(0x2,size=1,offset=2,dur=3)", WRITE, WRITE),
	  .has = H_HANDLE | H_SIZE | H_OFFSET | H_DUR, .handle = 2, .size = 1,
	  .offset = 2, .dur = 3000000000LL },
	{ OK(T "WRITE(0x2,   size=1,  offset=2)", WRITE, WRITE),
	  .has = H_HANDLE | H_SIZE | H_OFFSET, .handle = 2, .size = 1,
	  .offset = 2 },
	{ OK(T "WRITE(size=7, offset=18446744073709551608, 0x3)", WRITE,
	     WRITE), .has = H_HANDLE | H_SIZE | H_OFFSET, .handle = 3,
	  .size = 7, .offset = 18446744073709551608ULL },
	{ OK(T "FSYNC(0x2) = 0", FSYNC, SYNC), .has = H_HANDLE | H_RESULT,
	  .handle = 2, .result = 0 },
	{ OK(T "TRUNCATE(0x2, size=8192)", TRUNCATE, TRUNCATE),
	  .has = H_HANDLE | H_SIZE, .handle = 2, .size = 8192 },
	{ OK(T "TRUNCATE(\"/t\", size=0) = 0", TRUNCATE, TRUNCATE),
	  .has = H_SIZE | H_RESULT, .path = "/t" },
	{ OK(T "GETATTR(0x2) = 0", GETATTR, STAT), .has = H_HANDLE | H_RESULT,
	  .handle = 2 },
	{ OK(T "GETATTR(\"/g\")", GETATTR, STAT), .path = "/g" },
	{ OK(T "SETATTR(\"/s\", mode=0x180) = 0", SETATTR, OTHER),
	  .has = H_RESULT, .path = "/s" },
	{ OK(T "UNLINK(\"/u\\x2dv\") = 0", UNLINK, UNLINK), .has = H_RESULT,
	  .path = "/u-v" },
	{ OK(T "RENAME(\"/a\", \"/b\") = 0", RENAME, RENAME), .has = H_RESULT,
	  .path = "/a", .path2 = "/b" },
	{ OK(T "MKDIR(\"/d\", mode=0755) = -17", MKDIR, MKDIR),
	  .has = H_RESULT, .path = "/d", .result = -17 },
	{ OK(T "RMDIR(\"/d\")", RMDIR, RMDIR), .path = "/d" },
	{ OK(T "LOOKUP(0x5, \"name\") => 0x6", LOOKUP, STAT),
	  .has = H_HANDLE | H_RET, .handle = 5, .ret = 6, .path = "name" },
	{ OK(T "STATFS()", STATFS, OTHER) },
	{ OK(T "STATFS(\"/scratch\") = 0", STATFS, OTHER), .has = H_RESULT,
	  .path = "/scratch" },
	{ OK(T "FLOCK(0x1f, op=2, whence=-1) = 0", UNKNOWN, OTHER),
	  .has = H_HANDLE | H_RESULT, .handle = 0x1f },
	{ OK(T "X_9()", UNKNOWN, OTHER) },
	{ OK(T "ABCDEFGHIJKLMNOPQRSTUVWXYZ_01234()", UNKNOWN, OTHER) },
	/* escapes and bytes */
	{ OK(T "OPEN(\"/q\\\"x\\\\y\\n\\tz\") => 0x1", OPEN, OPEN),
	  .has = H_RET, .ret = 1, .path = "/q\"x\\y\n\tz" },
	{ OK(T "OPEN(\"/\xe6\x95\xb0\\xE6\\x8d\\xae\") => 0x1", OPEN, OPEN),
	  .has = H_RET, .ret = 1, .path = "/\xe6\x95\xb0\xe6\x8d\xae" },
	{ OK(T "OPEN(\"/p)q, r=1\") => 0x1", OPEN, OPEN), .has = H_RET,
	  .ret = 1, .path = "/p)q, r=1" },
	/* time forms, offsets, bounds */
	{ OK("[2026-11-21 10:00:00.5] 4242 STATFS()", STATFS, OTHER),
	  .dt = 500000000 },
	{ OK("[2026-11-21 10:00:00.123456789] 4242 STATFS()", STATFS, OTHER),
	  .dt = 123456789 },
	{ OK("[2026-11-21 10:00:00.000001] 4242 STATFS()", STATFS, OTHER),
	  .dt = 1000 },
	{ OK("[2026-11-21 18:00:00] 4242 STATFS()", STATFS, OTHER),
	  .off = 8 * 3600 },
	{ OK("[2026-11-21 04:30:00] 4242 STATFS()", STATFS, OTHER),
	  .off = -(5 * 3600 + 30 * 60) },
	{ OK("[2024-02-29 23:59:59] 1 STATFS()", STATFS, OTHER),
	  .dt = 1709251199LL * 1000000000 - T_NS, .pid = 1 },
	{ OK("[1970-01-01 00:00:00] 4194304 STATFS()", STATFS, OTHER),
	  .dt = -T_NS, .pid = 4194304 },
	{ OK("[2262-04-11 23:47:15.999999999] 4242 STATFS()", STATFS, OTHER),
	  .dt = 9223372035999999999LL - T_NS },
	{ OK(T "RELEASE(0x7fffffffffffffff)\r", RELEASE, CLOSE),
	  .has = H_HANDLE, .handle = INT64_MAX },
	{ OK(T "STATFS(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10, "
	     "k=11, l=12, m=13, n=14, o=15, p=16)", STATFS, OTHER) },
};

struct bad_case {
	const char *in;
	enum bcn_lwfs_error err;
};

#define E(x) BCN_LWFS_E_##x
static const struct bad_case bads[] = {
	{ "", E(EMPTY) }, { "\r", E(EMPTY) },
	{ "2026-11-21 10:00:00] 4242 STATFS()", E(OPEN_BRACKET) },
	{ "[2026-1-21 10:00:00] 4242 STATFS()", E(DATE) },
	{ "[26-11-21 10:00:00] 4242 STATFS()", E(DATE) },
	{ "[2026-02-29 10:00:00] 4242 STATFS()", E(DATE_RANGE) },
	{ "[2026-13-01 10:00:00] 4242 STATFS()", E(DATE_RANGE) },
	{ "[0000-01-01 10:00:00] 4242 STATFS()", E(DATE_RANGE) },
	{ "[2026-11-21T10:00:00] 4242 STATFS()", E(TIME) },
	{ "[2026-11-21 10:0:00] 4242 STATFS()", E(TIME) },
	{ "[2026-11-21 24:00:00] 4242 STATFS()", E(TIME_RANGE) },
	{ "[2026-11-21 10:60:00] 4242 STATFS()", E(TIME_RANGE) },
	{ "[2026-11-21 23:59:60] 4242 STATFS()", E(TIME_RANGE) },
	{ "[2026-11-21 10:00:00.] 4242 STATFS()", E(FRACTION) },
	{ "[2026-11-21 10:00:00.1234567890] 4242 STATFS()", E(FRACTION) },
	{ "[2026-11-21 10:00:00 4242 STATFS()", E(CLOSE_BRACKET) },
	{ "[1969-12-31 23:59:59] 4242 STATFS()", E(EPOCH_RANGE) },
	{ "[2262-04-11 23:47:16] 4242 STATFS()", E(EPOCH_RANGE) },
	{ "[2026-11-21 10:00:00] STATFS()", E(PID) },
	{ "[2026-11-21 10:00:00]4242 STATFS()", E(PID) },
	{ "[2026-11-21 10:00:00]  4242 STATFS()", E(PID) },
	{ "[2026-11-21 10:00:00] 0042 STATFS()", E(PID) },
	{ "[2026-11-21 10:00:00] 0 STATFS()", E(PID_RANGE) },
	{ "[2026-11-21 10:00:00] 4194305 STATFS()", E(PID_RANGE) },
	{ "[2026-11-21 10:00:00] 12345678901 STATFS()", E(PID_RANGE) },
	{ T "statfs()", E(NAME) },
	{ T " STATFS()", E(NAME) },
	{ "[2026-11-21 10:00:00] 4242", E(NAME) },
	{ T "ABCDEFGHIJKLMNOPQRSTUVWXYZ_012345()", E(NAME_LONG) },
	{ T "STATFS", E(OPEN_PAREN) },
	{ T "OPEN \"/x\") => 0x1", E(OPEN_PAREN) },
	{ T "WRITE(0x20, size=512, offset=2048", E(CLOSE_PAREN) },
	{ T "RELEASE(0x1,", E(CLOSE_PAREN) },
	{ T "READ(4096)", E(ARG) },
	{ T "READ(, size=1)", E(ARG) },
	{ T "READ(0x1,,size=1)", E(ARG) },
	{ T "OPEN('/x') => 0x1", E(ARG) },
	{ T "OPEN(\"/x\"\"/y\") => 0x1", E(ARG) },
	{ T "READ(0x1, Size=1, offset=0)", E(ARG) },
	{ T "STATFS(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10, "
	  "k=11, l=12, m=13, n=14, o=15, p=16, q=17)", E(ARGS_MAX) },
	{ T "OPEN(\"/x) => 0x1", E(QUOTE) },
	{ T "OPEN(\"/x\\\") => 0x1", E(QUOTE) },
	{ T "OPEN(\"/x\\q\") => 0x1", E(ESCAPE) },
	{ T "OPEN(\"/x\\x4\") => 0x1", E(ESCAPE) },
	{ T "OPEN(\"/x\\xzz\") => 0x1", E(ESCAPE) },
	{ T "OPEN(\"/x\ty\") => 0x1", E(PATH_CHAR) },
	{ T "OPEN(\"/x\x7fy\") => 0x1", E(PATH_CHAR) },
	{ T "OPEN(\"\") => 0x1", E(PATH_EMPTY) },
	{ T "OPEN(\"/a\\x00b\") => 0x1", E(PATH_NUL) },
	{ T "RENAME(\"/a\", \"/b\", \"/c\")", E(PATHS) },
	{ T "RELEASE(0xg)", E(HANDLE) },
	{ T "RELEASE(0x1g)", E(HANDLE) },
	{ T "RELEASE(0x8000000000000000)", E(HANDLE_RANGE) },
	{ T "RELEASE(0x00000000000000001)", E(HANDLE_RANGE) },
	{ T "READ(0x1, 0x2, size=1, offset=0)", E(HANDLES) },
	{ T "READ(0x1, size:1, offset=0)", E(KEY) },
	{ T "READ(0x1, size)", E(KEY) },
	{ T "STATFS(abcdefghijklmnopqrstuvwxyz0123456=1)", E(KEY_LONG) },
	{ T "READ(0x1, size=, offset=0)", E(VALUE) },
	{ T "READ(0x1, size=1k, offset=0)", E(VALUE) },
	{ T "READ(0x1, size=0x, offset=0)", E(VALUE) },
	{ T "STATFS(x=1.)", E(VALUE) },
	{ T "READ(0x1, size=18446744073709551616, offset=0)", E(VALUE_RANGE) },
	{ T "STATFS(x=0x12345678901234567)", E(VALUE_RANGE) },
	{ T "STATFS(x=-9223372036854775809)", E(VALUE_RANGE) },
	{ T "READ(0x1, size=1, offset=0, size=2)", E(DUP_KEY) },
	{ T "STATFS(x=1, x=1)", E(DUP_KEY) },
	{ T "READ(0x1, size=1.5, offset=0)", E(INT_KEY) },
	{ T "READ(0x1, size=1, offset=-1)", E(INT_KEY) },
	{ T "READ(0x1, size=1, offset=0, dur=0x10)", E(DUR) },
	{ T "READ(0x1, size=1, offset=0, dur=-1)", E(DUR) },
	{ T "READ(0x1, size=1, offset=0, dur=9223372036)", E(VALUE_RANGE) },
	{ T "OPEN(\"/x\") => 12", E(RET_HANDLE) },
	{ T "OPEN(\"/x\") => 0x", E(RET_HANDLE) },
	{ T "OPEN(\"/x\") => 0x8000000000000000", E(HANDLE_RANGE) },
	{ T "RELEASE(0x1) = ", E(RESULT) },
	{ T "RELEASE(0x1) = -0", E(RESULT) },
	{ T "RELEASE(0x1) = x", E(RESULT) },
	{ T "RELEASE(0x1) = 99999999999999999999", E(RESULT_RANGE) },
	{ T "RELEASE(0x1) = 9223372036854775808", E(RESULT_RANGE) },
	{ T "RELEASE(0x1) junk", E(TRAILING) },
	{ T "RELEASE(0x1) = 0 junk", E(TRAILING) },
	{ T "RELEASE(0x1)  = 0", E(TRAILING) },
	{ T "OPEN(\"/x\") => 0x1 junk", E(TRAILING) },
	{ T "RELEASE(0x1) => 0x2 => 0x3", E(TRAILING) },
	{ T "READ(size=1, offset=0)", E(NEED_HANDLE) },
	{ T "RELEASE()", E(NEED_HANDLE) },
	{ T "FSYNC(\"/x\")", E(NEED_HANDLE) },
	{ T "OPEN(flags=0x1) => 0x1", E(NEED_PATH) },
	{ T "UNLINK(0x1)", E(NEED_PATH) },
	{ T "MKDIR()", E(NEED_PATH) },
	{ T "LOOKUP(0x1) => 0x2", E(NEED_PATH) },
	{ T "GETATTR()", E(NEED_TARGET) },
	{ T "TRUNCATE(size=0)", E(NEED_TARGET) },
	{ T "RENAME(\"/a\")", E(NEED_TWO_PATHS) },
	{ T "READ(0x1, offset=0)", E(NEED_SIZE) },
	{ T "WRITE(0x1, size=1)", E(NEED_OFFSET) },
	{ T "OPEN(\"/x\", flags=0x0)", E(NEED_RET_HANDLE) },
	{ T "CREATE(\"/x\") = 0", E(NEED_RET_HANDLE) },
	{ T "OPEN(\"/x\") => 0x1 = -2", E(FAILED_HANDLE) },
	{ T "READ(0x1, size=2, offset=18446744073709551615)", E(END_RANGE) },
	{ T "READ(0x1, size=10, offset=0) = 11", E(RESULT_SIZE) },
};

/* Checks an optional field: present as in the case, or absent. */
static void check_opt(const struct ok_case *c, unsigned bit, bool has,
		      uint64_t got, uint64_t want)
{
	assert_int_equal(has, (c->has & bit) != 0);
	if (has)
		assert_int_equal(got, want);
}

static void check_path(const char *raw, size_t n, size_t dlen,
		       const char *want)
{
	char buf[BCN_LWFS_PATH_MAX];
	int k;

	if (!want) {
		assert_null(raw);
		return;
	}
	assert_non_null(raw);
	k = bcn_lwfs_unescape(raw, n, buf, sizeof(buf));
	assert_int_equal(k, strlen(want));
	assert_int_equal(dlen, strlen(want));
	assert_memory_equal(buf, want, strlen(want));
}

static void test_valid_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(oks) / sizeof(oks[0]); i++) {
		const struct ok_case *c = &oks[i];
		struct bcn_lwfs_line l;
		enum bcn_lwfs_error err = E(MAX);
		int rc = bcn_lwfs_parse(c->in, strlen(c->in), c->off, &l, &err);

		if (rc)
			fail_msg("case %zu \"%s\": %s", i, c->in,
				 bcn_lwfs_error_str(err));
		assert_int_equal(err, E(OK));
		assert_int_equal(l.t, T_NS + c->dt);
		assert_int_equal(l.pid, c->pid ? c->pid : 4242);
		assert_int_equal(l.lop, c->lop);
		assert_int_equal(l.op, c->op);
		check_opt(c, H_HANDLE, l.has_handle, l.handle, c->handle);
		check_opt(c, H_RET, l.has_ret_handle, l.ret_handle, c->ret);
		check_opt(c, H_SIZE, l.has_size, l.size, c->size);
		check_opt(c, H_OFFSET, l.has_offset, l.offset, c->offset);
		check_opt(c, H_DUR, l.has_dur, (uint64_t)l.dur,
			  (uint64_t)c->dur);
		check_opt(c, H_RESULT, l.has_result, (uint64_t)l.result,
			  (uint64_t)c->result);
		check_path(l.path, l.path_len, l.path_dlen, c->path);
		check_path(l.path2, l.path2_len, l.path2_dlen, c->path2);
		assert_true(l.name_len > 0 && l.name >= c->in);
	}
}

static void test_malformed_lines(void **state)
{
	bool seen[BCN_LWFS_E_MAX] = { false };

	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad_case *c = &bads[i];
		struct bcn_lwfs_line l;
		enum bcn_lwfs_error err = E(OK);
		int rc = bcn_lwfs_parse(c->in, strlen(c->in), 0, &l, &err);

		if (rc == 0 || err != c->err)
			fail_msg("case %zu \"%s\": rc %d, error \"%s\", want "
				 "\"%s\"", i, c->in, rc,
				 bcn_lwfs_error_str(err),
				 bcn_lwfs_error_str(c->err));
		assert_true(rc == -BCN_ESYNTAX || rc == -BCN_ERANGE);
		assert_int_equal(l.lop, BCN_LWFS_OP_MAX);
		seen[err] = true;
	}
	/* every class but the two built below has a case in the table */
	seen[E(OK)] = seen[E(LONG)] = seen[E(PATH_LONG)] = true;
	for (int e = 0; e < E(MAX); e++)
		if (!seen[e])
			fail_msg("no case for \"%s\"", bcn_lwfs_error_str(e));
}

/* Long lines and paths; a NUL inside the line is a byte like any other. */
static void test_lengths(void **state)
{
	static const char nul_path[] = T "OPEN(\"/a\0b\") => 0x1";
	static const char nul_end[] = T "STATFS()\0x";
	static char line[BCN_LWFS_LINE_MAX + 64];
	struct bcn_lwfs_line l;
	enum bcn_lwfs_error err;
	size_t n;

	(void)state;
	/* the longest path is accepted, one byte more is not */
	n = (size_t)snprintf(line, sizeof(line), T "OPEN(\"");
	memset(line + n, 'a', BCN_LWFS_PATH_MAX);
	n += BCN_LWFS_PATH_MAX;
	n += (size_t)snprintf(line + n, sizeof(line) - n, "\") => 0x1");
	assert_int_equal(bcn_lwfs_parse(line, n, 0, &l, &err), 0);
	assert_int_equal(l.path_dlen, BCN_LWFS_PATH_MAX);
	memmove(line + 40, line + 39, n - 39);
	n++;
	assert_int_equal(bcn_lwfs_parse(line, n, 0, &l, &err), -BCN_ERANGE);
	assert_int_equal(err, E(PATH_LONG));
	/* escapes count once: 4095 "\x41" make a line of 16 KiB */
	n = (size_t)snprintf(line, sizeof(line), T "OPEN(\"");
	for (int i = 0; i < BCN_LWFS_PATH_MAX; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "\\x41");
	n += (size_t)snprintf(line + n, sizeof(line) - n, "\") => 0x1");
	assert_int_equal(bcn_lwfs_parse(line, n, 0, &l, &err), 0);
	assert_int_equal(l.path_dlen, BCN_LWFS_PATH_MAX);
	/* a line above LINE_MAX */
	memset(line, ' ', sizeof(line));
	assert_int_equal(bcn_lwfs_parse(line, BCN_LWFS_LINE_MAX + 1, 0, &l,
					&err), -BCN_ERANGE);
	assert_int_equal(err, E(LONG));
	/* a NUL in a path, and after the end */
	assert_int_equal(bcn_lwfs_parse(nul_path, sizeof(nul_path) - 1, 0, &l,
					&err), -BCN_ESYNTAX);
	assert_int_equal(err, E(PATH_CHAR));
	assert_int_equal(bcn_lwfs_parse(nul_end, sizeof(nul_end) - 1, 0, &l,
					&err), -BCN_ESYNTAX);
	assert_int_equal(err, E(TRAILING));
	assert_int_equal(bcn_lwfs_parse(nul_end, strlen(nul_end), 0, &l, &err),
			 0);
	/* every prefix of a valid line parses or fails cleanly */
	for (size_t i = 0; i < sizeof(oks) / sizeof(oks[0]); i++)
		for (n = 0; n <= strlen(oks[i].in); n++) {
			int rc = bcn_lwfs_parse(oks[i].in, n, oks[i].off, &l,
						NULL);

			assert_true(rc == 0 || rc == -BCN_ESYNTAX ||
				    rc == -BCN_ERANGE);
		}
}

static void test_unescape(void **state)
{
	char out[8];

	(void)state;
	assert_int_equal(bcn_lwfs_unescape("a\\x41\\\\", 7, out, sizeof(out)),
			 3);
	assert_memory_equal(out, "aA\\", 3);
	assert_int_equal(bcn_lwfs_unescape("abcdefghi", 9, out, sizeof(out)),
			 -BCN_EFULL);
	assert_int_equal(bcn_lwfs_unescape("a\\", 2, out, sizeof(out)),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lwfs_unescape("\\x4", 3, out, sizeof(out)),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lwfs_unescape("\\r", 2, out, sizeof(out)),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lwfs_unescape("", 0, out, sizeof(out)), 0);
}

static void test_utc_offset(void **state)
{
	static const struct { const char *in; int rc; int32_t secs; } c[] = {
		{ "+00:00", 0, 0 }, { "+08:00", 0, 28800 },
		{ "-05:30", 0, -19800 }, { "+0545", 0, 20700 },
		{ "Z", 0, 0 }, { "-23:59", 0, -86340 },
		{ "+24:00", -BCN_ERANGE, 0 }, { "+08:60", -BCN_ERANGE, 0 },
		{ "08:00", -BCN_ESYNTAX, 0 }, { "+8:00", -BCN_ESYNTAX, 0 },
		{ "+08:00 ", -BCN_ESYNTAX, 0 }, { "+08-00", -BCN_ESYNTAX, 0 },
		{ "", -BCN_ESYNTAX, 0 }, { "UTC", -BCN_ESYNTAX, 0 },
		{ "+08:0", -BCN_ESYNTAX, 0 }, { "+080:0", -BCN_ESYNTAX, 0 },
	};
	struct bcn_lwfs_line l;
	int32_t s;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		s = 12345;
		assert_int_equal(bcn_lwfs_parse_utc_offset(c[i].in,
							   strlen(c[i].in),
							   &s), c[i].rc);
		if (c[i].rc == 0)
			assert_int_equal(s, c[i].secs);
	}
	/* offsets out of range are refused by the parser too */
	assert_int_equal(bcn_lwfs_parse(T "STATFS()", sizeof(T) + 7, 86400,
					&l, NULL), -BCN_ERANGE);
	/* local 1970-01-01 07:59:59 at +08:00 is before the epoch */
	assert_int_equal(bcn_lwfs_parse("[1970-01-01 07:59:59] 1 STATFS()", 32,
					28800, &l, NULL), -BCN_ERANGE);
	assert_int_equal(bcn_lwfs_parse("[1970-01-01 08:00:00] 1 STATFS()", 32,
					28800, &l, NULL), 0);
	assert_int_equal(l.t, 0);
}

static void test_names(void **state)
{
	(void)state;
	for (int e = 0; e < E(MAX); e++)
		assert_string_not_equal(bcn_lwfs_error_str(e), "?");
	assert_string_equal(bcn_lwfs_error_str(E(MAX)), "?");
	assert_string_equal(bcn_lwfs_error_str(E(CLOSE_PAREN)), "missing ')'");
	assert_string_equal(bcn_lwfs_op_name(BCN_LWFS_STATFS), "STATFS");
	assert_string_equal(bcn_lwfs_op_name(BCN_LWFS_UNKNOWN), "?");
}

/* Parses sample.log line by line and checks the hand-counted totals. */
static void test_golden_sample(void **state)
{
	static const enum bcn_lwfs_error want_bad[SAMPLE_MALFORMED] = {
		E(CLOSE_PAREN), E(TIME_RANGE), E(OPEN_BRACKET),
		E(NEED_OFFSET), E(EMPTY),
	};
	uint64_t ops[BCN_IO_OP_MAX] = { 0 }, bytes[BCN_IO_OP_MAX] = { 0 };
	uint64_t lines = 0, valid = 0, bad = 0, failed = 0, pid_mask = 0;
	int64_t busy = 0, first = -1, last = -1;
	struct bcn_buf b;
	const char *p, *end, *nl;

	(void)state;
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_buf_read_file(&b, SAMPLE_LOG), 0);
	p = (const char *)b.data;
	end = p + b.len;
	for (; p < end; p = nl + 1) {
		struct bcn_lwfs_line l;
		enum bcn_lwfs_error err;

		nl = memchr(p, '\n', (size_t)(end - p));
		assert_non_null(nl);
		lines++;
		if (bcn_lwfs_parse(p, (size_t)(nl - p), SAMPLE_OFFSET, &l,
				   &err)) {
			assert_true(bad < SAMPLE_MALFORMED);
			assert_int_equal(err, want_bad[bad]);
			assert_int_equal(lines, 39 + bad);
			bad++;
			continue;
		}
		valid++;
		ops[l.op]++;
		if (l.has_result && l.result < 0)
			failed++;
		else if (l.op == BCN_IO_READ || l.op == BCN_IO_WRITE)
			bytes[l.op] += l.has_result ? (uint64_t)l.result :
				       l.size;
		if (l.has_dur)
			busy += l.dur;
		if (first < 0)
			first = l.t;
		assert_true(l.t >= last);
		last = l.t;
		assert_true(l.pid >= 4242 && l.pid <= 4245);
		pid_mask |= 1u << (l.pid - 4242);
	}
	bcn_buf_free(&b);
	assert_int_equal(lines, SAMPLE_LINES);
	assert_int_equal(valid, SAMPLE_VALID);
	assert_int_equal(bad, SAMPLE_MALFORMED);
	assert_int_equal(failed, SAMPLE_FAILED);
	assert_int_equal(busy, SAMPLE_BUSY_NS);
	assert_int_equal(first, SAMPLE_FIRST_NS);
	assert_int_equal(last, SAMPLE_LAST_NS);
	assert_int_equal(__builtin_popcountll(pid_mask), SAMPLE_PIDS);
	for (size_t i = 0; i < sizeof(sample_ops) / sizeof(sample_ops[0]);
	     i++) {
		assert_int_equal(ops[sample_ops[i].op], sample_ops[i].ops);
		assert_int_equal(bytes[sample_ops[i].op], sample_ops[i].bytes);
		valid -= sample_ops[i].ops;
	}
	assert_int_equal(valid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_lines),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_unescape),
		cmocka_unit_test(test_utc_offset),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_golden_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
