/* The batch-job model shared by the job-record parsers (sacct, Standard
 * Workload Format, CSV), the compute-to-forwarding mapping, the job
 * database and the analysis: one job or job step as any scheduler wrote
 * it, and one mapping entry. Pure data: nothing here does I/O.
 *
 * Strings are borrowed: a parser points them into its input or a scratch
 * buffer that outlives only the callback it hands the job to. */
#ifndef BCN_JOB_H
#define BCN_JOB_H

#include <stdint.h>

#define BCN_JOB_STR_MAX 256         /* user, account, partition, name, step */
#define BCN_JOB_NODELIST_MAX 65536  /* hostlist expression, bytes */

/* Job states, as Slurm names them (sacct prints the first word, e.g.
 * "CANCELLED by 1000" is CANCELLED). */
#define BCN_JOB_STATES(X) \
	X(PENDING, "PENDING") X(RUNNING, "RUNNING") \
	X(SUSPENDED, "SUSPENDED") X(COMPLETED, "COMPLETED") \
	X(CANCELLED, "CANCELLED") X(FAILED, "FAILED") \
	X(TIMEOUT, "TIMEOUT") X(NODE_FAIL, "NODE_FAIL") \
	X(PREEMPTED, "PREEMPTED") X(BOOT_FAIL, "BOOT_FAIL") \
	X(DEADLINE, "DEADLINE") X(OUT_OF_MEMORY, "OUT_OF_MEMORY") \
	X(REQUEUED, "REQUEUED") X(RESIZING, "RESIZING") \
	X(REVOKED, "REVOKED") X(UNKNOWN, "UNKNOWN")

#define BCN_X_JS(id, name) BCN_JOB_##id,
enum bcn_job_state { BCN_JOB_STATES(BCN_X_JS) BCN_JOB_STATE_MAX };
#undef BCN_X_JS

struct bcn_job {
	uint64_t id;            /* job id (Slurm JobIDRaw; SWF job number) */
	uint64_t array_job;     /* array master job id, 0 when not an array */
	int64_t array_task;     /* array task index, -1 when none */
	const char *step;       /* "" for the job itself; "batch", "0", ... */
	const char *user;       /* "" when unknown */
	int64_t uid;            /* -1 when unknown */
	const char *account;
	const char *partition;
	const char *name;       /* job name / application */
	const char *nodelist;   /* Slurm hostlist expression, "" when none */
	uint64_t nnodes;
	uint64_t ntasks;        /* processes; 0 when unknown */
	uint64_t ncpus;         /* allocated CPUs; 0 when unknown */
	int64_t submit, start, end;     /* ns since the epoch; 0: unknown or
					 * not yet (end of a running job) */
	int state;              /* enum bcn_job_state */
	int64_t exit_code;      /* -1 when unknown */
	int64_t exit_signal;    /* 0 when none */
};

/* One compute-to-forwarding mapping entry: the compute nodes of a
 * hostlist expression send their I/O through one forwarding node during
 * [from, to) (ns; 0 and INT64_MAX for "always"). */
struct bcn_fwdmap_entry {
	const char *compute;    /* hostlist expression */
	const char *fwd;        /* forwarding node name */
	int64_t from, to;
};

/* Makes j an empty job: strings "", unknown numbers as documented above,
 * state UNKNOWN. */
void bcn_job_init(struct bcn_job *j);

/* Name of a state ("UNKNOWN" when out of range). */
const char *bcn_job_state_name(int state);

/* Parses a state word as sacct prints it: the first word, case as
 * printed, a trailing "+" (e.g. "CANCELLED+") ignored. Returns the state
 * or -BCN_ESYNTAX. */
int bcn_job_state_parse(const char *s, size_t len);

#endif
