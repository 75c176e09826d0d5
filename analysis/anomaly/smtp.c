/* One e-mail over SMTP with libcurl (smtp.h): the options, a read
 * callback over the composed message, and errors mapped to codes with
 * libcurl's and the server's words. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "analysis/anomaly/mail.h"
#include "analysis/anomaly/smtp.h"
#include "common/buf.h"
#include "common/error.h"

#define PASSWORD_FILE_MAX 4096
#define TIMEOUT_DEFAULT_MS 30000

const char *const bcn_smtp_tls_names[] = { "none", "try", "required", NULL };

struct reader {
	const uint8_t *p;
	size_t n, off;
};

static size_t read_cb(char *buf, size_t size, size_t nitems, void *arg)
{
	struct reader *r = arg;
	size_t k = r->n - r->off;

	if (k > size * nitems)
		k = size * nitems;
	memcpy(buf, r->p + r->off, k);
	r->off += k;
	return k;
}

/* The first line of the password file into pw (cap bytes). */
static int read_password(const char *path, char *pw, size_t cap, char *err,
			 size_t errlen)
{
	struct bcn_buf b;
	size_t n = 0;
	int rc;

	bcn_buf_init(&b, PASSWORD_FILE_MAX);
	rc = bcn_buf_read_file(&b, path);
	if (rc) {
		bcn_seterr(err, errlen, "smtp: password file %s: %s", path,
			   bcn_strerror(rc));
		goto out;
	}
	while (n < b.len && b.data[n] != '\n' && b.data[n] != '\r' &&
	       b.data[n] != '\0')
		n++;
	if (n >= cap) {
		rc = bcn_fail(err, errlen, -EINVAL, "smtp: password in %s is "
			      "too long", path);
		goto out;
	}
	memcpy(pw, b.data, n);
	pw[n] = '\0';
out:
	if (b.data)
		explicit_bzero(b.data, b.cap);
	bcn_buf_free(&b);
	return rc;
}

static int code_of(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		return -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_LOGIN_DENIED:
		return -EACCES;
	case CURLE_USE_SSL_FAILED:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		return -EPROTO;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static long use_ssl(int tls)
{
	return tls == BCN_SMTP_TLS_REQUIRED ? (long)CURLUSESSL_ALL :
	       tls == BCN_SMTP_TLS_TRY ? (long)CURLUSESSL_TRY :
	       (long)CURLUSESSL_NONE;
}

/* Sets every option but the login. Returns a CURLcode. */
static CURLcode setup(CURL *c, const struct bcn_smtp_opts *o, const char *from,
		      struct curl_slist *rcpt, struct reader *r, char *cerr)
{
	int64_t t = o->timeout_ms > 0 ? o->timeout_ms : TIMEOUT_DEFAULT_MS;
	CURLcode e = CURLE_OK;

#define SET(opt, val) if (e == CURLE_OK) e = curl_easy_setopt(c, opt, val)
	SET(CURLOPT_ERRORBUFFER, cerr);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	SET(CURLOPT_URL, o->url);
	SET(CURLOPT_MAIL_FROM, from);
	SET(CURLOPT_MAIL_RCPT, rcpt);
	SET(CURLOPT_USE_SSL, use_ssl(o->tls));
	SET(CURLOPT_TIMEOUT_MS, (long)t);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(t / 3 > 0 ? t / 3 : t));
	SET(CURLOPT_UPLOAD, 1L);
	SET(CURLOPT_READFUNCTION, read_cb);
	SET(CURLOPT_READDATA, r);
	SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->n);
	if (o->ca_file && o->ca_file[0])
		SET(CURLOPT_CAINFO, o->ca_file);
#undef SET
	return e;
}

/* The login, the password read from its file (and wiped after). */
static int login(CURL *c, const struct bcn_smtp_opts *o, char *err,
		 size_t errlen)
{
	char pw[512] = "";
	int rc = 0;

	if (!o->user || !o->user[0])
		return 0;
	if (o->password_file && o->password_file[0])
		rc = read_password(o->password_file, pw, sizeof(pw), err,
				   errlen);
	if (!rc && (curl_easy_setopt(c, CURLOPT_USERNAME, o->user) ||
		    curl_easy_setopt(c, CURLOPT_PASSWORD, pw)))
		rc = bcn_fail(err, errlen, -ENOMEM, "smtp: out of memory");
	explicit_bzero(pw, sizeof(pw));
	return rc;
}

static int check_args(const struct bcn_smtp_opts *o, const char *from,
		      const char *const *rcpt, size_t nrcpt, char *err,
		      size_t errlen)
{
	if (!o->url || (strncasecmp(o->url, "smtp://", 7) &&
			strncasecmp(o->url, "smtps://", 8)))
		return bcn_fail(err, errlen, -EINVAL, "smtp: the URL must be "
				"smtp://host[:port] or smtps://host[:port]");
	if (!from || !bcn_mail_addr_ok(from))
		return bcn_fail(err, errlen, -EINVAL, "smtp: bad sender "
				"address");
	if (!nrcpt || nrcpt > BCN_MAIL_RCPT_MAX)
		return bcn_fail(err, errlen, -EINVAL, "smtp: 1 to %d "
				"recipients", BCN_MAIL_RCPT_MAX);
	for (size_t i = 0; i < nrcpt; i++)
		if (!rcpt[i] || !bcn_mail_addr_ok(rcpt[i]))
			return bcn_fail(err, errlen, -EINVAL, "smtp: bad "
					"recipient address");
	return 0;
}

int bcn_smtp_send(const struct bcn_smtp_opts *o, const char *from,
		  const char *const *rcpt, size_t nrcpt,
		  const struct bcn_buf *msg, char *err, size_t errlen)
{
	struct reader r = { .p = msg->data, .n = msg->len };
	struct curl_slist *list = NULL, *l;
	char cerr[CURL_ERROR_SIZE] = "";
	CURL *c = NULL;
	CURLcode e;
	long code = 0;
	int rc;

	if ((rc = check_args(o, from, rcpt, nrcpt, err, errlen)))
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return bcn_fail(err, errlen, -ENOMEM, "smtp: libcurl "
				"initialisation failed");
	for (size_t i = 0; i < nrcpt; i++) {
		if (!(l = curl_slist_append(list, rcpt[i]))) {
			rc = bcn_fail(err, errlen, -ENOMEM, "smtp: out of memory");
			goto out;
		}
		list = l;
	}
	if (!(c = curl_easy_init())) {
		rc = bcn_fail(err, errlen, -ENOMEM, "smtp: out of memory");
		goto out;
	}
	if ((e = setup(c, o, from, list, &r, cerr)) != CURLE_OK) {
		rc = bcn_fail(err, errlen, code_of(e), "smtp: %s",
			      curl_easy_strerror(e));
		goto out;
	}
	if ((rc = login(c, o, err, errlen)))
		goto out;
	e = curl_easy_perform(c);
	if (e != CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		rc = bcn_fail(err, errlen, code_of(e), "smtp: %s%s%s (last "
			      "reply %ld)", curl_easy_strerror(e),
			      cerr[0] ? ": " : "", cerr, code);
	}
out:
	if (c)
		curl_easy_cleanup(c);
	curl_slist_free_all(list);
	curl_global_cleanup();
	return rc;
}
