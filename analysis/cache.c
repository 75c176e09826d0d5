/* The report cache in Redis (cache.h), over hiredis's blocking API with
 * timeouts: a cache that does not answer in time is a miss, never a
 * wait. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "analysis/cache.h"
#include "analysis/report.h"
#include "common/cachegen.h"
#include "common/error.h"
#include "common/log.h"

#define RECONNECT_GAP_NS 1000000000ll  /* one attempt a second at most */

struct bcn_cache {
	struct bcn_cache_config cfg;
	redisContext *rc;               /* NULL: lost, reconnect */
	int64_t last_try_ns;            /* monotonic, of the last connect */
	struct bcn_complain lost;
};

static void key_of(const struct bcn_cache *c, uint64_t job, char *k, size_t n)
{
	snprintf(k, n, "%s%" PRIu64, c->cfg.prefix, job);
}

static int auth(struct bcn_cache *c, char *err, size_t errlen)
{
	struct bcn_buf pw;
	redisReply *r;
	int rc;

	bcn_buf_init(&pw, 4096);
	rc = bcn_buf_read_file(&pw, c->cfg.password_file);
	while (!rc && pw.len && (pw.data[pw.len - 1] == '\n' ||
				 pw.data[pw.len - 1] == '\r'))
		pw.len--;
	if (rc) {
		snprintf(err, errlen, "cache_password_file %s: %s",
			 c->cfg.password_file, bcn_strerror(rc));
		goto out;
	}
	r = redisCommand(c->rc, "AUTH %b", pw.data, pw.len);
	if (!r || r->type == REDIS_REPLY_ERROR) {
		snprintf(err, errlen, "report cache: AUTH refused");
		rc = -EACCES;
	}
	if (r)
		freeReplyObject(r);
out:
	bcn_buf_free(&pw);
	return rc;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Connects (and authenticates) c->rc. Returns 0, or a code with err. */
static int connect_cache(struct bcn_cache *c, char *err, size_t errlen)
{
	struct timeval tv;

	tv.tv_sec = c->cfg.timeout_ms / 1000;
	tv.tv_usec = (c->cfg.timeout_ms % 1000) * 1000;
	c->last_try_ns = mono_ns();
	c->rc = redisConnectWithTimeout(c->cfg.host, (int)c->cfg.port, tv);
	if (!c->rc || c->rc->err) {
		snprintf(err, errlen, "report cache %s:%" PRIu64 ": %s",
			 c->cfg.host, c->cfg.port, c->rc ? c->rc->errstr :
			 "out of memory");
		if (c->rc)
			redisFree(c->rc);
		c->rc = NULL;
		return -ECONNREFUSED;
	}
	redisSetTimeout(c->rc, tv);
	if (c->cfg.password_file[0]) {
		int rc = auth(c, err, errlen);

		if (rc) {
			redisFree(c->rc);
			c->rc = NULL;
			return rc;
		}
	}
	return 0;
}

/* Makes c usable: a connection that failed (Redis restarted, a timeout)
 * is dropped and made again, at most once a second, so that a Redis
 * that is down costs a miss, not a connection attempt per request.
 * Returns 0 or -EIO. */
static int ready(struct bcn_cache *c)
{
	char err[256];

	if (c->rc && !c->rc->err)
		return 0;
	if (c->rc) {
		bcn_complain(&c->lost, BCN_LOG_WARNING, "report cache %s:%"
			     PRIu64 ": %s; reconnecting", c->cfg.host,
			     c->cfg.port, c->rc->errstr);
		redisFree(c->rc);
		c->rc = NULL;
	}
	if (mono_ns() - c->last_try_ns < RECONNECT_GAP_NS)
		return -EIO;
	if (connect_cache(c, err, sizeof(err))) {
		bcn_complain(&c->lost, BCN_LOG_WARNING, "%s", err);
		return -EIO;
	}
	bcn_complain_release(&c->lost, BCN_LOG_NOTICE, "report cache %s:%"
			     PRIu64 " is back", c->cfg.host, c->cfg.port);
	return 0;
}

int bcn_cache_open(const struct bcn_cache_config *cfg, struct bcn_cache **out,
		   char *err, size_t errlen)
{
	struct bcn_cache *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->cfg = *cfg;
	rc = connect_cache(c, err, errlen);
	if (rc) {
		bcn_cache_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

void bcn_cache_close(struct bcn_cache *c)
{
	if (!c)
		return;
	if (c->rc)
		redisFree(c->rc);
	free(c);
}

int bcn_cache_generation(struct bcn_cache *c, int64_t from, int64_t to,
			 uint64_t *gen)
{
	int32_t fields[BCN_CACHEGEN_PER_DAY + 1];
	char key[BCN_CACHEGEN_KEY_MAX];
	int64_t d0, d1;
	size_t sent = 0;
	uint64_t sum = 0;
	int rc = 0;

	*gen = 0;
	if (ready(c))
		return -EIO;
	if (from < 0)
		from = 0;
	if (to <= from)
		to = from + 1;
	d0 = from / BCN_CACHEGEN_DAY_NS;
	d1 = (to - 1) / BCN_CACHEGEN_DAY_NS;
	if (d1 - d0 >= BCN_CACHEGEN_DAYS_MAX)
		return -E2BIG;
	for (int64_t d = d0; d <= d1; d++) {
		const char *argv[BCN_CACHEGEN_PER_DAY + 3];
		char names[BCN_CACHEGEN_PER_DAY + 1][BCN_CACHEGEN_FIELD_MAX];
		size_t n;

		if (bcn_cachegen_key(c->cfg.prefix, d, key, sizeof(key)))
			return -ENAMETOOLONG;
		bcn_cachegen_window_fields(from, to, d, fields, &n);
		argv[0] = "HMGET";
		argv[1] = key;
		for (size_t i = 0; i < n; i++) {
			bcn_cachegen_field(fields[i], names[i], sizeof(names[i]));
			argv[i + 2] = names[i];
		}
		redisAppendCommandArgv(c->rc, (int)n + 2, argv, NULL);
		sent++;
	}
	for (size_t i = 0; i < sent; i++) {
		redisReply *r = NULL;

		if (redisGetReply(c->rc, (void **)&r) != REDIS_OK)
			return -EIO;    /* the connection is broken: no more replies */
		if (!r || r->type != REDIS_REPLY_ARRAY)
			rc = -EIO;
		for (size_t k = 0; !rc && k < r->elements; k++)
			if (r->element[k]->type == REDIS_REPLY_STRING)
				sum += strtoull(r->element[k]->str, NULL, 10);
		freeReplyObject(r);
	}
	*gen = sum;
	return rc;
}

/* Whether a cached report's JSON has this beacon's layout (it starts
 * with its report_version). */
static bool current(const char *json, size_t len)
{
	char v[40];
	int n = snprintf(v, sizeof(v), "{\"report_version\":%d,",
			 BCN_REPORT_VERSION);

	return n > 0 && len >= (size_t)n && !memcmp(json, v, (size_t)n);
}

int bcn_cache_get(struct bcn_cache *c, uint64_t job, uint64_t gen,
		  struct bcn_buf *out)
{
	char k[BCN_CACHE_PREFIX_MAX + 24];
	redisReply *r;
	int rc;

	if (ready(c))
		return -EIO;
	key_of(c, job, k, sizeof(k));
	r = redisCommand(c->rc, "HMGET %s gen json", k);
	if (!r)
		return -EIO;
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2)
		rc = -EIO;
	else if (r->element[0]->type != REDIS_REPLY_STRING ||
		 r->element[1]->type != REDIS_REPLY_STRING ||
		 strtoull(r->element[0]->str, NULL, 10) != gen ||
		 !current(r->element[1]->str, r->element[1]->len))
		rc = 0;         /* none, computed before records landed, or by
				 * an older beacon (another layout) */
	else
		rc = bcn_buf_add(out, r->element[1]->str, r->element[1]->len) ?
		     -BCN_EFULL : 1;
	freeReplyObject(r);
	return rc;
}

int bcn_cache_put(struct bcn_cache *c, uint64_t job, uint64_t gen,
		  const char *json, size_t n)
{
	char k[BCN_CACHE_PREFIX_MAX + 24];
	redisReply *r = NULL;
	int rc = 0;

	if (ready(c))
		return -EIO;
	key_of(c, job, k, sizeof(k));
	/* DEL first: a key of another type (an older beacon's string) */
	redisAppendCommand(c->rc, "MULTI");
	redisAppendCommand(c->rc, "DEL %s", k);
	redisAppendCommand(c->rc, "HSET %s gen %llu json %b", k,
			   (unsigned long long)gen, json, n);
	redisAppendCommand(c->rc, "PEXPIRE %s %lld", k,
			   (long long)c->cfg.ttl_ms);
	redisAppendCommand(c->rc, "EXEC");
	for (int i = 0; i < 5; i++) {
		if (redisGetReply(c->rc, (void **)&r) != REDIS_OK)
			return -EIO;
		if (!r || r->type == REDIS_REPLY_ERROR ||
		    (i == 4 && (r->type != REDIS_REPLY_ARRAY ||
				r->elements != 3)))
			rc = -EIO;
		freeReplyObject(r);
	}
	return rc;
}

int bcn_cache_drop(struct bcn_cache *c, uint64_t job)
{
	char k[BCN_CACHE_PREFIX_MAX + 24];
	redisReply *r;

	if (ready(c))
		return -EIO;
	key_of(c, job, k, sizeof(k));
	r = redisCommand(c->rc, "DEL %s", k);
	if (!r)
		return -EIO;
	freeReplyObject(r);
	return 0;
}

struct member {
	const char *name, *label;
};

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->name,
		      ((const struct member *)b)->name);
}

