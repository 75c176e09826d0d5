/* beacon anomalies [--config FILE] [--since T] [--until T] [--kind K]
 * [--state S] [--job ID] [--limit N] [--json]: the anomalies of the job
 * database (docs/anomaly.md), latest first, as a table or one JSON
 * object per line; `beacon anomalies ack ID [--user NAME]` acknowledges
 * one; `beacon anomalies detect [--at T]` runs one round of the
 * component detectors over the record store now (beacon-analyzd does it
 * every detect_interval). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/catchup.h"
#include "analysis/anomaly/detect.h"
#include "analysis/anomaly/jobcheck.h"
#include "analysis/stores.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/clock.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/text.h"
#include "common/timefmt.h"
#include "jobdb/anomalies.h"
#include "store/store_config.h"

#define ERR_MAX 512

struct an_conf {
	struct bcn_store_settings store;
	struct bcn_stores_config stores;
	struct bcn_jobdb_config db;
	struct bcn_detect_config det;
	struct bcn_catchup_config cu;
	struct bcn_jobcheck_config jc;         /* known keys; used by analyzd */
	char since[BCN_TIMEFMT_IN_MAX + 1], until[BCN_TIMEFMT_IN_MAX + 1];
	char at[BCN_TIMEFMT_IN_MAX + 1];
	char kind[BCN_ANOMALY_KIND_MAX], state[BCN_ANOMALY_STATE_MAX];
	char user[BCN_ANOMALY_USER_MAX];
	uint64_t job, limit;
	bool json;
};

#define M(m) BCN_CFG_MEMBER(struct an_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_STORE_CONFIG_OPTIONS(struct an_conf, store),
	BCN_STORES_CONFIG_OPTIONS(struct an_conf, stores),
	BCN_JOBDB_CONFIG_OPTIONS(struct an_conf, db),
	BCN_DETECT_CONFIG_OPTIONS(struct an_conf, det),
	BCN_CATCHUP_CONFIG_OPTIONS(struct an_conf, cu),
	BCN_JOBCHECK_CONFIG_OPTIONS(struct an_conf, jc),
	{ "since", BCN_CFG_STRING, M(since),
	  .help = "Anomalies whose window reaches T or later (epoch seconds "
		  "or ISO 8601)." },
	{ "until", BCN_CFG_STRING, M(until),
	  .help = "Anomalies whose window starts before T." },
	{ "kind", BCN_CFG_STRING, M(kind),
	  .help = "Only this kind (slow_ost, slow_fwd, straggler, "
		  "job_slowdown, interference, cache_thrash, md_storm, "
		  "hot_switch)." },
	{ "state", BCN_CFG_STRING, M(state),
	  .help = "Only this state (open, acknowledged, closed)." },
	{ "job", BCN_CFG_UINT, M(job), .help = "Only anomalies naming this job." },
	{ "limit", BCN_CFG_UINT, M(limit), .min = 1, .max = 1000000,
	  .def = "1000", .help = "At most this many." },
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "One JSON object per anomaly." },
	{ "user", BCN_CFG_STRING, M(user), .def = "",
	  .help = "ack: who acknowledges (default: $USER)." },
	{ "at", BCN_CFG_STRING, M(at),
	  .help = "detect: one round over the window ending at T (default: "
		  "every complete interval not yet examined, as beacon-analyzd "
		  "does)." },
	{ .name = NULL }
};
#undef M

static int print_json(const struct bcn_anomaly *a)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, 1u << 20);
	rc = bcn_anomaly_to_json(a, &b);
	if (!rc)
		rc = bcn_buf_adds(&b, "\n");
	if (!rc && fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc;
}

