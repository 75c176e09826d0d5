/* libFuzzer target for collectors/lustre/lustre_stats: feeds arbitrary
 * bytes (copied to a buffer of exactly their length) to the stats file
 * parser through the OST and MDT maps, and to the timestamp and counter
 * line parsers, and checks the invariants: only the map's slots are set,
 * every line is either counted or skipped, a failed parse leaves its
 * output alone, and the line splitter gives the same lines whatever the
 * chunking. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/lustre/lustre_stats.h"
#include "common/error.h"

#define FZ_SENTINEL 0x5a5a5a5a5a5all

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct bcn_lustre_map ost_map, md_map;
static int maps_ready;

static void check_stats(const char *s, size_t len,
			const struct bcn_lustre_map *m)
{
	struct bcn_lustre_stats st;
	int rc = bcn_lustre_stats_parse(s, len, m, &st);

	if (rc && rc != -BCN_ESYNTAX)
		abort();
	if (m->nslots < 64 && (st.vals.present >> m->nslots))
		abort();
	if (st.unmapped > st.counters)
		abort();
	if (rc && (st.counters || !st.malformed))
		abort();
}

struct sum {
	uint64_t lines, bytes, hash;
};

static int sum_line(void *arg, const char *line, size_t len)
{
	struct sum *s = arg;
	size_t i;

	s->lines++;
	s->bytes += len;
	for (i = 0; i < len; i++)
		s->hash = (s->hash ^ (uint8_t)line[i]) * 1099511628211ULL;
	s->hash = (s->hash ^ '\n') * 1099511628211ULL;
	return 0;
}

static void check_lines(const char *s, size_t len)
{
	struct bcn_lustre_lines a, b;
	struct sum x = { 0, 0, 0 }, y = { 0, 0, 0 };
	size_t cut = len ? (uint8_t)s[0] % len : 0;

	bcn_lustre_lines_init(&a);
	bcn_lustre_lines_feed(&a, s, len, sum_line, &x);
	bcn_lustre_lines_end(&a, sum_line, &x);
	bcn_lustre_lines_init(&b);
	bcn_lustre_lines_feed(&b, s, cut, sum_line, &y);
	bcn_lustre_lines_feed(&b, s + cut, len - cut, sum_line, &y);
	bcn_lustre_lines_end(&b, sum_line, &y);
	if (x.lines != y.lines || x.bytes != y.bytes || x.hash != y.hash ||
	    a.overlong_lines != b.overlong_lines)
		abort();
}

static void check_scalars(const char *s, size_t len)
{
	struct bcn_lustre_counter c;
	int64_t ns = FZ_SENTINEL;
	int rc = bcn_lustre_parse_time(s, len, &ns);

	if (rc && ns != FZ_SENTINEL)
		abort();
	if (!rc && ns < 0)
		abort();
	if (bcn_lustre_counter_parse(s, len, &c) == 0) {
		if (c.name < s || c.name + c.name_len > s + len ||
		    c.unit < s || c.unit + c.unit_len > s + len)
			abort();
		if (c.nvals != 0 && c.nvals != 3 && c.nvals != 4)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);

	if (!s)
		return 0;
	if (!maps_ready) {
		if (bcn_lustre_map_init(&ost_map, bcn_lustre_ost_fields,
					bcn_lustre_ost_nfields,
					BCN_LUSTRE_OST_SLOTS) ||
		    bcn_lustre_map_init(&md_map, bcn_lustre_md_fields,
					bcn_lustre_md_nfields,
					BCN_LUSTRE_MD_SLOTS))
			abort();
		maps_ready = 1;
	}
	if (size)
		memcpy(s, data, size);
	check_stats(s, size, &ost_map);
	check_stats(s, size, &md_map);
	check_lines(s, size);
	check_scalars(s, size);
	free(s);
	return 0;
}
