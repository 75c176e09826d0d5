/* The program of beacon-ostd and beacon-mdsd: per target and interval,
 * BCN_REC_OST or BCN_REC_MDS records of the whole target, of each export
 * (client NID) and of each job in job_stats (docs/collectors-lustre.md),
 * from the shared Lustre server sampler (lustre_server.h). */
#ifndef BCN_LUSTRE_DAEMON_H
#define BCN_LUSTRE_DAEMON_H

#include "collectors/lustre/lustre_tree.h"

/* bcn_collector_main with the keys and sampler of the role. Returns
 * main()'s exit status. */
int bcn_lustre_daemon_main(int argc, char **argv, enum bcn_lustre_role role,
			   const char *prog, const char *description);

#endif
