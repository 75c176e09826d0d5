/* One collector connection of the log server, apart from its socket: the
 * bytes received are parsed into frames, the handshake is run, DATA frames
 * are checked and handed to a submit hook, and the answers (CHALLENGE,
 * WELCOME, ACK) are appended to an output buffer. server.c owns the
 * sockets; tests/fuzz/logsrv_conn_fuzz.c drives the same code in process. */
#ifndef BCN_LOGSRV_CONN_H
#define BCN_LOGSRV_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/buf.h"
#include "common/log.h"
#include "logsrv/logsrv.h"
#include "proto/auth.h"
#include "logsrv/roles.h"
#include "tls/tls.h"
#include "proto/frame.h"

#define BCN_CONN_HS_BODY_MAX 4096       /* largest handshake frame body */
/* input buffered before authentication: one handshake frame at most */
#define BCN_CONN_PREAUTH_IN_MAX (BCN_FRAME_HDR_LEN + BCN_CONN_HS_BODY_MAX)
#define BCN_CONN_OUT_MAX (4u << 20)     /* unread answers before we give up */

/* Every object the server registers with epoll starts with its type. */
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
	struct sockaddr_storage addr;   /* the peer's address (port zeroed) */
	char node[BCN_NODE_MAX + 1];    /* authenticated node, or "" */
	struct bcn_auth_server auth;
	struct bcn_tls *tls;            /* NULL: plain TCP */
	bool tls_hs;                    /* its TLS handshake is not done */
	struct bcn_buf in;              /* received, not yet parsed */
	struct bcn_buf out;             /* answers not yet written */
	size_t out_off;
	const char *why;                /* why the connection must close */
	uint32_t events;                /* epoll interest */
	int64_t accept_ms;              /* accepted: the handshake's start */
	int64_t last_ms;                /* last activity */
	bool paused;                    /* reading stopped (backpressure) */
	bool closing;                   /* close once out is written */
	bool dirty;                     /* on the list of conns to flush */
	bool preauth;                   /* on the server's pre-auth list */
	bool in_small;                  /* in is still the handshake's */
	uint64_t inflight;              /* frames awaiting Redis */
	struct bcn_conn *prev, *next;   /* the server's pre-auth list */
};

/* Hands an accepted DATA frame (wire bytes p[0..len-1], opened in f) of
 * connection c to the queue. Returns 0, or a negative code: c closes. */
typedef int (*bcn_conn_submit_fn)(void *arg, struct bcn_conn *c,
				  const struct bcn_frame *f, const uint8_t *p,
				  size_t len);

/* What every connection of one server shares. Fill the fields, then call
 * bcn_conn_ctx_init; free with bcn_conn_ctx_free. */
struct bcn_conn_ctx {
	struct bcn_logsrv_stats *st;
	const char *name;                       /* ours, in answers */
	const struct bcn_auth_key *key;         /* NULL: no handshake */
	const struct bcn_roles *roles;          /* NULL: any node sends all */
	struct bcn_frame_limits lim;            /* DATA frames */
	bcn_conn_submit_fn submit;
	void *submit_arg;
	/* set by bcn_conn_ctx_init */
	struct bcn_frame_limits hs_lim;         /* before authentication */
	size_t in_max;                          /* after authentication */
	struct bcn_frame frame;                 /* decoder, reused */
	struct bcn_buf ack;                     /* an ACK before sealing */
	struct bcn_complain bad_frame_complaint, auth_complaint;
	struct bcn_complain version_complaint, role_complaint;
};

/* Prepares the shared decoder and limits of x (st, name, key, lim, submit
 * set by the caller). */
void bcn_conn_ctx_init(struct bcn_conn_ctx *x);
void bcn_conn_ctx_free(struct bcn_conn_ctx *x);

/* Prepares a zeroed c for a new connection accepted at now_ms: state,
 * handshake and buffers (the input buffer small until authentication).
 * Returns 0 or -EINVAL (bad server name). */
int bcn_conn_start(struct bcn_conn_ctx *x, struct bcn_conn *c, int64_t now_ms);

/* Frees c's buffers. */
void bcn_conn_release(struct bcn_conn *c);

/* Parses every complete frame in c->in (stopping early when c->paused
 * becomes true), runs the handshake, submits DATA frames, appends answers
 * to c->out and keeps only unparsed bytes in c->in. Returns 0, or -1 when
 * the connection must close (c->why says why). Never consumes more bytes
 * than c->in holds. */
int bcn_conn_parse(struct bcn_conn_ctx *x, struct bcn_conn *c);

/* Appends an ACK for seq to c->out. Returns 0, or -1 when the collector
 * does not read its answers (c->why set; close c). */
int bcn_conn_ack(struct bcn_conn_ctx *x, struct bcn_conn *c, uint64_t seq,
		 enum bcn_ack_status status);

#endif
