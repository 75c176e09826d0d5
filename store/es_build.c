/* Request bodies and names of the OpenSearch / Elasticsearch backend. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "common/utf8.h"
#include "store/es_build.h"

#define NS_PER_MS 1000000ll
#define DATE_LEN 10                     /* YYYY.MM.DD */
#define FNV128_HEX 32

static const char *const total_names[] = {
	"read_bytes", "write_bytes", "read_ops", "write_ops", "meta_ops",
	"other_ops",
};
#define NTOTALS (sizeof(total_names) / sizeof(total_names[0]))

int bcn_es_check_prefix(const char *prefix)
{
	size_t n = strnlen(prefix, BCN_STORE_PREFIX_MAX);

	if (n == 0 || n >= BCN_STORE_PREFIX_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = prefix[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
			return -EINVAL;
	}
	return 0;
}

int64_t bcn_es_day(int64_t t)
{
	return bcn_timefmt_floor_div(t, BCN_STORE_DAY_NS);
}

/* YYYY.MM.DD of a day since the epoch; the int64 range of t keeps the
 * year within 1677..2262. */
static int day_str(int64_t day, char out[DATE_LEN + 1])
{
	int64_t y, m, d;
	int rc = bcn_timefmt_civil(day, &y, &m, &d);

	if (rc)
		return rc;
	snprintf(out, DATE_LEN + 1, "%04u.%02u.%02u", (unsigned)y % 10000u,
		 (unsigned)m % 100u, (unsigned)d % 100u);
	return 0;
}

static int day_index(const char *prefix, int layer, int64_t day, char *out,
		     size_t outlen)
{
	char date[DATE_LEN + 1];
	int n, rc;

	if (layer <= 0 || layer >= BCN_LAYER_MAX)
		return -EINVAL;
	rc = day_str(day, date);
	if (rc)
		return rc;
	n = snprintf(out, outlen, "%s-%s-%s", prefix, bcn_layer_name((unsigned)layer),
		     date);
	return n < 0 || (size_t)n >= outlen ? -BCN_EFULL : 0;
}

int bcn_es_index_name(const char *prefix, int layer, int64_t t, char *out,
		      size_t outlen)
{
	return day_index(prefix, layer, bcn_es_day(t), out, outlen);
}

/* Parses exactly n decimal digits. */
static int digits(const char *p, int n, int *out)
{
	*out = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -BCN_ESYNTAX;
		*out = *out * 10 + (p[i] - '0');
	}
	return 0;
}

int bcn_es_parse_index_name(const char *name, const char *prefix, int *layer,
			    int64_t *day)
{
	size_t plen = strlen(prefix), n = strlen(name);
	const char *rest, *date;
	int y, m, d;

	if (n < plen + 1 + DATE_LEN + 2 || strncmp(name, prefix, plen) != 0 ||
	    name[plen] != '-')
		return -BCN_ESYNTAX;
	rest = name + plen + 1;
	date = name + n - DATE_LEN;
	if (date[-1] != '-' || date[4] != '.' || date[7] != '.' ||
	    digits(date, 4, &y) || digits(date + 5, 2, &m) ||
	    digits(date + 8, 2, &d))
		return -BCN_ESYNTAX;
	*layer = 0;
	for (int l = 1; l < BCN_LAYER_MAX; l++) {
		const char *ln = bcn_layer_name((unsigned)l);

		if (strlen(ln) == (size_t)(date - 1 - rest) &&
		    strncmp(rest, ln, strlen(ln)) == 0)
			*layer = l;
	}
	if (!*layer || bcn_timefmt_days(y, m, d, day))
		return -BCN_ESYNTAX;
	return 0;
}

