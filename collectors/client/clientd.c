/* beacon-clientd (clientd.h): the configuration table and the collector
 * operations that drive its sources. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "collectors/client/clientd.h"
#include "collectors/client/lwfsrc.h"
#include "collectors/client/procmon.h"
#include "collectors/client/tsock.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "common/log.h"

struct clientd_conf {
	struct bcn_tsock_conf tracer;
	struct bcn_lwfs_conf lwfs;
	struct bcn_procmon_conf proc;
	struct bcn_collector_conf cc;
};

struct clientd {
	struct clientd_conf *conf;
	struct bcn_tsock *tsock;
	struct bcn_lwfsrc lwfs;
	struct bcn_procmon proc;
	bool have_lwfs, have_proc;
};

static const struct bcn_config_opt clientd_options[] = {
	BCN_TSOCK_CONFIG_OPTIONS(struct clientd_conf, tracer),
	BCN_LWFS_CONFIG_OPTIONS(struct clientd_conf, lwfs),
	BCN_PROCMON_CONFIG_OPTIONS(struct clientd_conf, proc),
	BCN_COLLECTOR_CONFIG_OPTIONS_FRAME(struct clientd_conf, cc, "256K",
					   "5s"),
	{ .name = NULL }
};

static int clientd_init(void *state, struct bcn_collector *c)
{
	struct clientd *d = state;
	int rc;

	(void)c;
	if (!d->conf->tracer.on && !d->conf->lwfs.log[0] &&
	    !d->conf->proc.enabled) {
		BCN_ERR("no source: tracer, lwfs_log and proc_sample are all "
			"off");
		return -EINVAL;
	}
	if (d->conf->tracer.on) {
		rc = bcn_tsock_open(&d->tsock, &d->conf->tracer);
		if (rc)
			return rc;
	}
	if (d->conf->lwfs.log[0]) {
		rc = bcn_lwfsrc_init(&d->lwfs, &d->conf->lwfs);
		if (rc) {
			BCN_ERR("LWFS source: %s", bcn_strerror(rc));
			return rc;
		}
		d->have_lwfs = true;
	}
	if (d->conf->proc.enabled) {
		rc = bcn_procmon_init(&d->proc, &d->conf->proc);
		if (rc) {
			BCN_ERR("/proc sampler: %s", bcn_strerror(rc));
			return rc;
		}
		d->have_proc = true;
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

/* Only the tracer, with nothing followed and everything reported: the
 * loop need not wake until a datagram comes. */
static bool clientd_idle(void *state)
{
	struct clientd *d = state;

	return d->tsock && !d->have_lwfs && !d->have_proc &&
	       bcn_tsock_idle(d->tsock);
}

static int clientd_sample(void *state, struct bcn_collector *c, int64_t t,
			  int64_t dur)
{
	struct clientd *d = state;
	int rc = 0, r;

	if (d->tsock) {
		r = bcn_tsock_receive(d->tsock, c, true);
		if (r && !rc)
			rc = r;
		bcn_tsock_release(d->tsock, c, bcn_collector_last_sample(c));
		bcn_tsock_report(d->tsock, c);
	}
	if (d->have_lwfs) {
		r = bcn_lwfsrc_sample(&d->lwfs, c, t, dur);
		if (r && !rc)
			rc = r;
	}
	if (d->have_proc) {
		r = bcn_procmon_sample(&d->proc, c, t, dur);
		if (r && !rc)
			rc = r;
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
			   " bad datagrams, %" PRIu64 " bad records; %" PRIu64
			   " process streams ended, %" PRIu64 " of them with "
			   "a thread's runs lost, %" PRIu64 " cut (the "
			   "process gone without its end); %" PRIu64 " runs "
			   "joined to the run a flush cut",
			   ts.datagrams, ts.records, ts.ops, ts.unattributed,
			   ts.dropped_ops, ts.untraced, ts.lost_datagrams,
			   ts.bad_datagrams, ts.bad_records,
			   ts.streams_ended, ts.streams_partial,
			   ts.streams_cut, ts.joined);
		bcn_tsock_close(d->tsock);
		d->tsock = NULL;
	}
	if (d->have_lwfs) {
		BCN_NOTICE("LWFS log: %" PRIu64 " operations, %" PRIu64
			   " records, %" PRIu64 " malformed lines, %" PRIu64
			   " handles never opened", d->lwfs.lines,
			   d->lwfs.records, d->lwfs.malformed,
			   d->lwfs.unknown_handles);
		bcn_lwfsrc_free(&d->lwfs);
		d->have_lwfs = false;
	}
	if (d->have_proc) {
		BCN_NOTICE("/proc sampler: %" PRIu64 " records, %" PRIu64
			   " processes beyond proc_max dropped, %" PRIu64
			   " unreadable files", d->proc.records,
			   d->proc.dropped, d->proc.unreadable);
		bcn_procmon_free(&d->proc);
		d->have_proc = false;
	}
}

static const struct bcn_collector_ops clientd_ops = {
	.init = clientd_init,
	.sample = clientd_sample,
	.fini = clientd_fini,
	.watch_fd = clientd_watch_fd,
	.ready = clientd_ready,
	.idle = clientd_idle,
	.sample_on_stop = true,
};

static struct clientd_conf clientd_cfg;
static struct clientd clientd_state = { .conf = &clientd_cfg };

const struct bcn_program bcn_clientd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-clientd",
	"Compute-node collector: receives the I/O records of traced "
	"processes (libbeacon_trace.so), follows an LWFS client log, samples "
	"the /proc counters of job processes, and sends them.",
	clientd_options, &clientd_cfg, &clientd_cfg.cc, &clientd_ops,
	&clientd_state);
