/* Per-component time grids for the component detectors (detect.c): for
 * each entity (forwarding node, OST, MDT, switch port) a row of
 * fixed-width time buckets over one analysis window, each bucket a few
 * sums. Rows are allocated when an entity first appears, up to a
 * maximum number of entities set by configuration. */
#ifndef BCN_ANOMALY_GRID_H
#define BCN_ANOMALY_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/tally.h"

#define BCN_GRID_FIELDS_MAX 8
#define BCN_GRID_BUCKETS_MAX (7 * 24 * 60)     /* a week of minutes */

struct bcn_grid {
	int64_t from, bucket;           /* ns */
	size_t nb;                      /* buckets */
	size_t nf;                      /* fields per bucket */
	struct bcn_tally names;         /* entity -> v[0] = row index */
	double **rows;                  /* [row][bucket * nf + field] */
	size_t nrows, cap;
};

/* An empty grid of the buckets [from, to) of width bucket_ns, each of
 * nfields sums (1 to BCN_GRID_FIELDS_MAX), for at most max_entities
 * entities. Returns 0, -EINVAL or -E2BIG (too many buckets). */
int bcn_grid_init(struct bcn_grid *g, int64_t from, int64_t to,
		  int64_t bucket_ns, size_t nfields, size_t max_entities);
void bcn_grid_free(struct bcn_grid *g);

/* The cell (the grid's nf doubles) of entity at time t, its row
 * created when new. Returns 0 with *cell NULL when t is outside the
 * grid, 0 with the cell, -BCN_EFULL (too many entities) or -ENOMEM. */
int bcn_grid_cell(struct bcn_grid *g, const char *entity, int64_t t,
		  double **cell);

/* The row of entity i (0..nrows-1) and its name. */
double *bcn_grid_row(const struct bcn_grid *g, size_t i);
const char *bcn_grid_name(const struct bcn_grid *g, size_t i);

/* Field f of bucket b of a row of g. */
static inline double bcn_grid_at(const struct bcn_grid *g, const double *row,
				 size_t b, int f)
{
	return row[b * g->nf + (size_t)f];
}

/* A stretch of buckets a rule flagged: first and last flagged bucket and
 * how many were flagged. */
struct bcn_run {
	size_t first, last, flagged;
};

/* Bucket states for bcn_grid_runs. */
enum { BCN_RUN_IDLE = 0, BCN_RUN_NORMAL = 1, BCN_RUN_FLAGGED = 2 };

/* Finds the runs of state[0..nb): a run starts at a flagged bucket and
 * goes on through flagged buckets and idle ones (at most max_idle idle
 * buckets in a row), ending at the last flagged bucket before a normal
 * bucket or a longer idle gap. Runs of at least min_len buckets (first to
 * last) with at least min_flagged flagged ones go to out (at most max).
 * Returns how many. */
size_t bcn_grid_runs(const uint8_t *state, size_t nb, size_t max_idle,
		     size_t min_len, size_t min_flagged, struct bcn_run *out,
		     size_t max);

#endif
