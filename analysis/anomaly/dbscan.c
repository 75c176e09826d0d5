/* DBSCAN (dbscan.h) over a uniform grid of cells a little wider than eps:
 * a hash of the cells' integer coordinates gives each point its cell, the
 * cells are put in coordinate order and the points sorted by cell, each
 * cell gets the runs of cells around it (one sweep); one pass counts each
 * point's neighbours (up to min_samples) and a depth-first expansion with
 * an explicit stack labels the clusters in the order of their lowest-index
 * core point, asking the grid again instead of keeping neighbour lists.
 * Coordinates too large for the grid (relative to eps) fall back to a
 * sort on the first coordinate and a window scan.
 *
 * scikit-learn's KDTree.query_radius takes a point by its reduced distance
 * (rd <= eps * eps) in a leaf, but a whole node when the bound of its
 * box, pow(sum pow(., 2), 0.5), is at most eps, and prunes a node whose
 * lower bound exceeds eps: a pair whose rd is within a few ulps of
 * eps * eps is a neighbour or not by the tree. For those pairs only, the
 * same tree (same node sets, bounds and arithmetic) is built, once, and
 * the query's path to the point's leaf decides. docs/dbscan.md. */
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
/* below this eps * eps the squares of distances lose their relative
 * precision (subnormal): every pair with rd at most BAND_TINY is decided by
 * the tree, and cells are at least SIDE_MIN wide to hold them */
#define R2_TINY 0x1p-900
#define BAND_TINY 0x1p-890
#define SIDE_MIN 0x1p-440
/* rd within this relative distance of eps * eps: the tree decides */
#define BAND 0x1p-40
/* scikit-learn's leaf_size (DBSCAN's default) */
#define KD_LEAF 30
/* 3^(BCN_DBSCAN_DIM_MAX - 1): rows of cells around a cell */
#define ROWS_MAX 27

struct range {
	uint32_t lo, hi;        /* sorted positions, or cells, [lo, hi) */
};

/* scikit-learn's KDTree of the input (leaf_size 30), nodes in heap order */
struct kdtree {
	size_t nnodes;
	double *lo, *hi;        /* node -> its box, nnodes x dim */
	uint32_t *leaf;         /* input index -> its leaf */
};

struct index {
	size_t n, dim;
	const double *pts;      /* the input, for the tree */
	double eps, r2;         /* eps * eps */
	double lo2, hi2;        /* rd below lo2: neighbour, above hi2: not */
	struct kdtree kd;       /* built at the first rd in [lo2, hi2] */
	int err;                /* of building it */
	bool grid;              /* else sorted on the first coordinate */
	double side;            /* of a cell */
	double *spts;           /* the points in sorted order, n x dim */
	uint32_t *order;        /* sorted position -> input index */
	uint32_t *scell;        /* sorted position -> its cell */
	uint32_t ncell;         /* cells in the order of their coordinates */
	uint32_t *cstart;       /* cell -> its first sorted position, ncell + 1 */
	size_t nrows;           /* 3^(dim - 1) */
	struct range *rows;     /* cell -> the rows of cells around it (cells
				 * [lo, hi)), nrows */
	/* while building: the cells in order of first appearance */
	int64_t *ckey;          /* cell -> its coordinates, ncell x dim */
	uint32_t *hash;         /* open addressing: cell + 1, 0 for empty */
	size_t hmask;
};

/* The reduced euclidean distance, summed in the order of the dimensions
 * from 0.0 like scikit-learn's euclidean_rdist (no fused multiply-add:
 * CMakeLists.txt compiles this file with -ffp-contract=off). */
static inline double rdist(const double *a, const double *b, size_t dim)
{
	double d = 0.0, t;

	switch (dim) {      /* the usual dimensions unrolled, same sums */
	case 1:
		t = a[0] - b[0];
		return d + t * t;
	case 2:
		t = a[0] - b[0];
		d += t * t;
		t = a[1] - b[1];
		return d + t * t;
	default:
		for (size_t j = 0; j < dim; j++) {
			t = a[j] - b[j];
			d += t * t;
		}
		return d;
	}
}

