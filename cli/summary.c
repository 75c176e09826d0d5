/* Summary totals: an open-addressing hash table keyed by
 * (layer, job, node, op), sorted when printed. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/summary.h"
#include "common/error.h"

void bcn_summary_init(struct bcn_summary *s)
{
	memset(s, 0, sizeof(*s));
}

void bcn_summary_free(struct bcn_summary *s)
{
	for (uint32_t i = 0; i < s->cap; i++)
		free(s->slots[i].node);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static uint64_t key_hash(unsigned layer, uint64_t job, const char *node,
			 const char *op)
{
	uint64_t h = 1469598103934665603ull ^ layer;

	h = (h ^ job) * 1099511628211ull;
	for (const char *p = node; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *p = op; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	return h ^ (h >> 29);
}

static struct bcn_summary_entry *find(struct bcn_summary_entry *slots,
				      uint32_t cap, unsigned layer,
				      uint64_t job, const char *node,
				      const char *op)
{
	uint32_t i = (uint32_t)key_hash(layer, job, node, op) & (cap - 1);

	for (;; i = (i + 1) & (cap - 1)) {
		struct bcn_summary_entry *e = &slots[i];

		if (!e->node || (e->layer == layer && e->job == job &&
				 !strcmp(e->node, node) && !strcmp(e->op, op)))
			return e;
	}
}

static int grow(struct bcn_summary *s)
{
	uint32_t ncap = s->cap ? s->cap * 2 : 1024;
	struct bcn_summary_entry *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->cap; i++) {
		struct bcn_summary_entry *e = &s->slots[i];

		if (e->node)
			*find(n, ncap, e->layer, e->job, e->node, e->op) = *e;
	}
	free(s->slots);
	s->slots = n;
	s->cap = ncap;
	return 0;
}

struct add_ctx {
	struct bcn_summary *s;
	const struct bcn_record *r;
};

static void add_op(void *arg, const char *op, uint64_t ops, uint64_t bytes)
{
	struct add_ctx *a = arg;
	struct bcn_summary *s = a->s;
	unsigned layer = bcn_record_desc(a->r->type)->layer;
	struct bcn_summary_entry *e;

	if (s->err)
		return;
	if ((s->n + 1) * 2 > s->cap) {
		if (s->n >= BCN_SUMMARY_MAX_KEYS) {
			s->err = -BCN_EFULL;
			return;
		}
		if ((s->err = grow(s)))
			return;
	}
	e = find(s->slots, s->cap, layer, a->r->job, a->r->node, op);
	if (!e->node) {
		e->node = strdup(a->r->node);
		if (!e->node) {
			s->err = -ENOMEM;
			return;
		}
		e->layer = (uint8_t)layer;
		e->job = a->r->job;
		e->op = op;
		s->n++;
	}
	e->records++;
	e->ops += ops;
	e->bytes = e->bytes + bytes < e->bytes ? UINT64_MAX : e->bytes + bytes;
}

int bcn_summary_add(struct bcn_summary *s, const struct bcn_record *r)
{
	struct add_ctx a = { s, r };

	bcn_record_ops(r, add_op, &a);
	return s->err;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct bcn_summary_entry *a = pa, *b = pb;
	int c;

	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	c = strcmp(a->node, b->node);
	return c ? c : strcmp(a->op, b->op);
}

int bcn_summary_print(struct bcn_summary *s, struct bcn_buf *buf, FILE *out)
{
	uint32_t n = 0;
	int rc = s->err;

	/* compact the table in place; it is not used as a table after this */
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->slots[i].node)
			s->slots[n++] = s->slots[i];
	for (uint32_t i = n; i < s->cap; i++)
		s->slots[i].node = NULL;
	if (n)
		qsort(s->slots, n, sizeof(*s->slots), cmp_entry);
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		const struct bcn_summary_entry *e = &s->slots[i];

		rc = bcn_buf_printf(buf, "{\"layer\":\"%s\",\"job\":%" PRIu64
				    ",\"node\":", bcn_layer_name(e->layer), e->job);
		if (!rc)
			rc = bcn_buf_add_json_str(buf, e->node);
		if (!rc)
			rc = bcn_buf_printf(buf, ",\"op\":\"%s\",\"records\":%"
					    PRIu64 ",\"ops\":%" PRIu64
					    ",\"bytes\":%" PRIu64 "}\n", e->op,
					    e->records, e->ops, e->bytes);
		if (!rc && (buf->len > (64u << 10) || i + 1 == n)) {
			if (fwrite(buf->data, 1, buf->len, out) != buf->len)
				rc = -EIO;
			bcn_buf_reset(buf);
		}
	}
	return rc;
}
