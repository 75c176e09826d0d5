/* libFuzzer target for beacon-swd's perfquery parser: feeds arbitrary
 * bytes (copied to a buffer of exactly their length, so reading past it
 * is caught) and checks the invariants: only the documented results, no
 * more ports than allowed, presence bits only for known counters, and the
 * same result when parsed again with room for every port. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/switch/ibcounters.h"
#include "common/error.h"

#define FZ_MAX 4                /* a small bound, to reach -BCN_EFULL */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct bcn_ib_pq_port small[FZ_MAX], big[BCN_IB_PQ_MAX_PORTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	uint64_t skipped, skipped2;
	size_t n, n2;
	int rc, rc2;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rc = bcn_ib_perfquery_parse(buf, size, small, FZ_MAX, &n, &skipped);
	if ((rc && rc != -BCN_EFULL) || n > FZ_MAX || (rc && n != FZ_MAX))
		abort();
	for (size_t i = 0; i < n; i++)
		if (small[i].present >> BCN_IB_NCOUNTERS)
			abort();
	rc2 = bcn_ib_perfquery_parse(buf, size, big, BCN_IB_PQ_MAX_PORTS, &n2,
				     &skipped2);
	if (rc2 && rc2 != -BCN_EFULL)
		abort();
	if (skipped2 != skipped || n2 < n)
		abort();
	for (size_t i = 0; i < n; i++)
		if (small[i].lid != big[i].lid || small[i].port != big[i].port ||
		    small[i].extended != big[i].extended ||
		    small[i].present != big[i].present ||
		    memcmp(small[i].v, big[i].v, sizeof(small[i].v)))
			abort();
	free(buf);
	return 0;
}
