/* The shared skeleton of the collector daemons: command line and
 * configuration, the sampling loop on fixed monotonic ticks, framing of
 * the records into DATA frames sent through the sender library or written
 * to --output, signal handling, per-sample timing and rate-limited
 * reports of failing files and samples (docs/collectors.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_SEC INT64_C(1000000000)
/* frame_codec zstd at a negative level (frame_zstd_level, -2 by
 * default) uses a hash table of 2^10 entries (4 KiB, in the first-level
 * cache): on the tracer's records of random 4 KiB reads (bench/
 * recode_bench on bench/tracer_bench.sh's frames) level -1 took about 135
 * ns per record for 2.63 bytes in per byte out, -1 with this table 115 for
 * 2.45, -2 with it 103 for 2.32, -5 with it 76 for 2.06; zlib at level 1
 * 460 for 2.86 (docs/clientd.md, "Footprint"). */
#define ZSTD_FAST_HASHLOG 10
/* frame_codec columnar: chosen by bench/recode_bench and tracer_bench
 * (docs/clientd.md): on dxt-example 4.87 bytes per operation at 3, 4.80
 * at 7 for about a fifth more daemon CPU per record, 4.91 at 1 */
#define COLUMNAR_ZSTD_LEVEL 3
/* frame_codec auto's columns: 4.72 bytes per operation on dxt-example at
 * 1 (about 6% less CPU than 3), with a smaller context than 3's */
#define AUTO_COLUMNAR_LEVEL 1
#define ZLIB_LEVEL 1                    /* frame_codec zlib: the fastest */
/* frame_codec auto: the CPU time columns may take accrues at
 * frame_columnar_cpu per second, up to this many seconds' worth (a burst
 * after a quiet spell) */
#define COLUMNAR_BURST_S 10
/* frame_codec auto: frames that may be columnar are cut at this raw size
 * (the column transform holds the values as varints, about as many bytes
 * as the rows, and its output: about twice this in all). At 128 KiB
 * beacon-clientd's peak memory under heavy random reads stayed where 32
 * KiB frames with 8 bytes a value had it; at 256 KiB it grew by about
 * 200 KiB for no fewer bytes on the DXT example (docs/clientd.md). */
#define COLUMNAR_FRAME_MAX (128 * 1024)
/* frame_codec auto: columns take several times the CPU of delta rows
 * (bench/recode_bench: 190 to 400 ns a record against 15 to 60), so they
 * must take at least COLUMNAR_GAIN_PCT percent off the bytes the delta
 * form would take: on the DXT example they take 60% off, under random
 * reads 27% to 35%. Where they do not, the next COLUMNAR_SKIP_MIN frames
 * go as delta rows without trying, then twice as many after each try
 * that fails again, up to COLUMNAR_SKIP_MAX (a few minutes at most
 * between tries). */
#define COLUMNAR_GAIN_PCT 40
#define COLUMNAR_SKIP_MIN 4
#define COLUMNAR_SKIP_MAX 64
#define FILE_COMPLAINTS 64              /* rate-limit slots for paths */
#define STATUS_MAX 65536                /* /proc/self/status, read at exit */
#define STATS_LINE_MAX 4096
#define CLOCK_STEP_NS NS_PER_SEC          /* wall clock jumps larger: resync */
#define IDLE_SLEEP_MAX_NS (3600 * NS_PER_SEC) /* an idle daemon's longest
					       * sleep */

const char *const bcn_collector_log_dests[] = { "stderr", "syslog", NULL };
const char *const bcn_collector_codecs[] = { "auto", "zstd", "zlib",
					      "columnar", NULL };

struct file_complaint {
	uint64_t hash;                  /* of the path, 0: slot unused */
	struct bcn_complain c;
};

