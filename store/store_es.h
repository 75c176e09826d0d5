/* Extras of the OpenSearch / Elasticsearch backend beyond the store
 * interface: counters of its bulk traffic and a hook run before each retry
 * round of an append, for tests and diagnostics. */
#ifndef BCN_STORE_ES_H
#define BCN_STORE_ES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Rounds of one append: the first sending and up to four retries of the
 * items that failed with a retriable status (429, 5xx). */
#define BCN_ES_BULK_ROUNDS 5
/* Wait before retry round r (from 1): BCN_ES_BACKOFF_MS << (r - 1). */
#define BCN_ES_BACKOFF_MS 100

struct bcn_store_es_stats {
	uint64_t bulk_requests;         /* _bulk requests sent */
	uint64_t items_sent;            /* bulk items sent, resends included */
	uint64_t items_retried;         /* resends after a retriable failure */
	uint64_t items_rejected;        /* items failed for good */
	uint64_t utf8_replaced;         /* invalid UTF-8 bytes sent as U+FFFD */
};

/* Copies the counters of an opensearch store. Returns 0, or -EINVAL when
 * s is another backend. */
int bcn_store_es_stats(const struct bcn_store *s, struct bcn_store_es_stats *st);

/* Called before retry round `round` (from 1) of an append with the
 * positions (in the appended batch) of the n items about to be sent
 * again. */
typedef void bcn_store_es_retry_fn(void *arg, unsigned round,
				   const size_t *pos, size_t n);

/* Sets (fn NULL: clears) the retry hook. Returns 0, or -EINVAL when s is
 * another backend. */
int bcn_store_es_set_retry_hook(struct bcn_store *s, bcn_store_es_retry_fn *fn,
				void *arg);

/* Writes documents of shape (enum bcn_es_shape in store/es_build.h) from
 * now on, and installs the index template of that shape (it applies to
 * day indices created from now on). For the benchmark, which compares the
 * shapes, and for tests of indices an older beacon wrote; a store opens
 * with BCN_ES_SHAPE_CURRENT. Returns 0, -EINVAL (another backend, an
 * unknown shape) or the error of the template request, with a message in
 * err; on error the shape is unchanged. */
int bcn_store_es_set_shape(struct bcn_store *s, unsigned shape, char *err,
			   size_t errlen);

#endif
