/* The POSIX I/O calls libbeacon_trace.so interposes (docs/tracer.md):
 * open family (and the _FORTIFY_SOURCE entry points __open_2 ...),
 * close, read/write and their positioned, vectored and checked forms,
 * lseek, fsync, fdatasync, ftruncate, the stat family, unlink, rename,
 * mkdir, rmdir, dup, copy_file_range and sendfile.
 *
 * Every wrapper resolves the real function on first use; if that fails it
 * makes the system call itself where there is one (else fails with
 * ENOSYS), untraced. It calls the real function once, keeps errno, and
 * records afterwards through trace.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collectors/client/tracer/trace.h"
#include "proto/record.h"

#define EXPORT __attribute__((visibility("default")))
#define REAL(name) static __typeof__(&name) real_##name
#define NEED(name) \
	(real_##name || bcn_trace_resolve((void **)&real_##name, #name))
#define ENOSYS_RET(v) (errno = ENOSYS, (v))

/* The fortified entry points have no declaration without _FORTIFY_SOURCE. */
EXPORT int __open_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags);
EXPORT int __openat_2(int dirfd, const char *path, int flags);
EXPORT int __openat64_2(int dirfd, const char *path, int flags);
EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off,
			   size_t buflen);
EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off,
			     size_t buflen);

/* ---- data ------------------------------------------------------------------ */

/* A wrapper around a call on descriptor fd; rec records it from the
 * result r and the times t0, t1. */
#define FDCALL(ret, name, params, args, fallback, rec)			\
	REAL(name);							\
	EXPORT ret name params						\
	{								\
		int64_t t0, t1;						\
		ret r;							\
		int e;							\
		if (!NEED(name))					\
			return fallback;				\
		if (!bcn_trace_on() || !bcn_trace_fd_traced(fd))	\
			return real_##name args;			\
		t0 = bcn_trace_now();					\
		r = real_##name args;					\
		e = errno;						\
		t1 = bcn_trace_now();					\
		rec;							\
		errno = e;						\
		return r;						\
	}

/* A call that moves data: op at the position or at offset off. */
#define DATA(ret, name, params, args, fallback, op, how, off)		\
	FDCALL(ret, name, params, args, fallback,			\
	       bcn_trace_rw(op, fd, (ssize_t)r, how, (uint64_t)(off), t0, t1))

#define AT_POS BCN_TRACE_AT_POS
#define AT_OFF BCN_TRACE_AT_OFFSET
#define RD BCN_IO_READ
#define WR BCN_IO_WRITE

DATA(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n),
     syscall(SYS_read, fd, b, n), RD, AT_POS, 0)
DATA(ssize_t, __read_chk, (int fd, void *b, size_t n, size_t bl),
     (fd, b, n, bl), syscall(SYS_read, fd, b, n), RD, AT_POS, 0)
DATA(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n),
     syscall(SYS_write, fd, b, n), WR, AT_POS, 0)
DATA(ssize_t, pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o),
     syscall(SYS_pread64, fd, b, n, o), RD, AT_OFF, o)
DATA(ssize_t, pread64, (int fd, void *b, size_t n, off64_t o),
     (fd, b, n, o), syscall(SYS_pread64, fd, b, n, o), RD, AT_OFF, o)
DATA(ssize_t, __pread_chk, (int fd, void *b, size_t n, off_t o, size_t bl),
     (fd, b, n, o, bl), syscall(SYS_pread64, fd, b, n, o), RD, AT_OFF, o)
DATA(ssize_t, __pread64_chk,
     (int fd, void *b, size_t n, off64_t o, size_t bl), (fd, b, n, o, bl),
     syscall(SYS_pread64, fd, b, n, o), RD, AT_OFF, o)
DATA(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o),
     (fd, b, n, o), syscall(SYS_pwrite64, fd, b, n, o), WR, AT_OFF, o)
