/* Internals shared by the report's files (report.c, report_parts.c). */
#ifndef BCN_REPORT_INT_H
#define BCN_REPORT_INT_H

#include "analysis/report.h"
#include "analysis/iomode.h"
#include "analysis/tally.h"

/* The client pass's working state. */
struct bcn_report_cpass {
	struct bcn_report *r;
	int64_t base, unit;             /* bucket i is [base + i*unit, +unit) */
	size_t nsec;
	uint64_t *rd, *wr, *meta;       /* per bucket */
	int64_t *rfirst, *rlast;        /* per bucket: first start of a read
					 * record in it, last end of one that
					 * ends in it (INT64_MAX / 0: none) */
	int64_t *wfirst, *wlast;        /* the same for writes */
	struct bcn_iomode who;          /* who moved the bytes */
	struct bcn_tally nodes;         /* node -> read, write, ops */
	size_t last_node;               /* index of the last record's node
					 * in nodes, SIZE_MAX: none yet */
};

void bcn_report_cpass_free(struct bcn_report_cpass *c);

/* Marks r partial (the first reason is kept). */
void bcn_report_partial(struct bcn_report *r, const char *why);

/* The forwarding, OST and MDT parts of r, from c's I/O nodes. */
int bcn_report_parts(const struct bcn_stores *st, struct bcn_jobdb *db,
		     struct bcn_report *r, const struct bcn_report_config *cfg,
		     struct bcn_report_cpass *c);

/* The network part of r (report_net.c) and its switch_imbalance
 * finding. */
int bcn_report_network(const struct bcn_stores *st, struct bcn_report *r,
		       const struct bcn_report_config *cfg);

#endif
