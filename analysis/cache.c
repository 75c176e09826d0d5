/* The report cache in Redis (cache.h), over hiredis's blocking API with
 * timeouts: a cache that does not answer in time is a miss, never a
 * wait. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "analysis/cache.h"
#include "common/error.h"

struct bcn_cache {
	struct bcn_cache_config cfg;
	redisContext *rc;
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

int bcn_cache_open(const struct bcn_cache_config *cfg, struct bcn_cache **out,
		   char *err, size_t errlen)
{
	struct bcn_cache *c = calloc(1, sizeof(*c));
	struct timeval tv;
	int rc = 0;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->cfg = *cfg;
	tv.tv_sec = cfg->timeout_ms / 1000;
	tv.tv_usec = (cfg->timeout_ms % 1000) * 1000;
	c->rc = redisConnectWithTimeout(cfg->host, (int)cfg->port, tv);
	if (!c->rc || c->rc->err) {
		snprintf(err, errlen, "report cache %s:%" PRIu64 ": %s",
			 cfg->host, cfg->port, c->rc ? c->rc->errstr :
			 "out of memory");
		rc = -ECONNREFUSED;
		goto out;
	}
	redisSetTimeout(c->rc, tv);
	if (cfg->password_file[0])
		rc = auth(c, err, errlen);
out:
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

int bcn_cache_get(struct bcn_cache *c, uint64_t job, struct bcn_buf *out)
{
	char k[BCN_CACHE_PREFIX_MAX + 24];
	redisReply *r;
	int rc;

	key_of(c, job, k, sizeof(k));
	r = redisCommand(c->rc, "GET %s", k);
	if (!r)
		return -EIO;
	if (r->type == REDIS_REPLY_STRING)
		rc = bcn_buf_add(out, r->str, r->len) ? -BCN_EFULL : 1;
	else
		rc = r->type == REDIS_REPLY_NIL ? 0 : -EIO;
	freeReplyObject(r);
	return rc;
}

int bcn_cache_put(struct bcn_cache *c, uint64_t job, const char *json,
		  size_t n)
{
	char k[BCN_CACHE_PREFIX_MAX + 24];
	redisReply *r;
	int rc;

	key_of(c, job, k, sizeof(k));
	r = redisCommand(c->rc, "SET %s %b PX %lld", k, json, n,
			 (long long)c->cfg.ttl_ms);
	if (!r)
		return -EIO;
	rc = r->type == REDIS_REPLY_STATUS ? 0 : -EIO;
	freeReplyObject(r);
	return rc;
}

int bcn_cache_drop(struct bcn_cache *c, uint64_t job)
{
	char k[BCN_CACHE_PREFIX_MAX + 24];
	redisReply *r;

	key_of(c, job, k, sizeof(k));
	r = redisCommand(c->rc, "DEL %s", k);
	if (!r)
		return -EIO;
	freeReplyObject(r);
	return 0;
}
