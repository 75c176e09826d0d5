/* The protocol session (session.h): the queue, window, ACK matching,
 * resends, handshake driving, backoff and deadlines of one collector's
 * connection, with no I/O of its own. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "delivery/session.h"

/* Frames a log server sends us: ACK and handshake frames only. */
static const struct bcn_frame_limits reply_lim = { 512, 512, 1, 1, 0, 0, 0 };
/* a sealed frame: the largest body a header can declare, and the MAC */
#define SEALED_MAX ((size_t)UINT32_MAX + BCN_FRAME_HDR_LEN)
/* a sealed-frame buffer larger than this is freed once written */
#define SEALED_KEEP (16u << 10)

int bcn_session_init(struct bcn_session *s,
		     const struct bcn_session_conf *conf)
{
	const struct bcn_session_conf *c = conf;
	int rc;

	memset(s, 0, sizeof(*s));
	bcn_buf_init(&s->tx, BCN_SESSION_TX_MAX);
	bcn_buf_init(&s->rx, BCN_SESSION_RX_MAX);
	bcn_buf_init(&s->sealed, SEALED_MAX);
	bcn_frame_init(&s->f);
	if (!c->key || !c->node || c->queue_bytes < 1 || c->window < 1 ||
	    c->backoff_min_ms < 1 || c->backoff_max_ms < c->backoff_min_ms ||
	    c->ack_timeout_ms < 1)
		return -EINVAL;
	rc = bcn_auth_client_init(&s->auth, c->key, c->node);
	if (rc == -EKEYREJECTED)
		snprintf(s->why, sizeof(s->why), "the key is node '%s''s key, "
			 "not node '%s''s", c->key->node, c->node);
	if (rc)
		return rc;
	s->conf = *c;
	s->conf.node = s->auth.node;
	s->ack_timeout_ms = c->ack_timeout_ms;
	s->next_seq = c->first_seq;
	s->delay = c->backoff_min_ms;
	s->rng = c->seed | 1;
	return 0;
}

void bcn_session_fini(struct bcn_session *s)
{
	struct bcn_session_frame *f = s->cur;

	if (f && !f->dropped)
		f = NULL;               /* still in the list */
	bcn_session_frames_free(f);
	bcn_session_frames_free(s->head);
	s->head = s->tail = s->next_send = s->cur = NULL;
	bcn_buf_free(&s->tx);
	bcn_buf_free(&s->rx);
	bcn_buf_free(&s->sealed);
	bcn_frame_free(&s->f);
}

uint64_t bcn_session_take_seq(struct bcn_session *s)
{
	return s->next_seq++;
}

/* ---- frames and the queue ---- */

int bcn_session_frame_new(uint8_t *data, size_t len, uint64_t seq,
			  uint32_t records, struct bcn_session_frame **out)
{
	struct bcn_session_frame *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->data = data;
	f->len = len;
	f->seq = seq;
	f->records = records;
	*out = f;
	return 0;
}

int bcn_session_frame_build(struct bcn_frame_builder *b, const char *node,
			    uint64_t seq, size_t cap,
			    struct bcn_session_frame **out)
{
	uint32_t records = bcn_frame_builder_count(b);
	struct bcn_buf buf;
	uint8_t *p;
	int rc;

	*out = NULL;
	/* a frame that cannot be queued fails here, records kept */
	bcn_buf_init(&buf, cap);
	rc = bcn_frame_builder_finish(b, node, seq, &buf);
	if (rc) {
		bcn_buf_free(&buf);
		return rc == -BCN_EFULL ? -BCN_ETOOBIG : rc;
	}
	p = realloc(buf.data, buf.len);         /* give back the slack */
	if (p)
		buf.data = p;
	rc = bcn_session_frame_new(buf.data, buf.len, seq, records, out);
	if (rc)
		bcn_buf_free(&buf);
	return rc;
}

void bcn_session_frames_free(struct bcn_session_frame *chain)
{
	while (chain) {
		struct bcn_session_frame *next = chain->next;

		free(chain->data);
		free(chain);
		chain = next;
	}
}

bool bcn_session_fits(const struct bcn_session *s, size_t len)
{
	return s->used + len <= s->conf.queue_bytes;
}

/* Unlinks f; in_flight: f lies before next_send. */
static void unlink_frame(struct bcn_session *s, struct bcn_session_frame *f,
			 bool in_flight)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		s->head = f->next;
	if (f->next)
		f->next->prev = f->prev;
	else
		s->tail = f->prev;
	if (s->next_send == f)
		s->next_send = f->next;
	if (in_flight)
		s->inflight--;
	s->used -= f->len;
	s->nframes--;
	s->nrecords -= f->records;
	f->prev = f->next = NULL;
}

