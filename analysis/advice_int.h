/* Internals of the advice (advice.c, advice_depth.c): one way to add a
 * finding, and the rules over the client layer's depth (the files table,
 * the node heatmap's stragglers) that advice.c's table runs. */
#ifndef BCN_ADVICE_INT_H
#define BCN_ADVICE_INT_H

#include "analysis/advice.h"

struct bcn_report;

/* A new finding of r with code and severity, its audience and fix from
 * the catalogue (the rule may write a more concrete fix), or NULL when r
 * holds BCN_ADVICE_MAX or memory is short. */
struct bcn_advice_finding *bcn_advice_new(struct bcn_report *r,
					  const char *code,
					  const char *severity);

/* Each adds at most one finding; 0 or -ENOMEM. */
int bcn_advice_misaligned(struct bcn_report *r,
			  const struct bcn_advice_config *c);
int bcn_advice_random(struct bcn_report *r, const struct bcn_advice_config *c);
int bcn_advice_small_files(struct bcn_report *r,
			   const struct bcn_advice_config *c);
int bcn_advice_meta_time(struct bcn_report *r,
			 const struct bcn_advice_config *c);
int bcn_advice_stragglers(struct bcn_report *r,
			  const struct bcn_advice_config *c);
int bcn_advice_slow_procs(struct bcn_report *r,
			  const struct bcn_advice_config *c);
int bcn_advice_node_imbalance(struct bcn_report *r,
			      const struct bcn_advice_config *c);

#endif
