/* beacon-sim's scale-mode transport (wire.h): one epoll loop over many
 * collectors' connections. A connection goes DOWN -> DIALING (non-blocking
 * connect) -> HANDSHAKE (proto/auth.h) -> UP, and back to DOWN with an
 * exponential, jittered backoff on any failure; its queued frames survive
 * and are written again after the next handshake. */
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
#include "sim/wire.h"

#define ADDRS_MAX 64                    /* distinct server addresses */
#define RBUF_LEN 65536
#define IN_MAX (1u << 20)               /* partial answer kept */
#define SCAN_NS 20000000LL              /* timers checked every 20 ms */
#define EVENTS 512

enum { W_UNUSED, W_DOWN, W_DIALING, W_HANDSHAKE, W_UP };

struct wframe {
	struct wframe *next;
	uint64_t seq;
	uint32_t len, records;
	bool sent;                      /* written in full at least once */
	uint8_t data[];
};

struct whs {                            /* a handshake in progress */
	struct bcn_auth_client a;
	struct bcn_buf out;
	size_t off;
};

struct wconn {
	int fd;
	uint8_t state;
	bool want_out;                  /* EPOLLOUT registered */
	uint8_t addr;                   /* index in bcn_sim_wire.addrs */
	char node[BCN_SIM_WIRE_NODE_MAX + 1];
	struct whs *hs;
	struct wframe *head, *tail, *unsent;    /* frames before unsent are
						 * written and in flight */
	size_t woff;                    /* bytes of unsent written */
	uint64_t qbytes, inflight, seq;
	struct bcn_buf in;
	int64_t retry_at, backoff_ms, progress;
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
	struct bcn_frame f;
	struct bcn_buf scratch;
	uint8_t rbuf[RBUF_LEN];
	struct bcn_sim_wire_stats st;
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
	bcn_frame_init(&w->f);
	bcn_buf_init(&w->scratch, BCN_FRAME_HDR_LEN + (16u << 20));
	*out = w;
	return 0;
}

static void free_frames(struct wconn *c)
{
	struct wframe *f, *next;

	for (f = c->head; f; f = next) {
		next = f->next;
		free(f);
	}
	c->head = c->tail = c->unsent = NULL;
}

static void free_hs(struct wconn *c)
{
	if (!c->hs)
		return;
	bcn_buf_free(&c->hs->out);
	free(c->hs);
	c->hs = NULL;
}

void bcn_sim_wire_free(struct bcn_sim_wire *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++) {
		if (w->conns[i].state != W_UNUSED && w->conns[i].fd >= 0)
			close(w->conns[i].fd);
		free_frames(&w->conns[i]);
		free_hs(&w->conns[i]);
		bcn_buf_free(&w->conns[i].in);
	}
	free(w->conns);
	close(w->ep);
	bcn_frame_free(&w->f);
	bcn_buf_free(&w->scratch);
	free(w);
}

int bcn_sim_wire_add(struct bcn_sim_wire *w, size_t i, const char *node,
		     const struct sockaddr *addr, socklen_t addrlen,
		     uint64_t first_seq)
{
	struct wconn *c;
	size_t a, len = strlen(node);

	if (i >= w->n || !len || len > BCN_SIM_WIRE_NODE_MAX ||
	    addrlen > sizeof(w->addrs[0]) || w->conns[i].state != W_UNUSED)
		return -EINVAL;
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
	c = &w->conns[i];
	c->fd = -1;
	c->state = W_DOWN;
	c->addr = (uint8_t)a;
	memcpy(c->node, node, len + 1);
	c->seq = first_seq;
	c->backoff_ms = w->c.backoff_min_ms;
	bcn_buf_init(&c->in, IN_MAX);
	w->st.conns++;
	return 0;
}

