/* libFuzzer target for collectors/lustre/lustre_hist: feeds arbitrary
 * bytes (copied to a buffer of exactly their length) to the brw_stats and
 * rpc_stats parsers and checks the invariants: sections stay within their
 * row bound, their column counts are 0, 1 or 2, rows stored add up to the
 * per-section counts, and mapping every section onto log2 buckets keeps
 * the column totals. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/lustre/lustre_hist.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sections(const struct bcn_lustre_hist *h, unsigned n,
			   const struct bcn_lustre_hist_counts *c, int rc)
{
	uint64_t rows = 0;
	unsigned i, col, b;

	if (rc && rc != -BCN_ESYNTAX)
		abort();
	for (i = 0; i < n; i++) {
		if (h[i].n > BCN_LUSTRE_HIST_ROWS || h[i].ncols > 2)
			abort();
		if (h[i].n && !h[i].ncols)
			abort();
		rows += h[i].n;
		for (col = 0; col < 2; col++) {
			uint64_t out[BCN_HIST_BUCKETS] = { 0 }, t = 0;

			bcn_lustre_hist_log2(&h[i], col, out);
			for (b = 0; b < BCN_HIST_BUCKETS; b++)
				t += out[b];
			if (t != bcn_lustre_hist_total(&h[i], col))
				abort();
		}
	}
	if (rows != c->rows)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_lustre_brw *b = malloc(sizeof(*b));
	struct bcn_lustre_rpc *r = malloc(sizeof(*r));
	char *s = malloc(size ? size : 1);
	int rc;

	if (!s || !b || !r)
		goto out;
	if (size)
		memcpy(s, data, size);
	rc = bcn_lustre_brw_parse(s, size, b);
	check_sections(b->sec, BCN_BRW_SECTIONS, &b->c, rc);
	rc = bcn_lustre_rpc_parse(s, size, r);
	check_sections(r->sec, BCN_RPC_SECTIONS, &r->c, rc);
out:
	free(s);
	free(b);
	free(r);
	return 0;
}
