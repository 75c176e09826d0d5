/* Tests of compress/archive (second-pass compression of a job's
 * records): a table of hand-made jobs (N-N with offsets and file names
 * affine in the node index, N-1 strided with rank-affine offsets, nodes
 * whose sequences differ and must not merge, one node, no record, odd
 * strings and node names, every record type, jittered times, random
 * records) each encoded, decoded and compared field by field as a
 * multiset, with the groups it must make; the decoder's order; the
 * first-pass baseline; and rejected input: truncations, flipped bytes,
 * header fields, limits, and hand-made bodies each broken in one way. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/error.h"
#include "compress/archive.h"
#include "compress/archive_int.h"
#include "compress/recset.h"
#include "proto/fileid.h"
#include "proto/varint.h"
#include "recgen.h"

#define JOB 4242
#define T0 INT64_C(1700000000000000000)
#define SEC INT64_C(1000000000)
#define MIB UINT64_C(1048576)
#define OUT_MAX (64u << 20)

/* ---- building jobs -------------------------------------------------- */

struct jcase;
typedef void gen_fn(struct bcn_recset *s, const struct jcase *c);

struct jcase {
	const char *name;
	gen_fn *gen;
	unsigned nodes;
	unsigned steps;                 /* records or phases per node */
	long groups;                    /* groups it must make; -1: any */
	long merged;                    /* nodes in merged groups; -1: any */
};

static void add(struct bcn_recset *s, const struct bcn_record *r)
{
	assert_int_equal(bcn_recset_add(s, r), 0);
}

static struct bcn_record io_rec(const char *node, int64_t t, uint64_t op)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_IO);
	r.node = node;
	r.t = t;
	r.dur = SEC / 10;
	r.job = JOB;
	r.u.io.op = op;
	r.u.io.fd = 3;
	r.u.io.pid = 4000;
	return r;
}

/* N-N checkpoints: node k opens /scratch/ckpt.<k>, writes steps runs of
 * 64 MiB at offsets affine in k, closes; ranks and pids affine in k. */
static void gen_nn(struct bcn_recset *s, const struct jcase *c)
{
	for (unsigned k = 0; k < c->nodes; k++) {
		char node[32], path[64];
		struct bcn_record r;
		uint64_t file;

		snprintf(node, sizeof(node), "cn%05u", k + 17);
		snprintf(path, sizeof(path), "/scratch/run/ckpt.%04u", k);
		file = bcn_file_id(path, strlen(path));
		for (unsigned p = 0; p < c->steps; p++) {
			int64_t t = T0 + (int64_t)p * 60 * SEC;

			r = io_rec(node, t, BCN_IO_OPEN);
			r.u.io.rank = k;
			r.u.io.pid = 5000 + 4 * k;
			r.u.io.file = file;
			r.u.io.path = path;
			add(s, &r);
			r = io_rec(node, t + SEC, BCN_IO_WRITE);
			r.u.io.rank = k;
			r.u.io.pid = 5000 + 4 * k;
			r.u.io.file = file;
			r.u.io.offset = (p * c->nodes + k) * 64 * MIB;
			r.u.io.size = MIB;
			r.u.io.count = 64;
			r.u.io.stride = (int64_t)MIB;
			r.u.io.busy = 3 * SEC + p;
			r.dur = 4 * SEC;
			add(s, &r);
			r = io_rec(node, t + 6 * SEC, BCN_IO_CLOSE);
			r.u.io.rank = k;
			r.u.io.pid = 5000 + 4 * k;
			r.u.io.file = file;
			add(s, &r);
		}
	}
}

/* N-1 strided: every node writes blocks of one shared file at rank *
 * block + i * nodes * block; the scan order is by time, as a store's. */
static void gen_n1(struct bcn_recset *s, const struct jcase *c)
{
	const char *path = "/scratch/shared.dat";

	for (unsigned p = 0; p < c->steps; p++) {
		for (unsigned k = 0; k < c->nodes; k++) {
			char node[32];
			struct bcn_record r;

			snprintf(node, sizeof(node), "nid%03u", 2 * k + 1);
			r = io_rec(node, T0 + (int64_t)p * SEC, BCN_IO_WRITE);
			r.u.io.rank = 2 * k;
			r.u.io.file = bcn_file_id(path, strlen(path));
			r.u.io.size = 4 * MIB;
			r.u.io.offset = (p * 256 * c->nodes + k) * 4 * MIB;
			r.u.io.count = 256;
			r.u.io.stride = (int64_t)(c->nodes * 4 * MIB);
			add(s, &r);
		}
	}
}

/* Nodes whose sequences differ in length or operation: node k does
 * 1 + k % 3 writes, then a read (k even) or a stat (k odd): six shapes. */
