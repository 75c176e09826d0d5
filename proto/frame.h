/* The wire protocol between collectors and log servers: length-prefixed
 * frames carrying a zlib-compressed batch of records (docs/protocol.md
 * specifies it byte by byte), and acknowledgement frames.
 *
 * Decoding never trusts its input: every size is checked against the
 * caller's limits before anything is allocated or read, and each class of
 * bad input has its own error code (see common/error.h). */
#ifndef BCN_FRAME_H
#define BCN_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/columnar.h"
#include "proto/record.h"
#include "proto/varint.h"

/* Frames are written in version 2 and read in versions 1 and 2 (files,
 * queued frames); a connection's handshake must be version 2. */
#define BCN_PROTO_VERSION 2
#define BCN_PROTO_VERSION_MIN 1
#define BCN_FRAME_MAGIC "BCNF"
#define BCN_FRAME_HDR_LEN 32
#define BCN_NODE_MAX 255                /* longest node name */

enum bcn_frame_kind {
	BCN_FRAME_DATA = 1,     /* a batch of records */
	BCN_FRAME_ACK = 2,      /* the server's answer to one DATA frame */
	/* authentication handshake (docs/protocol.md): each carries exactly
	 * BCN_AUTH_LEN bytes of nonce or MAC */
	BCN_FRAME_HELLO = 3,    /* collector: its node name and nonce */
	BCN_FRAME_CHALLENGE = 4,/* server: its nonce */
	BCN_FRAME_AUTH = 5,     /* collector: MAC proving it has the key */
	BCN_FRAME_WELCOME = 6,  /* server: MAC proving it has the key too */
	BCN_FRAME_KIND_MAX
};

#define BCN_AUTH_LEN 32         /* nonce and HMAC-SHA256 length */

#define BCN_FRAME_F_ZLIB 0x01           /* payload is zlib-compressed */
#define BCN_FRAME_F_ZSTD 0x04           /* payload is zstd-compressed (one
					 * zstd frame); never with ZLIB */
#define BCN_FRAME_F_MAC 0x02            /* body ends with a frame MAC
					 * (version 2, proto/seal.h) */
#define BCN_FRAME_MAC_LEN 16
#define BCN_FRAME_F_COLUMNAR 0x08       /* payload (after decompression)
					 * is columnar (proto/columnar.h);
					 * with ZLIB, ZSTD or neither */
#define BCN_FRAME_F_IODELTA 0x10        /* row payload whose io records
					 * leave out the fields equal to
					 * the previous io record's
					 * (docs/protocol.md); never with
					 * COLUMNAR */
/* The bits of an io record's mask in the delta row form (docs/protocol.md,
 * "Delta io rows"), those set most under random I/O first (seven fit a
 * one-byte varint): SCALED says the offset and stride are written divided
 * by the size (set exactly when the size divides both); PATH, that a
 * string reference other than 0 follows; each other bit, that its field
 * follows, else it is the previous io record's of the frame (zero before
 * the first). */
enum {
	BCN_IODELTA_SCALED, BCN_IODELTA_STRIDE, BCN_IODELTA_FILE,
	BCN_IODELTA_SIZE, BCN_IODELTA_COUNT, BCN_IODELTA_OP, BCN_IODELTA_FD,
	BCN_IODELTA_PATH, BCN_IODELTA_PID, BCN_IODELTA_JOB, BCN_IODELTA_STEP,
	BCN_IODELTA_RANK, BCN_IODELTA_BITS
};

/* Whether an io record with these fields is written SCALED in the delta
 * row form: the size divides the offset and the stride. */
static inline bool bcn_iodelta_scaled(uint64_t size, uint64_t offset,
				      int64_t stride)
{
	if (!size || size > INT64_MAX)
		return false;
	if (!(size & (size - 1)))       /* the usual: a power of two */
		return !((offset | (uint64_t)stride) & (size - 1));
	return offset % size == 0 && stride % (int64_t)size == 0;
}

/* Status carried by an ACK frame. */
enum bcn_ack_status {
	BCN_ACK_STORED = 0,     /* durable on the server; forget the frame */
	BCN_ACK_DUPLICATE = 1,  /* was already durable; forget the frame */
	BCN_ACK_REJECTED = 2,   /* malformed; resending cannot help */
	BCN_ACK_STATUS_MAX
};

/* What a decoder accepts. max_ratio bounds how much a compressed payload
 * may expand (raw_len / compressed length; payloads up to
 * BCN_FRAME_RATIO_FLOOR bytes are exempt; 0: no bound). max_age_ns and
 * max_ahead_ns bound record times around the real-time clock read when
 * the frame is opened (0: no bound); only bcn_frame_validate checks them. */