static void count_dropped(struct bcn_session *s,
			  const struct bcn_session_frame *f)
{
	s->st.dropped_frames++;
	s->st.dropped_records += f->records;
	s->st.dropped_bytes += f->len;
}

int bcn_session_submit(struct bcn_session *s, struct bcn_session_frame *f,
		       struct bcn_session_frame **dead)
{
	*dead = NULL;
	if (f->len > s->conf.queue_bytes)
		return -BCN_ETOOBIG;
	while (s->head && !bcn_session_fits(s, f->len)) {
		struct bcn_session_frame *d = s->head;

		unlink_frame(s, d, d != s->next_send);
		count_dropped(s, d);
		if (d->pinned) {
			d->dropped = true;      /* freed when written */
		} else {
			d->next = *dead;
			*dead = d;
		}
	}
	f->prev = s->tail;
	f->next = NULL;
	if (s->tail)
		s->tail->next = f;
	else
		s->head = f;
	s->tail = f;
	if (!s->next_send)
		s->next_send = f;
	s->used += f->len;
	s->nframes++;
	s->nrecords += f->records;
	s->st.submitted_frames++;
	s->st.submitted_records += f->records;
	s->st.submitted_bytes += f->len;
	return 0;
}

/* ---- connections ---- */

int bcn_session_connected(struct bcn_session *s, int64_t now)
{
	int rc;

	bcn_buf_reset(&s->tx);
	bcn_buf_reset(&s->rx);
	s->tx_off = s->rx_off = 0;
	s->why[0] = '\0';
	rc = bcn_auth_client_start(&s->auth, &s->tx);
	if (rc) {
		snprintf(s->why, sizeof(s->why), "handshake: %s",
			 bcn_strerror(rc));
		return rc;
	}
	s->state = BCN_SESSION_HANDSHAKE;
	s->hs_deadline = now + s->conf.ack_timeout_ms;
	return 0;
}

void bcn_session_disconnected(struct bcn_session *s,
			      struct bcn_session_frame **dead)
{
	*dead = NULL;
	if (s->cur) {
		s->cur->pinned = false;
		if (s->cur->dropped)
			*dead = s->cur;
		s->cur = NULL;
	}
	s->cur_off = 0;
	bcn_buf_free(&s->sealed);
	s->next_send = s->head;
	s->inflight = 0;
	s->state = BCN_SESSION_DOWN;
	bcn_buf_reset(&s->tx);
	bcn_buf_reset(&s->rx);
	s->tx_off = s->rx_off = 0;
}

int bcn_session_eof(struct bcn_session *s)
{
	if (s->auth.state == BCN_AUTH_WAIT_WELCOME) {
		snprintf(s->why, sizeof(s->why), "closed the connection after "
			 "our AUTH: it does not accept our key for node '%s'",
			 s->auth.node);
		return -EKEYREJECTED;
	}
	if (s->auth.state == BCN_AUTH_WAIT_CHALLENGE) {
		snprintf(s->why, sizeof(s->why), "closed the connection after "
			 "our HELLO: the server may speak another protocol "
			 "version than %d, or refuse more connections",
			 BCN_PROTO_VERSION);
		return -ECONNRESET;
	}
	snprintf(s->why, sizeof(s->why), "connection closed by the server");
	return -ECONNRESET;
}

/* ---- receiving ---- */

int bcn_session_feed(struct bcn_session *s, const uint8_t *data, size_t len)
{
	int rc;

	if (s->rx_off) {                /* forget what was parsed */
		memmove(s->rx.data, s->rx.data + s->rx_off,
			s->rx.len - s->rx_off);
		s->rx.len -= s->rx_off;
		s->rx_off = 0;
	}
	rc = bcn_buf_add(&s->rx, data, len);

	if (rc)
		snprintf(s->why, sizeof(s->why), "unparsable answer");
	return rc;
}

/* Matches an ACK with the frame in flight of its sequence number. */
static void on_ack(struct bcn_session *s, int64_t now,
		   struct bcn_session_event *ev)
{
	struct bcn_session_frame *f;