struct bcn_collector {
	struct bcn_collector_conf *cc;
	struct bcn_sender *snd;         /* NULL with --output */
	int out_fd;                     /* --output, or -1 */
	uint64_t seq;                   /* next sequence number (--output) */
	struct bcn_frame_builder b;
	bool have_b;                    /* b is usable */
	size_t cut_bytes;               /* cut frames above this raw size */
	bool iodelta;                   /* the next frame's io rows in the
					 * delta form (auto, no columns) */
	size_t frame_cut;               /* the current frame's: cut_bytes,
					 * or less for columns */
	int64_t col_credit;             /* frame_codec auto: ns of CPU time
					 * columns may still take */
	int64_t col_refilled;           /* monotonic ns of its last refill */
	uint32_t col_skip;              /* frames to go without trying
					 * columns (they did not pay) */
	uint32_t col_backoff;           /* the last such skip, 0: none */
	int64_t frame_t0;               /* monotonic ns of the first record
					 * of the frame being built */
	struct bcn_buf obuf;            /* one finished frame (--output) */
	struct bcn_collector_stats st;
	const char *prog;               /* the daemon's name */
	int64_t started_ns;             /* wall clock at start */
	int64_t health_next;            /* monotonic: next health record */
	int64_t health_last;            /* wall clock of the previous one */
	uint64_t skipped_now;           /* malformed lines, this sample */
	struct bcn_complain send_c, sample_c, overrun_c, skip_c, bad_c;
	struct file_complaint files[FILE_COMPLAINTS];
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t sample_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void on_sample(int sig)
{
	(void)sig;
	sample_requested = 1;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int bcn_collector_path_join(const char *root, const char *rel, char *out,
			    size_t len)
{
	size_t rl = strlen(root);
	int n;

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	while (*rel == '/')
		rel++;
	n = snprintf(out, len, "%.*s/%s", (int)rl, root, rel);
	if (n < 0 || (size_t)n >= len)
		return -BCN_EFULL;
	return 0;
}

int bcn_collector_path(const struct bcn_collector *c, const char *rel,
		       char *out, size_t len)
{
	return bcn_collector_path_join(c->cc->root, rel, out, len);
}

const struct bcn_collector_conf *bcn_collector_conf(
	const struct bcn_collector *c)
{
	return c->cc;
}

void bcn_collector_stats(const struct bcn_collector *c,
			 struct bcn_collector_stats *st)
{
	*st = c->st;
}

static uint64_t hash_path(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= UINT64_C(1099511628211);
	}
	return h ? h : 1;
}

void bcn_collector_file_error(struct bcn_collector *c, const char *path,
			      int rc)
{
	uint64_t h = hash_path(path);
	struct file_complaint *fc = &c->files[h % FILE_COMPLAINTS];

	c->st.file_errors++;
	if (fc->hash != h) {
		fc->hash = h;
		fc->c = (struct bcn_complain)BCN_COMPLAIN_INIT;
	}
	bcn_complain(&fc->c, BCN_LOG_WARNING, "%s: %s", path,
		     bcn_strerror(rc));
}

void bcn_collector_skipped(struct bcn_collector *c, uint64_t lines)
{
	c->skipped_now += lines;
}

int bcn_collector_read(struct bcn_collector *c, const char *rel,
		       struct bcn_buf *b)
{
	char path[BCN_COLLECTOR_PATH_MAX];
	int rc;

