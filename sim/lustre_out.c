/* Lustre 2.15 stats, md_stats and job_stats text from the simulator's
 * counters, the osc stats, rpc_stats and import of a client
 * (lustre_out.h), and the atomic file writes that publish them.
 * The layouts follow lprocfs: "%-25s" names in stats files; in
 * job_stats "  name:" padded to 15 columns, samples "%11", min and max
 * "%8", sum "%16", sumsq "%18". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/lustre/lustre_hist.h"
#include "sim/lustre_out.h"

#define NS_PER_SEC INT64_C(1000000000)
#define HIST_BUCKETS 32         /* OBD_HIST_MAX */
#define JS_NAME_COLS 15         /* job_stats counter name column */
#define CTRS_MAX 32             /* counters of one target or job */
#define JOBID_ESC_MAX (BCN_SIM_JOBID_MAX * 4)

enum src {
	SRC_OPS,        /* [usecs]: requests of ops[op], no latencies */
	SRC_RBYTES,     /* [bytes]: OST reads with their sizes */
	SRC_WBYTES,     /* [bytes]: OST writes with their sizes */
	SRC_NOBYTES,    /* [bytes]: requests of ops[op], of 0 bytes */
	SRC_NONE,       /* [usecs]: a counter the simulator never moves */
};

struct ctr_def {
	const char *name;
	uint8_t src;            /* enum src */
	uint8_t op;             /* SRC_OPS, SRC_NOBYTES */
};

/* ofd_stats_counter_init order */
static const struct ctr_def ost_defs[] = {
	{ "read_bytes", SRC_RBYTES, 0 },
	{ "write_bytes", SRC_WBYTES, 0 },
	{ "read", SRC_OPS, BCN_OST_READ },
	{ "write", SRC_OPS, BCN_OST_WRITE },
	{ "getattr", SRC_OPS, BCN_OST_GETATTR },
	{ "setattr", SRC_OPS, BCN_OST_SETATTR },
	{ "punch", SRC_OPS, BCN_OST_PUNCH },
	{ "sync", SRC_OPS, BCN_OST_SYNC },
	{ "destroy", SRC_OPS, BCN_OST_DESTROY },
	{ "create", SRC_OPS, BCN_OST_CREATE },
	{ "statfs", SRC_OPS, BCN_OST_STATFS },
	{ "get_info", SRC_OPS, BCN_OST_GET_INFO },
	{ "set_info", SRC_OPS, BCN_OST_SET_INFO },
	{ "quotactl", SRC_OPS, BCN_OST_QUOTACTL },
	{ "prealloc", SRC_NONE, 0 },
};

/* mdt_stats_counter_init order */
static const struct ctr_def mdt_defs[] = {
	{ "open", SRC_OPS, BCN_MD_OPEN },
	{ "close", SRC_OPS, BCN_MD_CLOSE },
	{ "mknod", SRC_OPS, BCN_MD_MKNOD },
	{ "link", SRC_OPS, BCN_MD_LINK },
	{ "unlink", SRC_OPS, BCN_MD_UNLINK },
	{ "mkdir", SRC_OPS, BCN_MD_MKDIR },
	{ "rmdir", SRC_OPS, BCN_MD_RMDIR },
	{ "rename", SRC_OPS, BCN_MD_RENAME },
	{ "getattr", SRC_OPS, BCN_MD_GETATTR },
	{ "setattr", SRC_OPS, BCN_MD_SETATTR },
	{ "getxattr", SRC_OPS, BCN_MD_GETXATTR },
	{ "setxattr", SRC_OPS, BCN_MD_SETXATTR },
	{ "statfs", SRC_OPS, BCN_MD_STATFS },
	{ "sync", SRC_OPS, BCN_MD_SYNC },
	{ "samedir_rename", SRC_OPS, BCN_MD_SAMEDIR_RENAME },
	{ "parallel_rename_file", SRC_OPS, BCN_MD_PARALLEL_RENAME_FILE },
	{ "parallel_rename_dir", SRC_OPS, BCN_MD_PARALLEL_RENAME_DIR },
	{ "crossdir_rename", SRC_OPS, BCN_MD_CROSSDIR_RENAME },
	{ "read", SRC_OPS, BCN_MD_READ },
	{ "write", SRC_OPS, BCN_MD_WRITE },
	{ "read_bytes", SRC_NOBYTES, BCN_MD_READ },
	{ "write_bytes", SRC_NOBYTES, BCN_MD_WRITE },
	{ "punch", SRC_OPS, BCN_MD_PUNCH },
	{ "migrate", SRC_OPS, BCN_MD_MIGRATE },
};

