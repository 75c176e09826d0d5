/* Internals shared by the report's files (report.c, report_parts.c). */
#ifndef BCN_REPORT_INT_H
#define BCN_REPORT_INT_H

#include "analysis/report.h"
#include "analysis/iomode.h"
#include "analysis/tally.h"

/* One source's bytes over time: the client records', or the OSTs' job
 * parts'. */
struct bcn_report_buckets {
	uint64_t *rd, *wr, *meta;       /* per bucket */
	int64_t *rfirst, *rlast;        /* per bucket: first start of a read
					 * record in it, last end of one that
					 * ends in it (INT64_MAX / 0: none) */
	int64_t *wfirst, *wlast;        /* the same for writes */
};

/* The report's working state. */
struct bcn_report_cpass {
	struct bcn_report *r;
	int64_t base, unit;             /* bucket i is [base + i*unit, +unit) */
	size_t nsec;
	struct bcn_report_buckets cli;  /* the client records */
	struct bcn_report_buckets srv;  /* the OSTs' job parts */
	struct bcn_iomode who;          /* who moved the bytes */
	struct bcn_tally nodes;         /* node -> read, write, ops */
	size_t last_node;               /* index of the last record's node
					 * in nodes, SIZE_MAX: none yet */
	struct bcn_tally jnodes;        /* the job's nodes (its nodelist) ->
					 * covered ns, vouched until,
					 * client records, interrupted */
	struct bcn_tally rpc_targets;   /* OSTs the job's forwarding nodes'
					 * clients sent RPCs to */
	struct bcn_rfiles rf;           /* files and access patterns */
	struct bcn_rnodes rn;           /* the node heatmap, stragglers */
	bool rf_on, rn_on;
};

void bcn_report_cpass_free(struct bcn_report_cpass *c);

/* Adds a record's bytes over [t, t + dur) to b (exactly, in proportion
 * to the overlap) and notes its span. */
void bcn_report_bucket_add(struct bcn_report_cpass *c,
			   struct bcn_report_buckets *b, int64_t t,
			   int64_t dur, uint64_t rd, uint64_t wr);

/* Adds metadata operations over [t, t + dur) to b. */
void bcn_report_bucket_meta(struct bcn_report_cpass *c,
			    struct bcn_report_buckets *b, int64_t t,
			    int64_t dur, uint64_t ops);

/* Sets cv->missing to a hostlist of names[0..n-1], cut to the first
 * names that fit BCN_COVER_MISSING_MAX (then ending in ",..."). Returns
 * 0 or -ENOMEM. */
int bcn_report_missing_list(struct bcn_report_cover *cv, const char **names,
			    size_t n);

/* Frees what the coverage holds (the missing lists). */
void bcn_report_cover_free(struct bcn_report *r);

/* Marks r partial (the first reason is kept). */
void bcn_report_partial(struct bcn_report *r, const char *why);

/* The forwarding, OST and MDT parts of r, from c's I/O nodes. */
int bcn_report_parts(const struct bcn_stores *st, struct bcn_jobdb *db,
		     struct bcn_report *r, const struct bcn_report_config *cfg,
		     struct bcn_report_cpass *c);

/* The coverage of every layer (report_cover.c): the client layer from
 * the job's nodelist and its nodes' beacon-clientd health records, the
 * servers from what reported around the window. Runs after the parts. */
int bcn_report_cover_client(const struct bcn_stores *st,
			    struct bcn_report *r,
			    const struct bcn_report_config *cfg,
			    struct bcn_report_cpass *c, int64_t now);
int bcn_report_cover_servers(const struct bcn_stores *st,
			     struct bcn_report *r,
			     const struct bcn_report_config *cfg,
			     struct bcn_report_cpass *c, int64_t now);

/* Takes the job's volume, series, phases and rates from the best
 * complete source (report_cover.c), adds the partial_coverage finding. */
int bcn_report_choose_source(struct bcn_report_cpass *c,
			     const struct bcn_report_config *cfg);

/* Series, phases and rates of r from buckets b (report.c). */
int bcn_report_figures(struct bcn_report_cpass *c,
		       struct bcn_report_buckets *b,
		       const struct bcn_report_config *cfg);

/* The network part of r (report_net.c) and its switch_imbalance
 * finding. */
int bcn_report_network(const struct bcn_stores *st, struct bcn_report *r,
		       const struct bcn_report_config *cfg);

#endif
