/* Unit tests of logsrv/redisq on its own, against a private redis-server
 * started by the test on a free loopback port in a temporary directory
 * (skipped when redis-server is not installed): stored and duplicate
 * fates with the owner's slot and cookie, order over several script
 * calls, the dedup state (a table of cases: in order, out of order,
 * duplicates, below the window, restart jumps; random frames against a
 * reference model; expiry and its refresh; conversion of the previous
 * version's zsets and of other windows; the memory of 47,522 senders'
 * states, printed as JSON), Redis killed (failure callbacks when frames
 * are given up; resent and stored after a restart when they are kept;
 * acknowledged frames survive the restart), a hung Redis, the durability
 * check, AUTH, side commands, and FAILED fates at destroy. Waiting is
 * bounded (WAIT_MS) only so that a hang fails instead of blocking. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/clock.h"
#include "common/log.h"
#include "logsrv/redisq.h"

#define WAIT_MS 20000                   /* bound of every wait */
#define DONE_MAX 2048                   /* fates a test records */

struct fate {
	char node[32];
	uint64_t seq;
	enum bcn_redisq_fate fate;
	int slot;
	uint64_t cookie;
};

struct fixture {
	char dir[64];
	int port;
	int port_lock;                  /* held while the test owns port */
	pid_t redis;                    /* 0: not running */
	int ep;
	int tag;                        /* the queue's epoll tag */
	struct bcn_redisq_config cfg;
	struct bcn_redisq_stats st;
	struct bcn_redisq *q;
	struct fate done[DONE_MAX];
	size_t ndone, ncalls;
	bool count_only;                /* count fates, do not record them */
	size_t nstored, nduplicate;     /* with count_only */
};

static bool have_redis_server(void)
{
	return system("command -v redis-server >/dev/null 2>&1") == 0;
}

#define PORT_TRIES 500

/* Whether a TCP socket can bind 127.0.0.1:port now. */
static bool port_bindable(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* Reserves a TCP port of 127.0.0.1 for the whole test as
 * tests/lib/servers.sh's bcn_alloc_port does (an exclusive lock on
 * $TMPDIR/beacon-test-ports/PORT that every test honours, a port of
 * 20000-31999 below the kernel's ephemeral range that nothing listens
 * on), so that no other test takes it between this check and Redis's
 * bind. Sets fx->port and keeps the lock in fx->port_lock. */
static void reserve_port(struct fixture *fx)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[300];
	int i;

	snprintf(dir, sizeof(dir), "%s/beacon-test-ports", tmp && *tmp ? tmp : "/tmp");
	if (mkdir(dir, 0777) != 0)
		assert_int_equal(errno, EEXIST);
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	for (i = 0; i < PORT_TRIES; i++) {
		int port = 20000 + rand() % 12000;
		int fd;

		snprintf(path, sizeof(path), "%s/%d", dir, port);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && port_bindable(port)) {
			fx->port = port;
			fx->port_lock = fd;
			return;
		}
		close(fd);
	}
	fail_msg("no free port to reserve in %s", dir);
}

/* A synchronous client of the private Redis, or NULL when it does not
 * answer PING (yet). */
static redisContext *client(struct fixture *fx, const char *password)
{
	struct timeval tv = { 1, 0 };
	redisContext *c = redisConnectWithTimeout("127.0.0.1", fx->port, tv);
	redisReply *r = NULL;

	if (c && !c->err && password)
		freeReplyObject(redisCommand(c, "AUTH %s", password));
	if (c && !c->err)
		r = redisCommand(c, "PING");
	if (!r || r->type != REDIS_REPLY_STATUS) {
		freeReplyObject(r);
		if (c)
			redisFree(c);
		return NULL;
	}
	freeReplyObject(r);
	return c;
}

/* Starts redis-server with appendonly yes, appendfsync fsync (NULL:
 * appendonly no), and a password when given, in fx->dir on fx->port, and waits until it
 * answers. */
static void redis_start(struct fixture *fx, const char *fsync, const char *password)
{
	char port[16], log[96];
	redisContext *c = NULL;
	pid_t pid;

	snprintf(port, sizeof(port), "%d", fx->port);
	snprintf(log, sizeof(log), "%s/redis.log", fx->dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		char *argv[] = { "redis-server", "--port", port, "--bind",
				 "127.0.0.1", "--dir", fx->dir, "--appendonly",
				 fsync ? "yes" : "no", "--appendfsync",
				 fsync ? (char *)fsync : "always", "--save", "",
				 "--daemonize", "no", "--logfile", log,
				 password ? "--requirepass" : NULL, (char *)password,
				 NULL };

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp("redis-server", argv);
		_exit(127);
	}
	fx->redis = pid;
	for (int64_t end = bcn_mono_ms() + WAIT_MS; !c && bcn_mono_ms() < end;) {
		struct timespec ts = { 0, 20 * 1000000 };

		c = client(fx, password);
		if (!c)
			nanosleep(&ts, NULL);
	}
	assert_non_null(c);
	redisFree(c);
}

static void redis_kill(struct fixture *fx)
{
	if (!fx->redis)
		return;
	kill(fx->redis, SIGKILL);
	waitpid(fx->redis, NULL, 0);
	fx->redis = 0;
}

