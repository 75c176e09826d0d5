/* beacon-clientd: the compute-node daemon (docs/clientd.md). It receives
 * the compressed runs of every traced process on the node (tsock.h),
 * follows an LWFS forwarding-client log (lwfsrc.h) and samples the
 * /proc counters of job processes (procmon.h), whichever its
 * configuration turns on, and ships the records through the sender
 * library (or to --output). */
#ifndef BCN_CLIENTD_H
#define BCN_CLIENTD_H

#include "common/program.h"

/* The whole program (common/program.h). */
extern const struct bcn_program bcn_clientd_program;

#endif