/* 128-bit FNV-1a of a string, as 32 hex digits. */
static void fnv128(const char *s, char out[FNV128_HEX + 1])
{
	__extension__ typedef unsigned __int128 u128;
	const u128 prime = ((u128)0x1000000ull << 64) | 0x13bull;
	u128 h = ((u128)0x6c62272e07bb0142ull << 64) | 0x62b821756295c58dull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= prime;
	}
	snprintf(out, FNV128_HEX + 1, "%016" PRIx64 "%016" PRIx64,
		 (uint64_t)(h >> 64), (uint64_t)h);
}

int bcn_es_doc_id(const char *node, uint64_t seq, uint32_t idx, char *out,
		  size_t outlen)
{
	size_t n = strlen(node);
	char hash[FNV128_HEX + 1];
	int w;

	if (n <= BCN_ES_ID_NODE_MAX && bcn_utf8_valid(node, n) == n) {
		w = snprintf(out, outlen, "%s:%" PRIu64 ":%" PRIu32, node, seq, idx);
	} else {
		size_t head = bcn_utf8_valid(node, n < BCN_ES_ID_NODE_MAX ?
					     n : BCN_ES_ID_NODE_MAX);

		/* a verbatim name equals this form only if it ends in '#'
		 * and this very hash: a 128-bit collision */
		fnv128(node, hash);
		w = snprintf(out, outlen, "%.*s#%s:%" PRIu64 ":%" PRIu32,
			     (int)head, node, hash, seq, idx);
	}
	return w < 0 || (size_t)w >= outlen ? -BCN_EFULL : 0;
}

int bcn_es_has_parts(int layer)
{
	return layer == BCN_LAYER_OST || layer == BCN_LAYER_MDS;
}

static int add_totals(struct bcn_buf *b, const struct bcn_record *r)
{
	struct bcn_record_totals t;
	const uint64_t *v = &t.read_bytes;
	int rc = 0;

	bcn_record_totals(r, &t);
	for (size_t i = 0; rc == 0 && i < NTOTALS; i++)
		rc = bcn_buf_printf(b, ",\"%s\":%" PRIu64, total_names[i],
				    v[i] > INT64_MAX ? (uint64_t)INT64_MAX : v[i]);
	return rc;
}

static int bulk_lines(struct bcn_buf *b, const char *prefix,
		      const struct bcn_store_item *it, unsigned shape)
{
	const struct bcn_record *r = it->rec;
	const struct bcn_record_desc *d = bcn_record_desc(r->type);
	char index[BCN_ES_INDEX_MAX], id[BCN_ES_ID_MAX + 1];
	char entity[BCN_ENTITY_MAX];
	int lean = (shape & BCN_ES_SHAPE_LEAN_SOURCE) != 0;
	int rc;

	if (!d || !r->node)
		return -BCN_ERANGE;
	rc = bcn_es_index_name(prefix, d->layer, r->t, index, sizeof(index));
	if (!rc)
		rc = bcn_es_doc_id(r->node, it->seq, it->idx, id, sizeof(id));
	if (!rc)
		rc = bcn_record_entity(r, entity, sizeof(entity));
	if (!rc)
		rc = bcn_buf_printf(b, "{\"index\":{\"_index\":\"%s\",\"_id\":",
				    index);
	if (!rc)
		rc = bcn_buf_add_json_str(b, id);
	if (!rc)
		rc = bcn_buf_adds(b, "}}\n{\"node\":");
	if (!rc)
		rc = bcn_buf_add_json_str(b, r->node);
	if (!rc)
		rc = bcn_buf_printf(b, ",\"seq\":\"%020" PRIu64 "\",\"idx\":%" PRIu32
				    ",\"layer\":\"%s\"", it->seq, it->idx,
				    bcn_layer_name(d->layer));
	if (!rc && !lean)
		rc = bcn_buf_printf(b, ",\"type\":\"%s\"", d->name);
	if (!rc)
		rc = bcn_buf_adds(b, ",\"entity\":");
	if (!rc)
		rc = bcn_buf_add_json_str(b, entity);
	if (!rc)
		rc = bcn_buf_printf(b, ",\"job\":\"%" PRIu64 "\",\"t\":%" PRId64
				    ",\"ts\":%" PRId64, r->job, r->t,
				    bcn_timefmt_floor_div(r->t, NS_PER_MS));
	if (!rc && !lean)
		rc = bcn_buf_printf(b, ",\"dur\":%" PRId64, r->dur);
	if (!rc && bcn_es_has_parts(d->layer))
		rc = bcn_buf_printf(b, ",\"part\":\"%s\"",
				    bcn_store_part_name(bcn_store_record_part(r)));
	if (!rc)
		rc = add_totals(b, r);
	if (!rc)
		rc = bcn_buf_adds(b, ",\"record\":");
	if (!rc)
		rc = bcn_record_to_json(r, b);
	return rc ? rc : bcn_buf_adds(b, "}\n");
}

