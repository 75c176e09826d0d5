/* Test peer for the sender library: a small real TCP server that speaks
 * the server side of the protocol (handshake with proto/auth.h, one ACK
 * per DATA frame, dedup by (node, seq)) and can misbehave on request.
 * Every answer it gives to a DATA frame is first appended to the log file
 * as "NODE SEQ stored|duplicate|rejected", so the log is what a durable
 * server would have stored; at start it reloads the "stored" lines, so
 * that a restart (even after kill -9) still answers duplicates.
 *
 * usage: acksrv --key FILE --log FILE --port-file FILE [--port N]
 *        [--listen ADDR] [--name NAME] [--paused] [--reject-every N]
 *        [--ack-delay MS] [--drop-every N] [--mute]
 *
 * --port-file gets the bound port (written before listening starts).
 * --paused binds without listening (connections are refused) until
 * SIGUSR2. --reject-every N answers REJECTED to sequence numbers that are
 * multiples of N. --ack-delay holds each ACK for MS milliseconds.
 * --drop-every N closes the connection on every N-th DATA frame without
 * storing or acknowledging it. --mute stores nothing and never answers a
 * DATA frame. SIGUSR1 closes every client connection; SIGTERM and SIGINT
 * stop the server. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "proto/auth.h"
#include "common/error.h"
#include "proto/frame.h"

#define MAX_CLIENTS 64
#define MAX_PENDING 65536       /* delayed ACKs per connection */
#define RX_CHUNK (256u << 10)
#define RX_MAX ((17u << 20) + 4096)
#define TX_MAX (16u << 20)
#define SET_MIN 1024
#define LINE_MAX_ 512

struct pending {
	int64_t due;
	uint64_t seq;
	uint8_t status;
};

struct client {
	int fd;
	struct bcn_auth_server auth;
	struct bcn_buf rx, tx;
	size_t tx_off;
	struct pending *q;      /* delayed ACKs, a ring */
	size_t qhead, qlen;
};

struct slot {
	char *node;
	uint64_t seq;
};

struct server {
	struct bcn_auth_key key;
	const char *name;
	int lfd, logfd;
	bool listening, mute;
	uint64_t reject_every, drop_every, ndata;
	int64_t ack_delay;
	struct client cl[MAX_CLIENTS];
	struct slot *set;
	size_t set_cap, set_len;
	struct bcn_frame f;
};

static volatile sig_atomic_t got_term, got_usr1, got_usr2;
static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig == SIGUSR2)
		got_usr2 = 1;
	else
		got_term = 1;
}

static uint64_t hash(const char *node, uint64_t seq)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = node; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	return (h ^ seq) * 0x9e3779b97f4a7c15ull;
}

static struct slot *find(struct server *sv, const char *node, uint64_t seq)
{
	size_t i = hash(node, seq) & (sv->set_cap - 1);

	while (sv->set[i].node && (sv->set[i].seq != seq ||
				   strcmp(sv->set[i].node, node)))
		i = (i + 1) & (sv->set_cap - 1);
	return &sv->set[i];
}

/* Adds (node, seq); returns 1 if new, 0 if present, -ENOMEM. */
static int set_add(struct server *sv, const char *node, uint64_t seq)
{
	struct slot *sl;

	if (2 * (sv->set_len + 1) > sv->set_cap) {
		struct slot *old = sv->set;
		size_t ocap = sv->set_cap;

		sv->set_cap = ocap ? 2 * ocap : SET_MIN;
		sv->set = calloc(sv->set_cap, sizeof(*sv->set));
		if (!sv->set)
			return -ENOMEM;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].node)
				*find(sv, old[i].node, old[i].seq) = old[i];
		free(old);
	}
	sl = find(sv, node, seq);
	if (sl->node)
		return 0;
	sl->node = strdup(node);
	if (!sl->node)
		return -ENOMEM;
	sl->seq = seq;
	sv->set_len++;
	return 1;
}

/* Reloads the stored (node, seq) pairs of an earlier run. */
static int load_log(struct server *sv, const char *path)
{
	char line[LINE_MAX_], node[BCN_NODE_MAX + 1], st[16];
	uint64_t seq;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (!rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %" SCNu64 " %15s", node, &seq, st) == 3 &&
		    !strcmp(st, "stored"))
			rc = set_add(sv, node, seq) < 0 ? -ENOMEM : 0;
	fclose(f);
	return rc;
}

