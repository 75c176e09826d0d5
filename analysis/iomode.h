/* Who moved a job's bytes, and its I/O mode from that (docs/report.md,
 * "I/O mode"): processes (node, pid, rank), the files each touched, the
 * bytes of each; bounded by a maximum of distinct processes, files and
 * (file, process) pairs. */
#ifndef BCN_IOMODE_H
#define BCN_IOMODE_H

#include <stdint.h>

#include "analysis/tally.h"
#include "proto/record.h"

#define BCN_IOMODE_MAX 8                /* "mixed" and its NUL */

struct bcn_iomode {
	struct bcn_u64map procs;        /* process -> bytes */
	struct bcn_u64map pairs;        /* (file, process) seen */
	struct bcn_u64map files;        /* file -> processes */
	struct bcn_u64map file_bytes;   /* file -> bytes */
};

/* What bcn_iomode_result found. */
struct bcn_iomode_result {
	uint64_t procs, files, shared_files, busiest_proc_bytes;
	char mode[BCN_IOMODE_MAX];
};

void bcn_iomode_init(struct bcn_iomode *m, size_t max);
void bcn_iomode_free(struct bcn_iomode *m);

/* Counts bytes of data record r (an io record) for its process and file.
 * Returns 0, -BCN_EFULL (a bound) or -ENOMEM. */
int bcn_iomode_add(struct bcn_iomode *m, const struct bcn_record *r,
		   uint64_t bytes);

/* The mode of what was added (bytes: all of them). */
void bcn_iomode_result(const struct bcn_iomode *m, uint64_t bytes,
		       struct bcn_iomode_result *out);

#endif
