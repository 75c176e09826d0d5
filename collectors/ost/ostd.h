/* beacon-ostd: the OSS collector. Per OST and interval it sends
 * BCN_REC_OST records of the obdfilter stats and brw_stats histograms of
 * the whole target, of each export (client NID) and of each job in
 * job_stats (docs/collectors-lustre.md). The sampling itself is the
 * shared Lustre server sampler (collectors/lustre/lustre_server.h). */
#ifndef BCN_OSTD_H
#define BCN_OSTD_H

/* The program: bcn_collector_main with beacon-ostd's keys and sampler.
 * Returns main()'s exit status. */
int bcn_ostd_main(int argc, char **argv);

#endif