/* With count_only: counts the fate d. */
static void count_fate(struct fixture *fx, const struct bcn_redisq_done *d)
{
	fx->ndone++;
	fx->nstored += d->fate == BCN_REDISQ_STORED;
	fx->nduplicate += d->fate == BCN_REDISQ_DUPLICATE;
	assert_int_not_equal(d->fate, BCN_REDISQ_FAILED);
}

static void on_done(void *arg, const struct bcn_redisq_done *d, size_t n)
{
	struct fixture *fx = arg;

	assert_true(n >= 1);
	fx->ncalls++;
	for (size_t i = 0; i < n; i++) {
		struct fate *f;

		if (fx->count_only) {
			count_fate(fx, &d[i]);
			continue;
		}
		f = &fx->done[fx->ndone++];

		assert_true(fx->ndone <= DONE_MAX);
		snprintf(f->node, sizeof(f->node), "%s", d[i].node);
		f->seq = d[i].seq;
		f->fate = d[i].fate;
		f->slot = d[i].slot;
		f->cookie = d[i].cookie;
	}
}

static void queue_open(struct fixture *fx)
{
	assert_int_equal(bcn_redisq_create(&fx->cfg, fx->ep, &fx->tag, on_done, fx,
					   &fx->st, &fx->q), 0);
}

/* One turn of the owner's event loop. */
static void turn(struct fixture *fx)
{
	struct epoll_event evs[8];
	int n = epoll_wait(fx->ep, evs, 8, 20);

	for (int i = 0; i < n; i++) {
		assert_ptr_equal(evs[i].data.ptr, &fx->tag);
		bcn_redisq_event(fx->q, evs[i].events);
	}
	bcn_redisq_tick(fx->q);
	bcn_redisq_flush(fx->q);
}

/* Runs the loop until ndone >= want. Returns whether it got there. */
static bool wait_done(struct fixture *fx, size_t want)
{
	for (int64_t end = bcn_mono_ms() + WAIT_MS; bcn_mono_ms() < end;) {
		if (fx->ndone >= want)
			return true;
		turn(fx);
	}
	return fx->ndone >= want;
}

static bool wait_ready(struct fixture *fx)
{
	for (int64_t end = bcn_mono_ms() + WAIT_MS; bcn_mono_ms() < end;) {
		if (bcn_redisq_ready(fx->q))
			return true;
		turn(fx);
	}
	return false;
}

static bool wait_errors(struct fixture *fx, uint64_t want)
{
	for (int64_t end = bcn_mono_ms() + WAIT_MS; bcn_mono_ms() < end;) {
		if (fx->st.errors >= want)
			return true;
		turn(fx);
	}
	return false;
}

/* Runs the loop for about ms milliseconds (to let failures happen). */
static void run_for(struct fixture *fx, int64_t ms)
{
	for (int64_t end = bcn_mono_ms() + ms; bcn_mono_ms() < end;)
		turn(fx);
}

static void submit(struct fixture *fx, const char *node, uint64_t seq,
		   const char *frame, int slot, uint64_t cookie)
{
	assert_int_equal(bcn_redisq_submit(fx->q, node, seq, (const uint8_t *)frame,
					   strlen(frame), slot, cookie), 0);
}

static long long llen(redisContext *c, const char *key)
{
	redisReply *r = redisCommand(c, "LLEN %s", key);
	long long n;

	assert_non_null(r);
	assert_int_equal(r->type, REDIS_REPLY_INTEGER);
	n = r->integer;
	freeReplyObject(r);
	return n;
}

/* The integer reply of a command (printf format). */
static long long integer(redisContext *c, const char *fmt, ...)
{
	redisReply *r;
	long long n;
	va_list ap;

	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	assert_non_null(r);
	assert_int_equal(r->type, REDIS_REPLY_INTEGER);
	n = r->integer;
	freeReplyObject(r);
	return n;
}

