/* Configuration table of beacon-web (docs/api.md, "Configuration"). */
#include <stddef.h>

#include "common/log.h"
#include "web/web.h"

#define M(field) BCN_CFG_MEMBER(struct bcn_web_config, field)
#define T struct bcn_web_config

/* where the web UI's site is installed (web/ui/CMakeLists.txt) */
#ifndef BCN_WEB_STATIC_DEFAULT
#define BCN_WEB_STATIC_DEFAULT ""
#endif

static const char *const log_dests[] = { "stderr", "syslog", NULL };

const struct bcn_config_opt bcn_web_options[] = {
	{ "web_listen", BCN_CFG_STRING, M(listen), .min = 3,
	  .def = "127.0.0.1:8080",
	  .help = "Address and port of the service (host:port)." },
	{ "web_tls_cert", BCN_CFG_PATH, M(tls_cert),
	  .help = "Certificate chain (PEM): serve HTTPS through GnuTLS." },
	{ "web_tls_key", BCN_CFG_PATH, M(tls_key),
	  .help = "The certificate's private key (PEM)." },
	{ "web_static_dir", BCN_CFG_PATH, M(static_dir),
	  .def = BCN_WEB_STATIC_DEFAULT,
	  .help = "Serve the files of this directory outside /api/ (the "
		  "web UI's installed site by default); empty: none." },
	{ "web_session_ttl", BCN_CFG_DURATION, M(session_ttl_ms),
	  .min = 60000, .max = 2592000000ll, .def = "12h",
	  .help = "How long a login lasts." },
	{ "web_cookie_secure", BCN_CFG_BOOL, M(cookie_secure), .def = "yes",
	  .help = "Mark the session cookie Secure (HTTPS only)." },
	{ "web_trust_remote_user", BCN_CFG_BOOL, M(trust_remote_user),
	  .def = "no", .help = "Take the user from web_remote_user_header "
			       "on requests from web_trusted_proxy." },
	{ "web_remote_user_header", BCN_CFG_STRING, M(remote_user_header),
	  .min = 1, .def = "X-Remote-User",
	  .help = "The trusted proxy's user header." },
	{ "web_trusted_proxy", BCN_CFG_STRING, M(trusted_proxy),
	  .def = "127.0.0.1", .help = "The address of the trusted proxy." },
	{ "web_threads", BCN_CFG_UINT, M(threads), .min = 1, .max = 64,
	  .def = "2", .help = "Threads serving connections." },
	{ "web_max_connections", BCN_CFG_UINT, M(max_connections), .min = 4,
	  .max = 100000, .def = "1024", .help = "Open connections, at most." },
	{ "web_per_ip_connections", BCN_CFG_UINT, M(per_ip_connections),
	  .max = 100000, .def = "64",
	  .help = "Open connections from one address; 0: no limit." },
	{ "web_client_timeout", BCN_CFG_DURATION, M(client_timeout_ms),
	  .min = 1000, .max = 3600000, .def = "15s",
	  .help = "A connection idle this long is closed." },
	{ "web_connection_memory", BCN_CFG_SIZE, M(connection_memory),
	  .min = 16384, .max = 16777216, .def = "64k",
	  .help = "Memory per connection for the request line and headers." },
	{ "web_body_max", BCN_CFG_SIZE, M(body_max), .min = 1024,
	  .max = 1048576, .def = "16k", .help = "Largest request body." },
	{ "web_param_max", BCN_CFG_UINT, M(param_max), .min = 16,
	  .max = 4096, .def = "256",
	  .help = "Longest query parameter value, in bytes." },
	{ "web_login_attempts", BCN_CFG_UINT, M(login_attempts), .min = 1,
	  .max = 1000, .def = "5", .help = "Failed log-ins per user and per "
					   "address in web_login_window." },
	{ "web_login_window", BCN_CFG_DURATION, M(login_window_ms),
	  .min = 1000, .max = 86400000, .def = "5m",
	  .help = "The log-in rate limit's window." },
	{ "web_login_table", BCN_CFG_UINT, M(login_table), .min = 16,
	  .max = 1000000, .def = "4096",
	  .help = "Users and addresses the log-in limiter tracks." },
	{ "web_range_max", BCN_CFG_DURATION, M(range_max_ms), .min = 3600000,
	  .max = 31622400000ll, .def = "31d",
	  .help = "Longest time range of a series or a job search." },
	{ "web_points_max", BCN_CFG_UINT, M(points_max), .min = 10,
	  .max = 100000, .def = "5000", .help = "Points of a series." },
	{ "web_heatmap_range_max", BCN_CFG_DURATION, M(heatmap_range_max_ms),
	  .min = 3600000, .max = 2678400000ll, .def = "7d",
	  .help = "Longest range of a heatmap." },
	{ "web_overview_window_max", BCN_CFG_DURATION,
	  M(overview_window_max_ms), .min = 1000, .max = 86400000,
	  .def = "1h", .help = "Longest window of the overview." },
	{ "web_page_max", BCN_CFG_UINT, M(page_max), .min = 1, .max = 10000,
	  .def = "1000", .help = "Jobs or anomalies per page, at most." },
	{ "web_grants_max", BCN_CFG_UINT, M(grants_max), .min = 16,
	  .max = 1000000, .def = "20000",
	  .help = "(job, component) pairs of a user's access rules." },
	{ "web_metrics_allow", BCN_CFG_STRING, M(metrics_allow),
	  .def = "127.0.0.1, ::1",
	  .help = "Addresses and CIDR blocks (comma-separated) served GET "
		  "/metrics without logging in; administrators always are. "
		  "Empty: administrators only." },
	{ "web_metrics_collectors", BCN_CFG_UINT, M(metrics_collectors),
	  .min = 0, .max = 1000000, .def = "1000",
	  .help = "Collectors with series of their own in /metrics, the "
		  "troubled (silent, disconnected, dropping, failing) first; "
		  "every collector counts in the per-program totals." },
	{ "web_collector_silent", BCN_CFG_DURATION, M(collector_silent_ms),
	  .min = 1000, .max = 86400000, .def = "5m",
	  .help = "A collector whose latest health record is older than "
		  "this is silent (set above the collectors' "
		  "health_interval)." },
	{ "log_level", BCN_CFG_ENUM, M(log_level),
	  .words = bcn_log_level_names, .def = "info", .help = "Log level." },
	{ "log_dest", BCN_CFG_ENUM, M(log_dest), .words = log_dests,
	  .def = "stderr", .help = "Log destination." },
	BCN_STORE_CONFIG_OPTIONS(T, store),
	BCN_STORES_CONFIG_OPTIONS(T, stores),
	BCN_JOBDB_CONFIG_OPTIONS(T, db),
	BCN_CACHE_CONFIG_OPTIONS(T, cache),
	BCN_REPORT_CONFIG_OPTIONS(T, rc),
	BCN_ADVICE_CONFIG_OPTIONS(T, rc.advice),
	BCN_DETECT_CONFIG_OPTIONS(T, det),
	BCN_JOBCHECK_CONFIG_OPTIONS(T, jc),
	{ .name = NULL }
};
