/* The per-job report as text for a terminal (`beacon job ID`): the job,
 * the figures, a sparkline of bandwidth over time per direction, the
 * phases, the components and the findings. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/report.h"
#include "common/text.h"
#include "common/timefmt.h"

#define SPARK_WIDTH 60

static const char *const blocks[] = {
	" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
	"\u2587", "\u2588",
};
static const char ascii[] = " .:-=+*#@";

/* Bytes as a short human figure: "1.50 GiB". */
static void human(double v, const char *unit, char *out, size_t n)
{
	static const char *const pre[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	unsigned i = 0;

	while (v >= 1024.0 && i + 1 < sizeof(pre) / sizeof(pre[0])) {
		v /= 1024.0;
		i++;
	}
	snprintf(out, n, i ? "%.2f %s%s" : "%.0f %s%s", v, pre[i], unit);
}

static void when(int64_t ns, char *out, size_t n)
{
	if (!ns || bcn_timefmt_format(ns, out, n))
		snprintf(out, n, "-");
}

static int spark(const struct bcn_report *r, bool write, bool utf8,
		 struct bcn_buf *b)
{
	size_t n = r->nseries, w = n < SPARK_WIDTH ? n : SPARK_WIDTH;
	uint64_t col[SPARK_WIDTH] = { 0 }, max = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = write ? r->series[i].write_bytes :
				     r->series[i].read_bytes;

		col[i * w / n] += v;
	}
	for (size_t i = 0; i < w; i++)
		if (col[i] > max)
			max = col[i];
	for (size_t i = 0; !rc && i < w; i++) {
		unsigned k = max ? (unsigned)((col[i] * 8 + max - 1) / max) : 0;

		rc = utf8 ? bcn_buf_adds(b, blocks[k]) :
			    bcn_buf_add(b, &ascii[k], 1);
	}
	return rc;
}

static int figures(const struct bcn_report *r, bool utf8, struct bcn_buf *b)
{
	char rd[32], wr[32], rbm[32], rbp[32], wbm[32], wbp[32];
	int rc;

	human((double)r->read_bytes, "B", rd, sizeof(rd));
	human((double)r->write_bytes, "B", wr, sizeof(wr));
	human(r->read_bw_mean, "B/s", rbm, sizeof(rbm));
	human(r->read_bw_peak, "B/s", rbp, sizeof(rbp));
	human(r->write_bw_mean, "B/s", wbm, sizeof(wbm));
	human(r->write_bw_peak, "B/s", wbp, sizeof(wbp));
	rc = bcn_buf_printf(b, "  read   %12s  mean %12s  peak %12s  ", rd, rbm,
			    rbp);
	rc = rc ? rc : spark(r, false, utf8, b);
	rc = rc ? rc : bcn_buf_printf(b, "\n  write  %12s  mean %12s  peak "
				      "%12s  ", wr, wbm, wbp);
	rc = rc ? rc : spark(r, true, utf8, b);
	return rc ? rc : bcn_buf_printf(b, "\n  mode %s, %" PRIu64 " I/O node%s"
		", %" PRIu64 " process%s, %" PRIu64 " file%s (%" PRIu64
		" shared); %.0f IOPS; %" PRIu64 " metadata operations "
		"(%.0f/s in I/O phases)\n", r->mode, r->io_nodes,
		r->io_nodes == 1 ? "" : "s", r->io_procs,
		r->io_procs == 1 ? "" : "es", r->files,
		r->files == 1 ? "" : "s", r->shared_files, r->iops, r->meta_ops,
		r->meta_rate_io);
}

/* The coverage line: per layer what reported of what the job needed,
 * the missing ones (cut to fit a terminal), and the volume's source. */
