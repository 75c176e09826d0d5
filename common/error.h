/* Error codes of beacon: functions return 0 or a negative code, either a
 * negated errno value (-ENOMEM, -EINVAL, ...) or one of the BCN_E* codes
 * below for failures errno has no name for. */
#ifndef BCN_ERROR_H
#define BCN_ERROR_H

#include <stddef.h>

enum {
	BCN_ERR_BASE = 10000,
	BCN_ETRUNC,     /* input ends before the structure does */
	BCN_EMAGIC,     /* not a beacon frame: wrong magic bytes */
	BCN_EVERSION,   /* protocol version this build does not speak */
	BCN_ETOOBIG,    /* a declared size exceeds the configured maximum */
	BCN_ECHECKSUM,  /* checksum mismatch */
	BCN_ECORRUPT,   /* structure is malformed inside a valid envelope */
	BCN_EKIND,      /* unknown frame kind or flags */
	BCN_ESYNTAX,    /* text input does not follow its grammar */
	BCN_ERANGE,     /* a value lies outside its documented bounds */
	BCN_EFULL,      /* a bounded buffer or table is full */
	BCN_ERR_MAX
};

/* Returns a static, human-readable description of a code returned by any
 * beacon function (0, a negated errno value or a negated BCN_E* value). */
const char *bcn_strerror(int err);

/* Formats a message into err (errlen bytes, always NUL-terminated); err
 * may be NULL. For functions that report errors through a buffer. */
void bcn_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* bcn_seterr, then returns rc: "return bcn_fail(err, errlen, -EINVAL, ...)". */
int bcn_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
