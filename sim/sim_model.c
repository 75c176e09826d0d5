/* beacon-sim's model: one tick of the cluster (sim_int.h). Jobs arrive
 * (explicit ones at their start, random ones as a seeded Poisson stream),
 * wait for contiguous free nodes (in submission order, smaller jobs
 * backfilling around a blocked larger one), and in each
 * tick ask the OSTs and MDTs for what their phase needs: input reads at
 * the start, checkpoint writes at intervals, metadata operations. A target
 * asked for more than its capacity this tick (ost_bw or mdt_ops, times an
 * injected slowdown) serves every job the same fraction of its demand. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "proto/record.h"
#include "sim/sim_int.h"

#define GROW_MIN 8
#define RANDOM_RUNTIME_MIN 300
#define RANDOM_RUNTIME_MAX 3600

static const char *const app_names[] = {
	"wrf", "lammps", "gromacs", "vasp", "cesm", "nek5000", "hacc", "qe"
};

static int64_t ticks_of(const struct bcn_sim *s, int64_t seconds)
{
	int64_t t = (int64_t)llround((double)seconds / s->tick_s);

	return t > 0 ? t : 1;
}

/* ---- jobs arriving, starting and ending ---------------------------------- */

static void admit(struct bcn_sim *s, const struct bcn_sim_job *tmpl)
{
	struct bcn_sim_job *j;

	if (s->njobs >= BCN_SIM_LIVE_JOBS_MAX) {
		BCN_WARN("sim: %d jobs queued or running: a new one is "
			    "dropped", BCN_SIM_LIVE_JOBS_MAX);
		return;
	}
	j = &s->jobs[s->njobs++];
	*j = *tmpl;
	j->id = s->next_id++;
	j->submit = s->tick;
	j->runtime = ticks_of(s, tmpl->runtime);
	j->input_len = ticks_of(s, tmpl->input_len);
	j->ckpt_every = ticks_of(s, tmpl->ckpt_every);
	j->ckpt_len = tmpl->ckpt_len ? ticks_of(s, tmpl->ckpt_len) : 0;
	j->state = BCN_SIM_QUEUED;
}

static void random_job(struct bcn_sim *s, struct bcn_sim_job *j)
{
	static const int weights[BCN_SIM_MODES] = { 30, 20, 15, 15, 10, 10 };
	uint64_t *r = &s->rng, w = bcn_sim_rand(r) % 100, acc = 0, k = 0;
	uint64_t maxlog = 0;

	memset(j, 0, sizeof(*j));
	for (j->mode = 0; j->mode < BCN_SIM_MODES - 1; j->mode++) {
		acc += (uint64_t)weights[j->mode];
		if (w < acc)
			break;
	}
	while ((2ull << maxlog) <= s->c.job_nodes_max &&
	       (2ull << maxlog) <= s->c.compute)
		maxlog++;
	k = bcn_sim_rand(r) % (maxlog + 1);
	j->nodes = 1ull << k;
	snprintf(j->name, sizeof(j->name), "%s",
		 app_names[bcn_sim_rand(r) % (sizeof(app_names) /
					      sizeof(app_names[0]))]);
	snprintf(j->user, sizeof(j->user), "user%02u",
		 (unsigned)(bcn_sim_rand(r) % 40));
	j->runtime = (int64_t)(RANDOM_RUNTIME_MIN + bcn_sim_rand(r) %
			       (RANDOM_RUNTIME_MAX - RANDOM_RUNTIME_MIN));
	j->input_len = j->runtime / 10 < 120 ? j->runtime / 10 : 120;
	j->ckpt_every = (int64_t)(300 + bcn_sim_rand(r) % 600);
	j->ckpt_len = (int64_t)(10 + bcn_sim_rand(r) % 50);
	j->bw = (20ull << 20) + bcn_sim_rand(r) % (380ull << 20);
	j->md_rate = 50 + bcn_sim_rand(r) % 450;
}

