/* beacon-analyzd, the analysis server (docs/analyzd.md): polls the batch
 * system's accounting (a configured sacct command) into the job
 * database, computes the report of every job once it has ended and its
 * late records have had time to arrive (settle), refreshes the reports of
 * running jobs every live_interval for the live view, stores them in the
 * job database and the report cache, and runs the anomaly detectors
 * every detect_interval (analysis/anomaly, docs/anomaly.md) and mails
 * the alerts of what they find (docs/alerts.md). */
#ifndef BCN_ANALYZD_H
#define BCN_ANALYZD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis/anomaly/alert.h"
#include "analysis/anomaly/catchup.h"
#include "analysis/anomaly/detect.h"
#include "analysis/anomaly/jobcheck.h"
#include "analysis/cache.h"
#include "analysis/report.h"
#include "analysis/stores.h"
#include "jobdb/jobdb.h"
#include "store/store_config.h"

#define BCN_ANALYZD_CMD_MAX 1024

struct bcn_analyzd_config {
	struct bcn_store_settings store;
	struct bcn_stores_config stores;
	struct bcn_jobdb_config db;
	struct bcn_report_config report;
	struct bcn_cache_config cache;
	struct bcn_detect_config detect;
	struct bcn_alert_config alert;
	struct bcn_jobcheck_config jobcheck;
	struct bcn_catchup_config catchup;      /* component detectors */
	char sacct_command[BCN_ANALYZD_CMD_MAX];
	int64_t sacct_interval_ms;
	uint64_t sacct_max;             /* bytes of sacct output read */
	int64_t interval_ms;            /* how often due reports are looked for */
	int64_t settle_ms;              /* after a job's end */
	int64_t live_interval_ms;       /* running jobs; 0: never */
	uint64_t batch;                 /* reports per round, at most */
	bool once;                      /* one round, then exit */
	int log_level, log_dest;
};

extern const struct bcn_config_opt bcn_analyzd_options[];

struct bcn_analyzd_stats {
	uint64_t rounds, reports, live_reports, failed, partial;
	uint64_t sacct_runs, sacct_failed, jobs_imported, jobs_rejected;
	uint64_t detect_rounds, detect_failed, anomalies_new, anomalies_grown;
	uint64_t alerts_sent, alerts_failed, alerts_deferred;
	uint64_t jobs_checked, job_anomalies;
};

/* Runs until *stop (or after one round with cfg->once). Returns 0 or a
 * negative code when it cannot start (database, store). */
int bcn_analyzd_run(const struct bcn_analyzd_config *cfg,
		    volatile sig_atomic_t *stop, struct bcn_analyzd_stats *st);

#endif
