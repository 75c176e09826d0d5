/* The /proc sampler of beacon-clientd (procmon.h): process listing, the
 * per-process table of baselines, job lookup and the exact split of
 * counter deltas into io records. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/client/procio.h"
#include "collectors/client/procmon.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "proto/record.h"

#define NS_PER_SEC 1000000000LL
#define REL_MAX 64              /* "proc/<pid>/environ" */

const char *const bcn_procmon_scopes[] = { "jobs", "all", NULL };

/* What the table keeps of one process, keyed by (pid, starttime). */
struct bcn_procmon_proc {
	uint32_t pid;
	uint64_t starttime;             /* clock ticks after boot */
	uint64_t job, step;
	int64_t rank;
	uint8_t job_tries;              /* lookups that found no job */
	bool job_done;                  /* stop looking */
	bool have_base;                 /* the counters below are valid */
	uint64_t rchar, wchar, syscr, syscw;
};

int bcn_procmon_init(struct bcn_procmon *m,
		     const struct bcn_procmon_conf *conf)
{
	memset(m, 0, sizeof(*m));
	m->conf = *conf;
	m->btime = -1;
	m->clk_tck = sysconf(_SC_CLK_TCK);
	bcn_buf_init(&m->buf, BCN_PROCMON_FILE_MAX);
	if (!conf->enabled)
		return 0;
	if (conf->max < 1 || conf->max > BCN_PROCMON_MAX_LIMIT)
		return -EINVAL;
	m->cur = calloc((size_t)conf->max, sizeof(*m->cur));
	m->next = calloc((size_t)conf->max, sizeof(*m->next));
	m->pids = calloc((size_t)conf->max, sizeof(*m->pids));
	if (!m->cur || !m->next || !m->pids) {
		bcn_procmon_free(m);
		return -ENOMEM;
	}
	return 0;
}

void bcn_procmon_free(struct bcn_procmon *m)
{
	free(m->cur);
	free(m->next);
	free(m->pids);
	m->cur = m->next = NULL;
	m->pids = NULL;
	m->ncur = 0;
	bcn_buf_free(&m->buf);
}

unsigned bcn_procmon_split(uint64_t ops, uint64_t bytes,
			   struct bcn_procmon_part parts[2])
{
	uint64_t q;

	if (ops == 0 && bytes == 0)
		return 0;
	if (ops == 0) {
		parts[0] = (struct bcn_procmon_part){ 1, bytes };
		return 1;
	}
	q = bytes / ops;
	if (bytes % ops == 0) {
		parts[0] = (struct bcn_procmon_part){ ops, q };
		return 1;
	}
	parts[0] = (struct bcn_procmon_part){ ops - 1, q };
	parts[1] = (struct bcn_procmon_part){ 1, bytes - (ops - 1) * q };
	return 2;
}

static bool gone(int rc)
{
	return rc == -ENOENT || rc == -ESRCH;
}

/* Reads proc/<pid>/<name> below the root into b. Failures other than a
 * process that is gone are reported through c when report is set. */
static int read_proc(struct bcn_collector *c, uint64_t pid, const char *name,
		     struct bcn_buf *b, bool report)
{
	char rel[REL_MAX], path[BCN_COLLECTOR_PATH_MAX];
	int rc;

	bcn_buf_reset(b);
	snprintf(rel, sizeof(rel), "proc/%" PRIu64 "/%s", pid, name);
	rc = bcn_collector_path(c, rel, path, sizeof(path));
	if (!rc)
		rc = bcn_buf_read_file(b, path);
	if (rc && report && !gone(rc))
		bcn_collector_file_error(c, path, rc);
	return rc;
}

/* Reports that proc/<pid>/<name> could not be parsed (rc). */
static void report(struct bcn_collector *c, uint64_t pid, const char *name,
		   int rc)
{
	char rel[REL_MAX], path[BCN_COLLECTOR_PATH_MAX];

	snprintf(rel, sizeof(rel), "proc/%" PRIu64 "/%s", pid, name);
	if (!bcn_collector_path(c, rel, path, sizeof(path)))
		bcn_collector_file_error(c, path, rc);
}

int bcn_procmon_job(struct bcn_collector *c, uint64_t pid, struct bcn_buf *b,
		    struct bcn_procjob *out)
{
	struct bcn_procjob cg, env;
	int rc;

