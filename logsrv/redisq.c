/* The durable queue in Redis (logsrv/redisq.h), driven from its owner's
 * event loop with hiredis's asynchronous API on our own epoll adapter.
 *
 * Each submitted frame is kept in memory until a Lua script has, in one
 * atomic step, recorded (node, seq) in the node's dedup state and appended
 * the frame to the queue list; Redis runs with appendonly yes and
 * appendfsync always, so its reply means the frame is on disk. Only then
 * is the frame's fate reported. On any Redis error or disconnection every
 * unconfirmed frame is resent after a reconnect; the dedup state makes the
 * resend harmless. */
#include <errno.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/log.h"
#include "logsrv/redisq.h"

#define BACKOFF_MIN_MS 100
#define CONNECT_TIMEOUT_MS 5000
#define BATCH_FRAMES BCN_REDISQ_BATCH_FRAMES
#define BATCH_BYTES BCN_REDISQ_BATCH_BYTES

/* One call carries the frames of one turn of the event loop, so that Redis
 * writes (and fsyncs) them at once. The dedup state of a node is one
 * string (BCN_REDISQ_SEEN_KEY, layout in redisq.h): its high-water mark H,
 * the window W it was made with, and a ring of W bits, bit n mod W set when
 * number n in (H - W, H] was stored. Per frame of number s:
 *   no state, or s >= H + W  new; the ring starts over with s alone
 *   H < s < H + W            new; H becomes s, the bits of H+1 .. s-1 clear
 *   H - W < s <= H           duplicate if its bit is set, else new
 *   s <= H - W, s >= 2^53    new, not remembered (docs/logsrv.md)
 * A zset of an older version is converted in place, keeping the numbers
 * it remembered; a state made with another W is converted likewise. Every
 * touched key's time to live is set to ARGV[2] ms after the call. */
const char bcn_redisq_enqueue_lua[] =
	"local w, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])\n"
	"local HDR, LIMIT = 24, 9007199254740992\n"
	"local function pos(n, m) return HDR * 8 + math.fmod(n, m or w) end\n"
	"local function fresh(k, h)\n"
	"  redis.call('SET', k, string.format('%016.0f%08d', h, w) ..\n"
	"             string.rep('\\0', math.ceil(w / 8)))\n"
	"end\n"
	"local function refill(k, h, ns)\n"
	"  fresh(k, h)\n"
	"  for _, n in ipairs(ns) do\n"
	"    if n > h - w and n <= h then redis.call('SETBIT', k, pos(n), 1) end\n"
	"  end\n"
	"  return h\n"
	"end\n"
	"local function load(k)\n"
	"  local t = redis.call('TYPE', k)['ok']\n"
	"  if t == 'zset' then\n"
	"    local ns = redis.call('ZREVRANGE', k, 0, w - 1)\n"
	"    for i = 1, #ns do ns[i] = tonumber(ns[i]) end\n"
	"    if #ns == 0 or not ns[1] or ns[1] >= LIMIT then return false end\n"
	"    return refill(k, ns[1], ns)\n"
	"  end\n"
	"  if t ~= 'string' then return false end\n"
	"  local hd = redis.call('GETRANGE', k, 0, HDR - 1)\n"
	"  local h = tonumber(string.sub(hd, 1, 16))\n"
	"  local m = tonumber(string.sub(hd, 17, 24))\n"
	"  if #hd ~= HDR or not h or not m or m < 1 or h >= LIMIT then return false end\n"
	"  if m == w then return h end\n"
	"  local ns = {}\n"
	"  for n = h, math.max(h - math.min(m, w) + 1, 0), -1 do\n"
	"    if redis.call('GETBIT', k, pos(n, m)) == 1 then ns[#ns + 1] = n end\n"
	"  end\n"
	"  return refill(k, h, ns)\n"
	"end\n"
	"local function clear(k, from, c)\n"
	"  while c > 0 do\n"
	"    local a = math.fmod(from, w)\n"
	"    local e = math.min(a + c, w)\n"
	"    from, c = from + (e - a), c - (e - a)\n"
	"    while a < e and a % 8 ~= 0 do\n"
	"      redis.call('SETBIT', k, HDR * 8 + a, 0); a = a + 1\n"
	"    end\n"
	"    local nb = math.floor((e - a) / 8)\n"
	"    if nb > 0 then\n"
	"      redis.call('SETRANGE', k, HDR + a / 8, string.rep('\\0', nb))\n"
	"      a = a + 8 * nb\n"
	"    end\n"
	"    while a < e do redis.call('SETBIT', k, HDR * 8 + a, 0); a = a + 1 end\n"
	"  end\n"
	"end\n"
	"local res, hs = {}, {}\n"
	"for j = 1, #KEYS - 1 do\n"
	"  local k, s = KEYS[j + 1], tonumber(ARGV[2 * j + 1])\n"
	"  local h, new = hs[k], 1\n"
	"  if h == nil then h = load(k) end\n"
	"  if s >= LIMIT then\n"
	"  elseif not h or s - h >= w then\n"
	"    fresh(k, s); redis.call('SETBIT', k, pos(s), 1); h = s\n"
	"  elseif s > h then\n"
	"    clear(k, h + 1, s - h - 1)\n"
	"    redis.call('SETRANGE', k, 0, string.format('%016.0f', s))\n"
	"    redis.call('SETBIT', k, pos(s), 1); h = s\n"
	"  elseif s > h - w then\n"
	"    new = 1 - redis.call('SETBIT', k, pos(s), 1)\n"
	"  end\n"
	"  if new == 1 then redis.call('RPUSH', KEYS[1], ARGV[2 * j + 2]) end\n"
	"  res[j], hs[k] = new, h\n"
	"end\n"
	"for k in pairs(hs) do redis.call('PEXPIRE', k, ttl) end\n"
	"return res\n";