	bcn_buf_reset(b);
	rc = bcn_collector_path(c, rel, path, sizeof(path));
	if (!rc)
		rc = bcn_buf_read_file(b, path);
	if (rc) {
		bcn_buf_reset(b);
		bcn_collector_file_error(c, path, rc);
	}
	return rc;
}

/* Writes all of p[0..len-1] to fd. Returns 0 or -errno. */
static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* (Re)creates the frame builder, empty. Returns 0 or -ENOMEM. */
static int builder_reset(struct bcn_collector *c)
{
	struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	int codec = c->cc->frame_codec;
	int rc;

	if (c->have_b)
		bcn_frame_builder_free(&c->b);
	rc = bcn_frame_builder_init(&c->b, &lim, ZLIB_LEVEL);
	if (!rc && (codec == BCN_COLLECTOR_CODEC_ZSTD ||
		    codec == BCN_COLLECTOR_CODEC_AUTO)) {
		rc = bcn_frame_builder_zstd(&c->b, (int)c->cc->zstd_level);
		if (!rc && c->cc->zstd_level < 0)
			rc = bcn_frame_builder_zstd_hashlog(&c->b,
							    ZSTD_FAST_HASHLOG);
	}
	if (!rc && codec == BCN_COLLECTOR_CODEC_AUTO) {
		rc = bcn_frame_builder_columnar(&c->b);
		if (!rc)
			rc = bcn_frame_builder_columnar_level(
				&c->b, AUTO_COLUMNAR_LEVEL);
	}
	if (!rc && codec == BCN_COLLECTOR_CODEC_COLUMNAR) {
		rc = bcn_frame_builder_zstd(&c->b, COLUMNAR_ZSTD_LEVEL);
		if (!rc)
			rc = bcn_frame_builder_columnar(&c->b);
	}
	if (rc) {
		bcn_frame_builder_free(&c->b);
	} else {
		bcn_frame_builder_iodelta(&c->b, c->iodelta);
		/* what columns are weighed against (columns_judge) */
		bcn_frame_builder_measure_delta(
			&c->b, codec == BCN_COLLECTOR_CODEC_AUTO);
	}
	c->have_b = rc == 0;
	return rc;
}

/* The raw size at which a frame is cut: smaller when it may be columnar
 * (the column transform holds 8 bytes per value). */
static size_t cut_for(const struct bcn_collector *c, bool columns)
{
	return columns && c->cut_bytes > COLUMNAR_FRAME_MAX ?
	       COLUMNAR_FRAME_MAX : c->cut_bytes;
}

/* Sets the form of the next frame: with frame_codec auto, while columns
 * may be tried, cut at COLUMNAR_FRAME_MAX and plain rows (the column
 * transform reads them), else the delta form of io rows (a third of the
 * bytes to compress under random I/O); other codecs: plain rows, which
 * log servers that predate the delta form take. */
static void next_form(struct bcn_collector *c, bool columns)
{
	bool autoc = c->cc->frame_codec == BCN_COLLECTOR_CODEC_AUTO;

	c->frame_cut = cut_for(c, autoc && columns);
	c->iodelta = autoc && !columns;
	if (c->have_b)
		bcn_frame_builder_iodelta(&c->b, c->iodelta);
}

/* frame_codec auto: whether the next frame may try columns, the credit
 * refilled at frame_columnar_cpu per second of monotonic time (capped at
 * COLUMNAR_BURST_S seconds' worth); sets the builder accordingly. */
static bool columnar_allow(struct bcn_collector *c)
{
	int64_t now, cap, add;
	bool allow;

	if (c->cc->frame_codec != BCN_COLLECTOR_CODEC_AUTO)
		return false;
	now = mono_ns();
	cap = c->cc->columnar_cpu_us * 1000 * COLUMNAR_BURST_S;
	if (!c->col_refilled)
		c->col_credit = cap;    /* a full burst at the start */
	/* (ns elapsed, at most a burst's refill, times us per second,
	 * over 1e6: ns of credit; no overflow within the caps) */
	add = now - c->col_refilled;
	if (add > COLUMNAR_BURST_S * NS_PER_SEC || add < 0)
		add = COLUMNAR_BURST_S * NS_PER_SEC;
	add = add / 1000 * c->cc->columnar_cpu_us / 1000;
	c->col_refilled = now;
	c->col_credit = c->col_credit + add > cap ? cap : c->col_credit + add;
	/* (a frame begun while the credit was spent is too large, the
	 * column transform's memory stays bounded, and its io rows are in
	 * the delta form, which the transform does not read: its rows' CPU
	 * time is not the columns' to pay) */
	allow = c->col_credit > 0 && c->frame_cut <= COLUMNAR_FRAME_MAX &&
		!c->iodelta;
	bcn_frame_builder_columnar_allow(&c->b, allow);
	return allow;
}

/* Takes the CPU time of a frame that tried columns from the credit. */
static void columnar_charge(struct bcn_collector *c, int64_t cpu)
{
	if (cpu < 0)
		cpu = 0;
	c->col_credit -= cpu;
	c->st.columnar_cpu_ns += (uint64_t)cpu;
}

/* frame_codec auto, after a frame that tried columns: whether they paid,
 * that is took COLUMNAR_GAIN_PCT percent or more off the bytes its io
 * records would have taken in the delta form (a frame without io records
 * is not judged: its rows' compressed size is not known). If not, the
 * next frames skip columns (COLUMNAR_SKIP_MIN, doubling while tries keep
 * failing). Frames are at most a few MiB: no overflow. */
static void columns_judge(struct bcn_collector *c)
{
	size_t payload, delta;

	bcn_frame_builder_last_sizes(&c->b, &payload, &delta);
	if (!delta)
		return;
	if (bcn_frame_builder_last_columnar(&c->b) &&
	    payload * 100 <= delta * (100 - COLUMNAR_GAIN_PCT)) {
		c->col_backoff = 0;
		return;
	}
	c->col_backoff = !c->col_backoff ? COLUMNAR_SKIP_MIN :
			 c->col_backoff >= COLUMNAR_SKIP_MAX / 2 ?
			 COLUMNAR_SKIP_MAX : c->col_backoff * 2;
	c->col_skip = c->col_backoff;
	c->st.columnar_declined++;
}

/* Finishes the current frame, if it holds records, and sends or writes
 * it. Returns 0 or the failure (counted, complained about, records
 * dropped). */
static int cut_frame(struct bcn_collector *c)
{
	int64_t cpu0 = 0;
	bool cols;
	uint32_t n;
	int rc;

	if (!c->have_b)
		return -ENOMEM;
	n = bcn_frame_builder_count(&c->b);
	if (n == 0)
		return 0;
	cols = columnar_allow(c);
	if (cols)
		cpu0 = thread_cpu_ns();
	if (c->snd) {
		rc = bcn_sender_submit_builder(c->snd, &c->b, NULL);
	} else {
		bcn_buf_reset(&c->obuf);
		rc = bcn_frame_builder_finish(&c->b, c->cc->node, c->seq,
					      &c->obuf);
		if (!rc) {
			c->seq++;
			rc = write_all(c->out_fd, c->obuf.data, c->obuf.len);
		}
	}
	if (cols)
		columnar_charge(c, thread_cpu_ns() - cpu0);
	if (cols && !rc)
		columns_judge(c);
	else if (!cols && c->col_skip)
		c->col_skip--;
	/* the next frame's size and form, by the credit left and whether
	 * columns pay */
	next_form(c, c->col_credit > 0 && !c->col_skip);
	if (!rc) {
		c->st.frames++;
		c->st.columnar_frames += bcn_frame_builder_last_columnar(&c->b);
		bcn_complain_release(&c->send_c, BCN_LOG_NOTICE,
				     "frames are delivered again");
		return 0;
	}
	c->st.send_errors++;
	bcn_complain(&c->send_c, BCN_LOG_ERR, "cannot %s a frame of %" PRIu32
		     " records: %s", c->snd ? "send" : "write", n,
		     bcn_strerror(rc));
	/* the builder may keep the records it failed to finish: drop them */
	if (bcn_frame_builder_count(&c->b) && builder_reset(c))
		BCN_ERR("cannot reset the frame builder: out of memory");
	return rc;
}

static int bad_record(struct bcn_collector *c, const struct bcn_record *r,
		      int rc)
{
	c->st.bad_records++;
	bcn_complain(&c->bad_c, BCN_LOG_ERR, "dropping an invalid %s record",
		     bcn_record_desc(r->type) ? bcn_record_desc(r->type)->name :
		     "unknown");
	return rc;
}

/* Notes when the frame being built got its first record (frame_age). */
static void note_start(struct bcn_collector *c)
{
	if (bcn_frame_builder_count(&c->b) == 0)
		c->frame_t0 = mono_ns();
}

/* Adds r to the current frame, cutting it first when full; counts r in
 * *counter when added. Returns 0 or the failure (counted, logged). The
 * builder checks each record (bcn_record_check) before anything else:
 * checking here too was a tenth of beacon-clientd's time. */
static int add_record(struct bcn_collector *c, const struct bcn_record *r,
		      uint64_t *counter)
{
	int rc;

	if (!c->have_b && builder_reset(c))
		return -ENOMEM;
	if (bcn_frame_builder_size(&c->b) >= c->frame_cut) {
		rc = cut_frame(c);
		if (rc)
			return rc;
	}
	note_start(c);
	rc = bcn_frame_builder_add(&c->b, r);
	if (rc == -BCN_ERANGE)
		return bad_record(c, r, rc);
	if (rc == -BCN_EFULL) {
		rc = cut_frame(c);
		if (rc)
			return rc;      /* counted and logged by cut_frame */
		note_start(c);
		rc = bcn_frame_builder_add(&c->b, r);
	}
	if (rc) {
		c->st.bad_records++;
		bcn_complain(&c->bad_c, BCN_LOG_ERR, "cannot add a record to "
			     "a frame: %s", bcn_strerror(rc));
		return rc;
	}
	(*counter)++;
	return 0;
}

int bcn_collector_add(struct bcn_collector *c, const struct bcn_record *r)
{
	return add_record(c, r, &c->st.records);
}

/* Sends a health record (docs/collectors.md, "Health") when one is due:
 * the loop's counters and the sender's, totals since the start. Only
 * when sending: a --output file holds the sampled records alone. */
static void maybe_health(struct bcn_collector *c, int64_t now_mono)
{
	struct bcn_sender_stats ss;
	struct bcn_rec_health *h;
	struct bcn_record r;
	int64_t real;

	if (!c->snd || c->cc->health_interval_ms <= 0 ||
	    now_mono < c->health_next)
		return;
	c->health_next = now_mono + c->cc->health_interval_ms * NS_PER_MS;
	real = bcn_real_ns();
	bcn_sender_stats(c->snd, &ss);
	bcn_record_init(&r, BCN_REC_HEALTH);
	r.node = c->cc->node;
	r.t = real;
	r.dur = real > c->health_last ? real - c->health_last : 0;
	c->health_last = real;
	h = &r.u.health;
	h->program = c->prog;
	h->started = c->started_ns;
	h->samples = c->st.samples;
	h->sample_errors = c->st.sample_errors;
	h->overruns = c->st.overruns;
	h->file_errors = c->st.file_errors;
	h->skipped_lines = c->st.skipped_lines;
	h->bad_records = c->st.bad_records;
	h->records = c->st.records;
	h->acked_records = ss.acked_records;
	h->dropped_records = ss.dropped_records;
	h->send_errors = c->st.send_errors;
	h->buffered_bytes = ss.buffered_bytes;
	h->buffer_max = ss.buffer_max;
	h->connected = ss.connected > 0;
	h->reconnects = ss.reconnects;
	h->connect_failures = ss.connect_failures;
	h->resent = ss.resent;
	h->cpu_ns = c->st.sample_cpu_ns;
	if (add_record(c, &r, &c->st.health) == 0)
		cut_frame(c);
}

bool bcn_collector_last_sample(const struct bcn_collector *c)
{
	return stop_requested ||
	       (c->cc->count && c->st.samples + 1 >= c->cc->count);
}

/* Whether the frame being built goes at the end of this sample: each
 * sample's does without frame_age; else the first sample frame_age after
 * its first record's arrival, the last sample and one on stop do. */
static bool frame_due(const struct bcn_collector *c)
{
	int64_t age = c->cc->frame_age_ms * NS_PER_MS;

	return age <= 0 || stop_requested || bcn_collector_last_sample(c) ||
	       mono_ns() - c->frame_t0 >= age;
}

/* Takes one sample closing [t, t + dur) and sends its frames (or holds
 * them for the next samples': frame_due). */
static void take_sample(struct bcn_collector *c,
			const struct bcn_collector_ops *ops, void *state,
			int64_t t, int64_t dur)
{
	int64_t cpu0 = thread_cpu_ns(), wall0 = mono_ns(), cpu, wall;
	uint64_t recs0 = c->st.records, frames0 = c->st.frames;
	int rc;

	c->skipped_now = 0;
	rc = ops->sample(state, c, t, dur);
	if (rc) {
		c->st.sample_errors++;
		bcn_complain(&c->sample_c, BCN_LOG_ERR, "sample failed: %s",
			     bcn_strerror(rc));
	}
	if (frame_due(c))
		cut_frame(c);
	if (c->skipped_now) {
		c->st.skipped_lines += c->skipped_now;
		bcn_complain(&c->skip_c, BCN_LOG_WARNING, "sample %" PRIu64
			     ": skipped %" PRIu64 " malformed lines",
			     c->st.samples + 1, c->skipped_now);
	}
	cpu = thread_cpu_ns() - cpu0;
	wall = mono_ns() - wall0;
	c->st.samples++;
	c->st.last_cpu_ns = (uint64_t)cpu;
	c->st.sample_cpu_ns += (uint64_t)cpu;
	c->st.sample_wall_ns += (uint64_t)wall;
	if ((uint64_t)cpu > c->st.sample_cpu_max_ns)
		c->st.sample_cpu_max_ns = (uint64_t)cpu;
	if ((uint64_t)wall > c->st.sample_wall_max_ns)
		c->st.sample_wall_max_ns = (uint64_t)wall;
	BCN_INFO("sample %" PRIu64 " done: %" PRIu64 " records, %" PRIu64
		 " frames, cpu %" PRId64 " us, wall %" PRId64 " us",
		 c->st.samples, c->st.records - recs0, c->st.frames - frames0,
		 cpu / 1000, wall / 1000);
}

/* Sleeps until the monotonic deadline, a signal, a sample request or
 * the daemon's watched descriptor is readable (then calls its ready()
 * and returns true); the stop and sample signals are unblocked only
 * while waiting. */
static bool wait_until(struct bcn_collector *c,
		       const struct bcn_collector_ops *ops, void *state,
		       int64_t deadline, const sigset_t *waitmask)
{
	int64_t left = deadline - mono_ns();
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	struct timespec ts;
	int rc;

	if (left <= 0 || stop_requested || sample_requested)
		return false;
	if (ops->watch_fd && ops->ready)
		pfd.fd = ops->watch_fd(state);
	ts.tv_sec = left / NS_PER_SEC;
	ts.tv_nsec = left % NS_PER_SEC;
	if (ppoll(&pfd, pfd.fd >= 0 ? 1 : 0, &ts, waitmask) <= 0 ||
	    !(pfd.revents & (POLLIN | POLLERR | POLLHUP)))
		return false;
	rc = ops->ready(state, c);
	if (rc) {
		c->st.sample_errors++;
		bcn_complain(&c->sample_c, BCN_LOG_ERR, "receiving failed: %s",
			     bcn_strerror(rc));
	}
	return true;
}

/* The tick on the grid (tick0 + k iv) at or after t. */
static int64_t tick_at(int64_t tick0, int64_t iv, int64_t t)
{
	return t <= tick0 ? tick0 : tick0 + (t - tick0 + iv - 1) / iv * iv;
}

/* With ops->idle: the tick to sleep until instead of the one due at
 * next, or next when the sample is to be taken (the daemon has work, a
 * frame is being built, a health record is due). */
static int64_t idle_tick(struct bcn_collector *c,
			 const struct bcn_collector_ops *ops, void *state,
			 int64_t tick0, int64_t iv, int64_t next)
{
	int64_t wake = mono_ns() + IDLE_SLEEP_MAX_NS;

	if (!ops->idle || c->cc->count || sample_requested ||
	    (c->have_b && bcn_frame_builder_count(&c->b)) || !ops->idle(state))
		return next;
	if (c->snd && c->cc->health_interval_ms > 0) {
		if (c->health_next <= next)
			return next;
		if (c->health_next < wake)
			wake = c->health_next;
	}
	return tick_at(tick0, iv, wake);
}

/* The loop: one sample at once, then one per tick, until count samples
 * or a stop signal. */
static void run_loop(struct bcn_collector *c,
		     const struct bcn_collector_ops *ops, void *state,
		     const sigset_t *waitmask)
{
	int64_t iv = c->cc->interval_ms * NS_PER_MS;
	int64_t next = mono_ns(), tick0 = next, prev = 0, wall = 0, t;
	bool first = true;

	while (!stop_requested) {
		int64_t now = mono_ns(), real = bcn_real_ns(), missed;

		if (now < next && !sample_requested) {
			/* records may have come to an idle daemon: its ticks
			 * resume (next is the coming tick unless it idled) */
			if (wait_until(c, ops, state, next, waitmask) &&
			    (t = tick_at(tick0, iv, mono_ns())) < next)
				next = t;
			continue;
		}
		if (!first && (t = idle_tick(c, ops, state, tick0, iv,
					     next)) > next) {
			next = t;       /* skip the ticks of an idle daemon */
			continue;
		}
		sample_requested = 0;
		if (first)
			prev = now - iv;        /* the first window: one interval */
		/* windows follow each other exactly, on the monotonic clock,
		 * unless the wall clock was stepped */
		if (first || llabs(wall + (now - prev) - real) > CLOCK_STEP_NS)
			wall = real - (now - prev);
		first = false;
		take_sample(c, ops, state, wall, now - prev);
		maybe_health(c, mono_ns());
		wall += now - prev;
		prev = now;
		if (c->cc->count && c->st.samples >= c->cc->count)
			break;
		if (now < next)
			continue;               /* an extra, requested sample */
		next += iv;
		now = mono_ns();
		if (now >= next) {
			missed = (now - next) / iv + 1;
			next += missed * iv;
			c->st.overruns += (uint64_t)missed;
			bcn_complain(&c->overrun_c, BCN_LOG_WARNING,
				     "sampling takes longer than the interval: "
				     "%" PRId64 " ticks skipped", missed);
		}
	}
	if (stop_requested && ops->sample_on_stop && !first) {
		int64_t now = mono_ns();

		take_sample(c, ops, state, wall, now - prev);
	}
}

/* Adds "key_kb":value for the /proc/self/status lines VmRSS, VmHWM
 * (resident, peak) and RssAnon, RssFile (private memory, mapped files
 * such as shared libraries). */
static void add_memory(struct bcn_buf *line)
{
	static const char *const keys[] = { "VmRSS:", "VmHWM:", "RssAnon:",
					    "RssFile:" };
	struct bcn_buf st;

	bcn_buf_init(&st, STATUS_MAX);
	if (bcn_buf_read_file(&st, "/proc/self/status") == 0 &&
	    bcn_buf_add(&st, "", 1) == 0) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const char *p = strstr((const char *)st.data, keys[i]);
			int kl = (int)strlen(keys[i]) - 1;
			unsigned long long kb;
			char *end;

			if (!p)
				continue;
			kb = strtoull(p + kl + 1, &end, 10);
			if (end != p + kl + 1)
				bcn_buf_printf(line, ",\"%.*s_kb\":%llu", kl,
					       keys[i], kb);
		}
	}
	bcn_buf_free(&st);
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

