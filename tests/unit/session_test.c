/* Tests of the protocol session (delivery/session.h) with no socket at
 * all: the bytes it gives to write go to a server side made of the real
 * server handshake step (proto/auth.h) and a frame parser, and that
 * side's answers (handshake frames, ACKs) are fed back. Covers the
 * handshake, ACKs in and out of order, duplicates and rejects, the
 * window, drop-oldest on a full queue, resends after a reconnection, the
 * backoff and the deadlines; every test checks that the frame counters
 * balance (submitted = acked + dropped + queued). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "common/error.h"
#include "delivery/session.h"
#include "proto/frame.h"
#include "proto/record.h"

#define NODE "cn001"
#define FIRST 1000              /* first sequence number */
#define SEEN_MAX 64
#define T0 5000                 /* a start time, ms */

static struct bcn_auth_key key, other_key;

/* The server side: a real handshake step, no socket. */
struct peer {
	struct bcn_auth_server auth;
	struct bcn_buf out;             /* to feed to the session */
	struct bcn_buf in;              /* written by the session */
	struct bcn_frame f;
	uint64_t seen[SEEN_MAX];        /* DATA frames received, in order */
	size_t nseen;
	int rc;                         /* the server step's last error */
};

static void peer_init(struct peer *p, const struct bcn_auth_key *k)
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(bcn_auth_server_init(&p->auth, k, "logsrv"), 0);
	bcn_buf_init(&p->out, 1 << 20);
	bcn_buf_init(&p->in, 1 << 20);
	bcn_frame_init(&p->f);
}

static void peer_free(struct peer *p)
{
	bcn_buf_free(&p->out);
	bcn_buf_free(&p->in);
	bcn_frame_free(&p->f);
}

/* Parses every whole frame the session wrote. */
static void peer_read(struct peer *p)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	size_t off = 0, used;
	int rc;

	while (off < p->in.len && p->rc == 0) {
		rc = bcn_frame_open(&p->f, p->in.data + off, p->in.len - off,
				    &lim, &used);
		if (rc == -BCN_ETRUNC)
			break;
		assert_int_equal(rc, 0);
		/* after the handshake every frame carries its MAC */
		if (p->auth.state == BCN_AUTH_ESTABLISHED)
			assert_int_equal(bcn_seal_check(&p->auth.rx,
							p->in.data + off, used), 0);
		off += used;
		rc = bcn_auth_server_step(&p->auth, &p->f, &p->out);
		if (rc < 0)
			p->rc = rc;
		else if (rc == BCN_AUTH_PASS && p->nseen < SEEN_MAX)
			p->seen[p->nseen++] = p->f.hdr.seq;
	}
	memmove(p->in.data, p->in.data + off, p->in.len - off);
	p->in.len -= off;
}

static void ack(struct peer *p, uint64_t seq, enum bcn_ack_status st)
{
	struct bcn_buf a;

	bcn_buf_init(&a, 1024);
	assert_int_equal(bcn_frame_ack_encode(seq, st, "logsrv", &a), 0);
	assert_int_equal(bcn_seal_frame(&p->auth.tx, a.data, a.len, &p->out), 0);
	bcn_buf_free(&a);
}

/* Moves what s has to write to the peer, at most chunk bytes per write
 * (0: all), at most max writes; returns the frames completed. */
static int pump_out(struct bcn_session *s, struct peer *p, int64_t now,
		    size_t chunk, int max)
{
	struct bcn_session_frame *dead;
	const uint8_t *b;
	size_t len;
	int done = 0;

	while (max-- > 0) {
		bcn_session_out(s, now, &b, &len);
		if (len == 0)
			break;
		assert_true(bcn_session_want_out(s));
		if (chunk && len > chunk)
			len = chunk;
		assert_int_equal(bcn_buf_add(&p->in, b, len), 0);
		done += bcn_session_wrote(s, len, &dead);
		bcn_session_frames_free(dead);
	}
	peer_read(p);
	return done;
}

