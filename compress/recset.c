/* Record sets that own their strings (recset.h). Strings live in chunks
 * that never move, so the records' pointers stay valid as the set grows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "compress/recset.h"

#define CHUNK_MIN (256u << 10)

struct bcn_recset_chunk {
	struct bcn_recset_chunk *next;
	size_t used, cap;
	char data[];
};

void bcn_recset_init(struct bcn_recset *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max;
}

void bcn_recset_free(struct bcn_recset *s)
{
	while (s->chunks) {
		struct bcn_recset_chunk *c = s->chunks;

		s->chunks = c->next;
		free(c);
	}
	free(s->recs);
	memset(s, 0, sizeof(*s));
}

/* A copy of str in the set's storage, or NULL. */
static const char *keep(struct bcn_recset *s, const char *str)
{
	size_t n = strlen(str ? str : "") + 1;
	struct bcn_recset_chunk *c = s->chunks;

	if (n == 1)
		return "";
	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK_MIN ? n : CHUNK_MIN;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = s->chunks;
		c->used = 0;
		c->cap = cap;
		s->chunks = c;
	}
	memcpy(c->data + c->used, str, n);
	c->used += n;
	s->bytes += n;
	return c->data + c->used - n;
}

int bcn_recset_add(struct bcn_recset *s, const struct bcn_record *r)
{
	const struct bcn_record_desc *d = bcn_record_desc(r->type);
	struct bcn_record *x;

	if (!d)
		return -BCN_ERANGE;
	if (s->n == s->max)
		return -BCN_EFULL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;

		if (cap > s->max)
			cap = s->max;
		x = realloc(s->recs, cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		s->recs = x;
		s->cap = cap;
	}
	x = &s->recs[s->n];
	*x = *r;
	x->node = keep(s, r->node);
	if (!x->node)
		return -ENOMEM;
	for (size_t i = 0; i < d->nfields; i++) {
		const char **f;

		if (d->fields[i].kind != BCN_F_STR)
			continue;
		f = (const char **)((char *)x + d->fields[i].offset);
		*f = keep(s, *f);
		if (!*f)
			return -ENOMEM;
	}
	s->n++;
	return 0;
}

int bcn_recset_add_fn(void *arg, const struct bcn_record *r)
{
	return bcn_recset_add(arg, r);
}

static int cmp_u(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_i(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Compares field f of a and b. */
static int cmp_field(const struct bcn_field *f, const struct bcn_record *a,
		     const struct bcn_record *b)
{
	const char *p = (const char *)a + f->offset;
	const char *q = (const char *)b + f->offset;
	size_t n = f->kind == BCN_F_VEC ? f->n :
		   f->kind == BCN_F_DIST ? sizeof(struct bcn_dist) / 8 : 1;
	int c = 0;

	switch (f->kind) {
	case BCN_F_STR:
		return strcmp(*(const char *const *)p, *(const char *const *)q);
	case BCN_F_I64:
		return cmp_i(*(const int64_t *)p, *(const int64_t *)q);
	default:
		for (size_t i = 0; c == 0 && i < n; i++)
			c = cmp_u(((const uint64_t *)p)[i],
				  ((const uint64_t *)q)[i]);
		return c;
	}
}

int bcn_recset_cmp(const struct bcn_record *a, const struct bcn_record *b)
{
	const struct bcn_record_desc *d;
	int c = cmp_u(a->type, b->type);

	if (!c)
		c = strcmp(a->node ? a->node : "", b->node ? b->node : "");
	if (!c)
		c = cmp_i(a->t, b->t);
	if (!c)
		c = cmp_i(a->dur, b->dur);
	if (!c)
		c = cmp_u(a->job, b->job);
	d = bcn_record_desc(a->type);
	for (size_t i = 0; c == 0 && d && i < d->nfields; i++)
		c = cmp_field(&d->fields[i], a, b);
	return c;
}

static int cmp_rec(const void *a, const void *b)
{
	return bcn_recset_cmp(a, b);
}

void bcn_recset_sort(struct bcn_recset *s)
{
	if (s->n > 1)
		qsort(s->recs, s->n, sizeof(*s->recs), cmp_rec);
}
