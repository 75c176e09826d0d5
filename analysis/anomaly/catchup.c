/* Catch-up of the component detectors (catchup.h): count, plan, examine
 * in time order, mark. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/catchup.h"
#include "common/error.h"
#include "jobdb/marks.h"

#define MS 1000000ll

struct bcn_catchup {
	struct bcn_catchup_config c;
	uint64_t *prev;                 /* the last check's counts */
	int64_t prev_from;
	size_t prev_n, prev_ns;
};

/* What one check works on. */
struct check {
	int64_t from, len;
	size_t n, ns;
	uint64_t *cur, *mark, *prev;
	uint8_t *due;
	char (*names)[BCN_MARK_STORE_MAX + 1];
};

static bool differs(const uint64_t *a, const uint64_t *b, size_t n, size_t ns,
		    size_t i)
{
	for (size_t s = 0; s < ns; s++)
		if (a[s * n + i] != b[s * n + i])
			return true;
	return false;
}

size_t bcn_catchup_plan(size_t n, size_t ns, const uint64_t *cur,
			const uint64_t *mark, const uint64_t *prev,
			size_t follow, uint8_t *due)
{
	size_t k = 0, left = 0;         /* FOLLOW intervals still to mark */

	for (size_t i = 0; i < n; i++) {
		bool changed = differs(cur, mark, n, ns, i);
		bool never = true;

		for (size_t s = 0; s < ns; s++)
			never = never && mark[s * n + i] == BCN_CATCHUP_NONE;
		due[i] = BCN_CATCHUP_SKIP;
		if (changed && (!prev || !differs(cur, prev, n, ns, i)))
			due[i] = never ? BCN_CATCHUP_NEW : BCN_CATCHUP_CHANGED;
		else if (left && !changed)
			due[i] = BCN_CATCHUP_FOLLOW;
		k += due[i] != BCN_CATCHUP_SKIP;
		if (due[i] == BCN_CATCHUP_CHANGED)
			left = follow;
		else if (left)
			left--;
	}
	return k;
}

static uint64_t fnv64(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void bcn_catchup_store_name(const struct bcn_store *s, char *out, size_t cap)
{
	char full[8192];

	if (s->cfg.backend == BCN_STORE_OPENSEARCH)
		snprintf(full, sizeof(full), "opensearch:%s/%s", s->cfg.url,
			 s->cfg.index_prefix);
	else
		snprintf(full, sizeof(full), "sqlite:%s", s->cfg.dir);
	if (strlen(full) < cap && strlen(full) <= BCN_MARK_STORE_MAX) {
		snprintf(out, cap, "%s", full);
		return;
	}
	/* the head, then a hash of the whole */
	size_t keep = (cap < BCN_MARK_STORE_MAX + 1 ? cap - 1 :
		       BCN_MARK_STORE_MAX) - 17;

	snprintf(out, cap, "%.*s#%016" PRIx64, (int)keep, full, fnv64(full));
}

int bcn_catchup_new(const struct bcn_catchup_config *c,
		    struct bcn_catchup **out)
{
	struct bcn_catchup *cu = calloc(1, sizeof(*cu));

	if (!cu)
		return -ENOMEM;
	cu->c = *c;
	*out = cu;
	return 0;
}

void bcn_catchup_free(struct bcn_catchup *cu)
{
	if (cu)
		free(cu->prev);
	free(cu);
}

/* ---- counting ---- */

struct tally {
	uint64_t *row;
	int64_t from, len;
	size_t n;
};

static int tally_bucket(void *arg, const struct bcn_store_bucket *b)
{
	struct tally *t = arg;

	if (b->t >= t->from && (b->t - t->from) / t->len < (int64_t)t->n)
		t->row[(b->t - t->from) / t->len] += b->records;
	return 0;
}

/* The records of the layers the detectors read, per interval, of store s. */
static int count(struct check *k, struct bcn_store *s, uint64_t *row)
{
	static const int layers[] = { BCN_LAYER_FORWARD, BCN_LAYER_OST,
				      BCN_LAYER_MDS, BCN_LAYER_SWITCH };
	struct tally t = { row, k->from, k->len, k->n };
	int rc = 0;

	memset(row, 0, k->n * sizeof(*row));
	for (size_t l = 0; !rc && l < sizeof(layers) / sizeof(layers[0]); l++) {
		struct bcn_store_query q = {
			.layer = layers[l], .from = k->from,
			.to = k->from + (int64_t)k->n * k->len,
			.part = BCN_STORE_PART_ANY, .any_order = true,
		};

		rc = bcn_store_sum(s, &q, k->len, tally_bucket, &t);
	}
	return rc;
}

/* Marks of store s into its row (BCN_CATCHUP_NONE where none). */
static int read_marks(struct check *k, struct bcn_jobdb *db, size_t s)
{
	struct bcn_detect_mark *m = malloc(k->n * sizeof(*m));
	uint64_t *row = k->mark + s * k->n;
	int got;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++)
		row[i] = BCN_CATCHUP_NONE;
	got = bcn_jobdb_marks(db, k->names[s], k->from,
			      k->from + (int64_t)k->n * k->len, m, k->n);
	for (int j = 0; j < got; j++)
		if ((m[j].t - k->from) % k->len == 0 && m[j].len == k->len)
			row[(m[j].t - k->from) / k->len] = m[j].records;
	free(m);
	return got < 0 ? got : 0;
}

