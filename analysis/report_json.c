/* The per-job report as JSON (the contract of `beacon job --json`, the
 * web API and the Redis cache, docs/report.md), as text for terminals,
 * and into the job database. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analysis/report.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "jobdb/jobdb.h"

static int iso_val(struct bcn_buf *b, int64_t ns)
{
	char t[BCN_TIMEFMT_OUT_MAX];

	if (!ns || bcn_timefmt_format(ns, t, sizeof(t)))
		return bcn_buf_adds(b, "null");
	return bcn_buf_printf(b, "\"%s\"", t);
}

static int iso(struct bcn_buf *b, const char *key, int64_t ns)
{
	int rc = bcn_buf_printf(b, ",\"%s\":", key);

	return rc ? rc : iso_val(b, ns);
}

static int str(struct bcn_buf *b, const char *key, const char *v)
{
	int rc = bcn_buf_printf(b, ",\"%s\":", key);

	return rc ? rc : bcn_buf_add_json_str(b, v);
}

static int head(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = bcn_buf_printf(b, "{\"report_version\":%d,\"job\":%" PRIu64,
				BCN_REPORT_VERSION, r->job);

	rc = rc ? rc : str(b, "user", r->user);
	rc = rc ? rc : str(b, "name", r->name);
	rc = rc ? rc : str(b, "account", r->account);
	rc = rc ? rc : str(b, "partition", r->partition);
	rc = rc ? rc : str(b, "state", r->state);
	rc = rc ? rc : str(b, "nodelist", r->nodelist);
	rc = rc ? rc : bcn_buf_printf(b, ",\"nnodes\":%" PRIu64 ",\"ntasks\":%"
				      PRIu64, r->nnodes, r->ntasks);
	rc = rc ? rc : iso(b, "submit", r->submit);
	rc = rc ? rc : iso(b, "start", r->start);
	rc = rc ? rc : iso(b, "end", r->end);
	rc = rc ? rc : iso(b, "computed", r->computed);
	return rc;
}

static int figures(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = bcn_buf_printf(b, ",\"read_bytes\":%" PRIu64 ",\"write_bytes\":%"
		PRIu64 ",\"read_bw_mean\":%.0f,\"read_bw_peak\":%.0f,"
		"\"write_bw_mean\":%.0f,\"write_bw_peak\":%.0f,\"iops\":%.1f,"
		"\"meta_ops\":%" PRIu64 ",\"client_meta_ops\":%" PRIu64
		",\"meta_rate_io\":%.1f,\"read_ops\":%" PRIu64 ",\"write_ops\":%"
		PRIu64 ",\"mode\":\"%s\",\"io_nodes\":%" PRIu64 ",\"io_procs\":%"
		PRIu64 ",\"files\":%" PRIu64 ",\"shared_files\":%" PRIu64
		",\"records\":%" PRIu64, r->read_bytes, r->write_bytes,
		r->read_bw_mean, r->read_bw_peak, r->write_bw_mean,
		r->write_bw_peak, r->iops, r->meta_ops, r->meta_ops_client,
		r->meta_rate_io, r->read_ops, r->write_ops, r->mode, r->io_nodes,
		r->io_procs, r->files, r->shared_files, r->records);

	rc = rc ? rc : iso(b, "io_first", r->io_first);
	rc = rc ? rc : iso(b, "io_last", r->io_last);
	rc = rc ? rc : bcn_buf_adds(b, ",\"ops\":{");
	for (unsigned i = 0, n = 0; !rc && i < BCN_IO_OP_MAX; i++)
		if (r->op_count[i])
			rc = bcn_buf_printf(b, "%s\"%s\":%" PRIu64, n++ ? "," : "",
					    bcn_io_op_name(i), r->op_count[i]);
	rc = rc ? rc : bcn_buf_adds(b, "},\"request_sizes\":[");
	for (unsigned i = 0; !rc && i < BCN_HIST_BUCKETS; i++)
		rc = bcn_buf_printf(b, "%s%" PRIu64, i ? "," : "",
				    r->size_hist[i]);
	return rc ? rc : bcn_buf_adds(b, "]");
}

/* Coverage per layer and the source of the volume (docs/report.md,
 * "Coverage"), and the client layer's own figures. */
