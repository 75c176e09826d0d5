/* Advice rules over a computed report (advice.h, docs/advice.md). Each
 * rule is a function that may add one finding; the table below is the
 * list of rules, in the order findings are shown. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advice.h"
#include "analysis/advice_int.h"
#include "analysis/anomaly/median.h"
#include "analysis/report.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

void bcn_advice_config_defaults(struct bcn_advice_config *c)
{
	c->n1_min_nodes = 4;
	c->n1_min_osts = 4;
	c->small_bytes = 64 * 1024;
	c->small_min_ops = 10000;
	c->small_pct = 50;
	c->meta_min_ops = 100000;
	c->meta_per_gib = 10000;
	c->one_rank_min_nodes = 2;
	c->min_bytes = 1ull << 30;
	c->imbalance_pct = 200;
	c->backend_pct = 200;
	c->neighbour_pct = 25;
	c->neighbour_min_bytes = 1ull << 30;
	c->slow_pct = 300;
	c->slow_min_bytes = 64ull << 20;
	c->queue_pct = 50;
	c->pattern_min_ops = 1000;
	c->misaligned_pct = 50;
	c->random_pct = 50;
	c->small_file_bytes = 1u << 20;
	c->small_files_min = 1000;
	c->meta_time_pct = 30;
}

/* The catalogue: every code a report can carry, its audience and the fix
 * given when its rule has no more concrete one. */
const struct bcn_advice_code bcn_advice_codes[] = {
	{ "partial_coverage", "both", "run beacon-clientd on every compute "
	  "node (the missing ones are in the evidence) and launch through "
	  "srun so that the tracer is preloaded" },
	{ "no_io", "user", "if the job did I/O, check that beacon-clientd "
	  "runs on its nodes and that it was launched through srun" },
	{ "trace_incomplete", "admin", "raise beacon-clientd's socket buffer "
	  "and send_buffer (docs/clientd.md); the figures are lower bounds" },
	{ "n1_few_osts", "user", "stripe the shared file's directory wider: "
	  "lfs setstripe -c -1 DIR (or a count near the node count)" },
	{ "small_requests", "user", "aggregate requests: MPI-IO collective "
	  "buffering (romio_cb_write=enable), a larger buffer (setvbuf, the "
	  "HDF5 chunk cache) or transfers of at least the stripe size" },
	{ "misaligned_requests", "user", "align requests to the stripe size "
	  "(MPI-IO striping_unit, H5Pset_alignment) or stripe to the request "
	  "size: lfs setstripe -S SIZE DIR" },
	{ "random_access", "user", "sort or aggregate accesses (collective "
	  "I/O, two-phase I/O) so that each process reads or writes "
	  "contiguous ranges" },
	{ "many_small_files", "user", "pack small files into fewer large ones "
	  "(HDF5, an archive, a per-node container) or keep them on node-"
	  "local storage" },
	{ "metadata_heavy", "user", "keep small files and per-step stats on "
	  "node-local storage or in fewer files" },
	{ "metadata_time", "user", "open files once and keep them open; stat "
	  "less (cache sizes), create files in advance or in fewer "
	  "directories" },
	{ "one_process_io", "user", "spread the I/O: MPI-IO collective "
	  "buffering, or one writer per node" },
	{ "node_imbalance", "user", "give every node a similar share of the "
	  "I/O (decomposition, aggregators spread over the nodes)" },
	{ "straggler_nodes", "both", "the slow nodes are in the evidence: "
	  "administrators check their links, disks and neighbours" },
	{ "slow_processes", "user", "balance the processes' I/O, or check "
	  "what the slowest ones wait on" },
	{ "ost_imbalance", "user", "stripe over more OSTs (lfs setstripe -c "
	  "-1 DIR) or spread files evenly" },
	{ "fwd_imbalance", "admin", "spread the job's nodes over more "
	  "forwarding nodes (the forwarding map)" },
	{ "backend_reads", "admin", "check the forwarding nodes' page cache "
	  "(memory pressure) and the job's rereads" },
	{ "heavy_neighbour", "admin", "look at the other jobs on the "
	  "forwarding node (beacon top, the anomalies)" },
	{ "slow_ost_in_job", "both", "tell the administrators; new files can "
	  "avoid the OST: lfs setstripe -o LIST DIR" },
	{ "slow_fwd_in_job", "admin", "check the forwarding node (beacon "
	  "anomalies, its latency history)" },
	{ "server_queueing", "both", "run at a quieter time, or ask the "
	  "administrators about the forwarding nodes' load" },
	{ "switch_imbalance", "admin", "check the placement of the job's nodes "
	  "and the switch's uplinks" },
	{ "too_little_history", "user", "nothing to do: more runs of the same "
	  "application at this scale make the comparison" },
	{ "unlike_history", "user", "compare the inputs and settings with "
	  "earlier runs" },
	{ "slower_than_history", "both", "see the likely aggressors and the "
	  "anomalies of the job's window" },
	{ "likely_aggressors", "admin", "look at the named jobs' I/O" },
	{ "straggler", "admin", "check the named component" },
	{ NULL, NULL, NULL },
};