/* Asserts that element i of the list key is want (len bytes). */
static void assert_elem(redisContext *c, const char *key, long i,
			const void *want, size_t len)
{
	redisReply *r = redisCommand(c, "LINDEX %s %ld", key, i);

	assert_non_null(r);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_int_equal(r->len, len);
	assert_memory_equal(r->str, want, len);
	freeReplyObject(r);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	bcn_log_set_level(BCN_LOG_ERR);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/bcn_redisq_test.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	reserve_port(fx);
	fx->ep = epoll_create1(EPOLL_CLOEXEC);
	assert_true(fx->ep >= 0);
	snprintf(fx->cfg.host, sizeof(fx->cfg.host), "127.0.0.1");
	fx->cfg.port = (uint64_t)fx->port;
	snprintf(fx->cfg.prefix, sizeof(fx->cfg.prefix), "t");
	fx->cfg.require_fsync = true;
	fx->cfg.dedup_window = 4096;
	fx->cfg.dedup_ttl_ms = 7 * 86400000ll;
	fx->cfg.backoff_max_ms = 200;
	fx->cfg.timeout_ms = 10000;
	*state = fx;
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	bcn_redisq_destroy(fx->q);
	redis_kill(fx);
	close(fx->ep);
	close(fx->port_lock);
	nftw(fx->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return 0;
}

/* Starts Redis (durable) and the queue, connected. */
static struct fixture *started(void **state)
{
	struct fixture *fx = *state;

	if (!have_redis_server())
		skip();
	redis_start(fx, "always", NULL);
	queue_open(fx);
	assert_true(wait_ready(fx));
	return fx;
}

static void test_config_refused(void **state)
{
	struct fixture *fx = *state;
	struct bcn_redisq_config bad = fx->cfg;
	struct bcn_redisq *q = (struct bcn_redisq *)1;

	bad.prefix[0] = '\0';
	assert_int_equal(bcn_redisq_create(&bad, fx->ep, NULL, on_done, fx, &fx->st, &q),
			 -EINVAL);
	assert_null(q);
	bad = fx->cfg;
	bad.dedup_window = 0;
	assert_int_equal(bcn_redisq_create(&bad, fx->ep, NULL, on_done, fx, &fx->st, &q),
			 -EINVAL);
	bad = fx->cfg;
	bad.dedup_window = BCN_REDISQ_DEDUP_WINDOW_MAX + 1;
	assert_int_equal(bcn_redisq_create(&bad, fx->ep, NULL, on_done, fx, &fx->st, &q),
			 -EINVAL);
	bad = fx->cfg;
	bad.dedup_ttl_ms = 0;
	assert_int_equal(bcn_redisq_create(&bad, fx->ep, NULL, on_done, fx, &fx->st, &q),
			 -EINVAL);
	bad = fx->cfg;
	snprintf(bad.password_file, sizeof(bad.password_file), "%s/none", fx->dir);
	assert_int_equal(bcn_redisq_create(&bad, fx->ep, NULL, on_done, fx, &fx->st, &q),
			 -ENOENT);
	assert_null(q);
	assert_int_equal(bcn_redisq_create(&fx->cfg, fx->ep, NULL, NULL, fx, &fx->st, &q),
			 -EINVAL);
}

static void test_stored(void **state)
{
	struct fixture *fx = started(state);
	redisContext *c;
	redisReply *r;

	submit(fx, "cn001", 7, "frame-7", 12, 34);
	assert_int_equal(bcn_redisq_submit(fx->q, "", 8, (const uint8_t *)"x", 1, 0, 0),
			 -EINVAL);
	assert_int_equal(fx->st.pending_frames, 1);
	assert_int_equal(fx->st.pending_bytes, 7);
	assert_int_equal(fx->ndone, 0);         /* never from inside submit */
	assert_true(wait_done(fx, 1));
	assert_string_equal(fx->done[0].node, "cn001");
	assert_int_equal(fx->done[0].seq, 7);
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_STORED);
	assert_int_equal(fx->done[0].slot, 12);
	assert_int_equal(fx->done[0].cookie, 34);
	assert_int_equal(fx->st.stored, 1);
	assert_int_equal(fx->st.pending_frames, 0);
	assert_int_equal(fx->st.pending_bytes, 0);
	assert_int_equal(fx->st.reconnects, 1);
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 1);
	assert_elem(c, "t:queue", 0, "frame-7", 7);
	r = redisCommand(c, "GETRANGE t:seen:cn001 0 23");
	assert_non_null(r);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_string_equal(r->str, "000000000000000700004096");   /* H, W */
	freeReplyObject(r);
	assert_int_equal(integer(c, "STRLEN t:seen:cn001"),
			 BCN_REDISQ_SEEN_HDR + 4096 / 8);
	assert_int_equal(integer(c, "GETBIT t:seen:cn001 %d",
				 BCN_REDISQ_SEEN_HDR * 8 + 7), 1);
	assert_int_equal(integer(c, "GETBIT t:seen:cn001 %d",
				 BCN_REDISQ_SEEN_HDR * 8 + 6), 0);
	redisFree(c);
}

static void test_duplicate(void **state)
{
	struct fixture *fx = started(state);
	redisContext *c;

	submit(fx, "cn001", 1, "first", 3, 1);
	assert_true(wait_done(fx, 1));
	submit(fx, "cn001", 1, "again", 3, 2);
	assert_true(wait_done(fx, 2));
	assert_int_equal(fx->done[1].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[1].seq, 1);
	assert_int_equal(fx->done[1].cookie, 2);
	/* twice in one script call; the same seq of another node is new */
	submit(fx, "cn001", 2, "two", 3, 3);
	submit(fx, "cn001", 2, "two again", 3, 4);
	submit(fx, "cn002", 1, "other node", 3, 5);
	assert_true(wait_done(fx, 5));
	assert_int_equal(fx->done[2].fate, BCN_REDISQ_STORED);
	assert_int_equal(fx->done[3].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[4].fate, BCN_REDISQ_STORED);
	assert_string_equal(fx->done[4].node, "cn002");
	assert_int_equal(fx->st.stored, 3);
	assert_int_equal(fx->st.duplicate, 2);
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 3);
	assert_elem(c, "t:queue", 0, "first", 5);
	assert_elem(c, "t:queue", 1, "two", 3);
	assert_elem(c, "t:queue", 2, "other node", 10);
	redisFree(c);
}

