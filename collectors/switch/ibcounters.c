/* InfiniBand port counter tables and the pure parsers of beacon-swd: one
 * sysfs counter file, and the text output of perfquery (infiniband-diags)
 * in its regular (PortCounters) and extended (-x, PortCountersExtended)
 * forms. */
#include <string.h>

#include "collectors/switch/ibcounters.h"
#include "collectors/runtime/counter.h"
#include "common/error.h"
#include "common/text.h"

#define PQ_NAME_MAX 64          /* longest field name looked up */
#define PQ_ALL_PORTS 255        /* PortSelect of perfquery -a */
#define E(x) (BCN_IB_ERRORS + BCN_PE_##x)
/* One counter: sysfs names, perfquery names (and their lengths), width
 * and unit. */
#define CTR(sys, sys64, pq, pq_old, w, sc) { \
	.sysfs = sys, .sysfs_ext = sys64, \
	.perfquery = pq, .perfquery_old = pq_old, \
	.pq_len = sizeof(pq) - 1, .pq_old_len = sizeof(pq_old) - 1, \
	.bits = w, .scale = sc }

/* Widths from the PortCounters attribute of the InfiniBand architecture
 * specification (vol. 1, 16.1.3.5); traffic counters are 4-byte words. */
const struct bcn_ib_counter_info bcn_ib_counters[BCN_IB_NCOUNTERS] = {
	[BCN_IB_XMIT_DATA] = CTR("port_xmit_data", "port_xmit_data_64",
				 "PortXmitData", "XmtData", 32, 4),
	[BCN_IB_RCV_DATA] = CTR("port_rcv_data", "port_rcv_data_64",
				"PortRcvData", "RcvData", 32, 4),
	[BCN_IB_XMIT_PKTS] = CTR("port_xmit_packets", "port_xmit_packets_64",
				 "PortXmitPkts", "XmtPkts", 32, 1),
	[BCN_IB_RCV_PKTS] = CTR("port_rcv_packets", "port_rcv_packets_64",
				"PortRcvPkts", "RcvPkts", 32, 1),
	[BCN_IB_XMIT_WAIT] = CTR("port_xmit_wait", NULL,
				 "PortXmitWait", "XmtWait", 32, 1),
	[E(SYMBOL_ERROR)] = CTR("symbol_error", NULL,
				"SymbolErrorCounter", "SymbolErrors", 16, 1),
	[E(LINK_ERROR_RECOVERY)] = CTR("link_error_recovery", NULL,
				       "LinkErrorRecoveryCounter",
				       "LinkRecovers", 8, 1),
	[E(LINK_DOWNED)] = CTR("link_downed", NULL,
			       "LinkDownedCounter", "LinkDowned", 8, 1),
	[E(RCV_ERRORS)] = CTR("port_rcv_errors", NULL,
			      "PortRcvErrors", "RcvErrors", 16, 1),
	[E(RCV_REMOTE_PHYSICAL_ERRORS)] = CTR(
		"port_rcv_remote_physical_errors", NULL,
		"PortRcvRemotePhysicalErrors", "RcvRemotePhysErrors", 16, 1),
	[E(RCV_SWITCH_RELAY_ERRORS)] = CTR(
		"port_rcv_switch_relay_errors", NULL,
		"PortRcvSwitchRelayErrors", "RcvSwRelayErrors", 16, 1),
	[E(XMIT_DISCARDS)] = CTR("port_xmit_discards", NULL,
				 "PortXmitDiscards", "XmtDiscards", 16, 1),
	[E(XMIT_CONSTRAINT_ERRORS)] = CTR(
		"port_xmit_constraint_errors", NULL,
		"PortXmitConstraintErrors", "XmtConstraintErrors", 8, 1),
	[E(RCV_CONSTRAINT_ERRORS)] = CTR(
		"port_rcv_constraint_errors", NULL,
		"PortRcvConstraintErrors", "RcvConstraintErrors", 8, 1),
	[E(LOCAL_LINK_INTEGRITY_ERRORS)] = CTR(
		"local_link_integrity_errors", NULL,
		"LocalLinkIntegrityErrors", "LinkIntegrityErrors", 4, 1),
	[E(EXCESSIVE_BUFFER_OVERRUN_ERRORS)] = CTR(
		"excessive_buffer_overrun_errors", NULL,
		"ExcessiveBufferOverrunErrors", "ExcBufOverrunErrors", 4, 1),
	[E(VL15_DROPPED)] = CTR("VL15_dropped", NULL,
				"VL15Dropped", "VL15Dropped", 16, 1),
};

