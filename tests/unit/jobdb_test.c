/* Unit tests of jobdb/ against a private mariadbd (tests/unit/
 * mariadb_fixture.h): migrations from an empty database and again as a
 * no-op, a newer schema refused; a job stored once however often it is
 * imported, with inserted / updated / unchanged told apart; the node-to-job
 * index inside and outside a job's window and for a running job; steps
 * kept apart; the forwarding map's validity times and idempotence; hostile
 * strings stored verbatim; listing with filters; the detectors' marks
 * (a mark per store and interval, rounds counted, the watermark, pruning
 * that keeps what is newer). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/error.h"
#include "jobdb/anomalies.h"
#include "jobdb/marks.h"
#include "mariadb_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)

static struct mdb m;

static int setup(void **state)
{
	(void)state;
	if (!mdb_installed()) {
		fprintf(stderr, "jobdb_test: mariadbd is not installed\n");
		return -1;
	}
	return mdb_start(&m);
}

static int teardown(void **state)
{
	(void)state;
	mdb_stop(&m);
	return 0;
}

static struct bcn_jobdb *open_db(void)
{
	struct bcn_jobdb *db = NULL;
	char err[512];

	if (bcn_jobdb_open(&m.cfg, &db, err, sizeof(err)))
		fail_msg("%s", err);
	return db;
}

static struct bcn_job sample(uint64_t id, const char *nodes, int64_t start,
			     int64_t end)
{
	struct bcn_job j;

	bcn_job_init(&j);
	j.id = id;
	j.user = "alice";
	j.uid = 1000;
	j.name = "wrf";
	j.partition = "batch";
	j.nodelist = nodes;
	j.nnodes = 4;
	j.ntasks = 128;
	j.submit = start - S(60);
	j.start = start;
	j.end = end;
	j.state = end ? BCN_JOB_COMPLETED : BCN_JOB_RUNNING;
	j.exit_code = 0;
	return j;
}

static void test_migrations(void **state)
{
	static const char *const newer[] = {
		"INSERT INTO beacon.schema_version VALUES (99, 0)", NULL };
	static const char *const undo[] = {
		"DELETE FROM beacon.schema_version WHERE version = 99", NULL };
	struct bcn_jobdb *db = open_db(), *db2;
	char err[512], want[96];

	(void)state;
	assert_int_equal(bcn_jobdb_schema(db), BCN_JOBDB_SCHEMA);
	bcn_jobdb_close(db);
	db = open_db();                 /* again: nothing to do */
	bcn_jobdb_close(db);
	assert_int_equal(mdb_root(&m, newer), 0);
	assert_int_equal(bcn_jobdb_open(&m.cfg, &db2, err, sizeof(err)), -EPROTO);
	assert_null(db2);
	snprintf(want, sizeof(want), "schema version 99, newer than this "
		 "program's %d", BCN_JOBDB_SCHEMA);
	assert_non_null(strstr(err, want));
	assert_int_equal(mdb_root(&m, undo), 0);
}

static void test_upsert(void **state)
{
	struct bcn_jobdb *db = open_db();
	struct bcn_job j = sample(4242, "cn[01-04]", S(1000), S(2000)), got;
	uint64_t ids[8];

	(void)state;
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_INSERTED);
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_UNCHANGED);
	j.exit_code = 3;
	j.state = BCN_JOB_FAILED;
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_UPDATED);
	assert_int_equal(bcn_jobdb_get_job(db, 4242, &got), 1);
	assert_string_equal(got.user, "alice");
	assert_string_equal(got.nodelist, "cn[01-04]");
	assert_int_equal(got.state, BCN_JOB_FAILED);
	assert_int_equal(got.exit_code, 3);
	assert_int_equal(got.start, S(1000));
	assert_int_equal(got.end, S(2000));
	assert_int_equal(got.ntasks, 128);
	assert_int_equal(bcn_jobdb_get_job(db, 4243, &got), 0);
	/* the node index: inside, at the edges, outside, another node */
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn03", S(1500), ids, 8), 1);
	assert_int_equal(ids[0], 4242);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn03", S(1000), ids, 8), 1);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn03", S(2000), ids, 8), 0);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn03", S(999), ids, 8), 0);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn05", S(1500), ids, 8), 0);
	/* re-imported on other nodes: the index follows */
	j.nodelist = "cn[05-06]";
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_UPDATED);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn03", S(1500), ids, 8), 0);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn06", S(1500), ids, 8), 1);
	/* a running job holds its nodes until it ends */
	j = sample(4300, "cn07", S(3000), 0);
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_INSERTED);
	assert_int_equal(bcn_jobdb_jobs_on(db, "cn07", S(999999), ids, 8), 1);
	/* a step is stored apart and does not replace its job */
	j = sample(4242, "cn05", S(1100), S(1200));
	j.step = "batch";
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_INSERTED);
	assert_int_equal(bcn_jobdb_get_job(db, 4242, &got), 1);
	assert_string_equal(got.nodelist, "cn[05-06]");
	/* a node list that does not expand is refused, nothing changes */
	j = sample(4400, "cn[9-1]", S(1000), S(2000));
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), -BCN_ESYNTAX);
	assert_int_equal(bcn_jobdb_get_job(db, 4400, &got), 0);
	bcn_jobdb_close(db);
}

