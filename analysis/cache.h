/* The report cache (docs/report.md): rendered per-job reports (their
 * JSON) in Redis under PREFIX<job id>, with a time to live. beacon-analyzd
 * fills it when it computes a report, `beacon job` and the web service
 * read it. An entry holds the generation of the job's window it was
 * computed at (bcn_cache_generation): beacon-logsrv bumps the generation
 * of every minute in which it stores records, so a report is a miss once
 * records of its window landed after it was computed; beacon-logsrv also
 * deletes a job's entry when records carrying that job's id arrive. */
#ifndef BCN_CACHE_H
#define BCN_CACHE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/config.h"

#define BCN_CACHE_PREFIX_MAX 64

struct bcn_cache_config {
	char host[256];                 /* "": no cache */
	uint64_t port;
	char password_file[PATH_MAX];
	char prefix[BCN_CACHE_PREFIX_MAX];
	int64_t ttl_ms;
	int64_t timeout_ms;
};

#define BCN_CACHE_CONFIG_OPTIONS(type, m) \
	{ "cache_host", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.host), \
	  .help = "Redis host of the report cache; empty: no cache." }, \
	{ "cache_port", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.port), \
	  .min = 1, .max = 65535, .def = "6379", \
	  .help = "Redis port of the report cache." }, \
	{ "cache_password_file", BCN_CFG_PATH, \
	  BCN_CFG_MEMBER(type, m.password_file), \
	  .help = "File holding the cache Redis's password; empty: none." }, \
	{ "cache_prefix", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.prefix), \
	  .min = 1, .def = "beacon:report:", \
	  .help = "Key prefix of cached reports (the log servers' " \
		  "report_cache_prefix)." }, \
	{ "cache_ttl", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.ttl_ms), \
	  .min = 1000, .max = 31536000000ll, .def = "1d", \
	  .help = "How long a cached report lives." }, \
	{ "cache_timeout", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.timeout_ms), \
	  .min = 10, .max = 60000, .def = "2s", \
	  .help = "Connect and command timeout of the cache." }

struct bcn_cache;

/* Connects (and authenticates). Returns 0 and *out, or a negative code
 * with err set. */
int bcn_cache_open(const struct bcn_cache_config *cfg, struct bcn_cache **out,
		   char *err, size_t errlen);
void bcn_cache_close(struct bcn_cache *c);

/* The generation of the window [from, to) (ns): the sum of the log
 * servers' counts of stored records over the minutes (or whole days) it
 * covers (common/cachegen.h). It only grows while records land in the
 * window; read it before computing a report. Returns 0, -E2BIG for a
 * window above BCN_CACHEGEN_DAYS_MAX days, or -EIO. */
int bcn_cache_generation(struct bcn_cache *c, int64_t from, int64_t to,
			 uint64_t *gen);

/* The cached report of job into out (appended) if it was cached with
 * generation gen: 1, 0 when none or of another generation, or a
 * negative code. */
int bcn_cache_get(struct bcn_cache *c, uint64_t job, uint64_t gen,
		  struct bcn_buf *out);

/* Caches n bytes of report JSON for job, computed at generation gen
 * (read before the computation), with the configured TTL: a hash of
 * fields gen and json. */
int bcn_cache_put(struct bcn_cache *c, uint64_t job, uint64_t gen,
		  const char *json, size_t n);

/* Reads the hashes of a registry in the cache's Redis (the log servers'
 * statistics, docs/logsrv.md): for each field M of the hash reg_key, at
 * most max of them in byte order, HGETALL M<suffix> and calls fn with M,
 * the registry's value of M, and the hash's fields (n names and values;
 * n 0 when it is gone). fn's non-zero return stops and is returned.
 * Returns 0, that, or -EIO. */
typedef int bcn_cache_hash_fn(void *arg, const char *member,
			      const char *label, size_t n,
			      const char *const *names,
			      const char *const *values);
int bcn_cache_registry(struct bcn_cache *c, const char *reg_key,
		       const char *suffix, size_t max, bcn_cache_hash_fn *fn,
		       void *arg);

/* Forgets job's cached report. */
int bcn_cache_drop(struct bcn_cache *c, uint64_t job);

#endif