/* More frames than one script call takes, from three nodes, binary. */
static void test_order(void **state)
{
	struct fixture *fx = started(state);
	const size_t n = 3 * BCN_REDISQ_BATCH_FRAMES + 17;
	static const char *nodes[] = { "cn1", "cn2", "cn3" };
	redisContext *c;

	for (size_t i = 0; i < n; i++) {
		uint8_t frame[16] = { 0, (uint8_t)i, (uint8_t)(i >> 8), 0xff };

		assert_int_equal(bcn_redisq_submit(fx->q, nodes[i % 3], i / 3 + 1,
						   frame, sizeof(frame), (int)i, i), 0);
	}
	assert_true(wait_done(fx, n));
	assert_true(fx->ncalls >= 4);           /* several script calls */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(fx->done[i].cookie, i);
		assert_int_equal(fx->done[i].slot, (int)i);
		assert_string_equal(fx->done[i].node, nodes[i % 3]);
		assert_int_equal(fx->done[i].seq, i / 3 + 1);
		assert_int_equal(fx->done[i].fate, BCN_REDISQ_STORED);
	}
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), (long long)n);
	for (size_t i = 0; i < n; i += 97) {
		uint8_t frame[16] = { 0, (uint8_t)i, (uint8_t)(i >> 8), 0xff };

		assert_elem(c, "t:queue", (long)i, frame, sizeof(frame));
	}
	redisFree(c);
}

/* The dedup_window numbers up to the highest of a node are remembered,
 * in a state of fixed size. */
static void test_dedup_window(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;

	fx->cfg.dedup_window = 16;
	fx = started(state);
	for (uint64_t s = 1; s <= 40; s++)
		submit(fx, "cn9", s, "f", 0, s);
	assert_true(wait_done(fx, 40));
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(integer(c, "STRLEN t:seen:cn9"), BCN_REDISQ_SEEN_HDR + 2);
	submit(fx, "cn9", 40, "f", 0, 41);      /* remembered */
	submit(fx, "cn9", 25, "f", 0, 42);      /* the oldest remembered */
	submit(fx, "cn9", 24, "f", 0, 43);      /* below: stored again */
	assert_true(wait_done(fx, 43));
	assert_int_equal(fx->done[40].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[41].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[42].fate, BCN_REDISQ_STORED);
	assert_int_equal(llen(c, "t:queue"), 41);
	redisFree(c);
}

/* One frame of a table-driven dedup case: submitted with the rows before
 * it up to one with end set, in one turn (one script call). */
struct dedup_row {
	const char *node;
	uint64_t seq;
	enum bcn_redisq_fate want;
	bool end;
};

#define S BCN_REDISQ_STORED
#define D BCN_REDISQ_DUPLICATE
#define B 1700000000000008ull           /* a clock-based first number */
#define R(n, s, w) { n, s, w, false }   /* a row */
#define E(n, s, w) { n, s, w, true }    /* the last row of a call */

static const struct dedup_row dedup_rows[] = {
	/* in order */
	R("a", 1, S), R("a", 2, S), R("a", 3, S), R("a", 4, S), E("a", 5, S),
	/* duplicates inside the window, later and in the same call */
	R("a", 3, D), R("a", 5, D), R("a", 6, S), E("a", 6, D),
	/* out of order within the window */
	R("a", 9, S), R("a", 8, S), R("a", 7, S), E("a", 8, D),
	/* a gap, then filled; numbers kept across the advance */
	R("a", 20, S), R("a", 10, S), R("a", 10, D), R("a", 5, D),
	E("a", 9, D),
	/* below the window (<= 20 - 16): cannot tell, stored each time */
	R("a", 4, S), E("a", 4, S),
	/* another node is independent */
	R("b", 20, S), R("b", 5, S), E("b", 20, D),
	/* a restarted sender: a new clock-based first number resets */
	R("a", B, S), R("a", 20, S), R("a", B - 1, S), E("a", B, D),
	/* a jump of W - 1: the numbers passed over are cleared, wrapping
	 * around the ring; B stays remembered, B - 1 is below now */
	R("a", B + 15, S), R("a", B + 1, S), R("a", B + 14, S),
	R("a", B, D), R("a", B + 14, D), E("a", B - 1, S),
	/* a jump of exactly W starts over */
	R("a", B + 31, S), R("a", B + 31, D), R("a", B + 16, S),
	E("a", B + 15, S),
	/* beyond 2^53 (outside the protocol): stored, not remembered */
	R("a", (1ull << 53) + 1, S), E("a", (1ull << 53) + 1, S),
	E("a", B + 31, D),
};

#undef S
#undef D
#undef B
#undef R
#undef E

static void test_dedup_table(void **state)
{
	struct fixture *fx = *state;
	const size_t n = sizeof(dedup_rows) / sizeof(dedup_rows[0]);
	size_t from = 0;
	redisContext *c;

	fx->cfg.dedup_window = 16;
	fx = started(state);
	for (size_t i = 0; i < n; i++) {
		submit(fx, dedup_rows[i].node, dedup_rows[i].seq, "f", 0, i);
		if (!dedup_rows[i].end)
			continue;
		assert_true(wait_done(fx, i + 1));
		for (size_t j = from; j <= i; j++) {
			if (fx->done[j].fate != dedup_rows[j].want)
				fail_msg("row %zu: %s %" PRIu64 ": fate %d, not %d", j,
					 dedup_rows[j].node, dedup_rows[j].seq,
					 fx->done[j].fate, dedup_rows[j].want);
			assert_int_equal(fx->done[j].cookie, j);
		}
		from = i + 1;
	}
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), (long long)fx->st.stored);
	assert_int_equal(integer(c, "STRLEN t:seen:a"), BCN_REDISQ_SEEN_HDR + 2);
	assert_int_equal(integer(c, "DBSIZE"), 3);
	redisFree(c);
}