#define NDEFS(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(NDEFS(ost_defs) <= CTRS_MAX, "OST counters");
_Static_assert(NDEFS(mdt_defs) <= CTRS_MAX, "MDT counters");

/* One counter as Lustre prints it. For [bytes] counters the n sizes are
 * modelled as lo once, hi once, n - 2 - rem times q, rem times q + 1
 * (n >= 2), or one of sum bytes (n == 1). */
struct ctr {
	const char *name;
	const char *unit;       /* NULL: [bytes] or [usecs] by bytes */
	bool bytes;
	uint64_t n, min, max, sum, sumsq;
	uint64_t q, rem;
};

static void ctr_plain(struct ctr *c, const char *name, uint64_t n)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->n = n;
}

/* Makes lo <= sum / n <= hi and sum reachable by n - 2 sizes in [lo, hi]
 * besides lo and hi (n >= 2), moving lo and hi as little as needed. */
static void sizes_fit(uint64_t n, uint64_t sum, uint64_t *lo, uint64_t *hi)
{
	uint64_t avg_lo = sum / n, avg_hi = avg_lo + (sum % n != 0), m;

	if (*lo > *hi) {
		m = *lo;
		*lo = *hi;
		*hi = m;
	}
	if (*lo > avg_lo)
		*lo = avg_lo;
	if (*hi < avg_hi)
		*hi = avg_hi;
	/* (n - 1) * lo <= sum because lo <= sum / n */
	if (sum - (n - 1) * *lo < *hi)
		*hi = sum - (n - 1) * *lo;
	if (!__builtin_mul_overflow(n - 1, *hi, &m) && sum - *lo > m)
		*lo = sum - m;
}

/* A [bytes] counter of n requests of sum bytes, smallest lo, largest
 * hi. Sums of squares wrap modulo 2^64 as Lustre's do. */
static void ctr_bytes(struct ctr *c, const char *name, uint64_t n,
		      uint64_t lo, uint64_t hi, uint64_t sum)
{
	uint64_t rest, r;

	ctr_plain(c, name, n);
	c->bytes = true;
	if (n == 0)
		return;
	c->sum = sum;
	if (n == 1) {
		c->min = c->max = sum;
		c->sumsq = sum * sum;
		return;
	}
	sizes_fit(n, sum, &lo, &hi);
	c->min = lo;
	c->max = hi;
	c->sumsq = lo * lo + hi * hi;
	r = n - 2;
	if (r == 0)
		return;
	rest = sum - lo - hi;
	c->q = rest / r;
	c->rem = rest % r;
	c->sumsq += (r - c->rem) * (c->q * c->q) +
		    c->rem * ((c->q + 1) * (c->q + 1));
}

