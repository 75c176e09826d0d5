/* libFuzzer target for store/record_json: JSON text to a record. A record
 * that decodes must encode to JSON that decodes to the same record (and
 * the same text); values bcn_json_load gives must read as uint64 only when
 * they are non-negative integers or big decimal strings. Broken invariants
 * abort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "store/record_json.h"

#define FUZZ_TEXT_MAX (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct bcn_record_arena a1, a2;

static void check_values(const json_t *v)
{
	size_t i;
	json_t *e;
	uint64_t u;

	if (!json_is_array(v))
		return;
	json_array_foreach(v, i, e) {
		int rc = bcn_json_u64(e, &u);

		if (json_is_integer(e) && (rc == 0) != (json_integer_value(e) >= 0))
			abort();
		if (rc == 0 && json_is_string(e) && u <= INT64_MAX)
			abort();
		if (rc == 0 && !json_is_integer(e) && !json_is_string(e))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_record r, back;
	struct bcn_buf x, y;
	char err[256];
	json_t *v;

	if (bcn_json_load((const char *)data, size, &v, NULL, 0) == 0) {
		check_values(v);
		json_decref(v);
	}
	bcn_record_arena_reset(&a1);
	err[0] = '\0';
	if (bcn_record_from_json((const char *)data, size, &a1, &r, err,
				 sizeof(err))) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	if (bcn_record_check(&r))
		abort();
	bcn_buf_init(&x, FUZZ_TEXT_MAX);
	bcn_buf_init(&y, FUZZ_TEXT_MAX);
	bcn_record_arena_reset(&a2);
	if (bcn_record_to_json(&r, &x) ||
	    bcn_record_from_json((const char *)x.data, x.len, &a2, &back, err,
				 sizeof(err)) ||
	    bcn_record_to_json(&back, &y) || x.len != y.len ||
	    memcmp(x.data, y.data, x.len))
		abort();
	bcn_buf_free(&x);
	bcn_buf_free(&y);
	return 0;
}