static void arrivals(struct bcn_sim *s)
{
	struct bcn_sim_job j;
	double u, gap;

	while (s->explicit_next < s->nexplicit &&
	       ticks_of(s, s->explicit[s->explicit_next].submit) - 1 <=
	       s->tick)
		admit(s, &s->explicit[s->explicit_next++]);
	for (size_t k = 0; k < s->nsinj; k++) {
		struct bcn_sim_inject *in = &s->sinj[k];

		if (in->from != s->tick)
			continue;
		memset(&j, 0, sizeof(j));
		snprintf(j.name, sizeof(j.name), "mdstorm");
		snprintf(j.user, sizeof(j.user), "user99");
		j.mode = BCN_SIM_META;
		j.nodes = 1;
		j.md_rate = in->rate;
		j.runtime = (int64_t)((double)in->len * s->tick_s);
		j.input_len = j.ckpt_every = 1;
		j.pinned = true;
		/* its node: the first behind forwarding node in->ost */
		j.first = (in->ost * s->c.compute + s->nfwd - 1) / s->nfwd;
		in->job = s->next_id;
		admit(s, &j);
	}
	for (size_t k = 0; k < s->nflood; k++) {
		struct bcn_sim_inject *in = &s->finj_n1[k];

		if (in->from != s->tick)
			continue;
		memset(&j, 0, sizeof(j));
		snprintf(j.name, sizeof(j.name), "n1flood");
		snprintf(j.user, sizeof(j.user), "user98");
		j.mode = BCN_SIM_N1;
		j.nodes = in->nodes;
		j.bw = in->rate;
		j.runtime = (int64_t)((double)in->len * s->tick_s);
		/* a tick of input, then one shared file written throughout */
		j.input_len = 0;
		j.ckpt_every = j.ckpt_len = 1;
		j.pinned = true;
		j.first = (in->ost * s->c.compute + s->nfwd - 1) / s->nfwd;
		in->job = s->next_id;
		admit(s, &j);
	}
	while (s->tick >= s->next_arrival) {
		random_job(s, &j);
		admit(s, &j);
		u = ((double)(bcn_sim_rand(&s->rng) >> 11) + 1.0) / 9007199254740993.0;
		gap = -log(u) * 3600.0 / (double)s->c.jobs_per_hour;
		s->next_arrival += (int64_t)llround(gap / s->tick_s);
		if (s->next_arrival <= s->tick)
			s->next_arrival = s->tick + 1;
	}
}

/* First fit of n contiguous free nodes; returns the first or UINT64_MAX. */
static uint64_t find_nodes(const struct bcn_sim *s, uint64_t n)
{
	uint64_t run = 0, i;

	for (i = 0; i < s->c.compute; i++) {
		run = s->busy[i] ? 0 : run + 1;
		if (run == n)
			return i + 1 - n;
	}
	return UINT64_MAX;
}

static void schedule(struct bcn_sim *s)
{
	size_t i;
	uint64_t first;

	for (i = 0; i < s->njobs; i++) {
		struct bcn_sim_job *j = &s->jobs[i];

		if (j->state != BCN_SIM_QUEUED)
			continue;
		if (j->pinned) {        /* shares a node someone may own */
			j->start = s->tick;
			j->end = s->tick + j->runtime;
			j->state = BCN_SIM_RUNNING;
			s->tot.jobs_started++;
			continue;
		}
		first = find_nodes(s, j->nodes);
		if (first == UINT64_MAX)
			continue;       /* later, smaller jobs backfill */
		memset(s->busy + first, 1, j->nodes);
		j->first = first;
		j->start = s->tick;
		j->end = s->tick + j->runtime;
		j->state = BCN_SIM_RUNNING;
		s->tot.jobs_started++;
	}
}

static void finish(struct bcn_sim *s)
{
	size_t i, k = 0;

	for (i = 0; i < s->njobs; i++) {
		struct bcn_sim_job *j = &s->jobs[i];

		if (j->state == BCN_SIM_RUNNING && s->tick + 1 >= j->end) {
			j->state = BCN_SIM_DONE;
			j->end = s->tick + 1;
			bcn_sim_truth_end(s, j);
			if (!j->pinned)
				memset(s->busy + j->first, 0, j->nodes);
			if (bcn_sim_sacct_line(s, j, &s->done))
				BCN_WARN("sim: the sacct record of job %"
					    PRIu64 " is lost (buffer full)",
					    j->id);
			s->tot.jobs_ended++;
			continue;
		}
		s->jobs[k++] = *j;
	}
	s->njobs = k;
}

/* ---- demand and service ------------------------------------------------------- */