static void index_free(struct index *ix)
{
	free(ix->kd.lo);
	free(ix->kd.hi);
	free(ix->kd.leaf);
	free(ix->spts);
	free(ix->order);
	free(ix->scell);
	free(ix->cstart);
	free(ix->rows);
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
		if (!c)
			return s;
		const int64_t *k = ix->ckey + (size_t)(c - 1) * dim;
		size_t j = 0;
		while (j < dim && k[j] == key[j])
			j++;
		if (j == dim)
			return s;
		s = (s + 1) & ix->hmask;
	}
}

static void cell_of(const struct index *ix, const double *p, int64_t *key)
{
	for (size_t j = 0; j < ix->dim; j++)
		key[j] = (int64_t)floor(p[j] / ix->side);
}

/* Gives every point its cell, creating the cells in order of first
 * appearance. */
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
	}
}

/* Sorts the points by cell, cells numbered in the order of their
 * coordinates (rank): a counting sort. */
static void grid_scatter(struct index *ix, const double *pts, uint32_t *pcell,
			 const uint32_t *rank)
{
	size_t dim = ix->dim;

	for (size_t i = 0; i < ix->n; i++) {
		pcell[i] = rank[pcell[i]];
		ix->cstart[pcell[i] + 1]++;
	}
	for (uint32_t c = 0; c < ix->ncell; c++)
		ix->cstart[c + 1] += ix->cstart[c];
	/* cstart[c] as cell c's next free position, then shifted back */
	for (size_t i = 0; i < ix->n; i++) {
		uint32_t s = ix->cstart[pcell[i]]++;
		ix->order[s] = (uint32_t)i;
		ix->scell[s] = pcell[i];
		memcpy(ix->spts + (size_t)s * dim, pts + i * dim, dim * sizeof(*pts));
	}
	memmove(ix->cstart + 1, ix->cstart, ix->ncell * sizeof(*ix->cstart));
	ix->cstart[0] = 0;
}

