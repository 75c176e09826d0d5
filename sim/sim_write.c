/* beacon-sim's writers (sim_int.h): the OSS and MDS trees, the Slurm
 * accounting file (sacct --parsable2 with its header) and the ground
 * truth of the injections (JSON lines). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "sim/sim_int.h"

#define NODE_NAME_MAX 32
#define DIR_MAX (BCN_SIM_PATH_MAX + 256)  /* out + a node's /proc path */
#define CPUS_PER_NODE 32

static const char sacct_header[] =
	"JobID|JobName|User|Partition|NNodes|NCPUS|NodeList|Submit|Start|"
	"End|Elapsed|State|ExitCode\n";

static int64_t now_ns(const struct bcn_sim *s)
{
	return s->epoch_ns + (int64_t)((double)s->tick * s->tick_s * 1e9);
}

void bcn_sim_target_cleanup(const struct bcn_sim *s,
			    struct bcn_sim_target *t)
{
	int64_t keep = (int64_t)((double)s->c.jobstats_cleanup_s / 1000.0 /
				 s->tick_s);
	size_t i, k = 0;

	for (i = 0; i < t->njobs; i++)
		if (s->tick - t->jobs[i].last <= keep)
			t->jobs[k++] = t->jobs[i];
	t->njobs = k;
}

static int write_buf(const char *dir, const char *name, struct bcn_buf *b)
{
	int rc = bcn_sim_write_file(dir, name, b->data, b->len);

	if (rc)
		BCN_ERR("sim: writing %s/%s: %s", dir, name, bcn_strerror(rc));
	return rc;
}

/* The OST's brw_stats where 2.15 on ldiskfs has it, in debugfs. */
static int write_brw(struct bcn_sim *s, size_t i)
{
	char dir[DIR_MAX];
	int rc;

	snprintf(dir, sizeof(dir), "%s/oss%03zu/sys/kernel/debug/lustre/"
		 "osd-ldiskfs/%s-OST%04zx", s->c.out,
		 i / s->c.osts_per_oss + 1, s->c.fsname, i);
	rc = bcn_sim_fmt_brw_stats(&s->scratch, now_ns(s), s->epoch_ns,
				   &s->ost[i].brw);
	return rc ? rc : write_buf(dir, "brw_stats", &s->scratch);
}

static int write_ost(struct bcn_sim *s, size_t i)
{
	struct bcn_sim_target *t = &s->ost[i];
	char dir[DIR_MAX];
	struct bcn_sim_ost_ctr *jobs = NULL;
	int64_t now = now_ns(s);
	size_t k;
	int rc;

	snprintf(dir, sizeof(dir), "%s/oss%03zu/proc/fs/lustre/obdfilter/"
		 "%s-OST%04zx", s->c.out, i / s->c.osts_per_oss + 1,
		 s->c.fsname, i);
	rc = bcn_sim_fmt_ost_stats(&s->scratch, now, s->epoch_ns, &t->o);
	if (!rc)
		rc = write_buf(dir, "stats", &s->scratch);
	if (rc)
		return rc;
	rc = write_brw(s, i);
	if (rc)
		return rc;
	bcn_sim_target_cleanup(s, t);
	if (t->njobs && !(jobs = malloc(t->njobs * sizeof(*jobs))))
		return -ENOMEM;
	for (k = 0; k < t->njobs; k++)
		jobs[k] = t->jobs[k].o;
	rc = bcn_sim_fmt_ost_jobstats(&s->scratch, now, s->epoch_ns, jobs,
				      t->njobs);
	free(jobs);
	return rc ? rc : write_buf(dir, "job_stats", &s->scratch);
}

static int write_mdt(struct bcn_sim *s, size_t i)
{
	struct bcn_sim_target *t = &s->mdt[i];
	char dir[DIR_MAX];
	struct bcn_sim_mdt_ctr *jobs = NULL;
	int64_t now = now_ns(s);
	size_t k;
	int rc;

	snprintf(dir, sizeof(dir), "%s/mds%02zu/proc/fs/lustre/mdt/%s-MDT%04zx",
		 s->c.out, i + 1, s->c.fsname, i);
	rc = bcn_sim_fmt_mdt_stats(&s->scratch, now, s->epoch_ns, &t->m);
	if (!rc)
		rc = write_buf(dir, "md_stats", &s->scratch);
	if (rc)
		return rc;
	bcn_sim_target_cleanup(s, t);
	if (t->njobs && !(jobs = malloc(t->njobs * sizeof(*jobs))))
		return -ENOMEM;
	for (k = 0; k < t->njobs; k++)
		jobs[k] = t->jobs[k].m;
	rc = bcn_sim_fmt_mdt_jobstats(&s->scratch, now, s->epoch_ns, jobs,
				      t->njobs);
	free(jobs);
	return rc ? rc : write_buf(dir, "job_stats", &s->scratch);
}

