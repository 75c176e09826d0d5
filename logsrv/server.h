/* Internal state of the log server's event loop (server.c): listener,
 * connections, frames, and the durable Redis queue it owns (redisq.h). */
#ifndef BCN_LOGSRV_SERVER_H
#define BCN_LOGSRV_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/auth.h"
#include "common/buf.h"
#include "proto/frame.h"
#include "common/log.h"
#include "logsrv/logsrv.h"
#include "logsrv/redisq.h"

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
	/* Redis: the durable queue, driven from this loop */
	struct bcn_ev redis_ev;
	struct bcn_redisq *q;
};

#endif
