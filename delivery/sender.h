/* The sender library every collector uses to deliver DATA frames to its
 * log server (docs/sender.md): a bounded in-memory buffer of frames that
 * are not yet acknowledged, and a background thread that connects to the
 * node's primary log server (or its fallback), authenticates
 * (proto/auth.h), pipelines frames, forgets each one when its ACK
 * arrives and resends the rest after a reconnect.
 *
 * Submitting never blocks the caller and never touches the disk: a full
 * buffer drops its oldest frames, counted in the statistics. Two ways to
 * submit, one per sender (the first submission decides):
 *  - numbering: bcn_sender_submit_builder() finishes the records of a
 *    frame builder into a frame with the sender's next sequence number;
 *    this is what collectors use;
 *  - pre-built: bcn_sender_submit() takes a finished DATA frame and sends
 *    it unchanged, sequence number included; this is what `beacon replay`
 *    uses, so that the server's (node, seq) dedup makes replays
 *    idempotent. */
#ifndef BCN_SENDER_H
#define BCN_SENDER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"
#include "common/buf.h"
#include "common/config.h"
#include "proto/frame.h"
#include "delivery/shardmap.h"

#define BCN_SENDER_MAX_SERVERS 8        /* endpoints: primary + fallbacks */
/* "[" IPv6 "]:" port and a NUL */
#define BCN_SENDER_ENDPOINT_MAX (BCN_SHARDMAP_HOST_MAX + 9)
#define BCN_SENDER_PATH_MAX 4096
/* Largest frame a sender takes: the protocol's default body limit. */
#define BCN_SENDER_FRAME_MAX ((16u << 20) + BCN_FRAME_HDR_LEN)

/* Settings of one sender. Fill it with bcn_sender_conf_defaults() (or a
 * daemon's configuration table using BCN_SENDER_CONFIG_OPTS), then set
 * node. */
struct bcn_sender_conf {
	char node[BCN_NODE_MAX + 1];            /* our name (required) */
	char shardmap[BCN_SENDER_PATH_MAX];     /* map file, or "" */
	/* without a shard map: "host:port" or "[v6]:port", the primary
	 * first, then fallbacks in order of preference */
	char servers[BCN_SENDER_MAX_SERVERS][BCN_SENDER_ENDPOINT_MAX];
	size_t nservers;
	char key_file[BCN_SENDER_PATH_MAX];     /* site key (proto/auth.h) */
	uint64_t buffer_bytes;          /* frame bytes kept until acked */
	uint64_t max_frame;             /* largest frame accepted, bytes */
	uint64_t window;                /* frames in flight at most */
	int64_t backoff_min_ms;         /* first reconnection delay */
	int64_t backoff_max_ms;         /* longest reconnection delay */
	int64_t connect_timeout_ms;     /* TCP connect, per address */
	int64_t ack_timeout_ms;         /* handshake answer, or any ACK
					 * while frames are in flight */
	int64_t primary_retry_ms;       /* on a fallback, try the primary
					 * again after this; 0: never */
	uint64_t first_seq;             /* numbering: first sequence
					 * number; 0: bcn_sender_seq_origin() */
	bool tls;                       /* TLS under the frames (tls/tls.h) */
	char tls_ca_file[BCN_SENDER_PATH_MAX];  /* "": the system's CAs */
	char tls_server_name[256];      /* "": the endpoint's host */
	char tls_cert_file[BCN_SENDER_PATH_MAX];        /* client certificate */
	char tls_key_file[BCN_SENDER_PATH_MAX];
};

/* Configuration table entries for a struct bcn_sender_conf member m of a
 * daemon's configuration struct type (the daemon sets m.node itself):
 *
 *	static const struct bcn_config_opt tab[] = {
 *		...,
 *		BCN_SENDER_CONFIG_OPTS(struct conf, send),
 *		{ .name = NULL }
 *	};
 *
 * Keys: shardmap, server (list), key_file, send_first_seq and the send_*
 * keys of BCN_SENDER_CONFIG_TUNING. */