/* A submitted frame whose fate is not known yet. */
struct pending {
	struct pending *prev, *next;
	int slot;
	uint64_t cookie;
	uint64_t seq;
	bool sent;                      /* a command for it is in flight */
	int64_t sent_ms, submitted_ms;
	size_t len;
	char *seen_key;                 /* dedup key of its node */
	uint8_t *frame;                 /* the frame, as received */
};

/* The frames of one script call, in order. */
struct batch {
	size_t n;
	struct pending *items[BATCH_FRAMES];
};

struct bcn_redisq {
	struct bcn_redisq_config cfg;
	struct bcn_redisq_stats *st;
	bcn_redisq_done_fn done;
	void *done_arg;
	int ep;
	void *ep_tag;
	struct redisAsyncContext *rc;
	bool ready;                     /* connected, checked, script loaded */
	bool failed;                    /* disconnecting after an error */
	bool registered;                /* the socket is in the epoll set */
	uint32_t events;                /* its epoll interest */
	char script_sha[48];
	int64_t retry_ms, backoff_ms, connect_started;
	size_t node_off;                /* of the node in a seen key */
	char queue_key[BCN_REDISQ_PREFIX_MAX + 16];
	char password[BCN_REDISQ_PASSWORD_MAX];
	struct pending pending;         /* list head, in submission order */
	bool unsent;                    /* some pending frame is not sent */
	struct bcn_complain complaint;
	struct bcn_redisq_done report[BATCH_FRAMES];    /* for the callback */
	/* the arguments of one script call */
	const char *argv[6 + 3 * BATCH_FRAMES];
	size_t argl[6 + 3 * BATCH_FRAMES];
	char seqs[BATCH_FRAMES][24];
};

bool bcn_redisq_ready(const struct bcn_redisq *q)
{
	return q->rc && q->ready;
}

/* --- epoll adapter for hiredis --- */

static void redis_interest(struct bcn_redisq *q)
{
	struct epoll_event e = { .events = q->events, .data.ptr = q->ep_tag };
	int fd = q->rc->c.fd;

	if (!q->registered) {
		if (epoll_ctl(q->ep, EPOLL_CTL_ADD, fd, &e) == 0)
			q->registered = true;
	} else {
		epoll_ctl(q->ep, EPOLL_CTL_MOD, fd, &e);
	}
}

static void ev_add_read(void *p) { struct bcn_redisq *q = p; q->events |= EPOLLIN; redis_interest(q); }
static void ev_del_read(void *p) { struct bcn_redisq *q = p; q->events &= ~(uint32_t)EPOLLIN; redis_interest(q); }
static void ev_add_write(void *p) { struct bcn_redisq *q = p; q->events |= EPOLLOUT; redis_interest(q); }
static void ev_del_write(void *p) { struct bcn_redisq *q = p; q->events &= ~(uint32_t)EPOLLOUT; redis_interest(q); }

static void ev_cleanup(void *p)
{
	struct bcn_redisq *q = p;

	if (q->registered && q->rc)
		epoll_ctl(q->ep, EPOLL_CTL_DEL, q->rc->c.fd, NULL);
	q->registered = false;
	q->events = 0;
}

