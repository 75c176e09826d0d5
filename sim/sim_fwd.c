/* beacon-sim's I/O forwarding layer (sim_int.h). Compute nodes forward
 * their I/O through a static set of forwarding nodes (contiguous groups,
 * as on TaihuLight); a forwarding node serves at most fwd_bw bytes per
 * second (times an injected slowdown), so a job's nodes behind a busy or
 * slow forwarding node get less. Each forwarding node's server writes one
 * line per completed request in the beacon-fwdlog format (docs/fwdlog.md)
 * with a queueing latency that grows with its utilisation, and its queue
 * length once per 1,000 requests, for beacon-fwdd. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/log.h"
#include "sim/sim_int.h"

#define FWD_THREADS 16          /* server threads per forwarding node */
#define UTIL_MAX 0.95           /* latency stops growing here */
#define QUEUE_EVERY 1000        /* requests between queue samples */
#define LOG_NAME "requests.log"
#define LOG_ROTATE (64u << 20)  /* bytes: the log is rotated to .1 */
#define MARK_NAME ".lines"      /* last tick whose lines are written */

uint64_t bcn_sim_fwd_of(const struct bcn_sim *s, uint64_t node)
{
	return node * s->nfwd / s->c.compute;
}

double bcn_sim_slow(const struct bcn_sim_inject *in, size_t n, uint64_t idx,
		    int64_t tick)
{
	double f = 1.0;
	size_t i;

	for (i = 0; i < n; i++)
		if (in[i].ost == idx && tick >= in[i].from &&
		    tick < in[i].from + in[i].len)
			f *= in[i].factor;
	return f;
}

static uint64_t fwd_cap(const struct bcn_sim *s, uint64_t f)
{
	return (uint64_t)((double)s->c.fwd_bw * s->tick_s *
			  bcn_sim_slow(s->finj, s->nfinj, f, s->tick));
}

/* Calls fn for each forwarding node job j uses, with the job's nodes
 * behind it: from index i0 (in the job), n of them. */
static void each_fwd(const struct bcn_sim *s, const struct bcn_sim_job *j,
		     void (*fn)(struct bcn_sim *, const struct bcn_sim_job *,
				uint64_t, uint64_t, uint64_t, void *),
		     void *arg)
{
	uint64_t i = j->first, end = j->first + j->nodes, f, n, i0;

	while (i < end) {
		f = bcn_sim_fwd_of(s, i);
		i0 = i - j->first;
		for (n = 0; i < end && bcn_sim_fwd_of(s, i) == f; i++)
			n++;
		fn((struct bcn_sim *)s, j, f, i0, n, arg);
	}
}

static bool in_io(const struct bcn_sim_job *j)
{
	return j->state == BCN_SIM_RUNNING &&
	       (j->phase == BCN_SIM_P_READ || j->phase == BCN_SIM_P_WRITE);
}

/* Bytes of forwarding bandwidth one metadata request takes: its share of
 * a server thread's time. */
static double md_equiv(const struct bcn_sim *s)
{
	return (double)s->c.fwd_md_cost_us * 1e-6 * (double)s->c.fwd_bw /
	       FWD_THREADS;
}

/* What n nodes of j from i0 ask per tick: BW each, a slow node
 * (slow_node) FACTOR of it. */
static uint64_t io_demand(const struct bcn_sim *s, const struct bcn_sim_job *j,
			  uint64_t i0, uint64_t n)
{
	uint64_t full = 0, sum = 0, i;
	double k;

	for (i = i0; s->nnode_inj && i < i0 + n; i++) {
		k = bcn_sim_node_factor(s, j->first + i);
		if (k < 1.0)
			sum += (uint64_t)((double)j->bw * s->tick_s * k);
		else
			full++;
	}
	if (!s->nnode_inj)
		full = n;
	return sum + full * (uint64_t)((double)j->bw * s->tick_s);
}

static void add_fwd_demand(struct bcn_sim *s, const struct bcn_sim_job *j,
			   uint64_t f, uint64_t i0, uint64_t n, void *arg)
{
	(void)arg;
	if (in_io(j))
		s->fwd[f].demand += io_demand(s, j, i0, n);
	s->fwd[f].demand += (uint64_t)((double)(j->md_asked * n / j->nodes) *
				       md_equiv(s));
}

static void add_md_frac(struct bcn_sim *s, const struct bcn_sim_job *j,
			uint64_t f, uint64_t i0, uint64_t n, void *arg)
{
	(void)j;
	(void)i0;
	*(double *)arg += s->fwd[f].frac * (double)n;
}

struct md_share {
	const uint64_t *ops;
};

