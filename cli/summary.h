/* Per-(layer, job, node, op) totals over a set of records: how many
 * records, how many operations they stand for and how many bytes. */
#ifndef BCN_CLI_SUMMARY_H
#define BCN_CLI_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "proto/record.h"

#define BCN_SUMMARY_MAX_KEYS (16u << 20)

struct bcn_summary_entry {
	uint8_t layer;
	uint64_t job;
	char *node;
	const char *op;         /* static name from the record tables */
	uint64_t records, ops, bytes;
};

struct bcn_summary {
	struct bcn_summary_entry *slots;
	uint32_t cap, n;
	int err;                /* first error met while adding */
};

void bcn_summary_init(struct bcn_summary *s);
void bcn_summary_free(struct bcn_summary *s);
/* Adds a record to the totals. Returns 0, -ENOMEM or -BCN_EFULL. */
int bcn_summary_add(struct bcn_summary *s, const struct bcn_record *r);
/* Writes one JSON line per key, sorted by layer, job, node and op, using
 * buf as the output buffer. Returns 0 or a negative code. */
int bcn_summary_print(struct bcn_summary *s, struct bcn_buf *buf, FILE *out);

#endif