static void drop_client(struct client *c)
{
	close(c->fd);
	c->fd = -1;
	bcn_buf_free(&c->rx);
	bcn_buf_free(&c->tx);
	free(c->q);
	c->q = NULL;
}

static void accept_client(struct server *sv)
{
	int fd = accept4(sv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct client *c = NULL;

	if (fd < 0)
		return;
	for (size_t i = 0; i < MAX_CLIENTS; i++)
		if (sv->cl[i].fd < 0) {
			c = &sv->cl[i];
			break;
		}
	if (!c) {
		close(fd);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	bcn_buf_init(&c->rx, RX_MAX);
	bcn_buf_init(&c->tx, TX_MAX);
	c->q = calloc(MAX_PENDING, sizeof(*c->q));
	if (!c->q || bcn_auth_server_init(&c->auth, &sv->key, sv->name))
		drop_client(c);
}

/* Decides, logs and queues the answer to one DATA frame. Returns 0, or
 * a negative code to close the connection. */
static int answer(struct server *sv, struct client *c, bool corrupt)
{
	const struct bcn_frame *f = &sv->f;
	char line[LINE_MAX_];
	uint8_t status;
	int n, rc;

	sv->ndata++;
	if (sv->drop_every && sv->ndata % sv->drop_every == 0)
		return -ECONNABORTED;
	if (sv->mute)
		return 0;
	if (corrupt || (sv->reject_every && f->hdr.seq % sv->reject_every == 0)) {
		status = BCN_ACK_REJECTED;
	} else {
		rc = set_add(sv, f->node, f->hdr.seq);
		if (rc < 0)
			return rc;
		status = rc ? BCN_ACK_STORED : BCN_ACK_DUPLICATE;
	}
	n = snprintf(line, sizeof(line), "%s %" PRIu64 " %s\n", f->node,
		     f->hdr.seq, status == BCN_ACK_STORED ? "stored" :
		     status == BCN_ACK_DUPLICATE ? "duplicate" : "rejected");
	if (write(sv->logfd, line, (size_t)n) != n)
		return -EIO;
	if (c->qlen == MAX_PENDING)
		return -BCN_EFULL;
	c->q[(c->qhead + c->qlen) % MAX_PENDING] = (struct pending){
		bcn_mono_ms() + sv->ack_delay, f->hdr.seq, status };
	c->qlen++;
	return 0;
}

/* Handles every whole frame received on c. */
static int handle_input(struct server *sv, struct client *c)
{
	size_t off = 0, used;
	int rc = 0;

	while (off < c->rx.len) {
		bool corrupt = false;

		rc = bcn_frame_open(&sv->f, c->rx.data + off, c->rx.len - off,
				    &lim, &used);
		if (rc == -BCN_ETRUNC) {
			rc = 0;
			break;
		}
		if (rc == -BCN_ECORRUPT && sv->f.hdr.kind == BCN_FRAME_DATA &&
		    c->auth.state == BCN_AUTH_ESTABLISHED &&
		    sv->f.hdr.node_len <= sv->f.hdr.body_len &&
		    c->rx.len - off >= BCN_FRAME_HDR_LEN + (size_t)sv->f.hdr.body_len) {
			/* checksum good, content bad: reject, go on */
			corrupt = true;
			used = BCN_FRAME_HDR_LEN + (size_t)sv->f.hdr.body_len;
		} else if (rc) {
			fprintf(stderr, "acksrv: bad frame: %s\n", bcn_strerror(rc));
			break;
		}
		/* after the handshake every frame carries its MAC */
		if (c->auth.state == BCN_AUTH_ESTABLISHED &&
		    bcn_seal_check(&c->auth.rx, c->rx.data + off, used)) {
			fprintf(stderr, "acksrv: a frame failed its MAC\n");
			rc = -EBADMSG;
			break;
		}
		off += used;
		if (!corrupt && sv->f.hdr.kind == BCN_FRAME_DATA &&
		    bcn_frame_validate(&sv->f))
			corrupt = true;
		rc = bcn_auth_server_step(&c->auth, &sv->f, &c->tx);
		if (rc < 0) {
			fprintf(stderr, "acksrv: closing a connection (node '%s', "
				"state %s): %s\n", c->auth.node,
				bcn_auth_state_name(c->auth.state),
				rc == -EKEYREJECTED ? "authentication failed" :
				bcn_strerror(rc));
			break;
		}
		if (rc == BCN_AUTH_PASS) {
			rc = answer(sv, c, corrupt);
			if (rc)
				break;
		}
	}
	memmove(c->rx.data, c->rx.data + off, c->rx.len - off);
	c->rx.len -= off;
	return rc;
}

static int read_client(struct server *sv, struct client *c)
{
	ssize_t n;
	int rc;

	rc = bcn_buf_reserve(&c->rx, RX_CHUNK);
	if (rc)
		return rc;
	n = recv(c->fd, c->rx.data + c->rx.len, RX_CHUNK, 0);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	c->rx.len += (size_t)n;
	return handle_input(sv, c);
}

/* Moves due ACKs to the output; returns the next due time or -1. */
static int64_t release_acks(struct server *sv, struct client *c, int64_t now)
{
	while (c->qlen) {
		struct pending *p = &c->q[c->qhead];

		if (p->due > now)
			return p->due;
		struct bcn_buf a;
		int rc;

		bcn_buf_init(&a, 1024);
		rc = bcn_frame_ack_encode(p->seq, p->status, sv->name, &a);
		if (!rc)
			rc = bcn_seal_frame(&c->auth.tx, a.data, a.len, &c->tx);
		bcn_buf_free(&a);
		if (rc)
			return now;     /* output full: try again later */
		c->qhead = (c->qhead + 1) % MAX_PENDING;
		c->qlen--;
	}
	return -1;
}

static int write_client(struct client *c)
{
	ssize_t n;

	if (c->tx_off == c->tx.len)
		return 0;
	n = send(c->fd, c->tx.data + c->tx_off, c->tx.len - c->tx_off,
		 MSG_NOSIGNAL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	c->tx_off += (size_t)n;
	if (c->tx_off == c->tx.len) {
		bcn_buf_reset(&c->tx);
		c->tx_off = 0;
	}
	return 0;
}

static int open_listener(const char *addr, unsigned port, const char *port_file)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;
	FILE *pf;
	char tmp[4096];

	memset(&ss, 0, sizeof(ss));
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, addr, &a->sin6_addr) != 1)
			return -EINVAL;
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, addr, &a->sin_addr) != 1)
			return -EINVAL;
		sl = sizeof(*a);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	port = ntohs(ss.ss_family == AF_INET6 ?
		     ((struct sockaddr_in6 *)&ss)->sin6_port :
		     ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	pf = fopen(tmp, "w");
	if (!pf || fprintf(pf, "%u\n", port) < 0 || fclose(pf) ||
	    rename(tmp, port_file)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: acksrv --key FILE --log FILE --port-file FILE "
		"[--port N] [--listen ADDR] [--name NAME] [--paused]\n"
		"       [--reject-every N] [--ack-delay MS] [--drop-every N] "
		"[--mute]\n");
}