static void add_md(struct bcn_sim *s, const struct bcn_sim_job *j,
		   uint64_t f, uint64_t i0, uint64_t n, void *arg)
{
	const struct md_share *m = arg;

	(void)i0;
	for (size_t k = 0; k < BCN_MD_OP_MAX; k++)
		s->fwd[f].md[k] += m->ops[k] * n / j->nodes;
}

void bcn_sim_fwd_md(struct bcn_sim *s, const struct bcn_sim_job *j,
		    const uint64_t ops[BCN_MD_OP_MAX])
{
	struct md_share m = { ops };

	each_fwd(s, j, add_md, &m);
}

uint64_t bcn_sim_node_bytes(const struct bcn_sim *s,
			    const struct bcn_sim_job *j, uint64_t i)
{
	return (uint64_t)((double)j->bw * s->tick_s *
			  s->fwd[bcn_sim_fwd_of(s, j->first + i)].frac *
			  bcn_sim_node_factor(s, j->first + i));
}

void bcn_sim_fwd_demand(struct bcn_sim *s)
{
	uint64_t f, cap;
	size_t i;

	for (f = 0; f < s->nfwd; f++) {
		s->fwd[f].demand = 0;
		s->fwd[f].read = s->fwd[f].write = 0;
		memset(s->fwd[f].md, 0, sizeof(s->fwd[f].md));
	}
	for (i = 0; i < s->njobs; i++)
		if (in_io(&s->jobs[i]) || s->jobs[i].md_asked)
			each_fwd(s, &s->jobs[i], add_fwd_demand, NULL);
	for (f = 0; f < s->nfwd; f++) {
		cap = fwd_cap(s, f);
		s->fwd[f].util = cap ? (double)s->fwd[f].demand / (double)cap :
			         1.0;
		s->fwd[f].frac = s->fwd[f].demand > cap ?
				 (double)cap / (double)s->fwd[f].demand : 1.0;
	}
	for (i = 0; i < s->njobs; i++) {
		struct bcn_sim_job *j = &s->jobs[i];
		double sum = 0;

		j->md_frac = 1.0;
		if (j->state != BCN_SIM_RUNNING || !j->md_asked)
			continue;
		each_fwd(s, j, add_md_frac, &sum);
		j->md_frac = sum / (double)j->nodes;
	}
}

/* The lines of bytes of one direction: requests of rpc_bytes (the last
 * smaller), spread over the tick, each with the same latency. */
static void request_lines(struct bcn_sim *s, uint64_t f, const char *op,
			  uint64_t bytes)
{
	struct bcn_sim_fwd *w = &s->fwd[f];
	uint64_t rpc = s->c.rpc_bytes, n = (bytes + rpc - 1) / rpc, i, size;
	int64_t t0 = s->epoch_ns + (int64_t)((double)s->tick * s->tick_s * 1e9);
	int64_t span = (int64_t)(s->tick_s * 1e9), t;
	double u = w->util < UTIL_MAX ? w->util : UTIL_MAX;
	double rate = (double)s->c.fwd_bw / FWD_THREADS *
		      bcn_sim_slow(s->finj, s->nfinj, f, s->tick);
	uint64_t proc, lat, q;

	for (i = 0; i < n; i++) {
		size = i + 1 < n ? rpc : bytes - (n - 1) * rpc;
		proc = (uint64_t)((double)size * 1e6 / (rate > 1 ? rate : 1)) + 1;
		lat = (uint64_t)((double)proc / (1.0 - u));
		t = t0 + (int64_t)((double)span * ((double)i + 0.5) / (double)n);
		if (bcn_buf_printf(&w->lines, "%" PRId64 ".%09" PRId64
				   " %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				   t / (int64_t)BCN_SIM_NS, t % (int64_t)BCN_SIM_NS, op, size,
				   lat, proc))
			return;         /* full: written next time */
		if (++w->requests % QUEUE_EVERY == 0) {
			q = (uint64_t)(FWD_THREADS * u / (1.0 - u));
			(void)bcn_buf_printf(&w->lines, "%" PRId64 ".%09"
					     PRId64 " Q %" PRIu64 "\n",
					     t / (int64_t)BCN_SIM_NS,
					     t % (int64_t)BCN_SIM_NS, q);
		}
	}
}

