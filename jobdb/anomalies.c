/* Anomalies in the job database (jobdb/anomalies.h): merge-or-insert by
 * kind, component and window, listing, acknowledgement and closing, all
 * through prepared statements. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/timefmt.h"
#include "jobdb/anomalies.h"
#include "jobdb/jobdb_int.h"

enum {
	AS_FIND = BCN_JOBDB_LAZY_ANOMALY, AS_INSERT, AS_UPDATE, AS_JOB_INS,
	AS_JOBS_OF, AS_LIST, AS_ACK, AS_CLOSE,
	AS_END
};
_Static_assert(AS_END <= BCN_JOBDB_LAZY_ANOMALY + 16, "anomaly slots");

#define COLS "id, kind, component, from_ns, to_ns, severity, score," \
	" evidence, state, detected_ns, updated_ns, acked_by, acked_ns, closed_ns"

static const char sql_find[] = "SELECT " COLS " FROM anomalies WHERE"
	" kind = ? AND component = ? AND to_ns >= ? AND from_ns <= ?"
	" ORDER BY to_ns DESC, id DESC LIMIT 1";
static const char sql_insert[] = "INSERT INTO anomalies (kind, component,"
	" from_ns, to_ns, severity, score, evidence, state, detected_ns,"
	" updated_ns) VALUES (?,?,?,?,?,?,?,'open',?,?)";
static const char sql_update[] = "UPDATE anomalies SET from_ns = ?,"
	" to_ns = ?, severity = ?, score = ?, evidence = ?, state = ?,"
	" closed_ns = ?, updated_ns = ? WHERE id = ?";
static const char sql_job_ins[] = "INSERT IGNORE INTO anomaly_jobs (anomaly,"
	" job, role) VALUES (?,?,?)";
static const char sql_jobs_of[] = "SELECT job, role FROM anomaly_jobs WHERE"
	" anomaly = ? ORDER BY job LIMIT 32";
static const char sql_list[] = "SELECT " COLS " FROM anomalies a WHERE"
	" (? = 0 OR to_ns >= ?) AND (? = 0 OR from_ns < ?)"
	" AND (? = '' OR kind = ?) AND (? = '' OR component = ?)"
	" AND (? = '' OR state = ?) AND (? = 0 OR id = ?)"
	" AND (? = 0 OR EXISTS (SELECT 1 FROM anomaly_jobs j WHERE"
	" j.anomaly = a.id AND j.job = ?))"
	" ORDER BY to_ns DESC, id DESC LIMIT ? OFFSET ?";
static const char sql_ack[] = "UPDATE anomalies SET state = 'acknowledged',"
	" acked_by = ?, acked_ns = ?, updated_ns = ? WHERE id = ? AND"
	" state = 'open'";
static const char sql_close[] = "UPDATE anomalies SET state = 'closed',"
	" closed_ns = ?, updated_ns = ? WHERE state <> 'closed' AND to_ns < ?";

const char *bcn_anomaly_role_name(int role)
{
	return role == BCN_ANOMALY_ACCUSED ? "accused" : "affected";
}

void bcn_anomaly_init(struct bcn_anomaly *a, const char *kind,
		      const char *component, const char *severity, double score)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->kind, sizeof(a->kind), "%s", kind);
	snprintf(a->component, sizeof(a->component), "%s", component);
	snprintf(a->severity, sizeof(a->severity), "%s", severity);
	a->score = score;
}

static int severity_rank(const char *s)
{
	return !strcmp(s, "critical") ? 2 : !strcmp(s, "warning") ? 1 : 0;
}

/* Result bindings of COLS into a. */
static void bind_row(struct binds *r, struct bcn_anomaly *a)
{
	bcn_jobdb_binds_init(r);
	bcn_jobdb_b_u64(r, &a->id);
	bcn_jobdb_b_str(r, a->kind, sizeof(a->kind) - 1);
	bcn_jobdb_b_str(r, a->component, sizeof(a->component) - 1);
	bcn_jobdb_b_i64(r, &a->from);
	bcn_jobdb_b_i64(r, &a->to);
	bcn_jobdb_b_str(r, a->severity, sizeof(a->severity) - 1);
	bcn_jobdb_b_f64(r, &a->score);
	bcn_jobdb_b_str(r, a->evidence, sizeof(a->evidence) - 1);
	bcn_jobdb_b_str(r, a->state, sizeof(a->state) - 1);
	bcn_jobdb_b_i64(r, &a->detected);
	bcn_jobdb_b_i64(r, &a->updated);
	bcn_jobdb_b_str(r, a->acked_by, sizeof(a->acked_by) - 1);
	bcn_jobdb_b_i64(r, &a->acked);
	bcn_jobdb_b_i64(r, &a->closed);
}

