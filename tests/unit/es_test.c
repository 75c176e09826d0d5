/* Unit tests of the OpenSearch backend's pure parts: names, identities,
 * UTF-8 repair, request bodies (store/es_build.c) and the response parsers
 * (store/es_parse.c) over responses a real OpenSearch 2.19 gave
 * (tests/data/opensearch/, see PROVENANCE.md). */
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
#include <unistd.h>

#include <jansson.h>

#include "common/utf8.h"
#include "common/buf.h"
#include "common/error.h"
#include "store/es_build.h"
#include "store/es_http.h"
#include "store/es_parse.h"
#include "store/record_json.h"

#define DATA BCN_TEST_DATA "/opensearch/"
#define SEC 1000000000ll
#define DAY BCN_STORE_DAY_NS
#define BASE (1704844800ll * SEC)       /* 2024-01-10T00:00:00Z */
#define FILE_MAX (1u << 20)

static struct bcn_buf file;

static const char *load(const char *name)
{
	char path[512];
	int rc;

	snprintf(path, sizeof(path), DATA "%s", name);
	bcn_buf_free(&file);
	bcn_buf_init(&file, FILE_MAX);
	rc = bcn_buf_read_file(&file, path);
	if (rc)
		fail_msg("%s: %s", path, bcn_strerror(rc));
	return (const char *)file.data;
}

static json_t *parse_json(const struct bcn_buf *b, size_t from)
{
	json_t *v = NULL;
	char err[256];

	if (bcn_json_load((const char *)b->data + from, b->len - from, &v, err,
			  sizeof(err)))
		fail_msg("not JSON: %s: %.*s", err, (int)(b->len - from),
			 (const char *)b->data + from);
	return v;
}

