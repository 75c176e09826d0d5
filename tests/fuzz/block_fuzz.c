/* libFuzzer target: the store's block decoder (store/block.c) over
 * arbitrary bytes, within small limits (a block may claim no more than
 * they allow). Every block that decodes is encoded again from its
 * records, and that block must decode to the same records, in order:
 * identity, node, t and the JSON form of each.
 *
 * Seeds (corpus/block/), written by bcn_block_encode at level 3: ost-one
 * (one ost record), io-12 (12 io records of two nodes, 3 frames),
 * every-type-40 (40 records cycling through every record type). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "store/block.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_RECORDS 4096
#define FZ_JSON_MAX (64u << 20)

static const struct bcn_block_limits fz_lim = { FZ_RECORDS, 4096, 16u << 20 };

/* The records of the block at p as JSON lines with their identities. */
static int dump(const uint8_t *p, size_t len, struct bcn_buf *out,
		struct bcn_block_reader **keep)
{
	struct bcn_block_reader *b;
	struct bcn_record r;
	uint64_t seq;
	uint32_t idx;
	int rc = bcn_block_open(p, len, &fz_lim, &b);

	if (rc)
		return rc;
	while ((rc = bcn_block_next(b, &r, &seq, &idx)) == 1) {
		if (bcn_buf_printf(out, "%llu %u %s %lld ",
				   (unsigned long long)seq, idx, r.node,
				   (long long)r.t) ||
		    bcn_record_to_json(&r, out) || bcn_buf_add(out, "\n", 1))
			__builtin_trap();
	}
	*keep = b;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bcn_record recs[FZ_RECORDS];
	static struct bcn_block_item items[FZ_RECORDS];
	struct bcn_block_reader *b = NULL, *b2 = NULL;
	struct bcn_buf j1, j2, blk;
	struct bcn_block_enc *e = NULL;
	uint32_t n = 0;

	bcn_buf_init(&j1, FZ_JSON_MAX);
	bcn_buf_init(&j2, FZ_JSON_MAX);
	bcn_buf_init(&blk, BCN_BLOCK_RAW_MAX);
	if (dump(data, size, &j1, &b) != 0)
		goto out;
	/* decode again, keeping the records, and encode them */
	bcn_block_close(b);
	if (bcn_block_open(data, size, &fz_lim, &b))
		__builtin_trap();
	while (n < FZ_RECORDS &&
	       bcn_block_next(b, &recs[n], &items[n].seq, &items[n].idx) == 1) {
		items[n].rec = &recs[n];
		n++;
	}
	if (n != bcn_block_count(b) || bcn_block_enc_new(1, &e) ||
	    bcn_block_encode(e, items, n, &blk) ||
	    dump(blk.data, blk.len, &j2, &b2) != 0 || j1.len != j2.len ||
	    memcmp(j1.data, j2.data, j1.len))
		__builtin_trap();
out:
	bcn_block_close(b);
	bcn_block_close(b2);
	bcn_block_enc_free(e);
	bcn_buf_free(&j1);
	bcn_buf_free(&j2);
	bcn_buf_free(&blk);
	return 0;
}