/* Writes the loop statistics as one JSON line to stats_file. */
static void write_stats(const struct bcn_collector *c, const char *prog)
{
	const struct bcn_collector_stats *s = &c->st;
	uint64_t n = s->samples ? s->samples : 1;
	struct rusage self, kids;
	struct bcn_buf line;
	FILE *f;

	if (!c->cc->stats_file[0])
		return;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	bcn_buf_init(&line, STATS_LINE_MAX);
	bcn_buf_printf(&line, "{\"program\":\"%s\",\"samples\":%" PRIu64
		       ",\"records\":%" PRIu64 ",\"frames\":%" PRIu64
		       ",\"bad_records\":%" PRIu64 ",\"send_errors\":%" PRIu64
		       ",\"sample_errors\":%" PRIu64 ",\"file_errors\":%" PRIu64
		       ",\"skipped_lines\":%" PRIu64 ",\"overruns\":%" PRIu64
		       ",\"sample_cpu_us_mean\":%.1f,\"sample_cpu_us_max\":%.1f"
		       ",\"sample_wall_us_mean\":%.1f,\"sample_wall_us_max\":%.1f"
		       ",\"columnar_frames\":%" PRIu64
		       ",\"columnar_cpu_us\":%" PRIu64
		       ",\"columnar_declined\":%" PRIu64
		       ",\"process_cpu_us\":%" PRIu64 ",\"children_cpu_us\":%"
		       PRIu64, prog, s->samples, s->records, s->frames,
		       s->bad_records, s->send_errors, s->sample_errors,
		       s->file_errors, s->skipped_lines, s->overruns,
		       (double)s->sample_cpu_ns / 1e3 / (double)n,
		       (double)s->sample_cpu_max_ns / 1e3,
		       (double)s->sample_wall_ns / 1e3 / (double)n,
		       (double)s->sample_wall_max_ns / 1e3,
		       s->columnar_frames, s->columnar_cpu_ns / 1000,
		       s->columnar_declined,
		       tv_us(&self.ru_utime) + tv_us(&self.ru_stime),
		       tv_us(&kids.ru_utime) + tv_us(&kids.ru_stime));
	add_memory(&line);
	bcn_buf_adds(&line, "}\n");
	f = strcmp(c->cc->stats_file, "-") ? fopen(c->cc->stats_file, "ae") :
		stderr;
	if (!f) {
		BCN_ERR("%s: %s", c->cc->stats_file, strerror(errno));
	} else {
		if (fwrite(line.data, 1, line.len, f) != line.len)
			BCN_ERR("%s: cannot write the statistics",
				c->cc->stats_file);
		if (f != stderr && fclose(f))
			BCN_ERR("%s: %s", c->cc->stats_file, strerror(errno));
	}
	bcn_buf_free(&line);
}

