/* Tests of collectors/client/tracer/tmsg: header and record round trips (paths of
 * every length class, extreme values), the record forms each run takes
 * (round trips at their limits), every prefix of a datagram is refused as
 * truncated, the range checks on decoded records (forms, reserved words,
 * padding), and the header's magic and version checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/client/tracer/tmsg.h"
#include "common/error.h"
#include "proto/record.h"

static uint8_t buf[BCN_TMSG_MAX];

static const struct bcn_tmsg_hdr hdr0 = {
	.flags = BCN_TMSG_F_ENV_JOB, .nrec = 3, .job = 4242, .step = 7,
	.rank = 31, .pid = 99999, .tid = 100001, .seq = 12,
	.dropped_ops = 5, .untraced = 2,
};

static const struct bcn_iorun runs[] = {
	{ BCN_IO_OPEN, 3, 0x1234, 0, 0, 1, 0, 1000, 2000, 1000 },
	{ BCN_IO_WRITE, 3, 0x1234, 0, 1 << 20, 4096, 1 << 20, 2000, 9000,
	  6500 },
	{ BCN_IO_READ, -1, UINT64_MAX, UINT64_MAX - 4096, 4096,
	  UINT64_MAX, INT64_MIN, 0, INT64_MAX, UINT64_MAX },
};
static const char *const paths[] = { "/scratch/u1/out.dat", NULL, NULL };

/* Encodes hdr0 and runs; returns the datagram length. */
static size_t encode(void)
{
	size_t len = BCN_TMSG_HDR_LEN;

	bcn_tmsg_put_hdr(buf, &hdr0);
	for (size_t i = 0; i < 3; i++)
		len += bcn_tmsg_put_rec(buf + len, &runs[i], paths[i],
					paths[i] ? strlen(paths[i]) : 0);
	return len;
}

static void test_round_trip(void **state)
{
	struct bcn_tmsg_hdr h;
	struct bcn_tmsg_rec r;
	size_t len = encode(), off = BCN_TMSG_HDR_LEN;

	(void)state;
	assert_int_equal(bcn_tmsg_parse_hdr(buf, len, &h), 0);
	assert_memory_equal(&h, &hdr0, sizeof(h));
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(bcn_tmsg_next(buf, len, &off, &r), 0);
		assert_memory_equal(&r.run, &runs[i], sizeof(r.run));
		if (paths[i]) {
			assert_int_equal(r.path_len, strlen(paths[i]));
			assert_memory_equal(r.path, paths[i], r.path_len);
		} else {
			assert_null(r.path);
			assert_int_equal(r.path_len, 0);
		}
		assert_int_equal(off % 8, 0);
	}
	assert_int_equal(off, len);
	assert_int_equal(bcn_tmsg_next(buf, len, &off, &r), -BCN_ETRUNC);
}

static void test_path_lengths(void **state)
{
	static char path[BCN_TMSG_PATH_MAX + 10];
	static const size_t lens[] = { 1, 7, 8, 9, 63, 64, 4094, 4095, 4096,
				       BCN_TMSG_PATH_MAX + 10 };
	struct bcn_tmsg_rec r;
	size_t off, n;

	(void)state;
	memset(path, 'p', sizeof(path));
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		n = bcn_tmsg_put_rec(buf, &runs[0], path, lens[i]);
		assert_int_equal(n, bcn_tmsg_rec_size(&runs[0], lens[i]));
		assert_true(n <= bcn_tmsg_rec_size(NULL, lens[i]));
		off = 0;
		assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), 0);
		assert_int_equal(off, n);
		/* longer paths are cut, never overflow */
		assert_int_equal(r.path_len, lens[i] > BCN_TMSG_PATH_MAX ?
				 BCN_TMSG_PATH_MAX : lens[i]);
	}
}

