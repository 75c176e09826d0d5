/* The OSS/MDS sampler: target list upkeep, reading each target's files
 * (through lustre_tree.c), the parsers, per-entity deltas in three counter
 * tables (targets, exports, jobs: each swept when its files are read),
 * the CPU budget of the export and job reads, and the records. Entities
 * are named "<kind>/<target>" or
 * "<kind>/<target>/<nid or job id>" with kind "stats" (the target's
 * stats), "brw" (brw_stats histograms), "export" or "job"; a target name
 * is a directory entry and never holds '/', so names cannot collide. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/lustre/lustre_hist.h"
#include "collectors/lustre/lustre_jobstats.h"
#include "collectors/lustresrv/lustre_server.h"
#include "collectors/lustre/lustre_stats.h"
#include "collectors/runtime/collector.h"
#include "collectors/runtime/counter.h"
#include "common/error.h"
#include "common/log.h"

#define ENT_STATS "stats"
#define ENT_BRW "brw"
#define ENT_EXPORT "export"
#define ENT_JOB "job"

/* Entities of the target table: stats and brw of each target. */
#define TARGET_ENTITIES (2 * BCN_LUSTRE_TARGETS_MAX)
#define TARGET_FORGET 3                 /* samples a target may miss */
#define NEVER INT64_MIN                 /* no read yet */

/* brw_stats vector: pages read, pages write, I/O time read, write. */
#define BRW_VEC (4 * BCN_HIST_BUCKETS)
#define VEC_MAX BRW_VEC
_Static_assert(BCN_LUSTRE_SLOTS_MAX <= VEC_MAX, "vector sizes");
_Static_assert(VEC_MAX <= BCN_COUNTER_VEC_MAX, "counter vector bound");

/* Targets whose files were not all found are resolved again this often
 * (in samples); a file that goes missing is resolved again at once. */
#define RESOLVE_EVERY 60

struct srv_target {
	struct bcn_lustre_target t;
	uint32_t gen;           /* listing in which it was last seen */
	bool fresh;             /* appeared after the first sample */
	bool reresolve;         /* a resolved file went missing */
	int64_t jobs_ns;        /* last job_stats read, NEVER if it failed */
	int64_t exports_ns;     /* last exports read, NEVER if it failed */
};

struct bcn_lustre_server {
	struct bcn_lustre_server_conf conf;
	char root[BCN_LUSTRE_PATH_MAX];
	struct bcn_lustre_map map;
	struct bcn_counter_table *tab;          /* targets: stats, brw */
	struct bcn_counter_table *jtab;         /* jobs */
	struct bcn_counter_table *etab;         /* exports */
	int64_t jobs_last, exports_last;        /* last rounds, or NEVER */
	int64_t jobs_cost, exports_cost;        /* their CPU time, ns */
	int64_t stretch;                        /* period for the budget */
	struct srv_target *tg;
	size_t ntg, captg;
	uint32_t gen;
	char *chunk;                    /* BCN_LUSTRE_CHUNK bytes */
	char *small;                    /* BCN_LUSTRE_SMALL_MAX bytes */
	struct bcn_lustre_brw *brw;
	struct bcn_lustre_jobstats js;
	struct bcn_lustre_server_stats st;
	struct bcn_complain empty_ids;
	struct bcn_complain no_targets;
	struct bcn_complain too_many;
	/* the sample in progress */
	const struct bcn_lustre_server_host *host;
	struct srv_target *cur;
	int64_t t_ns, now_ns;
	uint64_t malformed;
	uint64_t vec[VEC_MAX];
	uint64_t delta[VEC_MAX];
	char entity[BCN_COUNTER_ENTITY_MAX];
};

static bool is_ost(const struct bcn_lustre_server *s)
{
	return s->conf.role == BCN_LUSTRE_OST;
}

static void file_error(struct bcn_lustre_server *s, const char *path, int rc)
{
	s->st.file_errors++;
	if (s->host->file_error)
		s->host->file_error(s->host->arg, path, rc);
}

static void emit(struct bcn_lustre_server *s, const struct bcn_record *r)
{
	if (s->host->emit(s->host->arg, r) < 0)
		s->st.emit_errors++;
	else
		s->st.records++;
}

