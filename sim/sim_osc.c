/* beacon-sim's forwarding nodes' Lustre clients (sim_int.h). Each
 * forwarding node mounts the file system once and has one osc device per
 * OST. What its compute nodes' jobs were served of an OST (a placement of
 * sim_model.c: a file, a stripe) is split over the forwarding nodes the
 * placement's nodes forward through, in proportion to what each node got
 * past its forwarding node, exactly (the parts add up to the whole): so
 * the bytes of each OST's osc devices, summed over the forwarding nodes,
 * are what the OST's own counters say it served. A forwarding node's
 * parts are its request log's bytes too.
 *
 * At the end of each tick a device's bytes of each direction become bulk
 * RPCs of rpc_bytes (the last smaller), counted as Lustre's osc does:
 * pages per RPC, RPCs in flight as each was sent (a burst ramps up from
 * 1, then runs at the OST's level: 8, max_rpcs_in_flight, times its
 * utilisation, at least 1), starting page offset (a burst starts at 0);
 * each RPC waits for its reply the OST's modelled disk I/O time of the
 * tick (sim_model.c, ost_brw.h), a connect CONNECT_US.
 *
 * cache_thrash: the forwarding node's page cache evicts what it just
 * read, so its client reads FACTOR times what its compute nodes asked
 * for. The extra reads are OST demand like any other: an overloaded OST
 * serves every forwarding node the same share of what it asked, extra
 * reads included (so they take bandwidth from the jobs), and the
 * thrashing node's nodes get 1 / FACTOR of its share (whole bytes: its
 * osc reads are FACTOR times its request log's, exactly while the OST
 * keeps up, and less than FACTOR bytes more per placement when it does
 * not). The OST counts all it served, in the job's job_stats too; the
 * job and the request logs only what the nodes got. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/lustre/lustre_hist.h"
#include "common/error.h"
#include "common/log.h"
#include "sim/sim_int.h"

#define PAGE_BYTES 4096
#define RIF_MAX 8               /* osc max_rpcs_in_flight, default */
#define THRASH_MAX 100          /* largest cache_thrash FACTOR */
#define INSTANCE_BASE UINT64_C(0xffff880000000000)
#define CONNECT_US 250          /* an ost_connect RPC's round trip */
#define DIR_MAX (BCN_SIM_PATH_MAX + 256)

/* One osc device: its counters and this tick's bytes, [0] read, [1]
 * write. */
struct bcn_sim_osc {
	struct bcn_sim_osc_ctr c;
	uint64_t tick[2];       /* bytes this tick */
	uint64_t off[2];        /* the burst's next offset, bytes */
	bool busy[2];           /* RPCs in the previous tick */
};

struct bcn_sim_osc_state {
	struct bcn_sim_osc **dev;       /* nfwd x nost, NULL: no RPC yet */
	struct bcn_sim_osc idle;        /* what a device without one shows */
	bool nomem;                     /* warned once */
};

/* A freshly mounted device: its connect RPC, one request active. */
static void dev_init(struct bcn_sim_osc *d)
{
	memset(d, 0, sizeof(*d));
	d->c.connects = 1;
	d->c.active_n = d->c.active_min = d->c.active_max = 1;
	d->c.active_sum = d->c.active_sumsq = 1;
	d->c.wait[2] = (struct bcn_sim_osc_wait){ CONNECT_US, CONNECT_US,
						  CONNECT_US,
						  CONNECT_US * CONNECT_US };
}

static int parse_thrash(struct bcn_sim *s, const char *spec,
			struct bcn_sim_inject *in, char *err, size_t errlen)
{
	unsigned long long f, from, len;
	double factor;
	int end = 0;

	if (sscanf(spec, "%llu %llu %llu %lf %n", &f, &from, &len, &factor,
		   &end) != 4 || spec[end] || f >= s->nfwd || !len ||
	    !(factor > 1 && factor <= THRASH_MAX)) {
		snprintf(err, errlen, "cache_thrash '%s': want FWD START "
			 "DURATION FACTOR (FWD below %" PRIu64 ", FACTOR above "
			 "1, at most %d)", spec, s->nfwd, THRASH_MAX);
		return -BCN_ESYNTAX;
	}
	memset(in, 0, sizeof(*in));
	in->ost = f;
	in->factor = factor;
	/* seconds to ticks, as the other injections */
	in->from = (int64_t)llround((double)from / s->tick_s);
	in->len = (int64_t)llround((double)len / s->tick_s);
	return 0;
}