static enum bcn_sim_phase phase_of(const struct bcn_sim *s,
				   const struct bcn_sim_job *j)
{
	int64_t r = s->tick - j->start;

	if (j->mode == BCN_SIM_IDLE)
		return BCN_SIM_P_NONE;
	if (j->mode == BCN_SIM_META)
		return BCN_SIM_P_META;
	if (r < j->input_len)
		return BCN_SIM_P_READ;
	r -= j->input_len;
	if (j->ckpt_len && r % j->ckpt_every >= j->ckpt_every - j->ckpt_len)
		return BCN_SIM_P_WRITE;
	return BCN_SIM_P_NONE;
}

/* Whether this tick is the first of an I/O phase (files are opened). */
static bool phase_starts(const struct bcn_sim *s, const struct bcn_sim_job *j)
{
	int64_t r = s->tick - j->start;

	if (r == 0)
		return true;
	r -= j->input_len;
	return r >= 0 && j->ckpt_len &&
	       r % j->ckpt_every == j->ckpt_every - j->ckpt_len;
}

typedef void place_fn(struct bcn_sim *s, struct bcn_sim_job *j,
		      uint64_t ost, uint64_t bytes, struct bcn_sim_nodes nd,
		      void *arg);

/* Spreads a tick's bytes of job j (what each node got past its
 * forwarding node) over the OSTs its files are on, by its mode; calls fn
 * once per (OST, bytes, the nodes whose bytes they are). */
static void place(struct bcn_sim *s, struct bcn_sim_job *j, place_fn *fn,
		  void *arg)
{
	uint64_t n = s->nost, i, sc, first, total = 0, m, b;
	uint64_t *files;

	switch (j->mode) {
	case BCN_SIM_NN:
		for (i = 0; i < j->nodes; i++)
			fn(s, j, bcn_sim_hash2(j->id, i) % n,
			   bcn_sim_node_bytes(s, j, i),
			   (struct bcn_sim_nodes){ i, j->nodes }, arg);
		break;
	case BCN_SIM_N1:
		for (i = 0; i < j->nodes; i++)
			total += bcn_sim_node_bytes(s, j, i);
		sc = s->c.stripe_count < n ? s->c.stripe_count : n;
		first = bcn_sim_hash2(j->id, 0) % n;
		for (i = 0; i < sc; i++)
			fn(s, j, (first + i) % n, total / sc +
			   (i == 0 ? total % sc : 0),
			   (struct bcn_sim_nodes){ 0, 1 }, arg);
		break;
	case BCN_SIM_NM:
		m = j->nodes / NM_RATIO ? j->nodes / NM_RATIO : 1;
		files = calloc(m, sizeof(*files));
		if (!files)
			break;          /* no I/O this tick rather than none */
		for (i = 0; i < j->nodes; i++)
			files[i % m] += bcn_sim_node_bytes(s, j, i);
		for (i = 0; i < m; i++)
			fn(s, j, bcn_sim_hash2(j->id, i) % n, files[i],
			   (struct bcn_sim_nodes){ i, m }, arg);
		free(files);
		break;
	case BCN_SIM_11:
		b = bcn_sim_node_bytes(s, j, 0);
		fn(s, j, bcn_sim_hash2(j->id, 0) % n, b,
		   (struct bcn_sim_nodes){ 0, j->nodes }, arg);
		break;
	default:
		break;
	}
}

/* A thrashing forwarding node's extra reads are OST demand too. */
static void add_demand(struct bcn_sim *s, struct bcn_sim_job *j,
		       uint64_t ost, uint64_t bytes, struct bcn_sim_nodes nd,
		       void *arg)
{
	(void)arg;
	s->ost[ost].demand += bytes;
	if (j->phase == BCN_SIM_P_READ)
		s->ost[ost].demand += bcn_sim_osc_extra_demand(s, j, nd, bytes);
	j->asked += bytes;
}

static struct bcn_sim_jctr *jctr(struct bcn_sim_target *t, uint64_t job)
{
	struct bcn_sim_jctr *p;
	size_t i;

	for (i = 0; i < t->njobs; i++)
		if (t->jobs[i].job == job)
			return &t->jobs[i];
	if (t->njobs == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : GROW_MIN;

		p = realloc(t->jobs, cap * sizeof(*p));
		if (!p)
			return NULL;
		t->jobs = p;
		t->cap = cap;
	}
	p = &t->jobs[t->njobs++];
	memset(p, 0, sizeof(*p));
	p->job = job;
	snprintf(p->o.jobid, sizeof(p->o.jobid), "%" PRIu64, job);
	snprintf(p->m.jobid, sizeof(p->m.jobid), "%" PRIu64, job);
	return p;
}

