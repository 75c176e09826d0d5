/* The trace log of an LWFS-style forwarding client (docs/lwfs-log.md): one
 * line per file-system operation a compute-node process made through the
 * client, as the clients of Sunway TaihuLight log them. This module is the
 * pure line parser (no I/O, no allocation); following the file and
 * turning the operations into records is lwfsrc.h. */
#ifndef BCN_LWFS_H
#define BCN_LWFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BCN_LWFS_LINE_MAX 32768         /* bytes of a line, newline excluded */
#define BCN_LWFS_PATH_MAX 4095          /* bytes of a path, escapes undone */
#define BCN_LWFS_NAME_MAX 32            /* bytes of an operation name */
#define BCN_LWFS_KEY_MAX 32             /* bytes of a key */
#define BCN_LWFS_ARGS_MAX 16            /* arguments of an operation */
#define BCN_LWFS_PID_MAX 4194304        /* Linux's PID_MAX_LIMIT */
#define BCN_LWFS_UTC_OFFSET_MAX (24 * 3600 - 60)  /* +-23:59 */

/* The operations the format names: (identifier, name in the log, the
 * enum bcn_io_op of the records). */
#define BCN_LWFS_OPS(X) \
	X(OPEN, "OPEN", BCN_IO_OPEN) X(CREATE, "CREATE", BCN_IO_OPEN) \
	X(RELEASE, "RELEASE", BCN_IO_CLOSE) X(READ, "READ", BCN_IO_READ) \
	X(WRITE, "WRITE", BCN_IO_WRITE) X(FSYNC, "FSYNC", BCN_IO_SYNC) \
	X(TRUNCATE, "TRUNCATE", BCN_IO_TRUNCATE) \
	X(GETATTR, "GETATTR", BCN_IO_STAT) \
	X(SETATTR, "SETATTR", BCN_IO_OTHER) \
	X(UNLINK, "UNLINK", BCN_IO_UNLINK) X(RENAME, "RENAME", BCN_IO_RENAME) \
	X(MKDIR, "MKDIR", BCN_IO_MKDIR) X(RMDIR, "RMDIR", BCN_IO_RMDIR) \
	X(LOOKUP, "LOOKUP", BCN_IO_STAT) X(STATFS, "STATFS", BCN_IO_OTHER)

#define BCN_X_LWFS(id, name, io) BCN_LWFS_##id,
enum bcn_lwfs_op {
	BCN_LWFS_OPS(BCN_X_LWFS)
	BCN_LWFS_UNKNOWN,       /* any other name that follows the grammar */
	BCN_LWFS_OP_MAX
};

/* Why a line is malformed: one code per class, each with its message
 * (bcn_lwfs_error_str). */
#define BCN_LWFS_ERRORS(X) \
	X(OK, "no error") \
	X(EMPTY, "empty line") \
	X(LONG, "line too long") \
	X(OPEN_BRACKET, "missing '[' before the time") \
	X(DATE, "bad date, want YYYY-MM-DD") \
	X(DATE_RANGE, "no such date") \
	X(TIME, "bad time of day, want HH:MM:SS") \
	X(TIME_RANGE, "time of day out of range") \
	X(FRACTION, "bad fraction of a second, want 1 to 9 digits") \
	X(CLOSE_BRACKET, "missing ']' after the time") \
	X(EPOCH_RANGE, "time before 1970 or after 2262") \
	X(PID, "bad process id") \
	X(PID_RANGE, "process id out of range") \
	X(NAME, "bad operation name") \
	X(NAME_LONG, "operation name too long") \
	X(OPEN_PAREN, "missing '(' after the operation name") \
	X(CLOSE_PAREN, "missing ')'") \
	X(ARG, "bad argument") \
	X(ARGS_MAX, "too many arguments") \
	X(QUOTE, "unterminated path string") \
	X(ESCAPE, "bad escape in a path") \
	X(PATH_CHAR, "control character in a path") \
	X(PATH_EMPTY, "empty path") \
	X(PATH_NUL, "NUL byte in a path") \
	X(PATH_LONG, "path too long") \
	X(PATHS, "more than two paths") \
	X(HANDLE, "bad handle") \
	X(HANDLE_RANGE, "handle out of range") \
	X(HANDLES, "more than one handle") \
	X(KEY, "bad key") \
	X(KEY_LONG, "key too long") \
	X(VALUE, "bad value") \
	X(VALUE_RANGE, "value out of range") \
	X(DUP_KEY, "repeated key") \
	X(INT_KEY, "size and offset take an integer") \
	X(DUR, "bad dur, want seconds with at most 9 decimals") \
	X(RET_HANDLE, "bad handle after '=>'") \
	X(RESULT, "bad result after '='") \
	X(RESULT_RANGE, "result out of range") \
	X(TRAILING, "unexpected text after the operation") \
	X(NEED_HANDLE, "the operation needs a handle") \
	X(NEED_PATH, "the operation needs a path") \
	X(NEED_TARGET, "the operation needs a handle or a path") \
	X(NEED_TWO_PATHS, "RENAME needs two paths") \
	X(NEED_SIZE, "READ and WRITE need size=") \
	X(NEED_OFFSET, "READ and WRITE need offset=") \
	X(NEED_RET_HANDLE, "OPEN and CREATE need '=> handle' or an error "\
	  "result") \
	X(FAILED_HANDLE, "a failed operation returned a handle") \
	X(END_RANGE, "offset + size beyond 2^64") \
	X(RESULT_SIZE, "more bytes transferred than size")