/* One line per metadata request served (no bytes; a thread's md cost). */
static void meta_lines(struct bcn_sim *s, uint64_t f)
{
	struct bcn_sim_fwd *w = &s->fwd[f];
	int64_t t0 = s->epoch_ns + (int64_t)((double)s->tick * s->tick_s * 1e9);
	int64_t span = (int64_t)(s->tick_s * 1e9), t;
	double u = w->util < UTIL_MAX ? w->util : UTIL_MAX;
	uint64_t total = 0, k, i, done = 0, proc = s->c.fwd_md_cost_us, q;
	uint64_t lat = (uint64_t)((double)proc / (1.0 - u));

	for (k = 0; k < BCN_MD_OP_MAX; k++)
		total += w->md[k];
	for (k = 0; k < BCN_MD_OP_MAX; k++) {
		for (i = 0; i < w->md[k]; i++, done++) {
			t = t0 + (int64_t)((double)span * ((double)done + 0.5) /
					   (double)total);
			if (bcn_buf_printf(&w->lines, "%" PRId64 ".%09" PRId64
					   " %s 0 %" PRIu64 " %" PRIu64 "\n",
					   t / (int64_t)BCN_SIM_NS,
					   t % (int64_t)BCN_SIM_NS,
					   bcn_md_op_names[k], lat, proc))
				return;
			if (++w->requests % QUEUE_EVERY == 0) {
				q = (uint64_t)(FWD_THREADS * u / (1.0 - u));
				(void)bcn_buf_printf(&w->lines, "%" PRId64
						     ".%09" PRId64 " Q %" PRIu64
						     "\n", t / (int64_t)BCN_SIM_NS,
						     t % (int64_t)BCN_SIM_NS, q);
			}
		}
	}
}

/* The bytes each forwarding node passed (fwd[f].read and write) were
 * added as the OSTs served them (bcn_sim_osc_serve). */
void bcn_sim_fwd_lines(struct bcn_sim *s)
{
	uint64_t f;

	if (s->tick < s->lines_from)
		return;                 /* already in the logs */
	for (f = 0; f < s->nfwd; f++) {
		request_lines(s, f, "read", s->fwd[f].read);
		request_lines(s, f, "write", s->fwd[f].write);
		meta_lines(s, f);
	}
}

/* ---- the logs ------------------------------------------------------------ */

static int append(const char *dir, const struct bcn_buf *b, uint64_t f)
{
	char path[BCN_SIM_PATH_MAX + 128], old[BCN_SIM_PATH_MAX + 136];
	FILE *out;
	long size;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, LOG_NAME);
	out = fopen(path, "a");
	if (!out)
		return -errno;
	size = ftell(out);
	if (size > (long)LOG_ROTATE) {
		fclose(out);
		snprintf(old, sizeof(old), "%s.1", path);
		if (rename(path, old))
			return -errno;
		out = fopen(path, "a");
		if (!out)
			return -errno;
		size = 0;
	}
	if (size == 0)
		fprintf(out, "#beacon-fwdlog 1 server=beacon-sim host=fwd%03"
			PRIu64 "\n", f + 1);
	if (b->len && fwrite(b->data, 1, b->len, out) != b->len)
		rc = -EIO;
	if (fclose(out) && !rc)
		rc = -errno;
	return rc;
}

int bcn_sim_fwd_write(struct bcn_sim *s)
{
	char dir[BCN_SIM_PATH_MAX + 64], mark[32];
	uint64_t f;
	int rc, n;

	for (f = 0; f < s->nfwd; f++) {
		snprintf(dir, sizeof(dir), "%s/fwd%03" PRIu64, s->c.out,
			 f + 1);
		rc = bcn_sim_write_file(dir, ".keep", "", 0);
		if (!rc)
			rc = append(dir, &s->fwd[f].lines, f);
		if (rc) {
			BCN_ERR("sim: %s/%s: %s", dir, LOG_NAME,
				bcn_strerror(rc));
			return rc;
		}
		bcn_buf_reset(&s->fwd[f].lines);
	}
	n = snprintf(mark, sizeof(mark), "%" PRId64 "\n", s->tick);
	s->lines_from = s->tick;
	return bcn_sim_write_file(s->c.out, MARK_NAME, mark, (size_t)n);
}

/* Where the request logs stand: with --until, ticks whose lines an
 * earlier run wrote are not written again (a run from scratch, at or
 * before them, starts the logs anew); live runs start anew. */
int bcn_sim_fwd_resume(struct bcn_sim *s)
{
	char path[BCN_SIM_PATH_MAX + 64], buf[32];
	long long t = 0;
	FILE *in;
	uint64_t f;

	snprintf(path, sizeof(path), "%s/%s", s->c.out, MARK_NAME);
	in = s->c.until ? fopen(path, "r") : NULL;
	if (in) {
		if (!fgets(buf, sizeof(buf), in) || sscanf(buf, "%lld", &t) != 1)
			t = 0;
		fclose(in);
	}
	if (t > 0 && (uint64_t)t < s->c.until) {
		s->lines_from = t;
		return 0;
	}
	for (f = 0; f < s->nfwd; f++) {
		snprintf(path, sizeof(path), "%s/fwd%03" PRIu64 "/%s",
			 s->c.out, f + 1, LOG_NAME);
		if (unlink(path) && errno != ENOENT)
			return -errno;
	}
	s->lines_from = 0;
	return bcn_sim_lwfs_reset(s);
}
