/* A collector connection's protocol, apart from its socket (conn.h): the
 * input buffer is cut into frames, each checked against the limits of the
 * connection's state; handshake frames drive the authentication, DATA
 * frames are validated and submitted, malformed content is rejected with
 * an ACK and a broken envelope closes the connection. Everything a peer can
 * trigger is logged through rate-limited complaints. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "common/error.h"
#include "logsrv/conn.h"

#define SHRINK_ABOVE (256u << 10)       /* free an idle input buffer above */

void bcn_conn_ctx_init(struct bcn_conn_ctx *x)
{
	x->hs_lim = x->lim;
	x->hs_lim.max_body = BCN_CONN_HS_BODY_MAX;
	x->in_max = (size_t)x->lim.max_body + BCN_FRAME_HDR_LEN;
	bcn_frame_init(&x->frame);
	bcn_buf_init(&x->ack, BCN_CONN_OUT_MAX);
	memset(&x->bad_frame_complaint, 0, sizeof(x->bad_frame_complaint));
	memset(&x->auth_complaint, 0, sizeof(x->auth_complaint));
	memset(&x->version_complaint, 0, sizeof(x->version_complaint));
	memset(&x->role_complaint, 0, sizeof(x->role_complaint));
}

void bcn_conn_ctx_free(struct bcn_conn_ctx *x)
{
	bcn_frame_free(&x->frame);
	bcn_buf_free(&x->ack);
}

int bcn_conn_start(struct bcn_conn_ctx *x, struct bcn_conn *c, int64_t now_ms)
{
	int rc = 0;

	c->state = x->key ? BCN_CONN_HELLO : BCN_CONN_READY;
	if (x->key)
		rc = bcn_auth_server_init(&c->auth, x->key, x->name);
	bcn_buf_init(&c->in, x->key ? BCN_CONN_PREAUTH_IN_MAX : x->in_max);
	bcn_buf_init(&c->out, BCN_CONN_OUT_MAX);
	c->accept_ms = c->last_ms = now_ms;
	c->in_small = false;
	return rc;
}

void bcn_conn_release(struct bcn_conn *c)
{
	bcn_buf_free(&c->in);
	bcn_buf_free(&c->out);
}

int bcn_conn_ack(struct bcn_conn_ctx *x, struct bcn_conn *c, uint64_t seq,
		 enum bcn_ack_status status)
{
	struct bcn_buf *b = x->key ? &x->ack : &c->out;
	int rc;

	bcn_buf_reset(&x->ack);
	rc = bcn_frame_ack_encode(seq, status, x->name, b);
	if (!rc && x->key)
		rc = bcn_seal_frame(&c->auth.tx, x->ack.data, x->ack.len,
				    &c->out);
	if (rc) {
		c->why = "acknowledgements not read";
		return -1;
	}
	return 0;
}

/* Handshake frames, before any data. Returns 0, or -1 to close. */
static int handle_handshake(struct bcn_conn_ctx *x, struct bcn_conn *c)
{
	int rc = bcn_auth_server_step(&c->auth, &x->frame, &c->out);

	if (rc == -EPROTONOSUPPORT) {
		x->st->auth_failures++;
		bcn_complain(&x->version_complaint, BCN_LOG_WARNING,
			     "%s (node '%s') speaks protocol version %u, this "
			     "server %d: upgrade the collector; closing", c->peer,
			     x->frame.node, x->frame.hdr.version,
			     BCN_PROTO_VERSION);
		c->why = "old protocol version";
		return -1;
	}
	if (rc < 0 || rc == BCN_AUTH_PASS) {
		x->st->auth_failures++;
		bcn_complain(&x->auth_complaint, BCN_LOG_WARNING,
			     "authentication failed for %s (node '%s'): %s", c->peer,
			     x->frame.node, rc < 0 ? bcn_strerror(rc) : "data before WELCOME");
		c->why = "authentication failed";
		return -1;
	}
	if (c->auth.state == BCN_AUTH_ESTABLISHED) {
		c->state = BCN_CONN_READY;
		c->in.max = x->in_max;  /* DATA frames may now be large */
		c->in_small = true;
		snprintf(c->node, sizeof(c->node), "%s", c->auth.node);
		BCN_INFO("%s authenticated as %s", c->peer, c->node);
	} else {
		c->state = BCN_CONN_AUTH;
	}
	return 0;
}

static int handle_data(struct bcn_conn_ctx *x, struct bcn_conn *c,
		       const uint8_t *p, size_t len)
{
	struct bcn_frame *f = &x->frame;
	int rc;

	if (c->node[0] && strcmp(c->node, f->node) != 0) {
		bcn_complain(&x->bad_frame_complaint, BCN_LOG_WARNING,
			     "%s: authenticated as %s but sent a frame as %s",
			     c->peer, c->node, f->node);
		c->why = "frame of another node";
		return -1;
	}
	x->st->frames_in++;
	x->st->bytes_in += len;
	rc = bcn_frame_validate(f);
	if (rc) {
		x->st->frames_rejected++;
		bcn_complain(&x->bad_frame_complaint, BCN_LOG_WARNING,
			     "rejected frame %" PRIu64 " from %s (%s): %s",
			     f->hdr.seq, f->node, c->peer, bcn_strerror(rc));
		return bcn_conn_ack(x, c, f->hdr.seq, BCN_ACK_REJECTED);
	}
	if (x->roles) {
		int role = bcn_roles_of(x->roles, f->node);

		if (f->types & ~bcn_role_types(role)) {
			x->st->frames_rejected++;
			x->st->role_rejected++;
			bcn_complain(&x->role_complaint, BCN_LOG_WARNING,
				     "rejected frame %" PRIu64 " from %s (%s): "
				     "records its role (%s) may not send",
				     f->hdr.seq, f->node, c->peer,
				     bcn_role_names[role]);
			return bcn_conn_ack(x, c, f->hdr.seq, BCN_ACK_REJECTED);
		}
	}
	x->st->records_in += f->hdr.count;
	rc = x->submit(x->submit_arg, c, f, p, len);
	if (rc) {
		c->why = "cannot queue its frame";
		return -1;
	}
	return 0;
}

