/* Test driver of the sender library: streams numbered frames of identical
 * content (so every frame has the same size) through one sender, then
 * flushes and prints the sender's counters as one JSON line. Its options
 * are the sender's own configuration table (BCN_SENDER_CONFIG_OPTS) plus
 * the ones below; see --help.
 *
 * Exit status: 0 when everything was acknowledged or dropped within the
 * flush timeout, 3 when the flush timed out, 1 on errors, 2 on usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/config.h"
#include "common/error.h"
#include "proto/frame.h"
#include "common/log.h"
#include "delivery/sender.h"

#define WAIT_FILE_MAX_MS (300 * 1000)   /* longest wait for --wait-file */
#define UNTIL_MAX_FRAMES 1000000        /* frames with --until-file */

struct opts {
	struct bcn_sender_conf send;
	uint64_t frames, records;
	int64_t pace_ms, flush_timeout_ms;
	char until_file[BCN_SENDER_PATH_MAX];
	char wait_file[BCN_SENDER_PATH_MAX];
	char stats_file[BCN_SENDER_PATH_MAX];
	int log_level;
};

static const struct bcn_config_opt tab[] = {
	{ "node", BCN_CFG_STRING, BCN_CFG_MEMBER(struct opts, send.node),
	  .min = 1, .def = "cn001", .help = "Node name of the frames." },
	BCN_SENDER_CONFIG_OPTS(struct opts, send),
	{ "frames", BCN_CFG_UINT, BCN_CFG_MEMBER(struct opts, frames),
	  .def = "100", .help = "Frames to send." },
	{ "records", BCN_CFG_UINT, BCN_CFG_MEMBER(struct opts, records),
	  .min = 1, .max = 100000, .def = "10",
	  .help = "Records per frame." },
	{ "pace", BCN_CFG_DURATION, BCN_CFG_MEMBER(struct opts, pace_ms),
	  .def = "0", .help = "Pause between frames." },
	{ "flush_timeout", BCN_CFG_DURATION,
	  BCN_CFG_MEMBER(struct opts, flush_timeout_ms), .def = "60s",
	  .help = "Longest wait for the last acknowledgements." },
	{ "until_file", BCN_CFG_PATH, BCN_CFG_MEMBER(struct opts, until_file),
	  .help = "Keep sending (frames is ignored) until this file exists." },
	{ "wait_file", BCN_CFG_PATH, BCN_CFG_MEMBER(struct opts, wait_file),
	  .help = "Before flushing, wait until this file exists." },
	{ "stats_file", BCN_CFG_PATH, BCN_CFG_MEMBER(struct opts, stats_file),
	  .help = "Write the counters there before flushing." },
	{ "log_level", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct opts, log_level),
	  .words = bcn_log_level_names, .def = "info",
	  .help = "Logging threshold." },
	{ .name = NULL }
};

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int build(struct bcn_frame_builder *b, uint64_t records)
{
	struct bcn_record r;
	int rc = 0;

	for (uint64_t i = 0; i < records && !rc; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = 1700000000000000000ll + (int64_t)i * 1000;
		r.dur = 500;
		r.job = 4242;
		r.u.io.op = BCN_IO_WRITE;
		r.u.io.fd = 3;
		r.u.io.size = 4096 + i;
		r.u.io.count = 1;
		rc = bcn_frame_builder_add(b, &r);
	}
	return rc;
}

static int print_stats(struct bcn_sender *s, FILE *out, const char *flush)
{
	struct bcn_sender_stats st;
	struct bcn_buf b;
	int rc;

	bcn_sender_stats(s, &st);
	bcn_buf_init(&b, 1 << 16);
	rc = bcn_buf_printf(&b, "{\"flush\":\"%s\",", flush);
	if (!rc)
		rc = bcn_sender_stats_json(&st, &b);
	if (!rc)
		rc = bcn_buf_adds(&b, "}\n");
	if (!rc && fwrite(b.data, 1, b.len, out) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc;
}

static int stream(struct opts *o, struct bcn_sender *s)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	uint64_t n = o->until_file[0] ? UNTIL_MAX_FRAMES : o->frames;
	int rc;

	rc = bcn_frame_builder_init(&b, &lim, 6);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < n && !rc; i++) {
		if (o->until_file[0] && access(o->until_file, F_OK) == 0)
			break;
		rc = build(&b, o->records);
		if (!rc)
			rc = bcn_sender_submit_builder(s, &b, NULL);
		if (!rc && o->pace_ms)
			sleep_ms(o->pace_ms);
	}
	bcn_frame_builder_free(&b);
	return rc;
}

int main(int argc, char **argv)
{
	static struct opts o;
	struct bcn_sender *s = NULL;
	char err[1024];
	int rc, argi, status = 0;

	rc = bcn_config_getopt(tab, &o, argc, argv, &argi, err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		printf("usage: sendtest [OPTIONS]\n");
		bcn_config_help(tab, stdout);
		return 0;
	}
	if (rc || argi != argc) {
		fprintf(stderr, "sendtest: %s\n", rc ? err : "unexpected argument");
		return 2;
	}
	bcn_log_open("sendtest", BCN_LOG_DEST_STDERR, o.log_level);
	rc = bcn_sender_open(&o.send, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sendtest: %s\n", err);
		return 1;
	}
	rc = stream(&o, s);
	if (rc) {
		fprintf(stderr, "sendtest: submit: %s\n", bcn_strerror(rc));
		status = 1;
	}
	if (o.stats_file[0]) {
		FILE *f = fopen(o.stats_file, "w");

		if (!f || print_stats(s, f, "pending") || fclose(f))
			status = 1;
	}
	for (int64_t w = 0; o.wait_file[0] && access(o.wait_file, F_OK) &&
	     w < WAIT_FILE_MAX_MS; w += 10)
		sleep_ms(10);
	rc = bcn_sender_flush(s, o.flush_timeout_ms);
	if (rc && !status)
		status = 3;
	if (print_stats(s, stdout, rc ? "timeout" : "ok"))
		status = 1;
	bcn_sender_close(s);
	return status;
}
