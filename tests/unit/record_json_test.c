/* Unit tests of store/record_json: bcn_record_from_json against
 * bcn_record_to_json for every type with random and extreme values, key
 * order as OpenSearch returns it, each kind of malformed input, the arena
 * and the loader that keeps uint64 values above INT64_MAX exact. */
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

#include "common/buf.h"
#include "common/error.h"
#include "proto/record.h"
#include "store/record_json.h"
#include "recgen.h"

#define ROUNDS 300
#define TEXT_MAX (1u << 20)

/* Strings with every character class JSON escapes, and non-ASCII. */
static const char *const strs[] = {
	"", "lustre-OST0003", "\"q\" \\ /", "tab\there\nnl\x01\x1f\x7f",
	"узел", "日本語 ✓ 😀", "/scratch/a b/c",
};

static char long_str[BCN_STR_MAX + 1];
/* the strings above, and one of the longest a record may carry */
static const char *pool[8];
static struct recgen gen = { 0x9e3779b97f4a7c15ull, pool, 8, 1 };

static uint64_t rnd(void)
{
	return recgen_next(&gen);
}

static void fill(struct bcn_record *r)
{
	if (!pool[0]) {
		for (int i = 0; i < 7; i++)
			pool[i] = strs[i];
		pool[7] = long_str;
	}
	r->node = strs[rnd() % 7];
	r->t = (int64_t)recgen_u64(&gen);
	recgen_fields(&gen, r);
}

static struct bcn_record_arena arena;

