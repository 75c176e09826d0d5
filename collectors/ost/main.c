/* beacon-ostd: the OSS collector (collectors/lustre/lustre_daemon.c). */
#include "collectors/lustre/lustre_daemon.h"

int main(int argc, char **argv)
{
	return bcn_lustre_daemon_main(argc, argv, BCN_LUSTRE_OST, "beacon-ostd",
				      "Samples the statistics of this OSS's Lustre "
				      "OSTs (obdfilter stats, brw_stats, per-export "
				      "stats, job_stats) and sends their "
				      "per-interval deltas.");
}