void bcn_redisq_event(struct bcn_redisq *q, uint32_t events)
{
	if (!q->rc)
		return;
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		redisAsyncHandleRead(q->rc);
	if (q->rc && (events & EPOLLOUT))
		redisAsyncHandleWrite(q->rc);
}

/* --- fates --- */

/* Reports the fates of ps[0 .. n) (n <= BATCH_FRAMES), which the caller
 * put in q->report[i].fate, in one callback, then frees the frames. They
 * leave the pending list and its counters before the callback. */
static void report(struct bcn_redisq *q, struct pending **ps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bcn_redisq_done *d = &q->report[i];
		struct pending *p = ps[i];

		d->node = p->seen_key + q->node_off;
		d->seq = p->seq;
		d->len = p->len;
		d->slot = p->slot;
		d->cookie = p->cookie;
		if (d->fate == BCN_REDISQ_STORED)
			q->st->stored++;
		else if (d->fate == BCN_REDISQ_DUPLICATE)
			q->st->duplicate++;
		else
			q->st->failed++;
		p->prev->next = p->next;
		p->next->prev = p->prev;
		q->st->pending_frames--;
		q->st->pending_bytes -= p->len;
	}
	q->done(q->done_arg, q->report, n);
	for (size_t i = 0; i < n; i++) {
		free(ps[i]->seen_key);
		free(ps[i]->frame);
		free(ps[i]);
	}
}

/* Reports up to BATCH_FRAMES frames from the head of the list as FAILED:
 * all of them (all), or those not in flight and submitted give_up_ms ago
 * or earlier. Returns how many. */
static size_t fail_oldest(struct bcn_redisq *q, bool all)
{
	struct pending *ps[BATCH_FRAMES];
	int64_t now = bcn_mono_ms();
	size_t n = 0;

	for (struct pending *p = q->pending.next; p != &q->pending && n < BATCH_FRAMES;
	     p = p->next) {
		if (!all && (p->sent || now - p->submitted_ms < q->cfg.give_up_ms))
			break;
		q->report[n].fate = BCN_REDISQ_FAILED;
		ps[n++] = p;
	}
	if (n) {
		if (!all)
			bcn_complain(&q->complaint, BCN_LOG_ERR,
				     "Redis %s:%" PRIu64 ": giving up %zu frames "
				     "unconfirmed for %" PRId64 " ms", q->cfg.host,
				     q->cfg.port, n, q->cfg.give_up_ms);
		report(q, ps, n);
	}
	return n;
}

/* --- connection life cycle --- */

static void schedule_retry(struct bcn_redisq *q)
{
	q->backoff_ms = q->backoff_ms ? q->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (q->backoff_ms > q->cfg.backoff_max_ms)
		q->backoff_ms = q->cfg.backoff_max_ms;
	q->retry_ms = bcn_mono_ms() + q->backoff_ms;
}

/* Forgets that commands were in flight: everything unconfirmed is resent
 * on the next connection. */
static void mark_all_unsent(struct bcn_redisq *q)
{
	for (struct pending *p = q->pending.next; p != &q->pending; p = p->next)
		p->sent = false;
	q->unsent = true;
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
	struct bcn_redisq *q = ac->data;

	if (status != REDIS_OK)
		bcn_complain(&q->complaint, BCN_LOG_ERR,
			     "Redis %s:%" PRIu64 " connection lost: %s (%" PRIu64
			     " frames wait, collectors are not acknowledged)",
			     q->cfg.host, q->cfg.port,
			     ac->errstr[0] ? ac->errstr : "closed",
			     (uint64_t)q->st->pending_frames);
	q->rc = NULL;
	q->ready = false;
	q->failed = false;
	q->registered = false;
	mark_all_unsent(q);
	schedule_retry(q);
}

/* Drops the connection after a Redis error reply; everything unconfirmed
 * is resent after the reconnect. */
static void redis_fail(struct bcn_redisq *q, const char *what, const redisReply *r)
{
	q->st->errors++;
	bcn_complain(&q->complaint, BCN_LOG_ERR, "Redis: %s: %s", what,
		     r && r->type == REDIS_REPLY_ERROR ? r->str :
		     q->rc && q->rc->errstr[0] ? q->rc->errstr : "no reply");
	q->ready = false;
	if (q->rc && !q->failed) {
		q->failed = true;
		redisAsyncDisconnect(q->rc);
	}
}

