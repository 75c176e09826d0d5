/* beacon-fwdd, the forwarding-node collector: request statistics of the
 * I/O forwarding server from its request log (fwdreq.h) and the Lustre
 * client's RPCs per OST (fwdrpc.h), on the shared collector loop
 * (collectors/runtime/collector.h). Either part may be turned off. */
#ifndef BCN_FWDD_H
#define BCN_FWDD_H

#include <stdbool.h>
#include <stdint.h>

#include "collectors/runtime/follow.h"
#include "collectors/forwarder/fwdreq.h"
#include "collectors/forwarder/fwdrpc.h"
#include "collectors/runtime/collector.h"
#include "common/config.h"

struct bcn_fwdd_conf {
	char request_log[BCN_FOLLOW_PATH_MAX];  /* "": no request log */
	uint64_t request_samples;               /* kept per window */
	bool lustre_client;                     /* sample the osc devices */
	uint64_t osc_max_targets;
	bool osc_idle;                  /* records of idle osc devices too */
	struct bcn_collector_conf cc;
};

/* The configuration table: the keys above and the collector's. */
extern const struct bcn_config_opt bcn_fwdd_options[];

/* The daemon's state; conf must point to the configuration. */
struct bcn_fwdd {
	const struct bcn_fwdd_conf *conf;
	bool req_on, rpc_on;
	struct bcn_fwdreq req;
	struct bcn_fwdrpc rpc;
	uint64_t malformed_seen;        /* reported to the loop so far */
};

/* init, sample and fini for the collector loop, over a struct bcn_fwdd. */
extern const struct bcn_collector_ops bcn_fwdd_ops;

/* beacon-fwdd (common/program.h). */
extern const struct bcn_program bcn_fwdd_program;

#endif
