/* beacon-logsrv: the log server. An event-driven TCP server (epoll) that
 * authenticates collectors, validates their frames, makes each accepted
 * frame durable in Redis (deduplicated by (node, sequence)) before it
 * acknowledges it, and a flusher thread that moves frames from Redis into
 * the record store. docs/logsrv.md describes its operation. */
#ifndef BCN_LOGSRV_H
#define BCN_LOGSRV_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/program.h"
#include "logsrv/lagdist.h"
#include "logsrv/redisq.h"
#include "proto/frame.h"
#include "store/store_config.h"

#define BCN_LOGSRV_ADDR_MAX 280
#define BCN_LOGSRV_PREFIX_MAX BCN_REDISQ_PREFIX_MAX

struct bcn_logsrv_config {
	char listen[BCN_LOGSRV_ADDR_MAX];       /* host:port */
	char name[256];                         /* this server's name */
	char auth_key_file[PATH_MAX];
	char role_map[PATH_MAX];                /* "" : every node may send all */
	bool tls;                               /* TLS under the frames */
	char tls_cert_file[PATH_MAX], tls_key_file[PATH_MAX];
	char tls_ca_file[PATH_MAX];             /* for client certificates */
	bool tls_verify_client;
	int role_default;                       /* enum bcn_role */
	bool auth_required;
	uint64_t max_connections;
	uint64_t max_preauth;                   /* unauthenticated connections */
	uint64_t max_preauth_per_peer;          /* of them, from one address */
	uint64_t fd_reserve;                    /* descriptors kept back */
	uint64_t max_frame;                     /* body bytes */
	uint64_t max_raw;
	uint64_t max_records;
	uint64_t max_ratio;                     /* raw / compressed, 0: any */
	int64_t record_max_age_ms;              /* 0: no bound */
	int64_t record_max_ahead_ms;            /* 0: no bound */
	uint64_t pending_max;                   /* bytes awaiting Redis */
	int64_t handshake_timeout_ms;
	int64_t idle_timeout_ms;
	char redis_host[BCN_REDISQ_HOST_MAX];
	uint64_t redis_port;
	char redis_password_file[PATH_MAX];
	char redis_prefix[BCN_LOGSRV_PREFIX_MAX];
	char report_cache_prefix[BCN_LOGSRV_PREFIX_MAX];
	int64_t report_gen_ttl_ms;              /* of the generation hashes */
	bool redis_require_fsync;
	uint64_t dedup_window;
	int64_t dedup_ttl_ms;
	int64_t redis_backoff_max_ms;
	int64_t redis_timeout_ms;               /* a write must be confirmed */
	bool flusher;
	uint64_t flush_frames;                  /* frames per store batch */
	uint64_t flush_bytes;                   /* decoded bytes per batch */
	int64_t expire_interval_ms;             /* store expiry period */
	int64_t flush_idle_ms;
	int64_t flush_backoff_max_ms;
	int64_t stats_interval_ms;
	int log_level;
	int log_dest;
	struct bcn_store_settings store;        /* store_* keys */
};

/* The declarative configuration table of beacon-logsrv. */
extern const struct bcn_config_opt bcn_logsrv_options[];

/* Fills lim from cfg's frame keys (max_frame, max_raw, max_records,
 * max_ratio). at_door adds the window of record times (record_max_age,
 * record_max_ahead) that the server checks on receipt; the flusher
 * decodes frames already accepted, whatever their age, without it. */
void bcn_logsrv_frame_limits(const struct bcn_logsrv_config *cfg, bool at_door,
			     struct bcn_frame_limits *lim);

/* The program (common/program.h, logsrv/program.c). */
extern const struct bcn_program bcn_logsrv_program;

/* Ingest lag (docs/logsrv.md): from the end of a record's interval to
 * the store's confirmation of its batch, in ms. The flusher adds every
 * stored batch to both distributions; the server reads them and empties
 * the interval's at every stats_interval. Guarded by lock. */