static int print_row(void *arg, const struct bcn_anomaly *a)
{
	const struct an_conf *c = arg;
	char from[BCN_TIMEFMT_OUT_MAX], to[BCN_TIMEFMT_OUT_MAX];
	char comp[BCN_ANOMALY_COMPONENT_MAX], jobs[96] = "";
	size_t n = 0;

	if (c->json)
		return print_json(a);
	if (bcn_timefmt_format(a->from, from, sizeof(from)))
		snprintf(from, sizeof(from), "?");
	if (bcn_timefmt_format(a->to, to, sizeof(to)))
		snprintf(to, sizeof(to), "?");
	snprintf(comp, sizeof(comp), "%s", a->component);
	bcn_text_defang(comp, strlen(comp));
	for (size_t i = 0; i < a->njobs && n < sizeof(jobs) - 24; i++)
		n += (size_t)snprintf(jobs + n, sizeof(jobs) - n, "%s%" PRIu64 "%s",
				      i ? "," : "", a->jobs[i].job,
				      a->jobs[i].role == BCN_ANOMALY_ACCUSED ?
				      "!" : "");
	printf("%-6" PRIu64 " %-13s %-24s %-20s %-20s %-8s %-12s %s\n", a->id,
	       a->kind, comp, from, to, a->severity, a->state,
	       n ? jobs : "-");
	return 0;
}

static int parse_time(const char *what, const char *s, int64_t *ns, char *err)
{
	if (s[0] && bcn_timefmt_parse(s, strlen(s), ns))
		return bcn_fail(err, ERR_MAX, -BCN_ESYNTAX, "--%s: bad time '%s' "
				"(epoch seconds or ISO 8601)", what, s);
	return 0;
}

static int list(struct an_conf *c, struct bcn_jobdb *db, char *err)
{
	struct bcn_anomaly_filter f = {
		.kind = c->kind, .state = c->state, .job = c->job,
		.limit = c->limit,
	};
	int rc = parse_time("since", c->since, &f.since, err);

	if (!rc)
		rc = parse_time("until", c->until, &f.until, err);
	if (rc)
		return rc;
	if (!c->json)
		printf("%-6s %-13s %-24s %-20s %-20s %-8s %-12s %s\n", "ID",
		       "KIND", "COMPONENT", "FROM", "TO", "SEVERITY", "STATE",
		       "JOBS (! accused)");
	rc = bcn_jobdb_anomalies(db, &f, print_row, c);
	if (rc < 0)
		bcn_seterr(err, ERR_MAX, "%s", bcn_jobdb_error(db));
	return rc;
}

static int ack(struct an_conf *c, struct bcn_jobdb *db, const char *idarg,
	       char *err)
{
	const char *user = c->user[0] ? c->user : getenv("USER");
	uint64_t id;
	int rc;

	if (!idarg || bcn_text_u64_all(idarg, strlen(idarg), &id) || !id)
		return bcn_fail(err, ERR_MAX, -BCN_ESYNTAX, "ack: want an "
				"anomaly id");
	rc = bcn_jobdb_anomaly_ack(db, id, user ? user : "?", bcn_real_ns());
	if (rc < 0)
		return bcn_fail(err, ERR_MAX, rc, "%s", bcn_jobdb_error(db));
	if (rc == 0)
		return bcn_fail(err, ERR_MAX, -ENOENT, "no open anomaly %" PRIu64,
				id);
	printf("anomaly %" PRIu64 " acknowledged\n", id);
	return 0;
}

/* Every complete interval not yet examined or changed since, as
 * beacon-analyzd's checks do, until none is left. */
static int catch_up(struct an_conf *c, const struct bcn_stores *st,
		    struct bcn_jobdb *db, char *err)
{
	struct bcn_catchup_stats cs;
	struct bcn_catchup *cu = NULL;
	int rc;

