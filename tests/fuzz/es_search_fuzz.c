/* libFuzzer target for the search response parser and the decoding of the
 * records in its hits (store/es_parse.c, store/record_json.c). Each record
 * that decodes must encode to JSON that decodes to the same record; each
 * hit's sort values must print as a JSON array that loads again. Broken
 * invariants abort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "store/es_parse.h"
#include "store/record_json.h"

#define FUZZ_TEXT_MAX (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct bcn_record_arena a1, a2;

/* to_json(r) decodes, and encodes to the same text. */
static void check_record(const struct bcn_record *r)
{
	struct bcn_buf x, y;
	struct bcn_record back;
	char err[256];

	bcn_buf_init(&x, FUZZ_TEXT_MAX);
	bcn_buf_init(&y, FUZZ_TEXT_MAX);
	if (bcn_record_to_json(r, &x))
		abort();
	bcn_record_arena_reset(&a2);
	if (bcn_record_from_json((const char *)x.data, x.len, &a2, &back, err,
				 sizeof(err)))
		abort();
	if (bcn_record_to_json(&back, &y) || x.len != y.len ||
	    memcmp(x.data, y.data, x.len))
		abort();
	bcn_buf_free(&x);
	bcn_buf_free(&y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[BCN_ES_ERR_MAX], sort[BCN_ES_SORT_MAX];
	struct bcn_es_hits h;
	struct bcn_record r;
	json_t *v;

	err[0] = '\0';
	if (bcn_es_parse_search((const char *)data, size, &h, err, sizeof(err))) {
		if (err[0] == '\0' || h.root)
			abort();
		return 0;
	}
	for (size_t i = 0; i < h.n; i++) {
		bcn_record_arena_reset(&a1);
		if (bcn_es_hit_record(&h, i, &a1, &r, err, sizeof(err)) == 0)
			check_record(&r);
		if (bcn_es_hit_sort(&h, i, sort, sizeof(sort)) == 0) {
			if (bcn_json_load(sort, strlen(sort), &v, NULL, 0) ||
			    !json_is_array(v))
				abort();
			json_decref(v);
		}
	}
	bcn_es_hits_free(&h);
	return 0;
}
