/* The HTTP side of beacon-web (web/web.h) on libmicrohttpd: a thread
 * pool with its internal polling, bounded connections (in all, per
 * address, per connection memory, idle timeout), request bodies capped
 * (413), and the answer of the router (web/router.c) turned into an
 * MHD response with its headers, gzip-compressed when the client takes
 * it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/clock.h"
#include "common/error.h"
#include "web/auth.h"
#include "web/web_int.h"

#define TLS_FILE_MAX (1u << 20)

/* What MHD keeps per request between the calls of the handler. */
struct pending {
	struct bcn_buf body;
	bool too_big;
};

int64_t bcn_web_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void peer_of(struct MHD_Connection *c, char *out, size_t n)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	snprintf(out, n, "?");
	if (sa && getnameinfo(sa, sa->sa_family == AF_INET6 ?
			      sizeof(struct sockaddr_in6) :
			      sizeof(struct sockaddr_in), out, (socklen_t)n,
			      NULL, 0, NI_NUMERICHOST))
		snprintf(out, n, "?");
}

static void add_headers(struct MHD_Response *r, const struct bcn_web_resp *p,
			bool api, bool gz)
{
	char ra[32];

	MHD_add_response_header(r, "Content-Type", p->type ? p->type :
				"application/json");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Vary", "Accept-Encoding");
	if (gz)
		MHD_add_response_header(r, "Content-Encoding", "gzip");
	if (api) {
		MHD_add_response_header(r, "Cache-Control", "no-store");
		MHD_add_response_header(r, "X-Beacon-Cache",
					p->cache ? p->cache : "miss");
	}
	if (p->cookie[0])
		MHD_add_response_header(r, "Set-Cookie", p->cookie);
	if (p->allow[0])
		MHD_add_response_header(r, "Allow", p->allow);
	if (p->retry_after_s > 0) {
		snprintf(ra, sizeof(ra), "%lld", (long long)p->retry_after_s);
		MHD_add_response_header(r, "Retry-After", ra);
	}
}

/* MHD leaves the body out of a HEAD answer itself. */
static enum MHD_Result send_resp(struct MHD_Connection *c,
				 struct bcn_web_resp *p, bool api)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool gz = false;

	if (p->body.len && bcn_web_accepts_gzip(c))
		gz = bcn_web_gzip(&p->body) == 1;
	r = MHD_create_response_from_buffer(p->body.len,
					    p->body.data,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	add_headers(r, p, api, gz);
	ret = MHD_queue_response(c, p->status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status,
				   const char *msg, const char *param)
{
	struct bcn_web_resp p;
	enum MHD_Result ret;

	memset(&p, 0, sizeof(p));
	bcn_buf_init(&p.body, 4096);
	bcn_web_error(&p, status, msg, param);
	ret = send_resp(c, &p, true);
	bcn_buf_free(&p.body);
	return ret;
}

/* The first call for a request: a body announced too large is refused
 * at once (its bytes are never read). */
static enum MHD_Result begin(struct bcn_web *w, struct MHD_Connection *c,
			     void **con_cls)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Content-Length");
	struct pending *pe;

	if (cl && strtoull(cl, NULL, 10) > w->cfg->body_max)
		return reply_error(c, 413, "request body too large", NULL);
	pe = calloc(1, sizeof(*pe));
	if (!pe)
		return MHD_NO;
	bcn_buf_init(&pe->body, w->cfg->body_max);
	*con_cls = pe;
	return MHD_YES;
}

static enum MHD_Result serve(struct bcn_web *w, struct MHD_Connection *c,
			     const char *url, const char *method,
			     struct pending *pe)
{
	struct bcn_web_resp p;
	struct bcn_web_req q;
	enum MHD_Result ret;
	bool api = !strncmp(url, "/api/", 5);
	int64_t t0;

	if (pe->too_big)
		return reply_error(c, 413, "request body too large", NULL);
	memset(&q, 0, sizeof(q));
	memset(&p, 0, sizeof(p));
	q.w = w;
	q.conn = c;
	q.method = method;
	q.path = url;
	q.body = (const char *)pe->body.data;
	q.body_len = pe->body.len;
	peer_of(c, q.peer, sizeof(q.peer));
	bcn_buf_init(&p.body, BCN_WEB_OUT_MAX);
	p.status = 500;
	t0 = bcn_mono_ns();
	if (bcn_web_dispatch(&q, &p) && p.status < 400) {
		bcn_buf_reset(&p.body);
		bcn_web_error(&p, 500, "internal error", NULL);
	}
	/* counted before the answer leaves: a client that got it sees it */
	bcn_web_metrics_observe(&w->metrics, q.ep, p.status,
				bcn_mono_ns() - t0);
	ret = send_resp(c, &p, api);
	bcn_buf_free(&p.body);
	sodium_memzero(pe->body.data, pe->body.cap);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct bcn_web *w = cls;
	struct pending *pe = *con_cls;