static void gen_differ(struct bcn_recset *s, const struct jcase *c)
{
	for (unsigned k = 0; k < c->nodes; k++) {
		char node[32];
		struct bcn_record r;
		unsigned n = 1 + k % 3;

		snprintf(node, sizeof(node), "cn%u", k);
		for (unsigned i = 0; i < n; i++) {
			r = io_rec(node, T0 + i, BCN_IO_WRITE);
			r.u.io.size = 4096;
			add(s, &r);
		}
		r = io_rec(node, T0 + 10, k % 2 ? BCN_IO_STAT : BCN_IO_READ);
		add(s, &r);
	}
}

/* Equal sequences except for values that are not affine (sizes from a
 * hash): they merge, with those columns stored as lists. */
static void gen_lists(struct bcn_recset *s, const struct jcase *c)
{
	for (unsigned k = 0; k < c->nodes; k++) {
		char node[32];

		snprintf(node, sizeof(node), "io%02u", k);
		for (unsigned p = 0; p < c->steps; p++) {
			struct bcn_record r = io_rec(node, T0 + p * SEC,
						     BCN_IO_READ);

			r.u.io.size = (k * 2654435761u + p) % 9973;
			r.t += (int64_t)((k * 40503u) % 1000);  /* jitter */
			r.dur = (int64_t)(k % 7) * 1000;
			add(s, &r);
		}
	}
}

static char long_node[BCN_STR_MAX + 1];
static char long_path[BCN_STR_MAX + 1];

/* Node names no hostlist can hold and strings with odd bytes. */
static void gen_odd(struct bcn_recset *s, const struct jcase *c)
{
	static const char *const nodes[] = {
		"", "a b", "x[1]", "c,d", "tab\t", "\xff\xfe", "cn1", "cn01",
		"cn001", "cn2", "gpu-7", "n\x01", "ünï", long_node,
	};
	static const char *const paths[] = {
		"", "/a\nb", "\x01\x02\x7f", "\xc3\x28", "quote\"\\", long_path,
		"p9", "p10",
	};

	memset(long_node, 'n', BCN_STR_MAX);
	memset(long_path, 'p', BCN_STR_MAX);
	for (unsigned k = 0; k < sizeof(nodes) / sizeof(nodes[0]); k++) {
		for (unsigned p = 0; p < c->steps; p++) {
			struct bcn_record r = io_rec(nodes[k], T0 + p,
						     BCN_IO_OPEN);

			r.u.io.path = paths[(k + p) % 8];
			add(s, &r);
		}
	}
}

/* Every record type, through the field tables, with edge values: a
 * few nodes per layer, the job's own records and strays of other jobs. */
static void gen_types(struct bcn_recset *s, const struct jcase *c)
{
	static const char *const strs[] = {
		"", "lustre-OST0003", "o\"dd\x01", "12", "013", "узел",
	};
	struct recgen g = { 0x2545f4914f6cdd1dull, strs, 6, 1 };

	for (unsigned i = 0; i < c->steps; i++) {
		for (uint64_t t = 1; t < BCN_REC_TYPE_MAX; t++) {
			char node[32];
			struct bcn_record r;

			snprintf(node, sizeof(node), "%s%02u",
				 bcn_record_desc(t)->name, i % c->nodes);
			bcn_record_init(&r, (enum bcn_rec_type)t);
			r.node = node;
			r.t = (int64_t)recgen_u64(&g);
			recgen_fields(&g, &r);
			if (i % 3)
				r.job = JOB;
			add(s, &r);
		}
	}
}

/* The same sequence on every node, times equal: numbered node names
 * and paths with zero padding, OST job_stats records per node. */
static void gen_same(struct bcn_recset *s, const struct jcase *c)
{
	for (unsigned k = 0; k < c->nodes; k++) {
		char node[32], client[48];

		snprintf(node, sizeof(node), "oss%03u", k + 1);
		snprintf(client, sizeof(client), "10.0.%u.%u@o2ib", k / 200,
			 k % 200);
		for (unsigned p = 0; p < c->steps; p++) {
			struct bcn_record r;

			bcn_record_init(&r, BCN_REC_OST);
			r.node = node;
			r.t = T0 + (int64_t)p * 10 * SEC;
			r.dur = 10 * SEC;
			r.job = JOB;
			r.u.ost.target = "fs-OST0000";
			r.u.ost.client = client;
			r.u.ost.jobid = "4242";
			r.u.ost.write_bytes = 1000 * p;
			r.u.ost.ops[BCN_OST_WRITE] = p;
			r.u.ost.pages_write[8] = p + k;
			add(s, &r);
		}
	}
}

static void gen_none(struct bcn_recset *s, const struct jcase *c)
{
	(void)s;
	(void)c;
}

