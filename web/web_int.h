/* What the web service's source files share: the service, a request as
 * the handlers see it, the answer they fill, and the helpers for
 * parameters and errors. Not part of the interface (web/web.h). */
#ifndef BCN_WEB_INT_H
#define BCN_WEB_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "common/buf.h"
#include "common/log.h"
#include "jobdb/users.h"
#include "web/metrics.h"
#include "web/web.h"

#define BCN_WEB_OUT_MAX (64u << 20)     /* largest answer */
#define BCN_WEB_PEER_MAX 64

struct bcn_ratelimit;

struct bcn_web {
	const struct bcn_web_config *cfg;
	pthread_mutex_t lock;           /* guards db, st, cache, complaints */
	struct bcn_jobdb *db;
	struct bcn_stores st;
	struct bcn_cache *cache;
	struct bcn_ratelimit *rl_user;  /* failed log-ins per user, and */
	struct bcn_ratelimit *rl_addr;  /* per address (own locks) */
	char dummy_hash[BCN_USER_HASH_MAX];
	struct MHD_Daemon *d;
	struct bcn_complain peer_log;   /* peer-triggered messages */
	struct bcn_complain backend_log;
	/* the report computed on a cache miss, on connections of its own so
	 * that hits and the other endpoints are served meanwhile (one miss
	 * at a time) */
	pthread_mutex_t miss_lock;      /* guards the three below */
	struct bcn_jobdb *miss_db;
	struct bcn_stores miss_st;
	struct bcn_cache *miss_cache;
	struct bcn_web_metrics metrics;
};

/* The endpoints counted by the metrics: the router's routes (0 ..
 * bcn_web_routes() - 1), then these. */
#define BCN_WEB_EP_STATIC (BCN_WEB_ENDPOINTS_MAX - 3)
#define BCN_WEB_EP_UNMATCHED (BCN_WEB_ENDPOINTS_MAX - 2)
#define BCN_WEB_EP_METRICS (BCN_WEB_ENDPOINTS_MAX - 1)

/* Who asks. */
struct bcn_web_who {
	bool known;
	bool via_proxy;                 /* the trusted proxy's header */
	char user[BCN_USER_NAME_MAX + 1];
	int role;                       /* enum bcn_user_role */
	char csrf[BCN_SESSION_CSRF_LEN + 1];
	char token_hash[BCN_SESSION_HASH_LEN + 1];
};

struct bcn_web_req {
	struct bcn_web *w;
	struct MHD_Connection *conn;
	const char *method, *path;
	const char *body;
	size_t body_len;
	uint64_t id;                    /* the number in the path, if any */
	size_t ep;                      /* the endpoint, for the metrics */
	char peer[BCN_WEB_PEER_MAX];
	struct bcn_web_who who;
};

struct bcn_web_resp {
	unsigned status;
	struct bcn_buf body;
	const char *type;
	const char *cache;              /* X-Beacon-Cache: "hit", "miss" */
	char cookie[512];               /* Set-Cookie, or "" */
	char allow[32];                 /* Allow (405), or "" */
	int64_t retry_after_s;          /* Retry-After (429), or 0 */
};

typedef int bcn_web_handler(struct bcn_web_req *q, struct bcn_web_resp *p);

/* Sets an error answer: {"error": msg, "param": param} (param may be
 * NULL). Returns 0. */
int bcn_web_error(struct bcn_web_resp *p, unsigned status, const char *msg,
		  const char *param);

/* Parameters of the query string, validated; each getter returns 0 and
 * the value (the default when absent), or sets a 400 naming the
 * parameter and returns -EINVAL. */
const char *bcn_web_param(const struct bcn_web_req *q, const char *name);
int bcn_web_params_check(struct bcn_web_req *q, const char *const *allowed,
			 struct bcn_web_resp *p);
int bcn_web_param_u64(struct bcn_web_req *q, struct bcn_web_resp *p,
		      const char *name, uint64_t def, uint64_t min,
		      uint64_t max, uint64_t *out);
int bcn_web_param_time(struct bcn_web_req *q, struct bcn_web_resp *p,
		       const char *name, int64_t def, int64_t *out);
int bcn_web_param_duration(struct bcn_web_req *q, struct bcn_web_resp *p,
			   const char *name, int64_t def, int64_t min,
			   int64_t max, int64_t *out);
/* A word of [A-Za-z0-9._:/@+-], at most max bytes; NULL def: absent is
 * "" . */
int bcn_web_param_word(struct bcn_web_req *q, struct bcn_web_resp *p,
		       const char *name, size_t max, const char **out);
/* from and to, to - from at most max_ns and positive. */
int bcn_web_param_range(struct bcn_web_req *q, struct bcn_web_resp *p,
			int64_t def_span, int64_t max_ns, int64_t *from,
			int64_t *to);

int64_t bcn_web_now(void);

/* Compresses p's body with gzip when it pays; returns 1 when it did. */
int bcn_web_gzip(struct bcn_buf *body);
/* Whether the request accepts gzip. */
bool bcn_web_accepts_gzip(struct MHD_Connection *conn);

/* The router (web/router.c): fills p for q, and sets q->ep. */
int bcn_web_dispatch(struct bcn_web_req *q, struct bcn_web_resp *p);
/* The number of routes; route i's method and path pattern ('#': an id). */
size_t bcn_web_routes(void);
void bcn_web_route(size_t i, const char **method, const char **pattern);

/* Static files (web/static.c) and the OpenAPI document. */
int bcn_web_static(struct bcn_web_req *q, struct bcn_web_resp *p);
bcn_web_handler bcn_web_openapi;

/* Endpoints. */
bcn_web_handler bcn_web_login, bcn_web_logout, bcn_web_me;
bcn_web_handler bcn_web_jobs, bcn_web_job;
bcn_web_handler bcn_web_anomalies, bcn_web_anomaly, bcn_web_anomaly_ack;
bcn_web_handler bcn_web_series, bcn_web_overview, bcn_web_heatmap;
bcn_web_handler bcn_web_metrics;        /* GET /metrics (web/api_metrics.c) */
/* Appends the collectors' health families to b (web/metrics_collectors.c):
 * reads the log servers' <prefix>:collectors hashes under w->lock.
 * Returns 0 (also when Redis is unreachable: nothing is written then but
 * the families' headers) or a negative code. */
int bcn_web_collector_lines(struct bcn_web *w, struct bcn_buf *b);
bcn_web_handler bcn_web_net_switches, bcn_web_net_series;

#endif
