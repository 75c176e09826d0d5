/* What the component detectors' files share (detect.c fills the grids
 * and runs a round; detect_slow.c, detect_load.c, detect_interf.c and
 * detect_hot.c hold the rules): the grids' fields, one round's state and
 * the helpers every rule uses. Internal to analysis/anomaly. */
#ifndef BCN_ANOMALY_DETECT_INT_H
#define BCN_ANOMALY_DETECT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/anomaly/detect.h"
#include "analysis/anomaly/grid.h"
#include "analysis/network.h"

#define NS_MS 1000000ll
#define RUNS_MAX 64

/* Grid fields by layer. */
enum { F_RD, F_WR, F_RWREQ, F_PROC, F_META, F_QUEUE, F_BACK_RD, F_BACK_WR };
enum { O_BYTES, O_IOS, O_IOTIME, O_IOS_BW };
enum { M_OPS };
enum { S_XMIT, S_RCV };
enum { J_OST_BYTES, J_MD_OPS };

/* Everything one round holds. */
struct round {
	const struct bcn_detect_config *c;
	const struct bcn_stores *ss;
	struct bcn_jobdb *db;
	struct bcn_grid fwd, ost, mds, sw, jobs;
	struct bcn_net topo;            /* switch ports' cabling, from
					 * topology records */
	struct bcn_detect_stats *st;
	bcn_anomaly_fn *found;
	void *found_arg;
	int64_t now;
	double secs;                    /* bucket length, s */
	uint8_t *state;                 /* one row of bucket states */
	uint8_t *slow_fwd;              /* fwd row * nb + bucket: in a slow_fwd
					 * run this round (NULL: none) */
	char *err;
	size_t errlen;
	int fail;                       /* first grid error */
};


/* Buckets that make ms, rounded up. */
size_t bcn_detect_buckets(const struct round *r, int64_t ms);

/* "critical" at twice the limit or more, else "warning". */
const char *bcn_detect_severity(double ratio, double limit);

/* Counts a node of job id in jobs[0..*n) (added when new and there is
 * room). Returns its index, or max when the list was full. */
size_t bcn_detect_add_job(uint64_t id, uint64_t *jobs, uint32_t *nodes_of,
			  size_t *n, size_t max);

/* Sum of field f (J_*) of job's row over buckets [b0, b1]. */
double bcn_detect_job_sum(const struct round *r, uint64_t job, int f,
			  size_t b0, size_t b1);

/* Fills a's window from run (buckets of g), hands it to the round's
 * callback and stores it (merged) in the job database. Returns 0 or a
 * negative code with the round's error set. */
int bcn_detect_emit(struct round *r, struct bcn_anomaly *a,
		    const struct bcn_grid *g, const struct bcn_run *run);

/* Names the jobs behind forwarding node fwd during run: those that
 * moved 30% or more of field f as accused when accuse, the others as
 * affected. */
void bcn_detect_name_jobs(struct round *r, struct bcn_anomaly *a,
			  const char *fwd, const struct bcn_run *run, int f,
			  bool accuse);

/* The rules, in the order a round runs them; each returns 0 or a
 * negative code. */
int bcn_detect_rule_slow(struct round *r, struct bcn_grid *g, bool fwd);
int bcn_detect_rules_service(struct round *r);
int bcn_detect_rules_load(struct round *r);
int bcn_detect_rule_interference(struct round *r);
int bcn_detect_rule_hot(struct round *r);

#endif