/* Feeds the peer's answers to s; returns the first error or 0, counting
 * the events in ev[kind]. */
static int deliver(struct bcn_session *s, struct peer *p, int64_t now,
		   int ev[8])
{
	struct bcn_session_event e;
	int rc;

	rc = bcn_session_feed(s, p->out.data, p->out.len);
	bcn_buf_reset(&p->out);
	while (rc == 0 && (rc = bcn_session_step(s, now, &e)) > 0) {
		assert_true(e.kind >= 1 && e.kind < 8);
		if (ev)
			ev[e.kind]++;
		rc = 0;
	}
	return rc;
}

static void check_balance(const struct bcn_session *s)
{
	struct bcn_session_stats st;

	bcn_session_stats(s, &st);
	assert_int_equal(st.submitted_frames, st.acked_frames +
			 st.dropped_frames + st.queued_frames);
	assert_int_equal(st.submitted_records, st.acked_records +
			 st.dropped_records + st.queued_records);
	assert_int_equal(st.submitted_bytes, st.acked_bytes +
			 st.dropped_bytes + st.queued_bytes);
}

static struct bcn_session_conf conf(uint64_t window, uint64_t queue)
{
	struct bcn_session_conf c = {
		.key = &key, .node = NODE, .queue_bytes = queue,
		.window = window, .backoff_min_ms = 100,
		.backoff_max_ms = 1000, .ack_timeout_ms = 3000,
		.first_seq = FIRST, .seed = 42,
	};
	return c;
}

/* Builds a frame of records identical records (so that frames of as many
 * records have the same size) and queues it. Returns its length. */
static size_t submit(struct bcn_session *s, int records)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_session_frame *f, *dead;
	struct bcn_record r;
	size_t len;

	assert_int_equal(bcn_frame_builder_init(&b, &lim, 0), 0);
	for (int i = 0; i < records; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1790000000000000000LL;
		r.u.io.op = BCN_IO_WRITE;
		r.u.io.size = 4096;
		r.u.io.count = 1;
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	}
	assert_int_equal(bcn_session_frame_build(&b, NODE,
						 bcn_session_take_seq(s),
						 1 << 20, &f), 0);
	bcn_frame_builder_free(&b);
	len = f->len;
	assert_int_equal(bcn_session_submit(s, f, &dead), 0);
	bcn_session_frames_free(dead);
	check_balance(s);
	return len;
}

/* Connects s to a fresh peer and completes the handshake. */
static void handshake(struct bcn_session *s, struct peer *p, int64_t now)
{
	int ev[8] = { 0 };

	assert_int_equal(bcn_session_connected(s, now), 0);
	assert_int_equal(s->state, BCN_SESSION_HANDSHAKE);
	for (int i = 0; i < 4 && s->state != BCN_SESSION_UP; i++) {
		pump_out(s, p, now, 0, 100);
		assert_int_equal(p->rc, 0);
		assert_int_equal(deliver(s, p, now, ev), 0);
	}
	assert_int_equal(s->state, BCN_SESSION_UP);
	assert_int_equal(ev[BCN_SESSION_EV_ESTABLISHED], 1);
	assert_int_equal(ev[BCN_SESSION_EV_HANDSHAKE], 1);   /* CHALLENGE */
}

/* ---- the handshake ---- */