/* Fills cs from the definitions; returns their number. */
static size_t ctrs_fill(struct ctr *cs, const struct ctr_def *defs,
			size_t ndefs, const uint64_t *ops,
			const struct bcn_sim_ost_ctr *ost)
{
	size_t i;

	for (i = 0; i < ndefs; i++) {
		const struct ctr_def *d = &defs[i];

		switch (d->src) {
		case SRC_OPS:
			ctr_plain(&cs[i], d->name, ops[d->op]);
			break;
		case SRC_RBYTES:
			ctr_bytes(&cs[i], d->name, ost->ops[BCN_OST_READ],
				  ost->read_min, ost->read_max,
				  ost->read_bytes);
			break;
		case SRC_WBYTES:
			ctr_bytes(&cs[i], d->name, ost->ops[BCN_OST_WRITE],
				  ost->write_min, ost->write_max,
				  ost->write_bytes);
			break;
		case SRC_NOBYTES:
			ctr_bytes(&cs[i], d->name, ops[d->op], 0, 0, 0);
			break;
		default:
			ctr_plain(&cs[i], d->name, 0);
			break;
		}
	}
	return ndefs;
}

static size_t ost_ctrs(struct ctr *cs, const struct bcn_sim_ost_ctr *c)
{
	return ctrs_fill(cs, ost_defs, NDEFS(ost_defs), c->ops, c);
}

static size_t mdt_ctrs(struct ctr *cs, const struct bcn_sim_mdt_ctr *c)
{
	return ctrs_fill(cs, mdt_defs, NDEFS(mdt_defs), c->ops, NULL);
}

/* ---- Text ------------------------------------------------------------ */

static int check_times(int64_t now_ns, int64_t start_ns)
{
	return now_ns < 0 || start_ns < 0 || start_ns > now_ns ? -EINVAL : 0;
}

/* "<prefix><key padded to width> SECS.NNNNNNNNN secs.nsecs" */
static int put_time(struct bcn_buf *b, const char *prefix, int width,
		    const char *key, int64_t ns)
{
	return bcn_buf_printf(b, "%s%-*s %" PRId64 ".%09" PRId64
			      " secs.nsecs\n", prefix, width, key,
			      ns / NS_PER_SEC, ns % NS_PER_SEC);
}

/* The three header lines of a stats file (js false) or a job. */
static int put_times(struct bcn_buf *b, bool js, int64_t now_ns,
		     int64_t start_ns)
{
	const char *prefix = js ? "  " : "";
	int w = js ? 16 : 25;
	int rc;

	rc = put_time(b, prefix, w, js ? "snapshot_time:" : "snapshot_time",
		      now_ns);
	if (rc == 0)
		rc = put_time(b, prefix, w, js ? "start_time:" : "start_time",
			      start_ns);
	if (rc == 0)
		rc = put_time(b, prefix, w,
			      js ? "elapsed_time:" : "elapsed_time",
			      now_ns - start_ns);
	return rc;
}

static int put_stats(struct bcn_buf *b, int64_t now_ns, int64_t start_ns,
		     const struct ctr *cs, size_t n)
{
	size_t i;
	int rc = put_times(b, false, now_ns, start_ns);

	for (i = 0; rc == 0 && i < n; i++) {
		const struct ctr *c = &cs[i];

		if (c->n == 0)
			continue;
		rc = bcn_buf_printf(b, "%-25s %" PRIu64 " samples [%s] %" PRIu64
				    " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				    c->name, c->n, c->unit ? c->unit :
				    c->bytes ? "bytes" : "usecs",
				    c->min, c->max, c->sum, c->sumsq);
	}
	return rc;
}

/* ", hist: { 4K: 35, 1M: 2 }" of the modelled sizes. */
static int put_hist(struct bcn_buf *b, const struct ctr *c)
{
	static const char *const sfx[] = { "", "K", "M", "G" };
	uint64_t h[HIST_BUCKETS] = { 0 };
	bool first = true;
	unsigned j;
	int rc;

	if (c->n == 1) {
		h[bcn_lustre_tally_log2(c->sum, HIST_BUCKETS)] = 1;
	} else if (c->n >= 2) {
		h[bcn_lustre_tally_log2(c->min, HIST_BUCKETS)]++;
		h[bcn_lustre_tally_log2(c->max, HIST_BUCKETS)]++;
		h[bcn_lustre_tally_log2(c->q, HIST_BUCKETS)] += c->n - 2 - c->rem;
		h[bcn_lustre_tally_log2(c->q + 1, HIST_BUCKETS)] += c->rem;
	}
	rc = bcn_buf_adds(b, ", hist: { ");
	for (j = 0; rc == 0 && j < HIST_BUCKETS; j++) {
		if (h[j] == 0)
			continue;
		rc = bcn_buf_printf(b, "%s%lu%s: %" PRIu64, first ? "" : ", ",
				    1UL << (j % 10), sfx[j / 10], h[j]);
		first = false;
	}
	return rc ? rc : bcn_buf_adds(b, " }");
}