/* Parses the command line. Returns -1 to go on, else the exit status. */
/* Fills in the node name (the host name by default). */
static int set_node(struct bcn_collector_conf *cc)
{
	char host[BCN_NODE_MAX + 2];
	size_t len;

	if (!cc->node[0]) {
		if (gethostname(host, sizeof(host)) < 0)
			return -errno;
		host[sizeof(host) - 1] = '\0';
		len = strnlen(host, sizeof(host));
		if (len == 0 || len > BCN_NODE_MAX)
			return -BCN_ERANGE;
		memcpy(cc->node, host, len + 1);
	}
	snprintf(cc->send.node, sizeof(cc->send.node), "%s", cc->node);
	return 0;
}

/* Opens the --output file or the sender. Returns 0 or a code (logged). */
static int open_sink(struct bcn_collector *c)
{
	struct bcn_collector_conf *cc = c->cc;
	char err[BCN_CFG_ERR_MAX];
	int rc;

	if (cc->output[0]) {
		c->seq = cc->send.first_seq ? cc->send.first_seq :
			bcn_sender_seq_origin();
		if (!strcmp(cc->output, "-")) {
			c->out_fd = STDOUT_FILENO;
			return 0;
		}
		c->out_fd = open(cc->output, O_WRONLY | O_CREAT | O_TRUNC |
				 O_CLOEXEC, 0644);
		if (c->out_fd < 0) {
			rc = -errno;
			BCN_ERR("%s: %s", cc->output, bcn_strerror(rc));
			return rc;
		}
		return 0;
	}
	rc = bcn_sender_open(&cc->send, &c->snd, err, sizeof(err));
	if (rc)
		BCN_ERR("cannot start the sender: %s", err);
	return rc;
}