static void on_script(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_redisq *q = ac->data;
	redisReply *r = reply;

	(void)priv;
	if (q->failed)
		return;
	if (!r || r->type != REDIS_REPLY_STRING || r->len >= sizeof(q->script_sha)) {
		redis_fail(q, "SCRIPT LOAD", r);
		return;
	}
	memcpy(q->script_sha, r->str, r->len);
	q->script_sha[r->len] = '\0';
	q->ready = true;
	q->unsent = true;
	q->backoff_ms = 0;
	bcn_complain_release(&q->complaint, BCN_LOG_NOTICE,
			     "Redis %s:%" PRIu64 " is back", q->cfg.host, q->cfg.port);
	bcn_redisq_flush(q);
}

/* The value of a CONFIG GET reply, or NULL when the reply is not one
 * (no reply: the connection failed or timed out; an error reply). */
static const char *config_value(const redisReply *r)
{
	if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
	    r->element[1]->type != REDIS_REPLY_STRING)
		return NULL;
	return r->element[1]->str;
}

static void on_check(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_redisq *q = ac->data;
	const char *what = priv, *v = config_value(reply);
	const char *want = !strcmp(what, "appendonly") ? "yes" : "always";

	if (q->failed)
		return;
	if (!v) {       /* a connection problem, not a wrong setting */
		redis_fail(q, "CONFIG GET", reply);
		return;
	}
	if (strcmp(v, want) == 0 || !q->cfg.require_fsync)
		return;
	BCN_ERR("Redis %s is '%s', not '%s': acknowledged frames would not "
		"survive a crash of Redis; refusing to store (set "
		"redis_require_fsync = no to accept that)", what, v, want);
	redis_fail(q, "durability check", NULL);
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
	struct bcn_redisq *q = ac->data;
	redisAsyncContext *c = (redisAsyncContext *)ac;

	if (status != REDIS_OK) {
		bcn_complain(&q->complaint, BCN_LOG_ERR,
			     "cannot connect to Redis %s:%" PRIu64 ": %s",
			     q->cfg.host, q->cfg.port, ac->errstr);
		q->rc = NULL;
		q->registered = false;
		schedule_retry(q);
		return;
	}
	q->st->reconnects++;
	if (q->password[0])
		redisAsyncCommand(c, on_auth, NULL, "AUTH %s", q->password);
	redisAsyncCommand(c, on_check, "appendonly", "CONFIG GET appendonly");
	redisAsyncCommand(c, on_check, "appendfsync", "CONFIG GET appendfsync");
	redisAsyncCommand(c, on_script, NULL, "SCRIPT LOAD %s", bcn_redisq_enqueue_lua);
}

static void redis_connect(struct bcn_redisq *q)
{
	redisAsyncContext *ac = redisAsyncConnect(q->cfg.host, (int)q->cfg.port);

	if (!ac || ac->err) {
		bcn_complain(&q->complaint, BCN_LOG_ERR,
			     "cannot connect to Redis %s:%" PRIu64 ": %s",
			     q->cfg.host, q->cfg.port, ac ? ac->errstr : "out of memory");
		if (ac)
			redisAsyncFree(ac);
		schedule_retry(q);
		return;
	}
	q->rc = ac;
	q->failed = false;
	q->connect_started = bcn_mono_ms();
	ac->data = q;
	ac->ev.data = q;
	ac->ev.addRead = ev_add_read;
	ac->ev.delRead = ev_del_read;
	ac->ev.addWrite = ev_add_write;
	ac->ev.delWrite = ev_del_write;
	ac->ev.cleanup = ev_cleanup;
	redisAsyncSetConnectCallback(ac, on_connect);
	redisAsyncSetDisconnectCallback(ac, on_disconnect);
	/* hiredis waits for writability to finish the connect */
	ev_add_write(q);
}

/* The oldest command in flight, or NULL. */
static struct pending *oldest_sent(struct bcn_redisq *q)
{
	for (struct pending *p = q->pending.next; p != &q->pending; p = p->next)
		if (p->sent)
			return p;
	return NULL;
}

/* Drops a connection that does not answer (hung or unreachable Redis);
 * freeing runs the pending callbacks, which keep their frames. */