#define BCN_X_LWFS_E(id, msg) BCN_LWFS_E_##id,
enum bcn_lwfs_error { BCN_LWFS_ERRORS(BCN_X_LWFS_E) BCN_LWFS_E_MAX };

/* One parsed line. Paths point into the line, between their quotes, with
 * escapes as written (bcn_lwfs_unescape undoes them). */
struct bcn_lwfs_line {
	int64_t t;              /* ns since the epoch, UTC */
	uint32_t pid;           /* the process that made the operation */
	uint8_t lop;            /* enum bcn_lwfs_op */
	uint8_t op;             /* enum bcn_io_op */
	const char *name;       /* the operation name as written */
	size_t name_len;
	bool has_handle;        /* a handle argument */
	uint64_t handle;
	bool has_ret_handle;    /* "=> handle" */
	uint64_t ret_handle;
	const char *path;       /* first path, raw; NULL when none */
	size_t path_len;        /* raw bytes */
	size_t path_dlen;       /* bytes once unescaped, 1..PATH_MAX */
	const char *path2;      /* second path (RENAME's target) */
	size_t path2_len, path2_dlen;
	bool has_size, has_offset, has_dur, has_result;
	uint64_t size;          /* size=: bytes asked for, or a length */
	uint64_t offset;        /* offset= */
	int64_t dur;            /* dur=, in ns */
	int64_t result;         /* "= N": bytes moved, or -errno */
};

/* Parses one line (len bytes, without its newline; one trailing '\r' is
 * ignored) into *out. The time in the line is the log's local time, which
 * is utc_offset seconds ahead of UTC (-BCN_LWFS_UTC_OFFSET_MAX ..
 * +BCN_LWFS_UTC_OFFSET_MAX). On failure out->lop is BCN_LWFS_OP_MAX and
 * *err (may be NULL) says why; on success *err is BCN_LWFS_E_OK.
 * Returns 0, -BCN_ESYNTAX or -BCN_ERANGE. */
int bcn_lwfs_parse(const char *p, size_t len, int32_t utc_offset,
		   struct bcn_lwfs_line *out, enum bcn_lwfs_error *err);

/* The message of an error code ("missing ')'"), "?" when out of range. */
const char *bcn_lwfs_error_str(enum bcn_lwfs_error err);

/* The name of an operation ("OPEN"), "?" for UNKNOWN and out of range. */
const char *bcn_lwfs_op_name(enum bcn_lwfs_op op);

/* Undoes the escapes of a raw path of n bytes that bcn_lwfs_parse
 * accepted, writing at most outlen bytes to out (no NUL is added).
 * Returns the decoded length, or -BCN_EFULL when outlen is too small or
 * -BCN_ESYNTAX for a bad escape (a path the parser did not accept). */
int bcn_lwfs_unescape(const char *raw, size_t n, char *out, size_t outlen);

/* Parses a UTC offset "+HH:MM", "-HH:MM", "+HHMM", "-HHMM" or "Z" (len
 * bytes) into seconds east of UTC. Returns 0, -BCN_ESYNTAX or -BCN_ERANGE
 * (hours above 23, minutes above 59). */
int bcn_lwfs_parse_utc_offset(const char *s, size_t len, int32_t *secs);

#endif