struct bcn_logsrv_lag {
	pthread_mutex_t lock;
	struct bcn_lagdist interval, total;
};

/* Counters, updated by the server and flusher threads. lag is set up by
 * bcn_logsrv_run; redisq holds the Redis queue's (frames stored,
 * duplicate, waiting for Redis; Redis errors and reconnections). */
struct bcn_logsrv_stats {
	_Atomic uint64_t conns_accepted, conns_refused, conns_open;
	_Atomic uint64_t auth_failures;
	_Atomic uint64_t frames_in, records_in, bytes_in;
	_Atomic uint64_t frames_rejected;
	_Atomic uint64_t frames_bad;            /* closed the connection */
	_Atomic uint64_t mac_failures;          /* of those, a bad frame MAC */
	_Atomic uint64_t role_rejected;         /* records outside the role */
	_Atomic uint64_t tls_failures;          /* TLS handshakes that failed */
	struct bcn_redisq_stats redisq;
	_Atomic uint64_t flushed_frames, flushed_records, store_errors;
	_Atomic uint64_t store_refused;         /* records the store refused
						 * (a node's identity runs full) */
	_Atomic uint64_t reports_dropped;       /* cached reports made stale */
	_Atomic uint64_t gen_bumps;             /* minutes whose generation grew */
	_Atomic uint64_t dead_letters;
	_Atomic int64_t backlog;                /* frames in Redis, -1 unknown */
	struct bcn_logsrv_lag lag;
};

/* Runs the server until *stop becomes non-zero (set it from a signal
 * handler), then drains and returns 0, or returns a negative code when it
 * cannot start (bad address, Redis not durable, store unusable). */
int bcn_logsrv_run(const struct bcn_logsrv_config *cfg,
		   volatile sig_atomic_t *stop, struct bcn_logsrv_stats *stats);

/* Redis key names of the server and the flusher; the queue and the dedup
 * sets are the Redis queue's (logsrv/redisq.h). */
#define BCN_LOGSRV_QUEUE_KEY BCN_REDISQ_QUEUE_KEY /* list of frames */
#define BCN_LOGSRV_DEAD_KEY "%s:dead"           /* undecodable frames */
#define BCN_LOGSRV_STATS_KEY "%s:stats"         /* hash of the statistics */
/* a hash: node -> its latest health record as JSON (docs/logsrv.md) */
#define BCN_LOGSRV_COLLECTORS_KEY "%s:collectors"
/* a hash: the redis_prefix of every log server publishing statistics in
 * this Redis -> its name (beacon-web's BCN_WEB_LOGSRV_REGISTRY) */
#define BCN_LOGSRV_REGISTRY_KEY "beacon:logsrvs"

struct bcn_flusher;

/* Starts the flusher thread: it moves frames from the Redis queue into the
 * record store. Returns 0 or a negative code (store or Redis unusable). */
int bcn_flusher_start(const struct bcn_logsrv_config *cfg,
		      struct bcn_logsrv_stats *stats, struct bcn_flusher **out);
/* Asks the flusher to finish its current batch and waits for it. */
void bcn_flusher_stop(struct bcn_flusher *f);

/* What the flusher does with a frame of the queue it cannot open. */
enum bcn_flush_fate {
	BCN_FLUSH_DEAD,         /* malformed: move it to the dead letters */
	BCN_FLUSH_RETRY,        /* transient (memory, ...): leave it, retry */
};

/* The fate of a frame for which bcn_frame_open (or the kind check after
 * it) returned rc < 0: only errors that prove the stored bytes malformed
 * (bad magic, version, kind, checksum, content, a size above the limits,
 * a cut frame) are DEAD; -ENOMEM and every other code are RETRY, so that
 * an acknowledged frame is never set aside for a passing failure. */
enum bcn_flush_fate bcn_flusher_fate(int rc);

#endif