/* Flushes and closes the sender or the output file. */
static void close_sink(struct bcn_collector *c)
{
	if (c->snd) {
		if (bcn_sender_flush(c->snd, c->cc->flush_timeout_ms))
			BCN_WARN("frames still unacknowledged after %" PRId64
				 " ms: lost", c->cc->flush_timeout_ms);
		bcn_sender_close(c->snd);
		c->snd = NULL;
	}
	if (c->out_fd >= 0 && c->out_fd != STDOUT_FILENO && close(c->out_fd))
		BCN_ERR("%s: %s", c->cc->output, strerror(errno));
	c->out_fd = -1;
}

/* Installs the stop (SIGTERM, SIGINT) and sample (SIGUSR1) handlers and
 * blocks those signals outside the waits, so threads started later (the
 * sender's) never take them. old* get what to restore. */
static void signals_setup(sigset_t *waitmask, sigset_t *oldmask,
			  struct sigaction old[4])
{
	static const int sigs[4] = { SIGTERM, SIGINT, SIGUSR1, SIGPIPE };
	struct sigaction sa;
	sigset_t block;

	stop_requested = 0;
	sample_requested = 0;
	sigemptyset(&block);
	for (size_t i = 0; i < 4; i++) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = sigs[i] == SIGPIPE ? SIG_IGN :
			sigs[i] == SIGUSR1 ? on_sample : on_stop;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, &old[i]);
		if (sigs[i] != SIGPIPE)
			sigaddset(&block, sigs[i]);
	}
	pthread_sigmask(SIG_BLOCK, &block, oldmask);
	*waitmask = *oldmask;
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGUSR1);
}

