/* Record type descriptions (the field tables), validation, JSON output and
 * per-operation accounting for every record type. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/utf8.h"
#include "proto/record.h"

#define BCN_X_NAME(id, name) name,
static const char *const io_op_names[] = { BCN_IO_OPS(BCN_X_NAME) };
static const char *const fwd_class_names[] = { BCN_FWD_CLASSES(BCN_X_NAME) };
static const char *const topo_kind_names[] = { "host", "switch" };
const char *const bcn_ost_op_names[BCN_OST_OP_MAX] = { BCN_OST_OPS(BCN_X_NAME) };
const char *const bcn_md_op_names[BCN_MD_OP_MAX] = { BCN_MD_OPS(BCN_X_NAME) };
const char *const bcn_port_err_names[BCN_PE_MAX] = { BCN_PORT_ERRS(BCN_X_NAME) };

static const char *const layer_names[BCN_LAYER_MAX] = {
	[BCN_LAYER_CLIENT] = "client", [BCN_LAYER_FORWARD] = "forward",
	[BCN_LAYER_OST] = "ost", [BCN_LAYER_MDS] = "mds",
	[BCN_LAYER_SWITCH] = "switch", [BCN_LAYER_JOB] = "job",
	[BCN_LAYER_COLLECTOR] = "collector",
};

#define OFF(member) ((uint16_t)offsetof(struct bcn_record, u.member))
#define U64(m, nm, unit, doc) { nm, BCN_F_U64, 0, OFF(m), NULL, unit, doc }
#define I64(m, nm, unit, doc) { nm, BCN_F_I64, 0, OFF(m), NULL, unit, doc }
#define STR(m, nm, doc) { nm, BCN_F_STR, 0, OFF(m), NULL, "", doc }
#define ENUM(m, nm, tab, doc) \
	{ nm, BCN_F_ENUM, sizeof(tab) / sizeof(tab[0]), OFF(m), tab, "", doc }
#define VEC(m, nm, tab, unit, doc) \
	{ nm, BCN_F_VEC, sizeof(tab) / sizeof(tab[0]), OFF(m), tab, unit, doc }
#define HIST(m, nm, unit, doc) \
	{ nm, BCN_F_VEC, BCN_HIST_BUCKETS, OFF(m), NULL, unit, doc }
#define DIST(m, nm, unit, doc) { nm, BCN_F_DIST, 0, OFF(m), NULL, unit, doc }

static const struct bcn_field io_fields[] = {
	U64(io.step, "step", "", "Slurm job step"),
	I64(io.rank, "rank", "", "MPI rank, -1 when unknown"),
	U64(io.pid, "pid", "", "process id"),
	ENUM(io.op, "op", io_op_names, "operation"),
	I64(io.fd, "fd", "", "file descriptor or forwarding handle, -1 none"),
	U64(io.file, "file", "", "64-bit id of the path (proto/fileid.h)"),
	STR(io.path, "path", "path, carried by open records only"),
	U64(io.offset, "offset", "bytes", "offset of the first operation"),
	U64(io.size, "size", "bytes", "bytes moved by each operation"),
	U64(io.count, "count", "", "operations this record stands for"),
	I64(io.stride, "stride", "bytes",
	    "offset of operation i is offset + i * stride"),
	U64(io.busy, "busy", "ns", "sum of the operations' durations"),
};

static const struct bcn_field fwd_req_fields[] = {
	ENUM(fwd_req.cls, "class", fwd_class_names, "request class"),
	U64(fwd_req.count, "count", "", "requests completed in the window"),
	U64(fwd_req.bytes, "bytes", "bytes", "bytes moved by them"),
	DIST(fwd_req.latency, "latency", "us", "arrival to reply"),
	DIST(fwd_req.proc, "proc", "us", "start of service to reply"),
	DIST(fwd_req.queue, "queue", "requests",
	     "queue length, sampled once per 1000 requests"),
};

static const struct bcn_field fwd_rpc_fields[] = {
	STR(fwd_rpc.target, "target", "OST the RPCs went to"),
	U64(fwd_rpc.read_rpcs, "read_rpcs", "", "read RPCs sent"),
	U64(fwd_rpc.write_rpcs, "write_rpcs", "", "write RPCs sent"),
	U64(fwd_rpc.read_bytes, "read_bytes", "bytes", "bytes read"),
	U64(fwd_rpc.write_bytes, "write_bytes", "bytes", "bytes written"),
	U64(fwd_rpc.in_flight, "in_flight", "", "RPCs in flight when sampled"),
	U64(fwd_rpc.pending_pages, "pending_pages", "pages",
	    "dirty pages waiting for an RPC"),
	HIST(fwd_rpc.pages_read, "pages_read", "pages", "pages per read RPC"),
	HIST(fwd_rpc.pages_write, "pages_write", "pages",
	     "pages per write RPC"),
	HIST(fwd_rpc.flight_read, "flight_read", "",
	     "read RPCs in flight when one was sent"),
	HIST(fwd_rpc.flight_write, "flight_write", "",
	     "write RPCs in flight when one was sent"),
};

static const struct bcn_field ost_fields[] = {
	STR(ost.target, "target", "OST name"),
	STR(ost.client, "client", "export NID, empty for the whole target"),
	STR(ost.jobid, "jobid", "Lustre job id, empty for all jobs"),
	U64(ost.read_bytes, "read_bytes", "bytes", "bytes read"),
	U64(ost.write_bytes, "write_bytes", "bytes", "bytes written"),
	VEC(ost.ops, "ops", bcn_ost_op_names, "", "requests per operation"),
	HIST(ost.pages_read, "pages_read", "pages", "pages per bulk read"),
	HIST(ost.pages_write, "pages_write", "pages", "pages per bulk write"),
	HIST(ost.iotime_read, "iotime_read", "ms", "disk read I/O time"),
	HIST(ost.iotime_write, "iotime_write", "ms", "disk write I/O time"),
};

static const struct bcn_field mds_fields[] = {
	STR(mds.target, "target", "MDT name"),
	STR(mds.client, "client", "export NID, empty for the whole target"),
	STR(mds.jobid, "jobid", "Lustre job id, empty for all jobs"),
	VEC(mds.ops, "ops", bcn_md_op_names, "", "requests per operation"),
};

static const struct bcn_field port_fields[] = {
	STR(port.sw, "switch", "switch GUID, or the HCA name on a host"),
	U64(port.port, "port", "", "port number"),
	U64(port.xmit_bytes, "xmit_bytes", "bytes", "bytes transmitted"),
	U64(port.rcv_bytes, "rcv_bytes", "bytes", "bytes received"),
	U64(port.xmit_pkts, "xmit_pkts", "", "packets transmitted"),
	U64(port.rcv_pkts, "rcv_pkts", "", "packets received"),
	U64(port.xmit_wait, "xmit_wait", "ticks",
	    "ticks with data to send and no credits"),
	VEC(port.errors, "errors", bcn_port_err_names, "", "error counters"),
};

static const struct bcn_field job_fields[] = {
	STR(job.user, "user", "user name"),
	U64(job.uid, "uid", "", "numeric user id"),
	STR(job.name, "name", "job name or application"),
	STR(job.partition, "partition", "partition"),
	STR(job.nodelist, "nodelist", "nodes, as a Slurm hostlist"),
	U64(job.nnodes, "nnodes", "", "number of nodes"),
	U64(job.ntasks, "ntasks", "", "number of processes"),
	I64(job.submit, "submit", "ns", "submission time since the epoch"),
	STR(job.state, "state", "final or current state"),
	I64(job.exit_code, "exit_code", "", "exit code"),
};

static const struct bcn_field topo_fields[] = {
	STR(topo.sw, "switch", "switch GUID, as in port records"),
	STR(topo.sw_name, "switch_name", "switch node description, or empty"),
	U64(topo.port, "port", "", "port number"),
	ENUM(topo.remote_kind, "remote_kind", topo_kind_names,
	     "what the port is cabled to"),
	STR(topo.remote, "remote", "GUID of the remote node"),
	U64(topo.remote_port, "remote_port", "", "port number at the remote end"),
	STR(topo.remote_name, "remote_name",
	    "remote node description: a host's name, a switch's name"),
	U64(topo.rate, "rate", "bytes/s", "link data rate, 0 when unknown"),
};

static const struct bcn_field trace_loss_fields[] = {
	U64(trace_loss.pid, "pid", "", "process id"),
	U64(trace_loss.dropped_ops, "dropped_ops", "",
	    "operations the tracer dropped (socket full, no daemon)"),
	U64(trace_loss.lost_datagrams, "lost_datagrams", "",
	    "datagrams of the process that never arrived (sequence gaps)"),
	U64(trace_loss.untraced, "untraced", "",
	    "calls passed through untraced (a signal handler inside the "
	    "tracer)"),
	U64(trace_loss.cut, "cut", "",
	    "1 when the process ended without its end datagram: its last "
	    "records may be missing"),
	U64(trace_loss.partial, "partial", "",
	    "1 when a thread's runs could not be taken at the end"),
};

static const struct bcn_field health_fields[] = {
	STR(health.program, "program", "the collector daemon's name"),
	I64(health.started, "started", "ns", "when the daemon started"),
	U64(health.samples, "samples", "", "samples taken"),
	U64(health.sample_errors, "sample_errors", "", "samples that failed"),
	U64(health.overruns, "overruns", "",
	    "ticks missed because sampling took longer than the interval"),
	U64(health.file_errors, "file_errors", "",
	    "files that could not be read or parsed"),
	U64(health.skipped_lines, "skipped_lines", "",
	    "malformed lines the parsers skipped"),
	U64(health.bad_records, "bad_records", "",
	    "records refused as invalid, never sent"),
	U64(health.records, "records", "", "records made"),
	U64(health.acked_records, "acked_records", "",
	    "records the log servers confirmed as stored"),
	U64(health.dropped_records, "dropped_records", "",
	    "records given up: pushed out of a full send buffer, or rejected"),
	U64(health.send_errors, "send_errors", "",
	    "frames that could not be queued for sending"),
	U64(health.buffered_bytes, "buffered_bytes", "bytes",
	    "gauge: frames waiting for an acknowledgement"),
	U64(health.buffer_max, "buffer_max", "bytes",
	    "gauge: the send buffer's capacity"),
	U64(health.connected, "connected", "",
	    "gauge: 1 while a session with a log server is up"),
	U64(health.reconnects, "reconnects", "", "sessions after the first"),
	U64(health.connect_failures, "connect_failures", "",
	    "connection attempts that failed"),
	U64(health.resent, "resent", "", "frames written again"),
	U64(health.cpu_ns, "cpu_ns", "ns",
	    "CPU time of sampling and framing"),
};

#define DESC(nm, layer, tab, doc) { nm, layer, tab, sizeof(tab) / sizeof(tab[0]), doc }
static const struct bcn_record_desc descs[BCN_REC_TYPE_MAX] = {
	[BCN_REC_IO] = DESC("io", BCN_LAYER_CLIENT, io_fields,
		"One I/O operation of a compute-node process, or a run of "
		"count operations with the same op, fd and size at offsets "
		"offset + i * stride; t is the first start, t + dur the last end."),
	[BCN_REC_FWD_REQ] = DESC("fwd_req", BCN_LAYER_FORWARD, fwd_req_fields,
		"Request statistics of a forwarding server over the window "
		"[t, t + dur), one record per request class."),
	[BCN_REC_FWD_RPC] = DESC("fwd_rpc", BCN_LAYER_FORWARD, fwd_rpc_fields,
		"Lustre client RPCs from a forwarding node to one OST over the "
		"interval."),
	[BCN_REC_OST] = DESC("ost", BCN_LAYER_OST, ost_fields,
		"Statistics of one OST over the interval: whole target, one "
		"export (client) or one job."),
	[BCN_REC_MDS] = DESC("mds", BCN_LAYER_MDS, mds_fields,
		"Metadata operations of one MDT over the interval: whole "
		"target, one export (client) or one job."),
	[BCN_REC_PORT] = DESC("port", BCN_LAYER_SWITCH, port_fields,
		"Counters of one InfiniBand port over the interval."),
	[BCN_REC_JOB] = DESC("job", BCN_LAYER_JOB, job_fields,
		"A batch job; t is its start, dur its run time (0 while running)."),
	[BCN_REC_TOPOLOGY] = DESC("topology", BCN_LAYER_SWITCH, topo_fields,
		"What one switch port is cabled to, as known at t (from the "
		"fabric's ibnetdiscover file); a newer record of the same "
		"switch and port supersedes it."),
	[BCN_REC_TRACE_LOSS] = DESC("trace_loss", BCN_LAYER_CLIENT,
		trace_loss_fields,
		"What the records of one traced process miss, as beacon-clientd "
		"accounts for it when the process's stream ends or is found "
		"cut; t is when it was accounted. A job with such records has "
		"client-layer figures that are lower bounds."),
	[BCN_REC_HEALTH] = DESC("health", BCN_LAYER_COLLECTOR, health_fields,
		"A collector daemon's account of itself, sent every "
		"health_interval: its counters are totals since started "
		"(not per-interval deltas), its gauges the values at t; dur "
		"is the time since its previous health record."),
};

const struct bcn_record_desc *bcn_record_desc(uint64_t type)
{
	if (type == 0 || type >= BCN_REC_TYPE_MAX)
		return NULL;
	return &descs[type];
}

const char *bcn_layer_name(unsigned layer)
{
	if (layer == 0 || layer >= BCN_LAYER_MAX)
		return "?";
	return layer_names[layer];
}

int bcn_layer_parse(const char *name)
{
	for (unsigned i = 1; i < BCN_LAYER_MAX; i++)
		if (strcmp(name, layer_names[i]) == 0)
			return (int)i;
	for (unsigned i = 1; i < BCN_REC_TYPE_MAX; i++)
		if (strcmp(name, descs[i].name) == 0)
			return descs[i].layer;
	return -BCN_ESYNTAX;
}

const char *bcn_io_op_name(uint64_t op)
{
	return op < BCN_IO_OP_MAX ? io_op_names[op] : "?";
}

const char *bcn_fwd_class_name(uint64_t cls)
{
	return cls < BCN_FWD_CLASS_MAX ? fwd_class_names[cls] : "?";
}

const char *bcn_topo_kind_name(uint64_t kind)
{
	return kind < BCN_TOPO_KIND_MAX ? topo_kind_names[kind] : "?";
}

void bcn_record_init(struct bcn_record *r, enum bcn_rec_type type)
{
	const struct bcn_record_desc *d = bcn_record_desc(type);

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->node = "";
	if (!d)
		return;
	for (size_t i = 0; i < d->nfields; i++)
		if (d->fields[i].kind == BCN_F_STR)
			*(const char **)((char *)r + d->fields[i].offset) = "";
	if (type == BCN_REC_IO) {
		r->u.io.rank = -1;
		r->u.io.fd = -1;
		r->u.io.count = 1;
	}
}

int bcn_record_check_rules(const struct bcn_record *r)
{
	if (r->dur < 0)
		return -BCN_ERANGE;
	if (r->type == BCN_REC_IO && r->u.io.count == 0)
		return -BCN_ERANGE;
	return 0;
}

int bcn_record_check(const struct bcn_record *r)
{
	const struct bcn_record_desc *d = bcn_record_desc(r->type);

	if (!d)
		return -BCN_ERANGE;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct bcn_field *f = &d->fields[i];
		const char *p = (const char *)r + f->offset;

		if (f->kind == BCN_F_ENUM && *(const uint64_t *)p >= f->n)
			return -BCN_ERANGE;
		if (f->kind == BCN_F_STR) {
			const char *s = *(const char *const *)p;

			if (!s || strnlen(s, BCN_STR_MAX + 1) > BCN_STR_MAX)
				return -BCN_ERANGE;
		}
	}
	return bcn_record_check_rules(r);
}

static int json_vec(struct bcn_buf *out, const struct bcn_field *f,
		    const uint64_t *v)
{
	int rc = 0, first = 1;

	if (!f->names) {
		unsigned n = f->n;

		while (n > 0 && v[n - 1] == 0)
			n--;
		rc = bcn_buf_add(out, "[", 1);
		for (unsigned i = 0; rc == 0 && i < n; i++)
			rc = bcn_buf_printf(out, "%s%" PRIu64, i ? "," : "", v[i]);
		return rc ? rc : bcn_buf_add(out, "]", 1);
	}
	rc = bcn_buf_add(out, "{", 1);
	for (unsigned i = 0; rc == 0 && i < f->n; i++) {
		if (!v[i])
			continue;
		rc = bcn_buf_printf(out, "%s\"%s\":%" PRIu64, first ? "" : ",",
				    f->names[i], v[i]);
		first = 0;
	}
	return rc ? rc : bcn_buf_add(out, "}", 1);
}

static int json_dist(struct bcn_buf *out,
		     const struct bcn_dist *d)
{
	static const struct bcn_field hist = { "hist", BCN_F_VEC,
		BCN_HIST_BUCKETS, 0, NULL, "", "" };
	int rc;

	rc = bcn_buf_printf(out, "{\"count\":%" PRIu64 ",\"sum\":%" PRIu64
			    ",\"min\":%" PRIu64 ",\"max\":%" PRIu64
			    ",\"p50\":%" PRIu64 ",\"p95\":%" PRIu64
			    ",\"p99\":%" PRIu64 ",\"hist\":",
			    d->count, d->sum, d->min, d->max, d->p50, d->p95,
			    d->p99);
	if (!rc)
		rc = json_vec(out, &hist, d->hist);
	return rc ? rc : bcn_buf_add(out, "}", 1);
}

static int json_field(struct bcn_buf *out, const struct bcn_field *f,
		      const struct bcn_record *r)
{
	const char *p = (const char *)r + f->offset;
	int rc = bcn_buf_printf(out, ",\"%s\":", f->name);

	if (rc)
		return rc;
	switch (f->kind) {
	case BCN_F_U64:
		return bcn_buf_printf(out, "%" PRIu64, *(const uint64_t *)p);
	case BCN_F_I64:
		return bcn_buf_printf(out, "%" PRId64, *(const int64_t *)p);
	case BCN_F_ENUM: {
		uint64_t v = *(const uint64_t *)p;

		return bcn_buf_add_json_str(out, v < f->n ? f->names[v] : "?");
	}
	case BCN_F_STR:
		return bcn_buf_add_json_str(out, *(const char *const *)p);
	case BCN_F_VEC:
		return json_vec(out, f, (const uint64_t *)p);
	case BCN_F_DIST:
		return json_dist(out, (const struct bcn_dist *)p);
	}
	return -EINVAL;
}

int bcn_record_to_json(const struct bcn_record *r, struct bcn_buf *out)
{
	const struct bcn_record_desc *d = bcn_record_desc(r->type);
	int rc;

	if (!d)
		return -BCN_ERANGE;
	rc = bcn_buf_printf(out, "{\"type\":\"%s\",\"layer\":\"%s\",\"node\":",
			    d->name, bcn_layer_name(d->layer));
	if (!rc)
		rc = bcn_buf_add_json_str(out, r->node ? r->node : "");
	if (!rc)
		rc = bcn_buf_printf(out, ",\"t\":%" PRId64 ",\"dur\":%" PRId64
				    ",\"job\":%" PRIu64, r->t, r->dur, r->job);
	for (size_t i = 0; rc == 0 && i < d->nfields; i++)
		rc = json_field(out, &d->fields[i], r);
	return rc ? rc : bcn_buf_add(out, "}", 1);
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static void ops_vec(const uint64_t *v, const char *const *names, unsigned n,
		    bcn_record_ops_fn *fn, void *arg)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i])
			fn(arg, names[i], v[i], 0);
}

void bcn_record_ops(const struct bcn_record *r, bcn_record_ops_fn *fn,
		    void *arg)
{
	const struct bcn_rec_ost *o = &r->u.ost;
	const struct bcn_rec_fwd_rpc *c = &r->u.fwd_rpc;
	const struct bcn_rec_port *p = &r->u.port;

	switch (r->type) {
	case BCN_REC_IO:
		fn(arg, bcn_io_op_name(r->u.io.op), r->u.io.count,
		   mul_sat(r->u.io.size, r->u.io.count));
		break;
	case BCN_REC_FWD_REQ:
		fn(arg, bcn_fwd_class_name(r->u.fwd_req.cls),
		   r->u.fwd_req.count, r->u.fwd_req.bytes);
		break;
	case BCN_REC_FWD_RPC:
		if (c->read_rpcs || c->read_bytes)
			fn(arg, "read", c->read_rpcs, c->read_bytes);
		if (c->write_rpcs || c->write_bytes)
			fn(arg, "write", c->write_rpcs, c->write_bytes);
		break;
	case BCN_REC_OST:
		if (o->ops[BCN_OST_READ] || o->read_bytes)
			fn(arg, "read", o->ops[BCN_OST_READ], o->read_bytes);
		if (o->ops[BCN_OST_WRITE] || o->write_bytes)
			fn(arg, "write", o->ops[BCN_OST_WRITE], o->write_bytes);
		ops_vec(o->ops + BCN_OST_WRITE + 1,
			bcn_ost_op_names + BCN_OST_WRITE + 1,
			BCN_OST_OP_MAX - BCN_OST_WRITE - 1, fn, arg);
		break;
	case BCN_REC_MDS:
		ops_vec(r->u.mds.ops, bcn_md_op_names, BCN_MD_OP_MAX, fn, arg);
		break;
	case BCN_REC_PORT:
		if (p->xmit_pkts || p->xmit_bytes)
			fn(arg, "xmit", p->xmit_pkts, p->xmit_bytes);
		if (p->rcv_pkts || p->rcv_bytes)
			fn(arg, "rcv", p->rcv_pkts, p->rcv_bytes);
		ops_vec(p->errors, bcn_port_err_names, BCN_PE_MAX, fn, arg);
		break;
	case BCN_REC_JOB:
		fn(arg, "job", 1, 0);
		break;
	}
}

static void add_sat(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

static const uint8_t io_class[BCN_IO_OP_MAX] = {
	[BCN_IO_OPEN] = 'm', [BCN_IO_CLOSE] = 'm', [BCN_IO_READ] = 'r',
	[BCN_IO_WRITE] = 'w', [BCN_IO_SEEK] = 'o', [BCN_IO_SYNC] = 'o',
	[BCN_IO_TRUNCATE] = 'o', [BCN_IO_STAT] = 'm', [BCN_IO_UNLINK] = 'm',
	[BCN_IO_RENAME] = 'm', [BCN_IO_MKDIR] = 'm', [BCN_IO_RMDIR] = 'm',
	[BCN_IO_OTHER] = 'o',
};

static void totals_io(const struct bcn_rec_io *io, struct bcn_record_totals *t)
{
	uint64_t bytes = mul_sat(io->size, io->count);

	switch (io->op < BCN_IO_OP_MAX ? io_class[io->op] : 'o') {
	case 'r': t->read_ops = io->count; t->read_bytes = bytes; break;
	case 'w': t->write_ops = io->count; t->write_bytes = bytes; break;
	case 'm': t->meta_ops = io->count; break;
	default: t->other_ops = io->count; break;
	}
}

static void totals_ost(const struct bcn_rec_ost *o, struct bcn_record_totals *t)
{
	t->read_bytes = o->read_bytes;
	t->write_bytes = o->write_bytes;
	t->read_ops = o->ops[BCN_OST_READ];
	t->write_ops = o->ops[BCN_OST_WRITE];
	for (unsigned i = BCN_OST_WRITE + 1; i < BCN_OST_OP_MAX; i++) {
		int meta = i == BCN_OST_GETATTR || i == BCN_OST_SETATTR ||
			   i == BCN_OST_CREATE || i == BCN_OST_DESTROY ||
			   i == BCN_OST_STATFS;

		add_sat(meta ? &t->meta_ops : &t->other_ops, o->ops[i]);
	}
}

void bcn_record_totals(const struct bcn_record *r, struct bcn_record_totals *t)
{
	const struct bcn_rec_fwd_req *q = &r->u.fwd_req;

	memset(t, 0, sizeof(*t));
	switch (r->type) {
	case BCN_REC_IO:
		totals_io(&r->u.io, t);
		break;
	case BCN_REC_FWD_REQ:
		if (q->cls == BCN_FWD_READ) {
			t->read_ops = q->count;
			t->read_bytes = q->bytes;
		} else if (q->cls == BCN_FWD_WRITE) {
			t->write_ops = q->count;
			t->write_bytes = q->bytes;
		} else if (q->cls == BCN_FWD_META) {
			t->meta_ops = q->count;
		} else if (q->cls == BCN_FWD_OTHER) {
			t->other_ops = q->count;
		}
		break;
	case BCN_REC_FWD_RPC:
		t->read_ops = r->u.fwd_rpc.read_rpcs;
		t->write_ops = r->u.fwd_rpc.write_rpcs;
		t->read_bytes = r->u.fwd_rpc.read_bytes;
		t->write_bytes = r->u.fwd_rpc.write_bytes;
		break;
	case BCN_REC_OST:
		totals_ost(&r->u.ost, t);
		break;
	case BCN_REC_MDS:
		for (unsigned i = 0; i < BCN_MD_OP_MAX; i++) {
			uint64_t *dst = i == BCN_MD_READ ? &t->read_ops :
					i == BCN_MD_WRITE ? &t->write_ops :
					i == BCN_MD_PUNCH ? &t->other_ops : &t->meta_ops;

			add_sat(dst, r->u.mds.ops[i]);
		}
		break;
	case BCN_REC_PORT:
		t->read_bytes = r->u.port.rcv_bytes;
		t->write_bytes = r->u.port.xmit_bytes;
		t->read_ops = r->u.port.rcv_pkts;
		t->write_ops = r->u.port.xmit_pkts;
		break;
	}
}

/* s into buf[0..len) as snprintf("%s") would, without its cost (the
 * store's compaction asks for every record's entity). */
