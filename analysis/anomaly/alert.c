/* The alert delivery round (alert.h): queue new and reminder alerts in
 * the job database, then compose and send the due ones under the hourly
 * limit, recording each outcome. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/anomaly/alert.h"
#include "common/error.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "jobdb/alerts.h"

#define NS_PER_MS 1000000ll
#define HOUR_NS (3600 * BCN_NS_PER_SEC)

const char *const bcn_alert_severity_names[] = { "info", "warning",
						 "critical", NULL };

/* Failures come from the SMTP server and the job database: rate-limited
 * per thread (one round runs in one thread). */
static _Thread_local struct bcn_complain send_complaint = BCN_COMPLAIN_INIT;
static _Thread_local struct bcn_complain db_complaint = BCN_COMPLAIN_INIT;

struct rcpts {
	char addr[BCN_MAIL_RCPT_MAX][BCN_MAIL_ADDR_MAX + 1];
	const char *p[BCN_MAIL_RCPT_MAX];
	size_t n;
	char joined[BCN_ALERT_TO_MAX];  /* "a@x, b@y" */
};

/* Splits the comma-separated list s into r. Returns 0 or -EINVAL. */
static int parse_rcpts(const char *s, struct rcpts *r, char *err,
		       size_t errlen)
{
	size_t jl = 0;

	r->n = 0;
	r->joined[0] = '\0';
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		while (len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (len) {
			if (r->n == BCN_MAIL_RCPT_MAX || len > BCN_MAIL_ADDR_MAX)
				return bcn_fail(err, errlen, -EINVAL, "alert_to: "
						"at most %d addresses of %d bytes",
						BCN_MAIL_RCPT_MAX,
						BCN_MAIL_ADDR_MAX);
			memcpy(r->addr[r->n], s, len);
			r->addr[r->n][len] = '\0';
			if (!bcn_mail_addr_ok(r->addr[r->n]))
				return bcn_fail(err, errlen, -EINVAL, "alert_to:"
						" '%s' is not an address",
						r->addr[r->n]);
			r->p[r->n] = r->addr[r->n];
			jl += (size_t)snprintf(r->joined + jl,
					       sizeof(r->joined) - jl, "%s%s",
					       r->n ? ", " : "", r->addr[r->n]);
			jl = jl < sizeof(r->joined) ? jl : sizeof(r->joined) - 1;
			r->n++;
		}
		s += len;
		while (*s && *s != ',')
			s++;
		if (*s == ',')
			s++;
	}
	return r->n ? 0 : bcn_fail(err, errlen, -EINVAL, "alert_to: no "
				   "recipient");
}

static int check(const struct bcn_alert_config *c, struct rcpts *r,
		 char *err, size_t errlen)
{
	if (strncasecmp(c->smtp_url, "smtp://", 7) &&
	    strncasecmp(c->smtp_url, "smtps://", 8))
		return bcn_fail(err, errlen, -EINVAL, "smtp_url: must be "
				"smtp://host[:port] or smtps://host[:port]");
	if (!bcn_mail_addr_ok(c->from))
		return bcn_fail(err, errlen, -EINVAL, "alert_from: '%s' is not "
				"an address", c->from);
	if (c->retry_min_ms <= 0 || c->retry_min_ms > c->retry_max_ms)
		return bcn_fail(err, errlen, -EINVAL, "alert_retry_min must be "
				"positive and at most alert_retry_max");
	if (c->max_per_hour == 0)
		return bcn_fail(err, errlen, -EINVAL, "alert_max_per_hour: at "
				"least 1");
	return parse_rcpts(c->to, r, err, errlen);
}

int bcn_alert_config_check(const struct bcn_alert_config *c, char *err,
			   size_t errlen)
{
	struct rcpts *r;
	int rc;

	if (!c->smtp_url[0])
		return 0;
	if (!(r = malloc(sizeof(*r))))
		return bcn_fail(err, errlen, -ENOMEM, "out of memory");
	rc = check(c, r, err, errlen);
	free(r);
	return rc;
}

/* Composes and sends alert al. Returns 0 when sent, 1 when the send
 * failed (*code and err say why), or a negative job database code. */
static int deliver(const struct bcn_alert_config *c, struct bcn_jobdb *db,
		   const struct rcpts *r, const struct bcn_alert *al,
		   int64_t now, int *code, char *err, size_t errlen)
{
	struct bcn_smtp_opts o = {
		.url = c->smtp_url, .user = c->smtp_user,
		.password_file = c->smtp_password_file, .tls = c->smtp_tls,
		.ca_file = c->smtp_ca_file, .timeout_ms = c->smtp_timeout_ms,
	};
	struct bcn_mail_params p = {
		.alert_id = al->id, .seq = (unsigned)al->seq,
		.kind = strcmp(al->kind, "reminder") ? BCN_MAIL_NEW :
			BCN_MAIL_REMINDER,
		.from = c->from, .to = r->p, .nto = r->n,
		.web_url = c->web_url, .now = now,
	};
	char msgid[BCN_MAIL_MSGID_MAX];
	struct bcn_anomaly *a = malloc(sizeof(*a));
	struct bcn_buf msg;
	int rc;

	bcn_buf_init(&msg, BCN_MAIL_MAX);
	if (!a) {
		*code = -ENOMEM;
		rc = bcn_fail(err, errlen, 1, "out of memory");
		goto out;
	}
	rc = bcn_jobdb_anomaly_get(db, al->anomaly, a);
	if (rc <= 0) {
		*code = -ENOENT;
		rc = rc < 0 ? rc : bcn_fail(err, errlen, 1, "anomaly %" PRIu64
					    " not found", al->anomaly);
		goto out;
	}
	if ((*code = bcn_mail_compose(a, &p, &msg))) {
		rc = bcn_fail(err, errlen, 1, "composing: %s",
			      bcn_strerror(*code));
		goto out;
	}
	if ((*code = bcn_smtp_send(&o, c->from, r->p, r->n, &msg, err,
				   errlen))) {
		rc = 1;
		goto out;
	}
	bcn_mail_message_id(al->id, al->anomaly, c->from, msgid, sizeof(msgid));
	rc = bcn_jobdb_alert_sent(db, al->id, now, msgid, r->joined);
	rc = rc < 0 ? rc : 0;
	if (!rc)
		BCN_INFO("alert %" PRIu64 " (%s %" PRIu64 ") about anomaly %"
			 PRIu64 " sent as %s", al->id, al->kind, al->seq,
			 al->anomaly, msgid);
out:
	bcn_buf_free(&msg);
	free(a);
	return rc;
}

