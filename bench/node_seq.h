/* Frame sequence numbers per sending node for the benchmarks that write
 * records into the store directly: every record a frame of its own (idx
 * 0, nrec 1) with the next sequence number of its node, as a collector
 * numbers its frames. The embedded store keeps identities as runs per
 * node (docs/store.md, "Schema 3"): numbers shared by all nodes would
 * make a run per record. Open addressing over node names, bounded. */
#ifndef BCN_BENCH_NODE_SEQ_H
#define BCN_BENCH_NODE_SEQ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NODE_SEQ_SLOTS (1u << 17)       /* > twice the nodes of a bench */
#define NODE_SEQ_NAME 48

struct node_seq {
	char (*name)[NODE_SEQ_NAME];
	uint64_t *seq;
};

static inline int node_seq_init(struct node_seq *t)
{
	t->name = calloc(NODE_SEQ_SLOTS, sizeof(*t->name));
	t->seq = calloc(NODE_SEQ_SLOTS, sizeof(*t->seq));
	return t->name && t->seq ? 0 : -1;
}

static inline void node_seq_free(struct node_seq *t)
{
	free(t->name);
	free(t->seq);
}

/* The next sequence number of node (from 1); 0 when the table is full or
 * the name too long. */
static inline uint64_t node_seq_next(struct node_seq *t, const char *node)
{
	uint64_t h = 1469598103934665603ull;
	size_t len = strlen(node);

	if (len >= NODE_SEQ_NAME)
		return 0;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)node[i]) * 1099511628211ull;
	for (uint32_t k = 0; k < NODE_SEQ_SLOTS; k++) {
		uint32_t i = (uint32_t)(h + k) & (NODE_SEQ_SLOTS - 1);

		if (!t->name[i][0])
			memcpy(t->name[i], node, len + 1);
		if (!strcmp(t->name[i], node))
			return ++t->seq[i];
	}
	return 0;
}

#endif
