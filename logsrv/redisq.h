/* The log server's durable queue in Redis: frames handed to it are kept in
 * memory until one Lua script has, atomically, recorded (node, sequence)
 * in the node's dedup state and appended the frame to the queue list of a
 * Redis that runs with appendonly yes and appendfsync always. Then the
 * owner learns each frame's fate through a completion callback: stored,
 * duplicate (Redis had that (node, sequence) already) or failed (given up:
 * never stored by this queue). On a Redis error, a hang or a lost
 * connection it reconnects with backoff and resends every unconfirmed
 * frame; the dedup state makes the resend harmless.
 *
 * The queue runs in its owner's epoll loop, single-threaded: it registers
 * the Redis socket with the owner's epoll set and is driven by
 * bcn_redisq_event, bcn_redisq_tick and bcn_redisq_flush. */
#ifndef BCN_LOGSRV_REDISQ_H
#define BCN_LOGSRV_REDISQ_H

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define BCN_REDISQ_HOST_MAX 256
#define BCN_REDISQ_PREFIX_MAX 64
#define BCN_REDISQ_PASSWORD_MAX 256
#define BCN_REDISQ_BATCH_FRAMES 256             /* frames per script call */
#define BCN_REDISQ_BATCH_BYTES (8u << 20)       /* bytes per script call */
#define BCN_REDISQ_DEDUP_WINDOW_MAX (1u << 24)  /* numbers per node: 2 MiB */

/* Redis keys (printf formats; the first argument is the prefix). */
#define BCN_REDISQ_QUEUE_KEY "%s:queue"         /* list of frames */
#define BCN_REDISQ_SEEN_KEY "%s:seen:%s"        /* dedup state per node */

/* The dedup state of a node, a Redis string: the highest sequence number
 * stored, H, in 16 decimal digits (zero-padded), the window W it was made
 * with in 8, then a ring of W bits: bit 8 * HDR + (n mod W) is set when
 * number n in (H - W, H] was stored. docs/logsrv.md explains the rules. */
#define BCN_REDISQ_SEEN_HDR 24                  /* bytes before the ring */

/* The Lua script that makes frames durable: KEYS[1] the queue list,
 * KEYS[1 + j] the dedup state of frame j's node; ARGV[1] the dedup window,
 * ARGV[2] the states' time to live in ms, ARGV[2j + 1] frame j's sequence
 * number and ARGV[2j + 2] the frame, for j = 1 .. #KEYS - 1. Returns, per
 * frame, 1 when stored and 0 for a duplicate. */
extern const char bcn_redisq_enqueue_lua[];

struct bcn_redisq_config {
	char host[BCN_REDISQ_HOST_MAX];
	uint64_t port;
	char password_file[PATH_MAX];           /* "" for none */
	char prefix[BCN_REDISQ_PREFIX_MAX];     /* of every key */
	bool require_fsync;                     /* refuse a Redis that may lose writes */
	uint64_t dedup_window;                  /* seqs remembered per node below
						 * its highest, 1 .. _WINDOW_MAX */
	int64_t dedup_ttl_ms;                   /* a node's dedup state lives this
						 * long after its last frame, >= 1 */
	int64_t backoff_max_ms;                 /* between reconnection attempts */
	int64_t timeout_ms;                     /* a write must be confirmed */
	int64_t give_up_ms;                     /* fail a frame unconfirmed this
						 * long; 0: keep it until Redis
						 * has it (the log server) */
};

/* Counters of one queue. Written by the owner's thread only; atomic so
 * that other threads may read them. */
struct bcn_redisq_stats {
	_Atomic uint64_t stored, duplicate;     /* frames, by fate */
	_Atomic uint64_t failed;                /* given up, or left at destroy */
	_Atomic uint64_t errors;                /* Redis errors, hangs, refusals */
	_Atomic uint64_t reconnects;            /* successful connections */
	_Atomic uint64_t pending_frames, pending_bytes; /* awaiting a fate */
};

enum bcn_redisq_fate {
	BCN_REDISQ_STORED,              /* durable in Redis now */
	BCN_REDISQ_DUPLICATE,           /* Redis had (node, seq) already */
	BCN_REDISQ_FAILED,              /* given up: not stored by this queue */
};

/* The fate of one frame, with what its owner gave at submission. node is
 * valid during the callback only. */
struct bcn_redisq_done {
	const char *node;
	uint64_t seq;
	enum bcn_redisq_fate fate;
	size_t len;                     /* bytes of the frame */
	int slot;                       /* as given to bcn_redisq_submit */
	uint64_t cookie;                /* as given to bcn_redisq_submit */
};

/* Receives the fates of n >= 1 frames decided together (by one Redis
 * reply, one give-up check or bcn_redisq_destroy), in submission order.
 * It may call bcn_redisq_submit, bcn_redisq_flush and bcn_redisq_command,
 * not the other functions. */
typedef void (*bcn_redisq_done_fn)(void *arg, const struct bcn_redisq_done *d,
				   size_t n);

struct bcn_redisq;

/* Creates a queue with a copy of cfg, reads its password file and starts
 * connecting: the Redis socket is registered with the epoll set ep, its
 * events carrying ep_tag as data.ptr; pass them to bcn_redisq_event. The
 * fate of every submitted frame goes to done(done_arg, ...); the counters
 * to *stats, which must outlive the queue. Returns 0 with *out set, or
 * -EINVAL (bad configuration), -ENOMEM or the password file's error. */
int bcn_redisq_create(const struct bcn_redisq_config *cfg, int ep, void *ep_tag,
		      bcn_redisq_done_fn done, void *done_arg,
		      struct bcn_redisq_stats *stats, struct bcn_redisq **out);

/* Closes the connection and reports every frame still waiting as FAILED
 * (one or more callbacks), then frees q. NULL is allowed. */
void bcn_redisq_destroy(struct bcn_redisq *q);

/* Handles the epoll events that arrived with ep_tag. */
void bcn_redisq_event(struct bcn_redisq *q, uint32_t events);

/* Call about every 100 ms: connects when a retry is due, drops a
 * connection that does not answer or did not confirm a write within
 * timeout_ms, and gives frames up after give_up_ms. */
void bcn_redisq_tick(struct bcn_redisq *q);

/* Takes a copy of frame (len bytes) of node (1.. bytes, no NUL inside)
 * with sequence seq; slot and cookie come back with its fate, which is
 * never reported from inside this call. The frame is sent with the others
 * of this turn of the event loop, at bcn_redisq_flush. Returns 0, or
 * -EINVAL (empty node) or -ENOMEM with nothing kept. */
int bcn_redisq_submit(struct bcn_redisq *q, const char *node, uint64_t seq,
		      const uint8_t *frame, size_t len, int slot, uint64_t cookie);

/* Sends the frames not yet sent to Redis, in script calls of at most
 * BCN_REDISQ_BATCH_FRAMES frames or BCN_REDISQ_BATCH_BYTES. Call it once
 * per turn of the event loop; it does nothing while Redis is not ready. */
void bcn_redisq_flush(struct bcn_redisq *q);

/* Sends a command (argc strings, argv must stay valid until the call
 * returns) whose reply matters only when it is an error, which is logged
 * with what and counted in errors; nothing is sent while Redis is not
 * ready. For the statistics. */
void bcn_redisq_command(struct bcn_redisq *q, int argc, const char **argv,
			const char *what);

/* Whether Redis is connected, checked and has the script: frames flushed
 * now are sent at once. */
bool bcn_redisq_ready(const struct bcn_redisq *q);

#endif
