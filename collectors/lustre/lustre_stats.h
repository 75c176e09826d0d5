/* Pure parsers of Lustre's "stats" files (obdfilter/<target>/stats,
 * mdt/<target>/md_stats, exports/<nid>/stats, osc and llite stats) and the
 * pieces every Lustre parser shares: a line splitter that takes input in
 * chunks of any size, the timestamp forms Lustre prints, one counter line,
 * and the table-driven mapping of counter names onto the values a record
 * carries (docs/collectors-lustre.md).
 *
 * Every function here works on memory only: the callers read the files. */
#ifndef BCN_LUSTRE_STATS_H
#define BCN_LUSTRE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/record.h"

#define BCN_LUSTRE_LINE_MAX 1024        /* longer lines are skipped */
#define BCN_LUSTRE_SLOTS_MAX 64         /* values one map fills */
#define BCN_LUSTRE_MAP_FIELDS_MAX 128   /* entries of one map */
#define BCN_LUSTRE_MAP_HASH 256         /* lookup slots, a power of two */
#define BCN_LUSTRE_MAP_REFS 4           /* entries naming one counter */
#define BCN_LUSTRE_NAME_MAX 64          /* longest counter name in a map */

/* ---- Line splitter ------------------------------------------------- */

/* Called once per line, without its '\n'. A negative return stops the
 * splitter, which returns it. */
typedef int bcn_lustre_line_fn(void *arg, const char *line, size_t len);

/* Carries a line cut by a chunk boundary over to the next chunk. */
struct bcn_lustre_lines {
	char part[BCN_LUSTRE_LINE_MAX];
	size_t plen;
	bool overlong;                  /* the current line is too long */
	uint64_t overlong_lines;        /* lines skipped for their length */
};

void bcn_lustre_lines_init(struct bcn_lustre_lines *ls);

/* Splits len bytes of input into lines and calls fn for each complete
 * one; a line longer than BCN_LUSTRE_LINE_MAX - 1 bytes is skipped and
 * counted in overlong_lines. Returns 0 or fn's negative return. */
int bcn_lustre_lines_feed(struct bcn_lustre_lines *ls, const char *buf,
			  size_t len, bcn_lustre_line_fn *fn, void *arg);

/* Ends the input: passes a last line that has no '\n' to fn. Returns 0
 * or fn's negative return. */
int bcn_lustre_lines_end(struct bcn_lustre_lines *ls, bcn_lustre_line_fn *fn,
			 void *arg);

/* ---- Scalars --------------------------------------------------------- */

/* (Decimal numbers: bcn_text_u64 of common/text.h.) */

/* Parses a Lustre timestamp (the text after the name): "SECS",
 * "SECS.FRAC", optionally followed by a unit "secs.usecs", "secs.nsecs"
 * or the same in parentheses. With a unit FRAC counts micro- or
 * nanoseconds as printed (old kernels printed usecs unpadded,
 * "1438693238.20113 secs.usecs" is 20113 us; newer ones pad nsecs with
 * spaces, "1510781853. 10473844"); without one it is a decimal fraction.
 * Writes nanoseconds since the epoch (or of a duration) to *ns.
 * Returns 0, -BCN_ESYNTAX or -BCN_ERANGE. */
int bcn_lustre_parse_time(const char *s, size_t len, int64_t *ns);

/* Recognises the header lines every Lustre file shares: "snapshot_time",
 * "start_time" or "elapsed_time" (then blanks or ':') and a timestamp, at
 * p (leading blanks already skipped) up to end; stores the time in the
 * matching output. Returns 1 for such a line, 0 for any other line, or
 * -BCN_ESYNTAX for a header whose time does not parse. */
int bcn_lustre_time_line(const char *p, const char *end, int64_t *snapshot,
			 int64_t *start, int64_t *elapsed);

/* ---- One counter line ---------------------------------------------- */

/* "name  N samples [unit] [min max sum [sumsq]]" */
struct bcn_lustre_counter {
	const char *name;               /* into the line */
	size_t name_len;
	const char *unit;               /* without brackets, into the line */
	size_t unit_len;
	uint64_t samples;
	uint64_t min, max, sum, sumsq;  /* 0 when not printed */
	unsigned nvals;                 /* values after the unit: 0, 3, 4 */
};

/* Parses one counter line. Returns 0, or -BCN_ESYNTAX/-BCN_ERANGE for a
 * line that is not one (c is then undefined). */
int bcn_lustre_counter_parse(const char *line, size_t len,
			     struct bcn_lustre_counter *c);

/* ---- Counter names -> record values ---------------------------------- */

