/* libFuzzer target for the LWFS client trace log parser
 * (collectors/client/lwfs). The input is split into lines; each is parsed
 * at UTC and at UTC+08:00 and checked against the grammar's promises
 * (docs/lwfs-log.md): a failure leaves a known error code and nothing
 * else; a success has fields in range, paths inside the line that
 * unescape to their announced length, the operation's required
 * arguments, and times 8 hours apart. The whole input is also tried as a
 * UTC offset. A broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/client/lwfs.h"
#include "common/error.h"
#include "proto/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_path(const char *line, size_t n, const char *p,
		       size_t len, size_t dlen)
{
	static char buf[BCN_LWFS_PATH_MAX];

	if (!p) {
		if (len || dlen)
			abort();
		return;
	}
	if (p < line || p + len > line + n || dlen == 0 ||
	    dlen > BCN_LWFS_PATH_MAX || dlen > len)
		abort();
	if (bcn_lwfs_unescape(p, len, buf, sizeof(buf)) != (int)dlen ||
	    memchr(buf, '\0', dlen))
		abort();
}

static void check_ok(const char *p, size_t n, const struct bcn_lwfs_line *l)
{
	bool failed = l->has_result && l->result < 0;

	if (l->lop >= BCN_LWFS_OP_MAX || l->op >= BCN_IO_OP_MAX || l->t < 0 ||
	    l->pid == 0 || l->pid > BCN_LWFS_PID_MAX || l->name < p ||
	    l->name_len == 0 || l->name_len > BCN_LWFS_NAME_MAX ||
	    l->handle > INT64_MAX || l->ret_handle > INT64_MAX ||
	    (l->has_dur && l->dur < 0) || (!l->path && l->path2))
		abort();
	check_path(p, n, l->path, l->path_len, l->path_dlen);
	check_path(p, n, l->path2, l->path2_len, l->path2_dlen);
	switch (l->lop) {
	case BCN_LWFS_READ:
	case BCN_LWFS_WRITE:
		if (!l->has_handle || !l->has_size || !l->has_offset ||
		    l->size > UINT64_MAX - l->offset ||
		    (l->has_result && l->result > 0 &&
		     (uint64_t)l->result > l->size))
			abort();
		break;
	case BCN_LWFS_OPEN:
	case BCN_LWFS_CREATE:
		if (!l->path || l->has_ret_handle == failed)
			abort();
		break;
	case BCN_LWFS_RENAME:
		if (!l->path2)
			abort();
		break;
	default:
		break;
	}
}

static void check_line(const char *p, size_t n)
{
	struct bcn_lwfs_line a, b;
	enum bcn_lwfs_error ea, eb;
	int ra = bcn_lwfs_parse(p, n, 0, &a, &ea);
	int rb = bcn_lwfs_parse(p, n, 8 * 3600, &b, &eb);

	if (ra) {
		if ((ra != -BCN_ESYNTAX && ra != -BCN_ERANGE) ||
		    ea == BCN_LWFS_E_OK || ea >= BCN_LWFS_E_MAX ||
		    a.lop != BCN_LWFS_OP_MAX || a.path || a.has_handle)
			abort();
	} else {
		if (ea != BCN_LWFS_E_OK)
			abort();
		check_ok(p, n, &a);
	}
	if (!ra && !rb &&
	    (a.t - b.t != 8 * 3600 * 1000000000LL || a.lop != b.lop ||
	     a.size != b.size || a.path_len != b.path_len))
		abort();
	if (!ra && rb && eb != BCN_LWFS_E_EPOCH_RANGE)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	int32_t secs;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		check_line(p, n);
		p = nl ? nl + 1 : end;
	}
	if (bcn_lwfs_parse_utc_offset((const char *)data, size, &secs) == 0 &&
	    (secs < -BCN_LWFS_UTC_OFFSET_MAX || secs > BCN_LWFS_UTC_OFFSET_MAX))
		abort();
	return 0;
}
