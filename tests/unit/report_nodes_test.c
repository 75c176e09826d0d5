/* Unit tests of analysis/report_nodes.c: bytes spread over the heatmap's
 * columns exactly (across column boundaries, before and after the range,
 * at random), rows of consecutive nodes of the nodelist with their
 * hostlist, silent nodes' zero rows and the other row, the columns'
 * bounds; stragglers found (slow, long) and not found (a clean job, too
 * few nodes, too few bytes), processes against their median, bounds
 * making the result partial, and the JSON. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/report_nodes.h"
#include "common/error.h"
#include "json_check.h"

#define S(x) ((int64_t)((x) * 1e9))
#define MIB (1024ull * 1024)
#define GIB (1024ull * MIB)

static struct bcn_rnodes_config cfg(void)
{
	struct bcn_rnodes_config c;

	bcn_rnodes_config_defaults(&c);
	return c;
}

/* A data record of node/pid: count x size bytes over [t, t + dur). */
static void add(struct bcn_rnodes *n, const char *node, uint64_t pid, int op,
		uint64_t size, uint64_t count, int64_t t, int64_t dur,
		uint64_t busy)
{
	struct bcn_record_totals tot;
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_IO);
	r.node = node;
	r.t = t;
	r.dur = dur;
	r.u.io.pid = pid;
	r.u.io.rank = (int64_t)pid;
	r.u.io.op = (uint64_t)op;
	r.u.io.file = 1;
	r.u.io.size = size;
	r.u.io.count = count;
	r.u.io.stride = (int64_t)size;
	r.u.io.busy = busy;
	bcn_record_totals(&r, &tot);
	assert_int_equal(bcn_rnodes_add(n, &r, &tot), 0);
}

/* Rows and other add up to the total; valid JSON. */
static void finish(struct bcn_rnodes *n, struct bcn_rnodes_result *res)
{
	uint64_t rd = 0, wr = 0;
	struct bcn_buf b;

	assert_int_equal(bcn_rnodes_finish(n, res), 0);
	for (size_t i = 0; i <= res->nrows; i++) {
		const struct bcn_rnodes_row *row =
			i < res->nrows ? &res->rows[i] : &res->other;
		uint64_t r = 0, w = 0;

		for (size_t k = 0; k < res->ncols; k++) {
			r += row->read[k];
			w += row->write[k];
		}
		assert_int_equal(r, row->read_bytes);
		assert_int_equal(w, row->write_bytes);
		rd += r;
		wr += w;
	}
	assert_int_equal(rd, res->read_bytes);
	assert_int_equal(wr, res->write_bytes);
	assert_true(res->ncols <= res->cfg.cols_max);
	bcn_buf_init(&b, 1 << 24);
	assert_int_equal(bcn_rnodes_to_json(res, &b), 0);
	if (!json_check((const char *)b.data, b.len))
		fail_msg("invalid JSON: %.*s", (int)b.len, (const char *)b.data);
	bcn_buf_free(&b);
}

/* ---- heatmap ---- */

struct spread_case {
	const char *what;
	double t, dur;                  /* seconds */
	uint64_t bytes;
	uint64_t col[4];                /* columns 0..3 of 60 (1 s each) */
	size_t last_col;                /* column 59 */
};

static const struct spread_case spreads[] = {
	{ "inside one column", 100.2, 0.5, 1000, { 1000, 0, 0, 0 }, 0 },
	{ "over three columns", 100.5, 2.5, 1000, { 200, 400, 400, 0 }, 0 },
	{ "remainders carried", 101, 3, 7, { 0, 2, 2, 3 }, 0 },
	{ "no duration", 102.99, 0, 5, { 0, 0, 5, 0 }, 0 },
	{ "before the range", 50, 1, 9, { 9, 0, 0, 0 }, 0 },
	{ "straddles the start", 99, 2, 10, { 10, 0, 0, 0 }, 0 },
	{ "straddles two", 99.5, 2, 40, { 30, 10, 0, 0 }, 0 },
	{ "after the range", 500, 1, 11, { 0 }, 11 },
	{ "straddles the end", 159.5, 2, 12, { 0 }, 12 },
	{ "huge", 100, 4, 1ull << 62, { 1ull << 60, 1ull << 60, 1ull << 60,
					1ull << 60 }, 0 },
};

