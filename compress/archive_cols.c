/* What the archive's encoder and decoder share (archive_int.h): the
 * column maps of the record types, the header and its checksum, the
 * hostlist name test and the per-node order of records. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "compress/archive_int.h"

#define DIST_WORDS (sizeof(struct bcn_dist) / sizeof(uint64_t))

static int add_col(struct arc_colmap *m, size_t off, int str)
{
	if (m->ncols == ARC_COLS_MAX || off > UINT16_MAX)
		return -EINVAL;
	m->off[m->ncols] = (uint16_t)off;
	m->str[m->ncols] = (uint8_t)str;
	m->ncols++;
	return 0;
}

/* The columns of one field. */
static int field_cols(struct arc_colmap *m, const struct bcn_field *f,
		      unsigned *nstr)
{
	size_t words = f->kind == BCN_F_VEC ? f->n :
		       f->kind == BCN_F_DIST ? DIST_WORDS : 1;
	int rc = 0;

	switch (f->kind) {
	case BCN_F_ENUM:
		if (m->nenums == ARC_ENUMS_MAX)
			return -EINVAL;
		m->enum_off[m->nenums] = f->offset;
		m->enum_n[m->nenums++] = f->n;
		return 0;
	case BCN_F_STR:
		if (*nstr == ARC_STRS_MAX)
			return -EINVAL;
		return add_col(m, f->offset, (int)++*nstr);
	default:
		for (size_t i = 0; rc == 0 && i < words; i++)
			rc = add_col(m, f->offset + i * sizeof(uint64_t), 0);
		return rc;
	}
}

int bcn_archive_colmaps(struct arc_colmaps *maps)
{
	memset(maps, 0, sizeof(*maps));
	for (uint64_t t = 1; t < BCN_REC_TYPE_MAX; t++) {
		const struct bcn_record_desc *d = bcn_record_desc(t);
		struct arc_colmap *m = &maps->map[t];
		unsigned nstr = 0;
		int rc;

		rc = add_col(m, offsetof(struct bcn_record, t), 0);
		if (!rc)
			rc = add_col(m, offsetof(struct bcn_record, dur), 0);
		if (!rc)
			rc = add_col(m, offsetof(struct bcn_record, job), 0);
		for (size_t i = 0; rc == 0 && i < d->nfields; i++)
			rc = field_cols(m, &d->fields[i], &nstr);
		if (rc)
			return rc;
	}
	return 0;
}

uint32_t bcn_archive_crc(const uint8_t *hdr, const uint8_t *z, size_t zlen)
{
	uLong crc = crc32(0L, hdr, ARC_H_CRC);

	while (zlen > 0) {
		uInt n = zlen > (1u << 30) ? (1u << 30) : (uInt)zlen;

		crc = crc32(crc, z, n);
		z += n;
		zlen -= n;
	}
	return (uint32_t)crc;
}

int bcn_archive_header(const uint8_t *buf, size_t len,
		       struct bcn_archive_stats *st, uint64_t *zlen)
{
	if (len && memcmp(buf + ARC_H_MAGIC, BCN_ARCHIVE_MAGIC, len < 8 ? len : 8))
		return -BCN_EMAGIC;
	if (len < BCN_ARCHIVE_HDR_LEN)
		return -BCN_ETRUNC;
	if (arc_get_le(buf + ARC_H_VERSION, 2) != BCN_ARCHIVE_VERSION ||
	    arc_get_le(buf + ARC_H_MODEL, 4) != BCN_RECORD_VERSION)
		return -BCN_EVERSION;
	if (arc_get_le(buf + ARC_H_FLAGS, 2) != 0 ||
	    arc_get_le(buf + ARC_H_RESERVED, 4) != 0)
		return -BCN_ECORRUPT;
	memset(st, 0, sizeof(*st));
	st->job = arc_get_le(buf + ARC_H_JOB, 8);
	st->records = arc_get_le(buf + ARC_H_RECORDS, 8);
	st->nodes = arc_get_le(buf + ARC_H_NODES, 4);
	st->groups = arc_get_le(buf + ARC_H_GROUPS, 4);
	st->body_raw = arc_get_le(buf + ARC_H_RAW, 8);
	*zlen = arc_get_le(buf + ARC_H_ZLEN, 8);
	if (*zlen > len - BCN_ARCHIVE_HDR_LEN)
		return -BCN_ETRUNC;
	if (*zlen < len - BCN_ARCHIVE_HDR_LEN)
		return -BCN_ECORRUPT;   /* bytes after the archive */
	if (st->groups > st->nodes || (st->records == 0) != (st->nodes == 0))
		return -BCN_ECORRUPT;
	st->bytes = len;
	return 0;
}

int bcn_archive_peek(const uint8_t *buf, size_t len,
		     struct bcn_archive_stats *st)
{
	uint64_t zlen;

	return bcn_archive_header(buf, len, st, &zlen);
}

bool bcn_archive_hostname_ok(const char *name, size_t len)
{
	if (len == 0 || len > BCN_HOSTLIST_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= 0x20 || c >= 0x7f || c == '[' || c == ']' || c == ',')
			return false;
	}
	return true;
}

static int cmp_items(const void *a, const void *b)
{
	const struct arc_item *p = a, *q = b;
	int c = strcmp(p->r->node, q->r->node);

	if (c)
		return c;
	if (p->r->t != q->r->t)
		return p->r->t < q->r->t ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

void bcn_archive_sort_items(struct arc_item *items, size_t n)
{
	if (n > 1)
		qsort(items, n, sizeof(*items), cmp_items);
}