int bcn_sim_osc_new(struct bcn_sim *s, char *err, size_t errlen)
{
	size_t i;
	int rc;

	for (i = 0; i < s->c.nthrash; i++) {
		rc = parse_thrash(s, s->c.cache_thrash[i], &s->tinj[i], err,
				  errlen);
		if (rc)
			return rc;
	}
	s->nthrash = s->c.nthrash;
	s->osc = calloc(1, sizeof(*s->osc));
	if (!s->osc)
		return -ENOMEM;
	s->osc->dev = calloc(s->nfwd * s->nost, sizeof(*s->osc->dev));
	if (!s->osc->dev)
		return -ENOMEM;
	dev_init(&s->osc->idle);
	return 0;
}

void bcn_sim_osc_free(struct bcn_sim *s)
{
	size_t i;

	if (!s->osc)
		return;
	for (i = 0; s->osc->dev && i < s->nfwd * s->nost; i++)
		free(s->osc->dev[i]);
	free(s->osc->dev);
	free(s->osc);
	s->osc = NULL;
}

/* ---- the split -------------------------------------------------------- */

typedef void part_fn(struct bcn_sim *s, uint64_t f, uint64_t part,
		     void *arg);

/* Splits amount over the forwarding nodes of the nodes nd of job j, in
 * proportion to the bytes each node got past its forwarding node this
 * tick; fn gets each forwarding node's part (the parts add up to amount;
 * forwarding nodes are contiguous in node order). */
static void split(struct bcn_sim *s, const struct bcn_sim_job *j,
		  struct bcn_sim_nodes nd, uint64_t amount, part_fn *fn,
		  void *arg)
{
	uint64_t step = nd.step ? nd.step : 1, last, i, f, g;
	uint64_t w = 0, cum = 0, done = 0, at;

	if (nd.first >= j->nodes || !amount)
		return;
	last = nd.first + (j->nodes - 1 - nd.first) / step * step;
	f = bcn_sim_fwd_of(s, j->first + nd.first);
	if (f == bcn_sim_fwd_of(s, j->first + last)) {
		fn(s, f, amount, arg);
		return;
	}
	for (i = nd.first; i < j->nodes; i += step)
		w += bcn_sim_node_bytes(s, j, i);
	for (i = nd.first; w && i < j->nodes; i += step) {
		g = bcn_sim_fwd_of(s, j->first + i);
		if (g != f) {
			at = (uint64_t)((unsigned __int128)amount * cum / w);
			fn(s, f, at - done, arg);
			done = at;
			f = g;
		}
		cum += bcn_sim_node_bytes(s, j, i);
	}
	fn(s, f, amount - done, arg);
}

/* A forwarding node's thrashing factor now (1: none). */
static double thrash_factor(const struct bcn_sim *s, uint64_t f)
{
	return bcn_sim_slow(s->tinj, s->nthrash, f, s->tick);
}

/* What forwarding node f reads for part bytes its nodes asked. */
static uint64_t inflate(const struct bcn_sim *s, uint64_t f, uint64_t part)
{
	double k = thrash_factor(s, f);

	return part + (k > 1 ? (uint64_t)((double)part * (k - 1)) : 0);
}

static bool thrash_now(const struct bcn_sim *s)
{
	for (size_t i = 0; i < s->nthrash; i++)
		if (s->tick >= s->tinj[i].from &&
		    s->tick < s->tinj[i].from + s->tinj[i].len)
			return true;
	return false;
}

static void add_extra(struct bcn_sim *s, uint64_t f, uint64_t part, void *arg)
{
	*(uint64_t *)arg += inflate(s, f, part) - part;
}

