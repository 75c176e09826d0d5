/* Test peer for the log server: a deliberately raw collector that sends
 * well-formed and malformed input and reports what the server answered,
 * as one JSON line.
 *
 * usage: rawsend HOST:PORT KEYFILE|- NODE MODE [FRAMES_FILE]
 * modes:
 *   frames     handshake, send every DATA frame of FRAMES_FILE, wait for
 *              all acknowledgements
 *   garbage    handshake, then random bytes
 *   noauth     DATA frames without a handshake
 *   wrongnode  handshake as NODE, then a frame of another node
 *   badcrc     handshake, a frame with a damaged checksum
 *   corrupt    handshake, a frame whose content is malformed (correct
 *              checksum), then a good frame
 *   toobig     handshake, a header announcing a 1 GiB body
 *   badversion handshake, a frame of protocol version 9
 *   truncated  handshake, half a frame, then close
 *   shortbody  handshake, a DATA header whose body_len (5) is smaller
 *              than its node_len (10), and no body
 *   nomac      handshake, a good frame without its frame MAC
 *   badmac     handshake, a frame whose MAC is wrong (checksum right)
 *   replay     handshake, the same sealed frame twice (the second's MAC
 *              is of an earlier place on the connection)
 *   v1hello    a HELLO of protocol version 1
 * After the handshake every frame is sealed with its MAC (proto/seal.h)
 * unless the mode says otherwise, and every ACK's MAC is checked.
 * The JSON line has: stored, duplicate, rejected (ACK counts), closed
 * (whether the server closed the connection), handshake (ok/failed) and
 * bad_acks (ACKs from the server whose MAC failed). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "proto/auth.h"
#include "common/error.h"
#include "proto/frame.h"
#include "proto/frame_reader.h"

#define WAIT_MS 10000

struct peer {
	int fd;
	struct bcn_buf in;
	struct bcn_frame f;
	struct bcn_frame_limits lim;
	int closed;
	uint64_t acks[BCN_ACK_STATUS_MAX];
	struct bcn_auth_client ac;
	int sealed;                     /* handshake done: frames carry MACs */
	uint64_t bad_acks;
};

static int connect_to(const char *hp)
{
	char host[256], *colon;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd;

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
	return fd;
}

