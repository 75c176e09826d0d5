/* Descriptions of beacon's error codes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

static const char *const bcn_errtab[] = {
	[BCN_ETRUNC - BCN_ERR_BASE] = "truncated input",
	[BCN_EMAGIC - BCN_ERR_BASE] = "bad magic: not a beacon frame",
	[BCN_EVERSION - BCN_ERR_BASE] = "unsupported protocol version",
	[BCN_ETOOBIG - BCN_ERR_BASE] = "size exceeds the configured maximum",
	[BCN_ECHECKSUM - BCN_ERR_BASE] = "checksum mismatch",
	[BCN_ECORRUPT - BCN_ERR_BASE] = "corrupt content",
	[BCN_EKIND - BCN_ERR_BASE] = "unknown frame kind or flags",
	[BCN_ESYNTAX - BCN_ERR_BASE] = "syntax error",
	[BCN_ERANGE - BCN_ERR_BASE] = "value out of range",
	[BCN_EFULL - BCN_ERR_BASE] = "bounded buffer full",
};

const char *bcn_strerror(int err)
{
	int e = err < 0 ? -err : err;

	if (e == 0)
		return "success";
	if (e > BCN_ERR_BASE && e < BCN_ERR_MAX && bcn_errtab[e - BCN_ERR_BASE])
		return bcn_errtab[e - BCN_ERR_BASE];
	return strerror(e);
}

void bcn_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int bcn_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}
