/* The sampler beacon-ostd and beacon-mdsd share: once per interval it
 * lists the server's targets below the root, reads each target's stats
 * (and brw_stats on an OST), its per-export stats and its job_stats,
 * turns the totals into per-interval deltas (collectors/runtime/counter.h) and emits
 * BCN_REC_OST or BCN_REC_MDS records:
 *  - one per target (client "" and jobid ""), every interval;
 *  - one per export (client = the export's NID) with activity;
 *  - one per job (jobid = Lustre's job id; job = its number when it is a
 *    plain Slurm job id, else 0) with activity.
 * The per-export and per-job files of a large server are megabytes, so
 * they may be read less often than every sample: at least jobs_every_ns
 * and exports_every_ns apart, and, with a CPU budget, far enough apart
 * that their reads take at most budget_us of CPU time per second on
 * average (the period follows the measured cost of the last reads).
 * Their records then cover the time since the previous read.
 * Targets, exports and jobs that appear after the first sample count from
 * zero (their first interval is not lost); ones that go away are
 * forgotten; counters that go down (a restarted server, a remounted
 * target, a job purged and seen again) restart their deltas from the new
 * value. A file that cannot be read is reported and skipped, a malformed
 * line is counted; neither stops the sample. */
#ifndef BCN_LUSTRE_SERVER_H
#define BCN_LUSTRE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/lustresrv/lustre_tree.h"
#include "proto/record.h"

#define BCN_LUSTRE_CHUNK 65536          /* job_stats read size */
#define BCN_LUSTRE_SMALL_MAX 65536      /* largest stats/brw_stats file */

struct bcn_lustre_server_conf {
	enum bcn_lustre_role role;
	const char *root;               /* copied by bcn_lustre_server_new */
	bool exports;                   /* per-export records */
	bool jobs;                      /* per-job records */
	bool brw;                       /* OST: brw_stats histograms */
	bool idle;                      /* also export/job records with no
					 * activity in the interval */
	int64_t jobs_every_ns;          /* job_stats reads at least this far
					 * apart (0: every sample) */
	int64_t exports_every_ns;       /* export stats reads, likewise */
	uint64_t budget_us;             /* CPU us per second for those reads
					 * on average (0: no limit) */
	size_t max_entities;            /* jobs, and exports, tracked at most */
	unsigned forget_after;          /* reads an export or job may miss */
};

/* What a sample needs from the program around it (the collector loop, a
 * test or a benchmark). */
struct bcn_lustre_server_host {
	/* takes one record; a negative return is counted, not fatal */
	int (*emit)(void *arg, const struct bcn_record *r);
	/* a file could not be read (rc) */
	void (*file_error)(void *arg, const char *path, int rc);
	/* lines skipped as malformed in this sample (called once) */
	void (*skipped)(void *arg, uint64_t lines);
	void *arg;
};

struct bcn_lustre_server_stats {
	uint64_t samples;
	uint64_t targets;               /* known now */
	uint64_t records;               /* emitted */
	uint64_t emit_errors;           /* emit returned an error */
	uint64_t files;                 /* files read */
	uint64_t file_errors;
	uint64_t exports;               /* export stats read */
	uint64_t jobs;                  /* job blocks read */
	uint64_t empty_jobids;          /* job blocks with no job id */
	uint64_t bad_jobids;            /* job ids that could not be used */
	uint64_t malformed;             /* lines skipped */
	uint64_t table_full;            /* entities not tracked: table full */
	uint64_t job_reads;             /* rounds that read job_stats */
	uint64_t export_reads;          /* rounds that read exports */
	int64_t detail_cost_ns;         /* CPU time of the last rounds of
					 * both (the period's basis) */
	int64_t detail_period_ns;       /* period the budget asks for now */
};

/* The period that keeps reads costing cost_ns of CPU time within
 * budget_us of CPU per second: cost_ns * 10^6 / budget_us, 0 without a
 * budget. Pure. */
int64_t bcn_lustre_server_period(int64_t cost_ns, uint64_t budget_us);

struct bcn_lustre_server;
struct bcn_collector;

/* Fills h to emit through the collector loop c (bcn_collector_add,
 * bcn_collector_file_error, bcn_collector_skipped). */
void bcn_lustre_server_host_init(struct bcn_lustre_server_host *h,
				 struct bcn_collector *c);

/* Creates a sampler. Returns 0, -EINVAL (bad configuration) or -ENOMEM. */
int bcn_lustre_server_new(const struct bcn_lustre_server_conf *conf,
			  struct bcn_lustre_server **out);

/* Frees the sampler; NULL is a no-op. */
void bcn_lustre_server_free(struct bcn_lustre_server *s);

/* Takes one sample closing the interval [t_ns, t_ns + dur_ns) and emits
 * its records through host. Problems with files are reported through
 * host and do not stop the sample. Returns 0, or -ENOMEM. */
int bcn_lustre_server_sample(struct bcn_lustre_server *s, int64_t t_ns,
			     int64_t dur_ns,
			     const struct bcn_lustre_server_host *host);

/* Copies the sampler's counters into *st. */
void bcn_lustre_server_stats(const struct bcn_lustre_server *s,
			     struct bcn_lustre_server_stats *st);

#endif
