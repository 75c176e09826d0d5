/* Optional TLS under the frame stream between collectors and log servers
 * (docs/logsrv.md, "TLS"), with GnuTLS: confidentiality and the server's
 * authentication by certificate. The frames inside keep their own
 * handshake and MACs (docs/protocol.md): TLS adds secrecy, it does not
 * replace the collectors' keys.
 *
 * A context holds credentials (one per process); a session wraps one
 * non-blocking socket. Every call returns at once: -EAGAIN means "call
 * again when the socket is readable, or writable if bcn_tls_wants_write". */
#ifndef BCN_TLS_H
#define BCN_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define BCN_TLS_ERR_MAX 256

struct bcn_tls_ctx;
struct bcn_tls;

/* Server credentials: certificate chain and key (PEM); with ca, clients
 * must present a certificate signed by it when verify_client. Returns 0
 * and *out, or a negative code with a message in err. */
int bcn_tls_server_ctx(const char *cert, const char *key, const char *ca,
		       bool verify_client, struct bcn_tls_ctx **out,
		       char *err, size_t errlen);

/* Client credentials: trust anchors from ca (PEM; NULL or "": the
 * system's), an optional client certificate and key. */
int bcn_tls_client_ctx(const char *ca, const char *cert, const char *key,
		       struct bcn_tls_ctx **out, char *err, size_t errlen);

void bcn_tls_ctx_free(struct bcn_tls_ctx *ctx);

/* A session over the connected non-blocking socket fd (not owned). A
 * client session checks the server's certificate against server_name
 * (a host name or IP address). Returns 0 or -ENOMEM/-EINVAL. */
int bcn_tls_new(struct bcn_tls_ctx *ctx, int fd, const char *server_name,
		struct bcn_tls **out);

/* Frees the session (no close_notify: the peers' frame protocol says
 * what was delivered). */
void bcn_tls_free(struct bcn_tls *t);

/* Advances the handshake. Returns 0 when done, -EAGAIN, or -EPROTO /
 * -EKEYREJECTED (the peer's certificate is refused) with the reason in
 * bcn_tls_error(). */
int bcn_tls_handshake(struct bcn_tls *t);

/* Reads decrypted bytes: > 0, 0 at the end of the stream, -EAGAIN, or
 * -EPROTO/-ECONNRESET. */
ssize_t bcn_tls_read(struct bcn_tls *t, void *buf, size_t len);

/* Writes: bytes taken (> 0), -EAGAIN (call again with the same bytes),
 * or -EPROTO/-EPIPE. */
ssize_t bcn_tls_write(struct bcn_tls *t, const void *buf, size_t len);

/* Whether the blocked call waits for the socket to be writable. */
bool bcn_tls_wants_write(const struct bcn_tls *t);

/* Decrypted bytes already buffered: read them before waiting on the
 * socket. */
size_t bcn_tls_pending(const struct bcn_tls *t);

/* The last error's description. */
const char *bcn_tls_error(const struct bcn_tls *t);

#endif