static void test_truncated(void **state)
{
	struct bcn_tmsg_hdr h;
	struct bcn_tmsg_rec r;
	size_t len = encode(), off, i;
	int rc;

	(void)state;
	for (size_t cut = 0; cut < len; cut++) {
		rc = bcn_tmsg_parse_hdr(buf, cut, &h);
		if (cut < BCN_TMSG_HDR_LEN) {
			assert_int_equal(rc, -BCN_ETRUNC);
			continue;
		}
		assert_int_equal(rc, 0);
		off = BCN_TMSG_HDR_LEN;
		for (i = 0; i < 3; i++)
			if (bcn_tmsg_next(buf, cut, &off, &r))
				break;
		assert_true(i < 3);     /* some record must be cut */
		assert_true(off <= cut);
	}
}

static void test_bad_header(void **state)
{
	struct bcn_tmsg_hdr h;
	size_t len = encode();

	(void)state;
	buf[0] ^= 1;
	assert_int_equal(bcn_tmsg_parse_hdr(buf, len, &h), -BCN_EMAGIC);
	buf[0] ^= 1;
	buf[4] = 9;
	assert_int_equal(bcn_tmsg_parse_hdr(buf, len, &h), -BCN_EVERSION);
	buf[4] = BCN_TMSG_VERSION;
	buf[6] = 81;
	assert_int_equal(bcn_tmsg_parse_hdr(buf, len, &h), -BCN_EVERSION);
}

struct form_case {
	struct bcn_iorun run;
	size_t len;                     /* its record's size, no path */
};

/* op, fd, file, offset, size, count, stride, first, last, busy */
static const struct form_case forms[] = {
	/* one operation without data: meta */
	{ { BCN_IO_OPEN, 3, 9, 0, 0, 1, 0, 100, 250, 150 }, 32 },
	{ { BCN_IO_CLOSE, -1, 9, 0, 0, 1, 0, 0, 0, 0 }, 32 },
	{ { BCN_IO_CLOSE, 3, 9, 0, 0, 1, 0, 5, 5 + (int64_t)UINT32_MAX,
	    UINT32_MAX }, 32 },
	{ { BCN_IO_STAT, 3, 9, 0, 0, 1, 0, INT64_MAX - 7, INT64_MAX, 7 }, 32 },
	/* one operation with data: one */
	{ { BCN_IO_READ, 4, 9, 4096, 4096, 1, 0, 100, 300, 200 }, 48 },
	{ { BCN_IO_SEEK, 4, 9, 1, 0, 1, 0, 100, 300, 200 }, 48 },
	{ { BCN_IO_WRITE, 4, 9, 0, 1, 1, 0, 100, 300, 200 }, 48 },
	{ { BCN_IO_WRITE, 4, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1, 0, 0,
	    UINT32_MAX, UINT32_MAX }, 48 },
	/* what the short forms cannot say: full */
	{ { BCN_IO_READ, 4, 9, 0, 0, 1, 0, 5, 6 + (int64_t)UINT32_MAX,
	    1 + (uint64_t)UINT32_MAX }, 72 },
	{ { BCN_IO_READ, 4, 9, 0, 0, 1, 0, 100, 300, 199 }, 72 },
	{ { BCN_IO_READ, 4, 9, 0, 0, 1, 8, 100, 300, 200 }, 72 },
	{ { BCN_IO_READ, 4, 9, 0, 4096, 2, 4096, 100, 300, 200 }, 72 },
	{ { BCN_IO_READ, 4, 9, 0, 0, 1, 0, 300, 100, 0 }, 72 },
};

static void test_forms(void **state)
{
	struct bcn_tmsg_rec r;
	size_t off, n;

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct bcn_iorun *run = &forms[i].run;
		int want = run->last < run->first ? -BCN_ERANGE : 0;

		n = bcn_tmsg_put_rec(buf, run, "/a/b", 4);
		assert_int_equal(n, (forms[i].len + 4 + 7) & ~(size_t)7);
		assert_int_equal(n, bcn_tmsg_rec_size(run, 4));
		off = 0;
		assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), want);
		if (want)
			continue;
		assert_int_equal(off, n);
		assert_memory_equal(&r.run, run, sizeof(*run));
		assert_int_equal(r.path_len, 4);
		assert_memory_equal(r.path, "/a/b", 4);
		/* one byte short of the record */
		off = 0;
		assert_int_equal(bcn_tmsg_next(buf, n - 1, &off, &r),
				 -BCN_ETRUNC);
		assert_int_equal(off, 0);
	}
}

