/* Lustre "stats" files: the line splitter, number and timestamp parsing,
 * counter lines, the name -> slot maps and the whole-file parser. Pure:
 * no I/O, no allocation, no logging. */
#include <errno.h>
#include <string.h>

#include "collectors/lustre/lustre_stats.h"
#include "common/error.h"
#include "common/text.h"

#define NS_PER_SEC 1000000000LL
#define SECS_MAX (INT64_MAX / NS_PER_SEC)       /* 9223372036 */
#define FRAC_DIGITS_MAX 9                       /* nanoseconds */

/* ---- Line splitter --------------------------------------------------- */

void bcn_lustre_lines_init(struct bcn_lustre_lines *ls)
{
	ls->plen = 0;
	ls->overlong = false;
	ls->overlong_lines = 0;
}

/* Appends n bytes to the carried-over line, or marks it too long. */
static void lines_carry(struct bcn_lustre_lines *ls, const char *p, size_t n)
{
	if (ls->overlong)
		return;
	if (n >= BCN_LUSTRE_LINE_MAX - ls->plen) {
		ls->overlong = true;
		return;
	}
	memcpy(ls->part + ls->plen, p, n);
	ls->plen += n;
}

/* Hands the carried-over line to fn (or counts it) and empties it. */
static int lines_flush(struct bcn_lustre_lines *ls, bcn_lustre_line_fn *fn,
		       void *arg)
{
	int rc = 0;

	if (ls->overlong)
		ls->overlong_lines++;
	else
		rc = fn(arg, ls->part, ls->plen);
	ls->plen = 0;
	ls->overlong = false;
	return rc;
}

int bcn_lustre_lines_feed(struct bcn_lustre_lines *ls, const char *buf,
			  size_t len, bcn_lustre_line_fn *fn, void *arg)
{
	const char *p = buf, *end = buf + len;
	int rc;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		bool carrying = ls->plen > 0 || ls->overlong;

		if (!nl || carrying) {
			lines_carry(ls, p, n);
			if (!nl)
				return 0;
			rc = lines_flush(ls, fn, arg);
		} else if (n >= BCN_LUSTRE_LINE_MAX) {
			ls->overlong_lines++;
			rc = 0;
		} else {
			rc = fn(arg, p, n);
		}
		if (rc < 0)
			return rc;
		p = nl + 1;
	}
	return 0;
}

int bcn_lustre_lines_end(struct bcn_lustre_lines *ls, bcn_lustre_line_fn *fn,
			 void *arg)
{
	if (ls->plen == 0 && !ls->overlong)
		return 0;
	return lines_flush(ls, fn, arg);
}

/* ---- Scalars --------------------------------------------------------- */

static bool word_at(const char *p, const char *end, const char *w, size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, w, n) == 0;
}

/* The optional unit after a timestamp: 0 none, 6 usecs, 9 nsecs, -1 bad. */
static int time_unit(const char *p, const char *end)
{
	bool paren = false;
	int digits;

	if (p == end)
		return 0;
	if (*p == '(') {
		paren = true;
		p++;
	}
	if (word_at(p, end, "secs.usecs", 10))
		digits = 6;
	else if (word_at(p, end, "secs.nsecs", 10))
		digits = 9;
	else
		return -1;
	p += 10;
	if (paren) {
		if (p == end || *p != ')')
			return -1;
		p++;
	}
	return bcn_text_skip_space(p, end) == end ? digits : -1;
}