/* The previous check's counts, aligned to this one's intervals. */
static void align_prev(const struct bcn_catchup *cu, struct check *k)
{
	for (size_t s = 0; s < k->ns; s++)
		for (size_t i = 0; i < k->n; i++) {
			int64_t t = k->from + (int64_t)i * k->len;
			int64_t j = (t - cu->prev_from) / k->len;

			k->prev[s * k->n + i] = BCN_CATCHUP_NONE;
			if (cu->prev && s < cu->prev_ns && t >= cu->prev_from &&
			    j < (int64_t)cu->prev_n)
				k->prev[s * k->n + i] = cu->prev[s * cu->prev_n + j];
		}
}

/* ---- the window of a check ---- */

/* [from, from + n * len): the horizon, or, when a store's watermark is
 * further back, rounds_max intervals from it. */
static int window(struct bcn_catchup *cu, const struct bcn_stores *ss,
		  struct bcn_jobdb *db, struct check *k, int64_t now)
{
	int64_t len = k->len, end = (now - cu->c.settle_ms * MS) / len * len;
	int64_t far = (end - BCN_CATCHUP_FAR_NS) / len * len;
	int64_t from = (end - cu->c.horizon_ms * MS) / len * len, to = end;
	int64_t oldest = INT64_MAX;

	for (size_t s = 0; s < ss->n; s++) {
		int64_t wm;
		int rc = bcn_jobdb_mark_watermark(db, k->names[s], &wm);

		if (rc)
			return rc;
		if (wm && wm < oldest)
			oldest = wm;
	}
	if (oldest < from) {
		from = oldest / len * len < far ? far : oldest / len * len;
		if (to > from + (int64_t)cu->c.rounds_max * len)
			to = from + (int64_t)cu->c.rounds_max * len;
	}
	if (to - from > BCN_CATCHUP_INTERVALS_MAX * len)
		from = to - BCN_CATCHUP_INTERVALS_MAX * len;
	k->from = from;
	k->n = to > from ? (size_t)((to - from) / len) : 0;
	return 0;
}

static int alloc_check(struct check *k, size_t ns)
{
	size_t cells = k->n * ns;

	k->ns = ns;
	k->cur = calloc(cells ? cells : 1, sizeof(uint64_t));
	k->mark = calloc(cells ? cells : 1, sizeof(uint64_t));
	k->prev = calloc(cells ? cells : 1, sizeof(uint64_t));
	k->due = calloc(k->n ? k->n : 1, 1);
	return k->cur && k->mark && k->prev && k->due ? 0 : -ENOMEM;
}

static void free_check(struct check *k)
{
	free(k->cur);
	free(k->mark);
	free(k->prev);
	free(k->due);
	free(k->names);
}

/* ---- examining ---- */

static bool empty(const struct check *k, size_t i)
{
	for (size_t s = 0; s < k->ns; s++)
		if (k->cur[s * k->n + i])
			return false;
	return true;
}

/* Examines interval i of k (a round unless nothing is there) and marks
 * it in every store. */
static int examine(struct check *k, size_t i, const struct bcn_detect_config *dc,
		   const struct bcn_stores *ss, struct bcn_jobdb *db,
		   int64_t now, struct bcn_catchup_stats *st, char *err,
		   size_t errlen)
{
	int64_t t = k->from + (int64_t)i * k->len;
	struct bcn_detect_stats ds;
	int rc;

	if (k->due[i] != BCN_CATCHUP_FOLLOW && empty(k, i)) {
		st->empty++;
	} else {
		rc = bcn_detect_round(dc, ss, db, t + k->len, now, NULL, NULL,
				      &ds, err, errlen);
		if (rc)
			return rc;
		st->rounds++;
		st->reopened += k->due[i] == BCN_CATCHUP_CHANGED;
		st->inserted += ds.inserted;
		st->updated += ds.updated;
		st->closed += ds.closed;
		st->skipped += ds.skipped;
	}
	for (size_t s = 0; s < k->ns; s++)
		if ((rc = bcn_jobdb_mark_put(db, k->names[s], t, k->len,
					     k->cur[s * k->n + i], now)))
			return bcn_fail(err, errlen, rc, "anomaly detection: "
					"marking %s: %s", k->names[s],
					bcn_jobdb_error(db));
	return 0;
}