/* Random records of every type on a few nodes, random times. */
static void gen_random(struct bcn_recset *s, const struct jcase *c)
{
	static const char *const strs[] = { "", "a", "b9", "b10", "\xff" };
	struct recgen g = { 0x9e3779b97f4a7c15ull, strs, 5, 1 };

	for (unsigned i = 0; i < c->steps; i++) {
		char node[16];
		struct bcn_record r;
		uint64_t t = 1 + recgen_next(&g) % (BCN_REC_TYPE_MAX - 1);

		snprintf(node, sizeof(node), "r%u", (unsigned)(recgen_next(&g) %
							       c->nodes));
		bcn_record_init(&r, (enum bcn_rec_type)t);
		r.node = node;
		r.t = (int64_t)(recgen_next(&g) % 4);
		recgen_fields(&g, &r);
		add(s, &r);
	}
}

static const struct jcase cases[] = {
	{ "n-n affine offsets, numbered paths", gen_nn, 64, 5, 1, 64 },
	{ "n-n on two nodes", gen_nn, 2, 3, 1, 2 },
	{ "n-1 strided, rank-affine offsets", gen_n1, 32, 8, 1, 32 },
	{ "differing sequences do not merge", gen_differ, 30, 0, 6, 30 },
	{ "one node", gen_nn, 1, 4, 1, 0 },
	{ "empty job", gen_none, 0, 0, 0, 0 },
	{ "non-affine values as lists", gen_lists, 9, 12, 1, 9 },
	{ "odd strings and node names", gen_odd, 14, 3, 1, 14 },
	{ "every record type", gen_types, 3, 40, -1, -1 },
	{ "same sequence, ost records", gen_same, 300, 6, 1, 300 },
	{ "random records", gen_random, 5, 500, -1, -1 },
};

/* ---- checks --------------------------------------------------------- */

struct order {
	struct bcn_recset got;
	char node[BCN_STR_MAX + 1];
	int64_t t;
	int seen, bad;
};

/* Collects the decoded records and checks the decoder's order: nodes in
 * byte order of their names, each node's records by time. */
static int collect(void *arg, const struct bcn_record *r)
{
	struct order *o = arg;
	int c = o->seen ? strcmp(r->node, o->node) : 1;

	if (c < 0 || (c == 0 && r->t < o->t))
		o->bad++;
	snprintf(o->node, sizeof(o->node), "%s", r->node);
	o->t = r->t;
	o->seen = 1;
	return bcn_recset_add(&o->got, r) ? -1 : 0;
}

/* Encodes s, decodes it, compares as multisets; returns the stats. */
static void roundtrip(struct bcn_recset *s, struct bcn_buf *out,
		      struct bcn_archive_stats *st)
{
	struct bcn_archive_stats dst;
	struct order o;

	memset(&o, 0, sizeof(o));
	bcn_buf_reset(out);
	assert_int_equal(bcn_archive_encode(JOB, s->recs, s->n, out, st), 0);
	assert_int_equal(st->records, s->n);
	assert_int_equal(st->bytes, out->len);
	bcn_recset_init(&o.got, s->n + 1);
	assert_int_equal(bcn_archive_decode(out->data, out->len, NULL,
					    collect, &o, &dst), 0);
	assert_int_equal(o.bad, 0);
	assert_int_equal(dst.records, s->n);
	assert_int_equal(dst.nodes, st->nodes);
	assert_int_equal(dst.groups, st->groups);
	assert_int_equal(dst.templates, st->templates);
	assert_int_equal(dst.merged_nodes, st->merged_nodes);
	assert_int_equal(o.got.n, s->n);
	bcn_recset_sort(s);
	bcn_recset_sort(&o.got);
	for (size_t i = 0; i < s->n; i++)
		assert_int_equal(bcn_recset_cmp(&s->recs[i], &o.got.recs[i]), 0);
	bcn_recset_free(&o.got);
}