int bcn_es_bulk_add(struct bcn_buf *b, const char *prefix,
		    const struct bcn_store_item *it, unsigned shape,
		    size_t *replaced)
{
	size_t start = b->len;
	int rc;

	/* JSON strings turn invalid UTF-8 into U+FFFD; count what changed */
	*replaced = bcn_record_utf8_invalid(it->rec);
	rc = bulk_lines(b, prefix, it, shape);
	if (rc)
		b->len = start;
	return rc;
}

/* The mapped fields: which queries filter on (an inverted index) and which
 * they sort or aggregate on (doc values), for BCN_ES_SHAPE_LEAN_FIELDS;
 * the others are kept for documents of older shapes and older writers. */
struct es_field {
	const char *name, *type;
	unsigned char index, doc_values;
};

static const struct es_field es_fields[] = {
	{ "node", "keyword", 0, 1 },    /* sort */
	{ "seq", "keyword", 0, 1 },     /* sort */
	{ "idx", "long", 0, 1 },        /* sort */
	{ "layer", "keyword", 1, 0 },   /* term */
	{ "type", "keyword", 0, 0 },
	{ "entity", "keyword", 1, 0 },  /* term */
	{ "job", "keyword", 1, 0 },     /* term */
	/* term; doc values as in every older mapping: the parts upgrade's
	 * PUT _mapping of part (default doc values) must not conflict */
	{ "part", "keyword", 1, 1 },
	{ "t", "long", 1, 1 },          /* range, sort */
	{ "ts", "date", 0, 1 },         /* date_histogram */
	{ "dur", "long", 0, 0 },
	{ "read_bytes", "long", 0, 1 }, /* the totals: sums */
	{ "write_bytes", "long", 0, 1 },
	{ "read_ops", "long", 0, 1 },
	{ "write_ops", "long", 0, 1 },
	{ "meta_ops", "long", 0, 1 },
	{ "other_ops", "long", 0, 1 },
};
#define NFIELDS (sizeof(es_fields) / sizeof(es_fields[0]))

static int add_field(struct bcn_buf *b, const struct es_field *f, int lean)
{
	int rc = bcn_buf_printf(b, "\"%s\":{\"type\":\"%s\"", f->name, f->type);

	if (!rc && !strcmp(f->type, "date"))
		rc = bcn_buf_adds(b, ",\"format\":\"epoch_millis\"");
	if (!rc && lean && !f->index)
		rc = bcn_buf_adds(b, ",\"index\":false");
	if (!rc && lean && !f->doc_values)
		rc = bcn_buf_adds(b, ",\"doc_values\":false");
	return rc ? rc : bcn_buf_adds(b, "},");
}

