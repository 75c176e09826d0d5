/* Advice: the findings that end every per-job report (docs/advice.md),
 * each with a code, a severity, a one-line message a user can act on and
 * the numbers that triggered it. Rules are a table over the computed
 * report; thresholds come from configuration (advice_* keys). */
#ifndef BCN_ADVICE_H
#define BCN_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "common/config.h"

struct bcn_report;

#define BCN_ADVICE_MAX 32               /* findings per report */

struct bcn_advice_config {
	uint64_t n1_min_nodes;          /* N-1 on at least this many nodes */
	uint64_t n1_min_osts;           /* ... striped over fewer OSTs */
	uint64_t small_bytes;           /* a request below this is small */
	uint64_t small_min_ops;         /* at least this many data ops ... */
	uint64_t small_pct;             /* ... of which this % small */
	uint64_t meta_min_ops;          /* metadata-heavy: at least this many */
	uint64_t meta_per_gib;          /* ... and this many per GiB moved */
	uint64_t one_rank_min_nodes;    /* one process on a job this large */
	uint64_t min_bytes;             /* imbalance/backend: moved at least */
	uint64_t imbalance_pct;         /* max / mean over OSTs or fwd nodes */
	uint64_t backend_pct;           /* OST reads / client reads */
	uint64_t neighbour_pct;         /* job's share of its fwd node below */
	uint64_t neighbour_min_bytes;   /* ... carrying at least this much */
	uint64_t slow_pct;              /* slow_ost/fwd_in_job: a component's
					 * rate (latency) this % of its
					 * peers' median */
	uint64_t slow_min_bytes;        /* ... each moving at least this */
	uint64_t queue_pct;             /* server_queueing: waiting share */
	uint64_t pattern_min_ops;       /* access rules: data ops at least */
	uint64_t misaligned_pct;        /* misaligned_requests: share */
	uint64_t random_pct;            /* random_access: share */
	uint64_t small_file_bytes;      /* many_small_files: a file below */
	uint64_t small_files_min;       /* ... and at least this many */
	uint64_t meta_time_pct;         /* metadata_time: share of I/O time */
};

