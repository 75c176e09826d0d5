/* Unit tests of delivery/sender that need no server: endpoint syntax,
 * configuration checks, what submit accepts, sequence numbering, the
 * drop-oldest accounting of a full buffer while the log server refuses
 * connections (a port bound but not listening), flush and wait timeouts,
 * and the statistics helpers. Delivery itself is tested against a real
 * server by tests/integration/sender_*.sh. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/error.h"
#include "proto/frame.h"
#include "common/log.h"
#include "delivery/sender.h"

static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;

struct fixture {
	char dir[64];
	char key[128];
	int refuse_fd;                  /* bound, not listening */
	unsigned port;
	struct bcn_sender_conf conf;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t sl = sizeof(a);
	FILE *f;

	assert_non_null(fx);
	bcn_log_set_level(BCN_LOG_ERR);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/bcn_sender_test.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->key, sizeof(fx->key), "%s/site.key", fx->dir);
	f = fopen(fx->key, "w");
	assert_non_null(f);
	fputs("000102030405060708090a0b0c0d0e0f"
	      "101112131415161718191a1b1c1d1e1f\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(fx->key, 0600), 0);
	fx->refuse_fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fx->refuse_fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fx->refuse_fd, (struct sockaddr *)&a, sl), 0);
	assert_int_equal(getsockname(fx->refuse_fd, (struct sockaddr *)&a, &sl), 0);
	fx->port = ntohs(a.sin_port);
	assert_int_equal(bcn_sender_conf_defaults(&fx->conf), 0);
	snprintf(fx->conf.node, sizeof(fx->conf.node), "cn001");
	snprintf(fx->conf.key_file, sizeof(fx->conf.key_file), "%s", fx->key);
	snprintf(fx->conf.servers[0], sizeof(fx->conf.servers[0]),
		 "127.0.0.1:%u", fx->port);
	fx->conf.nservers = 1;
	fx->conf.first_seq = 1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char path[160];

	close(fx->refuse_fd);
	unlink(fx->key);
	snprintf(path, sizeof(path), "%s/map", fx->dir);
	unlink(path);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static int ep(const char *s, struct bcn_shard_endpoint *e)
{
	return bcn_sender_endpoint_parse(s, strlen(s), e);
}

