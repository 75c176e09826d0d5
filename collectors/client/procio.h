/* Pure parsers of the per-process files the /proc sampler reads
 * (procmon.h): /proc/<pid>/io (I/O counters), /proc/<pid>/stat (the
 * process's identity and start time) and the btime line of /proc/stat
 * (boot time). Formats as in the Linux proc(5) manual page. */
#ifndef BCN_PROCIO_H
#define BCN_PROCIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BCN_PROCIO_COMM_MAX 64          /* bytes of comm kept */
#define BCN_PROCIO_STAT_FIELDS 24       /* fields read: pid .. rss */
#define BCN_PROCIO_STAT_MIN 22          /* fields needed: pid .. starttime */

/* /proc/<pid>/io. have: bits (1 << BCN_PROCIO_*) of the counters found. */
enum {
	BCN_PROCIO_RCHAR, BCN_PROCIO_WCHAR, BCN_PROCIO_SYSCR, BCN_PROCIO_SYSCW,
	BCN_PROCIO_READ_BYTES, BCN_PROCIO_WRITE_BYTES,
	BCN_PROCIO_CANCELLED_WRITE_BYTES, BCN_PROCIO_NCOUNTERS
};

struct bcn_procio {
	uint64_t rchar;         /* bytes read by read(2)-like calls */
	uint64_t wchar;         /* bytes written by write(2)-like calls */
	uint64_t syscr;         /* read(2)-like calls */
	uint64_t syscw;         /* write(2)-like calls */
	uint64_t read_bytes;    /* bytes fetched from the storage layer */
	uint64_t write_bytes;   /* bytes sent to the storage layer */
	uint64_t cancelled_write_bytes;
	unsigned have;
};

/* Parses the text of /proc/<pid>/io: lines "name: decimal". Names this
 * parser does not know are skipped; rchar, wchar, syscr and syscw are
 * required. On failure *why (may be NULL) gets a static reason.
 * Returns 0, -BCN_ESYNTAX (a line of another shape, a repeated or missing
 * counter) or -BCN_ERANGE (a number above 2^64 - 1). */
int bcn_procio_parse_io(const char *p, size_t len, struct bcn_procio *out,
			const char **why);

/* The fields of /proc/<pid>/stat this project uses (numbers 1..24 of
 * proc(5)); nfields says how many were present (at least
 * BCN_PROCIO_STAT_MIN; vsize and rss are 0 when absent). */
struct bcn_procstat {
	int64_t pid;                    /* 1 */
	char comm[BCN_PROCIO_COMM_MAX + 1];     /* 2, without parentheses */
	size_t comm_len;                /* bytes in the file */
	bool comm_cut;                  /* comm_len > COMM_MAX */
	char state;                     /* 3 */
	int64_t ppid, pgrp, session, tty_nr, tpgid;     /* 4..8 */
	uint64_t flags, minflt, cminflt, majflt, cmajflt; /* 9..13 */
	uint64_t utime, stime;          /* 14, 15: clock ticks */
	int64_t cutime, cstime, priority, nice, num_threads, itrealvalue;
	uint64_t starttime;             /* 22: clock ticks after boot */
	uint64_t vsize;                 /* 23: bytes */
	int64_t rss;                    /* 24: pages */
	unsigned nfields;
};

/* Parses the text of /proc/<pid>/stat: "PID (COMM) STATE ..." where COMM
 * (any bytes, also spaces and parentheses) ends at the last ')' of the
 * text; the fields after it are single-space separated. Fields after the
 * 24th are not read. Returns 0, -BCN_ESYNTAX or -BCN_ERANGE; *why (may
 * be NULL) as above. */
int bcn_procio_parse_stat(const char *p, size_t len, struct bcn_procstat *out,
			  const char **why);

/* Finds the line "btime SECONDS" of /proc/stat. Returns 0, or
 * -BCN_ESYNTAX when there is no such line with a number in range. */
int bcn_procio_parse_btime(const char *p, size_t len, int64_t *btime);

#endif