	ev->seq = s->f.hdr.seq;
	ev->status = s->f.ack_status;
	for (f = s->head; f && f != s->next_send; f = f->next)
		if (f->seq == ev->seq && !f->pinned)
			break;
	if (!f || f == s->next_send) {
		s->st.unknown_acks++;
		ev->kind = BCN_SESSION_EV_UNKNOWN_ACK;
		return;
	}
	unlink_frame(s, f, true);
	if (ev->status == BCN_ACK_REJECTED) {
		ev->kind = BCN_SESSION_EV_REJECTED;
		s->st.rejected++;
		count_dropped(s, f);
	} else {
		ev->kind = BCN_SESSION_EV_ACKED;
		s->st.acked_frames++;
		s->st.acked_records += f->records;
		s->st.acked_bytes += f->len;
		if (ev->status == BCN_ACK_DUPLICATE)
			s->st.duplicates++;
	}
	s->last_progress = now;
	bcn_session_frames_free(f);
}

/* Feeds one opened frame to the handshake; fills ev. */
static int on_frame(struct bcn_session *s, int64_t now,
		    struct bcn_session_event *ev)
{
	int rc = bcn_auth_client_step(&s->auth, &s->f, &s->tx);

	if (rc == -EPROTONOSUPPORT) {
		snprintf(s->why, sizeof(s->why), "the server speaks protocol "
			 "version %u, this collector %d", s->f.hdr.version,
			 BCN_PROTO_VERSION);
		return rc;
	}
	if (rc == -EKEYREJECTED) {
		snprintf(s->why, sizeof(s->why), "the server failed to prove "
			 "that it holds the site key");
		return rc;
	}
	if (rc < 0) {
		snprintf(s->why, sizeof(s->why), "unexpected %s frame in state "
			 "%s: %s", s->f.hdr.kind == BCN_FRAME_ACK ? "ACK" :
			 "handshake", bcn_auth_state_name(s->auth.state),
			 bcn_strerror(rc));
		return rc;
	}
	if (rc == BCN_AUTH_PASS) {
		on_ack(s, now, ev);
		return 1;
	}
	ev->kind = BCN_SESSION_EV_HANDSHAKE;
	if (s->state == BCN_SESSION_HANDSHAKE &&
	    s->auth.state == BCN_AUTH_ESTABLISHED) {
		ev->kind = BCN_SESSION_EV_ESTABLISHED;
		s->state = BCN_SESSION_UP;
		s->st.connects++;
		s->last_progress = now;
		s->delay = s->conf.backoff_min_ms;
	}
	return 1;
}

/* Once established, every frame from the server must carry its MAC:
 * returns 1 when the next frame is whole and authentic (or the handshake
 * is still going on), 0 when more bytes are needed, or -EBADMSG. */
static int check_mac(struct bcn_session *s)
{
	const uint8_t *p = s->rx.data + s->rx_off;
	size_t avail = s->rx.len - s->rx_off;
	struct bcn_frame_header h;
	int rc;

	if (s->auth.state != BCN_AUTH_ESTABLISHED)
		return 1;
	rc = bcn_frame_header_parse(p, avail, &reply_lim, &h);
	if (rc == -BCN_ETRUNC)
		return 0;
	if (rc)
		return 1;               /* bcn_frame_open says what is wrong */
	if (avail < BCN_FRAME_HDR_LEN + (size_t)h.body_len)
		return 0;
	rc = bcn_seal_check(&s->auth.rx, p, BCN_FRAME_HDR_LEN + h.body_len);
	if (rc) {
		snprintf(s->why, sizeof(s->why), "a frame from the server "
			 "failed its MAC (forged, altered or out of order)");
		return rc;
	}
	return 1;
}

int bcn_session_step(struct bcn_session *s, int64_t now,
		     struct bcn_session_event *ev)
{
	size_t used;
	int rc;

	memset(ev, 0, sizeof(*ev));
	if (s->rx_off == s->rx.len)
		return 0;
	rc = check_mac(s);
	if (rc <= 0)
		return rc;
	rc = bcn_frame_open(&s->f, s->rx.data + s->rx_off,
			    s->rx.len - s->rx_off, &reply_lim, &used);
	if (rc == -BCN_ETRUNC)
		return 0;
	if (rc) {
		snprintf(s->why, sizeof(s->why), "bad frame from the server: "
			 "%s", bcn_strerror(rc));
		return rc;
	}
	s->rx_off += used;
	if (s->rx_off == s->rx.len) {
		bcn_buf_reset(&s->rx);
		s->rx_off = 0;
	}
	return on_frame(s, now, ev);
}

/* ---- writing ---- */

