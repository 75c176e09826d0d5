/* The anomaly alert e-mails (docs/alerts.md): the configuration keys and
 * the delivery round that beacon-analyzd runs after its detectors. A
 * round queues the first message of every new anomaly and the reminders
 * of those still open after alert_remind_after, then sends what is due
 * while under alert_max_per_hour, recording every send and failure in
 * the job database (jobdb/alerts.h). A failed message stays queued and
 * is retried forever with a capped backoff: none is lost or given up. */
#ifndef BCN_ANOMALY_ALERT_H
#define BCN_ANOMALY_ALERT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/anomaly/mail.h"
#include "analysis/anomaly/smtp.h"
#include "common/config.h"
#include "jobdb/jobdb.h"

#define BCN_ALERT_URL_MAX 512
#define BCN_ALERT_USER_MAX 128
#define BCN_ALERT_TO_MAX 1024           /* alert_to, all recipients */
#define BCN_ALERT_ROUND_MAX 64          /* alerts one round tries, at most */

struct bcn_alert_config {
	char smtp_url[BCN_ALERT_URL_MAX];       /* "": alerts off */
	char smtp_user[BCN_ALERT_USER_MAX];     /* "": no login */
	char smtp_password_file[PATH_MAX];
	int smtp_tls;                           /* enum bcn_smtp_tls */
	char smtp_ca_file[PATH_MAX];
	int64_t smtp_timeout_ms;
	char from[BCN_MAIL_ADDR_MAX + 1];
	char to[BCN_ALERT_TO_MAX];              /* comma-separated */
	char web_url[BCN_ALERT_URL_MAX];
	int64_t remind_after_ms;
	uint64_t max_per_hour;
	int min_severity;                       /* bcn_alert_severity_names */
	int64_t retry_min_ms, retry_max_ms;
};

/* "info", "warning", "critical", NULL: index = rank. */
extern const char *const bcn_alert_severity_names[];

/* Configuration keys smtp_url, smtp_user, smtp_password_file, smtp_tls,
 * smtp_ca_file, smtp_timeout, alert_from, alert_to, alert_web_url,
 * alert_remind_after, alert_max_per_hour, alert_min_severity,
 * alert_retry_min and alert_retry_max for a struct bcn_alert_config
 * member m of a program's configuration type. */
#define BCN_ALERT_CONFIG_OPTIONS(type, m) \
	{ "smtp_url", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.smtp_url), \
	  .help = "SMTP server of the alert e-mails, smtp://host:port " \
		  "(STARTTLS per smtp_tls) or smtps://host:port; empty: " \
		  "no alert e-mails." }, \
	{ "smtp_user", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.smtp_user), \
	  .help = "SMTP login user; empty: no login." }, \
	{ "smtp_password_file", BCN_CFG_PATH, \
	  BCN_CFG_MEMBER(type, m.smtp_password_file), \
	  .help = "File holding the SMTP login's password (mode 0600)." }, \
	{ "smtp_tls", BCN_CFG_ENUM, BCN_CFG_MEMBER(type, m.smtp_tls), \
	  .words = bcn_smtp_tls_names, .def = "required", \
	  .help = "STARTTLS on smtp://: none, try (when offered) or " \
		  "required." }, \
	{ "smtp_ca_file", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.smtp_ca_file), \
	  .help = "CA certificates (PEM) that verify the SMTP server; " \
		  "empty: the system's." }, \
	{ "smtp_timeout", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.smtp_timeout_ms), .min = 1000, \
	  .max = 600000, .def = "30s", \
	  .help = "Time one alert e-mail may take to send." }, \
	{ "alert_from", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.from), \
	  .def = "beacon@localhost", \
	  .help = "Sender address of the alert e-mails." }, \
	{ "alert_to", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.to), \
	  .help = "Recipients of the alert e-mails, comma-separated (at " \
		  "most 16)." }, \
	{ "alert_web_url", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.web_url), \
	  .help = "Base URL of the web pages: messages link to " \
		  "<alert_web_url>/anomalies/<id>." }, \
	{ "alert_remind_after", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.remind_after_ms), .min = 60000, \
	  .max = 366ll * 86400000, .def = "96h", \
	  .help = "A reminder when an anomaly is still open this long after " \
		  "the last e-mail about it." }, \
	{ "alert_max_per_hour", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.max_per_hour), .min = 1, .max = 100000, \
	  .def = "30", .help = "Alert e-mails sent in any hour, at most; " \
		  "the others wait." }, \
	{ "alert_min_severity", BCN_CFG_ENUM, \
	  BCN_CFG_MEMBER(type, m.min_severity), \
	  .words = bcn_alert_severity_names, .def = "warning", \
	  .help = "Anomalies below this severity (info, warning, critical) " \
		  "are not mailed." }, \
	{ "alert_retry_min", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.retry_min_ms), .min = 1000, \
	  .max = 86400000, .def = "1m", \
	  .help = "Wait after the first failed send; doubles per failure." }, \
	{ "alert_retry_max", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.retry_max_ms), .min = 1000, \
	  .max = 7 * 86400000ll, .def = "1h", \
	  .help = "Longest wait between two tries of a failing e-mail." }

/* What a round did. */
struct bcn_alert_stats {
	uint64_t queued;                /* new and reminder alerts queued */
	uint64_t sent;                  /* accepted by the SMTP server */
	uint64_t failed;                /* sends that failed, left queued */
	uint64_t deferred;              /* due, but over alert_max_per_hour */
};

/* Checks c (when smtp_url is set): the URL's scheme, the sender, 1 to
 * BCN_MAIL_RCPT_MAX valid recipients, retry_min <= retry_max. Returns 0
 * or -EINVAL with a message in err. */
int bcn_alert_config_check(const struct bcn_alert_config *c, char *err,
			   size_t errlen);

/* One delivery round at now (ns): does nothing when c->smtp_url is "".
 * Queues the new and reminder alerts (jobdb/alerts.h), then tries the
 * due ones, oldest first, at most BCN_ALERT_ROUND_MAX, while fewer than
 * c->max_per_hour were sent in the hour before now (the others are
 * deferred). A failed send is recorded (error, attempts, next try after
 * the backoff); when the server cannot be reached at all, the rest of
 * the due alerts get the same error without trying. The message of an
 * alert row is the same on every try (its Message-ID names the row).
 * *st gets the counts. Failures are logged, rate-limited. Returns 0, or
 * a negative code for a bad configuration (-EINVAL) or a job database
 * error (the counts so far are in *st). Not thread-safe per db. */
int bcn_alert_round(const struct bcn_alert_config *c, struct bcn_jobdb *db,
		    int64_t now, struct bcn_alert_stats *st);

#endif
