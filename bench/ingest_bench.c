/* Ingest benchmark client (driven by bench/logsrv_bench.sh).
 *
 *   ingest_bench logsrv HOST:PORT KEYFILE CONNS FRAMES RECORDS
 *       opens CONNS authenticated connections to a log server, each as its
 *       own node, and sends FRAMES frames of RECORDS io records on each,
 *       pipelined; measures from the first frame sent to the last ACK.
 *   ingest_bench ceiling REDIS_PORT CONNS FRAMES RECORDS
 *       pushes the same frames straight into Redis with pipelining, with
 *       the log server's own dedup-and-append script: what Redis alone can
 *       take, the ceiling for the log server.
 *
 * Prints one JSON object per line. */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/auth.h"
#include "proto/frame.h"
#include "logsrv/logsrv.h"

#define WINDOW 16               /* frames in flight per connection */

struct conn {
	int fd;
	char node[32];
	struct bcn_auth_client auth;
	struct bcn_buf in, out;
	size_t out_off;
	long next, acked, frames;
	int ready;
	int started;                    /* the clock runs: frames may go */
	struct bcn_buf *pre;            /* its frames, built before timing */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One second of a compute node's compressed trace: RECORDS io runs. */
static void make_frame(struct bcn_buf *out, const char *node, uint64_t seq,
		       long records)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_record r;

	bcn_frame_builder_init(&b, &lim, 1);
	for (long i = 0; i < records; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1700000000000000000ll + (int64_t)seq * 1000000000ll + i * 20000;
		r.dur = 15000;
		r.job = 4100000 + (uint64_t)(seq % 7);
		r.u.io.rank = i % 16;
		r.u.io.pid = 1000 + (uint64_t)(i % 16);
		r.u.io.op = i % 3 ? BCN_IO_WRITE : BCN_IO_READ;
		r.u.io.fd = 3 + i % 4;
		r.u.io.file = 0x9e3779b97f4a7c15ull * (uint64_t)(i % 16 + 1);
		r.u.io.offset = (uint64_t)seq << 24 | (uint64_t)i << 20;
		r.u.io.size = 1 << 20;
		r.u.io.count = 1 + (uint64_t)(i % 8);
		r.u.io.stride = 1 << 20;
		r.u.io.busy = 12000;
		bcn_frame_builder_add(&b, &r);
	}
	bcn_frame_builder_finish(&b, node, seq, out);
	bcn_frame_builder_free(&b);
}

static int dial(const char *hp)
{
	char host[256], *colon;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, one = 1;

	snprintf(host, sizeof(host), "%s", hp);
	colon = strrchr(host, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void queue_frames(struct conn *c)
{
	while (c->ready && c->started && c->next < c->frames &&
	       c->next - c->acked < WINDOW) {
		/* sealed as a collector seals it, with its frame MAC */
		bcn_seal_frame(&c->auth.tx, c->pre[c->next].data,
			       c->pre[c->next].len, &c->out);
		c->next++;
	}
}

static int pump_out(struct conn *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->out_off,
				 c->out.len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		c->out_off += (size_t)n;
	}
	bcn_buf_reset(&c->out);
	c->out_off = 0;
	return 0;
}

/* Reads and handles what arrived. Returns 0 or -1. */
static int pump_in(struct conn *c, struct bcn_frame *f)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	ssize_t n;
	size_t used, off = 0;

	bcn_buf_reserve(&c->in, 65536);
	n = recv(c->fd, c->in.data + c->in.len, 65536, MSG_DONTWAIT);
	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
	c->in.len += (size_t)n;
	while (bcn_frame_open(f, c->in.data + off, c->in.len - off, &lim, &used) == 0) {
		if (c->ready && bcn_seal_check(&c->auth.rx, c->in.data + off, used))
			return -1;      /* an ACK without its MAC */
		off += used;
		if (!c->ready) {
			if (bcn_auth_client_step(&c->auth, f, &c->out) < 0)
				return -1;
			c->ready = c->auth.state == BCN_AUTH_ESTABLISHED;
		} else if (f->hdr.kind == BCN_FRAME_ACK) {
			c->acked++;
		}
	}
	memmove(c->in.data, c->in.data + off, c->in.len - off);
	c->in.len -= off;
	queue_frames(c);
	return 0;
}

