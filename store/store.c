/* Record store front end: configuration defaults and dispatch to the
 * configured backend. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "store/store.h"

void bcn_store_config_defaults(struct bcn_store_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = BCN_STORE_SQLITE;
	snprintf(cfg->dir, sizeof(cfg->dir), "beacon-store");
	snprintf(cfg->index_prefix, sizeof(cfg->index_prefix), "beacon");
	cfg->shards = 1;
	cfg->replicas = 0;
	cfg->retention_days = 183;
	cfg->timeout_ms = 30000;
	cfg->node_runs = BCN_STORE_NODE_RUNS_DEF;
}

int bcn_store_open(const struct bcn_store_config *cfg, struct bcn_store **out,
		   char *err, size_t errlen)
{
	const struct bcn_store_ops *ops;

	*out = NULL;
	switch (cfg->backend) {
	case BCN_STORE_SQLITE:
		ops = &bcn_store_sqlite_ops;
		break;
	case BCN_STORE_OPENSEARCH:
		ops = &bcn_store_es_ops;
		break;
	default:
		snprintf(err, errlen, "unknown store backend %d", cfg->backend);
		return -EINVAL;
	}
	if (cfg->retention_days < 1) {
		snprintf(err, errlen, "retention must be at least one day");
		return -BCN_ERANGE;
	}
	return ops->open(cfg, out, err, errlen);
}

void bcn_store_close(struct bcn_store *s)
{
	if (s)
		s->ops->close(s);
}

static const char *const part_names[BCN_STORE_PART_MAX] = {
	[BCN_STORE_PART_TOTAL] = "total",
	[BCN_STORE_PART_JOB] = "job",
	[BCN_STORE_PART_CLIENT] = "client",
};

int bcn_store_record_part(const struct bcn_record *r)
{
	const char *client, *jobid;

	if (r->type == BCN_REC_OST) {
		client = r->u.ost.client;
		jobid = r->u.ost.jobid;
	} else if (r->type == BCN_REC_MDS) {
		client = r->u.mds.client;
		jobid = r->u.mds.jobid;
	} else {
		return BCN_STORE_PART_TOTAL;
	}
	if (jobid && jobid[0])
		return BCN_STORE_PART_JOB;
	if (client && client[0])
		return BCN_STORE_PART_CLIENT;
	return BCN_STORE_PART_TOTAL;
}

const char *bcn_store_part_name(int part)
{
	if (part == BCN_STORE_PART_ANY)
		return "any";
	return part >= 0 && part < BCN_STORE_PART_MAX ? part_names[part] : "?";
}

int bcn_store_part_parse(const char *name, int *part)
{
	for (int p = BCN_STORE_PART_ANY; p < BCN_STORE_PART_MAX; p++) {
		if (strcmp(name, bcn_store_part_name(p)) == 0) {
			*part = p;
			return 0;
		}
	}
	return -BCN_ESYNTAX;
}

int bcn_store_query_part(const struct bcn_store_query *q, int *part)
{
	if (q->part < BCN_STORE_PART_ANY || q->part >= BCN_STORE_PART_MAX)
		return -EINVAL;
	*part = q->part;
	if (q->part == BCN_STORE_PART_TOTAL && q->job &&
	    (q->layer == BCN_LAYER_OST || q->layer == BCN_LAYER_MDS))
		*part = BCN_STORE_PART_JOB;
	return 0;
}

/* Checks q and copies it to out with its part resolved
 * (bcn_store_query_part), the form the backends get. */
static int check_query(const struct bcn_store_query *q,
		       struct bcn_store_query *out)
{
	if (q->layer <= 0 || q->layer >= BCN_LAYER_MAX || q->from > q->to)
		return -EINVAL;
	*out = *q;
	return bcn_store_query_part(q, &out->part);
}

int bcn_store_append(struct bcn_store *s, const struct bcn_store_item *items,
		     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = bcn_record_check(items[i].rec);

		if (rc)
			return rc;
		if (!items[i].rec->node || !items[i].rec->node[0])
			return -EINVAL;
	}
	return n ? s->ops->append(s, items, n) : 0;
}

int bcn_store_scan(struct bcn_store *s, const struct bcn_store_query *q,
		   bcn_store_record_fn *fn, void *arg)
{
	struct bcn_store_query rq;
	int rc = check_query(q, &rq);

	return rc ? rc : s->ops->scan(s, &rq, fn, arg);
}

int bcn_store_sum(struct bcn_store *s, const struct bcn_store_query *q,
		  int64_t bucket_ns, bcn_store_bucket_fn *fn, void *arg)
{
	struct bcn_store_query rq;
	int rc = check_query(q, &rq);

	if (!rc && bucket_ns <= 0)
		rc = -EINVAL;
	return rc ? rc : s->ops->sum(s, &rq, bucket_ns, fn, arg);
}

int bcn_store_count(struct bcn_store *s, const struct bcn_store_query *q,
		    uint64_t *count)
{
	struct bcn_store_query rq;
	int rc = check_query(q, &rq);

	*count = 0;
	return rc ? rc : s->ops->count(s, &rq, count);
}

int bcn_store_flush(struct bcn_store *s)
{
	return s->ops->flush ? s->ops->flush(s) : 0;
}

int bcn_store_expire(struct bcn_store *s, int64_t now_ns, uint64_t *removed)
{
	uint64_t dummy;

	return s->ops->expire(s, now_ns, removed ? removed : &dummy);
}

uint64_t bcn_store_refused(const struct bcn_store *s)
{
	return s->ops->refused ? s->ops->refused(s) : 0;
}