int bcn_sim_write_targets(struct bcn_sim *s)
{
	size_t i;
	int rc;

	for (i = 0; i < s->nost; i++)
		if ((rc = write_ost(s, i)))
			return rc;
	for (i = 0; i < s->nmdt; i++)
		if ((rc = write_mdt(s, i)))
			return rc;
	return 0;
}

/* ---- Slurm accounting ------------------------------------------------------------- */

static void fmt_time(const struct bcn_sim *s, int64_t tick, char *out,
		     size_t len)
{
	time_t t = (time_t)((s->epoch_ns + (int64_t)((double)tick * s->tick_s *
						     1e9)) / BCN_SIM_NS);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void fmt_elapsed(int64_t secs, char *out, size_t len)
{
	if (secs >= 86400)
		snprintf(out, len, "%" PRId64 "-%02" PRId64 ":%02" PRId64
			 ":%02" PRId64, secs / 86400, secs / 3600 % 24,
			 secs / 60 % 60, secs % 60);
	else
		snprintf(out, len, "%02" PRId64 ":%02" PRId64 ":%02" PRId64,
			 secs / 3600, secs / 60 % 60, secs % 60);
}

/* The job's nodes in Slurm's hostlist syntax. */
static int nodelist(const struct bcn_sim_job *j, struct bcn_buf *out)
{
	char (*names)[NODE_NAME_MAX] = malloc(j->nodes * NODE_NAME_MAX);
	const char **ptrs = malloc(j->nodes * sizeof(*ptrs));
	uint64_t i;
	int rc = -ENOMEM;

	if (names && ptrs) {
		for (i = 0; i < j->nodes; i++) {
			snprintf(names[i], NODE_NAME_MAX, "cn%05" PRIu64,
				 j->first + i + 1);
			ptrs[i] = names[i];
		}
		rc = bcn_hostlist_format(ptrs, j->nodes, out);
	}
	free(names);
	free(ptrs);
	return rc;
}

int bcn_sim_sacct_line(const struct bcn_sim *s, const struct bcn_sim_job *j,
		       struct bcn_buf *out)
{
	char submit[32], start[32], end[32], el[32];
	bool done = j->state == BCN_SIM_DONE;
	int64_t last = done ? j->end : s->tick;
	int rc;

	fmt_time(s, j->submit, submit, sizeof(submit));
	fmt_time(s, j->start, start, sizeof(start));
	if (done)
		fmt_time(s, j->end, end, sizeof(end));
	else
		snprintf(end, sizeof(end), "Unknown");
	fmt_elapsed((int64_t)((double)(last - j->start) * s->tick_s), el,
		    sizeof(el));
	rc = bcn_buf_printf(out, "%" PRIu64 "|%s|%s|batch|%" PRIu64 "|%"
			    PRIu64 "|", j->id, j->name, j->user, j->nodes,
			    j->nodes * CPUS_PER_NODE);
	if (!rc)
		rc = nodelist(j, out);
	if (!rc)
		rc = bcn_buf_printf(out, "|%s|%s|%s|%s|%s|0:0\n", submit,
				    start, end, el,
				    done ? "COMPLETED" : "RUNNING");
	return rc;
}

/* OUT/slurm/fwdmap.txt: the compute-to-forwarding map (docs/jobdb.md,
 * "Compute-to-forwarding map"): each forwarding node serves one
 * contiguous range of compute nodes for the whole run. */
static int write_fwdmap(struct bcn_sim *s, const char *dir)
{
	uint64_t i = 0, n = s->c.compute;
	int rc;

	bcn_buf_reset(&s->scratch);
	rc = bcn_buf_adds(&s->scratch, "# beacon-sim: compute nodes and the "
			  "forwarding node that carries their I/O\n");
	while (!rc && i < n) {
		uint64_t f = bcn_sim_fwd_of(s, i), a = i;

		while (i < n && bcn_sim_fwd_of(s, i) == f)
			i++;
		if (i - a == 1)
			rc = bcn_buf_printf(&s->scratch, "cn%05" PRIu64
					    " fwd%03" PRIu64 "\n", a + 1, f + 1);
		else
			rc = bcn_buf_printf(&s->scratch, "cn[%05" PRIu64 "-%05"
					    PRIu64 "] fwd%03" PRIu64 "\n", a + 1,
					    i, f + 1);
	}
	return rc ? rc : write_buf(dir, "fwdmap.txt", &s->scratch);
}

int bcn_sim_write_sacct(struct bcn_sim *s)
{
	char dir[DIR_MAX];
	size_t i;
	int rc;

	bcn_buf_reset(&s->scratch);
	rc = bcn_buf_adds(&s->scratch, sacct_header);
	if (!rc)
		rc = bcn_buf_add(&s->scratch, s->done.data, s->done.len);
	for (i = 0; !rc && i < s->njobs; i++)
		if (s->jobs[i].state == BCN_SIM_RUNNING)
			rc = bcn_sim_sacct_line(s, &s->jobs[i], &s->scratch);
	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), "%s/slurm", s->c.out);
	rc = write_buf(dir, "sacct.txt", &s->scratch);
	return rc ? rc : write_fwdmap(s, dir);
}

