/* The datagrams the tracer (libbeacon_trace.so) sends to beacon-clientd
 * over a local Unix socket (docs/tracer.md): a fixed header saying who
 * sent them (job, step, rank, pid, thread) and how much the tracer had to
 * drop, then compressed runs of I/O operations (compress/iorun.h), each
 * with the path when it is an open. Both ends run on the same machine:
 * fields are in host byte order.
 *
 * The encoder is what the tracer links (no allocation, no system call);
 * the decoder is a pure function over a buffer that trusts nothing. */
#ifndef BCN_TMSG_H
#define BCN_TMSG_H

#include <stddef.h>
#include <stdint.h>

#include "compress/iorun.h"

#define BCN_TMSG_MAGIC 0x54434e42u      /* "BNCT" in memory on LE */
#define BCN_TMSG_VERSION 2               /* 1: full records only (still
					 * read: a job started before an
					 * upgrade keeps its old tracer) */
#define BCN_TMSG_MAX (32 * 1024)        /* largest datagram, bytes */
#define BCN_TMSG_PATH_MAX 4095          /* longest path carried */
#define BCN_TMSG_HDR_LEN 80
#define BCN_TMSG_REC_LEN 72             /* a full record without its
					 * path: the largest form */
#define BCN_TMSG_ONE_LEN 48             /* one operation with data */
#define BCN_TMSG_META_LEN 32            /* one operation without */

/* Record forms (byte 1 of a record). A run of one operation whose busy
 * time is its duration (under 2^32 ns) needs neither count, stride nor
 * busy: the tracer writes it in a short form, and an open or close
 * (offset and size 0) in a shorter one. The decoder gives back the same
 * run whichever form it came in. */
enum bcn_tmsg_form {
	BCN_TMSG_FORM_FULL = 0,
	BCN_TMSG_FORM_ONE = 1,
	BCN_TMSG_FORM_META = 2,
};

/* Header flags. */
#define BCN_TMSG_F_ENV_JOB 0x1          /* job/step came from the
					 * environment (else unknown) */
#define BCN_TMSG_F_LAST 0x2             /* the process or thread ends */
#define BCN_TMSG_F_END 0x4              /* the end of a process image's
					 * stream: no records; its seq is
					 * the stream's last, so every gap
					 * before it is a datagram lost */
#define BCN_TMSG_F_PARTIAL 0x8          /* with END: a thread's runs could
					 * not be taken (its state was in
					 * use); their operations are lost */

struct bcn_tmsg_hdr {
	uint32_t flags;
	uint32_t nrec;                  /* records that follow */
	uint64_t job;                   /* 0: unknown */
	uint64_t step;
	int64_t rank;                   /* -1: unknown */
	uint64_t pid;                   /* as the sender says */
	uint64_t tid;
	uint64_t seq;                   /* datagrams of this process, from
					 * 1: gaps are datagrams lost */
	uint64_t dropped_ops;           /* operations this process dropped,
					 * since it started (cumulative) */
	uint64_t untraced;              /* calls passed through untraced
					 * (reentrant, signal handlers),
					 * cumulative */
};

/* One decoded record: a run, and the path of an open (else len 0). */
struct bcn_tmsg_rec {
	struct bcn_iorun run;
	const char *path;               /* into the datagram, not NUL-ended */
	size_t path_len;
};

/* Writes the header at buf[0 .. BCN_TMSG_HDR_LEN). */
void bcn_tmsg_put_hdr(uint8_t *buf, const struct bcn_tmsg_hdr *h);

/* Bytes the record of run with a path of path_len bytes takes, in the
 * shortest form that holds it (8-byte aligned; path_len is cut to
 * BCN_TMSG_PATH_MAX). At most bcn_tmsg_rec_size(NULL, path_len), the
 * full form's size. */
size_t bcn_tmsg_rec_size(const struct bcn_iorun *run, size_t path_len);

/* Writes one record at buf (which must have bcn_tmsg_rec_size(run,
 * path_len) bytes) in the shortest form that holds run; path_len is cut
 * to BCN_TMSG_PATH_MAX. Returns bytes written. */
size_t bcn_tmsg_put_rec(uint8_t *buf, const struct bcn_iorun *run,
			const char *path, size_t path_len);

/* Parses the header of a datagram of len bytes (version 1 or 2). Returns
 * 0, -BCN_ETRUNC (shorter than a header), -BCN_EMAGIC, -BCN_EVERSION. */
int bcn_tmsg_parse_hdr(const uint8_t *buf, size_t len,
		       struct bcn_tmsg_hdr *h);

/* Parses the record at *off (which starts after the header) and advances
 * *off past it. Returns 0, -BCN_ETRUNC (a record runs past len), or
 * -BCN_ERANGE (an unknown form, an op out of range, a count of 0, a path
 * too long, a run ending before it starts, padding not zero). Pure. */
int bcn_tmsg_next(const uint8_t *buf, size_t len, size_t *off,
		  struct bcn_tmsg_rec *rec);

#endif
