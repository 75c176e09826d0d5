/* /api/v1/jobs (search) and /api/v1/jobs/ID (the per-job report, as
 * `beacon job ID --json` prints it), under the access rules: a user's
 * search is always of their own jobs, whatever user= says, and another
 * user's job is 404, as a job that does not exist (its existence is not
 * told). The report comes from the Redis cache when it holds it
 * (X-Beacon-Cache: hit), else it is computed and cached (miss). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "web/access.h"
#include "web/web_int.h"

#define DAY_NS (86400ll * 1000000000ll)

struct listing {
	struct bcn_buf *out;
	uint64_t n;
};

static void iso(int64_t ns, char *out, size_t n)
{
	if (!ns || bcn_timefmt_format(ns, out, n))
		snprintf(out, n, "null");
}

static int job_json(void *arg, const struct bcn_job *j,
		    const struct bcn_jobdb_usage *u)
{
	char start[BCN_TIMEFMT_OUT_MAX + 2], end[BCN_TIMEFMT_OUT_MAX + 2];
	struct listing *l = arg;
	struct bcn_buf *b = l->out;
	int rc;

	iso(j->start, start, sizeof(start));
	iso(j->end, end, sizeof(end));
	rc = bcn_buf_printf(b, "%s{\"job\":%" PRIu64 ",\"user\":",
			    l->n ? "," : "", j->id);
	if (!rc)
		rc = bcn_buf_add_json_str(b, j->user);
	if (!rc)
		rc = bcn_buf_adds(b, ",\"name\":");
	if (!rc)
		rc = bcn_buf_add_json_str(b, j->name);
	if (!rc)
		rc = bcn_buf_adds(b, ",\"nodelist\":");
	if (!rc)
		rc = bcn_buf_add_json_str(b, j->nodelist);
	if (!rc)
		rc = bcn_buf_printf(b, ",\"nnodes\":%" PRIu64 ",\"start\":%s%s%s,"
				    "\"end\":%s%s%s,\"state\":\"%s\"", j->nnodes,
				    j->start ? "\"" : "", start,
				    j->start ? "\"" : "", j->end ? "\"" : "",
				    end, j->end ? "\"" : "",
				    bcn_job_state_name(j->state));
	if (!rc && u)
		rc = bcn_buf_printf(b, ",\"read_bytes\":%" PRIu64 ",\"write_bytes\""
				    ":%" PRIu64 ",\"mode\":\"%s\"", u->read_bytes,
				    u->write_bytes, u->mode);
	if (!rc)
		rc = bcn_buf_adds(b, "}");
	l->n++;
	return rc;
}

/* The search's filter from the query; 0 or -EINVAL with p set. */
static int filter(struct bcn_web_req *q, struct bcn_web_resp *p,
		  struct bcn_jobdb_filter *f)
{
	const struct bcn_web_config *c = q->w->cfg;
	const char *state, *user;
	int64_t from, to;

	if (bcn_web_param_range(q, p, 7 * DAY_NS, c->range_max_ms * 1000000,
				&from, &to) ||
	    bcn_web_param_word(q, p, "user", BCN_USER_NAME_MAX, &user) ||
	    bcn_web_param_word(q, p, "state", 16, &state) ||
	    bcn_web_param_word(q, p, "mode", 8, &f->mode) ||
	    bcn_web_param_u64(q, p, "min_bytes", 0, 0, UINT64_MAX,
			      &f->min_bytes) ||
	    bcn_web_param_u64(q, p, "limit", 100, 1, c->page_max, &f->limit) ||
	    bcn_web_param_u64(q, p, "offset", 0, 0, 1000000, &f->offset))
		return -EINVAL;
	f->since = from;
	f->until = to;
	f->state = -1;
	if (state[0] && (f->state = bcn_job_state_parse(state,
							strlen(state))) < 0) {
		bcn_web_error(p, 400, "unknown job state", "state");
		return -EINVAL;
	}
	if (f->mode[0] && strcmp(f->mode, "N-N") && strcmp(f->mode, "N-1") &&
	    strcmp(f->mode, "N-M") && strcmp(f->mode, "1-1") &&
	    strcmp(f->mode, "mixed") && strcmp(f->mode, "none")) {
		bcn_web_error(p, 400, "unknown I/O mode", "mode");
		return -EINVAL;
	}
	/* a user searches their own jobs only */
	f->user = q->who.role == BCN_ROLE_ADMIN ? user : q->who.user;
	return 0;
}