static void test_endpoint_parse(void **state)
{
	struct bcn_shard_endpoint e;
	char host[300];

	assert_int_equal(ep("logsrv1:7070", &e), 0);
	assert_string_equal(e.host, "logsrv1");
	assert_int_equal(e.port, 7070);
	assert_false(e.ipv6);
	assert_int_equal(ep("10.0.0.1:1", &e), 0);
	assert_int_equal(e.port, 1);
	assert_int_equal(ep("[::1]:65535", &e), 0);
	assert_string_equal(e.host, "::1");
	assert_int_equal(e.port, 65535);
	assert_true(e.ipv6);
	assert_int_equal(ep("[fd00::4]:7070", &e), 0);
	assert_int_equal(ep("a_b-c.d:80", &e), 0);

	assert_int_equal(ep("logsrv1", &e), -BCN_ESYNTAX);
	assert_int_equal(e.port, 0);
	assert_int_equal(ep("logsrv1:", &e), -BCN_ESYNTAX);
	assert_int_equal(ep(":80", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("h:8a", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("h:-1", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("h:0", &e), -BCN_ERANGE);
	assert_int_equal(ep("h:65536", &e), -BCN_ERANGE);
	assert_int_equal(ep("h:123456", &e), -BCN_ERANGE);
	assert_int_equal(ep("fe80::1:7070", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("[zz]:80", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("[::1]80", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("[::1]:", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("[]:80", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("[::1:80", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("ho st:80", &e), -BCN_ESYNTAX);
	assert_int_equal(ep("", &e), -BCN_ESYNTAX);
	memset(host, 'h', 256);
	snprintf(host + 256, sizeof(host) - 256, ":80");
	assert_int_equal(ep(host, &e), -BCN_ERANGE);
	/* only len bytes count */
	assert_int_equal(bcn_sender_endpoint_parse("h:80xyz", 4, &e), 0);
	assert_string_equal(e.host, "h");
	assert_int_equal(e.port, 80);
}

static void test_conf_defaults(void **state)
{
	struct bcn_sender_conf c;

	assert_int_equal(bcn_sender_conf_defaults(&c), 0);
	assert_int_equal(c.buffer_bytes, 8u << 20);
	assert_int_equal(c.max_frame, 16u << 20);
	assert_int_equal(c.window, 256);
	assert_int_equal(c.backoff_min_ms, 200);
	assert_int_equal(c.backoff_max_ms, 30000);
	assert_int_equal(c.connect_timeout_ms, 5000);
	assert_int_equal(c.ack_timeout_ms, 30000);
	assert_int_equal(c.primary_retry_ms, 60000);
	assert_int_equal(c.first_seq, 0);
	assert_int_equal(c.nservers, 0);
	assert_string_equal(c.key_file, BCN_AUTH_KEY_DEFAULT_PATH);
	assert_string_equal(c.node, "");
}

static void expect_open_fails(const struct bcn_sender_conf *c, int code,
			      const char *needle)
{
	struct bcn_sender *s = (struct bcn_sender *)1;
	char err[1024];

	assert_int_equal(bcn_sender_open(c, &s, err, sizeof(err)), code);
	assert_null(s);
	assert_non_null(strstr(err, needle));
}

static void test_open_errors(void **state)
{
	struct fixture *fx = *state;
	struct bcn_sender_conf c;
	char map[160];
	FILE *f;

	c = fx->conf;
	c.node[0] = '\0';
	expect_open_fails(&c, -EINVAL, "node");
	c = fx->conf;
	c.nservers = 0;
	expect_open_fails(&c, -EINVAL, "no log server");
	c = fx->conf;
	snprintf(c.shardmap, sizeof(c.shardmap), "/nonexistent");
	expect_open_fails(&c, -EINVAL, "not both");
	c = fx->conf;
	snprintf(c.servers[0], sizeof(c.servers[0]), "fe80::1:7070");
	expect_open_fails(&c, -BCN_ESYNTAX, "fe80::1:7070");
	c = fx->conf;
	c.backoff_min_ms = c.backoff_max_ms + 1;
	expect_open_fails(&c, -EINVAL, "backoff");
	c = fx->conf;
	snprintf(c.key_file, sizeof(c.key_file), "%s/missing.key", fx->dir);
	expect_open_fails(&c, -ENOENT, "missing.key");
	c = fx->conf;
	assert_int_equal(chmod(fx->key, 0644), 0);
	expect_open_fails(&c, -EACCES, "chmod 600");
	assert_int_equal(chmod(fx->key, 0600), 0);
	/* a shard map that does not place the node */
	snprintf(map, sizeof(map), "%s/map", fx->dir);
	f = fopen(map, "w");
	assert_non_null(f);
	fprintf(f, "shard cn[100-200] primary=127.0.0.1:%u\n", fx->port);
	assert_int_equal(fclose(f), 0);
	c = fx->conf;
	c.nservers = 0;
	snprintf(c.shardmap, sizeof(c.shardmap), "%s", map);
	expect_open_fails(&c, -EINVAL, "in no shard");
}

static void test_open_shardmap(void **state)
{
	struct fixture *fx = *state;
	struct bcn_sender_conf c = fx->conf;
	struct bcn_sender *s;
	char map[160], err[512];
	FILE *f;

	snprintf(map, sizeof(map), "%s/map", fx->dir);
	f = fopen(map, "w");
	assert_non_null(f);
	fprintf(f, "shard cn[000-010] primary=127.0.0.1:%u "
		"fallback=[::1]:%u\n", fx->port, fx->port);
	assert_int_equal(fclose(f), 0);
	c.nservers = 0;
	snprintf(c.shardmap, sizeof(c.shardmap), "%s", map);
	assert_int_equal(bcn_sender_open(&c, &s, err, sizeof(err)), 0);
	bcn_sender_close(s);
	bcn_sender_close(NULL);
}

/* Builds one DATA frame of node with n identical records. */
static void make_frame(const char *node, uint64_t seq, int n,
		       struct bcn_buf *out)
{
	struct bcn_frame_builder b;
	struct bcn_record r;

	assert_int_equal(bcn_frame_builder_init(&b, &lim, 0), 0);
	for (int i = 0; i < n; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1700000000000000000ll;
		r.u.io.size = 4096;
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	}
	assert_int_equal(bcn_frame_builder_finish(&b, node, seq, out), 0);
	bcn_frame_builder_free(&b);
}

static void test_submit_checks(void **state)
{
	struct fixture *fx = *state;
	struct bcn_frame_builder b;
	struct bcn_sender_stats st;
	struct bcn_sender *s;
	struct bcn_buf fr;
	struct bcn_record r;
	char err[512];
	uint64_t seq = 99;
	size_t len1;

	assert_int_equal(bcn_sender_open(&fx->conf, &s, err, sizeof(err)), 0);
	bcn_buf_init(&fr, 1 << 24);
	/* another node's frame */
	make_frame("cn002", 7, 3, &fr);
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), -EINVAL);
	/* an ACK is not a DATA frame */
	bcn_buf_reset(&fr);
	assert_int_equal(bcn_frame_ack_encode(1, BCN_ACK_STORED, "cn001", &fr), 0);
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), -EINVAL);
	/* a damaged frame, a cut one, two frames at once */
	bcn_buf_reset(&fr);
	make_frame("cn001", 7, 3, &fr);
	len1 = fr.len;
	fr.data[fr.len - 1] ^= 1;
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), -EINVAL);
	fr.data[fr.len - 1] ^= 1;
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len - 1), -EINVAL);
	make_frame("cn001", 8, 3, &fr);
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), -EINVAL);
	assert_int_equal(bcn_sender_submit(s, fr.data, 10), -EINVAL);
	/* a good one: pre-built mode, numbering is refused now */
	assert_int_equal(bcn_sender_submit(s, fr.data, len1), 0);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 1), 0);
	bcn_record_init(&r, BCN_REC_IO);
	assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	assert_int_equal(bcn_sender_submit_builder(s, &b, &seq), -EINVAL);
	assert_int_equal(bcn_frame_builder_count(&b), 1);
	bcn_sender_stats(s, &st);
	assert_int_equal(st.submitted_frames, 1);
	assert_int_equal(st.submitted_records, 3);
	assert_int_equal(st.submitted_bytes, len1);
	assert_int_equal(st.buffered_frames, 1);
	bcn_sender_close(s);
	/* larger than the buffer */
	fx->conf.buffer_bytes = 4096;
	assert_int_equal(bcn_sender_open(&fx->conf, &s, err, sizeof(err)), 0);
	bcn_buf_reset(&fr);
	make_frame("cn001", 1, 2000, &fr);
	assert_true(fr.len > 4096);
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), -BCN_ETOOBIG);
	assert_int_equal(bcn_sender_wait_space(s, fr.len, 0), -BCN_ETOOBIG);
	bcn_sender_close(s);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&fr);
}

