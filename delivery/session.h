/* The collector side of the protocol (docs/protocol.md) as an object that
 * does no I/O (docs/sender.md, "The session object"): one collector's
 * bounded queue of frames not yet acknowledged, its sequence numbers, the
 * window of frames in flight, ACK matching, resends after a reconnection,
 * the handshake (proto/auth.h), the reconnection backoff and the
 * handshake and ACK deadlines. The caller owns the sockets and the clock:
 * it says "connected", hands over the bytes it received, asks what to
 * write and says how much it wrote, says "disconnected", and passes the
 * current time in; the session answers with bytes to write, events and
 * counters. Both the collectors' sender thread (delivery/sender.c) and
 * beacon-sim's scale-mode epoll loop (sim/wire.c) drive one.
 *
 * The queue: frames in submission order; those before the next one to
 * send are in flight on the current connection. The frame being written
 * is pinned: when a full queue drops it, it is unlinked and counted at
 * once but stays valid until its last byte is written, so that the
 * stream stays whole. Not locked: a caller shared by threads locks
 * around every call. */
#ifndef BCN_SESSION_H
#define BCN_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/auth.h"
#include "proto/frame.h"

#define BCN_SESSION_RX_MAX (64u << 10)  /* received bytes not yet parsed */
#define BCN_SESSION_TX_MAX 4096         /* handshake bytes not yet written */
#define BCN_SESSION_WHY_MAX 400         /* one failure description */

/* Settings; checked by bcn_session_init. */
struct bcn_session_conf {
	const struct bcn_auth_key *key; /* must outlive the session */
	const char *node;               /* our name, copied */
	uint64_t queue_bytes;           /* frame bytes kept until acked */
	uint64_t window;                /* frames in flight at most */
	int64_t backoff_min_ms;         /* first reconnection delay */
	int64_t backoff_max_ms;         /* longest reconnection delay */
	int64_t ack_timeout_ms;         /* handshake answer, or any ACK
					 * while frames are in flight */
	uint64_t first_seq;             /* first sequence number */
	uint64_t seed;                  /* the backoff jitter's random
					 * source (any value) */
};

/* One queued frame. */
struct bcn_session_frame {
	struct bcn_session_frame *prev, *next;
	uint8_t *data;                  /* the whole frame, owned */
	size_t len;
	uint64_t seq;
	uint32_t records;
	uint32_t sends;                 /* writes begun */
	bool pinned;                    /* being written */
	bool dropped;                   /* unlinked while pinned */
};

/* Counters. Frames, records and bytes balance:
 * submitted = acked + dropped + queued. */
struct bcn_session_stats {
	uint64_t submitted_frames, submitted_records, submitted_bytes;
	/* answered STORED or DUPLICATE */
	uint64_t acked_frames, acked_records, acked_bytes;
	uint64_t duplicates;            /* of acked_frames: DUPLICATE */
	uint64_t rejected;              /* answered REJECTED (in dropped_*) */
	/* pushed out of a full queue, or rejected */
	uint64_t dropped_frames, dropped_records, dropped_bytes;
	uint64_t queued_frames, queued_records, queued_bytes;  /* now */
	uint64_t inflight;              /* now: sent, not yet acknowledged */
	uint64_t sent_frames;           /* frame writes begun, resends too */
	uint64_t resent;                /* writes of a frame sent before */
	uint64_t bytes_sent;            /* bytes written: frames, handshake */
	uint64_t unknown_acks;          /* ACKs matching no frame in flight */
	uint64_t connects;              /* handshakes completed */
};

enum bcn_session_state {
	BCN_SESSION_DOWN = 0,           /* no connection */
	BCN_SESSION_HANDSHAKE,          /* connected, authenticating */
	BCN_SESSION_UP,                 /* authenticated: frames flow */
};

/* What one received frame did (bcn_session_step). */
enum bcn_session_event_kind {
	BCN_SESSION_EV_HANDSHAKE = 1,   /* a handshake frame, maybe answered */
	BCN_SESSION_EV_ESTABLISHED,     /* the handshake completed */
	BCN_SESSION_EV_ACKED,           /* STORED or DUPLICATE (status) */
	BCN_SESSION_EV_REJECTED,        /* REJECTED: the frame is dropped */
	BCN_SESSION_EV_UNKNOWN_ACK,     /* an ACK matching nothing in flight */
};

struct bcn_session_event {
	enum bcn_session_event_kind kind;
	uint64_t seq;                   /* ACK events */
	uint8_t status;                 /* ACK events: BCN_ACK_* */
};

struct bcn_session {
	/* what bcn_session_tick reads first, in one cache line: a process
	 * may scan thousands of sessions every few milliseconds */
	enum bcn_session_state state;
	bool hold;                      /* start no new frame */
	uint64_t inflight;
	struct bcn_session_frame *cur;  /* being written, pinned */
	int64_t hs_deadline;            /* the handshake must end by then */
	int64_t last_progress;          /* last ACK, or first frame in flight */
	int64_t ack_timeout_ms;         /* conf.ack_timeout_ms */
	struct bcn_session_frame *head, *tail, *next_send;
	size_t cur_off;
	uint64_t used, nframes, nrecords;
	uint64_t next_seq;
	int64_t delay;                  /* the next backoff delay */
	uint64_t rng;
	struct bcn_buf tx;              /* handshake bytes to write */
	size_t tx_off;
	struct bcn_buf sealed;          /* cur as sent: with its frame MAC */
	struct bcn_buf rx;              /* received */
	size_t rx_off;                  /* bytes of rx parsed */
	struct bcn_session_conf conf;   /* node points to auth.node */
	struct bcn_auth_client auth;
	struct bcn_frame f;
	struct bcn_session_stats st;
	char why[BCN_SESSION_WHY_MAX];  /* why the last call failed */
};