static void test_prefix(void **state)
{
	static const char *const good[] = { "beacon", "b", "bcn_2.x-y", "9a" };
	static const char *const bad[] = {
		"", "Beacon", "-b", "_b", ".b", "b c", "b*", "b,c", "b/c",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(bcn_es_check_prefix(good[i]), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(bcn_es_check_prefix(bad[i]), -EINVAL);
}

static void test_index_names(void **state)
{
	char name[BCN_ES_INDEX_MAX];
	int64_t day;
	int layer;

	(void)state;
	assert_int_equal(bcn_es_index_name("beacon", BCN_LAYER_OST, BASE, name,
					   sizeof(name)), 0);
	assert_string_equal(name, "beacon-ost-2024.01.10");
	assert_int_equal(bcn_es_index_name("b", BCN_LAYER_CLIENT, BASE - 1, name,
					   sizeof(name)), 0);
	assert_string_equal(name, "b-client-2024.01.09");
	assert_int_equal(bcn_es_index_name("b", BCN_LAYER_SWITCH, -1, name,
					   sizeof(name)), 0);
	assert_string_equal(name, "b-switch-1969.12.31");
	assert_int_equal(bcn_es_index_name("b", BCN_LAYER_JOB, INT64_MAX, name,
					   sizeof(name)), 0);
	assert_string_equal(name, "b-job-2262.04.11");
	assert_int_equal(bcn_es_index_name("b", BCN_LAYER_JOB, INT64_MIN, name,
					   sizeof(name)), 0);
	assert_string_equal(name, "b-job-1677.09.21");
	assert_int_equal(bcn_es_index_name("b", 0, BASE, name, sizeof(name)),
			 -EINVAL);
	assert_int_equal(bcn_es_index_name("beacon", BCN_LAYER_OST, BASE, name,
					   10), -BCN_EFULL);
	assert_int_equal(bcn_es_day(BASE), 19732);
	assert_int_equal(bcn_es_day(-1), -1);

	assert_int_equal(bcn_es_parse_index_name("beacon-forward-2024.01.10",
						 "beacon", &layer, &day), 0);
	assert_int_equal(layer, BCN_LAYER_FORWARD);
	assert_int_equal(day, 19732);
	assert_int_equal(bcn_es_parse_index_name("b-x-mds-1969.12.31", "b-x",
						 &layer, &day), 0);
	assert_int_equal(layer, BCN_LAYER_MDS);
	assert_int_equal(day, -1);
	{
		static const char *const bad[] = {
			"beacon-ost-2024.02.30", "beacon-ost-2024.13.01",
			"beacon-ost-2024.1.10", "beacon-ost-2024-01-10",
			"beacon-disk-2024.01.10", "beacons-ost-2024.01.10",
			"beacon-x-ost-2024.01.10", "beacon-ost-2024.01.10x",
			"beacon-ost-", "beacon", "other-ost-2024.01.10",
			"beacon-ost-20a4.01.10", "beacon--2024.01.10",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (bcn_es_parse_index_name(bad[i], "beacon", &layer,
						    &day) != -BCN_ESYNTAX)
				fail_msg("%s parsed", bad[i]);
	}
}

static void test_query_indices(void **state)
{
	struct bcn_store_query q = { BCN_LAYER_OST, NULL, 0, BASE, BASE + 1, 0,
				     BCN_STORE_PART_TOTAL, false };
	char out[BCN_ES_INDICES_MAX];

	(void)state;
	assert_int_equal(bcn_es_query_indices("b", &q, out, sizeof(out)), 0);
	assert_string_equal(out, "b-ost-2024.01.10");
	q.from = BASE - 1;
	q.to = BASE + DAY;      /* exclusive: day 2024.01.11 not needed */
	assert_int_equal(bcn_es_query_indices("b", &q, out, sizeof(out)), 0);
	assert_string_equal(out, "b-ost-2024.01.09,b-ost-2024.01.10");
	q.from = BASE;
	q.to = BASE + BCN_ES_NAMED_DAYS * DAY;
	assert_int_equal(bcn_es_query_indices("b", &q, out, sizeof(out)), 0);
	assert_int_equal(strlen(out), BCN_ES_NAMED_DAYS * 17 - 1);
	assert_non_null(strstr(out, "b-ost-2024.02.09"));
	q.to++;
	assert_int_equal(bcn_es_query_indices("b", &q, out, sizeof(out)), 0);
	assert_string_equal(out, "b-ost-*");
	q.from = INT64_MIN;
	q.to = INT64_MAX;
	assert_int_equal(bcn_es_query_indices("b", &q, out, sizeof(out)), 0);
	assert_string_equal(out, "b-ost-*");
	q.from = q.to = BASE;   /* empty range: one day, nothing matches */
	assert_int_equal(bcn_es_query_indices("b", &q, out, sizeof(out)), 0);
	assert_string_equal(out, "b-ost-2024.01.10");
	assert_int_equal(bcn_es_query_indices("b", &q, out, 8), -BCN_EFULL);
}

static void test_doc_id(void **state)
{
	char a[BCN_ES_ID_MAX + 1], b[BCN_ES_ID_MAX + 1];
	char node[BCN_STR_MAX + 1];

	(void)state;
	assert_int_equal(bcn_es_doc_id("cn001", 7, 3, a, sizeof(a)), 0);
	assert_string_equal(a, "cn001:7:3");
	assert_int_equal(bcn_es_doc_id("a:1", UINT64_MAX, UINT32_MAX, a,
				       sizeof(a)), 0);
	assert_string_equal(a, "a:1:18446744073709551615:4294967295");
	/* the longest verbatim name, then one byte more: hashed */
	memset(node, 'n', sizeof(node));
	node[BCN_ES_ID_NODE_MAX] = '\0';
	assert_int_equal(bcn_es_doc_id(node, 1, 0, a, sizeof(a)), 0);
	assert_int_equal(strlen(a), BCN_ES_ID_NODE_MAX + 4);
	node[BCN_ES_ID_NODE_MAX] = 'n';
	node[BCN_STR_MAX] = '\0';
	assert_int_equal(bcn_es_doc_id(node, UINT64_MAX, UINT32_MAX, a,
				       sizeof(a)), 0);
	assert_true(strlen(a) <= BCN_ES_ID_MAX);
	assert_int_equal(a[BCN_ES_ID_NODE_MAX], '#');
	/* names that differ only after the kept head differ in the hash */
	node[BCN_STR_MAX - 1] = 'm';
	assert_int_equal(bcn_es_doc_id(node, UINT64_MAX, UINT32_MAX, b,
				       sizeof(b)), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(memcmp(a, b, BCN_ES_ID_NODE_MAX + 1), 0);
	/* invalid UTF-8: valid head, hash of the raw bytes */
	assert_int_equal(bcn_es_doc_id("ab\xff", 1, 2, a, sizeof(a)), 0);
	assert_int_equal(strncmp(a, "ab#", 3), 0);
	assert_int_equal(bcn_es_doc_id("ab\xfe", 1, 2, b, sizeof(b)), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(strlen(a), 2 + 1 + 32 + 4);
	assert_true(bcn_utf8_valid(a, strlen(a)) == strlen(a));
	/* a multi-byte character is not cut in two */
	memset(node, 'n', sizeof(node));
	memcpy(node + BCN_ES_ID_NODE_MAX - 1, "\xd1\x83", 2);
	node[BCN_STR_MAX] = '\0';
	assert_int_equal(bcn_es_doc_id(node, 1, 0, a, sizeof(a)), 0);
	assert_int_equal(a[BCN_ES_ID_NODE_MAX - 1], '#');
	assert_int_equal(bcn_es_doc_id("cn001", 7, 3, a, 9), -BCN_EFULL);
}

static void test_utf8(void **state)
{
	static const struct {
		const char *s;
		size_t valid;
	} cases[] = {
		{ "plain", 5 }, { "\xd1\x83\xd0\xb7", 4 }, { "\xe6\x97\xa5", 3 },
		{ "\xf0\x9f\x98\x80", 4 }, { "\xf4\x8f\xbf\xbf", 4 },
		{ "a\xc0\x80", 1 }, { "a\xc1\xbf", 1 }, { "\xe0\x80\x80", 0 },
		{ "\xed\xa0\x80", 0 }, { "\xf4\x90\x80\x80", 0 },
		{ "\xf5\x80\x80\x80", 0 }, { "ab\xe6\x97", 2 }, { "\x80", 0 },
		{ "\xf0\x9f\x98", 0 }, { "x\xe6\x41\x41", 1 },
	};
	struct bcn_buf b;
	size_t bad;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(bcn_utf8_valid(cases[i].s, strlen(cases[i].s)),
				 cases[i].valid);
	bcn_buf_init(&b, 64);
	assert_int_equal(bcn_buf_adds(&b, "\xff keep \xd1\x83 \xe6\x97!"), 0);
	assert_int_equal(bcn_utf8_sanitize(&b, 1, &bad), 0);
	assert_int_equal(bad, 2);
	assert_int_equal(b.len, 1 + 6 + 2 + 1 + 6 + 1);
	assert_memory_equal(b.data, "\xff keep \xd1\x83 \xef\xbf\xbd\xef\xbf\xbd!",
			    b.len);
	b.max = b.len + 1;      /* no room to replace the first byte */
	assert_int_equal(bcn_utf8_sanitize(&b, 0, &bad), -BCN_EFULL);
	assert_int_equal(b.len, 17);
	assert_int_equal((unsigned char)b.data[0], 0xff);
	bcn_buf_free(&b);
}

static struct bcn_record sample(void)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_OST);
	r.node = "oss\"1";
	r.t = BASE + 1500 * 1000000ll + 7;      /* 1.500000007 s */
	r.dur = SEC;
	r.job = UINT64_MAX;
	r.u.ost.target = "lustre-OST0003";
	r.u.ost.jobid = "slurm.7";
	r.u.ost.read_bytes = UINT64_MAX;        /* clamped in the totals */
	r.u.ost.write_bytes = 5;
	r.u.ost.ops[BCN_OST_READ] = 2;
	r.u.ost.ops[BCN_OST_STATFS] = 3;
	return r;
}

/* The document of a shape with BCN_ES_SHAPE_LEAN_SOURCE is the V1
 * document v1 less type and dur, field for field; the current shape's is
 * the V1 document. */
static void lean_doc(const struct bcn_store_item *it, json_t *v1)
{
	struct bcn_buf b;
	const char *nl;
	json_t *doc, *want = json_deep_copy(v1);
	size_t bad;

	bcn_buf_init(&b, 1 << 16);
	assert_int_equal(bcn_es_bulk_add(&b, "bcn", it, BCN_ES_SHAPE_ALL, &bad),
			 0);
	nl = memchr(b.data, '\n', b.len);
	assert_non_null(nl);
	doc = parse_json(&b, (size_t)(nl + 1 - (char *)b.data));
	assert_int_equal(json_object_del(want, "type"), 0);
	assert_int_equal(json_object_del(want, "dur"), 0);
	assert_int_equal(json_object_size(doc), 16);
	assert_true(json_equal(doc, want));
	json_decref(doc);
	bcn_buf_reset(&b);
	assert_int_equal(bcn_es_bulk_add(&b, "bcn", it, BCN_ES_SHAPE_CURRENT,
					 &bad), 0);
	nl = memchr(b.data, '\n', b.len);
	assert_non_null(nl);
	doc = parse_json(&b, (size_t)(nl + 1 - (char *)b.data));
	assert_true(json_equal(doc, v1));
	json_decref(doc);
	json_decref(want);
	bcn_buf_free(&b);
}

static void test_bulk_lines(void **state)
{
	struct bcn_record r = sample(), back;
	struct bcn_store_item it = { &r, 9, 4, 0 };
	struct bcn_record_arena *a = malloc(sizeof(*a));
	json_t *action, *doc;
	struct bcn_buf b, again;
	const char *nl;
	char err[256];
	size_t bad;

	(void)state;
	assert_non_null(a);
	bcn_buf_init(&b, 1 << 16);
	assert_int_equal(bcn_buf_adds(&b, "x"), 0);     /* appends */
	assert_int_equal(bcn_es_bulk_add(&b, "bcn", &it, BCN_ES_SHAPE_V1, &bad), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(b.data[b.len - 1], '\n');
	nl = memchr(b.data + 1, '\n', b.len - 1);
	assert_non_null(nl);
	{
		struct bcn_buf l1 = { b.data + 1, (size_t)(nl - (char *)b.data - 1),
				      0, 0 };
		struct bcn_buf l2 = { (uint8_t *)nl + 1,
				      b.len - (size_t)(nl + 1 - (char *)b.data) - 1,
				      0, 0 };

		action = parse_json(&l1, 0);
		doc = parse_json(&l2, 0);
	}
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		action, "index"), "_index")), "bcn-ost-2024.01.10");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		action, "index"), "_id")), "oss\"1:9:4");
	assert_string_equal(json_string_value(json_object_get(doc, "node")), "oss\"1");
	assert_string_equal(json_string_value(json_object_get(doc, "seq")),
			    "00000000000000000009");
	assert_int_equal(json_integer_value(json_object_get(doc, "idx")), 4);
	assert_string_equal(json_string_value(json_object_get(doc, "layer")), "ost");
	assert_string_equal(json_string_value(json_object_get(doc, "type")), "ost");
	assert_string_equal(json_string_value(json_object_get(doc, "entity")),
			    "lustre-OST0003");
	assert_string_equal(json_string_value(json_object_get(doc, "job")),
			    "18446744073709551615");
	assert_int_equal(json_integer_value(json_object_get(doc, "t")), r.t);
	assert_int_equal(json_integer_value(json_object_get(doc, "ts")),
			 BASE / 1000000 + 1500);
	assert_int_equal(json_integer_value(json_object_get(doc, "read_bytes")),
			 INT64_MAX);
	assert_int_equal(json_integer_value(json_object_get(doc, "write_bytes")), 5);
	assert_int_equal(json_integer_value(json_object_get(doc, "read_ops")), 2);
	assert_int_equal(json_integer_value(json_object_get(doc, "meta_ops")), 3);
	assert_string_equal(json_string_value(json_object_get(doc, "part")), "job");
	assert_int_equal(json_integer_value(json_object_get(doc, "dur")), r.dur);
	assert_int_equal(json_object_size(doc), 18);
	lean_doc(&it, doc);
	bcn_record_arena_reset(a);
	assert_int_equal(bcn_record_from_json_value(json_object_get(doc, "record"),
						    a, &back, err, sizeof(err)), 0);
	bcn_buf_init(&again, 1 << 16);
	assert_int_equal(bcn_record_to_json(&back, &again), 0);
	{
		struct bcn_buf orig;

		bcn_buf_init(&orig, 1 << 16);
		assert_int_equal(bcn_record_to_json(&r, &orig), 0);
		assert_int_equal(orig.len, again.len);
		assert_memory_equal(orig.data, again.data, orig.len);
		bcn_buf_free(&orig);
	}
	json_decref(action);
	json_decref(doc);
	bcn_buf_free(&b);
	bcn_buf_free(&again);
	free(a);
}