static int coverage(const struct bcn_report *r, struct bcn_buf *b)
{
	const struct bcn_report_client *k = &r->client;
	int rc = bcn_buf_printf(b, ",\"volume_source\":\"%s\",\"volume_exact\":"
				"%s,\"client_sample\":%s,\"coverage\":{",
				r->volume_source,
				r->volume_exact ? "true" : "false",
				r->client_sample ? "true" : "false");

	for (int l = 0; !rc && l < BCN_COVER_MAX; l++) {
		const struct bcn_report_cover *cv = &r->cover[l];

		rc = bcn_buf_printf(b, "%s\"%s\":{\"known\":%s,\"complete\":%s,"
			"\"expected\":%" PRIu64 ",\"reported\":%" PRIu64
			",\"missing\":%" PRIu64, l ? "," : "",
			bcn_report_layer_name(l), cv->known ? "true" : "false",
			cv->complete ? "true" : "false", cv->expected,
			cv->reported, cv->expected - cv->reported);
		if (!rc && l == BCN_COVER_CLIENT)
			rc = bcn_buf_printf(b, ",\"interrupted\":%" PRIu64,
					    cv->interrupted);
		if (!rc && (l == BCN_COVER_OST || l == BCN_COVER_MDS))
			rc = bcn_buf_printf(b, ",\"served\":%" PRIu64,
					    cv->served);
		rc = rc ? rc : str(b, "missing_hosts",
				   cv->missing ? cv->missing : "");
		rc = rc ? rc : bcn_buf_adds(b, "}");
	}
	return rc ? rc : bcn_buf_printf(b, "},\"client\":{\"read_bytes\":%"
		PRIu64 ",\"write_bytes\":%" PRIu64 ",\"read_ops\":%" PRIu64
		",\"write_ops\":%" PRIu64 ",\"read_bw_mean\":%.0f,"
		"\"write_bw_mean\":%.0f,\"iops\":%.1f,\"io_nodes\":%" PRIu64
		"},\"ost_read_rpcs\":%" PRIu64 ",\"ost_write_rpcs\":%" PRIu64
		",\"server_wait_s\":%.3f",
		k->read_bytes, k->write_bytes, k->read_ops, k->write_ops,
		k->read_bw_mean, k->write_bw_mean, k->iops, k->io_nodes,
		r->ost_read_ops, r->ost_write_ops,
		(double)r->server_wait_ns / 1e9);
}

static int series(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = bcn_buf_printf(b, ",\"series\":{\"step\":%.3f",
				(double)r->step_ns / 1e9);

	rc = rc ? rc : iso(b, "from", r->nseries ? r->series[0].t : 0);
	rc = rc ? rc : bcn_buf_adds(b, ",\"read\":[");
	for (size_t i = 0; !rc && i < r->nseries; i++)
		rc = bcn_buf_printf(b, "%s%" PRIu64, i ? "," : "",
				    r->series[i].read_bytes);
	rc = rc ? rc : bcn_buf_adds(b, "],\"write\":[");
	for (size_t i = 0; !rc && i < r->nseries; i++)
		rc = bcn_buf_printf(b, "%s%" PRIu64, i ? "," : "",
				    r->series[i].write_bytes);
	return rc ? rc : bcn_buf_adds(b, "]}");
}