/* Writes "kind/target[/extra]" to s->entity. Returns 0, or -BCN_EFULL. */
static int entity_name(struct bcn_lustre_server *s, const char *kind,
		       const char *extra)
{
	size_t k = strlen(kind), t = strlen(s->cur->t.name);
	size_t x = extra ? strlen(extra) : 0;
	char *e = s->entity;

	if (k + t + x + 3 > sizeof(s->entity))
		return -BCN_EFULL;
	memcpy(e, kind, k);
	e[k] = '/';
	memcpy(e + k + 1, s->cur->t.name, t);
	e += k + 1 + t;
	if (extra) {
		*e++ = '/';
		memcpy(e, extra, x);
		e += x;
	}
	*e = '\0';
	return 0;
}

/* Feeds the current values of one entity to table tab. Returns 1 with
 * the deltas in s->delta and the interval start in *t; 0 when there are
 * none (first sight without a baseline, or no room); -ENOMEM. base is
 * the time since which an entity seen for the first time has counted
 * (its file was read then without it), or NEVER when unknown: the first
 * sight then only learns the values. */
static int track(struct bcn_lustre_server *s, struct bcn_counter_table *tab,
		 const char *kind, const char *extra, const uint64_t *cur,
		 size_t n, int64_t base, int64_t *t)
{
	int64_t prev = s->t_ns;
	int rc;

	if (entity_name(s, kind, extra))
		return 0;
	rc = bcn_counter_update(tab, s->entity, cur, NULL, n, s->now_ns,
				s->delta, NULL, &prev);
	if (rc == -BCN_EFULL) {
		s->st.table_full++;
		return 0;
	}
	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	if (rc & BCN_COUNTER_F_FIRST) {
		if (base == NEVER)
			return 0;
		memcpy(s->delta, cur, n * sizeof(cur[0]));
		prev = base;
	}
	*t = prev;
	return 1;
}

/* The baseline of a whole target: the previous sample if it appeared
 * since, else none. */
static int64_t target_base(const struct bcn_lustre_server *s)
{
	return s->cur->fresh ? s->t_ns : NEVER;
}

static void rec_start(const struct bcn_lustre_server *s, struct bcn_record *r)
{
	bcn_record_init(r, is_ost(s) ? BCN_REC_OST : BCN_REC_MDS);
}

/* Sets the interval, the names and the job of r. */
static void rec_finish(const struct bcn_lustre_server *s,
		       struct bcn_record *r, int64_t t, const char *client,
		       const char *jobid, size_t jobid_len)
{
	r->t = t;
	r->dur = s->now_ns > t ? s->now_ns - t : 0;
	if (jobid_len)
		bcn_lustre_jobid_slurm(jobid, jobid_len, &r->job);
	if (is_ost(s)) {
		r->u.ost.target = s->cur->t.name;
		r->u.ost.client = client;
		r->u.ost.jobid = jobid;
	} else {
		r->u.mds.target = s->cur->t.name;
		r->u.mds.client = client;
		r->u.mds.jobid = jobid;
	}
}

/* Copies the deltas of the map's slots into r. */
static void rec_vals(const struct bcn_lustre_server *s, struct bcn_record *r,
		     const uint64_t *d)
{
	unsigned i;

	if (is_ost(s)) {
		for (i = 0; i < BCN_OST_OP_MAX; i++)
			r->u.ost.ops[i] = d[i];
		r->u.ost.read_bytes = d[BCN_LUSTRE_OST_READ_BYTES];
		r->u.ost.write_bytes = d[BCN_LUSTRE_OST_WRITE_BYTES];
	} else {
		for (i = 0; i < BCN_MD_OP_MAX; i++)
			r->u.mds.ops[i] = d[i];
	}
}

/* Reads a stats-sized file into s->small. */
static int read_small(struct bcn_lustre_server *s, const char *path,
		      size_t *n)
{
	int rc = bcn_lustre_read_at(AT_FDCWD, path, s->small,
				    BCN_LUSTRE_SMALL_MAX, n);

	if (rc == 0)
		s->st.files++;
	return rc;
}

/* A file of the current target failed: report it, and look for the
 * target's files again if it is gone. */
static void target_file_error(struct bcn_lustre_server *s, const char *path,
			      int rc)
{
	file_error(s, path, rc);
	if (rc == -ENOENT || rc == -ENOTDIR)
		s->cur->reresolve = true;
}

/* The target's stats into r. Returns 1 if r got deltas, else 0 (or
 * -ENOMEM). */
