/* DBSCAN (dbscan.h) over a uniform grid of cells a little wider than eps:
 * the points are sorted by cell, a hash of the cells' integer coordinates
 * finds the 3^dim cells around a point, one pass counts each point's
 * neighbours (up to min_samples) and a depth-first expansion with an
 * explicit stack labels the clusters in the order of their lowest-index
 * core point, asking the grid again instead of keeping neighbour lists.
 * Coordinates too large for the grid (relative to eps) fall back to a
 * sort on the first coordinate and a window scan. docs/dbscan.md. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/dbscan.h"

/* a cell's integer coordinates stay below these in magnitude: with cells
 * of side eps * (1 + 2^-16), or 2 * eps beyond GRID_FINE_MAX, the rounding
 * of x / side can never put two neighbours two cells apart */
#define GRID_FINE_MAX 0x1p30
#define GRID_COARSE_MAX 0x1p47
/* below this eps the squares of distances lose their relative precision
 * (subnormal): cells are at least this wide */
#define SIDE_MIN 0x1p-500
/* at most 3^BCN_DBSCAN_DIM_MAX cells around a point */
#define RANGES_MAX 81

struct range {
	uint32_t lo, hi;        /* sorted positions [lo, hi) */
};

struct index {
	size_t n, dim;
	double r2;              /* eps * eps */
	bool grid;              /* else sorted on the first coordinate */
	double side;            /* of a cell */
	double *spts;           /* the points in sorted order, n x dim */
	uint32_t *order;        /* sorted position -> input index */
	uint32_t *scell;        /* sorted position -> its cell */
	uint32_t ncell;
	uint32_t *cstart;       /* cell -> its first sorted position, ncell + 1 */
	int64_t *ckey;          /* cell -> its coordinates, ncell x dim */
	uint32_t *hash;         /* open addressing: cell + 1, 0 for empty */
	size_t hmask;
};

/* The reduced euclidean distance, summed in the order of the dimensions
 * from 0.0 like scikit-learn's euclidean_rdist (no fused multiply-add:
 * CMakeLists.txt compiles this file with -ffp-contract=off). */
static inline double rdist(const double *a, const double *b, size_t dim)
{
	double d = 0.0;

	for (size_t j = 0; j < dim; j++) {
		double t = a[j] - b[j];
		d += t * t;
	}
	return d;
}

static void index_free(struct index *ix)
{
	free(ix->spts);
	free(ix->order);
	free(ix->scell);
	free(ix->cstart);
	free(ix->ckey);
	free(ix->hash);
	memset(ix, 0, sizeof(*ix));
}

static uint64_t key_hash(const int64_t *key, size_t dim)
{
	uint64_t h = 0x9e3779b97f4a7c15u;

	for (size_t j = 0; j < dim; j++) {
		h ^= (uint64_t)key[j];
		h *= 0xbf58476d1ce4e5b9u;
		h ^= h >> 29;
	}
	h *= 0x94d049bb133111ebu;
	return h ^ (h >> 32);
}

/* The hash slot of the cell with coordinates key: the one holding it, or
 * the empty one where it would go. */
static size_t key_slot(const struct index *ix, const int64_t *key)
{
	size_t dim = ix->dim;
	size_t s = (size_t)key_hash(key, dim) & ix->hmask;

	for (;;) {
		uint32_t c = ix->hash[s];
		if (!c || !memcmp(ix->ckey + (size_t)(c - 1) * dim, key,
				  dim * sizeof(*key)))
			return s;
		s = (s + 1) & ix->hmask;
	}
}

static void cell_of(const struct index *ix, const double *p, int64_t *key)
{
	for (size_t j = 0; j < ix->dim; j++)
		key[j] = (int64_t)floor(p[j] / ix->side);
}

/* Gives every point its cell (creating the cells in order of first
 * appearance) and counts the points of each in cstart[cell + 1]. */
static void grid_assign(struct index *ix, const double *pts, uint32_t *pcell)
{
	size_t dim = ix->dim;
	int64_t key[BCN_DBSCAN_DIM_MAX];

	for (size_t i = 0; i < ix->n; i++) {
		cell_of(ix, pts + i * dim, key);
		size_t s = key_slot(ix, key);
		if (!ix->hash[s]) {
			memcpy(ix->ckey + (size_t)ix->ncell * dim, key, sizeof(key[0]) * dim);
			ix->hash[s] = ++ix->ncell;
		}
		pcell[i] = ix->hash[s] - 1;
		ix->cstart[pcell[i] + 1]++;
	}
}