struct bcn_frame_limits {
	uint32_t max_body;      /* bytes after the header, as sent */
	uint32_t max_raw;       /* payload bytes after decompression */
	uint32_t max_records;
	uint32_t max_strings;
	uint32_t max_ratio;
	int64_t max_age_ns;     /* records ending this long ago, at most */
	int64_t max_ahead_ns;   /* records starting this far ahead, at most */
};

#define BCN_FRAME_RATIO_FLOOR (64u << 10)

#define BCN_FRAME_LIMITS_DEFAULT \
	{ 16u << 20, 64u << 20, 1u << 20, 1u << 16, 0, 0, 0 }

struct bcn_frame_header {
	uint8_t version, kind, flags, node_len;
	uint32_t body_len;      /* node name + payload */
	uint32_t count;         /* records in the payload */
	uint64_t seq;           /* per-sender sequence number */
	uint32_t raw_len;       /* payload length after decompression */
	uint32_t crc;
};

/* A decoded frame. Buffers are kept between bcn_frame_open calls, so one
 * struct serves a whole stream without reallocating. */
struct bcn_frame {
	struct bcn_frame_header hdr;
	char node[BCN_NODE_MAX + 1];
	uint8_t ack_status;             /* ACK frames only */
	uint8_t auth[BCN_AUTH_LEN];     /* handshake frames only */
	uint8_t *raw;                   /* decompressed payload, row form */
	size_t raw_cap;
	size_t raw_len;                 /* its length (the header's raw
					 * length unless columnar) */
	struct bcn_buf cols;            /* columnar payload before rows */
	char *strings;                  /* NUL-terminated string table */
	size_t strings_cap;
	const char **str;               /* str[0] = "", str[i] = entry i */
	size_t str_cap;
	uint32_t nstr;
	uint8_t *refd;                  /* bit i: str[i] referenced (validate) */
	size_t refd_cap;
	int64_t t_lo, t_hi;             /* window of record times (validate) */
	uint32_t types;                 /* bit t: a record of type t (validate) */
	bool windowed;
	const uint8_t *cur, *end;       /* record cursor */
	const uint8_t *first;           /* first record, for rewinding */
	uint32_t seen;
	int64_t last_t;
	struct bcn_rec_io pio;          /* the previous io record's fields
					 * (BCN_FRAME_F_IODELTA) */
	uint64_t pjob;                  /* and its job */
};

/* Bytes of MAC trailer at the end of a frame's body (0 or
 * BCN_FRAME_MAC_LEN); the payload lies between the node name and it. */
static inline uint32_t bcn_frame_mac_len(const struct bcn_frame_header *h)
{
	return (h->flags & BCN_FRAME_F_MAC) ? BCN_FRAME_MAC_LEN : 0;
}

/* Parses and validates the fixed header at buf. Returns 0, -BCN_ETRUNC
 * when fewer than BCN_FRAME_HDR_LEN bytes are given, -BCN_EMAGIC,
 * -BCN_EVERSION, -BCN_EKIND (unknown kind or flag bits) or -BCN_ETOOBIG
 * (a declared size above the limits). It does not look at the body. */
int bcn_frame_header_parse(const uint8_t *buf, size_t len,
			   const struct bcn_frame_limits *lim,
			   struct bcn_frame_header *h);

void bcn_frame_init(struct bcn_frame *f);
void bcn_frame_free(struct bcn_frame *f);

/* Decodes the frame at the start of buf: header, checksum, node name, and
 * for DATA frames the decompressed payload and its string table. On success
 * *consumed is the frame's length and the records can be read with
 * bcn_frame_next. Returns 0; -BCN_ETRUNC if buf holds only part of the
 * frame (*consumed is then the length needed, when known, else 0); or the
 * header errors, -BCN_ECHECKSUM, -BCN_ECORRUPT (also for a payload that
 * expands more than lim->max_ratio), -BCN_ETOOBIG, -ENOMEM. When lim sets
 * a time window, it is fixed here from the real-time clock. */
int bcn_frame_open(struct bcn_frame *f, const uint8_t *buf, size_t len,
		   const struct bcn_frame_limits *lim, size_t *consumed);

/* Reads the next record of an opened DATA frame into r; strings in r stay
 * valid until the next bcn_frame_open or bcn_frame_free, and r->node is
 * the frame's sender. Only the common fields and those of the record's
 * type are written; the rest of the union keeps what it held. Returns 1
 * with a record, 0 after the last one (when the payload holds exactly
 * hdr.count records), or -BCN_ECORRUPT. */
