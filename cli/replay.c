/* beacon replay (--to HOST:PORT | --shardmap FILE) [--key FILE]
 * [--node NAME] FILE...: sends the DATA frames of frame streams (files
 * written with --output) to log servers through the sender library,
 * unchanged: each frame keeps its node and sequence number, so replaying
 * a file twice stores nothing twice (the server drops duplicates by
 * (node, seq)). One sender per node, since a connection carries one
 * node's frames. Unlike a collector, replay waits for room in the buffer
 * instead of dropping frames. At the end it flushes and prints the totals
 * of the senders' counters as one JSON line; the exit status is 0 only if
 * every frame was read intact and acknowledged. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/stream.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/error.h"
#include "proto/frame_reader.h"
#include "common/log.h"
#include "delivery/sender.h"

#define REPLAY_MAX_NODES 64     /* senders, so connections, at once */
#define REPLAY_ERR_MAX 1024

struct replay_conf {
	struct bcn_sender_conf send;    /* the template of every sender */
	char node[BCN_NODE_MAX + 1];    /* only this node's frames */
	int64_t timeout_ms;
	int log_level;
};

static const struct bcn_config_opt tab[] = {
	{ "to", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct replay_conf, send.servers, send.nservers),
	  .min = 1, .help = "Log server HOST:PORT or [IPV6]:PORT; repeat for "
			    "fallbacks, in order of preference." },
	{ "shardmap", BCN_CFG_PATH,
	  BCN_CFG_MEMBER(struct replay_conf, send.shardmap),
	  .help = "Instead of --to: send each node's frames to the servers "
		  "of its shard." },
	{ "key", BCN_CFG_PATH, BCN_CFG_MEMBER(struct replay_conf, send.key_file),
	  .min = 1, .def = BCN_AUTH_KEY_DEFAULT_PATH,
	  .help = "Site key file (hex, mode 0600)." },
	{ "node", BCN_CFG_STRING, BCN_CFG_MEMBER(struct replay_conf, node),
	  .help = "Replay only the frames of this node." },
	{ "timeout", BCN_CFG_DURATION,
	  BCN_CFG_MEMBER(struct replay_conf, timeout_ms), .min = 0,
	  .max = 86400000, .def = "60s",
	  .help = "Give up after waiting this long for room in the buffer, "
		  "or for the last acknowledgements." },
	{ "log_level", BCN_CFG_ENUM,
	  BCN_CFG_MEMBER(struct replay_conf, log_level),
	  .words = bcn_log_level_names, .def = "warning",
	  .help = "Logging threshold." },
	BCN_SENDER_CONFIG_TUNING(struct replay_conf, send),
	{ .name = NULL }
};

struct replay {
	struct replay_conf conf;
	struct bcn_sender *snd[REPLAY_MAX_NODES];
	char nodes[REPLAY_MAX_NODES][BCN_NODE_MAX + 1];
	size_t nsnd;
	uint64_t files, frames, skipped, bad, unsent;
	bool stalled;
};

/* The sender of node, opened on first use. */
static int sender_for(struct replay *r, const char *node,
		      struct bcn_sender **out)
{
	struct bcn_sender_conf c;
	char err[REPLAY_ERR_MAX];
	int rc;

	for (size_t i = 0; i < r->nsnd; i++)
		if (!strcmp(r->nodes[i], node)) {
			*out = r->snd[i];
			return 0;
		}
	if (r->nsnd == REPLAY_MAX_NODES) {
		fprintf(stderr, "beacon replay: more than %d nodes in the input; "
			"replay them in groups with --node\n", REPLAY_MAX_NODES);
		return -BCN_EFULL;
	}
	c = r->conf.send;
	snprintf(c.node, sizeof(c.node), "%s", node);
	rc = bcn_sender_open(&c, out, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon replay: %s\n", err);
		return rc;
	}
	snprintf(r->nodes[r->nsnd], sizeof(r->nodes[0]), "%s", node);
	r->snd[r->nsnd++] = *out;
	return 0;
}

/* Sends one opened frame. Returns 0, or a negative code to stop. */
static int replay_frame(struct replay *r, const struct bcn_frame_reader *rd,
			const struct bcn_frame *f, const char *name)
{
	struct bcn_sender *s;
	const uint8_t *p;
	size_t len;
	int rc;

	r->frames++;
	if (f->hdr.kind != BCN_FRAME_DATA ||
	    (r->conf.node[0] && strcmp(f->node, r->conf.node))) {
		r->skipped++;
		return 0;
	}
	rc = bcn_frame_reader_last(rd, &p, &len);
	if (!rc)
		rc = sender_for(r, f->node, &s);
	if (rc)
		return rc;
	rc = bcn_sender_wait_space(s, len, r->conf.timeout_ms);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "beacon replay: no room in the buffer of node "
			"%s for %" PRId64 " ms: the log server does not "
			"acknowledge; giving up\n", f->node, r->conf.timeout_ms);
		r->stalled = true;
		return rc;
	}
	if (!rc)
		rc = bcn_sender_submit(s, p, len);
	if (rc) {
		fprintf(stderr, "beacon replay: %s: frame %" PRIu64 " of %s: %s\n",
			name, f->hdr.seq, f->node, bcn_strerror(rc));
		r->unsent++;
	}
	return 0;
}

