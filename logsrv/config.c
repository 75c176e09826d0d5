/* Configuration table of beacon-logsrv (docs/logsrv.md lists the keys),
 * and the frame limits it implies. */
#include <stddef.h>

#include "common/log.h"
#include "logsrv/logsrv.h"
#include "logsrv/roles.h"
#include "store/store_config.h"

#define M(field) BCN_CFG_MEMBER(struct bcn_logsrv_config, field)

static const char *const log_dests[] = { "stderr", "syslog", NULL };

const struct bcn_config_opt bcn_logsrv_options[] = {
	{ "listen", BCN_CFG_STRING, M(listen), .min = 3, .def = "0.0.0.0:7070",
	  .help = "Address and port collectors connect to (host:port, [v6]:port)." },
	{ "name", BCN_CFG_STRING, M(name), .def = "logsrv",
	  .help = "This server's name, sent in handshakes and acknowledgements." },
	{ "auth_key_file", BCN_CFG_PATH, M(auth_key_file),
	  .help = "Site key shared with the collectors (docs/sender.md)." },
	{ "auth_required", BCN_CFG_BOOL, M(auth_required), .def = "yes",
	  .help = "Refuse to start without auth_key_file." },
	{ "tls", BCN_CFG_BOOL, M(tls), .def = "no",
	  .help = "TLS under the frames (docs/logsrv.md, TLS); needs tls_cert_file and tls_key_file." },
	{ "tls_cert_file", BCN_CFG_PATH, M(tls_cert_file),
	  .help = "This server's certificate chain, PEM." },
	{ "tls_key_file", BCN_CFG_PATH, M(tls_key_file),
	  .help = "The certificate's private key, PEM." },
	{ "tls_ca_file", BCN_CFG_PATH, M(tls_ca_file),
	  .help = "CA certificates that sign collectors' certificates (with tls_verify_client)." },
	{ "tls_verify_client", BCN_CFG_BOOL, M(tls_verify_client), .def = "no",
	  .help = "Require a client certificate signed by tls_ca_file." },
	{ "role_map", BCN_CFG_PATH, M(role_map),
	  .help = "File of '<hostlist> <role>' lines: the record types each node may send (docs/logsrv.md, Roles)." },
	{ "role_default", BCN_CFG_ENUM, M(role_default), .words = bcn_role_names,
	  .def = "any", .help = "Role of the nodes role_map does not name (any, compute, forwarding, oss, mds, switch, scheduler, none)." },
	{ "max_connections", BCN_CFG_UINT, M(max_connections), .min = 1,
	  .max = 1000000, .def = "65536",
	  .help = "Concurrent collector connections (at most the open-file limit less fd_reserve)." },
	{ "max_preauth", BCN_CFG_UINT, M(max_preauth), .min = 1, .max = 1000000,
	  .def = "4096", .help = "Connections still in the handshake; at the limit the oldest is closed." },
	{ "max_preauth_per_peer", BCN_CFG_UINT, M(max_preauth_per_peer), .min = 1,
	  .max = 1000000, .def = "32", .help = "Connections still in the handshake from one address, once half of max_preauth or max_connections is in use." },
	{ "fd_reserve", BCN_CFG_UINT, M(fd_reserve), .min = 8, .max = 65536, .def = "64",
	  .help = "Descriptors kept back from connections for Redis, the store and the flusher." },
	{ "max_frame", BCN_CFG_SIZE, M(max_frame), .min = 1024, .max = 1u << 30,
	  .def = "16M", .help = "Largest frame body accepted, as sent." },
	{ "max_raw", BCN_CFG_SIZE, M(max_raw), .min = 1024, .max = 1u << 30,
	  .def = "4M", .help = "Largest frame payload after decompression." },
	{ "max_ratio", BCN_CFG_UINT, M(max_ratio), .max = 1u << 20, .def = "128",
	  .help = "Most a compressed payload above 64 KiB may expand (raw / compressed; 0: any)." },
	{ "max_records", BCN_CFG_UINT, M(max_records), .min = 1, .max = 1u << 30,
	  .def = "1048576", .help = "Most records in one frame." },
	{ "record_max_age", BCN_CFG_DURATION, M(record_max_age_ms),
	  .max = 1ll << 42, .def = "7d",
	  .help = "Reject frames with a record that ended longer ago (0: no bound)." },
	{ "record_max_ahead", BCN_CFG_DURATION, M(record_max_ahead_ms),
	  .max = 1ll << 42, .def = "1h",
	  .help = "Reject frames with a record that begins further ahead of this clock (0: no bound)." },
	{ "pending_max", BCN_CFG_SIZE, M(pending_max), .min = 1u << 20,
	  .max = 1ll << 40, .def = "256M", .help = "Frames waiting for Redis before collectors are paused." },
	{ "handshake_timeout", BCN_CFG_DURATION, M(handshake_timeout_ms),
	  .min = 100, .max = 3600000, .def = "10s", .help = "Time from accept a new connection has to authenticate." },
	{ "idle_timeout", BCN_CFG_DURATION, M(idle_timeout_ms), .max = 86400000, .def = "0",
	  .help = "Close connections silent this long (0: never)." },
	{ "redis_host", BCN_CFG_STRING, M(redis_host), .min = 1, .def = "127.0.0.1",
	  .help = "Redis server buffering this log server's frames." },
	{ "redis_port", BCN_CFG_UINT, M(redis_port), .min = 1, .max = 65535,
	  .def = "6379", .help = "Redis port." },
	{ "redis_password_file", BCN_CFG_PATH, M(redis_password_file),
	  .help = "File holding the Redis password (AUTH), if any." },
	{ "report_cache_prefix", BCN_CFG_STRING, M(report_cache_prefix),
	  .def = "beacon:report:", .help = "Key prefix of the per-job report cache in this Redis (cache_prefix of beacon-analyzd and beacon job): the cached report of a job whose records arrive is deleted. Empty: none." },
	{ "report_gen_ttl", BCN_CFG_DURATION, M(report_gen_ttl_ms), .min = 60000,
	  .max = 31622400000ll, .def = "8d", .help = "How long the generation of a day (report_cache_prefix gen:DAY, bumped when records of that day are stored) lives after its last bump; longer than the cache_ttl of the readers." },
	{ "redis_prefix", BCN_CFG_STRING, M(redis_prefix), .min = 1, .def = "bcn",
	  .help = "Prefix of this server's Redis keys." },
	{ "redis_require_fsync", BCN_CFG_BOOL, M(redis_require_fsync), .def = "yes",
	  .help = "Refuse a Redis without appendonly yes and appendfsync always." },
	{ "redis_timeout", BCN_CFG_DURATION, M(redis_timeout_ms), .min = 100,
	  .max = 3600000, .def = "10s", .help = "Reconnect when Redis has not confirmed a write for this long." },
	{ "redis_backoff_max", BCN_CFG_DURATION, M(redis_backoff_max_ms), .min = 100,
	  .max = 3600000, .def = "5s", .help = "Longest wait between Redis reconnection attempts." },
	{ "dedup_window", BCN_CFG_UINT, M(dedup_window), .min = 16,
	  .max = BCN_REDISQ_DEDUP_WINDOW_MAX, .def = "4096",
	  .help = "Sequence numbers remembered per node below its highest, to drop "
		  "duplicates; keep it above every sender's send_window." },
	{ "dedup_ttl", BCN_CFG_DURATION, M(dedup_ttl_ms), .min = 60000,
	  .max = 3650ll * 86400000, .def = "7d",
	  .help = "A node's dedup state is forgotten this long after its last frame." },
	{ "flusher", BCN_CFG_BOOL, M(flusher), .def = "yes",
	  .help = "Move frames from Redis into the record store." },
	{ "flush_frames", BCN_CFG_UINT, M(flush_frames), .min = 1, .max = 100000,
	  .def = "256", .help = "Frames read from Redis per store batch." },
	{ "flush_bytes", BCN_CFG_SIZE, M(flush_bytes), .min = 1u << 20,
	  .max = 1ll << 34, .def = "32M",
	  .help = "Decoded frame bytes held per store batch (one larger frame still goes alone)." },
	{ "expire_interval", BCN_CFG_DURATION, M(expire_interval_ms), .min = 1000,
	  .max = 86400000, .def = "1h",
	  .help = "How often the flusher deletes the days older than store_retention." },
	{ "flush_idle", BCN_CFG_DURATION, M(flush_idle_ms), .min = 1, .max = 60000, .def = "200ms",
	  .help = "Pause of the flusher when Redis is empty." },
	{ "flush_backoff_max", BCN_CFG_DURATION, M(flush_backoff_max_ms), .min = 100,
	  .max = 3600000, .def = "30s", .help = "Longest wait between store retries." },
	{ "stats_interval", BCN_CFG_DURATION, M(stats_interval_ms), .min = 100,
	  .max = 86400000, .def = "60s", .help = "How often counters are logged and written to Redis." },
	{ "log_level", BCN_CFG_ENUM, M(log_level), .words = bcn_log_level_names,
	  .def = "info", .help = "Least severe level logged." },
	{ "log_dest", BCN_CFG_ENUM, M(log_dest), .words = log_dests,
	  .def = "stderr", .help = "Where the log goes." },
	BCN_STORE_CONFIG_OPTIONS(struct bcn_logsrv_config, store),
	{ .name = NULL }
};

void bcn_logsrv_frame_limits(const struct bcn_logsrv_config *cfg, bool at_door,
			     struct bcn_frame_limits *lim)
{
	const struct bcn_frame_limits def = BCN_FRAME_LIMITS_DEFAULT;

	*lim = def;
	lim->max_body = (uint32_t)cfg->max_frame;
	lim->max_raw = (uint32_t)cfg->max_raw;
	lim->max_records = (uint32_t)cfg->max_records;
	lim->max_ratio = (uint32_t)cfg->max_ratio;
	if (at_door) {
		lim->max_age_ns = cfg->record_max_age_ms * 1000000;
		lim->max_ahead_ns = cfg->record_max_ahead_ms * 1000000;
	}
}
