/* Unit tests of jobdb/alerts against a private mariadbd (tests/unit/
 * mariadb_fixture.h): queueing the new alerts is idempotent and honours
 * the least severity; reminders come after remind_after and not before,
 * one at a time, numbered, and none for acknowledged or closed
 * anomalies; the due list is oldest first and bounded; a failure keeps
 * the alert queued with its error and a backoff that grows and caps;
 * sends are counted for the hourly limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobdb/alerts.h"
#include "jobdb/anomalies.h"
#include "mariadb_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define H(x) S((int64_t)(x) * 3600)
#define T0 S(1795000000)

static struct mdb m;
static struct bcn_jobdb *db;

static int setup(void **state)
{
	char err[512];

	(void)state;
	if (!mdb_installed()) {
		fprintf(stderr, "alerts_test: mariadbd is not installed\n");
		return -1;
	}
	if (mdb_start(&m))
		return -1;
	if (bcn_jobdb_open(&m.cfg, &db, err, sizeof(err))) {
		fprintf(stderr, "alerts_test: %s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bcn_jobdb_close(db);
	mdb_stop(&m);
	return 0;
}

/* Each test starts from empty tables. */
static int empty(void **state)
{
	static const char *const sql[] = { "DELETE FROM beacon.alerts",
		"DELETE FROM beacon.anomaly_jobs",
		"DELETE FROM beacon.anomalies", NULL };

	(void)state;
	return mdb_root(&m, sql);
}

static uint64_t put(const char *component, const char *severity,
		    int64_t from, int64_t to)
{
	struct bcn_anomaly a;

	memset(&a, 0, sizeof(a));
	snprintf(a.kind, sizeof(a.kind), "slow_ost");
	snprintf(a.component, sizeof(a.component), "%s", component);
	snprintf(a.severity, sizeof(a.severity), "%s", severity);
	snprintf(a.evidence, sizeof(a.evidence), "{}");
	a.from = from;
	a.to = to;
	assert_true(bcn_jobdb_anomaly_put(db, &a, S(600), to) > 0);
	return a.id;
}

static int alerts_of(uint64_t anomaly, struct bcn_alert *v, size_t max)
{
	int n = bcn_jobdb_alerts_of(db, anomaly, v, max);

	assert_true(n >= 0);
	return n;
}

static void test_queue_new(void **state)
{
	uint64_t a = put("ost1", "warning", T0, T0 + H(1));
	uint64_t b = put("ost2", "critical", T0, T0 + H(1));
	uint64_t c = put("ost3", "info", T0, T0 + H(1));
	struct bcn_alert v[4];

	(void)state;
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(1)), 2);
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(2)), 0);
	assert_int_equal(alerts_of(a, v, 4), 1);
	assert_string_equal(v[0].kind, "new");
	assert_int_equal(v[0].seq, 0);
	assert_string_equal(v[0].state, "queued");
	assert_int_equal(v[0].queued, T0 + H(1));
	assert_int_equal(v[0].next_try, T0 + H(1));
	assert_int_equal(v[0].attempts, 0);
	assert_int_equal(alerts_of(b, v, 4), 1);
	assert_int_equal(alerts_of(c, v, 4), 0);       /* below warning */
	/* the same anomaly going on is not new */
	put("ost1", "warning", T0 + H(1), T0 + H(3));
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(3)), 0);
	/* an info anomaly that becomes critical is mailed then */
	put("ost3", "critical", T0 + H(1), T0 + H(3));
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(3)), 1);
	/* with info as the least severity, nothing is left */
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 0, T0 + H(3)), 0);
	assert_int_equal(bcn_alert_severity_rank("critical"), 2);
	assert_int_equal(bcn_alert_severity_rank("warning"), 1);
	assert_int_equal(bcn_alert_severity_rank("info"), 0);
	assert_int_equal(bcn_alert_severity_rank("bogus"), 0);
}

static void test_reminders(void **state)
{
	uint64_t a = put("ost1", "warning", T0, T0 + H(1));
	int64_t remind = H(96);
	struct bcn_alert v[8];

	(void)state;
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(1)), 1);
	/* nothing while the new alert waits */
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(200)), 0);
	assert_int_equal(alerts_of(a, v, 8), 1);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[0].id, T0 + H(2),
					      "<m1@x>", "a@b"), 1);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[0].id, T0 + H(2),
					      "<m1@x>", "a@b"), 0);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(97)), 0);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(98) - 1), 0);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(98)), 1);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(300)), 0);
	assert_int_equal(alerts_of(a, v, 8), 2);
	assert_string_equal(v[1].kind, "reminder");
	assert_int_equal(v[1].seq, 1);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[1].id, T0 + H(99),
					      "<m2@x>", "a@b"), 1);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(99 + 96)), 1);
	assert_int_equal(alerts_of(a, v, 8), 3);
	assert_int_equal(v[2].seq, 2);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[2].id, T0 + H(195),
					      "<m3@x>", "a@b"), 1);
	/* a reminder queued, then the anomaly acknowledged before it went
	 * out: it is not due, and no more are queued */
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(195 + 96)), 1);
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(195 + 96), v, 8), 1);
	assert_string_equal(v[0].kind, "reminder");
	assert_int_equal(bcn_jobdb_anomaly_ack(db, a, "root", T0 + H(292)), 1);
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(400), v, 8), 0);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, remind,
							  T0 + H(400)), 0);
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(400)), 0);
}