const struct bcn_advice_code *bcn_advice_code_find(const char *code)
{
	for (const struct bcn_advice_code *c = bcn_advice_codes; c->code; c++)
		if (!strcmp(c->code, code))
			return c;
	return NULL;
}

struct bcn_advice_finding *bcn_advice_new(struct bcn_report *r,
					  const char *code,
					  const char *severity)
{
	const struct bcn_advice_code *cat;
	struct bcn_advice_finding *f;

	if (!r->findings) {
		r->findings = calloc(BCN_ADVICE_MAX, sizeof(*r->findings));
		if (!r->findings)
			return NULL;
	}
	if (r->nfindings == BCN_ADVICE_MAX)
		return NULL;
	f = &r->findings[r->nfindings++];
	memset(f, 0, sizeof(*f));
	snprintf(f->code, sizeof(f->code), "%s", code);
	snprintf(f->severity, sizeof(f->severity), "%s", severity);
	cat = bcn_advice_code_find(code);
	snprintf(f->audience, sizeof(f->audience), "%s",
		 cat ? cat->audience : "both");
	snprintf(f->fix, sizeof(f->fix), "%s", cat ? cat->fix : "");
	return f;
}

int bcn_advice_add(struct bcn_report *r, const char *code, const char *severity,
		   const char *message, const char *evidence)
{
	struct bcn_advice_finding *f;

	if (!r->findings && !(r->findings = calloc(BCN_ADVICE_MAX,
						   sizeof(*r->findings))))
		return -ENOMEM;
	if (r->nfindings == BCN_ADVICE_MAX)
		return -ENOSPC;
	if (!(f = bcn_advice_new(r, code, severity)))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "%s", message);
	snprintf(f->evidence, sizeof(f->evidence), "%s", evidence);
	return 0;
}

static uint64_t count_layer(const struct bcn_report *r, const char *layer,
			    uint64_t *max, uint64_t *sum, const char **busiest)
{
	uint64_t n = 0;

	*max = *sum = 0;
	for (size_t i = 0; i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		uint64_t b = p->read_bytes + p->write_bytes;

		if (strcmp(p->layer, layer))
			continue;
		n++;
		*sum += b;
		if (b >= *max) {
			*max = b;
			*busiest = p->component;
		}
	}
	return n;
}

/* Whether layer l reported every component the job needed, or could
 * not be judged (a job without a nodelist, a layer without collectors
 * anywhere is judged incomplete by the coverage). Rules that compare the
 * job's own traffic across layers need it: an unmonitored node's bytes
 * would look like another job's, or like extra backend reads. */
static bool complete(const struct bcn_report *r, int l)
{
	return r->cover[l].complete;
}

/* The layers that did not cover the job, and what its figures are
 * bounded by. */