static void fix_row(const struct binds *r, struct bcn_anomaly *a)
{
	bcn_jobdb_str_fix(r, 1, a->kind, sizeof(a->kind));
	bcn_jobdb_str_fix(r, 2, a->component, sizeof(a->component));
	bcn_jobdb_str_fix(r, 5, a->severity, sizeof(a->severity));
	bcn_jobdb_str_fix(r, 7, a->evidence, sizeof(a->evidence));
	bcn_jobdb_str_fix(r, 8, a->state, sizeof(a->state));
	bcn_jobdb_str_fix(r, 11, a->acked_by, sizeof(a->acked_by));
	a->njobs = 0;
}

/* Reads the jobs of anomaly a->id into a. */
static int read_jobs(struct bcn_jobdb *db, struct bcn_anomaly *a)
{
	MYSQL_STMT *s;
	struct binds x, r;
	uint64_t job = 0;
	char role[16];
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_u64(&x, &a->id);
	if ((rc = bcn_jobdb_lazy_exec(db, AS_JOBS_OF, sql_jobs_of, &x, &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_u64(&r, &job);
	bcn_jobdb_b_str(&r, role, sizeof(role) - 1);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	a->njobs = 0;
	while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		bcn_jobdb_str_fix(&r, 1, role, sizeof(role));
		if (a->njobs < BCN_ANOMALY_JOBS_MAX) {
			a->jobs[a->njobs].job = job;
			a->jobs[a->njobs++].role = !strcmp(role, "accused") ?
				BCN_ANOMALY_ACCUSED : BCN_ANOMALY_AFFECTED;
		}
	}
	mysql_stmt_free_result(s);
	return rc == MYSQL_NO_DATA ? 0 : bcn_jobdb_sfail(db, s);
}

/* The stored anomaly that a merges into, into *old: 1, 0 or < 0. */
static int find_same(struct bcn_jobdb *db, const struct bcn_anomaly *a,
		     int64_t gap_ns, struct bcn_anomaly *old)
{
	int64_t lo = a->from > INT64_MIN + gap_ns ? a->from - gap_ns : a->from;
	int64_t hi = a->to < INT64_MAX - gap_ns ? a->to + gap_ns : a->to;
	MYSQL_STMT *s;
	struct binds x, r;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, a->kind, 0);
	bcn_jobdb_b_str(&x, a->component, 0);
	bcn_jobdb_b_i64(&x, &lo);
	bcn_jobdb_b_i64(&x, &hi);
	if ((rc = bcn_jobdb_lazy_exec(db, AS_FIND, sql_find, &x, &s)))
		return rc;
	bind_row(&r, old);
	if (mysql_stmt_bind_result(s, r.b))
		return bcn_jobdb_sfail(db, s);
	rc = mysql_stmt_fetch(s);
	mysql_stmt_free_result(s);
	if (rc == MYSQL_NO_DATA)
		return 0;
	if (rc != 0 && rc != MYSQL_DATA_TRUNCATED)
		return bcn_jobdb_sfail(db, s);
	fix_row(&r, old);
	rc = read_jobs(db, old);
	return rc ? rc : 1;
}

static int add_jobs(struct bcn_jobdb *db, uint64_t id,
		    const struct bcn_anomaly *a, size_t have, bool *changed)
{
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	for (size_t i = 0; i < a->njobs && have < BCN_ANOMALY_JOBS_MAX; i++) {
		const char *role = bcn_anomaly_role_name(a->jobs[i].role);

		bcn_jobdb_binds_init(&x);
		bcn_jobdb_b_u64(&x, &id);
		bcn_jobdb_b_u64(&x, &a->jobs[i].job);
		bcn_jobdb_b_str(&x, role, 0);
		if ((rc = bcn_jobdb_lazy_exec(db, AS_JOB_INS, sql_job_ins, &x, &s)))
			return rc;
		if (mysql_stmt_affected_rows(s) > 0) {
			*changed = true;
			have++;
		}
	}
	return 0;
}

static int insert_new(struct bcn_jobdb *db, struct bcn_anomaly *a, int64_t now)
{
	MYSQL_STMT *s;
	struct binds x;
	bool changed = false;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, a->kind, 0);
	bcn_jobdb_b_str(&x, a->component, 0);
	bcn_jobdb_b_i64(&x, &a->from);
	bcn_jobdb_b_i64(&x, &a->to);
	bcn_jobdb_b_str(&x, a->severity, 0);
	bcn_jobdb_b_f64(&x, &a->score);
	bcn_jobdb_b_str(&x, a->evidence, 0);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &now);
	if ((rc = bcn_jobdb_lazy_exec(db, AS_INSERT, sql_insert, &x, &s)))
		return rc;
	a->id = mysql_stmt_insert_id(s);
	snprintf(a->state, sizeof(a->state), "open");
	a->detected = a->updated = now;
	rc = add_jobs(db, a->id, a, 0, &changed);
	return rc ? rc : BCN_JOBDB_INSERTED;
}

