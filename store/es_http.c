/* HTTP client of the OpenSearch / Elasticsearch backend, over libcurl. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "common/error.h"
#include "store/es_http.h"

#define PATH_URL_MAX (BCN_STORE_URL_MAX + 8192)

static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct bcn_es_http *h = arg;
	size_t n = size * nmemb;

	return bcn_buf_add(&h->resp, p, n) ? 0 : n;
}

static int read_password(const char *file, char *out, size_t outlen,
			 char *err, size_t errlen)
{
	struct bcn_buf b;
	size_t n;
	int rc;

	bcn_buf_init(&b, outlen - 1);
	rc = bcn_buf_read_file(&b, file);
	if (rc) {
		snprintf(err, errlen, "password file %s: %s", file,
			 bcn_strerror(rc));
		goto out;
	}
	for (n = 0; n < b.len && b.data[n] != '\n' && b.data[n] != '\r' &&
	     b.data[n] != '\0'; n++)
		;
	memcpy(out, b.data, n);
	out[n] = '\0';
out:
	bcn_buf_free(&b);
	return rc;
}

int bcn_es_http_init(struct bcn_es_http *h, const char *url, const char *user,
		     const char *password_file, int64_t timeout_ms, char *err,
		     size_t errlen)
{
	size_t n = strlen(url);
	int rc;

	memset(h, 0, sizeof(*h));
	bcn_buf_init(&h->resp, BCN_ES_RESP_MAX);
	while (n > 0 && url[n - 1] == '/')
		n--;
	if (n == 0 || n >= sizeof(h->base) || timeout_ms <= 0) {
		snprintf(err, errlen, "opensearch: need a URL and a timeout");
		return -EINVAL;
	}
	memcpy(h->base, url, n);
	h->base[n] = '\0';
	h->timeout_ms = timeout_ms;
	if (user && user[0]) {
		if (strlen(user) >= sizeof(h->user)) {
			snprintf(err, errlen, "opensearch: user name too long");
			return -EINVAL;
		}
		snprintf(h->user, sizeof(h->user), "%s", user);
		rc = read_password(password_file, h->password,
				   sizeof(h->password), err, errlen);
		if (rc)
			return rc;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "opensearch: libcurl initialisation failed");
		return -ENOMEM;
	}
	h->curl = curl_easy_init();
	if (!h->curl) {
		curl_global_cleanup();
		snprintf(err, errlen, "opensearch: libcurl initialisation failed");
		return -ENOMEM;
	}
	return 0;
}

void bcn_es_http_free(struct bcn_es_http *h)
{
	if (h->curl) {
		curl_easy_cleanup(h->curl);
		curl_global_cleanup();
	}
	h->curl = NULL;
	bcn_buf_free(&h->resp);
	memset(h->password, 0, sizeof(h->password));
}

static int curl_errno(CURLcode c)
{
	switch (c) {
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_WRITE_ERROR:
		return -BCN_EFULL;      /* on_data refused: response too long */
	default:
		return -EIO;
	}
}

/* Sets an option unless an earlier one failed. */
#define SETOPT(rc, c, opt, val) \
	do { \
		if ((rc) == CURLE_OK) \
			(rc) = curl_easy_setopt((c), (opt), (val)); \
	} while (0)

/* Only HTTP and HTTPS, for the request and for any redirect: a store URL
 * (or a redirect from the server) naming file://, ftp:// ... is refused. */
static CURLcode restrict_protocols(CURL *c)
{
	CURLcode rc = CURLE_OK;

#if LIBCURL_VERSION_NUM >= 0x075500     /* 7.85.0: the string options */
	SETOPT(rc, c, CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(rc, c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	SETOPT(rc, c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	SETOPT(rc, c, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	return rc;
}

/* Sets the options of one request on the reset handle. */
static CURLcode setup(struct bcn_es_http *h, const char *method,
		      const char *url, const char *body, size_t len,
		      struct curl_slist *hdr, char *cerr)
{
	CURL *c = h->curl;
	CURLcode rc = CURLE_OK;
	long conn = h->timeout_ms < BCN_ES_CONNECT_MS ? (long)h->timeout_ms :
		    BCN_ES_CONNECT_MS;

	rc = restrict_protocols(c);
	SETOPT(rc, c, CURLOPT_URL, url);
	SETOPT(rc, c, CURLOPT_ERRORBUFFER, cerr);
	SETOPT(rc, c, CURLOPT_NOSIGNAL, 1L);
	SETOPT(rc, c, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
	SETOPT(rc, c, CURLOPT_CONNECTTIMEOUT_MS, conn);
	SETOPT(rc, c, CURLOPT_HTTPHEADER, hdr);
	SETOPT(rc, c, CURLOPT_WRITEFUNCTION, on_data);
	SETOPT(rc, c, CURLOPT_WRITEDATA, h);
	SETOPT(rc, c, CURLOPT_ACCEPT_ENCODING, "");
	if (h->user[0]) {
		SETOPT(rc, c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SETOPT(rc, c, CURLOPT_USERNAME, h->user);
		SETOPT(rc, c, CURLOPT_PASSWORD, h->password);
	}
	if (strcmp(method, "HEAD") == 0)
		SETOPT(rc, c, CURLOPT_NOBODY, 1L);
	if (body) {
		SETOPT(rc, c, CURLOPT_POSTFIELDS, body);
		SETOPT(rc, c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		SETOPT(rc, c, CURLOPT_CUSTOMREQUEST, method);
	return rc;
}

int bcn_es_http_request(struct bcn_es_http *h, const char *method,
			const char *path, const char *body, size_t len,
			char *err, size_t errlen)
{
	char url[PATH_URL_MAX], cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL, *tmp;
	CURLcode c;
	int n, rc = 0;

	h->status = 0;
	bcn_buf_reset(&h->resp);
	n = snprintf(url, sizeof(url), "%s%s", h->base, path);
	if (n < 0 || (size_t)n >= sizeof(url)) {
		snprintf(err, errlen, "%s %s: URL too long", method, path);
		return -BCN_EFULL;
	}
	tmp = curl_slist_append(hdr, "Content-Type: application/json");
	if (tmp)
		hdr = tmp;
	tmp = tmp ? curl_slist_append(hdr, "Expect:") : NULL;
	if (!tmp) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s %s: out of memory", method, path);
		goto out;
	}
	hdr = tmp;
	curl_easy_reset(h->curl);
	c = setup(h, method, url, body, len, hdr, cerr);
	if (c == CURLE_OK)
		c = curl_easy_perform(h->curl);
	if (c != CURLE_OK) {
		rc = curl_errno(c);
		snprintf(err, errlen, "%s %s%s: %s", method, h->base, path,
			 rc == -BCN_EFULL ? "response too long" :
			 cerr[0] ? cerr : curl_easy_strerror(c));
		goto out;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &h->status);
out:
	curl_slist_free_all(hdr);
	return rc;
}