DATA(ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o),
     (fd, b, n, o), syscall(SYS_pwrite64, fd, b, n, o), WR, AT_OFF, o)
DATA(ssize_t, readv, (int fd, const struct iovec *v, int c), (fd, v, c),
     syscall(SYS_readv, fd, v, c), RD, AT_POS, 0)
DATA(ssize_t, writev, (int fd, const struct iovec *v, int c), (fd, v, c),
     syscall(SYS_writev, fd, v, c), WR, AT_POS, 0)
DATA(ssize_t, preadv, (int fd, const struct iovec *v, int c, off_t o),
     (fd, v, c, o), ENOSYS_RET(-1), RD, AT_OFF, o)
DATA(ssize_t, preadv64, (int fd, const struct iovec *v, int c, off64_t o),
     (fd, v, c, o), ENOSYS_RET(-1), RD, AT_OFF, o)
DATA(ssize_t, pwritev, (int fd, const struct iovec *v, int c, off_t o),
     (fd, v, c, o), ENOSYS_RET(-1), WR, AT_OFF, o)
DATA(ssize_t, pwritev64, (int fd, const struct iovec *v, int c, off64_t o),
     (fd, v, c, o), ENOSYS_RET(-1), WR, AT_OFF, o)
DATA(ssize_t, preadv2,
     (int fd, const struct iovec *v, int c, off_t o, int fl),
     (fd, v, c, o, fl), ENOSYS_RET(-1), RD, o == -1 ? AT_POS : AT_OFF, o)
DATA(ssize_t, pwritev2,
     (int fd, const struct iovec *v, int c, off_t o, int fl),
     (fd, v, c, o, fl), ENOSYS_RET(-1), WR, o == -1 ? AT_POS : AT_OFF, o)

/* ---- operations on a descriptor ---------------------------------------------- */

/* A call on descriptor fd without data, recorded when ok, with the
 * offset pos computed from the result r and the arguments. */
#define FDOP(ret, name, params, args, fallback, op, ok, pos)		\
	FDCALL(ret, name, params, args, fallback,			\
	       if (ok) bcn_trace_fdop(op, fd, (uint64_t)(pos), t0, t1))

FDOP(off_t, lseek, (int fd, off_t o, int w), (fd, o, w),
     syscall(SYS_lseek, fd, o, w), BCN_IO_SEEK, r >= 0, r)
FDOP(off64_t, lseek64, (int fd, off64_t o, int w), (fd, o, w),
     syscall(SYS_lseek, fd, o, w), BCN_IO_SEEK, r >= 0, r)
FDOP(int, fsync, (int fd), (fd), syscall(SYS_fsync, fd), BCN_IO_SYNC, 1, 0)
FDOP(int, fdatasync, (int fd), (fd), syscall(SYS_fdatasync, fd),
     BCN_IO_SYNC, 1, 0)
FDOP(int, ftruncate, (int fd, off_t l), (fd, l),
     syscall(SYS_ftruncate, fd, l), BCN_IO_TRUNCATE, 1, l)
FDOP(int, ftruncate64, (int fd, off64_t l), (fd, l),
     syscall(SYS_ftruncate, fd, l), BCN_IO_TRUNCATE, 1, l)
FDOP(int, fstat, (int fd, struct stat *s), (fd, s),
     syscall(SYS_fstat, fd, s), BCN_IO_STAT, 1, 0)
FDOP(int, fstat64, (int fd, struct stat64 *s), (fd, s),
     syscall(SYS_fstat, fd, s), BCN_IO_STAT, 1, 0)

/* ---- open and close ------------------------------------------------------------ */

static mode_t open_mode(int flags, va_list ap)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return (mode_t)va_arg(ap, int);
	return 0;
}

