/* The per-job I/O view (top.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/top.h"
#include "common/error.h"
#include "common/text.h"
#include "common/timefmt.h"
#include "jobdb/jobdb.h"
#include "analysis/stores.h"

#define JOBS_SCAN_MAX (1u << 20)        /* distinct jobs in one window */
#define NODES_MAX (1u << 22)

struct top_pass {
	struct bcn_top *t;
	struct bcn_u64map index;        /* job -> position + 1 */
	size_t cap;
	struct bcn_tally fwd_of;        /* compute node -> forwarding node */
};

static struct bcn_top_job *job_of(struct top_pass *p, uint64_t job)
{
	struct bcn_top_job *j;
	uint64_t *v;
	bool fresh;

	if (bcn_u64map_get(&p->index, job, &v, &fresh))
		return NULL;
	if (!fresh)
		return &p->t->jobs[*v - 1];
	if (p->t->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		j = realloc(p->t->jobs, cap * sizeof(*j));
		if (!j)
			return NULL;
		p->t->jobs = j;
		p->cap = cap;
	}
	j = &p->t->jobs[p->t->n++];
	memset(j, 0, sizeof(*j));
	j->job = job;
	bcn_u64map_init(&j->nodes, NODES_MAX);
	bcn_tally_init(&j->fwds, BCN_TOP_NAMES_MAX);
	bcn_tally_init(&j->osts, BCN_TOP_NAMES_MAX);
	*v = p->t->n;
	return j;
}

static int take_map(void *arg, const char *node, const char *fwd)
{
	struct top_pass *p = arg;
	struct bcn_tally_entry *e;

	if (bcn_tally_get(&p->fwd_of, node, &e))
		return 0;               /* a bigger map than NODES_MAX: no fwd */
	(void)bcn_tally_set_str(e, fwd);
	return 0;
}

static int client_rec(void *arg, const struct bcn_record *r)
{
	struct top_pass *p = arg;
	struct bcn_record_totals t;
	struct bcn_top_job *j;
	struct bcn_tally_entry *e, *f;
	uint64_t *v;
	bool fresh;

	if (!r->job || r->type != BCN_REC_IO)
		return 0;
	p->t->records++;
	if (!(j = job_of(p, r->job))) {
		p->t->truncated++;
		return 0;
	}
	bcn_record_totals(r, &t);
	j->read_bytes += t.read_bytes;
	j->write_bytes += t.write_bytes;
	j->ops += t.read_ops + t.write_ops;
	j->meta_ops += t.meta_ops;
	if (!t.read_ops && !t.write_ops)
		return 0;
	if (bcn_u64map_get(&j->nodes, bcn_tally_hash(0, r->node,
			   strlen(r->node)), &v, &fresh) || !fresh)
		return 0;
	e = bcn_tally_find(&p->fwd_of, r->node);
	if (e && e->str)
		(void)bcn_tally_get(&j->fwds, e->str, &f);
	return 0;
}

static int ost_rec(void *arg, const struct bcn_record *r)
{
	struct top_pass *p = arg;
	struct bcn_top_job *j;
	struct bcn_tally_entry *e;

	if (!r->job || r->type != BCN_REC_OST || !r->u.ost.jobid[0])
		return 0;
	if (!(j = job_of(p, r->job)))
		return 0;
	if (!bcn_tally_get(&j->osts, r->u.ost.target, &e)) {
		e->v[0] += r->u.ost.read_bytes + r->u.ost.write_bytes;
		j->ost_bytes += r->u.ost.read_bytes + r->u.ost.write_bytes;
	}
	return 0;
}

static int by_bw(const void *a, const void *b)
{
	const struct bcn_top_job *x = a, *y = b;
	double p = x->read_bw + x->write_bw, q = y->read_bw + y->write_bw;

	if (p != q)
		return p > q ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static void finish(struct bcn_top *t, struct bcn_jobdb *db, size_t jobs_max)
{
	double s = (double)(t->to - t->from) / 1e9;

	for (size_t i = 0; i < t->n; i++) {
		struct bcn_top_job *j = &t->jobs[i];

		j->read_bw = (double)j->read_bytes / s;
		j->write_bw = (double)j->write_bytes / s;
		j->iops = (double)j->ops / s;
	}
	qsort(t->jobs, t->n, sizeof(*t->jobs), by_bw);
	while (t->n > jobs_max) {
		struct bcn_top_job *j = &t->jobs[--t->n];

		bcn_u64map_free(&j->nodes);
		bcn_tally_free(&j->fwds);
		bcn_tally_free(&j->osts);
		t->truncated++;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct bcn_top_job *j = &t->jobs[i];
		struct bcn_job rec;

		if (bcn_jobdb_get_job(db, j->job, &rec) != 1)
			continue;
		snprintf(j->user, sizeof(j->user), "%s", rec.user);
		snprintf(j->name, sizeof(j->name), "%s", rec.name);
		j->nnodes = rec.nnodes;
	}
}

int bcn_top_compute(const struct bcn_stores *st, struct bcn_jobdb *db, int64_t from,
		    int64_t to, size_t jobs_max, struct bcn_top **out)
{
	struct bcn_top *t = calloc(1, sizeof(*t));
	struct top_pass p = { .t = t };
	struct bcn_store_query q = { .from = from, .to = to };
	int rc;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->from = from;
	t->to = to > from ? to : from + 1;
	bcn_u64map_init(&p.index, JOBS_SCAN_MAX);
	bcn_tally_init(&p.fwd_of, NODES_MAX);
	rc = bcn_jobdb_fwd_map(db, to, take_map, &p);
	rc = rc < 0 ? rc : 0;
	q.layer = BCN_LAYER_CLIENT;
	if (!rc)
		rc = bcn_stores_scan(st, &q, client_rec, &p);
	q.layer = BCN_LAYER_OST;
	q.part = BCN_STORE_PART_JOB;    /* the jobs' records, not the totals */
	if (!rc)
		rc = bcn_stores_scan(st, &q, ost_rec, &p);
	bcn_tally_free(&p.fwd_of);
	bcn_u64map_free(&p.index);
	if (rc) {
		bcn_top_free(t);
		return rc;
	}
	finish(t, db, jobs_max);
	*out = t;
	return 0;
}

void bcn_top_free(struct bcn_top *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		bcn_u64map_free(&t->jobs[i].nodes);
		bcn_tally_free(&t->jobs[i].fwds);
		bcn_tally_free(&t->jobs[i].osts);
	}
	free(t->jobs);
	free(t);
}

