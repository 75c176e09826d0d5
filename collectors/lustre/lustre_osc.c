/* The osc import parser and the mapping of one OST's counters onto a
 * fwd_rpc record (lustre_osc.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "collectors/lustre/lustre_osc.h"
#include "common/error.h"
#include "common/text.h"

const struct bcn_lustre_field bcn_lustre_osc_fields[] = {
	{ "ost_read", BCN_LUSTRE_OSC_READ_RPCS, BCN_LUSTRE_SAMPLES },
	{ "read_bytes", BCN_LUSTRE_OSC_READ_RPCS, BCN_LUSTRE_SAMPLES },
	{ "ost_write", BCN_LUSTRE_OSC_WRITE_RPCS, BCN_LUSTRE_SAMPLES },
	{ "write_bytes", BCN_LUSTRE_OSC_WRITE_RPCS, BCN_LUSTRE_SAMPLES },
	{ "read_bytes", BCN_LUSTRE_OSC_READ_BYTES, BCN_LUSTRE_SUM },
	{ "write_bytes", BCN_LUSTRE_OSC_WRITE_BYTES, BCN_LUSTRE_SUM },
};
const size_t bcn_lustre_osc_nfields = sizeof(bcn_lustre_osc_fields) /
			       sizeof(bcn_lustre_osc_fields[0]);

static bool starts(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && memcmp(p, w, n) == 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int bcn_lustre_osc_import_inflight(const char *buf, size_t len,
				   uint64_t *inflight)
{
	const char *p = buf, *end = buf + len;
	ptrdiff_t rpcs_indent = -1;     /* of the "rpcs:" line, -1: outside */
	struct bcn_text_line l;

	while (bcn_text_next_line(&p, end, &l)) {
		const char *le = l.end;
		const char *q = bcn_text_skip_space(l.p, le);
		ptrdiff_t indent = q - l.p;

		if (q == le) {
			/* blank line: no change */
		} else if (rpcs_indent >= 0 && indent > rpcs_indent) {
			if (starts(q, le, "inflight:")) {
				q = bcn_text_skip_space(q + 9, le);
				if (bcn_text_u64(&q, le, inflight))
					return -BCN_ESYNTAX;
				return bcn_text_skip_space(q, le) == le ? 0 :
				       -BCN_ESYNTAX;
			}
		} else {
			rpcs_indent = starts(q, le, "rpcs:") &&
				      bcn_text_skip_space(q + 5, le) == le ?
				      indent : -1;
		}
	}
	return -ENOENT;
}

int bcn_lustre_osc_target_name(const char *dir, char *out, size_t len)
{
	const char *osc = NULL, *s, *ost;
	size_t n;

	for (s = strstr(dir, "-osc-"); s; s = strstr(s + 1, "-osc-"))
		osc = s;
	if (!osc || osc == dir || osc[5] == '\0')
		return -EINVAL;
	n = (size_t)(osc - dir);
	ost = memmem(dir, n, "-OST", 4);
	if (!ost || ost == dir || ost + 4 == osc)
		return -EINVAL;
	if (n >= len)
		return -BCN_EFULL;
	memcpy(out, dir, n);
	out[n] = '\0';
	return 0;
}

void bcn_lustre_osc_counters(const struct bcn_lustre_stats *stats,
			     const struct bcn_lustre_rpc *rpc, uint64_t *v)
{
	uint64_t *h = v + BCN_LUSTRE_OSC_SLOTS;
	unsigned i;

	memset(v, 0, BCN_LUSTRE_OSC_NCOUNTERS * sizeof(*v));
	if (stats)
		for (i = 0; i < BCN_LUSTRE_OSC_SLOTS; i++)
			v[i] = stats->vals.v[i];
	if (!rpc)
		return;
	bcn_lustre_hist_log2(&rpc->sec[BCN_RPC_PAGES], 0, h);
	bcn_lustre_hist_log2(&rpc->sec[BCN_RPC_PAGES], 1, h + BCN_HIST_BUCKETS);
	bcn_lustre_hist_log2(&rpc->sec[BCN_RPC_IN_FLIGHT], 0,
			     h + 2 * BCN_HIST_BUCKETS);
	bcn_lustre_hist_log2(&rpc->sec[BCN_RPC_IN_FLIGHT], 1,
			     h + 3 * BCN_HIST_BUCKETS);
}

void bcn_lustre_osc_record(struct bcn_record *r, const char *target, int64_t t,
			   int64_t dur, const uint64_t *d,
			   const struct bcn_lustre_rpc *rpc, uint64_t in_flight)
{
	struct bcn_rec_fwd_rpc *f = &r->u.fwd_rpc;
	const uint32_t flight = BCN_RPC_HAVE_READ_IN_FLIGHT |
				BCN_RPC_HAVE_WRITE_IN_FLIGHT;
	const uint32_t pending = BCN_RPC_HAVE_PENDING_WRITE |
				 BCN_RPC_HAVE_PENDING_READ;
	size_t h = BCN_HIST_BUCKETS;

	bcn_record_init(r, BCN_REC_FWD_RPC);
	r->t = t;
	r->dur = dur;
	f->target = target;
	f->read_rpcs = d[BCN_LUSTRE_OSC_READ_RPCS];
	f->write_rpcs = d[BCN_LUSTRE_OSC_WRITE_RPCS];
	f->read_bytes = d[BCN_LUSTRE_OSC_READ_BYTES];
	f->write_bytes = d[BCN_LUSTRE_OSC_WRITE_BYTES];
	if (rpc && (rpc->have & flight))
		f->in_flight = sat_add(rpc->read_in_flight,
				       rpc->write_in_flight);
	else if (in_flight != UINT64_MAX)
		f->in_flight = in_flight;
	if (rpc && (rpc->have & pending))
		f->pending_pages = sat_add(rpc->pending_write_pages,
					   rpc->pending_read_pages);
	memcpy(f->pages_read, d + BCN_LUSTRE_OSC_SLOTS, h * sizeof(*d));
	memcpy(f->pages_write, d + BCN_LUSTRE_OSC_SLOTS + h, h * sizeof(*d));
	memcpy(f->flight_read, d + BCN_LUSTRE_OSC_SLOTS + 2 * h, h * sizeof(*d));
	memcpy(f->flight_write, d + BCN_LUSTRE_OSC_SLOTS + 3 * h, h * sizeof(*d));
}