uint64_t bcn_sim_osc_extra_demand(struct bcn_sim *s,
				  const struct bcn_sim_job *j,
				  struct bcn_sim_nodes nd, uint64_t bytes)
{
	uint64_t extra = 0;

	if (thrash_now(s))
		split(s, j, nd, bytes, add_extra, &extra);
	return extra;
}

/* The device of forwarding node f for ost, made on first use (NULL, once
 * warned, when memory runs out: the bytes still count as passed). */
static struct bcn_sim_osc *dev_of(struct bcn_sim *s, uint64_t f, uint64_t ost)
{
	struct bcn_sim_osc **d = &s->osc->dev[f * s->nost + ost];

	if (!*d) {
		*d = malloc(sizeof(**d));
		if (!*d) {
			if (!s->osc->nomem)
				BCN_WARN("sim: out of memory: osc counters "
					 "of fwd%03" PRIu64 " are incomplete",
					 f + 1);
			s->osc->nomem = true;
			return NULL;
		}
		dev_init(*d);
	}
	return *d;
}

/* Forwarding node f's client moved sent bytes to or from the OST, of
 * which its nodes got passed. */
static void pass(struct bcn_sim *s, uint64_t f, uint64_t ost, int dir,
		 uint64_t sent, uint64_t passed)
{
	struct bcn_sim_osc *d = dev_of(s, f, ost);

	if (dir)
		s->fwd[f].write += passed;
	else
		s->fwd[f].read += passed;
	if (d)
		d->tick[dir] += sent;
}

struct serve_arg {
	uint64_t ost;
	int dir;                /* 0 read, 1 write */
	uint64_t all;           /* what the OST served */
	uint64_t want;          /* what the forwarding nodes asked */
	uint64_t cum, done;     /* asked and served so far */
	uint64_t got;           /* passed to the nodes */
};

static void serve_plain(struct bcn_sim *s, uint64_t f, uint64_t part,
			void *arg)
{
	struct serve_arg *a = arg;

	pass(s, f, a->ost, a->dir, part, part);
	a->got += part;
}

static void sum_want(struct bcn_sim *s, uint64_t f, uint64_t part, void *arg)
{
	((struct serve_arg *)arg)->want += inflate(s, f, part);
}

/* Forwarding node f asked inflate(part) for the part its nodes asked:
 * it gets its share of all, its nodes the same share of their part. */
static void serve_thrash(struct bcn_sim *s, uint64_t f, uint64_t part,
			 void *arg)
{
	struct serve_arg *a = arg;
	uint64_t asked = inflate(s, f, part), at, sent, passed;

	a->cum += asked;
	at = (uint64_t)((unsigned __int128)a->all * a->cum / a->want);
	sent = at - a->done;
	a->done = at;
	passed = asked ? (uint64_t)((unsigned __int128)part * sent / asked) : 0;
	pass(s, f, a->ost, a->dir, sent, passed);
	a->got += passed;
}

uint64_t bcn_sim_osc_serve(struct bcn_sim *s, const struct bcn_sim_job *j,
			   uint64_t ost, bool write, uint64_t bytes,
			   uint64_t all, struct bcn_sim_nodes nd)
{
	struct serve_arg a = { .ost = ost, .dir = write ? 1 : 0, .all = all };

	if (write || !thrash_now(s)) {
		split(s, j, nd, all, serve_plain, &a);
		return a.got;
	}
	/* what each forwarding node asked, with its thrashing, is split
	 * from bytes again (the same parts as for the demand) */
	split(s, j, nd, bytes, sum_want, &a);
	if (a.want)
		split(s, j, nd, bytes, serve_thrash, &a);
	return a.got;
}

/* ---- RPCs ------------------------------------------------------------- */

/* The rpc_stats bucket of a page offset (of offset + 1: fls(offset));
 * other values go to bcn_lustre_tally_log2's. */
static unsigned offset_bucket(uint64_t pages)
{
	unsigned b = pages ? 64u - (unsigned)__builtin_clzll(pages) : 0;

	return b < BCN_SIM_OSC_HIST ? b : BCN_SIM_OSC_HIST - 1;
}

/* RPCs a client keeps in flight to ost now: max_rpcs_in_flight times the
 * OST's utilisation, at least 1. */
