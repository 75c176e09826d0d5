/* The tracer's core, shared by its interposition layers
 * (trace_posix.c, trace_stdio.c): process-wide settings, the descriptor
 * table, per-thread compressors and the datagrams to beacon-clientd
 * (docs/tracer.md). Nothing here is exported from libbeacon_trace.so.
 *
 * The rules every wrapper follows: call the real function exactly once
 * with the caller's arguments, return what it returned with errno as it
 * left it, and record only afterwards (bcn_trace_* below), so that a
 * failure of the tracer can never change what the program sees. */
#ifndef BCN_TRACE_H
#define BCN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BCN_TRACE_HIDDEN __attribute__((visibility("hidden")))

#define BCN_TRACE_FDS 65536             /* descriptors with a table entry */
#define BCN_TRACE_FLUSH_MS_DEF 1000     /* runs leave a thread at least
					 * this often while it does I/O */
#define BCN_TRACE_QUEUE 16              /* datagrams a thread holds while
					 * the daemon's socket is full */
/* Full datagrams a thread seals before it sends them, back to back: the
 * daemon wakes once for them instead of once each (a wakeup cost it about
 * 35 us of CPU on the machine of 2026-11-29, 35 ns a read at 10,000 reads
 * a second with 32 KiB datagrams); the flush interval and the thread's
 * end send them sooner. At most the datagrams the kernel lets one socket
 * have in flight by default (wmem_default 212992 bytes: 6 of 32 KiB). */
#define BCN_TRACE_SEND_BATCH 4
#define BCN_TRACE_SOCKET_DEF "@beacon-clientd"  /* '@': abstract name */

/* Resolves the next definition of name (the real function) into *slot.
 * Returns true when *slot is set. */
BCN_TRACE_HIDDEN bool bcn_trace_resolve(void **slot, const char *name);

/* True when tracing is on for this process (initialising it on the first
 * call): false while it starts, when disabled, and after exit began. */
BCN_TRACE_HIDDEN bool bcn_trace_on(void);

/* Wall-clock time, ns since the epoch. */
BCN_TRACE_HIDDEN int64_t bcn_trace_now(void);

/* True when I/O on fd is traced: a regular file or block device (other
 * descriptors, such as sockets and pipes, are not); classifies a
 * descriptor the tracer has not seen opened on first use. */
BCN_TRACE_HIDDEN bool bcn_trace_fd_traced(int fd);

/* Records that fd was opened on path (relative to dirfd, AT_FDCWD for
 * the working directory) with open(2) flags. fd < 0: a failed open, also
 * recorded. */
BCN_TRACE_HIDDEN void bcn_trace_opened(int fd, int dirfd, const char *path,
				       int flags, int64_t start, int64_t end);

/* The two halves of close(fd): begin, before the real close (the number
 * may be reused by another thread at once), forgets the descriptor and
 * returns its file id (0 when not traced); end records the close. */
BCN_TRACE_HIDDEN uint64_t bcn_trace_close_begin(int fd);
BCN_TRACE_HIDDEN void bcn_trace_close_end(int fd, uint64_t file,
					  int64_t start, int64_t end);

/* Position handling of a data operation. */
enum bcn_trace_pos {
	BCN_TRACE_AT_POS,       /* at the descriptor's position, moving it */
	BCN_TRACE_AT_OFFSET,    /* at the given offset (pread, pwrite) */
};

/* Records a read or write (op: enum bcn_io_op) of res bytes on fd (res <
 * 0: failed, recorded with size 0). */
BCN_TRACE_HIDDEN void bcn_trace_rw(int op, int fd, ssize_t res,
				   enum bcn_trace_pos how, uint64_t offset,
				   int64_t start, int64_t end);

/* Records an operation on fd without data: seek (the new position in
 * offset, also stored as the position), sync, truncate (length in
 * offset), stat. */
BCN_TRACE_HIDDEN void bcn_trace_fdop(int op, int fd, uint64_t offset,
				     int64_t start, int64_t end);

/* Records an operation on a path (stat, unlink, rename, mkdir, rmdir),
 * relative to dirfd. */
BCN_TRACE_HIDDEN void bcn_trace_pathop(int op, int dirfd, const char *path,
				       int64_t start, int64_t end);

/* The working directory changed (chdir, fchdir): the next relative path
 * reads it again (it is cached, per thread, until then). */
BCN_TRACE_HIDDEN void bcn_trace_cwd_changed(void);

/* fd2 now refers to what fd refers to (dup family). */
BCN_TRACE_HIDDEN void bcn_trace_dup(int fd, int fd2);

/* Ends this process image's stream to beacon-clientd: every thread's
 * runs are sent, waiting (bounded by BEACON_TRACE_EXIT_WAIT_MS in all)
 * while the daemon's socket is full, what still cannot go is counted as
 * dropped, and an end datagram says how many datagrams the stream had.
 * With final, tracing stops for good (exit); without, it goes on (exec,
 * which may fail: then bcn_trace_exec_failed starts a new stream). */
BCN_TRACE_HIDDEN void bcn_trace_flush_all(bool final);

/* An exec returned (failed): the process goes on as a new stream. */
BCN_TRACE_HIDDEN void bcn_trace_exec_failed(void);

#endif
