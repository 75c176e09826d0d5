/* A simulated OST's disk I/O times and its brw_stats text (ost_brw.h).
 * The layout is lprocfs's brw_stats_show of 2.15: per section
 * "\n%26s read      |     write\n", "%-22s %-5s %% cum %% |  %-11s %%
 * cum %%\n", then the rows; scaled sections label row i 2^i (with K and M
 * beyond 2^9 and 2^19), linear ones i. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "collectors/lustre/lustre_hist.h"
#include "sim/ost_brw.h"

#define PAGE_BYTES 4096
#define NS_PER_SEC INT64_C(1000000000)
#define TIME_COLS 25            /* "snapshot_time:" padded */

void bcn_sim_brw_bulk(struct bcn_sim_brw_ctr *c, int dir, uint64_t bytes,
		      uint64_t rpc)
{
	uint64_t n, last;

	if (!c || !bytes || !rpc || (dir != 0 && dir != 1))
		return;
	n = (bytes + rpc - 1) / rpc;
	last = bytes - (n - 1) * rpc;
	c->pages[dir][bcn_lustre_tally_log2((rpc + PAGE_BYTES - 1) /
					    PAGE_BYTES, BCN_SIM_BRW_HIST)] +=
		n - 1;
	c->pages[dir][bcn_lustre_tally_log2((last + PAGE_BYTES - 1) /
					    PAGE_BYTES, BCN_SIM_BRW_HIST)]++;
	c->iosize[dir][bcn_lustre_tally_log2(rpc, BCN_SIM_BRW_HIST)] += n - 1;
	c->iosize[dir][bcn_lustre_tally_log2(last, BCN_SIM_BRW_HIST)]++;
	c->tick_ios[dir] += n;
	c->tick_bytes += bytes;
}

double bcn_sim_brw_io_ms(double base_ms, double util, double slow)
{
	double u = util > 0 ? util : 0;

	if (u > BCN_SIM_BRW_UTIL_MAX)
		u = BCN_SIM_BRW_UTIL_MAX;
	if (!(slow > 0) || slow > 1)
		slow = 1;
	return base_ms / (1.0 - u) / slow;
}

/* The k-th of n spread times, ms (the definition the counts follow). */
static double spread_at(uint64_t n, double mean_ms, double phase, uint64_t k)
{
	return mean_ms * (0.5 + ((double)k + phase) / (double)n);
}

/* How many of the n spread times (increasing in k) floor to at most v
 * ms: solved for k, then moved to where spread_at itself says, since
 * rounding can put a time that is a whole number on either side. */
static uint64_t at_most(uint64_t n, double mean_ms, double phase, uint64_t v)
{
	double x = ceil((double)n * (((double)v + 1.0) / mean_ms - 0.5) -
			phase);
	uint64_t k = !(x > 0) ? 0 : x >= (double)n ? n : (uint64_t)x;

	while (k > 0 && floor(spread_at(n, mean_ms, phase, k - 1)) >
	       (double)v)
		k--;
	while (k < n && floor(spread_at(n, mean_ms, phase, k)) <= (double)v)
		k++;
	return k;
}

void bcn_sim_brw_spread(uint64_t n, double mean_ms, double phase,
			uint64_t out[BCN_SIM_BRW_HIST])
{
	uint64_t prev = 0, cum;
	unsigned i;

	if (!n)
		return;
	if (!(mean_ms > 0) || isinf(mean_ms)) {
		out[mean_ms > 0 ? BCN_SIM_BRW_HIST - 1 : 0] += n;
		return;
	}
	if (!(phase >= 0 && phase < 1))
		phase = 0;
	for (i = 0; i < BCN_SIM_BRW_HIST; i++) {
		/* bucket i holds (2^(i-1), 2^i] ms, bucket 0 also 0 */
		cum = i == BCN_SIM_BRW_HIST - 1 ? n :
		      at_most(n, mean_ms, phase, 1ull << i);
		out[i] += cum - prev;
		prev = cum;
	}
}

void bcn_sim_brw_settle(struct bcn_sim_brw_ctr *c, double io_ms,
			double tick_s, const double phase[2])
{
	uint64_t ios = c->tick_ios[0] + c->tick_ios[1], level = 1;
	double l;
	int d;

	if (ios && tick_s > 0) {
		/* Little's law: arrivals per second times time in system */
		l = ceil((double)ios / tick_s * io_ms / 1000.0);
		level = !(l >= 1) ? 1 : l >= BCN_SIM_BRW_HIST - 1 ?
			BCN_SIM_BRW_HIST - 1 : (uint64_t)l;
	}
	for (d = 0; d < 2; d++) {
		bcn_sim_brw_spread(c->tick_ios[d], io_ms, phase[d],
				   c->iotime[d]);
		c->flight[d][level] += c->tick_ios[d];
		c->tick_ios[d] = 0;
	}
	c->tick_bytes = 0;
}