/* Moves the handshakes on for at most timeout_ms; counts the connections
 * that became ready. Returns 0, or 1 with the reason on stderr. */
static int handshakes(int ep, struct epoll_event *evs, struct bcn_frame *f,
		      long *ready, int timeout_ms)
{
	int n = epoll_wait(ep, evs, 256, timeout_ms);

	if (n < 0 || (n == 0 && timeout_ms)) {
		fprintf(stderr, "ingest_bench: handshakes stalled with %ld ready\n",
			*ready);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct conn *c = evs[i].data.ptr;
		int was = c->ready;

		/* no frame goes before the clock starts, so a ready one
		 * hears only its server closing it */
		if (pump_out(c) || ((evs[i].events & EPOLLIN) &&
				    (c->ready || pump_in(c, f)))) {
			fprintf(stderr, "ingest_bench: %s: the handshake failed "
				"(the server closed or refused it)\n", c->node);
			return 1;
		}
		if (!was && c->ready)
			++*ready;
	}
	return 0;
}

static int run_logsrv(const char *addr, const char *keyfile, long conns,
		      long frames, long records)
{
	struct bcn_auth_key key;
	struct conn *cs = calloc((size_t)conns, sizeof(*cs));
	struct epoll_event ev, evs[256];
	struct bcn_frame f;
	char err[256];
	long done = 0, total_acks = 0, ready = 0;
	double t0 = 0, t1;
	int ep = epoll_create1(0);

	if (!cs || bcn_auth_key_load(keyfile, &key, err, sizeof(err))) {
		fprintf(stderr, "ingest_bench: %s\n", err);
		return 1;
	}
	bcn_frame_init(&f);
	for (long i = 0; i < conns; i++) {
		struct conn *c = &cs[i];

		snprintf(c->node, sizeof(c->node), "cn%05ld", i);
		c->frames = frames;
		c->fd = dial(addr);
		if (c->fd < 0) {
			fprintf(stderr, "ingest_bench: connection %ld failed\n", i);
			return 1;
		}
		bcn_buf_init(&c->in, 1 << 20);
		bcn_buf_init(&c->out, 64u << 20);
		c->pre = calloc((size_t)frames, sizeof(*c->pre));
		if (!c->pre)
			return 1;
		for (long k = 0; k < frames; k++) {
			bcn_buf_init(&c->pre[k], 64u << 20);
			make_frame(&c->pre[k], c->node, (uint64_t)k + 1, records);
		}
		bcn_auth_client_init(&c->auth, &key, c->node);
		bcn_auth_client_start(&c->auth, &c->out);
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.ptr = c;
		epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
		/* the handshakes go on while the others dial: on a loaded
		 * machine dialing thousands outlasts the server's deadline */
		if (i % 64 == 63 && handshakes(ep, evs, &f, &ready, 0))
			return 1;
	}
	/* let every handshake finish before the clock starts */
	while (ready < conns)
		if (handshakes(ep, evs, &f, &ready, 10000))
			return 1;
	t0 = now();
	for (long i = 0; i < conns; i++) {
		cs[i].started = 1;
		queue_frames(&cs[i]);
	}
	while (done < conns) {
		int n = epoll_wait(ep, evs, 256, 30000);

		if (n <= 0) {
			fprintf(stderr, "ingest_bench: stalled with %ld acks\n", total_acks);
			return 1;
		}
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			long before = c->acked;

			if ((evs[i].events & EPOLLIN) && pump_in(c, &f))
				return 1;
			if (pump_out(c))
				return 1;
			total_acks += c->acked - before;
			if (before < c->frames && c->acked == c->frames)
				done++;
		}
	}
	t1 = now();
	printf("{\"bench\":\"ingest\",\"target\":\"logsrv\",\"connections\":%ld,"
	       "\"frames\":%ld,\"records_per_frame\":%ld,\"seconds\":%.3f,"
	       "\"frames_per_s\":%.0f,\"records_per_s\":%.0f}\n",
	       conns, conns * frames, records, t1 - t0,
	       conns * frames / (t1 - t0), conns * frames * records / (t1 - t0));
	return 0;
}

#define CEIL_BATCH 64            /* frames per script call */

/* The same frames and the same script, called with CEIL_BATCH frames a
 * time and 64 calls pipelined, from one connection straight into Redis. */