/* Starts the next waiting frame if the window allows. */
static struct bcn_session_frame *start_frame(struct bcn_session *s,
					     int64_t now)
{
	struct bcn_session_frame *f = s->next_send;

	if (!f || s->state != BCN_SESSION_UP || s->hold ||
	    s->inflight >= s->conf.window)
		return NULL;
	bcn_buf_reset(&s->sealed);
	if (bcn_seal_frame(&s->auth.tx, f->data, f->len, &s->sealed)) {
		/* out of memory: try again on the next call */
		snprintf(s->why, sizeof(s->why), "cannot seal frame %" PRIu64,
			 f->seq);
		return NULL;
	}
	s->next_send = f->next;
	if (s->inflight++ == 0)
		s->last_progress = now;         /* the ACK clock starts */
	if (f->sends++)
		s->st.resent++;
	s->st.sent_frames++;
	f->pinned = true;
	s->cur = f;
	s->cur_off = 0;
	return f;
}

void bcn_session_out(struct bcn_session *s, int64_t now, const uint8_t **p,
		     size_t *len)
{
	struct bcn_session_frame *f;

	*p = NULL;
	*len = 0;
	if (s->tx_off < s->tx.len) {
		*p = s->tx.data + s->tx_off;
		*len = s->tx.len - s->tx_off;
		return;
	}
	f = s->cur ? s->cur : start_frame(s, now);
	if (f) {
		*p = s->sealed.data + s->cur_off;
		*len = s->sealed.len - s->cur_off;
	}
}

int bcn_session_wrote(struct bcn_session *s, size_t n,
		      struct bcn_session_frame **dead)
{
	struct bcn_session_frame *f = s->cur;

	*dead = NULL;
	s->st.bytes_sent += n;
	if (s->tx_off < s->tx.len) {
		s->tx_off += n;
		if (s->tx_off == s->tx.len) {
			bcn_buf_reset(&s->tx);
			s->tx_off = 0;
		}
		return 0;
	}
	if (!f)
		return 0;
	s->cur_off += n;
	if (s->cur_off < s->sealed.len)
		return 0;
	f->pinned = false;
	s->cur = NULL;
	s->cur_off = 0;
	if (s->sealed.cap > SEALED_KEEP)
		bcn_buf_free(&s->sealed);
	else
		bcn_buf_reset(&s->sealed);
	if (f->dropped)
		*dead = f;
	return 1;
}

bool bcn_session_want_out(const struct bcn_session *s)
{
	return s->tx_off < s->tx.len || s->cur ||
	       (s->state == BCN_SESSION_UP && !s->hold && s->next_send &&
		s->inflight < s->conf.window);
}

void bcn_session_hold(struct bcn_session *s, bool hold)
{
	s->hold = hold;
}

/* ---- time ---- */

int bcn_session_tick(struct bcn_session *s, int64_t now, int64_t *next)
{
	int64_t dl;

	*next = -1;
	if (s->state == BCN_SESSION_HANDSHAKE) {
		*next = s->hs_deadline;
		if (now < s->hs_deadline)
			return 0;
		snprintf(s->why, sizeof(s->why), "no answer to the handshake "
			 "within %" PRId64 " ms", s->conf.ack_timeout_ms);
		return -ETIMEDOUT;
	}
	if (s->state != BCN_SESSION_UP || (s->inflight == 0 && !s->cur))
		return 0;
	dl = s->last_progress + s->ack_timeout_ms;
	if (now >= dl) {
		snprintf(s->why, sizeof(s->why), "no acknowledgement within "
			 "%" PRId64 " ms", s->conf.ack_timeout_ms);
		return -ETIMEDOUT;
	}
	*next = dl;
	return 0;
}

int64_t bcn_session_backoff(struct bcn_session *s, bool grow)
{
	int64_t d = s->delay, wait;

	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	wait = d / 2 + (int64_t)(s->rng % (uint64_t)(d / 2 + 1));
	if (grow)
		s->delay = d > s->conf.backoff_max_ms / 2 ?
			   s->conf.backoff_max_ms : d * 2;
	return wait;
}

/* ---- counters ---- */

void bcn_session_stats(const struct bcn_session *s,
		       struct bcn_session_stats *st)
{
	*st = s->st;
	st->queued_frames = s->nframes;
	st->queued_records = s->nrecords;
	st->queued_bytes = s->used;
	st->inflight = s->inflight;
}

uint64_t bcn_session_inflight(const struct bcn_session *s)
{
	return s->inflight + (s->cur && s->cur->dropped ? 1 : 0);
}
