/* The log server's event loop: listener, collector connections, the
 * handshake, frame validation, acknowledgements, backpressure, timers and
 * the orderly drain at shutdown. The durable Redis queue (redisq.h) runs in
 * the same loop and reports each frame's fate, which is acknowledged here;
 * the flusher runs in its own thread (flusher.c). Statistics are logged
 * and written to Redis every stats_interval. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/error.h"
#include "logsrv/server.h"

#define TICK_MS 100
#define MAX_EVENTS 256
#define READ_CHUNK (64u << 10)
#define OUT_MAX (4u << 20)              /* unread answers before we give up */
#define HANDSHAKE_BODY_MAX 4096
#define SHRINK_ABOVE (256u << 10)
#define DRAIN_MS 10000
#define STATS_MAX 24                    /* fields in one publication */
#define STATS_LINE_MAX 1024

static void pressure_check(struct bcn_srv *s);

static int ep_set(struct bcn_srv *s, int fd, void *ptr, uint32_t ev, int op)
{
	struct epoll_event e = { .events = ev, .data.ptr = ptr };

	return epoll_ctl(s->ep, op, fd, &e) ? -errno : 0;
}

static int split_hostport(const char *s, char *host, size_t hlen, char *port,
			  size_t plen)
{
	const char *colon = strrchr(s, ':');
	size_t n;

	if (!colon || !colon[1])
		return -BCN_ESYNTAX;
	n = (size_t)(colon - s);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (n >= hlen || strlen(colon + 1) >= plen)
		return -BCN_ERANGE;
	memcpy(host, s, n);
	host[n] = '\0';
	snprintf(port, plen, "%s", colon + 1);
	return 0;
}

static int open_listener(struct bcn_srv *s)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char host[256], port[16];
	int fd = -1, one = 1, rc;

	rc = split_hostport(s->cfg->listen, host, sizeof(host), port, sizeof(port));
	if (rc) {
		BCN_ERR("listen: '%s' is not host:port", s->cfg->listen);
		return rc;
	}
	rc = getaddrinfo(host[0] && strcmp(host, "*") ? host : NULL, port, &hints, &ai);
	if (rc) {
		BCN_ERR("listen: %s: %s", s->cfg->listen, gai_strerror(rc));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 4096)) {
		rc = -errno;
		BCN_ERR("listen: %s: %s", s->cfg->listen, strerror(errno));
		goto out;
	}
	s->lfd = fd;
	fd = -1;
	s->listen_ev.type = BCN_EV_LISTEN;
	rc = ep_set(s, s->lfd, &s->listen_ev, EPOLLIN, EPOLL_CTL_ADD);
out:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return rc;
}

static struct bcn_conn *conn_lookup(struct bcn_srv *s, int fd, uint64_t id)
{
	if (fd < 0 || (size_t)fd >= s->conns_cap || !s->conns[fd])
		return NULL;
	return s->conns[fd]->id == id ? s->conns[fd] : NULL;
}

static void conn_close(struct bcn_srv *s, struct bcn_conn *c, const char *why)
{
	if (why)
		BCN_INFO("closing %s (%s): %s", c->peer, c->node[0] ? c->node : "-", why);
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	s->conns[c->fd] = NULL;
	bcn_buf_free(&c->in);
	bcn_buf_free(&c->out);
	free(c);
	s->st->conns_open--;
}

static void conn_interest(struct bcn_srv *s, struct bcn_conn *c)
{
	uint32_t ev = 0;

	if (!c->paused && !c->closing)
		ev |= EPOLLIN | EPOLLRDHUP;
	if (c->out.len > c->out_off)
		ev |= EPOLLOUT;
	if (ev != c->events) {
		c->events = ev;
		ep_set(s, c->fd, c, ev, EPOLL_CTL_MOD);
	}
}

/* Writes what can be written now. Returns 0, or -1 when c was closed. */
static int conn_flush(struct bcn_srv *s, struct bcn_conn *c)
{
	while (c->out.len > c->out_off) {
		ssize_t n = write(c->fd, c->out.data + c->out_off,
				  c->out.len - c->out_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(s, c, "write failed");
			return -1;
		}
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out.len) {
		bcn_buf_reset(&c->out);
		c->out_off = 0;
		if (c->closing) {
			conn_close(s, c, NULL);
			return -1;
		}
	}
	conn_interest(s, c);
	return 0;
}

/* Answers are written once per turn of the event loop, so that the
 * acknowledgements Redis confirmed together leave in one write. */
