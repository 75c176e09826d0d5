/* Request statistics of a forwarding server from its request log: line
 * accounting and windowed fwd_req records (fwdreq.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "collectors/forwarder/fwdreq.h"
#include "common/error.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int bcn_fwdreq_init(struct bcn_fwdreq *q, const char *path,
		    size_t max_samples)
{
	int rc;

	memset(q, 0, sizeof(*q));
	q->follow.fd = -1;
	rc = bcn_wdist_init(&q->lat, BCN_FWDREQ_CLASSES, max_samples);
	if (!rc)
		rc = bcn_wdist_init(&q->proc, BCN_FWDREQ_CLASSES, max_samples);
	if (!rc)
		rc = bcn_wdist_init(&q->queue, 1, BCN_FWDREQ_QUEUE_SAMPLES);
	if (!rc && path)
		rc = bcn_follow_init(&q->follow, path, BCN_FWDLOG_LINE_MAX, 0);
	if (rc)
		bcn_fwdreq_free(q);
	return rc;
}

void bcn_fwdreq_free(struct bcn_fwdreq *q)
{
	bcn_follow_free(&q->follow);
	bcn_wdist_free(&q->lat);
	bcn_wdist_free(&q->proc);
	bcn_wdist_free(&q->queue);
}

/* Logs a malformed line with its position (rate-limited). */
static void report(struct bcn_fwdreq *q, const struct bcn_follow_pos *pos,
		   const char *why)
{
	if (pos->from_start)
		bcn_complain(&q->bad_line, BCN_LOG_WARNING,
			     "request log %s:%" PRIu64 ": %s; line skipped "
			     "(%" PRIu64 " malformed so far)", pos->path,
			     pos->lineno, why, q->malformed);
	else
		bcn_complain(&q->bad_line, BCN_LOG_WARNING,
			     "request log %s: line %" PRIu64 " after the resume "
			     "point (byte %" PRIu64 "): %s; line skipped "
			     "(%" PRIu64 " malformed so far)", pos->path,
			     pos->lineno, pos->offset, why, q->malformed);
}

/* Logs why the rest of a file is ignored (rate-limited); returns the
 * follower's verdict. */
static int reject(struct bcn_fwdreq *q, const struct bcn_follow_pos *pos,
		  const char *why)
{
	q->rejected_files++;
	bcn_complain(&q->bad_file, BCN_LOG_ERR,
		     "request log %s: %s; ignoring this file until it is "
		     "replaced or truncated", pos->path, why);
	return BCN_FOLLOW_REJECT;
}

int bcn_fwdreq_line(void *arg, const char *line, size_t len,
		    const struct bcn_follow_pos *pos)
{
	struct bcn_fwdreq *q = arg;
	struct bcn_fwdlog_line l;
	const char *why = pos->defect;
	bool first = pos->from_start && pos->lineno == 1;
	int rc = 0;

	q->saw_file = true;
	if (!why)
		rc = bcn_fwdlog_parse(line, len, &l, &why);
	if (rc == -BCN_EVERSION)
		return reject(q, pos, why);
	if (first && (why || l.kind != BCN_FWDLOG_HEADER))
		return reject(q, pos, "the first line is not a \""
			      BCN_FWDLOG_MAGIC " 1\" header");
	if (why) {
		q->malformed++;
		report(q, pos, why);
		return 0;
	}
	switch (l.kind) {
	case BCN_FWDLOG_HEADER:
		q->headers++;
		break;
	case BCN_FWDLOG_COMMENT:
		q->comments++;
		break;
	case BCN_FWDLOG_QUEUE:
		q->queue_samples++;
		bcn_wdist_add(&q->queue, 0, l.queue);
		break;
	case BCN_FWDLOG_REQUEST:
		q->requests++;
		q->bytes[l.cls - 1] = sat_add(q->bytes[l.cls - 1], l.bytes);
		bcn_wdist_add(&q->lat, l.cls - 1, l.latency);
		bcn_wdist_add(&q->proc, l.cls - 1, l.proc);
		break;
	}
	return 0;
}

int bcn_fwdreq_poll(struct bcn_fwdreq *q)
{
	int rc;

	if (bcn_follow_is_open(&q->follow))
		q->saw_file = true;
	rc = bcn_follow_poll(&q->follow, bcn_fwdreq_line, q);
	if (bcn_follow_is_open(&q->follow))
		q->saw_file = true;
	return rc;
}

void bcn_fwdreq_finish(struct bcn_fwdreq *q, int64_t t, int64_t dur,
		       struct bcn_record *recs, size_t *n)
{
	struct bcn_dist lat[BCN_FWDREQ_CLASSES], proc[BCN_FWDREQ_CLASSES];
	struct bcn_record *all;
	uint64_t bytes = 0;
	unsigned c;

	*n = 0;
	all = &recs[BCN_FWD_CLASS_MAX - 1];
	bcn_record_init(all, BCN_REC_FWD_REQ);
	all->u.fwd_req.cls = BCN_FWD_ALL;
	bcn_wdist_finish(&q->lat, lat, &all->u.fwd_req.latency);
	bcn_wdist_finish(&q->proc, proc, &all->u.fwd_req.proc);
	bcn_wdist_finish(&q->queue, NULL, &all->u.fwd_req.queue);
	for (c = 0; c < BCN_FWDREQ_CLASSES; c++) {
		struct bcn_record *r = &recs[*n];

		bytes = sat_add(bytes, q->bytes[c]);
		if (lat[c].count == 0)
			continue;
		bcn_record_init(r, BCN_REC_FWD_REQ);
		r->t = t;
		r->dur = dur;
		r->u.fwd_req.cls = c + 1;
		r->u.fwd_req.count = lat[c].count;
		r->u.fwd_req.bytes = q->bytes[c];
		r->u.fwd_req.latency = lat[c];
		r->u.fwd_req.proc = proc[c];
		(*n)++;
	}
	if (q->saw_file || all->u.fwd_req.latency.count ||
	    all->u.fwd_req.queue.count) {
		all->t = t;
		all->dur = dur;
		all->u.fwd_req.count = all->u.fwd_req.latency.count;
		all->u.fwd_req.bytes = bytes;
		if (all != &recs[*n])
			recs[*n] = *all;
		(*n)++;
	}
	memset(q->bytes, 0, sizeof(q->bytes));
	q->saw_file = bcn_follow_is_open(&q->follow);
}
