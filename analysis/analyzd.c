/* beacon-analyzd's loop (analyzd.h): sacct polling, due reports, live
 * reports. One thread; every step is bounded (batch, sacct_max) and a
 * failing step is logged, rate-limited, and retried next round. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analyzd.h"
#include "common/error.h"
#include "common/log.h"
#include "jobs/sacct.h"
#include "store/store.h"

#define MS 1000000ll
#define IDS_MAX 4096
#define HELD_MAX 1024                   /* jobs whose report failed */
#define HOLD_NS (600 * 1000000000ll)    /* ... tried again after this */
#define LARGE_DETECT_NS (300 * 1000000000ll)    /* detection after a large
						 * job, at most this often */

static const char *const log_dests[] = { "stderr", "syslog", NULL };

#define M(m) BCN_CFG_MEMBER(struct bcn_analyzd_config, m)
const struct bcn_config_opt bcn_analyzd_options[] = {
	BCN_STORE_CONFIG_OPTIONS(struct bcn_analyzd_config, store),
	BCN_STORES_CONFIG_OPTIONS(struct bcn_analyzd_config, stores),
	BCN_JOBDB_CONFIG_OPTIONS(struct bcn_analyzd_config, db),
	BCN_REPORT_CONFIG_OPTIONS(struct bcn_analyzd_config, report),
	BCN_ADVICE_CONFIG_OPTIONS(struct bcn_analyzd_config, report.advice),
	BCN_CACHE_CONFIG_OPTIONS(struct bcn_analyzd_config, cache),
	BCN_DETECT_CONFIG_OPTIONS(struct bcn_analyzd_config, detect),
	BCN_ALERT_CONFIG_OPTIONS(struct bcn_analyzd_config, alert),
	BCN_JOBCHECK_CONFIG_OPTIONS(struct bcn_analyzd_config, jobcheck),
	BCN_CATCHUP_CONFIG_OPTIONS(struct bcn_analyzd_config, catchup),
	{ "sacct_command", BCN_CFG_STRING, M(sacct_command),
	  .help = "Command (run by /bin/sh) printing the batch system's job "
		  "records as sacct --parsable2 with a header, e.g. \"sacct "
		  "-a -P -S now-1hour -o JobIDRaw,JobName,User,UID,Account,"
		  "Partition,NodeList,NNodes,NTasks,NCPUS,Submit,Start,End,"
		  "State,ExitCode\"; empty: no polling." },
	{ "sacct_interval", BCN_CFG_DURATION, M(sacct_interval_ms),
	  .min = 1000, .max = 86400000, .def = "60s",
	  .help = "How often sacct_command runs." },
	{ "sacct_max", BCN_CFG_SIZE, M(sacct_max), .min = 4096,
	  .max = 1ll << 32, .def = "256m",
	  .help = "Most bytes of sacct output read per run." },
	{ "interval", BCN_CFG_DURATION, M(interval_ms), .min = 100,
	  .max = 3600000, .def = "10s",
	  .help = "How often ended jobs without a report are looked for." },
	{ "settle", BCN_CFG_DURATION, M(settle_ms), .max = 86400000,
	  .def = "60s", .help = "Time after a job's end before its final "
				"report (late records arrive)." },
	{ "live_interval", BCN_CFG_DURATION, M(live_interval_ms),
	  .max = 86400000, .def = "60s",
	  .help = "How often running jobs' reports are refreshed; 0: never." },
	{ "batch", BCN_CFG_UINT, M(batch), .min = 1, .max = IDS_MAX,
	  .def = "256", .help = "Reports computed per round, at most." },
	{ "once", BCN_CFG_BOOL, M(once), .def = "no",
	  .help = "Poll once, compute every due report, then exit." },
	{ "log_level", BCN_CFG_ENUM, M(log_level), .words = bcn_log_level_names,
	  .def = "info", .help = "Least severe level logged." },
	{ "log_dest", BCN_CFG_ENUM, M(log_dest), .words = log_dests,
	  .def = "stderr", .help = "Where the log goes." },
	{ .name = NULL }
};
#undef M

struct analyzd {
	const struct bcn_analyzd_config *cfg;
	struct bcn_analyzd_stats *st;
	struct bcn_stores store;
	struct bcn_jobdb *db;
	struct bcn_cache *cache;
	struct bcn_catchup *catchup;
	struct bcn_complain sacct_c, report_c, cache_c, detect_c, alert_c;
	struct bcn_buf json;
	/* jobs whose report failed wait HOLD_NS before the next try, so that
	 * a few bad ones do not take every round's batch */
	struct { uint64_t job; int64_t until; } held[HELD_MAX];
	size_t nheld;
	bool large_ended;               /* a large job's final report: detect */
};