static int coverage(const struct bcn_report *r, struct bcn_buf *b)
{
	static const char *const what[BCN_COVER_MAX] = {
		"nodes", "forwarding", "OSTs", "MDTs",
	};
	int rc = bcn_buf_adds(b, "Coverage");

	for (int l = 0; !rc && l < BCN_COVER_MAX; l++) {
		const struct bcn_report_cover *cv = &r->cover[l];
		const char *m = cv->missing ? cv->missing : "";

		if (!cv->known)
			continue;
		rc = bcn_buf_printf(b, "  %s %" PRIu64 "/%" PRIu64, what[l],
				    cv->reported, cv->expected);
		if (!rc && (l == BCN_COVER_OST || l == BCN_COVER_MDS) &&
		    cv->served)
			rc = bcn_buf_printf(b, " (%" PRIu64 " served)",
					    cv->served);
		if (!rc && m[0])
			rc = bcn_buf_printf(b, " missing %.40s%s", m,
					    strlen(m) > 40 ? "..." : "");
	}
	rc = rc ? rc : bcn_buf_printf(b, "\n  volume from %s%s",
		!strcmp(r->volume_source, "ost") ? "the OSTs' job_stats" :
		!strcmp(r->volume_source, "client") ? "the client records" :
		"nowhere (no I/O seen)",
		r->volume_exact ? "" : " (a lower bound)");
	if (!rc && r->client_sample)
		rc = bcn_buf_printf(b, "; mode, processes and files from %"
				    PRIu64 " traced node%s (a sample)",
				    r->client.io_nodes,
				    r->client.io_nodes == 1 ? "" : "s");
	return rc ? rc : bcn_buf_adds(b, "\n");
}

#define TEXT_FILES 5             /* rows of the files table shown */
#define TEXT_ROWS 16            /* rows of the heatmap shown */

static double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The busiest files (or groups), and the job's access pattern. */
static int files(const struct bcn_report *r, struct bcn_buf *b)
{
	const struct bcn_rfiles_result *f = r->file_table;
	const struct bcn_rfiles_stats *t;
	uint64_t ops;
	int rc;

	if (!f || !f->nrows)
		return 0;
	t = &f->total;
	ops = t->read_ops + t->write_ops;
	rc = bcn_buf_printf(b, "Files  %" PRIu64 " (%" PRIu64 " read-only, %"
		PRIu64 " write-only, %" PRIu64 " both); consecutive %.0f%%, "
		"sequential %.0f%%, random %.0f%%; small %.0f%%, off-stripe "
		"%.0f%%\n", f->files, f->read_only, f->write_only,
		f->read_write, pct_of(t->consec_ops, ops),
		pct_of(t->seq_ops, ops), pct_of(t->random_ops, ops),
		pct_of(t->small_read_ops + t->small_write_ops, ops),
		pct_of(t->misaligned_stripe, ops));
	for (size_t i = 0; !rc && i < f->nrows && i < TEXT_FILES; i++) {
		const struct bcn_rfiles_row *w = &f->rows[i];
		char rd[32], wr[32];

		human((double)w->s.read_bytes, "B", rd, sizeof(rd));
		human((double)w->s.write_bytes, "B", wr, sizeof(wr));
		rc = bcn_buf_printf(b, "  %-28.28s %5" PRIu64 " file%s %10s "
				    "read %10s write %4" PRIu64 " proc%s\n",
				    w->name, w->files, w->files == 1 ? " " :
				    "s", rd, wr, w->procs,
				    w->procs == 1 ? "" : "s");
	}
	return rc;
}