static int parse_args(struct server *sv, int argc, char **argv,
		      const char **keyf, const char **logf,
		      const char **portf, const char **addr, unsigned *port,
		      bool *paused)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "log", required_argument, NULL, 'l' },
		{ "port-file", required_argument, NULL, 'P' },
		{ "port", required_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'L' },
		{ "name", required_argument, NULL, 'n' },
		{ "paused", no_argument, NULL, 'z' },
		{ "reject-every", required_argument, NULL, 'r' },
		{ "ack-delay", required_argument, NULL, 'd' },
		{ "drop-every", required_argument, NULL, 'D' },
		{ "mute", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k': *keyf = optarg; break;
		case 'l': *logf = optarg; break;
		case 'P': *portf = optarg; break;
		case 'p': *port = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'L': *addr = optarg; break;
		case 'n': sv->name = optarg; break;
		case 'z': *paused = true; break;
		case 'r': sv->reject_every = strtoull(optarg, NULL, 10); break;
		case 'd': sv->ack_delay = strtoll(optarg, NULL, 10); break;
		case 'D': sv->drop_every = strtoull(optarg, NULL, 10); break;
		case 'm': sv->mute = true; break;
		default: return -EINVAL;
		}
	}
	return *keyf && *logf && *portf && optind == argc ? 0 : -EINVAL;
}