bool bcn_sim_brw_delta(const struct bcn_sim_brw_ctr *c,
		       const struct bcn_sim_brw_ctr *p, struct bcn_record *r)
{
	uint64_t v[4];
	bool any = false;
	unsigned b, to;

	for (b = 0; b < BCN_SIM_BRW_HIST; b++) {
		to = bcn_lustre_log2_bucket(1ull << b);
		v[0] = c->pages[0][b] - p->pages[0][b];
		v[1] = c->pages[1][b] - p->pages[1][b];
		v[2] = c->iotime[0][b] - p->iotime[0][b];
		v[3] = c->iotime[1][b] - p->iotime[1][b];
		r->u.ost.pages_read[to] += v[0];
		r->u.ost.pages_write[to] += v[1];
		r->u.ost.iotime_read[to] += v[2];
		r->u.ost.iotime_write[to] += v[3];
		any |= (v[0] | v[1] | v[2] | v[3]) != 0;
	}
	return any;
}

/* ---- text ------------------------------------------------------------- */

static unsigned pct(uint64_t a, uint64_t b)
{
	return b ? (unsigned)(a * 100 / b) : 0;
}

static int put_label(struct bcn_buf *b, unsigned i, bool scale)
{
	if (!scale)
		return bcn_buf_printf(b, "%u", i);
	if (i < 10)
		return bcn_buf_printf(b, "%lu", 1UL << i);
	if (i < 20)
		return bcn_buf_printf(b, "%luK", 1UL << (i - 10));
	return bcn_buf_printf(b, "%luM", 1UL << (i - 20));
}

/* One section: titles, then the rows as brw_stats_show prints them
 * (none when both columns are empty). r or w NULL: an empty column. */
static int put_section(struct bcn_buf *b, const char *title,
		       const char *units, const uint64_t *r,
		       const uint64_t *w, bool scale)
{
	uint64_t rt = 0, wt = 0, rcum = 0, wcum = 0, rv, wv;
	unsigned i;
	int rc;

	rc = bcn_buf_printf(b, "\n%26s read      |     write\n"
			    "%-22s %-5s %% cum %% |  %-11s %% cum %%\n", " ",
			    title, units, units);
	for (i = 0; i < BCN_SIM_BRW_HIST; i++) {
		rt += r ? r[i] : 0;
		wt += w ? w[i] : 0;
	}
	for (i = 0; rc == 0 && (rt || wt) && i < BCN_SIM_BRW_HIST; i++) {
		rv = r ? r[i] : 0;
		wv = w ? w[i] : 0;
		rcum += rv;
		wcum += wv;
		if (rcum == 0 && wcum == 0)
			continue;
		rc = put_label(b, i, scale);
		if (rc == 0)
			rc = bcn_buf_printf(b, ":\t\t%10" PRIu64 " %3u %3u   | "
					    "%4" PRIu64 " %3u %3u\n", rv,
					    pct(rv, rt), pct(rcum, rt), wv,
					    pct(wv, wt), pct(wcum, wt));
		if (rcum == rt && wcum == wt)
			break;
	}
	return rc;
}

static int put_time(struct bcn_buf *b, const char *key, int64_t ns)
{
	return bcn_buf_printf(b, "%-*s %" PRId64 ".%09" PRId64 " secs.nsecs\n",
			      TIME_COLS, key, ns / NS_PER_SEC, ns % NS_PER_SEC);
}

/* Row 0 of a linear section holding every RPC of pages (the
 * simulator's RPCs are contiguous, each one disk I/O). */
static void all_in_row(const struct bcn_sim_brw_ctr *c, unsigned row,
		       uint64_t out[2][BCN_SIM_BRW_HIST])
{
	memset(out, 0, 2 * BCN_SIM_BRW_HIST * sizeof(out[0][0]));
	for (int d = 0; d < 2; d++)
		for (unsigned i = 0; i < BCN_SIM_BRW_HIST; i++)
			out[d][row] += c->pages[d][i];
}

int bcn_sim_fmt_brw_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_brw_ctr *c)
{
	uint64_t zero[2][BCN_SIM_BRW_HIST], one[2][BCN_SIM_BRW_HIST];
	int rc;

	bcn_buf_reset(out);
	if (!c || now_ns < 0 || start_ns < 0 || start_ns > now_ns)
		return -EINVAL;
	all_in_row(c, 0, zero);
	all_in_row(c, 1, one);
	rc = put_time(out, "snapshot_time:", now_ns);
	if (rc == 0)
		rc = put_time(out, "start_time:", start_ns);
	if (rc == 0)
		rc = put_time(out, "elapsed_time:", now_ns - start_ns);
	if (rc == 0)
		rc = put_section(out, "pages per bulk r/w", "rpcs",
				 c->pages[0], c->pages[1], true);
	if (rc == 0)
		rc = put_section(out, "discontiguous pages", "rpcs", zero[0],
				 zero[1], false);
	if (rc == 0)
		rc = put_section(out, "discontiguous blocks", "rpcs", zero[0],
				 zero[1], false);
	if (rc == 0)
		rc = put_section(out, "disk fragmented I/Os", "ios", one[0],
				 one[1], false);
	if (rc == 0)
		rc = put_section(out, "disk I/Os in flight", "ios",
				 c->flight[0], c->flight[1], false);
	if (rc == 0)
		rc = put_section(out, "I/O time (1/1000s)", "ios",
				 c->iotime[0], c->iotime[1], true);
	if (rc == 0)
		rc = put_section(out, "disk I/O size", "ios", c->iosize[0],
				 c->iosize[1], true);
	if (rc == 0)
		rc = put_section(out, "block maps msec", "maps", NULL, NULL,
				 true);
	return rc;
}