/* Reference of the rules: a number is a duplicate when it was stored and
 * lies within w of the highest number stored. */
struct dedup_model {
	bool any;
	uint64_t h, w;
	uint8_t *stored;                /* by number, below MODEL_MAX */
};

#define MODEL_MAX (1u << 21)

static enum bcn_redisq_fate model_add(struct dedup_model *m, uint64_t s)
{
	assert_true(s < MODEL_MAX);
	if (m->any && s <= m->h && s + m->w > m->h && m->stored[s])
		return BCN_REDISQ_DUPLICATE;
	if (!m->any || s > m->h)
		m->h = s;
	m->any = true;
	m->stored[s] = 1;
	return BCN_REDISQ_STORED;
}

/* The next number of a sender's random walk around its highest h: mostly
 * in order, some resends and gaps near the window's edges, a few
 * restarts far above. */
static uint64_t walk(uint64_t h, uint64_t w)
{
	int r = rand() % 100;
	uint64_t d = (uint64_t)rand() % (w + 9);

	if (r < 55)
		return h + 1;
	if (r < 75)
		d %= 16;
	if (r < 85)
		return h > d ? h - d : 1;
	if (r < 97)
		return h + 1 + d;
	return h + w + (uint64_t)rand() % (2 * w);
}

/* Random frames of three nodes in random batches against the reference,
 * with a window of 64 (ring clearing by bits and whole bytes, wrapping). */
static void test_dedup_model(void **state)
{
	struct fixture *fx = *state;
	struct dedup_model m[3] = { { .w = 64 }, { .w = 64 }, { .w = 64 } };
	static const char *nodes[] = { "m0", "m1", "m2" };
	enum bcn_redisq_fate want[64];
	size_t total = 0;

	fx->cfg.dedup_window = 64;
	fx = started(state);
	srand(20240611);
	for (int i = 0; i < 3; i++) {
		m[i].stored = calloc(MODEL_MAX, 1);
		assert_non_null(m[i].stored);
		m[i].h = 1000;
	}
	while (total + 64 <= DONE_MAX) {
		size_t n = 1 + (size_t)rand() % 64;

		for (size_t j = 0; j < n; j++) {
			int k = rand() % 3;
			uint64_t s = walk(m[k].h, 64);

			want[j] = model_add(&m[k], s);
			submit(fx, nodes[k], s, "f", k, total + j);
		}
		assert_true(wait_done(fx, total + n));
		for (size_t j = 0; j < n; j++)
			if (fx->done[total + j].fate != want[j])
				fail_msg("frame %zu: %s %" PRIu64 ": fate %d, not %d",
					 total + j, fx->done[total + j].node,
					 fx->done[total + j].seq,
					 fx->done[total + j].fate, want[j]);
		total += n;
	}
	print_message("model: %zu frames, %" PRIu64 " stored, %" PRIu64 " duplicate\n",
		      total, (uint64_t)fx->st.stored, (uint64_t)fx->st.duplicate);
	assert_true(fx->st.duplicate > 100 && fx->st.stored > 1000);
	for (int i = 0; i < 3; i++)
		free(m[i].stored);
}

/* States live dedup_ttl after a node's last frame, duplicates included;
 * an expired state is forgotten. */
static void test_dedup_ttl(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;
	long long ttl;

	fx->cfg.dedup_ttl_ms = 100000;
	fx = started(state);
	c = client(fx, NULL);
	assert_non_null(c);
	submit(fx, "a", 1, "f", 0, 0);
	assert_true(wait_done(fx, 1));
	ttl = integer(c, "PTTL t:seen:a");
	assert_true(ttl > 50000 && ttl <= 100000);
	assert_int_equal(integer(c, "PEXPIRE t:seen:a 5000"), 1);
	submit(fx, "a", 1, "f", 0, 1);          /* a duplicate refreshes */
	assert_true(wait_done(fx, 2));
	assert_int_equal(fx->done[1].fate, BCN_REDISQ_DUPLICATE);
	assert_true(integer(c, "PTTL t:seen:a") > 50000);
	assert_int_equal(integer(c, "PEXPIRE t:seen:a 5000"), 1);
	submit(fx, "a", 2, "f", 0, 2);          /* a new frame refreshes */
	assert_true(wait_done(fx, 3));
	assert_true(integer(c, "PTTL t:seen:a") > 50000);
	assert_int_equal(integer(c, "PEXPIRE t:seen:a 1"), 1);
	for (int64_t end = bcn_mono_ms() + WAIT_MS;
	     integer(c, "EXISTS t:seen:a") && bcn_mono_ms() < end;)
		run_for(fx, 5);
	assert_int_equal(integer(c, "EXISTS t:seen:a"), 0);
	submit(fx, "a", 2, "f", 0, 3);          /* forgotten: stored again */
	assert_true(wait_done(fx, 4));
	assert_int_equal(fx->done[3].fate, BCN_REDISQ_STORED);
	assert_true(integer(c, "PTTL t:seen:a") > 50000);
	redisFree(c);
}

