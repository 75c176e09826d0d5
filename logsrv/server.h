/* Internal state of the log server's event loop, shared by server.c
 * (listener, connections, frames) and redisq.c (the durable Redis queue). */
#ifndef BCN_LOGSRV_SERVER_H
#define BCN_LOGSRV_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/auth.h"
#include "common/buf.h"
#include "proto/frame.h"
#include "common/log.h"
#include "logsrv/logsrv.h"

struct redisAsyncContext;

enum bcn_ev_type { BCN_EV_LISTEN, BCN_EV_CONN, BCN_EV_REDIS, BCN_EV_TIMER };

/* Every object registered with epoll starts with its type. */
struct bcn_ev {
	int type;
};

enum bcn_conn_state {
	BCN_CONN_HELLO,         /* waiting for HELLO */
	BCN_CONN_AUTH,          /* CHALLENGE sent, waiting for AUTH */
	BCN_CONN_READY,         /* authenticated: DATA frames */
};

struct bcn_conn {
	struct bcn_ev ev;
	int fd;
	uint64_t id;                    /* unique over the server's life */
	int state;
	char peer[64];                  /* address:port */
	char node[BCN_NODE_MAX + 1];    /* authenticated node, or "" */
	struct bcn_auth_server auth;
	struct bcn_buf in;              /* received, not yet parsed */
	struct bcn_buf out;             /* answers not yet written */
	size_t out_off;
	uint32_t events;                /* epoll interest */
	int64_t last_ms;                /* last activity */
	bool paused;                    /* reading stopped (backpressure) */
	bool closing;                   /* close once out is written */
	bool dirty;                     /* on the list of conns to flush */
	uint64_t inflight;              /* frames awaiting Redis */
};

/* A frame accepted from a collector and not yet durable in Redis. */
struct bcn_pending {
	struct bcn_pending *prev, *next;
	uint64_t conn_id;
	int fd;
	uint64_t seq;
	bool sent;                      /* a command for it is in flight */
	int64_t sent_ms;
	size_t len;
	char *seen_key;                 /* dedup key of its node */
	uint8_t *frame;                 /* the frame, as received */
};

struct bcn_srv {
	const struct bcn_logsrv_config *cfg;
	struct bcn_logsrv_stats *st;
	int ep;
	struct bcn_ev listen_ev;
	int lfd;
	struct bcn_ev timer_ev;
	int tfd;
	struct bcn_conn **conns;        /* indexed by fd */
	size_t conns_cap;
	uint64_t next_id;
	int *dirty;                     /* fds with answers to write */
	size_t ndirty;
	struct bcn_frame frame;         /* decoder, reused */
	struct bcn_frame_limits lim, hs_lim;
	struct bcn_auth_key key;
	bool have_key;
	bool paused;                    /* pending_max reached */
	bool draining;
	int64_t now_ms, last_stats_ms;
	struct bcn_complain bad_frame_complaint, accept_complaint;
	/* Redis */
	struct bcn_ev redis_ev;
	struct redisAsyncContext *rc;
	bool redis_ready;               /* connected, script loaded */
	bool redis_failed;              /* disconnecting after an error */
	char script_sha[48];
	bool redis_registered;
	uint32_t redis_events;
	int64_t redis_retry_ms, redis_backoff_ms, redis_connect_started;
	char queue_key[BCN_LOGSRV_PREFIX_MAX + 16];
	char password[256];
	struct bcn_pending pending;     /* list head */
	bool unsent;                    /* some pending frame is not sent */
	struct bcn_complain redis_complaint;
};

/* redisq.c */
int bcn_redisq_init(struct bcn_srv *s);
void bcn_redisq_fini(struct bcn_srv *s);
/* Called on every timer tick: connects or reconnects when due. */
void bcn_redisq_tick(struct bcn_srv *s);
/* Handles epoll events on the Redis connection. */
void bcn_redisq_event(struct bcn_srv *s, uint32_t events);
/* Takes a validated DATA frame of node with sequence seq: keeps a copy
 * until Redis has it durably, then acknowledges it to the connection.
 * The frame goes to Redis with the others of this turn of the event loop,
 * at bcn_redisq_flush. Returns 0 or -ENOMEM. */
int bcn_redisq_submit(struct bcn_srv *s, struct bcn_conn *c, const char *node,
		      uint64_t seq, const uint8_t *frame, size_t len);

/* Sends the frames not yet sent to Redis, in batches. */
void bcn_redisq_flush(struct bcn_srv *s);

/* Sends a command (argc strings) whose reply matters only when it is an
 * error, which is logged with what and counted in redis_errors; nothing is
 * sent while Redis is not ready. For the statistics. */
void bcn_redisq_command(struct bcn_srv *s, int argc, const char **argv,
			const char *what);

/* server.c, for redisq.c */
struct bcn_conn *bcn_srv_conn(struct bcn_srv *s, int fd, uint64_t id);
void bcn_srv_ack(struct bcn_srv *s, struct bcn_conn *c, uint64_t seq,
		 enum bcn_ack_status status);
/* Re-evaluates backpressure after pending bytes changed. */
void bcn_srv_pressure(struct bcn_srv *s);

#endif
