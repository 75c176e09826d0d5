/* libFuzzer target for the /proc parsers (collectors/client/procio): the
 * input is parsed as /proc/<pid>/io, as /proc/<pid>/stat and as
 * /proc/stat; failures must give a known code and a reason, successes
 * fields in range (all four required counters, a NUL-terminated comm of at
 * most COMM_MAX bytes, 22 to 24 fields, a positive pid). A broken
 * invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/client/procio.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rc(int rc, const char *why)
{
	if (rc && ((rc != -BCN_ESYNTAX && rc != -BCN_ERANGE) || !why))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *why = NULL;
	struct bcn_procstat st;
	struct bcn_procio io;
	int64_t bt;
	int rc;

	rc = bcn_procio_parse_io(p, size, &io, &why);
	check_rc(rc, why);
	if (!rc && ((io.have & 0xf) != 0xf ||
		    io.have >= 1u << BCN_PROCIO_NCOUNTERS))
		abort();
	why = NULL;
	rc = bcn_procio_parse_stat(p, size, &st, &why);
	check_rc(rc, why);
	if (!rc && (st.pid <= 0 || st.nfields < BCN_PROCIO_STAT_MIN ||
		    st.nfields > BCN_PROCIO_STAT_FIELDS ||
		    strlen(st.comm) > BCN_PROCIO_COMM_MAX ||
		    st.comm_cut != (st.comm_len > BCN_PROCIO_COMM_MAX) ||
		    st.comm_len > size))
		abort();
	rc = bcn_procio_parse_btime(p, size, &bt);
	if (rc && rc != -BCN_ESYNTAX)
		abort();
	if (!rc && (bt < 0 || bt > (int64_t)INT32_MAX * 4))
		abort();
	return 0;
}
