/* libFuzzer target: the archive decoder (compress/archive.h) over
 * arbitrary bytes, with small limits. An input starting with 'B' is a
 * body: after the 'B', the header's job (8 bytes), record count (8),
 * node count (4) and group count (4), little-endian, then the body
 * before compression, which the target wraps as the encoder would
 * (compressed, checksummed), so that mutations reach the body's parser
 * instead of stopping at the checksum. Oracle: an archive that decodes
 * re-encodes, and the new archive decodes to the same records, in the
 * same order, equal in every field. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/error.h"
#include "compress/archive.h"
#include "compress/archive_int.h"
#include "compress/recset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIELDS 24                       /* job, records, nodes, groups */
#define OUT_MAX (256u << 20)

/* small, so that an archive expanding to many records stays fast */
static const struct bcn_archive_limits lim = {
	4096, 512, 1u << 20, 16u << 20,
};

/* Decodes the archive a, re-encodes what it held and decodes that:
 * traps unless the records are the same, one by one. */
static void check(const uint8_t *a, size_t len)
{
	struct bcn_archive_stats st;
	struct bcn_recset got, again;
	struct bcn_buf out;

	bcn_recset_init(&got, lim.max_records);
	if (bcn_archive_decode(a, len, &lim, bcn_recset_add_fn, &got, &st)) {
		bcn_recset_free(&got);
		return;
	}
	if (got.n != st.records)
		__builtin_trap();
	bcn_buf_init(&out, OUT_MAX);
	bcn_recset_init(&again, lim.max_records);
	if (bcn_archive_encode(st.job, got.recs, got.n, &out, NULL) ||
	    bcn_archive_decode(out.data, out.len, NULL, bcn_recset_add_fn,
			       &again, NULL) || again.n != got.n)
		__builtin_trap();
	for (size_t i = 0; i < got.n; i++)
		if (bcn_recset_cmp(&got.recs[i], &again.recs[i]) != 0)
			__builtin_trap();
	bcn_recset_free(&again);
	bcn_recset_free(&got);
	bcn_buf_free(&out);
}

/* The body after the fields, wrapped into an archive and checked. */
static void check_body(const uint8_t *in, size_t size)
{
	uLongf zl;
	uint8_t *a;

	if (size < FIELDS)
		return;
	zl = compressBound((uLong)(size - FIELDS));
	a = malloc(BCN_ARCHIVE_HDR_LEN + zl);
	if (!a)
		return;
	if (compress2(a + BCN_ARCHIVE_HDR_LEN, &zl, in + FIELDS,
		      (uLong)(size - FIELDS), 1) != Z_OK) {
		free(a);
		return;
	}
	memset(a, 0, BCN_ARCHIVE_HDR_LEN);
	memcpy(a + ARC_H_MAGIC, BCN_ARCHIVE_MAGIC, 8);
	arc_put_le(a + ARC_H_VERSION, BCN_ARCHIVE_VERSION, 2);
	arc_put_le(a + ARC_H_MODEL, BCN_RECORD_VERSION, 4);
	memcpy(a + ARC_H_JOB, in, FIELDS);
	arc_put_le(a + ARC_H_RAW, size - FIELDS, 8);
	arc_put_le(a + ARC_H_ZLEN, zl, 8);
	arc_put_le(a + ARC_H_CRC, bcn_archive_crc(a, a + BCN_ARCHIVE_HDR_LEN,
						  zl), 4);
	check(a, BCN_ARCHIVE_HDR_LEN + zl);
	free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 0 && data[0] == 'B')
		check_body(data + 1, size - 1);
	else
		check(data, size);
	return 0;
}