static void test_closed(void **state)
{
	uint64_t a = put("ost1", "warning", T0, T0 + H(1));
	struct bcn_alert v[4];

	(void)state;
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(1)), 1);
	assert_int_equal(alerts_of(a, v, 4), 1);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[0].id, T0 + H(1), "<m@x>",
					      "a@b"), 1);
	assert_int_equal(bcn_jobdb_anomaly_close_ended(db, T0 + H(2),
						       T0 + H(3)), 1);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, H(96),
							  T0 + H(500)), 0);
	/* a closed anomaly that was never mailed is not mailed either */
	put("ost9", "critical", T0, T0 + H(1));
	assert_int_equal(bcn_jobdb_anomaly_close_ended(db, T0 + H(2),
						       T0 + H(3)), 1);
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(3)), 0);
	/* a low severity anomaly gets no reminder */
	a = put("ost2", "warning", T0 + H(10), T0 + H(11));
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, T0 + H(11)), 1);
	assert_int_equal(alerts_of(a, v, 4), 1);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[0].id, T0 + H(11), "<m@x>",
					      "a@b"), 1);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 2, H(96),
							  T0 + H(500)), 0);
	assert_int_equal(bcn_jobdb_alerts_queue_reminders(db, 1, H(96),
							  T0 + H(500)), 1);
}

static void test_due_order(void **state)
{
	struct bcn_alert v[8], f;
	uint64_t ids[5];

	(void)state;
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "ost%d", i);
		ids[i] = put(name, "warning", T0, T0 + H(1));
		assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1,
							    T0 + H(1) + i), 1);
	}
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(1) + 2, v, 8), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(v[i].anomaly, ids[i]);
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(2), v, 2), 2);
	assert_int_equal(v[0].anomaly, ids[0]);
	assert_int_equal(v[1].anomaly, ids[1]);
	/* the oldest fails: no longer due, the others move up, and once
	 * due again it comes first */
	f = v[0];
	assert_int_equal(bcn_jobdb_alert_failed(db, &f, T0 + H(2), "refused",
						S(60), S(3600)), 1);
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(2), v, 8), 4);
	assert_int_equal(v[0].anomaly, ids[1]);
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(2) + S(60), v, 8), 5);
	assert_int_equal(v[0].anomaly, ids[0]);
	/* sent ones are not due; and they are counted */
	assert_int_equal(bcn_jobdb_alert_sent(db, v[1].id, T0 + H(3), "<a@x>",
					      "a@b"), 1);
	assert_int_equal(bcn_jobdb_alert_sent(db, v[2].id, T0 + H(4), "<b@x>",
					      "a@b"), 1);
	assert_int_equal(bcn_jobdb_alerts_due(db, T0 + H(5), v, 8), 3);
	assert_int_equal(bcn_jobdb_alerts_sent_since(db, T0 + H(3)), 2);
	assert_int_equal(bcn_jobdb_alerts_sent_since(db, T0 + H(3) + 1), 1);
	assert_int_equal(bcn_jobdb_alerts_sent_since(db, T0 + H(5)), 0);
}

static void test_backoff(void **state)
{
	static const int64_t want[] = { 60, 120, 240, 480, 960, 1920, 3600,
					3600, 3600 };
	uint64_t a = put("ost1", "critical", T0, T0 + H(1));
	int64_t now = T0 + H(1);
	struct bcn_alert v[2];
	char err[2000];

	(void)state;
	assert_int_equal(bcn_jobdb_alerts_queue_new(db, 1, now), 1);
	memset(err, 'e', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
	err[5] = '\n';
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(alerts_of(a, v, 2), 1);
		assert_int_equal(v[0].attempts, i);
		assert_int_equal(bcn_jobdb_alert_failed(db, &v[0], now, err,
							S(60), S(3600)), 1);
		assert_int_equal(alerts_of(a, v, 2), 1);
		assert_string_equal(v[0].state, "queued");
		assert_int_equal(v[0].attempts, i + 1);
		assert_int_equal(v[0].last_try, now);
		assert_int_equal(v[0].next_try - now, S(want[i]));
		now = v[0].next_try;
	}
	assert_int_equal(strlen(v[0].last_error), BCN_ALERT_ERROR_MAX - 1);
	assert_int_equal(v[0].last_error[5], '?');
	assert_int_equal(bcn_alert_backoff(1, S(60), S(3600)), S(60));
	assert_int_equal(bcn_alert_backoff(3, S(60), S(3600)), S(240));
	assert_int_equal(bcn_alert_backoff(1000, S(60), S(3600)), S(3600));
	assert_int_equal(bcn_alert_backoff(200, S(1), INT64_MAX), INT64_MAX);
	/* a sent alert is not failed afterwards */
	assert_int_equal(bcn_jobdb_alert_sent(db, v[0].id, now, "<m@x>", "a@b"),
			 1);
	assert_int_equal(bcn_jobdb_alert_failed(db, &v[0], now, "late",
						S(60), S(3600)), 0);
	assert_int_equal(alerts_of(a, v, 2), 1);
	assert_string_equal(v[0].state, "sent");
	assert_int_equal(v[0].sent, now);
	assert_string_equal(v[0].message_id, "<m@x>");
	assert_string_equal(v[0].recipients, "a@b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_queue_new, empty),
		cmocka_unit_test_setup(test_reminders, empty),
		cmocka_unit_test_setup(test_closed, empty),
		cmocka_unit_test_setup(test_due_order, empty),
		cmocka_unit_test_setup(test_backoff, empty),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
