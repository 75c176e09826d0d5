/* Test helper: turns records given as JSON lines (as `beacon decode`
 * prints them; "node" names the sender) into a frame stream file that
 * `beacon replay` sends: one frame per run of consecutive records of one
 * node (at most 500 records), numbered per node from FIRST_SEQ (default
 * 1). Hand-built records for integration tests.
 * usage: jsonframes OUT [FIRST_SEQ] < records.jsonl */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "proto/frame.h"
#include "store/record_json.h"

#define NODES_MAX 256
#define PER_FRAME 500

static char nodes[NODES_MAX][BCN_NODE_MAX + 1];
static uint64_t seqs[NODES_MAX];
static size_t nnodes;
static uint64_t first_seq = 1;

static uint64_t next_seq(const char *node)
{
	size_t i;

	for (i = 0; i < nnodes && strcmp(nodes[i], node); i++)
		;
	if (i == nnodes) {
		if (nnodes == NODES_MAX) {
			fprintf(stderr, "jsonframes: too many nodes\n");
			exit(1);
		}
		snprintf(nodes[nnodes], sizeof(nodes[0]), "%s", node);
		seqs[nnodes++] = first_seq;
	}
	return seqs[i]++;
}

static void flush(struct bcn_frame_builder *b, const char *node,
		  struct bcn_buf *wire)
{
	int rc;

	if (!bcn_frame_builder_count(b))
		return;
	if ((rc = bcn_frame_builder_finish(b, node, next_seq(node), wire))) {
		fprintf(stderr, "jsonframes: frame: %s\n", bcn_strerror(rc));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	static struct bcn_record_arena arena;
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	char cur[BCN_NODE_MAX + 1] = "", err[256];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *out;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: jsonframes OUT [FIRST_SEQ] < records.jsonl\n");
		return 2;
	}
	if (argc == 3)
		first_seq = strtoull(argv[2], NULL, 10);
	if (bcn_frame_builder_init(&b, &lim, 0))
		return 1;
	bcn_buf_init(&wire, 1u << 30);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		struct bcn_record r;

		if (n <= 1)
			continue;
		bcn_record_arena_reset(&arena);
		if (bcn_record_from_json(line, (size_t)n - (line[n - 1] == '\n'),
					 &arena, &r, err, sizeof(err))) {
			fprintf(stderr, "jsonframes: %s: %s", err, line);
			return 1;
		}
		if (strcmp(cur, r.node) ||
		    bcn_frame_builder_count(&b) >= PER_FRAME) {
			flush(&b, cur, &wire);
			snprintf(cur, sizeof(cur), "%s", r.node);
		}
		if (bcn_frame_builder_add(&b, &r)) {
			fprintf(stderr, "jsonframes: bad record: %s", line);
			return 1;
		}
	}
	flush(&b, cur, &wire);
	free(line);
	if (!(out = fopen(argv[1], "wb")) ||
	    fwrite(wire.data, 1, wire.len, out) != wire.len || fclose(out)) {
		fprintf(stderr, "jsonframes: cannot write %s\n", argv[1]);
		return 1;
	}
	bcn_frame_builder_free(&b);
	bcn_buf_free(&wire);
	return 0;
}
