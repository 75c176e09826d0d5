/* Tests of beacon-sim's scale-mode transport (sim/wire.c) without a log
 * server: settings are checked; frames for a server that refuses
 * connections stay within the queue budget, the oldest dropped and
 * counted, and the counters balance; a peer that answers the handshake
 * with garbage loses the connection, which is retried. (The exchange
 * with a real beacon-logsrv, including its restart, is
 * tests/integration/sim_scale.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/error.h"
#include "proto/frame.h"
#include "proto/record.h"
#include "sim/wire.h"

static struct bcn_auth_key key;

static struct bcn_sim_wire_conf conf(uint64_t queue)
{
	struct bcn_sim_wire_conf c = {
		.key = &key, .window = 4, .queue_bytes = queue,
		.backoff_min_ms = 10, .backoff_max_ms = 20,
		.ack_timeout_ms = 1000,
	};
	return c;
}

/* A loopback address; listening when listen_fd is not NULL, else a port
 * nothing listens on. */
static struct sockaddr_in loopback(int *listen_fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	if (listen_fd) {
		assert_int_equal(listen(fd, 8), 0);
		*listen_fd = fd;
	} else {
		close(fd);
	}
	return a;
}

static void fill(struct bcn_frame_builder *b, int n)
{
	struct bcn_record r;
	int i;

	for (i = 0; i < n; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1790000000000000000LL + i;
		r.u.io.op = BCN_IO_WRITE;
		r.u.io.file = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
		r.u.io.offset = (uint64_t)i << 20;
		r.u.io.size = 1 << 20;
		r.u.io.count = 1;
		assert_int_equal(bcn_frame_builder_add(b, &r), 0);
	}
}

static void test_settings(void **state)
{
	struct bcn_sim_wire_conf c = conf(4096);
	struct bcn_sim_wire *w = NULL;
	struct sockaddr_in a = loopback(NULL);

	(void)state;
	c.window = 0;
	assert_int_equal(bcn_sim_wire_new(&c, 2, &w), -EINVAL);
	c = conf(4096);
	assert_int_equal(bcn_sim_wire_new(&c, 2, &w), 0);
	assert_int_equal(bcn_sim_wire_add(w, 2, "cn00001",
					  (struct sockaddr *)&a, sizeof(a), 1),
			 -EINVAL);
	assert_int_equal(bcn_sim_wire_add(w, 0, "", (struct sockaddr *)&a,
					  sizeof(a), 1), -EINVAL);
	assert_int_equal(bcn_sim_wire_add(w, 0, "a-node-name-longer-than-31-bytes",
					  (struct sockaddr *)&a, sizeof(a), 1),
			 -EINVAL);
	assert_int_equal(bcn_sim_wire_add(w, 0, "cn00001",
					  (struct sockaddr *)&a, sizeof(a), 1),
			 0);
	assert_int_equal(bcn_sim_wire_add(w, 0, "cn00002",
					  (struct sockaddr *)&a, sizeof(a), 1),
			 -EINVAL);
	bcn_sim_wire_free(w);
}

static void test_bounded_queue(void **state)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_sim_wire_conf c = conf(8192);
	struct bcn_sim_wire_stats st;
	struct bcn_sim_wire *w = NULL;
	struct bcn_frame_builder b;
	struct sockaddr_in a = loopback(NULL);
	int i;

	(void)state;
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 0), 0);
	assert_int_equal(bcn_sim_wire_new(&c, 1, &w), 0);
	assert_int_equal(bcn_sim_wire_add(w, 0, "cn00001",
					  (struct sockaddr *)&a, sizeof(a), 1),
			 0);
	assert_int_equal(bcn_sim_wire_submit(w, 0, &b), 0);    /* empty */
	for (i = 0; i < 50; i++) {
		fill(&b, 10);
		assert_int_equal(bcn_sim_wire_submit(w, 0, &b), 0);
		assert_int_equal(bcn_sim_wire_pump(w, bcn_sim_wire_now() +
						   2000000), 0);
	}
	bcn_sim_wire_stats(w, &st);
	assert_int_equal(st.submitted_frames, 50);
	assert_int_equal(st.submitted_records, 500);
	assert_true(st.dropped_frames > 0);
	assert_true(st.queued_bytes <= 8192);
	assert_int_equal(st.acked_frames, 0);
	assert_int_equal(st.submitted_frames, st.acked_frames +
			 st.dropped_frames + st.queued_frames);
	assert_int_equal(st.submitted_records, st.acked_records +
			 st.dropped_records + st.queued_frames * 10);
	assert_true(st.connect_failures >= 1);
	assert_int_equal(st.up, 0);
	assert_int_equal(bcn_sim_wire_drain(w, bcn_sim_wire_now() + 50000000),
			 -ETIMEDOUT);
	bcn_sim_wire_free(w);
	bcn_frame_builder_free(&b);
}

static void test_garbage_peer(void **state)
{
	struct bcn_sim_wire_conf c = conf(65536);
	struct bcn_sim_wire_stats st;
	struct bcn_sim_wire *w = NULL;
	int lfd, peer = -1, i;
	struct sockaddr_in a = loopback(&lfd);
	static const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\n";

	(void)state;
	assert_int_equal(bcn_sim_wire_new(&c, 1, &w), 0);
	assert_int_equal(bcn_sim_wire_add(w, 0, "cn00001",
					  (struct sockaddr *)&a, sizeof(a), 1),
			 0);
	for (i = 0; i < 100 && peer < 0; i++) {
		assert_int_equal(bcn_sim_wire_pump(w, bcn_sim_wire_now() +
						   10000000), 0);
		peer = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
	}
	assert_true(peer >= 0);
	assert_int_equal(write(peer, junk, sizeof(junk) - 1),
			 (ssize_t)sizeof(junk) - 1);
	for (i = 0; i < 100; i++) {
		assert_int_equal(bcn_sim_wire_pump(w, bcn_sim_wire_now() +
						   10000000), 0);
		bcn_sim_wire_stats(w, &st);
		if (st.connect_failures)
			break;
	}
	assert_true(st.connect_failures >= 1);
	assert_int_equal(st.up, 0);
	assert_int_equal(st.connects, 0);
	close(peer);
	/* and it dials again after its backoff */
	peer = -1;
	for (i = 0; i < 100 && peer < 0; i++) {
		assert_int_equal(bcn_sim_wire_pump(w, bcn_sim_wire_now() +
						   10000000), 0);
		peer = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
	}
	assert_true(peer >= 0);
	close(peer);
	close(lfd);
	bcn_sim_wire_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_bounded_queue),
		cmocka_unit_test(test_garbage_peer),
	};

	if (bcn_auth_key_generate(&key, 32))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