/* Negative t, invalid UTF-8, a full buffer. */
static void test_bulk_edges(void **state)
{
	struct bcn_record r = sample();
	struct bcn_store_item it = { &r, 9, 4, 0 };
	struct bcn_buf b;
	size_t bad;

	(void)state;
	bcn_buf_init(&b, 1 << 16);
	/* negative t: ts floors, the day is the one before the epoch */
	r.t = -1;
	assert_int_equal(bcn_es_bulk_add(&b, "bcn", &it, BCN_ES_SHAPE_CURRENT, &bad), 0);
	assert_non_null(strstr((const char *)b.data, "bcn-ost-1969.12.31"));
	assert_non_null(strstr((const char *)b.data, "\"ts\":-1,"));
	/* invalid UTF-8 becomes U+FFFD; a failed add leaves b as it was */
	r.u.ost.client = "nid\xff";
	bcn_buf_reset(&b);
	assert_int_equal(bcn_es_bulk_add(&b, "bcn", &it, BCN_ES_SHAPE_CURRENT, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(bcn_utf8_valid((const char *)b.data, b.len), b.len);
	b.max = b.len + 10;
	{
		size_t len = b.len;

		assert_int_equal(bcn_es_bulk_add(&b, "bcn", &it, BCN_ES_SHAPE_CURRENT, &bad), -BCN_EFULL);
		assert_int_equal(b.len, len);
	}
	bcn_buf_free(&b);
}

/* The cuts of shape: the codec, _source of the record only, an index
 * only on the filtered fields and doc values only on the sorted, summed
 * and (part) upgraded ones. */
static void check_shape(json_t *v, unsigned shape)
{
	static const char *const want[][3] = {  /* field, index, doc_values */
		{ "node", "f", "t" }, { "seq", "f", "t" }, { "idx", "f", "t" },
		{ "layer", "t", "f" }, { "type", "f", "f" },
		{ "entity", "t", "f" }, { "job", "t", "f" }, { "part", "t", "t" },
		{ "t", "t", "t" }, { "ts", "f", "t" }, { "dur", "f", "f" },
		{ "read_bytes", "f", "t" }, { "other_ops", "f", "t" },
	};
	int lean = (shape & BCN_ES_SHAPE_LEAN_FIELDS) != 0;
	json_t *tpl = json_object_get(v, "template");
	json_t *m = json_object_get(tpl, "mappings");
	json_t *props = json_object_get(m, "properties");
	json_t *codec = json_object_get(json_object_get(json_object_get(tpl,
		"settings"), "index"), "codec");
	json_t *inc = json_object_get(json_object_get(m, "_source"), "includes");

	assert_int_equal(json_integer_value(json_object_get(json_object_get(v,
		"_meta"), "beacon_doc_shape")), shape);
	if (shape & BCN_ES_SHAPE_CODEC)
		assert_string_equal(json_string_value(codec), "best_compression");
	else
		assert_null(codec);
	if (shape & BCN_ES_SHAPE_LEAN_SOURCE) {
		assert_int_equal(json_array_size(inc), 1);
		assert_string_equal(json_string_value(json_array_get(inc, 0)),
				    "record");
	} else {
		assert_null(json_object_get(m, "_source"));
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		json_t *f = json_object_get(props, want[i][0]);
		json_t *ix = json_object_get(f, "index");
		json_t *dv = json_object_get(f, "doc_values");

		assert_non_null(f);
		/* absent: the default, true */
		assert_true(lean && want[i][1][0] == 'f' ? json_is_false(ix) : !ix);
		assert_true(lean && want[i][2][0] == 'f' ? json_is_false(dv) : !dv);
	}
}

static void test_template(void **state)
{
	struct bcn_buf b;
	json_t *v, *props, *settings;

	(void)state;
	bcn_buf_init(&b, 1 << 16);
	assert_int_equal(bcn_es_template(&b, "bcn", 3, 2, BCN_ES_SHAPE_CURRENT), 0);
	v = parse_json(&b, 0);
	assert_int_equal(json_array_size(json_object_get(v, "index_patterns")),
			 BCN_LAYER_MAX - 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(v,
		"index_patterns"), 0)), "bcn-client-*");
	settings = json_object_get(json_object_get(json_object_get(v, "template"),
						   "settings"), "index");
	assert_int_equal(json_integer_value(json_object_get(settings,
		"number_of_shards")), 3);
	assert_int_equal(json_integer_value(json_object_get(settings,
		"number_of_replicas")), 2);
	props = json_object_get(json_object_get(json_object_get(v, "template"),
						"mappings"), "properties");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		props, "ts"), "type")), "date");
	assert_true(json_is_false(json_object_get(json_object_get(props,
		"record"), "enabled")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		props, "node"), "type")), "keyword");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		props, "part"), "type")), "keyword");
	assert_int_equal(json_object_size(props), 18);
	check_shape(v, BCN_ES_SHAPE_CURRENT);
	json_decref(v);
	for (unsigned shape = 0; shape <= BCN_ES_SHAPE_ALL; shape++) {
		bcn_buf_reset(&b);
		assert_int_equal(bcn_es_template(&b, "bcn", 3, 2, shape), 0);
		v = parse_json(&b, 0);
		assert_int_equal(json_object_size(json_object_get(json_object_get(
			json_object_get(v, "template"), "mappings"), "properties")),
			18);
		check_shape(v, shape);
		json_decref(v);
	}
	bcn_buf_free(&b);
}