static void test_hostile_strings(void **state)
{
	static const char evil[] = "x'); DROP TABLE jobs; -- \\ \" %s \xc3\xa0";
	struct bcn_jobdb *db = open_db();
	struct bcn_job j = sample(5000, "cn01", S(1000), S(2000)), got;

	(void)state;
	j.user = evil;
	j.name = evil;
	assert_int_equal(bcn_jobdb_upsert_job(db, &j), BCN_JOBDB_INSERTED);
	assert_int_equal(bcn_jobdb_get_job(db, 5000, &got), 1);
	assert_string_equal(got.user, evil);
	assert_string_equal(got.name, evil);
	assert_int_equal(bcn_jobdb_get_job(db, 4242, &got), 1);  /* still there */
	bcn_jobdb_close(db);
}

static void test_fwdmap(void **state)
{
	struct bcn_jobdb *db = open_db();
	struct bcn_fwdmap_entry a = { "cn[001-004]", "fwd1", 0, S(5000) };
	struct bcn_fwdmap_entry b = { "cn[001-004]", "fwd2", S(5000), INT64_MAX };
	char fwd[64];

	(void)state;
	assert_int_equal(bcn_jobdb_add_fwdmap(db, &a), BCN_JOBDB_INSERTED);
	assert_int_equal(bcn_jobdb_add_fwdmap(db, &a), BCN_JOBDB_UNCHANGED);
	assert_int_equal(bcn_jobdb_add_fwdmap(db, &b), BCN_JOBDB_INSERTED);
	assert_int_equal(bcn_jobdb_fwd_of(db, "cn003", S(4999), fwd, sizeof(fwd)), 1);
	assert_string_equal(fwd, "fwd1");
	assert_int_equal(bcn_jobdb_fwd_of(db, "cn003", S(5000), fwd, sizeof(fwd)), 1);
	assert_string_equal(fwd, "fwd2");
	assert_int_equal(bcn_jobdb_fwd_of(db, "cn005", S(10), fwd, sizeof(fwd)), 0);
	bcn_jobdb_close(db);
}

struct listed {
	uint64_t ids[16];
	size_t n;
};

static int collect(void *arg, const struct bcn_job *j,
		   const struct bcn_jobdb_usage *u)
{
	struct listed *l = arg;

	(void)u;
	if (l->n < 16)
		l->ids[l->n++] = j->id;
	return 0;
}