static void test_numbering(void **state)
{
	struct fixture *fx = *state;
	struct bcn_frame_builder b;
	struct bcn_buf fr;
	struct bcn_sender *s;
	struct bcn_record r;
	char err[512];
	uint64_t seq = 99;

	fx->conf.first_seq = 41;
	assert_int_equal(bcn_sender_open(&fx->conf, &s, err, sizeof(err)), 0);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 1), 0);
	/* empty: nothing sent, no number used */
	assert_int_equal(bcn_sender_submit_builder(s, &b, &seq), 0);
	assert_int_equal(seq, 0);
	for (uint64_t want = 41; want < 45; want++) {
		bcn_record_init(&r, BCN_REC_IO);
		assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
		assert_int_equal(bcn_sender_submit_builder(s, &b, &seq), 0);
		assert_int_equal(seq, want);
		assert_int_equal(bcn_frame_builder_count(&b), 0);
	}
	/* numbering mode refuses pre-built frames */
	bcn_buf_init(&fr, 1 << 20);
	make_frame("cn001", 1, 1, &fr);
	assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), -EINVAL);
	bcn_buf_free(&fr);
	bcn_sender_close(s);
	bcn_frame_builder_free(&b);
	/* the default origin is the clock, in microseconds */
	assert_true(bcn_sender_seq_origin() > 1600000000ull * 1000000ull);
}