static int target_stats(struct bcn_lustre_server *s, struct bcn_record *r,
			int64_t *t)
{
	struct srv_target *tg = s->cur;
	struct bcn_lustre_stats st;
	size_t n;
	int rc;

	rc = read_small(s, tg->t.stats, &n);
	if (rc) {
		target_file_error(s, tg->t.stats, rc);
		return 0;
	}
	rc = bcn_lustre_stats_parse(s->small, n, &s->map, &st);
	s->malformed += st.malformed;
	if (rc) {
		file_error(s, tg->t.stats, rc);
		return 0;
	}
	rc = track(s, s->tab, ENT_STATS, NULL, st.vals.v, s->map.nslots,
		   target_base(s), t);
	if (rc == 1)
		rec_vals(s, r, s->delta);
	return rc;
}

/* The target's brw_stats histograms into r. Returns as target_stats. */
static int target_brw(struct bcn_lustre_server *s, struct bcn_record *r,
		      int64_t *t)
{
	struct srv_target *tg = s->cur;
	uint64_t *v = s->vec;
	size_t n;
	int rc;

	rc = read_small(s, tg->t.brw_stats, &n);
	if (rc) {
		target_file_error(s, tg->t.brw_stats, rc);
		return 0;
	}
	rc = bcn_lustre_brw_parse(s->small, n, s->brw);
	s->malformed += s->brw->c.malformed;
	if (rc) {
		file_error(s, tg->t.brw_stats, rc);
		return 0;
	}
	memset(v, 0, BRW_VEC * sizeof(v[0]));
	bcn_lustre_hist_log2(&s->brw->sec[BCN_BRW_PAGES], 0, v);
	bcn_lustre_hist_log2(&s->brw->sec[BCN_BRW_PAGES], 1,
			     v + BCN_HIST_BUCKETS);
	bcn_lustre_hist_log2(&s->brw->sec[BCN_BRW_IO_TIME], 0,
			     v + 2 * BCN_HIST_BUCKETS);
	bcn_lustre_hist_log2(&s->brw->sec[BCN_BRW_IO_TIME], 1,
			     v + 3 * BCN_HIST_BUCKETS);
	rc = track(s, s->tab, ENT_BRW, NULL, v, BRW_VEC, target_base(s), t);
	if (rc != 1)
		return rc;
	memcpy(r->u.ost.pages_read, s->delta, sizeof(r->u.ost.pages_read));
	memcpy(r->u.ost.pages_write, s->delta + BCN_HIST_BUCKETS,
	       sizeof(r->u.ost.pages_write));
	memcpy(r->u.ost.iotime_read, s->delta + 2 * BCN_HIST_BUCKETS,
	       sizeof(r->u.ost.iotime_read));
	memcpy(r->u.ost.iotime_write, s->delta + 3 * BCN_HIST_BUCKETS,
	       sizeof(r->u.ost.iotime_write));
	return 1;
}

/* The whole-target record. */
static int sample_target(struct bcn_lustre_server *s)
{
	struct srv_target *tg = s->cur;
	int64_t t = s->t_ns, tb = s->t_ns;
	struct bcn_record r;
	int have = 0, rc;

	rec_start(s, &r);
	if (tg->t.stats[0]) {
		rc = target_stats(s, &r, &t);
		if (rc < 0)
			return rc;
		have = rc;
	}
	if (is_ost(s) && s->conf.brw && tg->t.brw_stats[0]) {
		rc = target_brw(s, &r, &tb);
		if (rc < 0)
			return rc;
		if (rc && !have)
			t = tb;
		have |= rc;
	}
	if (have) {
		rec_finish(s, &r, t, "", "", 0);
		emit(s, &r);
	}
	return 0;
}

/* One export: <exports>/<nid>/stats. */
static int sample_export(struct bcn_lustre_server *s, int dfd,
			 const char *nid)
{
	char rel[BCN_LUSTRE_TARGET_MAX + 256 + 8];
	struct srv_target *tg = s->cur;
	size_t n, nlen = strlen(nid);
	struct bcn_lustre_stats st;
	struct bcn_record r;
	int64_t t;
	int rc;

	if (nlen + sizeof("/stats") > sizeof(rel))
		return 0;
	memcpy(rel, nid, nlen);
	memcpy(rel + nlen, "/stats", sizeof("/stats"));
	rc = bcn_lustre_read_at(dfd, rel, s->small, BCN_LUSTRE_SMALL_MAX, &n);
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;       /* a client that just left, or not an export */
	if (rc == 0)
		rc = bcn_lustre_stats_parse(s->small, n, &s->map, &st);
	if (rc) {
		char path[BCN_LUSTRE_PATH_MAX + sizeof(rel)];

		snprintf(path, sizeof(path), "%s/%s", tg->t.exports, rel);
		file_error(s, path, rc);
		return 0;
	}
	s->st.files++;
	s->st.exports++;
	s->malformed += st.malformed;
	rc = track(s, s->etab, ENT_EXPORT, nid, st.vals.v, s->map.nslots,
		   tg->fresh ? s->t_ns : tg->exports_ns, &t);
	if (rc != 1)
		return rc;
	if (!s->conf.idle && bcn_counter_all_zero(s->delta, s->map.nslots))
		return 0;
	rec_start(s, &r);
	rec_vals(s, &r, s->delta);
	rec_finish(s, &r, t, nid, "", 0);
	emit(s, &r);
	return 0;
}

