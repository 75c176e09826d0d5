/* Random records for tests, filled through the field tables so that every
 * field of every record type is covered: magnitudes of every varint length
 * and the uint64 edges, sparse counters, strings from a caller's pool. */
#ifndef BCN_TEST_RECGEN_H
#define BCN_TEST_RECGEN_H

#include <stddef.h>
#include <stdint.h>

#include "proto/record.h"

struct recgen {
	uint64_t state;                 /* xorshift64, not 0 */
	const char *const *strs;        /* strings picked for string fields */
	size_t nstrs;
	int edges;                      /* also 2^63, 2^64 - 1 and such */
};

static inline uint64_t recgen_next(struct recgen *g)
{
	g->state ^= g->state << 13;
	g->state ^= g->state >> 7;
	g->state ^= g->state << 17;
	return g->state;
}

static inline uint64_t recgen_u64(struct recgen *g)
{
	static const uint64_t edge[] = {
		0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
		(1ull << 53) + 1, 9999999999999999999ull,
	};

	switch (recgen_next(g) % 4) {
	case 0: return g->edges ? edge[recgen_next(g) % (sizeof(edge) / sizeof(edge[0]))] : 0;
	case 1: return recgen_next(g) % 128;
	case 2: return recgen_next(g) >> (recgen_next(g) % 64);
	default: return recgen_next(g);
	}
}

/* Sets dur, job and every field of r's type (r->type must be set; t and
 * node are left to the caller), within what bcn_record_check accepts. */
static inline void recgen_fields(struct recgen *g, struct bcn_record *r)
{
	const struct bcn_record_desc *d = bcn_record_desc(r->type);

	r->dur = (int64_t)(recgen_u64(g) >> 1);
	r->job = recgen_u64(g);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct bcn_field *f = &d->fields[i];
		char *p = (char *)r + f->offset;
		uint64_t *v = (uint64_t *)p;
		size_t n = f->kind == BCN_F_VEC ? f->n :
			   sizeof(struct bcn_dist) / sizeof(uint64_t);

		switch (f->kind) {
		case BCN_F_U64:
		case BCN_F_I64:
			*v = recgen_u64(g);
			break;
		case BCN_F_ENUM:
			*v = recgen_next(g) % f->n;
			break;
		case BCN_F_STR:
			*(const char **)p = g->strs[recgen_next(g) % g->nstrs];
			break;
		case BCN_F_VEC:
		case BCN_F_DIST:
			for (size_t k = 0; k < n; k++)
				v[k] = recgen_next(g) % 3 ? 0 : recgen_u64(g);
			break;
		}
	}
	if (r->type == BCN_REC_IO && r->u.io.count == 0)
		r->u.io.count = 1;
}

#endif
