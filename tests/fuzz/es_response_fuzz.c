/* libFuzzer target for the other response parsers of the OpenSearch
 * backend (store/es_parse.c: aggregation buckets, counts, _shards, index
 * lists, update-by-query results, error texts) and for index names, document ids and the UTF-8
 * repair of store/es_build.c, all over the same input. Broken invariants
 * abort. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "common/error.h"
#include "store/es_build.h"
#include "store/es_parse.h"

#define FUZZ_BUCKETS 32
#define FUZZ_NAME_MAX 300

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Index names of the list that parse must print back the same. */
static int check_name(void *arg, const char *index)
{
	char again[BCN_ES_INDEX_MAX];
	int64_t day;
	int layer;

	(void)arg;
	/* days past 2262 have no nanosecond time to name them back from */
	if (bcn_es_parse_index_name(index, "beacon", &layer, &day) == 0 &&
	    day >= 0 && day <= INT64_MAX / BCN_STORE_DAY_NS) {
		if (bcn_es_index_name("beacon", layer, day * BCN_STORE_DAY_NS,
				      again, sizeof(again)) ||
		    strcmp(again, index) != 0)
			abort();
	}
	return 0;
}

static void buckets(const char *text, size_t size)
{
	struct bcn_es_bucket b[FUZZ_BUCKETS];
	char err[BCN_ES_ERR_MAX] = "";
	int has_after = 0;
	int64_t after;
	size_t n = 99;

	if (bcn_es_parse_buckets(text, size, b, FUZZ_BUCKETS, &n, &has_after,
				 &after, err, sizeof(err))) {
		if (err[0] == '\0')
			abort();
		return;
	}
	if (n > FUZZ_BUCKETS)
		abort();
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < BCN_ES_NSUMS; k++)
			if (!isfinite(b[i].sum[k]) || b[i].sum[k] < 0)
				abort();
}

static void utf8(const char *text, size_t size)
{
	char id[BCN_ES_ID_MAX + 1], node[FUZZ_NAME_MAX + 1];
	struct bcn_buf b;
	size_t bad, n = size < FUZZ_NAME_MAX ? size : FUZZ_NAME_MAX;

	bcn_buf_init(&b, 4 * size + 16);
	if (bcn_buf_add(&b, text, size) || bcn_utf8_sanitize(&b, 0, &bad) ||
	    bcn_utf8_valid((const char *)b.data, b.len) != b.len ||
	    (bad == 0) != (b.len == size))
		abort();
	bcn_buf_free(&b);
	memcpy(node, text, n);
	node[n] = '\0';
	if (bcn_es_doc_id(node, UINT64_MAX, UINT32_MAX, id, sizeof(id)) ||
	    strlen(id) > BCN_ES_ID_MAX || bcn_utf8_valid(id, strlen(id)) != strlen(id))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char err[BCN_ES_ERR_MAX], out[BCN_ES_ERR_MAX];
	uint64_t count;

	buckets(text, size);
	if (bcn_es_parse_count(text, size, &count, err, sizeof(err)) == 0 &&
	    count > INT64_MAX)
		abort();
	(void)bcn_es_parse_shards(text, size, err, sizeof(err));
	if (bcn_es_parse_update(text, size, &count, err, sizeof(err)) == 0 &&
	    count > INT64_MAX)
		abort();
	(void)bcn_es_parse_cat_indices(text, size, check_name, NULL, err,
				       sizeof(err));
	memset(out, 'x', sizeof(out));
	bcn_es_error_text(500, text, size, out, sizeof(out));
	if (!memchr(out, '\0', sizeof(out)) || strncmp(out, "HTTP 500: ", 10))
		abort();
	utf8(text, size);
	return 0;
}