/* Merges a into old (in memory); *changed when any column changes. */
static void merge(struct bcn_anomaly *old, const struct bcn_anomaly *a,
		  bool *changed)
{
	if (a->from < old->from) {
		old->from = a->from;
		*changed = true;
	}
	if (a->to > old->to) {
		old->to = a->to;
		if (strcmp(old->evidence, a->evidence)) {
			memcpy(old->evidence, a->evidence, sizeof(old->evidence));
			*changed = true;
		}
		if (!strcmp(old->state, "closed")) {
			snprintf(old->state, sizeof(old->state), "open");
			old->closed = 0;
		}
		*changed = true;
	}
	if (severity_rank(a->severity) > severity_rank(old->severity)) {
		memcpy(old->severity, a->severity, sizeof(old->severity));
		*changed = true;
	}
	if (a->score > old->score) {
		old->score = a->score;
		*changed = true;
	}
}

static int update_old(struct bcn_jobdb *db, const struct bcn_anomaly *o,
		      int64_t now)
{
	MYSQL_STMT *s;
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &o->from);
	bcn_jobdb_b_i64(&x, &o->to);
	bcn_jobdb_b_str(&x, o->severity, 0);
	bcn_jobdb_b_f64(&x, &o->score);
	bcn_jobdb_b_str(&x, o->evidence, 0);
	bcn_jobdb_b_str(&x, o->state, 0);
	bcn_jobdb_b_i64(&x, &o->closed);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_u64(&x, &o->id);
	return bcn_jobdb_lazy_exec(db, AS_UPDATE, sql_update, &x, &s);
}

int bcn_jobdb_anomaly_put(struct bcn_jobdb *db, struct bcn_anomaly *a,
			  int64_t gap_ns, int64_t now)
{
	struct bcn_anomaly *old = NULL;
	bool changed = false;
	int rc;

	if (!a->kind[0] || !a->component[0] || a->to < a->from || gap_ns < 0 ||
	    a->njobs > BCN_ANOMALY_JOBS_MAX)
		return bcn_jobdb_fail(db, -EINVAL, "anomaly: kind, component "
				      "and a window are required");
	if (!(old = malloc(sizeof(*old))))
		return bcn_jobdb_fail(db, -ENOMEM, "anomaly: out of memory");
	if ((rc = bcn_jobdb_begin(db)))
		goto out;
	rc = find_same(db, a, gap_ns, old);
	if (rc == 0) {
		rc = insert_new(db, a, now);
	} else if (rc > 0) {
		merge(old, a, &changed);
		rc = add_jobs(db, old->id, a, old->njobs, &changed);
		if (!rc && changed)
			rc = update_old(db, old, now);
		if (!rc) {
			a->id = old->id;
			rc = changed ? BCN_JOBDB_UPDATED : BCN_JOBDB_UNCHANGED;
		}
	}
	if (rc < 0) {
		bcn_jobdb_rollback(db);
	} else {
		int c = bcn_jobdb_commit(db);

		rc = c ? c : rc;
	}
out:
	free(old);
	return rc;
}

