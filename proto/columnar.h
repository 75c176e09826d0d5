/* The columnar form of a DATA payload (frame flag bit 3, docs/protocol.md
 * "Columnar payloads"): the same string table, then the records' values
 * one column per (record type, field slot) instead of record after
 * record, io times as gaps since the end of the same process's previous
 * record and io offsets against the end of the same file's previous
 * record, each column stored constant, plain or delta-coded, as varints
 * in order or transposed (byte k of each varint in stream k), whichever
 * promises the fewest bytes after compression. A general-purpose
 * compressor then finds far more to share.
 *
 * The transform is lossless over the row form (proto/frame_builder.c):
 * decoding gives back a row payload whose records are those encoded, so
 * log servers and stores see no difference. Both directions are pure
 * functions over buffers, driven by the record descriptors. */
#ifndef BCN_COLUMNAR_H
#define BCN_COLUMNAR_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define BCN_COL_SLOTS_MAX 256   /* value slots of one record type */
/* columns a payload may declare: the type column and every slot */
#define BCN_COL_COLUMNS_MAX (1 + 16 * BCN_COL_SLOTS_MAX)
#define BCN_COL_CUTS_MAX 32     /* parts of a payload, bcn_col_enc_cuts */

enum bcn_col_mode {
	BCN_COL_CONST = 0,      /* one varint, repeated n times */
	BCN_COL_PLAIN = 1,      /* n varints */
	BCN_COL_DELTA = 2,      /* n zigzag varints of v[i] - v[i-1], v[-1] = 0 */
	BCN_COL_TPLAIN = 3,     /* the plain mode's varints transposed: byte
				 * k of each varint in stream k, the streams
				 * one after the other */
	BCN_COL_TDELTA = 4,     /* the delta mode's varints transposed */
	BCN_COL_MODE_MAX
};
/* Flag in the mode byte of the io file column (only there): an io record
 * that names a path predicts its file as the path's id (proto/fileid.h).
 * Frames of encoders older than it lack it and decode as they were. */
#define BCN_COL_F_PATHS 0x10

/* Encoder state kept between frames (its column storage), opaque. */
struct bcn_col_enc;

/* Allocates an encoder; NULL when out of memory. */
struct bcn_col_enc *bcn_col_enc_new(void);
void bcn_col_enc_free(struct bcn_col_enc *e);

/* Appends the columns of the count records encoded back to back in recs
 * (rlen bytes, as proto/frame_builder.c writes them) to out, where the
 * caller has put the string table (count and entries, as in the row
 * form): together they are the columnar payload. Returns 0, -BCN_ECORRUPT when
 * recs does not hold exactly count well-formed records, -BCN_EFULL (out's
 * maximum) or -ENOMEM. */
int bcn_col_encode(struct bcn_col_enc *e, const uint8_t *recs, size_t rlen,
		   uint32_t count, struct bcn_buf *out);

/* Appends the row payload (string table, then count records) that the
 * columnar payload p (len bytes) stands for to out, which bounds its size.
 * Checks the structure (column directory, counts, modes, that every
 * column is used up exactly); the rows' content (enums, string
 * references, zero counters) is left to the row decoder. Returns 0,
 * -BCN_ECORRUPT, -BCN_ETOOBIG (the rows pass out's maximum) or -ENOMEM.
 * Pure: depends only on its arguments. */
int bcn_col_decode(const uint8_t *p, size_t len, uint32_t count,
		   struct bcn_buf *out);

/* Where the payload of the last bcn_col_encode call falls into parts of
 * unlike columns, for a compressor that codes each part's bytes on their
 * own (zstd: a block each): fills cuts with up to max offsets into its
 * out buffer, in increasing order, where a part begins (the first part,
 * from out's start, not counted); returns their number. */
size_t bcn_col_enc_cuts(const struct bcn_col_enc *e, size_t *cuts,
			size_t max);

/* Per-column sizes of the last bcn_col_encode call, for benchmarks: calls
 * fn(arg, type, slot name, values, encoded bytes, mode) for each column
 * (type 0: the type column). */
typedef void bcn_col_stat_fn(void *arg, unsigned type, const char *slot,
			     uint32_t n, size_t bytes, unsigned mode);
void bcn_col_enc_stats(const struct bcn_col_enc *e, bcn_col_stat_fn *fn,
		       void *arg);

#endif
