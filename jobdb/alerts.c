/* The alert queue in the job database (jobdb/alerts.h): queueing new
 * and reminder alerts idempotently, the due list, recording sends and
 * failures with a capped exponential backoff, all through prepared
 * statements. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jobdb/alerts.h"
#include "jobdb/jobdb_int.h"

enum {
	AL_QUEUE_NEW = BCN_JOBDB_LAZY_ALERT, AL_QUEUE_REMIND, AL_DUE, AL_OF,
	AL_SENT, AL_FAILED, AL_SENT_SINCE,
	AL_END
};
_Static_assert(AL_END <= BCN_JOBDB_LAZY_ALERT + 16, "alert slots");

#define COLS "id, anomaly, kind, seq, queued_ns, state, attempts," \
	" next_try_ns, last_try_ns, sent_ns, recipients, message_id, last_error"
#define RANK "(CASE a.severity WHEN 'critical' THEN 2 WHEN 'warning'" \
	" THEN 1 ELSE 0 END)"

static const char sql_queue_new[] = "INSERT IGNORE INTO alerts (anomaly,"
	" kind, seq, queued_ns, state, next_try_ns) SELECT a.id, 'new', 0, ?,"
	" 'queued', ? FROM anomalies a WHERE a.state = 'open' AND " RANK
	" >= ? AND NOT EXISTS (SELECT 1 FROM alerts l WHERE l.anomaly = a.id"
	" AND l.kind = 'new')";
static const char sql_queue_remind[] = "INSERT IGNORE INTO alerts (anomaly,"
	" kind, seq, queued_ns, state, next_try_ns) SELECT a.id, 'reminder',"
	" l.n, ?, 'queued', ? FROM anomalies a JOIN (SELECT anomaly,"
	" COUNT(*) AS n, MAX(sent_ns) AS last_sent, SUM(state <> 'sent') AS"
	" pending FROM alerts GROUP BY anomaly) l ON l.anomaly = a.id"
	" WHERE a.state = 'open' AND " RANK " >= ? AND l.pending = 0 AND"
	" l.last_sent <= ?";
/* A reminder queued before its anomaly was acknowledged or closed is not
 * due: it waits (and is never sent) rather than reminding of a settled
 * anomaly. */
static const char sql_due[] = "SELECT " COLS " FROM alerts WHERE"
	" state = 'queued' AND next_try_ns <= ? AND (kind <> 'reminder' OR"
	" anomaly IN (SELECT id FROM anomalies WHERE state = 'open'))"
	" ORDER BY queued_ns, id LIMIT ?";
static const char sql_of[] = "SELECT " COLS " FROM alerts WHERE"
	" (? = 0 OR anomaly = ?) ORDER BY id LIMIT ?";
static const char sql_sent[] = "UPDATE alerts SET state = 'sent',"
	" sent_ns = ?, last_try_ns = ?, message_id = ?, recipients = ?"
	" WHERE id = ? AND state = 'queued'";
static const char sql_failed[] = "UPDATE alerts SET attempts = attempts + 1,"
	" last_try_ns = ?, next_try_ns = ?, last_error = ? WHERE id = ? AND"
	" state = 'queued'";
static const char sql_sent_since[] = "SELECT COUNT(*) FROM alerts WHERE"
	" sent_ns >= ? AND state = 'sent'";

int bcn_alert_severity_rank(const char *s)
{
	return !strcmp(s, "critical") ? 2 : !strcmp(s, "warning") ? 1 : 0;
}

/* Runs an INSERT ... SELECT that queues alerts; returns how many. */
static int queue(struct bcn_jobdb *db, int slot, const char *sql,
		 int64_t now, int min_rank, const int64_t *sent_before)
{
	int64_t rank = min_rank;
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &rank);
	if (sent_before)
		bcn_jobdb_b_i64(&x, sent_before);
	if ((rc = bcn_jobdb_lazy_exec(db, slot, sql, &x, &s)))
		return rc;
	return (int)mysql_stmt_affected_rows(s);
}

int bcn_jobdb_alerts_queue_new(struct bcn_jobdb *db, int min_rank,
			       int64_t now)
{
	return queue(db, AL_QUEUE_NEW, sql_queue_new, now, min_rank, NULL);
}

int bcn_jobdb_alerts_queue_reminders(struct bcn_jobdb *db, int min_rank,
				     int64_t remind_after, int64_t now)
{
	int64_t before = remind_after > 0 && now > INT64_MIN + remind_after ?
			 now - remind_after : now;

	return queue(db, AL_QUEUE_REMIND, sql_queue_remind, now, min_rank,
		     &before);
}

static void bind_row(struct binds *r, struct bcn_alert *a)
{
	bcn_jobdb_binds_init(r);
	bcn_jobdb_b_u64(r, &a->id);
	bcn_jobdb_b_u64(r, &a->anomaly);
	bcn_jobdb_b_str(r, a->kind, sizeof(a->kind) - 1);
	bcn_jobdb_b_u64(r, &a->seq);
	bcn_jobdb_b_i64(r, &a->queued);
	bcn_jobdb_b_str(r, a->state, sizeof(a->state) - 1);
	bcn_jobdb_b_u64(r, &a->attempts);
	bcn_jobdb_b_i64(r, &a->next_try);
	bcn_jobdb_b_i64(r, &a->last_try);
	bcn_jobdb_b_i64(r, &a->sent);
	bcn_jobdb_b_str(r, a->recipients, sizeof(a->recipients) - 1);
	bcn_jobdb_b_str(r, a->message_id, sizeof(a->message_id) - 1);
	bcn_jobdb_b_str(r, a->last_error, sizeof(a->last_error) - 1);
}