static void test_bodies(void **state)
{
	struct bcn_store_query q = { BCN_LAYER_OST, "t\"x", 4000000001u, -5,
				     BASE, 7, BCN_STORE_PART_JOB, false };
	json_t *v, *filter;
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, 1 << 16);
	assert_int_equal(bcn_es_search_body(&b, &q, 250, "[1,\"n\",\"0\",2]"), 0);
	v = parse_json(&b, 0);
	assert_int_equal(json_integer_value(json_object_get(v, "size")), 250);
	filter = json_object_get(json_object_get(json_object_get(v, "query"),
						 "bool"), "filter");
	assert_int_equal(json_array_size(filter), 5);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(filter, 2), "term"), "entity")), "t\"x");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(filter, 3), "term"), "job")), "4000000001");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(filter, 4), "term"), "part")), "job");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		json_object_get(json_array_get(filter, 1), "range"), "t"),
		"gte")), -5);
	assert_int_equal(json_array_size(json_object_get(v, "sort")), 4);
	assert_int_equal(json_array_size(json_object_get(v, "search_after")), 4);
	json_decref(v);

	bcn_buf_reset(&b);
	q.entity = NULL;
	q.job = 0;
	assert_int_equal(bcn_es_sum_body(&b, &q, 3600000, 1000, 1, -7200000), 0);
	v = parse_json(&b, 0);
	assert_int_equal(json_integer_value(json_object_get(v, "size")), 0);
	filter = json_object_get(json_object_get(json_object_get(v, "aggs"),
						 "b"), "composite");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		filter, "after"), "t")), -7200000);
	assert_non_null(strstr((const char *)b.data,
			       "\"fixed_interval\":\"3600000ms\""));
	json_decref(v);

	bcn_buf_reset(&b);
	q.part = BCN_STORE_PART_ANY;
	assert_int_equal(bcn_es_count_body(&b, &q), 0);
	v = parse_json(&b, 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(
		json_object_get(v, "query"), "bool"), "filter")), 2);
	json_decref(v);
	/* a part term for totals on ost and mds only, for parts everywhere */
	{
		static const struct {
			int layer, part;
			const char *term;
		} cases[] = {
			{ BCN_LAYER_OST, BCN_STORE_PART_TOTAL, "total" },
			{ BCN_LAYER_MDS, BCN_STORE_PART_CLIENT, "client" },
			{ BCN_LAYER_MDS, BCN_STORE_PART_ANY, NULL },
			{ BCN_LAYER_CLIENT, BCN_STORE_PART_TOTAL, NULL },
			{ BCN_LAYER_FORWARD, BCN_STORE_PART_JOB, "job" },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			q.layer = cases[i].layer;
			q.part = cases[i].part;
			bcn_buf_reset(&b);
			assert_int_equal(bcn_es_count_body(&b, &q), 0);
			v = parse_json(&b, 0);
			filter = json_object_get(json_object_get(json_object_get(
				v, "query"), "bool"), "filter");
			assert_int_equal(json_array_size(filter),
					 cases[i].term ? 3 : 2);
			if (cases[i].term)
				assert_string_equal(json_string_value(
					json_object_get(json_object_get(
					json_array_get(filter, 2), "term"),
					"part")), cases[i].term);
			json_decref(v);
		}
	}
	b.max = b.len + 5;
	{
		size_t len = b.len;

		assert_int_equal(bcn_es_count_body(&b, &q), -BCN_EFULL);
		assert_int_equal(b.len, len);
	}
	bcn_buf_free(&b);
}