/* A wrapper around an open call; dirfd and the mode are in scope. */
#define OPEN(name, params, call, fallback, dirfd, path, flags)		\
	REAL(name);							\
	EXPORT int name params						\
	{								\
		int64_t t0;						\
		int r, e;						\
		OPEN_MODE						\
		if (!NEED(name))					\
			return fallback;				\
		if (!bcn_trace_on())					\
			return call;					\
		t0 = bcn_trace_now();					\
		r = call;						\
		e = errno;						\
		bcn_trace_opened(r, dirfd, path, flags, t0,		\
				 bcn_trace_now());			\
		errno = e;						\
		return r;						\
	}

#define OPEN_MODE \
	mode_t mode; va_list ap; \
	va_start(ap, flags); mode = open_mode(flags, ap); va_end(ap);
OPEN(open, (const char *p, int flags, ...), real_open(p, flags, mode),
     (int)syscall(SYS_openat, AT_FDCWD, p, flags, mode), AT_FDCWD, p, flags)
OPEN(open64, (const char *p, int flags, ...), real_open64(p, flags, mode),
     (int)syscall(SYS_openat, AT_FDCWD, p, flags, mode), AT_FDCWD, p, flags)
OPEN(openat, (int d, const char *p, int flags, ...),
     real_openat(d, p, flags, mode),
     (int)syscall(SYS_openat, d, p, flags, mode), d, p, flags)
OPEN(openat64, (int d, const char *p, int flags, ...),
     real_openat64(d, p, flags, mode),
     (int)syscall(SYS_openat, d, p, flags, mode), d, p, flags)
#undef OPEN_MODE
#define OPEN_MODE
OPEN(__open_2, (const char *p, int flags), real___open_2(p, flags),
     (int)syscall(SYS_openat, AT_FDCWD, p, flags), AT_FDCWD, p, flags)
OPEN(__open64_2, (const char *p, int flags), real___open64_2(p, flags),
     (int)syscall(SYS_openat, AT_FDCWD, p, flags), AT_FDCWD, p, flags)
OPEN(__openat_2, (int d, const char *p, int flags),
     real___openat_2(d, p, flags), (int)syscall(SYS_openat, d, p, flags),
     d, p, flags)
OPEN(__openat64_2, (int d, const char *p, int flags),
     real___openat64_2(d, p, flags), (int)syscall(SYS_openat, d, p, flags),
     d, p, flags)
#undef OPEN_MODE
#define OPEN_MODE const int flags = O_CREAT | O_WRONLY | O_TRUNC;
OPEN(creat, (const char *p, mode_t m), real_creat(p, m),
     (int)syscall(SYS_openat, AT_FDCWD, p, flags, m), AT_FDCWD, p, flags)
OPEN(creat64, (const char *p, mode_t m), real_creat64(p, m),
     (int)syscall(SYS_openat, AT_FDCWD, p, flags, m), AT_FDCWD, p, flags)
#undef OPEN_MODE

REAL(close);
EXPORT int close(int fd)
{
	uint64_t file;
	int64_t t0;
	int r, e;

	if (!NEED(close))
		return (int)syscall(SYS_close, fd);
	if (!bcn_trace_on())
		return real_close(fd);
	t0 = bcn_trace_now();
	file = bcn_trace_close_begin(fd);
	r = real_close(fd);
	e = errno;
	bcn_trace_close_end(fd, file, t0, bcn_trace_now());
	errno = e;
	return r;
}

/* ---- operations on paths ---------------------------------------------------------- */

/* A wrapper around a call on a path relative to dirfd; an empty path with
 * AT_EMPTY_PATH (empty) is an operation on the descriptor dirfd. */
