/* Job-record parsers: what the sacct, Standard Workload Format, CSV and
 * forwarding-map parsers share. Each parser is a pure function over a
 * buffer: it calls fn once per good row and err once per bad row (with
 * the 1-based line number and a reason), then goes on with the next row,
 * so one bad row never costs the rest of a file. */
#ifndef BCN_JOBPARSE_H
#define BCN_JOBPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "jobs/job.h"

#define BCN_JOBPARSE_LINE_MAX (BCN_JOB_NODELIST_MAX + 8192) /* one row */
#define BCN_JOBPARSE_COLS_MAX 128       /* columns of one row */
#define BCN_JOBPARSE_REASON_MAX 160

struct bcn_jobparse_opts {
	/* sacct: the column names, comma-separated as for sacct --format,
	 * when the input has no header line; NULL: the first line is the
	 * header. */
	const char *columns;
	/* sacct: the field delimiter (sacct --delimiter), "" or NULL: "|".
	 * A trailing delimiter (sacct --parsable) is accepted. */
	const char *delim;
	/* sacct and SWF times are the cluster's local time: seconds east of
	 * UTC to subtract (sacct: 0 unless the site sets it; SWF: added to
	 * the header's TimeZone only when no UnixStartTime is given). */
	int64_t utc_offset_s;
};

struct bcn_jobparse_stats {
	uint64_t lines;         /* lines read, comments and blanks included */
	uint64_t rows;          /* rows delivered to fn */
	uint64_t rejected;      /* rows handed to err */
};

/* Called once per good row; the job's strings live until it returns.
 * A non-zero return stops the parse, which returns that value. */
typedef int bcn_job_fn(void *arg, const struct bcn_job *j);
typedef int bcn_fwdmap_fn(void *arg, const struct bcn_fwdmap_entry *e);
/* Called once per rejected row. */
typedef void bcn_jobparse_err_fn(void *arg, uint64_t line, const char *reason);

/* Internal to the parsers in jobs/: fields of one row, the row's
 * string scratch and the shared field converters. */
struct bcn_jobparse_field {
	const char *p;
	size_t len;
};

struct bcn_jobparse_row {
	struct bcn_jobparse_field f[BCN_JOBPARSE_COLS_MAX];
	size_t n;
	char *scratch;          /* BCN_JOBPARSE_LINE_MAX + COLS_MAX bytes */
	size_t used;
	char reason[BCN_JOBPARSE_REASON_MAX];
};

int bcn_jobparse_row_init(struct bcn_jobparse_row *r);
void bcn_jobparse_row_free(struct bcn_jobparse_row *r);

/* Splits line[0..len) at every occurrence of delim (dlen bytes) into
 * r->f. Returns 0 or -BCN_ETOOBIG (more than BCN_JOBPARSE_COLS_MAX). */
int bcn_jobparse_split(struct bcn_jobparse_row *r, const char *line,
		       size_t len, const char *delim, size_t dlen);
/* Splits at runs of blanks (spaces, tabs), ignoring leading and trailing
 * ones. */
int bcn_jobparse_split_ws(struct bcn_jobparse_row *r, const char *line,
			  size_t len);

/* Copies a field into the row's scratch as a NUL-terminated string of at
 * most max bytes; *out points to it. Returns 0 or -BCN_ETOOBIG, with a
 * reason naming what in r->reason. */
int bcn_jobparse_str(struct bcn_jobparse_row *r, struct bcn_jobparse_field f,
		     size_t max, const char *what, const char **out);

/* Sets r->reason and returns -BCN_ESYNTAX. */
int bcn_jobparse_fail(struct bcn_jobparse_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A non-negative integer, "" giving dflt. */
int bcn_jobparse_u64(struct bcn_jobparse_row *r, struct bcn_jobparse_field f,
		     uint64_t dflt, const char *what, uint64_t *v);
/* A point in time: "", "Unknown", "None" and "-" give 0; epoch seconds;
 * ISO 8601 with a zone; a date and time without a zone (Slurm's
 * YYYY-MM-DDTHH:MM:SS) is local time, utc_offset_s east of UTC. */
int bcn_jobparse_time(struct bcn_jobparse_row *r, struct bcn_jobparse_field f,
		      int64_t utc_offset_s, const char *what, int64_t *ns);
/* Checks a hostlist expression (expands it, bounded) and counts its
 * hosts into *n (may be NULL). */
int bcn_jobparse_hostlist(struct bcn_jobparse_row *r, const char *expr,
			  uint64_t *n);
/* Checks what every job must satisfy: an id, a known state, end not
 * before start. */
int bcn_jobparse_check(struct bcn_jobparse_row *r, const struct bcn_job *j);

/* Case-insensitive equality of a field and a NUL-terminated name. */
int bcn_jobparse_eq(struct bcn_jobparse_field f, const char *name);

#endif