/* Builds the grid index: the points sorted by cell (a counting sort). */
static int grid_build(struct index *ix, const double *pts)
{
	size_t n = ix->n, dim = ix->dim, cap = 16;
	uint32_t *pcell = NULL, *next = NULL;
	int rc = -ENOMEM;

	while (cap < 2 * n)
		cap <<= 1;
	ix->hmask = cap - 1;
	ix->hash = calloc(cap, sizeof(*ix->hash));
	ix->ckey = malloc(n * dim * sizeof(*ix->ckey));
	ix->cstart = calloc(n + 1, sizeof(*ix->cstart));
	ix->scell = malloc(n * sizeof(*ix->scell));
	pcell = malloc(n * sizeof(*pcell));
	if (!ix->hash || !ix->ckey || !ix->cstart || !ix->scell || !pcell)
		goto out;
	grid_assign(ix, pts, pcell);
	for (uint32_t c = 0; c < ix->ncell; c++)
		ix->cstart[c + 1] += ix->cstart[c];
	next = malloc((ix->ncell ? ix->ncell : 1) * sizeof(*next));
	if (!next)
		goto out;
	memcpy(next, ix->cstart, ix->ncell * sizeof(*next));
	for (size_t i = 0; i < n; i++) {
		uint32_t s = next[pcell[i]]++;
		ix->order[s] = (uint32_t)i;
		ix->scell[s] = pcell[i];
		memcpy(ix->spts + (size_t)s * dim, pts + i * dim, dim * sizeof(*pts));
	}
	rc = 0;
out:
	free(pcell);
	free(next);
	return rc;
}

struct keyed {
	double x;
	uint32_t i;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* Builds the fallback index: the points sorted on their first coordinate. */
static int scan_build(struct index *ix, const double *pts)
{
	size_t n = ix->n, dim = ix->dim;
	struct keyed *k = malloc(n * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		k[i].x = pts[i * dim];
		k[i].i = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), keyed_cmp);
	for (size_t s = 0; s < n; s++) {
		ix->order[s] = k[s].i;
		memcpy(ix->spts + s * dim, pts + (size_t)k[s].i * dim, dim * sizeof(*pts));
	}
	free(k);
	return 0;
}

/* Builds the index of the n finite points, whose largest coordinate in
 * magnitude is maxabs, for the radius eps. */
static int index_build(struct index *ix, const double *pts, size_t n, size_t dim,
		       double eps, double maxabs)
{
	double base = fmax(eps, SIDE_MIN), q = maxabs / base;
	int rc = -ENOMEM;

	memset(ix, 0, sizeof(*ix));
	ix->n = n;
	ix->dim = dim;
	ix->r2 = eps * eps;
	ix->grid = q < GRID_COARSE_MAX;
	ix->side = q < GRID_FINE_MAX ? base * (1.0 + 0x1p-16) : 2.0 * base;
	ix->spts = malloc(n * dim * sizeof(*ix->spts));
	ix->order = malloc(n * sizeof(*ix->order));
	if (!ix->spts || !ix->order)
		goto out;
	rc = ix->grid ? grid_build(ix, pts) : scan_build(ix, pts);
out:
	if (rc)
		index_free(ix);
	return rc;
}

/* The ranges of sorted positions of the cells around cell c (c's own
 * first); returns how many. */
static size_t grid_ranges(const struct index *ix, uint32_t c, struct range *r)
{
	size_t dim = ix->dim, nr = 0;
	const int64_t *ck = ix->ckey + (size_t)c * dim;
	int off[BCN_DBSCAN_DIM_MAX];
	int64_t key[BCN_DBSCAN_DIM_MAX];

	r[nr++] = (struct range){ ix->cstart[c], ix->cstart[c + 1] };
	for (size_t j = 0; j < dim; j++)
		off[j] = -1;
	for (;;) {
		bool self = true;
		for (size_t j = 0; j < dim; j++) {
			key[j] = ck[j] + off[j];
			self = self && !off[j];
		}
		uint32_t h = self ? 0 : ix->hash[key_slot(ix, key)];
		if (h)
			r[nr++] = (struct range){ ix->cstart[h - 1], ix->cstart[h] };
		size_t j = 0;
		while (j < dim && off[j] == 1)
			off[j++] = -1;
		if (j == dim)
			return nr;
		off[j]++;
	}
}

/* The window of sorted positions around s whose first coordinate is
 * close enough to s's (its square difference at most eps * eps). */
static size_t scan_range(const struct index *ix, size_t s, struct range *r)
{
	size_t dim = ix->dim, lo = s, hi = s + 1;
	double x = ix->spts[s * dim];

	while (lo > 0) {
		double t = x - ix->spts[(lo - 1) * dim];
		if (t * t > ix->r2)
			break;
		lo--;
	}
	while (hi < ix->n) {
		double t = ix->spts[hi * dim] - x;
		if (t * t > ix->r2)
			break;
		hi++;
	}
	r[0] = (struct range){ (uint32_t)lo, (uint32_t)hi };
	return 1;
}

static size_t ranges_of(const struct index *ix, size_t s, struct range *r)
{
	return ix->grid ? grid_ranges(ix, ix->scell[s], r) : scan_range(ix, s, r);
}