/* Prepares s (DOWN, empty queue) from conf. Returns 0 or -EINVAL (a bad
 * node name or setting). bcn_session_fini must follow either way. */
int bcn_session_init(struct bcn_session *s,
		     const struct bcn_session_conf *conf);

/* Frees the queue (frames still queued are lost) and the buffers. */
void bcn_session_fini(struct bcn_session *s);

/* Returns the next sequence number and advances it. */
uint64_t bcn_session_take_seq(struct bcn_session *s);

/* Wraps data[0..len-1], a whole DATA frame numbered seq with records
 * records, into a new queue frame that owns data (malloc'd). Returns 0
 * or -ENOMEM (data stays the caller's then). */
int bcn_session_frame_new(uint8_t *data, size_t len, uint64_t seq,
			  uint32_t records, struct bcn_session_frame **out);

/* Finishes the records of b into a DATA frame of node numbered seq, of
 * at most cap bytes, as a new queue frame. Returns 0; -BCN_ETOOBIG when
 * it is larger than cap; the builder's errors (the builder keeps its
 * records on any error); -ENOMEM. */
int bcn_session_frame_build(struct bcn_frame_builder *b, const char *node,
			    uint64_t seq, size_t cap,
			    struct bcn_session_frame **out);

/* Frees a chain of frames linked by next (bcn_session_submit's). */
void bcn_session_frames_free(struct bcn_session_frame *chain);

/* True when a frame of len bytes fits in the queue without a drop. */
bool bcn_session_fits(const struct bcn_session *s, size_t len);

/* Appends f to the queue, dropping the oldest frames (in flight or not)
 * until it fits; each drop is counted. *dead gets the chain of dropped
 * frames for the caller to free (bcn_session_frames_free), maybe outside
 * its lock. Returns 0 or -BCN_ETOOBIG (f larger than the whole queue:
 * not taken). */
int bcn_session_submit(struct bcn_session *s, struct bcn_session_frame *f,
		       struct bcn_session_frame **dead);

/* A connection was made at time now (ms, any monotonic origin): starts
 * the handshake (HELLO to write) with its deadline now + ack_timeout.
 * Returns 0 or the handshake's errors (why says). */
int bcn_session_connected(struct bcn_session *s, int64_t now);

/* The connection ended (or was never made): every frame in flight goes
 * back to the waiting part, to be sent again in sequence order on the
 * next connection; unparsed and unwritten bytes are forgotten. *dead
 * gets a pinned frame that was dropped meanwhile, or NULL. */
void bcn_session_disconnected(struct bcn_session *s,
			      struct bcn_session_frame **dead);

/* The peer closed the connection: returns the code that describes it,
 * -EKEYREJECTED right after our AUTH (a server refuses a wrong MAC by
 * closing), else -ECONNRESET, with why set. */
int bcn_session_eof(struct bcn_session *s);

/* Takes len received bytes. Returns 0, or -BCN_EFULL when more than
 * BCN_SESSION_RX_MAX bytes wait unparsed, or -ENOMEM. */
int bcn_session_feed(struct bcn_session *s, const uint8_t *data, size_t len);

/* Handles the next whole frame received, at time now. Returns 1 with *ev
 * set, 0 when no whole frame waits, or a negative code (the connection
 * must end; why says): a bad frame, -EKEYREJECTED, -EPROTO (a frame out
 * of order), the handshake's errors. An ACK removes the frame in flight
 * with its sequence number, in whatever order ACKs arrive. */
int bcn_session_step(struct bcn_session *s, int64_t now,
		     struct bcn_session_event *ev);

/* What to write next: handshake bytes first; once UP the rest of the
 * frame being written, or the next waiting frame if the window allows
 * and the session is not held (that frame is then in flight and
 * pinned). *p and *len get the bytes (*len 0: nothing to write); they
 * stay valid until the next call. now starts the ACK clock. */
void bcn_session_out(struct bcn_session *s, int64_t now, const uint8_t **p,
		     size_t *len);

/* n bytes of what bcn_session_out gave were written. Returns 1 when that
 * completed a frame, else 0; *dead gets a frame to free (dropped while
 * being written) or NULL. */
int bcn_session_wrote(struct bcn_session *s, size_t n,
		      struct bcn_session_frame **dead);

/* True when bcn_session_out would give bytes. */
bool bcn_session_want_out(const struct bcn_session *s);

/* Held, the session starts no new frame (frames in flight go on). */
void bcn_session_hold(struct bcn_session *s, bool hold);

/* Checks the deadlines at time now: the handshake's, and while frames are
 * in flight the ACK timeout (no ACK for ack_timeout). Returns 0 with
 * *next set to the next deadline (-1: none), or -ETIMEDOUT (why says). */
int bcn_session_tick(struct bcn_session *s, int64_t now, int64_t *next);

/* The delay before the next connection attempt: drawn uniformly from
 * [d/2, d] of the current delay d (jitter); grow then doubles d up to
 * backoff_max. d starts at backoff_min and returns there when a
 * handshake completes. */
int64_t bcn_session_backoff(struct bcn_session *s, bool grow);

/* Copies the counters. */
void bcn_session_stats(const struct bcn_session *s,
		       struct bcn_session_stats *st);

/* Frames in flight now (the one being written included). */
uint64_t bcn_session_inflight(const struct bcn_session *s);

#endif