#define BCN_SENDER_CONFIG_OPTS(type, m) \
	{ "shardmap", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.shardmap), \
	  .help = "Shard map file: the log servers of this node." }, \
	{ "server", BCN_CFG_STRING, \
	  BCN_CFG_LIST_MEMBER(type, m.servers, m.nservers), .min = 1, \
	  .help = "Log server HOST:PORT without a shard map, repeatable: " \
		  "the primary first, then fallbacks." }, \
	{ "key_file", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.key_file), \
	  .min = 1, .def = BCN_AUTH_KEY_DEFAULT_PATH, \
	  .help = "Site key file (hex, mode 0600)." }, \
	{ "send_first_seq", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.first_seq), \
	  .min = 0, .max = INT64_MAX, .def = "0", \
	  .help = "First sequence number (0: microseconds since the " \
		  "epoch, so that restarts never reuse numbers)." }, \
	BCN_SENDER_CONFIG_TUNING(type, m)

/* The tuning keys alone (send_buffer, send_max_frame, send_window,
 * send_backoff_min, send_backoff_max, send_connect_timeout,
 * send_ack_timeout, send_primary_retry), for programs that give the
 * endpoints and key their own names (beacon replay). */
#define BCN_SENDER_CONFIG_TUNING(type, m) \
	{ "tls", BCN_CFG_BOOL, BCN_CFG_MEMBER(type, m.tls), .def = "no", \
	  .help = "TLS to the log servers (docs/sender.md, TLS)." }, \
	{ "tls_ca_file", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.tls_ca_file), \
	  .help = "CA certificates the log servers' certificates must be " \
		  "signed by (default: the system's)." }, \
	{ "tls_server_name", BCN_CFG_STRING, \
	  BCN_CFG_MEMBER(type, m.tls_server_name), \
	  .help = "Name the servers' certificates must carry (default: " \
		  "the host of each endpoint)." }, \
	{ "tls_cert_file", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.tls_cert_file), \
	  .help = "This node's certificate, for servers that require one." }, \
	{ "tls_key_file", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.tls_key_file), \
	  .help = "The key of tls_cert_file." }, \
	{ "send_buffer", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.buffer_bytes), \
	  .min = 1024, .max = 1ll << 32, .def = "8M", \
	  .help = "Memory for frames not yet acknowledged; when full, " \
		  "the oldest frames are dropped." }, \
	{ "send_max_frame", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.max_frame), \
	  .min = 1024, .max = BCN_SENDER_FRAME_MAX, .def = "16M", \
	  .help = "Largest frame accepted for sending." }, \
	{ "send_window", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.window), \
	  .min = 1, .max = 65536, .def = "256", \
	  .help = "Frames sent and not yet acknowledged, at most." }, \
	{ "send_backoff_min", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.backoff_min_ms), .min = 10, \
	  .max = 3600000, .def = "200ms", \
	  .help = "First delay before reconnecting." }, \
	{ "send_backoff_max", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.backoff_max_ms), .min = 10, \
	  .max = 86400000, .def = "30s", \
	  .help = "Longest delay before reconnecting." }, \
	{ "send_connect_timeout", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.connect_timeout_ms), .min = 10, \
	  .max = 600000, .def = "5s", \
	  .help = "Time allowed for a TCP connection to one address." }, \
	{ "send_ack_timeout", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.ack_timeout_ms), .min = 100, \
	  .max = 3600000, .def = "30s", \
	  .help = "A server silent this long while frames are in flight " \
		  "(or during the handshake) is taken for dead." }, \
	{ "send_primary_retry", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.primary_retry_ms), .min = 0, \
	  .max = 86400000, .def = "60s", \
	  .help = "On a fallback server, go back to the primary after " \
		  "this long (0: stay)." }

/* Counters of a sender. Frames, records and bytes balance:
 * submitted = acked + dropped + buffered. */
struct bcn_sender_stats {
	uint64_t submitted_frames, submitted_records, submitted_bytes;
	/* answered STORED or DUPLICATE */
	uint64_t acked_frames, acked_records, acked_bytes;
	uint64_t duplicates;            /* of acked_frames: DUPLICATE */
	uint64_t rejected;              /* answered REJECTED (in dropped_*) */
	/* given up: pushed out of a full buffer, or rejected */
	uint64_t dropped_frames, dropped_records, dropped_bytes;
	/* waiting for an ACK now, sent or not */
	uint64_t buffered_frames, buffered_records, buffered_bytes;
	uint64_t buffer_max;            /* buffer capacity, bytes */
	uint64_t inflight;              /* now: sent, not yet acknowledged */
	uint64_t sent_frames;           /* frame writes begun, resends too */
	uint64_t resent;                /* writes of a frame sent before */
	uint64_t bytes_sent;            /* bytes written: frames, handshake */
	uint64_t unknown_acks;          /* ACKs matching no frame in flight */
	uint64_t connects;              /* sessions established */
	uint64_t reconnects;            /* sessions after the first */
	uint64_t fallbacks;             /* sessions not with the primary */
	uint64_t connect_failures;      /* attempts that failed (any cause) */
	uint64_t auth_failures;         /* of those: key refused either way */
	uint64_t ack_timeouts;          /* sessions ended by ack_timeout */
	int connected;                  /* 1 while a session is established */
	int last_error;                 /* code of the last failure, or 0 */
};

