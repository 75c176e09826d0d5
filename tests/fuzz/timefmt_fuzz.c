/* libFuzzer target for common/timefmt: feeds arbitrary bytes (copied to a
 * buffer of exactly their length, so reading past it is caught) to the
 * time and duration parsers and checks the invariants: a failure leaves
 * the output alone and is one of the documented codes, a parsed time
 * formats to text that parses back to the same instant, and a parsed
 * duration is positive. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"

#define FZ_SENTINEL 0x5a5a5a5a5a5all

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_time(const char *s, size_t len)
{
	char out[BCN_TIMEFMT_OUT_MAX];
	int64_t ns = FZ_SENTINEL, back;
	int rc = bcn_timefmt_parse(s, len, &ns);

	if (rc) {
		if ((rc != -BCN_ESYNTAX && rc != -BCN_ERANGE) || ns != FZ_SENTINEL)
			abort();
		return;
	}
	if (bcn_timefmt_format(ns, out, sizeof(out)))
		abort();
	if (bcn_timefmt_parse(out, strlen(out), &back) || back != ns)
		abort();
}

static void check_duration(const char *s, size_t len)
{
	int64_t ns = FZ_SENTINEL;
	int rc = bcn_timefmt_parse_duration(s, len, &ns);

	if (rc) {
		if ((rc != -BCN_ESYNTAX && rc != -BCN_ERANGE) || ns != FZ_SENTINEL)
			abort();
		return;
	}
	if (ns <= 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);

	if (!s)
		return 0;
	if (size)
		memcpy(s, data, size);
	check_time(s, size);
	check_duration(s, size);
	free(s);
	return 0;
}