/* ---- ground truth -------------------------------------------------------------------- */

/* One truth line: {"kind":..., FIELDS, "from":..., "to":...}. */
static int truth_line(struct bcn_sim *s, const struct bcn_sim_inject *in,
		      const char *kind, const char *fields)
{
	char from[32], to[32];

	fmt_time(s, in->from, from, sizeof(from));
	fmt_time(s, in->from + in->len, to, sizeof(to));
	return bcn_buf_printf(&s->scratch, "{\"kind\":\"%s\",%s,\"from\":"
			      "\"%sZ\",\"to\":\"%sZ\"}\n", kind, fields, from,
			      to);
}

int bcn_sim_write_truth(struct bcn_sim *s)
{
	char f[256], path[BCN_SIM_PATH_MAX], *slash;
	uint64_t uplink = s->c.switches ? (s->c.compute + s->c.switches - 1) /
			  s->c.switches + 1 : 0;
	const struct bcn_sim_inject *in;
	size_t i;
	int rc = 0;

	if (!s->c.truth[0])
		return 0;
	bcn_buf_reset(&s->scratch);
	for (i = 0; !rc && i < s->ninj; i++) {
		in = &s->inj[i];
		snprintf(f, sizeof(f), "\"target\":\"%s-OST%04" PRIx64 "\","
			 "\"node\":\"oss%03" PRIu64 "\",\"factor\":%.6g",
			 s->c.fsname, in->ost, in->ost / s->c.osts_per_oss + 1,
			 in->factor);
		/* its disk I/O time over a healthy OST's at the same load */
		if (in->factor > 0)
			snprintf(f + strlen(f), sizeof(f) - strlen(f),
				 ",\"io_time_ratio\":%.6g", 1.0 / in->factor);
		rc = truth_line(s, in, "slow_ost", f);
	}
	for (i = 0; !rc && i < s->nfinj; i++) {
		in = &s->finj[i];
		snprintf(f, sizeof(f), "\"node\":\"fwd%03" PRIu64 "\","
			 "\"factor\":%.6g", in->ost + 1, in->factor);
		rc = truth_line(s, in, "slow_fwd", f);
	}
	for (i = 0; !rc && i < s->nhinj; i++) {
		in = &s->hinj[i];
		snprintf(f, sizeof(f), "\"switch\":\"sw%02" PRIu64 "\","
			 "\"port\":%" PRIu64 ",\"factor\":%.6g", in->ost + 1,
			 uplink, in->factor);
		rc = truth_line(s, in, "hot_switch", f);
	}
	for (i = 0; !rc && i < s->nsinj; i++) {
		in = &s->sinj[i];
		snprintf(f, sizeof(f), "\"node\":\"fwd%03" PRIu64 "\","
			 "\"job\":%" PRIu64 ",\"rate\":%" PRIu64, in->ost + 1,
			 in->job, in->rate);
		rc = truth_line(s, in, "md_storm", f);
	}
	for (i = 0; !rc && i < s->nflood; i++) {
		in = &s->finj_n1[i];
		snprintf(f, sizeof(f), "\"node\":\"fwd%03" PRIu64 "\","
			 "\"job\":%" PRIu64 ",\"nodes\":%" PRIu64 ",\"bw\":%"
			 PRIu64, in->ost + 1, in->job, in->nodes, in->rate);
		rc = truth_line(s, in, "n1_flood", f);
	}
	for (i = 0; !rc && i < s->nthrash; i++) {
		in = &s->tinj[i];
		snprintf(f, sizeof(f), "\"node\":\"fwd%03" PRIu64 "\","
			 "\"factor\":%.6g", in->ost + 1, in->factor);
		rc = truth_line(s, in, "cache_thrash", f);
	}
	for (i = 0; !rc && i < s->nnode_inj; i++) {
		in = &s->node_inj[i];
		snprintf(f, sizeof(f), "\"node\":\"cn%05" PRIu64 "\","
			 "\"factor\":%.6g", in->ost + 1, in->factor);
		rc = truth_line(s, in, "slow_node", f);
	}
	if (!rc)
		rc = bcn_sim_truth_jobs(s, &s->scratch);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s", s->c.truth);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		return write_buf(path, slash + 1, &s->scratch);
	}
	return write_buf(".", path, &s->scratch);
}
