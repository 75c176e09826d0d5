/* Pure parser of Lustre's job_stats files (obdfilter/<target>/job_stats
 * and mdt/<target>/job_stats), in all the forms real servers print:
 *  - 2.4 to 2.10: integer snapshot_time, "{ samples: N, unit: reqs }" and
 *    "{ samples: N, unit: bytes, min: a, max: b, sum: s }";
 *  - 2.12 to 2.14: the same with sumsq, latencies in usecs;
 *  - 2.15: snapshot_time/start_time/elapsed_time in "secs.nsecs",
 *    "hist: { 4K: 35, ... }" on read_bytes/write_bytes, job ids quoted
 *    (with \xHH escapes) when they hold characters YAML reserves.
 * The input may come in chunks of any size (a job_stats file of a busy
 * server is megabytes); each job is handed to a callback as soon as its
 * block is complete, so memory stays bounded by one job. */
#ifndef BCN_LUSTRE_JOBSTATS_H
#define BCN_LUSTRE_JOBSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/lustre/lustre_stats.h"

/* Longest job id kept, in bytes after unescaping (Lustre's own limit,
 * LUSTRE_JOBID_SIZE, is 32 with the NUL). Longer ids skip their job. */
#define BCN_LUSTRE_JOBID_MAX 255

/* One job's block. */
struct bcn_lustre_job {
	char jobid[BCN_LUSTRE_JOBID_MAX + 1];   /* unquoted, unescaped */
	size_t jobid_len;
	int64_t snapshot_ns;                    /* -1 when absent */
	int64_t start_ns;                       /* -1 when absent (< 2.15) */
	int64_t elapsed_ns;                     /* -1 when absent */
	struct bcn_lustre_vals vals;            /* through the map */
};

/* Called for each complete job; a negative return stops the parser. */
typedef int bcn_lustre_job_fn(void *arg, const struct bcn_lustre_job *job);

/* Parser state; the counters are the results. */
struct bcn_lustre_jobstats {
	uint32_t jobs;          /* jobs handed to fn */
	uint32_t empty_ids;     /* blocks skipped: empty job_id */
	uint32_t bad_ids;       /* blocks skipped: id too long or bad quoting */
	uint32_t malformed;     /* lines skipped */
	uint32_t unmapped;      /* counter lines whose name the map ignores */
	/* private */
	const struct bcn_lustre_map *map;
	bcn_lustre_job_fn *fn;
	void *arg;
	int state;
	int rc;
	struct bcn_lustre_lines lines;
	struct bcn_lustre_job cur;
};

/* Prepares js to parse one file through map, calling fn(arg, job). */
void bcn_lustre_jobstats_init(struct bcn_lustre_jobstats *js,
			      const struct bcn_lustre_map *map,
			      bcn_lustre_job_fn *fn, void *arg);

/* Parses the next len bytes. Returns 0, or the negative return of fn
 * (parsing stops; later calls return it again). */
int bcn_lustre_jobstats_feed(struct bcn_lustre_jobstats *js, const char *buf,
			     size_t len);

/* Ends the input and hands over the last job. Returns 0 or fn's negative
 * return. */
int bcn_lustre_jobstats_finish(struct bcn_lustre_jobstats *js);

/* init, feed and finish over one buffer. */
int bcn_lustre_jobstats_parse(struct bcn_lustre_jobstats *js,
			      const struct bcn_lustre_map *map,
			      const char *buf, size_t len,
			      bcn_lustre_job_fn *fn, void *arg);

/* Turns the job id text after "job_id:" (surrounding blanks removed)
 * into the job id Lustre holds: a double-quoted id loses its quotes and
 * its \xHH escapes become bytes; an unquoted one is taken as is. Writes
 * at most outlen - 1 bytes and a NUL to out and the length to *n.
 * Returns 0, -BCN_ESYNTAX (bad quoting or escape, or an escaped NUL) or
 * -BCN_EFULL (too long). */
int bcn_lustre_jobid_unquote(const char *s, size_t len, char *out,
			     size_t outlen, size_t *n);

/* The numeric job of a job id that is a plain Slurm job id (decimal
 * digits, no leading zero, fits 64 bits): writes it to *job and returns
 * 0; otherwise writes 0 and returns -BCN_ESYNTAX. */
int bcn_lustre_jobid_slurm(const char *id, size_t len, uint64_t *job);

#endif