/* Keeps the last counts for the next check's comparison. */
static void keep_counts(struct bcn_catchup *cu, struct check *k)
{
	free(cu->prev);
	cu->prev = k->cur;
	cu->prev_from = k->from;
	cu->prev_n = k->n;
	cu->prev_ns = k->ns;
	k->cur = NULL;
}

/* Forgets marks before this check's window (an interval of slack: the
 * next window starts there or later), never a store's newest. */
static int prune(struct check *k, struct bcn_jobdb *db,
		 struct bcn_catchup_stats *st)
{
	int64_t horizon = k->from - k->len;
	int64_t oldest = INT64_MAX;

	for (size_t s = 0; s < k->ns; s++) {
		int64_t wm, before;
		int rc = bcn_jobdb_mark_watermark(db, k->names[s], &wm);

		if (rc)
			return rc;
		if (wm < oldest)
			oldest = wm;
		before = wm - k->len < horizon ? wm - k->len : horizon;
		if (wm && (rc = bcn_jobdb_marks_prune(db, k->names[s],
						      before)) < 0)
			return rc;
	}
	st->watermark = oldest == INT64_MAX ? 0 : oldest;
	return 0;
}

static int plan_check(struct bcn_catchup *cu, struct check *k,
		      const struct bcn_detect_config *dc,
		      const struct bcn_stores *ss, struct bcn_jobdb *db,
		      int64_t now, bool settled, char *err, size_t errlen)
{
	int64_t look = dc->lookback_ms * MS;
	size_t follow = (size_t)((look + k->len - 1) / k->len);
	int rc;

	if (!(k->names = calloc(ss->n ? ss->n : 1, sizeof(*k->names))))
		return bcn_fail(err, errlen, -ENOMEM, "out of memory");
	for (size_t s = 0; s < ss->n; s++)
		bcn_catchup_store_name(ss->s[s], k->names[s],
				       sizeof(k->names[s]));
	if ((rc = window(cu, ss, db, k, now)))
		return bcn_fail(err, errlen, rc, "anomaly detection: "
				"watermark: %s", bcn_jobdb_error(db));
	if ((rc = alloc_check(k, ss->n)))
		return bcn_fail(err, errlen, rc, "out of memory");
	for (size_t s = 0; s < ss->n && k->n; s++) {
		if ((rc = count(k, ss->s[s], k->cur + s * k->n)))
			return bcn_fail(err, errlen, rc, "anomaly detection: "
					"counting %s: %s", k->names[s],
					bcn_strerror(rc));
		if ((rc = read_marks(k, db, s)))
			return bcn_fail(err, errlen, rc, "anomaly detection: "
					"marks of %s: %s", k->names[s],
					bcn_jobdb_error(db));
	}
	align_prev(cu, k);
	bcn_catchup_plan(k->n, k->ns, k->cur, k->mark, settled ? NULL : k->prev,
			 follow > 0 ? follow - 1 : 0, k->due);
	return 0;
}

int bcn_catchup_check(struct bcn_catchup *cu, const struct bcn_detect_config *dc,
		      const struct bcn_stores *ss, struct bcn_jobdb *db,
		      int64_t now, bool settled, bcn_catchup_round_fn *after,
		      void *arg, struct bcn_catchup_stats *st, char *err,
		      size_t errlen)
{
	struct check k = { .len = cu->c.interval_ms * MS };
	uint64_t done = 0;
	int rc;

	st->checks++;
	if (k.len <= 0 || !ss->n)
		return 0;
	if ((rc = plan_check(cu, &k, dc, ss, db, now, settled, err, errlen)))
		goto out;
	for (size_t i = 0; i < k.n; i++) {
		if (k.due[i] == BCN_CATCHUP_SKIP)
			continue;
		if (done == cu->c.rounds_max) {
			st->pending++;
			continue;
		}
		if ((rc = examine(&k, i, dc, ss, db, now, st, err, errlen))) {
			st->failed++;
			goto out;
		}
		done++;
		if (after)
			after(arg, k.from + (int64_t)(i + 1) * k.len);
	}
	if ((rc = prune(&k, db, st)))
		rc = bcn_fail(err, errlen, rc, "anomaly detection: marks: %s",
			      bcn_jobdb_error(db));
	keep_counts(cu, &k);
out:
	free_check(&k);
	return rc;
}
