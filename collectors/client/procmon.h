/* beacon-clientd's /proc sampler, for nodes where the LD_PRELOAD tracer is
 * not wanted (docs/clientd-sources.md): each sample lists the processes
 * below <root>/proc, finds each one's Slurm job once (cgroup, then
 * environment; procjob.h), and turns the growth of its /proc/<pid>/io
 * counters since the previous sample into io records whose operation and
 * byte totals are exact. */
#ifndef BCN_PROCMON_H
#define BCN_PROCMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/client/procjob.h"
#include "common/buf.h"
#include "common/config.h"
#include "common/log.h"

#define BCN_PROCMON_MAX_LIMIT (1u << 20)        /* largest proc_max */
#define BCN_PROCMON_FILE_MAX (1u << 20)         /* largest file read */
#define BCN_PROCMON_JOB_TRIES 3         /* samples that look for the job
					 * of a process not in one */
#define BCN_PROCMON_BTIME_EVERY 64      /* samples between btime reads */
/* btime is whole seconds, cut down: a process is taken as started inside
 * the window when its start is at most this much before the window. */
#define BCN_PROCMON_START_SLACK_NS 1010000000LL

enum bcn_procmon_scope {
	BCN_PROCMON_SCOPE_JOBS,         /* processes of Slurm jobs only */
	BCN_PROCMON_SCOPE_ALL,          /* every process; job 0 if none */
};

/* "jobs", "all", NULL. */
extern const char *const bcn_procmon_scopes[];

struct bcn_procmon_conf {
	bool enabled;           /* proc_sample */
	int scope;              /* enum bcn_procmon_scope */
	uint64_t max;           /* processes tracked at most */
};

/* Configuration table entries for a struct bcn_procmon_conf member m of a
 * daemon's configuration struct type (like BCN_COLLECTOR_CONFIG_OPTIONS):
 * keys proc_sample, proc_scope, proc_max. */
#define BCN_PROCMON_CONFIG_OPTIONS(type, m) \
	{ "proc_sample", BCN_CFG_BOOL, BCN_CFG_MEMBER(type, m.enabled), \
	  .def = "no", \
	  .help = "Sample the I/O counters of processes in /proc/PID/io " \
		  "below --root (for nodes without the tracer)." }, \
	{ "proc_scope", BCN_CFG_ENUM, BCN_CFG_MEMBER(type, m.scope), \
	  .words = bcn_procmon_scopes, .def = "jobs", \
	  .help = "Which processes the /proc sampler reports: 'jobs' " \
		  "(those of Slurm jobs) or 'all' (job 0 when in none)." }, \
	{ "proc_max", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.max), \
	  .min = 16, .max = BCN_PROCMON_MAX_LIMIT, .def = "4096", \
	  .help = "Most processes the /proc sampler tracks; more are " \
		  "counted as dropped." }

struct bcn_procmon_proc;
struct bcn_collector;

struct bcn_procmon {
	struct bcn_procmon_conf conf;
	struct bcn_procmon_proc *cur, *next;    /* tables, sorted by pid */
	size_t ncur;
	uint32_t *pids;                 /* one listing */
	struct bcn_buf buf;             /* file contents */
	int64_t btime;                  /* boot time, s; -1 unknown */
	uint64_t btime_age;             /* samples since btime was read */
	long clk_tck;
	/* statistics since bcn_procmon_init */
	uint64_t samples;
	uint64_t procs, tracked;        /* listed, and in scope, last sample */
	uint64_t dropped;               /* listings beyond max */
	uint64_t started;               /* processes counted from zero */
	uint64_t reused;                /* pids seen with a new start time */
	uint64_t vanished;              /* exited while being read */
	uint64_t unreadable;            /* stat or io files that failed */
	uint64_t resets;                /* counters that went down */
	uint64_t records, emit_errors;
	struct bcn_complain list_c;
};

/* Prepares m (copying conf; m is off unless conf->enabled).
 * Returns 0, -EINVAL (max out of range) or -ENOMEM. */
int bcn_procmon_init(struct bcn_procmon *m,
		     const struct bcn_procmon_conf *conf);
void bcn_procmon_free(struct bcn_procmon *m);

/* Takes one sample closing the window [t, t + dur) and adds its records to
 * c: for each process in scope whose counters grew since the previous
 * sample (or, for one first seen, that started inside the window, since
 * zero), reads and writes as split by bcn_procmon_split, with t, dur, job,
 * step, rank and pid; fd -1, file 0, offset 0, stride 0, busy 0. A
 * process seen for the first time otherwise only gives its baseline;
 * processes that exited are forgotten. Unreadable files are reported
 * through c and skipped. Returns 0 (also when off), or the error of
 * listing <root>/proc (reported). */
int bcn_procmon_sample(struct bcn_procmon *m, struct bcn_collector *c,
		       int64_t t, int64_t dur);

/* One io record's share of a counter delta. */
struct bcn_procmon_part {
	uint64_t count;         /* operations, >= 1 */
	uint64_t size;          /* bytes per operation */
};

/* Splits ops operations that moved bytes bytes into at most two records
 * whose sums of count and of count * size are exactly ops and bytes:
 * one of ops x bytes/ops when ops divides bytes; else ops - 1 of
 * floor(bytes/ops) and one of the rest; bytes without operations give
 * one record of count 1 (the only case where the counts add up to more
 * than ops). Returns the number of parts written (0 when both are 0).
 * Pure. */
unsigned bcn_procmon_split(uint64_t ops, uint64_t bytes,
			   struct bcn_procmon_part parts[2]);

/* Finds the job of process pid below c's root: job and step from
 * proc/<pid>/cgroup, else from proc/<pid>/environ (read only up to b's
 * maximum); the rank from the environment (bcn_procjob_merge). b is
 * scratch space. A cgroup file that cannot be read is reported through c
 * unless the process is gone; the environment is optional and its
 * failures are silent. Returns 0 (out filled, out->has_job false when the
 * process is in no job) or -ENOENT / -ESRCH when the process is gone. */
int bcn_procmon_job(struct bcn_collector *c, uint64_t pid, struct bcn_buf *b,
		    struct bcn_procjob *out);

#endif
