/* libFuzzer target for the _bulk response parser (store/es_parse.c). The
 * first input byte picks the number of items the response must have; the
 * rest is the response. On success every status is an HTTP status and a
 * failed item comes with a reason; on failure the message is set. Broken
 * invariants abort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/es_parse.h"

#define FUZZ_MAX_ITEMS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char reason[BCN_ES_ERR_MAX];
	int status[FUZZ_MAX_ITEMS];
	size_t n;
	int rc, failed = 0;

	if (size < 1)
		return 0;
	n = data[0] % FUZZ_MAX_ITEMS;
	memset(reason, 'x', sizeof(reason));
	rc = bcn_es_parse_bulk((const char *)data + 1, size - 1, n, status,
			       reason, sizeof(reason));
	if (!memchr(reason, '\0', sizeof(reason)))
		abort();
	if (rc) {
		if (rc > 0 || reason[0] == '\0')
			abort();
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (status[i] < 100 || status[i] > 599)
			abort();
		failed |= status[i] / 100 != 2;
	}
	if (failed != (reason[0] != '\0'))
		abort();
	return 0;
}