#define PATHOP(ret, name, params, args, fallback, op, dirfd, path, empty) \
	REAL(name);							\
	EXPORT ret name params						\
	{								\
		int64_t t0;						\
		ret r;							\
		int e;							\
		if (!NEED(name))					\
			return fallback;				\
		if (!bcn_trace_on())					\
			return real_##name args;			\
		if (empty) {						\
			if (!bcn_trace_fd_traced(dirfd))		\
				return real_##name args;		\
		}							\
		t0 = bcn_trace_now();					\
		r = real_##name args;					\
		e = errno;						\
		if (empty)						\
			bcn_trace_fdop(op, dirfd, 0, t0,		\
				       bcn_trace_now());		\
		else							\
			bcn_trace_pathop(op, dirfd, path, t0,		\
					 bcn_trace_now());		\
		errno = e;						\
		return r;						\
	}

#define CWD AT_FDCWD
#define EMPTY(p, fl) empty_path(p, fl)

/* An empty path with AT_EMPTY_PATH: the call is about dirfd itself. */
static int empty_path(const char *p, int flags)
{
	return p && !p[0] && (flags & AT_EMPTY_PATH);
}

PATHOP(int, stat, (const char *p, struct stat *s), (p, s),
       ENOSYS_RET(-1), BCN_IO_STAT, CWD, p, 0)
PATHOP(int, stat64, (const char *p, struct stat64 *s), (p, s),
       ENOSYS_RET(-1), BCN_IO_STAT, CWD, p, 0)
PATHOP(int, lstat, (const char *p, struct stat *s), (p, s),
       ENOSYS_RET(-1), BCN_IO_STAT, CWD, p, 0)
PATHOP(int, lstat64, (const char *p, struct stat64 *s), (p, s),
       ENOSYS_RET(-1), BCN_IO_STAT, CWD, p, 0)
PATHOP(int, fstatat, (int d, const char *p, struct stat *s, int fl),
       (d, p, s, fl), ENOSYS_RET(-1), BCN_IO_STAT, d, p, EMPTY(p, fl))
PATHOP(int, fstatat64, (int d, const char *p, struct stat64 *s, int fl),
       (d, p, s, fl), ENOSYS_RET(-1), BCN_IO_STAT, d, p, EMPTY(p, fl))
PATHOP(int, statx,
       (int d, const char *p, int fl, unsigned m, struct statx *s),
       (d, p, fl, m, s), ENOSYS_RET(-1), BCN_IO_STAT, d, p, EMPTY(p, fl))
PATHOP(int, unlink, (const char *p), (p), (int)syscall(SYS_unlink, p),
       BCN_IO_UNLINK, CWD, p, 0)
PATHOP(int, unlinkat, (int d, const char *p, int fl), (d, p, fl),
       (int)syscall(SYS_unlinkat, d, p, fl),
       (fl & AT_REMOVEDIR) ? BCN_IO_RMDIR : BCN_IO_UNLINK, d, p, 0)
PATHOP(int, rename, (const char *p, const char *q), (p, q),
       (int)syscall(SYS_rename, p, q), BCN_IO_RENAME, CWD, p, 0)
PATHOP(int, renameat, (int d, const char *p, int d2, const char *q),
       (d, p, d2, q), (int)syscall(SYS_renameat, d, p, d2, q),
       BCN_IO_RENAME, d, p, 0)
PATHOP(int, renameat2,
       (int d, const char *p, int d2, const char *q, unsigned fl),
       (d, p, d2, q, fl), (int)syscall(SYS_renameat2, d, p, d2, q, fl),
       BCN_IO_RENAME, d, p, 0)
PATHOP(int, mkdir, (const char *p, mode_t m), (p, m),
       (int)syscall(SYS_mkdir, p, m), BCN_IO_MKDIR, CWD, p, 0)
PATHOP(int, mkdirat, (int d, const char *p, mode_t m), (d, p, m),
       (int)syscall(SYS_mkdirat, d, p, m), BCN_IO_MKDIR, d, p, 0)
PATHOP(int, rmdir, (const char *p), (p), (int)syscall(SYS_rmdir, p),
       BCN_IO_RMDIR, CWD, p, 0)

/* ---- descriptors copied, data copied in the kernel ------------------------------- */