int bcn_web_jobs(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	struct bcn_jobdb_filter f;
	struct listing l = { &p->body, 0 };
	int rc;

	memset(&f, 0, sizeof(f));
	if (filter(q, p, &f))
		return 0;
	rc = bcn_buf_adds(&p->body, "{\"jobs\":[");
	if (rc)
		return rc;
	pthread_mutex_lock(&q->w->lock);
	rc = bcn_jobdb_list_jobs(q->w->db, &f, job_json, &l);
	pthread_mutex_unlock(&q->w->lock);
	if (!rc)
		rc = bcn_buf_printf(&p->body, "],\"count\":%" PRIu64 ",\"limit\":"
				    "%" PRIu64 ",\"offset\":%" PRIu64 "}", l.n,
				    f.limit, f.offset);
	return rc;
}

/* Computes the report of job into p and caches it with the window's
 * generation read before; on the miss connections, under w->miss_lock. A
 * report another request cached while this one waited is taken. */
static int compute(struct bcn_web_req *q, struct bcn_web_resp *p,
		   uint64_t job)
{
	struct bcn_web *w = q->w;
	struct bcn_report *rep = NULL;
	struct bcn_jobcheck_result jr;
	bool cache = w->miss_cache != NULL;
	int64_t from, to, now = bcn_web_now();
	uint64_t gen = 0;
	int rc;

	if (cache && (bcn_report_window(w->miss_db, job, now, &w->cfg->rc,
					&from, &to) ||
		      bcn_cache_generation(w->miss_cache, from, to, &gen)))
		cache = false;
	if (cache && bcn_cache_get(w->miss_cache, job, gen, &p->body) == 1) {
		p->cache = "hit";
		return 0;
	}
	bcn_buf_reset(&p->body);
	rc = bcn_report_compute(&w->miss_st, w->miss_db, job, now, &w->cfg->rc,
				&rep);
	if (rc == -ENOENT)
		return bcn_web_error(p, 404, "no such job", NULL);
	/* the history verdict, as beacon-analyzd and `beacon job` give it
	 * (nothing stored) */
	if (!rc && rep->end)
		rc = bcn_jobcheck_run(&w->cfg->jc, &w->cfg->det, &w->miss_st,
				      w->miss_db, rep, false, bcn_web_now(),
				      &jr);
	if (!rc)
		rc = bcn_report_to_json(rep, false, &p->body);
	if (!rc && cache) {
		struct bcn_buf c;

		bcn_buf_init(&c, BCN_WEB_OUT_MAX);
		if (!bcn_report_to_json(rep, true, &c))
			(void)bcn_cache_put(w->miss_cache, job, gen,
					    (const char *)c.data, c.len);
		bcn_buf_free(&c);
	}
	bcn_report_free(rep);
	return rc;
}

/* The cached report of q->id, when it holds for the window's generation
 * now: 1 (in p), 0, or a negative code; under w->lock. */
static int cached(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	struct bcn_web *w = q->w;
	int64_t from, to;
	uint64_t gen;
	int rc;

	if (!w->cache)
		return 0;
	rc = bcn_report_window(w->db, q->id, bcn_web_now(), &w->cfg->rc,
			       &from, &to);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	if (bcn_cache_generation(w->cache, from, to, &gen))
		return 0;       /* no cache: a miss */
	rc = bcn_cache_get(w->cache, q->id, gen, &p->body);
	return rc == 1 ? 1 : 0;
}

int bcn_web_job(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	struct bcn_web *w = q->w;
	int seen, rc;

	pthread_mutex_lock(&w->lock);
	seen = bcn_web_may_see_job(q, q->id);
	rc = seen > 0 ? cached(q, p) : seen;
	pthread_mutex_unlock(&w->lock);
	if (seen == 0)
		return bcn_web_error(p, 404, "no such job", NULL);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		p->cache = "hit";
		atomic_fetch_add(&w->metrics.cache_hits, 1);
		return 0;
	}
	/* a miss: computed on connections of its own, w->lock free */
	p->cache = "miss";
	bcn_buf_reset(&p->body);
	pthread_mutex_lock(&w->miss_lock);
	rc = compute(q, p, q->id);
	pthread_mutex_unlock(&w->miss_lock);
	atomic_fetch_add(p->cache[0] == 'h' ? &w->metrics.cache_hits :
			 &w->metrics.cache_misses, 1);
	return rc;
}
