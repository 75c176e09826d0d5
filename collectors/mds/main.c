/* beacon-mdsd: the MDS collector. Its role, description and options; the
 * daemon body is the Lustre target server's (collectors/lustresrv). */
#include "collectors/lustresrv/lustre_daemon.h"

/* beacon-mdsd has the keys of both daemons only. */
static const struct bcn_config_opt mdsd_options[] = {
	BCN_LUSTRE_DAEMON_OPTIONS,
	{ .name = NULL }
};

int main(int argc, char **argv)
{
	return bcn_lustre_daemon_main(argc, argv, BCN_LUSTRE_MDT, "beacon-mdsd",
				      "Samples the metadata statistics of this "
				      "MDS's Lustre MDTs (md_stats, per-export "
				      "stats, job_stats) and sends their "
				      "per-interval deltas.", mdsd_options);
}