/* Whether sorted point s has at least min neighbours in the ranges r. */
static bool is_core(const struct index *ix, size_t s, const struct range *r,
		    size_t nr, size_t min)
{
	size_t dim = ix->dim, count = 0;
	const double *p = ix->spts + s * dim;

	for (size_t k = 0; k < nr; k++)
		for (uint32_t t = r[k].lo; t < r[k].hi; t++)
			if (rdist(p, ix->spts + (size_t)t * dim, dim) <= ix->r2 &&
			    ++count >= min)
				return true;
	return false;
}

/* Marks the core points (by sorted position): one pass, the ranges of a
 * cell computed once for all its points. */
static void find_core(const struct index *ix, size_t min, uint8_t *core)
{
	struct range r[RANGES_MAX];
	size_t nr = 0;

	for (size_t s = 0; s < ix->n; s++) {
		if (min <= 1) {
			core[s] = 1;
			continue;
		}
		if (!ix->grid || !s || ix->scell[s] != ix->scell[s - 1])
			nr = ranges_of(ix, s, r);
		core[s] = is_core(ix, s, r, nr, min);
	}
}

/* Labels k the cluster of core point seed (sorted position), depth first
 * with stack (room for n): every unlabelled neighbour of a core point of
 * the cluster joins it, and is expanded in turn when it is core. */
static void expand(const struct index *ix, const uint8_t *core, int32_t *slab,
		   uint32_t *stack, uint32_t seed, int32_t k)
{
	struct range r[RANGES_MAX];
	size_t top = 0, dim = ix->dim;

	slab[seed] = k;
	stack[top++] = seed;
	while (top) {
		uint32_t p = stack[--top];
		const double *pp = ix->spts + (size_t)p * dim;
		size_t nr = ranges_of(ix, p, r);
		for (size_t j = 0; j < nr; j++)
			for (uint32_t t = r[j].lo; t < r[j].hi; t++) {
				if (slab[t] != -1 ||
				    rdist(pp, ix->spts + (size_t)t * dim, dim) > ix->r2)
					continue;
				slab[t] = k;
				if (core[t])
					stack[top++] = t;
			}
	}
}

/* Labels the clusters, seeded in input order; slab by sorted position. */
static int label_all(const struct index *ix, const uint8_t *core, int32_t *labels,
		     size_t *nclusters)
{
	size_t n = ix->n;
	int32_t *slab = malloc(n * sizeof(*slab));
	uint32_t *stack = malloc(n * sizeof(*stack));
	uint32_t *rank = malloc(n * sizeof(*rank));
	int32_t k = 0;
	int rc = -ENOMEM;

	if (!slab || !stack || !rank)
		goto out;
	for (size_t s = 0; s < n; s++) {
		slab[s] = -1;
		rank[ix->order[s]] = (uint32_t)s;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = rank[i];
		if (core[s] && slab[s] == -1)
			expand(ix, core, slab, stack, s, k++);
	}
	for (size_t s = 0; s < n; s++)
		labels[ix->order[s]] = slab[s];
	*nclusters = (size_t)k;
	rc = 0;
out:
	free(slab);
	free(stack);
	free(rank);
	return rc;
}

/* Checks the coordinates are finite; gives the largest in magnitude. */
static int check_finite(const double *pts, size_t m, double *maxabs)
{
	double mx = 0.0;

	for (size_t i = 0; i < m; i++) {
		if (!isfinite(pts[i]))
			return -EDOM;
		mx = fmax(mx, fabs(pts[i]));
	}
	*maxabs = mx;
	return 0;
}

int bcn_dbscan(const double *pts, size_t n, size_t dim, double eps,
	       size_t min_samples, int32_t *labels, size_t *nclusters)
{
	struct index ix = { 0 };
	uint8_t *core = NULL;
	double maxabs;
	int rc;

	if (!nclusters || (n && (!pts || !labels)) || dim < 1 ||
	    dim > BCN_DBSCAN_DIM_MAX || n > BCN_DBSCAN_N_MAX ||
	    !isfinite(eps) || !(eps > 0.0))
		return -EINVAL;
	*nclusters = 0;
	if (!n)
		return 0;
	rc = check_finite(pts, n * dim, &maxabs);
	if (rc)
		return rc;
	if (isinf(eps * eps)) {
		/* every reduced distance, even one that overflows, is at most
		 * eps * eps: one cluster of everything, or all noise */
		bool all = n >= min_samples;
		for (size_t i = 0; i < n; i++)
			labels[i] = all ? 0 : -1;
		*nclusters = all;
		return 0;
	}
	rc = index_build(&ix, pts, n, dim, eps, maxabs);
	if (rc)
		goto out;
	rc = -ENOMEM;
	core = malloc(n);
	if (!core)
		goto out;
	find_core(&ix, min_samples, core);
	rc = label_all(&ix, core, labels, nclusters);
out:
	free(core);
	index_free(&ix);
	return rc;
}