/* Whether p[0..len-1] starts with a whole DATA frame whose envelope (the
 * header, sizes within lim and body_len >= node_len) is sound; *total is
 * then its length, never more than len. */
static bool data_envelope_sound(const uint8_t *p, size_t len,
				const struct bcn_frame_limits *lim, size_t *total)
{
	struct bcn_frame_header h;

	if (bcn_frame_header_parse(p, len, lim, &h) || h.kind != BCN_FRAME_DATA ||
	    h.body_len < h.node_len)
		return false;
	*total = BCN_FRAME_HDR_LEN + (size_t)h.body_len;
	return *total <= len;
}

/* After the handshake every frame must carry the MAC of its place on the
 * connection, checked before anything else of it is believed. Returns 1
 * (authentic, or no handshake on this server), 0 (more bytes needed) or
 * -1 (close). */
static int check_mac(struct bcn_conn_ctx *x, struct bcn_conn *c,
		     const uint8_t *p, size_t len)
{
	struct bcn_frame_header h;
	int rc;

	if (!x->key)
		return 1;
	rc = bcn_frame_header_parse(p, len, &x->lim, &h);
	if (rc == -BCN_ETRUNC)
		return 0;
	if (rc)
		return 1;               /* bcn_frame_open says what is wrong */
	if (len < BCN_FRAME_HDR_LEN + (size_t)h.body_len)
		return 0;
	if (!bcn_seal_check(&c->auth.rx, p, BCN_FRAME_HDR_LEN + h.body_len))
		return 1;
	x->st->frames_bad++;
	x->st->mac_failures++;
	bcn_complain(&x->bad_frame_complaint, BCN_LOG_WARNING,
		     "a frame from %s (%s) failed its MAC (forged, altered or "
		     "out of order); closing", c->peer, c->node);
	c->why = "frame MAC";
	return -1;
}

/* Decodes one frame at p. Returns bytes consumed (at most len), 0 when
 * more bytes are needed, or -1 when the connection must be closed. */
static ssize_t handle_frame(struct bcn_conn_ctx *x, struct bcn_conn *c,
			    const uint8_t *p, size_t len)
{
	const struct bcn_frame_limits *lim =
		c->state == BCN_CONN_READY ? &x->lim : &x->hs_lim;
	size_t used = 0;
	int rc = c->state == BCN_CONN_READY ? check_mac(x, c, p, len) : 1;

	if (rc <= 0)
		return rc;
	rc = bcn_frame_open(&x->frame, p, len, lim, &used);

	if (rc == -BCN_ETRUNC)
		return 0;
	if (rc == -BCN_ECORRUPT && c->state == BCN_CONN_READY &&
	    data_envelope_sound(p, len, lim, &used)) {
		/* envelope intact, content bad: reject and go on */
		x->st->frames_rejected++;
		bcn_complain(&x->bad_frame_complaint, BCN_LOG_WARNING,
			     "rejected a malformed frame from %s (%s)", c->peer,
			     c->node[0] ? c->node : "-");
		return bcn_conn_ack(x, c, x->frame.hdr.seq, BCN_ACK_REJECTED) ?
		       -1 : (ssize_t)used;
	}
	if (rc) {
		x->st->frames_bad++;
		bcn_complain(&x->bad_frame_complaint, BCN_LOG_WARNING,
			     "bad frame from %s (%s): %s; closing", c->peer,
			     c->node[0] ? c->node : "unauthenticated", bcn_strerror(rc));
		c->why = "protocol error";
		return -1;
	}
	if (c->state != BCN_CONN_READY)
		rc = handle_handshake(x, c);
	else if (x->frame.hdr.kind == BCN_FRAME_DATA)
		rc = handle_data(x, c, p, used);
	else {
		c->why = "handshake frame or ACK after WELCOME";
		rc = -1;
	}
	return rc ? -1 : (ssize_t)used;
}

int bcn_conn_parse(struct bcn_conn_ctx *x, struct bcn_conn *c)
{
	size_t off = 0;

	while (off < c->in.len && !c->paused) {
		ssize_t n = handle_frame(x, c, c->in.data + off, c->in.len - off);

		if (n < 0)
			return -1;
		if (n == 0)
			break;
		if ((size_t)n > c->in.len - off) {      /* never: see handle_frame */
			c->why = "internal error: frame beyond the input";
			return -1;
		}
		off += (size_t)n;
	}
	if (off) {
		memmove(c->in.data, c->in.data + off, c->in.len - off);
		c->in.len -= off;
	}
	if (c->in.len == 0 && c->in_small) {
		/* the handshake's small buffer goes: growing it in place
		 * would leave a hole in the heap per connection (50 MB for
		 * 12,000 collectors) */
		bcn_buf_free(&c->in);
		bcn_buf_init(&c->in, x->in_max);
		c->in_small = false;
	}
	if (c->in.len == 0 && c->in.cap > SHRINK_ABOVE) {
		size_t max = c->in.max;

		bcn_buf_free(&c->in);
		bcn_buf_init(&c->in, max);
	}
	return 0;
}