static void conn_ack(struct bcn_srv *s, struct bcn_conn *c, uint64_t seq,
		     enum bcn_ack_status status)
{
	if (bcn_frame_ack_encode(seq, status, s->cfg->name, &c->out)) {
		conn_close(s, c, "acknowledgements not read");
		return;
	}
	if (!c->dirty) {
		c->dirty = true;
		s->dirty[s->ndirty++] = c->fd;
	}
}

static void flush_dirty(struct bcn_srv *s)
{
	for (size_t i = 0; i < s->ndirty; i++) {
		struct bcn_conn *c = s->conns[s->dirty[i]];

		if (c && c->dirty) {
			c->dirty = false;
			conn_flush(s, c);
		}
	}
	s->ndirty = 0;
}

static void accept_all(struct bcn_srv *s)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
		int one = 1, fd;
		struct bcn_conn *c;

		fd = accept4(s->lfd, (struct sockaddr *)&sa, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				bcn_complain(&s->accept_complaint, BCN_LOG_WARNING,
					     "accept: %s", strerror(errno));
			return;
		}
		if (s->draining || s->st->conns_open >= s->cfg->max_connections ||
		    (size_t)fd >= s->conns_cap || !(c = calloc(1, sizeof(*c)))) {
			s->st->conns_refused++;
			bcn_complain(&s->accept_complaint, BCN_LOG_WARNING,
				     "refusing a connection: %" PRIu64 " open (max %" PRIu64 ")",
				     (uint64_t)s->st->conns_open, s->cfg->max_connections);
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), port,
			    sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
		c->ev.type = BCN_EV_CONN;
		c->fd = fd;
		c->id = ++s->next_id;
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, port);
		c->state = s->have_key ? BCN_CONN_HELLO : BCN_CONN_READY;
		if (s->have_key)
			bcn_auth_server_init(&c->auth, &s->key, s->cfg->name);
		bcn_buf_init(&c->in, (size_t)s->cfg->max_frame + BCN_FRAME_HDR_LEN);
		bcn_buf_init(&c->out, OUT_MAX);
		c->last_ms = s->now_ms;
		c->events = EPOLLIN | EPOLLRDHUP;
		s->conns[fd] = c;
		if (ep_set(s, fd, c, c->events, EPOLL_CTL_ADD)) {
			s->conns[fd] = NULL;
			bcn_buf_free(&c->in);
			bcn_buf_free(&c->out);
			free(c);
			close(fd);
			continue;
		}
		s->st->conns_accepted++;
		s->st->conns_open++;
		BCN_DEBUG("connection from %s", c->peer);
	}
}

/* Handshake frames, before any data. Returns 0, or -1 to close. */
static int handle_handshake(struct bcn_srv *s, struct bcn_conn *c)
{
	int rc = bcn_auth_server_step(&c->auth, &s->frame, &c->out);

	if (rc < 0 || rc == BCN_AUTH_PASS) {
		s->st->auth_failures++;
		BCN_WARN("authentication failed for %s (node '%s'): %s", c->peer,
			 s->frame.node, rc < 0 ? bcn_strerror(rc) : "data before WELCOME");
		return -1;
	}
	if (c->auth.state == BCN_AUTH_ESTABLISHED) {
		c->state = BCN_CONN_READY;
		snprintf(c->node, sizeof(c->node), "%s", c->auth.node);
		BCN_INFO("%s authenticated as %s", c->peer, c->node);
	} else {
		c->state = BCN_CONN_AUTH;
	}
	return 0;
}

static int handle_data(struct bcn_srv *s, struct bcn_conn *c,
		       const uint8_t *p, size_t len)
{
	struct bcn_frame *f = &s->frame;
	int rc;

	if (c->node[0] && strcmp(c->node, f->node) != 0) {
		BCN_WARN("%s: authenticated as %s but sent a frame as %s", c->peer,
			 c->node, f->node);
		return -1;
	}
	s->st->frames_in++;
	s->st->bytes_in += len;
	rc = bcn_frame_validate(f);
	if (rc) {
		s->st->frames_rejected++;
		bcn_complain(&s->bad_frame_complaint, BCN_LOG_WARNING,
			     "rejected frame %" PRIu64 " from %s (%s): %s",
			     f->hdr.seq, f->node, c->peer, bcn_strerror(rc));
		conn_ack(s, c, f->hdr.seq, BCN_ACK_REJECTED);
		return 0;
	}
	s->st->records_in += f->hdr.count;
	rc = bcn_redisq_submit(s->q, f->node, f->hdr.seq, p, len, c->fd, c->id);
	if (rc) {
		BCN_ERR("cannot queue frame from %s: %s", f->node, bcn_strerror(rc));
		return -1;
	}
	c->inflight++;
	pressure_check(s);
	return 0;
}

