/* Request statistics of a forwarding server: follows its request log
 * (docs/fwdlog.md), accounts each line to the current window and turns the
 * window into fwd_req records, one per request class that saw requests
 * plus one of class "all" with the totals and the queue-length
 * distribution. */
#ifndef BCN_FWDREQ_H
#define BCN_FWDREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/runtime/follow.h"
#include "collectors/forwarder/fwdlog.h"
#include "collectors/forwarder/wdist.h"
#include "common/log.h"
#include "proto/record.h"

#define BCN_FWDREQ_CLASSES (BCN_FWD_CLASS_MAX - 1)      /* without "all" */
#define BCN_FWDREQ_SAMPLES_DEF (1u << 16)
#define BCN_FWDREQ_QUEUE_SAMPLES 4096   /* queue samples kept per window */

struct bcn_fwdreq {
	struct bcn_follow follow;
	struct bcn_wdist lat, proc;     /* tag: class - 1 */
	struct bcn_wdist queue;         /* one tag */
	uint64_t bytes[BCN_FWDREQ_CLASSES];
	bool saw_file;                  /* a file was open during the window */
	/* statistics since bcn_fwdreq_init */
	uint64_t requests, queue_samples, comments, headers;
	uint64_t malformed, rejected_files;
	struct bcn_complain bad_line, bad_file;
};

/* Prepares q to follow the request log at path, keeping up to max_samples
 * latency and processing-time samples per window for exact percentiles
 * (see wdist.h). Returns 0, -EINVAL or -ENOMEM. */
int bcn_fwdreq_init(struct bcn_fwdreq *q, const char *path,
		    size_t max_samples);
void bcn_fwdreq_free(struct bcn_fwdreq *q);

/* Accounts one log line to the current window (the bcn_follow_line_fn of
 * the follower; usable on its own): requests and queue samples are added,
 * comments skipped, a malformed line is counted and reported in a
 * rate-limited log with its position. Returns 0, or BCN_FOLLOW_REJECT when
 * the first line of a file is not a header of version 1 or a header of
 * another version appears. */
int bcn_fwdreq_line(void *q, const char *line, size_t len,
		    const struct bcn_follow_pos *pos);

/* Reads what the log gained since the last poll. Returns 0 or the last
 * I/O error (already logged). */
int bcn_fwdreq_poll(struct bcn_fwdreq *q);

/* Ends the window [t, t + dur): writes its records to recs (room for
 * BCN_FWD_CLASS_MAX) and their number to *n, then starts the next window.
 * A class record is written only when the class saw requests; the "all"
 * record (last) whenever a log file was open during the window. */
void bcn_fwdreq_finish(struct bcn_fwdreq *q, int64_t t, int64_t dur,
		       struct bcn_record *recs, size_t *n);

#endif
