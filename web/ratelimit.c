/* The log-in limiter (web/ratelimit.h): a fixed array searched in full;
 * log-ins are rare and each costs a slow password hash anyway. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "web/ratelimit.h"

struct entry {
	char key[BCN_RATELIMIT_KEY_MAX];
	uint64_t n;
	int64_t start;
	bool used;
};

struct bcn_ratelimit {
	pthread_mutex_t lock;
	uint64_t limit;
	int64_t window;
	size_t cap;
	struct entry e[];
};

struct bcn_ratelimit *bcn_ratelimit_new(size_t cap, uint64_t limit,
					int64_t window_ns)
{
	struct bcn_ratelimit *rl;

	if (!cap || cap > (1u << 24))
		return NULL;
	rl = calloc(1, sizeof(*rl) + cap * sizeof(struct entry));
	if (!rl)
		return NULL;
	pthread_mutex_init(&rl->lock, NULL);
	rl->cap = cap;
	rl->limit = limit;
	rl->window = window_ns;
	return rl;
}

void bcn_ratelimit_free(struct bcn_ratelimit *rl)
{
	if (!rl)
		return;
	pthread_mutex_destroy(&rl->lock);
	free(rl);
}

/* key's entry, or NULL; with make, a new or recycled one. */
static struct entry *find(struct bcn_ratelimit *rl, const char *key,
			  int64_t now, bool make)
{
	struct entry *victim = NULL;

	for (size_t i = 0; i < rl->cap; i++) {
		struct entry *e = &rl->e[i];

		if (e->used && now - e->start >= rl->window)
			e->used = false;        /* its window is over */
		/* keys are kept cut to the table's size */
		if (e->used && !strncmp(e->key, key, sizeof(e->key) - 1))
			return e;
		if (!victim || !e->used ||
		    (victim->used && e->start < victim->start))
			victim = e;
	}
	if (!make)
		return NULL;
	memset(victim, 0, sizeof(*victim));
	strncpy(victim->key, key, sizeof(victim->key) - 1);
	victim->start = now;
	victim->used = true;
	return victim;
}

int64_t bcn_ratelimit_blocked(struct bcn_ratelimit *rl, const char *key,
			      int64_t now)
{
	struct entry *e;
	int64_t wait = 0;

	pthread_mutex_lock(&rl->lock);
	e = find(rl, key, now, false);
	if (e && e->n >= rl->limit)
		wait = e->start + rl->window - now;
	pthread_mutex_unlock(&rl->lock);
	return wait > 0 ? wait : 0;
}

void bcn_ratelimit_fail(struct bcn_ratelimit *rl, const char *key,
			int64_t now)
{
	struct entry *e;

	pthread_mutex_lock(&rl->lock);
	e = find(rl, key, now, true);
	e->n++;
	pthread_mutex_unlock(&rl->lock);
}
