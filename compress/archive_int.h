/* Internals the archive's encoder and decoder share (compress/archive.h,
 * docs/archive.md): the columns of each record type, the codes of stored
 * fields, the header layout and the per-node ordering of records. Not
 * installed; only compress/archive_*.c include it. */
#ifndef BCN_ARCHIVE_INT_H
#define BCN_ARCHIVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compress/archive.h"
#include "proto/record.h"

/* Columns of a record type: t, dur, job, then each field of its
 * description in order, one column per integer or string and one per
 * element of a counter vector or distribution (count, sum, min, max,
 * p50, p95, p99, then the buckets). Enumerations are not columns: they
 * are part of a position's shape. */
#define ARC_COLS_MAX 192
#define ARC_ENUMS_MAX 4
#define ARC_STRS_MAX 8
#define ARC_COL_T 0
#define ARC_COL_DUR 1
#define ARC_COL_JOB 2

struct arc_colmap {
	uint16_t ncols;
	uint16_t nenums;
	uint16_t off[ARC_COLS_MAX];     /* of the uint64 or char * in a record */
	uint8_t str[ARC_COLS_MAX];      /* 0: integer; else 1 + ordinal among
					 * the type's string columns */
	uint16_t enum_off[ARC_ENUMS_MAX];
	uint8_t enum_n[ARC_ENUMS_MAX];
};

/* Column maps of every type; map[t] is valid for 1 <= t < BCN_REC_TYPE_MAX. */
struct arc_colmaps {
	struct arc_colmap map[BCN_REC_TYPE_MAX];
};

/* Fills maps from the record descriptions. Returns 0, or -EINVAL if a
 * type has more columns, enumerations or strings than the maxima above
 * (a record model change this format must follow). */
int bcn_archive_colmaps(struct arc_colmaps *maps);

/* Codes of a stored field: the low bits say how, ARC_REL that the value
 * is added to the same column one same-type record earlier. */
enum {
	ARC_K_ZERO = 0,                 /* integer 0 (only with ARC_REL) */
	ARC_K_CONST = 1,                /* integer a / string s */
	ARC_K_AFFINE = 2,               /* integer a + b*k */
	ARC_K_LIST = 3,                 /* one value per node */
	ARC_K_NUM = 4,                  /* string prefix, a + b*k, suffix */
	ARC_K_MASK = 0x0f,
	ARC_REL = 0x10,
};

#define ARC_NUM_DIGITS 20               /* digits of UINT64_MAX */
#define ARC_NUM_WIDTH_MAX 20

/* Header offsets (docs/archive.md). */
enum {
	ARC_H_MAGIC = 0, ARC_H_VERSION = 8, ARC_H_FLAGS = 10,
	ARC_H_MODEL = 12, ARC_H_JOB = 16, ARC_H_RECORDS = 24,
	ARC_H_NODES = 32, ARC_H_GROUPS = 36, ARC_H_RAW = 40, ARC_H_ZLEN = 48,
	ARC_H_CRC = 56, ARC_H_RESERVED = 60,
};

static inline uint64_t arc_get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void arc_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* CRC-32 of the header's first ARC_H_CRC bytes and the compressed body. */
uint32_t bcn_archive_crc(const uint8_t *hdr, const uint8_t *z, size_t zlen);

/* Parses and checks the fixed header (not the checksum). */
int bcn_archive_header(const uint8_t *buf, size_t len,
		       struct bcn_archive_stats *st, uint64_t *zlen);

/* Whether name can stand in a hostlist expression: 1 to
 * BCN_HOSTLIST_NAME_MAX bytes the grammar allows in a name. */
bool bcn_archive_hostname_ok(const char *name, size_t len);

/* Stable order of the records of one node: by t, ties by index. */
struct arc_item {
	const struct bcn_record *r;
	size_t i;                       /* position in the input */
};

/* Sorts items by (node name, t, i). */
void bcn_archive_sort_items(struct arc_item *items, size_t n);

#endif