/* The zset of an older version is converted on the node's next frame,
 * keeping the numbers it remembered; a state made with another window is
 * converted when the window changes. */
static void test_dedup_convert(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;
	redisReply *r;

	fx->cfg.dedup_window = 16;
	fx = started(state);
	c = client(fx, NULL);
	assert_non_null(c);
	for (int s = 25; s <= 40; s++)  /* as the old script left 1 .. 40 */
		assert_int_equal(integer(c, "ZADD t:seen:old %d %d", s, s), 1);
	submit(fx, "old", 40, "f", 0, 0);
	submit(fx, "old", 30, "f", 0, 1);
	submit(fx, "old", 41, "f", 0, 2);
	submit(fx, "old", 24, "f", 0, 3);       /* below the window */
	assert_true(wait_done(fx, 4));
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[1].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[2].fate, BCN_REDISQ_STORED);
	assert_int_equal(fx->done[3].fate, BCN_REDISQ_STORED);
	r = redisCommand(c, "TYPE t:seen:old");
	assert_non_null(r);
	assert_string_equal(r->str, "string");
	freeReplyObject(r);
	assert_true(integer(c, "PTTL t:seen:old") > 0);
	/* a larger window keeps what the smaller one remembered: 26 .. 41 */
	bcn_redisq_destroy(fx->q);
	fx->cfg.dedup_window = 64;
	queue_open(fx);
	assert_true(wait_ready(fx));
	submit(fx, "old", 41, "f", 0, 4);
	submit(fx, "old", 26, "f", 0, 5);
	submit(fx, "old", 20, "f", 0, 6);       /* in the window, unknown */
	submit(fx, "old", 20, "f", 0, 7);
	assert_true(wait_done(fx, 8));
	assert_int_equal(fx->done[4].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[5].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[6].fate, BCN_REDISQ_STORED);
	assert_int_equal(fx->done[7].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(integer(c, "STRLEN t:seen:old"), BCN_REDISQ_SEEN_HDR + 8);
	/* and a smaller one what fits */
	bcn_redisq_destroy(fx->q);
	fx->cfg.dedup_window = 16;
	queue_open(fx);
	assert_true(wait_ready(fx));
	submit(fx, "old", 26, "f", 0, 8);
	submit(fx, "old", 30, "f", 0, 9);
	assert_true(wait_done(fx, 10));
	assert_int_equal(fx->done[8].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(fx->done[9].fate, BCN_REDISQ_DUPLICATE);
	assert_int_equal(integer(c, "STRLEN t:seen:old"), BCN_REDISQ_SEEN_HDR + 2);
	redisFree(c);
}

/* --- memory of the dedup state at scale --- */

#define MEM_SENDERS 47522               /* of the 40,960-node scale run */
#define MEM_BUDGET (100ll << 20)        /* bytes of Redis for their state */
#define MEM_LONG 4                      /* senders with a long history */
#define MEM_SAMPLE 1000                 /* short states measured one by one */

/* The frames of a short history: 20 numbers, two out of order, three
 * resent after a reconnection. */
static const uint64_t mem_pattern[] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 13, 14, 15, 13, 14, 15,
	16, 17, 18, 19, 20,
};

static long long used_memory(redisContext *c)
{
	redisReply *r = redisCommand(c, "INFO memory");
	const char *p;
	long long n;

	assert_non_null(r);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	p = strstr(r->str, "used_memory:");
	assert_non_null(p);
	n = atoll(p + strlen("used_memory:"));
	freeReplyObject(r);
	return n;
}

static long long key_memory(redisContext *c, const char *key)
{
	return integer(c, "MEMORY USAGE %s SAMPLES 0", key);
}

/* Sends the short histories of MEM_SENDERS senders, interleaved as many
 * connections would; counts the fates. */
static void mem_short_histories(struct fixture *fx)
{
	const size_t rounds = sizeof(mem_pattern) / sizeof(mem_pattern[0]);
	char node[16];

	for (size_t r = 0; r < rounds; r++) {
		for (int i = 0; i < MEM_SENDERS; i++) {
			snprintf(node, sizeof(node), "cn%05d", i);
			submit(fx, node, 1700000000000000ull + (uint64_t)i * 1000000 +
			       mem_pattern[r], "f", 0, 0);
		}
		assert_true(wait_done(fx, (r + 1) * MEM_SENDERS));
	}
	assert_int_equal(fx->nstored, 20 * MEM_SENDERS);
	assert_int_equal(fx->nduplicate, 3 * MEM_SENDERS);
}

/* Sends 3 * dedup_window frames of each of MEM_LONG senders (every tenth
 * pair swapped); returns the largest state's MEMORY USAGE. */
