/* libFuzzer target for the ibnetdiscover parser (collectors/switch/
 * topofile.c): arbitrary bytes in a buffer of exactly their length; only
 * the documented results, a line number exactly on error, and links
 * whose fields keep their bounds and formats. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/switch/topofile.h"
#include "common/error.h"
#include "proto/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check(void *arg, const struct bcn_topo_link *l)
{
	size_t *n = arg;

	if (strlen(l->sw) != 18 || strlen(l->remote) != 18 ||
	    memcmp(l->sw, "0x", 2) || memcmp(l->remote, "0x", 2) ||
	    l->port > BCN_TOPO_PORT_MAX || l->remote_port > BCN_TOPO_PORT_MAX ||
	    l->remote_kind >= BCN_TOPO_KIND_MAX ||
	    strlen(l->sw_name) >= BCN_TOPO_DESC_MAX ||
	    strlen(l->remote_name) >= BCN_TOPO_DESC_MAX)
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t n = 0, n2 = 0, line = 99, line2 = 99;
	int rc, rc2;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rc = bcn_topofile_parse(buf, size, check, &n, &line);
	if ((rc && rc != -BCN_ESYNTAX) || (rc == 0) != (line == 0))
		abort();
	rc2 = bcn_topofile_parse(buf, size, check, &n2, &line2);
	if (rc2 != rc || n2 != n || line2 != line)
		abort();
	free(buf);
	return 0;
}
