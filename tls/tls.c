/* TLS sessions over non-blocking sockets with GnuTLS (tls/tls.h).
 *
 * GnuTLS is loaded with dlopen(3) when the first TLS context is made, not
 * linked: the library and what it pulls in (p11-kit, libtasn1, libidn2,
 * libunistring, GMP) cost every collector about 2.4 MB of resident
 * memory at start-up (bench/fwdd_bench.sh: 3.1 MB -> 5.6 MB), although
 * most sites never turn TLS on. The functions used are listed once, in
 * GNUTLS_FNS, and called through a table. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls/tls.h"

#define GNUTLS_SONAME "libgnutls.so.30"

/* (name, return type, parameters) of every GnuTLS function used. */
#define GNUTLS_FNS(X) \
	X(gnutls_certificate_allocate_credentials, int, \
	  (gnutls_certificate_credentials_t *)) \
	X(gnutls_certificate_free_credentials, void, \
	  (gnutls_certificate_credentials_t)) \
	X(gnutls_certificate_set_x509_key_file, int, \
	  (gnutls_certificate_credentials_t, const char *, const char *, \
	   gnutls_x509_crt_fmt_t)) \
	X(gnutls_certificate_set_x509_trust_file, int, \
	  (gnutls_certificate_credentials_t, const char *, gnutls_x509_crt_fmt_t)) \
	X(gnutls_certificate_set_x509_system_trust, int, \
	  (gnutls_certificate_credentials_t)) \
	X(gnutls_init, int, (gnutls_session_t *, unsigned int)) \
	X(gnutls_deinit, void, (gnutls_session_t)) \
	X(gnutls_set_default_priority, int, (gnutls_session_t)) \
	X(gnutls_credentials_set, int, \
	  (gnutls_session_t, gnutls_credentials_type_t, void *)) \
	X(gnutls_certificate_server_set_request, void, \
	  (gnutls_session_t, gnutls_certificate_request_t)) \
	X(gnutls_server_name_set, int, \
	  (gnutls_session_t, gnutls_server_name_type_t, const void *, size_t)) \
	X(gnutls_session_set_verify_cert, void, \
	  (gnutls_session_t, const char *, unsigned)) \
	X(gnutls_transport_set_int2, void, (gnutls_session_t, int, int)) \
	X(gnutls_handshake_set_timeout, void, (gnutls_session_t, unsigned)) \
	X(gnutls_handshake, int, (gnutls_session_t)) \
	X(gnutls_session_get_verify_cert_status, unsigned, (gnutls_session_t)) \
	X(gnutls_certificate_verification_status_print, int, \
	  (unsigned, gnutls_certificate_type_t, gnutls_datum_t *, unsigned)) \
	X(gnutls_certificate_type_get, gnutls_certificate_type_t, \
	  (gnutls_session_t)) \
	X(gnutls_error_is_fatal, int, (int)) \
	X(gnutls_strerror, const char *, (int)) \
	X(gnutls_record_recv, ssize_t, (gnutls_session_t, void *, size_t)) \
	X(gnutls_record_send, ssize_t, (gnutls_session_t, const void *, size_t)) \
	X(gnutls_record_get_direction, int, (gnutls_session_t)) \
	X(gnutls_record_check_pending, size_t, (gnutls_session_t))

#define X_PTR(name, ret, args) ret (*name) args;
static struct {
	GNUTLS_FNS(X_PTR)
	gnutls_free_function *free;     /* gnutls_free is a variable */
} g;
#undef X_PTR

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_err[BCN_TLS_ERR_MAX];

static void load(void)
{
	void *h = dlopen(GNUTLS_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(load_err, sizeof(load_err), "cannot load %s: %s",
			 GNUTLS_SONAME, dlerror());
		return;
	}
#define X_LOAD(name, ret, args) \
	if (!load_err[0] && !(*(void **)&g.name = dlsym(h, #name))) \
		snprintf(load_err, sizeof(load_err), "%s lacks %s", \
			 GNUTLS_SONAME, #name);
	GNUTLS_FNS(X_LOAD)
#undef X_LOAD
	if (!load_err[0] && !(g.free = dlsym(h, "gnutls_free")))
		snprintf(load_err, sizeof(load_err), "%s lacks gnutls_free",
			 GNUTLS_SONAME);
}

/* Loads GnuTLS once. Returns 0, or -ENOSYS with the reason in err. */
static int loaded(char *err, size_t errlen)
{
	pthread_once(&load_once, load);
	if (load_err[0]) {
		snprintf(err, errlen, "TLS: %s", load_err);
		return -ENOSYS;
	}
	return 0;
}

#define gnutls_certificate_allocate_credentials g.gnutls_certificate_allocate_credentials
#define gnutls_certificate_free_credentials g.gnutls_certificate_free_credentials
#define gnutls_certificate_set_x509_key_file g.gnutls_certificate_set_x509_key_file
#define gnutls_certificate_set_x509_trust_file g.gnutls_certificate_set_x509_trust_file
#define gnutls_certificate_set_x509_system_trust g.gnutls_certificate_set_x509_system_trust
#define gnutls_init g.gnutls_init
#define gnutls_deinit g.gnutls_deinit
#define gnutls_set_default_priority g.gnutls_set_default_priority
#define gnutls_credentials_set g.gnutls_credentials_set
#define gnutls_certificate_server_set_request g.gnutls_certificate_server_set_request
#define gnutls_server_name_set g.gnutls_server_name_set
#define gnutls_session_set_verify_cert g.gnutls_session_set_verify_cert
#define gnutls_transport_set_int2 g.gnutls_transport_set_int2
#define gnutls_handshake_set_timeout g.gnutls_handshake_set_timeout
#define gnutls_handshake g.gnutls_handshake
#define gnutls_session_get_verify_cert_status g.gnutls_session_get_verify_cert_status
#define gnutls_certificate_verification_status_print g.gnutls_certificate_verification_status_print
#define gnutls_certificate_type_get g.gnutls_certificate_type_get
#define gnutls_error_is_fatal g.gnutls_error_is_fatal
#define gnutls_strerror g.gnutls_strerror
#define gnutls_record_recv g.gnutls_record_recv
#define gnutls_record_send g.gnutls_record_send
#define gnutls_record_get_direction g.gnutls_record_get_direction
#define gnutls_record_check_pending g.gnutls_record_check_pending

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
	struct bcn_tls_ctx *c;
	int rc;

	*out = NULL;
	rc = loaded(err, errlen);
	if (rc)
		return rc;
	c = calloc(1, sizeof(*c));
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
			(*g.free)(out.data);
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
