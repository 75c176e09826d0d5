/* Lustre histogram tables (brw_stats, rpc_stats): one line-driven parser
 * over a table of section titles, with the key-value header lines of
 * rpc_stats, and the mapping of rows onto log2 buckets. Pure. */
#include <string.h>

#include "collectors/lustre/lustre_hist.h"
#include "collectors/lustre/lustre_stats.h"
#include "common/error.h"
#include "common/text.h"

static const char *const brw_names[BCN_BRW_SECTIONS] = {
	[BCN_BRW_PAGES] = "pages per bulk r/w",
	[BCN_BRW_DISCONT_PAGES] = "discontiguous pages",
	[BCN_BRW_DISCONT_BLOCKS] = "discontiguous blocks",
	[BCN_BRW_FRAGS] = "disk fragmented I/Os",
	[BCN_BRW_IN_FLIGHT] = "disk I/Os in flight",
	[BCN_BRW_IO_TIME] = "I/O time (1/1000s)",
	[BCN_BRW_IO_SIZE] = "disk I/O size",
	[BCN_BRW_BLOCK_MAPS] = "block maps msec",
};

static const char *const rpc_names[BCN_RPC_SECTIONS] = {
	[BCN_RPC_PAGES] = "pages per rpc",
	[BCN_RPC_IN_FLIGHT] = "rpcs in flight",
	[BCN_RPC_OFFSET] = "offset",
};

/* Header values of rpc_stats: "key: N". */
struct rpc_key {
	const char *key;
	size_t off;             /* of the value in struct bcn_lustre_rpc */
	uint32_t bit;
};

#define RPC_KEY(k, field, b) { k, offsetof(struct bcn_lustre_rpc, field), b }
static const struct rpc_key rpc_keys[] = {
	RPC_KEY("read RPCs in flight", read_in_flight,
		BCN_RPC_HAVE_READ_IN_FLIGHT),
	RPC_KEY("write RPCs in flight", write_in_flight,
		BCN_RPC_HAVE_WRITE_IN_FLIGHT),
	RPC_KEY("pending write pages", pending_write_pages,
		BCN_RPC_HAVE_PENDING_WRITE),
	RPC_KEY("pending read pages", pending_read_pages,
		BCN_RPC_HAVE_PENDING_READ),
	RPC_KEY("modify_RPCs_in_flight", modify_in_flight,
		BCN_RPC_HAVE_MODIFY_IN_FLIGHT),
};

#define SEC_NONE (-1)           /* before the first title */
#define SEC_UNKNOWN (-2)        /* in a section not in the table */

struct ht_ctx {
	const char *const *names;
	unsigned nsec;
	struct bcn_lustre_hist *sec;
	struct bcn_lustre_hist_counts *c;
	int64_t *snapshot, *start, *elapsed;
	struct bcn_lustre_rpc *rpc;     /* NULL for brw_stats */
	int cur;
	uint32_t headers;               /* timestamps and rpc keys */
};

const char *bcn_lustre_brw_name(unsigned sec)
{
	return sec < BCN_BRW_SECTIONS ? brw_names[sec] : "?";
}

const char *bcn_lustre_rpc_name(unsigned sec)
{
	return sec < BCN_RPC_SECTIONS ? rpc_names[sec] : "?";
}

/* "N[K|M|G]:" Returns 0 and advances *pp past the colon, or -1. */
static int row_label(const char **pp, const char *end, uint64_t *label)
{
	const char *p = *pp;
	uint64_t v;
	unsigned shift = 0;

	if (bcn_text_u64(&p, end, &v))
		return -1;
	if (p < end && (*p == 'K' || *p == 'M' || *p == 'G')) {
		shift = *p == 'K' ? 10 : *p == 'M' ? 20 : 30;
		p++;
	}
	if (p == end || *p != ':')
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*label = v << shift;
	*pp = p + 1;
	return 0;
}

