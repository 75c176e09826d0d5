/* beacon-sim's internal state, shared by its model (sim_model.c), its
 * writers (sim_write.c) and its set-up (sim.c). Not an interface. */
#ifndef BCN_SIM_INT_H
#define BCN_SIM_INT_H

#include <stdint.h>

#include "common/buf.h"
#include "sim/lustre_out.h"
#include "sim/ost_brw.h"
#include "sim/sim.h"

#define BCN_SIM_NS 1000000000LL
#define BCN_SIM_FILE_MAX (256u << 20)   /* largest file formatted */

/* I/O modes: every node its own file, one shared file, M files for N
 * nodes, one node doing the job's I/O, metadata storms, no I/O. */
enum bcn_sim_mode {
	BCN_SIM_NN, BCN_SIM_N1, BCN_SIM_NM, BCN_SIM_11, BCN_SIM_META,
	BCN_SIM_IDLE, BCN_SIM_MODES
};
extern const char *const bcn_sim_mode_names[];

enum bcn_sim_phase {
	BCN_SIM_P_NONE, BCN_SIM_P_READ, BCN_SIM_P_WRITE, BCN_SIM_P_META
};

enum bcn_sim_jstate { BCN_SIM_QUEUED, BCN_SIM_RUNNING, BCN_SIM_DONE };

struct bcn_sim_job {
	uint64_t id;
	char name[32];
	char user[16];
	int mode;
	uint64_t nodes, first;          /* first compute node index */
	int64_t submit, start, end;     /* ticks; end = start + runtime */
	int64_t runtime;
	uint64_t bw;                    /* bytes/s per node while in I/O */
	int64_t input_len, ckpt_every, ckpt_len;
	uint64_t md_rate;               /* meta jobs: ops/s per node */
	int state;
	uint64_t asked;                 /* bytes past its forwarding nodes,
					 * this tick */
	uint64_t md_asked;              /* metadata ops it asks, this tick */
	double md_frac;                 /* share its forwarding nodes pass */
	bool pinned;                    /* runs on first without owning it
					 * (an injected process) */
	uint64_t served;                /* bytes the OSTs served it, tick */
	int phase;                      /* enum bcn_sim_phase, this tick */
	/* ground truth of the ticks whose records are sent (sim_truth.c) */
	uint64_t tr_read, tr_write;     /* bytes its nodes moved */
	uint64_t *tr_bits;              /* forwarding nodes, OSTs, job nodes
					 * that moved bytes, job nodes slowed
					 * (slow_node) during its I/O */
};

/* Counters of one job on one target. */
struct bcn_sim_jctr {
	uint64_t job;
	int64_t last;                   /* tick of the last activity */
	struct bcn_sim_ost_ctr o;
	struct bcn_sim_mdt_ctr m;
	struct bcn_sim_ost_ctr po;      /* scale mode: o and m when last */
	struct bcn_sim_mdt_ctr pm;      /* sent */
};

struct bcn_sim_target {
	struct bcn_sim_ost_ctr o;       /* OSTs */
	struct bcn_sim_mdt_ctr m;       /* MDTs */
	struct bcn_sim_ost_ctr po;      /* scale mode: o and m when last */
	struct bcn_sim_mdt_ctr pm;      /* sent */
	struct bcn_sim_jctr *jobs;
	size_t njobs, cap;
	uint64_t demand;                /* this tick */
	struct bcn_sim_brw_ctr brw;     /* OSTs: brw_stats (ost_brw.h) */
	struct bcn_sim_brw_ctr pbrw;    /* scale mode: brw when last sent */
	double io_ms;                   /* OSTs: this tick's mean disk I/O
					 * time, ms (0 before the first) */
};

/* One forwarding node: what it was asked and served this tick, and its
 * request log lines not yet written. */
struct bcn_sim_fwd {
	uint64_t demand;
	uint64_t read, write;           /* bytes served */
	double util;                    /* demand / capacity */
	double frac;                    /* share of demand served */
	uint64_t md[BCN_MD_OP_MAX];     /* metadata requests served */
	uint64_t requests;              /* since tick 0: queue samples */
	struct bcn_buf lines;
};

/* Cumulative counters of one switch port. */
struct bcn_sim_port {
	uint64_t xmit_bytes, rcv_bytes, xmit_pkts, rcv_pkts;
};

struct bcn_sim_inject {
	uint64_t ost;                   /* OST, or forwarding node index */
	double factor;
	int64_t from, len;              /* ticks */
	uint64_t rate;                  /* md_storm: ops per second;
					 * n1_flood: bytes/s per node */
	uint64_t nodes;                 /* n1_flood: its nodes */
	uint64_t job;                   /* the job it became */
};

/* One operation a compute node forwarded (sim_lwfs.c), for the LWFS log
 * writer or scale mode's records. */
enum bcn_sim_op_kind { BCN_SIM_OP_OPEN, BCN_SIM_OP_DATA, BCN_SIM_OP_RELEASE };