int bcn_frame_next(struct bcn_frame *f, struct bcn_record *r);

/* Starts reading the records again from the first one. */
void bcn_frame_rewind(struct bcn_frame *f);

/* Reads every record once to check the whole payload, then rewinds:
 * every record must decode, every entry of the string table must be
 * referenced by a record, and when the limits of bcn_frame_open set a
 * time window every record must lie in it ([t, t + dur] ends after
 * now - max_age and t begins before now + max_ahead). Returns 0,
 * -BCN_ECORRUPT, -BCN_ERANGE (a record outside the window) or -ENOMEM. */
int bcn_frame_validate(struct bcn_frame *f);

/* Builds DATA frames: add records, then finish a frame. */
struct bcn_frame_builder {
	struct bcn_buf recs;            /* encoded records */
	struct bcn_buf strs;            /* encoded string table entries */
	struct bcn_buf zbuf;            /* compression scratch */
	uint32_t *slots;                /* hash of interned strings */
	uint32_t *offs;                 /* string i at strs.data + offs[i] */
	uint32_t slot_cap, nstr;
	uint32_t nrec;
	uint32_t max_strings, max_records;
	int64_t last_t;
	int level;                      /* zlib level, 0 stores uncompressed */
	int zstd;                       /* zstd instead of zlib, at level */
	int io_direct;                  /* io records: io_put (1), the
					 * descriptor's walk (-1), unknown */
	void *zctx;                     /* zstd's compression context */
	struct bcn_col_enc *cenc;       /* columnar payloads when set */
	struct bcn_buf cbuf;            /* the columnar payload */
	int row_hashlog;                /* zctx's table for rows (0: the
					 * level's) */
	int col_level;                  /* zstd level of columns, when
					 * col_set */
	bool col_set;                   /* columns have their own settings */
	int8_t zheld;                   /* whose settings zctx holds: 0 the
					 * rows', 1 the columns', -1 not
					 * known */
	bool col_off;                   /* the next frame: rows only */
	bool last_columnar;             /* the last frame finished was */
	bool iodelta_want;              /* frames begun from now on: */
	bool iodelta;                   /* this frame's io rows elide */
	bool io_seen;                   /* this delta or measuring frame
					 * holds an io record */
	struct bcn_rec_io pio;          /* the previous io record's fields */
	uint64_t pjob;                  /* and its job */
	bool dtrack_want;               /* plain frames measure the delta */
	bool dtrack;                    /* form's length: this one does, */
	size_t dlen;                    /* its records' bytes in that form */
	ptrdiff_t dio_diff;             /* the last io record's: delta form
					 * less plain row */
	size_t last_plen, last_dlen;    /* bcn_frame_builder_last_sizes */
};

/* Prepares a builder whose frames respect lim; level is the zlib level
 * (0 = send uncompressed, 1 fastest .. 9 smallest, -1 zlib's default). */
int bcn_frame_builder_init(struct bcn_frame_builder *b,
			   const struct bcn_frame_limits *lim, int level);
void bcn_frame_builder_free(struct bcn_frame_builder *b);

/* Compresses the frames of b with zstd at level (negative: faster, 1 to
 * 19: smaller; about 4 times zlib level 1's speed at -1 for a little
 * less reduction) instead of zlib. Returns 0 or -ENOMEM. */
int bcn_frame_builder_zstd(struct bcn_frame_builder *b, int level);

/* Sets the size of zstd's match-finding hash table to 2^hash_log entries
 * (6..30; 0: zstd's choice for the level), after bcn_frame_builder_zstd:
 * a small table that stays in the first-level caches makes the fast
 * (negative) levels faster for a few more bytes (docs/clientd.md, "cost").
 * Returns 0 or -EINVAL. */
int bcn_frame_builder_zstd_hashlog(struct bcn_frame_builder *b, int hash_log);

/* Makes b write columnar payloads (frame flag BCN_FRAME_F_COLUMNAR,
 * compressed as chosen; docs/protocol.md): the same records in fewer
 * bytes, for log servers that read them. Returns 0 or -ENOMEM. */
int bcn_frame_builder_columnar(struct bcn_frame_builder *b);

/* With columnar payloads on, compresses them with zstd at level with a
 * small hash table (2^12 entries), while row payloads keep the level and
 * table set by bcn_frame_builder_zstd and _hashlog (the one context
 * switches settings between frames: its buffers serve both). Returns 0,
 * or -EINVAL without zstd or for a level zstd refuses. */
int bcn_frame_builder_columnar_level(struct bcn_frame_builder *b, int level);