static long long mem_long_histories(struct fixture *fx, redisContext *c)
{
	const uint64_t n = 3 * fx->cfg.dedup_window;
	long long most = 0;
	char node[16];

	for (int i = 0; i < MEM_LONG; i++) {
		snprintf(node, sizeof(node), "long%d", i);
		for (uint64_t s = 1; s <= n; s++) {
			uint64_t seq = s % 10 == 1 ? s + 1 : s % 10 == 2 ? s - 1 : s;

			submit(fx, node, seq, "f", 0, 0);
			if (s % 1024 == 0)
				assert_true(wait_done(fx, fx->ndone + 1024));
		}
		assert_true(wait_done(fx, fx->ndone + n % 1024));
		snprintf(node, sizeof(node), "t:seen:long%d", i);
		if (key_memory(c, node) > most)
			most = key_memory(c, node);
	}
	return most;
}

/* The dedup state of 47,522 senders fits 100 MB of Redis: measured for
 * short histories (used_memory, without the queue), and projected for
 * long ones from senders that sent three windows' worth of frames (a
 * state must not grow with its history). Prints the figures. */
static void test_dedup_memory(void **state)
{
	struct fixture *fx = *state;
	long long before, total, small = 0, sum = 0, big, projected;
	char key[32];
	redisContext *c;

	if (!have_redis_server())
		skip();
	fx->cfg.require_fsync = false;
	fx->count_only = true;
	redis_start(fx, NULL, NULL);    /* no AOF: memory only */
	queue_open(fx);
	assert_true(wait_ready(fx));
	c = client(fx, NULL);
	assert_non_null(c);
	before = used_memory(c);
	mem_short_histories(fx);
	integer(c, "DEL t:queue");
	total = used_memory(c) - before;
	for (int i = 0; i < MEM_SAMPLE; i++) {
		long long m;

		snprintf(key, sizeof(key), "t:seen:cn%05d", i * (MEM_SENDERS / MEM_SAMPLE));
		m = key_memory(c, key);
		sum += m;
		small = m > small ? m : small;
	}
	big = mem_long_histories(fx, c);
	projected = total + (big > small ? (big - small) * MEM_SENDERS : 0);
	print_message("{\"test\":\"dedup_memory\",\"senders\":%d,\"window\":%" PRIu64
		      ",\"bytes\":%lld,\"bytes_per_sender\":%lld,"
		      "\"key_bytes\":%lld,\"long_history_key_bytes\":%lld,"
		      "\"projected_bytes\":%lld}\n", MEM_SENDERS,
		      fx->cfg.dedup_window, total, total / MEM_SENDERS,
		      sum / MEM_SAMPLE, big, projected);
	assert_true(total > 0 && total < MEM_BUDGET);
	assert_true(big <= small);
	assert_true(projected < MEM_BUDGET);
	redisFree(c);
}

/* With give_up_ms, frames Redis does not take are reported FAILED; after
 * Redis restarts the queue works again and kept what it acknowledged. */
static void test_killed_give_up(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;

	fx->cfg.give_up_ms = 300;
	fx = started(state);
	submit(fx, "cn1", 1, "before", 0, 1);
	assert_true(wait_done(fx, 1));
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_STORED);
	redis_kill(fx);
	submit(fx, "cn1", 2, "lost-2", 0, 2);
	submit(fx, "cn1", 3, "lost-3", 0, 3);
	assert_true(wait_done(fx, 3));
	assert_int_equal(fx->done[1].fate, BCN_REDISQ_FAILED);
	assert_int_equal(fx->done[1].seq, 2);
	assert_int_equal(fx->done[2].fate, BCN_REDISQ_FAILED);
	assert_int_equal(fx->done[2].cookie, 3);
	assert_int_equal(fx->st.failed, 2);
	assert_int_equal(fx->st.pending_frames, 0);
	assert_false(bcn_redisq_ready(fx->q));
	redis_start(fx, "always", NULL);
	assert_true(wait_ready(fx));
	submit(fx, "cn1", 4, "after", 0, 4);
	assert_true(wait_done(fx, 4));
	assert_int_equal(fx->done[3].fate, BCN_REDISQ_STORED);
	assert_int_equal(fx->st.reconnects, 2);
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 2);
	assert_elem(c, "t:queue", 0, "before", 6);      /* from the AOF */
	assert_elem(c, "t:queue", 1, "after", 5);
	redisFree(c);
}

/* Without give_up_ms (the log server), frames wait while Redis is down
 * and are stored once it is back. */
static void test_killed_resend(void **state)
{
	struct fixture *fx = started(state);
	redisContext *c;

	redis_kill(fx);
	for (uint64_t s = 1; s <= 5; s++)
		submit(fx, "cn1", s, "waiting", 0, s);
	run_for(fx, 500);
	assert_int_equal(fx->ndone, 0);
	assert_int_equal(fx->st.pending_frames, 5);
	redis_start(fx, "always", NULL);
	assert_true(wait_done(fx, 5));
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(fx->done[i].fate, BCN_REDISQ_STORED);
		assert_int_equal(fx->done[i].cookie, i + 1);
	}
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 5);
	redisFree(c);
}

/* A Redis that stops answering is dropped after timeout_ms; the resend
 * after it answers again is harmless: the frame is in the queue once. */