/* Numbers up to '|' or the end: the first is the count. */
static int row_column(const char **pp, const char *end, uint64_t *count)
{
	const char *p = bcn_text_skip_space(*pp, end);
	unsigned n = 0;
	uint64_t v;

	while (p < end && *p != '|') {
		if (n && !bcn_text_is_space(p[-1]))
			return -1;
		if (bcn_text_u64(&p, end, &v))
			return -1;
		if (n++ == 0)
			*count = v;
		p = bcn_text_skip_space(p, end);
	}
	*pp = p;
	return n ? 0 : -1;
}

static void ht_row(struct ht_ctx *x, const char *p, const char *end)
{
	struct bcn_lustre_hist *h;
	uint64_t label, rd = 0, wr = 0;
	bool two = false;

	if (row_label(&p, end, &label) || row_column(&p, end, &rd)) {
		x->c->malformed++;
		return;
	}
	if (p < end) {          /* at '|' */
		p++;
		if (row_column(&p, end, &wr) || p != end) {
			x->c->malformed++;
			return;
		}
		two = true;
	}
	if (x->cur == SEC_NONE) {
		x->c->malformed++;
		return;
	}
	if (x->cur == SEC_UNKNOWN) {
		x->c->unknown++;
		return;
	}
	h = &x->sec[x->cur];
	if (h->n == BCN_LUSTRE_HIST_ROWS) {
		x->c->overflow++;
		return;
	}
	h->label[h->n] = label;
	h->count[0][h->n] = rd;
	h->count[1][h->n] = wr;
	h->n++;
	if (two)
		h->ncols = 2;
	else if (h->ncols == 0)
		h->ncols = 1;
	x->c->rows++;
}

/* A section title: a known name followed by blanks (then column titles),
 * or any line with "cum %" (a section this parser does not know). */
static bool ht_title(struct ht_ctx *x, const char *p, const char *end)
{
	size_t len = (size_t)(end - p);
	unsigned i;

	for (i = 0; i < x->nsec; i++) {
		size_t n = strlen(x->names[i]);

		if (len > n && memcmp(p, x->names[i], n) == 0 &&
		    bcn_text_is_space(p[n])) {
			x->cur = (int)i;
			x->c->present |= 1u << i;
			return true;
		}
	}
	if (memmem(p, len, "cum %", 5)) {
		x->cur = SEC_UNKNOWN;
		return true;
	}
	return false;
}

/* The line above each title: "read | write", "read write" or "modify". */
static bool ht_columns(const char *p, const char *end)
{
	while (p < end) {
		const char *w = p;

		while (p < end && !bcn_text_is_space(*p))
			p++;
		if (!((p - w == 4 && memcmp(w, "read", 4) == 0) ||
		      (p - w == 5 && memcmp(w, "write", 5) == 0) ||
		      (p - w == 6 && memcmp(w, "modify", 6) == 0) ||
		      (p - w == 1 && *w == '|')))
			return false;
		p = bcn_text_skip_space(p, end);
	}
	return true;
}

/* rpc_stats "key: N" lines. Returns true if the line was one. */
static bool ht_rpc_key(struct ht_ctx *x, const char *p, const char *end)
{
	const char *colon = memchr(p, ':', (size_t)(end - p));
	const char *v;
	uint64_t val;
	size_t i, klen;

	if (!x->rpc || !colon)
		return false;
	klen = (size_t)(colon - p);
	v = bcn_text_skip_space(colon + 1, end);
	if (bcn_text_u64(&v, end, &val) || bcn_text_skip_space(v, end) != end)
		return false;
	for (i = 0; i < sizeof(rpc_keys) / sizeof(rpc_keys[0]); i++) {
		if (strlen(rpc_keys[i].key) == klen &&
		    memcmp(rpc_keys[i].key, p, klen) == 0) {
			memcpy((char *)x->rpc + rpc_keys[i].off, &val,
			       sizeof(val));
			x->rpc->have |= rpc_keys[i].bit;
			x->headers++;
			return true;
		}
	}
	x->c->unknown++;        /* a key a newer Lustre added */
	return true;
}