static void redis_abandon(struct bcn_redisq *q, const char *why)
{
	redisAsyncContext *ac = q->rc;

	BCN_WARN("Redis %s:%" PRIu64 " %s; reconnecting", q->cfg.host,
		 q->cfg.port, why);
	q->st->errors++;
	redisAsyncFree(ac);
	if (q->rc == ac) {      /* never connected: no disconnect callback */
		q->rc = NULL;
		q->ready = false;
		q->registered = false;
		mark_all_unsent(q);
		schedule_retry(q);
	}
}

void bcn_redisq_tick(struct bcn_redisq *q)
{
	int64_t now = bcn_mono_ms();
	struct pending *p;

	if (q->cfg.give_up_ms > 0)
		while (fail_oldest(q, false) == BATCH_FRAMES)
			;
	if (!q->rc) {
		if (now >= q->retry_ms)
			redis_connect(q);
		return;
	}
	if (!q->ready && now - q->connect_started > CONNECT_TIMEOUT_MS) {
		redis_abandon(q, "does not answer");
		return;
	}
	p = oldest_sent(q);
	if (p && now - p->sent_ms > q->cfg.timeout_ms)
		redis_abandon(q, "did not confirm a write in time");
}

/* --- the queue --- */

static void on_enqueued(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_redisq *q = ac->data;
	struct batch *b = priv;
	redisReply *r = reply;
	bool ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == b->n;

	for (size_t i = 0; ok && i < b->n; i++)
		ok = r->element[i]->type == REDIS_REPLY_INTEGER;
	if (!ok) {
		/* a disconnect calls this with r == NULL; the frames stay
		 * pending and are sent again after the reconnect */
		if (r)
			redis_fail(q, "enqueue", r);
		for (size_t i = 0; i < b->n; i++)
			b->items[i]->sent = false;
		q->unsent = true;
	} else {
		for (size_t i = 0; i < b->n; i++)
			q->report[i].fate = r->element[i]->integer == 1 ?
					    BCN_REDISQ_STORED : BCN_REDISQ_DUPLICATE;
		report(q, b->items, b->n);
	}
	free(b);
}

/* Sends one script call with the frames of b. Returns 0 or -EIO. */
static int send_batch(struct bcn_redisq *q, struct batch *b)
{
	const char **argv = q->argv;
	size_t *argl = q->argl, k = 0, n = b->n;
	char nkeys[24], window[24], ttl[24];
	int64_t now = bcn_mono_ms();

	snprintf(nkeys, sizeof(nkeys), "%zu", n + 1);
	snprintf(window, sizeof(window), "%" PRIu64, q->cfg.dedup_window);
	snprintf(ttl, sizeof(ttl), "%" PRId64, q->cfg.dedup_ttl_ms);
	argv[k] = "EVALSHA"; argl[k++] = 7;
	argv[k] = q->script_sha; argl[k++] = strlen(q->script_sha);
	argv[k] = nkeys; argl[k++] = strlen(nkeys);
	argv[k] = q->queue_key; argl[k++] = strlen(q->queue_key);
	for (size_t j = 0; j < n; j++) {
		argv[k] = b->items[j]->seen_key;
		argl[k++] = strlen(b->items[j]->seen_key);
	}
	argv[k] = window; argl[k++] = strlen(window);
	argv[k] = ttl; argl[k++] = strlen(ttl);
	for (size_t j = 0; j < n; j++) {
		snprintf(q->seqs[j], sizeof(q->seqs[j]), "%" PRIu64, b->items[j]->seq);
		argv[k] = q->seqs[j]; argl[k++] = strlen(q->seqs[j]);
		argv[k] = (const char *)b->items[j]->frame; argl[k++] = b->items[j]->len;
	}
	if (redisAsyncCommandArgv(q->rc, on_enqueued, b, (int)k, argv, argl) != REDIS_OK)
		return -EIO;
	for (size_t j = 0; j < n; j++) {
		b->items[j]->sent = true;
		b->items[j]->sent_ms = now;
	}
	return 0;
}

void bcn_redisq_flush(struct bcn_redisq *q)
{
	struct pending *p = q->pending.next;

	while (q->ready && q->unsent) {
		struct batch *b = malloc(sizeof(*b));
		size_t bytes = 0;

		if (!b)
			return;         /* retried at the next turn */
		b->n = 0;
		for (; p != &q->pending && b->n < BATCH_FRAMES && bytes < BATCH_BYTES;
		     p = p->next) {
			if (p->sent)
				continue;
			b->items[b->n++] = p;
			bytes += p->len;
		}
		if (b->n == 0 || send_batch(q, b)) {
			q->unsent = b->n != 0;
			free(b);
			return;
		}
		q->unsent = p != &q->pending;
	}
}