static int run_ceiling(int port, long conns, long frames, long records)
{
	static const char *argv[6 + 3 * CEIL_BATCH];
	static size_t argl[6 + 3 * CEIL_BATCH];
	static char keys[CEIL_BATCH][48], seqs[CEIL_BATCH][24];
	redisContext *rc = redisConnect("127.0.0.1", port);
	redisReply *r;
	char sha[64], node[32], nkeys[24];
	long total = conns * frames, sent = 0, got = 0, inflight = 64;
	struct bcn_buf *all;
	double t0, t1;

	if (!rc || rc->err)
		return 1;
	r = redisCommand(rc, "SCRIPT LOAD %s", bcn_redisq_enqueue_lua);
	if (!r || r->type != REDIS_REPLY_STRING)
		return 1;
	snprintf(sha, sizeof(sha), "%s", r->str);
	freeReplyObject(r);
	/* frames are built outside the timed part, as the log server gets
	 * them ready-made from the network */
	all = calloc((size_t)total, sizeof(*all));
	if (!all)
		return 1;
	for (long i = 0; i < total; i++) {
		snprintf(node, sizeof(node), "cn%05ld", i % conns);
		bcn_buf_init(&all[i], 64u << 20);
		make_frame(&all[i], node, (uint64_t)(i / conns) + 1, records);
	}
	t0 = now();
	while (got < total) {
		while (sent < total && (sent - got) / CEIL_BATCH < inflight) {
			long n = total - sent < CEIL_BATCH ? total - sent : CEIL_BATCH;
			size_t k = 0;

			snprintf(nkeys, sizeof(nkeys), "%ld", n + 1);
			argv[k] = "EVALSHA"; argl[k++] = 7;
			argv[k] = sha; argl[k++] = strlen(sha);
			argv[k] = nkeys; argl[k++] = strlen(nkeys);
			argv[k] = "ceil:queue"; argl[k++] = 10;
			for (long j = 0; j < n; j++) {
				snprintf(keys[j], sizeof(keys[j]), "ceil:seen:cn%05ld", (sent + j) % conns);
				argv[k] = keys[j]; argl[k++] = strlen(keys[j]);
			}
			argv[k] = "4096"; argl[k++] = 4;
			argv[k] = "604800000"; argl[k++] = 9;     /* 7 d */
			for (long j = 0; j < n; j++) {
				snprintf(seqs[j], sizeof(seqs[j]), "%ld", (sent + j) / conns + 1);
				argv[k] = seqs[j]; argl[k++] = strlen(seqs[j]);
				argv[k] = (const char *)all[sent + j].data;
				argl[k++] = all[sent + j].len;
			}
			redisAppendCommandArgv(rc, (int)k, argv, argl);
			sent += n;
		}
		if (redisGetReply(rc, (void **)&r) != REDIS_OK || r->type != REDIS_REPLY_ARRAY)
			return 1;
		got += (long)r->elements;
		freeReplyObject(r);
	}
	t1 = now();
	printf("{\"bench\":\"ingest\",\"target\":\"redis_ceiling\",\"connections\":1,"
	       "\"frames\":%ld,\"records_per_frame\":%ld,\"seconds\":%.3f,"
	       "\"frames_per_s\":%.0f,\"records_per_s\":%.0f}\n",
	       total, records, t1 - t0, total / (t1 - t0),
	       total * records / (t1 - t0));
	for (long i = 0; i < total; i++)
		bcn_buf_free(&all[i]);
	free(all);
	redisFree(rc);
	return 0;
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v <= 0) {
		fprintf(stderr, "ingest_bench: '%s' is not a positive number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (argc == 7 && !strcmp(argv[1], "logsrv"))
		return run_logsrv(argv[2], argv[3], num(argv[4]), num(argv[5]),
				  num(argv[6]));
	if (argc == 6 && !strcmp(argv[1], "ceiling"))
		return run_ceiling((int)num(argv[2]), num(argv[3]), num(argv[4]),
				   num(argv[5]));
	fprintf(stderr, "usage: ingest_bench logsrv HOST:PORT KEYFILE CONNS FRAMES RECORDS\n"
		"       ingest_bench ceiling REDIS_PORT CONNS FRAMES RECORDS\n");
	return 2;
}