/* to_json, from_json, to_json again: the same text. */
static void roundtrip(const struct bcn_record *r)
{
	struct bcn_buf a, b;
	struct bcn_record back;
	char err[256] = "";
	int rc;

	bcn_buf_init(&a, TEXT_MAX);
	bcn_buf_init(&b, TEXT_MAX);
	assert_int_equal(bcn_record_to_json(r, &a), 0);
	bcn_record_arena_reset(&arena);
	rc = bcn_record_from_json((const char *)a.data, a.len, &arena, &back,
				  err, sizeof(err));
	if (rc)
		fail_msg("%s: %s\n%.*s", bcn_strerror(rc), err, (int)a.len,
			 (const char *)a.data);
	assert_int_equal(bcn_record_to_json(&back, &b), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	assert_int_equal(back.t, r->t);
	assert_int_equal(back.job, r->job);
	bcn_buf_free(&a);
	bcn_buf_free(&b);
}

static void test_roundtrip_random(void **state)
{
	struct bcn_record r;

	(void)state;
	memset(long_str, 'x', BCN_STR_MAX);
	memcpy(long_str, "\"\\\n", 3);
	for (int type = 1; type < BCN_REC_TYPE_MAX; type++) {
		for (int i = 0; i < ROUNDS; i++) {
			bcn_record_init(&r, (enum bcn_rec_type)type);
			fill(&r);
			assert_int_equal(bcn_record_check(&r), 0);
			roundtrip(&r);
		}
	}
}

/* All zero (empty vectors and histograms) and all extreme. */
static void test_roundtrip_extremes(void **state)
{
	struct bcn_record r;

	(void)state;
	for (int type = 1; type < BCN_REC_TYPE_MAX; type++) {
		const struct bcn_record_desc *d = bcn_record_desc(type);

		bcn_record_init(&r, (enum bcn_rec_type)type);
		r.node = "n";
		roundtrip(&r);
		r.t = INT64_MIN;
		r.dur = INT64_MAX;
		r.job = UINT64_MAX;
		for (size_t i = 0; i < d->nfields; i++) {
			const struct bcn_field *f = &d->fields[i];
			char *p = (char *)&r + f->offset;

			if (f->kind == BCN_F_U64)
				*(uint64_t *)p = UINT64_MAX;
			else if (f->kind == BCN_F_I64)
				*(int64_t *)p = INT64_MIN;
			else if (f->kind == BCN_F_ENUM)
				*(uint64_t *)p = f->n - 1u;
			else if (f->kind == BCN_F_VEC)
				for (unsigned k = 0; k < f->n; k++)
					((uint64_t *)p)[k] = UINT64_MAX - k;
			else if (f->kind == BCN_F_DIST)
				memset(p, 0xff, sizeof(struct bcn_dist));
		}
		if (type == BCN_REC_IO)
			r.u.io.count = UINT64_MAX;
		roundtrip(&r);
	}
}

/* A record as OpenSearch returns it with _source filtering: keys in
 * another order (tests/data/opensearch/search_ost.json). */
static void test_reordered_keys(void **state)
{
	static const char text[] =
		"{\"dur\":1000000000,\"iotime_write\":[],\"write_bytes\":0,"
		"\"pages_write\":[],\"type\":\"ost\",\"read_bytes\":"
		"9223372036854775813,\"layer\":\"ost\",\"target\":"
		"\"lustre-OST0003\",\"node\":\"\xd1\x83\xd0\xb7\xd0\xb5\xd0\xbb-7\","
		"\"jobid\":\"\",\"iotime_read\":[],\"ops\":{\"read\":17},\"t\":"
		"1704859200123456789,\"client\":\"\",\"pages_read\":[],\"job\":"
		"18446744073709551615}";
	struct bcn_record r;
	char err[256];

	(void)state;
	bcn_record_arena_reset(&arena);
	assert_int_equal(bcn_record_from_json(text, strlen(text), &arena, &r,
					      err, sizeof(err)), 0);
	assert_int_equal(r.type, BCN_REC_OST);
	assert_string_equal(r.node, "узел-7");
	assert_int_equal(r.t, 1704859200123456789ll);
	assert_int_equal(r.job, UINT64_MAX);
	assert_int_equal(r.u.ost.read_bytes, (1ull << 63) + 5);
	assert_int_equal(r.u.ost.ops[BCN_OST_READ], 17);
	assert_int_equal(r.u.ost.ops[BCN_OST_WRITE], 0);
	assert_string_equal(r.u.ost.target, "lustre-OST0003");
	assert_string_equal(r.u.ost.client, "");
}

#define IO_HEAD "{\"type\":\"io\",\"layer\":\"client\",\"node\":\"n\",\"t\":1,\"dur\":2,\"job\":3,"
#define IO_TAIL "\"step\":0,\"rank\":-1,\"pid\":0,\"op\":\"read\",\"fd\":-1,\"file\":0," \
	"\"path\":\"\",\"offset\":0,\"size\":0,\"count\":1,\"stride\":0,\"busy\":0}"

struct bad_case {
	const char *text;
	int rc;
	const char *msg;                /* a part of the error message */
};

/* Malformed records: the text, the code and a part of the message. */
static const struct bad_case cases[] = {
	{ "", -BCN_ESYNTAX, "JSON" },
	{ "{", -BCN_ESYNTAX, "JSON" },
	{ "[]", -BCN_ECORRUPT, "not an object" },
	{ "{\"layer\":\"client\"}", -BCN_ECORRUPT, "type" },
	{ "{\"type\":\"nope\"}", -BCN_ECORRUPT, "type" },
	{ "{\"type\":7}", -BCN_ECORRUPT, "type" },
	{ IO_HEAD IO_TAIL "x", -BCN_ESYNTAX, "JSON" },
	{ IO_HEAD "\"extra\":1," IO_TAIL, -BCN_ECORRUPT, "\"extra\"" },
	{ "{\"type\":\"io\",\"layer\":\"client\",\"node\":\"n\",\"t\":1,"
	  "\"job\":3," IO_TAIL, -BCN_ECORRUPT, "keys" },
	{ "{\"type\":\"io\",\"layer\":\"ost\",\"node\":\"n\",\"t\":1,"
	  "\"dur\":2,\"job\":3," IO_TAIL, -BCN_ERANGE, "\"layer\"" },
	{ "{\"type\":\"io\",\"layer\":\"client\",\"node\":5,\"t\":1,"
	  "\"dur\":2,\"job\":3," IO_TAIL, -BCN_ECORRUPT, "\"node\"" },
	{ IO_HEAD "\"step\":-1,\"rank\":-1,\"pid\":0,\"op\":\"read\","
	  "\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,\"size\":0,"
	  "\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ERANGE, "\"step\"" },
	{ IO_HEAD "\"step\":1.5,\"rank\":-1,\"pid\":0,\"op\":\"read\","
	  "\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,\"size\":0,"
	  "\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ECORRUPT, "\"step\"" },
	{ IO_HEAD "\"step\":18446744073709551616,\"rank\":-1,\"pid\":0,"
	  "\"op\":\"read\",\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,"
	  "\"size\":0,\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ESYNTAX,
	  "too big" },
	{ IO_HEAD "\"step\":\"12\",\"rank\":-1,\"pid\":0,\"op\":\"read\","
	  "\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,\"size\":0,"
	  "\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ERANGE, "\"step\"" },
	{ IO_HEAD "\"step\":0,\"rank\":9223372036854775808,\"pid\":0,"
	  "\"op\":\"read\",\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,"
	  "\"size\":0,\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ECORRUPT,
	  "\"rank\"" },
	{ IO_HEAD "\"step\":0,\"rank\":-1,\"pid\":0,\"op\":\"fly\","
	  "\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,\"size\":0,"
	  "\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ERANGE, "\"op\"" },
	{ IO_HEAD "\"step\":0,\"rank\":-1,\"pid\":0,\"op\":3,"
	  "\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,\"size\":0,"
	  "\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ECORRUPT, "\"op\"" },
	{ IO_HEAD "\"step\":0,\"rank\":-1,\"pid\":0,\"op\":\"read\","
	  "\"fd\":-1,\"file\":0,\"path\":\"a\\u0000b\",\"offset\":0,"
	  "\"size\":0,\"count\":1,\"stride\":0,\"busy\":0}", -BCN_ESYNTAX,
	  "JSON" },
	{ IO_HEAD "\"step\":0,\"rank\":-1,\"pid\":0,\"op\":\"read\","
	  "\"fd\":-1,\"file\":0,\"path\":\"\",\"offset\":0,\"size\":0,"
	  "\"count\":0,\"stride\":0,\"busy\":0}", -BCN_ERANGE, "range" },
	{ "{\"type\":\"io\",\"layer\":\"client\",\"node\":\"n\",\"t\":1,"
	  "\"dur\":-2,\"job\":3," IO_TAIL, -BCN_ERANGE, "range" },
	{ IO_HEAD "\"step\":0," IO_TAIL, -BCN_ESYNTAX, "duplicate" },
	{ "{\"type\":\"mds\",\"layer\":\"mds\",\"node\":\"n\",\"t\":1,"
	  "\"dur\":2,\"job\":3,\"target\":\"\",\"client\":\"\","
	  "\"jobid\":\"\",\"ops\":{\"fly\":1}}", -BCN_ERANGE, "\"ops\"" },
	{ "{\"type\":\"mds\",\"layer\":\"mds\",\"node\":\"n\",\"t\":1,"
	  "\"dur\":2,\"job\":3,\"target\":\"\",\"client\":\"\","
	  "\"jobid\":\"\",\"ops\":[1]}", -BCN_ECORRUPT, "\"ops\"" },
	{ "{\"type\":\"fwd_rpc\",\"layer\":\"forward\",\"node\":\"n\","
	  "\"t\":1,\"dur\":2,\"job\":3,\"target\":\"\",\"read_rpcs\":0,"
	  "\"write_rpcs\":0,\"read_bytes\":0,\"write_bytes\":0,"
	  "\"in_flight\":0,\"pending_pages\":0,\"pages_read\":[1,2,3,4,5,6,"
	  "7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,"
	  "29,30,31,32,33],\"pages_write\":[],\"flight_read\":[],"
	  "\"flight_write\":[]}", -BCN_ERANGE, "\"pages_read\"" },
	{ "{\"type\":\"fwd_req\",\"layer\":\"forward\",\"node\":\"n\","
	  "\"t\":1,\"dur\":2,\"job\":3,\"class\":\"all\",\"count\":0,"
	  "\"bytes\":0,\"latency\":{\"count\":0,\"sum\":0,\"min\":0,"
	  "\"max\":0,\"p50\":0,\"p95\":0,\"p99\":0,\"hist\":[]},\"proc\":"
	  "{\"count\":0,\"sum\":0,\"min\":0,\"max\":0,\"p50\":0,\"p95\":0,"
	  "\"hist\":[]},\"queue\":{\"count\":0,\"sum\":0,\"min\":0,\"max\":0,"
	  "\"p50\":0,\"p95\":0,\"p99\":0,\"hist\":[]}}", -BCN_ECORRUPT,
	  "\"proc\"" },
};

static void test_malformed(void **state)
{
	struct bcn_record r;
	char err[256];
	int rc;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		bcn_record_arena_reset(&arena);
		rc = bcn_record_from_json(cases[i].text, strlen(cases[i].text),
					  &arena, &r, err, sizeof(err));
		if (rc != cases[i].rc || !strstr(err, cases[i].msg))
			fail_msg("case %zu: %d (%s), want %d with \"%s\"", i, rc,
				 err, cases[i].rc, cases[i].msg);
	}
}

