/* Second-pass compression: a lossless archive of all the records of one
 * job (docs/archive.md specifies the format byte by byte).
 *
 * The first pass (compress/iorun.h) folds each process's operations into
 * runs on its node. In a parallel job most nodes then send the same
 * sequence of records, up to the node name and to values that grow with
 * the node's place in the job (offsets, ranks, the number in a file
 * name). The archive groups each node's records into one sequence
 * (ordered by t, ties in input order), merges the nodes whose sequences
 * have the same shape (length, record type and enumerations at each
 * position) into a group, and stores a group as its node set (a Slurm
 * hostlist expression), one template sequence and, for each field of
 * each template record, a constant, the coefficients of an affine
 * function of the node's index in the job's node list, or the list of
 * the nodes' values when neither fits (optionally relative to the same
 * field one record earlier). The body is then zlib-compressed and
 * checksummed.
 *
 * Expanding an archive gives back exactly the records encoded, every
 * field, string, t, dur and node, as a multiset, in a fixed order: node
 * by node (nodes in byte order of their names), each node's records in
 * its sequence's order. */
#ifndef BCN_ARCHIVE_H
#define BCN_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/record.h"

#define BCN_ARCHIVE_MAGIC "BCNARCH\n"   /* 8 bytes */
#define BCN_ARCHIVE_VERSION 1
#define BCN_ARCHIVE_HDR_LEN 64

/* What a decoder may spend on one archive; every size an archive
 * declares is checked against these before it is used, and the working
 * memory is counted as it is taken. */
struct bcn_archive_limits {
	uint64_t max_records;   /* records it expands to */
	uint64_t max_nodes;     /* distinct nodes */
	uint64_t max_body;      /* bytes of the decompressed body */
	uint64_t max_memory;    /* bytes of decoder state (body, tables,
				 * value lists), not counting the records
				 * handed to the callback one at a time */
};

/* The encoder refuses to write what these would refuse to read. */
#define BCN_ARCHIVE_LIMITS_DEFAULT \
	{ UINT64_C(1) << 28, UINT64_C(1) << 20, UINT64_C(1) << 30, \
	  UINT64_C(8) << 30 }

/* Kinds of stored fields, for the statistics (docs/archive.md). */
enum bcn_archive_col {
	BCN_ARCHIVE_COL_CONST,          /* one value for every node */
	BCN_ARCHIVE_COL_AFFINE,         /* a + b * node index */
	BCN_ARCHIVE_COL_LIST,           /* one value per node */
	BCN_ARCHIVE_COL_NUMBERED,       /* string: prefix, affine number, suffix */
	BCN_ARCHIVE_COL_REL,            /* any of the above, relative to the
					 * same field one record earlier */
	BCN_ARCHIVE_COL_MAX
};

/* What an archive holds. */
struct bcn_archive_stats {
	uint64_t job;                   /* the job id of the header */
	uint64_t records;               /* records it expands to */
	uint64_t nodes;                 /* distinct sending nodes */
	uint64_t groups;                /* node groups (merged sequences) */
	uint64_t templates;             /* template records over all groups */
	uint64_t merged_nodes;          /* nodes in groups of two or more */
	uint64_t cols[BCN_ARCHIVE_COL_MAX]; /* stored fields by kind */
	uint64_t body_raw;              /* body bytes before zlib */
	uint64_t bytes;                 /* the whole archive */
};

/* Appends to out the archive of the n records at recs, with job as the
 * header's job id (records may carry any job id; each keeps its own).
 * Every record must pass bcn_record_check and have a node of at most
 * BCN_STR_MAX bytes (possibly empty). Deterministic: the same records in
 * the same order give the same bytes. st (may be NULL) gets the
 * statistics. Returns 0, -BCN_ERANGE (a record refused), -BCN_ETOOBIG
 * (more than BCN_ARCHIVE_LIMITS_DEFAULT allows), -BCN_EFULL (out's
 * maximum; out keeps what it had), -ENOMEM or -EIO (zlib). */
int bcn_archive_encode(uint64_t job, const struct bcn_record *recs, size_t n,
		       struct bcn_buf *out, struct bcn_archive_stats *st);

/* Receives each expanded record; r and its strings are valid only during
 * the call. Return 0 to go on, anything else to stop. */
typedef int bcn_archive_record_fn(void *arg, const struct bcn_record *r);

/* Decodes the archive buf[0..len-1] (exactly one archive, nothing after
 * it) within lim (NULL: BCN_ARCHIVE_LIMITS_DEFAULT). The whole archive is
 * checked first: only then is fn (may be NULL) called once per record, in
 * the order of the file comment, so a bad archive yields no record. A
 * pure function of its input: no I/O. st (may be NULL) gets the
 * statistics, cols only partly (as stored, before REL is resolved).
 * Returns 0, fn's non-zero value, -BCN_ETRUNC (shorter than its header
 * says), -BCN_EMAGIC, -BCN_EVERSION (format or record model version),
 * -BCN_ETOOBIG (a declared size or the working memory above lim),
 * -BCN_ECHECKSUM, -BCN_ECORRUPT (anything malformed inside, trailing
 * bytes, counts that disagree with the header, a record
 * bcn_record_check refuses, a node's records out of time order) or
 * -ENOMEM. */
int bcn_archive_decode(const uint8_t *buf, size_t len,
		       const struct bcn_archive_limits *lim,
		       bcn_archive_record_fn *fn, void *arg,
		       struct bcn_archive_stats *st);

/* Reads only the header of buf: job, records, nodes, groups, body_raw and
 * bytes into st. Returns 0 or the header errors of bcn_archive_decode
 * (-BCN_ETRUNC, -BCN_EMAGIC, -BCN_EVERSION, -BCN_ECORRUPT). */
int bcn_archive_peek(const uint8_t *buf, size_t len,
		     struct bcn_archive_stats *st);

/* The first pass's size, the baseline archives are measured against:
 * the bytes of the DATA frames (docs/protocol.md, zlib level level, as
 * the collectors send them at 1) that carry the n records, each node's
 * records in time order (ties in input order) in as few frames as the
 * default frame limits allow. Collectors cut a frame every sample, so
 * what crossed the wire was at least this. A node name the frame codec
 * cannot carry (empty, over BCN_NODE_MAX bytes) is counted as "?".
 * Returns 0 and *bytes, -BCN_ERANGE, -ENOMEM or -EIO. */
int bcn_archive_frame_bytes(const struct bcn_record *recs, size_t n,
			    int level, uint64_t *bytes);

#endif
