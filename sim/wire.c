/* beacon-sim's scale-mode transport (wire.h): one epoll loop over many
 * collectors' connections. A connection goes DOWN -> DIALING (non-blocking
 * connect) -> OPEN, and back to DOWN with the session's exponential,
 * jittered backoff on any failure. Everything the protocol asks of a
 * connection once it is open (handshake, queue, window, ACKs, resends,
 * deadlines) is its protocol session (delivery/session.h); this file
 * holds the sockets, the dial pacing and the totals. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/log.h"
#include "delivery/session.h"
#include "sim/wire.h"

#define ADDRS_MAX 64                    /* distinct server addresses */
/* one recv(); leaves the session room for a partial frame */
#define RBUF_LEN (BCN_SESSION_RX_MAX / 4)
#define SCAN_NS 20000000LL              /* timers checked every 20 ms */
#define EVENTS 512
#define NS_PER_MS 1000000LL
/* largest frame: the protocol's default body limit */
#define FRAME_MAX ((16u << 20) + BCN_FRAME_HDR_LEN)

enum { W_UNUSED, W_DOWN, W_DIALING, W_OPEN };

struct wconn {
	int fd;
	uint8_t state;
	bool want_out;                  /* EPOLLOUT registered */
	uint8_t addr;                   /* index in bcn_sim_wire.addrs */
	uint32_t failures;              /* connection attempts that failed */
	int64_t retry_at, dial_start;   /* ns */
	int64_t tick_at;                /* ns: the session's timers are
					 * looked at from then on */
	struct bcn_session *ss;         /* apart, so that the scan over
					 * thousands of connections stays
					 * in the cache */
};

struct bcn_sim_wire {
	struct bcn_sim_wire_conf c;
	struct wconn *conns;
	size_t n, dialing;
	struct sockaddr_storage addrs[ADDRS_MAX];
	socklen_t addrlen[ADDRS_MAX];
	size_t naddrs;
	int ep;
	uint64_t rng;
	int64_t next_scan;
	uint8_t rbuf[RBUF_LEN];
	struct bcn_sim_wire_stats st;   /* the connection counters */
};

int64_t bcn_sim_wire_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int bcn_sim_wire_new(const struct bcn_sim_wire_conf *conf, size_t n,
		     struct bcn_sim_wire **out)
{
	struct bcn_sim_wire *w;

	*out = NULL;
	if (!conf->key || !conf->window || conf->queue_bytes < 1024 ||
	    conf->backoff_min_ms < 1 || conf->backoff_max_ms <
	    conf->backoff_min_ms || conf->ack_timeout_ms < 1)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->c = *conf;
	w->n = n;
	w->conns = calloc(n ? n : 1, sizeof(*w->conns));
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!w->conns || w->ep < 0) {
		int rc = w->ep < 0 ? -errno : -ENOMEM;

		free(w->conns);
		if (w->ep >= 0)
			close(w->ep);
		free(w);
		return rc;
	}
	w->rng = (uint64_t)bcn_sim_wire_now() | 1;
	*out = w;
	return 0;
}

void bcn_sim_wire_free(struct bcn_sim_wire *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++) {
		if (w->conns[i].state == W_UNUSED)
			continue;
		if (w->conns[i].fd >= 0)
			close(w->conns[i].fd);
		bcn_session_fini(w->conns[i].ss);
		free(w->conns[i].ss);
	}
	free(w->conns);
	close(w->ep);
	free(w);
}