static void test_handshake(void **state)
{
	static const struct {
		const struct bcn_auth_key *server_key;
		int want;               /* 0: established */
	} cases[] = {
		{ &key, 0 },
		{ &other_key, -EKEYREJECTED },
	};
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bcn_session_conf c = conf(4, 1 << 16);
		struct bcn_session s;
		struct peer p;
		int rc = 0;

		peer_init(&p, cases[k].server_key);
		assert_int_equal(bcn_session_init(&s, &c), 0);
		submit(&s, 3);
		assert_int_equal(bcn_session_connected(&s, T0), 0);
		for (int i = 0; i < 4 && !rc && s.state != BCN_SESSION_UP;
		     i++) {
			pump_out(&s, &p, T0, 0, 100);
			if (p.rc)       /* the server closes, no answer */
				rc = bcn_session_eof(&s);
			else
				rc = deliver(&s, &p, T0, NULL);
		}
		assert_int_equal(rc, cases[k].want);
		assert_int_equal(s.st.connects, cases[k].want ? 0 : 1);
		/* no frame goes out before the handshake completes */
		assert_int_equal(p.nseen, 0);
		if (!cases[k].want) {
			pump_out(&s, &p, T0, 0, 100);
			assert_int_equal(p.nseen, 1);
			assert_int_equal(p.seen[0], FIRST);
		}
		check_balance(&s);
		bcn_session_fini(&s);
		peer_free(&p);
	}
}

static void test_protocol_errors(void **state)
{
	struct bcn_session_conf c = conf(4, 1 << 16);
	struct bcn_session s;
	struct peer p;
	uint8_t junk[128];
	int64_t next;

	(void)state;
	/* an ACK during the handshake */
	peer_init(&p, &key);
	assert_int_equal(bcn_session_init(&s, &c), 0);
	assert_int_equal(bcn_session_connected(&s, T0), 0);
	ack(&p, FIRST, BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0, NULL), -EPROTO);
	assert_non_null(strstr(s.why, "unexpected ACK"));
	/* garbage */
	bcn_session_disconnected(&s, &(struct bcn_session_frame *){ NULL });
	assert_int_equal(bcn_session_connected(&s, T0), 0);
	memset(junk, 'x', sizeof(junk));
	assert_int_equal(bcn_session_feed(&s, junk, sizeof(junk)), 0);
	assert_true(bcn_session_step(&s, T0, &(struct bcn_session_event){ 0 })
		    < 0);
	/* a peer closing at once is no key refusal */
	assert_int_equal(bcn_session_eof(&s), -ECONNRESET);
	/* no answer to the handshake within the ACK timeout */
	bcn_session_disconnected(&s, &(struct bcn_session_frame *){ NULL });
	assert_int_equal(bcn_session_connected(&s, T0), 0);
	assert_int_equal(bcn_session_tick(&s, T0 + 2999, &next), 0);
	assert_int_equal(next, T0 + 3000);
	assert_int_equal(bcn_session_tick(&s, T0 + 3000, &next), -ETIMEDOUT);
	/* bad settings */
	c.window = 0;
	bcn_session_fini(&s);
	assert_int_equal(bcn_session_init(&s, &c), -EINVAL);
	bcn_session_fini(&s);
	c = conf(4, 1 << 16);
	c.node = "";
	assert_int_equal(bcn_session_init(&s, &c), -EINVAL);
	bcn_session_fini(&s);
	peer_free(&p);
}

/* ---- ACK matching ---- */

#define ACKS_MAX 8

