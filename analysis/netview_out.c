/* The network views as JSON (the web API's and `beacon net --json`'s
 * contract, docs/api.md) and as text (netview.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/netview.h"
#include "common/text.h"
#include "common/timefmt.h"

#define SPARK_WIDTH 40

static int iso(struct bcn_buf *b, const char *key, int64_t ns)
{
	char t[BCN_TIMEFMT_OUT_MAX];

	if (bcn_timefmt_format(ns, t, sizeof(t)))
		return bcn_buf_printf(b, "\"%s\":null", key);
	return bcn_buf_printf(b, "\"%s\":\"%s\"", key, t);
}

static int row_json(const struct bcn_netview *v, const struct bcn_netview_row *r,
		    bool series, struct bcn_buf *b)
{
	int rc = bcn_buf_adds(b, "{\"switch\":");

	rc = rc ? rc : bcn_buf_add_json_str(b, r->name);
	rc = rc ? rc : bcn_buf_adds(b, ",\"guid\":");
	rc = rc ? rc : bcn_buf_add_json_str(b, r->guid);
	if (!rc && v->sw[0]) {
		rc = bcn_buf_printf(b, ",\"port\":%" PRIu64 ",\"kind\":\"%s\","
				    "\"rate\":%" PRIu64 ",\"remote\":", r->port,
				    r->kind, r->rate);
		rc = rc ? rc : bcn_buf_add_json_str(b, r->remote);
	}
	rc = rc ? rc : bcn_buf_printf(b, ",\"xmit_bytes\":%" PRIu64
		",\"rcv_bytes\":%" PRIu64 ",\"uplink_xmit_bytes\":%" PRIu64
		",\"uplink_rcv_bytes\":%" PRIu64 ",\"downlink_xmit_bytes\":%"
		PRIu64 ",\"downlink_rcv_bytes\":%" PRIu64, r->xmit, r->rcv,
		r->up_xmit, r->up_rcv, r->down_xmit, r->down_rcv);
	if (!rc && series) {
		rc = bcn_buf_adds(b, ",\"series\":[");
		for (size_t i = 0; !rc && i < v->nb; i++)
			rc = bcn_buf_printf(b, "%s[%" PRIu64 ",%" PRIu64 "]",
					    i ? "," : "", r->series[i].xmit,
					    r->series[i].rcv);
		rc = rc ? rc : bcn_buf_adds(b, "]");
	}
	return rc ? rc : bcn_buf_adds(b, "}");
}

int bcn_netview_to_json(const struct bcn_netview *v, bool series,
			struct bcn_buf *out)
{
	int rc = bcn_buf_adds(out, "{");

	rc = rc ? rc : iso(out, "from", v->from);
	rc = rc ? rc : bcn_buf_adds(out, ",");
	rc = rc ? rc : iso(out, "to", v->to);
	rc = rc ? rc : bcn_buf_printf(out, ",\"step_s\":%.3f,\"buckets\":%zu,"
				      "\"dropped\":%" PRIu64 ",\"switch\":",
				      (double)v->step / 1e9, v->nb, v->dropped);
	rc = rc ? rc : (v->sw[0] ? bcn_buf_add_json_str(out, v->sw) :
			bcn_buf_adds(out, "null"));
	rc = rc ? rc : bcn_buf_printf(out, ",\"%s\":[", v->sw[0] ? "ports" :
				      "switches");
	for (size_t i = 0; !rc && i < v->nrows; i++) {
		rc = i ? bcn_buf_adds(out, ",") : 0;
		rc = rc ? rc : row_json(v, &v->rows[i], series, out);
	}
	return rc ? rc : bcn_buf_adds(out, "]}");
}

static void human(double v, char *out, size_t n)
{
	static const char *const pre[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	unsigned i = 0;

	while (v >= 1024.0 && i + 1 < sizeof(pre) / sizeof(pre[0])) {
		v /= 1024.0;
		i++;
	}
	snprintf(out, n, i ? "%.2f %sB" : "%.0f %sB", v, pre[i]);
}

static int spark(const struct bcn_netview *v, const struct bcn_netview_row *r,
		 bool utf8, struct bcn_buf *b)
{
	static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583",
		"\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#@";
	size_t n = v->nb, w = n < SPARK_WIDTH ? n : SPARK_WIDTH;
	uint64_t col[SPARK_WIDTH] = { 0 }, max = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		col[i * w / n] += r->series[i].xmit + r->series[i].rcv;
	for (size_t i = 0; i < w; i++)
		if (col[i] > max)
			max = col[i];
	for (size_t i = 0; !rc && i < w; i++) {
		unsigned k = max ? (unsigned)((col[i] * 8 + max - 1) / max) : 0;

		rc = utf8 ? bcn_buf_adds(b, blocks[k]) :
			    bcn_buf_add(b, &ascii[k], 1);
	}
	return rc;
}

int bcn_netview_to_text(const struct bcn_netview *v, bool utf8,
			struct bcn_buf *out)
{
	char f[BCN_TIMEFMT_OUT_MAX] = "-", t[BCN_TIMEFMT_OUT_MAX] = "-";
	size_t from = out->len;
	int rc;

	(void)bcn_timefmt_format(v->from, f, sizeof(f));
	(void)bcn_timefmt_format(v->to, t, sizeof(t));
	rc = bcn_buf_printf(out, "%s%s%s%s .. %s, %zu bucket%s of %.0f s\n",
			    v->sw[0] ? "Switch " : "Switches", v->sw, v->sw[0] ?
			    ": ports " : " ", f, t, v->nb, v->nb == 1 ? "" : "s",
			    (double)v->step / 1e9);
	for (size_t i = 0; !rc && i < v->nrows; i++) {
		const struct bcn_netview_row *r = &v->rows[i];
		char x[32], c[32], up[32], down[32], id[BCN_NET_NAME_MAX + 32];

		human((double)r->xmit, x, sizeof(x));
		human((double)r->rcv, c, sizeof(c));
		human((double)(r->up_xmit + r->up_rcv), up, sizeof(up));
		human((double)(r->down_xmit + r->down_rcv), down, sizeof(down));
		if (v->sw[0])
			snprintf(id, sizeof(id), "%3" PRIu64 " %-6s %.24s",
				 r->port, r->kind, r->remote);
		else
			snprintf(id, sizeof(id), "%.32s", r->name);
		rc = bcn_buf_printf(out, "  %-32s xmit %12s  rcv %12s", id, x, c);
		if (!rc && !v->sw[0])
			rc = bcn_buf_printf(out, "  up %12s  down %12s", up, down);
		rc = rc ? rc : bcn_buf_adds(out, "  ");
		rc = rc ? rc : spark(v, r, utf8, out);
		rc = rc ? rc : bcn_buf_adds(out, "\n");
	}
	if (!rc && v->dropped)
		rc = bcn_buf_printf(out, "  (%" PRIu64 " more not shown: over "
				    "the limits)\n", v->dropped);
	if (!rc)        /* names come from the fabric: no terminal controls */
		bcn_text_defang((char *)out->data + from, out->len - from);
	return rc;
}
