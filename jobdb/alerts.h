/* The alert e-mails of anomalies in the job database (docs/alerts.md):
 * a queue in the table alerts, one row per message, that keeps every
 * message until it is sent. A 'new' alert is queued once per anomaly,
 * reminder N when the anomaly is still open long after the last message
 * (the UNIQUE key (anomaly, kind, seq) makes queueing idempotent); a
 * failed send stays queued and is retried forever, with a backoff that
 * doubles up to a cap. Nothing is ever deleted. */
#ifndef BCN_JOBDB_ALERTS_H
#define BCN_JOBDB_ALERTS_H

#include <stddef.h>
#include <stdint.h>

#include "jobdb/jobdb.h"

#define BCN_ALERT_KIND_MAX 16
#define BCN_ALERT_STATE_MAX 16
#define BCN_ALERT_RCPTS_MAX 1024        /* the recipients column */
#define BCN_ALERT_MSGID_MAX 255
#define BCN_ALERT_ERROR_MAX 1024        /* last_error, cut to fit */

/* One row of alerts. */
struct bcn_alert {
	uint64_t id;
	uint64_t anomaly;
	char kind[BCN_ALERT_KIND_MAX];  /* "new" or "reminder" */
	uint64_t seq;                   /* 0 for new, N for reminder N */
	int64_t queued;                 /* ns */
	char state[BCN_ALERT_STATE_MAX]; /* "queued" or "sent" */
	uint64_t attempts;              /* failed sends so far */
	int64_t next_try, last_try, sent; /* ns; 0 when not */
	char recipients[BCN_ALERT_RCPTS_MAX];
	char message_id[BCN_ALERT_MSGID_MAX + 1];
	char last_error[BCN_ALERT_ERROR_MAX];
};

/* The rank of a severity: info 0, warning 1, critical 2 (unknown: 0). */
int bcn_alert_severity_rank(const char *severity);

/* Queues the 'new' alert, due at now, of every open anomaly whose
 * severity ranks at least min_rank and that has none. Returns how many
 * were queued (0 when run again), or a negative code. */
int bcn_jobdb_alerts_queue_new(struct bcn_jobdb *db, int min_rank,
			       int64_t now);

/* Queues the next reminder, due at now, of every anomaly still 'open'
 * (neither acknowledged nor closed) whose severity ranks at least
 * min_rank, whose every alert is sent and whose last one was sent at
 * least remind_after ns before now. Reminder N gets seq N. Returns how
 * many were queued, or a negative code. */
int bcn_jobdb_alerts_queue_reminders(struct bcn_jobdb *db, int min_rank,
				     int64_t remind_after, int64_t now);

/* The queued alerts due at now (next try at or before it), oldest
 * first (queued, then id), at most max into out. Returns how many, or a
 * negative code. */
int bcn_jobdb_alerts_due(struct bcn_jobdb *db, int64_t now,
			 struct bcn_alert *out, size_t max);

/* The alerts of anomaly (0: of all), by id, at most max into out.
 * Returns how many, or a negative code. */
int bcn_jobdb_alerts_of(struct bcn_jobdb *db, uint64_t anomaly,
			struct bcn_alert *out, size_t max);

/* Records that queued alert id was sent at now as message_id to
 * recipients (cut to fit). Returns 1, 0 when no queued alert has that
 * id, or a negative code. */
int bcn_jobdb_alert_sent(struct bcn_jobdb *db, uint64_t id, int64_t now,
			 const char *message_id, const char *recipients);

/* The wait before the next try after the attempts-th failed send
 * (attempts >= 1): retry_min doubled attempts - 1 times, at most
 * retry_max (ns; retry_min > 0). */
int64_t bcn_alert_backoff(uint64_t attempts, int64_t retry_min,
			  int64_t retry_max);

/* Records a failed send of queued alert al at now: one more attempt,
 * the error (cut to fit), the next try after bcn_alert_backoff. The
 * alert stays queued. Returns 1, 0 when it is not queued, or < 0. */
int bcn_jobdb_alert_failed(struct bcn_jobdb *db, const struct bcn_alert *al,
			   int64_t now, const char *error, int64_t retry_min,
			   int64_t retry_max);

/* How many alerts were sent at or after since. Returns the count, or a
 * negative code. */
int64_t bcn_jobdb_alerts_sent_since(struct bcn_jobdb *db, int64_t since);

#endif