static void test_list(void **state)
{
	static const char *const summary[] = {
		"INSERT INTO beacon.job_summary (job, computed_ns, read_bytes, "
		"write_bytes, mode) VALUES (6002, 1, 400, 600, 'N-1')", NULL };
	struct bcn_jobdb *db = open_db();
	struct bcn_job j = sample(6001, "cn01", S(100000), S(100100));
	struct bcn_jobdb_filter f = { .user = "bob", .state = -1 };
	struct listed l = { { 0 }, 0 };

	(void)state;
	j.user = "bob";
	assert_true(bcn_jobdb_upsert_job(db, &j) > 0);
	j = sample(6002, "cn02", S(100200), S(100300));
	j.user = "bob";
	assert_true(bcn_jobdb_upsert_job(db, &j) > 0);
	assert_int_equal(bcn_jobdb_list_jobs(db, &f, collect, &l), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ids[0], 6002);       /* most recent first */
	l.n = 0;
	f.since = S(100150);                    /* 6001 ended before */
	assert_int_equal(bcn_jobdb_list_jobs(db, &f, collect, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ids[0], 6002);
	l.n = 0;
	f.user = "";
	f.since = 0;
	f.state = BCN_JOB_RUNNING;
	assert_int_equal(bcn_jobdb_list_jobs(db, &f, collect, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ids[0], 4300);
	/* filters on the report: only jobs that have one */
	assert_int_equal(mdb_root(&m, summary), 0);
	l.n = 0;
	f.state = -1;
	f.mode = "N-1";
	assert_int_equal(bcn_jobdb_list_jobs(db, &f, collect, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ids[0], 6002);
	l.n = 0;
	f.mode = "";
	f.min_bytes = 1500;
	assert_int_equal(bcn_jobdb_list_jobs(db, &f, collect, &l), 0);
	assert_int_equal(l.n, 0);
	f.min_bytes = 1000;
	assert_int_equal(bcn_jobdb_list_jobs(db, &f, collect, &l), 0);
	assert_int_equal(l.n, 1);
	bcn_jobdb_close(db);
}

/* A report replaces the previous one whole; the listing sees its mode. */
static void test_report(void **state)
{
	static const struct bcn_jobdb_part parts[] = {
		{ "forward", "fwd001", 100, 200, 3, 0.25 },
		{ "ost", "simfs-OST0003", 100, 200, 0, 0.5 },
	};
	static const struct bcn_jobdb_phase phases[] = {
		{ 1000, 2000, 100, 0 }, { 3000, 4000, 0, 200 },
	};
	static const struct bcn_jobdb_finding findings[] = {
		{ "small_requests", "warning", "90% of requests under 64 KiB",
		  "{\"share\":0.9}" },
	};
	struct bcn_jobdb *db = open_db();
	struct bcn_jobdb_report r = { .parts = parts, .nparts = 2,
		.phases = phases, .nphases = 2, .findings = findings,
		.nfindings = 1 };
	struct bcn_jobdb_summary got;

	(void)state;
	r.summary.job = 7000;
	r.summary.computed = 5;
	r.summary.read_bytes = 100;
	r.summary.write_bytes = 200;
	r.summary.read_bw_peak = 1.5e9;
	snprintf(r.summary.mode, sizeof(r.summary.mode), "N-1");
	assert_int_equal(bcn_jobdb_put_report(db, &r), 0);
	assert_int_equal(bcn_jobdb_get_summary(db, 7000, &got), 1);
	assert_int_equal(got.write_bytes, 200);
	assert_true(got.read_bw_peak == 1.5e9);
	assert_string_equal(got.mode, "N-1");
	assert_false(got.partial);
	assert_int_equal(mdb_value(&m, "SELECT COUNT(*) FROM beacon.job_layer "
				   "WHERE job = 7000"), 2);
	assert_int_equal(mdb_value(&m, "SELECT COUNT(*) FROM beacon.job_phases "
				   "WHERE job = 7000"), 2);
	/* again, with fewer rows and partial: replaced, not added to */
	r.nparts = 1;
	r.nphases = 0;
	r.summary.partial = true;
	r.summary.write_bytes = 250;
	assert_int_equal(bcn_jobdb_put_report(db, &r), 0);
	assert_int_equal(bcn_jobdb_get_summary(db, 7000, &got), 1);
	assert_int_equal(got.write_bytes, 250);
	assert_true(got.partial);
	assert_int_equal(mdb_value(&m, "SELECT COUNT(*) FROM beacon.job_layer "
				   "WHERE job = 7000"), 1);
	assert_int_equal(mdb_value(&m, "SELECT COUNT(*) FROM beacon.job_phases "
				   "WHERE job = 7000"), 0);
	assert_int_equal(mdb_value(&m, "SELECT COUNT(*) FROM beacon.job_findings "
				   "WHERE job = 7000"), 1);
	assert_int_equal(bcn_jobdb_get_summary(db, 7001, &got), 0);
	bcn_jobdb_close(db);
}

/* Counts the map rows of forwarding node fw9, once per node dn2. */
static int count_map(void *arg, const char *node, const char *fwd)
{
	if (!strcmp(fwd, "fw9") && !strcmp(node, "dn2"))
		++*(int *)arg;
	return 0;
}

static int has(const uint64_t *ids, int n, uint64_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* Which jobs beacon-analyzd reports: ended ones once their settle time
 * has passed and until a report computed after it exists (a live report
 * from before the end does not count); running ones for the live view. */
static void test_due(void **state)
{
	struct bcn_jobdb *db = open_db();
	struct bcn_jobdb_report r = { .summary = { .job = 8001 } };
	struct bcn_fwdmap_entry e = { "dn[1-3]", "fw9", S(100), S(200) };
	struct bcn_job a = sample(8001, "dn1", S(1000), S(2000));
	struct bcn_job b = sample(8002, "dn2", S(1000), 0);
	uint64_t ids[16];
	int n;

	(void)state;
	b.state = BCN_JOB_RUNNING;
	assert_true(bcn_jobdb_upsert_job(db, &a) > 0);
	assert_true(bcn_jobdb_upsert_job(db, &b) > 0);
	/* not yet settled: ended at 2000, settle 60 */
	n = bcn_jobdb_reports_due(db, S(2000) - S(60) + S(30), S(60), ids, 16);
	assert_false(has(ids, n, 8001));
	n = bcn_jobdb_reports_due(db, S(2061) - S(60), S(60), ids, 16);
	assert_true(has(ids, n, 8001));
	assert_false(has(ids, n, 8002));
	/* a live report from before the end: still due */
	r.summary.computed = S(1500);
	assert_int_equal(bcn_jobdb_put_report(db, &r), 0);
	n = bcn_jobdb_reports_due(db, S(2100), S(60), ids, 16);
	assert_true(has(ids, n, 8001));
	/* the final one: no longer */
	r.summary.computed = S(2061);
	assert_int_equal(bcn_jobdb_put_report(db, &r), 0);
	n = bcn_jobdb_reports_due(db, S(2100), S(60), ids, 16);
	assert_false(has(ids, n, 8001));
	n = bcn_jobdb_running(db, ids, 16);
	assert_true(has(ids, n, 8002));
	assert_false(has(ids, n, 8001));
	/* the whole map at a time: valid entries only */
	assert_true(bcn_jobdb_add_fwdmap(db, &e) > 0);
	n = 0;
	assert_true(bcn_jobdb_fwd_map(db, S(150), count_map, &n) >= 3);
	assert_int_equal(n, 1);         /* dn1..dn3 -> fw9, counted once */
	n = 0;
	assert_true(bcn_jobdb_fwd_map(db, S(250), count_map, &n) >= 0);
	assert_int_equal(n, 0);         /* no longer valid */
	bcn_jobdb_close(db);
}

static struct bcn_anomaly anomaly(const char *kind, const char *comp,
				  int64_t from, int64_t to, const char *sev)
{
	struct bcn_anomaly a;

	memset(&a, 0, sizeof(a));
	snprintf(a.kind, sizeof(a.kind), "%s", kind);
	snprintf(a.component, sizeof(a.component), "%s", comp);
	a.from = from;
	a.to = to;
	snprintf(a.severity, sizeof(a.severity), "%s", sev);
	a.score = 2.0;
	snprintf(a.evidence, sizeof(a.evidence), "{\"to\":%lld}",
		 (long long)(to / 1000000000));
	return a;
}

static int count_cb(void *arg, const struct bcn_anomaly *a)
{
	(void)a;
	(*(int *)arg)++;
	return 0;
}

static int list_count(struct bcn_jobdb *db, const struct bcn_anomaly_filter *f)
{
	int n = 0;

	assert_int_equal(bcn_jobdb_anomalies(db, f, count_cb, &n), 0);
	return n;
}

/* Merging: the same window twice is unchanged, an overlapping or
 * adjacent one (within the gap) extends the row, a distant one is a new
 * row, another component or kind is its own; jobs are unions with roles;
 * filters by time, kind, state, job; acknowledgement once; closing by
 * window end and reopening when the anomaly comes back; JSON keys. */
static void test_anomalies(void **state)
{
	struct bcn_jobdb *db = open_db();
	struct bcn_anomaly a = anomaly("slow_ost", "fs-OST0003", S(1000),
				       S(4600), "warning"), b, got;
	struct bcn_anomaly_filter f = { 0 };
	struct bcn_buf js;
	uint64_t first;

	(void)state;
	a.jobs[0] = (struct bcn_anomaly_job){ 77, BCN_ANOMALY_AFFECTED };
	a.njobs = 1;
	assert_int_equal(bcn_jobdb_anomaly_put(db, &a, S(600), S(5000)),
			 BCN_JOBDB_INSERTED);
	first = a.id;
	assert_true(first > 0);
	b = a;
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(5001)),
			 BCN_JOBDB_UNCHANGED);
	assert_int_equal(b.id, first);
	/* goes on: starts 300 s after the end, within the 600 s gap */
	b = anomaly("slow_ost", "fs-OST0003", S(4900), S(8200), "critical");
	b.jobs[0] = (struct bcn_anomaly_job){ 78, BCN_ANOMALY_AFFECTED };
	b.jobs[1] = (struct bcn_anomaly_job){ 90, BCN_ANOMALY_ACCUSED };
	b.njobs = 2;
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(9000)),
			 BCN_JOBDB_UPDATED);
	assert_int_equal(b.id, first);
	assert_int_equal(bcn_jobdb_anomaly_get(db, first, &got), 1);
	assert_int_equal(got.from, S(1000));
	assert_int_equal(got.to, S(8200));
	assert_string_equal(got.severity, "critical");
	assert_string_equal(got.evidence, "{\"to\":8200}");
	assert_string_equal(got.state, "open");
	assert_int_equal(got.njobs, 3);
	/* an earlier, contained window changes nothing */
	b = anomaly("slow_ost", "fs-OST0003", S(2000), S(3000), "info");
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(9001)),
			 BCN_JOBDB_UNCHANGED);
	/* far later, another component, another kind: three new rows */
	b = anomaly("slow_ost", "fs-OST0003", S(20000), S(21000), "warning");
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(21000)),
			 BCN_JOBDB_INSERTED);
	assert_true(b.id != first);
	b = anomaly("slow_ost", "fs-OST0004';--", S(1000), S(4600), "warning");
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(21000)),
			 BCN_JOBDB_INSERTED);
	b = anomaly("slow_fwd", "fs-OST0003", S(1000), S(4600), "warning");
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(21000)),
			 BCN_JOBDB_INSERTED);
	assert_int_equal(list_count(db, &f), 4);
	f.kind = "slow_ost";
	assert_int_equal(list_count(db, &f), 3);
	f.kind = NULL;
	f.since = S(9000);
	assert_int_equal(list_count(db, &f), 1);
	f.since = 0;
	f.until = S(1000);
	assert_int_equal(list_count(db, &f), 0);
	f.until = 0;
	f.job = 90;
	assert_int_equal(list_count(db, &f), 1);
	f.job = 0;
	f.component = "fs-OST0004';--";
	assert_int_equal(list_count(db, &f), 1);
	f.component = NULL;
	/* acknowledged once; closing by window end; reopening */
	assert_int_equal(bcn_jobdb_anomaly_ack(db, first, "root", S(9100)), 1);
	assert_int_equal(bcn_jobdb_anomaly_ack(db, first, "root", S(9101)), 0);
	assert_int_equal(bcn_jobdb_anomaly_close_ended(db, S(10000), S(22000)), 3);
	f.state = "closed";
	assert_int_equal(list_count(db, &f), 3);
	f.state = "open";
	assert_int_equal(list_count(db, &f), 1);
	b = anomaly("slow_ost", "fs-OST0003", S(8000), S(9500), "warning");
	assert_int_equal(bcn_jobdb_anomaly_put(db, &b, S(600), S(22001)),
			 BCN_JOBDB_UPDATED);
	assert_int_equal(bcn_jobdb_anomaly_get(db, first, &got), 1);
	assert_string_equal(got.state, "open");
	assert_int_equal(got.to, S(9500));
	assert_string_equal(got.acked_by, "root");
	bcn_buf_init(&js, 1 << 16);
	assert_int_equal(bcn_anomaly_to_json(&got, &js), 0);
	assert_int_equal(bcn_buf_add(&js, "", 1), 0);
	assert_non_null(strstr((char *)js.data, "\"kind\":\"slow_ost\""));
	assert_non_null(strstr((char *)js.data,
			       "\"from\":\"1970-01-01T00:16:40Z\""));
	assert_non_null(strstr((char *)js.data, "\"jobs\":[77,78,90]"));
	assert_non_null(strstr((char *)js.data, "\"accused\":[90]"));
	assert_non_null(strstr((char *)js.data, "\"state\":\"open\""));
	bcn_buf_free(&js);
	/* bad input is refused */
	b = anomaly("slow_ost", "", S(1), S(2), "info");
	assert_true(bcn_jobdb_anomaly_put(db, &b, 0, S(1)) < 0);
	b = anomaly("slow_ost", "x", S(3), S(2), "info");
	assert_true(bcn_jobdb_anomaly_put(db, &b, 0, S(1)) < 0);
	bcn_jobdb_close(db);
}