struct bcn_sim_client_op {
	int kind;                       /* enum bcn_sim_op_kind */
	uint64_t node;                  /* compute node index */
	const struct bcn_sim_job *job;
	uint64_t pid, handle;
	bool write;
	int64_t t;                      /* ns */
	uint64_t size, offset;          /* DATA */
	const char *path;               /* the phase's file (OPEN opens it),
					 * not NUL-ended */
	size_t path_len;
};

struct bcn_sim;
typedef void bcn_sim_client_fn(struct bcn_sim *s,
			       const struct bcn_sim_client_op *op, void *arg);

struct bcn_sim {
	struct bcn_sim_conf c;
	uint64_t rng;
	int64_t tick;                   /* ticks done */
	bool topo_written;              /* OUT/topology.net is there */
	int64_t epoch_ns;
	double tick_s;
	uint64_t nost, nmdt;
	struct bcn_sim_target *ost, *mdt;
	struct bcn_sim_job *jobs;               /* queued and running */
	size_t njobs;
	uint8_t *busy;                  /* compute node allocated */
	uint64_t next_id;
	int64_t next_arrival;           /* tick of the next random job */
	struct bcn_sim_job explicit[BCN_SIM_JOBS_MAX];
	size_t nexplicit, explicit_next;
	struct bcn_sim_inject inj[BCN_SIM_INJECT_MAX];
	size_t ninj;
	struct bcn_sim_inject finj[BCN_SIM_INJECT_MAX];
	size_t nfinj;
	struct bcn_sim_fwd *fwd;
	uint64_t nfwd;
	int64_t lines_from;             /* ticks before this one are in the
					 * request logs already */
	struct bcn_sim_inject hinj[BCN_SIM_INJECT_MAX];
	size_t nhinj;
	struct bcn_sim_inject sinj[BCN_SIM_INJECT_MAX];
	size_t nsinj;
	struct bcn_sim_inject finj_n1[BCN_SIM_INJECT_MAX];
	size_t nflood;
	struct bcn_sim_inject tinj[BCN_SIM_INJECT_MAX]; /* cache_thrash */
	size_t nthrash;
	struct bcn_sim_inject node_inj[BCN_SIM_INJECT_MAX]; /* slow_node */
	size_t nnode_inj;
	uint8_t *noclient;              /* per compute node: 1 without
					 * client collection */
	struct bcn_sim_osc_state *osc;  /* forwarding nodes' osc devices */
	struct bcn_sim_port *ports;     /* switches x (nodes per switch + 1
					 * uplink) */
	struct bcn_buf *lwfs;           /* LWFS log lines, per node */
	bcn_sim_client_fn *client_fn;   /* scale mode: every compute node's
					 * operations go here, not to logs */
	void *client_arg;
	uint64_t *lwfs_off;             /* offset in the phase's file */
	struct bcn_buf done;            /* sacct lines of ended jobs */
	struct bcn_buf jtruth;          /* truth lines of ended jobs */
	bool truth_on;                  /* this tick's records are sent */
	struct bcn_buf scratch;
	struct bcn_sim_totals tot;
};

#define NM_RATIO 8              /* N-M: one file per this many nodes */

/* SplitMix64: the simulator's only source of randomness. */
static inline uint64_t bcn_sim_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A well-mixed hash of two numbers (placement of files on targets). */
static inline uint64_t bcn_sim_hash2(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ b;

	return bcn_sim_rand(&x);
}

/* Ground truth per job (sim_truth.c): the bytes node i of job j moved
 * this tick (its share of what the OSTs served the job; 0 for the idle
 * nodes of a 1-1 job); the accounting of a tick; an OST that served j;
 * the truth line of a job that ended (its bits freed); the lines of the
 * jobs still running into out. */
uint64_t bcn_sim_node_share(const struct bcn_sim *s,
			    const struct bcn_sim_job *j, uint64_t i);
void bcn_sim_truth_tick(struct bcn_sim *s);
void bcn_sim_truth_ost(struct bcn_sim *s, struct bcn_sim_job *j, uint64_t ost);
void bcn_sim_truth_end(struct bcn_sim *s, struct bcn_sim_job *j);
int bcn_sim_truth_jobs(struct bcn_sim *s, struct bcn_buf *out);

/* Compute nodes (sim_nodes.c): no_client, no_client_every and slow_node
 * parsed (errors in err); whether node (0-based) has client collection
 * (scale mode: every node but the no_client ones; file mode: the first
 * lwfs_nodes but those); the share of what it asks that node gets this
 * tick (slow_node; 1 otherwise); the Slurm hostlist of j's nodes without
 * client collection appended to out (nothing when none). */
int bcn_sim_nodes_new(struct bcn_sim *s, char *err, size_t errlen);
bool bcn_sim_has_client(const struct bcn_sim *s, uint64_t node);
double bcn_sim_node_factor(const struct bcn_sim *s, uint64_t node);
int bcn_sim_nodes_uncovered(const struct bcn_sim *s,
			    const struct bcn_sim_job *j, struct bcn_buf *out);

