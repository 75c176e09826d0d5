/* Advice over the client layer's depth (advice_int.h, docs/advice.md):
 * access patterns, alignment, small files, metadata time (the files
 * table, analysis/report_files.h) and stragglers inside the job (the
 * node heatmap's judge, analysis/report_nodes.h). With partial client
 * coverage they speak of the traced nodes: shares and comparisons
 * between traced nodes hold for them, and the message says so. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/advice_int.h"
#include "analysis/report.h"

/* " (on the traced nodes)" when the client figures are a sample. */
static const char *sample(const struct bcn_report *r)
{
	return r->client_sample ? " (on the traced nodes)" : "";
}

/* Data operations of the files table, 0 without one. */
static uint64_t data_ops(const struct bcn_report *r)
{
	const struct bcn_rfiles_result *f = r->file_table;

	return f ? f->total.read_ops + f->total.write_ops : 0;
}

/* Whether part is at least pct percent of whole. */
static bool at_least(uint64_t part, uint64_t whole, uint64_t pct)
{
	return whole && (unsigned __int128)part * 100 >=
			(unsigned __int128)whole * pct;
}

int bcn_advice_misaligned(struct bcn_report *r,
			  const struct bcn_advice_config *c)
{
	const struct bcn_rfiles_result *f = r->file_table;
	uint64_t ops = data_ops(r), bad;
	struct bcn_advice_finding *fi;

	if (!f || ops < c->pattern_min_ops)
		return 0;
	bad = f->total.misaligned_stripe;
	if (!at_least(bad, ops, c->misaligned_pct))
		return 0;
	if (!(fi = bcn_advice_new(r, "misaligned_requests", "info")))
		return -ENOMEM;
	snprintf(fi->message, sizeof(fi->message), "%.0f%% of %" PRIu64
		 " reads and writes start off a %" PRIu64 " KiB stripe "
		 "boundary%s: each touches two OSTs' stripes and takes their "
		 "locks", 100.0 * (double)bad / (double)ops, ops,
		 f->stripe_bytes >> 10, sample(r));
	if (r->file_table->nrows && f->rows[0].size_common >= 65536)
		snprintf(fi->fix, sizeof(fi->fix), "align requests to the "
			 "stripe (MPI-IO striping_unit, H5Pset_alignment), or "
			 "stripe to the request size: lfs setstripe -S %" PRIu64
			 "K DIR", f->rows[0].size_common >> 10);
	snprintf(fi->evidence, sizeof(fi->evidence), "{\"ops\":%" PRIu64
		 ",\"misaligned_stripe\":%" PRIu64 ",\"misaligned_page\":%"
		 PRIu64 ",\"stripe_bytes\":%" PRIu64 ",\"limit_pct\":%" PRIu64
		 "}", ops, bad, f->total.misaligned_page, f->stripe_bytes,
		 c->misaligned_pct);
	return 0;
}

int bcn_advice_random(struct bcn_report *r, const struct bcn_advice_config *c)
{
	const struct bcn_rfiles_result *f = r->file_table;
	uint64_t ops = data_ops(r);
	struct bcn_advice_finding *fi;

	if (!f || ops < c->pattern_min_ops ||
	    !at_least(f->total.random_ops, ops, c->random_pct))
		return 0;
	if (!(fi = bcn_advice_new(r, "random_access", "warning")))
		return -ENOMEM;
	snprintf(fi->message, sizeof(fi->message), "%.0f%% of %" PRIu64
		 " reads and writes go backwards or jump within their file%s "
		 "(consecutive %.0f%%, sequential %.0f%%): readahead and "
		 "write-back cannot help", 100.0 * (double)f->total.random_ops /
		 (double)ops, ops, sample(r),
		 100.0 * (double)f->total.consec_ops / (double)ops,
		 100.0 * (double)f->total.seq_ops / (double)ops);
	snprintf(fi->evidence, sizeof(fi->evidence), "{\"ops\":%" PRIu64
		 ",\"random\":%" PRIu64 ",\"consecutive\":%" PRIu64
		 ",\"sequential\":%" PRIu64 ",\"limit_pct\":%" PRIu64 "}", ops,
		 f->total.random_ops, f->total.consec_ops, f->total.seq_ops,
		 c->random_pct);
	return 0;
}

int bcn_advice_small_files(struct bcn_report *r,
			   const struct bcn_advice_config *c)
{
	const struct bcn_rfiles_result *f = r->file_table;
	uint64_t files, bytes, mean;
	struct bcn_advice_finding *fi;

	if (!f || !(files = f->files) || files < c->small_files_min)
		return 0;
	bytes = f->total.read_bytes + f->total.write_bytes;
	mean = bytes / files;
	if (mean >= c->small_file_bytes)
		return 0;
	if (!(fi = bcn_advice_new(r, "many_small_files", "warning")))
		return -ENOMEM;
	snprintf(fi->message, sizeof(fi->message), "%" PRIu64 " files%s moved "
		 "%" PRIu64 " bytes each on average: every file costs an MDT "
		 "round trip and an OST object, more than its data", files,
		 sample(r), mean);
	snprintf(fi->evidence, sizeof(fi->evidence), "{\"files\":%" PRIu64
		 ",\"bytes\":%" PRIu64 ",\"mean_bytes\":%" PRIu64
		 ",\"limit_bytes\":%" PRIu64 "}", files, bytes, mean,
		 c->small_file_bytes);
	return 0;
}