static void setup_signals(sigset_t *old)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, old);
}

/* One turn of the event loop. */
static void loop_once(struct server *sv, const sigset_t *mask)
{
	struct pollfd p[MAX_CLIENTS + 1];
	int64_t now = bcn_mono_ms(), next = -1;
	struct timespec ts, *tp = NULL;
	size_t n = 0;

	p[n++] = (struct pollfd){ sv->listening ? sv->lfd : -1, POLLIN, 0 };
	for (size_t i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &sv->cl[i];
		int64_t due = c->fd >= 0 ? release_acks(sv, c, now) : -1;

		if (due >= 0 && (next < 0 || due < next))
			next = due;
		p[n++] = (struct pollfd){ c->fd, (short)(POLLIN |
				(c->tx_off < c->tx.len ? POLLOUT : 0)), 0 };
	}
	if (next >= 0) {
		int64_t d = next > now ? next - now : 0;

		ts.tv_sec = d / 1000;
		ts.tv_nsec = (d % 1000) * 1000000;
		tp = &ts;
	}
	if (ppoll(p, n, tp, mask) < 0)
		return;
	if (p[0].revents & POLLIN)
		accept_client(sv);
	for (size_t i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &sv->cl[i];
		short rev = p[i + 1].revents;
		int rc = 0;

		if (c->fd < 0 || !rev)
			continue;
		if (rev & (POLLIN | POLLHUP | POLLERR))
			rc = read_client(sv, c);
		if (!rc)
			rc = write_client(c);
		if (rc)
			drop_client(c);
	}
}

int main(int argc, char **argv)
{
	static struct server sv;
	const char *keyf = NULL, *logf = NULL, *portf = NULL, *addr = "127.0.0.1";
	unsigned port = 0;
	bool paused = false;
	char err[512];
	sigset_t mask;
	int rc;

	sv.name = "acksrv";
	for (size_t i = 0; i < MAX_CLIENTS; i++)
		sv.cl[i].fd = -1;
	if (parse_args(&sv, argc, argv, &keyf, &logf, &portf, &addr, &port,
		       &paused)) {
		usage();
		return 2;
	}
	if (bcn_auth_key_load(keyf, &sv.key, err, sizeof(err))) {
		fprintf(stderr, "acksrv: %s\n", err);
		return 1;
	}
	rc = load_log(&sv, logf);
	sv.logfd = open(logf, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (rc || sv.logfd < 0) {
		fprintf(stderr, "acksrv: %s: %s\n", logf,
			rc ? bcn_strerror(rc) : strerror(errno));
		return 1;
	}
	setup_signals(&mask);
	sv.lfd = open_listener(addr, port, portf);
	if (sv.lfd < 0) {
		fprintf(stderr, "acksrv: %s port %u: %s\n", addr, port,
			bcn_strerror(sv.lfd));
		return 1;
	}
	bcn_frame_init(&sv.f);
	while (!got_term) {
		if (got_usr1) {
			got_usr1 = 0;
			for (size_t i = 0; i < MAX_CLIENTS; i++)
				if (sv.cl[i].fd >= 0)
					drop_client(&sv.cl[i]);
		}
		if (!sv.listening && (!paused || got_usr2)) {
			if (listen(sv.lfd, 64) < 0) {
				fprintf(stderr, "acksrv: listen: %s\n",
					strerror(errno));
				return 1;
			}
			sv.listening = true;
		}
		loop_once(&sv, &mask);
	}
	for (size_t i = 0; i < MAX_CLIENTS; i++)
		if (sv.cl[i].fd >= 0)
			drop_client(&sv.cl[i]);
	for (size_t i = 0; i < sv.set_cap; i++)
		free(sv.set[i].node);
	free(sv.set);
	bcn_frame_free(&sv.f);
	bcn_auth_key_wipe(&sv.key);
	close(sv.lfd);
	close(sv.logfd);
	return 0;
}