static int put_js_ctr(struct bcn_buf *b, const struct ctr *c)
{
	size_t len = strlen(c->name);
	int pad = len < JS_NAME_COLS ? (int)(JS_NAME_COLS - len) : 0;
	int rc;

	rc = bcn_buf_printf(b, "  %s:%*s { samples: %11" PRIu64 ", unit: %5s"
			    ", min: %8" PRIu64 ", max: %8" PRIu64 ", sum: %16"
			    PRIu64 ", sumsq: %18" PRIu64, c->name, pad, "",
			    c->n, c->bytes ? "bytes" : "usecs", c->min, c->max,
			    c->sum, c->sumsq);
	if (rc == 0 && c->bytes)
		rc = put_hist(b, c);
	return rc ? rc : bcn_buf_adds(b, " }\n");
}

static bool jobid_plain(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') ||
	       (ch != '\0' && strchr(".@-_:/", ch) != NULL);
}

/* "- job_id:          ID": quoted when it holds ':', an escaped byte,
 * or starts with '@' (YAML reserves it). Unlike the kernel's isalnum,
 * Latin-1 letters are escaped too. */
static int put_jobid(struct bcn_buf *b, const char *id)
{
	char esc[JOBID_ESC_MAX + 1];
	size_t i, o = 0, len = strnlen(id, BCN_SIM_JOBID_MAX - 1);
	bool quote = len > 0 && id[0] == '@';

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)id[i];

		if (jobid_plain((char)ch)) {
			esc[o++] = (char)ch;
			quote |= ch == ':';
		} else {
			snprintf(esc + o, sizeof(esc) - o, "\\x%02X", ch);
			o += 4;
			quote = true;
		}
	}
	esc[o] = '\0';
	return bcn_buf_printf(b, "- %-16s %s%s%s\n", "job_id:",
			      quote ? "\"" : "", esc, quote ? "\"" : "");
}

static int put_job(struct bcn_buf *b, int64_t now_ns, int64_t start_ns,
		   const char *jobid, const struct ctr *cs, size_t n)
{
	size_t i;
	int rc = put_jobid(b, jobid);

	if (rc == 0)
		rc = put_times(b, true, now_ns, start_ns);
	for (i = 0; rc == 0 && i < n; i++)
		rc = put_js_ctr(b, &cs[i]);
	return rc;
}

/* ---- Public ---------------------------------------------------------- */

int bcn_sim_fmt_ost_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_ost_ctr *c)
{
	struct ctr cs[CTRS_MAX];

	bcn_buf_reset(out);
	if (check_times(now_ns, start_ns))
		return -EINVAL;
	return put_stats(out, now_ns, start_ns, cs, ost_ctrs(cs, c));
}

int bcn_sim_fmt_mdt_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_mdt_ctr *c)
{
	struct ctr cs[CTRS_MAX];

	bcn_buf_reset(out);
	if (check_times(now_ns, start_ns))
		return -EINVAL;
	return put_stats(out, now_ns, start_ns, cs, mdt_ctrs(cs, c));
}