/* A call passed through, then, when its result r satisfies ok, one
 * action of the tracer's (errno kept). */
#define AFTER(name, params, args, fallback, ok, then)			\
	REAL(name);							\
	EXPORT int name params						\
	{								\
		int r, e;						\
		if (!NEED(name))					\
			return fallback;				\
		r = real_##name args;					\
		e = errno;						\
		if (ok)							\
			then;						\
		errno = e;						\
		return r;						\
	}
#define DUP(name, params, args, fallback, from, to)			\
	AFTER(name, params, args, fallback, r >= 0 && bcn_trace_on(),	\
	      bcn_trace_dup(from, to))
DUP(dup, (int fd), (fd), (int)syscall(SYS_dup, fd), fd, r)
DUP(dup2, (int fd, int fd2), (fd, fd2), (int)syscall(SYS_dup2, fd, fd2),
    fd, fd2)
DUP(dup3, (int fd, int fd2, int fl), (fd, fd2, fl),
    (int)syscall(SYS_dup3, fd, fd2, fl), fd, fd2)

/* The working directory: not recorded, but relative paths are resolved
 * against a copy the tracer keeps until it changes. */
#define CHDIR(name, params, args, fallback)				\
	AFTER(name, params, args, fallback, r == 0, bcn_trace_cwd_changed())
CHDIR(chdir, (const char *p), (p), (int)syscall(SYS_chdir, p))
CHDIR(fchdir, (int fd), (fd), (int)syscall(SYS_fchdir, fd))

/* The read side and the write side of an in-kernel copy of r bytes. */
static void copied(int in, int out, ssize_t r, const loff_t *inoff,
		   loff_t inoff0, const loff_t *outoff, loff_t outoff0,
		   int64_t t0, int64_t t1)
{
	if (bcn_trace_fd_traced(in))
		bcn_trace_rw(BCN_IO_READ, in, r, inoff ? AT_OFF : AT_POS,
			     (uint64_t)inoff0, t0, t1);
	if (bcn_trace_fd_traced(out))
		bcn_trace_rw(BCN_IO_WRITE, out, r, outoff ? AT_OFF : AT_POS,
			     (uint64_t)outoff0, t0, t1);
}

REAL(copy_file_range);
EXPORT ssize_t copy_file_range(int in, loff_t *inoff, int out,
			       loff_t *outoff, size_t len, unsigned fl)
{
	loff_t i0 = inoff ? *inoff : 0, o0 = outoff ? *outoff : 0;
	int64_t t0;
	ssize_t r;
	int e;

	if (!NEED(copy_file_range))
		return syscall(SYS_copy_file_range, in, inoff, out, outoff,
			       len, fl);
	if (!bcn_trace_on())
		return real_copy_file_range(in, inoff, out, outoff, len, fl);
	t0 = bcn_trace_now();
	r = real_copy_file_range(in, inoff, out, outoff, len, fl);
	e = errno;
	copied(in, out, r, inoff, i0, outoff, o0, t0, bcn_trace_now());
	errno = e;
	return r;
}

#define SENDFILE(name, otype)						\
	REAL(name);							\
	EXPORT ssize_t name(int out, int in, otype *off, size_t n)	\
	{								\
		loff_t o0 = off ? (loff_t)*off : 0;			\
		int64_t t0;						\
		ssize_t r;						\
		int e;							\
		if (!NEED(name))					\
			return syscall(SYS_sendfile, out, in, off, n);	\
		if (!bcn_trace_on())					\
			return real_##name(out, in, off, n);		\
		t0 = bcn_trace_now();					\
		r = real_##name(out, in, off, n);			\
		e = errno;						\
		copied(in, out, r, off ? &o0 : NULL, o0, NULL, 0, t0,	\
		       bcn_trace_now());				\
		errno = e;						\
		return r;						\
	}
SENDFILE(sendfile, off_t)
SENDFILE(sendfile64, off64_t)
