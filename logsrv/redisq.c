/* The durable queue in Redis, driven from the log server's event loop with
 * hiredis's asynchronous API on our own epoll adapter.
 *
 * Each accepted frame is kept in memory until a Lua script has, in one
 * atomic step, recorded (node, seq) in the node's dedup set and appended
 * the frame to the queue list; Redis runs with appendonly yes and
 * appendfsync always, so its reply means the frame is on disk. Only then
 * is the frame acknowledged. On any Redis error or disconnection every
 * unconfirmed frame is resent after a reconnect; the dedup set makes the
 * resend harmless. */
#include <errno.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "common/error.h"
#include "logsrv/server.h"

#define BACKOFF_MIN_MS 100
#define CONNECT_TIMEOUT_MS 5000

#define BATCH_FRAMES 256        /* frames per script call */
#define BATCH_BYTES (8u << 20)

/* KEYS[1] the queue list, KEYS[1 + j] the dedup zset of frame j's node;
 * ARGV[1] the dedup window, ARGV[2j] frame j's sequence number and
 * ARGV[2j + 1] the frame, for j = 1 .. #KEYS - 1. Returns, per frame, 1
 * when stored and 0 for a duplicate. One call carries the frames of one
 * turn of the event loop, so that Redis writes (and fsyncs) them at once. */
const char bcn_logsrv_enqueue_lua[] =
	"local w = tonumber(ARGV[1])\n"
	"local res = {}\n"
	"for j = 1, #KEYS - 1 do\n"
	"  local seen, seq = KEYS[j + 1], ARGV[2 * j]\n"
	"  if redis.call('ZADD', seen, 'NX', seq, seq) == 1 then\n"
	"    redis.call('RPUSH', KEYS[1], ARGV[2 * j + 1])\n"
	"    local n = redis.call('ZCARD', seen)\n"
	"    if n > w then redis.call('ZREMRANGEBYRANK', seen, 0, n - w - 1) end\n"
	"    res[j] = 1\n"
	"  else\n"
	"    res[j] = 0\n"
	"  end\n"
	"end\n"
	"return res\n";

/* The frames of one script call, in order. */
struct batch {
	size_t n;
	struct bcn_pending *items[BATCH_FRAMES];
};


/* --- epoll adapter for hiredis --- */

static void redis_interest(struct bcn_srv *s)
{
	struct epoll_event e = { .events = s->redis_events, .data.ptr = &s->redis_ev };
	int fd = s->rc->c.fd;

	if (!s->redis_registered) {
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &e) == 0)
			s->redis_registered = true;
	} else {
		epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &e);
	}
}

static void ev_add_read(void *p) { struct bcn_srv *s = p; s->redis_events |= EPOLLIN; redis_interest(s); }
static void ev_del_read(void *p) { struct bcn_srv *s = p; s->redis_events &= ~(uint32_t)EPOLLIN; redis_interest(s); }
static void ev_add_write(void *p) { struct bcn_srv *s = p; s->redis_events |= EPOLLOUT; redis_interest(s); }
static void ev_del_write(void *p) { struct bcn_srv *s = p; s->redis_events &= ~(uint32_t)EPOLLOUT; redis_interest(s); }

static void ev_cleanup(void *p)
{
	struct bcn_srv *s = p;

	if (s->redis_registered && s->rc)
		epoll_ctl(s->ep, EPOLL_CTL_DEL, s->rc->c.fd, NULL);
	s->redis_registered = false;
	s->redis_events = 0;
}

void bcn_redisq_event(struct bcn_srv *s, uint32_t events)
{
	if (!s->rc)
		return;
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		redisAsyncHandleRead(s->rc);
	if (s->rc && (events & EPOLLOUT))
		redisAsyncHandleWrite(s->rc);
}

/* --- connection life cycle --- */

static void schedule_retry(struct bcn_srv *s)
{
	s->redis_backoff_ms = s->redis_backoff_ms ? s->redis_backoff_ms * 2 : BACKOFF_MIN_MS;
	if (s->redis_backoff_ms > s->cfg->redis_backoff_max_ms)
		s->redis_backoff_ms = s->cfg->redis_backoff_max_ms;
	s->redis_retry_ms = s->now_ms + s->redis_backoff_ms;
}

/* Forgets that commands were in flight: everything unconfirmed is resent
 * on the next connection. */