static void test_spread(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(spreads) / sizeof(spreads[0]); k++) {
		const struct spread_case *c = &spreads[k];
		struct bcn_rnodes_config co = cfg();
		struct bcn_rnodes n;
		struct bcn_rnodes_result res;

		assert_int_equal(bcn_rnodes_init(&n, "cn[01-04]", S(100), S(160),
						 &co), 0);
		add(&n, "cn02", 1, BCN_IO_WRITE, c->bytes, 1, S(c->t),
		    S(c->dur), 10);
		finish(&n, &res);
		assert_int_equal(res.ncols, 60);
		assert_int_equal(res.step, S(1));
		for (int i = 0; i < 4; i++)
			if (res.rows[1].write[i] != c->col[i])
				fail_msg("%s: column %d: %" PRIu64, c->what, i,
					 res.rows[1].write[i]);
		assert_int_equal(res.rows[1].write[59], c->last_col);
		assert_int_equal(res.rows[1].write_bytes, c->bytes);
		assert_int_equal(res.rows[0].write_bytes, 0);
		bcn_rnodes_result_free(&res);
		bcn_rnodes_free(&n);
	}
}

/* Random records of 40 nodes: every row adds up to its nodes' bytes. */
static void test_spread_random(void **state)
{
	static const int ops[] = { BCN_IO_READ, BCN_IO_WRITE, BCN_IO_OPEN };
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;
	uint64_t want_r[8] = { 0 }, want_w[8] = { 0 }, x = 77;

	(void)state;
	co.rows_max = 8;
	co.cols_max = 7;
	assert_int_equal(bcn_rnodes_init(&n, "n[0-39]", S(1000), S(1100), &co),
			 0);
	assert_int_equal(n.ncols, 7);   /* 100 s in 7: 15 s columns */
	for (int i = 0; i < 5000; i++) {
		char node[16];
		int op, node_ix;
		uint64_t size, count;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		node_ix = (int)(x % 40);
		snprintf(node, sizeof(node), "n%d", node_ix);
		op = ops[(x >> 8) % 3];
		size = (x >> 12) % 1000000;
		count = 1 + (x >> 32) % 1000;
		add(&n, node, 1 + (x >> 20) % 4, op, size, count,
		    S(950) + (int64_t)((x >> 16) % 200000) * 1000000,
		    (int64_t)((x >> 40) % 30000) * 1000000, 100);
		if (op == BCN_IO_READ)
			want_r[node_ix / 5] += size * count;
		else if (op == BCN_IO_WRITE)
			want_w[node_ix / 5] += size * count;
	}
	finish(&n, &res);
	assert_int_equal(res.nrows, 8);
	for (int k = 0; k < 8; k++) {
		assert_int_equal(res.rows[k].count, 5);
		assert_int_equal(res.rows[k].read_bytes, want_r[k]);
		assert_int_equal(res.rows[k].write_bytes, want_w[k]);
	}
	assert_string_equal(res.rows[0].nodes, "n[0-4]");
	assert_string_equal(res.rows[7].nodes, "n[35-39]");
	assert_int_equal(res.other.count, 0);
	assert_int_equal(res.other.read_bytes + res.other.write_bytes, 0);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

static void test_rows(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;
	uint64_t nodes = 0;

	(void)state;
	assert_int_equal(bcn_rnodes_init(&n, "cn[001-300]", S(0), S(60), &co),
			 0);
	add(&n, "cn300", 1, BCN_IO_READ, 100, 1, S(10), S(1), 5);
	add(&n, "login1", 1, BCN_IO_READ, 7, 1, S(10), S(1), 5);
	finish(&n, &res);
	assert_int_equal(res.nodes, 300);
	assert_int_equal(res.nrows, 128);
	for (size_t k = 0; k < res.nrows; k++)
		nodes += res.rows[k].count;
	assert_int_equal(nodes, 300);
	/* node i is in row i * 128 / 300 */
	assert_string_equal(res.rows[0].nodes, "cn[001-003]");
	assert_int_equal(res.rows[0].count, 3);
	assert_string_equal(res.rows[1].nodes, "cn[004-005]");
	assert_string_equal(res.rows[127].nodes, "cn[299-300]");
	assert_int_equal(res.rows[127].read_bytes, 100);
	assert_int_equal(res.rows[0].read_bytes, 0);    /* silent: zeros */
	assert_non_null(res.rows[0].read);
	assert_string_equal(res.other.nodes, "login1");
	assert_int_equal(res.other.count, 1);
	assert_int_equal(res.other.read_bytes, 7);
	assert_false(res.partial);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);

	/* fewer nodes than rows: a row each, in nodelist order */
	assert_int_equal(bcn_rnodes_init(&n, "b7,a[2-3],b7", S(0), S(60), &co),
			 0);
	finish(&n, &res);
	assert_int_equal(res.nrows, 3);
	assert_string_equal(res.rows[0].nodes, "b7");
	assert_string_equal(res.rows[1].nodes, "a2");
	assert_string_equal(res.rows[2].nodes, "a3");
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

struct cols_case {
	double from, to;
	uint64_t cols_max;
	size_t ncols;
	int64_t step;
};

static void test_columns(void **state)
{
	static const struct cols_case cases[] = {
		{ 0, 60, 60, 60, S(1) },
		{ 0, 61, 60, 31, S(2) },        /* whole seconds */
		{ 0, 3600, 60, 60, S(60) },
		{ 0, 0.5, 60, 60, 8333334 },    /* short: below a second */
		{ 10, 10, 60, 1, 1 },           /* empty range */
		{ 0, 86400 * 8, 1, 1, S(86400 * 8) },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bcn_rnodes_config co = cfg();
		struct bcn_rnodes n;

		co.cols_max = cases[k].cols_max;
		assert_int_equal(bcn_rnodes_init(&n, "x1", S(cases[k].from),
						 S(cases[k].to), &co), 0);
		assert_int_equal(n.ncols, cases[k].ncols);
		assert_int_equal(n.step, cases[k].step);
		assert_true(n.to >= S(cases[k].to));
		bcn_rnodes_free(&n);
	}
}

/* ---- stragglers ---- */

/* nodes n01..n<k>, 2 processes each writing bytes in busy ns; node
 * slow_node's processes take slow_busy. */
static void job(struct bcn_rnodes *n, int k, uint64_t bytes, uint64_t busy,
		int slow_node, uint64_t slow_busy, uint64_t slow_bytes)
{
	for (int i = 1; i <= k; i++) {
		char node[16];

		snprintf(node, sizeof(node), "n%02d", i);
		for (uint64_t p = 1; p <= 2; p++) {
			bool slow = i == slow_node;
			uint64_t b = slow ? slow_bytes : bytes;
			uint64_t bz = slow ? slow_busy : busy + (uint64_t)i * busy / 50;

			/* two records, so that sums are tested */
			add(n, node, 100 * (uint64_t)i + p, BCN_IO_WRITE, b / 2, 1,
			    S(10), S(5), bz / 2);
			add(n, node, 100 * (uint64_t)i + p, BCN_IO_WRITE, b / 2, 1,
			    S(20), S(5), bz - bz / 2);
		}
	}
}

static void test_straggler_found(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;

	(void)state;
	assert_int_equal(bcn_rnodes_init(&n, "n[01-08]", S(0), S(60), &co), 0);
	job(&n, 8, GIB, S(1), 5, S(4), GIB);
	finish(&n, &res);
	assert_true(res.node.checked);
	assert_int_equal(res.node.io, 8);
	assert_int_equal(res.node.stragglers, 1);
	assert_int_equal(res.node.nlist, 1);
	assert_string_equal(res.node.list[0].node, "n05");
	assert_true(res.node.list[0].slow);
	assert_true(res.node.list[0].too_long);
	assert_int_equal(res.node.list[0].procs, 2);
	assert_int_equal(res.node.list[0].time, S(4));
	assert_int_equal(res.node.list[0].bytes, 2 * GIB);
	assert_true(res.node.list[0].bw_ratio > 0.2 &&
		    res.node.list[0].bw_ratio < 0.3);
	assert_true(res.node.list[0].time_ratio > 3.5);
	/* its two processes, against the median process */
	assert_int_equal(res.proc.io, 16);
	assert_int_equal(res.proc.stragglers, 2);
	assert_string_equal(res.proc.list[0].node, "n05");
	assert_true(res.proc.list[0].pid == 501 || res.proc.list[0].pid == 502);
	assert_true(res.proc.list[0].bw_ratio < 0.3);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

/* The same bandwidth, three times the bytes and time: long, not slow. */
static void test_straggler_long(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;

	(void)state;
	assert_int_equal(bcn_rnodes_init(&n, "n[01-06]", S(0), S(60), &co), 0);
	job(&n, 6, GIB, S(1), 2, S(3) + S(3) / 50, 3 * GIB);
	finish(&n, &res);
	assert_int_equal(res.node.stragglers, 1);
	assert_string_equal(res.node.list[0].node, "n02");
	assert_false(res.node.list[0].slow);
	assert_true(res.node.list[0].too_long);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

struct clean_case {
	const char *what;
	int nodes;
	uint64_t bytes;
	int slow_node;
	bool checked;
	uint64_t proc_stragglers;
};

static void test_straggler_not_found(void **state)
{
	static const struct clean_case cases[] = {
		{ "a clean job", 16, GIB, 0, true, 0 },
		/* 6 processes are enough: node 2's two are slow */
		{ "too few nodes to judge", 3, GIB, 2, false, 2 },
		{ "too few bytes to matter", 8, MIB, 3, true, 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct clean_case *c = &cases[k];
		struct bcn_rnodes_config co = cfg();
		struct bcn_rnodes n;
		struct bcn_rnodes_result res;

		assert_int_equal(bcn_rnodes_init(&n, "n[01-16]", S(0), S(60),
						 &co), 0);
		job(&n, c->nodes, c->bytes, S(1), c->slow_node, S(10), c->bytes);
		finish(&n, &res);
		if (res.node.checked != c->checked || res.node.stragglers ||
		    res.proc.stragglers != c->proc_stragglers)
			fail_msg("%s: checked %d, %" PRIu64 " nodes, %" PRIu64
				 " processes", c->what, res.node.checked,
				 res.node.stragglers, res.proc.stragglers);
		assert_int_equal(res.node.io, (uint64_t)c->nodes);
		bcn_rnodes_result_free(&res);
		bcn_rnodes_free(&n);
	}
}

/* Records without busy time (LWFS logs): a node's time is the span of
 * its data operations; the node that moved a quarter as much over the
 * same span is the straggler, by bandwidth, and its process too. */
static void test_straggler_span(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;

	(void)state;
	assert_int_equal(bcn_rnodes_init(&n, "n[1-6]", S(0), S(60), &co), 0);
	for (int i = 1; i <= 6; i++) {
		char node[16];
		uint64_t size = i == 4 ? GIB / 4 : GIB;

		snprintf(node, sizeof(node), "n%d", i);
		/* two runs 20 s apart: the span is 21 s */
		add(&n, node, 7, BCN_IO_WRITE, size, 1, S(10), S(1), 0);
		add(&n, node, 7, BCN_IO_WRITE, size, 1, S(30), S(1), 0);
	}
	finish(&n, &res);
	assert_int_equal(res.node.untimed, 0);
	assert_int_equal(res.node.io, 6);
	assert_int_equal(res.node.median_time, S(21));
	assert_int_equal(res.node.stragglers, 1);
	assert_string_equal(res.node.list[0].node, "n4");
	assert_true(res.node.list[0].slow && !res.node.list[0].too_long);
	assert_int_equal(res.proc.stragglers, 1);
	assert_string_equal(res.proc.list[0].node, "n4");
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

/* At most list_max listed, slowest first; untimed nodes set apart. */
static void test_straggler_list(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;

	(void)state;
	co.list_max = 2;
	assert_int_equal(bcn_rnodes_init(&n, "n[01-12]", S(0), S(60), &co), 0);
	for (int i = 1; i <= 12; i++) {
		char node[16];
		/* n10 5x, n11 3x, n12 8x slower */
		uint64_t busy = i == 10 ? S(5) : i == 11 ? S(3) : i == 12 ? S(8) :
				S(1);

		snprintf(node, sizeof(node), "n%02d", i);
		add(&n, node, 1, BCN_IO_READ, GIB, 1, S(1), S(1), busy);
	}
	add(&n, "n13", 1, BCN_IO_READ, GIB, 1, S(1), 0, 0);  /* no time */
	finish(&n, &res);
	assert_int_equal(res.node.io, 12);
	assert_int_equal(res.node.untimed, 1);
	assert_int_equal(res.node.stragglers, 3);
	assert_int_equal(res.node.nlist, 2);
	assert_string_equal(res.node.list[0].node, "n12");
	assert_string_equal(res.node.list[1].node, "n10");
	assert_int_equal(res.node.median_time, S(1));
	assert_int_equal(res.node.median_bytes, GIB);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

/* ---- bounds ---- */

static void test_bounds(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;

	(void)state;
	co.nodes_max = 2;
	assert_int_equal(bcn_rnodes_init(&n, "n[01-04]", S(0), S(60), &co), 0);
	job(&n, 4, MIB, S(1), 0, 0, 0);
	finish(&n, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.why, "nodes_max"));
	assert_int_equal(res.nrows, 2);
	assert_int_equal(res.write_bytes, 4 * 2 * MIB);    /* all of it */
	assert_int_equal(res.other.write_bytes, 2 * 2 * MIB);
	assert_int_equal(res.node.io, 2);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);

	co = cfg();
	co.procs_max = 3;
	assert_int_equal(bcn_rnodes_init(&n, "n[01-04]", S(0), S(60), &co), 0);
	job(&n, 4, MIB, S(1), 0, 0, 0);
	finish(&n, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.why, "procs_max"));
	assert_int_equal(res.proc.io, 3);
	assert_int_equal(res.write_bytes, 4 * 2 * MIB);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);

	/* a nodelist that does not expand: every node in other */
	co = cfg();
	assert_int_equal(bcn_rnodes_init(&n, "n[01-", S(0), S(60), &co), 0);
	job(&n, 4, MIB, S(1), 0, 0, 0);
	finish(&n, &res);
	assert_true(res.partial);
	assert_int_equal(res.nrows, 0);
	assert_int_equal(res.other.count, 4);
	assert_string_equal(res.other.nodes, "n[01-04]");
	assert_int_equal(res.other.write_bytes, 4 * 2 * MIB);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

static void test_json(void **state)
{
	struct bcn_rnodes_config co = cfg();
	struct bcn_rnodes n;
	struct bcn_rnodes_result res;
	struct bcn_buf b;
	const char *s;

	(void)state;
	co.cols_max = 4;
	assert_int_equal(bcn_rnodes_init(&n, "n[01-08]", S(0), S(40), &co), 0);
	job(&n, 8, GIB, S(1), 5, S(4), GIB);
	assert_int_equal(bcn_rnodes_finish(&n, &res), 0);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_rnodes_to_json(&res, &b), 0);
	assert_int_equal(bcn_buf_add(&b, "", 1), 0);
	s = (const char *)b.data;
	assert_true(json_check(s, strlen(s)));
	assert_non_null(strstr(s, "\"heatmap\":{\"from\":\"1970-01-01T00:00:00"));
	assert_non_null(strstr(s, "\"step\":10.000,\"cols\":4,\"nodes\":8"));
	assert_non_null(strstr(s, "{\"nodes\":\"n01\",\"count\":1,\"read_bytes\":0,"
			       "\"write_bytes\":2147483648,\"read\":[0,0,0,0],"
			       "\"write\":[0,1073741824,1073741824,0]}"));
	assert_non_null(strstr(s, "\"other\":null"));
	assert_non_null(strstr(s, "\"slowest\":[{\"node\":\"n05\",\"procs\":2,"));
	assert_non_null(strstr(s, "\"slowest\":[{\"node\":\"n05\",\"pid\":50"));
	assert_non_null(strstr(s, "\"partial\":false"));
	bcn_buf_free(&b);
	bcn_buf_init(&b, 64);
	assert_int_equal(bcn_rnodes_to_json(&res, &b), -BCN_EFULL);
	bcn_buf_free(&b);
	bcn_rnodes_result_free(&res);
	bcn_rnodes_free(&n);
}

/* The configuration keys' defaults are bcn_rnodes_config_defaults'. */
struct nodes_conf {
	struct bcn_rnodes_config n;
};

static void test_config_keys(void **state)
{
	static const struct bcn_config_opt tab[] = {
		BCN_RNODES_CONFIG_OPTIONS(struct nodes_conf, n),
		{ .name = NULL },
	};
	struct nodes_conf a, b;
	char err[BCN_CFG_ERR_MAX];

	(void)state;
	memset(&a, 0xff, sizeof(a));
	assert_int_equal(bcn_config_defaults(tab, &a, err, sizeof(err)), 0);
	memset(&b, 0, sizeof(b));
	bcn_rnodes_config_defaults(&b.n);
	assert_memory_equal(&a, &b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_spread_random),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_straggler_found),
		cmocka_unit_test(test_straggler_long),
		cmocka_unit_test(test_straggler_not_found),
		cmocka_unit_test(test_straggler_list),
		cmocka_unit_test(test_straggler_span),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_config_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
