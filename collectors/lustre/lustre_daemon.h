/* The program of beacon-ostd and beacon-mdsd: per target and interval,
 * BCN_REC_OST or BCN_REC_MDS records of the whole target, of each export
 * (client NID) and of each job in job_stats (docs/collectors-lustre.md),
 * from the shared Lustre server sampler (lustre_server.h). */
#ifndef BCN_LUSTRE_DAEMON_H
#define BCN_LUSTRE_DAEMON_H

#include "common/program.h"

/* beacon-ostd and beacon-mdsd (common/program.h): the keys and sampler of
 * each role on the collector loop. */
extern const struct bcn_program bcn_ostd_program;
extern const struct bcn_program bcn_mdsd_program;

#endif