static void test_cases(void **state)
{
	struct bcn_buf out, again;

	(void)state;
	bcn_buf_init(&out, OUT_MAX);
	bcn_buf_init(&again, OUT_MAX);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct jcase *c = &cases[i];
		struct bcn_archive_stats st;
		struct bcn_recset s;

		print_message("case: %s\n", c->name);
		bcn_recset_init(&s, 1u << 24);
		c->gen(&s, c);
		/* deterministic: the same input gives the same bytes */
		bcn_buf_reset(&again);
		assert_int_equal(bcn_archive_encode(JOB, s.recs, s.n, &again,
						    NULL), 0);
		roundtrip(&s, &out, &st);
		assert_int_equal(out.len, again.len);
		assert_memory_equal(out.data, again.data, out.len);
		print_message("  %zu records, %" PRIu64 " nodes, %" PRIu64
			      " groups, %" PRIu64 " templates, %zu bytes; fields "
			      "const %" PRIu64 " affine %" PRIu64 " list %" PRIu64
			      " numbered %" PRIu64 " relative %" PRIu64 "\n",
			      s.n, st.nodes, st.groups, st.templates, out.len,
			      st.cols[BCN_ARCHIVE_COL_CONST],
			      st.cols[BCN_ARCHIVE_COL_AFFINE],
			      st.cols[BCN_ARCHIVE_COL_LIST],
			      st.cols[BCN_ARCHIVE_COL_NUMBERED],
			      st.cols[BCN_ARCHIVE_COL_REL]);
		if (c->groups >= 0)
			assert_int_equal(st.groups, c->groups);
		if (c->merged >= 0)
			assert_int_equal(st.merged_nodes, c->merged);
		/* sorted input: another order, the same records back */
		roundtrip(&s, &out, &st);
		bcn_recset_free(&s);
	}
	bcn_buf_free(&out);
	bcn_buf_free(&again);
}

/* The records come back the same whatever the input order. */
static void test_input_order(void **state)
{
	static const struct jcase c = { "n-n", gen_nn, 16, 3, 1, 16 };
	struct bcn_buf a, b;
	struct bcn_recset s;

	(void)state;
	bcn_buf_init(&a, OUT_MAX);
	bcn_buf_init(&b, OUT_MAX);
	bcn_recset_init(&s, 1u << 20);
	gen_nn(&s, &c);
	assert_int_equal(bcn_archive_encode(JOB, s.recs, s.n, &a, NULL), 0);
	/* reversed: ties in t would change order, none here */
	for (size_t i = 0; i < s.n / 2; i++) {
		struct bcn_record x = s.recs[i];

		s.recs[i] = s.recs[s.n - 1 - i];
		s.recs[s.n - 1 - i] = x;
	}
	assert_int_equal(bcn_archive_encode(JOB, s.recs, s.n, &b, NULL), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	bcn_recset_free(&s);
	bcn_buf_free(&a);
	bcn_buf_free(&b);
}

/* Records the encoder refuses, and a full output buffer. */
static void test_encode_errors(void **state)
{
	struct bcn_record r = io_rec("cn1", T0, BCN_IO_WRITE);
	struct bcn_buf out;

	(void)state;
	bcn_buf_init(&out, OUT_MAX);
	r.u.io.count = 0;
	assert_int_equal(bcn_archive_encode(JOB, &r, 1, &out, NULL),
			 -BCN_ERANGE);
	r = io_rec(NULL, T0, BCN_IO_WRITE);
	assert_int_equal(bcn_archive_encode(JOB, &r, 1, &out, NULL),
			 -BCN_ERANGE);
	r = io_rec("cn1", T0, BCN_IO_WRITE);
	r.dur = -1;
	assert_int_equal(bcn_archive_encode(JOB, &r, 1, &out, NULL),
			 -BCN_ERANGE);
	assert_int_equal(out.len, 0);
	bcn_buf_free(&out);
	bcn_buf_init(&out, 70);
	r = io_rec("cn1", T0, BCN_IO_WRITE);
	assert_int_equal(bcn_buf_add(&out, "x", 1), 0);
	assert_int_equal(bcn_archive_encode(JOB, &r, 1, &out, NULL),
			 -BCN_EFULL);
	assert_int_equal(out.len, 1);
	bcn_buf_free(&out);
}

/* The baseline: frames of each node's records; more than the archive. */
static void test_frame_bytes(void **state)
{
	static const struct jcase c = { "n-n", gen_nn, 64, 10, 1, 64 };
	struct bcn_archive_stats st;
	struct bcn_recset s;
	struct bcn_buf out;
	uint64_t fb = 0, none = 1;

	(void)state;
	bcn_buf_init(&out, OUT_MAX);
	bcn_recset_init(&s, 1u << 20);
	gen_nn(&s, &c);
	assert_int_equal(bcn_archive_frame_bytes(s.recs, s.n, 1, &fb), 0);
	assert_int_equal(bcn_archive_encode(JOB, s.recs, s.n, &out, &st), 0);
	print_message("n-n 64 nodes: %zu records, frames %" PRIu64
		      " bytes, archive %zu bytes\n", s.n, fb, out.len);
	assert_true(fb > 2 * out.len);
	assert_int_equal(bcn_archive_frame_bytes(NULL, 0, 1, &none), 0);
	assert_int_equal(none, 0);
	bcn_recset_free(&s);
	bcn_buf_free(&out);
}

/* ---- rejected input ------------------------------------------------- */

static void make_archive(struct bcn_buf *out)
{
	static const struct jcase c = { "n-n", gen_nn, 8, 2, 1, 8 };
	struct bcn_recset s;

	bcn_recset_init(&s, 1u << 20);
	gen_nn(&s, &c);
	bcn_buf_init(out, OUT_MAX);
	assert_int_equal(bcn_archive_encode(JOB, s.recs, s.n, out, NULL), 0);
	bcn_recset_free(&s);
}

static void reseal(uint8_t *a, size_t len)
{
	arc_put_le(a + ARC_H_CRC, bcn_archive_crc(a, a + BCN_ARCHIVE_HDR_LEN,
						  len - BCN_ARCHIVE_HDR_LEN), 4);
}

static int decode(const uint8_t *a, size_t len)
{
	return bcn_archive_decode(a, len, NULL, NULL, NULL, NULL);
}

static void test_truncated(void **state)
{
	struct bcn_buf a;

	(void)state;
	make_archive(&a);
	assert_int_equal(decode(a.data, a.len), 0);
	for (size_t n = 0; n < a.len; n++)
		assert_int_equal(decode(a.data, n), -BCN_ETRUNC);
	bcn_buf_free(&a);
}

static void test_flipped(void **state)
{
	struct bcn_buf a;

	(void)state;
	make_archive(&a);
	for (size_t i = 0; i < a.len; i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			a.data[i] ^= (uint8_t)(1u << bit);
			assert_true(decode(a.data, a.len) < 0);
			a.data[i] ^= (uint8_t)(1u << bit);
		}
	}
	assert_int_equal(decode(a.data, a.len), 0);
	bcn_buf_free(&a);
}