int bcn_sim_fmt_ost_jobstats(struct bcn_buf *out, int64_t now_ns,
			     int64_t start_ns,
			     const struct bcn_sim_ost_ctr *jobs, size_t n)
{
	struct ctr cs[CTRS_MAX];
	size_t i;
	int rc;

	bcn_buf_reset(out);
	if (check_times(now_ns, start_ns) || (n && !jobs))
		return -EINVAL;
	rc = bcn_buf_adds(out, "job_stats:\n");
	for (i = 0; rc == 0 && i < n; i++)
		rc = put_job(out, now_ns, start_ns, jobs[i].jobid, cs,
			     ost_ctrs(cs, &jobs[i]));
	return rc;
}

int bcn_sim_fmt_mdt_jobstats(struct bcn_buf *out, int64_t now_ns,
			     int64_t start_ns,
			     const struct bcn_sim_mdt_ctr *jobs, size_t n)
{
	struct ctr cs[CTRS_MAX];
	size_t i;
	int rc;

	bcn_buf_reset(out);
	if (check_times(now_ns, start_ns) || (n && !jobs))
		return -EINVAL;
	rc = bcn_buf_adds(out, "job_stats:\n");
	for (i = 0; rc == 0 && i < n; i++)
		rc = put_job(out, now_ns, start_ns, jobs[i].jobid, cs,
			     mdt_ctrs(cs, &jobs[i]));
	return rc;
}

/* ---- osc ------------------------------------------------------------- */

static int check_ctr(const struct bcn_sim_osc_ctr *c)
{
	return c ? 0 : -EINVAL;
}

/* The [usecs] values of up to three sets of waiting times w[k] of n0,
 * n1, n2 RPCs (sets without RPCs left out). */
static void ctr_wait(struct ctr *c, const struct bcn_sim_osc_wait *w,
		     uint64_t n0, uint64_t n1, uint64_t n2)
{
	const uint64_t n[3] = { n0, n1, n2 };
	bool first = true;

	for (int k = 0; k < 3; k++) {
		if (!n[k])
			continue;
		if (first || w[k].min < c->min)
			c->min = w[k].min;
		if (first || w[k].max > c->max)
			c->max = w[k].max;
		c->sum += w[k].sum;
		c->sumsq += w[k].sumsq;
		first = false;
	}
}

/* lprocfs_import_seq_show's avg_waittime: req_waittime's mean. */
static uint64_t avg_wait(const struct bcn_sim_osc_ctr *c)
{
	uint64_t n = c->rpcs[0] + c->rpcs[1] + c->connects;

	return n ? (c->wait[0].sum + c->wait[1].sum + c->wait[2].sum) / n : 0;
}

int bcn_sim_fmt_osc_stats(struct bcn_buf *out, int64_t now_ns,
			  int64_t start_ns, const struct bcn_sim_osc_ctr *c)
{
	struct ctr cs[7];

	bcn_buf_reset(out);
	if (check_times(now_ns, start_ns) || check_ctr(c))
		return -EINVAL;
	/* ptlrpc_lprocfs_register order: service counters, then the extra
	 * opcodes (read_bytes, write_bytes), then the RPC opcodes */
	ctr_plain(&cs[0], "req_waittime", c->rpcs[0] + c->rpcs[1] +
		  c->connects);
	ctr_wait(&cs[0], c->wait, c->rpcs[0], c->rpcs[1], c->connects);
	ctr_plain(&cs[1], "req_active", c->active_n);
	cs[1].unit = "reqs";
	cs[1].min = c->active_min;
	cs[1].max = c->active_max;
	cs[1].sum = c->active_sum;
	cs[1].sumsq = c->active_sumsq;
	ctr_bytes(&cs[2], "read_bytes", c->rpcs[0], c->min[0], c->max[0],
		  c->bytes[0]);
	ctr_bytes(&cs[3], "write_bytes", c->rpcs[1], c->min[1], c->max[1],
		  c->bytes[1]);
	ctr_plain(&cs[4], "ost_read", c->rpcs[0]);
	ctr_wait(&cs[4], &c->wait[0], c->rpcs[0], 0, 0);
	ctr_plain(&cs[5], "ost_write", c->rpcs[1]);
	ctr_wait(&cs[5], &c->wait[1], c->rpcs[1], 0, 0);
	ctr_plain(&cs[6], "ost_connect", c->connects);
	ctr_wait(&cs[6], &c->wait[2], c->connects, 0, 0);
	return put_stats(out, now_ns, start_ns, cs, NDEFS(cs));
}

