/* beacon-sim's scale-mode transport (docs/sim.md, "Scale mode"): the
 * connections of many simulated collectors to their log servers, driven
 * by one thread. Each collector has its own authenticated TCP connection
 * (proto/auth.h), its own sequence numbers and its own bounded queue of
 * frames not yet acknowledged, with the guarantees of the collectors'
 * sender (delivery/sender.h): frames are resent after a reconnection until
 * a log server acknowledges them; a full queue drops its oldest frames,
 * counted. One process can so stand for thousands of collectors. */
#ifndef BCN_SIM_WIRE_H
#define BCN_SIM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto/auth.h"
#include "proto/frame.h"

#define BCN_SIM_WIRE_NODE_MAX 31        /* simulated node names */
#define BCN_SIM_WIRE_DIALS_MAX 256      /* connections being set up at
					 * once, so that a start of many
					 * thousands does not flood the
					 * servers' listen queues */

struct bcn_sim_wire_conf {
	const struct bcn_auth_key *key; /* must outlive the wire */
	uint64_t window;                /* frames in flight per connection */
	uint64_t queue_bytes;           /* frame bytes kept per connection */
	int64_t backoff_min_ms, backoff_max_ms;
	int64_t ack_timeout_ms;         /* silence with frames in flight */
};

/* Totals over every connection. Frames balance: submitted = acked +
 * dropped + queued. */
struct bcn_sim_wire_stats {
	uint64_t conns, up;                     /* now */
	uint64_t submitted_frames, submitted_records, submitted_bytes;
	uint64_t acked_frames, acked_records;   /* STORED or DUPLICATE */
	uint64_t duplicates, rejected;
	uint64_t dropped_frames, dropped_records;       /* queue full, or
							 * rejected */
	uint64_t queued_frames, queued_bytes;   /* now */
	uint64_t connects, connect_failures, disconnects;
	uint64_t resent, unknown_acks, ack_timeouts;
};

struct bcn_sim_wire;

/* A wire for n connections, none set up yet. Returns 0, -EINVAL or
 * -ENOMEM (or -errno from epoll_create1). */
int bcn_sim_wire_new(const struct bcn_sim_wire_conf *conf, size_t n,
		     struct bcn_sim_wire **out);
void bcn_sim_wire_free(struct bcn_sim_wire *w);

/* Connection i (< n) belongs to collector node and goes to the server at
 * addr; its frames are numbered from first_seq. It connects during the
 * next pumps. Returns 0 or -EINVAL (bad index, name or address). */
int bcn_sim_wire_add(struct bcn_sim_wire *w, size_t i, const char *node,
		     const struct sockaddr *addr, socklen_t addrlen,
		     uint64_t first_seq);

/* Finishes the records of b into a DATA frame of connection i with its
 * next sequence number and queues it (dropping the oldest frames not
 * being written when the queue would exceed queue_bytes). An empty
 * builder queues nothing. Returns 0, -EINVAL, the builder's errors or
 * -ENOMEM; the frame is sent by the pumps. */
int bcn_sim_wire_submit(struct bcn_sim_wire *w, size_t i,
			struct bcn_frame_builder *b);

/* Connects, authenticates, sends, reads acknowledgements and reconnects
 * until until_ns (CLOCK_MONOTONIC). Returns 0, or -errno from epoll. */
int bcn_sim_wire_pump(struct bcn_sim_wire *w, int64_t until_ns);

/* Pumps until every queued frame is acknowledged or dropped, at most
 * until until_ns. Returns 0, -ETIMEDOUT, or the pump's errors. */
int bcn_sim_wire_drain(struct bcn_sim_wire *w, int64_t until_ns);

void bcn_sim_wire_stats(const struct bcn_sim_wire *w,
			struct bcn_sim_wire_stats *st);

/* One connection's account, as a collector's sender keeps it for its
 * health records. */
struct bcn_sim_wire_conn_stats {
	uint64_t acked_records, dropped_records;
	uint64_t queued_bytes;                  /* now */
	uint64_t connects, connect_failures, resent;
	bool up;                                /* now: authenticated */
};

/* The account of connection i. Returns 0 or -EINVAL (no connection i). */
int bcn_sim_wire_conn_stats(const struct bcn_sim_wire *w, size_t i,
			    struct bcn_sim_wire_conn_stats *st);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t bcn_sim_wire_now(void);

#endif