static uint64_t flight_level(const struct bcn_sim *s, uint64_t ost)
{
	double cap = (double)s->c.ost_bw * s->tick_s *
		     bcn_sim_slow(s->inj, s->ninj, ost, s->tick);
	double u = cap > 0 ? (double)s->ost[ost].demand / cap : 1.0;
	uint64_t n = (uint64_t)ceil(RIF_MAX * (u < 1 ? u : 1));

	return n < 1 ? 1 : n > RIF_MAX ? RIF_MAX : n;
}

/* Tallies the starting page offsets of n RPCs of size bytes sent one
 * after the other from d->off[dir] on, a bucket at a time. */
static void count_offsets(struct bcn_sim_osc *d, int dir, uint64_t n,
			  uint64_t size)
{
	uint64_t *h = d->c.offset[dir], off = d->off[dir], k = 0, next, k2;
	unsigned b;

	while (k < n) {
		b = offset_bucket((off + k * size) / PAGE_BYTES);
		if (b == BCN_SIM_OSC_HIST - 1) {
			h[b] += n - k;
			break;
		}
		/* the first byte offset of bucket b + 1 */
		next = (b == 0 ? 1ull : 1ull << b) * PAGE_BYTES;
		k2 = (next - off + size - 1) / size;
		k2 = k2 > n ? n : k2 <= k ? k + 1 : k2;
		h[b] += k2 - k;
		k = k2;
	}
	d->off[dir] += n * size;
}

/* n RPCs of size bytes each, sent with level RPCs in flight. */
static void count_rpcs(struct bcn_sim_osc *d, int dir, uint64_t n,
		       uint64_t size, uint64_t level)
{
	struct bcn_sim_osc_ctr *c = &d->c;
	uint64_t pages;

	if (!n)
		return;
	pages = (size + PAGE_BYTES - 1) / PAGE_BYTES;
	c->pages[dir][bcn_lustre_tally_log2(pages, BCN_SIM_OSC_HIST)] += n;
	c->flight[dir][level] += n;
	count_offsets(d, dir, n, size);
	c->active_n += n;
	c->active_sum += n * level;
	c->active_sumsq += n * level * level;
	if (level < c->active_min)
		c->active_min = level;
	if (level > c->active_max)
		c->active_max = level;
}

/* n RPCs each waiting us microseconds for their reply. */
static void count_wait(struct bcn_sim_osc_wait *w, bool first, uint64_t n,
		       uint64_t us)
{
	if (first || us < w->min)
		w->min = us;
	if (first || us > w->max)
		w->max = us;
	w->sum += n * us;
	w->sumsq += n * us * us;
}

/* This tick's bytes of one direction of d as RPCs: n - 1 of rpc bytes
 * and a last one of the rest, each waiting wait_us; a burst's first RPCs
 * ramp up to cap in flight. */
static void rpcs(struct bcn_sim_osc *d, int dir, uint64_t rpc, uint64_t cap,
		 uint64_t wait_us)
{
	struct bcn_sim_osc_ctr *c = &d->c;
	uint64_t b = d->tick[dir], n = (b + rpc - 1) / rpc, k = 0;
	uint64_t last = b - (n - 1) * rpc, big = n > 1 ? rpc : last;

	if (!d->busy[dir]) {
		d->off[dir] = 0;
		for (; k + 1 < n && k + 1 < cap; k++)
			count_rpcs(d, dir, 1, rpc, k + 1);
	}
	count_rpcs(d, dir, n - 1 - k, rpc, cap);
	count_rpcs(d, dir, 1, last, d->busy[dir] || n >= cap ? cap : n);
	count_wait(&c->wait[dir], c->rpcs[dir] == 0, n, wait_us);
	c->rpcs[dir] += n;
	c->bytes[dir] += b;
	if (!c->min[dir] || last < c->min[dir])
		c->min[dir] = last;
	if (big > c->max[dir])
		c->max[dir] = big;
	c->in_flight[dir] = n < cap ? n : cap;
	d->busy[dir] = true;
	d->tick[dir] = 0;
}