int bcn_lustre_parse_time(const char *s, size_t len, int64_t *ns)
{
	const char *p = s, *end = s + len, *fs;
	uint64_t secs, frac = 0, scale = 1;
	size_t width = 0, ndig = 0;
	int unit, rc;

	p = bcn_text_skip_space(p, end);
	rc = bcn_text_u64(&p, end, &secs);
	if (rc)
		return rc;
	if (secs > (uint64_t)SECS_MAX)
		return -BCN_ERANGE;
	if (p < end && *p == '.') {
		fs = ++p;
		p = bcn_text_skip_space(p, end);
		while (p < end && bcn_text_is_digit(*p) && ndig < FRAC_DIGITS_MAX + 1) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			ndig++;
			p++;
		}
		width = (size_t)(p - fs);
		if (ndig == 0 || ndig > FRAC_DIGITS_MAX)
			return -BCN_ESYNTAX;
	}
	if (p < end && !bcn_text_is_space(*p))
		return -BCN_ESYNTAX;
	unit = time_unit(bcn_text_skip_space(p, end), end);
	if (unit < 0)
		return -BCN_ESYNTAX;
	if (unit == 6) {
		if (frac >= 1000000)
			return -BCN_ERANGE;
		frac *= 1000;
	} else if (unit == 0 && ndig) {
		/* a decimal fraction: its printed width gives the scale */
		if (width > FRAC_DIGITS_MAX)
			return -BCN_ESYNTAX;
		for (; width < FRAC_DIGITS_MAX; width++)
			scale *= 10;
		frac *= scale;
	}
	if ((int64_t)secs == SECS_MAX &&
	    (int64_t)frac > INT64_MAX - SECS_MAX * NS_PER_SEC)
		return -BCN_ERANGE;
	*ns = (int64_t)secs * NS_PER_SEC + (int64_t)frac;
	return 0;
}

/* ---- One counter line ------------------------------------------------ */

int bcn_lustre_counter_parse(const char *line, size_t len,
			     struct bcn_lustre_counter *c)
{
	const char *p = line, *end = line + len, *q;
	uint64_t vals[4];
	unsigned n = 0;
	int rc;

	p = bcn_text_skip_space(p, end);
	c->name = p;
	while (p < end && !bcn_text_is_space(*p))
		p++;
	c->name_len = (size_t)(p - c->name);
	if (c->name_len == 0 || p == end)
		return -BCN_ESYNTAX;
	p = bcn_text_skip_space(p, end);
	rc = bcn_text_u64(&p, end, &c->samples);
	if (rc)
		return rc;
	if (p == end || !bcn_text_is_space(*p))
		return -BCN_ESYNTAX;
	p = bcn_text_skip_space(p, end);
	if (!word_at(p, end, "samples", 7))
		return -BCN_ESYNTAX;
	p = bcn_text_skip_space(p + 7, end);
	if (p == end || *p != '[')
		return -BCN_ESYNTAX;
	q = memchr(p, ']', (size_t)(end - p));
	if (!q)
		return -BCN_ESYNTAX;
	c->unit = p + 1;
	c->unit_len = (size_t)(q - p - 1);
	p = q + 1;
	for (;;) {
		const char *before = p;

		p = bcn_text_skip_space(p, end);
		if (p == end)
			break;
		if (p == before || n == 4)
			return -BCN_ESYNTAX;
		rc = bcn_text_u64(&p, end, &vals[n]);
		if (rc)
			return rc;
		n++;
	}
	if (n != 0 && n != 3 && n != 4)
		return -BCN_ESYNTAX;
	c->nvals = n;
	c->min = n ? vals[0] : 0;
	c->max = n ? vals[1] : 0;
	c->sum = n ? vals[2] : 0;
	c->sumsq = n == 4 ? vals[3] : 0;
	return 0;
}

/* ---- Maps ------------------------------------------------------------ */

#define OST_OP_FIELD(id, name) { name, BCN_OST_##id, BCN_LUSTRE_SAMPLES },
#define MD_OP_FIELD(id, name) { name, BCN_MD_##id, BCN_LUSTRE_SAMPLES },

/* OST: each operation by its record.h name; "read" and "write" exist
 * since 2.15 (latency counters, one sample per RPC), before that the
 * samples of read_bytes/write_bytes count the RPCs. 1.8 to 2.4 printed
 * set_info_async where later versions print set_info. */
const struct bcn_lustre_field bcn_lustre_ost_fields[] = {
	BCN_OST_OPS(OST_OP_FIELD)
	{ "read_bytes", BCN_OST_READ, BCN_LUSTRE_SAMPLES },
	{ "write_bytes", BCN_OST_WRITE, BCN_LUSTRE_SAMPLES },
	{ "set_info_async", BCN_OST_SET_INFO, BCN_LUSTRE_SAMPLES },
	{ "read_bytes", BCN_LUSTRE_OST_READ_BYTES, BCN_LUSTRE_SUM },
	{ "write_bytes", BCN_LUSTRE_OST_WRITE_BYTES, BCN_LUSTRE_SUM },
};
const size_t bcn_lustre_ost_nfields =
	sizeof(bcn_lustre_ost_fields) / sizeof(bcn_lustre_ost_fields[0]);

