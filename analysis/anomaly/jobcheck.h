/* The job-level anomaly checks (docs/anomaly.md, "Jobs"), run on a
 * finished job's report: its wavelet I/O phases clustered with DBSCAN by
 * (duration, volume) together with the phases of earlier runs of the
 * same application at the same scale; phases outside the clusters that
 * moved data slower than the nearest cluster make the job a
 * job_slowdown, and the jobs sharing its forwarding nodes and OSTs then
 * with interference-prone features are named as likely aggressors
 * (interference). For a large job, DBSCAN over what its forwarding nodes
 * (per node behind them) and OSTs carried finds stragglers. Findings go
 * into the report; anomalies into the job database. */
#ifndef BCN_ANOMALY_JOBCHECK_H
#define BCN_ANOMALY_JOBCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/anomaly/detect.h"
#include "analysis/report.h"

struct bcn_jobcheck_config {
	uint64_t history_min;           /* earlier runs needed */
	uint64_t history_max;           /* earlier runs read */
	uint64_t eps_pct;               /* DBSCAN eps, percent of the median */
	uint64_t slowdown_pct;          /* slower than this flags */
	uint64_t straggler_nodes;       /* jobs this large are checked */
	uint64_t straggler_pct;         /* members under this percent of the
					 * others' median are stragglers */
};

#define BCN_JOBCHECK_CONFIG_OPTIONS(type, m) \
	{ "anomaly_history_min", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.history_min), .min = 1, .max = 1000, \
	  .def = "3", .help = "job_slowdown: earlier runs of the application " \
	  "at the same scale needed to judge a run (fewer: the report says " \
	  "so)." }, \
	{ "anomaly_history_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.history_max), .min = 1, .max = 10000, \
	  .def = "50", .help = "job_slowdown: the most recent earlier runs " \
	  "compared." }, \
	{ "anomaly_history_eps_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.eps_pct), .min = 1, .max = 1000, .def = "25", \
	  .help = "job_slowdown: DBSCAN's eps over (duration, volume), each " \
		  "divided by the earlier runs' median, in percent." }, \
	{ "anomaly_slowdown_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.slowdown_pct), .min = 101, .max = 100000, \
	  .def = "150", .help = "job_slowdown: an outlying phase whose " \
	  "bandwidth is this percent slower or more than its nearest " \
	  "cluster's (150: the cluster moved 1.5 times as fast)." }, \
	{ "anomaly_straggler_nodes", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.straggler_nodes), .min = 2, .max = 1 << 20, \
	  .def = "32", .help = "straggler: jobs on at least this many nodes " \
	  "are checked." }, \
	{ "anomaly_straggler_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.straggler_pct), .min = 1, .max = 99, \
	  .def = "60", .help = "straggler: a forwarding node or OST that " \
	  "carried under this percent of the median member's share." }

void bcn_jobcheck_config_defaults(struct bcn_jobcheck_config *c);

struct bcn_jobcheck_result {
	uint64_t history_jobs;          /* earlier runs compared */
	double slowdown;                /* worst outlying phase, 0: none */
	uint64_t anomalies;             /* found (stored when asked) */
};

/* Checks the finished job of report r (running jobs are skipped), adds
 * its findings to r (too_little_history, slower_than_history,
 * likely_aggressors, straggler) and, with store, its anomalies to db.
 * dc gives the interference-prone thresholds and the merge gap; ss the
 * stores the jobs sharing its OSTs are found in. Returns
 * 0 or a negative code (database, memory). */
int bcn_jobcheck_run(const struct bcn_jobcheck_config *c,
		     const struct bcn_detect_config *dc,
		     const struct bcn_stores *ss, struct bcn_jobdb *db,
		     struct bcn_report *r, bool store, int64_t now,
		     struct bcn_jobcheck_result *res);

#endif