/* Whether a send failure means that the server cannot be reached. */
static bool unreachable(int code)
{
	return code == -ECONNREFUSED || code == -ETIMEDOUT ||
	       code == -EPROTO || code == -EACCES;
}

static int record_failure(const struct bcn_alert_config *c,
			  struct bcn_jobdb *db, const struct bcn_alert *al,
			  int64_t now, const char *err)
{
	int64_t wait = bcn_alert_backoff(al->attempts + 1,
					 c->retry_min_ms * NS_PER_MS,
					 c->retry_max_ms * NS_PER_MS);

	bcn_complain(&send_complaint, BCN_LOG_WARNING, "alert %" PRIu64
		     " about anomaly %" PRIu64 " not sent (attempt %" PRIu64
		     "), next try in %" PRId64 " s: %s", al->id, al->anomaly,
		     al->attempts + 1, (int64_t)(wait / BCN_NS_PER_SEC), err);
	return bcn_jobdb_alert_failed(db, al, now, err,
				      c->retry_min_ms * NS_PER_MS,
				      c->retry_max_ms * NS_PER_MS);
}

/* Tries the due alerts v[0..n). */
static int send_due(const struct bcn_alert_config *c, struct bcn_jobdb *db,
		    const struct rcpts *r, const struct bcn_alert *v, size_t n,
		    int64_t now, struct bcn_alert_stats *st)
{
	char err[BCN_SMTP_ERR_MAX], down[BCN_SMTP_ERR_MAX] = "";
	int64_t sent = bcn_jobdb_alerts_sent_since(db, now - HOUR_NS);
	int rc = 0, code = 0;

	if (sent < 0)
		return (int)sent;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		if ((uint64_t)sent >= c->max_per_hour) {
			st->deferred++;
			continue;
		}
		if (down[0]) {
			rc = record_failure(c, db, &v[i], now, down);
			st->failed++;
			continue;
		}
		rc = deliver(c, db, r, &v[i], now, &code, err, sizeof(err));
		if (rc == 0) {
			sent++;
			st->sent++;
			bcn_complain_release(&send_complaint, BCN_LOG_NOTICE,
					     "alert e-mails are sent again");
		} else if (rc > 0) {
			st->failed++;
			rc = record_failure(c, db, &v[i], now, err);
			if (unreachable(code))
				snprintf(down, sizeof(down), "%s", err);
		}
	}
	return rc < 0 ? rc : 0;
}

/* Queues the new and the reminder alerts. */
static int queue_all(const struct bcn_alert_config *c, struct bcn_jobdb *db,
		     int64_t now, struct bcn_alert_stats *st)
{
	int n = bcn_jobdb_alerts_queue_new(db, c->min_severity, now);

	if (n < 0)
		return n;
	st->queued += (uint64_t)n;
	n = bcn_jobdb_alerts_queue_reminders(db, c->min_severity,
					     c->remind_after_ms * NS_PER_MS,
					     now);
	if (n < 0)
		return n;
	st->queued += (uint64_t)n;
	return 0;
}

int bcn_alert_round(const struct bcn_alert_config *c, struct bcn_jobdb *db,
		    int64_t now, struct bcn_alert_stats *st)
{
	struct bcn_alert *due = NULL;
	struct rcpts *r = NULL;
	char err[BCN_SMTP_ERR_MAX];
	int rc, n;

	memset(st, 0, sizeof(*st));
	if (!c->smtp_url[0])
		return 0;
	r = malloc(sizeof(*r));
	due = calloc(BCN_ALERT_ROUND_MAX, sizeof(*due));
	if (!r || !due) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = check(c, r, err, sizeof(err)))) {
		bcn_complain(&db_complaint, BCN_LOG_ERR, "alerts: %s", err);
		goto out;
	}
	if ((rc = queue_all(c, db, now, st)))
		goto out;
	if ((n = bcn_jobdb_alerts_due(db, now, due, BCN_ALERT_ROUND_MAX)) < 0) {
		rc = n;
		goto out;
	}
	rc = send_due(c, db, r, due, (size_t)n, now, st);
out:
	if (rc < 0 && rc != -EINVAL)
		bcn_complain(&db_complaint, BCN_LOG_ERR, "alerts: %s",
			     rc == -ENOMEM ? "out of memory" :
			     bcn_jobdb_error(db));
	free(due);
	free(r);
	return rc;
}