	memset(&cg, 0, sizeof(cg));
	memset(&env, 0, sizeof(env));
	rc = read_proc(c, pid, "cgroup", b, true);
	if (gone(rc))
		return rc;
	if (!rc)
		bcn_procjob_cgroup((const char *)b->data, b->len, &cg);
	rc = read_proc(c, pid, "environ", b, false);
	if (!rc)
		bcn_procjob_environ((const char *)b->data, b->len, &env);
	bcn_procjob_merge(&cg, &env, out);
	return 0;
}

/* Reads btime from proc/stat when unknown or old. */
static void refresh_btime(struct bcn_procmon *m, struct bcn_collector *c)
{
	char path[BCN_COLLECTOR_PATH_MAX];
	int64_t bt;
	int rc;

	if (m->btime >= 0 && ++m->btime_age < BCN_PROCMON_BTIME_EVERY)
		return;
	m->btime_age = 0;
	bcn_buf_reset(&m->buf);
	rc = bcn_collector_read(c, "proc/stat", &m->buf);
	if (rc)
		return;
	rc = bcn_procio_parse_btime((const char *)m->buf.data, m->buf.len,
				    &bt);
	if (rc) {
		if (!bcn_collector_path(c, "proc/stat", path, sizeof(path)))
			bcn_collector_file_error(c, path, rc);
		return;
	}
	m->btime = bt;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Lists the numeric entries of <root>/proc into m->pids, sorted.
 * Returns the count, or a negative code (reported). */
static long list_pids(struct bcn_procmon *m, struct bcn_collector *c)
{
	char path[BCN_COLLECTOR_PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int rc;

	rc = bcn_collector_path(c, "proc", path, sizeof(path));
	if (rc)
		return rc;
	d = opendir(path);
	if (!d) {
		rc = -errno;
		bcn_complain(&m->list_c, BCN_LOG_ERR, "proc sampler: cannot "
			     "list %s: %s", path, bcn_strerror(rc));
		return rc;
	}
	while ((de = readdir(d)) != NULL) {
		char *end;
		unsigned long v;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		errno = 0;
		v = strtoul(de->d_name, &end, 10);
		if (*end || errno || v > UINT32_MAX)
			continue;
		if (n == m->conf.max) {
			m->dropped++;
			continue;
		}
		m->pids[n++] = (uint32_t)v;
	}
	closedir(d);
	bcn_complain_release(&m->list_c, BCN_LOG_NOTICE,
			     "proc sampler: %s listed again", path);
	qsort(m->pids, n, sizeof(*m->pids), cmp_pid);
	return (long)n;
}

/* Whether a process that started starttime ticks after boot started at
 * most the slack before t (ns since the epoch). */
static bool started_since(const struct bcn_procmon *m, uint64_t starttime,
			  int64_t t)
{
	uint64_t tck, s;

	if (m->btime < 0 || m->clk_tck <= 0)
		return false;
	tck = (uint64_t)m->clk_tck;
	s = starttime / tck;
	if (s > (uint64_t)INT32_MAX * 4)
		return false;
	return (m->btime + (int64_t)s) * NS_PER_SEC +
	       (int64_t)((starttime % tck) * NS_PER_SEC / tck) +
	       BCN_PROCMON_START_SLACK_NS >= t;
}

/* Adds the records of n operations op that moved bytes bytes. */
static void emit(struct bcn_procmon *m, struct bcn_collector *c,
		 const struct bcn_procmon_proc *e, unsigned op, uint64_t n,
		 uint64_t bytes, int64_t t, int64_t dur)
{
	struct bcn_procmon_part parts[2];
	unsigned k = bcn_procmon_split(n, bytes, parts);
	struct bcn_record r;

	for (unsigned i = 0; i < k; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.t = t;
		r.dur = dur;
		r.job = e->job;
		r.u.io.step = e->job ? e->step : 0;
		r.u.io.rank = e->rank;
		r.u.io.pid = e->pid;
		r.u.io.op = op;
		r.u.io.fd = -1;
		r.u.io.count = parts[i].count;
		r.u.io.size = parts[i].size;
		if (bcn_collector_add(c, &r))
			m->emit_errors++;
		else
			m->records++;
	}
}

/* Looks for the job of e while it is not known and tries are left.
 * Returns 0 or -ENOENT / -ESRCH when the process is gone. */
static int find_job(struct bcn_procmon *m, struct bcn_collector *c,
		    struct bcn_procmon_proc *e)
{
	struct bcn_procjob j;
	int rc;

	if (e->job_done)
		return 0;
	rc = bcn_procmon_job(c, e->pid, &m->buf, &j);
	if (rc)
		return rc;
	e->rank = j.has_rank ? j.rank : -1;
	if (j.has_job) {
		e->job = j.job;
		e->step = j.step;
		e->job_done = true;
	} else if (++e->job_tries >= BCN_PROCMON_JOB_TRIES) {
		e->job_done = true;
	}
	return 0;
}

/* Compares the counters in io with e's baseline (or with zero for a
 * process that started inside the window), emits the growth and makes io
 * the baseline. */
static void account(struct bcn_procmon *m, struct bcn_collector *c,
		    struct bcn_procmon_proc *e, const struct bcn_procio *io,
		    uint64_t starttime, int64_t t, int64_t dur)
{
	struct bcn_procmon_proc zero = { 0 };
	const struct bcn_procmon_proc *b = e;

	if (!e->have_base) {
		if (!started_since(m, starttime, t))
			goto base;
		m->started++;
		b = &zero;
	}
	if (io->rchar < b->rchar || io->wchar < b->wchar ||
	    io->syscr < b->syscr || io->syscw < b->syscw) {
		m->resets++;
		goto base;
	}
	emit(m, c, e, BCN_IO_READ, io->syscr - b->syscr, io->rchar - b->rchar,
	     t, dur);
	emit(m, c, e, BCN_IO_WRITE, io->syscw - b->syscw,
	     io->wchar - b->wchar, t, dur);
base:
	e->rchar = io->rchar;
	e->wchar = io->wchar;
	e->syscr = io->syscr;
	e->syscw = io->syscw;
	e->have_base = true;
}

/* Samples one process into *e, from its previous entry prev (same pid,
 * or NULL). Returns true when *e is to be kept. */
static bool sample_proc(struct bcn_procmon *m, struct bcn_collector *c,
			uint32_t pid, const struct bcn_procmon_proc *prev,
			struct bcn_procmon_proc *e, int64_t t, int64_t dur)
{
	struct bcn_procstat st;
	struct bcn_procio io;
	int rc;

	rc = read_proc(c, pid, "stat", &m->buf, true);
	if (!rc && (rc = bcn_procio_parse_stat((const char *)m->buf.data,
					       m->buf.len, &st, NULL)) != 0)
		report(c, pid, "stat", rc);
	if (rc) {
		if (gone(rc))
			m->vanished++;
		else
			m->unreadable++;
		return false;
	}
	if (prev && prev->starttime == st.starttime) {
		*e = *prev;
	} else {
		if (prev)
			m->reused++;
		memset(e, 0, sizeof(*e));
		e->pid = pid;
		e->starttime = st.starttime;
		e->rank = -1;
	}
	rc = find_job(m, c, e);
	if (rc) {
		m->vanished++;
		return false;
	}
	if (m->conf.scope != BCN_PROCMON_SCOPE_ALL && e->job == 0) {
		e->have_base = false;
		return true;
	}
	m->tracked++;
	rc = read_proc(c, pid, "io", &m->buf, true);
	if (!rc && (rc = bcn_procio_parse_io((const char *)m->buf.data,
					     m->buf.len, &io, NULL)) != 0)
		report(c, pid, "io", rc);
	if (rc) {
		if (gone(rc)) {
			m->vanished++;
			return false;
		}
		m->unreadable++;
		e->have_base = false;
		return true;
	}
	account(m, c, e, &io, st.starttime, t, dur);
	return true;
}

int bcn_procmon_sample(struct bcn_procmon *m, struct bcn_collector *c,
		       int64_t t, int64_t dur)
{
	struct bcn_procmon_proc *tmp;
	size_t i, j = 0, n = 0;
	long np;

	if (!m->conf.enabled || !m->cur)
		return 0;
	m->samples++;
	refresh_btime(m, c);
	np = list_pids(m, c);
	if (np < 0)
		return (int)np;
	m->procs = (uint64_t)np;
	m->tracked = 0;
	for (i = 0; i < (size_t)np; i++) {
		const struct bcn_procmon_proc *prev = NULL;

		while (j < m->ncur && m->cur[j].pid < m->pids[i])
			j++;
		if (j < m->ncur && m->cur[j].pid == m->pids[i])
			prev = &m->cur[j];
		if (sample_proc(m, c, m->pids[i], prev, &m->next[n], t, dur))
			n++;
	}
	tmp = m->cur;
	m->cur = m->next;
	m->next = tmp;
	m->ncur = n;
	return 0;
}