static void test_drop_oldest(void **state)
{
	struct fixture *fx = *state;
	struct bcn_sender_stats st;
	struct bcn_sender *s;
	struct bcn_buf fr;
	char err[512];
	size_t len;

	bcn_buf_init(&fr, 1 << 20);
	make_frame("cn001", 1, 40, &fr);
	len = fr.len;
	assert_true(10 * len > 1024);
	/* room for exactly 10 frames and a half */
	fx->conf.buffer_bytes = 10 * len + len / 2;
	fx->conf.backoff_min_ms = 10;
	fx->conf.backoff_max_ms = 20;
	assert_int_equal(bcn_sender_open(&fx->conf, &s, err, sizeof(err)), 0);
	for (uint64_t i = 1; i <= 50; i++) {
		bcn_buf_reset(&fr);
		make_frame("cn001", i, 40, &fr);
		assert_int_equal(fr.len, len);
		assert_int_equal(bcn_sender_submit(s, fr.data, fr.len), 0);
	}
	assert_int_equal(bcn_sender_flush(s, 20), -ETIMEDOUT);
	assert_int_equal(bcn_sender_wait_space(s, len, 20), -ETIMEDOUT);
	assert_int_equal(bcn_sender_wait_space(s, len / 2, 0), 0);
	bcn_sender_stats(s, &st);
	assert_int_equal(st.submitted_frames, 50);
	assert_int_equal(st.dropped_frames, 40);
	assert_int_equal(st.dropped_records, 40 * 40);
	assert_int_equal(st.dropped_bytes, 40 * len);
	assert_int_equal(st.buffered_frames, 10);
	assert_int_equal(st.buffered_records, 10 * 40);
	assert_int_equal(st.buffered_bytes, 10 * len);
	assert_int_equal(st.acked_frames, 0);
	assert_int_equal(st.rejected, 0);
	assert_int_equal(st.connects, 0);
	assert_int_equal(st.connected, 0);
	assert_int_equal(st.submitted_frames,
			 st.acked_frames + st.dropped_frames + st.buffered_frames);
	assert_int_equal(st.submitted_bytes,
			 st.acked_bytes + st.dropped_bytes + st.buffered_bytes);
	bcn_sender_close(s);
	bcn_buf_free(&fr);
}

static void test_stats_helpers(void **state)
{
	struct bcn_sender_stats a, b;
	struct bcn_buf j;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.submitted_frames = 3;
	a.dropped_bytes = 10;
	b.submitted_frames = 4;
	b.ack_timeouts = 2;
	b.connected = 1;
	b.last_error = -ECONNREFUSED;
	bcn_sender_stats_add(&a, &b);
	assert_int_equal(a.submitted_frames, 7);
	assert_int_equal(a.dropped_bytes, 10);
	assert_int_equal(a.ack_timeouts, 2);
	assert_int_equal(a.connected, 1);
	assert_int_equal(a.last_error, -ECONNREFUSED);
	bcn_buf_init(&j, 1 << 16);
	assert_int_equal(bcn_sender_stats_json(&a, &j), 0);
	assert_int_equal(bcn_buf_add(&j, "", 1), 0);
	assert_non_null(strstr((char *)j.data, "\"submitted_frames\":7,"));
	assert_non_null(strstr((char *)j.data, "\"ack_timeouts\":2,"));
	assert_non_null(strstr((char *)j.data, "\"connected\":true"));
	assert_non_null(strstr((char *)j.data, "\"last_error\":\"Connection refused\""));
	assert_int_equal(j.data[0], '"');
	bcn_buf_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint_parse),
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_shardmap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_submit_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_numbering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_oldest, setup,
						teardown),
		cmocka_unit_test(test_stats_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