	(void)version;
	if (!pe)
		return begin(w, c, con_cls);
	if (*upload_size) {
		if (!pe->too_big &&
		    bcn_buf_add(&pe->body, upload, *upload_size))
			pe->too_big = true;
		*upload_size = 0;
		return MHD_YES;
	}
	return serve(w, c, url, method, pe);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct pending *pe = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (pe) {
		bcn_buf_free(&pe->body);
		free(pe);
		*con_cls = NULL;
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct bcn_web *w = cls;
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	pthread_mutex_lock(&w->lock);
	bcn_complain(&w->peer_log, BCN_LOG_INFO, "http: %s", msg);
	pthread_mutex_unlock(&w->lock);
}

/* Parses "host:port" into an IPv4 or IPv6 socket address. */
static int parse_listen(const char *s, struct sockaddr_storage *ss)
{
	char host[BCN_WEB_ADDR_MAX];
	struct addrinfo hints, *ai = NULL;
	const char *colon = strrchr(s, ':');
	size_t hl;

	if (!colon || !colon[1])
		return -BCN_ESYNTAX;
	hl = (size_t)(colon - s);
	if (s[0] == '[' && hl >= 2 && s[hl - 1] == ']') {
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -BCN_ESYNTAX;
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, colon + 1, &hints, &ai) || !ai)
		return -BCN_ESYNTAX;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static int read_pem(const char *path, struct bcn_buf *b)
{
	bcn_buf_init(b, TLS_FILE_MAX);
	int rc = bcn_buf_read_file(b, path);

	if (!rc)
		rc = bcn_buf_add(b, "", 1);
	return rc;
}

static int start(struct bcn_web *w, struct bcn_buf *cert, struct bcn_buf *key)
{
	const struct bcn_web_config *cfg = w->cfg;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
			 MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss;
	bool tls = cfg->tls_cert[0] != '\0';
	int rc;

	if ((rc = parse_listen(cfg->listen, &ss))) {
		BCN_ERR("web_listen '%s' is no host:port", cfg->listen);
		return rc;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (tls) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
			BCN_ERR("this libmicrohttpd has no TLS");
			return -ENOTSUP;
		}
		if ((rc = read_pem(cfg->tls_cert, cert)) ||
		    (rc = read_pem(cfg->tls_key, key))) {
			BCN_ERR("cannot read the TLS certificate or key: %s",
				bcn_strerror(rc));
			return rc;
		}
		flags |= MHD_USE_TLS;
	}
	w->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, w,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, w,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->threads,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)cfg->per_ip_connections,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)((cfg->client_timeout_ms + 999) / 1000),
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)cfg->connection_memory,
		MHD_OPTION_NOTIFY_COMPLETED, on_done, w,
		tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
		(const char *)cert->data,
		MHD_OPTION_HTTPS_MEM_KEY, (const char *)key->data,
		MHD_OPTION_END);
	if (!w->d) {
		BCN_ERR("cannot listen on %s", cfg->listen);
		return -EADDRINUSE;
	}
	BCN_NOTICE("serving on %s%s", cfg->listen, tls ? " (TLS)" : "");
	return 0;
}

/* Connects the backends; the cache is optional. */
static int backends(struct bcn_web *w)
{
	const struct bcn_web_config *cfg = w->cfg;
	char err[512];
	int rc;

	if ((rc = bcn_jobdb_open(&cfg->db, &w->db, err, sizeof(err)))) {
		BCN_ERR("%s", err);
		return rc;
	}
	if ((rc = bcn_stores_open(&cfg->store.cfg, &cfg->stores, &w->st, err,
				  sizeof(err)))) {
		BCN_ERR("%s", err);
		return rc;
	}
	if (cfg->cache.host[0] &&
	    bcn_cache_open(&cfg->cache, &w->cache, err, sizeof(err)))
		BCN_WARN("report cache: %s (going on without it)", err);
	/* the connections of the report computed on a miss */
	if ((rc = bcn_jobdb_open(&cfg->db, &w->miss_db, err, sizeof(err))) ||
	    (rc = bcn_stores_open(&cfg->store.cfg, &cfg->stores, &w->miss_st,
				  err, sizeof(err)))) {
		BCN_ERR("%s", err);
		return rc;
	}
	if (w->cache &&
	    bcn_cache_open(&cfg->cache, &w->miss_cache, err, sizeof(err)))
		BCN_WARN("report cache: %s (going on without it)", err);
	if ((rc = bcn_web_metrics_allow_parse(&w->metrics, cfg->metrics_allow,
					      err, sizeof(err))))
		BCN_ERR("%s", err);
	return rc;
}

int bcn_web_run(const struct bcn_web_config *cfg, volatile sig_atomic_t *stop)
{
	static struct bcn_web w;
	struct bcn_buf cert, key;
	int rc;

	memset(&w, 0, sizeof(w));
	w.cfg = cfg;
	bcn_buf_init(&cert, TLS_FILE_MAX);
	bcn_buf_init(&key, TLS_FILE_MAX);
	pthread_mutex_init(&w.lock, NULL);
	pthread_mutex_init(&w.miss_lock, NULL);
	if (sodium_init() < 0) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = bcn_web_auth_init(&w)) || (rc = backends(&w)) ||
	    (rc = start(&w, &cert, &key)))
		goto out;
	while (!*stop) {
		usleep(200000);
		pthread_mutex_lock(&w.lock);
		bcn_web_auth_tick(&w);
		pthread_mutex_unlock(&w.lock);
	}
out:
	if (w.d)
		MHD_stop_daemon(w.d);
	bcn_web_auth_fini(&w);
	bcn_cache_close(w.cache);
	bcn_stores_close(&w.st);
	if (w.db)
		bcn_jobdb_close(w.db);
	bcn_cache_close(w.miss_cache);
	bcn_stores_close(&w.miss_st);
	if (w.miss_db)
		bcn_jobdb_close(w.miss_db);
	if (key.data)
		sodium_memzero(key.data, key.cap);
	bcn_buf_free(&cert);
	bcn_buf_free(&key);
	pthread_mutex_destroy(&w.lock);
	pthread_mutex_destroy(&w.miss_lock);
	return rc;
}
