/* beacon-mdsd: the MDS collector (collectors/lustre/lustre_daemon.c). */
#include "collectors/lustre/lustre_daemon.h"

int main(int argc, char **argv)
{
	return bcn_lustre_daemon_main(argc, argv, BCN_LUSTRE_MDT, "beacon-mdsd",
				      "Samples the metadata statistics of this "
				      "MDS's Lustre MDTs (md_stats, per-export "
				      "stats, job_stats) and sends their "
				      "per-interval deltas.");
}