/* lprocfs's pct(): a / b in whole percent, 0 of nothing. */
static unsigned pct(uint64_t a, uint64_t b)
{
	return b ? (unsigned)(a * 100 / b) : 0;
}

enum rpc_label { LABEL_POW2, LABEL_N, LABEL_OFFSET };

/* One rpc_stats section from row first on, rows until both columns are
 * complete, as osc_rpc_stats_seq_show. */
static int put_rpc_section(struct bcn_buf *b, const char *title,
			   const uint64_t *r, const uint64_t *w,
			   unsigned first, enum rpc_label kind)
{
	uint64_t rt = 0, wt = 0, rc_ = 0, wc = 0, label;
	unsigned i;
	int rc;

	for (i = 0; i < BCN_SIM_OSC_HIST; i++) {
		rt += r[i];
		wt += w[i];
	}
	rc = bcn_buf_printf(b, "\n\t\t\tread\t\t\twrite\n%-22srpcs   %% cum "
			    "%% |       rpcs   %% cum %%\n", title);
	for (i = first; rc == 0 && i < BCN_SIM_OSC_HIST; i++) {
		rc_ += r[i];
		wc += w[i];
		label = kind == LABEL_N ? i : kind == LABEL_POW2 ? 1ull << i :
			i == 0 ? 0 : 1ull << (i - 1);
		rc = bcn_buf_printf(b, "%" PRIu64 ":\t\t%10" PRIu64 " %3u %3u"
				    "   | %10" PRIu64 " %3u %3u\n", label, r[i],
				    pct(r[i], rt), pct(rc_, rt), w[i],
				    pct(w[i], wt), pct(wc, wt));
		if (rc_ == rt && wc == wt)
			break;
	}
	return rc;
}

int bcn_sim_fmt_osc_rpc_stats(struct bcn_buf *out, int64_t now_ns,
			      int64_t start_ns,
			      const struct bcn_sim_osc_ctr *c)
{
	int rc;

	bcn_buf_reset(out);
	if (check_times(now_ns, start_ns) || check_ctr(c))
		return -EINVAL;
	rc = put_time(out, "", 25, "snapshot_time:", now_ns);
	if (rc == 0)
		rc = put_time(out, "", 25, "start_time:", start_ns);
	if (rc == 0)
		rc = put_time(out, "", 25, "elapsed_time:", now_ns - start_ns);
	if (rc == 0)
		rc = bcn_buf_printf(out, "read RPCs in flight:  %" PRIu64 "\n"
				    "write RPCs in flight: %" PRIu64 "\n"
				    "pending write pages:  %" PRIu64 "\n"
				    "pending read pages:   %" PRIu64 "\n",
				    c->in_flight[0], c->in_flight[1],
				    c->pending_pages[1], c->pending_pages[0]);
	if (rc == 0)
		rc = put_rpc_section(out, bcn_lustre_rpc_name(BCN_RPC_PAGES),
				     c->pages[0], c->pages[1], 0, LABEL_POW2);
	if (rc == 0)
		rc = put_rpc_section(out, bcn_lustre_rpc_name(BCN_RPC_IN_FLIGHT),
				     c->flight[0], c->flight[1], 1, LABEL_N);
	if (rc == 0)
		rc = put_rpc_section(out, bcn_lustre_rpc_name(BCN_RPC_OFFSET),
				     c->offset[0], c->offset[1], 0, LABEL_OFFSET);
	return rc;
}

/* The connect data of a 2.15 client and server (what the simulator does
 * not model: a plausible, fixed set). */
