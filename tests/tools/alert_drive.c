/* Test driver of the alert e-mails (tests/integration/alert_smtp.sh):
 * stores anomalies, acknowledges them and runs delivery rounds at a fake
 * time given on the command line, against the job database and SMTP
 * server of a configuration file (jobdb_* and the alert keys), or sends
 * a raw message file as it is.
 *
 *   alert_drive CONF put KIND COMPONENT SEVERITY FROM TO NOW [EVIDENCE
 *               [JOB:affected|JOB:accused ...]]    prints the anomaly id
 *   alert_drive CONF ack ID NOW
 *   alert_drive CONF close ENDED_BEFORE NOW    closes what ended before
 *   alert_drive CONF round NOW [key=value ...]     prints the counts
 *   alert_drive CONF send FILE [key=value ...]     bcn_smtp_send of FILE
 *
 * Times are seconds since the epoch. Exit 0, or 1 with a message. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/alert.h"
#include "analysis/anomaly/smtp.h"
#include "common/buf.h"
#include "common/config.h"
#include "common/error.h"
#include "common/log.h"
#include "jobdb/anomalies.h"
#include "jobdb/jobdb.h"

#define NS 1000000000ll

struct drive_conf {
	struct bcn_jobdb_config db;
	struct bcn_alert_config alert;
};

static const struct bcn_config_opt options[] = {
	BCN_JOBDB_CONFIG_OPTIONS(struct drive_conf, db),
	BCN_ALERT_CONFIG_OPTIONS(struct drive_conf, alert),
	{ .name = NULL }
};

static int64_t secs(const char *s)
{
	return strtoll(s, NULL, 10) * NS;
}

/* Applies "key=value" arguments. */
static int overrides(struct drive_conf *c, int argc, char **argv)
{
	char err[BCN_CFG_ERR_MAX];

	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "alert_drive: '%s' is not key=value\n",
				argv[i]);
			return -EINVAL;
		}
		*eq = '\0';
		if (bcn_config_set(options, c, argv[i], eq + 1, err,
				   sizeof(err))) {
			fprintf(stderr, "alert_drive: %s\n", err);
			return -EINVAL;
		}
	}
	return 0;
}

static int put(struct bcn_jobdb *db, int argc, char **argv)
{
	struct bcn_anomaly *a = calloc(1, sizeof(*a));
	int rc;

	if (!a || argc < 6)
		return -EINVAL;
	snprintf(a->kind, sizeof(a->kind), "%s", argv[0]);
	snprintf(a->component, sizeof(a->component), "%s", argv[1]);
	snprintf(a->severity, sizeof(a->severity), "%s", argv[2]);
	a->from = secs(argv[3]);
	a->to = secs(argv[4]);
	snprintf(a->evidence, sizeof(a->evidence), "%s",
		 argc > 6 ? argv[6] : "{}");
	for (int i = 7; i < argc && a->njobs < BCN_ANOMALY_JOBS_MAX; i++) {
		a->jobs[a->njobs].job = strtoull(argv[i], NULL, 10);
		a->jobs[a->njobs++].role = strstr(argv[i], ":accused") ?
			BCN_ANOMALY_ACCUSED : BCN_ANOMALY_AFFECTED;
	}
	rc = bcn_jobdb_anomaly_put(db, a, 600 * NS, secs(argv[5]));
	if (rc > 0) {
		printf("%" PRIu64 "\n", a->id);
		rc = 0;
	}
	free(a);
	return rc;
}

static int round_at(struct drive_conf *c, struct bcn_jobdb *db, int argc,
		    char **argv)
{
	struct bcn_alert_stats st;
	int rc;

	if (argc < 1 || overrides(c, argc - 1, argv + 1))
		return -EINVAL;
	rc = bcn_alert_round(&c->alert, db, secs(argv[0]), &st);
	printf("queued %" PRIu64 " sent %" PRIu64 " failed %" PRIu64
	       " deferred %" PRIu64 "\n", st.queued, st.sent, st.failed,
	       st.deferred);
	return rc;
}

static int send_file(struct drive_conf *c, int argc, char **argv)
{
	const struct bcn_alert_config *a = &c->alert;
	struct bcn_smtp_opts o = {
		.url = a->smtp_url, .user = a->smtp_user,
		.password_file = a->smtp_password_file, .tls = a->smtp_tls,
		.ca_file = a->smtp_ca_file, .timeout_ms = a->smtp_timeout_ms,
	};
	const char *to[1] = { a->to };
	char err[BCN_SMTP_ERR_MAX];
	struct bcn_buf msg;
	int rc;

	if (argc < 1 || overrides(c, argc - 1, argv + 1))
		return -EINVAL;
	bcn_buf_init(&msg, BCN_MAIL_MAX);
	rc = bcn_buf_read_file(&msg, argv[0]);
	if (!rc && (rc = bcn_smtp_send(&o, a->from, to, 1, &msg, err,
				       sizeof(err))))
		fprintf(stderr, "alert_drive: %s\n", err);
	bcn_buf_free(&msg);
	return rc;
}

int main(int argc, char **argv)
{
	struct drive_conf c;
	struct bcn_jobdb *db = NULL;
	char err[512];
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: alert_drive CONF put|ack|round|send ...\n");
		return 1;
	}
	bcn_log_open(argv[0], BCN_LOG_DEST_STDERR, BCN_LOG_INFO);
	if (bcn_config_defaults(options, &c, err, sizeof(err)) ||
	    bcn_config_load(options, &c, argv[1], err, sizeof(err))) {
		fprintf(stderr, "alert_drive: %s\n", err);
		return 1;
	}
	if (!strcmp(argv[2], "send"))
		return send_file(&c, argc - 3, argv + 3) ? 1 : 0;
	if (bcn_jobdb_open(&c.db, &db, err, sizeof(err))) {
		fprintf(stderr, "alert_drive: %s\n", err);
		return 1;
	}
	if (!strcmp(argv[2], "put"))
		rc = put(db, argc - 3, argv + 3);
	else if (!strcmp(argv[2], "ack") && argc == 5)
		rc = bcn_jobdb_anomaly_ack(db, strtoull(argv[3], NULL, 10),
					   "tester", secs(argv[4])) == 1 ? 0 : -ENOENT;
	else if (!strcmp(argv[2], "close") && argc == 5)
		rc = bcn_jobdb_anomaly_close_ended(db, secs(argv[3]),
						   secs(argv[4]));
	else if (!strcmp(argv[2], "round"))
		rc = round_at(&c, db, argc - 3, argv + 3);
	else
		rc = -EINVAL;
	rc = rc > 0 ? 0 : rc;
	if (rc)
		fprintf(stderr, "alert_drive: %s: %s\n", bcn_strerror(rc),
			bcn_jobdb_error(db));
	bcn_jobdb_close(db);
	return rc ? 1 : 0;
}
