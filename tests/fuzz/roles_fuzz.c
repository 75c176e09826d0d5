/* libFuzzer target for logsrv/roles: any input either parses into a map
 * whose every named node answers a valid role, or fails with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logsrv/roles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_roles *r;
	char err[256] = "";
	int rc, role;

	rc = bcn_roles_parse((const char *)data, size, BCN_ROLE_NONE, &r, err,
			     sizeof(err));
	if (rc) {
		if (r || !err[0])
			abort();
		return 0;
	}
	role = bcn_roles_of(r, "cn001");
	if (role < 0 || role >= BCN_ROLE_MAX)
		abort();
	bcn_roles_free(r);
	return 0;
}