/* Binds f's parameters for sql_list (kept alive by the caller). */
struct list_params {
	int64_t since, until;
	uint64_t id, job, limit, offset;
	const char *kind, *component, *state;
};

static void bind_list(struct binds *x, struct list_params *p)
{
	bcn_jobdb_binds_init(x);
	bcn_jobdb_b_i64(x, &p->since);
	bcn_jobdb_b_i64(x, &p->since);
	bcn_jobdb_b_i64(x, &p->until);
	bcn_jobdb_b_i64(x, &p->until);
	bcn_jobdb_b_str(x, p->kind, 0);
	bcn_jobdb_b_str(x, p->kind, 0);
	bcn_jobdb_b_str(x, p->component, 0);
	bcn_jobdb_b_str(x, p->component, 0);
	bcn_jobdb_b_str(x, p->state, 0);
	bcn_jobdb_b_str(x, p->state, 0);
	bcn_jobdb_b_u64(x, &p->id);
	bcn_jobdb_b_u64(x, &p->id);
	bcn_jobdb_b_u64(x, &p->job);
	bcn_jobdb_b_u64(x, &p->job);
	bcn_jobdb_b_u64(x, &p->limit);
	bcn_jobdb_b_u64(x, &p->offset);
}

/* Reads every row of the executed list statement s into a growing
 * array (the jobs of each are read after: one statement at a time). */
static int fetch_all(struct bcn_jobdb *db, MYSQL_STMT *s,
		     struct bcn_anomaly **out, size_t *n)
{
	struct bcn_anomaly row, *v = NULL;
	size_t cap = 0;
	struct binds r;
	int rc;

	*n = 0;
	bind_row(&r, &row);
	if (mysql_stmt_bind_result(s, r.b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct bcn_anomaly *nv = realloc(v, nc * sizeof(*v));

			if (!nv) {
				rc = bcn_jobdb_fail(db, -ENOMEM, "anomalies: "
						    "out of memory");
				goto fail;
			}
			v = nv;
			cap = nc;
		}
		fix_row(&r, &row);
		v[(*n)++] = row;
	}
	if (rc != MYSQL_NO_DATA) {
		rc = bcn_jobdb_sfail(db, s);
		goto fail;
	}
	mysql_stmt_free_result(s);
	*out = v;
	return 0;
fail:
	mysql_stmt_free_result(s);
	free(v);
	*n = 0;
	return rc;
}

