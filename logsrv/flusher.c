/* The flusher: a thread that moves frames from the head of the Redis queue
 * into the record store in batches, and removes them from Redis only after
 * the store confirmed every record. While the store is down it retries with
 * backoff and Redis absorbs the backlog. Records are appended with their
 * identity (node, sequence, position), so a batch that is appended twice
 * (after a crash between the store's confirmation and the trim) is stored
 * once. Exactly one flusher may serve a queue. Each moved batch adds the
 * ingest lag of its records to the statistics. Only malformed frames go to
 * the dead letters; a frame that cannot be decoded for a passing reason
 * (out of memory) stays queued and is tried again. A batch holds at most
 * flush_bytes of decoded frames, and decoders give large buffers back
 * after each round. The flusher also expires the store's old days. */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cachegen.h"
#include "common/clock.h"
#include "common/error.h"
#include "proto/frame.h"
#include "common/log.h"
#include "logsrv/logsrv.h"

#define BATCH_RECORDS_MAX 8192          /* records per store append */
#define BACKOFF_MIN_MS 100
#define DECODER_KEEP_BYTES (1u << 20)   /* a decoder keeps this much between rounds */
#define GEN_MARKS_MAX 16384             /* generation bumps noted before sent */
#define HEALTH_JSON_MAX 16384       /* one health record as JSON */

struct bcn_flusher {
	pthread_t thread;
	atomic_bool stop;
	const struct bcn_logsrv_config *cfg;
	struct bcn_logsrv_stats *st;
	struct bcn_store *store;
	redisContext *rc;
	char queue_key[BCN_LOGSRV_PREFIX_MAX + 16];
	char dead_key[BCN_LOGSRV_PREFIX_MAX + 16];
	char health_key[BCN_LOGSRV_PREFIX_MAX + 16];
	struct bcn_frame_limits lim;
	struct bcn_frame *frames;       /* one decoder per frame of a batch */
	size_t nframes_cap;
	struct bcn_record *recs;
	struct bcn_store_item *items;
	int64_t backoff_ms;
	int64_t last_expire_ms;         /* monotonic; 0: expiry not run yet */
	struct bcn_lagdist lag;         /* of the round's stored records */
	struct bcn_complain redis_complaint, store_complaint, round_complaint;
	struct bcn_complain decode_complaint, expire_complaint;
	struct bcn_complain cache_complaint, health_complaint;
	uint64_t *jobs;                 /* jobs of the records just stored */
	size_t njobs;
	struct bcn_cachegen_mark *marks; /* minutes of the records just stored */
	size_t nmarks;
};