/* Configuration keys advice_* for a struct bcn_advice_config member m. */
#define BCN_ADVICE_CONFIG_OPTIONS(type, m) \
	{ "advice_n1_min_nodes", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.n1_min_nodes), .min = 2, .max = 1ll << 32, \
	  .def = "4", .help = "n1_few_osts: N-1 jobs on at least this many nodes..." }, \
	{ "advice_n1_min_osts", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.n1_min_osts), .min = 1, .max = 1ll << 32, .def = "4", \
	  .help = "...whose shared file lies on fewer OSTs than this." }, \
	{ "advice_small_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.small_bytes), .min = 1, .max = 1ll << 40, .def = "64k", \
	  .help = "small_requests: a read or write below this size is small." }, \
	{ "advice_small_min_ops", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.small_min_ops), .def = "10000", \
	  .help = "small_requests: only jobs with this many reads and writes." }, \
	{ "advice_small_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.small_pct), .min = 1, .max = 100, \
	  .def = "50", .help = "small_requests: percent of small requests." }, \
	{ "advice_meta_min_ops", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.meta_min_ops), .def = "100000", \
	  .help = "metadata_heavy: at least this many metadata operations..." }, \
	{ "advice_meta_per_gib", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.meta_per_gib), .def = "10000", \
	  .help = "...and this many per GiB read and written." }, \
	{ "advice_one_rank_min_nodes", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.one_rank_min_nodes), .min = 2, .max = 1ll << 32, .def = "2", \
	  .help = "one_process_io: one process did all the I/O of a job on " \
		  "at least this many nodes." }, \
	{ "advice_min_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.min_bytes), .def = "1g", \
	  .help = "one_process_io, imbalance and backend_reads: only jobs " \
		  "that moved this much." }, \
	{ "advice_imbalance_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.imbalance_pct), .min = 100, .max = 1000000, \
	  .def = "200", .help = "ost_imbalance, fwd_imbalance: the busiest " \
			      "component's bytes over the mean, percent." }, \
	{ "advice_backend_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.backend_pct), .min = 100, .max = 1000000, \
	  .def = "200", .help = "backend_reads: OST reads over the job's own, " \
			      "percent." }, \
	{ "advice_neighbour_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.neighbour_pct), .min = 1, .max = 100, \
	  .def = "25", .help = "heavy_neighbour: the job's percent of a " \
			      "forwarding node's traffic below this..." }, \
	{ "advice_neighbour_min_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.neighbour_min_bytes), .def = "1g", \
	  .help = "...while the others moved at least this much through it." }, \
	{ "advice_slow_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.slow_pct), .min = 101, .max = 100000, \
	  .def = "300", .help = "slow_ost_in_job, slow_fwd_in_job: a " \
			      "component this percent slower than the " \
			      "median of the job's others." }, \
	{ "advice_slow_min_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.slow_min_bytes), .def = "64m", \
	  .help = "...when it moved at least this much of the job's data." }, \
	{ "advice_queue_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.queue_pct), .min = 1, .max = 100, \
	  .def = "50", .help = "server_queueing: the job's requests waited " \
			     "in forwarding queues for this percent of " \
			     "their latency." }, \
	{ "advice_pattern_min_ops", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.pattern_min_ops), .def = "1000", \
	  .help = "misaligned_requests, random_access: only jobs with this " \
		  "many reads and writes." }, \
	{ "advice_misaligned_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.misaligned_pct), .min = 1, .max = 100, \
	  .def = "50", .help = "misaligned_requests: percent of requests " \
			     "not aligned to report_stripe_size." }, \
	{ "advice_random_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.random_pct), .min = 1, .max = 100, \
	  .def = "50", .help = "random_access: percent of requests that " \
			     "go backwards or jump." }, \
	{ "advice_small_file_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.small_file_bytes), .min = 1, \
	  .max = 1ll << 40, .def = "1m", \
	  .help = "many_small_files: a file moving less than this is " \
		  "small..." }, \
	{ "advice_small_files_min", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.small_files_min), .min = 1, .max = 1ll << 32, \
	  .def = "1000", \
	  .help = "...and a job with this many small files holding most " \
		  "files is told." }, \
	{ "advice_meta_time_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.meta_time_pct), .min = 1, .max = 100, \
	  .def = "30", .help = "metadata_time: metadata calls took this " \
			     "percent of the processes' I/O time." }

/* The defaults of the table above. */
void bcn_advice_config_defaults(struct bcn_advice_config *c);

struct bcn_advice_finding {
	char code[24];
	char severity[12];              /* "info", "warning", "critical" */
	char audience[8];               /* "user", "admin" or "both" */
	char message[256];
	char fix[256];                  /* what to do, concretely */
	char evidence[512];             /* a JSON object */
};

/* The catalogue of finding codes (docs/advice.md): each code's audience
 * and its default fix, for findings added without one. */
struct bcn_advice_code {
	const char *code, *audience, *fix;
};

/* The entry of code, or NULL. */
const struct bcn_advice_code *bcn_advice_code_find(const char *code);

/* Every code, in the order of docs/advice.md, ending with a NULL code. */
extern const struct bcn_advice_code bcn_advice_codes[];

/* Appends one finding to r (the analysis beyond the advice rules adds its
 * own this way); message and evidence are copied, cut to their fields.
 * Returns 0, -ENOSPC when r holds BCN_ADVICE_MAX, or -ENOMEM. */
int bcn_advice_add(struct bcn_report *r, const char *code, const char *severity,
		   const char *message, const char *evidence);

/* Appends to r->findings (at most BCN_ADVICE_MAX) what the rules find in
 * r. Returns 0 or -ENOMEM. */
int bcn_advice_run(struct bcn_report *r, const struct bcn_advice_config *c);

#endif