/* HGETALL of one member's hash, handed to fn. */
static int one_hash(struct bcn_cache *c, const struct member *m,
		    const char *suffix, bcn_cache_hash_fn *fn, void *arg)
{
	redisReply *r = redisCommand(c->rc, "HGETALL %s%s", m->name, suffix);
	const char **names = NULL, **values = NULL;
	size_t n = 0, cap;
	int rc;

	if (!r || r->type != REDIS_REPLY_ARRAY) {
		freeReplyObject(r);
		return -EIO;
	}
	cap = r->elements / 2 + 1;
	names = calloc(cap, sizeof(*names));
	values = calloc(cap, sizeof(*values));
	if (!names || !values) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i + 1 < r->elements; i += 2) {
		if (r->element[i]->type != REDIS_REPLY_STRING ||
		    r->element[i + 1]->type != REDIS_REPLY_STRING)
			continue;
		names[n] = r->element[i]->str;
		values[n++] = r->element[i + 1]->str;
	}
	rc = fn(arg, m->name, m->label, n, names, values);
out:
	free(names);
	free(values);
	freeReplyObject(r);
	return rc;
}

int bcn_cache_registry(struct bcn_cache *c, const char *reg_key,
		       const char *suffix, size_t max, bcn_cache_hash_fn *fn,
		       void *arg)
{
	redisReply *r;
	struct member *m = NULL;
	size_t n = 0;
	int rc = 0;

	if (ready(c))
		return -EIO;
	r = redisCommand(c->rc, "HGETALL %s", reg_key);
	if (!r || r->type != REDIS_REPLY_ARRAY) {
		freeReplyObject(r);
		return -EIO;
	}
	if (r->elements && !(m = calloc(r->elements / 2 + 1, sizeof(*m))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i + 1 < r->elements; i += 2)
		if (r->element[i]->type == REDIS_REPLY_STRING &&
		    r->element[i + 1]->type == REDIS_REPLY_STRING)
			m[n++] = (struct member){ r->element[i]->str,
						  r->element[i + 1]->str };
	if (n)
		qsort(m, n, sizeof(*m), cmp_member);
	for (size_t i = 0; !rc && i < n && i < max; i++)
		rc = one_hash(c, &m[i], suffix, fn, arg);
	free(m);
	freeReplyObject(r);
	return rc;
}