void bcn_sim_osc_tick(struct bcn_sim *s)
{
	struct bcn_sim_osc *d;
	uint64_t f, o, cap, wait;
	int dir;

	for (o = 0; o < s->nost; o++) {
		cap = flight_level(s, o);
		wait = (uint64_t)llround(s->ost[o].io_ms * 1000.0);
		for (f = 0; f < s->nfwd; f++) {
			d = s->osc->dev[f * s->nost + o];
			for (dir = 0; d && dir < 2; dir++) {
				if (d->tick[dir]) {
					rpcs(d, dir, s->c.rpc_bytes, cap,
					     wait);
					continue;
				}
				d->c.in_flight[dir] = 0;
				d->busy[dir] = false;
			}
		}
	}
}

/* ---- files ------------------------------------------------------------ */

/* The three files of forwarding node f's device for ost: stats where
 * 2.15 has it (debugfs), rpc_stats and import in procfs. */
static int write_dev(struct bcn_sim *s, uint64_t f, uint64_t ost,
		     const char *fwd_dir, int64_t now)
{
	const struct bcn_sim_osc *d = s->osc->dev[f * s->nost + ost];
	char dev[96], target[64], nid[48], dir[DIR_MAX];
	struct bcn_sim_osc_import imp = { dev, target, nid, s->c.rpc_bytes };
	uint64_t oss = ost / s->c.osts_per_oss + 1;
	const char *name = "stats";
	int rc;

	if (!d)
		d = &s->osc->idle;
	snprintf(target, sizeof(target), "%s-OST%04" PRIx64, s->c.fsname, ost);
	snprintf(dev, sizeof(dev), "%s-osc-%016" PRIx64, target,
		 INSTANCE_BASE + ((f + 1) << 20));
	snprintf(nid, sizeof(nid), "10.10.%" PRIu64 ".%" PRIu64 "@o2ib",
		 oss / 256, oss % 256);
	snprintf(dir, sizeof(dir), "%s/sys/kernel/debug/lustre/osc/%s",
		 fwd_dir, dev);
	rc = bcn_sim_fmt_osc_stats(&s->scratch, now, s->epoch_ns, &d->c);
	if (!rc)
		rc = bcn_sim_write_file(dir, name, s->scratch.data,
					s->scratch.len);
	if (rc)
		goto out;
	snprintf(dir, sizeof(dir), "%s/proc/fs/lustre/osc/%s", fwd_dir, dev);
	name = "rpc_stats";
	rc = bcn_sim_fmt_osc_rpc_stats(&s->scratch, now, s->epoch_ns, &d->c);
	if (!rc)
		rc = bcn_sim_write_file(dir, name, s->scratch.data,
					s->scratch.len);
	if (rc)
		goto out;
	name = "import";
	rc = bcn_sim_fmt_osc_import(&s->scratch, &imp, &d->c);
	if (!rc)
		rc = bcn_sim_write_file(dir, name, s->scratch.data,
					s->scratch.len);
out:
	if (rc)
		BCN_ERR("sim: writing %s/%s: %s", dir, name, bcn_strerror(rc));
	return rc;
}

const struct bcn_sim_osc_ctr *bcn_sim_osc_get(const struct bcn_sim *s,
					     uint64_t f, uint64_t o)
{
	const struct bcn_sim_osc *d;

	if (!s->osc || f >= s->nfwd || o >= s->nost)
		return NULL;
	d = s->osc->dev[f * s->nost + o];
	return d ? &d->c : NULL;
}

int bcn_sim_osc_write(struct bcn_sim *s)
{
	int64_t now = s->epoch_ns + (int64_t)((double)s->tick * s->tick_s *
					      1e9);
	char fwd_dir[BCN_SIM_PATH_MAX + 32];
	uint64_t f, o;
	int rc;

	for (f = 0; f < s->nfwd; f++) {
		snprintf(fwd_dir, sizeof(fwd_dir), "%s/fwd%03" PRIu64,
			 s->c.out, f + 1);
		for (o = 0; o < s->nost; o++)
			if ((rc = write_dev(s, f, o, fwd_dir, now)))
				return rc;
	}
	return 0;
}
