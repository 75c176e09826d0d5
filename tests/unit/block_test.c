/* Tests of the record block codec (store/block.c): round trips of every
 * record type with extreme values, identities and times in any order,
 * and blocks that are damaged, truncated, of another version or beyond
 * the reader's limits, refused with the matching error. Records are
 * compared through their JSON form (bcn_record_to_json), which writes
 * every field. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/error.h"
#include "proto/record.h"
#include "store/block.h"
#include "recgen.h"

#define NREC 600
#define NPOOL(a) (sizeof(a) / sizeof((a)[0]))

static const char *const strpool[] = {
	"", "lustre-OST0000", "lustre-OST0001", "10.0.0.1@tcp", "slurm.42",
	"/scratch/a very long path/\xc3\xa9t\xc3\xa9", "x",
};
static const char *const nodes[] = { "cn1", "cn2", "oss-07", "n" };

struct set {
	struct bcn_record rec[NREC];
	struct bcn_block_item it[NREC];
	size_t n;
};

/* n random records of every type, in the order given by mode: 0 sorted by
 * t, 1 random t and seq (descending, wrapping, equal). */
static void make_set(struct set *s, size_t n, int mode, uint64_t seed)
{
	struct recgen g = { seed, strpool, NPOOL(strpool), 1 };
	int64_t t = 1704844800ll * 1000000000ll;

	s->n = n;
	for (size_t i = 0; i < n; i++) {
		struct bcn_record *r = &s->rec[i];

		bcn_record_init(r, (enum bcn_rec_type)(1 + i % (BCN_REC_TYPE_MAX - 1)));
		recgen_fields(&g, r);
		r->node = nodes[recgen_next(&g) % NPOOL(nodes)];
		if (mode == 0) {
			t += (int64_t)(recgen_next(&g) % 3) * 10000000000ll;
			r->t = t;
		} else {
			r->t = (int64_t)recgen_u64(&g);
		}
		s->it[i].rec = r;
		s->it[i].seq = mode == 0 ? 100 + i / 7 : recgen_u64(&g);
		s->it[i].idx = mode == 0 ? (uint32_t)(i % 7) :
			       (uint32_t)recgen_next(&g);
	}
}

static void json_of(const struct bcn_record *r, struct bcn_buf *b)
{
	bcn_buf_reset(b);
	assert_int_equal(bcn_record_to_json(r, b), 0);
	assert_int_equal(bcn_buf_add(b, "", 1), 0);
}

/* Decodes blk and checks it holds exactly the set, in order. */
static void check_block(const struct bcn_buf *blk, const struct set *s)
{
	static const struct bcn_block_limits lim = BCN_BLOCK_LIMITS_DEFAULT;
	struct bcn_block_reader *b;
	struct bcn_buf x, y;
	struct bcn_record r;
	uint64_t seq;
	uint32_t idx;

	bcn_buf_init(&x, 1 << 20);
	bcn_buf_init(&y, 1 << 20);
	assert_int_equal(bcn_block_open(blk->data, blk->len, &lim, &b), 0);
	assert_int_equal(bcn_block_count(b), s->n);
	for (size_t i = 0; i < s->n; i++) {
		assert_int_equal(bcn_block_next(b, &r, &seq, &idx), 1);
		assert_int_equal(seq, s->it[i].seq);
		assert_int_equal(idx, s->it[i].idx);
		assert_int_equal(r.t, s->rec[i].t);
		assert_string_equal(r.node, s->rec[i].node);
		json_of(&r, &x);
		json_of(&s->rec[i], &y);
		assert_string_equal((char *)x.data, (char *)y.data);
	}
	assert_int_equal(bcn_block_next(b, &r, &seq, &idx), 0);
	bcn_block_close(b);
	bcn_buf_free(&x);
	bcn_buf_free(&y);
}

static void test_roundtrip(void **state)
{
	static struct set s;
	struct bcn_block_enc *e;
	struct bcn_buf blk;

	(void)state;
	assert_int_equal(bcn_block_enc_new(3, &e), 0);
	bcn_buf_init(&blk, BCN_BLOCK_RAW_MAX);
	for (int mode = 0; mode < 2; mode++) {
		for (uint64_t seed = 1; seed < 6; seed++) {
			make_set(&s, seed == 1 ? 1 : NREC, mode, seed * 7919);
			bcn_buf_reset(&blk);
			assert_int_equal(bcn_block_encode(e, s.it, s.n, &blk), 0);
			check_block(&blk, &s);
		}
	}
	bcn_buf_free(&blk);
	bcn_block_enc_free(e);
}

/* Regular records (one entity, constant dur, t every 10 s, consecutive
 * identities) compress to a few bytes each. */