static int send_all(struct peer *p, const void *buf, size_t len)
{
	const uint8_t *b = buf;

	while (len) {
		ssize_t n = send(p->fd, b, len, MSG_NOSIGNAL);

		if (n <= 0) {
			p->closed = 1;
			return -1;
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads one frame from the server. Returns 1, 0 when the connection was
 * closed, -1 on timeout. */
static int read_frame(struct peer *p)
{
	size_t used;

	for (;;) {
		struct pollfd pfd = { p->fd, POLLIN, 0 };
		int rc = p->in.len ? bcn_frame_open(&p->f, p->in.data, p->in.len, &p->lim, &used)
				   : -BCN_ETRUNC;
		ssize_t n;

		if (rc == 0 && p->sealed &&
		    bcn_seal_check(&p->ac.rx, p->in.data, used)) {
			p->bad_acks++;
			p->closed = 1;
			return 0;
		}
		if (rc == 0) {
			memmove(p->in.data, p->in.data + used, p->in.len - used);
			p->in.len -= used;
			return 1;
		}
		if (rc != -BCN_ETRUNC) {
			fprintf(stderr, "rawsend: bad frame from server: %s\n", bcn_strerror(rc));
			exit(1);
		}
		if (poll(&pfd, 1, WAIT_MS) <= 0)
			return -1;
		bcn_buf_reserve(&p->in, 65536);
		n = read(p->fd, p->in.data + p->in.len, 65536);
		if (n <= 0) {
			p->closed = 1;
			return 0;
		}
		p->in.len += (size_t)n;
	}
}

/* Sends one whole frame, sealed once the handshake is done. */
static int send_frame(struct peer *p, const uint8_t *frame, size_t len)
{
	struct bcn_buf s;
	int rc;

	if (!p->sealed)
		return send_all(p, frame, len);
	bcn_buf_init(&s, (size_t)1 << 30);
	rc = bcn_seal_frame(&p->ac.tx, frame, len, &s);
	if (!rc)
		rc = send_all(p, s.data, s.len);
	bcn_buf_free(&s);
	return rc;
}

/* Seals frame[0..len) into out (the handshake must be done). */
static void seal_into(struct peer *p, const uint8_t *frame, size_t len,
		      struct bcn_buf *out)
{
	if (bcn_seal_frame(&p->ac.tx, frame, len, out)) {
		fprintf(stderr, "rawsend: cannot seal\n");
		exit(1);
	}
}

static int handshake(struct peer *p, const struct bcn_auth_key *key, const char *node)
{
	struct bcn_auth_client *ac = &p->ac;
	struct bcn_buf out;
	int rc = -1;

	bcn_buf_init(&out, 4096);
	if (bcn_auth_client_init(ac, key, node) || bcn_auth_client_start(ac, &out))
		goto done;
	while (ac->state != BCN_AUTH_ESTABLISHED) {
		if (send_all(p, out.data, out.len) || read_frame(p) != 1)
			goto done;
		bcn_buf_reset(&out);
		if (bcn_auth_client_step(ac, &p->f, &out) < 0)
			goto done;
	}
	p->sealed = 1;
	rc = 0;
done:
	bcn_buf_free(&out);
	return rc;
}

/* Waits for n acknowledgements, or the end of the connection. */
static void wait_acks(struct peer *p, uint64_t n)
{
	uint64_t got = 0;

	while (got < n && read_frame(p) == 1) {
		if (p->f.hdr.kind != BCN_FRAME_ACK)
			continue;
		p->acks[p->f.ack_status]++;
		got++;
	}
}

/* Waits until the server closes the connection (bounded). */
static void wait_close(struct peer *p)
{
	while (!p->closed && read_frame(p) == 1)
		if (p->f.hdr.kind == BCN_FRAME_ACK)
			p->acks[p->f.ack_status]++;
}

static void one_frame(struct bcn_buf *out, const char *node, uint64_t seq)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_record r;

	bcn_frame_builder_init(&b, &lim, 1);
	bcn_record_init(&r, BCN_REC_IO);
	r.t = 1700000000000000000ll + (int64_t)seq;
	r.u.io.op = BCN_IO_WRITE;
	r.u.io.size = 4096;
	bcn_frame_builder_add(&b, &r);
	bcn_frame_builder_finish(&b, node, seq, out);
	bcn_frame_builder_free(&b);
}

static void reseal(uint8_t *p, size_t len)
{
	uint32_t crc = (uint32_t)crc32(0, p, 28);

	crc = (uint32_t)crc32(crc, p + 32, (uInt)(len - 32));
	for (int i = 0; i < 4; i++)
		p[28 + i] = (uint8_t)(crc >> (8 * i));
}

static uint64_t send_file(struct peer *p, const char *path)
{
	struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_reader rd;
	struct bcn_frame f;
	uint64_t at, n = 0;
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	bcn_frame_reader_init(&rd, fd, &lim);
	bcn_frame_init(&f);
	while ((rc = bcn_frame_reader_next(&rd, &f, &at)) != 0) {
		if (rc < 0)
			continue;
		const uint8_t *raw;
		size_t len;

		/* resend the frame's bytes as they were */
		if (f.hdr.kind == BCN_FRAME_DATA && bcn_frame_reader_last(&rd, &raw, &len) == 0 &&
		    send_frame(p, raw, len) == 0)
			n++;
	}
	bcn_frame_free(&f);
	bcn_frame_reader_free(&rd);
	close(fd);
	return n;
}

static void run_mode(struct peer *p, const char *mode, const char *node, const char *file)
{
	struct bcn_buf w;

	bcn_buf_init(&w, 1 << 20);
	if (!strcmp(mode, "frames")) {
		wait_acks(p, send_file(p, file));
	} else if (!strcmp(mode, "garbage")) {
		for (int i = 0; i < 4096; i++)
			bcn_buf_add(&w, &(uint8_t){ (uint8_t)(rand() & 0xff) }, 1);
		send_all(p, w.data, w.len);
		wait_close(p);
	} else if (!strcmp(mode, "wrongnode")) {
		one_frame(&w, "intruder", 1);
		send_frame(p, w.data, w.len);
		wait_close(p);
	} else if (!strcmp(mode, "badcrc")) {
		struct bcn_buf sw;

		bcn_buf_init(&sw, 1 << 20);
		one_frame(&w, node, 1);
		seal_into(p, w.data, w.len, &sw);
		sw.data[28] ^= 0xff;
		send_all(p, sw.data, sw.len);
		bcn_buf_free(&sw);
		wait_close(p);
	} else if (!strcmp(mode, "corrupt")) {
		one_frame(&w, node, 1);
		w.data[12] = 2;         /* record count 2, payload holds 1 */
		reseal(w.data, w.len);
		send_frame(p, w.data, w.len);
		bcn_buf_reset(&w);
		one_frame(&w, node, 2);
		send_frame(p, w.data, w.len);
		wait_acks(p, 2);
	} else if (!strcmp(mode, "nomac")) {
		one_frame(&w, node, 1000);      /* a new sequence number */
		send_all(p, w.data, w.len);
		wait_close(p);
	} else if (!strcmp(mode, "badmac") || !strcmp(mode, "replay")) {
		struct bcn_buf sw;

		bcn_buf_init(&sw, 1 << 20);
		/* badmac: a new sequence number; replay: an old one, whose
		 * first copy is a legitimate duplicate */
		one_frame(&w, node, strcmp(mode, "badmac") ? 2 : 1001);
		seal_into(p, w.data, w.len, &sw);
		if (!strcmp(mode, "badmac")) {
			sw.data[sw.len - 1] ^= 0x01;
			reseal(sw.data, sw.len);
		} else {
			bcn_buf_add(&sw, sw.data, sw.len);
		}
		send_all(p, sw.data, sw.len);
		bcn_buf_free(&sw);
		wait_close(p);
	} else if (!strcmp(mode, "toobig")) {
		one_frame(&w, node, 1);
		w.data[8] = w.data[9] = w.data[10] = 0;
		w.data[11] = 0x40;
		send_all(p, w.data, BCN_FRAME_HDR_LEN);
		wait_close(p);
	} else if (!strcmp(mode, "badversion")) {
		one_frame(&w, node, 1);
		w.data[4] = 9;
		send_all(p, w.data, w.len);
		wait_close(p);
	} else if (!strcmp(mode, "shortbody")) {
		one_frame(&w, node, 1);
		w.data[7] = 10;
		w.data[8] = 5;
		w.data[9] = w.data[10] = w.data[11] = 0;
		reseal(w.data, BCN_FRAME_HDR_LEN);
		send_all(p, w.data, BCN_FRAME_HDR_LEN);
		wait_close(p);
	} else if (!strcmp(mode, "truncated")) {
		one_frame(&w, node, 1);
		send_all(p, w.data, w.len / 2);
	} else {
		fprintf(stderr, "rawsend: unknown mode %s\n", mode);
		exit(2);
	}
	bcn_buf_free(&w);
}

int main(int argc, char **argv)
{
	struct bcn_auth_key key;
	struct peer p;
	char err[256];
	int hs = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: rawsend HOST:PORT KEYFILE|- NODE MODE [FILE]\n");
		return 2;
	}
	memset(&p, 0, sizeof(p));
	p.lim = (struct bcn_frame_limits)BCN_FRAME_LIMITS_DEFAULT;
	bcn_buf_init(&p.in, 1 << 24);
	bcn_frame_init(&p.f);
	p.fd = connect_to(argv[1]);
	if (p.fd < 0) {
		fprintf(stderr, "rawsend: cannot connect to %s\n", argv[1]);
		return 1;
	}
	if (strcmp(argv[4], "v1hello") == 0) {
		struct bcn_buf w;
		uint8_t nonce[BCN_AUTH_LEN] = { 1 };

		bcn_buf_init(&w, 1 << 16);
		bcn_frame_ctl_encode(BCN_FRAME_HELLO, argv[3], nonce, &w);
		w.data[4] = 1;
		reseal(w.data, w.len);
		send_all(&p, w.data, w.len);
		wait_close(&p);
		bcn_buf_free(&w);
		hs = -1;
	} else if (strcmp(argv[4], "noauth") == 0) {
		struct bcn_buf w;

		bcn_buf_init(&w, 1 << 16);
		one_frame(&w, argv[3], 1);
		send_all(&p, w.data, w.len);
		wait_close(&p);
		bcn_buf_free(&w);
		hs = -1;
	} else {
		if (strcmp(argv[2], "-") && bcn_auth_key_load(argv[2], &key, err, sizeof(err))) {
			fprintf(stderr, "rawsend: %s\n", err);
			return 1;
		}
		hs = strcmp(argv[2], "-") ? handshake(&p, &key, argv[3]) : 0;
		if (hs == 0)
			run_mode(&p, argv[4], argv[3], argc > 5 ? argv[5] : NULL);
		else
			wait_close(&p);
	}
	printf("{\"handshake\":\"%s\",\"stored\":%" PRIu64 ",\"duplicate\":%" PRIu64
	       ",\"rejected\":%" PRIu64 ",\"closed\":%s,\"bad_acks\":%" PRIu64 "}\n",
	       hs == 0 ? "ok" : "failed", p.acks[BCN_ACK_STORED],
	       p.acks[BCN_ACK_DUPLICATE], p.acks[BCN_ACK_REJECTED],
	       p.closed ? "true" : "false", p.bad_acks);
	close(p.fd);
	bcn_frame_free(&p.f);
	bcn_buf_free(&p.in);
	return 0;
}