int bcn_advice_meta_time(struct bcn_report *r,
			 const struct bcn_advice_config *c)
{
	const struct bcn_rfiles_result *f = r->file_table;
	uint64_t all, meta;
	struct bcn_advice_finding *fi;

	if (!f)
		return 0;
	meta = f->total.meta_time;
	all = f->total.read_time + f->total.write_time + meta;
	if (all < 1000000000ull || !at_least(meta, all, c->meta_time_pct))
		return 0;
	if (!(fi = bcn_advice_new(r, "metadata_time", "warning")))
		return -ENOMEM;
	snprintf(fi->message, sizeof(fi->message), "metadata calls took %.0f%% "
		 "of the processes' I/O time%s (%.1f s of %.1f s): opens, "
		 "stats and closes, not data, are what the job waits on",
		 100.0 * (double)meta / (double)all, sample(r),
		 (double)meta / 1e9, (double)all / 1e9);
	snprintf(fi->evidence, sizeof(fi->evidence), "{\"meta_s\":%.3f,"
		 "\"io_s\":%.3f,\"limit_pct\":%" PRIu64 "}", (double)meta / 1e9,
		 (double)all / 1e9, c->meta_time_pct);
	return 0;
}

/* The stragglers of judge j as a finding with code: the first ones
 * named, the median and the rule they broke. */
static int stragglers(struct bcn_report *r, const struct bcn_rnodes_judge *j,
		      const char *code, const char *what)
{
	const struct bcn_rnodes_straggler *s = j->list;
	struct bcn_advice_finding *fi;
	size_t k = 0;

	if (!j->checked || !j->stragglers || !j->nlist)
		return 0;
	if (!(fi = bcn_advice_new(r, code, "warning")))
		return -ENOMEM;
	snprintf(fi->message, sizeof(fi->message), "%" PRIu64 " of %" PRIu64
		 " %ss%s were much slower than the job's median one: %.64s%s "
		 "at %.1f MiB/s (%.0f%% of the median %.1f MiB/s), busy %.1f "
		 "s (median %.1f s); the job waits for its slowest",
		 j->stragglers, j->io, what, r->client_sample ?
		 " (traced)" : "", s->node, s->pid ? "'s process" : "",
		 s->bw / 1048576.0, 100.0 * s->bw_ratio,
		 j->median_bw / 1048576.0, (double)s->time / 1e9,
		 (double)j->median_time / 1e9);
	k = (size_t)snprintf(fi->evidence, sizeof(fi->evidence),
			     "{\"count\":%" PRIu64 ",\"median_bw\":%.0f,"
			     "\"median_time_s\":%.3f,\"slowest\":[",
			     j->stragglers, j->median_bw,
			     (double)j->median_time / 1e9);
	for (size_t i = 0; i < j->nlist && i < 4 && k < sizeof(fi->evidence);
	     i++)
		k += (size_t)snprintf(fi->evidence + k, sizeof(fi->evidence) - k,
				      "%s{\"node\":\"%.64s\",\"pid\":%" PRIu64
				      ",\"bw\":%.0f,\"time_s\":%.3f}",
				      i ? "," : "", j->list[i].node,
				      j->list[i].pid, j->list[i].bw,
				      (double)j->list[i].time / 1e9);
	if (k + 3 <= sizeof(fi->evidence))
		snprintf(fi->evidence + k, sizeof(fi->evidence) - k, "]}");
	else
		snprintf(fi->evidence, sizeof(fi->evidence), "{\"count\":%"
			 PRIu64 "}", j->stragglers);
	return 0;
}

int bcn_advice_stragglers(struct bcn_report *r,
			  const struct bcn_advice_config *c)
{
	(void)c;
	return r->compute ? stragglers(r, &r->compute->node,
				       "straggler_nodes", "node") : 0;
}

/* Slow processes, when the nodes themselves are not: a rank's own
 * imbalance rather than a sick node. */
int bcn_advice_slow_procs(struct bcn_report *r,
			  const struct bcn_advice_config *c)
{
	(void)c;
	if (!r->compute || (r->compute->node.checked &&
			    r->compute->node.stragglers))
		return 0;
	return stragglers(r, &r->compute->proc, "slow_processes", "process");
}

/* One node moved far more than the job's others (a rank 0 that gathers,
 * a decomposition that gives some nodes more of the file): the job waits
 * for it. From the heatmap's rows when each row is one node. */
int bcn_advice_node_imbalance(struct bcn_report *r,
			      const struct bcn_advice_config *c)
{
	const struct bcn_rnodes_result *n = r->compute;
	uint64_t max = 0, sum = 0, io = 0;
	const char *busiest = "";
	struct bcn_advice_finding *fi;

	if (!n)
		return 0;
	for (size_t i = 0; i < n->nrows; i++) {
		const struct bcn_rnodes_row *w = &n->rows[i];
		uint64_t b = w->read_bytes + w->write_bytes;

		if (w->count != 1)
			return 0;       /* rows of several nodes: not per node */
		if (!b)
			continue;
		io++;
		sum += b;
		if (b > max) {
			max = b;
			busiest = w->nodes;
		}
	}
	if (io < 2 || sum < c->min_bytes ||
	    (unsigned __int128)max * io * 100 <
	    (unsigned __int128)sum * c->imbalance_pct)
		return 0;
	if (!(fi = bcn_advice_new(r, "node_imbalance", "warning")))
		return -ENOMEM;
	snprintf(fi->message, sizeof(fi->message), "node %.64s moved %.1fx the "
		 "mean of the job's %" PRIu64 " I/O nodes%s: the others wait "
		 "for it", busiest, (double)max * (double)io / (double)sum, io,
		 sample(r));
	snprintf(fi->evidence, sizeof(fi->evidence), "{\"busiest\":\"%.64s\","
		 "\"bytes\":%" PRIu64 ",\"mean\":%" PRIu64 ",\"nodes\":%" PRIu64
		 ",\"limit_pct\":%" PRIu64 "}", busiest, max, sum / io, io,
		 c->imbalance_pct);
	return 0;
}
