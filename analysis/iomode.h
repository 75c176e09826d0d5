/* Who moved a job's bytes, and its I/O mode from that (docs/report.md,
 * "I/O mode"): processes (node, pid, rank), the files each touched, the
 * bytes of each; bounded by a maximum of distinct processes, files and
 * (file, process) pairs. */
#ifndef BCN_IOMODE_H
#define BCN_IOMODE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/tally.h"
#include "proto/frame.h"
#include "proto/record.h"

#define BCN_IOMODE_MAX 8                /* "mixed" and its NUL */

struct bcn_iomode {
	struct bcn_u64map procs;        /* process -> bytes */
	struct bcn_u64map pairs;        /* (file, process) seen */
	struct bcn_u64map files;        /* file -> processes */
	struct bcn_u64map file_bytes;   /* file -> bytes */
	struct {                        /* the last (process, file) added,
					 * its bytes not yet in the maps:
					 * a process's records come in runs */
		bool on;
		int64_t rank;
		uint64_t pid, file, bytes;
		char node[BCN_NODE_MAX + 1];
	} run;
};

/* What bcn_iomode_result found. */
struct bcn_iomode_result {
	uint64_t procs, files, shared_files, busiest_proc_bytes;
	char mode[BCN_IOMODE_MAX];
};

void bcn_iomode_init(struct bcn_iomode *m, size_t max);
void bcn_iomode_free(struct bcn_iomode *m);

/* Counts bytes of data record r (an io record) for its process and file.
 * Consecutive records of one process and file are added up first and
 * counted when another comes or at bcn_iomode_flush(). Returns 0,
 * -BCN_EFULL (a bound) or -ENOMEM. */
int bcn_iomode_add(struct bcn_iomode *m, const struct bcn_record *r,
		   uint64_t bytes);

/* Counts what bcn_iomode_add() still holds. Returns 0, -BCN_EFULL or
 * -ENOMEM. */
int bcn_iomode_flush(struct bcn_iomode *m);

/* The mode of what was added and flushed (bytes: all of them). */
void bcn_iomode_result(const struct bcn_iomode *m, uint64_t bytes,
		       struct bcn_iomode_result *out);

#endif
