/* beacon-mdsd: the MDS collector. Per MDT and interval it sends
 * BCN_REC_MDS records of the metadata operation counts (md_stats) of the
 * whole target, of each export (client NID: forwarding nodes, login
 * nodes, other clusters) and of each job in job_stats
 * (docs/collectors-lustre.md). The sampling itself is the shared Lustre
 * server sampler (collectors/lustre/lustre_server.h). */
#ifndef BCN_MDSD_H
#define BCN_MDSD_H

/* The program: bcn_collector_main with beacon-mdsd's keys and sampler.
 * Returns main()'s exit status. */
int bcn_mdsd_main(int argc, char **argv);

#endif