static void test_small(void **state)
{
	static struct set s;
	struct bcn_block_enc *e;
	struct bcn_buf blk;

	(void)state;
	s.n = 360;
	for (size_t i = 0; i < s.n; i++) {
		struct bcn_record *r = &s.rec[i];

		bcn_record_init(r, BCN_REC_OST);
		r->node = "oss1";
		r->t = 1704844800ll * 1000000000ll + (int64_t)i * 10000000000ll;
		r->dur = 10000000000ll;
		r->u.ost.target = "lustre-OST0003";
		r->u.ost.read_bytes = 1000000 + i * 4096;
		r->u.ost.ops[BCN_OST_READ] = 100 + i % 5;
		s.it[i] = (struct bcn_block_item){ r, 5000 + i, 0 };
	}
	assert_int_equal(bcn_block_enc_new(3, &e), 0);
	bcn_buf_init(&blk, BCN_BLOCK_RAW_MAX);
	assert_int_equal(bcn_block_encode(e, s.it, s.n, &blk), 0);
	check_block(&blk, &s);
	assert_true(blk.len < 4 * s.n);
	bcn_buf_free(&blk);
	bcn_block_enc_free(e);
}

static int open_read_all(const uint8_t *p, size_t len,
			 const struct bcn_block_limits *lim)
{
	struct bcn_block_reader *b;
	struct bcn_record r;
	uint64_t seq;
	uint32_t idx;
	int rc = bcn_block_open(p, len, lim, &b);

	if (rc)
		return rc;
	while ((rc = bcn_block_next(b, &r, &seq, &idx)) == 1)
		;
	bcn_block_close(b);
	return rc;
}

/* Every damage to a block is detected: a flipped byte anywhere (or
 * it does not change what the block holds), a cut anywhere, another version, another magic, claims beyond the limits. */
static void test_damaged(void **state)
{
	static const struct bcn_block_limits lim = BCN_BLOCK_LIMITS_DEFAULT;
	static struct set s;
	struct bcn_block_limits small = lim;
	struct bcn_block_enc *e;
	struct bcn_buf blk;
	uint8_t *copy;

	(void)state;
	make_set(&s, 50, 0, 99);
	assert_int_equal(bcn_block_enc_new(3, &e), 0);
	bcn_buf_init(&blk, BCN_BLOCK_RAW_MAX);
	assert_int_equal(bcn_block_encode(e, s.it, s.n, &blk), 0);
	copy = malloc(blk.len);
	assert_non_null(copy);
	for (size_t i = 0; i < blk.len; i++) {
		memcpy(copy, blk.data, blk.len);
		copy[i] ^= 0x5a;
		/* refused, or a change zstd ignores (the content and its
		 * checksum stay the same): then the records are the same */
		if (open_read_all(copy, blk.len, &lim) >= 0) {
			struct bcn_buf alt = { copy, blk.len, blk.len, blk.len };

			check_block(&alt, &s);
		}
	}
	for (size_t len = 0; len < blk.len; len++)
		assert_true(open_read_all(blk.data, len, &lim) < 0);
	memcpy(copy, blk.data, blk.len);
	copy[2] = BCN_BLOCK_VERSION + 1;
	assert_int_equal(open_read_all(copy, blk.len, &lim), -BCN_EVERSION);
	copy[2] = BCN_BLOCK_VERSION;
	copy[0] = 'X';
	assert_int_equal(open_read_all(copy, blk.len, &lim), -BCN_EMAGIC);
	small.max_records = 49;
	assert_int_equal(open_read_all(blk.data, blk.len, &small), -BCN_ETOOBIG);
	small = lim;
	small.max_raw = 100;
	assert_int_equal(open_read_all(blk.data, blk.len, &small), -BCN_ETOOBIG);
	small = lim;
	small.max_dict = 2;
	assert_int_equal(open_read_all(blk.data, blk.len, &small), -BCN_ETOOBIG);
	assert_int_equal(open_read_all(blk.data, blk.len, &lim), 0);
	free(copy);
	bcn_buf_free(&blk);
	bcn_block_enc_free(e);
}

/* Bad input to the encoder is refused, the output left as it was. */
static void test_encode_invalid(void **state)
{
	struct bcn_block_enc *e;
	struct bcn_record r;
	struct bcn_block_item it = { &r, 1, 0 };
	struct bcn_buf blk;

	(void)state;
	assert_int_equal(bcn_block_enc_new(3, &e), 0);
	bcn_buf_init(&blk, BCN_BLOCK_RAW_MAX);
	bcn_record_init(&r, BCN_REC_OST);
	assert_int_equal(bcn_block_encode(e, &it, 0, &blk), -EINVAL);
	r.node = "";
	assert_int_equal(bcn_block_encode(e, &it, 1, &blk), -EINVAL);
	r.node = "oss1";
	r.dur = -1;
	assert_int_equal(bcn_block_encode(e, &it, 1, &blk), -BCN_ERANGE);
	assert_int_equal(blk.len, 0);
	bcn_buf_free(&blk);
	bcn_block_enc_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_encode_invalid),
	};

	return cmocka_run_group_tests_name("block", tests, NULL, NULL);
}