static int sample_exports(struct bcn_lustre_server *s)
{
	struct srv_target *tg = s->cur;
	struct dirent *e;
	int rc = 0;
	DIR *d;

	d = opendir(tg->t.exports);
	if (!d) {
		target_file_error(s, tg->t.exports, -errno);
		tg->exports_ns = NEVER;
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || e->d_type == DT_REG)
			continue;
		rc = sample_export(s, dirfd(d), e->d_name);
		if (rc < 0)
			break;
	}
	closedir(d);
	tg->exports_ns = rc == 0 ? s->now_ns : NEVER;
	return rc;
}

static int job_cb(void *arg, const struct bcn_lustre_job *job)
{
	struct bcn_lustre_server *s = arg;
	struct srv_target *tg = s->cur;
	struct bcn_record r;
	int64_t t;
	int rc;

	rc = track(s, s->jtab, ENT_JOB, job->jobid, job->vals.v, s->map.nslots,
		   tg->fresh ? s->t_ns : tg->jobs_ns, &t);
	if (rc != 1)
		return rc;
	if (!s->conf.idle && bcn_counter_all_zero(s->delta, s->map.nslots))
		return 0;
	rec_start(s, &r);
	rec_vals(s, &r, s->delta);
	rec_finish(s, &r, t, "", job->jobid, job->jobid_len);
	emit(s, &r);
	return 0;
}

static int job_chunk(void *arg, const char *chunk, size_t n)
{
	struct bcn_lustre_server *s = arg;

	return bcn_lustre_jobstats_feed(&s->js, chunk, n);
}

static int sample_jobs(struct bcn_lustre_server *s)
{
	struct srv_target *tg = s->cur;
	struct bcn_lustre_jobstats *js = &s->js;
	int rc;

	bcn_lustre_jobstats_init(js, &s->map, job_cb, s);
	rc = bcn_lustre_stream(tg->t.job_stats, s->chunk, BCN_LUSTRE_CHUNK,
			       job_chunk, s);
	if (rc == 0)
		rc = bcn_lustre_jobstats_finish(js);
	s->st.jobs += js->jobs;
	s->st.empty_jobids += js->empty_ids;
	s->st.bad_jobids += js->bad_ids;
	s->malformed += js->malformed;
	if (js->empty_ids)
		bcn_complain(&s->empty_ids, BCN_LOG_NOTICE,
			     "%s: skipped %u job_stats entries with an empty "
			     "job_id", tg->t.name, js->empty_ids);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		target_file_error(s, tg->t.job_stats, rc);
		tg->jobs_ns = NEVER;
		return 0;
	}
	s->st.files++;
	tg->jobs_ns = s->now_ns;
	return 0;
}

static int add_target(void *arg, const char *name)
{
	struct bcn_lustre_server *s = arg;
	struct srv_target *tg;
	size_t i;
	int rc;

	for (i = 0; i < s->ntg; i++) {
		if (strcmp(s->tg[i].t.name, name) == 0) {
			s->tg[i].gen = s->gen;
			return 0;
		}
	}
	if (s->ntg == BCN_LUSTRE_TARGETS_MAX) {
		bcn_complain(&s->too_many, BCN_LOG_WARNING,
			     "more than %d targets below %s; ignoring %s",
			     BCN_LUSTRE_TARGETS_MAX, s->root, name);
		return 0;
	}
	if (s->ntg == s->captg) {
		size_t cap = s->captg ? 2 * s->captg : 16;

		tg = realloc(s->tg, cap * sizeof(*tg));
		if (!tg)
			return -ENOMEM;
		s->tg = tg;
		s->captg = cap;
	}
	tg = &s->tg[s->ntg];
	memset(tg, 0, sizeof(*tg));
	rc = bcn_lustre_resolve(s->root, s->conf.role, name, &tg->t);
	if (rc) {
		BCN_WARN("target %s: cannot resolve its files: %s", name,
			 bcn_strerror(rc));
		return 0;
	}
	tg->gen = s->gen;
	tg->fresh = s->st.samples > 0;
	tg->jobs_ns = tg->exports_ns = NEVER;
	s->ntg++;
	BCN_INFO("target %s: stats '%s', job_stats '%s', brw_stats '%s', "
		 "exports '%s'", name, tg->t.stats, tg->t.job_stats,
		 tg->t.brw_stats, tg->t.exports);
	return 0;
}