static void on_side_reply(redisAsyncContext *ac, void *reply, void *priv)
{
	struct bcn_redisq *q = ac->data;
	redisReply *r = reply;

	if (r && r->type == REDIS_REPLY_ERROR) {
		q->st->errors++;
		BCN_WARN("Redis: %s: %s", (const char *)priv, r->str);
	}
}

void bcn_redisq_command(struct bcn_redisq *q, int argc, const char **argv,
			const char *what)
{
	if (!q->rc || !q->ready)
		return;
	if (redisAsyncCommandArgv(q->rc, on_side_reply, (void *)what, argc, argv,
				  NULL) != REDIS_OK)
		BCN_WARN("Redis: cannot send the %s", what);
}

int bcn_redisq_submit(struct bcn_redisq *q, const char *node, uint64_t seq,
		      const uint8_t *frame, size_t len, int slot, uint64_t cookie)
{
	struct pending *p;
	size_t kl;

	if (!node[0])
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	kl = q->node_off + strlen(node) + 1;
	p->frame = malloc(len ? len : 1);
	p->seen_key = malloc(kl);
	if (!p->frame || !p->seen_key) {
		free(p->frame);
		free(p->seen_key);
		free(p);
		return -ENOMEM;
	}
	memcpy(p->frame, frame, len);
	snprintf(p->seen_key, kl, BCN_REDISQ_SEEN_KEY, q->cfg.prefix, node);
	p->len = len;
	p->seq = seq;
	p->slot = slot;
	p->cookie = cookie;
	p->submitted_ms = bcn_mono_ms();
	p->prev = q->pending.prev;
	p->next = &q->pending;
	q->pending.prev->next = p;
	q->pending.prev = p;
	q->st->pending_frames++;
	q->st->pending_bytes += len;
	q->unsent = true;       /* sent by bcn_redisq_flush at the end of the turn */
	return 0;
}

static int check_config(const struct bcn_redisq_config *c)
{
	if (!c->host[0] || c->port < 1 || c->port > 65535 || !c->prefix[0] ||
	    c->dedup_window < 1 || c->dedup_window > BCN_REDISQ_DEDUP_WINDOW_MAX ||
	    c->dedup_ttl_ms < 1 || c->backoff_max_ms < 1 || c->timeout_ms < 1 ||
	    c->give_up_ms < 0)
		return -EINVAL;
	return 0;
}

/* Reads the password file (trailing newlines dropped) into q->password. */
static int read_password(struct bcn_redisq *q)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, sizeof(q->password) - 1);
	rc = bcn_buf_read_file(&b, q->cfg.password_file);
	if (rc) {
		BCN_ERR("redis_password_file %s: %s", q->cfg.password_file,
			bcn_strerror(rc));
		goto out;
	}
	while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r'))
		b.len--;
	memcpy(q->password, b.data, b.len);
	q->password[b.len] = '\0';
out:
	bcn_buf_free(&b);
	return rc;
}

int bcn_redisq_create(const struct bcn_redisq_config *cfg, int ep, void *ep_tag,
		      bcn_redisq_done_fn done, void *done_arg,
		      struct bcn_redisq_stats *stats, struct bcn_redisq **out)
{
	struct bcn_redisq *q;
	int rc;

	*out = NULL;
	rc = check_config(cfg);
	if (rc || !done || !stats || ep < 0)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->cfg = *cfg;
	q->st = stats;
	q->done = done;
	q->done_arg = done_arg;
	q->ep = ep;
	q->ep_tag = ep_tag;
	q->pending.next = q->pending.prev = &q->pending;
	q->node_off = strlen(q->cfg.prefix) + strlen(":seen:");
	snprintf(q->queue_key, sizeof(q->queue_key), BCN_REDISQ_QUEUE_KEY,
		 q->cfg.prefix);
	if (q->cfg.password_file[0]) {
		rc = read_password(q);
		if (rc) {
			free(q);
			return rc;
		}
	}
	redis_connect(q);
	*out = q;
	return 0;
}

void bcn_redisq_destroy(struct bcn_redisq *q)
{
	if (!q)
		return;
	if (q->rc) {
		/* pending callbacks run with NULL replies and keep the frames */
		redisAsyncFree(q->rc);
		q->rc = NULL;
	}
	while (fail_oldest(q, true))
		;
	free(q);
}
