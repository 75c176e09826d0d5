/* The daemon body beacon-ostd and beacon-mdsd share: the collector-loop
 * callbacks around the Lustre server sampler, for either role. The
 * programs (collectors/ost/ostd.c, collectors/mds/mdsd.c) give the role,
 * their description and their option table. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "collectors/lustresrv/lustre_server.h"
#include "collectors/lustresrv/lustre_daemon.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "common/log.h"

static int daemon_init(void *arg, struct bcn_collector *c)
{
	struct bcn_lustre_daemon *d = arg;
	const struct bcn_collector_conf *cc = bcn_collector_conf(c);
	struct bcn_lustre_server_conf sc = {
		.role = d->conf->role,
		.root = cc->root,
		.exports = d->conf->exports,
		.jobs = d->conf->jobs,
		.brw = d->conf->brw,
		.idle = d->conf->idle,
		.jobs_every_ns = d->conf->jobs_every_ms * 1000000,
		.exports_every_ns = d->conf->exports_every_ms * 1000000,
		.budget_us = d->conf->budget_us,
		.max_entities = (size_t)d->conf->max_entities,
		.forget_after = (unsigned)d->conf->forget_after,
	};
	int rc = bcn_lustre_server_new(&sc, &d->srv);

	if (rc)
		BCN_ERR("cannot start the %s sampler: %s",
			d->conf->role == BCN_LUSTRE_OST ? "OST" : "MDT",
			bcn_strerror(rc));
	return rc;
}

static int daemon_sample(void *arg, struct bcn_collector *c, int64_t t_ns,
		       int64_t dur_ns)
{
	struct bcn_lustre_daemon *d = arg;
	struct bcn_lustre_server_host host;

	bcn_lustre_server_host_init(&host, c);
	return bcn_lustre_server_sample(d->srv, t_ns, dur_ns, &host);
}

static void daemon_fini(void *arg)
{
	struct bcn_lustre_daemon *d = arg;
	struct bcn_lustre_server_stats st;

	if (d->srv) {
		bcn_lustre_server_stats(d->srv, &st);
		BCN_INFO("%s: %" PRIu64 " targets, %" PRIu64 " records, %"
			 PRIu64 " export reads, %" PRIu64 " job blocks, %"
			 PRIu64 " empty job ids, %" PRIu64 " malformed lines, %"
			 PRIu64 " untracked (table full); %" PRIu64 " job_stats and %"
			 PRIu64 " exports rounds, the last costing %" PRId64
			 " us", d->conf->role == BCN_LUSTRE_OST ? "OSTs" : "MDTs",
			 st.targets, st.records, st.exports, st.jobs,
			 st.empty_jobids, st.malformed, st.table_full,
			 st.job_reads, st.export_reads,
			 st.detail_cost_ns / 1000);
	}
	bcn_lustre_server_free(d->srv);
	d->srv = NULL;
}

const struct bcn_collector_ops bcn_lustre_daemon_ops = {
	.init = daemon_init, .sample = daemon_sample, .fini = daemon_fini,
};
