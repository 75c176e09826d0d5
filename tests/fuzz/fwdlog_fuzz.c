/* libFuzzer target for the request-log parser (collectors/forwarder/fwdlog)
 * and the window accounting behind it (fwdreq, wdist). The input is split
 * into lines; each is parsed on its own and checked against the grammar's
 * promises, then all are accounted as a file from its start, in windows
 * cut at lines starting with '@', with a tiny sample limit so that the
 * spill to the histograms runs too. Every record must pass
 * bcn_record_check, the "all" record must add up the classes, and every
 * distribution must be ordered (min <= p50 <= p95 <= p99 <= max). A broken
 * invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/forwarder/fwdlog.h"
#include "collectors/forwarder/fwdreq.h"
#include "common/error.h"
#include "common/log.h"
#include "proto/record.h"

#define FUZZ_SAMPLES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drop(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

static void check_line(const char *p, size_t n)
{
	struct bcn_fwdlog_line l;
	const char *why = NULL;
	int rc = bcn_fwdlog_parse(p, n, &l, &why);

	if (rc) {
		if (rc != -BCN_ESYNTAX && rc != -BCN_ERANGE &&
		    rc != -BCN_EVERSION)
			abort();
		if (!why || l.kind != 0)
			abort();
		return;
	}
	switch (l.kind) {
	case BCN_FWDLOG_HEADER:
		if (l.version != BCN_FWDLOG_VERSION || n < 16 || p[0] != '#')
			abort();
		break;
	case BCN_FWDLOG_COMMENT:
		if (p[0] != '#')
			abort();
		break;
	case BCN_FWDLOG_REQUEST:
		if (l.cls < BCN_FWD_READ || l.cls > BCN_FWD_OTHER ||
		    l.proc > l.latency || l.latency > BCN_FWDLOG_VALUE_MAX ||
		    l.bytes > BCN_FWDLOG_VALUE_MAX || l.t < 0)
			abort();
		break;
	case BCN_FWDLOG_QUEUE:
		if (l.queue > BCN_FWDLOG_VALUE_MAX || l.t < 0)
			abort();
		break;
	default:
		abort();
	}
	if (n > BCN_FWDLOG_LINE_MAX || memchr(p, '\n', n))
		abort();
}

static void check_dist(const struct bcn_dist *d)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < BCN_HIST_BUCKETS; i++)
		n += d->hist[i];
	if (n != d->count)
		abort();
	if (d->count == 0) {
		if (d->min || d->max || d->p50 || d->p95 || d->p99 || d->sum)
			abort();
		return;
	}
	if (!(d->min <= d->p50 && d->p50 <= d->p95 && d->p95 <= d->p99 &&
	      d->p99 <= d->max))
		abort();
}

static void check_window(struct bcn_fwdreq *q, int64_t t)
{
	struct bcn_record recs[BCN_FWD_CLASS_MAX];
	uint64_t count = 0;
	size_t n, i;

	bcn_fwdreq_finish(q, t, 1000, recs, &n);
	if (n > BCN_FWD_CLASS_MAX)
		abort();
	for (i = 0; i < n; i++) {
		const struct bcn_rec_fwd_req *f = &recs[i].u.fwd_req;

		if (bcn_record_check(&recs[i]) != 0)
			abort();
		check_dist(&f->latency);
		check_dist(&f->proc);
		check_dist(&f->queue);
		if (f->count != f->latency.count ||
		    f->count != f->proc.count || f->latency.sum < f->proc.sum)
			abort();
		if (f->cls != BCN_FWD_ALL) {
			if (f->count == 0 || f->queue.count)
				abort();
			count += f->count;
		} else if (i != n - 1 || f->count != count) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_follow_pos pos = { "fuzz", 0, true, 0, NULL };
	const char *p = (const char *)data, *end = p + size;
	struct bcn_fwdreq q;
	int64_t t = 0;

	bcn_log_set_sink(drop, NULL);
	if (bcn_fwdreq_init(&q, NULL, FUZZ_SAMPLES))
		abort();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		check_line(p, n);
		if (n > 0 && p[0] == '@') {
			check_window(&q, t);
			t += 1000;
		} else {
			pos.lineno++;
			pos.offset = (uint64_t)(p - (const char *)data);
			if (bcn_fwdreq_line(&q, p, n, &pos) ==
			    BCN_FOLLOW_REJECT) {
				/* the follower ignores the rest of the file */
				pos.lineno = 0;
			}
		}
		p = nl ? nl + 1 : end;
	}
	check_window(&q, t);
	bcn_fwdreq_free(&q);
	return 0;
}