/* A seed for one connection's backoff jitter. */
static uint64_t rnd(struct bcn_sim_wire *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static int add_addr(struct bcn_sim_wire *w, const struct sockaddr *addr,
		    socklen_t addrlen, size_t *out)
{
	size_t a;

	for (a = 0; a < w->naddrs; a++)
		if (w->addrlen[a] == addrlen &&
		    !memcmp(&w->addrs[a], addr, addrlen))
			break;
	if (a == w->naddrs) {
		if (a == ADDRS_MAX)
			return -EINVAL;
		memcpy(&w->addrs[a], addr, addrlen);
		w->addrlen[a] = addrlen;
		w->naddrs++;
	}
	*out = a;
	return 0;
}

int bcn_sim_wire_add(struct bcn_sim_wire *w, size_t i, const char *node,
		     const struct sockaddr *addr, socklen_t addrlen,
		     uint64_t first_seq)
{
	struct bcn_session_conf sc = {
		.key = w->c.key, .node = node,
		.queue_bytes = w->c.queue_bytes, .window = w->c.window,
		.backoff_min_ms = w->c.backoff_min_ms,
		.backoff_max_ms = w->c.backoff_max_ms,
		.ack_timeout_ms = w->c.ack_timeout_ms,
		.first_seq = first_seq,
	};
	struct wconn *c;
	size_t a, len = strlen(node);
	int rc;

	if (i >= w->n || !len || len > BCN_SIM_WIRE_NODE_MAX ||
	    addrlen > sizeof(w->addrs[0]) || w->conns[i].state != W_UNUSED)
		return -EINVAL;
	rc = add_addr(w, addr, addrlen, &a);
	if (rc)
		return rc;
	c = &w->conns[i];
	sc.seed = rnd(w);
	c->ss = malloc(sizeof(*c->ss));
	if (!c->ss)
		return -ENOMEM;
	rc = bcn_session_init(c->ss, &sc);
	if (rc) {
		bcn_session_fini(c->ss);
		free(c->ss);
		c->ss = NULL;
		return rc;
	}
	c->fd = -1;
	c->state = W_DOWN;
	c->addr = (uint8_t)a;
	w->st.conns++;
	return 0;
}

/* Closes c and schedules its next attempt; its frames wait. */
static void fail(struct bcn_sim_wire *w, struct wconn *c)
{
	struct bcn_session_frame *dead;
	bool up = c->state == W_OPEN && c->ss->state == BCN_SESSION_UP;

	if (up) {
		w->st.disconnects++;
		w->st.up--;
	} else {
		w->st.connect_failures++;
		c->failures++;
		if (c->state == W_DIALING || c->state == W_OPEN)
			w->dialing--;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = W_DOWN;
	c->want_out = false;
	bcn_session_disconnected(c->ss, &dead);
	bcn_session_frames_free(dead);
	c->retry_at = bcn_sim_wire_now() +
		      bcn_session_backoff(c->ss, true) * NS_PER_MS;
}

static void watch(struct bcn_sim_wire *w, struct wconn *c, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0) };

	if (c->want_out == out)
		return;
	ev.data.ptr = c;
	if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->want_out = out;
}

static void dial(struct bcn_sim_wire *w, struct wconn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };
	int one = 1;

	c->fd = socket(w->addrs[c->addr].ss_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	c->state = W_DIALING;
	c->dial_start = bcn_sim_wire_now();
	w->dialing++;
	if (c->fd < 0) {
		fail(w, c);
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ev.data.ptr = c;
	c->want_out = true;
	if ((connect(c->fd, (const struct sockaddr *)&w->addrs[c->addr],
		     w->addrlen[c->addr]) && errno != EINPROGRESS) ||
	    epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev))
		fail(w, c);
}

/* Writes what c's session has to write. Returns 0 or -1 (c must fail). */
static int flush_out(struct bcn_sim_wire *w, struct wconn *c)
{
	struct bcn_session_frame *dead;
	const uint8_t *p;
	size_t len;
	ssize_t k;

	for (;;) {
		bcn_session_out(c->ss, bcn_sim_wire_now() / NS_PER_MS, &p,
				&len);
		if (len == 0)
			break;
		k = send(c->fd, p, len, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno != EAGAIN)
				return -1;
			watch(w, c, true);
			return 0;
		}
		bcn_session_wrote(c->ss, (size_t)k, &dead);
		bcn_session_frames_free(dead);
	}
	watch(w, c, false);
	return 0;
}

