/* The baseline the archive is measured against (compress/archive.h):
 * the bytes of the DATA frames that carry a job's records, each node's
 * in time order, framed by the frame codec as a collector frames them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "compress/archive_int.h"
#include "proto/frame.h"

#define FRAME_RAW_CUT (1u << 20)        /* records per frame, raw bytes */

/* Finishes the builder's frame (if any) and counts its bytes. */
static int cut(struct bcn_frame_builder *b, const char *node, uint64_t *seq,
	       struct bcn_buf *wire, uint64_t *bytes)
{
	int rc;

	if (!bcn_frame_builder_count(b))
		return 0;
	bcn_buf_reset(wire);
	rc = bcn_frame_builder_finish(b, node, (*seq)++, wire);
	if (!rc)
		*bytes += wire->len;
	return rc;
}

static const char *frame_node(const char *node)
{
	size_t n = strnlen(node, BCN_NODE_MAX + 1);

	return n == 0 || n > BCN_NODE_MAX ? "?" : node;
}

static int frame_items(const struct arc_item *items, size_t n, int level,
		       uint64_t *bytes)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_buf wire;
	uint64_t seq = 0;
	int rc;

	rc = bcn_frame_builder_init(&b, &lim, level);
	if (rc)
		return rc;
	bcn_buf_init(&wire, (size_t)lim.max_body + 4096);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *node = frame_node(items[i].r->node);

		rc = bcn_frame_builder_add(&b, items[i].r);
		if (rc == -BCN_EFULL) {
			rc = cut(&b, node, &seq, &wire, bytes);
			if (!rc)
				rc = bcn_frame_builder_add(&b, items[i].r);
		}
		if (!rc && (i + 1 == n || bcn_frame_builder_size(&b) >=
			    FRAME_RAW_CUT || strcmp(items[i + 1].r->node,
						    items[i].r->node) != 0))
			rc = cut(&b, node, &seq, &wire, bytes);
	}
	bcn_buf_free(&wire);
	bcn_frame_builder_free(&b);
	return rc;
}

int bcn_archive_frame_bytes(const struct bcn_record *recs, size_t n,
			    int level, uint64_t *bytes)
{
	struct arc_item *items = calloc(n ? n : 1, sizeof(*items));
	int rc = 0;

	*bytes = 0;
	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		if (bcn_record_check(&recs[i]) || !recs[i].node)
			rc = -BCN_ERANGE;
		items[i] = (struct arc_item){ &recs[i], i };
	}
	if (!rc) {
		bcn_archive_sort_items(items, n);
		rc = frame_items(items, n, level, bytes);
	}
	free(items);
	return rc;
}