/* MDT: each operation by its record.h name; data-on-MDT reads and writes
 * were counted by read_bytes/write_bytes before 2.15 added "read" and
 * "write"; Lustre 2.0's md_stats carried the service's mds_getattr and
 * mds_statfs instead of getattr and statfs. */
const struct bcn_lustre_field bcn_lustre_md_fields[] = {
	BCN_MD_OPS(MD_OP_FIELD)
	{ "read_bytes", BCN_MD_READ, BCN_LUSTRE_SAMPLES },
	{ "write_bytes", BCN_MD_WRITE, BCN_LUSTRE_SAMPLES },
	{ "mds_getattr", BCN_MD_GETATTR, BCN_LUSTRE_SAMPLES },
	{ "mds_statfs", BCN_MD_STATFS, BCN_LUSTRE_SAMPLES },
};
const size_t bcn_lustre_md_nfields =
	sizeof(bcn_lustre_md_fields) / sizeof(bcn_lustre_md_fields[0]);

_Static_assert(BCN_LUSTRE_OST_SLOTS <= BCN_LUSTRE_SLOTS_MAX, "OST slots");
_Static_assert(BCN_LUSTRE_MD_SLOTS <= BCN_LUSTRE_SLOTS_MAX, "MD slots");
_Static_assert(BCN_LUSTRE_MAP_FIELDS_MAX < 256, "entry index fits 8 bits");

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

int bcn_lustre_map_init(struct bcn_lustre_map *m,
			const struct bcn_lustre_field *fields, size_t n,
			unsigned nslots)
{
	uint8_t idx[BCN_LUSTRE_MAP_REFS];
	size_t i;

	if (n > BCN_LUSTRE_MAP_FIELDS_MAX || nslots > BCN_LUSTRE_SLOTS_MAX)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->fields = fields;
	m->nslots = nslots;
	for (i = 0; i < n; i++) {
		size_t len = fields[i].name ? strlen(fields[i].name) : 0;
		uint32_t h;

		if (len == 0 || len > BCN_LUSTRE_NAME_MAX ||
		    fields[i].slot >= nslots ||
		    fields[i].value > BCN_LUSTRE_SUM)
			return -EINVAL;
		/* entries of one name so far (m->nfields == i) */
		if (bcn_lustre_map_find(m, fields[i].name, len, idx) ==
		    BCN_LUSTRE_MAP_REFS)
			return -EINVAL;
		h = name_hash(fields[i].name, len) & (BCN_LUSTRE_MAP_HASH - 1);
		while (m->hash[h])
			h = (h + 1) & (BCN_LUSTRE_MAP_HASH - 1);
		m->hash[h] = (uint8_t)(i + 1);
		m->flen[i] = (uint8_t)len;
		m->nfields = i + 1;
	}
	return 0;
}

unsigned bcn_lustre_map_find(const struct bcn_lustre_map *m,
			     const char *name, size_t len,
			     uint8_t idx[BCN_LUSTRE_MAP_REFS])
{
	uint32_t h;
	unsigned n = 0;

	if (len == 0 || len > BCN_LUSTRE_NAME_MAX)
		return 0;
	h = name_hash(name, len) & (BCN_LUSTRE_MAP_HASH - 1);
	while (m->hash[h] && n < BCN_LUSTRE_MAP_REFS) {
		unsigned i = m->hash[h] - 1u;
		const char *f = m->fields[i].name;

		if (m->flen[i] == len && f[0] == name[0] &&
		    memcmp(f, name, len) == 0)
			idx[n++] = (uint8_t)i;
		h = (h + 1) & (BCN_LUSTRE_MAP_HASH - 1);
	}
	return n;
}