/* Handles the frames received. Returns 0 or -1 (c must fail). */
static int on_frames(struct bcn_sim_wire *w, struct wconn *c)
{
	struct bcn_session_event ev;
	int rc;

	while ((rc = bcn_session_step(c->ss, bcn_sim_wire_now() / NS_PER_MS,
				      &ev)) > 0) {
		if (ev.kind != BCN_SESSION_EV_ESTABLISHED)
			continue;
		w->dialing--;
		w->st.up++;
		w->st.connects++;
	}
	if (rc == -EKEYREJECTED ||
	    (rc == -EPROTO && c->ss->state == BCN_SESSION_HANDSHAKE))
		BCN_WARN("sim: %s: handshake refused: %s", c->ss->conf.node,
			 c->ss->why);
	return rc ? -1 : flush_out(w, c);
}

static int on_readable(struct bcn_sim_wire *w, struct wconn *c)
{
	ssize_t k = recv(c->fd, w->rbuf, sizeof(w->rbuf), 0);

	if (k == 0 || (k < 0 && errno != EAGAIN))
		return -1;
	if (k < 0)
		return 0;
	if (bcn_session_feed(c->ss, w->rbuf, (size_t)k))
		return -1;
	return on_frames(w, c);
}

static int start_handshake(struct bcn_sim_wire *w, struct wconn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
		return -1;
	c->state = W_OPEN;
	c->tick_at = 0;                 /* the handshake's deadline */
	if (bcn_session_connected(c->ss, bcn_sim_wire_now() / NS_PER_MS))
		return -1;
	return flush_out(w, c);
}

static void on_event(struct bcn_sim_wire *w, struct wconn *c, uint32_t ev)
{
	int rc = 0;

	if (c->state == W_DIALING) {
		if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			rc = start_handshake(w, c);
	} else {
		if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
			rc = on_readable(w, c);
		if (!rc && c->state != W_DOWN && (ev & EPOLLOUT))
			rc = flush_out(w, c);
	}
	if (rc)
		fail(w, c);
}

/* Looks at the timers of an open connection's session; returns -1 when it
 * timed out. A session without a deadline is looked at again within an
 * ACK timeout (at most a second), so that a deadline set in between (a
 * frame put in flight) is seen at most that late. */
static int tick(struct bcn_sim_wire *w, struct wconn *c, int64_t now)
{
	int64_t idle = w->c.ack_timeout_ms * NS_PER_MS, next;

	if (idle > 1000 * NS_PER_MS)
		idle = 1000 * NS_PER_MS;
	if (bcn_session_tick(c->ss, now / NS_PER_MS, &next))
		return -1;
	c->tick_at = now + idle;
	if (next >= 0 && next * NS_PER_MS < c->tick_at)
		c->tick_at = next * NS_PER_MS;
	return 0;
}

/* Dials connections whose time has come; fails the silent ones. */
static void scan(struct bcn_sim_wire *w, int64_t now)
{
	int64_t limit = w->c.ack_timeout_ms * NS_PER_MS;
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct wconn *c = &w->conns[i];

		if (c->state == W_DOWN) {
			if (c->retry_at <= now &&
			    w->dialing < BCN_SIM_WIRE_DIALS_MAX)
				dial(w, c);
		} else if (c->state == W_DIALING) {
			if (now - c->dial_start > limit)
				fail(w, c);
		} else if (c->state == W_OPEN && now >= c->tick_at &&
			   tick(w, c, now)) {
			if (c->ss->state == BCN_SESSION_UP)
				w->st.ack_timeouts++;
			fail(w, c);
		}
	}
}