/* Decodes one frame at p. Returns bytes consumed, 0 when more bytes are
 * needed, or -1 when the connection must be closed. */
static ssize_t handle_frame(struct bcn_srv *s, struct bcn_conn *c,
			    const uint8_t *p, size_t len)
{
	const struct bcn_frame_limits *lim =
		c->state == BCN_CONN_READY ? &s->lim : &s->hs_lim;
	size_t used;
	int rc = bcn_frame_open(&s->frame, p, len, lim, &used);

	if (rc == -BCN_ETRUNC)
		return 0;
	if (rc == -BCN_ECORRUPT && used == 0 && len >= BCN_FRAME_HDR_LEN &&
	    s->frame.hdr.kind == BCN_FRAME_DATA && c->state == BCN_CONN_READY) {
		/* envelope intact, content bad: reject and go on */
		used = BCN_FRAME_HDR_LEN + s->frame.hdr.body_len;
		s->st->frames_rejected++;
		conn_ack(s, c, s->frame.hdr.seq, BCN_ACK_REJECTED);
		return s->conns[c->fd] == c ? (ssize_t)used : -1;
	}
	if (rc) {
		s->st->frames_bad++;
		bcn_complain(&s->bad_frame_complaint, BCN_LOG_WARNING,
			     "bad frame from %s (%s): %s; closing", c->peer,
			     c->node[0] ? c->node : "unauthenticated", bcn_strerror(rc));
		return -1;
	}
	if (c->state != BCN_CONN_READY)
		rc = handle_handshake(s, c);
	else if (s->frame.hdr.kind == BCN_FRAME_DATA)
		rc = handle_data(s, c, p, used);
	else
		rc = -1;        /* handshake frames after WELCOME, or ACKs */
	if (rc || s->conns[c->fd] != c)
		return -1;
	return (ssize_t)used;
}