/* Compares cell coordinates lexicographically. */
static int key_cmp(const int64_t *a, const int64_t *b, size_t dim)
{
	for (size_t j = 0; j < dim; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

/* Orders cells (ids into ix->ckey) by their coordinates. */
static int cell_cmp(const void *a, const void *b, void *arg)
{
	const struct index *ix = arg;

	return key_cmp(ix->ckey + (size_t)*(const uint32_t *)a * ix->dim,
		       ix->ckey + (size_t)*(const uint32_t *)b * ix->dim, ix->dim);
}

/* Gives each cell its rows: for each combination of offsets -1, 0, 1 on
 * the dimensions but the last, the cells at offsets -1 to 1 on the last,
 * a range of consecutive cells since they are in coordinate order (skey: their coordinates, ncell x dim). The first cell
 * of a row only moves forward from a cell to the next: one sweep. */
static void grid_rows(struct index *ix, const int64_t *skey)
{
	size_t dim = ix->dim, last = dim - 1, nrows = ix->nrows;
	uint32_t first[ROWS_MAX] = { 0 };
	int off[BCN_DBSCAN_DIM_MAX];
	int64_t key[BCN_DBSCAN_DIM_MAX];

	for (uint32_t c = 0; c < ix->ncell; c++) {
		const int64_t *ck = skey + (size_t)c * dim;
		struct range *r = ix->rows + (size_t)c * nrows;
		for (size_t j = 0; j < last; j++)
			off[j] = -1;
		for (size_t k = 0; k < nrows; k++) {
			for (size_t j = 0; j < last; j++)
				key[j] = ck[j] + off[j];
			key[last] = ck[last] - 1;
			uint32_t e = first[k];
			while (e < ix->ncell && key_cmp(skey + (size_t)e * dim, key, dim) < 0)
				e++;
			first[k] = e;
			key[last] = ck[last] + 1;
			while (e < ix->ncell && key_cmp(skey + (size_t)e * dim, key, dim) <= 0)
				e++;
			r[k] = (struct range){ first[k], e };
			for (size_t j = 0; j < last && off[j]++ == 1; j++)
				off[j] = -1;
		}
	}
}

/* Builds the grid index: the cells found through a hash of their
 * coordinates, put in coordinate order, the points sorted by cell, and
 * each cell's rows of neighbouring cells. */
static int grid_build(struct index *ix, const double *pts)
{
	size_t n = ix->n, dim = ix->dim, cap = 16;
	uint32_t *pcell = NULL, *byrank = NULL, *rank = NULL;
	int64_t *skey = NULL;
	int rc = -ENOMEM;

	while (cap < 2 * n)
		cap <<= 1;
	ix->hmask = cap - 1;
	ix->hash = calloc(cap, sizeof(*ix->hash));
	ix->ckey = malloc(n * dim * sizeof(*ix->ckey));
	ix->scell = malloc(n * sizeof(*ix->scell));
	pcell = malloc(n * sizeof(*pcell));
	if (!ix->hash || !ix->ckey || !ix->scell || !pcell)
		goto out;
	grid_assign(ix, pts, pcell);
	free(ix->hash);
	ix->hash = NULL;
	ix->cstart = calloc((size_t)ix->ncell + 1, sizeof(*ix->cstart));
	ix->rows = malloc((size_t)ix->ncell * ix->nrows * sizeof(*ix->rows));
	byrank = malloc((size_t)ix->ncell * sizeof(*byrank));
	rank = malloc((size_t)ix->ncell * sizeof(*rank));
	skey = malloc((size_t)ix->ncell * dim * sizeof(*skey));
	if (!ix->cstart || !ix->rows || !byrank || !rank || !skey)
		goto out;
	for (uint32_t c = 0; c < ix->ncell; c++)
		byrank[c] = c;
	qsort_r(byrank, ix->ncell, sizeof(*byrank), cell_cmp, ix);
	for (uint32_t c = 0; c < ix->ncell; c++) {
		rank[byrank[c]] = c;
		memcpy(skey + (size_t)c * dim, ix->ckey + (size_t)byrank[c] * dim,
		       dim * sizeof(*skey));
	}
	grid_scatter(ix, pts, pcell, rank);
	grid_rows(ix, skey);
	rc = 0;
out:
	free(pcell);
	free(byrank);
	free(rank);
	free(skey);
	free(ix->hash);
	free(ix->ckey);
	ix->hash = NULL;
	ix->ckey = NULL;
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

/* ---- scikit-learn's KD tree, for the pairs at the edge of eps ---- */

/* the p of the Minkowski metric, 2: read at run time so that the compiler
 * keeps the calls to pow() that scikit-learn makes (not x * x, sqrt) */
static volatile double kd_p = 2.0;

/* scikit-learn's number of nodes: 2^levels - 1 with levels =
 * int(log2(max(1, (n - 1) / leaf_size)) + 1), in integers. */
static size_t kd_nnodes(size_t n)
{
	size_t levels = 1;

	while (n > 0 && ((size_t)KD_LEAF << levels) <= n - 1)
		levels++;
	return ((size_t)1 << levels) - 1;
}

/* Whether input point a comes before b on dimension j: by value, then
 * by index (scikit-learn's partition order, a total one). */
static inline bool kd_before(const double *pts, size_t dim, size_t j,
			     uint32_t a, uint32_t b)
{
	double va = pts[(size_t)a * dim + j], vb = pts[(size_t)b * dim + j];

	return va == vb ? a < b : va < vb;
}

static inline void swap32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

/* Moves the k first of the m points idx (in kd_before order on j) to the
 * front: the same set as scikit-learn's nth_element, whatever the order. */
static void kd_select(const double *pts, size_t dim, size_t j, uint32_t *idx,
		      size_t m, size_t k)
{
	size_t lo = 0, hi = m;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, store = lo;
		/* median of three to the end, as the pivot */
		if (kd_before(pts, dim, j, idx[mid], idx[lo]))
			swap32(&idx[mid], &idx[lo]);
		if (kd_before(pts, dim, j, idx[hi - 1], idx[lo]))
			swap32(&idx[hi - 1], &idx[lo]);
		if (kd_before(pts, dim, j, idx[mid], idx[hi - 1]))
			swap32(&idx[mid], &idx[hi - 1]);
		uint32_t pivot = idx[hi - 1];
		for (size_t i = lo; i < hi - 1; i++)
			if (kd_before(pts, dim, j, idx[i], pivot))
				swap32(&idx[i], &idx[store++]);
		swap32(&idx[store], &idx[hi - 1]);
		if (store == k)
			return;
		if (k < store)
			hi = store;
		else
			lo = store + 1;
	}
}

/* Builds node i over the m points idx, like scikit-learn's
 * _recursive_build: the box of the points; a leaf at the last level or
 * under 2 points; else split on the first dimension of largest spread,
 * the m / 2 first points to the left child. */
static void kd_node(struct kdtree *t, const double *pts, size_t dim, size_t i,
		    uint32_t *idx, size_t m)
{
	double *lo = t->lo + i * dim, *hi = t->hi + i * dim, spread = 0.0;
	size_t split = 0;

	for (size_t j = 0; j < dim; j++) {
		lo[j] = INFINITY;
		hi[j] = -INFINITY;
	}
	for (size_t k = 0; k < m; k++)
		for (size_t j = 0; j < dim; j++) {
			lo[j] = fmin(lo[j], pts[(size_t)idx[k] * dim + j]);
			hi[j] = fmax(hi[j], pts[(size_t)idx[k] * dim + j]);
		}
	if (2 * i + 1 >= t->nnodes || m < 2) {
		for (size_t k = 0; k < m; k++)
			t->leaf[idx[k]] = (uint32_t)i;
		return;
	}
	for (size_t j = 0; j < dim; j++)
		if (hi[j] - lo[j] > spread) {
			spread = hi[j] - lo[j];
			split = j;
		}
	kd_select(pts, dim, split, idx, m, m / 2);
	kd_node(t, pts, dim, 2 * i + 1, idx, m / 2);
	kd_node(t, pts, dim, 2 * i + 2, idx + m / 2, m - m / 2);
}

static int kd_build(struct kdtree *t, const double *pts, size_t n, size_t dim)
{
	uint32_t *idx = malloc(n * sizeof(*idx));
	int rc = -ENOMEM;

	t->nnodes = kd_nnodes(n);
	t->lo = malloc(t->nnodes * dim * sizeof(*t->lo));
	t->hi = malloc(t->nnodes * dim * sizeof(*t->hi));
	t->leaf = malloc(n * sizeof(*t->leaf));
	if (!idx || !t->lo || !t->hi || !t->leaf)
		goto out;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	kd_node(t, pts, dim, 0, idx, n);
	rc = 0;
out:
	free(idx);
	return rc;
}

/* scikit-learn's min_max_dist of KDTree, same operations in the same
 * order: the lower and upper bounds of the distance from q to node i. */
static void kd_bounds(const struct kdtree *t, size_t dim, size_t i,
		      const double *q, double *lb, double *ub)
{
	const double *lo = t->lo + i * dim, *hi = t->hi + i * dim;
	double p = kd_p, mn = 0.0, mx = 0.0;

	for (size_t j = 0; j < dim; j++) {
		double d_lo = lo[j] - q[j], d_hi = q[j] - hi[j];
		double d = (d_lo + fabs(d_lo)) + (d_hi + fabs(d_hi));
		mn += pow(0.5 * d, p);
		mx += pow(fmax(fabs(q[j] - lo[j]), fabs(q[j] - hi[j])), p);
	}
	*lb = pow(mn, 1.0 / p);
	*ub = pow(mx, 1.0 / p);
}

/* Whether KDTree.query_radius(q, eps) returns input point p, whose reduced
 * distance to q is rd: down the path from the root to p's leaf, a node
 * whose lower bound exceeds eps is pruned, one whose upper bound is at
 * most eps is taken whole; in the leaf, rd <= eps * eps decides. Builds
 * the tree the first time (ix->err on failure, and false). */
static bool kd_neighbour(struct index *ix, const double *q, uint32_t p, double rd)
{
	uint32_t path[64];
	size_t depth = 0;

	if (!ix->kd.leaf && !ix->err)
		ix->err = kd_build(&ix->kd, ix->pts, ix->n, ix->dim);
	if (ix->err)
		return false;
	for (uint32_t i = ix->kd.leaf[p];; i = (i - 1) / 2) {
		path[depth++] = i;
		if (!i)
			break;
	}
	while (depth--) {
		double lb, ub;
		kd_bounds(&ix->kd, ix->dim, path[depth], q, &lb, &ub);
		if (lb > ix->eps)
			return false;
		if (ub <= ix->eps)
			return true;
	}
	return rd <= ix->r2;
}

/* Whether sorted point t is in the neighbourhood of sorted point s, as
 * scikit-learn finds it querying s. */
static inline bool neighbour(struct index *ix, size_t s, size_t t)
{
	const double *q = ix->spts + s * ix->dim;
	double rd = rdist(q, ix->spts + t * ix->dim, ix->dim);

	if (rd < ix->lo2)
		return true;
	if (rd > ix->hi2)
		return false;
	return kd_neighbour(ix, q, ix->order[t], rd);
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
	ix->pts = pts;
	ix->eps = eps;
	ix->r2 = eps * eps;
	ix->lo2 = ix->r2 >= R2_TINY ? ix->r2 * (1.0 - BAND) : -1.0;
	ix->hi2 = ix->r2 >= R2_TINY ? ix->r2 * (1.0 + BAND) : BAND_TINY;
	ix->grid = q < GRID_COARSE_MAX;
	ix->side = q < GRID_FINE_MAX ? base * (1.0 + 0x1p-16) : 2.0 * base;
	ix->nrows = 1;
	for (size_t j = 1; j < dim; j++)
		ix->nrows *= 3;
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

/* The window of sorted positions around s whose first coordinate is
 * close enough to s's (its square difference at most hi2). */
static void scan_range(const struct index *ix, size_t s, struct range *r)
{
	size_t dim = ix->dim, lo = s, hi = s + 1;
	double x = ix->spts[s * dim];

	while (lo > 0) {
		double t = x - ix->spts[(lo - 1) * dim];
		if (t * t > ix->hi2)
			break;
		lo--;
	}
	while (hi < ix->n) {
		double t = ix->spts[hi * dim] - x;
		if (t * t > ix->hi2)
			break;
		hi++;
	}
	*r = (struct range){ (uint32_t)lo, (uint32_t)hi };
}

/* The *nr ranges of sorted positions where the neighbours of sorted point
 * s are (in buf): the rows of its cell, or its window. */
static size_t point_ranges(const struct index *ix, size_t s, struct range *buf)
{
	if (!ix->grid) {
		scan_range(ix, s, buf);
		return 1;
	}
	const struct range *rows = ix->rows + (size_t)ix->scell[s] * ix->nrows;
	for (size_t k = 0; k < ix->nrows; k++)
		buf[k] = (struct range){ ix->cstart[rows[k].lo], ix->cstart[rows[k].hi] };
	return ix->nrows;
}

/* Whether sorted point s has at least min neighbours: not when its ranges
 * hold fewer points, else counted up to min. */
static bool is_core(struct index *ix, size_t s, size_t min)
{
	struct range r[ROWS_MAX];
	size_t nr = point_ranges(ix, s, r), count = 0;

	for (size_t k = 0; k < nr; k++)
		count += r[k].hi - r[k].lo;
	if (count < min)
		return false;
	count = 0;
	for (size_t k = 0; k < nr; k++)
		for (uint32_t t = r[k].lo; t < r[k].hi; t++)
			if (neighbour(ix, s, t) && ++count >= min)
				return true;
	return false;
}

/* Marks the core points (by sorted position), in one pass. */
static void find_core(struct index *ix, size_t min, uint8_t *core)
{
	for (size_t s = 0; s < ix->n; s++)
		core[s] = min <= 1 || is_core(ix, s, min);
}

/* The labelling of the clusters, by sorted position. */
struct labelling {
	const uint8_t *core;
	int32_t *slab;          /* the labels, -1 until given */
	uint32_t *stack;        /* core points to expand, room for n */
	size_t top;
	uint32_t *cfree;        /* grid: cell -> its points still unlabelled */
	int32_t k;              /* the cluster being expanded */
};

/* Gives the cluster the unlabelled neighbours of core point p among sorted
 * positions [lo, hi), and stacks the core ones. */
static void visit(struct index *ix, struct labelling *l, uint32_t p,
		  uint32_t lo, uint32_t hi)
{
	for (uint32_t t = lo; t < hi; t++) {
		if (l->slab[t] != -1 || !neighbour(ix, p, t))
			continue;
		l->slab[t] = l->k;
		if (l->cfree)
			l->cfree[ix->scell[t]]--;
		if (l->core[t])
			l->stack[l->top++] = t;
	}
}

/* Labels l->k the cluster of core point seed (sorted position), depth
 * first: every unlabelled neighbour of a core point of the cluster joins
 * it, and is expanded in turn when it is core. Cells with no unlabelled
 * point left are skipped (all points identical stay linear). */
static void expand(struct index *ix, struct labelling *l, uint32_t seed)
{
	l->slab[seed] = l->k;
	if (l->cfree)
		l->cfree[ix->scell[seed]]--;
	l->stack[l->top++] = seed;
	while (l->top) {
		uint32_t p = l->stack[--l->top];
		struct range w;
		if (!ix->grid) {
			scan_range(ix, p, &w);
			visit(ix, l, p, w.lo, w.hi);
			continue;
		}
		const struct range *rows = ix->rows + (size_t)ix->scell[p] * ix->nrows;
		for (size_t k = 0; k < ix->nrows; k++)
			for (uint32_t c = rows[k].lo; c < rows[k].hi; c++)
				if (l->cfree[c])
					visit(ix, l, p, ix->cstart[c], ix->cstart[c + 1]);
	}
}

/* Labels the clusters, seeded in input order. */
static int label_all(struct index *ix, const uint8_t *core, int32_t *labels,
		     size_t *nclusters)
{
	size_t n = ix->n;
	struct labelling l = { .core = core };
	uint32_t *rank = malloc(n * sizeof(*rank));
	int rc = -ENOMEM;

	l.slab = malloc(n * sizeof(*l.slab));
	l.stack = malloc(n * sizeof(*l.stack));
	if (ix->grid)
		l.cfree = malloc((size_t)ix->ncell * sizeof(*l.cfree));
	if (!l.slab || !l.stack || !rank || (ix->grid && !l.cfree))
		goto out;
	for (uint32_t c = 0; ix->grid && c < ix->ncell; c++)
		l.cfree[c] = ix->cstart[c + 1] - ix->cstart[c];
	for (size_t s = 0; s < n; s++) {
		l.slab[s] = -1;
		rank[ix->order[s]] = (uint32_t)s;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = rank[i];
		if (core[s] && l.slab[s] == -1) {
			expand(ix, &l, s);
			l.k++;
		}
	}
	for (size_t s = 0; s < n; s++)
		labels[ix->order[s]] = l.slab[s];
	*nclusters = (size_t)l.k;
	rc = 0;
out:
	free(l.slab);
	free(l.stack);
	free(l.cfree);
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

/* eps * eps infinite: every reduced distance, even one that overflows, is
 * at most eps * eps. One cluster of everything, or all noise. */
static void all_neighbours(size_t n, size_t min_samples, int32_t *labels,
			   size_t *nclusters)
{
	bool all = n >= min_samples;

	for (size_t i = 0; i < n; i++)
		labels[i] = all ? 0 : -1;
	*nclusters = all;
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
		all_neighbours(n, min_samples, labels, nclusters);
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
	rc = ix.err ? ix.err : label_all(&ix, core, labels, nclusters);
	if (!rc)
		rc = ix.err;
out:
	free(core);
	index_free(&ix);
	return rc;
}