/* The string of exactly BCN_STR_MAX bytes passes, one more fails. */
static void test_string_limit(void **state)
{
	struct bcn_buf text;
	struct bcn_record r;
	char err[256];

	(void)state;
	bcn_buf_init(&text, TEXT_MAX);
	for (int extra = 0; extra < 2; extra++) {
		bcn_buf_reset(&text);
		assert_int_equal(bcn_buf_adds(&text, IO_HEAD "\"step\":0,\"rank\":-1,"
			"\"pid\":0,\"op\":\"read\",\"fd\":-1,\"file\":0,\"path\":\""), 0);
		for (int i = 0; i < BCN_STR_MAX + extra; i++)
			assert_int_equal(bcn_buf_add(&text, "p", 1), 0);
		assert_int_equal(bcn_buf_adds(&text, "\",\"offset\":0,\"size\":0,"
			"\"count\":1,\"stride\":0,\"busy\":0}"), 0);
		bcn_record_arena_reset(&arena);
		assert_int_equal(bcn_record_from_json((const char *)text.data,
						      text.len, &arena, &r, err,
						      sizeof(err)),
				 extra ? -BCN_ERANGE : 0);
		if (!extra)
			assert_int_equal(strlen(r.u.io.path), BCN_STR_MAX);
	}
	bcn_buf_free(&text);
}

