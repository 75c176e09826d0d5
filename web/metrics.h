/* The Prometheus exposition of beacon-web (docs/api.md, "Metrics"):
 * request counts and latency per endpoint, method and status class, the
 * report cache's hits and misses, failed log-ins, open anomalies by kind
 * (from the job database) and the log servers' ingest health (from the
 * statistics they publish in Redis), in the text format 0.0.4 at GET
 * /metrics, to the addresses of web_metrics_allow or to administrators. */
#ifndef BCN_WEB_METRICS_H
#define BCN_WEB_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include "common/buf.h"

#define BCN_WEB_ENDPOINTS_MAX 48        /* routes + static, unmatched, /metrics */
#define BCN_WEB_CLASSES 5               /* 1xx .. 5xx */
#define BCN_WEB_BUCKETS 14              /* latency buckets, +Inf included */
#define BCN_WEB_ALLOW_MAX 32            /* entries of web_metrics_allow */
#define BCN_WEB_LOGSRVS_MAX 256         /* log servers read from Redis */
#define BCN_WEB_KINDS_MAX 256           /* anomaly kinds exposed */
#define BCN_WEB_ANOMALIES_SCAN_MAX 100000 /* open anomalies counted */
#define BCN_WEB_COLLECTORS_READ_MAX (1u << 20) /* health entries read */

/* An address or a CIDR block of web_metrics_allow. */
struct bcn_web_net {
	int family;                     /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned bits;
};

struct bcn_web_metrics {
	_Atomic uint64_t count[BCN_WEB_ENDPOINTS_MAX][BCN_WEB_CLASSES];
	_Atomic uint64_t bucket[BCN_WEB_ENDPOINTS_MAX][BCN_WEB_CLASSES]
			       [BCN_WEB_BUCKETS];
	_Atomic uint64_t sum_ns[BCN_WEB_ENDPOINTS_MAX][BCN_WEB_CLASSES];
	_Atomic uint64_t cache_hits, cache_misses;
	_Atomic uint64_t login_failures;
	struct bcn_web_net allow[BCN_WEB_ALLOW_MAX];
	size_t nallow;
};

/* Parses a list of addresses and CIDR blocks ("127.0.0.1, ::1,
 * 10.0.0.0/8"; separated by commas or blanks) into m->allow. Returns 0
 * or -BCN_ESYNTAX (with the bad entry in err), -E2BIG above
 * BCN_WEB_ALLOW_MAX. */
int bcn_web_metrics_allow_parse(struct bcn_web_metrics *m, const char *list,
				char *err, size_t errlen);

/* Whether the numeric address peer lies in m->allow (an IPv4-mapped IPv6
 * address as its IPv4 one). */
bool bcn_web_metrics_allowed(const struct bcn_web_metrics *m,
			     const char *peer);

/* Counts one answer of endpoint ep (< BCN_WEB_ENDPOINTS_MAX) with HTTP
 * status and its time in ns. */
void bcn_web_metrics_observe(struct bcn_web_metrics *m, size_t ep,
			     unsigned status, int64_t ns);

/* Appends s to out as a label value of the text format: backslash,
 * double quote and line feed escaped. Returns 0 or -BCN_EFULL. */
int bcn_web_metrics_label(struct bcn_buf *out, const char *s, size_t n);

/* Appends the # HELP and # TYPE lines of a metric family. Returns 0 or
 * -BCN_EFULL. */
int bcn_web_metrics_family(struct bcn_buf *b, const char *name,
			   const char *type, const char *help);

/* Appends name="v" (v escaped), after a comma unless first. Returns 0 or
 * -BCN_EFULL. */
int bcn_web_metrics_kv(struct bcn_buf *b, const char *name, const char *v,
		       bool first);

/* The le label of latency bucket b ("0.001" .. "10", "+Inf"), or NULL. */
const char *bcn_web_metrics_bucket_le(size_t b);

#endif
