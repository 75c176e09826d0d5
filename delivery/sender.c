/* The collector side of delivery (docs/sender.md): one background thread
 * per sender that resolves and dials the endpoints (primary, fallbacks),
 * polls a non-blocking socket and drives the protocol session
 * (delivery/session.h): the session holds the bounded queue of frames not
 * yet acknowledged, the window, ACK matching, resends, the handshake, the
 * backoff and the deadlines; this file holds the sockets, the endpoint
 * policy, the locking and the public API.
 *
 * Submitters and the thread share the session under a mutex held for
 * session calls only: frames are built and copied before, and the thread
 * writes and reads the socket outside it. A frame the thread is writing
 * stays valid when a submitter drops it (the session pins it). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/log.h"
#include "delivery/sender.h"
#include "tls/tls.h"
#include "delivery/session.h"

#define RX_CHUNK 4096           /* bytes asked of one recv() */
#define TX_BURST 64             /* frames written before polling again */
#define MSG_MAX 1024            /* one failure description */
#define SESSION_SWITCH 1        /* session result: go back to the primary */

enum submit_mode { MODE_NONE, MODE_NUMBERED, MODE_PREBUILT };

/* One connection; used by the thread only. */
struct conn {
	int fd;
	struct bcn_tls *tls;            /* NULL: plain TCP */
	size_t ep;                      /* index in bcn_sender.ep */
	bool established;
	bool draining;                  /* finishing before the primary */
	int64_t started;                /* when established */
	char why[MSG_MAX];              /* why it failed */
};

struct bcn_sender {
	/* set by open, then read-only */
	struct bcn_sender_conf conf;
	struct bcn_auth_key key;
	struct bcn_tls_ctx *tls;        /* NULL: plain TCP */
	struct bcn_shard_endpoint ep[BCN_SENDER_MAX_SERVERS];
	char ep_str[BCN_SENDER_MAX_SERVERS][BCN_SENDER_ENDPOINT_MAX];
	size_t nep;
	size_t cap;                     /* buffer_bytes */
	size_t max_frame;
	struct bcn_frame_limits lim;    /* for submitted frames */
	int evfd;                       /* wakes the thread */
	pthread_t thread;
	bool started;
	atomic_bool stop;

	pthread_mutex_t lock;
	pthread_cond_t cv;              /* frames removed */
	/* under lock */
	struct bcn_session ss;          /* queue, window, handshake */
	enum submit_mode mode;
	struct bcn_sender_stats st;     /* the connection counters */

	/* the thread's own */
	struct conn c;
	uint64_t drops_seen;
	struct bcn_complain c_conn, c_auth, c_drop, c_reject, c_lost;
};


/* ---- configuration and endpoints ---- */

struct conf_wrap {
	struct bcn_sender_conf c;
};

static const struct bcn_config_opt conf_tab[] = {
	BCN_SENDER_CONFIG_OPTS(struct conf_wrap, c),
	{ .name = NULL }
};

int bcn_sender_conf_defaults(struct bcn_sender_conf *conf)
{
	_Static_assert(offsetof(struct conf_wrap, c) == 0, "wrapper layout");
	memset(conf, 0, sizeof(*conf));
	return bcn_config_defaults(conf_tab, conf, NULL, 0);
}

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

static int parse_port(const char *p, size_t n, uint16_t *port)
{
	unsigned v = 0;

	if (n == 0)
		return -BCN_ESYNTAX;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return -BCN_ESYNTAX;
	if (n > 5)
		return -BCN_ERANGE;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned)(p[i] - '0');
	if (v < 1 || v > 65535)
		return -BCN_ERANGE;
	*port = (uint16_t)v;
	return 0;
}

int bcn_sender_endpoint_parse(const char *s, size_t len,
			      struct bcn_shard_endpoint *ep)
{
	const char *host = s, *colon;
	uint8_t addr[16];
	size_t hlen;
	int rc;

	memset(ep, 0, sizeof(*ep));
	if (len > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (!close || close + 1 == s + len || close[1] != ':')
			return -BCN_ESYNTAX;
		host = s + 1;
		hlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = memrchr(s, ':', len);
		if (!colon)
			return -BCN_ESYNTAX;
		hlen = (size_t)(colon - s);
		for (size_t i = 0; i < hlen; i++)
			if (!host_char(s[i]))
				return -BCN_ESYNTAX;
	}
	if (hlen == 0)
		return -BCN_ESYNTAX;
	if (hlen > BCN_SHARDMAP_HOST_MAX)
		return -BCN_ERANGE;
	memcpy(ep->host, host, hlen);
	ep->host[hlen] = '\0';
	if (host != s && inet_pton(AF_INET6, ep->host, addr) != 1) {
		rc = -BCN_ESYNTAX;
		goto out;
	}
	ep->ipv6 = host != s;
	rc = parse_port(colon + 1, len - (size_t)(colon + 1 - s), &ep->port);
out:
	if (rc)
		memset(ep, 0, sizeof(*ep));
	return rc;
}

