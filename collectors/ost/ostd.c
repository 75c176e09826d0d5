/* beacon-ostd (collectors/ost/ostd.h): its role, description and
 * options around the Lustre target server's daemon body
 * (collectors/lustresrv/lustre_daemon.h). */
#include "collectors/ost/ostd.h"
#include "collectors/lustresrv/lustre_daemon.h"

/* beacon-ostd's own key (brw_stats) first, then those of both daemons. */
static const struct bcn_config_opt ostd_options[] = {
	{ "brw_stats", BCN_CFG_BOOL, BCN_LUSTRE_DAEMON_MEMBER(brw), .def = "yes",
	  .help = "Add the brw_stats histograms (pages per bulk RPC, disk "
		  "I/O time) to the whole-target records." },
	BCN_LUSTRE_DAEMON_OPTIONS,
	{ .name = NULL }
};

static struct bcn_lustre_daemon_conf ostd_cfg = { .role = BCN_LUSTRE_OST };
static struct bcn_lustre_daemon ostd_state = { .conf = &ostd_cfg };

const struct bcn_program bcn_ostd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-ostd",
	"Samples the statistics of this OSS's Lustre OSTs (obdfilter stats, "
	"brw_stats, per-export stats, job_stats) and sends their "
	"per-interval deltas.",
	ostd_options, &ostd_cfg, &ostd_cfg.cc, &bcn_lustre_daemon_ops,
	&ostd_state);
