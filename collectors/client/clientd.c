/* beacon-clientd (clientd.h): the configuration table and the collector
 * operations that drive its sources. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "collectors/client/clientd.h"
#include "collectors/client/tsock.h"
#include "common/collector.h"
#include "common/error.h"
#include "common/log.h"

struct clientd_conf {
	struct bcn_tsock_conf tracer;
	struct bcn_collector_conf cc;
};

struct clientd {
	struct clientd_conf *conf;
	struct bcn_tsock *tsock;
};

static const struct bcn_config_opt clientd_options[] = {
	BCN_TSOCK_CONFIG_OPTIONS(struct clientd_conf, tracer),
	BCN_COLLECTOR_CONFIG_OPTIONS(struct clientd_conf, cc),
	{ .name = NULL }
};

static int clientd_init(void *state, struct bcn_collector *c)
{
	struct clientd *d = state;
	int rc;

	(void)c;
	if (d->conf->tracer.on) {
		rc = bcn_tsock_open(&d->tsock, &d->conf->tracer);
		if (rc)
			return rc;
	}
	return 0;
}

static int clientd_watch_fd(void *state)
{
	struct clientd *d = state;

	return d->tsock ? bcn_tsock_fd(d->tsock) : -1;
}

static int clientd_ready(void *state, struct bcn_collector *c)
{
	struct clientd *d = state;

	return d->tsock ? bcn_tsock_receive(d->tsock, c, false) : 0;
}

static int clientd_sample(void *state, struct bcn_collector *c, int64_t t,
			  int64_t dur)
{
	struct clientd *d = state;
	int rc = 0, r;

	(void)t;
	(void)dur;
	if (d->tsock) {
		r = bcn_tsock_receive(d->tsock, c, true);
		if (r && !rc)
			rc = r;
		bcn_tsock_report(d->tsock);
	}
	return rc;
}

static void clientd_fini(void *state)
{
	struct clientd *d = state;
	struct bcn_tsock_stats ts;

	if (d->tsock) {
		bcn_tsock_stats(d->tsock, &ts);
		BCN_NOTICE("tracer: %" PRIu64 " datagrams, %" PRIu64
			   " records for %" PRIu64 " operations, %" PRIu64
			   " unattributed records, %" PRIu64 " operations "
			   "dropped by tracers, %" PRIu64 " calls passed "
			   "untraced, %" PRIu64 " datagrams lost, %" PRIu64
			   " bad datagrams, %" PRIu64 " bad records",
			   ts.datagrams, ts.records, ts.ops, ts.unattributed,
			   ts.dropped_ops, ts.untraced, ts.lost_datagrams,
			   ts.bad_datagrams, ts.bad_records);
		bcn_tsock_close(d->tsock);
		d->tsock = NULL;
	}
}

static const struct bcn_collector_ops clientd_ops = {
	.init = clientd_init,
	.sample = clientd_sample,
	.fini = clientd_fini,
	.watch_fd = clientd_watch_fd,
	.ready = clientd_ready,
	.sample_on_stop = true,
};

int bcn_clientd_main(int argc, char **argv)
{
	static struct clientd_conf conf;
	static struct clientd d;

	d.conf = &conf;
	return bcn_collector_main(argc, argv, "beacon-clientd",
				  "Compute-node collector: receives the I/O "
				  "records of traced processes "
				  "(libbeacon_trace.so), follows an LWFS "
				  "client log, samples the /proc counters of "
				  "job processes, and sends them.",
				  clientd_options, &conf, &conf.cc,
				  &clientd_ops, &d);
}