/* Where the processes' I/O time went, and the stragglers. */
static int times(const struct bcn_report *r, struct bcn_buf *b)
{
	const struct bcn_rfiles_result *f = r->file_table;
	const struct bcn_rnodes_result *n = r->compute;
	int rc = 0;

	if (f && f->procs && !(f->total.read_time + f->total.write_time +
				f->total.meta_time))
		rc = bcn_buf_printf(b, "Time   not measured (these records carry "
				    "no durations); waiting in server queues "
				    "about %.1f s\n",
				    (double)r->server_wait_ns / 1e9);
	else if (f && f->procs)
		rc = bcn_buf_printf(b, "Time   read %.1f s, write %.1f s, "
			"metadata %.1f s over %" PRIu64 " process%s; waiting in "
			"server queues about %.1f s\n",
			(double)f->total.read_time / 1e9,
			(double)f->total.write_time / 1e9,
			(double)f->total.meta_time / 1e9, f->procs,
			f->procs == 1 ? "" : "es",
			(double)r->server_wait_ns / 1e9);
	if (!rc && n && n->node.checked && n->node.stragglers)
		rc = bcn_buf_printf(b, "Stragglers  %" PRIu64 " of %" PRIu64
				    " nodes, slowest %s at %.0f%% of the "
				    "median bandwidth\n", n->node.stragglers,
				    n->node.io, n->node.list[0].node,
				    100.0 * n->node.list[0].bw_ratio);
	return rc;
}

/* The node heatmap, a row of cells per node (group), when it has data
 * and few enough rows to read. */
static int heatmap(const struct bcn_report *r, bool utf8, struct bcn_buf *b)
{
	const struct bcn_rnodes_result *n = r->compute;
	uint64_t max = 0;
	int rc;

	if (!n || !n->nrows || n->nrows > TEXT_ROWS ||
	    !(n->read_bytes + n->write_bytes))
		return 0;
	for (size_t i = 0; i < n->nrows; i++)
		for (size_t k = 0; k < n->ncols; k++)
			if (n->rows[i].read[k] + n->rows[i].write[k] > max)
				max = n->rows[i].read[k] + n->rows[i].write[k];
	rc = bcn_buf_printf(b, "Nodes over time (%.3g s a cell)\n",
			    (double)n->step / 1e9);
	for (size_t i = 0; !rc && i < n->nrows; i++) {
		rc = bcn_buf_printf(b, "  %-16.16s ", n->rows[i].nodes);
		for (size_t k = 0; !rc && k < n->ncols && k < SPARK_WIDTH;
		     k++) {
			uint64_t v = n->rows[i].read[k] + n->rows[i].write[k];
			unsigned q = max ? (unsigned)((v * 8 + max - 1) / max) :
				     0;

			rc = utf8 ? bcn_buf_adds(b, blocks[q]) :
				    bcn_buf_add(b, &ascii[q], 1);
		}
		rc = rc ? rc : bcn_buf_adds(b, "\n");
	}
	return rc;
}

static int components(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];
		char rd[32], wr[32];

		human((double)p->read_bytes, "B", rd, sizeof(rd));
		human((double)p->write_bytes, "B", wr, sizeof(wr));
		if (!strcmp(p->layer, "mds"))
			rc = bcn_buf_printf(b, "  %-7s %-24s %12" PRIu64
					    " ops  share %5.1f%%\n", p->layer,
					    p->component, p->ops,
					    100.0 * p->share);
		else
			rc = bcn_buf_printf(b, "  %-7s %-24s read %12s  write "
					    "%12s  share %5.1f%%\n", p->layer,
					    p->component, rd, wr,
					    100.0 * p->share);
	}
	return rc;
}

static int network(const struct bcn_report *r, struct bcn_buf *b)
{
	const struct bcn_report_net *n = r->net;
	int rc;

	if (!n)
		return 0;
	rc = bcn_buf_printf(b, "Network  %zu switch%s, imbalance %.2f (%s)%s\n",
			    n->nsw, n->nsw == 1 ? "" : "es", n->imbalance,
			    n->busiest, n->unplaced ? "  some nodes unplaced" : "");
	for (size_t i = 0; !rc && i < n->nsw; i++) {
		const struct bcn_net_switch *s = &n->sw[i];
		char x[32], v[32], up[32], down[32];

		human((double)s->xmit, "B", x, sizeof(x));
		human((double)s->rcv, "B", v, sizeof(v));
		human((double)(s->up_xmit + s->up_rcv), "B", up, sizeof(up));
		human((double)(s->down_xmit + s->down_rcv), "B", down,
		      sizeof(down));
		rc = bcn_buf_printf(b, "  %-24s %3" PRIu64 " ports  xmit %12s  "
				    "rcv %12s  uplinks %12s  downlinks %12s\n",
				    s->name, s->job_ports, x, v, up, down);
	}
	return rc;
}

