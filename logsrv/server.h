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
#include "logsrv/conn.h"
#include "logsrv/logsrv.h"
#include "logsrv/redisq.h"

enum bcn_ev_type { BCN_EV_LISTEN, BCN_EV_CONN, BCN_EV_REDIS, BCN_EV_TIMER };

struct epoll_event;

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
	struct bcn_conn_ctx cx;         /* what all connections share */
	struct bcn_auth_key key;
	bool have_key;
	struct bcn_tls_ctx *tls;        /* NULL: plain TCP */
	/* the batch of epoll events being dispatched: a connection closed
	 * while it is handled loses its later events in it (conn_close) */
	struct epoll_event *batch;
	int batch_n, batch_i;
	bool paused;                    /* pending_max reached */
	bool draining;
	bool accept_off;                /* listener out of epoll (no fds) */
	int64_t accept_resume_ms;       /* when to try accepting again */
	uint64_t max_conns;             /* max_connections, clamped to fds */
	/* unauthenticated connections, oldest first */
	struct bcn_conn *preauth_head, *preauth_tail;
	uint64_t npreauth;
	int64_t now_ms, last_stats_ms;
	struct bcn_complain accept_complaint, close_complaint, tls_complaint;
	/* Redis: the durable queue, driven from this loop */
	struct bcn_ev redis_ev;
	struct bcn_redisq *q;
};

#endif