/* Strings stay valid until the arena is reset; a full arena says so. */
static void test_arena(void **state)
{
	static char s[BCN_STR_MAX + 1];
	struct bcn_record r, back[4];
	struct bcn_buf text;
	char err[256];
	int rc = 0, n;

	(void)state;
	memset(s, 'j', BCN_STR_MAX);
	bcn_record_init(&r, BCN_REC_JOB);
	r.node = s;
	r.u.job.user = r.u.job.name = r.u.job.partition = s;
	r.u.job.nodelist = r.u.job.state = s;
	bcn_buf_init(&text, TEXT_MAX);
	assert_int_equal(bcn_record_to_json(&r, &text), 0);
	bcn_record_arena_reset(&arena);
	for (n = 0; n < 4; n++) {
		rc = bcn_record_from_json((const char *)text.data, text.len,
					  &arena, &back[n], err, sizeof(err));
		if (rc)
			break;
	}
	assert_int_equal(rc, -BCN_EFULL);
	assert_int_equal(n, 1);         /* 6 strings of 4 KiB: one record */
	assert_int_equal(strlen(back[0].u.job.state), BCN_STR_MAX);
	assert_string_equal(back[0].u.job.user, s);
	bcn_record_arena_reset(&arena);
	assert_int_equal(bcn_record_from_json((const char *)text.data, text.len,
					      &arena, &back[1], err,
					      sizeof(err)), 0);
	bcn_buf_free(&text);
}

static json_t *load_ok(const char *text)
{
	json_t *v = NULL;
	char err[256];
	int rc = bcn_json_load(text, strlen(text), &v, err, sizeof(err));

	if (rc)
		fail_msg("%s: %s", text, err);
	return v;
}