static int replay_frame_cb(void *arg, const struct bcn_frame_reader *rd,
			   struct bcn_frame *f, const char *path, uint64_t at)
{
	(void)at;
	return replay_frame(arg, rd, f, path);
}

/* Flushes every sender, prints the totals; returns the exit status. */
static int finish(struct replay *r, int rc)
{
	int64_t deadline = bcn_mono_ms() + (r->stalled ? 0 : r->conf.timeout_ms);
	struct bcn_sender_stats tot, st;
	struct bcn_buf out;
	bool ok;

	memset(&tot, 0, sizeof(tot));
	for (size_t i = 0; i < r->nsnd; i++) {
		int64_t left = deadline - bcn_mono_ms();

		bcn_sender_flush(r->snd[i], left > 0 ? left : 0);
		bcn_sender_stats(r->snd[i], &st);
		bcn_sender_stats_add(&tot, &st);
	}
	ok = !rc && !r->bad && !r->unsent && !tot.dropped_frames &&
	     !tot.buffered_frames;
	bcn_buf_init(&out, 1 << 16);
	rc = bcn_buf_printf(&out, "{\"files\":%" PRIu64 ",\"frames_read\":%"
			    PRIu64 ",\"skipped_frames\":%" PRIu64
			    ",\"bad_frames\":%" PRIu64 ",\"unsent_frames\":%"
			    PRIu64 ",\"nodes\":%zu,\"complete\":%s,",
			    r->files, r->frames, r->skipped, r->bad, r->unsent,
			    r->nsnd, ok ? "true" : "false");
	if (!rc)
		rc = bcn_sender_stats_json(&tot, &out);
	if (!rc)
		rc = bcn_buf_adds(&out, "}\n");
	if (rc || fwrite(out.data, 1, out.len, stdout) != out.len ||
	    fflush(stdout))
		ok = false;
	bcn_buf_free(&out);
	if (!ok && tot.buffered_frames)
		fprintf(stderr, "beacon replay: %" PRIu64 " frames not "
			"acknowledged%s%s\n", tot.buffered_frames,
			tot.last_error ? ": " : "",
			tot.last_error ? bcn_strerror(tot.last_error) : "");
	for (size_t i = 0; i < r->nsnd; i++)
		bcn_sender_close(r->snd[i]);
	return ok ? 0 : 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: beacon replay (--to HOST:PORT | --shardmap FILE) "
		"[--key FILE] [--node NAME]\n"
		"                     [OPTIONS] FILE...\n"
		"Sends the DATA frames of frame streams (FILE '-' is standard\n"
		"input) to log servers through the sender library, each with its\n"
		"own node and sequence number, waits for their acknowledgements\n"
		"and prints the totals of the sender counters (docs/sender.md) as\n"
		"one JSON line. Exit status 0 only when every frame was read\n"
		"intact and acknowledged.\n\n");
	bcn_config_help(tab, out);
}

int bcn_cmd_replay(int argc, char **argv)
{
	static struct replay r;
	char err[REPLAY_ERR_MAX];
	int rc, argi = argc;

	memset(&r, 0, sizeof(r));
	rc = bcn_config_getopt(tab, &r.conf, argc, argv, &argi, err,
			       sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		usage(stdout);
		return 0;
	}
	if (rc == BCN_CONFIG_DUMP) {
		struct bcn_buf d;

		bcn_buf_init(&d, BCN_CFG_FILE_MAX);
		rc = bcn_config_dump(tab, &r.conf, &d);
		if (!rc && fwrite(d.data, 1, d.len, stdout) != d.len)
			rc = -EIO;
		bcn_buf_free(&d);
		return rc ? 1 : 0;
	}
	if (rc) {
		fprintf(stderr, "beacon replay: %s\n", err);
		return 2;
	}
	if (argi < argc && !strcmp(argv[argi], "--"))
		argi++;
	if (argi == argc || (!r.conf.send.nservers) == (!r.conf.send.shardmap[0])) {
		usage(stderr);
		return 2;
	}
	bcn_log_open("beacon replay", BCN_LOG_DEST_STDERR, r.conf.log_level);
	for (rc = 0; argi < argc && !rc; argi++) {
		r.files++;
		rc = bcn_cli_each_frame("replay", argv[argi], replay_frame_cb, &r, &r.bad);
		if (rc && rc != -ETIMEDOUT && rc < -BCN_ERR_BASE)
			fprintf(stderr, "beacon replay: %s: %s\n", argv[argi], bcn_strerror(rc));
	}
	return finish(&r, rc);
}
