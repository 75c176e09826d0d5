/* beacon-clientd: the compute-node daemon (docs/clientd.md). It receives
 * the compressed runs of every traced process on the node (tsock.h),
 * follows an LWFS forwarding-client log (lwfsrc.h) and samples the
 * /proc counters of job processes (procmon.h), whichever its
 * configuration turns on, and ships the records through the sender
 * library (or to --output). */
#ifndef BCN_CLIENTD_H
#define BCN_CLIENTD_H

/* The whole program: main() calls it. Returns the exit status. */
int bcn_clientd_main(int argc, char **argv);

#endif