/* Big unsigned values become strings only where a value stands. */
static void test_loader(void **state)
{
	static const char *const bad[] = {
		"{18446744073709551615:1}", "[1 18446744073709551615]",
		"18446744073709551616", "[-9223372036854775809]",
		"[018446744073709551615]", "true18446744073709551615",
	};
	json_t *v;
	uint64_t u;

	(void)state;
	v = load_ok(" [18446744073709551615, 9223372036854775807,\n"
		    "9223372036854775808,-9223372036854775808,\"x 18446744073709551615\","
		    "{\"a\":[{\"b\":10000000000000000000}]},0,1e30]");
	assert_true(json_is_string(json_array_get(v, 0)));
	assert_int_equal(bcn_json_u64(json_array_get(v, 0), &u), 0);
	assert_int_equal(u, UINT64_MAX);
	assert_true(json_is_integer(json_array_get(v, 1)));
	assert_int_equal(bcn_json_u64(json_array_get(v, 1), &u), 0);
	assert_int_equal(u, INT64_MAX);
	assert_int_equal(bcn_json_u64(json_array_get(v, 2), &u), 0);
	assert_int_equal(u, 1ull << 63);
	assert_int_equal(json_integer_value(json_array_get(v, 3)), INT64_MIN);
	assert_int_equal(bcn_json_u64(json_array_get(v, 3), &u), -BCN_ERANGE);
	assert_string_equal(json_string_value(json_array_get(v, 4)),
			    "x 18446744073709551615");
	assert_int_equal(bcn_json_u64(json_array_get(v, 4), &u), -BCN_ERANGE);
	assert_int_equal(bcn_json_u64(json_object_get(json_array_get(
		json_object_get(json_array_get(v, 5), "a"), 0), "b"), &u), 0);
	assert_int_equal(u, 10000000000000000000ull);
	assert_true(json_is_real(json_array_get(v, 7)));
	assert_int_equal(bcn_json_u64(json_array_get(v, 7), &u), -BCN_ERANGE);
	json_decref(v);
	/* strings that only look like big values are no uint64 */
	v = load_ok("[\"9223372036854775807\",\"018446744073709551615\","
		    "\"18446744073709551616\",\"+9223372036854775808\"]");
	for (size_t i = 0; i < json_array_size(v); i++)
		assert_int_equal(bcn_json_u64(json_array_get(v, i), &u),
				 -BCN_ERANGE);
	json_decref(v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = NULL;
		assert_int_equal(bcn_json_load(bad[i], strlen(bad[i]), &v, NULL,
					       0), -BCN_ESYNTAX);
		assert_null(v);
	}
}

/* Nesting: deep documents load, deeper than jansson's limit fail. */
static void test_loader_depth(void **state)
{
	struct bcn_buf b;
	json_t *v = NULL;

	(void)state;
	bcn_buf_init(&b, TEXT_MAX);
	for (int depth = 100; depth <= BCN_JSON_MAX_DEPTH + 10;
	     depth += BCN_JSON_MAX_DEPTH) {
		bcn_buf_reset(&b);
		for (int i = 0; i < depth; i++)
			assert_int_equal(bcn_buf_add(&b, "[", 1), 0);
		assert_int_equal(bcn_buf_adds(&b, "18446744073709551615"), 0);
		for (int i = 0; i < depth; i++)
			assert_int_equal(bcn_buf_add(&b, "]", 1), 0);
		if (depth <= BCN_JSON_MAX_DEPTH) {
			assert_int_equal(bcn_json_load((const char *)b.data, b.len,
						       &v, NULL, 0), 0);
			json_decref(v);
		} else {
			assert_int_equal(bcn_json_load((const char *)b.data, b.len,
						       &v, NULL, 0), -BCN_ESYNTAX);
		}
	}
	bcn_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_roundtrip_extremes),
		cmocka_unit_test(test_reordered_keys),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_string_limit),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_loader),
		cmocka_unit_test(test_loader_depth),
	};

	return cmocka_run_group_tests_name("record_json", tests, NULL, NULL);
}