/* Adds bytes in RPCs of at most rpc_bytes to one counter set. */
static void add_bulk(struct bcn_sim_ost_ctr *c, bool write, uint64_t bytes,
		     uint64_t rpc)
{
	uint64_t reqs = (bytes + rpc - 1) / rpc, last = bytes - (reqs - 1) * rpc;
	uint64_t *b = write ? &c->write_bytes : &c->read_bytes;
	uint64_t *mn = write ? &c->write_min : &c->read_min;
	uint64_t *mx = write ? &c->write_max : &c->read_max;
	uint64_t big = reqs > 1 ? rpc : last;

	if (!bytes)
		return;
	c->ops[write ? BCN_OST_WRITE : BCN_OST_READ] += reqs;
	*b += bytes;
	if (!*mn || last < *mn)
		*mn = last;
	if (big > *mx)
		*mx = big;
}

/* The OST serves the job its share of what its forwarding nodes ask
 * (thrashing ones reading more); they get their parts of it (sim_osc.c),
 * the job what its nodes asked of that. The OST counts it all for the
 * job. */
static void serve(struct bcn_sim *s, struct bcn_sim_job *j,
		  uint64_t ost, uint64_t bytes, struct bcn_sim_nodes nd,
		  void *arg)
{
	struct bcn_sim_target *t = &s->ost[ost];
	bool write = *(const int *)arg == BCN_SIM_P_WRITE;
	uint64_t cap = (uint64_t)((double)s->c.ost_bw * s->tick_s *
				  bcn_sim_slow(s->inj, s->ninj, ost, s->tick));
	uint64_t want = bytes, all;
	struct bcn_sim_jctr *jc;

	if (!write)
		want += bcn_sim_osc_extra_demand(s, j, nd, bytes);
	/* every job gets the same share of an overloaded OST, exactly */
	all = want;
	if (t->demand > cap)
		all = (uint64_t)((unsigned __int128)want * cap / t->demand);
	if (!all)
		return;
	j->served += bcn_sim_osc_serve(s, j, ost, write, bytes, all, nd);
	bcn_sim_truth_ost(s, j, ost);
	add_bulk(&t->o, write, all, s->c.rpc_bytes);
	bcn_sim_brw_bulk(&t->brw, write, all, s->c.rpc_bytes);
	jc = jctr(t, j->id);
	if (jc) {
		add_bulk(&jc->o, write, all, s->c.rpc_bytes);
		jc->last = s->tick;
	}
	if (write)
		s->tot.write_bytes += all;
	else
		s->tot.read_bytes += all;
}

/* This tick's disk I/O time of each OST (ost_brw.h): ost_io_ms under
 * the queueing of what it served and an injected slowness; its I/Os of
 * the tick get their times, spread with a phase per OST and direction
 * from the seed and the tick (not from the job stream's generator). */
static void ost_times(struct bcn_sim *s)
{
	double cap = (double)s->c.ost_bw * s->tick_s, phase[2], u;
	uint64_t i, h;
	int d;

	for (i = 0; i < s->nost; i++) {
		struct bcn_sim_target *t = &s->ost[i];

		u = cap > 0 ? (double)t->brw.tick_bytes / cap : 0;
		t->io_ms = bcn_sim_brw_io_ms((double)s->c.ost_io_ms, u,
					     bcn_sim_slow(s->inj, s->ninj, i,
							  s->tick));
		for (d = 0; d < 2; d++) {
			h = bcn_sim_hash2(s->c.seed ^ ((uint64_t)s->tick << 20),
					  2 * i + (uint64_t)d);
			phase[d] = (double)(h >> 11) / 9007199254740992.0;
		}
		bcn_sim_brw_settle(&t->brw, t->io_ms, s->tick_s, phase);
	}
}

/* The metadata operations job j asks of its MDT this tick, by op. */
static uint64_t md_demand(const struct bcn_sim *s, const struct bcn_sim_job *j,
			  enum bcn_sim_phase ph, uint64_t ops[BCN_MD_OP_MAX])
{
	static const struct { int op; unsigned pct; } mix[] = {
		{ BCN_MD_OPEN, 25 }, { BCN_MD_CLOSE, 25 },
		{ BCN_MD_GETATTR, 30 }, { BCN_MD_MKNOD, 10 },
		{ BCN_MD_UNLINK, 10 },
	};
	uint64_t files, total = 0, n;
	size_t i;