/* Lists the targets: adds new ones, drops the ones gone, resolves again
 * the files of those that lost one (or lack one, now and then). */
static int refresh_targets(struct bcn_lustre_server *s)
{
	size_t i, j = 0;
	bool periodic = s->st.samples % RESOLVE_EVERY == RESOLVE_EVERY - 1;
	int rc;

	s->gen++;
	rc = bcn_lustre_list_targets(s->root, s->conf.role, add_target, s);
	if (rc < 0)
		return rc;
	for (i = 0; i < s->ntg; i++) {
		struct srv_target *tg = &s->tg[i];
		bool incomplete = !tg->t.stats[0] || !tg->t.job_stats[0] ||
				  !tg->t.exports[0] ||
				  (is_ost(s) && !tg->t.brw_stats[0]);

		if (tg->gen != s->gen) {
			BCN_NOTICE("target %s is gone", tg->t.name);
			continue;
		}
		if (tg->reresolve || (periodic && incomplete)) {
			bcn_lustre_resolve(s->root, s->conf.role, tg->t.name,
					   &tg->t);
			tg->reresolve = false;
		}
		if (j != i)
			s->tg[j] = *tg;
		j++;
	}
	s->ntg = j;
	if (s->ntg == 0)
		bcn_complain(&s->no_targets, BCN_LOG_WARNING,
			     "no %s targets below %s",
			     is_ost(s) ? "OST" : "MDT", s->root);
	else
		bcn_complain_release(&s->no_targets, BCN_LOG_NOTICE,
				     "found %zu targets below %s", s->ntg,
				     s->root);
	return 0;
}

