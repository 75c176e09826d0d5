/* The forwarding-server request log (docs/fwdlog.md): one line per
 * completed request, a queue-length sample line every 1000 requests, a
 * versioned header line and comments. This module is the pure line parser;
 * following the file is collectors/runtime/follow.h. */
#ifndef BCN_FWDLOG_H
#define BCN_FWDLOG_H

#include <stddef.h>
#include <stdint.h>

#define BCN_FWDLOG_VERSION 1            /* the version this parser reads */
#define BCN_FWDLOG_MAGIC "#beacon-fwdlog"
#define BCN_FWDLOG_LINE_MAX 512         /* bytes of a line, newline excluded */
#define BCN_FWDLOG_OP_MAX 32            /* bytes of an operation name */
#define BCN_FWDLOG_TOKEN_MAX 64         /* bytes of the client and handle */
#define BCN_FWDLOG_DIGITS_MAX 15        /* digits of bytes, latency, proc, queue */
#define BCN_FWDLOG_VALUE_MAX 999999999999999ULL
#define BCN_FWDLOG_SEC_MAX 9223372035LL /* seconds whose ns fit an int64 */

enum bcn_fwdlog_kind {
	BCN_FWDLOG_HEADER = 1,  /* "#beacon-fwdlog 1 ..." */
	BCN_FWDLOG_COMMENT,     /* any other line starting with '#' */
	BCN_FWDLOG_REQUEST,     /* a completed request */
	BCN_FWDLOG_QUEUE,       /* a queue-length sample */
};

/* One parsed line. Only the fields of its kind are set. */
struct bcn_fwdlog_line {
	int kind;               /* enum bcn_fwdlog_kind */
	unsigned version;       /* HEADER: the format version */
	int64_t t;              /* REQUEST, QUEUE: completion time, ns */
	unsigned cls;           /* REQUEST: enum bcn_fwd_class, never ALL */
	uint64_t bytes;         /* REQUEST: bytes moved */
	uint64_t latency;       /* REQUEST: arrival to reply, us */
	uint64_t proc;          /* REQUEST: start of service to reply, us */
	uint64_t queue;         /* QUEUE: requests waiting */
};

/* Parses the line at p (len bytes, without its newline) into *out. A
 * header of another version is -BCN_EVERSION. On failure *why (may be
 * NULL) points to a static, human-readable reason.
 * Returns 0, -BCN_ESYNTAX, -BCN_ERANGE or -BCN_EVERSION. */
int bcn_fwdlog_parse(const char *p, size_t len, struct bcn_fwdlog_line *out,
		     const char **why);

/* The request class (enum bcn_fwd_class: READ, WRITE, META or OTHER) of
 * an operation name of n bytes, which must follow the grammar of <op>. */
unsigned bcn_fwdlog_op_class(const char *op, size_t n);

#endif
