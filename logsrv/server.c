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
#define ACCEPT_PAUSE_MS 1000            /* accepts stop this long on EMFILE */
#define FDS_BASE 16                     /* stdio, epoll, timer, listener, log */
#define DRAIN_MS 10000
#define STATS_MAX 32                    /* fields in one publication */
#define STATS_LINE_MAX 1024

static void pressure_check(struct bcn_srv *s);
static void conn_close(struct bcn_srv *s, struct bcn_conn *c, const char *why);

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

/* The pre-auth list: unauthenticated connections in order of arrival, so
 * the oldest is at its head (handshake deadlines, eviction). */
static void preauth_link(struct bcn_srv *s, struct bcn_conn *c)
{
	c->prev = s->preauth_tail;
	c->next = NULL;
	if (s->preauth_tail)
		s->preauth_tail->next = c;
	else
		s->preauth_head = c;
	s->preauth_tail = c;
	c->preauth = true;
	s->npreauth++;
}

static void preauth_unlink(struct bcn_srv *s, struct bcn_conn *c)
{
	if (!c->preauth)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->preauth_head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		s->preauth_tail = c->prev;
	c->prev = c->next = NULL;
	c->preauth = false;
	s->npreauth--;
}

/* Puts the listener back into the loop after a shortage of descriptors. */
static void accept_resume(struct bcn_srv *s)
{
	if (!s->accept_off || s->draining)
		return;
	if (ep_set(s, s->lfd, &s->listen_ev, EPOLLIN, EPOLL_CTL_ADD) == 0)
		s->accept_off = false;
}

static void conn_close(struct bcn_srv *s, struct bcn_conn *c, const char *why)
{
	if (why && c->state == BCN_CONN_READY)
		BCN_INFO("closing %s (%s): %s", c->peer, c->node[0] ? c->node : "-", why);
	else if (why)   /* anyone can make these: rate-limited */
		bcn_complain(&s->close_complaint, BCN_LOG_INFO,
			     "closing %s (unauthenticated): %s", c->peer, why);
	preauth_unlink(s, c);
	/* an event of c later in this batch must not reach freed memory
	 * (another event can close c: the pre-auth cap on accept, a Redis
	 * answer that finds its collector gone) */
	for (int i = s->batch_i + 1; s->batch && i < s->batch_n; i++)
		if (s->batch[i].data.ptr == c)
			s->batch[i].data.ptr = NULL;
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	bcn_tls_free(c->tls);
	close(c->fd);
	s->conns[c->fd] = NULL;
	bcn_conn_release(c);
	free(c);
	s->st->conns_open--;
	accept_resume(s);
}

static void conn_interest(struct bcn_srv *s, struct bcn_conn *c)
{
	uint32_t ev = 0;

	if (c->tls_hs)  /* the TLS handshake waits for one direction */
		ev = bcn_tls_wants_write(c->tls) ? EPOLLOUT : EPOLLIN | EPOLLRDHUP;
	else if (!c->paused && !c->closing)
		ev |= EPOLLIN | EPOLLRDHUP;
	if (!c->tls_hs && c->out.len > c->out_off)
		ev |= EPOLLOUT;
	if (ev != c->events) {
		c->events = ev;
		ep_set(s, c->fd, c, ev, EPOLL_CTL_MOD);
	}
}