struct hcase {
	const char *name;
	unsigned off, width;            /* header field */
	int64_t delta;                  /* added to it */
	int reseal;
	int want;
};

static const struct hcase hcases[] = {
	{ "magic", ARC_H_MAGIC, 1, 1, 1, -BCN_EMAGIC },
	{ "version", ARC_H_VERSION, 2, 1, 1, -BCN_EVERSION },
	{ "record model", ARC_H_MODEL, 4, 1, 1, -BCN_EVERSION },
	{ "flags", ARC_H_FLAGS, 2, 1, 1, -BCN_ECORRUPT },
	{ "reserved", ARC_H_RESERVED, 4, 1, 1, -BCN_ECORRUPT },
	{ "records + 1", ARC_H_RECORDS, 8, 1, 1, -BCN_ECORRUPT },
	{ "records - 1", ARC_H_RECORDS, 8, -1, 1, -BCN_ECORRUPT },
	{ "records huge", ARC_H_RECORDS, 8, INT64_C(1) << 40, 1, -BCN_ETOOBIG },
	{ "nodes + 1", ARC_H_NODES, 4, 1, 1, -BCN_ECORRUPT },
	{ "nodes - 1", ARC_H_NODES, 4, -1, 1, -BCN_ECORRUPT },
	{ "groups + 1", ARC_H_GROUPS, 4, 1, 1, -BCN_ECORRUPT },
	{ "body + 1", ARC_H_RAW, 8, 1, 1, -BCN_ECORRUPT },
	{ "body - 1", ARC_H_RAW, 8, -1, 1, -BCN_ECORRUPT },
	{ "body huge", ARC_H_RAW, 8, INT64_C(1) << 40, 1, -BCN_ETOOBIG },
	{ "compressed + 1", ARC_H_ZLEN, 8, 1, 1, -BCN_ETRUNC },
	{ "compressed - 1", ARC_H_ZLEN, 8, -1, 1, -BCN_ECORRUPT },
	{ "job, not resealed", ARC_H_JOB, 8, 1, 0, -BCN_ECHECKSUM },
	{ "checksum", ARC_H_CRC, 4, 1, 0, -BCN_ECHECKSUM },
};

static void test_header(void **state)
{
	struct bcn_buf a;

	(void)state;
	make_archive(&a);
	for (size_t i = 0; i < sizeof(hcases) / sizeof(hcases[0]); i++) {
		const struct hcase *h = &hcases[i];
		uint8_t *copy = malloc(a.len);
		uint64_t v = arc_get_le(a.data + h->off, h->width);

		print_message("header: %s\n", h->name);
		memcpy(copy, a.data, a.len);
		arc_put_le(copy + h->off, v + (uint64_t)h->delta, h->width);
		if (h->reseal)
			reseal(copy, a.len);
		assert_int_equal(decode(copy, a.len), h->want);
		free(copy);
	}
	/* a byte after the archive */
	assert_int_equal(bcn_buf_add(&a, "", 1), 0);
	assert_int_equal(decode(a.data, a.len), -BCN_ECORRUPT);
	bcn_buf_free(&a);
}