static void sleep_ms(struct bcn_flusher *f, int64_t ms)
{
	/* in small steps, so that a stop request is seen quickly */
	while (ms > 0 && !atomic_load(&f->stop)) {
		int64_t step = ms > 100 ? 100 : ms;
		struct timespec ts = { step / 1000, (step % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		ms -= step;
	}
}

static void backoff(struct bcn_flusher *f)
{
	f->backoff_ms = f->backoff_ms ? f->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (f->backoff_ms > f->cfg->flush_backoff_max_ms)
		f->backoff_ms = f->cfg->flush_backoff_max_ms;
	sleep_ms(f, f->backoff_ms);
}

static int redis_ensure(struct bcn_flusher *f)
{
	struct timeval tv = { 5, 0 };
	char pw[256] = "";
	redisReply *r;

	if (f->rc && !f->rc->err)
		return 0;
	if (f->rc)
		redisFree(f->rc);
	f->rc = redisConnectWithTimeout(f->cfg->redis_host, (int)f->cfg->redis_port, tv);
	if (!f->rc || f->rc->err) {
		bcn_complain(&f->redis_complaint, BCN_LOG_ERR,
			     "flusher: cannot connect to Redis %s:%" PRIu64 ": %s",
			     f->cfg->redis_host, f->cfg->redis_port,
			     f->rc ? f->rc->errstr : "out of memory");
		goto fail;
	}
	redisSetTimeout(f->rc, tv);
	if (f->cfg->redis_password_file[0]) {
		struct bcn_buf b;

		bcn_buf_init(&b, sizeof(pw) - 1);
		if (bcn_buf_read_file(&b, f->cfg->redis_password_file) == 0) {
			while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r'))
				b.len--;
			memcpy(pw, b.data, b.len);
			pw[b.len] = '\0';
		}
		bcn_buf_free(&b);
		r = redisCommand(f->rc, "AUTH %s", pw);
		if (!r || r->type == REDIS_REPLY_ERROR) {
			BCN_ERR("flusher: Redis AUTH failed");
			freeReplyObject(r);
			goto fail;
		}
		freeReplyObject(r);
	}
	bcn_complain_release(&f->redis_complaint, BCN_LOG_NOTICE,
			     "flusher: connected to Redis");
	return 0;
fail:
	if (f->rc)
		redisFree(f->rc);
	f->rc = NULL;
	return -EIO;
}

static int ensure_frames(struct bcn_flusher *f, size_t n)
{
	struct bcn_frame *nf;

	if (n <= f->nframes_cap)
		return 0;
	nf = realloc(f->frames, n * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	for (size_t i = f->nframes_cap; i < n; i++)
		bcn_frame_init(&nf[i]);
	f->frames = nf;
	f->nframes_cap = n;
	return 0;
}

enum bcn_flush_fate bcn_flusher_fate(int rc)
{
	switch (rc) {
	case -BCN_ETRUNC:
	case -BCN_EMAGIC:
	case -BCN_EVERSION:
	case -BCN_ETOOBIG:
	case -BCN_ECHECKSUM:
	case -BCN_ECORRUPT:
	case -BCN_EKIND:
		return BCN_FLUSH_DEAD;
	default:
		return BCN_FLUSH_RETRY;
	}
}

/* Moves the frame e to the dead letters. Returns 0 or -EIO. */
static int bury(struct bcn_flusher *f, const redisReply *e, int why)
{
	redisReply *d = redisCommand(f->rc, "RPUSH %s %b", f->dead_key,
				     e->str, (size_t)e->len);
	int ok = d && d->type == REDIS_REPLY_INTEGER;

	freeReplyObject(d);
	if (!ok)
		return -EIO;
	f->st->dead_letters++;
	BCN_ERR("flusher: undecodable frame in Redis (%s); moved to %s",
		bcn_strerror(why), f->dead_key);
	return 0;
}

/* Opens and validates element e of the queue into fr (no time window: it
 * was checked when the frame was accepted). Returns 0, or the error of
 * bcn_frame_open or bcn_frame_validate (-BCN_ECORRUPT as well for anything
 * but a DATA frame). */
static int open_element(struct bcn_flusher *f, const redisReply *e,
			struct bcn_frame *fr)
{
	size_t len = 0;
	int rc;

	if (e->type != REDIS_REPLY_STRING)
		return -BCN_ECORRUPT;
	rc = bcn_frame_open(fr, (const uint8_t *)e->str, e->len, &f->lim, &len);
	if (!rc && fr->hdr.kind != BCN_FRAME_DATA)
		rc = -BCN_ECORRUPT;
	if (!rc)        /* a frame queued by an older server may be malformed */
		rc = bcn_frame_validate(fr);
	return rc;
}

/* Whether the frame e would take the batch's decoded bytes past
 * flush_bytes (its header is read without decoding it). */
static bool over_budget(struct bcn_flusher *f, const redisReply *e, size_t held)
{
	struct bcn_frame_header h;

	if (e->type != REDIS_REPLY_STRING ||
	    bcn_frame_header_parse((const uint8_t *)e->str, e->len, &f->lim, &h))
		return false;   /* decoded (and buried) below, at no cost */
	return held + 2 * (size_t)h.raw_len > f->cfg->flush_bytes;
}

/* Decodes frames[0..n) of the reply into records, as many whole frames as
 * fit in one batch (BATCH_RECORDS_MAX records, flush_bytes decoded bytes).
 * *used gets the number of frames consumed (decoded or sent to the dead
 * list), *nrec the number of records. Returns 0, 1 for a frame bigger
 * than a batch (frames[0], alone), -EIO (Redis) or, when the first frame
 * cannot be opened for a transient reason, that error. */
static int decode_batch(struct bcn_flusher *f, redisReply *r, size_t *used,
			size_t *nrec)
{
	size_t k = 0, nr = 0, held = 0;
	int rc = ensure_frames(f, r->elements);

	for (size_t i = 0; rc == 0 && i < r->elements; i++) {
		redisReply *e = r->element[i];
		struct bcn_frame *fr = &f->frames[i];
		struct bcn_record rec;
		uint32_t idx = 0;

		if (k > 0 && over_budget(f, e, held))
			break;
		rc = open_element(f, e, fr);
		if (rc && bcn_flusher_fate(rc) == BCN_FLUSH_RETRY) {
			bcn_complain(&f->decode_complaint, BCN_LOG_WARNING,
				     "flusher: cannot decode a frame now (%s); it stays queued",
				     bcn_strerror(rc));
			if (k > 0)
				rc = 0;         /* store the frames before it */
			break;
		}
		if (!rc && nr + fr->hdr.count > BATCH_RECORDS_MAX && k > 0)
			break;
		if (!rc && nr + fr->hdr.count > BATCH_RECORDS_MAX) {
			/* a frame bigger than a batch: flushed on its own */
			*used = 1;
			*nrec = fr->hdr.count;
			return 1;
		}
		if (rc) {
			rc = bury(f, e, rc);
			fr->hdr.count = 0;
			fr->cur = NULL;
			k++;
			continue;
		}
		held += 2 * fr->raw_len;
		while (bcn_frame_next(fr, &rec) == 1) {
			f->recs[nr] = rec;
			f->items[nr].rec = &f->recs[nr];
			f->items[nr].seq = fr->hdr.seq;
			f->items[nr].idx = idx++;
			f->items[nr].nrec = fr->hdr.count;
			nr++;
		}
		k++;
	}
	*used = k;
	*nrec = nr;
	return rc;
}

/* Gives back the buffers of decoders that grew past DECODER_KEEP_BYTES, so
 * that one round of large frames does not hold its memory for good. */
static void release_decoders(struct bcn_flusher *f)
{
	for (size_t i = 0; i < f->nframes_cap; i++) {
		struct bcn_frame *fr = &f->frames[i];

		if (fr->raw_cap + fr->strings_cap > DECODER_KEEP_BYTES)
			bcn_frame_free(fr);
	}
}

/* Adds the ingest lag of recs[0..n), which the store has just confirmed,
 * to the round's distribution. Job records are left out: their time is
 * the batch system's, not a sample's. */
static void account_lag(struct bcn_flusher *f, const struct bcn_record *recs,
			size_t n)
{
	int64_t now = bcn_real_ns();

	for (size_t i = 0; i < n; i++)
		if (recs[i].type != BCN_REC_JOB)
			bcn_lagdist_add(&f->lag, bcn_lag_ms(now, recs[i].t, recs[i].dur));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Deletes the cached reports (report_cache_prefix<job>) of the jobs whose
 * records were just stored: a report computed before they arrived is
 * stale. A failure is logged (rate-limited); the report then lives until
 * its time to live. */
static void drop_reports(struct bcn_flusher *f)
{
	enum { CHUNK = 256 };
	char keys[CHUNK][BCN_LOGSRV_PREFIX_MAX + 24];
	const char *argv[CHUNK + 1] = { "DEL" };
	size_t n = 0, k;

	qsort(f->jobs, f->njobs, sizeof(*f->jobs), cmp_u64);
	for (size_t i = 0; i < f->njobs; i++)
		if (!n || f->jobs[i] != f->jobs[n - 1])
			f->jobs[n++] = f->jobs[i];
	for (size_t i = 0; i < n; i += k) {
		redisReply *r;

		for (k = 0; k < CHUNK && i + k < n; k++) {
			snprintf(keys[k], sizeof(keys[k]), "%s%" PRIu64,
				 f->cfg->report_cache_prefix, f->jobs[i + k]);
			argv[k + 1] = keys[k];
		}
		r = redisCommandArgv(f->rc, (int)k + 1, argv, NULL);
		if (!r || r->type == REDIS_REPLY_ERROR)
			bcn_complain(&f->cache_complaint, BCN_LOG_WARNING,
				     "flusher: cannot drop cached reports of "
				     "%zu jobs: %s", k, r ? r->str : "no reply");
		else
			f->st->reports_dropped += (uint64_t)r->integer;
		freeReplyObject(r);
	}
	f->njobs = 0;
}

/* Reads the replies of sent pipelined commands. Returns how many failed
 * (all those left when the connection broke). */
static size_t replies(struct bcn_flusher *f, size_t sent)
{
	size_t failed = 0;

	for (size_t i = 0; i < sent; i++) {
		redisReply *r = NULL;

		if (redisGetReply(f->rc, (void **)&r) != REDIS_OK)
			return failed + sent - i;
		if (!r || r->type == REDIS_REPLY_ERROR)
			failed++;
		freeReplyObject(r);
	}
	return failed;
}

/* Sends one pipelined HINCRBY per distinct mark, and per day one of its
 * total ("d") and a PEXPIRE of report_gen_ttl: the generations of the
 * minutes whose records were just stored (docs/report.md), which make a
 * report cached over those minutes a miss. A failure is logged
 * (rate-limited). */
static void bump_gens(struct bcn_flusher *f)
{
	char key[BCN_CACHEGEN_KEY_MAX], field[BCN_CACHEGEN_FIELD_MAX];
	char ttl[24];
	size_t n = 0, sent = 0, failed = 0;

	qsort(f->marks, f->nmarks, sizeof(*f->marks), bcn_cachegen_mark_cmp);
	for (size_t i = 0; i < f->nmarks; i++)
		if (!n || bcn_cachegen_mark_cmp(&f->marks[i], &f->marks[n - 1]))
			f->marks[n++] = f->marks[i];
	snprintf(ttl, sizeof(ttl), "%" PRId64, f->cfg->report_gen_ttl_ms);
	for (size_t i = 0; i < n; i++) {
		bool first = !i || f->marks[i].day != f->marks[i - 1].day;

		if (bcn_cachegen_key(f->cfg->report_cache_prefix,
				     f->marks[i].day, key, sizeof(key)))
			continue;
		bcn_cachegen_field(f->marks[i].field, field, sizeof(field));
		redisAppendCommand(f->rc, "HINCRBY %s %s 1", key, field);
		sent++;
		if (!first)
			continue;
		redisAppendCommand(f->rc, "HINCRBY %s d 1", key);
		redisAppendCommand(f->rc, "PEXPIRE %s %s", key, ttl);
		sent += 2;
	}
	failed += replies(f, sent);
	if (failed)
		bcn_complain(&f->cache_complaint, BCN_LOG_WARNING,
			     "flusher: %zu of %zu generation updates failed",
			     failed, sent);
	else
		f->st->gen_bumps += n;
	f->nmarks = 0;
}

/* Notes the minutes of n stored records, for bump_gens. */
static void note_gens(struct bcn_flusher *f, const struct bcn_record *recs,
		      size_t n)
{
	if (!f->cfg->report_cache_prefix[0])
		return;
	for (size_t i = 0; i < n; i++) {
		struct bcn_cachegen_mark one;
		size_t k;

		if (recs[i].type == BCN_REC_JOB)
			continue;
		/* most records of a batch fall in the minute of the one before */
		if (f->nmarks && recs[i].dur < BCN_CACHEGEN_BUCKET_NS &&
		    bcn_cachegen_marks(recs[i].t, recs[i].dur, &one, 1) == 1 &&
		    !bcn_cachegen_mark_cmp(&one, &f->marks[f->nmarks - 1]))
			continue;
		k = bcn_cachegen_marks(recs[i].t, recs[i].dur,
				       f->marks + f->nmarks,
				       GEN_MARKS_MAX - f->nmarks);
		if (f->nmarks + k > GEN_MARKS_MAX) {
			bump_gens(f);
			k = bcn_cachegen_marks(recs[i].t, recs[i].dur, f->marks,
					       GEN_MARKS_MAX);
			if (k > GEN_MARKS_MAX)
				k = GEN_MARKS_MAX;
		}
		f->nmarks += k;
	}
}

/* Notes the jobs of n stored records, for drop_reports. */
static void note_jobs(struct bcn_flusher *f, const struct bcn_record *recs,
		      size_t n)
{
	if (!f->cfg->report_cache_prefix[0])
		return;
	for (size_t i = 0; i < n; i++) {
		if (!recs[i].job || recs[i].type == BCN_REC_JOB)
			continue;
		if (f->njobs && f->jobs[f->njobs - 1] == recs[i].job)
			continue;
		if (f->njobs == BATCH_RECORDS_MAX)
			drop_reports(f);
		f->jobs[f->njobs++] = recs[i].job;
	}
}

/* Keeps each collector's latest health record (docs/collectors.md,
 * "Health") in the hash health_key, node -> the record as JSON, for
 * beacon-web's /metrics: one pipelined HSET per health record among the
 * n just stored. A failure is logged (rate-limited): the records are in
 * the store, and the next health record replaces the entry. */
static void note_health(struct bcn_flusher *f, const struct bcn_record *recs,
			size_t n)
{
	struct bcn_buf js;
	size_t sent = 0, failed = 0;

	bcn_buf_init(&js, HEALTH_JSON_MAX);
	for (size_t i = 0; i < n; i++) {
		if (recs[i].type != BCN_REC_HEALTH)
			continue;
		bcn_buf_reset(&js);
		if (bcn_record_to_json(&recs[i], &js)) {
			failed++;
			continue;
		}
		redisAppendCommand(f->rc, "HSET %s %s %b", f->health_key,
				   recs[i].node, js.data, js.len);
		sent++;
	}
	bcn_buf_free(&js);
	failed += replies(f, sent);
	if (failed)
		bcn_complain(&f->health_complaint, BCN_LOG_WARNING,
			     "flusher: cannot note %zu collectors' health in "
			     "%s", failed, f->health_key);
}

/* Hands the round's lag to the server's statistics, once its frames have
 * left the queue (a batch stored again after a failed trim counts once). */
static void publish_lag(struct bcn_flusher *f)
{
	struct bcn_logsrv_lag *l = &f->st->lag;

	if (!f->lag.count)
		return;
	pthread_mutex_lock(&l->lock);
	bcn_lagdist_merge(&l->interval, &f->lag);
	bcn_lagdist_merge(&l->total, &f->lag);
	pthread_mutex_unlock(&l->lock);
}

/* Appends one oversized frame in slices of BATCH_RECORDS_MAX records. */
static int flush_big(struct bcn_flusher *f, struct bcn_frame *fr)
{
	struct bcn_record rec;
	uint32_t idx = 0;
	size_t nr = 0;
	int rc = 0, more;

	do {
		more = bcn_frame_next(fr, &rec);
		if (more == 1) {
			f->recs[nr] = rec;
			f->items[nr] = (struct bcn_store_item){ &f->recs[nr], fr->hdr.seq, idx++,
							fr->hdr.count };
			nr++;
		}
		if (nr == BATCH_RECORDS_MAX || (more != 1 && nr)) {
			rc = bcn_store_append(f->store, f->items, nr);
			if (!rc) {
				account_lag(f, f->recs, nr);
				note_jobs(f, f->recs, nr);
				note_gens(f, f->recs, nr);
				note_health(f, f->recs, nr);
			}
			nr = 0;
		}
	} while (more == 1 && rc == 0);
	return rc ? rc : (more < 0 ? more : 0);
}

/* One round: read, store, trim. Returns frames moved, or a negative code. */
static int flush_round(struct bcn_flusher *f)
{
	redisReply *r, *t;
	size_t used = 0, nrec = 0;
	int rc;

	r = redisCommand(f->rc, "LRANGE %s 0 %llu", f->queue_key,
			 (unsigned long long)(f->cfg->flush_frames - 1));
	if (!r || r->type != REDIS_REPLY_ARRAY) {
		freeReplyObject(r);
		return -EIO;
	}
	if (r->elements == 0) {
		freeReplyObject(r);
		return 0;
	}
	bcn_lagdist_reset(&f->lag);
	rc = decode_batch(f, r, &used, &nrec);
	if (rc == 1) {
		rc = flush_big(f, &f->frames[0]);
	} else if (rc == 0 && nrec) {
		rc = bcn_store_append(f->store, f->items, nrec);
		if (!rc) {
			account_lag(f, f->recs, nrec);
			note_jobs(f, f->recs, nrec);
			note_gens(f, f->recs, nrec);
			note_health(f, f->recs, nrec);
		}
	} else if (rc < 0 && rc != -EIO) {
		freeReplyObject(r);
		release_decoders(f);
		return rc;      /* logged by decode_batch; the round is retried */
	}
	freeReplyObject(r);
	release_decoders(f);
	if (rc) {
		f->st->store_errors++;
		bcn_complain(&f->store_complaint, BCN_LOG_ERR,
			     "flusher: record store: %s (retrying; the backlog stays in Redis)",
			     bcn_strerror(rc));
		return rc == -EIO ? -EAGAIN : rc;
	}
	bcn_complain_release(&f->store_complaint, BCN_LOG_NOTICE,
			     "flusher: record store is back");
	if (f->njobs)
		drop_reports(f);
	if (f->nmarks)
		bump_gens(f);
	t = redisCommand(f->rc, "LTRIM %s %llu -1", f->queue_key,
			 (unsigned long long)used);
	if (!t || t->type == REDIS_REPLY_ERROR) {
		freeReplyObject(t);
		return -EIO;    /* stored but not trimmed: re-stored once, harmless */
	}
	freeReplyObject(t);
	f->st->flushed_frames += used;
	f->st->flushed_records += nrec;
	f->st->store_refused = bcn_store_refused(f->store);
	publish_lag(f);
	return (int)used;
}

/* Deletes the store's days older than store_retention, at the first round
 * and then every expire_interval. A failure is logged and tried again at
 * the next interval. */
static void expire_days(struct bcn_flusher *f)
{
	int64_t now = bcn_mono_ms();
	uint64_t removed = 0;
	int rc;

	if (f->last_expire_ms && now - f->last_expire_ms < f->cfg->expire_interval_ms)
		return;
	f->last_expire_ms = now;
	rc = bcn_store_expire(f->store, bcn_real_ns(), &removed);
	if (rc) {
		bcn_complain(&f->expire_complaint, BCN_LOG_ERR,
			     "flusher: expiring old days: %s (tried again in %" PRId64 " ms)",
			     bcn_strerror(rc), f->cfg->expire_interval_ms);
		return;
	}
	bcn_complain_release(&f->expire_complaint, BCN_LOG_NOTICE,
			     "flusher: expiry works again");
	if (removed)
		BCN_NOTICE("flusher: expired %" PRIu64 " day(s) older than store_retention",
			   removed);
}

static void update_backlog(struct bcn_flusher *f)
{
	redisReply *r = redisCommand(f->rc, "LLEN %s", f->queue_key);

	f->st->backlog = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
	freeReplyObject(r);
}

static void *flusher_main(void *arg)
{
	struct bcn_flusher *f = arg;
	int n;

	while (!atomic_load(&f->stop)) {
		expire_days(f);
		if (redis_ensure(f)) {
			f->st->backlog = -1;
			backoff(f);
			continue;
		}
		n = flush_round(f);
		if (n == -EIO) {
			redisFree(f->rc);
			f->rc = NULL;
			backoff(f);
			continue;
		}
		if (n < 0) {
			bcn_complain(&f->round_complaint, BCN_LOG_ERR,
				     "flusher: %s", bcn_strerror(n));
			backoff(f);
			continue;
		}
		bcn_complain_release(&f->round_complaint, BCN_LOG_NOTICE,
				     "flusher: moving frames again");
		f->backoff_ms = 0;
		update_backlog(f);
		if (n == 0)
			sleep_ms(f, f->cfg->flush_idle_ms);
	}
	/* the store's deferred work (sqlite: compaction of the newest
	 * blocks); what was appended is durable either way */
	n = bcn_store_flush(f->store);
	if (n)
		BCN_WARN("flusher: finishing the store's writes: %s",
			 bcn_strerror(n));
	return NULL;
}

int bcn_flusher_start(const struct bcn_logsrv_config *cfg,
		      struct bcn_logsrv_stats *stats, struct bcn_flusher **out)
{
	struct bcn_flusher *f = calloc(1, sizeof(*f));
	char err[256];
	int rc;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->cfg = cfg;
	f->st = stats;
	stats->backlog = -1;
	bcn_logsrv_frame_limits(cfg, false, &f->lim);
	snprintf(f->queue_key, sizeof(f->queue_key), BCN_LOGSRV_QUEUE_KEY, cfg->redis_prefix);
	snprintf(f->dead_key, sizeof(f->dead_key), BCN_LOGSRV_DEAD_KEY, cfg->redis_prefix);
	snprintf(f->health_key, sizeof(f->health_key), BCN_LOGSRV_COLLECTORS_KEY,
		 cfg->redis_prefix);
	f->recs = calloc(BATCH_RECORDS_MAX, sizeof(*f->recs));
	f->items = calloc(BATCH_RECORDS_MAX, sizeof(*f->items));
	f->jobs = calloc(BATCH_RECORDS_MAX, sizeof(*f->jobs));
	f->marks = calloc(GEN_MARKS_MAX, sizeof(*f->marks));
	rc = f->recs && f->items && f->jobs && f->marks ? 0 : -ENOMEM;
	if (!rc) {
		rc = bcn_store_open(&cfg->store.cfg, &f->store, err, sizeof(err));
		if (rc)
			BCN_ERR("record store: %s", err);
	}
	if (!rc)
		rc = -pthread_create(&f->thread, NULL, flusher_main, f);
	if (rc) {
		bcn_store_close(f->store);
		free(f->recs);
		free(f->items);
		free(f->jobs);
		free(f->marks);
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void bcn_flusher_stop(struct bcn_flusher *f)
{
	atomic_store(&f->stop, true);
	pthread_join(f->thread, NULL);
	if (f->rc)
		redisFree(f->rc);
	for (size_t i = 0; i < f->nframes_cap; i++)
		bcn_frame_free(&f->frames[i]);
	free(f->frames);
	bcn_store_close(f->store);
	free(f->recs);
	free(f->items);
	free(f->jobs);
	free(f->marks);
	free(f);
}
