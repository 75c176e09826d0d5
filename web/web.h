/* beacon-web: the web service (docs/api.md). A JSON API over the job
 * database, the record store and the report cache, on libmicrohttpd,
 * with accounts and sessions (web/auth.h), an access policy that limits
 * a user to their own jobs, nodes and windows (web/access.h), and static
 * files from a directory. */
#ifndef BCN_WEB_H
#define BCN_WEB_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis/anomaly/detect.h"
#include "analysis/anomaly/jobcheck.h"
#include "analysis/cache.h"
#include "analysis/report.h"
#include "analysis/stores.h"
#include "common/config.h"
#include "common/program.h"
#include "jobdb/jobdb.h"
#include "store/store_config.h"

#define BCN_WEB_ADDR_MAX 256

struct bcn_web_config {
	char listen[BCN_WEB_ADDR_MAX];          /* host:port */
	char tls_cert[PATH_MAX], tls_key[PATH_MAX];
	char static_dir[PATH_MAX];              /* "": no static files */
	int64_t session_ttl_ms;
	bool cookie_secure;
	bool trust_remote_user;
	char remote_user_header[64];
	char trusted_proxy[64];                 /* the proxy's address */
	uint64_t threads;
	uint64_t max_connections, per_ip_connections;
	int64_t client_timeout_ms;
	uint64_t connection_memory, body_max, param_max;
	uint64_t login_attempts;                /* failures per window */
	int64_t login_window_ms;
	uint64_t login_table;                   /* entries of the limiter */
	int64_t range_max_ms;                   /* series, jobs search */
	uint64_t points_max;                    /* series points */
	int64_t heatmap_range_max_ms;
	int64_t overview_window_max_ms;
	uint64_t page_max;                      /* jobs, anomalies per page */
	uint64_t grants_max;                    /* a user's (job, component) */
	char metrics_allow[1024];               /* who may read /metrics */
	uint64_t metrics_collectors;            /* per-collector series, max */
	int64_t collector_silent_ms;            /* health older: silent */
	int log_level, log_dest;
	struct bcn_store_settings store;
	struct bcn_stores_config stores;
	struct bcn_jobdb_config db;
	struct bcn_cache_config cache;
	struct bcn_report_config rc;
	struct bcn_detect_config det;   /* the history verdict of a report */
	struct bcn_jobcheck_config jc;
};

extern const struct bcn_config_opt bcn_web_options[];
extern const struct bcn_program bcn_web_program;

/* Runs the service until *stop becomes non-zero. Returns 0 or a
 * negative code (could not start). */
int bcn_web_run(const struct bcn_web_config *cfg, volatile sig_atomic_t *stop);

#endif