static void test_limits(void **state)
{
	struct bcn_archive_stats st;
	struct bcn_archive_limits lim = BCN_ARCHIVE_LIMITS_DEFAULT;
	struct bcn_buf a;

	(void)state;
	make_archive(&a);
	assert_int_equal(bcn_archive_peek(a.data, a.len, &st), 0);
	assert_int_equal(st.job, JOB);
	assert_int_equal(st.nodes, 8);
	lim.max_records = st.records - 1;
	assert_int_equal(bcn_archive_decode(a.data, a.len, &lim, NULL, NULL,
					    NULL), -BCN_ETOOBIG);
	lim = (struct bcn_archive_limits)BCN_ARCHIVE_LIMITS_DEFAULT;
	lim.max_nodes = 7;
	assert_int_equal(bcn_archive_decode(a.data, a.len, &lim, NULL, NULL,
					    NULL), -BCN_ETOOBIG);
	lim = (struct bcn_archive_limits)BCN_ARCHIVE_LIMITS_DEFAULT;
	lim.max_body = st.body_raw - 1;
	assert_int_equal(bcn_archive_decode(a.data, a.len, &lim, NULL, NULL,
					    NULL), -BCN_ETOOBIG);
	/* too little memory is -BCN_ETOOBIG, up to what it needs */
	lim = (struct bcn_archive_limits)BCN_ARCHIVE_LIMITS_DEFAULT;
	for (lim.max_memory = 0;; lim.max_memory += 97) {
		int rc = bcn_archive_decode(a.data, a.len, &lim, NULL, NULL,
					    NULL);

		if (rc == 0)
			break;
		assert_int_equal(rc, -BCN_ETOOBIG);
	}
	print_message("memory: %" PRIu64 " bytes for a body of %" PRIu64 "\n",
		      lim.max_memory, st.body_raw);
	assert_true(lim.max_memory > st.body_raw);
	lim.max_memory = 1u << 20;
	assert_int_equal(bcn_archive_decode(a.data, a.len, &lim, NULL, NULL,
					    NULL), 0);
	bcn_buf_free(&a);
}

/* A callback's non-zero value stops the expansion and is returned. */
static int stop_at_3(void *arg, const struct bcn_record *r)
{
	int *n = arg;

	(void)r;
	return ++*n == 3 ? 77 : 0;
}

static void test_callback_stop(void **state)
{
	struct bcn_buf a;
	int n = 0;

	(void)state;
	make_archive(&a);
	assert_int_equal(bcn_archive_decode(a.data, a.len, NULL, stop_at_3, &n,
					    NULL), 77);
	assert_int_equal(n, 3);
	bcn_buf_free(&a);
}

/* ---- hand-made bodies ----------------------------------------------- */

struct bb {
	uint8_t d[8192];
	size_t n;
};

static void u(struct bb *b, uint64_t v)
{
	b->n += bcn_varint_put(b->d + b->n, v);
}

static void sv(struct bb *b, int64_t v)
{
	u(b, bcn_zigzag(v));
}

static void str(struct bb *b, const char *s, size_t n)
{
	u(b, n);
	memcpy(b->d + b->n, s, n);
	b->n += n;
}

/* Wraps a body into an archive as the encoder would. */
static size_t wrap(const struct bb *body, uint64_t records, uint64_t nodes,
		   uint64_t groups, uint8_t *out, size_t cap)
{
	uLongf zl = (uLongf)(cap - BCN_ARCHIVE_HDR_LEN);

	assert_int_equal(compress2(out + BCN_ARCHIVE_HDR_LEN, &zl, body->d,
				   body->n, 9), Z_OK);
	memset(out, 0, BCN_ARCHIVE_HDR_LEN);
	memcpy(out, BCN_ARCHIVE_MAGIC, 8);
	arc_put_le(out + ARC_H_VERSION, BCN_ARCHIVE_VERSION, 2);
	arc_put_le(out + ARC_H_MODEL, BCN_RECORD_VERSION, 4);
	arc_put_le(out + ARC_H_JOB, JOB, 8);
	arc_put_le(out + ARC_H_RECORDS, records, 8);
	arc_put_le(out + ARC_H_NODES, nodes, 4);
	arc_put_le(out + ARC_H_GROUPS, groups, 4);
	arc_put_le(out + ARC_H_RAW, body->n, 8);
	arc_put_le(out + ARC_H_ZLEN, zl, 8);
	reseal(out, BCN_ARCHIVE_HDR_LEN + zl);
	return BCN_ARCHIVE_HDR_LEN + zl;
}