struct bcn_sender;

/* Fills conf with the defaults of BCN_SENDER_CONFIG_OPTS (no node, no
 * server). Returns 0 or -EINVAL. */
int bcn_sender_conf_defaults(struct bcn_sender_conf *conf);

/* Parses "host:port" or "[ipv6]:port" (the endpoint syntax of
 * docs/shardmap.md) from s[0..len-1] into ep. Returns 0 or
 * -BCN_ESYNTAX/-BCN_ERANGE. Pure. */
int bcn_sender_endpoint_parse(const char *s, size_t len,
			      struct bcn_shard_endpoint *ep);

/* The first sequence number of a sender that numbers its frames:
 * microseconds since the epoch, so that a restarted collector never
 * reuses the numbers of its previous run (the server would take them for
 * duplicates). Collectors writing --output files may use it too. */
uint64_t bcn_sender_seq_origin(void);

/* Checks conf, loads the key file, finds the endpoints (the shard map's
 * primary and fallback for conf->node, or conf->servers) and starts the
 * background thread, which connects at once. *out gets the sender.
 * Returns 0; -EINVAL (bad or incomplete settings), the key file's and the
 * shard map's errors, -ENOMEM, or -errno from thread or eventfd creation.
 * err gets a message on failure. */
int bcn_sender_open(const struct bcn_sender_conf *conf,
		    struct bcn_sender **out, char *err, size_t errlen);

/* Pre-built mode: copies the DATA frame frame[0..len-1] (one whole frame,
 * with conf->node as its node) into the buffer, to be sent unchanged.
 * Never blocks and never fails for lack of room: older frames are dropped
 * to make room. Safe from any thread. Returns 0; -EINVAL (not one DATA
 * frame of our node, or the sender numbers its frames); -BCN_ETOOBIG (a
 * frame above max_frame or buffer_bytes); -ENOMEM. */
int bcn_sender_submit(struct bcn_sender *s, const uint8_t *frame, size_t len);

/* Numbering mode: finishes the records of b into a frame with the next
 * sequence number (stored in *seq if seq is not NULL) and submits it as
 * bcn_sender_submit() does; the compression happens in the caller's
 * thread, outside the sender's lock. An empty builder submits nothing
 * (*seq = 0). Returns 0; -EINVAL (the sender takes pre-built frames);
 * the builder's errors (the builder keeps its records then); -BCN_ETOOBIG;
 * -ENOMEM. */
int bcn_sender_submit_builder(struct bcn_sender *s,
			      struct bcn_frame_builder *b, uint64_t *seq);

/* For callers that may wait (beacon replay, not collectors): waits until
 * a frame of len bytes fits without dropping anything, at most timeout_ms.
 * Returns 0, -ETIMEDOUT, or -BCN_ETOOBIG when it never can fit. */
int bcn_sender_wait_space(struct bcn_sender *s, size_t len,
			  int64_t timeout_ms);

/* Waits until every submitted frame is acknowledged or dropped, at most
 * timeout_ms (0: just check). Returns 0 or -ETIMEDOUT. */
int bcn_sender_flush(struct bcn_sender *s, int64_t timeout_ms);

/* Copies the counters into *st. */
void bcn_sender_stats(struct bcn_sender *s, struct bcn_sender_stats *st);

/* Adds the counters of b to a (for totals over several senders);
 * connected and last_error take b's when b has them. */
void bcn_sender_stats_add(struct bcn_sender_stats *a,
			  const struct bcn_sender_stats *b);

/* Appends the counters as JSON object members without the braces
 * ("submitted_frames":1,...,"last_error":"..."), so that callers can
 * add their own members. Returns 0, -BCN_EFULL or -ENOMEM. */
int bcn_sender_stats_json(const struct bcn_sender_stats *st,
			  struct bcn_buf *out);

/* Stops the thread, closes the connection and frees everything; frames
 * still buffered are lost (flush first). NULL is a no-op. */
void bcn_sender_close(struct bcn_sender *s);

#endif