/* Which number of a counter an entry takes. */
enum bcn_lustre_value {
	BCN_LUSTRE_SAMPLES = 0,         /* the count of events */
	BCN_LUSTRE_SUM,                 /* the sum: bytes for [bytes] */
};

/* One entry of a map: counter name -> value slot. Several entries may
 * fill one slot: the earliest entry whose counter is present wins (a
 * preferred name first, fallbacks after it), and of repeated lines of one
 * name the first wins. */
struct bcn_lustre_field {
	const char *name;
	uint8_t slot;
	uint8_t value;                  /* enum bcn_lustre_value */
};

/* A map with its lookup table; build it with bcn_lustre_map_init. */
struct bcn_lustre_map {
	const struct bcn_lustre_field *fields;
	size_t nfields;
	unsigned nslots;
	uint8_t hash[BCN_LUSTRE_MAP_HASH];      /* entry index + 1, 0: free */
	uint8_t flen[BCN_LUSTRE_MAP_FIELDS_MAX];/* length of each name */
};

/* The values a map filled from one file or job. */
struct bcn_lustre_vals {
	uint64_t v[BCN_LUSTRE_SLOTS_MAX];       /* 0 when not present */
	uint64_t present;                       /* bit s: slot s was set */
	uint8_t rank[BCN_LUSTRE_SLOTS_MAX];     /* entry that set slot s */
};

/* Slots of the OST map: BCN_OST_* operation counts, then bytes. */
enum bcn_lustre_ost_slot {
	BCN_LUSTRE_OST_READ_BYTES = BCN_OST_OP_MAX,
	BCN_LUSTRE_OST_WRITE_BYTES,
	BCN_LUSTRE_OST_SLOTS
};

/* Slots of the MDT map: the BCN_MD_* operation counts. */
#define BCN_LUSTRE_MD_SLOTS BCN_MD_OP_MAX

/* The tables (built from record.h's BCN_OST_OPS and BCN_MD_OPS, plus the
 * fallback names older and newer Lustre versions print). */
extern const struct bcn_lustre_field bcn_lustre_ost_fields[];
extern const size_t bcn_lustre_ost_nfields;
extern const struct bcn_lustre_field bcn_lustre_md_fields[];
extern const size_t bcn_lustre_md_nfields;

/* Builds the lookup table of n entries filling nslots slots. Returns 0,
 * or -EINVAL for a table that is too large, names a slot >= nslots, has
 * an empty name or one longer than BCN_LUSTRE_NAME_MAX, or more than
 * BCN_LUSTRE_MAP_REFS entries of one name. */
int bcn_lustre_map_init(struct bcn_lustre_map *m,
			const struct bcn_lustre_field *fields, size_t n,
			unsigned nslots);

/* Finds the entries naming counter name[0..len-1]: writes up to
 * BCN_LUSTRE_MAP_REFS entry indexes to idx and returns their number
 * (0: the map does not use the counter). */
unsigned bcn_lustre_map_find(const struct bcn_lustre_map *m,
			     const char *name, size_t len,
			     uint8_t idx[BCN_LUSTRE_MAP_REFS]);

/* Empties vals for a map of nslots slots. */
void bcn_lustre_vals_clear(struct bcn_lustre_vals *vals, unsigned nslots);

/* Stores value under entry idx of m, unless its slot already holds the
 * value of an earlier (or the same) entry. */
void bcn_lustre_vals_put(struct bcn_lustre_vals *vals,
			 const struct bcn_lustre_map *m, unsigned idx,
			 uint64_t value);

/* Applies one parsed counter to vals. Returns the number of entries that
 * used it (0: the map does not know the name). */
unsigned bcn_lustre_map_apply(const struct bcn_lustre_map *m,
			      const struct bcn_lustre_counter *c,
			      struct bcn_lustre_vals *vals);

/* ---- A whole stats file -------------------------------------------- */

struct bcn_lustre_stats {
	int64_t snapshot_ns;            /* -1 when absent */
	int64_t start_ns;               /* -1 when absent (before 2.15) */
	int64_t elapsed_ns;             /* -1 when absent */
	struct bcn_lustre_vals vals;
	uint32_t counters;              /* counter lines parsed */
	uint32_t unmapped;              /* of those: names the map ignores */
	uint32_t malformed;             /* lines skipped */
};

/* Parses a stats file through map. Lines that are neither a timestamp
 * nor a counter are skipped and counted in malformed. Returns 0, or
 * -BCN_ESYNTAX when the buffer holds lines but not one of them parsed
 * (out is filled in either case). */
int bcn_lustre_stats_parse(const char *buf, size_t len,
			   const struct bcn_lustre_map *map,
			   struct bcn_lustre_stats *out);

#endif
