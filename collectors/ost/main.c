/* beacon-ostd: the OSS collector. Its role, description and options; the
 * daemon body is the Lustre target server's (collectors/lustresrv). */
#include "collectors/lustresrv/lustre_daemon.h"

/* beacon-ostd's own key (brw_stats) first, then those of both daemons. */
static const struct bcn_config_opt ostd_options[] = {
	{ "brw_stats", BCN_CFG_BOOL, BCN_LUSTRE_DAEMON_MEMBER(brw), .def = "yes",
	  .help = "Add the brw_stats histograms (pages per bulk RPC, disk "
		  "I/O time) to the whole-target records." },
	BCN_LUSTRE_DAEMON_OPTIONS,
	{ .name = NULL }
};

int main(int argc, char **argv)
{
	return bcn_lustre_daemon_main(argc, argv, BCN_LUSTRE_OST, "beacon-ostd",
				      "Samples the statistics of this OSS's Lustre "
				      "OSTs (obdfilter stats, brw_stats, per-export "
				      "stats, job_stats) and sends their "
				      "per-interval deltas.", ostd_options);
}