static uint64_t rnd(struct bcn_sim_wire *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

/* Closes c and schedules its next attempt; its frames wait. */
static void fail(struct bcn_sim_wire *w, struct wconn *c)
{
	int64_t wait = c->backoff_ms / 2 +
		       (int64_t)(rnd(w) % (uint64_t)(c->backoff_ms / 2 + 1));

	if (c->state == W_UP)
		w->st.disconnects++;
	else
		w->st.connect_failures++;
	if (c->state == W_DIALING || c->state == W_HANDSHAKE)
		w->dialing--;
	if (c->state == W_UP)
		w->st.up--;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = W_DOWN;
	c->want_out = false;
	free_hs(c);
	bcn_buf_reset(&c->in);
	c->unsent = c->head;
	c->woff = 0;
	c->inflight = 0;
	c->retry_at = bcn_sim_wire_now() + wait * 1000000LL;
	c->backoff_ms = c->backoff_ms * 2 < w->c.backoff_max_ms ?
			c->backoff_ms * 2 : w->c.backoff_max_ms;
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
	c->progress = bcn_sim_wire_now();
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

/* Writes what c has to write. Returns 0 or -1 (c must fail). */
static int flush_out(struct bcn_sim_wire *w, struct wconn *c)
{
	ssize_t k;

	if (c->state == W_HANDSHAKE) {
		struct whs *h = c->hs;

		while (h->off < h->out.len) {
			k = send(c->fd, h->out.data + h->off,
				 h->out.len - h->off, MSG_NOSIGNAL);
			if (k < 0)
				return errno == EAGAIN ? 0 : -1;
			h->off += (size_t)k;
		}
		bcn_buf_reset(&h->out);
		h->off = 0;
		watch(w, c, false);
		return 0;
	}
	while (c->unsent && (c->woff || c->inflight < w->c.window)) {
		struct wframe *f = c->unsent;

		k = send(c->fd, f->data + c->woff, f->len - c->woff,
			 MSG_NOSIGNAL);
		if (k < 0) {
			if (errno != EAGAIN)
				return -1;
			watch(w, c, true);
			return 0;
		}
		c->woff += (size_t)k;
		if (c->woff < f->len)
			continue;
		if (f->sent)
			w->st.resent++;
		f->sent = true;
		c->woff = 0;
		if (!c->inflight++)     /* the ACK clock starts now */
			c->progress = bcn_sim_wire_now();
		c->unsent = f->next;
	}
	watch(w, c, false);
	return 0;
}

static void drop(struct bcn_sim_wire *w, struct wconn *c, struct wframe *f,
		 struct wframe *prev)
{
	if (prev)
		prev->next = f->next;
	else
		c->head = f->next;
	if (c->tail == f)
		c->tail = prev;
	if (c->unsent == f)
		c->unsent = f->next;
	c->qbytes -= f->len;
	w->st.queued_frames--;
	w->st.queued_bytes -= f->len;
	free(f);
}

static void on_ack(struct bcn_sim_wire *w, struct wconn *c, uint64_t seq,
		   int status)
{
	struct wframe *f, *prev = NULL;

	for (f = c->head; f && f != c->unsent; prev = f, f = f->next)
		if (f->seq == seq)
			break;
	if (!f || f == c->unsent) {
		w->st.unknown_acks++;
		return;
	}
	if (status == BCN_ACK_REJECTED) {
		w->st.rejected++;
		w->st.dropped_frames++;
		w->st.dropped_records += f->records;
	} else {
		w->st.acked_frames++;
		w->st.acked_records += f->records;
		if (status == BCN_ACK_DUPLICATE)
			w->st.duplicates++;
	}
	c->inflight--;
	drop(w, c, f, prev);
}

/* One frame from the server. Returns 0 or -1 (c must fail). */
static int on_frame(struct bcn_sim_wire *w, struct wconn *c)
{
	int rc;

	if (c->state == W_UP) {
		if (w->f.hdr.kind != BCN_FRAME_ACK)
			return -1;
		on_ack(w, c, w->f.hdr.seq, w->f.ack_status);
		c->progress = bcn_sim_wire_now();
		return 0;
	}
	rc = bcn_auth_client_step(&c->hs->a, &w->f, &c->hs->out);
	if (rc < 0) {
		BCN_WARN("sim: %s: handshake refused: %s", c->node,
			 bcn_strerror(rc));
		return -1;
	}
	if (c->hs->a.state != BCN_AUTH_ESTABLISHED)
		return flush_out(w, c);
	free_hs(c);
	c->state = W_UP;
	c->backoff_ms = w->c.backoff_min_ms;
	c->progress = bcn_sim_wire_now();
	w->dialing--;
	w->st.up++;
	w->st.connects++;
	return flush_out(w, c);
}

static int on_readable(struct bcn_sim_wire *w, struct wconn *c)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	ssize_t k = recv(c->fd, w->rbuf, sizeof(w->rbuf), 0);
	size_t off = 0, used;
	int rc = 0;

	if (k == 0 || (k < 0 && errno != EAGAIN))
		return -1;
	if (k < 0)
		return 0;
	if (bcn_buf_add(&c->in, w->rbuf, (size_t)k))
		return -1;
	while (c->state >= W_HANDSHAKE && off < c->in.len) {
		rc = bcn_frame_open(&w->f, c->in.data + off, c->in.len - off,
				    &lim, &used);
		if (rc == -BCN_ETRUNC) {
			rc = 0;
			break;
		}
		if (rc || on_frame(w, c))
			return -1;
		off += used;
	}
	if (off) {
		memmove(c->in.data, c->in.data + off, c->in.len - off);
		c->in.len -= off;
	}
	return rc;
}

static int start_handshake(struct bcn_sim_wire *w, struct wconn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
		return -1;
	c->hs = calloc(1, sizeof(*c->hs));
	if (!c->hs)
		return -1;
	bcn_buf_init(&c->hs->out, 4096);
	if (bcn_auth_client_init(&c->hs->a, w->c.key, c->node) ||
	    bcn_auth_client_start(&c->hs->a, &c->hs->out))
		return -1;
	c->state = W_HANDSHAKE;
	c->progress = bcn_sim_wire_now();
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

/* Dials connections whose time has come; fails the silent ones. */
static void scan(struct bcn_sim_wire *w, int64_t now)
{
	int64_t limit = w->c.ack_timeout_ms * 1000000LL;
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct wconn *c = &w->conns[i];

		if (c->state == W_DOWN) {
			if (c->retry_at <= now &&
			    w->dialing < BCN_SIM_WIRE_DIALS_MAX)
				dial(w, c);
		} else if ((c->state == W_DIALING ||
			    c->state == W_HANDSHAKE ||
			    (c->state == W_UP && c->inflight)) &&
			   now - c->progress > limit) {
			if (c->state == W_UP)
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
	int rc;

	while (w->st.queued_frames) {
		int64_t now = bcn_sim_wire_now();

		if (now >= until_ns)
			return -ETIMEDOUT;
		rc = bcn_sim_wire_pump(w, now + 10000000LL < until_ns ?
				       now + 10000000LL : until_ns);
		if (rc)
			return rc;
	}
	return 0;
}

/* Makes room for len more bytes in c's queue: drops the oldest frames,
 * except one being written. */
static void make_room(struct bcn_sim_wire *w, struct wconn *c, size_t len)
{
	struct wframe *f = c->head, *prev = NULL, *next;
	bool flying = true;             /* before unsent: written */

	while (f && c->qbytes + len > w->c.queue_bytes) {
		next = f->next;
		if (f == c->unsent)
			flying = false;
		if (f == c->unsent && c->woff) {
			prev = f;
			f = next;
			continue;
		}
		if (flying)
			c->inflight--;
		w->st.dropped_frames++;
		w->st.dropped_records += f->records;
		drop(w, c, f, prev);
		f = next;
	}
}

int bcn_sim_wire_submit(struct bcn_sim_wire *w, size_t i,
			struct bcn_frame_builder *b)
{
	struct wconn *c;
	struct wframe *f;
	uint32_t records = bcn_frame_builder_count(b);
	int rc;

	if (i >= w->n || w->conns[i].state == W_UNUSED)
		return -EINVAL;
	if (!records)
		return 0;
	c = &w->conns[i];
	bcn_buf_reset(&w->scratch);
	rc = bcn_frame_builder_finish(b, c->node, c->seq, &w->scratch);
	if (rc)
		return rc;
	c->seq++;
	if (w->scratch.len > w->c.queue_bytes)
		return -BCN_ETOOBIG;
	f = malloc(sizeof(*f) + w->scratch.len);
	if (!f)
		return -ENOMEM;
	make_room(w, c, w->scratch.len);
	f->next = NULL;
	f->seq = c->seq - 1;
	f->len = (uint32_t)w->scratch.len;
	f->records = records;
	f->sent = false;
	memcpy(f->data, w->scratch.data, w->scratch.len);
	if (c->tail)
		c->tail->next = f;
	else
		c->head = f;
	c->tail = f;
	if (!c->unsent)
		c->unsent = f;
	c->qbytes += f->len;
	w->st.submitted_frames++;
	w->st.submitted_records += records;
	w->st.submitted_bytes += f->len;
	w->st.queued_frames++;
	w->st.queued_bytes += f->len;
	if (c->state == W_UP && flush_out(w, c))
		fail(w, c);
	return 0;
}

void bcn_sim_wire_stats(const struct bcn_sim_wire *w,
			struct bcn_sim_wire_stats *st)
{
	*st = w->st;
}