static int ht_line(void *arg, const char *line, size_t len)
{
	struct ht_ctx *x = arg;
	const char *end = line + len, *p = bcn_text_skip_space(line, end);
	int rc;

	while (end > p && bcn_text_is_space(end[-1]))
		end--;
	if (p == end)
		return 0;
	if (bcn_text_is_digit(*p)) {
		ht_row(x, p, end);
		return 0;
	}
	rc = bcn_lustre_time_line(p, end, x->snapshot, x->start, x->elapsed);
	if (rc > 0) {
		x->headers++;
		return 0;
	}
	if (rc == 0 && (ht_title(x, p, end) || ht_columns(p, end) ||
			ht_rpc_key(x, p, end)))
		return 0;
	x->c->malformed++;
	return 0;
}

static int ht_parse(struct ht_ctx *x, const char *buf, size_t len)
{
	struct bcn_lustre_lines ls;
	unsigned i;

	*x->snapshot = *x->start = *x->elapsed = -1;
	memset(x->c, 0, sizeof(*x->c));
	for (i = 0; i < x->nsec; i++) {
		x->sec[i].n = 0;
		x->sec[i].ncols = 0;
	}
	x->cur = SEC_NONE;
	x->headers = 0;
	bcn_lustre_lines_init(&ls);
	bcn_lustre_lines_feed(&ls, buf, len, ht_line, x);
	bcn_lustre_lines_end(&ls, ht_line, x);
	x->c->malformed += (uint32_t)ls.overlong_lines;
	if (x->c->malformed && !x->c->present && !x->c->rows && !x->headers)
		return -BCN_ESYNTAX;
	return 0;
}

int bcn_lustre_brw_parse(const char *buf, size_t len,
			 struct bcn_lustre_brw *out)
{
	struct ht_ctx x = {
		.names = brw_names, .nsec = BCN_BRW_SECTIONS, .sec = out->sec,
		.c = &out->c, .snapshot = &out->snapshot_ns,
		.start = &out->start_ns, .elapsed = &out->elapsed_ns,
	};

	return ht_parse(&x, buf, len);
}

int bcn_lustre_rpc_parse(const char *buf, size_t len,
			 struct bcn_lustre_rpc *out)
{
	struct ht_ctx x = {
		.names = rpc_names, .nsec = BCN_RPC_SECTIONS, .sec = out->sec,
		.c = &out->c, .snapshot = &out->snapshot_ns,
		.start = &out->start_ns, .elapsed = &out->elapsed_ns,
		.rpc = out,
	};

	out->read_in_flight = out->write_in_flight = 0;
	out->pending_write_pages = out->pending_read_pages = 0;
	out->modify_in_flight = 0;
	out->have = 0;
	return ht_parse(&x, buf, len);
}

unsigned bcn_lustre_tally_log2(uint64_t value, unsigned nbuckets)
{
	unsigned b = value <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(value - 1);

	return b < nbuckets ? b : nbuckets - 1;
}

unsigned bcn_lustre_log2_bucket(uint64_t value)
{
	unsigned b;

	if (value < 2)
		return 0;
	b = 63u - (unsigned)__builtin_clzll(value);
	return b < BCN_HIST_BUCKETS ? b : BCN_HIST_BUCKETS - 1;
}

void bcn_lustre_hist_log2(const struct bcn_lustre_hist *h, unsigned col,
			  uint64_t out[BCN_HIST_BUCKETS])
{
	uint32_t i;

	if (col >= 2 || col >= h->ncols)
		return;
	for (i = 0; i < h->n; i++)
		out[bcn_lustre_log2_bucket(h->label[i])] += h->count[col][i];
}

uint64_t bcn_lustre_hist_total(const struct bcn_lustre_hist *h, unsigned col)
{
	uint64_t t = 0;
	uint32_t i;

	if (col >= 2 || col >= h->ncols)
		return 0;
	for (i = 0; i < h->n; i++)
		t += h->count[col][i];
	return t;
}

uint64_t bcn_lustre_hist_get(const struct bcn_lustre_hist *h, unsigned col,
			     uint64_t label)
{
	uint32_t i;

	if (col >= 2 || col >= h->ncols)
		return 0;
	for (i = 0; i < h->n; i++)
		if (h->label[i] == label)
			return h->count[col][i];
	return 0;
}
