/* beacon-swd: InfiniBand port counters of this host's adapters (sysfs)
 * and of switch ports reached through perfquery, as per-interval
 * BCN_REC_PORT records (docs/collectors.md, "beacon-swd"). */
#ifndef BCN_SWD_H
#define BCN_SWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/program.h"

#define BCN_SWD_TARGET_MAX 128          /* one perfquery_target value */
#define BCN_SWD_MAX_TARGETS 256         /* perfquery_target entries */
#define BCN_SWD_NAME_MAX 64             /* switch name in records */
#define BCN_SWD_ID_MAX 24               /* "0x" + 16 hex digits, a LID */
#define BCN_SWD_PORTS_MAX 96            /* perfquery's port list */

/* One perfquery target: "[NAME=]ID[:PORTS]". */
struct bcn_swd_target {
	char sw[BCN_SWD_NAME_MAX];      /* NAME, the GUID, or "lid" + LID */
	char id[BCN_SWD_ID_MAX];        /* the LID or GUID given to perfquery */
	bool guid;                      /* id is a GUID (perfquery -G) */
	char ports[BCN_SWD_PORTS_MAX];  /* "1,2,5" or "" for every port */
};

/* Parses a target: ID is a LID (decimal, 1..49151) or a port GUID
 * ("0x" and 1 to 16 hex digits; the switch name is then the GUID in
 * lower case, 16 digits); PORTS is a port number (0..254), a
 * comma-separated list of them or a range N-M (N < M), as perfquery takes
 * them (without PORTS every port is queried); NAME (letters, digits, '-',
 * '_', '.') overrides the switch name. Returns 0 or
 * -BCN_ESYNTAX/-BCN_ERANGE. Pure. */
int bcn_swd_target_parse(const char *s, struct bcn_swd_target *t);

/* beacon-swd (common/program.h): its keys and sampler on the collector
 * loop. */
extern const struct bcn_program bcn_swd_program;

#endif
