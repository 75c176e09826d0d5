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
}

/* Adds a finding; the message and evidence are formats. */
static struct bcn_advice_finding *add(struct bcn_report *r, const char *code,
				      const char *severity)
{
	struct bcn_advice_finding *f;

	if (!r->findings) {
		r->findings = calloc(BCN_ADVICE_MAX, sizeof(*r->findings));
		if (!r->findings)
			return NULL;
	}
	if (r->nfindings == BCN_ADVICE_MAX)
		return NULL;
	f = &r->findings[r->nfindings++];
	snprintf(f->code, sizeof(f->code), "%s", code);
	snprintf(f->severity, sizeof(f->severity), "%s", severity);
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
	if (!(f = add(r, code, severity)))
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
	if (!(f = add(r, "partial_coverage", r->volume_exact ? "info" :
		      "warning")))
		return -ENOMEM;
	snprintf(f->message, sizeof(f->message), "missing %s: %s", miss,
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
	if (!(f = add(r, "no_io", "info")))
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
	if (!(f = add(r, "trace_incomplete", "warning")))
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
	if (!(f = add(r, "n1_few_osts", "warning")))
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
	if (!(f = add(r, "small_requests", "warning")))
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
	if (!(f = add(r, "metadata_heavy", "warning")))
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
	if (!(f = add(r, "one_process_io", "warning")))
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
	if (!(f = add(r, code, "warning")))
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
	if (!(f = add(r, "backend_reads", "critical")))
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
		if (!(f = add(r, "heavy_neighbour", "info")))
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

static int (*const rules[])(struct bcn_report *,
			    const struct bcn_advice_config *) = {
	partial_coverage, no_io, trace_incomplete, n1_few_osts, small_requests, metadata_heavy, one_process_io,
	ost_imbalance, fwd_imbalance, backend_reads, heavy_neighbour,
};

int bcn_advice_run(struct bcn_report *r, const struct bcn_advice_config *c)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(rules) / sizeof(rules[0]); i++)
		rc = rules[i](r, c);
	return rc;
}