static void test_marks(void **state)
{
	struct bcn_jobdb *db = open_db();
	struct bcn_detect_mark mk[8];
	const int64_t h = S(3600);
	int64_t wm = -1;
	char big[BCN_MARK_STORE_MAX + 2];

	(void)state;
	assert_int_equal(bcn_jobdb_mark_watermark(db, "sqlite:/a", &wm), 0);
	assert_int_equal(wm, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(bcn_jobdb_mark_put(db, "sqlite:/a", 10 * h + i * h,
						    h, 100u + (unsigned)i, S(9)), 0);
	assert_int_equal(bcn_jobdb_mark_put(db, "sqlite:/b", 10 * h, h, 7, S(9)),
			 0);
	/* examined again with more records: one mark, two rounds */
	assert_int_equal(bcn_jobdb_mark_put(db, "sqlite:/a", 11 * h, h, 150,
					    S(10)), 0);
	assert_int_equal(bcn_jobdb_marks(db, "sqlite:/a", 10 * h, 13 * h, mk, 8),
			 3);
	assert_int_equal(mk[0].t, 10 * h);
	assert_int_equal(mk[0].records, 100);
	assert_int_equal(mk[0].rounds, 1);
	assert_int_equal(mk[1].records, 150);
	assert_int_equal(mk[1].rounds, 2);
	assert_int_equal(mk[1].examined, S(10));
	assert_int_equal(mk[2].t, 12 * h);
	assert_int_equal(bcn_jobdb_marks(db, "sqlite:/a", 0, 100 * h, mk, 2), 2);
	assert_int_equal(bcn_jobdb_mark_watermark(db, "sqlite:/a", &wm), 0);
	assert_int_equal(wm, 14 * h);
	assert_int_equal(bcn_jobdb_mark_watermark(db, "sqlite:/b", &wm), 0);
	assert_int_equal(wm, 11 * h);
	/* pruning one store leaves the other and the newer marks */
	assert_int_equal(bcn_jobdb_marks_prune(db, "sqlite:/a", 12 * h), 2);
	assert_int_equal(bcn_jobdb_marks(db, "sqlite:/a", 0, 100 * h, mk, 8), 2);
	assert_int_equal(bcn_jobdb_marks(db, "sqlite:/b", 0, 100 * h, mk, 8), 1);
	/* names out of bounds are refused */
	memset(big, 's', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_true(bcn_jobdb_mark_put(db, big, 0, h, 1, S(1)) < 0);
	assert_true(bcn_jobdb_mark_put(db, "", 0, h, 1, S(1)) < 0);
	bcn_jobdb_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrations),
		cmocka_unit_test(test_upsert),
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_fwdmap),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_anomalies),
		cmocka_unit_test(test_marks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
