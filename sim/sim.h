/* beacon-sim: a simulated Lustre cluster that writes, each tick, the files
 * the real collectors read (docs/sim.md). This first part simulates the
 * storage side: a stream of Slurm jobs (explicit ones from the
 * configuration and a seeded random stream) doing I/O in the modes N-N,
 * N-1, N-M and 1-1, metadata-heavy jobs and idle ones; files striped over
 * OSTs; OSTs and MDTs with a capacity per tick, shared among the jobs
 * that ask for more; their disk I/O time under load (ost_brw.h); injected
 * slow OSTs with their ground truth. Out come the OSS and MDS
 * /proc/fs/lustre trees (stats, job_stats, md_stats; brw_stats in
 * debugfs) for beacon-ostd and beacon-mdsd, and the Slurm accounting in
 * sacct --parsable2 form.
 *
 * The state after tick k is a pure function of the configuration, the
 * seed and k, so a test can write tick 1, sample, write tick 2, sample,
 * and compare what the collectors saw with what the simulator says. */
#ifndef BCN_SIM_H
#define BCN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/config.h"

#define BCN_SIM_PATH_MAX 4096
#define BCN_SIM_FSNAME_MAX 15
#define BCN_SIM_SPEC_MAX 160            /* one job or injection line */
#define BCN_SIM_JOBS_MAX 64             /* explicit jobs in a file */
#define BCN_SIM_INJECT_MAX 64           /* injections in a file */
#define BCN_SIM_NODES_MAX 65536         /* compute nodes */
#define BCN_SIM_OSTS_MAX 4096
#define BCN_SIM_MDTS_MAX 64
#define BCN_SIM_FWDS_MAX 4096
#define BCN_SIM_LIVE_JOBS_MAX 4096      /* jobs running or queued at once */
#define BCN_SIM_SERVERS_MAX 64          /* scale mode: log servers */
#define BCN_SIM_ENDPOINT_MAX 264        /* "[" IPv6 "]:" port */

struct bcn_sim_conf {
	char out[BCN_SIM_PATH_MAX];     /* output directory */
	char truth[BCN_SIM_PATH_MAX];   /* ground truth file, "" none */
	char fsname[BCN_SIM_FSNAME_MAX + 1];
	uint64_t seed;
	uint64_t compute, forwarding, oss, osts_per_oss, mds;
	uint64_t lwfs_nodes;            /* compute nodes writing LWFS logs */
	uint64_t switches;              /* InfiniBand leaf switches */
	bool ibsim;                     /* also OUT/ibsim/{net,counters} */
	int64_t tick_ms;
	int64_t epoch_s;                /* simulated time of tick 0; 0: now */
	uint64_t until;                 /* write tick N and exit; 0: live */
	uint64_t ticks;                 /* live: stop after N ticks; 0: run */
	uint64_t ost_bw;                /* bytes per second one OST serves */
	uint64_t mdt_ops;               /* operations per second, one MDT */
	uint64_t fwd_bw;                /* bytes per second, one forwarding
					 * node */
	uint64_t fwd_md_cost_us;        /* a server thread's time per
					 * metadata request */
	uint64_t rpc_bytes;             /* bytes per bulk RPC */
	uint64_t ost_io_ms;             /* disk time of one bulk I/O on an
					 * idle OST */
	uint64_t stripe_count;          /* OSTs of a shared (N-1) file */
	uint64_t jobs_per_hour;         /* random stream; 0: none */
	uint64_t job_nodes_max;
	int64_t jobstats_cleanup_s;     /* idle jobs leave job_stats */
	char jobs[BCN_SIM_JOBS_MAX][BCN_SIM_SPEC_MAX];
	size_t njobs;
	char slow_ost[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nslow;
	char slow_fwd[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nslowfwd;
	char hot_switch[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nhot;
	char md_storm[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nstorm;
	char n1_flood[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nflood;
	char cache_thrash[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nthrash;
	char slow_node[BCN_SIM_INJECT_MAX][BCN_SIM_SPEC_MAX];
	size_t nslownode;
	/* compute nodes without client collection (sim_nodes.c) */
	char no_client[BCN_CFG_LINE_MAX];       /* Slurm hostlist, "" none */
	uint64_t no_client_every;               /* every Nth; 0 none */
	/* scale mode */
	bool scale;
	char shardmap[BCN_SIM_PATH_MAX];
	char servers[BCN_SIM_SERVERS_MAX][BCN_SIM_ENDPOINT_MAX];
	size_t nservers;
	char key_file[BCN_SIM_PATH_MAX];
	char part[32];                  /* K/N */
	uint64_t switch_every;          /* ticks */
	uint64_t warmup;                /* ticks before sending starts */
	uint64_t send_window, send_buffer;
	int64_t health_every_ms;        /* collectors' health records; 0
					 * none */
	int64_t progress_every_ms;      /* stdout progress lines */
};

/* The configuration table (docs/sim.md); --help is generated from it. */
extern const struct bcn_config_opt bcn_sim_options[];

struct bcn_sim;

/* Builds a simulator from conf (explicit jobs and injections parsed;
 * errors name the bad line in err). Returns 0, -BCN_ESYNTAX, -BCN_ERANGE
 * or -ENOMEM. */
int bcn_sim_new(const struct bcn_sim_conf *conf, struct bcn_sim **out,
		char *err, size_t errlen);
void bcn_sim_free(struct bcn_sim *s);

/* Prepares the output directory before the first tick: with --until,
 * finds which ticks' request log lines an earlier run already wrote;
 * otherwise starts the logs anew. Returns 0 or a negative errno. */
int bcn_sim_prepare(struct bcn_sim *s);

/* Advances the simulation by one tick. */
void bcn_sim_tick(struct bcn_sim *s);

/* Writes the current state: every OSS and MDS tree, the sacct file and
 * the truth file. Returns 0 or a negative errno (the path logged). */
int bcn_sim_write(struct bcn_sim *s);

/* Writes the sacct file and the truth file only (scale mode, which sends
 * everything else). Returns 0 or a negative errno. */
int bcn_sim_write_jobs(struct bcn_sim *s);

/* Whether the ticks from now on count in the jobs' ground truth (the
 * scale mode's warm-up ticks send no records, so they do not). */
void bcn_sim_truth_on(struct bcn_sim *s, bool on);

/* With epoch 0 (now), moves the simulated clock so that the next tick
 * starts at the present (scale mode, after its connections are up). */
void bcn_sim_rebase(struct bcn_sim *s);

/* Ticks done so far. */
uint64_t bcn_sim_ticks(const struct bcn_sim *s);

/* Totals since tick 0, for checks: bytes served for reads and writes by
 * every OST, metadata operations served by every MDT. */
struct bcn_sim_totals {
	uint64_t read_bytes, write_bytes, md_ops;
	uint64_t jobs_started, jobs_ended;
};
void bcn_sim_totals(const struct bcn_sim *s, struct bcn_sim_totals *t);

/* Runs the program: parses argv (--config, --seed, --truth and the table's
 * keys), then either writes tick --until and exits, or runs live, one
 * tick per tick_ms of wall time, until SIGTERM or --ticks. Returns the
 * exit status. */
int bcn_sim_main(int argc, char **argv);

#endif