int bcn_jobdb_anomalies(struct bcn_jobdb *db, const struct bcn_anomaly_filter *f,
			bcn_anomaly_fn *fn, void *arg)
{
	struct list_params p = {
		.since = f->since, .until = f->until, .id = f->id, .job = f->job,
		.limit = f->limit ? f->limit : 1000, .offset = f->offset,
		.kind = f->kind ? f->kind : "",
		.component = f->component ? f->component : "",
		.state = f->state ? f->state : "",
	};
	struct bcn_anomaly *v = NULL;
	MYSQL_STMT *s;
	struct binds x;
	size_t n = 0;
	int rc;

	bind_list(&x, &p);
	if ((rc = bcn_jobdb_lazy_exec(db, AS_LIST, sql_list, &x, &s)) ||
	    (rc = fetch_all(db, s, &v, &n)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		if ((rc = read_jobs(db, &v[i])))
			break;
		rc = fn(arg, &v[i]);
	}
	free(v);
	return rc;
}

static int take_one(void *arg, const struct bcn_anomaly *a)
{
	*(struct bcn_anomaly *)arg = *a;
	return 1;
}

int bcn_jobdb_anomaly_get(struct bcn_jobdb *db, uint64_t id,
			  struct bcn_anomaly *a)
{
	struct bcn_anomaly_filter f = { .id = id, .limit = 1 };
	int rc;

	if (!id)
		return 0;
	rc = bcn_jobdb_anomalies(db, &f, take_one, a);
	return rc < 0 ? rc : rc == 1 ? 1 : 0;
}

int bcn_jobdb_anomaly_ack(struct bcn_jobdb *db, uint64_t id, const char *user,
			  int64_t now)
{
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, user, 0);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_u64(&x, &id);
	if ((rc = bcn_jobdb_lazy_exec(db, AS_ACK, sql_ack, &x, &s)))
		return rc;
	return mysql_stmt_affected_rows(s) > 0 ? 1 : 0;
}

int bcn_jobdb_anomaly_close_ended(struct bcn_jobdb *db, int64_t ended_before,
				  int64_t now)
{
	MYSQL_STMT *s;
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &ended_before);
	if ((rc = bcn_jobdb_lazy_exec(db, AS_CLOSE, sql_close, &x, &s)))
		return rc;
	return (int)mysql_stmt_affected_rows(s);
}

static int add_time(struct bcn_buf *out, const char *key, int64_t ns)
{
	char t[64];

	if (bcn_timefmt_format(ns, t, sizeof(t)))
		snprintf(t, sizeof(t), "?");
	return bcn_buf_printf(out, ",\"%s\":\"%s\"", key, t);
}

static int add_jobs_json(struct bcn_buf *out, const struct bcn_anomaly *a,
			 const char *key, int role)
{
	int rc = bcn_buf_printf(out, ",\"%s\":[", key);
	bool first = true;

	for (size_t i = 0; !rc && i < a->njobs; i++) {
		if (role >= 0 && a->jobs[i].role != role)
			continue;
		rc = bcn_buf_printf(out, "%s%llu", first ? "" : ",",
				    (unsigned long long)a->jobs[i].job);
		first = false;
	}
	return rc ? rc : bcn_buf_adds(out, "]");
}

int bcn_anomaly_to_json(const struct bcn_anomaly *a, struct bcn_buf *out)
{
	int rc = bcn_buf_printf(out, "{\"id\":%llu,\"kind\":",
				(unsigned long long)a->id);

	rc = rc ? rc : bcn_buf_add_json_str(out, a->kind);
	rc = rc ? rc : bcn_buf_adds(out, ",\"component\":");
	rc = rc ? rc : bcn_buf_add_json_str(out, a->component);
	rc = rc ? rc : add_time(out, "from", a->from);
	rc = rc ? rc : add_time(out, "to", a->to);
	rc = rc ? rc : bcn_buf_adds(out, ",\"severity\":");
	rc = rc ? rc : bcn_buf_add_json_str(out, a->severity);
	rc = rc ? rc : bcn_buf_printf(out, ",\"score\":%.4g,\"evidence\":%s",
				      a->score, a->evidence[0] == '{' ?
				      a->evidence : "{}");
	rc = rc ? rc : add_jobs_json(out, a, "jobs", -1);
	rc = rc ? rc : add_jobs_json(out, a, "accused", BCN_ANOMALY_ACCUSED);
	rc = rc ? rc : bcn_buf_adds(out, ",\"state\":");
	rc = rc ? rc : bcn_buf_add_json_str(out, a->state);
	rc = rc ? rc : add_time(out, "detected", a->detected);
	rc = rc ? rc : add_time(out, "updated", a->updated);
	rc = rc ? rc : bcn_buf_adds(out, ",\"acked_by\":");
	rc = rc ? rc : bcn_buf_add_json_str(out, a->acked_by);
	return rc ? rc : bcn_buf_adds(out, "}");
}