/* The requests that give ost and mds documents stored before parts
 * their part. */
static void test_parts_bodies(void **state)
{
	char idx[2 * BCN_STORE_PREFIX_MAX + 16];
	json_t *v, *src;
	struct bcn_buf b;

	(void)state;
	assert_int_equal(bcn_es_parts_indices("bcn", idx, sizeof(idx)), 0);
	assert_string_equal(idx, "bcn-ost-*,bcn-mds-*");
	assert_int_equal(bcn_es_parts_indices("bcn", idx, 19), -BCN_EFULL);
	assert_true(bcn_es_has_parts(BCN_LAYER_OST));
	assert_true(bcn_es_has_parts(BCN_LAYER_MDS));
	assert_false(bcn_es_has_parts(BCN_LAYER_FORWARD));
	bcn_buf_init(&b, 1 << 16);
	assert_int_equal(bcn_es_parts_mapping(&b), 0);
	v = parse_json(&b, 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(v, "properties"), "part"), "type")), "keyword");
	json_decref(v);
	bcn_buf_reset(&b);
	assert_int_equal(bcn_es_parts_update(&b), 0);
	v = parse_json(&b, 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(json_object_get(json_object_get(v, "query"),
		"bool"), "must_not"), "exists"), "field")), "part");
	src = json_object_get(json_object_get(v, "script"), "source");
	assert_non_null(strstr(json_string_value(src), "'job'"));
	assert_non_null(strstr(json_string_value(src), "'client'"));
	assert_non_null(strstr(json_string_value(src), "ctx.op = 'noop'"));
	json_decref(v);
	bcn_buf_free(&b);
}

