/* A bounded failure counter per key (a user name, an address) for the
 * log-in rate limit (docs/api.md): at most limit failures per window;
 * a key over it is blocked until its window ends. The table holds at
 * most cap keys; when full, the key whose window started first gives
 * way. Thread-safe. */
#ifndef BCN_WEB_RATELIMIT_H
#define BCN_WEB_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>

#define BCN_RATELIMIT_KEY_MAX 96

struct bcn_ratelimit;

struct bcn_ratelimit *bcn_ratelimit_new(size_t cap, uint64_t limit,
					int64_t window_ns);
void bcn_ratelimit_free(struct bcn_ratelimit *rl);

/* Nanoseconds until key may try again at now, 0 when it may now. */
int64_t bcn_ratelimit_blocked(struct bcn_ratelimit *rl, const char *key,
			      int64_t now);

/* Counts a failure of key at now. */
void bcn_ratelimit_fail(struct bcn_ratelimit *rl, const char *key,
			int64_t now);

#endif
