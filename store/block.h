/* The record block codec of the embedded store's schema 3: a batch of
 * records with their identities, encoded column-wise from the record
 * descriptors (proto/record.h) and compressed with zstd. A pure function
 * over a buffer in each direction: bcn_block_encode() writes a block,
 * bcn_block_open() checks one against limits and bcn_block_next() reads
 * its records back in the order they were encoded. docs/store.md,
 * "Blocks", describes the format.
 *
 * Columns: type; node (dictionary index); seq (delta, zigzag); idx; t
 * (delta of delta, zigzag); dur and job (delta, zigzag); then, per record
 * type and per 64-bit word of its fields (U64, I64, ENUM, each element of
 * a VEC, each word of a DIST), the delta from the same word of the
 * previous record of that type, zigzag; strings as dictionary indexes.
 * Runs of zeros (constant durations, unused counters) cost zstd almost
 * nothing. */
#ifndef BCN_BLOCK_H
#define BCN_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/record.h"

#define BCN_BLOCK_VERSION 1             /* the format's version byte */
#define BCN_BLOCK_RECORDS_MAX (1u << 20) /* records one block may claim */
#define BCN_BLOCK_RAW_MAX (256u << 20)  /* decompressed bytes, at most */
#define BCN_BLOCK_DICT_MAX (1u << 20)   /* dictionary strings, at most */
#define BCN_BLOCK_HEADER 4              /* magic "BK", version, flags */

/* What a reader accepts; bcn_block_open() refuses a block claiming more. */
struct bcn_block_limits {
	uint32_t max_records;
	uint32_t max_dict;
	size_t max_raw;
};

#define BCN_BLOCK_LIMITS_DEFAULT \
	{ BCN_BLOCK_RECORDS_MAX, BCN_BLOCK_DICT_MAX, BCN_BLOCK_RAW_MAX }

/* One record with its identity, to encode or as decoded. */
struct bcn_block_item {
	const struct bcn_record *rec;
	uint64_t seq;
	uint32_t idx;
};

struct bcn_block_enc;

/* An encoder context (column buffers, dictionary), reused across calls.
 * level: zstd compression level (1..19). Returns 0, -ENOMEM. */
int bcn_block_enc_new(int level, struct bcn_block_enc **out);
void bcn_block_enc_free(struct bcn_block_enc *e);

/* Sets the zstd level (1..19) of the blocks e encodes from now on.
 * Returns 0 or -EINVAL (a level zstd refuses). */
int bcn_block_enc_level(struct bcn_block_enc *e, int level);

/* Appends the block of items[0..n) (valid records, bcn_record_check()) to
 * out, in that order. Returns 0, -EINVAL (n = 0 or above
 * BCN_BLOCK_RECORDS_MAX, a record without a node), -BCN_ERANGE (a record
 * bcn_record_check() refuses), -BCN_EFULL or -ENOMEM. */
int bcn_block_encode(struct bcn_block_enc *e, const struct bcn_block_item *items,
		     size_t n, struct bcn_buf *out);

/* A reader of one block: owns the decompressed bytes, hands out records
 * one at a time. */
struct bcn_block_reader;

/* Checks and decompresses the block buf[0..len) within lim. Returns 0
 * and *out (free with bcn_block_close), or -BCN_EMAGIC, -BCN_EVERSION (a
 * version this build does not know), -BCN_ETOOBIG (a claim above lim),
 * -BCN_ECORRUPT or -BCN_ECHECKSUM (damaged), -ENOMEM. */
int bcn_block_open(const void *buf, size_t len,
		   const struct bcn_block_limits *lim,
		   struct bcn_block_reader **out);
void bcn_block_close(struct bcn_block_reader *b);

/* Bytes at the start of a struct bcn_record that a record of type uses:
 * the common fields and those of its type. bcn_block_next() writes no
 * further, and bcn_block_encode() and bcn_record_check() read no
 * further, so a copy of that many bytes stands for the record there.
 * sizeof(struct bcn_record) for an unknown type. */
size_t bcn_block_record_size(uint64_t type);

/* Number of records the block holds. */
uint32_t bcn_block_count(const struct bcn_block_reader *b);

/* Decodes the next record into *r and its identity into *seq, *idx. The
 * record's strings point into the reader and live until it is closed.
 * Returns 1, 0 at the end, or -BCN_ECORRUPT (a damaged column; the
 * reader then stays at its end). */
int bcn_block_next(struct bcn_block_reader *b, struct bcn_record *r,
		   uint64_t *seq, uint32_t *idx);

#endif