int bcn_es_template(struct bcn_buf *b, const char *prefix, int shards,
		    int replicas, unsigned shape)
{
	size_t start = b->len;
	int lean = (shape & BCN_ES_SHAPE_LEAN_FIELDS) != 0;
	int rc;

	rc = bcn_buf_adds(b, "{\"index_patterns\":[");
	for (int l = 1; rc == 0 && l < BCN_LAYER_MAX; l++)
		rc = bcn_buf_printf(b, "%s\"%s-%s-*\"", l > 1 ? "," : "", prefix,
				    bcn_layer_name((unsigned)l));
	if (!rc)
		rc = bcn_buf_printf(b, "],\"priority\":500,\"_meta\":"
			"{\"beacon_record_version\":%d,\"beacon_doc_shape\":%u},"
			"\"template\":{\"settings\":{\"index\":{"
			"\"number_of_shards\":%d,\"number_of_replicas\":%d%s}},"
			"\"mappings\":{%s\"dynamic\":\"strict\",\"properties\":{",
			BCN_RECORD_VERSION, shape, shards, replicas,
			shape & BCN_ES_SHAPE_CODEC ?
			",\"codec\":\"best_compression\"" : "",
			shape & BCN_ES_SHAPE_LEAN_SOURCE ?
			"\"_source\":{\"includes\":[\"record\"]}," : "");
	for (size_t i = 0; rc == 0 && i < NFIELDS; i++)
		rc = add_field(b, &es_fields[i], lean);
	if (!rc)
		rc = bcn_buf_adds(b, "\"record\":{\"type\":\"object\","
				  "\"enabled\":false}}}}}");
	if (rc)
		b->len = start;
	return rc;
}

int bcn_es_query_indices(const char *prefix, const struct bcn_store_query *q,
			 char *out, size_t outlen)
{
	int64_t first, last;
	size_t used = 0;
	int n, rc;

	if (q->layer <= 0 || q->layer >= BCN_LAYER_MAX)
		return -EINVAL;
	first = bcn_es_day(q->from);
	last = q->to > q->from ? bcn_es_day(q->to - 1) : first;
	if (last - first >= BCN_ES_NAMED_DAYS) {
		n = snprintf(out, outlen, "%s-%s-*", prefix,
			     bcn_layer_name((unsigned)q->layer));
		return n < 0 || (size_t)n >= outlen ? -BCN_EFULL : 0;
	}
	for (int64_t d = first; d <= last; d++) {
		if (used + 1 >= outlen)
			return -BCN_EFULL;
		if (d > first)
			out[used++] = ',';
		rc = day_index(prefix, q->layer, d, out + used, outlen - used);
		if (rc)
			return rc;
		used += strlen(out + used);
	}
	return 0;
}

int bcn_es_query(struct bcn_buf *b, const struct bcn_store_query *q)
{
	size_t start = b->len;
	int rc;

	rc = bcn_buf_printf(b, "{\"bool\":{\"filter\":[{\"term\":{\"layer\":\"%s\"}},"
			    "{\"range\":{\"t\":{\"gte\":%" PRId64 ",\"lt\":%" PRId64
			    "}}}", bcn_layer_name((unsigned)q->layer), q->from,
			    q->to);
	if (!rc && q->entity) {
		rc = bcn_buf_adds(b, ",{\"term\":{\"entity\":");
		if (!rc)
			rc = bcn_buf_add_json_str(b, q->entity);
		if (!rc)
			rc = bcn_buf_adds(b, "}}");
	}
	if (!rc && q->job)
		rc = bcn_buf_printf(b, ",{\"term\":{\"job\":\"%" PRIu64 "\"}}",
				    q->job);
	/* only ost and mds documents have a part; all others are totals, and
	 * a term on part matches none of them */
	if (!rc && q->part != BCN_STORE_PART_ANY &&
	    (q->part != BCN_STORE_PART_TOTAL || bcn_es_has_parts(q->layer)))
		rc = bcn_buf_printf(b, ",{\"term\":{\"part\":\"%s\"}}",
				    bcn_store_part_name(q->part));
	if (!rc)
		rc = bcn_buf_adds(b, "]}}");
	if (rc)
		b->len = start;
	return rc;
}