/* Model (sim_model.c): one tick of jobs and targets. */
void bcn_sim_model_tick(struct bcn_sim *s);

/* Forwarding nodes (sim_fwd.c): the node a compute node forwards
 * through; the share of each job's demand they serve (sets fwd_frac);
 * after the OSTs served, the request log lines of this tick; writing the
 * logs. */
uint64_t bcn_sim_fwd_of(const struct bcn_sim *s, uint64_t node);
/* Bytes node i of job j gets past its forwarding node this tick (a
 * slow node FACTOR of what the others get). */
uint64_t bcn_sim_node_bytes(const struct bcn_sim *s,
			    const struct bcn_sim_job *j, uint64_t i);
void bcn_sim_fwd_demand(struct bcn_sim *s);
/* The forwarding nodes' share of j's metadata requests, by op. */
void bcn_sim_fwd_md(struct bcn_sim *s, const struct bcn_sim_job *j,
		    const uint64_t ops[BCN_MD_OP_MAX]);
void bcn_sim_fwd_lines(struct bcn_sim *s);
int bcn_sim_fwd_write(struct bcn_sim *s);
int bcn_sim_fwd_resume(struct bcn_sim *s);
double bcn_sim_slow(const struct bcn_sim_inject *in, size_t n, uint64_t idx,
		    int64_t tick);

/* LWFS client logs of the first lwfs_nodes compute nodes (sim_lwfs.c). */
void bcn_sim_lwfs_lines(struct bcn_sim *s);
/* The operations of the running jobs' nodes below nodes this tick, in
 * order, to fn. */
void bcn_sim_client_ops(struct bcn_sim *s, uint64_t nodes,
			bcn_sim_client_fn *fn, void *arg);
int bcn_sim_lwfs_write(struct bcn_sim *s);
int bcn_sim_lwfs_reset(struct bcn_sim *s);

/* InfiniBand leaf switches (sim_ib.c): this tick's traffic, the sysfs
 * counter files. */
void bcn_sim_ib_tick(struct bcn_sim *s);

#define BCN_SIM_IBSIM_PORTS 254         /* ports of one ibsim switch */
int bcn_sim_ib_write(struct bcn_sim *s);

/* A leaf switch's GUID less its number (sim_ib.c's IBSIM_GUID_LEAF). */
#define BCN_SIM_SW_GUID UINT64_C(0x00beac0001000000)
#define BCN_SIM_CORE_GUID UINT64_C(0x00beac0002000000)  /* IBSIM_GUID_CORE */

/* The simulated fabric's cabling as an ibnetdiscover topology file
 * (sim_ib.c), appended to out. Returns 0 or a buf error. */
int bcn_sim_ib_topology(const struct bcn_sim *s, struct bcn_buf *out);

/* The nodes of a job whose bytes one placement on an OST holds: first,
 * first + step, ... below the job's node count (sim_model.c). */
struct bcn_sim_nodes {
	uint64_t first, step;
};

/* The forwarding nodes' Lustre clients (sim_osc.c): cache_thrash lines
 * parsed (errors in err) and the per-OST osc state; the extra reads of
 * thrashing forwarding nodes for a placement of bytes (OST demand too);
 * what the OST served of a placement (all of bytes and the extra reads)
 * split over the forwarding nodes' osc counters, returning what the job
 * got of it (added to their read or write bytes); the tick's RPCs; the
 * osc files. */
int bcn_sim_osc_new(struct bcn_sim *s, char *err, size_t errlen);
void bcn_sim_osc_free(struct bcn_sim *s);
uint64_t bcn_sim_osc_extra_demand(struct bcn_sim *s,
				  const struct bcn_sim_job *j,
				  struct bcn_sim_nodes nd, uint64_t bytes);
uint64_t bcn_sim_osc_serve(struct bcn_sim *s, const struct bcn_sim_job *j,
			   uint64_t ost, bool write, uint64_t bytes,
			   uint64_t all, struct bcn_sim_nodes nd);
void bcn_sim_osc_tick(struct bcn_sim *s);
int bcn_sim_osc_write(struct bcn_sim *s);
/* The counters of forwarding node f's osc device for OST o, or NULL
 * while it has sent no RPC. */
const struct bcn_sim_osc_ctr *bcn_sim_osc_get(const struct bcn_sim *s,
					     uint64_t f, uint64_t o);

/* Writers (sim_write.c): the targets' files, sacct, truth. */
int bcn_sim_write_targets(struct bcn_sim *s);
/* Drops the jobs idle longer than jobstats_cleanup from t's job list. */
void bcn_sim_target_cleanup(const struct bcn_sim *s,
			    struct bcn_sim_target *t);
int bcn_sim_write_sacct(struct bcn_sim *s);
int bcn_sim_write_truth(struct bcn_sim *s);
/* The sacct line of a job (ended or running) appended to out. */
int bcn_sim_sacct_line(const struct bcn_sim *s, const struct bcn_sim_job *j,
		       struct bcn_buf *out);

#endif
