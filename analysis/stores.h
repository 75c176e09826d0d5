/* The record stores the analysis reads (docs/analyzd.md, "Where the
 * records are"): the configured store, plus, for a site whose log servers
 * each keep an embedded (SQLite) store, the other log servers' store
 * directories (analysis_store_dir, repeatable). A job's records are then
 * spread over them by the shard map; the analysis reads each in turn,
 * and nothing it computes depends on the order of the records. */
#ifndef BCN_STORES_H
#define BCN_STORES_H

#include <limits.h>
#include <stddef.h>

#include "common/config.h"
#include "store/store.h"

#define BCN_STORES_MAX 64

struct bcn_stores_config {
	char dirs[BCN_STORES_MAX - 1][PATH_MAX];
	size_t ndirs;
};

#define BCN_STORES_CONFIG_OPTIONS(type, m) \
	{ "analysis_store_dir", BCN_CFG_PATH, \
	  BCN_CFG_LIST_MEMBER(type, m.dirs, m.ndirs), \
	  .help = "Also read the embedded store in this directory (another " \
		  "log server's store_dir); repeatable." }

struct bcn_stores {
	struct bcn_store *s[BCN_STORES_MAX];
	size_t n;
};

/* Opens main (created when missing unless main->existing) and each
 * directory of extra (which must exist), read as SQLite stores. Returns
 * 0, or a negative code with err set and nothing left open. */
int bcn_stores_open(const struct bcn_store_config *main,
		    const struct bcn_stores_config *extra,
		    struct bcn_stores *out, char *err, size_t errlen);
void bcn_stores_close(struct bcn_stores *ss);

/* bcn_store_scan over every store in turn (ascending t within each). */
int bcn_stores_scan(const struct bcn_stores *ss,
		    const struct bcn_store_query *q, bcn_store_record_fn *fn,
		    void *arg);

#endif