int bcn_sim_wire_pump(struct bcn_sim_wire *w, int64_t until_ns)
{
	struct epoll_event evs[EVENTS];
	int64_t now = bcn_sim_wire_now(), wait;
	int n, i;

	do {
		if (now >= w->next_scan) {
			scan(w, now);
			w->next_scan = now + SCAN_NS;
		}
		wait = (until_ns < w->next_scan ? until_ns : w->next_scan) -
		       now;
		n = epoll_wait(w->ep, evs, EVENTS,
			       wait > 0 ? (int)((wait + 999999) / 1000000) : 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++)
			on_event(w, evs[i].data.ptr, evs[i].events);
		now = bcn_sim_wire_now();
	} while (now < until_ns);
	return 0;
}

int bcn_sim_wire_drain(struct bcn_sim_wire *w, int64_t until_ns)
{
	struct bcn_sim_wire_stats st;
	int rc;

	for (;;) {
		int64_t now = bcn_sim_wire_now();

		bcn_sim_wire_stats(w, &st);
		if (!st.queued_frames)
			return 0;
		if (now >= until_ns)
			return -ETIMEDOUT;
		rc = bcn_sim_wire_pump(w, now + 10000000LL < until_ns ?
				       now + 10000000LL : until_ns);
		if (rc)
			return rc;
	}
}

int bcn_sim_wire_submit(struct bcn_sim_wire *w, size_t i,
			struct bcn_frame_builder *b)
{
	struct bcn_session_frame *f, *dead;
	struct wconn *c;
	int rc;

	if (i >= w->n || w->conns[i].state == W_UNUSED)
		return -EINVAL;
	if (!bcn_frame_builder_count(b))
		return 0;
	c = &w->conns[i];
	rc = bcn_session_frame_build(b, c->ss->conf.node, c->ss->next_seq,
				     w->c.queue_bytes < FRAME_MAX ?
				     (size_t)w->c.queue_bytes : FRAME_MAX, &f);
	if (rc)
		return rc;
	bcn_session_take_seq(c->ss);
	rc = bcn_session_submit(c->ss, f, &dead);
	bcn_session_frames_free(dead);
	if (rc) {
		bcn_session_frames_free(f);
		return rc;
	}
	if (c->state == W_OPEN && c->ss->state == BCN_SESSION_UP &&
	    flush_out(w, c))
		fail(w, c);
	return 0;
}

/* The totals that sum the sessions' counters of the same name. */
#define SESSION_TOTALS(X) \
	X(submitted_frames) X(submitted_records) X(submitted_bytes) \
	X(acked_frames) X(acked_records) X(duplicates) X(rejected) \
	X(dropped_frames) X(dropped_records) X(queued_frames) \
	X(queued_bytes) X(resent) X(unknown_acks)

void bcn_sim_wire_stats(const struct bcn_sim_wire *w,
			struct bcn_sim_wire_stats *st)
{
	struct bcn_session_stats ss;
	size_t i;

	*st = w->st;
	for (i = 0; i < w->n; i++) {
		if (w->conns[i].state == W_UNUSED)
			continue;
		bcn_session_stats(w->conns[i].ss, &ss);
#define ADD(f) st->f += ss.f;
		SESSION_TOTALS(ADD)
#undef ADD
	}
}

int bcn_sim_wire_conn_stats(const struct bcn_sim_wire *w, size_t i,
			    struct bcn_sim_wire_conn_stats *st)
{
	const struct wconn *c;
	struct bcn_session_stats ss;

	if (i >= w->n || w->conns[i].state == W_UNUSED)
		return -EINVAL;
	c = &w->conns[i];
	bcn_session_stats(c->ss, &ss);
	st->acked_records = ss.acked_records;
	st->dropped_records = ss.dropped_records;
	st->queued_bytes = ss.queued_bytes;
	st->connects = ss.connects;
	st->connect_failures = c->failures;
	st->resent = ss.resent;
	st->up = c->state == W_OPEN && c->ss->state == BCN_SESSION_UP;
	return 0;
}