void bcn_lustre_vals_clear(struct bcn_lustre_vals *vals, unsigned nslots)
{
	if (nslots > BCN_LUSTRE_SLOTS_MAX)
		nslots = BCN_LUSTRE_SLOTS_MAX;
	memset(vals->v, 0, nslots * sizeof(vals->v[0]));
	vals->present = 0;
}

void bcn_lustre_vals_put(struct bcn_lustre_vals *vals,
			 const struct bcn_lustre_map *m, unsigned idx,
			 uint64_t value)
{
	unsigned slot = m->fields[idx].slot;
	uint64_t bit = UINT64_C(1) << slot;

	if ((vals->present & bit) && vals->rank[slot] <= idx)
		return;
	vals->v[slot] = value;
	vals->rank[slot] = (uint8_t)idx;
	vals->present |= bit;
}

unsigned bcn_lustre_map_apply(const struct bcn_lustre_map *m,
			      const struct bcn_lustre_counter *c,
			      struct bcn_lustre_vals *vals)
{
	uint8_t idx[BCN_LUSTRE_MAP_REFS];
	unsigned i, n = bcn_lustre_map_find(m, c->name, c->name_len, idx);

	for (i = 0; i < n; i++) {
		bool sum = m->fields[idx[i]].value == BCN_LUSTRE_SUM;

		bcn_lustre_vals_put(vals, m, idx[i], sum ? c->sum : c->samples);
	}
	return n;
}

/* ---- A whole stats file --------------------------------------------- */

struct stats_ctx {
	const struct bcn_lustre_map *map;
	struct bcn_lustre_stats *out;
	uint32_t headers;
};

/* If line starts with the timestamp key (then blanks or ':'), parses the
 * time into *ns and returns 1 (or a negative code); 0 if it does not. */
static int time_line(const char *p, const char *end, const char *key,
		     int64_t *ns)
{
	size_t n = strlen(key);

	if (!word_at(p, end, key, n))
		return 0;
	p += n;
	if (p < end && *p == ':')
		p++;
	else if (p == end || !bcn_text_is_space(*p))
		return 0;
	return bcn_lustre_parse_time(p, (size_t)(end - p), ns) ?
		-BCN_ESYNTAX : 1;
}

int bcn_lustre_time_line(const char *p, const char *end, int64_t *snapshot,
			 int64_t *start, int64_t *elapsed)
{
	int rc = time_line(p, end, "snapshot_time", snapshot);

	if (rc == 0)
		rc = time_line(p, end, "start_time", start);
	if (rc == 0)
		rc = time_line(p, end, "elapsed_time", elapsed);
	return rc;
}

static int stats_line(void *arg, const char *line, size_t len)
{
	struct stats_ctx *x = arg;
	struct bcn_lustre_stats *o = x->out;
	const char *end = line + len, *p = bcn_text_skip_space(line, end);
	struct bcn_lustre_counter c;
	int rc;

	if (p == end)
		return 0;
	rc = bcn_lustre_time_line(p, end, &o->snapshot_ns, &o->start_ns,
				  &o->elapsed_ns);
	if (rc > 0) {
		x->headers++;
		return 0;
	}
	if (rc < 0 || bcn_lustre_counter_parse(p, (size_t)(end - p), &c)) {
		o->malformed++;
		return 0;
	}
	o->counters++;
	if (bcn_lustre_map_apply(x->map, &c, &o->vals) == 0)
		o->unmapped++;
	return 0;
}

int bcn_lustre_stats_parse(const char *buf, size_t len,
			   const struct bcn_lustre_map *map,
			   struct bcn_lustre_stats *out)
{
	struct stats_ctx x = { map, out, 0 };
	struct bcn_lustre_lines ls;

	out->snapshot_ns = out->start_ns = out->elapsed_ns = -1;
	bcn_lustre_vals_clear(&out->vals, map->nslots);
	out->counters = out->unmapped = out->malformed = 0;
	bcn_lustre_lines_init(&ls);
	bcn_lustre_lines_feed(&ls, buf, len, stats_line, &x);
	bcn_lustre_lines_end(&ls, stats_line, &x);
	out->malformed += (uint32_t)ls.overlong_lines;
	if (out->malformed && out->counters == 0 && x.headers == 0)
		return -BCN_ESYNTAX;
	return 0;
}