static void test_acks(void **state)
{
	static const struct {
		const char *name;
		int acks[ACKS_MAX];     /* frame index + 1; 0 ends; 99: a
					 * number never sent */
		uint8_t status[ACKS_MAX];
		uint64_t acked, dup, rejected, unknown, queued;
	} cases[] = {
		{ "in order", { 1, 2, 3, 4 }, { 0 }, 4, 0, 0, 0, 0 },
		{ "out of order", { 4, 2, 1, 3 }, { 0 }, 4, 0, 0, 0, 0 },
		{ "duplicate", { 1, 2, 3, 4 },
		  { BCN_ACK_STORED, BCN_ACK_DUPLICATE, BCN_ACK_STORED,
		    BCN_ACK_DUPLICATE }, 4, 2, 0, 0, 0 },
		{ "rejected", { 3, 1 },
		  { BCN_ACK_REJECTED, BCN_ACK_STORED }, 1, 0, 1, 0, 2 },
		{ "acked twice", { 2, 2, 1 }, { 0 }, 2, 0, 0, 1, 2 },
		{ "unknown", { 99, 1 }, { 0 }, 1, 0, 0, 1, 3 },
	};
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bcn_session_conf c = conf(8, 1 << 16);
		struct bcn_session_stats st;
		struct bcn_session s;
		struct peer p;
		int ev[8] = { 0 };

		print_message("acks: %s\n", cases[k].name);
		peer_init(&p, &key);
		assert_int_equal(bcn_session_init(&s, &c), 0);
		handshake(&s, &p, T0);
		for (int i = 0; i < 4; i++)
			submit(&s, 2);
		assert_int_equal(pump_out(&s, &p, T0, 0, 100), 4);
		assert_int_equal(p.nseen, 4);
		for (int i = 0; i < ACKS_MAX && cases[k].acks[i]; i++)
			ack(&p, FIRST + (uint64_t)cases[k].acks[i] - 1,
			    cases[k].status[i]);
		assert_int_equal(deliver(&s, &p, T0 + 10, ev), 0);
		bcn_session_stats(&s, &st);
		assert_int_equal(st.acked_frames, cases[k].acked);
		assert_int_equal(st.acked_records, cases[k].acked * 2);
		assert_int_equal(st.duplicates, cases[k].dup);
		assert_int_equal(st.rejected, cases[k].rejected);
		assert_int_equal(st.dropped_frames, cases[k].rejected);
		assert_int_equal(st.unknown_acks, cases[k].unknown);
		assert_int_equal(st.queued_frames, cases[k].queued);
		assert_int_equal(st.inflight, cases[k].queued);
		assert_int_equal((uint64_t)ev[BCN_SESSION_EV_ACKED],
				 cases[k].acked);
		assert_int_equal((uint64_t)ev[BCN_SESSION_EV_REJECTED],
				 cases[k].rejected);
		assert_int_equal((uint64_t)ev[BCN_SESSION_EV_UNKNOWN_ACK],
				 cases[k].unknown);
		check_balance(&s);
		bcn_session_fini(&s);
		peer_free(&p);
	}
}

/* ---- the window ---- */

static void test_window(void **state)
{
	static const struct {
		uint64_t window;
		int frames;
	} cases[] = { { 1, 3 }, { 2, 5 }, { 4, 4 }, { 8, 3 } };
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bcn_session_conf c = conf(cases[k].window, 1 << 16);
		uint64_t w = cases[k].window, n = (uint64_t)cases[k].frames;
		uint64_t first = w < n ? w : n;
		struct bcn_session s;
		struct peer p;

		peer_init(&p, &key);
		assert_int_equal(bcn_session_init(&s, &c), 0);
		for (int i = 0; i < cases[k].frames; i++)
			submit(&s, 1);
		/* nothing goes out before the handshake */
		assert_false(bcn_session_want_out(&s));
		handshake(&s, &p, T0);
		pump_out(&s, &p, T0, 0, 100);
		assert_int_equal(p.nseen, first);
		assert_int_equal(bcn_session_inflight(&s), first);
		assert_false(bcn_session_want_out(&s));
		/* each ACK lets one more frame go */
		ack(&p, FIRST, BCN_ACK_STORED);
		assert_int_equal(deliver(&s, &p, T0, NULL), 0);
		pump_out(&s, &p, T0, 0, 100);
		assert_int_equal(p.nseen, n < w + 1 ? n : w + 1);
		for (size_t i = 0; i < p.nseen; i++)
			assert_int_equal(p.seen[i], FIRST + i);
		/* held, it starts no new frame */
		bcn_session_hold(&s, true);
		ack(&p, FIRST + 1, BCN_ACK_STORED);
		assert_int_equal(deliver(&s, &p, T0, NULL), 0);
		assert_int_equal(pump_out(&s, &p, T0, 0, 100), 0);
		check_balance(&s);
		bcn_session_fini(&s);
		peer_free(&p);
	}
}