/* Makes the frames b begins from now on (at the next record added to an
 * empty builder) write their io records in the delta row form (flag
 * BCN_FRAME_F_IODELTA, docs/protocol.md: a mask of the fields that differ
 * from the previous io record's, then only those): a third of the row
 * bytes under random I/O, and so a third of the compressor's work. Such
 * a frame is never columnar; one without io records stays plain. Log
 * servers older than the flag refuse it. */
void bcn_frame_builder_iodelta(struct bcn_frame_builder *b, bool on);

/* Makes the frames b begins from now on in plain rows measure, while
 * they are built, how long their payload would be with io records in the
 * delta row form (bcn_frame_builder_last_sizes): a caller that chooses
 * between columns and delta rows weighs the columns' bytes against it.
 * About a tenth of a record's encoding time, only in such frames. */
void bcn_frame_builder_measure_delta(struct bcn_frame_builder *b, bool on);

/* The payload bytes (after compression) of the frame that
 * bcn_frame_builder_finish last wrote, and the raw payload bytes it would
 * have taken in the delta row form: 0 unless it was measured (see
 * bcn_frame_builder_measure_delta) and held an io record. */
void bcn_frame_builder_last_sizes(const struct bcn_frame_builder *b,
				  size_t *payload, size_t *delta_raw);

/* Whether the next frames may be columnar (when columnar payloads are on
 * and the columns are smaller): a caller that budgets the column
 * transform's CPU time switches it off and on between frames. */
void bcn_frame_builder_columnar_allow(struct bcn_frame_builder *b,
				      bool allow);

/* Whether the frame that bcn_frame_builder_finish last wrote had a
 * columnar payload. */
bool bcn_frame_builder_last_columnar(const struct bcn_frame_builder *b);

/* Appends one record. Returns 0, -BCN_ERANGE for a record that fails
 * bcn_record_check, or -BCN_EFULL when the frame cannot take it (finish
 * the frame and add it to the next); the builder is unchanged on error. */
int bcn_frame_builder_add(struct bcn_frame_builder *b,
			  const struct bcn_record *r);

/* Uncompressed payload bytes so far, to decide when to cut a frame. */
static inline size_t bcn_frame_builder_size(const struct bcn_frame_builder *b)
{
	/* and the string count's varint */
	return b->recs.len + b->strs.len + BCN_VARINT_MAX;
}
static inline uint32_t bcn_frame_builder_count(const struct bcn_frame_builder *b)
{
	return b->nrec;
}

/* Appends a DATA frame holding the records added so far to out and empties
 * the builder. node is the sender (1..BCN_NODE_MAX bytes). Returns 0,
 * -EINVAL for a bad node name, -BCN_EFULL, -ENOMEM or -EIO (zlib). */
int bcn_frame_builder_finish(struct bcn_frame_builder *b, const char *node,
			     uint64_t seq, struct bcn_buf *out);

/* Appends r alone, encoded as the raw payload of a one-record frame (its
 * own string table, then the record, in plain rows whatever
 * bcn_frame_builder_iodelta says), to out; for stores that keep records
 * in binary. The builder must be empty and stays empty. */
int bcn_frame_builder_pack(struct bcn_frame_builder *b,
			   const struct bcn_record *r, struct bcn_buf *out);

/* Prepares f to read count records from a raw (uncompressed) payload such
 * as bcn_frame_builder_pack writes, with node as every record's sender.
 * Returns 0, -BCN_ECORRUPT, -BCN_ETOOBIG or -ENOMEM; read the records with
 * bcn_frame_next. */
int bcn_frame_open_raw(struct bcn_frame *f, const uint8_t *p, size_t len,
		       uint32_t count, const char *node,
		       const struct bcn_frame_limits *lim);

/* Appends an ACK frame for sequence number seq. */
int bcn_frame_ack_encode(uint64_t seq, enum bcn_ack_status status,
			 const char *node, struct bcn_buf *out);

/* Appends a handshake frame (HELLO, CHALLENGE, AUTH or WELCOME) carrying
 * the BCN_AUTH_LEN bytes at data. node may be empty except for HELLO. */
int bcn_frame_ctl_encode(enum bcn_frame_kind kind, const char *node,
			 const uint8_t data[BCN_AUTH_LEN], struct bcn_buf *out);

/* Finds the next occurrence of the frame magic in buf after offset 0, or a
 * prefix of it that the end of buf cuts, for resynchronising a damaged
 * stream. Returns its offset, or len if there is none. */
size_t bcn_frame_resync(const uint8_t *buf, size_t len);

#endif
