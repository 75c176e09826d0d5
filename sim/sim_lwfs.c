/* beacon-sim's compute nodes as LWFS clients (sim_int.h): the first
 * lwfs_nodes compute nodes log every operation they forward in the format
 * of docs/lwfs-log.md — an OPEN at the start of each I/O phase, READ or
 * WRITE requests of rpc_bytes (the node's share of what the OSTs served
 * its job this tick), a RELEASE at the end — for beacon-clientd's LWFS
 * source (but those without client collection, no_client: they write
 * nothing). Each job's process on such a node also gets a Slurm cgroup file
 * (proc/<pid>/cgroup below the node's directory), so that beacon-clientd
 * run with --root on that directory attributes the lines to the job. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/log.h"
#include "sim/sim_int.h"

#define LOG_NAME "lwfs.log"
#define PID_BASE 10000
#define PID_SPAN 4000000

static uint64_t pid_of(const struct bcn_sim_job *j)
{
	return PID_BASE + j->id % PID_SPAN;
}

static uint64_t handle_of(const struct bcn_sim_job *j, uint64_t node,
			  int64_t phase_start)
{
	return (bcn_sim_hash2(j->id * 65536 + node, (uint64_t)phase_start) >>
		4) | 0x1000;
}

/* "[YYYY-MM-DD HH:MM:SS.uuuuuu] PID " for time ns into b. */
static int stamp(struct bcn_buf *b, int64_t ns, uint64_t pid)
{
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;
	char day[32];

	gmtime_r(&sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
	return bcn_buf_printf(b, "[%s.%06" PRId64 "] %" PRIu64 " ", day,
			      ns % 1000000000 / 1000, pid);
}

/* The first tick of j's current I/O phase. */
static int64_t phase_start(const struct bcn_sim *s, const struct bcn_sim_job *j)
{
	int64_t r = s->tick - j->start, in;

	if (r < j->input_len)
		return j->start;
	in = (r - j->input_len) % j->ckpt_every;
	return s->tick - (in - (j->ckpt_every - j->ckpt_len));
}

/* Whether this tick is the last of j's current I/O phase. */
static bool phase_ends(const struct bcn_sim *s, const struct bcn_sim_job *j)
{
	int64_t r = s->tick + 1 - j->start;

	if (s->tick + 1 >= j->end)
		return true;
	if (j->phase == BCN_SIM_P_READ)
		return r >= j->input_len;
	return (r - j->input_len) % j->ckpt_every == 0;
}

/* The operations node i of job j forwarded this tick, in order, to fn:
 * an OPEN at the start of the phase, READ or WRITE requests of rpc_bytes
 * (the node's share of what the OSTs served its job), a RELEASE at its
 * end. */
static void node_ops(struct bcn_sim *s, const struct bcn_sim_job *j,
		     uint64_t i, bcn_sim_client_fn *fn, void *arg)
{
	uint64_t node = j->first + i;
	uint64_t bytes = bcn_sim_node_share(s, j, i), n, k, rpc;
	int64_t ps = phase_start(s, j), t0 = s->epoch_ns +
		     (int64_t)((double)s->tick * s->tick_s * 1e9);
	int64_t span = (int64_t)(s->tick_s * 1e9);
	struct bcn_sim_client_op op = {
		.node = node, .job = j, .pid = pid_of(j),
		.handle = handle_of(j, node, ps),
		.write = j->phase == BCN_SIM_P_WRITE,
	};
	char path[BCN_SIM_FSNAME_MAX + 128];
	int len;

	rpc = s->c.rpc_bytes;
	len = snprintf(path, sizeof(path), "/%s/%s/%s.%" PRIu64 "/%s.%"
		       PRIu64, s->c.fsname, j->user, j->name, j->id,
		       op.write ? "ckpt" : "input",
		       j->mode == BCN_SIM_N1 ? 0 : j->mode == BCN_SIM_NM ?
		       i % (j->nodes / NM_RATIO ? j->nodes / NM_RATIO : 1) : i);
	op.path = path;
	op.path_len = len > 0 && (size_t)len < sizeof(path) ? (size_t)len : 0;
	if (s->tick == ps) {
		s->lwfs_off[node] = 0;
		op.kind = BCN_SIM_OP_OPEN;
		op.t = t0;
		fn(s, &op, arg);
	}
	n = (bytes + rpc - 1) / rpc;
	op.kind = BCN_SIM_OP_DATA;
	for (k = 0; k < n; k++) {
		op.size = k + 1 < n ? rpc : bytes - (n - 1) * rpc;
		op.offset = s->lwfs_off[node];
		op.t = t0 + (int64_t)((double)span * ((double)k + 0.5) /
				      (double)n);
		fn(s, &op, arg);
		s->lwfs_off[node] += op.size;
	}
	if (phase_ends(s, j)) {
		op.kind = BCN_SIM_OP_RELEASE;
		op.t = t0 + span - 1000;
		op.size = op.offset = 0;
		fn(s, &op, arg);
	}
}

/* The text sink: one LWFS log line per operation. */
static void log_line(struct bcn_sim *s, const struct bcn_sim_client_op *op,
		     void *arg)
{
	struct bcn_buf *b = &s->lwfs[op->node];
	int rc = stamp(b, op->t, op->pid);

	(void)arg;
	if (rc)
		return;
	switch (op->kind) {
	case BCN_SIM_OP_OPEN:
		(void)bcn_buf_printf(b, "OPEN(\"%.*s\", flags=0x%x) => 0x%"
				     PRIx64 "\n", (int)op->path_len, op->path,
				     op->write ? 0x241 : 0, op->handle);
		break;
	case BCN_SIM_OP_DATA:
		(void)bcn_buf_printf(b, "%s(0x%" PRIx64 ", size=%" PRIu64
				     ", offset=%" PRIu64 ")\n",
				     op->write ? "WRITE" : "READ", op->handle,
				     op->size, op->offset);
		break;
	default:
		(void)bcn_buf_printf(b, "RELEASE(0x%" PRIx64 ")\n",
				     op->handle);
		break;
	}
}

void bcn_sim_client_ops(struct bcn_sim *s, uint64_t nodes,
			bcn_sim_client_fn *fn, void *arg)
{
	uint64_t i;
	size_t k;

	for (k = 0; k < s->njobs; k++) {
		const struct bcn_sim_job *j = &s->jobs[k];

		if (j->state != BCN_SIM_RUNNING || j->first >= nodes ||
		    (j->phase != BCN_SIM_P_READ && j->phase != BCN_SIM_P_WRITE))
			continue;
		/* a node without client collection logs nothing */
		for (i = 0; i < j->nodes && j->first + i < nodes; i++)
			if ((j->mode != BCN_SIM_11 || i == 0) &&
			    !s->noclient[j->first + i])
				node_ops(s, j, i, fn, arg);
	}
}

void bcn_sim_lwfs_lines(struct bcn_sim *s)
{
	uint64_t i;

	if (s->client_fn) {
		bcn_sim_client_ops(s, s->c.compute, s->client_fn,
				   s->client_arg);
		return;
	}
	if (!s->c.lwfs_nodes)
		return;
	bcn_sim_client_ops(s, s->c.lwfs_nodes, log_line, NULL);
	/* ticks an earlier run wrote: only the offsets were wanted */
	if (s->tick < s->lines_from)
		for (i = 0; i < s->c.lwfs_nodes; i++)
			bcn_buf_reset(&s->lwfs[i]);
}

/* The Slurm cgroup file of j's process on node (cgroup v2 layout). */
static int write_cgroup(const struct bcn_sim *s, const struct bcn_sim_job *j,
			uint64_t node)
{
	char dir[BCN_SIM_PATH_MAX + 64], text[128];
	int n;

	snprintf(dir, sizeof(dir), "%s/cn%05" PRIu64 "/proc/%" PRIu64,
		 s->c.out, node + 1, pid_of(j));
	n = snprintf(text, sizeof(text), "0::/system.slice/slurmstepd.scope/"
		     "job_%" PRIu64 "/step_0/user/task_0\n", j->id);
	return bcn_sim_write_file(dir, "cgroup", text, (size_t)n);
}

int bcn_sim_lwfs_write(struct bcn_sim *s)
{
	char dir[BCN_SIM_PATH_MAX + 64], path[BCN_SIM_PATH_MAX + 80];
	uint64_t node, i;
	size_t k;
	FILE *out;
	int rc = 0;

	for (k = 0; k < s->njobs && !rc; k++) {
		const struct bcn_sim_job *j = &s->jobs[k];

		for (i = 0; j->state == BCN_SIM_RUNNING && i < j->nodes &&
		     j->first + i < s->c.lwfs_nodes && !rc; i++)
			if (!s->noclient[j->first + i])
				rc = write_cgroup(s, j, j->first + i);
	}
	for (node = 0; node < s->c.lwfs_nodes && !rc; node++) {
		if (s->noclient[node])
			continue;       /* no_client: no log at all */
		snprintf(dir, sizeof(dir), "%s/cn%05" PRIu64, s->c.out,
			 node + 1);
		rc = bcn_sim_write_file(dir, ".keep", "", 0);
		if (rc)
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, LOG_NAME);
		out = fopen(path, "a");
		if (!out) {
			rc = -errno;
			break;
		}
		if (s->lwfs[node].len &&
		    fwrite(s->lwfs[node].data, 1, s->lwfs[node].len, out) !=
		    s->lwfs[node].len)
			rc = -EIO;
		if (fclose(out) && !rc)
			rc = -errno;
		bcn_buf_reset(&s->lwfs[node]);
	}
	if (rc)
		BCN_ERR("sim: LWFS logs: %s", bcn_strerror(rc));
	return rc;
}

int bcn_sim_lwfs_reset(struct bcn_sim *s)
{
	char path[BCN_SIM_PATH_MAX + 64];
	uint64_t node;

	for (node = 0; node < s->c.lwfs_nodes; node++) {
		snprintf(path, sizeof(path), "%s/cn%05" PRIu64 "/%s", s->c.out,
			 node + 1, LOG_NAME);
		if (unlink(path) && errno != ENOENT)
			return -errno;
	}
	return 0;
}