static int phases(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, ",\"phases\":[");

	for (size_t i = 0; !rc && i < r->nphases; i++) {
		const struct bcn_report_phase *p = &r->phases[i];

		rc = bcn_buf_adds(b, i ? ",{\"start\":" : "{\"start\":");
		rc = rc ? rc : iso_val(b, p->start);
		rc = rc ? rc : iso(b, "end", p->end);
		rc = rc ? rc : bcn_buf_printf(b, ",\"read_bytes\":%" PRIu64
			",\"write_bytes\":%" PRIu64 ",\"meta_ops\":%" PRIu64,
			p->read_bytes, p->write_bytes, p->meta_ops);
		if (!rc && p->mode[0])
			rc = bcn_buf_printf(b, ",\"mode\":\"%s\"", p->mode);
		rc = rc ? rc : bcn_buf_adds(b, "}");
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

static int io_phases(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, ",\"io_phases\":[");

	for (size_t i = 0; !rc && i < r->nio_phases; i++) {
		const struct bcn_phase *p = &r->io_phases[i];

		rc = bcn_buf_adds(b, i ? ",{\"start\":" : "{\"start\":");
		rc = rc ? rc : iso_val(b, p->start);
		rc = rc ? rc : iso(b, "end", p->end);
		rc = rc ? rc : bcn_buf_printf(b, ",\"duration\":%.3f,\"volume\":"
			"%.0f,\"mean_bw\":%.1f,\"peak_bw\":%.1f}",
			(double)(p->end - p->start) / 1e9, p->volume,
			p->mean_bw, p->peak_bw);
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

/* One layer's parts as a list named key, the component under name. */
static int parts(const struct bcn_report *r, struct bcn_buf *b,
		 const char *layer, const char *key, const char *name)
{
	int rc = bcn_buf_printf(b, ",\"%s\":[", key), n = 0;

	for (size_t i = 0; !rc && i < r->nparts; i++) {
		const struct bcn_report_part *p = &r->parts[i];

		if (strcmp(p->layer, layer))
			continue;
		rc = bcn_buf_printf(b, "%s{\"%s\":", n++ ? "," : "", name);
		rc = rc ? rc : bcn_buf_add_json_str(b, p->component);
		rc = rc ? rc : bcn_buf_printf(b, ",\"read_bytes\":%" PRIu64
			",\"write_bytes\":%" PRIu64 ",\"ops\":%" PRIu64
			",\"share\":%.6f,\"total_read_bytes\":%" PRIu64
			",\"total_write_bytes\":%" PRIu64 ",\"total_ops\":%" PRIu64,
			p->read_bytes, p->write_bytes, p->ops, p->share,
			p->total_read, p->total_write, p->total_ops);
		if (!rc && !strcmp(layer, "forward"))
			rc = bcn_buf_printf(b, ",\"nodes\":%" PRIu64
				",\"nodes_traced\":%" PRIu64
				",\"latency_mean_us\":%.1f,\"latency_p95_us\":"
				"%.1f,\"queue_mean\":%.2f", p->nodes,
				p->nodes_traced, p->lat_mean_us, p->lat_p95_us,
				p->queue_mean);
		if (!rc && !strcmp(layer, "forward"))
			rc = bcn_buf_printf(b, ",\"service_mean_us\":%.1f,"
					    "\"wait_mean_us\":%.1f",
					    p->proc_mean_us, p->wait_mean_us);
		if (!rc && !strcmp(layer, "ost"))
			rc = bcn_buf_printf(b, ",\"busy_s\":%.3f,\"rate\":%.0f,"
					    "\"iotime_ms\":%.3f",
					    (double)p->busy_ns / 1e9, p->rate,
					    p->iotime_ms);
		rc = rc ? rc : bcn_buf_printf(b, ",\"reported\":%s",
					      p->records ? "true" : "false");
		rc = rc ? rc : bcn_buf_adds(b, "}");
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

static int net_switch(const struct bcn_net_switch *s, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, "{\"switch\":");

	rc = rc ? rc : bcn_buf_add_json_str(b, s->name);
	rc = rc ? rc : bcn_buf_adds(b, ",\"guid\":");
	rc = rc ? rc : bcn_buf_add_json_str(b, s->guid);
	return rc ? rc : bcn_buf_printf(b, ",\"xmit_bytes\":%" PRIu64
		",\"rcv_bytes\":%" PRIu64 ",\"job_ports\":%" PRIu64
		",\"uplink_xmit_bytes\":%" PRIu64 ",\"uplink_rcv_bytes\":%"
		PRIu64 ",\"downlink_xmit_bytes\":%" PRIu64
		",\"downlink_rcv_bytes\":%" PRIu64 ",\"total_xmit_bytes\":%"
		PRIu64 ",\"total_rcv_bytes\":%" PRIu64 ",\"uplinks\":%" PRIu64
		",\"downlinks\":%" PRIu64 "}", s->xmit, s->rcv, s->job_ports,
		s->up_xmit, s->up_rcv, s->down_xmit, s->down_rcv,
		s->total_xmit, s->total_rcv, s->uplinks, s->downlinks);
}

static int network(const struct bcn_report *r, struct bcn_buf *b)
{
	const struct bcn_report_net *n = r->net;
	int rc;

	if (!n)
		return bcn_buf_adds(b, ",\"network\":null");
	rc = bcn_buf_adds(b, ",\"network\":{\"switches\":[");
	for (size_t i = 0; !rc && i < n->nsw; i++) {
		rc = i ? bcn_buf_adds(b, ",") : 0;
		rc = rc ? rc : net_switch(&n->sw[i], b);
	}
	rc = rc ? rc : bcn_buf_printf(b, "],\"histogram\":{\"bin_bytes\":%"
				      PRIu64 ",\"counts\":[", n->bin_bytes);
	for (int i = 0; !rc && i < BCN_NET_HIST_BINS; i++)
		rc = bcn_buf_printf(b, "%s%" PRIu64, i ? "," : "", n->hist[i]);
	rc = rc ? rc : bcn_buf_printf(b, "]},\"imbalance\":%.3f,\"busiest\":",
				      n->imbalance);
	rc = rc ? rc : bcn_buf_add_json_str(b, n->busiest);
	return rc ? rc : bcn_buf_printf(b, ",\"unplaced_nodes\":%" PRIu64 "}",
					n->unplaced);
}

static int findings(const struct bcn_report *r, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, ",\"findings\":[");

	for (size_t i = 0; !rc && i < r->nfindings; i++) {
		const struct bcn_advice_finding *f = &r->findings[i];

		rc = bcn_buf_printf(b, "%s{\"code\":\"%s\",\"severity\":\"%s\","
				    "\"audience\":\"%s\",\"message\":",
				    i ? "," : "", f->code, f->severity,
				    f->audience[0] ? f->audience : "both");
		rc = rc ? rc : bcn_buf_add_json_str(b, f->message);
		rc = rc ? rc : bcn_buf_adds(b, ",\"fix\":");
		rc = rc ? rc : bcn_buf_add_json_str(b, f->fix);
		rc = rc ? rc : bcn_buf_printf(b, ",\"evidence\":%s}",
					      f->evidence);
	}
	return rc ? rc : bcn_buf_adds(b, "]");
}

/* The files table, the node heatmap with the stragglers, and where the
 * job's I/O time went (docs/report.md, "Depth"). */
static int depth(const struct bcn_report *r, struct bcn_buf *b)
{
	const struct bcn_rfiles_result *f = r->file_table;
	int64_t run = (r->end ? r->end : r->computed) - r->start;
	int rc = bcn_buf_adds(b, ",\"file_table\":");

	rc = rc ? rc : f ? bcn_rfiles_to_json(f, b) : bcn_buf_adds(b, "null");
	rc = rc ? rc : bcn_buf_adds(b, ",\"compute\":");
	rc = rc ? rc : r->compute ? bcn_rnodes_to_json(r->compute, b) :
		       bcn_buf_adds(b, "null");
	if (rc || !f)
		return rc ? rc : bcn_buf_adds(b, ",\"time\":null");
	return bcn_buf_printf(b, ",\"time\":{\"read_s\":%.3f,\"write_s\":"
		"%.3f,\"meta_s\":%.3f,\"server_wait_s\":%.3f,\"processes\":%"
		PRIu64 ",\"per_process_s\":%.3f,\"busiest_process_s\":%.3f,"
		"\"runtime_s\":%.3f}", (double)f->total.read_time / 1e9,
		(double)f->total.write_time / 1e9,
		(double)f->total.meta_time / 1e9,
		(double)r->server_wait_ns / 1e9, f->procs,
		f->procs ? (double)(f->total.read_time + f->total.write_time +
				    f->total.meta_time) / 1e9 /
			   (double)f->procs : 0.0,
		(double)f->proc_time_max / 1e9,
		run > 0 ? (double)run / 1e9 : 0.0);
}

int bcn_report_to_json(const struct bcn_report *r, bool cached,
		       struct bcn_buf *out)
{
	int rc = head(r, out);

	rc = rc ? rc : figures(r, out);
	rc = rc ? rc : coverage(r, out);
	rc = rc ? rc : series(r, out);
	rc = rc ? rc : phases(r, out);
	rc = rc ? rc : io_phases(r, out);
	rc = rc ? rc : parts(r, out, "forward", "forwarding", "node");
	rc = rc ? rc : parts(r, out, "ost", "osts", "target");
	rc = rc ? rc : parts(r, out, "mds", "mdts", "target");
	rc = rc ? rc : network(r, out);
	rc = rc ? rc : depth(r, out);
	rc = rc ? rc : findings(r, out);
	rc = rc ? rc : bcn_buf_printf(out, ",\"trace_loss\":{\"processes\":%"
		PRIu64 ",\"dropped_ops\":%" PRIu64 ",\"lost_datagrams\":%"
		PRIu64 ",\"untraced\":%" PRIu64 ",\"cut\":%" PRIu64
		",\"partial\":%" PRIu64 "}", r->loss.processes,
		r->loss.dropped_ops, r->loss.lost_datagrams, r->loss.untraced,
		r->loss.cut, r->loss.partial);
	rc = rc ? rc : bcn_buf_printf(out, ",\"partial\":%s",
				      r->partial ? "true" : "false");
	if (!rc && r->partial)
		rc = str(out, "partial_reason", r->why);
	return rc ? rc : bcn_buf_printf(out, ",\"cached\":%s}",
					cached ? "true" : "false");
}

/* ---- into the job database ---- */

int bcn_report_save(struct bcn_jobdb *db, const struct bcn_report *r)
{
	struct bcn_jobdb_part *parts = calloc(r->nparts + 1, sizeof(*parts));
	struct bcn_jobdb_phase *ph = calloc(r->nphases + 1, sizeof(*ph));
	struct bcn_jobdb_finding *fi = calloc(r->nfindings + 1, sizeof(*fi));
	struct bcn_jobdb_io_phase *io = calloc(r->nio_phases + 1, sizeof(*io));
	struct bcn_jobdb_report rep = {
		.summary = {
			.job = r->job, .computed = r->computed,
			.partial = r->partial, .read_bytes = r->read_bytes,
			.write_bytes = r->write_bytes,
			.read_bw_mean = r->read_bw_mean,
			.read_bw_peak = r->read_bw_peak,
			.write_bw_mean = r->write_bw_mean,
			.write_bw_peak = r->write_bw_peak, .iops = r->iops,
			.meta_ops = r->meta_ops, .io_nodes = r->io_nodes,
			.io_procs = r->io_procs, .meta_rate_io = r->meta_rate_io,
		},
		.parts = parts, .nparts = r->nparts,
		.phases = ph, .nphases = r->nphases,
		.findings = fi, .nfindings = r->nfindings,
		.io_phases = io, .nio_phases = r->nio_phases,
	};
	int rc = -ENOMEM;

	if (!parts || !ph || !fi || !io)
		goto out;
	for (size_t i = 0; i < r->nio_phases; i++)
		io[i] = (struct bcn_jobdb_io_phase){
			.start = r->io_phases[i].start, .end = r->io_phases[i].end,
			.volume = r->io_phases[i].volume,
			.mean_bw = r->io_phases[i].mean_bw,
			.peak_bw = r->io_phases[i].peak_bw,
		};
	snprintf(rep.summary.mode, sizeof(rep.summary.mode), "%s", r->mode);
	for (size_t i = 0; i < r->nparts; i++)
		parts[i] = (struct bcn_jobdb_part){
			.layer = r->parts[i].layer,
			.component = r->parts[i].component,
			.read_bytes = r->parts[i].read_bytes,
			.write_bytes = r->parts[i].write_bytes,
			.ops = r->parts[i].ops, .share = r->parts[i].share,
		};
	for (size_t i = 0; i < r->nphases; i++)
		ph[i] = (struct bcn_jobdb_phase){
			.start = r->phases[i].start, .end = r->phases[i].end,
			.read_bytes = r->phases[i].read_bytes,
			.write_bytes = r->phases[i].write_bytes,
		};
	for (size_t i = 0; i < r->nfindings; i++)
		fi[i] = (struct bcn_jobdb_finding){
			.code = r->findings[i].code,
			.severity = r->findings[i].severity,
			.message = r->findings[i].message,
			.evidence = r->findings[i].evidence,
		};
	rc = bcn_jobdb_put_report(db, &rep);
out:
	free(parts);
	free(ph);
	free(fi);
	free(io);
	return rc;
}