static void test_hung(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;

	fx->cfg.timeout_ms = 300;
	fx = started(state);
	assert_int_equal(kill(fx->redis, SIGSTOP), 0);
	submit(fx, "cn1", 1, "hung", 0, 1);
	assert_true(wait_errors(fx, 1));
	assert_int_equal(fx->ndone, 0);
	assert_int_equal(kill(fx->redis, SIGCONT), 0);
	assert_true(wait_done(fx, 1));
	assert_int_not_equal(fx->done[0].fate, BCN_REDISQ_FAILED);
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 1);
	redisFree(c);
}

/* A Redis that may lose writes is refused until it is made durable. */
static void test_durability_check(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;
	redisReply *r;

	if (!have_redis_server())
		skip();
	redis_start(fx, "everysec", NULL);
	queue_open(fx);
	submit(fx, "cn1", 1, "durable?", 0, 1);
	assert_true(wait_errors(fx, 1));
	assert_int_equal(fx->ndone, 0);
	assert_false(bcn_redisq_ready(fx->q));
	c = client(fx, NULL);
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 0);
	r = redisCommand(c, "CONFIG SET appendfsync always");
	assert_non_null(r);
	freeReplyObject(r);
	assert_true(wait_done(fx, 1));
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_STORED);
	assert_int_equal(llen(c, "t:queue"), 1);
	redisFree(c);
}

static void test_no_fsync_accepted(void **state)
{
	struct fixture *fx = *state;

	if (!have_redis_server())
		skip();
	fx->cfg.require_fsync = false;
	redis_start(fx, "everysec", NULL);
	queue_open(fx);
	submit(fx, "cn1", 1, "fast", 0, 1);
	assert_true(wait_done(fx, 1));
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_STORED);
	assert_int_equal(fx->st.errors, 0);
}

static void test_password(void **state)
{
	struct fixture *fx = *state;
	redisContext *c;
	FILE *f;

	if (!have_redis_server())
		skip();
	snprintf(fx->cfg.password_file, sizeof(fx->cfg.password_file),
		 "%s/redis.pw", fx->dir);
	f = fopen(fx->cfg.password_file, "w");
	assert_non_null(f);
	fputs("s3cret\n", f);
	assert_int_equal(fclose(f), 0);
	redis_start(fx, "always", "s3cret");
	queue_open(fx);
	submit(fx, "cn1", 1, "authed", 0, 1);
	assert_true(wait_done(fx, 1));
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_STORED);
	c = client(fx, "s3cret");
	assert_non_null(c);
	assert_int_equal(llen(c, "t:queue"), 1);
	redisFree(c);
}

/* Side commands are sent; an error reply is counted, nothing else. */
static void test_command(void **state)
{
	struct fixture *fx = started(state);
	const char *hset[] = { "HSET", "t:stats", "stored", "5" };
	const char *wrong[] = { "HSET", "t:queue", "x", "1" };
	redisContext *c;
	redisReply *r;

	bcn_redisq_command(fx->q, 4, hset, "statistics");
	submit(fx, "cn1", 1, "f", 0, 1);        /* replies come in order */
	assert_true(wait_done(fx, 1));
	c = client(fx, NULL);
	assert_non_null(c);
	r = redisCommand(c, "HGET t:stats stored");
	assert_non_null(r);
	assert_int_equal(r->type, REDIS_REPLY_STRING);
	assert_string_equal(r->str, "5");
	freeReplyObject(r);
	bcn_redisq_command(fx->q, 4, wrong, "test");   /* the queue is a list */
	assert_true(wait_errors(fx, 1));
	assert_true(bcn_redisq_ready(fx->q));           /* the queue goes on */
	submit(fx, "cn1", 2, "g", 0, 2);
	assert_true(wait_done(fx, 2));
	assert_int_equal(llen(c, "t:queue"), 2);
	redisFree(c);
}

/* Frames still waiting at destroy are reported FAILED, in order. */
static void test_destroy_fails_waiting(void **state)
{
	struct fixture *fx = *state;

	/* nothing listens on fx->port: no Redis is needed */
	queue_open(fx);
	submit(fx, "cn1", 1, "a", 5, 1);
	submit(fx, "cn2", 1, "bb", 6, 2);
	run_for(fx, 200);
	assert_int_equal(fx->ndone, 0);
	assert_int_equal(fx->st.pending_bytes, 3);
	bcn_redisq_destroy(fx->q);
	fx->q = NULL;
	assert_int_equal(fx->ndone, 2);
	assert_int_equal(fx->done[0].fate, BCN_REDISQ_FAILED);
	assert_string_equal(fx->done[0].node, "cn1");
	assert_int_equal(fx->done[0].slot, 5);
	assert_int_equal(fx->done[1].fate, BCN_REDISQ_FAILED);
	assert_string_equal(fx->done[1].node, "cn2");
	assert_int_equal(fx->done[1].cookie, 2);
	assert_int_equal(fx->st.failed, 2);
	assert_int_equal(fx->st.pending_frames, 0);
	assert_int_equal(fx->st.pending_bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dedup_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dedup_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dedup_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dedup_ttl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dedup_convert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dedup_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_give_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_resend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hung, setup, teardown),
		cmocka_unit_test_setup_teardown(test_durability_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_fsync_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_password, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_fails_waiting, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
