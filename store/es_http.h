/* HTTP client of the OpenSearch / Elasticsearch backend: one libcurl easy
 * handle (kept-alive connections), JSON bodies, basic authentication with
 * a password read from a file, a per-request timeout and a bounded
 * response buffer. Not thread-safe: one per store handle. */
#ifndef BCN_ES_HTTP_H
#define BCN_ES_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "store/store.h"

/* Largest response body kept; longer ones fail with -BCN_EFULL. */
#define BCN_ES_RESP_MAX (64u << 20)
/* Longest password accepted from the password file. */
#define BCN_ES_PASSWORD_MAX 1024
/* Connection set-up never waits longer than this (or the timeout). */
#define BCN_ES_CONNECT_MS 10000

struct bcn_es_http {
	void *curl;                     /* CURL * */
	char base[BCN_STORE_URL_MAX];   /* URL without trailing '/' */
	char user[64];
	char password[BCN_ES_PASSWORD_MAX];
	int64_t timeout_ms;
	long status;                    /* HTTP status of the last response */
	struct bcn_buf resp;            /* its body */
};

/* Prepares a client for the server at url. With a non-empty user, reads
 * the password from password_file (its first line). Returns 0 or a
 * negative code with a message in err. */
int bcn_es_http_init(struct bcn_es_http *h, const char *url, const char *user,
		     const char *password_file, int64_t timeout_ms, char *err,
		     size_t errlen);
void bcn_es_http_free(struct bcn_es_http *h);

/* Sends "method base+path" with body (len bytes, may be NULL) as
 * application/json and waits for the whole response. Returns 0 when an
 * answer came, whatever its status (h->status, h->resp), or a negative
 * code (-ETIMEDOUT, -ECONNREFUSED, -BCN_EFULL, -EIO ...) with libcurl's
 * message in err. */
int bcn_es_http_request(struct bcn_es_http *h, const char *method,
			const char *path, const char *body, size_t len,
			char *err, size_t errlen);

#endif
