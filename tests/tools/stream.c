/* Test collector: streams a known, numbered set of records through the
 * sender library, at a steady pace, so that faults can be injected while
 * it runs; then flushes and prints the sender's counters as one JSON line.
 * Record i (from 0) is an io record with offset i, so that a check can
 * find every record in the store exactly once. After each frame it writes
 * "progress: acked_frames=N" to stderr, so that a test can place a fault
 * once N frames were acknowledged.
 *
 * usage: stream CONFIG FRAMES RECORDS_PER_FRAME INTERVAL_MS
 * CONFIG uses the sender's keys (node, server, shardmap, key_file, send_*). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/config.h"
#include "common/error.h"
#include "common/log.h"
#include "delivery/sender.h"

struct conf {
	char node[BCN_NODE_MAX + 1];
	int64_t flush_ms;
	struct bcn_sender_conf send;
};

static const struct bcn_config_opt options[] = {
	{ "node", BCN_CFG_STRING, BCN_CFG_MEMBER(struct conf, node), .min = 1,
	  .help = "Node name." },
	{ "flush_timeout", BCN_CFG_DURATION, BCN_CFG_MEMBER(struct conf, flush_ms),
	  .def = "120s", .help = "How long to wait for the last acknowledgements." },
	BCN_SENDER_CONFIG_OPTS(struct conf, send),
	{ .name = NULL }
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	static struct conf c;
	struct bcn_sender_stats st;
	struct bcn_frame_builder b;
	struct bcn_sender *s;
	struct bcn_record r;
	struct bcn_buf out;
	char err[256];
	long frames, per, pace;
	uint64_t n = 0;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: stream CONFIG FRAMES RECORDS_PER_FRAME INTERVAL_MS\n");
		return 2;
	}
	frames = strtol(argv[2], NULL, 10);
	per = strtol(argv[3], NULL, 10);
	pace = strtol(argv[4], NULL, 10);
	bcn_log_open("stream", BCN_LOG_DEST_STDERR, BCN_LOG_NOTICE);
	if (bcn_config_defaults(options, &c, err, sizeof(err)) ||
	    bcn_config_load(options, &c, argv[1], err, sizeof(err))) {
		fprintf(stderr, "stream: %s\n", err);
		return 2;
	}
	snprintf(c.send.node, sizeof(c.send.node), "%s", c.node);
	rc = bcn_sender_open(&c.send, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "stream: %s\n", err);
		return 1;
	}
	bcn_frame_builder_init(&b, &lim, 1);
	for (long f = 0; f < frames; f++) {
		for (long i = 0; i < per; i++, n++) {
			bcn_record_init(&r, BCN_REC_IO);
			r.t = 1700000000000000000ll + (int64_t)n * 1000;
			r.dur = 500;
			r.job = 77;
			r.u.io.op = BCN_IO_WRITE;
			r.u.io.fd = 3;
			r.u.io.offset = n;
			r.u.io.size = 4096;
			bcn_frame_builder_add(&b, &r);
		}
		rc = bcn_sender_submit_builder(s, &b, NULL);
		if (rc) {
			fprintf(stderr, "stream: submit: %s\n", bcn_strerror(rc));
			return 1;
		}
		bcn_sender_stats(s, &st);
		fprintf(stderr, "progress: acked_frames=%" PRIu64 "\n",
			st.acked_frames);
		if (pace > 0)
			sleep_ms(pace);
	}
	rc = bcn_sender_flush(s, c.flush_ms);
	bcn_sender_stats(s, &st);
	bcn_buf_init(&out, 1 << 16);
	bcn_sender_stats_json(&st, &out);
	printf("{\"records\":%" PRIu64 ",\"flushed\":%s,%.*s}\n", n,
	       rc == 0 ? "true" : "false", (int)out.len, (const char *)out.data);
	bcn_buf_free(&out);
	bcn_sender_close(s);
	bcn_frame_builder_free(&b);
	return rc == 0 ? 0 : 1;
}