	memset(&cs, 0, sizeof(cs));
	if (!c->cu.interval_ms)
		c->cu.interval_ms = 600000;
	if ((rc = bcn_catchup_new(&c->cu, &cu)))
		return bcn_fail(err, ERR_MAX, rc, "out of memory");
	do {
		cs.pending = 0;
		rc = bcn_catchup_check(cu, &c->det, st, db, bcn_real_ns(), true,
				       NULL, NULL, &cs, err, ERR_MAX);
	} while (!rc && cs.pending);
	bcn_catchup_free(cu);
	if (!rc)
		printf("%" PRIu64 " intervals examined (%" PRIu64 " re-opened by "
		       "late data, %" PRIu64 " empty): %" PRIu64 " new, %" PRIu64
		       " grown, %" PRIu64 " closed, %" PRIu64 " components "
		       "skipped\n", cs.rounds, cs.reopened, cs.empty, cs.inserted,
		       cs.updated, cs.closed, cs.skipped);
	return rc;
}

static int detect(struct an_conf *c, struct bcn_jobdb *db, char *err)
{
	struct bcn_stores st = { .n = 0 };
	struct bcn_detect_stats ds;
	int64_t at = bcn_real_ns();
	int rc = parse_time("at", c->at, &at, err);

	if (!rc)
		rc = bcn_store_settings_apply(&c->store, err, ERR_MAX);
	if (rc)
		return rc;
	c->store.cfg.existing = true;
	if ((rc = bcn_stores_open(&c->store.cfg, &c->stores, &st, err, ERR_MAX)))
		return rc;
	if (!c->at[0]) {
		rc = catch_up(c, &st, db, err);
		goto out;
	}
	rc = bcn_detect_round(&c->det, &st, db, at, bcn_real_ns(), NULL, NULL, &ds,
			      err, ERR_MAX);
	if (!rc)
		printf("%" PRIu64 " records, %" PRIu64 " anomalies (%" PRIu64
		       " new, %" PRIu64 " grown), %" PRIu64 " closed, %" PRIu64
		       " components skipped\n", ds.records, ds.found, ds.inserted,
		       ds.updated, ds.closed, ds.skipped);
out:
	bcn_stores_close(&st);
	return rc;
}

int bcn_cmd_anomalies(int argc, char **argv)
{
	static struct an_conf c;
	const char *verb = NULL, *arg = NULL;
	struct bcn_jobdb *db = NULL;
	char err[ERR_MAX] = "";
	int rc, argi;

	memset(&c, 0, sizeof(c));
	if (argc > 1 && argv[1][0] != '-') {
		verb = argv[1];
		argv++;
		argc--;
	}
	if (verb && !strcmp(verb, "ack") && argc > 1 && argv[1][0] != '-') {
		arg = argv[1];
		argv++;
		argc--;
	}
	rc = bcn_cli_configure(tab, &c, "store_,analysis_,jobdb_,anomaly_",
			       argc, argv, &argi, err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		printf("usage: beacon anomalies [--config FILE] [--since T] "
		       "[--until T] [--kind K] [--state S] [--job ID] [--json]\n"
		       "       beacon anomalies ack ID [--user NAME]\n"
		       "       beacon anomalies detect [--at T]\n"
		       "Lists, acknowledges or detects anomalies.\n\n");
		bcn_config_help(tab, stdout);
		return 0;
	}
	if (!rc && verb && strcmp(verb, "ack") && strcmp(verb, "detect"))
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unknown verb '%s' "
			      "(ack, detect)", verb);
	if (!rc && verb && !strcmp(verb, "ack") && !arg && argi < argc)
		arg = argv[argi++];
	if (!rc && argi < argc)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unexpected "
			      "argument '%s'", argv[argi]);
	if (rc) {
		fprintf(stderr, "beacon anomalies: %s\n", err);
		return 2;
	}
	if ((rc = bcn_jobdb_open(&c.db, &db, err, sizeof(err)))) {
		fprintf(stderr, "beacon anomalies: %s\n", err);
		return 1;
	}
	if (!verb)
		rc = list(&c, db, err);
	else if (!strcmp(verb, "ack"))
		rc = ack(&c, db, arg, err);
	else
		rc = detect(&c, db, err);
	if (rc < 0)
		fprintf(stderr, "beacon anomalies: %s\n", err);
	bcn_jobdb_close(db);
	return rc == -BCN_ESYNTAX ? 2 : rc < 0 ? 1 : 0;
}