enum mut {
	M_OK, M_NUM_OK, M_LIST_OK, M_EMPTY_NODE_OK, M_DUP_NODE, M_TWO_GROUPS,
	M_NO_GROUP, M_REL_FIRST, M_COL_RANGE, M_STR_IDX, M_NUM_WIDTH,
	M_T_ORDER, M_COUNT0, M_TRAIL, M_TYPE, M_ENUM, M_KIND, M_NUM_INT,
	M_STR_REL, M_LEN0, M_LEN_BIG, M_NUL_STR, M_BAD_EXPR, M_EXPR_MORE,
	M_UNKNOWN_NODE, M_EXTRA_RANGE, M_NUM_LONG,
};

#define IO_COL_PATH 8
#define IO_COL_RANK 4
#define IO_COL_COUNT 11

/* Two io writes on each of a1 and a2 (t 100 and 200, count 1, the
 * second position relative to the first), broken as mut says. */
static void body_of(enum mut mut, struct bb *b, uint64_t *nodes)
{
	static const char nul[] = { 'x', 0, 'y' };
	char longs[BCN_STR_MAX];

	memset(b, 0, sizeof(*b));
	memset(longs, 'l', sizeof(longs));
	*nodes = 2;
	/* string table */
	if (mut == M_NUM_OK || mut == M_NUM_WIDTH) {
		u(b, 1);
		str(b, "/f", 2);
	} else if (mut == M_NUL_STR) {
		u(b, 1);
		str(b, nul, 3);
	} else if (mut == M_NUM_LONG) {
		u(b, 1);
		str(b, longs, BCN_STR_MAX - 19);
	} else if (mut == M_DUP_NODE || mut == M_EMPTY_NODE_OK) {
		u(b, 1);
		str(b, mut == M_DUP_NODE ? "a1" : "zz", 2);
	} else {
		u(b, 0);
	}
	/* the job's node list */
	str(b, mut == M_BAD_EXPR ? "a[2-1]" : mut == M_EXPR_MORE ? "a[1-3]" :
	    "a[1-2]", 6);
	if (mut == M_DUP_NODE || mut == M_EMPTY_NODE_OK) {
		u(b, 2);
		u(b, mut == M_DUP_NODE ? 1 : 0);
		u(b, 1);
		*nodes = 4;
	} else {
		u(b, 0);
	}
	u(b, mut == M_TWO_GROUPS ? 2 : 1);
}

/* The group's node set and template. */
static void group_of(enum mut mut, struct bb *b)
{
	str(b, mut == M_NO_GROUP ? "a1" : mut == M_UNKNOWN_NODE ? "a[1,7]" :
	    "a[1-2]", mut == M_NO_GROUP ? 2 : 6);
	if (mut == M_EMPTY_NODE_OK) {
		u(b, 2);
		u(b, 2);
		u(b, 0);
	} else if (mut == M_EXTRA_RANGE) {
		u(b, 1);
		u(b, 5);
	} else {
		u(b, 0);
	}
	u(b, mut == M_LEN0 ? 0 : mut == M_LEN_BIG ? 3 : 2);
	for (int p = 0; p < 2; p++) {
		u(b, mut == M_TYPE ? 9 : BCN_REC_IO);
		u(b, mut == M_ENUM ? BCN_IO_OP_MAX : BCN_IO_WRITE);
		u(b, mut == M_COL_RANGE ? 15 : 1);              /* t */
		u(b, mut == M_REL_FIRST && p == 0 ? ARC_K_CONST | ARC_REL :
		  mut == M_KIND ? 7 : mut == M_NUM_INT ? ARC_K_NUM : ARC_K_CONST);
		sv(b, p == 0 ? 100 : mut == M_T_ORDER ? 50 : 200);
		if (mut == M_LIST_OK) {                         /* rank */
			u(b, IO_COL_RANK - ARC_COL_T);
			u(b, ARC_K_LIST);
			sv(b, 7);
			sv(b, -9);
		}
		if (mut == M_NUM_OK || mut == M_NUM_WIDTH || mut == M_STR_IDX ||
		    mut == M_STR_REL || mut == M_NUM_LONG) {
			u(b, IO_COL_PATH - (mut == M_LIST_OK ? IO_COL_RANK :
					    ARC_COL_T));
			if (mut == M_STR_IDX || mut == M_STR_REL) {
				u(b, mut == M_STR_IDX ? ARC_K_CONST :
				  ARC_K_CONST | ARC_REL);
				u(b, mut == M_STR_IDX ? 5 : 0);
			} else {
				u(b, ARC_K_NUM);
				u(b, 1);
				u(b, 0);
				u(b, mut == M_NUM_WIDTH ? 21 : 3);
				sv(b, 7);
				sv(b, 1);
			}
			u(b, IO_COL_COUNT - IO_COL_PATH);
		} else {
			u(b, IO_COL_COUNT - (mut == M_LIST_OK ? IO_COL_RANK :
					     ARC_COL_T));
		}
		if (mut == M_COUNT0) {
			b->n--;                 /* no count column */
		} else if (p == 0) {
			u(b, ARC_K_CONST);
			sv(b, 1);
		} else {
			u(b, ARC_K_ZERO | ARC_REL);
		}
		u(b, 0);
	}
	if (mut == M_TWO_GROUPS)
		group_of(M_NO_GROUP, b);
	if (mut == M_TRAIL)
		u(b, 0);
}