static void fix_row(const struct binds *r, struct bcn_alert *a)
{
	bcn_jobdb_str_fix(r, 2, a->kind, sizeof(a->kind));
	bcn_jobdb_str_fix(r, 5, a->state, sizeof(a->state));
	bcn_jobdb_str_fix(r, 10, a->recipients, sizeof(a->recipients));
	bcn_jobdb_str_fix(r, 11, a->message_id, sizeof(a->message_id));
	bcn_jobdb_str_fix(r, 12, a->last_error, sizeof(a->last_error));
}

/* Fetches the rows of the executed statement s into out (at most max). */
static int fetch(struct bcn_jobdb *db, MYSQL_STMT *s, struct bcn_alert *out,
		 size_t max)
{
	struct bcn_alert row;
	struct binds r;
	size_t n = 0;
	int rc;

	memset(&row, 0, sizeof(row));
	bind_row(&r, &row);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		fix_row(&r, &row);
		if (n < max)
			out[n++] = row;
	}
	mysql_stmt_free_result(s);
	if (rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return (int)n;
}

int bcn_jobdb_alerts_due(struct bcn_jobdb *db, int64_t now,
			 struct bcn_alert *out, size_t max)
{
	uint64_t limit = max;
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	if (!max)
		return 0;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_u64(&x, &limit);
	if ((rc = bcn_jobdb_lazy_exec(db, AL_DUE, sql_due, &x, &s)))
		return rc;
	return fetch(db, s, out, max);
}

int bcn_jobdb_alerts_of(struct bcn_jobdb *db, uint64_t anomaly,
			struct bcn_alert *out, size_t max)
{
	uint64_t limit = max;
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	if (!max)
		return 0;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &anomaly);
	bcn_jobdb_b_u64(&x, &anomaly);
	bcn_jobdb_b_u64(&x, &limit);
	if ((rc = bcn_jobdb_lazy_exec(db, AL_OF, sql_of, &x, &s)))
		return rc;
	return fetch(db, s, out, max);
}

/* s cut to at most max bytes of printable ASCII into out (max + 1). */
static void cut(const char *s, char *out, size_t max)
{
	size_t n = 0;

	for (; s && *s && n < max; s++)
		out[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	out[n] = '\0';
}

int bcn_jobdb_alert_sent(struct bcn_jobdb *db, uint64_t id, int64_t now,
			 const char *message_id, const char *recipients)
{
	char mid[BCN_ALERT_MSGID_MAX + 1], rcpt[BCN_ALERT_RCPTS_MAX];
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	cut(message_id, mid, sizeof(mid) - 1);
	cut(recipients, rcpt, sizeof(rcpt) - 1);
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_str(&x, mid, 0);
	bcn_jobdb_b_str(&x, rcpt, 0);
	bcn_jobdb_b_u64(&x, &id);
	if ((rc = bcn_jobdb_lazy_exec(db, AL_SENT, sql_sent, &x, &s)))
		return rc;
	return mysql_stmt_affected_rows(s) > 0 ? 1 : 0;
}

int64_t bcn_alert_backoff(uint64_t attempts, int64_t retry_min,
			  int64_t retry_max)
{
	int64_t d = retry_min > 0 ? retry_min : 1;

	for (uint64_t i = 1; i < attempts && d < retry_max; i++)
		d = d > INT64_MAX / 2 ? INT64_MAX : d * 2;
	return d < retry_max ? d : retry_max > 0 ? retry_max : d;
}

int bcn_jobdb_alert_failed(struct bcn_jobdb *db, const struct bcn_alert *al,
			   int64_t now, const char *error, int64_t retry_min,
			   int64_t retry_max)
{
	int64_t wait = bcn_alert_backoff(al->attempts + 1, retry_min, retry_max);
	int64_t next = now < INT64_MAX - wait ? now + wait : INT64_MAX;
	char msg[BCN_ALERT_ERROR_MAX];
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	cut(error, msg, sizeof(msg) - 1);
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &next);
	bcn_jobdb_b_str(&x, msg, 0);
	bcn_jobdb_b_u64(&x, &al->id);
	if ((rc = bcn_jobdb_lazy_exec(db, AL_FAILED, sql_failed, &x, &s)))
		return rc;
	return mysql_stmt_affected_rows(s) > 0 ? 1 : 0;
}

int64_t bcn_jobdb_alerts_sent_since(struct bcn_jobdb *db, int64_t since)
{
	int64_t n = 0;
	MYSQL_STMT *s;
	struct binds x, r;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &since);
	if ((rc = bcn_jobdb_lazy_exec(db, AL_SENT_SINCE, sql_sent_since, &x,
				      &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_i64(&r, &n);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_sfail(db, s);
	rc = mysql_stmt_fetch(s);
	mysql_stmt_free_result(s);
	if (rc != 0 && rc != MYSQL_DATA_TRUNCATED)
		return bcn_jobdb_sfail(db, s);
	return n;
}