static void mark_all_unsent(struct bcn_srv *s)
{
	for (struct bcn_pending *p = s->pending.next; p != &s->pending; p = p->next)
		p->sent = false;
	s->unsent = true;
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
	struct bcn_srv *s = ac->data;

	if (status != REDIS_OK)
		bcn_complain(&s->redis_complaint, BCN_LOG_ERR,
			     "Redis %s:%" PRIu64 " connection lost: %s (%" PRIu64
			     " frames wait, collectors are not acknowledged)",
			     s->cfg->redis_host, s->cfg->redis_port,
			     ac->errstr[0] ? ac->errstr : "closed",
			     (uint64_t)s->st->pending_frames);
	s->rc = NULL;
	s->redis_ready = false;
	s->redis_failed = false;
	s->redis_registered = false;
	mark_all_unsent(s);
	schedule_retry(s);
}

/* Drops the connection after a Redis error reply; everything unconfirmed
 * is resent after the reconnect. */
static void redis_fail(struct bcn_srv *s, const char *what, const redisReply *r)
{
	s->st->redis_errors++;
	bcn_complain(&s->redis_complaint, BCN_LOG_ERR, "Redis: %s: %s", what,
		     r && r->type == REDIS_REPLY_ERROR ? r->str :
		     s->rc && s->rc->errstr[0] ? s->rc->errstr : "no reply");
	s->redis_ready = false;
	if (s->rc && !s->redis_failed) {
		s->redis_failed = true;
		redisAsyncDisconnect(s->rc);
	}
}

static void on_script(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_srv *s = ac->data;
	redisReply *r = reply;

	(void)priv;
	if (s->redis_failed)
		return;
	if (!r || r->type != REDIS_REPLY_STRING || r->len >= sizeof(s->script_sha)) {
		redis_fail(s, "SCRIPT LOAD", r);
		return;
	}
	memcpy(s->script_sha, r->str, r->len);
	s->script_sha[r->len] = '\0';
	s->redis_ready = true;
	s->unsent = true;
	s->redis_backoff_ms = 0;
	bcn_complain_release(&s->redis_complaint, BCN_LOG_NOTICE,
			     "Redis %s:%" PRIu64 " is back", s->cfg->redis_host,
			     s->cfg->redis_port);
	bcn_redisq_flush(s);
}

static const char *config_value(const redisReply *r)
{
	if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
	    r->element[1]->type != REDIS_REPLY_STRING)
		return "?";
	return r->element[1]->str;
}

static void on_check(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_srv *s = ac->data;
	const char *what = priv, *v = config_value(reply);
	const char *want = !strcmp(what, "appendonly") ? "yes" : "always";

	if (strcmp(v, want) == 0 || !s->cfg->redis_require_fsync)
		return;
	BCN_ERR("Redis %s is '%s', not '%s': acknowledged frames would not "
		"survive a crash of Redis; refusing to store (set "
		"redis_require_fsync = no to accept that)", what, v, want);
	redis_fail(s, "durability check", NULL);
}

static void on_auth(redisAsyncContext *ac, void *reply, void *priv)
{
	redisReply *r = reply;

	(void)priv;
	if (!r || r->type == REDIS_REPLY_ERROR)
		redis_fail(ac->data, "AUTH", r);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
	struct bcn_srv *s = ac->data;
	redisAsyncContext *c = (redisAsyncContext *)ac;

	if (status != REDIS_OK) {
		bcn_complain(&s->redis_complaint, BCN_LOG_ERR,
			     "cannot connect to Redis %s:%" PRIu64 ": %s",
			     s->cfg->redis_host, s->cfg->redis_port, ac->errstr);
		s->rc = NULL;
		s->redis_registered = false;
		schedule_retry(s);
		return;
	}
	s->st->redis_reconnects++;
	if (s->password[0])
		redisAsyncCommand(c, on_auth, NULL, "AUTH %s", s->password);
	redisAsyncCommand(c, on_check, "appendonly", "CONFIG GET appendonly");
	redisAsyncCommand(c, on_check, "appendfsync", "CONFIG GET appendfsync");
	redisAsyncCommand(c, on_script, NULL, "SCRIPT LOAD %s", bcn_logsrv_enqueue_lua);
}

static void redis_connect(struct bcn_srv *s)
{
	redisAsyncContext *ac = redisAsyncConnect(s->cfg->redis_host,
						  (int)s->cfg->redis_port);

	if (!ac || ac->err) {
		bcn_complain(&s->redis_complaint, BCN_LOG_ERR,
			     "cannot connect to Redis %s:%" PRIu64 ": %s",
			     s->cfg->redis_host, s->cfg->redis_port,
			     ac ? ac->errstr : "out of memory");
		if (ac)
			redisAsyncFree(ac);
		schedule_retry(s);
		return;
	}
	s->rc = ac;
	s->redis_failed = false;
	s->redis_connect_started = s->now_ms;
	ac->data = s;
	ac->ev.data = s;
	ac->ev.addRead = ev_add_read;
	ac->ev.delRead = ev_del_read;
	ac->ev.addWrite = ev_add_write;
	ac->ev.delWrite = ev_del_write;
	ac->ev.cleanup = ev_cleanup;
	redisAsyncSetConnectCallback(ac, on_connect);
	redisAsyncSetDisconnectCallback(ac, on_disconnect);
	/* hiredis waits for writability to finish the connect */
	ev_add_write(s);
}