static void signals_restore(const sigset_t *oldmask,
			    const struct sigaction old[4])
{
	static const int sigs[4] = { SIGTERM, SIGINT, SIGUSR1, SIGPIPE };

	pthread_sigmask(SIG_SETMASK, oldmask, NULL);
	for (size_t i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
}

/* Runs a configured collector: sink, init, loop, fini. */
static int run(struct bcn_collector *c, const char *prog,
	       const struct bcn_collector_ops *ops, void *state)
{
	struct sigaction old[4];
	sigset_t waitmask, oldmask;
	int rc, status = 1;

	signals_setup(&waitmask, &oldmask, old);
	bcn_buf_init(&c->obuf, BCN_SENDER_FRAME_MAX);
	/* a frame must fit the sender's max_frame after compression, which
	 * may add a little to incompressible data: cut at half of it */
	c->cut_bytes = c->cc->frame_bytes;
	if (!c->cc->output[0] && c->cut_bytes > c->cc->send.max_frame / 2)
		c->cut_bytes = c->cc->send.max_frame / 2;
	next_form(c, c->cc->columnar_cpu_us > 0);
	rc = builder_reset(c);
	if (rc) {
		BCN_ERR("cannot allocate a frame builder: %s", bcn_strerror(rc));
		goto out;
	}
	rc = open_sink(c);
	if (rc)
		goto out;
	rc = ops->init ? ops->init(state, c) : 0;
	if (rc) {
		BCN_ERR("cannot start: %s", bcn_strerror(rc));
	} else {
		BCN_NOTICE("started: node %s, root %s, interval %" PRId64
			   " ms, %s %s", c->cc->node, c->cc->root,
			   c->cc->interval_ms, c->snd ? "sending" : "writing to",
			   c->snd ? "to the log server" : c->cc->output);
		run_loop(c, ops, state, &waitmask);
		status = 0;
	}
	if (ops->fini)
		ops->fini(state);
	cut_frame(c);           /* records held (frame_age), or fini's */
	close_sink(c);
	write_stats(c, prog);
	BCN_NOTICE("stopped after %" PRIu64 " samples: %" PRIu64 " records, %"
		   PRIu64 " frames, %" PRIu64 " send errors, %" PRIu64
		   " file errors", c->st.samples, c->st.records, c->st.frames,
		   c->st.send_errors, c->st.file_errors);
out:
	if (c->have_b)
		bcn_frame_builder_free(&c->b);
	bcn_buf_free(&c->obuf);
	signals_restore(&oldmask, old);
	return status;
}

int bcn_collector_run(const struct bcn_program *p)
{
	const struct bcn_collector_daemon *d = p->kind;
	struct bcn_collector_conf *cc = d->cc;
	struct bcn_collector *c;
	int rc, status;

	rc = bcn_log_open(p->name, cc->log_dest, cc->log_level);
	if (rc) {
		fprintf(stderr, "%s: bad log settings\n", p->name);
		return BCN_EXIT_USAGE;
	}
	rc = set_node(cc);
	if (rc) {
		BCN_ERR("cannot find the host name (set --node): %s",
			bcn_strerror(rc));
		status = BCN_EXIT_USAGE;
		goto out;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		BCN_ERR("out of memory");
		status = BCN_EXIT_FAIL;
		goto out;
	}
	c->cc = cc;
	c->out_fd = -1;
	c->prog = p->name;
	c->started_ns = c->health_last = bcn_real_ns();
	c->health_next = mono_ns() + cc->health_interval_ms * NS_PER_MS;
	status = run(c, p->name, d->ops, d->state);
	free(c);
out:
	bcn_log_close();
	return status;
}