static int entity_str(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (len == 0)
		return -BCN_EFULL;
	if (n >= len) {
		memcpy(buf, s, len - 1);
		buf[len - 1] = '\0';
		return -BCN_EFULL;
	}
	memcpy(buf, s, n + 1);
	return 0;
}

int bcn_record_entity(const struct bcn_record *r, char *buf, size_t len)
{
	int n;

	switch (r->type) {
	case BCN_REC_FWD_RPC:
		return entity_str(buf, len, r->u.fwd_rpc.target);
	case BCN_REC_OST:
		return entity_str(buf, len, r->u.ost.target);
	case BCN_REC_MDS:
		return entity_str(buf, len, r->u.mds.target);
	case BCN_REC_PORT:
		n = snprintf(buf, len, "%s/%" PRIu64, r->u.port.sw, r->u.port.port);
		break;
	case BCN_REC_TOPOLOGY:
		n = snprintf(buf, len, "%s/%" PRIu64, r->u.topo.sw, r->u.topo.port);
		break;
	case BCN_REC_JOB:
		n = snprintf(buf, len, "%" PRIu64, r->job);
		break;
	default:
		return entity_str(buf, len, r->node ? r->node : "");
	}
	return n < 0 || (size_t)n >= len ? -BCN_EFULL : 0;
}

size_t bcn_record_utf8_invalid(const struct bcn_record *r)
{
	const struct bcn_record_desc *d = bcn_record_desc(r->type);
	size_t bad = 0;

	if (r->node && bcn_utf8_valid(r->node, strlen(r->node)) != strlen(r->node))
		bad++;
	for (size_t i = 0; d && i < d->nfields; i++) {
		const char *s;

		if (d->fields[i].kind != BCN_F_STR)
			continue;
		s = *(const char *const *)((const char *)r + d->fields[i].offset);
		if (s && bcn_utf8_valid(s, strlen(s)) != strlen(s))
			bad++;
	}
	return bad;
}