/* The oldest command in flight, or NULL. */
static struct bcn_pending *oldest_sent(struct bcn_srv *s)
{
	for (struct bcn_pending *p = s->pending.next; p != &s->pending; p = p->next)
		if (p->sent)
			return p;
	return NULL;
}

/* Drops a connection that does not answer (hung or unreachable Redis);
 * freeing runs the pending callbacks, which keep their frames. */
static void redis_abandon(struct bcn_srv *s, const char *why)
{
	redisAsyncContext *ac = s->rc;

	BCN_WARN("Redis %s:%" PRIu64 " %s; reconnecting", s->cfg->redis_host,
		 s->cfg->redis_port, why);
	s->st->redis_errors++;
	redisAsyncFree(ac);
	if (s->rc == ac) {      /* never connected: no disconnect callback */
		s->rc = NULL;
		s->redis_ready = false;
		s->redis_registered = false;
		mark_all_unsent(s);
		schedule_retry(s);
	}
}

void bcn_redisq_tick(struct bcn_srv *s)
{
	struct bcn_pending *p;

	if (!s->rc) {
		if (s->now_ms >= s->redis_retry_ms)
			redis_connect(s);
		return;
	}
	if (!s->redis_ready &&
	    s->now_ms - s->redis_connect_started > CONNECT_TIMEOUT_MS) {
		redis_abandon(s, "does not answer");
		return;
	}
	p = oldest_sent(s);
	if (p && s->now_ms - p->sent_ms > s->cfg->redis_timeout_ms)
		redis_abandon(s, "did not confirm a write in time");
}

/* --- the queue --- */

static void pending_free(struct bcn_srv *s, struct bcn_pending *p)
{
	p->prev->next = p->next;
	p->next->prev = p->prev;
	s->st->pending_frames--;
	s->st->pending_bytes -= p->len;
	free(p->seen_key);
	free(p->frame);
	free(p);
}

static void ack_one(struct bcn_srv *s, struct bcn_pending *p, bool stored)
{
	struct bcn_conn *c = bcn_srv_conn(s, p->fd, p->conn_id);

	if (stored)
		s->st->frames_stored++;
	else
		s->st->frames_duplicate++;
	if (c) {
		c->inflight--;
		bcn_srv_ack(s, c, p->seq, stored ? BCN_ACK_STORED : BCN_ACK_DUPLICATE);
	}
	pending_free(s, p);
}

static void on_enqueued(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_srv *s = ac->data;
	struct batch *b = priv;
	redisReply *r = reply;
	bool ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == b->n;

	for (size_t i = 0; ok && i < b->n; i++)
		ok = r->element[i]->type == REDIS_REPLY_INTEGER;
	if (!ok) {
		/* a disconnect calls this with r == NULL; the frames stay
		 * pending and are sent again after the reconnect */
		if (r)
			redis_fail(s, "enqueue", r);
		for (size_t i = 0; i < b->n; i++)
			b->items[i]->sent = false;
		s->unsent = true;
	} else {
		for (size_t i = 0; i < b->n; i++)
			ack_one(s, b->items[i], r->element[i]->integer == 1);
		bcn_srv_pressure(s);
	}
	free(b);
}

/* Sends one script call with the frames of b. Returns 0 or -EIO. */
static int send_batch(struct bcn_srv *s, struct batch *b)
{
	static const char *argv[5 + 3 * BATCH_FRAMES];
	static size_t argl[5 + 3 * BATCH_FRAMES];
	static char seqs[BATCH_FRAMES][24];
	char nkeys[24], window[24];
	size_t k = 0, n = b->n;

	snprintf(nkeys, sizeof(nkeys), "%zu", n + 1);
	snprintf(window, sizeof(window), "%" PRIu64, s->cfg->dedup_window);
	argv[k] = "EVALSHA"; argl[k++] = 7;
	argv[k] = s->script_sha; argl[k++] = strlen(s->script_sha);
	argv[k] = nkeys; argl[k++] = strlen(nkeys);
	argv[k] = s->queue_key; argl[k++] = strlen(s->queue_key);
	for (size_t j = 0; j < n; j++) {
		argv[k] = b->items[j]->seen_key;
		argl[k++] = strlen(b->items[j]->seen_key);
	}
	argv[k] = window; argl[k++] = strlen(window);
	for (size_t j = 0; j < n; j++) {
		snprintf(seqs[j], sizeof(seqs[j]), "%" PRIu64, b->items[j]->seq);
		argv[k] = seqs[j]; argl[k++] = strlen(seqs[j]);
		argv[k] = (const char *)b->items[j]->frame; argl[k++] = b->items[j]->len;
	}
	if (redisAsyncCommandArgv(s->rc, on_enqueued, b, (int)k, argv, argl) != REDIS_OK)
		return -EIO;
	for (size_t j = 0; j < n; j++) {
		b->items[j]->sent = true;
		b->items[j]->sent_ms = s->now_ms;
	}
	return 0;
}

