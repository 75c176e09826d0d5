/* Sending one composed e-mail over SMTP with libcurl (docs/alerts.md,
 * "Transport"): smtp:// with optional or required STARTTLS, or smtps://,
 * optional login with a password read from a file, bounded time, no
 * other protocol. libcurl dot-stuffs the message itself. */
#ifndef BCN_ANOMALY_SMTP_H
#define BCN_ANOMALY_SMTP_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* smtp_tls: what STARTTLS is asked for on smtp:// (smtps:// is always
 * TLS). The values index bcn_smtp_tls_names. */
enum bcn_smtp_tls {
	BCN_SMTP_TLS_NONE = 0,          /* plain text */
	BCN_SMTP_TLS_TRY,               /* STARTTLS when offered */
	BCN_SMTP_TLS_REQUIRED,          /* STARTTLS or fail */
};

/* "none", "try", "required", NULL. */
extern const char *const bcn_smtp_tls_names[];

#define BCN_SMTP_ERR_MAX 512            /* a good size for err */

/* Where and how to send. Strings "" or NULL when unset. */
struct bcn_smtp_opts {
	const char *url;                /* smtp://host:port or smtps://... */
	const char *user;               /* "": no login */
	const char *password_file;      /* the login's password, first line */
	int tls;                        /* enum bcn_smtp_tls */
	const char *ca_file;            /* "": the system's CAs */
	int64_t timeout_ms;             /* whole transaction; connect: a
					 * third of it */
};

/* Sends msg (a complete RFC 5322 message, CRLF line ends) from the
 * envelope sender from to the nrcpt envelope recipients rcpt. Returns 0
 * when the server accepted the message for every recipient, or a
 * negative code with the reason (libcurl's and the server's words, never
 * the password) in err: -EINVAL (bad options, no recipient),
 * -ECONNREFUSED (cannot connect), -ETIMEDOUT, -EACCES (login refused),
 * -EPROTO (TLS failed or refused), -EIO (the server refused the sender,
 * a recipient or the message, or the connection broke), -ENOMEM. */
int bcn_smtp_send(const struct bcn_smtp_opts *o, const char *from,
		  const char *const *rcpt, size_t nrcpt,
		  const struct bcn_buf *msg, char *err, size_t errlen);

#endif
