/* The daemons beacon-ostd and beacon-mdsd: their configuration and the
 * collector-loop callbacks around the Lustre server sampler, for either
 * role. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "collectors/lustre/lustre_server.h"
#include "collectors/lustre/lustre_daemon.h"
#include "collectors/runtime/collector.h"
#include "common/config.h"
#include "common/error.h"
#include "common/log.h"

struct lustre_daemon_conf {
	bool exports;
	bool jobs;
	bool brw;
	bool idle;
	int64_t jobs_every_ms;
	int64_t exports_every_ms;
	uint64_t budget_us;
	uint64_t max_entities;
	uint64_t forget_after;
	struct bcn_collector_conf cc;
	enum bcn_lustre_role role;
};

#define M(f) BCN_CFG_MEMBER(struct lustre_daemon_conf, f)

#define COMMON_OPTIONS \
	{ "exports", BCN_CFG_BOOL, M(exports), .def = "yes", \
	  .help = "Send per-export (client NID) records from " \
		  "exports/<nid>/stats." }, \
	{ "job_stats", BCN_CFG_BOOL, M(jobs), .def = "yes", \
	  .help = "Send per-job records from job_stats." }, \
	{ "job_stats_interval", BCN_CFG_DURATION, M(jobs_every_ms), .min = 0, \
	  .max = 86400000, .def = "0", \
	  .help = "Read job_stats at most this often (0: every sample, " \
		  "unless read_budget_us stretches the period); job records " \
		  "cover the time since the previous read." }, \
	{ "exports_interval", BCN_CFG_DURATION, M(exports_every_ms), .min = 0, \
	  .max = 86400000, .def = "0", \
	  .help = "Read the per-export stats at most this often (0: every " \
		  "sample, unless read_budget_us stretches the period)." }, \
	{ "read_budget_us", BCN_CFG_UINT, M(budget_us), .min = 0, \
	  .max = 1000000, .def = "300", \
	  .help = "CPU time, in microseconds per second, that the job_stats " \
		  "and per-export reads may take on average (300: 0.03% of a " \
		  "core); on a large server their period stretches to keep " \
		  "within it (0: no limit)." }, \
	{ "idle_records", BCN_CFG_BOOL, M(idle), .def = "no", \
	  .help = "Also send export and job records of intervals without " \
		  "activity." }, \
	{ "max_entities", BCN_CFG_UINT, M(max_entities), .min = 16, \
	  .max = 1u << 24, .def = "1048576", \
	  .help = "Targets, exports and jobs whose previous counters are " \
		  "remembered, at most." }, \
	{ "forget_after", BCN_CFG_UINT, M(forget_after), .min = 1, \
	  .max = 1000000, .def = "3", \
	  .help = "Forget an export or job missing from this many samples " \
		  "in a row." }, \
	BCN_COLLECTOR_CONFIG_OPTIONS(struct lustre_daemon_conf, cc)

static const struct bcn_config_opt ost_options[] = {
	{ "brw_stats", BCN_CFG_BOOL, M(brw), .def = "yes",
	  .help = "Add the brw_stats histograms (pages per bulk RPC, disk "
		  "I/O time) to the whole-target records." },
	COMMON_OPTIONS,
	{ .name = NULL }
};

static const struct bcn_config_opt mdt_options[] = {
	COMMON_OPTIONS,
	{ .name = NULL }
};

struct lustre_daemon {
	struct lustre_daemon_conf *conf;
	struct bcn_lustre_server *srv;
};

static int daemon_init(void *arg, struct bcn_collector *c)
{
	struct lustre_daemon *d = arg;
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
	struct lustre_daemon *d = arg;
	struct bcn_lustre_server_host host;

	bcn_lustre_server_host_init(&host, c);
	return bcn_lustre_server_sample(d->srv, t_ns, dur_ns, &host);
}

static void daemon_fini(void *arg)
{
	struct lustre_daemon *d = arg;
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

static const struct bcn_collector_ops daemon_ops = {
	.init = daemon_init, .sample = daemon_sample, .fini = daemon_fini,
};

static struct lustre_daemon_conf ost_cfg = { .role = BCN_LUSTRE_OST };
static struct lustre_daemon ost_state = { .conf = &ost_cfg };

const struct bcn_program bcn_ostd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-ostd",
	"Samples the statistics of this OSS's Lustre OSTs (obdfilter stats, "
	"brw_stats, per-export stats, job_stats) and sends their "
	"per-interval deltas.",
	ost_options, &ost_cfg, &ost_cfg.cc, &daemon_ops, &ost_state);

static struct lustre_daemon_conf mdt_cfg = { .role = BCN_LUSTRE_MDT };
static struct lustre_daemon mdt_state = { .conf = &mdt_cfg };

const struct bcn_program bcn_mdsd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-mdsd",
	"Samples the metadata statistics of this MDS's Lustre MDTs (md_stats, "
	"per-export stats, job_stats) and sends their per-interval deltas.",
	mdt_options, &mdt_cfg, &mdt_cfg.cc, &daemon_ops, &mdt_state);