	memset(ops, 0, sizeof(uint64_t) * BCN_MD_OP_MAX);
	if (ph == BCN_SIM_P_META) {
		n = (uint64_t)((double)(j->md_rate * j->nodes) * s->tick_s);
		for (i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
			ops[mix[i].op] = n * mix[i].pct / 100;
			total += ops[mix[i].op];
		}
		return total;
	}
	if ((ph != BCN_SIM_P_READ && ph != BCN_SIM_P_WRITE) ||
	    !phase_starts(s, j))
		return 0;
	files = j->mode == BCN_SIM_NN || j->mode == BCN_SIM_N1 ? j->nodes :
		j->mode == BCN_SIM_NM ? (j->nodes / NM_RATIO ?
					 j->nodes / NM_RATIO : 1) : 1;
	ops[BCN_MD_OPEN] = ops[BCN_MD_CLOSE] = ops[BCN_MD_GETATTR] = files;
	if (ph == BCN_SIM_P_WRITE && j->mode != BCN_SIM_N1)
		ops[BCN_MD_MKNOD] = files;
	for (i = 0; i < BCN_MD_OP_MAX; i++)
		total += ops[i];
	return total;
}

static void metadata(struct bcn_sim *s)
{
	uint64_t ops[BCN_MD_OP_MAX], n, got;
	double cap = (double)s->c.mdt_ops * s->tick_s;
	size_t i, k;

	for (i = 0; i < s->nmdt; i++)
		s->mdt[i].demand = 0;
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == BCN_SIM_RUNNING)
			s->mdt[bcn_sim_hash2(s->jobs[i].id, 7) % s->nmdt].demand +=
				(uint64_t)((double)md_demand(s, &s->jobs[i],
					   s->jobs[i].phase, ops) *
					   s->jobs[i].md_frac);
	for (i = 0; i < s->njobs; i++) {
		struct bcn_sim_job *j = &s->jobs[i];
		struct bcn_sim_target *t;
		struct bcn_sim_jctr *jc;

		if (j->state != BCN_SIM_RUNNING)
			continue;
		t = &s->mdt[bcn_sim_hash2(j->id, 7) % s->nmdt];
		if (!md_demand(s, j, j->phase, ops))
			continue;
		jc = jctr(t, j->id);
		for (k = 0; k < BCN_MD_OP_MAX; k++) {
			/* what its forwarding nodes passed, then the MDT */
			n = (uint64_t)((double)ops[k] * j->md_frac);
			got = (double)t->demand > cap ?
			      (uint64_t)((double)n * cap / (double)t->demand) : n;
			t->m.ops[k] += got;
			if (jc)
				jc->m.ops[k] += got;
			s->tot.md_ops += got;
			ops[k] = got;
		}
		bcn_sim_fwd_md(s, j, ops);
		if (jc)
			jc->last = s->tick;
	}
}

void bcn_sim_model_tick(struct bcn_sim *s)
{
	uint64_t ops[BCN_MD_OP_MAX];
	size_t i;

	arrivals(s);
	schedule(s);
	for (i = 0; i < s->njobs; i++) {
		struct bcn_sim_job *j = &s->jobs[i];

		j->phase = j->state == BCN_SIM_RUNNING ? phase_of(s, j) :
			   BCN_SIM_P_NONE;
		j->served = j->asked = 0;
		j->md_asked = j->state == BCN_SIM_RUNNING ?
			      md_demand(s, j, j->phase, ops) : 0;
	}
	bcn_sim_fwd_demand(s);
	for (i = 0; i < s->nost; i++)
		s->ost[i].demand = 0;
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].phase == BCN_SIM_P_READ ||
		    s->jobs[i].phase == BCN_SIM_P_WRITE)
			place(s, &s->jobs[i], add_demand, NULL);
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].phase == BCN_SIM_P_READ ||
		    s->jobs[i].phase == BCN_SIM_P_WRITE)
			place(s, &s->jobs[i], serve, &s->jobs[i].phase);
	ost_times(s);
	bcn_sim_osc_tick(s);
	metadata(s);
	bcn_sim_fwd_lines(s);
	bcn_sim_lwfs_lines(s);
	bcn_sim_truth_tick(s);
	bcn_sim_ib_tick(s);
	finish(s);
	s->tick++;
}
