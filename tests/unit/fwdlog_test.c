/* Tests of collectors/forwarder/fwdlog (the request-log line parser, the
 * grammar of docs/fwdlog.md) and fwdreq (accounting lines into windows):
 * table-driven lines for every field and class of error, operation
 * classes, the header rules and the records a window turns into. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/forwarder/fwdlog.h"
#include "collectors/forwarder/fwdreq.h"
#include "common/error.h"
#include "proto/record.h"

#define NS(s, n) ((int64_t)(s) * 1000000000 + (n))

struct line_case {
	const char *in;
	int rc;
	int kind;
	int64_t t;
	unsigned cls;
	uint64_t bytes, latency, proc, queue;
};

#define T0 "1700000000.123456789"
#define T0NS NS(1700000000, 123456789)

static const struct line_case cases[] = {
	/* requests */
	{ T0 " read 4096 120 80", 0, BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_READ,
	  4096, 120, 80, 0 },
	{ T0 " write 1048576 5000 4999 10.0.0.7@o2ib 0x1f", 0,
	  BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_WRITE, 1048576, 5000, 4999, 0 },
	{ T0 " open 0 7 7 cn0042", 0, BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_META,
	  0, 7, 7, 0 },
	{ T0 " getattr 0 0 0", 0, BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_META,
	  0, 0, 0, 0 },
	{ T0 " fsync 0 30 30", 0, BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_OTHER,
	  0, 30, 30, 0 },
	{ T0 " lock_2 0 3 1", 0, BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_OTHER,
	  0, 3, 1, 0 },
	{ "0.000000000 read 1 1 1", 0, BCN_FWDLOG_REQUEST, 0, BCN_FWD_READ,
	  1, 1, 1, 0 },
	{ "9223372035.999999999 read 999999999999999 999999999999999 "
	  "999999999999999", 0, BCN_FWDLOG_REQUEST,
	  NS(9223372035LL, 999999999), BCN_FWD_READ, 999999999999999ULL,
	  999999999999999ULL, 999999999999999ULL, 0 },
	{ T0 " abcdefghijklmnopqrstuvwxyz012345 1 2 1", 0,
	  BCN_FWDLOG_REQUEST, T0NS, BCN_FWD_OTHER, 1, 2, 1, 0 },
	/* queue samples, comments, headers */
	{ T0 " Q 17", 0, BCN_FWDLOG_QUEUE, T0NS, 0, 0, 0, 0, 17 },
	{ T0 " Q 0", 0, BCN_FWDLOG_QUEUE, T0NS, 0, 0, 0, 0, 0 },
	{ "# anything at all", 0, BCN_FWDLOG_COMMENT, 0, 0, 0, 0, 0, 0 },
	{ "#", 0, BCN_FWDLOG_COMMENT, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlogx 1", 0, BCN_FWDLOG_COMMENT, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog 1", 0, BCN_FWDLOG_HEADER, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog 1 server=lwfs host=fwd07", 0, BCN_FWDLOG_HEADER,
	  0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog 2", -BCN_EVERSION, 0, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog 0", -BCN_EVERSION, 0, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog ", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog 01", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog 1 ", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "#beacon-fwdlog  1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	/* time */
	{ "1700000000 read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "1700000000.12345678 read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "1700000000.1234567890 read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0,
	  0 },
	{ ".123456789 read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "01.123456789 read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "-1.123456789 read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "9223372036.000000000 read 1 1 1", -BCN_ERANGE, 0, 0, 0, 0, 0, 0,
	  0 },
	{ "12345678901.000000000 read 1 1 1", -BCN_ERANGE, 0, 0, 0, 0, 0, 0,
	  0 },
	{ "1700000000.12345678x read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0,
	  0 },
	/* operation */
	{ T0 " Read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " 1read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " re-ad 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " abcdefghijklmnopqrstuvwxyz0123456 1 2 1", -BCN_ERANGE, 0, 0, 0,
	  0, 0, 0, 0 },
	{ T0 " Q", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " Q 1 2", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " Q -1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " q 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	/* numbers */
	{ T0 " read 1000000000000000 1 1", -BCN_ERANGE, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1000000000000000 1", -BCN_ERANGE, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 01 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 +1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1.5", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 0x1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 5 6", -BCN_ERANGE, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0, -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	/* separators and trailing fields */
	{ T0 "  read 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 "\tread 1 1 1", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1 ", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1\r", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1 a b c", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1 a  b", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1 caf\xc3\xa9", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ T0 " read 1 1 1 "
	  "0123456789012345678901234567890123456789012345678901234567890123"
	  "4", -BCN_ERANGE, 0, 0, 0, 0, 0, 0, 0 },
	{ "", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ " ", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
	{ "hello world", -BCN_ESYNTAX, 0, 0, 0, 0, 0, 0, 0 },
};

static void test_line_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct line_case *c = &cases[i];
		struct bcn_fwdlog_line l;
		const char *why = NULL;
		int rc;

		rc = bcn_fwdlog_parse(c->in, strlen(c->in), &l, &why);
		if (rc != c->rc)
			fail_msg("case %zu \"%s\": rc %d, want %d (%s)", i,
				 c->in, rc, c->rc, why ? why : "-");
		if (rc) {
			assert_non_null(why);
			assert_int_equal(l.kind, 0);
			continue;
		}
		assert_int_equal(l.kind, c->kind);
		assert_int_equal(l.t, c->t);
		assert_int_equal(l.cls, c->cls);
		assert_int_equal(l.bytes, c->bytes);
		assert_int_equal(l.latency, c->latency);
		assert_int_equal(l.proc, c->proc);
		assert_int_equal(l.queue, c->queue);
		if (c->kind == BCN_FWDLOG_HEADER)
			assert_int_equal(l.version, 1);
	}
}

/* Lines are given by length: a NUL inside is a byte like any other. */
static void test_embedded_nul_and_length(void **state)
{
	static const char nul[] = T0 " read 1 1 1\0x";
	char big[BCN_FWDLOG_LINE_MAX + 2];
	struct bcn_fwdlog_line l;
	const char *why;
	size_t n;

	(void)state;
	assert_int_equal(bcn_fwdlog_parse(nul, sizeof(nul) - 1, &l, &why),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_fwdlog_parse(nul, strlen(nul), &l, &why), 0);
	/* the longest line is accepted, one byte more is not */
	memset(big, '#', sizeof(big));
	assert_int_equal(bcn_fwdlog_parse(big, BCN_FWDLOG_LINE_MAX, &l, &why),
			 0);
	assert_int_equal(l.kind, BCN_FWDLOG_COMMENT);
	assert_int_equal(bcn_fwdlog_parse(big, BCN_FWDLOG_LINE_MAX + 1, &l,
					  &why), -BCN_ERANGE);
	/* every prefix of a request line parses or fails cleanly */
	for (n = 0; n <= strlen(cases[1].in); n++) {
		int rc = bcn_fwdlog_parse(cases[1].in, n, &l, NULL);

		assert_true(rc == 0 || rc == -BCN_ESYNTAX ||
			    rc == -BCN_ERANGE);
	}
}

static void test_op_classes(void **state)
{
	static const struct { const char *op; unsigned cls; } ops[] = {
		{ "read", BCN_FWD_READ }, { "write", BCN_FWD_WRITE },
		{ "open", BCN_FWD_META }, { "close", BCN_FWD_META },
		{ "create", BCN_FWD_META }, { "lookup", BCN_FWD_META },
		{ "stat", BCN_FWD_META }, { "getattr", BCN_FWD_META },
		{ "setattr", BCN_FWD_META }, { "mkdir", BCN_FWD_META },
		{ "rmdir", BCN_FWD_META }, { "unlink", BCN_FWD_META },
		{ "rename", BCN_FWD_META }, { "link", BCN_FWD_META },
		{ "symlink", BCN_FWD_META }, { "readlink", BCN_FWD_META },
		{ "readdir", BCN_FWD_META }, { "mknod", BCN_FWD_META },
		{ "statfs", BCN_FWD_META }, { "truncate", BCN_FWD_META },
		{ "getxattr", BCN_FWD_META }, { "setxattr", BCN_FWD_META },
		{ "listxattr", BCN_FWD_META },
		{ "removexattr", BCN_FWD_META }, { "access", BCN_FWD_META },
		{ "fsync", BCN_FWD_OTHER }, { "reads", BCN_FWD_OTHER },
		{ "rea", BCN_FWD_OTHER }, { "opendir", BCN_FWD_OTHER },
		{ "ping", BCN_FWD_OTHER },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		assert_int_equal(bcn_fwdlog_op_class(ops[i].op,
						     strlen(ops[i].op)),
				 ops[i].cls);
}

#define CAPTURE_MAX 16

static char captured[CAPTURE_MAX][BCN_LOG_MSG_MAX];
static int ncaptured;

static void capture(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	if (ncaptured < CAPTURE_MAX)
		snprintf(captured[ncaptured], sizeof(captured[0]), "%s", msg);
	ncaptured++;
}

/* Feeds lines to q as the follower would: from the start of a file. */
static int feed(struct bcn_fwdreq *q, const char *const *lines, size_t n)
{
	struct bcn_follow_pos pos = { "test.log", 0, true, 0, NULL };
	int rejects = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		pos.lineno = i + 1;
		if (bcn_fwdreq_line(q, lines[i], strlen(lines[i]), &pos) ==
		    BCN_FOLLOW_REJECT)
			rejects++;
	}
	return rejects;
}

static void test_window_records(void **state)
{
	static const char *const lines[] = {
		"#beacon-fwdlog 1",
		"# a comment",
		T0 " read 100 10 5",
		T0 " read 300 30 10 cn1 7",
		T0 " write 1000 1000 100",
		T0 " Q 4",
		"garbage",
		T0 " stat 0 2 1",
		T0 " read 1 5 6",
		T0 " Q 8",
		"#beacon-fwdlog 1 restarted",
	};
	struct bcn_record recs[BCN_FWD_CLASS_MAX];
	struct bcn_fwdreq q;
	size_t n, i;

	(void)state;
	assert_int_equal(bcn_fwdreq_init(&q, NULL, 1024), 0);
	ncaptured = 0;
	bcn_log_set_level(BCN_LOG_WARNING);
	bcn_log_set_sink(capture, NULL);
	assert_int_equal(feed(&q, lines, sizeof(lines) / sizeof(lines[0])), 0);
	bcn_log_set_sink(NULL, NULL);
	bcn_log_set_level(BCN_LOG_ERR);
	/* the first malformed line is logged with its position, the second
	 * (within the complaint interval) is held back */
	assert_int_equal(ncaptured, 1);
	assert_non_null(strstr(captured[0], "test.log:7: "));
	assert_non_null(strstr(captured[0], "(1 malformed so far)"));
	assert_int_equal(q.requests, 4);
	assert_int_equal(q.queue_samples, 2);
	assert_int_equal(q.malformed, 2);
	assert_int_equal(q.comments, 1);
	assert_int_equal(q.headers, 2);
	bcn_fwdreq_finish(&q, 1000, 500, recs, &n);
	assert_int_equal(n, 4);         /* read, write, meta, all */
	for (i = 0; i < n; i++) {
		assert_int_equal(recs[i].type, BCN_REC_FWD_REQ);
		assert_int_equal(recs[i].t, 1000);
		assert_int_equal(recs[i].dur, 500);
		assert_int_equal(bcn_record_check(&recs[i]), 0);
	}
	assert_int_equal(recs[0].u.fwd_req.cls, BCN_FWD_READ);
	assert_int_equal(recs[0].u.fwd_req.count, 2);
	assert_int_equal(recs[0].u.fwd_req.bytes, 400);
	assert_int_equal(recs[0].u.fwd_req.latency.sum, 40);
	assert_int_equal(recs[0].u.fwd_req.latency.min, 10);
	assert_int_equal(recs[0].u.fwd_req.latency.p50, 10);
	assert_int_equal(recs[0].u.fwd_req.latency.p95, 30);
	assert_int_equal(recs[0].u.fwd_req.proc.max, 10);
	assert_int_equal(recs[0].u.fwd_req.queue.count, 0);
	assert_int_equal(recs[1].u.fwd_req.cls, BCN_FWD_WRITE);
	assert_int_equal(recs[1].u.fwd_req.latency.hist[9], 1);
	assert_int_equal(recs[2].u.fwd_req.cls, BCN_FWD_META);
	assert_int_equal(recs[2].u.fwd_req.count, 1);
	assert_int_equal(recs[3].u.fwd_req.cls, BCN_FWD_ALL);
	assert_int_equal(recs[3].u.fwd_req.count, 4);
	assert_int_equal(recs[3].u.fwd_req.bytes, 1400);
	assert_int_equal(recs[3].u.fwd_req.latency.count, 4);
	assert_int_equal(recs[3].u.fwd_req.latency.max, 1000);
	assert_int_equal(recs[3].u.fwd_req.latency.p50, 10);
	assert_int_equal(recs[3].u.fwd_req.proc.sum, 116);
	assert_int_equal(recs[3].u.fwd_req.queue.count, 2);
	assert_int_equal(recs[3].u.fwd_req.queue.sum, 12);
	assert_int_equal(recs[3].u.fwd_req.queue.p50, 4);
	assert_int_equal(recs[3].u.fwd_req.queue.p99, 8);
	/* the next window starts empty: no file, no lines, no records */
	bcn_fwdreq_finish(&q, 1500, 500, recs, &n);
	assert_int_equal(n, 0);
	bcn_fwdreq_free(&q);
}

static void test_header_rules(void **state)
{
	static const char *const no_header[] = {
		T0 " read 100 10 5",
		T0 " read 100 10 5",
	};
	static const char *const bad_version[] = {
		"#beacon-fwdlog 1",
		T0 " read 100 10 5",
		"#beacon-fwdlog 2",
	};
	static const char *const comment_first[] = {
		"# log of fwd07",
	};
	static const char *const version_first[] = {
		"#beacon-fwdlog 3",
	};
	struct bcn_fwdreq q;

	(void)state;
	assert_int_equal(bcn_fwdreq_init(&q, NULL, 1024), 0);
	ncaptured = 0;
	bcn_log_set_sink(capture, NULL);
	assert_int_equal(feed(&q, no_header, 1), 1);
	assert_int_equal(q.rejected_files, 1);
	assert_int_equal(q.requests, 0);
	assert_int_equal(feed(&q, bad_version, 3), 1);
	assert_int_equal(q.requests, 1);
	assert_int_equal(feed(&q, comment_first, 1), 1);
	assert_int_equal(feed(&q, version_first, 1), 1);
	bcn_log_set_sink(NULL, NULL);
	assert_int_equal(q.rejected_files, 4);
	assert_int_equal(q.malformed, 0);
	/* one error message; the repeats fall in the complaint interval */
	assert_int_equal(ncaptured, 1);
	assert_non_null(strstr(captured[0], "not a \"#beacon-fwdlog 1\""));
	bcn_fwdreq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_table),
		cmocka_unit_test(test_embedded_nul_and_length),
		cmocka_unit_test(test_op_classes),
		cmocka_unit_test(test_window_records),
		cmocka_unit_test(test_header_rules),
	};

	bcn_log_set_level(BCN_LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