/* Corruptions of short-form records the decoder must refuse. */
static void test_bad_forms(void **state)
{
	static const struct bcn_iorun meta = { BCN_IO_OPEN, 3, 9, 0, 0, 1, 0,
					       100, 250, 150 };
	static const struct bcn_iorun one = { BCN_IO_READ, 3, 9, 8, 8, 1, 0,
					      100, 250, 150 };
	struct bcn_tmsg_rec r;
	size_t off, n;
	int64_t big = INT64_MAX;

	(void)state;
	n = bcn_tmsg_put_rec(buf, &meta, "/x", 2);
	buf[1] = 3;                     /* no such form */
	off = 0;
	assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), -BCN_ERANGE);
	n = bcn_tmsg_put_rec(buf, &meta, "/x", 2);
	buf[28] = 1;                    /* reserved word */
	assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), -BCN_ERANGE);
	n = bcn_tmsg_put_rec(buf, &meta, "/x", 2);
	buf[BCN_TMSG_META_LEN + 2] = 'y';  /* padding */
	assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), -BCN_ERANGE);
	n = bcn_tmsg_put_rec(buf, &one, NULL, 0);
	memcpy(buf + 32, &big, 8);      /* first + duration overflows */
	assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), -BCN_ERANGE);
	big = -1;                       /* starts before 1970 */
	memcpy(buf + 32, &big, 8);
	assert_int_equal(bcn_tmsg_next(buf, n, &off, &r), -BCN_ERANGE);
	assert_int_equal(off, 0);
	/* a version-1 datagram (full records only) is still read */
	bcn_tmsg_put_hdr(buf, &hdr0);
	buf[4] = 1;
	{
		struct bcn_tmsg_hdr h;

		assert_int_equal(bcn_tmsg_parse_hdr(buf, BCN_TMSG_HDR_LEN,
						    &h), 0);
	}
}

struct bad_rec {
	struct bcn_iorun run;
	int rc;
};

static const struct bad_rec bad_recs[] = {
	{ { BCN_IO_OP_MAX, 3, 1, 0, 1, 1, 0, 1, 2, 1 }, -BCN_ERANGE },
	{ { 200, 3, 1, 0, 1, 1, 0, 1, 2, 1 }, -BCN_ERANGE },
	{ { BCN_IO_READ, 3, 1, 0, 1, 0, 0, 1, 2, 1 }, -BCN_ERANGE },
	{ { BCN_IO_READ, 3, 1, 0, 1, 1, 0, 5, 4, 1 }, -BCN_ERANGE },
	{ { BCN_IO_READ, 3, 1, 0, 1, 1, 0, -5, 4, 1 }, -BCN_ERANGE },
	{ { BCN_IO_READ, 3, 1, 0, 1, 1, 0, 4, 4, 0 }, 0 },
};

static void test_bad_records(void **state)
{
	struct bcn_tmsg_rec r;
	size_t n, off;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_recs) / sizeof(bad_recs[0]); i++) {
		n = bcn_tmsg_put_rec(buf, &bad_recs[i].run, NULL, 0);
		off = 0;
		assert_int_equal(bcn_tmsg_next(buf, n, &off, &r),
				 bad_recs[i].rc);
		assert_int_equal(off, bad_recs[i].rc ? 0 : n);
	}
	/* a declared path longer than the limit */
	n = bcn_tmsg_put_rec(buf, &runs[0], NULL, 0);
	buf[2] = 0xff;
	buf[3] = 0xff;
	off = 0;
	assert_int_equal(bcn_tmsg_next(buf, BCN_TMSG_MAX, &off, &r),
			 -BCN_ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_path_lengths),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_bad_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
