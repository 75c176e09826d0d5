/* The compute-to-forwarding map file: which forwarding node carries the
 * I/O of which compute nodes, and when (docs/jobdb.md, "Job record
 * formats"; beacon-sim writes one as OUT/slurm/fwdmap.txt). One entry a
 * line: `<compute hostlist> <forwarding node> [<from> [<to>]]`, blank-
 * separated; from and to are epoch seconds, ISO 8601 or '-' for open;
 * '#' starts a comment line. */
#ifndef BCN_FWDMAP_H
#define BCN_FWDMAP_H

#include "jobs/jobparse.h"

#define BCN_FWDMAP_NAME_MAX 255

/* Parses buf[0..len), calling fn per entry (from 0 and to INT64_MAX when
 * open) and err per rejected line (bad hostlist, bad time, to not after
 * from, wrong number of fields). Returns 0, fn's value or -ENOMEM. */
int bcn_fwdmap_parse(const char *buf, size_t len, bcn_fwdmap_fn *fn,
		     bcn_jobparse_err_fn *err, void *arg,
		     struct bcn_jobparse_stats *st);

#endif
