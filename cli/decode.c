/* beacon decode [--summary] FILE...: prints the records of frame streams
 * as JSON lines, or one summary line per (layer, job, node, op). Damaged
 * frames are reported on stderr with their offset and skipped; the exit
 * status is 1 if there were any. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/stream.h"
#include "cli/summary.h"
#include "common/error.h"
#include "proto/frame_reader.h"

#define OUT_FLUSH (64u << 10)

struct decode_ctx {
	int summary;
	struct bcn_summary sum;
	struct bcn_buf out;
	uint64_t records, frames, acks, bad;
};

static int flush_out(struct bcn_buf *out)
{
	if (out->len && fwrite(out->data, 1, out->len, stdout) != out->len)
		return -EIO;
	bcn_buf_reset(out);
	return 0;
}

static int emit(struct decode_ctx *c, const struct bcn_record *r)
{
	int rc;

	if (c->summary)
		return bcn_summary_add(&c->sum, r);
	rc = bcn_record_to_json(r, &c->out);
	if (!rc)
		rc = bcn_buf_add(&c->out, "\n", 1);
	if (!rc && c->out.len >= OUT_FLUSH)
		rc = flush_out(&c->out);
	return rc;
}

static int frame_records(void *arg, const struct bcn_frame_reader *rd,
			 struct bcn_frame *f, const char *name, uint64_t at)
{
	struct decode_ctx *c = arg;
	struct bcn_record r;
	int rc;

	if (f->hdr.kind == BCN_FRAME_ACK) {
		c->acks++;
		return 0;
	}
	/* validate first so a damaged frame contributes nothing */
	rc = bcn_frame_validate(f);
	if (rc) {
		fprintf(stderr, "beacon decode: %s: offset %" PRIu64
			": frame %" PRIu64 " from %s: %s\n", name, at,
			f->hdr.seq, f->node, bcn_strerror(rc));
		c->bad++;
		return 0;
	}
	c->frames++;
	while ((rc = bcn_frame_next(f, &r)) == 1) {
		c->records++;
		rc = emit(c, &r);
		if (rc)
			return rc;
	}
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: beacon decode [--summary] FILE...\n"
		"Prints the records of frame streams (FILE '-' is standard\n"
		"input) as one JSON object per line. With --summary, prints one\n"
		"object per (layer, job, node, op) with the keys layer, job,\n"
		"node, op, records, ops and bytes, in sorted order.\n");
}

int bcn_cmd_decode(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct decode_ctx c;
	int opt, rc = 0, status = 0;

	memset(&c, 0, sizeof(c));
	while ((opt = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		if (opt == 's') {
			c.summary = 1;
		} else {
			usage(opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	bcn_buf_init(&c.out, 4 * OUT_FLUSH);
	bcn_summary_init(&c.sum);
	for (int i = optind; i < argc && status == 0; i++)
		if (bcn_cli_each_frame("decode", argv[i], frame_records, &c, &c.bad))
			status = 1;
	rc = c.summary ? bcn_summary_print(&c.sum, &c.out, stdout)
		       : flush_out(&c.out);
	if (rc || fflush(stdout)) {
		fprintf(stderr, "beacon decode: writing output: %s\n",
			bcn_strerror(rc ? rc : -EIO));
		status = 1;
	}
	if (c.bad)
		status = 1;
	bcn_summary_free(&c.sum);
	bcn_buf_free(&c.out);
	return status;
}