static int phases_findings(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < r->nphases; i++) {
		const struct bcn_report_phase *p = &r->phases[i];
		char s[BCN_TIMEFMT_OUT_MAX], rd[32], wr[32];

		when(p->start, s, sizeof(s));
		human((double)p->read_bytes, "B", rd, sizeof(rd));
		human((double)p->write_bytes, "B", wr, sizeof(wr));
		rc = bcn_buf_printf(b, "  phase %zu  %s  %8.1f s  read %12s  "
				    "write %12s%s%s\n", i + 1, s,
				    (double)(p->end - p->start) / 1e9, rd, wr,
				    p->mode[0] ? "  " : "", p->mode);
	}
	if (!rc && r->nio_phases)
		rc = bcn_buf_adds(b, "I/O phases (wavelet)\n");
	for (size_t i = 0; !rc && i < r->nio_phases; i++) {
		const struct bcn_phase *p = &r->io_phases[i];
		char s[BCN_TIMEFMT_OUT_MAX], vol[32], mean[32], peak[32];

		when(p->start, s, sizeof(s));
		human(p->volume, "B", vol, sizeof(vol));
		human(p->mean_bw, "B/s", mean, sizeof(mean));
		human(p->peak_bw, "B/s", peak, sizeof(peak));
		rc = bcn_buf_printf(b, "  %zu  %s  %8.1f s  %12s  mean %12s  "
				    "peak %12s\n", i + 1, s,
				    (double)(p->end - p->start) / 1e9, vol, mean,
				    peak);
	}
	if (!rc && r->nfindings)
		rc = bcn_buf_adds(b, "Findings\n");
	for (size_t i = 0; !rc && i < r->nfindings; i++) {
		const struct bcn_advice_finding *f = &r->findings[i];

		rc = bcn_buf_printf(b, "  [%s] %s: %s\n", f->severity, f->code,
				    f->message);
		if (!rc && f->fix[0])
			rc = bcn_buf_printf(b, "      fix (%s): %s\n",
					    f->audience, f->fix);
	}
	return rc;
}

int bcn_report_to_text(const struct bcn_report *r, bool cached, bool utf8,
		       struct bcn_buf *out)
{
	char s[BCN_TIMEFMT_OUT_MAX], e[BCN_TIMEFMT_OUT_MAX];
	size_t from = out->len;
	int rc;

	when(r->start, s, sizeof(s));
	when(r->end, e, sizeof(e));
	rc = bcn_buf_printf(out, "Job %" PRIu64 "  %s  user %s  %s  %" PRIu64
			    " node%s (%s)\n  %s .. %s%s\n", r->job, r->name,
			    r->user, r->state, r->nnodes,
			    r->nnodes == 1 ? "" : "s", r->nodelist, s,
			    r->end ? e : "running", cached ? "  (cached)" : "");
	if (!rc && r->partial)
		rc = bcn_buf_printf(out, "  partial: %s\n", r->why);
	rc = rc ? rc : coverage(r, out);
	rc = rc ? rc : bcn_buf_adds(out, "I/O\n");
	rc = rc ? rc : figures(r, utf8, out);
	rc = rc ? rc : files(r, out);
	rc = rc ? rc : times(r, out);
	rc = rc ? rc : heatmap(r, utf8, out);
	if (!rc && r->nphases)
		rc = bcn_buf_adds(out, "Phases\n");
	rc = rc ? rc : phases_findings(r, out);
	if (!rc && r->nparts)
		rc = bcn_buf_adds(out, "Components\n");
	rc = rc ? rc : components(r, out);
	rc = rc ? rc : network(r, out);
	if (!rc)        /* names come from users: no terminal controls */
		bcn_text_defang((char *)out->data + from, out->len - from);
	return rc;
}