void bcn_redisq_flush(struct bcn_srv *s)
{
	struct bcn_pending *p = s->pending.next;

	while (s->redis_ready && s->unsent) {
		struct batch *b = malloc(sizeof(*b));
		size_t bytes = 0;

		if (!b)
			return;         /* retried at the next turn */
		b->n = 0;
		for (; p != &s->pending && b->n < BATCH_FRAMES && bytes < BATCH_BYTES;
		     p = p->next) {
			if (p->sent)
				continue;
			b->items[b->n++] = p;
			bytes += p->len;
		}
		if (b->n == 0 || send_batch(s, b)) {
			s->unsent = b->n != 0;
			free(b);
			return;
		}
		s->unsent = p != &s->pending;
	}
}

static void on_side_reply(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_srv *s = ac->data;
	redisReply *r = reply;

	if (r && r->type == REDIS_REPLY_ERROR) {
		s->st->redis_errors++;
		BCN_WARN("Redis: %s: %s", (const char *)priv, r->str);
	}
}

void bcn_redisq_command(struct bcn_srv *s, int argc, const char **argv,
			const char *what)
{
	if (!s->rc || !s->redis_ready)
		return;
	if (redisAsyncCommandArgv(s->rc, on_side_reply, (void *)what, argc, argv,
				  NULL) != REDIS_OK)
		BCN_WARN("Redis: cannot send the %s", what);
}

int bcn_redisq_submit(struct bcn_srv *s, struct bcn_conn *c, const char *node,
		      uint64_t seq, const uint8_t *frame, size_t len)
{
	struct bcn_pending *p = calloc(1, sizeof(*p));
	size_t kl = strlen(s->cfg->redis_prefix) + strlen(node) + 8;

	if (!p)
		return -ENOMEM;
	p->frame = malloc(len);
	p->seen_key = malloc(kl);
	if (!p->frame || !p->seen_key) {
		free(p->frame);
		free(p->seen_key);
		free(p);
		return -ENOMEM;
	}
	memcpy(p->frame, frame, len);
	snprintf(p->seen_key, kl, BCN_LOGSRV_SEEN_KEY, s->cfg->redis_prefix, node);
	p->len = len;
	p->seq = seq;
	p->fd = c->fd;
	p->conn_id = c->id;
	p->prev = s->pending.prev;
	p->next = &s->pending;
	s->pending.prev->next = p;
	s->pending.prev = p;
	s->st->pending_frames++;
	s->st->pending_bytes += len;
	c->inflight++;
	s->unsent = true;       /* sent by bcn_redisq_flush at the end of the turn */
	bcn_srv_pressure(s);
	return 0;
}

int bcn_redisq_init(struct bcn_srv *s)
{
	char err[128];

	s->redis_ev.type = BCN_EV_REDIS;
	s->pending.next = s->pending.prev = &s->pending;
	snprintf(s->queue_key, sizeof(s->queue_key), BCN_LOGSRV_QUEUE_KEY,
		 s->cfg->redis_prefix);
	if (s->cfg->redis_password_file[0]) {
		struct bcn_buf b;
		int rc;

		bcn_buf_init(&b, sizeof(s->password) - 1);
		rc = bcn_buf_read_file(&b, s->cfg->redis_password_file);
		if (rc) {
			snprintf(err, sizeof(err), "%s", bcn_strerror(rc));
			BCN_ERR("redis_password_file %s: %s", s->cfg->redis_password_file, err);
			bcn_buf_free(&b);
			return rc;
		}
		while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r'))
			b.len--;
		memcpy(s->password, b.data, b.len);
		s->password[b.len] = '\0';
		bcn_buf_free(&b);
	}
	redis_connect(s);
	return 0;
}

void bcn_redisq_fini(struct bcn_srv *s)
{
	if (s->rc) {
		redisAsyncContext *ac = s->rc;

		/* pending callbacks run with NULL replies and keep p alive */
		redisAsyncFree(ac);
		s->rc = NULL;
	}
	while (s->pending.next && s->pending.next != &s->pending)
		pending_free(s, s->pending.next);
}