/* write(2) or TLS: bytes written, or -EAGAIN, -EINTR, another -errno. */
static ssize_t conn_send(struct bcn_conn *c, const void *p, size_t len)
{
	ssize_t n;

	if (c->tls)
		return bcn_tls_write(c->tls, p, len);
	n = write(c->fd, p, len);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

/* read(2) or TLS: bytes read, 0 at the end, -EAGAIN, -EINTR, -errno. */
static ssize_t conn_recv(struct bcn_conn *c, void *p, size_t len)
{
	ssize_t n;

	if (c->tls)
		return bcn_tls_read(c->tls, p, len);
	n = read(c->fd, p, len);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

/* Advances a connection's TLS handshake (it counts against the handshake
 * deadline like the frames' handshake). Returns 1 when done, 0 when it
 * waits for the socket, -1 when c was closed. */
static int conn_tls_step(struct bcn_srv *s, struct bcn_conn *c)
{
	int rc = bcn_tls_handshake(c->tls);

	if (rc == -EAGAIN) {
		conn_interest(s, c);
		return 0;
	}
	if (rc) {
		s->st->tls_failures++;
		bcn_complain(&s->tls_complaint, BCN_LOG_WARNING,
			     "TLS handshake with %s failed: %s", c->peer,
			     bcn_tls_error(c->tls));
		conn_close(s, c, "TLS handshake failed");
		return -1;
	}
	c->tls_hs = false;
	conn_interest(s, c);
	return 1;
}

/* Writes what can be written now. Returns 0, or -1 when c was closed. */
static int conn_flush(struct bcn_srv *s, struct bcn_conn *c)
{
	while (!c->tls_hs && c->out.len > c->out_off) {
		ssize_t n = conn_send(c, c->out.data + c->out_off,
				      c->out.len - c->out_off);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
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
	if (bcn_conn_ack(&s->cx, c, seq, status)) {
		conn_close(s, c, c->why);
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

/* Out of descriptors (EMFILE, ENFILE) or memory: accepting again at once
 * would fail again, so the listener leaves the loop until a connection
 * closes or ACCEPT_PAUSE_MS have passed. */
static void accept_pause(struct bcn_srv *s, int err)
{
	bcn_complain(&s->accept_complaint, BCN_LOG_WARNING,
		     "accept: %s; not accepting for a while", strerror(err));
	if (epoll_ctl(s->ep, EPOLL_CTL_DEL, s->lfd, NULL) == 0)
		s->accept_off = true;
	s->accept_resume_ms = s->now_ms + ACCEPT_PAUSE_MS;
}

static bool same_host(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
	return true;
}

/* Decides whether a connection from sa may be taken. Returns NULL, or why
 * not. Once unauthenticated connections hold half of max_preauth or
 * connections half of max_connections, an address may hold no more than
 * max_preauth_per_peer handshakes (a burst of collectors behind one
 * address passes while the server is not under pressure). At max_preauth
 * the oldest handshake is closed, so stalled ones cannot keep new
 * collectors out. */
static const char *admit(struct bcn_srv *s, const struct sockaddr_storage *sa)
{
	uint64_t same = 0;

	if (s->draining)
		return "shutting down";
	if (s->st->conns_open >= s->max_conns)
		return "max_connections reached";
	if (!s->have_key)
		return NULL;
	if (s->npreauth * 2 >= s->cfg->max_preauth ||
	    s->st->conns_open * 2 >= s->max_conns)
		for (struct bcn_conn *c = s->preauth_head; c; c = c->next)
			same += same_host(&c->addr, sa);
	if (same >= s->cfg->max_preauth_per_peer)
		return "max_preauth_per_peer reached for its address";
	if (s->npreauth >= s->cfg->max_preauth)
		conn_close(s, s->preauth_head, "max_preauth reached: the oldest "
			   "handshake makes room");
	return NULL;
}

/* Registers the accepted fd as a connection. Returns 0 or -1 (fd closed). */
static int conn_open(struct bcn_srv *s, int fd, const struct sockaddr_storage *sa,
		     socklen_t sl)
{
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
	struct bcn_conn *c = calloc(1, sizeof(*c));
	int one = 1;

	if (!c || (size_t)fd >= s->conns_cap) {
		free(c);
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	getnameinfo((const struct sockaddr *)sa, sl, host, sizeof(host), port,
		    sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
	c->ev.type = BCN_EV_CONN;
	c->fd = fd;
	c->id = ++s->next_id;
	c->addr = *sa;
	snprintf(c->peer, sizeof(c->peer), "%s:%s", host, port);
	c->events = EPOLLIN | EPOLLRDHUP;
	if (s->tls && bcn_tls_new(s->tls, fd, NULL, &c->tls) == 0)
		c->tls_hs = true;
	if ((s->tls && !c->tls) || bcn_conn_start(&s->cx, c, s->now_ms) ||
	    ep_set(s, fd, c, c->events, EPOLL_CTL_ADD)) {
		bcn_tls_free(c->tls);
		bcn_conn_release(c);
		free(c);
		close(fd);
		return -1;
	}
	s->conns[fd] = c;
	if (c->state != BCN_CONN_READY)
		preauth_link(s, c);
	s->st->conns_accepted++;
	s->st->conns_open++;
	BCN_DEBUG("connection from %s", c->peer);
	return 0;
}

static void accept_all(struct bcn_srv *s)
{
	while (!s->accept_off) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		const char *why;
		int fd = accept4(s->lfd, (struct sockaddr *)&sa, &sl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				accept_pause(s, errno);
			else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				bcn_complain(&s->accept_complaint, BCN_LOG_WARNING,
					     "accept: %s", strerror(errno));
			return;
		}
		why = admit(s, &sa);
		if (why) {
			s->st->conns_refused++;
			bcn_complain(&s->accept_complaint, BCN_LOG_WARNING,
				     "refusing a connection (%" PRIu64 " open, %" PRIu64
				     " unauthenticated): %s", (uint64_t)s->st->conns_open,
				     s->npreauth, why);
			close(fd);
			continue;
		}
		conn_open(s, fd, &sa, sl);
	}
}

/* The submit hook of the connections: DATA frames go to the Redis queue. */
static int conn_submit(void *arg, struct bcn_conn *c, const struct bcn_frame *f,
		       const uint8_t *p, size_t len)
{
	struct bcn_srv *s = arg;
	int rc = bcn_redisq_submit(s->q, f->node, f->hdr.seq, p, len, c->fd, c->id);

	if (rc) {
		BCN_ERR("cannot queue frame from %s: %s", f->node, bcn_strerror(rc));
		return rc;
	}
	c->inflight++;
	pressure_check(s);
	return 0;
}

/* Parses every complete frame in c->in. Returns 0 or -1 (closed). */
static int conn_parse(struct bcn_srv *s, struct bcn_conn *c)
{
	if (bcn_conn_parse(&s->cx, c)) {
		if (s->conns[c->fd] == c)
			conn_close(s, c, c->why);
		return -1;
	}
	if (c->state == BCN_CONN_READY)
		preauth_unlink(s, c);
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
		n = conn_recv(c, c->in.data + c->in.len, room);
		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
			break;
		if (n <= 0) {
			if (c->in.len)
				bcn_complain(&s->close_complaint, BCN_LOG_WARNING,
					     "%s (%s) closed in the middle of a frame "
					     "(%zu bytes dropped; the sender resends)",
					     c->peer, c->node[0] ? c->node : "-", c->in.len);
			conn_close(s, c, n < 0 ? (c->tls ? bcn_tls_error(c->tls) :
						      strerror((int)-n)) : NULL);
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
		if (!over && c->in.len && conn_parse(s, c))
			continue;
		if (!over && c->tls && !c->tls_hs && bcn_tls_pending(c->tls))
			conn_read(s, c);
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
		.dedup_ttl_ms = cfg->dedup_ttl_ms,
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

/* The handshake is a deadline from accept, whatever the peer sends; the
 * pre-auth list is in order of arrival, so only its expired head is
 * looked at. Authenticated connections may close when idle. */
static void check_timeouts(struct bcn_srv *s)
{
	while (s->preauth_head &&
	       s->now_ms - s->preauth_head->accept_ms > s->cfg->handshake_timeout_ms)
		conn_close(s, s->preauth_head, "handshake not done in handshake_timeout");
	if (s->cfg->idle_timeout_ms <= 0)
		return;
	for (size_t fd = 0; fd < s->conns_cap; fd++) {
		struct bcn_conn *c = s->conns[fd];

		if (c && c->state == BCN_CONN_READY && c->inflight == 0 &&
		    s->now_ms - c->last_ms > s->cfg->idle_timeout_ms)
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
	f[n++] = (struct stat_field){ "auth_failures", (int64_t)t->auth_failures };
	f[n++] = (struct stat_field){ "mac_failures", (int64_t)t->mac_failures };
	f[n++] = (struct stat_field){ "role_rejected", (int64_t)t->role_rejected };
	f[n++] = (struct stat_field){ "tls_failures", (int64_t)t->tls_failures };
	f[n++] = (struct stat_field){ "pending", (int64_t)t->redisq.pending_frames };
	f[n++] = (struct stat_field){ "backlog", t->backlog };
	f[n++] = (struct stat_field){ "flushed", (int64_t)t->flushed_records };
	f[n++] = (struct stat_field){ "reports_dropped", (int64_t)t->reports_dropped };
	f[n++] = (struct stat_field){ "gen_bumps", (int64_t)t->gen_bumps };
	f[n++] = (struct stat_field){ "store_errors", (int64_t)t->store_errors };
	f[n++] = (struct stat_field){ "store_refused", (int64_t)t->store_refused };
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
	/* the registry beacon-web's /metrics reads (docs/api.md): prefix ->
	 * name */
	argv[0] = "HSET";
	argv[1] = BCN_LOGSRV_REGISTRY_KEY;
	argv[2] = s->cfg->redis_prefix;
	argv[3] = s->cfg->name;
	bcn_redisq_command(s->q, 4, argv, "statistics registry");
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
	if (s->accept_off && s->now_ms >= s->accept_resume_ms)
		accept_resume(s);
	if (s->now_ms - s->last_stats_ms >= s->cfg->stats_interval_ms) {
		s->last_stats_ms = s->now_ms;
		publish_stats(s, false);
	}
}

/* Raises the open-file limit to its maximum and clamps max_connections to
 * it, keeping fd_reserve descriptors for Redis, the store and the flusher
 * (and FDS_BASE for the server's own). Returns 0 or -EMFILE. */
static int size_connections(struct bcn_srv *s)
{
	uint64_t reserve = s->cfg->fd_reserve + FDS_BASE, nofile;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (1u << 20)
		 ? (uint64_t)rl.rlim_cur : (1u << 20);
	s->conns_cap = (size_t)nofile;
	if (nofile <= reserve) {
		BCN_ERR("the open-file limit (%" PRIu64 ") leaves no descriptor for "
			"connections after fd_reserve (%" PRIu64 ") and the server's own",
			nofile, s->cfg->fd_reserve);
		return -EMFILE;
	}
	s->max_conns = s->cfg->max_connections;
	if (s->max_conns > nofile - reserve) {
		s->max_conns = nofile - reserve;
		BCN_NOTICE("max_connections is %" PRIu64 ": the open-file limit %"
			   PRIu64 " less fd_reserve %" PRIu64 " and %d for the server",
			   s->max_conns, nofile, s->cfg->fd_reserve, FDS_BASE);
	}
	return 0;
}

static int setup(struct bcn_srv *s)
{
	struct itimerspec its = { { 0, TICK_MS * 1000000 }, { 0, TICK_MS * 1000000 } };
	int rc = size_connections(s);

	if (rc)
		return rc;
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

	if (!ev)
		return;         /* its connection was closed earlier in the batch */
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
		if (c->tls_hs && conn_tls_step(s, c) <= 0)
			break;
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
	bcn_roles_free((struct bcn_roles *)s->cx.roles);
	s->cx.roles = NULL;
	bcn_tls_ctx_free(s->tls);
	s->tls = NULL;
	bcn_conn_ctx_free(&s->cx);
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
		s->batch = evs;
		s->batch_n = n;
		for (s->batch_i = 0; s->batch_i < n; s->batch_i++)
			dispatch(s, &evs[s->batch_i], &last_slow);
		s->batch = NULL;
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

/* TLS credentials, when tls is on (docs/logsrv.md, "TLS"). */
static int load_tls(struct bcn_srv *s)
{
	const struct bcn_logsrv_config *cfg = s->cfg;
	char err[512];
	int rc;

	if (!cfg->tls)
		return 0;
	if (!cfg->tls_cert_file[0] || !cfg->tls_key_file[0]) {
		BCN_ERR("tls is on: tls_cert_file and tls_key_file are needed");
		return -EINVAL;
	}
	rc = bcn_tls_server_ctx(cfg->tls_cert_file, cfg->tls_key_file,
				cfg->tls_ca_file, cfg->tls_verify_client, &s->tls,
				err, sizeof(err));
	if (rc) {
		BCN_ERR("%s", err);
		return rc;
	}
	BCN_NOTICE("TLS on, certificate %s%s", cfg->tls_cert_file,
		   cfg->tls_verify_client ? ", client certificates required" : "");
	return 0;
}

/* The role map, when configured (docs/logsrv.md, "Roles"). */
static int load_roles(struct bcn_srv *s)
{
	struct bcn_roles *r;
	char err[512];
	int rc;

	if (!s->cfg->role_map[0]) {
		if (s->cfg->role_default != BCN_ROLE_ANY)
			BCN_WARN("role_default is ignored without role_map");
		return 0;
	}
	rc = bcn_roles_load(s->cfg->role_map, s->cfg->role_default, &r, err,
			    sizeof(err));
	if (rc) {
		BCN_ERR("role_map: %s", err);
		return rc;
	}
	s->cx.roles = r;
	BCN_NOTICE("role map %s: %zu nodes, others %s", s->cfg->role_map,
		   bcn_roles_count(r), bcn_role_names[s->cfg->role_default]);
	return 0;
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
	s.cx.st = stats;
	s.cx.name = cfg->name;
	s.cx.lim = lim;
	s.cx.submit = conn_submit;
	s.cx.submit_arg = &s;
	bcn_conn_ctx_init(&s.cx);
	if (cfg->auth_key_file[0]) {
		rc = bcn_auth_key_load(cfg->auth_key_file, &s.key, err, sizeof(err));
		if (rc) {
			BCN_ERR("auth_key_file: %s", err);
			goto out;
		}
		s.have_key = true;
		s.cx.key = &s.key;
	} else if (cfg->auth_required) {
		BCN_ERR("auth_key_file is not set and auth_required is yes");
		rc = -EINVAL;
		goto out;
	} else {
		BCN_WARN("authentication is off: any collector may send records");
	}
	rc = load_roles(&s);
	if (!rc)
		rc = load_tls(&s);
	if (rc)
		goto out;
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