uint64_t bcn_sender_seq_origin(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Checks the settings that a hand-filled conf may get wrong. */
static int check_conf(const struct bcn_sender_conf *c, char *err,
		      size_t errlen)
{
	const char *why = NULL;

	if (!c->node[0] || memchr(c->node, 0, sizeof(c->node)) == NULL)
		why = "no node name";
	else if (!c->shardmap[0] && c->nservers == 0)
		why = "no log server: set 'shardmap' or 'server'";
	else if (c->shardmap[0] && c->nservers)
		why = "set either 'shardmap' or 'server', not both";
	else if (c->nservers > BCN_SENDER_MAX_SERVERS)
		why = "too many servers";
	else if (!c->key_file[0])
		why = "no key file";
	else if (c->buffer_bytes < 1024 || c->buffer_bytes > (1ull << 40))
		why = "send_buffer out of range";
	else if (c->max_frame < 1024 || c->max_frame > BCN_SENDER_FRAME_MAX)
		why = "send_max_frame out of range";
	else if (c->window < 1 || c->window > 65536)
		why = "send_window out of range";
	else if (c->backoff_min_ms < 1 || c->backoff_max_ms < c->backoff_min_ms)
		why = "send_backoff_min must be positive and at most send_backoff_max";
	else if (c->connect_timeout_ms < 1 || c->ack_timeout_ms < 1 ||
		 c->primary_retry_ms < 0)
		why = "timeouts must be positive";
	else if (c->first_seq > INT64_MAX)
		why = "send_first_seq out of range";
	if (why)
		bcn_seterr(err, errlen, "sender: %s", why);
	return why ? -EINVAL : 0;
}

/* Fills s->ep from the shard map or the server list. */
static int find_endpoints(struct bcn_sender *s, char *err, size_t errlen)
{
	const struct bcn_sender_conf *c = &s->conf;
	struct bcn_shardmap *m = NULL;
	const struct bcn_shard *sh;
	int rc = 0;

	if (c->shardmap[0]) {
		rc = bcn_shardmap_load(c->shardmap, &m, err, errlen);
		if (rc)
			return rc;
		sh = bcn_shardmap_lookup(m, c->node);
		if (!sh) {
			bcn_seterr(err, errlen, "%s: node '%s' is in no shard and "
			       "the map has no default line", c->shardmap,
			       c->node);
			rc = -EINVAL;
			goto out;
		}
		s->ep[s->nep++] = sh->primary;
		if (sh->has_fallback)
			s->ep[s->nep++] = sh->fallback;
	}
	for (size_t i = 0; i < c->nservers; i++) {
		rc = bcn_sender_endpoint_parse(c->servers[i],
					       strlen(c->servers[i]),
					       &s->ep[s->nep]);
		if (rc) {
			bcn_seterr(err, errlen, "server '%s': not HOST:PORT or "
			       "[IPV6]:PORT (%s)", c->servers[i],
			       bcn_strerror(rc));
			goto out;
		}
		s->nep++;
	}
	for (size_t i = 0; i < s->nep && !rc; i++) {
		rc = bcn_shardmap_endpoint_str(&s->ep[i], s->ep_str[i],
					       sizeof(s->ep_str[i]));
		if (rc)
			bcn_seterr(err, errlen, "sender: bad endpoint %zu: %s", i,
			       bcn_strerror(rc));
	}
out:
	bcn_shardmap_free(m);
	return rc;
}

/* ---- the buffer ---- */

static void wake(struct bcn_sender *s)
{
	uint64_t one = 1;

	/* non-blocking; a saturated counter already means "wake up" */
	if (write(s->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		BCN_DEBUG("sender %s: eventfd: %s", s->conf.node,
			  strerror(errno));
}

/* Latches the submission mode. Returns 0 or -EINVAL on a mix. */
static int set_mode(struct bcn_sender *s, enum submit_mode mode)
{
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (s->mode == MODE_NONE)
		s->mode = mode;
	else if (s->mode != mode)
		rc = -EINVAL;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Queues f (dropping the oldest frames if needed) and wakes the thread;
 * on error f is freed. */
static int submit_frame(struct bcn_sender *s, struct bcn_session_frame *f)
{
	struct bcn_session_frame *dead;
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = bcn_session_submit(&s->ss, f, &dead);
	if (dead)
		pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->lock);
	bcn_session_frames_free(dead);
	if (rc) {
		bcn_session_frames_free(f);
		return rc;
	}
	wake(s);
	return 0;
}

/* Checks that frame[0..len-1] is exactly one intact DATA frame of our
 * node; *h gets its header. */
static int check_frame(const struct bcn_sender *s, const uint8_t *frame,
		       size_t len, struct bcn_frame_header *h)
{
	size_t nl = strlen(s->conf.node);
	uint32_t crc;
	int rc;

	if (len > s->max_frame || len > s->cap)
		return -BCN_ETOOBIG;
	rc = bcn_frame_header_parse(frame, len, &s->lim, h);
	if (rc == -BCN_ETOOBIG)
		return rc;
	if (rc || h->kind != BCN_FRAME_DATA ||
	    len != BCN_FRAME_HDR_LEN + (size_t)h->body_len ||
	    h->node_len != nl ||
	    memcmp(frame + BCN_FRAME_HDR_LEN, s->conf.node, nl) != 0)
		return -EINVAL;
	/* a damaged frame would make the server close the connection
	 * without an ACK, again after every resend */
	crc = (uint32_t)crc32(0L, frame, BCN_FRAME_HDR_LEN - 4);
	crc = (uint32_t)crc32(crc, frame + BCN_FRAME_HDR_LEN, h->body_len);
	return crc == h->crc ? 0 : -EINVAL;
}

int bcn_sender_submit(struct bcn_sender *s, const uint8_t *frame, size_t len)
{
	struct bcn_frame_header h;
	struct bcn_session_frame *f;
	uint8_t *data;
	int rc;

	rc = check_frame(s, frame, len, &h);
	if (rc)
		return rc;
	rc = set_mode(s, MODE_PREBUILT);
	if (rc)
		return rc;
	data = malloc(len);
	if (!data)
		return -ENOMEM;
	memcpy(data, frame, len);
	rc = bcn_session_frame_new(data, len, h.seq, h.count, &f);
	if (rc) {
		free(data);
		return rc;
	}
	return submit_frame(s, f);
}

int bcn_sender_submit_builder(struct bcn_sender *s,
			      struct bcn_frame_builder *b, uint64_t *seq)
{
	struct bcn_session_frame *f;
	uint64_t q;
	int rc;

	if (seq)
		*seq = 0;
	if (bcn_frame_builder_count(b) == 0)
		return 0;
	rc = set_mode(s, MODE_NUMBERED);
	if (rc)
		return rc;
	pthread_mutex_lock(&s->lock);
	q = bcn_session_take_seq(&s->ss);
	pthread_mutex_unlock(&s->lock);
	rc = bcn_session_frame_build(b, s->conf.node, q, s->max_frame < s->cap ?
				     s->max_frame : s->cap, &f);
	if (!rc)
		rc = submit_frame(s, f);
	if (!rc && seq)
		*seq = q;
	return rc;
}

static void deadline_ts(int64_t deadline_ms, struct timespec *ts)
{
	ts->tv_sec = deadline_ms / 1000;
	ts->tv_nsec = (deadline_ms % 1000) * 1000000;
}

int bcn_sender_wait_space(struct bcn_sender *s, size_t len,
			  int64_t timeout_ms)
{
	int64_t deadline = bcn_mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	struct timespec ts;
	int rc = 0;

	if (len > s->cap || len > s->max_frame)
		return -BCN_ETOOBIG;
	deadline_ts(deadline, &ts);
	pthread_mutex_lock(&s->lock);
	while (!bcn_session_fits(&s->ss, len)) {
		if (bcn_mono_ms() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		pthread_cond_timedwait(&s->cv, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int bcn_sender_flush(struct bcn_sender *s, int64_t timeout_ms)
{
	int64_t deadline = bcn_mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	struct timespec ts;
	int rc = 0;

	deadline_ts(deadline, &ts);
	pthread_mutex_lock(&s->lock);
	while (s->ss.nframes > 0) {
		if (bcn_mono_ms() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		pthread_cond_timedwait(&s->cv, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void bcn_sender_stats(struct bcn_sender *s, struct bcn_sender_stats *st)
{
	struct bcn_session_stats ss;

	pthread_mutex_lock(&s->lock);
	bcn_session_stats(&s->ss, &ss);
	*st = s->st;
	pthread_mutex_unlock(&s->lock);
	st->submitted_frames = ss.submitted_frames;
	st->submitted_records = ss.submitted_records;
	st->submitted_bytes = ss.submitted_bytes;
	st->acked_frames = ss.acked_frames;
	st->acked_records = ss.acked_records;
	st->acked_bytes = ss.acked_bytes;
	st->duplicates = ss.duplicates;
	st->rejected = ss.rejected;
	st->dropped_frames = ss.dropped_frames;
	st->dropped_records = ss.dropped_records;
	st->dropped_bytes = ss.dropped_bytes;
	st->buffered_frames = ss.queued_frames;
	st->buffered_records = ss.queued_records;
	st->buffered_bytes = ss.queued_bytes;
	st->buffer_max = s->cap;
	st->inflight = ss.inflight;
	st->sent_frames = ss.sent_frames;
	st->resent = ss.resent;
	st->bytes_sent = ss.bytes_sent;
	st->unknown_acks = ss.unknown_acks;
}

/* The counters, in JSON order; connected and last_error are apart. */
#define STATS_FIELDS(X) \
	X(submitted_frames) X(submitted_records) X(submitted_bytes) \
	X(acked_frames) X(acked_records) X(acked_bytes) X(duplicates) \
	X(rejected) X(dropped_frames) X(dropped_records) X(dropped_bytes) \
	X(buffered_frames) X(buffered_records) X(buffered_bytes) \
	X(buffer_max) X(inflight) X(sent_frames) X(resent) X(bytes_sent) \
	X(unknown_acks) X(connects) X(reconnects) X(fallbacks) \
	X(connect_failures) X(auth_failures) X(ack_timeouts)

void bcn_sender_stats_add(struct bcn_sender_stats *a,
			  const struct bcn_sender_stats *b)
{
#define ADD(f) a->f += b->f;
	STATS_FIELDS(ADD)
#undef ADD
	if (b->connected)
		a->connected = b->connected;
	if (b->last_error)
		a->last_error = b->last_error;
}

int bcn_sender_stats_json(const struct bcn_sender_stats *st,
			  struct bcn_buf *out)
{
	int rc = 0;

#define JSON(f) \
	if (!rc) \
		rc = bcn_buf_printf(out, "\"" #f "\":%" PRIu64 ",", st->f);
	STATS_FIELDS(JSON)
#undef JSON
	if (!rc)
		rc = bcn_buf_printf(out, "\"connected\":%s,\"last_error\":",
				    st->connected ? "true" : "false");
	if (!rc)
		rc = bcn_buf_add_json_str(out, st->last_error ?
					  bcn_strerror(st->last_error) : "");
	return rc;
}

/* ---- the thread: waiting ---- */

static void drain_event(struct bcn_sender *s)
{
	uint64_t v;

	if (read(s->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		BCN_DEBUG("sender %s: eventfd: %s", s->conf.node,
			  strerror(errno));
}

/* Logs (rate-limited) when submitters dropped frames since last time. */
static void note_drops(struct bcn_sender *s)
{
	uint64_t dropped;

	pthread_mutex_lock(&s->lock);
	dropped = s->ss.st.dropped_frames - s->ss.st.rejected;
	pthread_mutex_unlock(&s->lock);
	if (dropped == s->drops_seen)
		return;
	s->drops_seen = dropped;
	bcn_complain(&s->c_drop, BCN_LOG_WARNING, "sender %s: buffer full "
		     "(%zu bytes): %" PRIu64 " oldest frames dropped so far",
		     s->conf.node, s->cap, dropped);
}

/* Polls fd for events (fd < 0: just sleeps) and the wake-up eventfd until
 * deadline. Returns 1 with *rev set, 0 at the deadline, -ECANCELED when
 * the sender stops, or -errno. */
static int wait_fd(struct bcn_sender *s, int fd, short events,
		   int64_t deadline, short *rev)
{
	for (;;) {
		struct pollfd p[2] = { { s->evfd, POLLIN, 0 }, { fd, events, 0 } };
		int64_t left = deadline - bcn_mono_ms();
		int n;

		if (atomic_load(&s->stop))
			return -ECANCELED;
		if (left <= 0)
			return 0;
		n = poll(p, 2, left > INT_MAX ? INT_MAX : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (p[0].revents) {
			drain_event(s);
			note_drops(s);
		}
		if (fd >= 0 && p[1].revents) {
			*rev = p[1].revents;
			return 1;
		}
	}
}

/* Sleeps the session's next backoff delay (grow: doubling it after);
 * returns -ECANCELED on stop. */
static int pause_backoff(struct bcn_sender *s, bool grow)
{
	short rev;
	int64_t t;
	int rc;

	pthread_mutex_lock(&s->lock);
	t = bcn_session_backoff(&s->ss, grow);
	pthread_mutex_unlock(&s->lock);
	rc = wait_fd(s, -1, 0, bcn_mono_ms() + t, &rev);
	return rc < 0 ? rc : 0;
}

/* ---- the thread: connecting ---- */

/* Connects to one address within the connect timeout. Returns a
 * connected non-blocking socket, or a negative code. */
static int dial_addr(struct bcn_sender *s, const struct addrinfo *ai)
{
	int fd, rc, one = 1, soerr = 0;
	socklen_t sl = sizeof(soerr);
	short rev = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			goto fail;
		}
		rc = wait_fd(s, fd, POLLOUT,
			     bcn_mono_ms() + s->conf.connect_timeout_ms, &rev);
		if (rc == 0)
			rc = -ETIMEDOUT;
		if (rc < 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			soerr = errno;
		if (soerr) {
			rc = -soerr;
			goto fail;
		}
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) < 0) {
		rc = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return rc;
}

/* The TLS handshake on a connected socket, within connect_timeout. On
 * failure c->fd is closed. */
static int tls_start(struct bcn_sender *s, const struct bcn_shard_endpoint *ep,
		     struct conn *c)
{
	const char *name = s->conf.tls_server_name[0] ? s->conf.tls_server_name
						       : ep->host;
	int64_t deadline = bcn_mono_ms() + s->conf.connect_timeout_ms;
	short rev = 0;
	int rc;

	rc = bcn_tls_new(s->tls, c->fd, name, &c->tls);
	while (!rc && (rc = bcn_tls_handshake(c->tls)) == -EAGAIN) {
		rc = wait_fd(s, c->fd, bcn_tls_wants_write(c->tls) ? POLLOUT :
			     POLLIN, deadline, &rev);
		if (rc == 0)
			rc = -ETIMEDOUT;
		else if (rc > 0)
			rc = 0;
	}
	if (!rc)
		return 0;
	snprintf(c->why, sizeof(c->why), "TLS with %s: %s", name,
		 rc == -ETIMEDOUT ? "handshake timed out" :
		 c->tls ? bcn_tls_error(c->tls) : bcn_strerror(rc));
	bcn_tls_free(c->tls);
	c->tls = NULL;
	close(c->fd);
	c->fd = -1;
	return rc;
}

/* Resolves endpoint i and connects to the first address that answers. */
static int dial(struct bcn_sender *s, size_t i, struct conn *c)
{
	const struct bcn_shard_endpoint *ep = &s->ep[i];
	struct addrinfo hints, *res = NULL, *ai;
	char port[8];
	int rc, fd = -ENOENT;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = ep->ipv6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (ep->ipv6 ? AI_NUMERICHOST : 0);
	snprintf(port, sizeof(port), "%u", (unsigned)ep->port);
	rc = getaddrinfo(ep->host, port, &hints, &res);
	if (rc) {
		int err = rc == EAI_SYSTEM ? errno : 0;

		snprintf(c->why, sizeof(c->why), "cannot resolve '%s': %s",
			 ep->host, err ? strerror(err) : gai_strerror(rc));
		return err ? -err : -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = dial_addr(s, ai);
		if (fd >= 0 || fd == -ECANCELED)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(c->why, sizeof(c->why), "cannot connect: %s",
			 bcn_strerror(fd));
		return fd;
	}
	c->fd = fd;
	return s->tls ? tls_start(s, ep, c) : 0;
}

/* ---- the thread: one session ---- */

static void on_established(struct bcn_sender *s, struct conn *c)
{
	c->established = true;
	c->started = bcn_mono_ms();
	pthread_mutex_lock(&s->lock);
	s->st.connects++;
	if (s->st.connects > 1)
		s->st.reconnects++;
	if (c->ep > 0)
		s->st.fallbacks++;
	s->st.connected = 1;
	pthread_mutex_unlock(&s->lock);
	bcn_complain_release(&s->c_conn, BCN_LOG_NOTICE, "sender %s: log "
			     "server %s reachable again", s->conf.node,
			     s->ep_str[c->ep]);
	bcn_complain_release(&s->c_auth, BCN_LOG_NOTICE, "sender %s: "
			     "authenticated to %s", s->conf.node,
			     s->ep_str[c->ep]);
	BCN_INFO("sender %s: connected to %s%s", s->conf.node,
		 s->ep_str[c->ep], c->ep ? " (fallback)" : "");
}

/* The server closed the connection (n == 0) or recv failed (n < 0). */
static int on_eof(struct bcn_sender *s, struct conn *c, ssize_t n)
{
	int err = errno, rc;

	pthread_mutex_lock(&s->lock);
	rc = bcn_session_eof(&s->ss);
	snprintf(c->why, sizeof(c->why), "%s", s->ss.why);
	pthread_mutex_unlock(&s->lock);
	if (rc == -EKEYREJECTED) {
		/* the server closes on a wrong MAC (docs/protocol.md) */
		snprintf(c->why + strlen(c->why), sizeof(c->why) -
			 strlen(c->why), " (check key_file %.300s)",
			 s->conf.key_file);
		return rc;
	}
	if (n < 0) {
		snprintf(c->why, sizeof(c->why), "%s", strerror(err));
		return -err;
	}
	return rc;
}

/* Reads what the server sent and handles every whole frame. */
static int read_frames(struct bcn_sender *s, struct conn *c)
{
	uint8_t buf[RX_CHUNK];
	struct bcn_session_event ev;
	ssize_t n;
	int rc;

	if (c->tls) {
		n = bcn_tls_read(c->tls, buf, sizeof(buf));
		if (n == -EAGAIN)
			return 0;
		if (n < 0) {
			snprintf(c->why, sizeof(c->why), "TLS: %s",
				 bcn_tls_error(c->tls));
			return (int)n;
		}
	} else {
		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n <= 0)
		return on_eof(s, c, n);
	pthread_mutex_lock(&s->lock);
	rc = bcn_session_feed(&s->ss, buf, (size_t)n);
	for (;;) {
		if (!rc)
			rc = bcn_session_step(&s->ss, bcn_mono_ms(), &ev);
		if (rc < 0)
			snprintf(c->why, sizeof(c->why), "%s", s->ss.why);
		if (rc > 0 && (ev.kind == BCN_SESSION_EV_ACKED ||
			       ev.kind == BCN_SESSION_EV_REJECTED))
			pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->lock);
		if (rc <= 0)
			return rc;
		if (ev.kind == BCN_SESSION_EV_ESTABLISHED)
			on_established(s, c);
		else if (ev.kind == BCN_SESSION_EV_REJECTED)
			bcn_complain(&s->c_reject, BCN_LOG_WARNING, "sender %s: "
				     "log server %s rejected frame %" PRIu64
				     " as malformed; dropped", s->conf.node,
				     s->ep_str[c->ep], ev.seq);
		rc = 0;
		pthread_mutex_lock(&s->lock);
	}
}

/* After send() failed: 0 if it would block, else -errno (noted). */
static int send_failed(struct conn *c)
{
	int err = errno;

	if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)
		return 0;
	snprintf(c->why, sizeof(c->why), "send: %s", strerror(err));
	return -err;
}

/* Writes what the session has to write: handshake bytes, then frames,
 * up to TX_BURST of them, until the socket is full. The bytes are
 * written outside the lock: the session keeps them valid (pinned). */
static int write_out(struct bcn_sender *s, struct conn *c)
{
	struct bcn_session_frame *dead;
	const uint8_t *p;
	size_t len;
	ssize_t n;
	int done = 0;

	while (done < TX_BURST) {
		pthread_mutex_lock(&s->lock);
		bcn_session_out(&s->ss, bcn_mono_ms(), &p, &len);
		pthread_mutex_unlock(&s->lock);
		if (len == 0)
			return 0;
		if (c->tls) {
			n = bcn_tls_write(c->tls, p, len);
			if (n == -EAGAIN)
				return 0;
			if (n < 0) {
				snprintf(c->why, sizeof(c->why), "TLS: %s",
					 bcn_tls_error(c->tls));
				return (int)n;
			}
		} else {
			n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
		if (n < 0)
			return send_failed(c);
		pthread_mutex_lock(&s->lock);
		done += bcn_session_wrote(&s->ss, (size_t)n, &dead);
		pthread_mutex_unlock(&s->lock);
		bcn_session_frames_free(dead);
		if ((size_t)n < len)
			return 0;       /* the socket is full */
	}
	return 0;
}

/* Checks the session's timers. Returns 0 with *wake set to the next time
 * to look again (-1: none), SESSION_SWITCH, or -ETIMEDOUT. */
static int check_timers(struct bcn_sender *s, struct conn *c, int64_t now,
			int64_t *wake, bool *want_out)
{
	int64_t retry = s->conf.primary_retry_ms;
	uint64_t inflight;
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = bcn_session_tick(&s->ss, now, wake);
	if (rc)
		snprintf(c->why, sizeof(c->why), "%s", s->ss.why);
	if (c->established && c->ep > 0 && retry > 0 && !c->draining &&
	    now >= c->started + retry) {
		c->draining = true;
		bcn_session_hold(&s->ss, true);
		BCN_INFO("sender %s: trying the primary %s again",
			 s->conf.node, s->ep_str[0]);
	}
	inflight = bcn_session_inflight(&s->ss);
	*want_out = bcn_session_want_out(&s->ss);
	pthread_mutex_unlock(&s->lock);
	if (rc || !c->established || c->ep == 0 || retry <= 0)
		return rc;
	if (c->draining && inflight == 0)
		return SESSION_SWITCH;
	if (!c->draining && (*wake < 0 || c->started + retry < *wake))
		*wake = c->started + retry;
	return 0;
}

/* Moves every frame in flight back to the waiting part. */
static void requeue(struct bcn_sender *s)
{
	struct bcn_session_frame *dead;

	pthread_mutex_lock(&s->lock);
	bcn_session_disconnected(&s->ss, &dead);
	s->st.connected = 0;
	pthread_mutex_unlock(&s->lock);
	bcn_session_frames_free(dead);
}

/* Talks to the server until the connection fails or should switch. */
static int pump(struct bcn_sender *s, struct conn *c)
{
	for (;;) {
		struct pollfd p[2];
		int64_t now = bcn_mono_ms(), wake;
		bool want_out;
		int n, rc, tmo;

		if (atomic_load(&s->stop))
			return -ECANCELED;
		rc = check_timers(s, c, now, &wake, &want_out);
		if (rc)
			return rc;
		if (wake < 0)
			tmo = -1;
		else
			tmo = wake <= now ? 0 : wake - now > INT_MAX ?
			      INT_MAX : (int)(wake - now);
		if (c->tls && bcn_tls_pending(c->tls)) {
			rc = read_frames(s, c);  /* the socket will not say */
			if (rc)
				return rc;
			continue;
		}
		p[0] = (struct pollfd){ s->evfd, POLLIN, 0 };
		p[1] = (struct pollfd){ c->fd, (short)(POLLIN |
					(want_out ? POLLOUT : 0)), 0 };
		n = poll(p, 2, tmo);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (p[0].revents) {
			drain_event(s);
			note_drops(s);
		}
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			rc = read_frames(s, c);
			if (rc)
				return rc;
		}
		if (p[1].revents & POLLOUT) {
			rc = write_out(s, c);
			if (rc < 0)
				return rc;
		}
	}
}

/* One connection to endpoint i, from connect to close. */
static int session(struct bcn_sender *s, size_t i)
{
	struct conn *c = &s->c;
	int rc;

	c->ep = i;
	c->established = c->draining = false;
	c->why[0] = '\0';
	rc = dial(s, i, c);
	if (rc)
		return rc;
	pthread_mutex_lock(&s->lock);
	bcn_session_hold(&s->ss, false);
	rc = bcn_session_connected(&s->ss, bcn_mono_ms());
	if (rc)
		snprintf(c->why, sizeof(c->why), "%s", s->ss.why);
	pthread_mutex_unlock(&s->lock);
	if (!rc)
		rc = pump(s, c);
	bcn_tls_free(c->tls);
	c->tls = NULL;
	close(c->fd);
	c->fd = -1;
	requeue(s);
	return rc;
}

/* Counts and logs the end of a session. */
static void report(struct bcn_sender *s, size_t i, int rc)
{
	struct conn *c = &s->c;
	const char *ep = s->ep_str[i];

	pthread_mutex_lock(&s->lock);
	s->st.last_error = rc;
	if (!c->established)
		s->st.connect_failures++;
	if (rc == -EKEYREJECTED && !c->established)
		s->st.auth_failures++;
	if (rc == -ETIMEDOUT && c->established)
		s->st.ack_timeouts++;
	pthread_mutex_unlock(&s->lock);
	if (rc == -EKEYREJECTED)
		bcn_complain(&s->c_auth, BCN_LOG_ERR, "sender %s: "
			     "authentication with log server %s failed: %s",
			     s->conf.node, ep, c->why);
	else if (c->established)
		bcn_complain(&s->c_lost, BCN_LOG_WARNING, "sender %s: "
			     "connection to log server %s lost: %s",
			     s->conf.node, ep, c->why[0] ? c->why :
			     bcn_strerror(rc));
	else
		bcn_complain(&s->c_conn, BCN_LOG_WARNING, "sender %s: log "
			     "server %s unreachable: %s", s->conf.node, ep,
			     c->why[0] ? c->why : bcn_strerror(rc));
}

/* The thread: sessions, fallbacks and backoff (docs/sender.md). A round
 * tries every endpoint once, from the primary on, without waiting between
 * them; after a round where all failed it waits the backoff delay, which
 * doubles up to backoff_max. A session that was established and then lost
 * is retried on the same endpoint after backoff_min, except one ended by
 * the ACK timeout (a server that takes frames but stores nothing), which
 * moves on to the next endpoint. */
static void *run(void *arg)
{
	struct bcn_sender *s = arg;
	size_t i = 0, tried = 0;

	while (!atomic_load(&s->stop)) {
		int rc = session(s, i);

		if (rc == -ECANCELED || atomic_load(&s->stop))
			break;
		if (rc == SESSION_SWITCH) {
			i = 0;          /* drained: the primary at once */
			tried = 0;
			continue;
		}
		report(s, i, rc);
		if (s->c.established) {
			/* the session reset the delay to backoff_min */
			tried = 0;
			if (rc == -ETIMEDOUT)
				i = (i + 1) % s->nep;
			if (pause_backoff(s, false))
				break;
			continue;
		}
		i = (i + 1) % s->nep;
		if (++tried < s->nep)
			continue;       /* the next endpoint at once */
		i = 0;
		tried = 0;
		if (pause_backoff(s, true))
			break;
	}
	return NULL;
}

/* ---- open and close ---- */

static int init_sync(struct bcn_sender *s)
{
	pthread_condattr_t ca;
	int rc;

	rc = pthread_mutex_init(&s->lock, NULL);
	if (rc)
		return -rc;
	rc = pthread_condattr_init(&ca);
	if (!rc) {
		rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (!rc)
			rc = pthread_cond_init(&s->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (rc) {
		pthread_mutex_destroy(&s->lock);
		return -rc;
	}
	return 0;
}

static int start(struct bcn_sender *s, char *err, size_t errlen)
{
	struct bcn_session_conf sc = {
		.key = &s->key, .node = s->conf.node,
		.queue_bytes = s->cap, .window = s->conf.window,
		.backoff_min_ms = s->conf.backoff_min_ms,
		.backoff_max_ms = s->conf.backoff_max_ms,
		.ack_timeout_ms = s->conf.ack_timeout_ms,
		.first_seq = s->conf.first_seq ? s->conf.first_seq :
			     bcn_sender_seq_origin(),
	};
	int rc;

	if (getrandom(&sc.seed, sizeof(sc.seed), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(sc.seed))
		sc.seed = (uint64_t)bcn_mono_ms() ^ ((uint64_t)getpid() << 32);
	s->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->evfd < 0) {
		rc = -errno;
		bcn_seterr(err, errlen, "sender: eventfd: %s", strerror(errno));
		return rc;
	}
	rc = bcn_session_init(&s->ss, &sc);
	if (rc) {
		bcn_seterr(err, errlen, "sender: bad node name '%s'", s->conf.node);
		return rc;
	}
	rc = pthread_create(&s->thread, NULL, run, s);
	if (rc) {
		bcn_seterr(err, errlen, "sender: cannot start thread: %s",
		       strerror(rc));
		return -rc;
	}
	s->started = true;
	return 0;
}

int bcn_sender_open(const struct bcn_sender_conf *conf,
		    struct bcn_sender **out, char *err, size_t errlen)
{
	struct bcn_sender *s;
	int rc;

	*out = NULL;
	bcn_seterr(err, errlen, "%s", "");
	rc = check_conf(conf, err, errlen);
	if (rc)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->evfd = -1;
	s->c.fd = -1;
	s->conf = *conf;
	s->cap = (size_t)conf->buffer_bytes;
	s->max_frame = (size_t)conf->max_frame;
	s->lim = (struct bcn_frame_limits)BCN_FRAME_LIMITS_DEFAULT;
	s->lim.max_body = (uint32_t)(s->max_frame - BCN_FRAME_HDR_LEN);
	atomic_init(&s->stop, false);
	rc = init_sync(s);
	if (rc) {
		bcn_seterr(err, errlen, "sender: %s", strerror(-rc));
		free(s);
		return rc;
	}
	rc = bcn_auth_key_load(conf->key_file, &s->key, err, errlen);
	if (!rc && conf->tls)
		rc = bcn_tls_client_ctx(conf->tls_ca_file, conf->tls_cert_file,
					conf->tls_key_file, &s->tls, err, errlen);
	if (!rc)
		rc = find_endpoints(s, err, errlen);
	if (!rc)
		rc = start(s, err, errlen);
	if (rc) {
		bcn_sender_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void bcn_sender_close(struct bcn_sender *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	if (s->started) {
		wake(s);
		pthread_join(s->thread, NULL);
	}
	if (s->ss.nframes)
		BCN_NOTICE("sender %s: closing with %" PRIu64 " frames not "
			   "acknowledged", s->conf.node, s->ss.nframes);
	bcn_session_fini(&s->ss);
	if (s->evfd >= 0)
		close(s->evfd);
	bcn_auth_key_wipe(&s->key);
	bcn_tls_ctx_free(s->tls);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
