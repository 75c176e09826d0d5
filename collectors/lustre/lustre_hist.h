/* Pure parsers of Lustre's histogram tables: brw_stats of an OST
 * (obdfilter/<target>/brw_stats up to 2.10, osd-<backend>/<target>/
 * brw_stats from 2.4, /sys/kernel/debug/lustre/osd-<backend>/<target>/
 * brw_stats since 2.15) and rpc_stats of an OSC or MDC on a client.
 * Both print sections of rows
 * "LABEL: read % cum % | write % cum %", where LABEL is a number with an
 * optional binary K/M/G suffix; the percentages are ignored.
 *
 * bcn_lustre_hist_log2() maps a section onto the 32 log2 buckets of the
 * record model (docs/records.md): a row goes to the bucket that holds its
 * label. Lustre's pages, I/O time and size histograms are labelled with
 * powers of two (the label 2^i counts values in (2^(i-1), 2^i]), so label
 * 2^i lands in bucket i exactly; linear ones (RPCs or disk I/Os in flight,
 * discontiguous pages) fold several rows into one bucket. */
#ifndef BCN_LUSTRE_HIST_H
#define BCN_LUSTRE_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "proto/record.h"

#define BCN_LUSTRE_HIST_ROWS 64         /* rows kept per section */

/* One section: rows in file order. */
struct bcn_lustre_hist {
	uint32_t n;                             /* rows */
	uint32_t ncols;                         /* 1, or 2 with read|write */
	uint64_t label[BCN_LUSTRE_HIST_ROWS];   /* K, M, G expanded */
	uint64_t count[2][BCN_LUSTRE_HIST_ROWS];/* [0] read (or the only
						 * column), [1] write */
};

/* Sections of brw_stats, by their titles. */
enum bcn_lustre_brw_sec {
	BCN_BRW_PAGES,          /* "pages per bulk r/w": pages per RPC */
	BCN_BRW_DISCONT_PAGES,  /* "discontiguous pages" */
	BCN_BRW_DISCONT_BLOCKS, /* "discontiguous blocks" */
	BCN_BRW_FRAGS,          /* "disk fragmented I/Os" */
	BCN_BRW_IN_FLIGHT,      /* "disk I/Os in flight" */
	BCN_BRW_IO_TIME,        /* "I/O time (1/1000s)": milliseconds */
	BCN_BRW_IO_SIZE,        /* "disk I/O size": bytes */
	BCN_BRW_BLOCK_MAPS,     /* "block maps msec" */
	BCN_BRW_SECTIONS
};

/* Sections of osc/mdc rpc_stats. */
enum bcn_lustre_rpc_sec {
	BCN_RPC_PAGES,          /* "pages per rpc" */
	BCN_RPC_IN_FLIGHT,      /* "rpcs in flight" (MDC: one column) */
	BCN_RPC_OFFSET,         /* "offset" (pages) */
	BCN_RPC_SECTIONS
};

/* Title of a section ("?" when out of range). */
const char *bcn_lustre_brw_name(unsigned sec);
const char *bcn_lustre_rpc_name(unsigned sec);

/* What a parse saw besides the sections. */
struct bcn_lustre_hist_counts {
	uint32_t present;       /* bit per section whose title was seen */
	uint32_t rows;          /* rows stored */
	uint32_t unknown;       /* lines of sections or keys not known here */
	uint32_t overflow;      /* rows beyond BCN_LUSTRE_HIST_ROWS */
	uint32_t malformed;     /* lines skipped */
};

struct bcn_lustre_brw {
	int64_t snapshot_ns;    /* -1 when absent */
	int64_t start_ns;       /* -1 when absent (before 2.15) */
	int64_t elapsed_ns;     /* -1 when absent */
	struct bcn_lustre_hist_counts c;
	struct bcn_lustre_hist sec[BCN_BRW_SECTIONS];
};

/* Parses a brw_stats file (every layout from 1.8 to 2.15: tabs or spaces
 * after the label, blank lines between sections or not, empty sections,
 * the 2.15 start_time/elapsed_time header). Returns 0, or -BCN_ESYNTAX
 * when the buffer holds lines and none of them parsed. */
int bcn_lustre_brw_parse(const char *buf, size_t len,
			 struct bcn_lustre_brw *out);

/* Bits of bcn_lustre_rpc.have. */
#define BCN_RPC_HAVE_READ_IN_FLIGHT     0x01
#define BCN_RPC_HAVE_WRITE_IN_FLIGHT    0x02
#define BCN_RPC_HAVE_PENDING_WRITE      0x04
#define BCN_RPC_HAVE_PENDING_READ       0x08
#define BCN_RPC_HAVE_MODIFY_IN_FLIGHT   0x10

struct bcn_lustre_rpc {
	int64_t snapshot_ns;            /* -1 when absent */
	int64_t start_ns, elapsed_ns;   /* -1 when absent */
	uint64_t read_in_flight;        /* "read RPCs in flight" now */
	uint64_t write_in_flight;       /* "write RPCs in flight" now */
	uint64_t pending_write_pages;   /* "pending write pages" now */
	uint64_t pending_read_pages;    /* "pending read pages" now */
	uint64_t modify_in_flight;      /* MDC "modify_RPCs_in_flight" */
	uint32_t have;                  /* BCN_RPC_HAVE_* of those seen */
	struct bcn_lustre_hist_counts c;
	struct bcn_lustre_hist sec[BCN_RPC_SECTIONS];
};

/* Parses an osc or mdc rpc_stats file. Returns 0, or -BCN_ESYNTAX when
 * the buffer holds lines and none of them parsed. */
int bcn_lustre_rpc_parse(const char *buf, size_t len,
			 struct bcn_lustre_rpc *out);

/* The log2 bucket of a value: 0 for 0 and 1, else floor(log2(value)),
 * at most BCN_HIST_BUCKETS - 1. */
unsigned bcn_lustre_log2_bucket(uint64_t value);

/* The bucket a Lustre obd_histogram of nbuckets (>= 1) counts value in,
 * as the kernel's lprocfs_oh_tally_log2 does: 0 for 0 and 1, else
 * fls(value - 1) (the row labelled 2^i counts values in (2^(i-1), 2^i]),
 * at most nbuckets - 1. What a writer of these tables (beacon-sim) uses
 * to fill them. */
unsigned bcn_lustre_tally_log2(uint64_t value, unsigned nbuckets);

/* Adds column col (0 read, 1 write) of h to out, each row to the bucket
 * of its label. A column h does not have adds nothing. */
void bcn_lustre_hist_log2(const struct bcn_lustre_hist *h, unsigned col,
			  uint64_t out[BCN_HIST_BUCKETS]);

/* Sum of column col of h (e.g. RPCs: the pages per rpc rows). */
uint64_t bcn_lustre_hist_total(const struct bcn_lustre_hist *h, unsigned col);

/* The count of the row labelled label in column col, 0 if there is none
 * (a convenience for tests and the forwarding collector). */
uint64_t bcn_lustre_hist_get(const struct bcn_lustre_hist *h, unsigned col,
			     uint64_t label);

#endif
