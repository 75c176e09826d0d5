/* Bounded counting maps of the analysis (tally.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/tally.h"
#include "common/error.h"

#define MIN_CAP 64

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	return k ^ (k >> 33);
}

uint64_t bcn_tally_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	if (!h)
		h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void bcn_u64map_init(struct bcn_u64map *m, size_t max)
{
	memset(m, 0, sizeof(*m));
	m->max = max;
}

void bcn_u64map_free(struct bcn_u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static size_t u64_find(const struct bcn_u64map *m, uint64_t key)
{
	size_t i = (size_t)mix(key) & (m->cap - 1);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int u64_grow(struct bcn_u64map *m)
{
	struct bcn_u64map o = *m;
	size_t cap = o.cap ? o.cap * 2 : MIN_CAP;

	m->keys = malloc(cap * sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	m->used = calloc(cap, 1);
	if (!m->keys || !m->vals || !m->used) {
		free(m->keys);
		free(m->vals);
		free(m->used);
		*m = o;
		return -ENOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < o.cap; i++) {
		if (!o.used[i])
			continue;
		size_t k = u64_find(m, o.keys[i]);

		m->used[k] = 1;
		m->keys[k] = o.keys[i];
		m->vals[k] = o.vals[i];
	}
	free(o.keys);
	free(o.vals);
	free(o.used);
	return 0;
}

int bcn_u64map_get(struct bcn_u64map *m, uint64_t key, uint64_t **val,
		   bool *fresh)
{
	size_t i;
	int rc;

	if (m->cap) {
		i = u64_find(m, key);
		if (m->used[i]) {
			*val = &m->vals[i];
			*fresh = false;
			return 0;
		}
	}
	if (m->n >= m->max)
		return -BCN_EFULL;
	if ((m->n + 1) * 4 > m->cap * 3 && (rc = u64_grow(m)))
		return rc;
	i = u64_find(m, key);
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = 0;
	m->n++;
	*val = &m->vals[i];
	*fresh = true;
	return 0;
}

bool bcn_u64map_find(const struct bcn_u64map *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	i = u64_find(m, key);
	if (!m->used[i])
		return false;
	*val = m->vals[i];
	return true;
}

void bcn_tally_init(struct bcn_tally *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max;
}

void bcn_tally_free(struct bcn_tally *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].key);
		free(t->e[i].str);
	}
	free(t->e);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static size_t tally_find(const struct bcn_tally *t, const char *key)
{
	size_t i = (size_t)bcn_tally_hash(0, key, strlen(key)) &
		   (t->nslot - 1);

	while (t->slot[i] && strcmp(t->e[t->slot[i] - 1].key, key))
		i = (i + 1) & (t->nslot - 1);
	return i;
}

static int tally_grow(struct bcn_tally *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : MIN_CAP, cap = ns / 2;
	struct bcn_tally_entry *e = realloc(t->e, cap * sizeof(*e));
	size_t *slot;

	if (!e)
		return -ENOMEM;
	t->e = e;
	t->cap = cap;
	slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	for (size_t k = 0; k < t->n; k++)
		t->slot[tally_find(t, t->e[k].key)] = k + 1;
	return 0;
}

struct bcn_tally_entry *bcn_tally_find(const struct bcn_tally *t,
				       const char *key)
{
	size_t i;

	if (!t->nslot)
		return NULL;
	i = tally_find(t, key);
	return t->slot[i] ? &t->e[t->slot[i] - 1] : NULL;
}

int bcn_tally_get(struct bcn_tally *t, const char *key,
		  struct bcn_tally_entry **out)
{
	struct bcn_tally_entry *e = bcn_tally_find(t, key);
	int rc;

	if (e) {
		*out = e;
		return 0;
	}
	if (t->n >= t->max)
		return -BCN_EFULL;
	if (t->n + 1 > t->cap && (rc = tally_grow(t)))
		return rc;
	e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	if (!(e->key = strdup(key)))
		return -ENOMEM;
	t->slot[tally_find(t, key)] = ++t->n;
	*out = e;
	return 0;
}

int bcn_tally_set_str(struct bcn_tally_entry *e, const char *s)
{
	char *c = strdup(s);

	if (!c)
		return -ENOMEM;
	free(e->str);
	e->str = c;
	return 0;
}
