/* TLS sessions over non-blocking sockets with GnuTLS (tls/tls.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls/tls.h"

struct bcn_tls_ctx {
	gnutls_certificate_credentials_t cred;
	bool server, verify_client;
};

struct bcn_tls {
	gnutls_session_t s;
	bool server;
	bool pending_write;     /* GnuTLS holds a record of the last call */
	char err[BCN_TLS_ERR_MAX];
};

static int ctx_new(struct bcn_tls_ctx **out, char *err, size_t errlen)
{
	struct bcn_tls_ctx *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	rc = gnutls_certificate_allocate_credentials(&c->cred);
	if (rc) {
		snprintf(err, errlen, "TLS: %s", gnutls_strerror(rc));
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static int fail(struct bcn_tls_ctx *c, char *err, size_t errlen,
		const char *what, const char *path, int grc)
{
	snprintf(err, errlen, "TLS %s %s: %s", what, path, gnutls_strerror(grc));
	bcn_tls_ctx_free(c);
	return -EINVAL;
}

int bcn_tls_server_ctx(const char *cert, const char *key, const char *ca,
		       bool verify_client, struct bcn_tls_ctx **out,
		       char *err, size_t errlen)
{
	struct bcn_tls_ctx *c;
	int rc = ctx_new(&c, err, errlen);

	if (rc)
		return rc;
	c->server = true;
	rc = gnutls_certificate_set_x509_key_file(c->cred, cert, key,
						  GNUTLS_X509_FMT_PEM);
	if (rc < 0)
		return fail(c, err, errlen, "certificate or key", cert, rc);
	if (ca && ca[0]) {
		rc = gnutls_certificate_set_x509_trust_file(c->cred, ca,
							    GNUTLS_X509_FMT_PEM);
		if (rc < 0)
			return fail(c, err, errlen, "CA file", ca, rc);
	}
	c->verify_client = verify_client;
	*out = c;
	return 0;
}

int bcn_tls_client_ctx(const char *ca, const char *cert, const char *key,
		       struct bcn_tls_ctx **out, char *err, size_t errlen)
{
	struct bcn_tls_ctx *c;
	int rc = ctx_new(&c, err, errlen);

	if (rc)
		return rc;
	if (ca && ca[0])
		rc = gnutls_certificate_set_x509_trust_file(c->cred, ca,
							    GNUTLS_X509_FMT_PEM);
	else
		rc = gnutls_certificate_set_x509_system_trust(c->cred);
	if (rc < 0)
		return fail(c, err, errlen, "CA file", ca && ca[0] ? ca :
			    "(system)", rc);
	if (rc == 0)
		return fail(c, err, errlen, "CA file", ca && ca[0] ? ca :
			    "(system)", GNUTLS_E_NO_CERTIFICATE_FOUND);
	if (cert && cert[0]) {
		rc = gnutls_certificate_set_x509_key_file(c->cred, cert, key,
							  GNUTLS_X509_FMT_PEM);
		if (rc < 0)
			return fail(c, err, errlen, "certificate or key", cert, rc);
	}
	*out = c;
	return 0;
}

void bcn_tls_ctx_free(struct bcn_tls_ctx *ctx)
{
	if (!ctx)
		return;
	gnutls_certificate_free_credentials(ctx->cred);
	free(ctx);
}

int bcn_tls_new(struct bcn_tls_ctx *ctx, int fd, const char *server_name,
		struct bcn_tls **out)
{
	struct bcn_tls *t = calloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->server = ctx->server;
	rc = gnutls_init(&t->s, (ctx->server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			 GNUTLS_NONBLOCK);
	if (rc) {
		free(t);
		return -ENOMEM;
	}
	rc = gnutls_set_default_priority(t->s);
	if (!rc)
		rc = gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, ctx->cred);
	if (!rc && ctx->server && ctx->verify_client)
		gnutls_certificate_server_set_request(t->s, GNUTLS_CERT_REQUIRE);
	if (!rc && !ctx->server && server_name && server_name[0]) {
		/* SNI only for names, the check for names and addresses */
		if (!strchr(server_name, ':') &&
		    strspn(server_name, "0123456789.") != strlen(server_name))
			rc = gnutls_server_name_set(t->s, GNUTLS_NAME_DNS,
						    server_name,
						    strlen(server_name));
		if (!rc)
			gnutls_session_set_verify_cert(t->s, server_name, 0);
	}
	if (!rc && ctx->server && ctx->verify_client)
		gnutls_session_set_verify_cert(t->s, NULL, 0);
	if (rc) {
		gnutls_deinit(t->s);
		free(t);
		return -EINVAL;
	}
	gnutls_transport_set_int(t->s, fd);
	gnutls_handshake_set_timeout(t->s, 0);  /* the caller's deadline */
	*out = t;
	return 0;
}

void bcn_tls_free(struct bcn_tls *t)
{
	if (!t)
		return;
	gnutls_deinit(t->s);
	free(t);
}

/* Maps a GnuTLS error to the interface's codes. */
static int map(struct bcn_tls *t, int grc)
{
	if (grc == GNUTLS_E_AGAIN || grc == GNUTLS_E_INTERRUPTED)
		return -EAGAIN;
	snprintf(t->err, sizeof(t->err), "%s", gnutls_strerror(grc));
	if (grc == GNUTLS_E_PREMATURE_TERMINATION)
		return -ECONNRESET;
	return -EPROTO;
}

int bcn_tls_handshake(struct bcn_tls *t)
{
	int rc = gnutls_handshake(t->s);

	if (rc == GNUTLS_E_SUCCESS)
		return 0;
	if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
		gnutls_datum_t out;
		unsigned status = gnutls_session_get_verify_cert_status(t->s);

		if (!gnutls_certificate_verification_status_print(
			    status, gnutls_certificate_type_get(t->s), &out, 0)) {
			snprintf(t->err, sizeof(t->err), "certificate refused: %s",
				 out.data);
			gnutls_free(out.data);
		} else {
			snprintf(t->err, sizeof(t->err), "certificate refused");
		}
		return -EKEYREJECTED;
	}
	if (gnutls_error_is_fatal(rc) == 0 && rc != GNUTLS_E_AGAIN &&
	    rc != GNUTLS_E_INTERRUPTED)
		return -EAGAIN;         /* a warning alert: go on */
	return map(t, rc);
}

ssize_t bcn_tls_read(struct bcn_tls *t, void *buf, size_t len)
{
	ssize_t n = gnutls_record_recv(t->s, buf, len);

	if (n >= 0)
		return n;
	return map(t, (int)n);
}

ssize_t bcn_tls_write(struct bcn_tls *t, const void *buf, size_t len)
{
	ssize_t n;

	/* after -EAGAIN GnuTLS finishes the record it holds when called
	 * with no data, and then returns the bytes of the first call */
	n = t->pending_write ? gnutls_record_send(t->s, NULL, 0)
			     : gnutls_record_send(t->s, buf, len);
	if (n >= 0) {
		t->pending_write = false;
		return n;
	}
	if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
		t->pending_write = true;
		return -EAGAIN;
	}
	n = map(t, (int)n);
	return n == -ECONNRESET ? -EPIPE : n;
}

bool bcn_tls_wants_write(const struct bcn_tls *t)
{
	return gnutls_record_get_direction(t->s) == 1;
}

size_t bcn_tls_pending(const struct bcn_tls *t)
{
	return gnutls_record_check_pending(t->s);
}

const char *bcn_tls_error(const struct bcn_tls *t)
{
	return t->err[0] ? t->err : "no error";
}