/* Parses every complete frame in c->in. Returns 0 or -1 (closed). */
static int conn_parse(struct bcn_srv *s, struct bcn_conn *c)
{
	size_t off = 0;

	while (off < c->in.len && !c->paused) {
		ssize_t n = handle_frame(s, c, c->in.data + off, c->in.len - off);

		if (n < 0) {
			if (s->conns[c->fd] == c)
				conn_close(s, c, "protocol error");
			return -1;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	if (off) {
		memmove(c->in.data, c->in.data + off, c->in.len - off);
		c->in.len -= off;
	}
	if (c->in.len == 0 && c->in.cap > SHRINK_ABOVE) {
		bcn_buf_free(&c->in);
		bcn_buf_init(&c->in, (size_t)s->cfg->max_frame + BCN_FRAME_HDR_LEN);
	}
	return conn_flush(s, c);
}

static void conn_read(struct bcn_srv *s, struct bcn_conn *c)
{
	for (;;) {
		size_t room = c->in.max - c->in.len;
		ssize_t n;

		if (room > READ_CHUNK)
			room = READ_CHUNK;
		if (room == 0 || bcn_buf_reserve(&c->in, room)) {
			conn_close(s, c, "out of memory for a frame");
			return;
		}
		n = read(c->fd, c->in.data + c->in.len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			if (c->in.len)
				BCN_WARN("%s (%s) closed in the middle of a frame "
					 "(%zu bytes dropped; the sender resends)",
					 c->peer, c->node, c->in.len);
			conn_close(s, c, n < 0 ? strerror(errno) : NULL);
			return;
		}
		c->in.len += (size_t)n;
		c->last_ms = s->now_ms;
		if (conn_parse(s, c))
			return;
		if (c->paused)
			return;
	}
}

static void pressure_check(struct bcn_srv *s)
{
	bool over = s->st->redisq.pending_bytes > s->cfg->pending_max;

	if (over == s->paused)
		return;
	s->paused = over;
	if (over)
		BCN_WARN("%" PRIu64 " bytes wait for Redis (max %" PRIu64 "): "
			 "pausing collectors", (uint64_t)s->st->redisq.pending_bytes,
			 s->cfg->pending_max);
	else
		BCN_NOTICE("Redis caught up: resuming collectors");
	for (size_t fd = 0; fd < s->conns_cap; fd++) {
		struct bcn_conn *c = s->conns[fd];

		if (!c)
			continue;
		c->paused = over;
		conn_interest(s, c);
		if (!over && c->in.len)
			conn_parse(s, c);
	}
}

/* The fates of frames from the Redis queue: each is acknowledged to its
 * connection, if it is still open; a FAILED frame (only at teardown) is
 * not, and its collector resends it. Answers leave at the end of the turn;
 * backpressure is re-evaluated once Redis confirmed frames. */
static void on_redisq_done(void *arg, const struct bcn_redisq_done *d, size_t n)
{
	struct bcn_srv *s = arg;
	bool confirmed = false;

	for (size_t i = 0; i < n; i++) {
		struct bcn_conn *c = conn_lookup(s, d[i].slot, d[i].cookie);

		confirmed |= d[i].fate != BCN_REDISQ_FAILED;
		if (!c)
			continue;
		c->inflight--;
		if (d[i].fate != BCN_REDISQ_FAILED)
			conn_ack(s, c, d[i].seq, d[i].fate == BCN_REDISQ_STORED ?
				 BCN_ACK_STORED : BCN_ACK_DUPLICATE);
	}
	if (confirmed)
		pressure_check(s);
}

/* Creates the Redis queue from the redis_* keys, in the server's loop. */
static int redisq_open(struct bcn_srv *s)
{
	const struct bcn_logsrv_config *cfg = s->cfg;
	struct bcn_redisq_config qc = {
		.port = cfg->redis_port,
		.require_fsync = cfg->redis_require_fsync,
		.dedup_window = cfg->dedup_window,
		.backoff_max_ms = cfg->redis_backoff_max_ms,
		.timeout_ms = cfg->redis_timeout_ms,
		.give_up_ms = 0,        /* a frame waits until Redis has it */
	};

	snprintf(qc.host, sizeof(qc.host), "%s", cfg->redis_host);
	snprintf(qc.password_file, sizeof(qc.password_file), "%s",
		 cfg->redis_password_file);
	snprintf(qc.prefix, sizeof(qc.prefix), "%s", cfg->redis_prefix);
	s->redis_ev.type = BCN_EV_REDIS;
	return bcn_redisq_create(&qc, s->ep, &s->redis_ev, on_redisq_done, s,
				 &s->st->redisq, &s->q);
}

static void check_timeouts(struct bcn_srv *s)
{
	for (size_t fd = 0; fd < s->conns_cap; fd++) {
		struct bcn_conn *c = s->conns[fd];
		int64_t idle;

		if (!c)
			continue;
		idle = s->now_ms - c->last_ms;
		if (c->state != BCN_CONN_READY && idle > s->cfg->handshake_timeout_ms)
			conn_close(s, c, "handshake timed out");
		else if (s->cfg->idle_timeout_ms > 0 && idle > s->cfg->idle_timeout_ms &&
			 c->inflight == 0)
			conn_close(s, c, "idle");
	}
}

/* One statistic, as logged and written to Redis (docs/logsrv.md). */
struct stat_field {
	const char *name;
	int64_t v;
};

static void put_u64(struct stat_field *f, size_t *n, const char *name, uint64_t v)
{
	f[(*n)++] = (struct stat_field){ name, v > INT64_MAX ? INT64_MAX : (int64_t)v };
}

/* The ingest lag of the interval, which is emptied, and of the run. */
static size_t lag_fields(struct bcn_logsrv_lag *l, struct stat_field *f)
{
	const struct bcn_lagdist *i = &l->interval, *t = &l->total;
	size_t n = 0;

	pthread_mutex_lock(&l->lock);
	put_u64(f, &n, "lag_count", i->count);
	put_u64(f, &n, "lag_p50_ms", bcn_lagdist_quantile(i, 0.5));
	put_u64(f, &n, "lag_p99_ms", bcn_lagdist_quantile(i, 0.99));
	put_u64(f, &n, "lag_max_ms", i->max_ms);
	put_u64(f, &n, "lag_total_count", t->count);
	put_u64(f, &n, "lag_total_p50_ms", bcn_lagdist_quantile(t, 0.5));
	put_u64(f, &n, "lag_total_p99_ms", bcn_lagdist_quantile(t, 0.99));
	put_u64(f, &n, "lag_total_max_ms", t->max_ms);
	bcn_lagdist_reset(&l->interval);
	pthread_mutex_unlock(&l->lock);
	return n;
}

static size_t collect_stats(struct bcn_srv *s, struct stat_field *f)
{
	struct bcn_logsrv_stats *t = s->st;
	size_t n = 0;

	f[n++] = (struct stat_field){ "conns", (int64_t)t->conns_open };
	f[n++] = (struct stat_field){ "frames_in", (int64_t)t->frames_in };
	f[n++] = (struct stat_field){ "records_in", (int64_t)t->records_in };
	f[n++] = (struct stat_field){ "stored", (int64_t)t->redisq.stored };
	f[n++] = (struct stat_field){ "dup", (int64_t)t->redisq.duplicate };
	f[n++] = (struct stat_field){ "rejected", (int64_t)t->frames_rejected };
	f[n++] = (struct stat_field){ "bad", (int64_t)t->frames_bad };
	f[n++] = (struct stat_field){ "pending", (int64_t)t->redisq.pending_frames };
	f[n++] = (struct stat_field){ "backlog", t->backlog };
	f[n++] = (struct stat_field){ "flushed", (int64_t)t->flushed_records };
	f[n++] = (struct stat_field){ "store_errors", (int64_t)t->store_errors };
	return n + lag_fields(&t->lag, f + n);
}

/* HSET <prefix>:stats with the fields and the time (epoch seconds). */
static void stats_to_redis(struct bcn_srv *s, const struct stat_field *f, size_t n)
{
	const char *argv[2 + 2 * (STATS_MAX + 1)];
	char vals[STATS_MAX + 1][24], key[BCN_LOGSRV_PREFIX_MAX + 16];
	int k = 0;

	snprintf(key, sizeof(key), BCN_LOGSRV_STATS_KEY, s->cfg->redis_prefix);
	argv[k++] = "HSET";
	argv[k++] = key;
	for (size_t i = 0; i < n; i++) {
		snprintf(vals[i], sizeof(vals[i]), "%" PRId64, f[i].v);
		argv[k++] = f[i].name;
		argv[k++] = vals[i];
	}
	snprintf(vals[n], sizeof(vals[n]), "%" PRId64, bcn_real_ns() / 1000000000);
	argv[k++] = "time";
	argv[k++] = vals[n];
	bcn_redisq_command(s->q, k, argv, "statistics");
}

/* Logs the counters and the ingest lag on one line and writes them to
 * Redis; final is the last publication, at shutdown. */
static void publish_stats(struct bcn_srv *s, bool final)
{
	struct stat_field f[STATS_MAX];
	char line[STATS_LINE_MAX];
	size_t n = collect_stats(s, f), len = 0;

	for (size_t i = 0; i < n && len < sizeof(line); i++) {
		int w = snprintf(line + len, sizeof(line) - len, "%s%s=%" PRId64,
				 i ? " " : "", f[i].name, f[i].v);

		len += w > 0 ? (size_t)w : 0;
	}
	if (final)
		BCN_NOTICE("stats (final): %s", line);
	else
		BCN_INFO("stats: %s", line);
	stats_to_redis(s, f, n);
}

static void on_tick(struct bcn_srv *s, int64_t *last_slow)
{
	uint64_t exp;

	while (read(s->tfd, &exp, sizeof(exp)) > 0)
		;
	bcn_redisq_tick(s->q);
	if (s->now_ms - *last_slow >= 1000) {
		*last_slow = s->now_ms;
		check_timeouts(s);
	}
	if (s->now_ms - s->last_stats_ms >= s->cfg->stats_interval_ms) {
		s->last_stats_ms = s->now_ms;
		publish_stats(s, false);
	}
}

static int setup(struct bcn_srv *s)
{
	struct itimerspec its = { { 0, TICK_MS * 1000000 }, { 0, TICK_MS * 1000000 } };
	struct rlimit rl;
	int rc;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->conns_cap = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (1u << 20)
		       ? (size_t)rl.rlim_cur : (1u << 20);
	s->conns = calloc(s->conns_cap, sizeof(*s->conns));
	s->dirty = calloc(s->conns_cap, sizeof(*s->dirty));
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!s->conns || !s->dirty || s->ep < 0 || s->tfd < 0)
		return -ENOMEM;
	s->timer_ev.type = BCN_EV_TIMER;
	timerfd_settime(s->tfd, 0, &its, NULL);
	rc = ep_set(s, s->tfd, &s->timer_ev, EPOLLIN, EPOLL_CTL_ADD);
	if (!rc)
		rc = open_listener(s);
	if (!rc)
		rc = redisq_open(s);
	return rc;
}

static void dispatch(struct bcn_srv *s, struct epoll_event *e, int64_t *last_slow)
{
	struct bcn_ev *ev = e->data.ptr;
	struct bcn_conn *c;

	switch (ev->type) {
	case BCN_EV_LISTEN:
		accept_all(s);
		break;
	case BCN_EV_TIMER:
		on_tick(s, last_slow);
		break;
	case BCN_EV_REDIS:
		bcn_redisq_event(s->q, e->events);
		break;
	case BCN_EV_CONN:
		c = (struct bcn_conn *)ev;
		if (e->events & EPOLLOUT && conn_flush(s, c))
			break;
		if (e->events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP))
			conn_read(s, c);
		break;
	}
}