/* ---- drop-oldest ---- */

static void test_queue_full(void **state)
{
	static const struct {
		int frames;
		int fit;                /* frames the queue holds */
		int sent;               /* sent before the overflow */
	} cases[] = { { 10, 4, 0 }, { 10, 1, 0 }, { 6, 3, 2 }, { 5, 5, 0 } };
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bcn_session_conf c = conf(64, 1 << 16);
		struct bcn_session_stats st;
		struct bcn_session s;
		struct peer p;
		size_t len;
		int n = cases[k].frames, fit = cases[k].fit;

		/* measure a frame, then size the queue for fit of them */
		assert_int_equal(bcn_session_init(&s, &c), 0);
		len = submit(&s, 5);
		bcn_session_fini(&s);
		c.queue_bytes = len * (uint64_t)fit + len / 2;
		peer_init(&p, &key);
		assert_int_equal(bcn_session_init(&s, &c), 0);
		handshake(&s, &p, T0);
		for (int i = 0; i < n; i++) {
			assert_int_equal(submit(&s, 5), len);
			if (i < cases[k].sent)
				pump_out(&s, &p, T0, 0, 100);
		}
		bcn_session_stats(&s, &st);
		assert_int_equal(st.submitted_frames, n);
		assert_int_equal(st.dropped_frames, n - fit);
		assert_int_equal(st.dropped_records, 5 * (n - fit));
		assert_int_equal(st.dropped_bytes, len * (size_t)(n - fit));
		assert_int_equal(st.queued_frames, fit);
		assert_true(st.queued_bytes <= c.queue_bytes);
		assert_int_equal(st.inflight, 0);       /* dropped in flight */
		/* the newest frames remain, and go out in order */
		p.nseen = 0;
		pump_out(&s, &p, T0, 0, 100);
		assert_int_equal(p.nseen, fit);
		for (int i = 0; i < fit; i++)
			assert_int_equal(p.seen[i], FIRST + (uint64_t)(n - fit + i));
		check_balance(&s);
		bcn_session_fini(&s);
		peer_free(&p);
	}
}

/* The frame being written is dropped: counted at once, kept until its
 * last byte is written, so that the stream stays whole. */
static void test_drop_pinned(void **state)
{
	struct bcn_session_conf c = conf(4, 1 << 16);
	struct bcn_session_frame *dead;
	struct bcn_session_stats st;
	struct bcn_session s;
	struct peer p;
	size_t len;

	(void)state;
	assert_int_equal(bcn_session_init(&s, &c), 0);
	len = submit(&s, 5);
	bcn_session_fini(&s);
	c.queue_bytes = len + len / 2;
	peer_init(&p, &key);
	assert_int_equal(bcn_session_init(&s, &c), 0);
	handshake(&s, &p, T0);
	submit(&s, 5);
	assert_int_equal(pump_out(&s, &p, T0, 7, 1), 0);     /* 7 bytes */
	submit(&s, 5);                  /* pushes the first one out */
	bcn_session_stats(&s, &st);
	assert_int_equal(st.dropped_frames, 1);
	assert_int_equal(bcn_session_inflight(&s), 1);
	/* the rest of the dropped frame, then the new one */
	assert_int_equal(pump_out(&s, &p, T0, 0, 1), 1);
	assert_int_equal(pump_out(&s, &p, T0, 0, 100), 1);
	assert_int_equal(p.nseen, 2);
	assert_int_equal(p.seen[0], FIRST);
	assert_int_equal(p.seen[1], FIRST + 1);
	/* its ACK matches nothing any more */
	ack(&p, FIRST, BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0, NULL), 0);
	bcn_session_stats(&s, &st);
	assert_int_equal(st.unknown_acks, 1);
	check_balance(&s);
	/* dropped while pinned, then the connection ends */
	submit(&s, 5);
	pump_out(&s, &p, T0, 5, 1);
	submit(&s, 5);
	bcn_session_disconnected(&s, &dead);
	assert_non_null(dead);
	bcn_session_frames_free(dead);
	check_balance(&s);
	bcn_session_fini(&s);
	peer_free(&p);
}