int bcn_ib_sysfs_counter(const char *name, bool ext)
{
	for (unsigned i = 0; i < BCN_IB_NCOUNTERS; i++) {
		const struct bcn_ib_counter_info *c = &bcn_ib_counters[i];

		if (!ext && !strcmp(name, c->sysfs))
			return (int)i;
		if (ext && c->sysfs_ext && !strcmp(name, c->sysfs_ext))
			return BCN_IB_NCOUNTERS + (int)i;
	}
	return -1;
}

int bcn_ib_sysfs_parse(const char *buf, size_t len, uint64_t *value)
{
	while (len > 0 && bcn_text_is_blank(buf[len - 1]))
		len--;
	return bcn_text_u64_all(buf, len, value);
}

uint8_t bcn_ib_sysfs_kind(unsigned i)
{
	if (i >= BCN_IB_NCOUNTERS)
		return BCN_COUNTER_U64;
	return BCN_COUNTER_SAT(bcn_ib_counters[i].bits);
}

uint8_t bcn_ib_perfquery_kind(unsigned i, bool extended)
{
	if (extended || i >= BCN_IB_NCOUNTERS)
		return BCN_COUNTER_U64;
	return BCN_COUNTER_SAT(bcn_ib_counters[i].bits);
}

static int pq_counter(const char *name, size_t len)
{
	for (unsigned i = 0; i < BCN_IB_NCOUNTERS; i++) {
		const struct bcn_ib_counter_info *c = &bcn_ib_counters[i];

		if ((c->pq_len == len && !memcmp(c->perfquery, name, len)) ||
		    (c->pq_old_len == len && !memcmp(c->perfquery_old, name, len)))
			return (int)i;
	}
	return -1;
}

/* Finds word w in p[0..len-1] followed by a space; returns the offset
 * after it, or len. */
static size_t after_word(const char *p, size_t len, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; i + wl < len; i++)
		if (!memcmp(p + i, w, wl) && p[i + wl] == ' ')
			return i + wl + 1;
	return len;
}

/* Leading decimal digits of p[0..len-1] into *v; 0 or -BCN_ESYNTAX. */
static int lead_u64(const char *p, size_t len, uint64_t *v)
{
	size_t n = 0;

	while (n < len && p[n] >= '0' && p[n] <= '9')
		n++;
	return bcn_text_u64_all(p, n, v);
}

/* A header line "# Port [extended ]counters: Lid L port P ..." (or "...
 * all ports"). Returns 1 and fills the port, 0 for a header of another
 * block kind, -BCN_ESYNTAX for a port header without its lid. */
static int pq_header(const char *p, size_t len, struct bcn_ib_pq_port *pp)
{
	static const char reg[] = "# Port counters:";
	static const char ext[] = "# Port extended counters:";
	size_t off;

	memset(pp, 0, sizeof(*pp));
	if (len >= sizeof(reg) - 1 && !memcmp(p, reg, sizeof(reg) - 1)) {
		off = sizeof(reg) - 1;
	} else if (len >= sizeof(ext) - 1 && !memcmp(p, ext, sizeof(ext) - 1)) {
		off = sizeof(ext) - 1;
		pp->extended = true;
	} else {
		return 0;
	}
	p += off;
	len -= off;
	off = after_word(p, len, "Lid");
	if (lead_u64(p + off, len - off, &pp->lid))
		return -BCN_ESYNTAX;
	off = after_word(p, len, "port");
	if (off < len && lead_u64(p + off, len - off, &pp->port) == 0)
		return 1;
	pp->port = PQ_ALL_PORTS;        /* "all ports" */
	return 1;
}