struct bcase {
	enum mut mut;
	const char *name;
	int want;
};

static const struct bcase bcases[] = {
	{ M_OK, "good", 0 },
	{ M_NUM_OK, "numbered path", 0 },
	{ M_LIST_OK, "rank list", 0 },
	{ M_EMPTY_NODE_OK, "empty node name", 0 },
	{ M_DUP_NODE, "node listed twice", -BCN_ECORRUPT },
	{ M_TWO_GROUPS, "node in two groups", -BCN_ECORRUPT },
	{ M_NO_GROUP, "node in no group", -BCN_ECORRUPT },
	{ M_REL_FIRST, "relative without a record before", -BCN_ECORRUPT },
	{ M_COL_RANGE, "column out of range", -BCN_ECORRUPT },
	{ M_STR_IDX, "string index out of range", -BCN_ECORRUPT },
	{ M_NUM_WIDTH, "number width 21", -BCN_ECORRUPT },
	{ M_NUM_LONG, "numbered string too long", -BCN_ECORRUPT },
	{ M_T_ORDER, "a node's records out of time order", -BCN_ECORRUPT },
	{ M_COUNT0, "io count 0", -BCN_ECORRUPT },
	{ M_TRAIL, "a byte after the groups", -BCN_ECORRUPT },
	{ M_TYPE, "unknown record type", -BCN_ECORRUPT },
	{ M_ENUM, "enumeration out of range", -BCN_ECORRUPT },
	{ M_KIND, "unknown column code", -BCN_ECORRUPT },
	{ M_NUM_INT, "numbered integer", -BCN_ECORRUPT },
	{ M_STR_REL, "relative string", -BCN_ECORRUPT },
	{ M_LEN0, "empty template", -BCN_ECORRUPT },
	{ M_LEN_BIG, "more records than the header", -BCN_ECORRUPT },
	{ M_NUL_STR, "NUL in a string", -BCN_ECORRUPT },
	{ M_BAD_EXPR, "bad hostlist", -BCN_ECORRUPT },
	{ M_EXPR_MORE, "more nodes than the header", -BCN_ECORRUPT },
	{ M_UNKNOWN_NODE, "group names an unknown node", -BCN_ECORRUPT },
	{ M_EXTRA_RANGE, "node index out of range", -BCN_ECORRUPT },
};

static void check_good(enum mut mut, const struct bcn_recset *got)
{
	for (size_t i = 0; i < got->n; i++) {
		const struct bcn_record *r = &got->recs[i];

		assert_int_equal(r->type, BCN_REC_IO);
		assert_int_equal(r->job, JOB);
		assert_int_equal(r->u.io.count, 1);
		assert_int_equal(r->u.io.op, BCN_IO_WRITE);
		assert_int_equal(r->t, i % 2 ? 200 : 100);
		if (mut == M_NUM_OK)
			assert_string_equal(r->u.io.path, i < 2 ? "/f007" :
					    "/f008");
		if (mut == M_LIST_OK)
			assert_int_equal(r->u.io.rank, i < 2 ? 7 : -2);
	}
	if (mut == M_EMPTY_NODE_OK)
		assert_string_equal(got->recs[0].node, "");
}

static void test_bodies(void **state)
{
	static uint8_t a[16384];

	(void)state;
	for (size_t i = 0; i < sizeof(bcases) / sizeof(bcases[0]); i++) {
		const struct bcase *c = &bcases[i];
		struct order o;
		struct bb b;
		uint64_t nodes;
		size_t len;
		int rc;

		print_message("body: %s\n", c->name);
		body_of(c->mut, &b, &nodes);
		group_of(c->mut, &b);
		len = wrap(&b, 2 * nodes, nodes, c->mut == M_TWO_GROUPS ? 2 : 1,
			   a, sizeof(a));
		memset(&o, 0, sizeof(o));
		bcn_recset_init(&o.got, 16);
		rc = bcn_archive_decode(a, len, NULL, collect, &o, NULL);
		assert_int_equal(rc, c->want);
		if (rc == 0) {
			assert_int_equal(o.got.n, 2 * nodes);
			assert_int_equal(o.bad, 0);
			check_good(c->mut, &o.got);
		} else {
			assert_int_equal(o.got.n, 0);   /* nothing handed out */
		}
		bcn_recset_free(&o.got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_input_order),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_frame_bytes),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_callback_stop),
		cmocka_unit_test(test_bodies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