static int names(const struct bcn_tally *m, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, "[");

	for (size_t i = 0; !rc && i < m->n; i++) {
		rc = i ? bcn_buf_adds(b, ",") : 0;
		rc = rc ? rc : bcn_buf_add_json_str(b, m->e[i].key);
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

int bcn_top_to_json(const struct bcn_top *t, struct bcn_buf *out)
{
	char from[BCN_TIMEFMT_OUT_MAX], to[BCN_TIMEFMT_OUT_MAX];
	int rc;

	if (bcn_timefmt_format(t->from, from, sizeof(from)) ||
	    bcn_timefmt_format(t->to, to, sizeof(to)))
		return -BCN_ERANGE;
	rc = bcn_buf_printf(out, "{\"from\":\"%s\",\"to\":\"%s\",\"records\":%"
			    PRIu64 ",\"truncated\":%" PRIu64 ",\"jobs\":[", from,
			    to, t->records, t->truncated);
	for (size_t i = 0; !rc && i < t->n; i++) {
		const struct bcn_top_job *j = &t->jobs[i];

		rc = bcn_buf_printf(out, "%s{\"job\":%" PRIu64 ",\"user\":",
				    i ? "," : "", j->job);
		rc = rc ? rc : bcn_buf_add_json_str(out, j->user);
		rc = rc ? rc : bcn_buf_adds(out, ",\"name\":");
		rc = rc ? rc : bcn_buf_add_json_str(out, j->name);
		rc = rc ? rc : bcn_buf_printf(out, ",\"nnodes\":%" PRIu64
			",\"io_nodes\":%zu,\"read_bw\":%.0f,\"write_bw\":%.0f,"
			"\"iops\":%.1f,\"meta_ops\":%" PRIu64 ",\"read_bytes\":%"
			PRIu64 ",\"write_bytes\":%" PRIu64 ",\"forwarding\":",
			j->nnodes, j->nodes.n, j->read_bw, j->write_bw, j->iops,
			j->meta_ops, j->read_bytes, j->write_bytes);
		rc = rc ? rc : names(&j->fwds, out);
		rc = rc ? rc : bcn_buf_adds(out, ",\"osts\":");
		rc = rc ? rc : names(&j->osts, out);
		rc = rc ? rc : bcn_buf_adds(out, "}");
	}
	return rc ? rc : bcn_buf_adds(out, "]}");
}

static void human(double v, char *out, size_t n)
{
	static const char *const pre[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned i = 0;

	while (v >= 1024.0 && i + 1 < sizeof(pre) / sizeof(pre[0])) {
		v /= 1024.0;
		i++;
	}
	snprintf(out, n, "%.1f %s/s", v, pre[i]);
}

/* Names of a tally joined with ',' into out, cut at n bytes. */
static void joined(const struct bcn_tally *m, char *out, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < m->n && len + 1 < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "",
					m->e[i].key);
	if (len >= n && n > 4)
		memcpy(out + n - 4, "...", 4);
}

int bcn_top_to_text(const struct bcn_top *t, size_t rows, size_t width,
		    struct bcn_buf *out)
{
	char to[BCN_TIMEFMT_OUT_MAX];
	size_t from = out->len;
	int rc;

	if (bcn_timefmt_format(t->to, to, sizeof(to)))
		return -BCN_ERANGE;
	rc = bcn_buf_printf(out, "beacon top  %s  window %.0f s  %zu jobs doing "
			    "I/O\n\n%-9s %-10s %-14s %6s %12s %12s %9s %8s  %s\n",
			    to, (double)(t->to - t->from) / 1e9, t->n, "JOB",
			    "USER", "NAME", "NODES", "READ", "WRITE", "IOPS",
			    "META", "FORWARDING / OSTS");
	for (size_t i = 0; !rc && i < t->n && i < rows; i++) {
		const struct bcn_top_job *j = &t->jobs[i];
		char rd[24], wr[24], fw[512], os[512], where[1100];
		size_t room = width > 90 ? width - 90 : 16;

		human(j->read_bw, rd, sizeof(rd));
		human(j->write_bw, wr, sizeof(wr));
		joined(&j->fwds, fw, sizeof(fw));
		joined(&j->osts, os, sizeof(os));
		snprintf(where, sizeof(where), "%s / %s", fw, os);
		if (strlen(where) > room)
			where[room] = '\0';
		rc = bcn_buf_printf(out, "%-9" PRIu64 " %-10.10s %-14.14s %6" PRIu64
				    " %12s %12s %9.0f %8" PRIu64 "  %s\n", j->job,
				    j->user, j->name, j->nnodes, rd, wr, j->iops,
				    j->meta_ops, where);
	}
	if (!rc)        /* names come from users: no terminal controls */
		bcn_text_defang((char *)out->data + from, out->len - from);
	return rc;
}