/* Whether job's report is on hold now. */
static bool on_hold(struct analyzd *a, uint64_t job, int64_t now)
{
	for (size_t i = 0; i < a->nheld; i++)
		if (a->held[i].job == job)
			return a->held[i].until > now;
	return false;
}

/* Puts job on hold (the oldest hold gives way when full). */
static void hold(struct analyzd *a, uint64_t job, int64_t now)
{
	size_t i = 0;

	while (i < a->nheld && a->held[i].job != job)
		i++;
	if (i == HELD_MAX) {
		memmove(a->held, a->held + 1, sizeof(a->held[0]) * --i);
		a->nheld--;
	}
	if (i == a->nheld)
		a->nheld++;
	a->held[i].job = job;
	a->held[i].until = now + HOLD_NS;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- sacct ---- */

static int upsert(void *arg, const struct bcn_job *j)
{
	struct analyzd *a = arg;
	int rc = bcn_jobdb_upsert_job(a->db, j);

	if (rc < 0) {
		a->st->jobs_rejected++;
		bcn_complain(&a->sacct_c, BCN_LOG_WARNING, "sacct job %" PRIu64
			     ": %s", j->id, bcn_jobdb_error(a->db));
		return rc == -EIO ? rc : 0;
	}
	a->st->jobs_imported++;
	return 0;
}

static void rejected(void *arg, uint64_t line, const char *reason)
{
	struct analyzd *a = arg;

	a->st->jobs_rejected++;
	bcn_complain(&a->sacct_c, BCN_LOG_WARNING, "sacct output line %" PRIu64
		     ": %s", line, reason);
}

/* Runs sacct_command, reads at most sacct_max bytes, imports them. */
static int poll_sacct(struct analyzd *a)
{
	struct bcn_jobparse_opts o = { 0 };
	struct bcn_buf out;
	char chunk[65536];
	size_t n;
	FILE *p;
	int rc = 0, status;

	bcn_buf_init(&out, a->cfg->sacct_max);
	a->st->sacct_runs++;
	if (!(p = popen(a->cfg->sacct_command, "r")))
		rc = -errno;
	while (p && !rc && (n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		rc = bcn_buf_add(&out, chunk, n);
	if (p) {
		status = pclose(p);
		if (!rc && (status == -1 || !WIFEXITED(status) ||
			    WEXITSTATUS(status)))
			rc = -ECHILD;
	}
	if (!rc)
		rc = bcn_sacct_parse((const char *)out.data, out.len, &o, upsert,
				     rejected, a, NULL);
	if (rc) {
		a->st->sacct_failed++;
		bcn_complain(&a->sacct_c, BCN_LOG_ERR, "sacct_command: %s",
			     rc == -ECHILD ? "failed (exit status not 0)" :
			     rc == -BCN_EFULL ? "output above sacct_max" :
			     bcn_strerror(rc));
	}
	bcn_buf_free(&out);
	return rc;
}

/* ---- reports ---- */

static int report_one(struct analyzd *a, uint64_t id, bool live)
{
	struct bcn_report *r = NULL;
	struct bcn_jobcheck_result jr;
	bool cache = a->cache != NULL;
	uint64_t gen = 0;
	int64_t from, to;
	int rc;

	/* the cache's generation of the window, read before the records */
	if (cache && (bcn_report_window(a->db, id, now_ns(), &a->cfg->report,
					&from, &to) ||
		      bcn_cache_generation(a->cache, from, to, &gen)))
		cache = false;
	rc = bcn_report_compute(&a->store, a->db, id, now_ns(),
				&a->cfg->report, &r);

	/* a finished job: judged against its history, its neighbours and
	 * its stragglers before the report is kept */
	if (!rc && !live && r->end) {
		rc = bcn_jobcheck_run(&a->cfg->jobcheck, &a->cfg->detect,
				      &a->store, a->db, r, true, now_ns(), &jr);
		if (r->nnodes >= a->cfg->jobcheck.straggler_nodes)
			a->large_ended = true;
		a->st->jobs_checked++;
		a->st->job_anomalies += jr.anomalies;
	}
	if (!rc)
		rc = bcn_report_save(a->db, r);
	if (rc) {
		a->st->failed++;
		hold(a, id, now_ns());
		bcn_complain(&a->report_c, BCN_LOG_ERR, "report of job %" PRIu64
			     ": %s (tried again in 10 minutes)", id,
			     rc == -EIO ? bcn_jobdb_error(a->db) :
			     bcn_strerror(rc));
		goto out;
	}
	if (live)
		a->st->live_reports++;
	else
		a->st->reports++;
	if (r->partial)
		a->st->partial++;
	bcn_buf_reset(&a->json);
	if (cache && !bcn_report_to_json(r, true, &a->json) &&
	    bcn_cache_put(a->cache, id, gen, (const char *)a->json.data,
			  a->json.len))
		bcn_complain(&a->cache_c, BCN_LOG_WARNING, "report cache: "
			     "cannot store job %" PRIu64, id);
	BCN_DEBUG("job %" PRIu64 ": %s report, %" PRIu64 " records", id,
		  live ? "live" : "final", r->records);
out:
	bcn_report_free(r);
	return rc;
}

static void due_reports(struct analyzd *a, volatile sig_atomic_t *stop)
{
	static uint64_t ids[IDS_MAX];
	int64_t settle = a->cfg->settle_ms * MS, now = now_ns();
	size_t want = a->cfg->batch + a->nheld;
	int n = bcn_jobdb_reports_due(a->db, now - settle, settle, ids,
				      want < IDS_MAX ? want : IDS_MAX);
	uint64_t done = 0;

	if (n < 0)
		bcn_complain(&a->report_c, BCN_LOG_ERR, "job database: %s",
			     bcn_jobdb_error(a->db));
	for (int i = 0; i < n && !*stop && done < a->cfg->batch; i++)
		if (!on_hold(a, ids[i], now)) {
			(void)report_one(a, ids[i], false);
			done++;
		}
}

static void live_reports(struct analyzd *a, volatile sig_atomic_t *stop)
{
	static uint64_t ids[IDS_MAX];
	int n = bcn_jobdb_running(a->db, ids, a->cfg->batch);
	int64_t now = now_ns();

	for (int i = 0; i < n && !*stop; i++)
		if (!on_hold(a, ids[i], now))
			(void)report_one(a, ids[i], true);
}

static int start(struct analyzd *a, const struct bcn_analyzd_config *cfg)
{
	struct bcn_store_config sc = cfg->store.cfg;
	char err[512];
	int rc;

	if ((rc = bcn_jobdb_open(&cfg->db, &a->db, err, sizeof(err)))) {
		BCN_ERR("%s", err);
		return rc;
	}
	if ((rc = bcn_stores_open(&sc, &cfg->stores, &a->store, err,
				  sizeof(err)))) {
		BCN_ERR("%s", err);
		return rc;
	}
	if (cfg->cache.host[0] &&
	    bcn_cache_open(&cfg->cache, &a->cache, err, sizeof(err)))
		BCN_WARN("%s: reports are not cached", err);
	return 0;
}

/* The alerts of what a catch-up round found, before a later round of the
 * same check closes it. */
static void alerts(struct analyzd *a);

static void after_round(void *arg, int64_t end)
{
	struct analyzd *a = arg;

	(void)end;
	if (a->cfg->alert.smtp_url[0])
		alerts(a);
}

/* One check of the component detectors: every complete interval not yet
 * examined, or changed since, in time order (analysis/anomaly/catchup.h). */
static void detect(struct analyzd *a, bool settled)
{
	struct bcn_catchup_stats cs;
	char err[512];
	int rc;

	memset(&cs, 0, sizeof(cs));
	do {    /* a single pass (--once) goes on until nothing is left */
		cs.pending = 0;
		rc = bcn_catchup_check(a->catchup, &a->cfg->detect, &a->store,
				       a->db, now_ns(), settled, after_round, a,
				       &cs, err, sizeof(err));
	} while (!rc && settled && cs.pending);
	a->st->detect_rounds += cs.rounds;
	a->st->anomalies_new += cs.inserted;
	a->st->anomalies_grown += cs.updated;
	if (rc) {
		a->st->detect_failed++;
		bcn_complain(&a->detect_c, BCN_LOG_ERR, "%s", err);
	}
	if (cs.rounds || cs.inserted || cs.updated || cs.skipped)
		BCN_NOTICE("anomaly detection: %" PRIu64 " intervals examined (%"
			   PRIu64 " re-opened by late data, %" PRIu64 " empty, %"
			   PRIu64 " left for the next check), watermark %" PRId64
			   ": %" PRIu64 " new, %" PRIu64 " grown, %" PRIu64
			   " closed, %" PRIu64 " components skipped", cs.rounds,
			   cs.reopened, cs.empty, cs.pending, cs.watermark /
			   1000000000, cs.inserted, cs.updated, cs.closed,
			   cs.skipped);
}

/* Queues and sends the alert e-mails that are due. */
static void alerts(struct analyzd *a)
{
	struct bcn_alert_stats as;
	int rc;

	memset(&as, 0, sizeof(as));
	rc = bcn_alert_round(&a->cfg->alert, a->db, now_ns(), &as);
	a->st->alerts_sent += as.sent;
	a->st->alerts_failed += as.failed;
	a->st->alerts_deferred += as.deferred;
	if (rc)
		bcn_complain(&a->alert_c, BCN_LOG_ERR, "alerts: %s",
			     bcn_jobdb_error(a->db));
	else if (as.failed)
		bcn_complain(&a->alert_c, BCN_LOG_WARNING, "alerts: %" PRIu64
			     " sends failed, kept for a retry", as.failed);
	if (as.sent)
		BCN_NOTICE("alerts: %" PRIu64 " sent, %" PRIu64 " queued",
			   as.sent, as.queued);
}

static void sleep_ms(int64_t ms, volatile sig_atomic_t *stop)
{
	for (; ms > 0 && !*stop; ms -= 100) {
		struct timespec ts = { 0, (ms < 100 ? ms : 100) * MS };

		nanosleep(&ts, NULL);
	}
}

int bcn_analyzd_run(const struct bcn_analyzd_config *cfg,
		    volatile sig_atomic_t *stop, struct bcn_analyzd_stats *st)
{
	struct analyzd a = { .cfg = cfg, .st = st };
	int64_t next_sacct = 0, next_live = 0, next_detect = 0, t;
	int64_t last_detect = 0;
	int rc;

	bcn_buf_init(&a.json, 64u << 20);
	if ((rc = start(&a, cfg)))
		goto out;
	if ((rc = bcn_catchup_new(&cfg->catchup, &a.catchup))) {
		BCN_ERR("out of memory");
		goto out;
	}
	BCN_NOTICE("started: reports %s, sacct %s", a.cache ? "cached" :
		   "not cached", cfg->sacct_command[0] ? "polled" : "not polled");
	while (!*stop) {
		t = now_ns();
		if (cfg->sacct_command[0] && t >= next_sacct) {
			(void)poll_sacct(&a);
			next_sacct = t + cfg->sacct_interval_ms * MS;
		}
		due_reports(&a, stop);
		if (cfg->live_interval_ms && t >= next_live) {
			live_reports(&a, stop);
			next_live = t + cfg->live_interval_ms * MS;
		}
		/* every detect_check, and after a large job ended (at most
		 * every 5 min); --once takes the counts as settled */
		if (cfg->catchup.interval_ms && (t >= next_detect ||
		    (a.large_ended && t >= last_detect + LARGE_DETECT_NS))) {
			/* the first check after a start takes the counts as
			 * settled: what is stored then is examined at once */
			detect(&a, cfg->once || !last_detect);
			next_detect = t + cfg->catchup.check_ms * MS;
			last_detect = t;
			a.large_ended = false;
		}
		if (cfg->alert.smtp_url[0])
			alerts(&a);
		st->rounds++;
		if (cfg->once)
			break;
		sleep_ms(cfg->interval_ms, stop);
	}
	BCN_NOTICE("%" PRIu64 " reports, %" PRIu64 " live, %" PRIu64 " failed, "
		   "%" PRIu64 " partial; %" PRIu64 " jobs imported, %" PRIu64
		   " rejected; %" PRIu64 " new anomalies, %" PRIu64 " grown; %"
		   PRIu64 " jobs checked, %" PRIu64 " job anomalies; %" PRIu64
		   " alerts sent, %" PRIu64 " failed", st->reports,
		   st->live_reports, st->failed, st->partial, st->jobs_imported,
		   st->jobs_rejected, st->anomalies_new, st->anomalies_grown,
		   st->jobs_checked, st->job_anomalies, st->alerts_sent,
		   st->alerts_failed);
out:
	bcn_buf_free(&a.json);
	bcn_catchup_free(a.catchup);
	bcn_cache_close(a.cache);
	bcn_stores_close(&a.store);
	if (a.db)
		bcn_jobdb_close(a.db);
	return rc;
}