static void teardown(struct bcn_srv *s)
{
	for (size_t fd = 0; s->conns && fd < s->conns_cap; fd++)
		if (s->conns[fd])
			conn_close(s, s->conns[fd], NULL);
	bcn_redisq_destroy(s->q);
	s->q = NULL;
	bcn_frame_free(&s->frame);
	free(s->conns);
	free(s->dirty);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->ep >= 0)
		close(s->ep);
}

static int loop(struct bcn_srv *s, volatile sig_atomic_t *stop)
{
	struct epoll_event evs[MAX_EVENTS];
	int64_t last_slow = 0, drain_until = 0;

	for (;;) {
		int n = epoll_wait(s->ep, evs, MAX_EVENTS, TICK_MS);

		if (n < 0 && errno != EINTR)
			return -errno;
		s->now_ms = bcn_mono_ms();
		for (int i = 0; i < n; i++)
			dispatch(s, &evs[i], &last_slow);
		bcn_redisq_flush(s->q);
		flush_dirty(s);
		if (*stop && !s->draining) {
			BCN_NOTICE("stopping: %" PRIu64 " frames still wait for Redis",
				   (uint64_t)s->st->redisq.pending_frames);
			s->draining = true;
			drain_until = s->now_ms + DRAIN_MS;
			epoll_ctl(s->ep, EPOLL_CTL_DEL, s->lfd, NULL);
		}
		if (s->draining && (s->st->redisq.pending_frames == 0 ||
				    s->now_ms > drain_until))
			return 0;
	}
}