static int partial_coverage(struct bcn_report *r,
			    const struct bcn_advice_config *c)
{
	char miss[200] = "", ev[512];
	size_t n = 0, e;
	struct bcn_advice_finding *f;

	(void)c;
	e = (size_t)snprintf(ev, sizeof(ev), "{\"volume_source\":\"%s\","
			     "\"volume_exact\":%s", r->volume_source,
			     r->volume_exact ? "true" : "false");
	for (int l = 0; l < BCN_COVER_MAX; l++) {
		const struct bcn_report_cover *cv = &r->cover[l];

		if (!cv->known || cv->complete)
			continue;
		if (n < sizeof(miss))
			n += (size_t)snprintf(miss + n, sizeof(miss) - n,
					      "%s%s %" PRIu64 " of %" PRIu64,
					      n ? ", " : "",
					      bcn_report_layer_name(l),
					      cv->expected - cv->reported,
					      cv->expected);
		if (e < sizeof(ev))
			e += (size_t)snprintf(ev + e, sizeof(ev) - e,
				",\"%s\":{\"expected\":%" PRIu64 ",\"reported\":%"
				PRIu64 ",\"missing\":\"%.100s%s\"}",
				bcn_report_layer_name(l), cv->expected,
				cv->reported, cv->missing ? cv->missing : "",
				cv->missing && strlen(cv->missing) > 100 ?
				"..." : "");
	}
	if (!n)
		return 0;
	if (!(f = bcn_advice_new(r, "partial_coverage", r->volume_exact ? "info" :
		      "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "missing %.90s: %s", miss,
		 !strcmp(r->volume_source, "ost") ?
		 (r->volume_exact ? "the volume comes from the OSTs' job_stats "
		  "(complete); mode, processes and files from the nodes that "
		  "were traced" : "the volume comes from the OSTs' job_stats "
		  "and is a lower bound") :
		 "the figures are lower bounds (from the nodes that were "
		 "traced)");
	if (e + 2 <= sizeof(ev))
		snprintf(ev + e, sizeof(ev) - e, "}");
	else
		snprintf(ev, sizeof(ev), "{\"volume_source\":\"%s\"}",
			 r->volume_source);
	snprintf(f->evidence, sizeof(f->evidence), "%s", ev);
	return 0;
}

static int no_io(struct bcn_report *r, const struct bcn_advice_config *c)
{
	struct bcn_advice_finding *f;

	(void)c;
	if (r->read_bytes || r->write_bytes || r->meta_ops || r->records)
		return 0;
	if (!(f = bcn_advice_new(r, "no_io", "info")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "no I/O of this job reached "
		 "beacon: it did none, or its nodes' collectors were not "
		 "running");
	snprintf(f->evidence, sizeof(f->evidence), "{\"records\":0}");
	return 0;
}

static int trace_incomplete(struct bcn_report *r,
			    const struct bcn_advice_config *c)
{
	const struct bcn_report_loss *l = &r->loss;
	struct bcn_advice_finding *f;

	(void)c;
	if (!l->dropped_ops && !l->lost_datagrams && !l->cut && !l->partial)
		return 0;
	if (!(f = bcn_advice_new(r, "trace_incomplete", "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "the tracer lost part of "
		 "this job's I/O records (%" PRIu64 " operations dropped, %"
		 PRIu64 " datagrams lost, %" PRIu64 " process%s ended "
		 "without their last records): its compute-node figures are "
		 "lower bounds", l->dropped_ops, l->lost_datagrams,
		 l->cut + l->partial, l->cut + l->partial == 1 ? "" : "es");
	snprintf(f->evidence, sizeof(f->evidence), "{\"processes\":%" PRIu64
		 ",\"dropped_ops\":%" PRIu64 ",\"lost_datagrams\":%" PRIu64
		 ",\"cut\":%" PRIu64 ",\"partial\":%" PRIu64 "}",
		 l->processes, l->dropped_ops, l->lost_datagrams, l->cut,
		 l->partial);
	return 0;
}

static int n1_few_osts(struct bcn_report *r, const struct bcn_advice_config *c)
{
	uint64_t max, sum, n;
	const char *b = "";
	struct bcn_advice_finding *f;

	n = count_layer(r, "ost", &max, &sum, &b);
	if (!complete(r, BCN_COVER_CLIENT) || !complete(r, BCN_COVER_OST))
		return 0;       /* the mode of a sample; OSTs unseen */
	if (strcmp(r->mode, "N-1") || !r->write_bytes ||
	    r->io_nodes < c->n1_min_nodes || n >= c->n1_min_osts)
		return 0;
	if (!(f = bcn_advice_new(r, "n1_few_osts", "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "%" PRIu64 " nodes share one "
		 "file on %" PRIu64 " OST%s: stripe it wider (lfs setstripe -c "
		 "-1 or a count near the node count) or write a file per node",
		 r->io_nodes, n, n == 1 ? "" : "s");
	snprintf(f->evidence, sizeof(f->evidence), "{\"io_nodes\":%" PRIu64
		 ",\"osts\":%" PRIu64 ",\"threshold\":%" PRIu64 "}",
		 r->io_nodes, n, c->n1_min_osts);
	return 0;
}

static int small_requests(struct bcn_report *r,
			  const struct bcn_advice_config *c)
{
	uint64_t ops = r->read_ops + r->write_ops, small = 0;
	struct bcn_advice_finding *f;

	for (unsigned b = 0; b < BCN_HIST_BUCKETS; b++)
		if ((1ull << (b + 1)) <= c->small_bytes)
			small += r->size_hist[b];
	if (ops < c->small_min_ops || small * 100 < ops * c->small_pct)
		return 0;
	if (!(f = bcn_advice_new(r, "small_requests", "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "%.0f%% of %" PRIu64 " reads "
		 "and writes are smaller than %" PRIu64 " bytes: buffer them "
		 "(collective I/O, a bigger transfer size)",
		 100.0 * (double)small / (double)ops, ops, c->small_bytes);
	snprintf(f->evidence, sizeof(f->evidence), "{\"ops\":%" PRIu64
		 ",\"small_ops\":%" PRIu64 ",\"small_bytes\":%" PRIu64 "}",
		 ops, small, c->small_bytes);
	return 0;
}

static int metadata_heavy(struct bcn_report *r,
			  const struct bcn_advice_config *c)
{
	double gib = (double)(r->read_bytes + r->write_bytes) / GIB;
	struct bcn_advice_finding *f;

	if (r->meta_ops < c->meta_min_ops ||
	    (double)r->meta_ops < gib * (double)c->meta_per_gib)
		return 0;
	if (!(f = bcn_advice_new(r, "metadata_heavy", "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "%" PRIu64 " metadata "
		 "operations for %.2f GiB of data: keep small files and "
		 "per-step stats on node-local storage or in fewer files",
		 r->meta_ops, gib);
	snprintf(f->evidence, sizeof(f->evidence), "{\"meta_ops\":%" PRIu64
		 ",\"bytes\":%" PRIu64 ",\"meta_rate_io\":%.1f}", r->meta_ops,
		 r->read_bytes + r->write_bytes, r->meta_rate_io);
	return 0;
}

static int one_process_io(struct bcn_report *r,
			  const struct bcn_advice_config *c)
{
	uint64_t bytes = r->read_bytes + r->write_bytes;
	struct bcn_advice_finding *f;

	if (!complete(r, BCN_COVER_CLIENT))
		return 0;       /* the other nodes' processes are unseen */
	if (r->io_procs != 1 || r->nnodes < c->one_rank_min_nodes ||
	    bytes < c->min_bytes)
		return 0;
	if (!(f = bcn_advice_new(r, "one_process_io", "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "one process did all %.2f GiB "
		 "of I/O for %" PRIu64 " nodes: spread it (MPI-IO collective "
		 "buffering, one writer per node)", (double)bytes / GIB,
		 r->nnodes);
	snprintf(f->evidence, sizeof(f->evidence), "{\"io_procs\":1,\"nnodes\":%"
		 PRIu64 ",\"bytes\":%" PRIu64 "}", r->nnodes, bytes);
	return 0;
}

static int imbalance(struct bcn_report *r, const struct bcn_advice_config *c,
		     const char *layer, const char *code, const char *what)
{
	uint64_t max, sum, n;
	const char *b = "";
	struct bcn_advice_finding *f;

	n = count_layer(r, layer, &max, &sum, &b);
	if (n < 2 || sum < c->min_bytes ||
	    (unsigned __int128)max * n * 100 <
	    (unsigned __int128)sum * c->imbalance_pct)
		return 0;
	if (!(f = bcn_advice_new(r, code, "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "%s %.64s carried %.1fx the "
		 "mean of the job's %" PRIu64 " %ss: the job waits for it",
		 what, b, (double)max * (double)n / (double)sum, n, what);
	snprintf(f->evidence, sizeof(f->evidence), "{\"busiest\":\"%.200s\","
		 "\"bytes\":%" PRIu64 ",\"mean\":%" PRIu64 ",\"count\":%"
		 PRIu64 "}", b, max, sum / n, n);
	return 0;
}


static int backend_reads(struct bcn_report *r,
			 const struct bcn_advice_config *c)
{
	uint64_t ost = 0;
	struct bcn_advice_finding *f;

	if (!complete(r, BCN_COVER_CLIENT) || !complete(r, BCN_COVER_OST))
		return 0;
	for (size_t i = 0; i < r->nparts; i++)
		if (!strcmp(r->parts[i].layer, "ost"))
			ost += r->parts[i].read_bytes;
	if (ost < c->min_bytes ||
	    (unsigned __int128)ost * 100 <
	    (unsigned __int128)r->read_bytes * c->backend_pct)
		return 0;
	if (!(f = bcn_advice_new(r, "backend_reads", "critical")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "the OSTs read %.2f GiB for "
		 "the job's %.2f GiB: its forwarding nodes' cache thrashes or "
		 "it rereads; tell the administrators", (double)ost / GIB,
		 (double)r->read_bytes / GIB);
	snprintf(f->evidence, sizeof(f->evidence), "{\"ost_read_bytes\":%"
		 PRIu64 ",\"read_bytes\":%" PRIu64 "}", ost, r->read_bytes);
	return 0;
}

static int heavy_neighbour(struct bcn_report *r,
			   const struct bcn_advice_config *c)
{
	struct bcn_advice_finding *f;

	if (!complete(r, BCN_COVER_CLIENT))
		return 0;
	for (size_t i = 0; i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		uint64_t job = p->read_bytes + p->write_bytes;
		uint64_t all = p->total_read + p->total_write;

		if (strcmp(p->layer, "forward") || all <= job ||
		    all - job < c->neighbour_min_bytes ||
		    job * 100 >= all * c->neighbour_pct)
			continue;
		if (!(f = bcn_advice_new(r, "heavy_neighbour", "info")))
			return -ENOMEM;
		snprintf(f->message, sizeof(f->message), "forwarding node %.64s "
			 "moved %.2f GiB for other jobs and %.2f GiB for this "
			 "one: its slowness may be theirs", p->component,
			 (double)(all - job) / GIB, (double)job / GIB);
		snprintf(f->evidence, sizeof(f->evidence), "{\"node\":"
			 "\"%.200s\",\"job_bytes\":%" PRIu64 ",\"node_bytes\":%"
			 PRIu64 ",\"share\":%.4f}", p->component, job, all,
			 p->share);
		break;
	}
	return 0;
}

static int ost_imbalance(struct bcn_report *r, const struct bcn_advice_config *c)
{
	if (!complete(r, BCN_COVER_OST))
		return 0;
	return imbalance(r, c, "ost", "ost_imbalance", "OST");
}

/* The job's bytes per forwarding node are its nodes' client records':
 * only with every node covered. */
static int fwd_imbalance(struct bcn_report *r, const struct bcn_advice_config *c)
{
	if (!complete(r, BCN_COVER_CLIENT) || !complete(r, BCN_COVER_FORWARD))
		return 0;
	return imbalance(r, c, "forward", "fwd_imbalance", "forwarding node");
}

/* The OST index of a Lustre target name (FS-OSTxxxx, hex), or -1. */
static long ost_index(const char *name)
{
	const char *p = strstr(name, "-OST");
	char *end;
	long i;

	if (!p)
		return -1;
	i = strtol(p + 4, &end, 16);
	return end == p + 4 || i < 0 ? -1 : i;
}

/* `lfs setstripe -o` with the indices of the job's OSTs but bad. */
static void avoid_fix(const struct bcn_report *r, const char *bad,
		      char *fix, size_t n)
{
	size_t k = (size_t)snprintf(fix, n, "tell the administrators; new "
				    "files can avoid %.64s: lfs setstripe -o ",
				    bad);
	int listed = 0;

	for (size_t i = 0; i < r->nparts && k < n; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		long ix = ost_index(p->component);

		if (strcmp(p->layer, "ost") || !strcmp(p->component, bad) ||
		    ix < 0 || listed == 32)
			continue;
		k += (size_t)snprintf(fix + k, n - k, "%s%ld", listed++ ? ","
				      : "", ix);
	}
	if (k < n)
		snprintf(fix + k, n - k, "%s", listed ? " DIR" : "(healthy "
			 "OSTs) DIR");
}

/* The slowest of the job's OSTs against the median of the others, by
 * what: 0 the job's rate on it (lower is slower), 1 its disk I/O time
 * (higher is slower). Returns the index of a part that is slow_pct
 * slower, or -1; *ratio and *med are set. */
static long slowest_ost(const struct bcn_report *r,
			const struct bcn_advice_config *c, int what,
			double *ratio, double *med)
{
	double *v = calloc(r->nparts + 1, sizeof(*v)), worst = 0;
	long wi = -1;
	size_t n = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		double x = what ? p->iotime_ms : p->rate;

		if (strcmp(p->layer, "ost") || x <= 0 ||
		    p->read_bytes + p->write_bytes < c->slow_min_bytes)
			continue;
		if (wi < 0 || (what ? x > worst : x < worst)) {
			if (wi >= 0)
				v[n++] = worst;
			worst = x;
			wi = (long)i;
		} else {
			v[n++] = x;
		}
	}
	*med = bcn_median(v, n);
	free(v);
	if (n < 2 || wi < 0 || *med <= 0)
		return -1;
	*ratio = what ? worst / *med : *med / worst;
	return *ratio * 100 >= (double)c->slow_pct ? wi : -1;
}

/* Whether the job's traffic on OST p is a straggler node's (within a
 * tenth): a slow client, not a slow OST, then explains its low rate. */
static bool node_explains(const struct bcn_report *r,
			  const struct bcn_report_part *p)
{
	const struct bcn_rnodes_result *n = r->compute;
	uint64_t b = p->read_bytes + p->write_bytes;

	if (!n || !n->node.checked)
		return false;
	for (size_t i = 0; i < n->node.nlist; i++) {
		uint64_t s = n->node.list[i].bytes;
		uint64_t d = s > b ? s - b : b - s;

		if (d * 10 <= b)
			return true;
	}
	return false;
}

/* One of the job's OSTs served it much slower than its others: by the
 * job's bytes per second of the OST's busy time, or by the OST's disk
 * I/O time (brw_stats) when it has one. Advice no application-side tool
 * can give. */
static int slow_ost_in_job(struct bcn_report *r,
			   const struct bcn_advice_config *c)
{
	double ratio = 0, med = 0;
	long i = slowest_ost(r, c, 1, &ratio, &med);
	int by_time = i >= 0;
	const struct bcn_report_part *p;
	struct bcn_advice_finding *f;
	char a[32], b[32];

	if (i < 0)
		i = slowest_ost(r, c, 0, &ratio, &med);
	if (i < 0 || (!by_time && node_explains(r, &r->parts[i])))
		return 0;
	p = &r->parts[i];
	if (!(f = bcn_advice_new(r, "slow_ost_in_job", ratio >= 10 ? "critical" :
		      "warning")))
		return -ENOMEM;
	if (by_time) {
		snprintf(f->message, sizeof(f->message), "OST %.64s took %.1f ms "
			 "a disk I/O during the job, %.1fx the median of the "
			 "job's other OSTs (%.1f ms): the OST is slow, not your "
			 "job", p->component, p->iotime_ms, ratio, med);
	} else {
		snprintf(a, sizeof(a), "%.1f", p->rate / 1048576.0);
		snprintf(b, sizeof(b), "%.1f", med / 1048576.0);
		snprintf(f->message, sizeof(f->message), "OST %.64s served this "
			 "job at %s MiB/s, %.1fx slower than the median of its "
			 "other OSTs (%s MiB/s): the OST is slow, not your job",
			 p->component, a, ratio, b);
	}
	avoid_fix(r, p->component, f->fix, sizeof(f->fix));
	snprintf(f->evidence, sizeof(f->evidence), "{\"target\":\"%.200s\","
		 "\"by\":\"%s\",\"value\":%.3f,\"median\":%.3f,\"ratio\":"
		 "%.2f,\"limit_pct\":%" PRIu64 "}", p->component,
		 by_time ? "iotime_ms" : "rate", by_time ? p->iotime_ms :
		 p->rate, med, ratio, c->slow_pct);
	return 0;
}

/* One of the job's forwarding nodes answered its requests much slower
 * than the job's others. */
static int slow_fwd_in_job(struct bcn_report *r,
			   const struct bcn_advice_config *c)
{
	double *v = calloc(r->nparts + 1, sizeof(*v)), worst = 0, med;
	const struct bcn_report_part *w = NULL;
	struct bcn_advice_finding *f;
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];

		if (strcmp(p->layer, "forward") || p->lat_mean_us <= 0 ||
		    p->total_read + p->total_write < c->slow_min_bytes)
			continue;
		if (!w || p->lat_mean_us > worst) {
			if (w)
				v[n++] = worst;
			worst = p->lat_mean_us;
			w = p;
		} else {
			v[n++] = p->lat_mean_us;
		}
	}
	med = bcn_median(v, n);
	free(v);
	if (!w || !n || med <= 0 || worst * 100 < med * (double)c->slow_pct)
		return 0;
	if (!(f = bcn_advice_new(r, "slow_fwd_in_job", "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "forwarding node %.64s "
		 "answered requests in %.0f us on average, %.1fx the median of "
		 "the job's other forwarding nodes (%.0f us): the nodes behind "
		 "it waited", w->component, worst, worst / med, med);
	snprintf(f->evidence, sizeof(f->evidence), "{\"node\":\"%.200s\","
		 "\"latency_mean_us\":%.1f,\"median_us\":%.1f,\"queue_mean\":"
		 "%.2f,\"limit_pct\":%" PRIu64 "}", w->component, worst, med,
		 w->queue_mean, c->slow_pct);
	return 0;
}

/* The job's requests spent most of their latency in forwarding queues:
 * it waited on busy servers. */
static int server_queueing(struct bcn_report *r,
			   const struct bcn_advice_config *c)
{
	double lat = 0, wait = 0;
	struct bcn_advice_finding *f;

	for (size_t i = 0; i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		double job = (double)(p->read_bytes + p->write_bytes);

		if (strcmp(p->layer, "forward") || p->lat_mean_us <= 0)
			continue;
		lat += job * p->lat_mean_us;
		wait += job * p->wait_mean_us;
	}
	if (lat <= 0 || wait * 100 < lat * (double)c->queue_pct ||
	    r->read_bytes + r->write_bytes < c->slow_min_bytes)
		return 0;
	if (!(f = bcn_advice_new(r, "server_queueing", "info")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "%.0f%% of the latency of "
		 "the job's forwarded requests was queueing behind other "
		 "requests (about %.1f request-seconds): the servers were busy",
		 100.0 * wait / lat, (double)r->server_wait_ns / 1e9);
	snprintf(f->evidence, sizeof(f->evidence), "{\"wait_share\":%.3f,"
		 "\"server_wait_s\":%.3f,\"limit_pct\":%" PRIu64 "}",
		 wait / lat, (double)r->server_wait_ns / 1e9, c->queue_pct);
	return 0;
}

static int (*const rules[])(struct bcn_report *,
			    const struct bcn_advice_config *) = {
	partial_coverage, no_io, trace_incomplete, n1_few_osts, small_requests, metadata_heavy, one_process_io,
	ost_imbalance, fwd_imbalance, backend_reads, heavy_neighbour,
	slow_ost_in_job, slow_fwd_in_job, server_queueing,
	bcn_advice_misaligned, bcn_advice_random, bcn_advice_small_files,
	bcn_advice_meta_time, bcn_advice_stragglers, bcn_advice_slow_procs,
	bcn_advice_node_imbalance,
};

int bcn_advice_run(struct bcn_report *r, const struct bcn_advice_config *c)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(rules) / sizeof(rules[0]); i++)
		rc = rules[i](r, c);
	return rc;
}