static void test_retriable(void **state)
{
	static const long yes[] = { 429, 500, 502, 503, 504, 599 };
	static const long no[] = { 200, 201, 400, 401, 403, 404, 409, 413, 600 };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(bcn_es_retriable(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(bcn_es_retriable(no[i]));
}

static void test_parse_bulk(void **state)
{
	static const int mixed[] = { 200, 200, 200, 429, 403, 200, 400, 200 };
	char reason[BCN_ES_ERR_MAX];
	int status[8];
	const char *t;

	(void)state;
	t = load("bulk_created.json");
	assert_int_equal(bcn_es_parse_bulk(t, file.len, 8, status, reason,
					   sizeof(reason)), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(status[i], 201);
	assert_string_equal(reason, "");
	t = load("bulk_updated.json");
	assert_int_equal(bcn_es_parse_bulk(t, file.len, 8, status, NULL, 0), 0);
	assert_int_equal(status[7], 200);
	assert_int_equal(bcn_es_parse_bulk(t, file.len, 7, status, reason,
					   sizeof(reason)), -BCN_ECORRUPT);
	assert_non_null(strstr(reason, "8 items, want 7"));
	t = load("bulk_mixed.json");
	assert_int_equal(bcn_es_parse_bulk(t, file.len, 8, status, reason,
					   sizeof(reason)), 0);
	assert_memory_equal(status, mixed, sizeof(mixed));
	assert_non_null(strstr(reason, "HTTP 429: cluster_block_exception"));
	t = load("bulk_mixed_full.json");
	assert_int_equal(bcn_es_parse_bulk(t, file.len, 8, status, reason,
					   sizeof(reason)), 0);
	assert_memory_equal(status, mixed, sizeof(mixed));
	t = load("bulk_error_400.json");
	assert_int_equal(bcn_es_parse_bulk(t, file.len, 1, status, reason,
					   sizeof(reason)), 0);
	assert_int_equal(status[0], 400);
	assert_non_null(strstr(reason, "mapper_parsing_exception: failed to "
			       "parse (caused by json_e_o_f_exception"));
	t = "{\"items\":[{\"index\":{\"status\":\"201\"}}]}";
	assert_int_equal(bcn_es_parse_bulk(t, strlen(t), 1, status, reason,
					   sizeof(reason)), -BCN_ECORRUPT);
	t = "{\"items\":[{\"index\":{\"status\":201},\"x\":{}}]}";
	assert_int_equal(bcn_es_parse_bulk(t, strlen(t), 1, status, NULL, 0),
			 -BCN_ECORRUPT);
	t = "{\"items\":[{\"index\":{\"status\":201}}]";
	assert_int_equal(bcn_es_parse_bulk(t, strlen(t), 1, status, NULL, 0),
			 -BCN_ESYNTAX);
}

static void test_parse_search(void **state)
{
	struct bcn_record_arena *a = malloc(sizeof(*a));
	char sort[BCN_ES_SORT_MAX], err[BCN_ES_ERR_MAX];
	struct bcn_es_hits h;
	struct bcn_record r;
	const char *t;

	(void)state;
	assert_non_null(a);
	t = load("search_page2.json");
	assert_int_equal(bcn_es_parse_search(t, file.len, &h, err, sizeof(err)), 0);
	assert_int_equal(h.n, 1);
	bcn_record_arena_reset(a);
	assert_int_equal(bcn_es_hit_record(&h, 0, a, &r, err, sizeof(err)), 0);
	assert_int_equal(r.type, BCN_REC_IO);
	assert_string_equal(r.node, "cn001");
	assert_int_equal(r.u.io.file, UINT64_MAX - 1);
	assert_string_equal(r.u.io.path, "/scratch/\"quoted\"\tdir/ckpt.0001");
	assert_int_equal(bcn_es_hit_sort(&h, 0, sort, sizeof(sort)), 0);
	assert_string_equal(sort, "[1704848400123456789,\"cn001\","
			    "\"00000000000000000100\",0]");
	assert_int_equal(bcn_es_hit_sort(&h, 0, sort, 10), -BCN_EFULL);
	assert_int_equal(bcn_es_hit_record(&h, 1, a, &r, err, sizeof(err)),
			 -BCN_ECORRUPT);
	bcn_es_hits_free(&h);

	t = load("search_page1.json");
	assert_int_equal(bcn_es_parse_search(t, file.len, &h, err, sizeof(err)), 0);
	bcn_record_arena_reset(a);
	assert_int_equal(bcn_es_hit_record(&h, 0, a, &r, err, sizeof(err)), 0);
	assert_int_equal(strlen(r.node), 500);
	assert_string_equal(r.u.io.path, "/bad/\xef\xbf\xbd\xef\xbf\xbd/utf8");
	bcn_es_hits_free(&h);

	t = load("search_ost.json");
	assert_int_equal(bcn_es_parse_search(t, file.len, &h, err, sizeof(err)), 0);
	bcn_record_arena_reset(a);
	assert_int_equal(bcn_es_hit_record(&h, 0, a, &r, err, sizeof(err)), 0);
	assert_int_equal(r.job, UINT64_MAX);
	assert_int_equal(r.u.ost.read_bytes, (1ull << 63) + 5);
	bcn_es_hits_free(&h);

	t = load("search_noindex.json");
	assert_int_equal(bcn_es_parse_search(t, file.len, &h, err, sizeof(err)), 0);
	assert_int_equal(h.n, 0);
	bcn_es_hits_free(&h);

	t = load("search_shard_failure.json");
	assert_int_equal(bcn_es_parse_search(t, file.len, &h, err, sizeof(err)),
			 -EIO);
	assert_non_null(strstr(err, "1 shards failed, first (cap-client-2023.12.01): "
			       "illegal_argument_exception: Text fields"));
	assert_null(h.root);
	t = "{\"timed_out\":true,\"_shards\":{\"failed\":0},\"hits\":{\"hits\":[]}}";
	assert_int_equal(bcn_es_parse_search(t, strlen(t), &h, err, sizeof(err)),
			 -EIO);
	t = "{\"_shards\":{\"failed\":0},\"hits\":{\"hits\":[{\"sort\":[1]}]}}";
	assert_int_equal(bcn_es_parse_search(t, strlen(t), &h, err, sizeof(err)),
			 -BCN_ECORRUPT);
	t = "{\"hits\":{\"hits\":[]}}";
	assert_int_equal(bcn_es_parse_search(t, strlen(t), &h, err, sizeof(err)),
			 -BCN_ECORRUPT);
	free(a);
}

static void test_parse_buckets(void **state)
{
	struct bcn_es_bucket b[10];
	char err[BCN_ES_ERR_MAX];
	int has_after;
	int64_t after;
	size_t n;
	const char *t;

	(void)state;
	t = load("agg_page1.json");
	assert_int_equal(bcn_es_parse_buckets(t, file.len, b, 10, &n, &has_after,
					      &after, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_true(has_after);
	assert_int_equal(after, 1704848400000ll);
	assert_int_equal(b[0].key_ms, 1704841200000ll);
	assert_int_equal(b[0].count, 1);
	assert_true(b[1].sum[1] == 3145728.0);  /* write_bytes */
	assert_true(b[1].sum[3] == 3.0);        /* write_ops */
	assert_true(b[0].sum[4] == 1.0);        /* meta_ops */
	assert_int_equal(bcn_es_parse_buckets(t, file.len, b, 1, &n, &has_after,
					      &after, err, sizeof(err)),
			 -BCN_EFULL);
	t = load("agg_all.json");
	assert_int_equal(bcn_es_parse_buckets(t, file.len, b, 10, &n, &has_after,
					      &after, err, sizeof(err)), 0);
	assert_int_equal(n, 8);
	assert_true(b[4].sum[0] >= 9007199254740992.0);  /* beyond 2^53 */
	assert_true(b[4].sum[2] == 17.0);
	t = load("agg_noindex.json");
	assert_int_equal(bcn_es_parse_buckets(t, file.len, b, 10, &n, &has_after,
					      &after, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_false(has_after);
	t = load("search_page2.json");   /* shards but no aggregation */
	assert_int_equal(bcn_es_parse_buckets(t, file.len, b, 10, &n, &has_after,
					      &after, err, sizeof(err)),
			 -BCN_ECORRUPT);
	t = "{\"_shards\":{\"failed\":0},\"aggregations\":{\"b\":{\"buckets\":"
	    "[{\"key\":{\"t\":1},\"doc_count\":1,\"read_bytes\":{\"value\":-1},"
	    "\"write_bytes\":{\"value\":0},\"read_ops\":{\"value\":0},"
	    "\"write_ops\":{\"value\":0},\"meta_ops\":{\"value\":0},"
	    "\"other_ops\":{\"value\":0}}]}}}";
	assert_int_equal(bcn_es_parse_buckets(t, strlen(t), b, 10, &n, &has_after,
					      &after, err, sizeof(err)),
			 -BCN_ERANGE);
}

/* The names of a cat response: how many, and the last. */
struct names {
	int n;
	char last[64];
};

static int note(void *arg, const char *index)
{
	struct names *names = arg;

	names->n++;
	snprintf(names->last, sizeof(names->last), "%s", index);
	return 0;
}

static void test_parse_misc(void **state)
{
	char err[BCN_ES_ERR_MAX], text[BCN_ES_ERR_MAX];
	struct names names = { 0, "" };
	uint64_t count = 99;
	const char *t;

	(void)state;
	t = load("count.json");
	assert_int_equal(bcn_es_parse_count(t, file.len, &count, err,
					    sizeof(err)), 0);
	assert_int_equal(count, 2);
	t = load("count_noindex.json");
	assert_int_equal(bcn_es_parse_count(t, file.len, &count, err,
					    sizeof(err)), 0);
	assert_int_equal(count, 0);
	t = load("refresh.json");
	assert_int_equal(bcn_es_parse_shards(t, file.len, err, sizeof(err)), 0);
	t = "{\"_shards\":{\"total\":2,\"successful\":1,\"failed\":1,"
	    "\"failures\":[{\"index\":\"i\",\"reason\":{\"type\":\"x\","
	    "\"reason\":\"y\"}}]}}";
	assert_int_equal(bcn_es_parse_shards(t, strlen(t), err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "1 shards failed, first (i): x: y");

	t = load("update_parts.json");
	assert_int_equal(bcn_es_parse_update(t, file.len, &count, err,
					     sizeof(err)), 0);
	assert_int_equal(count, 2);
	t = load("update_parts_strict.json");
	assert_int_equal(bcn_es_parse_update(t, file.len, &count, err,
					     sizeof(err)), -EIO);
	assert_string_equal(err, "2 documents failed, first (cap-ost-2023.01.01 "
			    "a): strict_dynamic_mapping_exception: mapping set "
			    "to strict, dynamic introduction of [part] within "
			    "[_doc] is not allowed");
	t = "{\"timed_out\":true,\"updated\":5,\"failures\":[]}";
	assert_int_equal(bcn_es_parse_update(t, strlen(t), &count, err,
					     sizeof(err)), -EIO);
	assert_int_equal(count, 5);
	t = "{\"updated\":-1,\"failures\":[]}";
	assert_int_equal(bcn_es_parse_update(t, strlen(t), &count, err,
					     sizeof(err)), -BCN_ECORRUPT);
	t = load("count.json");
	assert_int_equal(bcn_es_parse_update(t, file.len, &count, err,
					     sizeof(err)), -BCN_ECORRUPT);

	t = load("cat_indices.json");
	assert_int_equal(bcn_es_parse_cat_indices(t, file.len, note, &names, err,
						  sizeof(err)), 0);
	assert_int_equal(names.n, 8);
	assert_string_equal(names.last, "cap-ost-2024.01.10");
	names.n = 0;
	t = load("cat_indices_none.json");
	assert_int_equal(bcn_es_parse_cat_indices(t, file.len, note, &names, err,
						  sizeof(err)), 0);
	assert_int_equal(names.n, 0);
	t = "{\"index\":\"x\"}";
	assert_int_equal(bcn_es_parse_cat_indices(t, strlen(t), note, &names, err,
						  sizeof(err)), -BCN_ECORRUPT);

	t = load("delete_404.json");
	bcn_es_error_text(404, t, file.len, text, sizeof(text));
	assert_string_equal(text, "HTTP 404: index_not_found_exception: no such "
			    "index [cap-client-1999.01.01]");
	t = load("template_error_400.json");
	bcn_es_error_text(400, t, file.len, text, sizeof(text));
	assert_non_null(strstr(text, "HTTP 400: invalid_index_template_exception: "
			       "index_template [cap-bad] invalid"));
	t = load("search_error_400.json");
	bcn_es_error_text(400, t, file.len, text, sizeof(text));
	assert_non_null(strstr(text, "search_phase_execution_exception: all shards "
			       "failed (caused by query_shard_exception"));
	bcn_es_error_text(502, "<html>\nBad Gateway</html>", 25, text,
			  sizeof(text));
	assert_string_equal(text, "HTTP 502: <html>?Bad Gateway</html>");
	bcn_es_error_text(503, "", 0, text, sizeof(text));
	assert_string_equal(text, "HTTP 503: (empty body)");
	bcn_es_error_text(401, "{\"error\":\"no auth\"}", 19, text, sizeof(text));
	assert_string_equal(text, "HTTP 401: no auth");
}

static int teardown(void **state)
{
	(void)state;
	bcn_buf_free(&file);
	return 0;
}

/* The HTTP client speaks HTTP and HTTPS only: a store URL naming a local
 * file is refused, not read. */
static void test_http_protocols(void **state)
{
	char path[] = "/tmp/es_test_XXXXXX", url[64], err[256];
	struct bcn_es_http h;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("{\"secret\":1}", f);
	fclose(f);
	snprintf(url, sizeof(url), "file://%s", path);
	assert_int_equal(bcn_es_http_init(&h, url, "", "", 2000, err, sizeof(err)), 0);
	assert_true(bcn_es_http_request(&h, "GET", "", NULL, 0, err, sizeof(err)) < 0);
	assert_true(h.resp.len == 0);
	bcn_es_http_free(&h);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_index_names),
		cmocka_unit_test(test_query_indices),
		cmocka_unit_test(test_doc_id),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_bulk_lines),
		cmocka_unit_test(test_bulk_edges),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_parts_bodies),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_retriable),
		cmocka_unit_test(test_parse_bulk),
		cmocka_unit_test(test_parse_search),
		cmocka_unit_test(test_parse_buckets),
		cmocka_unit_test(test_parse_misc),
		cmocka_unit_test(test_http_protocols),
	};

	bcn_buf_init(&file, FILE_MAX);
	return cmocka_run_group_tests_name("es", tests, NULL, teardown);
}