int bcn_logsrv_run(const struct bcn_logsrv_config *cfg,
		   volatile sig_atomic_t *stop, struct bcn_logsrv_stats *stats)
{
	struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_flusher *fl = NULL;
	struct bcn_srv s;
	char err[256];
	int rc;

	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&stats->lag.lock, NULL);
	bcn_lagdist_reset(&stats->lag.interval);
	bcn_lagdist_reset(&stats->lag.total);
	s.cfg = cfg;
	s.st = stats;
	s.lfd = s.tfd = s.ep = -1;
	s.now_ms = bcn_mono_ms();
	s.last_stats_ms = s.now_ms;
	bcn_logsrv_frame_limits(cfg, true, &lim);
	s.lim = lim;
	s.hs_lim = lim;
	s.hs_lim.max_body = HANDSHAKE_BODY_MAX;
	bcn_frame_init(&s.frame);
	if (cfg->auth_key_file[0]) {
		rc = bcn_auth_key_load(cfg->auth_key_file, &s.key, err, sizeof(err));
		if (rc) {
			BCN_ERR("auth_key_file: %s", err);
			goto out;
		}
		s.have_key = true;
	} else if (cfg->auth_required) {
		BCN_ERR("auth_key_file is not set and auth_required is yes");
		rc = -EINVAL;
		goto out;
	} else {
		BCN_WARN("authentication is off: any collector may send records");
	}
	rc = setup(&s);
	if (rc)
		goto out;
	if (cfg->flusher) {
		rc = bcn_flusher_start(cfg, stats, &fl);
		if (rc)
			goto out;
	}
	BCN_NOTICE("listening on %s, Redis %s:%" PRIu64 ", store %s",
		   cfg->listen, cfg->redis_host, cfg->redis_port,
		   cfg->flusher ? (cfg->store.cfg.backend == BCN_STORE_SQLITE ?
				   cfg->store.cfg.dir : cfg->store.cfg.url) : "(flusher off)");
	rc = loop(&s, stop);
	if (fl)
		bcn_flusher_stop(fl);  /* its last batch counts in the final stats */
	fl = NULL;
	publish_stats(&s, true);
	bcn_redisq_event(s.q, EPOLLOUT);        /* send them before closing */
out:
	if (fl)
		bcn_flusher_stop(fl);
	teardown(&s);
	pthread_mutex_destroy(&stats->lag.lock);
	return rc;
}
