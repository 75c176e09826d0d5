/* The Slurm job, step and MPI rank of a process, from the texts of its
 * /proc/<pid>/cgroup and /proc/<pid>/environ (docs/clientd-sources.md,
 * "How a process's job is found"). Pure parsers over buffers. */
#ifndef BCN_PROCJOB_H
#define BCN_PROCJOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Slurm's numbers for its special steps (slurm.h), used as step ids. */
#define BCN_PROCJOB_STEP_INTERACTIVE 0xfffffffaULL  /* SLURM_INTERACTIVE_STEP */
#define BCN_PROCJOB_STEP_BATCH 0xfffffffbULL        /* SLURM_BATCH_SCRIPT */
#define BCN_PROCJOB_STEP_EXTERN 0xfffffffcULL       /* SLURM_EXTERN_CONT */
/* A job whose step is not known (Slurm's NO_VAL). */
#define BCN_PROCJOB_STEP_NONE 0xfffffffeULL
#define BCN_PROCJOB_ID_MAX 0xffffffffULL            /* job and step ids */
#define BCN_PROCJOB_RANK_MAX 0x7fffffffLL

struct bcn_procjob {
	bool has_job, has_step, has_rank;
	uint64_t job;           /* 1 .. ID_MAX */
	uint64_t step;          /* 0 .. ID_MAX, or a special step above */
	int64_t rank;           /* 0 .. RANK_MAX */
	uint64_t bad_lines;     /* cgroup: lines not "id:controllers:path" */
};

/* Finds the job and step in a cgroup file (lines "ID:CONTROLLERS:PATH",
 * v1 and v2): in a PATH below a component whose name starts with "slurm"
 * ("slurm", "slurm_<node>", "slurmstepd.scope"), the component
 * "job_<id>" and, right below it, "step_<id>", "step_batch",
 * "step_extern" or "step_interactive". The first line with a job and a
 * step wins, else the first with a job. Malformed lines are skipped and
 * counted in out->bad_lines. Fills *out (zeroed first); has_job is false
 * when the process is in no Slurm job. Pure. */
void bcn_procjob_cgroup(const char *p, size_t len, struct bcn_procjob *out);

/* Reads a NUL-separated environment block: the job from SLURM_JOB_ID
 * (else SLURM_JOBID), the step from SLURM_STEP_ID (else SLURM_STEPID),
 * the rank from OMPI_COMM_WORLD_RANK, else PMI_RANK, else PMIX_RANK, else
 * SLURM_PROCID. Values that are not plain decimal numbers in range are
 * ignored. The block may end without a NUL (a cut read). Fills *out
 * (zeroed first). Pure. */
void bcn_procjob_environ(const char *p, size_t len, struct bcn_procjob *out);

/* Combines what the cgroup (cg) and the environment (env) said: the job
 * and step of the cgroup when it names a job (the environment is
 * inherited and may be stale), else the environment's; the rank of the
 * environment when its job is the job chosen (or it names none). A job
 * without a known step gets step BCN_PROCJOB_STEP_NONE (has_step stays
 * false). Pure. */
void bcn_procjob_merge(const struct bcn_procjob *cg,
		       const struct bcn_procjob *env, struct bcn_procjob *out);

#endif