int bcn_es_search_body(struct bcn_buf *b, const struct bcn_store_query *q,
		       size_t size, const char *after)
{
	size_t start = b->len;
	int rc;

	rc = bcn_buf_printf(b, "{\"size\":%zu,\"track_total_hits\":false,"
			    "\"_source\":[\"record\"],\"query\":", size);
	if (!rc)
		rc = bcn_es_query(b, q);
	if (!rc)
		rc = bcn_buf_adds(b, ",\"sort\":[{\"t\":\"asc\"},{\"node\":\"asc\"},"
				  "{\"seq\":\"asc\"},{\"idx\":\"asc\"}]");
	if (!rc && after)
		rc = bcn_buf_printf(b, ",\"search_after\":%s", after);
	if (!rc)
		rc = bcn_buf_adds(b, "}");
	if (rc)
		b->len = start;
	return rc;
}

int bcn_es_count_body(struct bcn_buf *b, const struct bcn_store_query *q)
{
	size_t start = b->len;
	int rc;

	rc = bcn_buf_adds(b, "{\"query\":");
	if (!rc)
		rc = bcn_es_query(b, q);
	if (!rc)
		rc = bcn_buf_adds(b, "}");
	if (rc)
		b->len = start;
	return rc;
}

int bcn_es_sum_body(struct bcn_buf *b, const struct bcn_store_query *q,
		    int64_t interval_ms, size_t size, int has_after,
		    int64_t after_ms)
{
	size_t start = b->len;
	int rc;

	rc = bcn_buf_adds(b, "{\"size\":0,\"track_total_hits\":false,\"query\":");
	if (!rc)
		rc = bcn_es_query(b, q);
	if (!rc)
		rc = bcn_buf_printf(b, ",\"aggs\":{\"b\":{\"composite\":{\"size\":%zu,"
				    "\"sources\":[{\"t\":{\"date_histogram\":{"
				    "\"field\":\"ts\",\"fixed_interval\":\"%" PRId64
				    "ms\"}}}]", size, interval_ms);
	if (!rc && has_after)
		rc = bcn_buf_printf(b, ",\"after\":{\"t\":%" PRId64 "}", after_ms);
	if (!rc)
		rc = bcn_buf_adds(b, "},\"aggs\":{");
	for (size_t i = 0; rc == 0 && i < NTOTALS; i++)
		rc = bcn_buf_printf(b, "%s\"%s\":{\"sum\":{\"field\":\"%s\"}}",
				    i ? "," : "", total_names[i], total_names[i]);
	if (!rc)
		rc = bcn_buf_adds(b, "}}}}");
	if (rc)
		b->len = start;
	return rc;
}

int bcn_es_parts_indices(const char *prefix, char *out, size_t outlen)
{
	int n = snprintf(out, outlen, "%s-%s-*,%s-%s-*", prefix,
			 bcn_layer_name(BCN_LAYER_OST), prefix,
			 bcn_layer_name(BCN_LAYER_MDS));

	return n < 0 || (size_t)n >= outlen ? -BCN_EFULL : 0;
}

int bcn_es_parts_mapping(struct bcn_buf *b)
{
	return bcn_buf_adds(b, "{\"properties\":{\"part\":"
			    "{\"type\":\"keyword\"}}}");
}

int bcn_es_parts_update(struct bcn_buf *b)
{
	/* Painless, over the record as bcn_record_to_json wrote it; the
	 * same rule as bcn_store_record_part(). A _source of the record only
	 * (no node) would lose every other field: no-op. */
	return bcn_buf_adds(b, "{\"query\":{\"bool\":{\"must_not\":"
		"{\"exists\":{\"field\":\"part\"}}}},"
		"\"script\":{\"lang\":\"painless\",\"source\":"
		"\"def r = ctx._source.record; "
		"if (r == null || ctx._source.node == null) { ctx.op = 'noop' } "
		"else { String j = r.jobid; String c = r.client; "
		"ctx._source.part = j != null && !j.isEmpty() ? 'job' : "
		"(c != null && !c.isEmpty() ? 'client' : 'total') }\"}}");
}