/* A field line "Name:....value" of the current block. Returns 0 or
 * -BCN_ESYNTAX for a malformed or repeated field. */
static int pq_field(const char *p, size_t len, struct bcn_ib_pq_port *pp)
{
	const char *colon = memchr(p, ':', len);
	size_t nl, vo;
	uint64_t v;
	int i;

	if (!colon || colon == p)
		return -BCN_ESYNTAX;
	nl = (size_t)(colon - p);
	for (vo = nl + 1; vo < len && p[vo] == '.'; vo++)
		;
	if (nl == 10 && !memcmp(p, "PortSelect", 10)) {
		if (bcn_text_u64_all(p + vo, len - vo, &v))
			return -BCN_ESYNTAX;
		pp->port = v;
		return 0;
	}
	i = nl < PQ_NAME_MAX ? pq_counter(p, nl) : -1;
	if (i < 0)
		return 0;               /* a field not recorded */
	if (pp->present & (1u << i) || bcn_text_u64_all(p + vo, len - vo, &v))
		return -BCN_ESYNTAX;
	pp->v[i] = v;
	pp->present |= 1u << i;
	return 0;
}

int bcn_ib_perfquery_parse(const char *buf, size_t len,
			   struct bcn_ib_pq_port *out, size_t max, size_t *n,
			   uint64_t *skipped)
{
	struct bcn_ib_pq_port cur;
	uint64_t bad = 0;
	size_t pos = 0;
	int in = 0;             /* 1: a port block, 0: none, -1: other */
	int rc = 0, rc2;

	*n = 0;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nlp = memchr(line, '\n', len - pos);
		size_t ll = nlp ? (size_t)(nlp - line) : len - pos;

		pos += ll + (nlp ? 1 : 0);
		while (ll > 0 && bcn_text_is_blank(line[ll - 1]))
			ll--;
		if (ll == 0)
			continue;
		if (line[0] == '#') {
			if (in == 1 && *n < max)
				out[(*n)++] = cur;
			else if (in == 1)
				rc = -BCN_EFULL;
			rc2 = pq_header(line, ll, &cur);
			if (rc2 < 0)
				bad++;
			in = rc2 > 0 ? 1 : -1;
			continue;
		}
		if (in == -1)
			continue;
		if (in == 0 || pq_field(line, ll, &cur))
			bad++;
	}
	if (in == 1 && *n < max)
		out[(*n)++] = cur;
	else if (in == 1)
		rc = -BCN_EFULL;
	if (skipped)
		*skipped = bad;
	return rc;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (b && a > UINT64_MAX / b)
		return UINT64_MAX;
	return a * b;
}

void bcn_ib_fill_record(struct bcn_rec_port *p, const uint64_t *delta)
{
	const struct bcn_ib_counter_info *c = bcn_ib_counters;

	p->xmit_bytes = mul_sat(delta[BCN_IB_XMIT_DATA],
				c[BCN_IB_XMIT_DATA].scale);
	p->rcv_bytes = mul_sat(delta[BCN_IB_RCV_DATA], c[BCN_IB_RCV_DATA].scale);
	p->xmit_pkts = delta[BCN_IB_XMIT_PKTS];
	p->rcv_pkts = delta[BCN_IB_RCV_PKTS];
	p->xmit_wait = delta[BCN_IB_XMIT_WAIT];
	for (unsigned e = 0; e < BCN_PE_MAX; e++)
		p->errors[e] = delta[BCN_IB_ERRORS + e];
}
