/* Anomalies in the job database (docs/anomaly.md, "Storage"): what the
 * detectors of analysis/anomaly found, with the jobs each names, kept so
 * that running a detector twice over the same data changes nothing, an
 * anomaly that goes on is one row whose window grows, and operators can
 * acknowledge one. */
#ifndef BCN_JOBDB_ANOMALIES_H
#define BCN_JOBDB_ANOMALIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobdb/jobdb.h"

#define BCN_ANOMALY_KIND_MAX 24
#define BCN_ANOMALY_COMPONENT_MAX 256
#define BCN_ANOMALY_SEVERITY_MAX 16
#define BCN_ANOMALY_STATE_MAX 16
#define BCN_ANOMALY_USER_MAX 64
#define BCN_ANOMALY_EVIDENCE_MAX 8192   /* bytes of the evidence object */
#define BCN_ANOMALY_JOBS_MAX 32         /* jobs one anomaly names */

/* What a job is to an anomaly. */
enum bcn_anomaly_role {
	BCN_ANOMALY_AFFECTED = 0,       /* slowed down, or ran on the component */
	BCN_ANOMALY_ACCUSED = 1,        /* a likely aggressor */
};

struct bcn_anomaly_job {
	uint64_t job;
	int role;                       /* enum bcn_anomaly_role */
};

/* One anomaly, as a detector reports it and as it is read back. */
struct bcn_anomaly {
	uint64_t id;                    /* 0 until stored */
	char kind[BCN_ANOMALY_KIND_MAX];        /* slow_ost, slow_fwd, ... */
	char component[BCN_ANOMALY_COMPONENT_MAX];
	int64_t from, to;               /* window, ns since the epoch */
	char severity[BCN_ANOMALY_SEVERITY_MAX]; /* info, warning, critical */
	double score;                   /* how far off, for ordering: larger
					 * is worse (e.g. a slowdown factor) */
	char evidence[BCN_ANOMALY_EVIDENCE_MAX]; /* a JSON object */
	struct bcn_anomaly_job jobs[BCN_ANOMALY_JOBS_MAX];
	size_t njobs;
	char state[BCN_ANOMALY_STATE_MAX];      /* open, acknowledged, closed */
	int64_t detected, updated;      /* first stored, last changed (ns) */
	char acked_by[BCN_ANOMALY_USER_MAX];
	int64_t acked, closed;          /* ns, 0 when not */
};

/* Zeroes a and sets what every detector gives first. */
void bcn_anomaly_init(struct bcn_anomaly *a, const char *kind,
		      const char *component, const char *severity, double score);

/* Stores what a detector found. An anomaly of the same kind and
 * component whose window overlaps a's or ends at most gap_ns before a's
 * starts (the same one, going on or seen again) is merged into: its
 * window becomes the union, its severity and score the worse of the two,
 * its evidence a's when a's window reaches later, its jobs the union (at
 * most BCN_ANOMALY_JOBS_MAX), and a closed one opens again when a reaches
 * past its end. Otherwise a new row is inserted. a->id gets the row's id.
 * Returns an enum bcn_jobdb_upsert (INSERTED, UPDATED, or UNCHANGED when
 * nothing changed, as when the same data is analysed twice), or a
 * negative code. */
int bcn_jobdb_anomaly_put(struct bcn_jobdb *db, struct bcn_anomaly *a,
			  int64_t gap_ns, int64_t now);

/* Selects anomalies for bcn_jobdb_anomalies. */
struct bcn_anomaly_filter {
	int64_t since, until;           /* windows reaching into [since,
					 * until); 0: open */
	const char *kind;               /* NULL or "": any */
	const char *component;          /* NULL or "": any */
	const char *state;              /* NULL or "": any */
	uint64_t job;                   /* naming this job; 0: any */
	uint64_t id;                    /* this one only; 0: any */
	uint64_t limit, offset;         /* limit 0: 1000 */
};

typedef int bcn_anomaly_fn(void *arg, const struct bcn_anomaly *a);

/* Calls fn for each anomaly matching f, latest window end first (then
 * highest id); fn's non-zero return stops and is returned. a lives
 * during the call. Returns 0, fn's value or a negative code. */
int bcn_jobdb_anomalies(struct bcn_jobdb *db, const struct bcn_anomaly_filter *f,
			bcn_anomaly_fn *fn, void *arg);

/* One anomaly by id into *a: 1, 0 when there is none, or < 0. */
int bcn_jobdb_anomaly_get(struct bcn_jobdb *db, uint64_t id,
			  struct bcn_anomaly *a);

/* Marks an open anomaly acknowledged by user at now. Returns 1 when it
 * changed, 0 when there is no such open anomaly, or a negative code. */
int bcn_jobdb_anomaly_ack(struct bcn_jobdb *db, uint64_t id, const char *user,
			  int64_t now);

/* Closes the open or acknowledged anomalies whose window ended before
 * ended_before (their detector saw the data after it and found them
 * over). Returns how many, or a negative code. */
int bcn_jobdb_anomaly_close_ended(struct bcn_jobdb *db, int64_t ended_before,
				  int64_t now);

/* The name of a role ("affected", "accused"). */
const char *bcn_anomaly_role_name(int role);

/* Writes a as one JSON object (the contract of `beacon anomalies
 * --json`: id, kind, component, from, to as ISO 8601 UTC, severity,
 * score, evidence, jobs, accused, state, detected, updated, acked_by).
 * Returns 0 or a buf error. */
struct bcn_buf;
int bcn_anomaly_to_json(const struct bcn_anomaly *a, struct bcn_buf *out);

#endif
