/* libFuzzer target for delivery/shardmap. Parses the input as a shard map;
 * when that works, checks that every node of every shard's host list looks
 * up to that shard, that the list API agrees with itself and that lookups
 * of arbitrary input slices are safe. Broken invariants abort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "delivery/shardmap.h"

/* A small cap keeps every run fast. */
#define FUZZ_MAX_HOSTS 16384

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless every node of shard s maps back to s. */
static void check_shard(const struct bcn_shardmap *m,
			const struct bcn_shard *s, size_t i)
{
	struct bcn_hostlist hl;
	char ep[300];
	size_t k;

	if (s->index != i || s->is_default || s->nhosts == 0)
		abort();
	if (bcn_hostlist_expand(s->hostlist, strlen(s->hostlist),
				FUZZ_MAX_HOSTS, &hl, NULL, 0))
		abort();
	for (k = 0; k < hl.n; k++)
		if (bcn_shardmap_lookup(m, hl.hosts[k]) != s)
			abort();
	if (bcn_shardmap_endpoint_str(&s->primary, ep, sizeof(ep)))
		abort();
	if (s->has_fallback &&
	    bcn_shardmap_endpoint_str(&s->fallback, ep, sizeof(ep)))
		abort();
	bcn_hostlist_free(&hl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct bcn_shardmap *m = NULL;
	const struct bcn_shard *d;
	size_t i, total = 0;
	char err[512];

	if (bcn_shardmap_parse_max(text, size, FUZZ_MAX_HOSTS, &m, err,
				   sizeof(err))) {
		if (m || err[0] == '\0')
			abort();
		return 0;
	}
	for (i = 0; i < bcn_shardmap_count(m); i++) {
		check_shard(m, bcn_shardmap_get(m, i), i);
		total += bcn_shardmap_get(m, i)->nhosts;
	}
	if (total != bcn_shardmap_nhosts(m) || bcn_shardmap_get(m, i))
		abort();
	d = bcn_shardmap_default(m);
	if (d && (!d->is_default || d->index != bcn_shardmap_count(m)))
		abort();
	/* lookups of slices of the input: a shard, the default or NULL */
	for (i = 0; i + 1 < size && i < 64; i++)
		(void)bcn_shardmap_lookup_n(m, text + i, (size - i) % 40);
	bcn_shardmap_free(m);
	return 0;
}