int64_t bcn_lustre_server_period(int64_t cost_ns, uint64_t budget_us)
{
	if (budget_us == 0 || cost_ns <= 0)
		return 0;
	if (cost_ns > INT64_MAX / 1000000)
		return INT64_MAX;
	return cost_ns * 1000000 / (int64_t)budget_us;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether a round of reads last done at last is due now: never done, or
 * its period (the larger of every and the budget's) has passed, within
 * half a sample interval so that sampling jitter does not skip one. */
static bool due(const struct bcn_lustre_server *s, int64_t last,
		int64_t every)
{
	int64_t period = every > s->stretch ? every : s->stretch;

	if (last == NEVER || period <= 0)
		return true;
	return s->now_ns - last >= period - (s->now_ns - s->t_ns) / 2;
}

/* One round of export (or job) reads over all targets, when due; new
 * targets are read at once whatever the round. Returns 0 or -ENOMEM. */
static int detail_round(struct bcn_lustre_server *s, bool jobs)
{
	bool on = jobs ? s->conf.jobs : s->conf.exports;
	int64_t *last = jobs ? &s->jobs_last : &s->exports_last;
	int64_t every = jobs ? s->conf.jobs_every_ns : s->conf.exports_every_ns;
	bool now = on && due(s, *last, every);
	int64_t cpu0 = thread_cpu_ns();
	size_t i;
	int rc = 0;

	for (i = 0; on && rc == 0 && i < s->ntg; i++) {
		struct srv_target *tg = &s->tg[i];

		if (!now && !tg->fresh)
			continue;
		s->cur = tg;
		if (jobs && tg->t.job_stats[0])
			rc = sample_jobs(s);
		else if (!jobs && tg->t.exports[0])
			rc = sample_exports(s);
	}
	if (!now)
		return rc;
	*last = s->now_ns;
	*(jobs ? &s->jobs_cost : &s->exports_cost) = thread_cpu_ns() - cpu0;
	*(jobs ? &s->st.job_reads : &s->st.export_reads) += 1;
	bcn_counter_sweep(jobs ? s->jtab : s->etab);
	return rc;
}

int bcn_lustre_server_sample(struct bcn_lustre_server *s, int64_t t_ns,
			     int64_t dur_ns,
			     const struct bcn_lustre_server_host *host)
{
	int64_t stretch;
	size_t i;
	int rc;

	s->host = host;
	s->t_ns = t_ns;
	s->now_ns = t_ns + (dur_ns > 0 ? dur_ns : 0);
	s->malformed = 0;
	rc = refresh_targets(s);
	for (i = 0; rc == 0 && i < s->ntg; i++) {
		s->cur = &s->tg[i];
		rc = sample_target(s);
	}
	bcn_counter_sweep(s->tab);
	if (rc == 0)
		rc = detail_round(s, false);
	if (rc == 0)
		rc = detail_round(s, true);
	for (i = 0; i < s->ntg; i++)
		s->tg[i].fresh = false;
	stretch = bcn_lustre_server_period(s->jobs_cost + s->exports_cost,
					   s->conf.budget_us);
	if (stretch > 2 * s->stretch && stretch > dur_ns)
		BCN_INFO("job_stats and exports reads take %lld us of CPU: "
			 "reading them every %lld ms for the CPU budget",
			 (long long)((s->jobs_cost + s->exports_cost) / 1000),
			 (long long)(stretch / 1000000));
	s->stretch = stretch;
	s->st.detail_cost_ns = s->jobs_cost + s->exports_cost;
	s->st.detail_period_ns = stretch;
	if (s->malformed && host->skipped)
		host->skipped(host->arg, s->malformed);
	s->st.malformed += s->malformed;
	s->st.samples++;
	s->st.targets = s->ntg;
	s->cur = NULL;
	return rc;
}

int bcn_lustre_server_new(const struct bcn_lustre_server_conf *conf,
			  struct bcn_lustre_server **out)
{
	struct bcn_lustre_server *s;
	size_t rlen;
	int rc;

	if (!conf->root || (conf->role != BCN_LUSTRE_OST &&
			    conf->role != BCN_LUSTRE_MDT))
		return -EINVAL;
	rlen = strlen(conf->root);
	if (rlen == 0 || rlen >= BCN_LUSTRE_PATH_MAX)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->conf = *conf;
	memcpy(s->root, conf->root, rlen + 1);
	s->conf.root = s->root;
	if (conf->role == BCN_LUSTRE_OST)
		rc = bcn_lustre_map_init(&s->map, bcn_lustre_ost_fields,
					 bcn_lustre_ost_nfields,
					 BCN_LUSTRE_OST_SLOTS);
	else
		rc = bcn_lustre_map_init(&s->map, bcn_lustre_md_fields,
					 bcn_lustre_md_nfields,
					 BCN_LUSTRE_MD_SLOTS);
	if (rc)
		goto fail;
	s->jobs_last = s->exports_last = NEVER;
	rc = bcn_counter_table_new("targets", TARGET_ENTITIES, TARGET_FORGET,
				   &s->tab);
	if (!rc)
		rc = bcn_counter_table_new("jobs", conf->max_entities,
					   conf->forget_after, &s->jtab);
	if (!rc)
		rc = bcn_counter_table_new("exports", conf->max_entities,
					   conf->forget_after, &s->etab);
	if (rc)
		goto fail;
	s->chunk = malloc(BCN_LUSTRE_CHUNK);
	s->small = malloc(BCN_LUSTRE_SMALL_MAX);
	s->brw = malloc(sizeof(*s->brw));
	if (!s->chunk || !s->small || !s->brw) {
		rc = -ENOMEM;
		goto fail;
	}
	*out = s;
	return 0;
fail:
	bcn_lustre_server_free(s);
	return rc;
}

void bcn_lustre_server_free(struct bcn_lustre_server *s)
{
	if (!s)
		return;
	bcn_counter_table_free(s->tab);
	bcn_counter_table_free(s->jtab);
	bcn_counter_table_free(s->etab);
	free(s->tg);
	free(s->chunk);
	free(s->small);
	free(s->brw);
	free(s);
}

void bcn_lustre_server_stats(const struct bcn_lustre_server *s,
			     struct bcn_lustre_server_stats *st)
{
	*st = s->st;
}

static int host_emit(void *arg, const struct bcn_record *r)
{
	return bcn_collector_add(arg, r);
}

static void host_file_error(void *arg, const char *path, int rc)
{
	bcn_collector_file_error(arg, path, rc);
}

static void host_skipped(void *arg, uint64_t lines)
{
	bcn_collector_skipped(arg, lines);
}

void bcn_lustre_server_host_init(struct bcn_lustre_server_host *h,
				 struct bcn_collector *c)
{
	h->emit = host_emit;
	h->file_error = host_file_error;
	h->skipped = host_skipped;
	h->arg = c;
}
