/* Per-component time grids and runs of flagged buckets (grid.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/grid.h"
#include "common/error.h"

int bcn_grid_init(struct bcn_grid *g, int64_t from, int64_t to,
		  int64_t bucket_ns, size_t nfields, size_t max_entities)
{
	memset(g, 0, sizeof(*g));
	if (bucket_ns <= 0 || to <= from || max_entities == 0 || nfields == 0 ||
	    nfields > BCN_GRID_FIELDS_MAX)
		return -EINVAL;
	if ((to - from) / bucket_ns >= BCN_GRID_BUCKETS_MAX)
		return -E2BIG;
	g->from = from;
	g->bucket = bucket_ns;
	g->nb = (size_t)((to - from + bucket_ns - 1) / bucket_ns);
	g->nf = nfields;
	bcn_tally_init(&g->names, max_entities);
	return 0;
}

void bcn_grid_free(struct bcn_grid *g)
{
	for (size_t i = 0; i < g->nrows; i++)
		free(g->rows[i]);
	free(g->rows);
	bcn_tally_free(&g->names);
	memset(g, 0, sizeof(*g));
}

static int add_row(struct bcn_grid *g, size_t *idx)
{
	double *row;

	if (g->nrows == g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 64;
		double **nr = realloc(g->rows, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		g->rows = nr;
		g->cap = nc;
	}
	row = calloc(g->nb * g->nf, sizeof(*row));
	if (!row)
		return -ENOMEM;
	g->rows[g->nrows] = row;
	*idx = g->nrows++;
	return 0;
}

int bcn_grid_cell(struct bcn_grid *g, const char *entity, int64_t t,
		  double **cell)
{
	struct bcn_tally_entry *e;
	size_t b, idx;
	bool fresh;
	int rc;

	*cell = NULL;
	if (t < g->from || (uint64_t)(t - g->from) / (uint64_t)g->bucket >= g->nb)
		return 0;
	b = (size_t)((t - g->from) / g->bucket);
	fresh = !bcn_tally_find(&g->names, entity);
	if ((rc = bcn_tally_get(&g->names, entity, &e)))
		return rc;
	if (fresh) {
		if ((rc = add_row(g, &idx)))
			return rc;
		e->v[0] = idx;
	}
	*cell = &g->rows[e->v[0]][b * g->nf];
	return 0;
}

double *bcn_grid_row(const struct bcn_grid *g, size_t i)
{
	return g->rows[i];
}

const char *bcn_grid_name(const struct bcn_grid *g, size_t i)
{
	return g->names.e[i].key;
}

size_t bcn_grid_runs(const uint8_t *state, size_t nb, size_t max_idle,
		     size_t min_len, size_t min_flagged, struct bcn_run *out,
		     size_t max)
{
	struct bcn_run cur = { 0, 0, 0 };
	size_t n = 0, idle = 0;
	bool in = false;

	for (size_t b = 0; b <= nb; b++) {
		uint8_t s = b < nb ? state[b] : BCN_RUN_NORMAL;

		if (in && (s == BCN_RUN_NORMAL ||
			   (s == BCN_RUN_IDLE && ++idle > max_idle))) {
			if (cur.last - cur.first + 1 >= min_len &&
			    cur.flagged >= min_flagged && n < max)
				out[n++] = cur;
			in = false;
		}
		if (s == BCN_RUN_FLAGGED) {
			if (!in) {
				cur.first = b;
				cur.flagged = 0;
				in = true;
			}
			cur.last = b;
			cur.flagged++;
			idle = 0;
		}
	}
	return n;
}