/* ---- resends ---- */

/* An ACK without its MAC (as an on-path forger sends it, right
 * checksum and all) ends the connection and acknowledges nothing; the
 * frame is resent on the next connection and acknowledged there. */
static void test_forged_ack(void **state)
{
	struct bcn_session_conf c = conf(4, 1 << 16);
	struct bcn_session_frame *dead;
	struct bcn_session_stats st;
	struct bcn_session s;
	struct peer p;

	(void)state;
	peer_init(&p, &key);
	assert_int_equal(bcn_session_init(&s, &c), 0);
	handshake(&s, &p, T0);
	submit(&s, 3);
	pump_out(&s, &p, T0, 0, 100);
	assert_int_equal(p.nseen, 1);
	assert_int_equal(bcn_frame_ack_encode(FIRST, BCN_ACK_STORED, "logsrv",
					      &p.out), 0);
	assert_int_equal(deliver(&s, &p, T0, NULL), -EBADMSG);
	bcn_session_stats(&s, &st);
	assert_int_equal(st.acked_frames, 0);
	assert_int_equal(st.queued_frames, 1);
	bcn_session_disconnected(&s, &dead);
	assert_null(dead);
	peer_free(&p);
	peer_init(&p, &key);
	handshake(&s, &p, T0 + 100);
	pump_out(&s, &p, T0 + 100, 0, 100);
	assert_int_equal(p.nseen, 1);
	assert_int_equal(p.seen[0], FIRST);
	ack(&p, FIRST, BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0 + 100, NULL), 0);
	bcn_session_stats(&s, &st);
	assert_int_equal(st.acked_frames, 1);
	assert_int_equal(st.acked_records, 3);
	assert_int_equal(st.queued_frames, 0);
	check_balance(&s);
	bcn_session_fini(&s);
	peer_free(&p);
}

static void test_resend(void **state)
{
	struct bcn_session_conf c = conf(4, 1 << 16);
	struct bcn_session_frame *dead;
	struct bcn_session_stats st;
	struct bcn_session s;
	struct peer p;
	static const uint64_t want[] = { FIRST, FIRST + 2, FIRST + 3,
					 FIRST + 4, FIRST + 5 };

	(void)state;
	peer_init(&p, &key);
	assert_int_equal(bcn_session_init(&s, &c), 0);
	handshake(&s, &p, T0);
	for (int i = 0; i < 6; i++)
		submit(&s, 1);
	pump_out(&s, &p, T0, 0, 100);
	assert_int_equal(p.nseen, 4);
	/* one ACK out of order, then a cut in the middle of nothing */
	ack(&p, FIRST + 1, BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0, NULL), 0);
	pump_out(&s, &p, T0, 3, 1);     /* a partial write of frame 5 */
	bcn_session_disconnected(&s, &dead);
	assert_null(dead);
	assert_int_equal(s.state, BCN_SESSION_DOWN);
	assert_int_equal(bcn_session_inflight(&s), 0);
	assert_false(bcn_session_want_out(&s));
	/* a new connection to a new server */
	peer_free(&p);
	peer_init(&p, &key);
	handshake(&s, &p, T0 + 100);
	pump_out(&s, &p, T0 + 100, 0, 100);
	assert_int_equal(p.nseen, 4);   /* the window */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(p.seen[i], want[i]);
	for (size_t i = 0; i < 4; i++)
		ack(&p, want[i], BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0 + 100, NULL), 0);
	pump_out(&s, &p, T0 + 100, 0, 100);
	assert_int_equal(p.nseen, 5);
	assert_int_equal(p.seen[4], want[4]);
	bcn_session_stats(&s, &st);
	/* frames 0, 2, 3 and 4 (begun) were written before */
	assert_int_equal(st.resent, 4);
	assert_int_equal(st.sent_frames, 10);
	assert_int_equal(st.connects, 2);
	check_balance(&s);
	bcn_session_fini(&s);
	peer_free(&p);
}