static const char import_flags[] =
	"[ write_grant, server_lock, version, request_portal, "
	"truncate_lock, max_byte_per_rpc, early_lock_cancel, "
	"adaptive_timeouts, lru_resize, alt_checksum_algorithm, "
	"fid_is_enabled, version_recovery, grant_shrink, full20, "
	"layout_lock, 64bithash, object_max_bytes, jobstats, einprogress, "
	"grant_param, lvb_type, short_io, lfsck, bulk_mbits, second_flags, "
	"lockaheadv2, increasing_xid, multi_mod_rpcs, "
	"async_discard, flr, lseek, reply_mbits ]";

static int put_import_averages(struct bcn_buf *b,
			       const struct bcn_sim_osc_ctr *c)
{
	int rc = 0, d;

	for (d = 0; rc == 0 && d < 2; d++) {
		if (!c->rpcs[d] || !c->bytes[d])
			continue;
		rc = bcn_buf_printf(b, "    %s_data_averages:\n       "
				    "bytes_per_rpc: %" PRIu64 "\n",
				    d ? "write" : "read",
				    c->bytes[d] / c->rpcs[d]);
	}
	return rc;
}

int bcn_sim_fmt_osc_import(struct bcn_buf *out,
			   const struct bcn_sim_osc_import *imp,
			   const struct bcn_sim_osc_ctr *c)
{
	int rc;

	bcn_buf_reset(out);
	if (!imp || !imp->device || !imp->target || !imp->nid ||
	    check_ctr(c))
		return -EINVAL;
	rc = bcn_buf_printf(out,
		"import:\n"
		"    name: %s\n"
		"    target: %s_UUID\n"
		"    state: FULL\n"
		"    connect_flags: %s\n"
		"    connect_data:\n"
		"       flags: 0xa0425af2e3440478\n"
		"       instance: 1\n"
		"       target_version: 2.15.4.0\n"
		"       initial_grant: 8437760\n"
		"       max_brw_size: %" PRIu64 "\n"
		"       grant_block_size: 4096\n"
		"       grant_inode_size: 32\n"
		"       grant_max_extent_size: 67108864\n"
		"       grant_extent_tax: 24576\n"
		"       cksum_types: 0xf7\n"
		"       max_object_bytes: 17592186040320\n"
		"    import_flags: [ replayable, pingable, connect_tried ]\n"
		"    connection:\n"
		"       failover_nids: [ %s ]\n"
		"       current_connection: %s\n"
		"       connection_attempts: 1\n"
		"       generation: 1\n"
		"       in-progress_invalidations: 0\n"
		"       idle: 0 sec\n"
		"    rpcs:\n"
		"       inflight: %" PRIu64 "\n"
		"       unregistering: 0\n"
		"       timeouts: 0\n"
		"       avg_waittime: %" PRIu64 " usecs\n"
		"    service_estimates:\n"
		"       services: 1 sec\n"
		"       network: 1 sec\n"
		"    transactions:\n"
		"       last_replay: 0\n"
		"       peer_committed: 0\n"
		"       last_checked: 0\n",
		imp->device, imp->target, import_flags, imp->max_brw_size,
		imp->nid, imp->nid, c->in_flight[0] + c->in_flight[1],
		avg_wait(c));
	return rc ? rc : put_import_averages(out, c);
}

/* ---- Files ----------------------------------------------------------- */

/* mkdir -p path (0755). Returns 0 or -errno. */
static int mkdirs(const char *path)
{
	char p[PATH_MAX];
	size_t i, n = strlen(path);

	if (n == 0)
		return -EINVAL;
	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		if (p[i - 1] == '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		p[i] = path[i];
	}
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int bcn_sim_write_file(const char *dir, const char *name, const void *data,
		       size_t len)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	int fd, n, rc;

	if (!dir || !name || !name[0] || strchr(name, '/') ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    (len && !data))
		return -EINVAL;
	n = snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	rc = mkdirs(dir);
	if (rc)
		return rc;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, data, len);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, dst) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
