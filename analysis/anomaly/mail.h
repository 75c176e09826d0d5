/* The alert e-mail of an anomaly (docs/alerts.md, "The message"): one
 * RFC 5322 message, composed by a pure function from the anomaly, the
 * kind of alert and the configuration. Every header value is sanitised
 * (no CR, LF or other control characters reach a header, non-ASCII text
 * is RFC 2047 encoded), the body is quoted-printable UTF-8 text, so no
 * line is longer than 78 bytes and every line ends in CRLF. */
#ifndef BCN_ANOMALY_MAIL_H
#define BCN_ANOMALY_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "jobdb/anomalies.h"

#define BCN_MAIL_MAX (1024 * 1024)      /* bound of one composed message */
#define BCN_MAIL_ADDR_MAX 254           /* longest address (RFC 5321) */
#define BCN_MAIL_RCPT_MAX 16            /* recipients of one message */
#define BCN_MAIL_MSGID_MAX 128          /* a Message-ID, brackets included */
#define BCN_MAIL_EVIDENCE_LINES 200     /* evidence lines shown, at most */

/* What the message is about. */
enum bcn_mail_kind {
	BCN_MAIL_NEW = 0,               /* the first message of an anomaly */
	BCN_MAIL_REMINDER = 1,          /* it is still open: reminder seq */
};

/* Everything besides the anomaly that goes into the message. */
struct bcn_mail_params {
	uint64_t alert_id;              /* the alert's row: the Message-ID */
	int kind;                       /* enum bcn_mail_kind */
	unsigned seq;                   /* reminder number (1, 2, ...) */
	const char *from;               /* a bare address: a@b.example */
	const char *const *to;          /* bare addresses */
	size_t nto;                     /* 1 .. BCN_MAIL_RCPT_MAX */
	const char *web_url;            /* "" or the base of the link */
	int64_t now;                    /* the Date, ns since the epoch */
};

/* Whether s is a bare address this composer accepts: local@domain,
 * at most BCN_MAIL_ADDR_MAX bytes of printable ASCII without blanks,
 * quotes, brackets, commas, semicolons or backslashes, one '@' with text
 * on both sides. */
bool bcn_mail_addr_ok(const char *s);

/* The Message-ID of alert alert_id about anomaly anomaly_id, from the
 * domain of the sender from: "<alert-ID.anomaly-ID@domain>" (domain
 * "beacon.invalid" when from has none usable). The same for every retry
 * of the alert. Writes at most cap bytes (BCN_MAIL_MSGID_MAX suffices). */
void bcn_mail_message_id(uint64_t alert_id, uint64_t anomaly_id,
			 const char *from, char *out, size_t cap);

/* Appends the message about a (as read back from the job database) to
 * out: From, To, Subject, Date, Message-ID, MIME-Version, Content-Type,
 * Content-Transfer-Encoding, X-Beacon-Anomaly and X-Beacon-Alert, an
 * empty line and the body (what, where, when, how bad, which jobs, the
 * evidence as "key: value" lines and the link <web_url>/anomalies/<id>).
 * Set out's bound to at least BCN_MAIL_MAX: a message never needs more.
 * Returns 0, -EINVAL (bad address or count of recipients; nothing is
 * appended), -ENOMEM or -BCN_EFULL (out is then cut short: reset it). */
int bcn_mail_compose(const struct bcn_anomaly *a,
		     const struct bcn_mail_params *p, struct bcn_buf *out);

#endif