/* ---- time ---- */

static void test_backoff(void **state)
{
	static const int64_t grow[] = { 100, 200, 400, 800, 1000, 1000 };
	struct bcn_session_conf c = conf(4, 1 << 16);
	struct bcn_session s, twin;
	struct peer p;

	(void)state;
	assert_int_equal(bcn_session_init(&s, &c), 0);
	assert_int_equal(bcn_session_init(&twin, &c), 0);
	for (size_t i = 0; i < sizeof(grow) / sizeof(grow[0]); i++) {
		int64_t d = bcn_session_backoff(&s, true);

		assert_true(d >= grow[i] / 2 && d <= grow[i]);
		/* the same seed draws the same delays */
		assert_int_equal(bcn_session_backoff(&twin, true), d);
	}
	/* without growth it stays at the cap */
	for (int i = 0; i < 20; i++) {
		int64_t d = bcn_session_backoff(&s, false);

		assert_true(d >= 500 && d <= 1000);
	}
	/* a completed handshake starts again from the minimum */
	peer_init(&p, &key);
	handshake(&s, &p, T0);
	for (int i = 0; i < 20; i++) {
		int64_t d = bcn_session_backoff(&s, false);

		assert_true(d >= 50 && d <= 100);
	}
	bcn_session_fini(&s);
	bcn_session_fini(&twin);
	peer_free(&p);
}

static void test_ack_timeout(void **state)
{
	struct bcn_session_conf c = conf(4, 1 << 16);
	struct bcn_session s;
	struct peer p;
	int64_t next;

	(void)state;
	peer_init(&p, &key);
	assert_int_equal(bcn_session_init(&s, &c), 0);
	assert_int_equal(bcn_session_tick(&s, T0, &next), 0);
	assert_int_equal(next, -1);     /* down: nothing to watch */
	handshake(&s, &p, T0);
	assert_int_equal(bcn_session_tick(&s, T0 + 100000, &next), 0);
	assert_int_equal(next, -1);     /* idle: no deadline */
	submit(&s, 1);
	submit(&s, 1);
	pump_out(&s, &p, T0 + 1000, 0, 100);    /* the ACK clock starts */
	assert_int_equal(bcn_session_tick(&s, T0 + 1000, &next), 0);
	assert_int_equal(next, T0 + 4000);
	/* an ACK moves the deadline */
	ack(&p, FIRST, BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0 + 2000, NULL), 0);
	assert_int_equal(bcn_session_tick(&s, T0 + 4000, &next), 0);
	assert_int_equal(next, T0 + 5000);
	assert_int_equal(bcn_session_tick(&s, T0 + 5000, &next), -ETIMEDOUT);
	assert_non_null(strstr(s.why, "no acknowledgement"));
	/* an ACK that matches nothing is no progress */
	ack(&p, FIRST + 7, BCN_ACK_STORED);
	assert_int_equal(deliver(&s, &p, T0 + 4500, NULL), 0);
	assert_int_equal(bcn_session_tick(&s, T0 + 5000, &next), -ETIMEDOUT);
	check_balance(&s);
	bcn_session_fini(&s);
	peer_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_protocol_errors),
		cmocka_unit_test(test_acks),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_queue_full),
		cmocka_unit_test(test_drop_pinned),
		cmocka_unit_test(test_resend),
		cmocka_unit_test(test_forged_ack),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_ack_timeout),
	};

	if (bcn_auth_key_generate(&key, 32) ||
	    bcn_auth_key_generate(&other_key, 32))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
