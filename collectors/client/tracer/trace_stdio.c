/* The stdio calls libbeacon_trace.so interposes (fopen, fclose, fread,
 * fwrite, fseek and their variants), and the calls after which a process
 * image ends (exec family, _exit), before which every thread's runs are
 * sent. The C library's own reads and writes under stdio do not go
 * through the interposed read/write, so each stdio call counts once, at
 * the stream's logical position. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/client/tracer/trace.h"
#include "proto/record.h"

/* optimised builds may define these as macros */
#undef fread_unlocked
#undef fwrite_unlocked

#define EXPORT __attribute__((visibility("default")))
#define REAL(name) static __typeof__(&name) real_##name
#define NEED(name) \
	(real_##name || bcn_trace_resolve((void **)&real_##name, #name))

EXPORT size_t __fread_chk(void *p, size_t pl, size_t sz, size_t n, FILE *f);
EXPORT size_t __fread_unlocked_chk(void *p, size_t pl, size_t sz, size_t n,
				   FILE *f);
EXPORT FILE *fopen64(const char *path, const char *mode);
EXPORT int fseeko64(FILE *f, off64_t off, int whence);

/* The descriptor of a stream, -1 when it has none (memory streams). */
static int stream_fd(FILE *f)
{
	int e = errno, fd = f ? fileno(f) : -1;

	errno = e;
	return fd;
}

#define FOPEN(name)							\
	REAL(name);							\
	EXPORT FILE *name(const char *path, const char *mode)		\
	{								\
		int64_t t0;						\
		FILE *r;						\
		int e;							\
		if (!NEED(name))					\
			return errno = ENOSYS, NULL;			\
		if (!bcn_trace_on())					\
			return real_##name(path, mode);			\
		t0 = bcn_trace_now();					\
		r = real_##name(path, mode);				\
		e = errno;						\
		bcn_trace_opened(r ? stream_fd(r) : -1, AT_FDCWD, path,	\
				 mode && strchr(mode, 'a') ? O_APPEND : 0, \
				 t0, bcn_trace_now());			\
		errno = e;						\
		return r;						\
	}
FOPEN(fopen)
FOPEN(fopen64)

REAL(fclose);
EXPORT int fclose(FILE *f)
{
	uint64_t file;
	int64_t t0;
	int r, e, fd;

	if (!NEED(fclose))
		return errno = ENOSYS, EOF;
	if (!bcn_trace_on())
		return real_fclose(f);
	fd = stream_fd(f);
	t0 = bcn_trace_now();
	file = fd >= 0 ? bcn_trace_close_begin(fd) : 0;
	r = real_fclose(f);
	e = errno;
	if (file)
		bcn_trace_close_end(fd, file, t0, bcn_trace_now());
	errno = e;
	return r;
}

/* A wrapper around a stdio data call returning items of size sz. */
#define SDATA(name, params, args, op)					\
	REAL(name);							\
	EXPORT size_t name params					\
	{								\
		int64_t t0;						\
		size_t r;						\
		int e, fd;						\
		if (!NEED(name))					\
			return errno = ENOSYS, 0;			\
		if (!bcn_trace_on() ||					\
		    !bcn_trace_fd_traced(fd = stream_fd(f)))		\
			return real_##name args;			\
		t0 = bcn_trace_now();					\
		r = real_##name args;					\
		e = errno;						\
		bcn_trace_rw(op, fd, (ssize_t)(r * sz), BCN_TRACE_AT_POS, \
			     0, t0, bcn_trace_now());			\
		errno = e;						\
		return r;						\
	}
SDATA(fread, (void *p, size_t sz, size_t n, FILE *f), (p, sz, n, f),
      BCN_IO_READ)
SDATA(fread_unlocked, (void *p, size_t sz, size_t n, FILE *f),
      (p, sz, n, f), BCN_IO_READ)
SDATA(__fread_chk, (void *p, size_t pl, size_t sz, size_t n, FILE *f),
      (p, pl, sz, n, f), BCN_IO_READ)
SDATA(__fread_unlocked_chk,
      (void *p, size_t pl, size_t sz, size_t n, FILE *f), (p, pl, sz, n, f),
      BCN_IO_READ)
SDATA(fwrite, (const void *p, size_t sz, size_t n, FILE *f), (p, sz, n, f),
      BCN_IO_WRITE)
SDATA(fwrite_unlocked, (const void *p, size_t sz, size_t n, FILE *f),
      (p, sz, n, f), BCN_IO_WRITE)

#define FSEEK(name, otype)						\
	REAL(name);							\
	EXPORT int name(FILE *f, otype off, int whence)			\
	{								\
		int64_t t0;						\
		int r, e, fd;						\
		off_t pos;						\
		if (!NEED(name))					\
			return errno = ENOSYS, -1;			\
		if (!bcn_trace_on() ||					\
		    !bcn_trace_fd_traced(fd = stream_fd(f)))		\
			return real_##name(f, off, whence);		\
		t0 = bcn_trace_now();					\
		r = real_##name(f, off, whence);			\
		e = errno;						\
		if (r == 0 && (pos = ftello(f)) >= 0)			\
			bcn_trace_fdop(BCN_IO_SEEK, fd, (uint64_t)pos,	\
				       t0, bcn_trace_now());		\
		errno = e;						\
		return r;						\
	}
FSEEK(fseek, long)
FSEEK(fseeko, off_t)
FSEEK(fseeko64, off64_t)

/* ---- the end of a process image ---------------------------------------------- */

#define EXEC(name, params, args)					\
	REAL(name);							\
	EXPORT int name params						\
	{								\
		int r_, e_;						\
									\
		if (!NEED(name))					\
			return errno = ENOSYS, -1;			\
		bcn_trace_flush_all(false);				\
		r_ = real_##name args;					\
		e_ = errno;						\
		bcn_trace_exec_failed();				\
		errno = e_;						\
		return r_;						\
	}
EXEC(execve, (const char *p, char *const a[], char *const v[]), (p, a, v))
EXEC(execv, (const char *p, char *const a[]), (p, a))
EXEC(execvp, (const char *p, char *const a[]), (p, a))
EXEC(execvpe, (const char *p, char *const a[], char *const v[]), (p, a, v))

#define EXIT(name)							\
	REAL(name);							\
	EXPORT void name(int status)					\
	{								\
		bcn_trace_flush_all(true);				\
		if (NEED(name))						\
			real_##name(status);				\
		syscall(SYS_exit_group, status);			\
		for (;;)						\
			;						\
	}
EXIT(_exit)
EXIT(_Exit)
