/* beacon-mdsd (collectors/mds/mdsd.h): its role, description and
 * options around the Lustre target server's daemon body
 * (collectors/lustresrv/lustre_daemon.h). */
#include "collectors/mds/mdsd.h"
#include "collectors/lustresrv/lustre_daemon.h"

/* beacon-mdsd has the keys of both daemons only. */
static const struct bcn_config_opt mdsd_options[] = {
	BCN_LUSTRE_DAEMON_OPTIONS,
	{ .name = NULL }
};

static struct bcn_lustre_daemon_conf mdsd_cfg = { .role = BCN_LUSTRE_MDT };
static struct bcn_lustre_daemon mdsd_state = { .conf = &mdsd_cfg };

const struct bcn_program bcn_mdsd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-mdsd",
	"Samples the metadata statistics of this MDS's Lustre MDTs (md_stats, "
	"per-export stats, job_stats) and sends their per-interval deltas.",
	mdsd_options, &mdsd_cfg, &mdsd_cfg.cc, &bcn_lustre_daemon_ops,
	&mdsd_state);
