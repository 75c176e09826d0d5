/* beacon-swd's PMA source (pma.h): the MAD I/O. Discovery is the
 * bounded directed-route walk of pmawalk.c; sampling is synchronous
 * pma_query_via calls on one libibmad port, decoded by pmamad.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "collectors/switch/pma.h"
#include "collectors/switch/pmamad.h"
#include "collectors/switch/pmawalk.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/log.h"

#define PMA_BUF (IB_MAD_SIZE * 2)       /* pma_query_via's buffer */

/* One switch sampled. */
struct pma_sw {
	char name[BCN_SWD_NAME_MAX];
	uint64_t guid;
	uint16_t lid;
	uint8_t nports;
	bool cpi_known;                 /* ClassPortInfo answered */
	bool ext;                       /* PortCountersExtended is used */
	uint8_t linked[(BCN_PMA_PORTS_MAX + 1) / 8 + 1]; /* bit per port */
	struct bcn_complain miss_c;
	uint64_t misses;
};

struct bcn_pma {
	struct bcn_pma_conf conf;
	char ca[BCN_PMA_CA_MAX];
	struct ibmad_port *port;
	struct pma_sw *sw;
	size_t nsw;
	struct bcn_complain disc_c, missing_c, budget_c, bad_c;
};

int bcn_pma_open(const struct bcn_pma_conf *conf, struct bcn_pma **out)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS,
			  IB_PERFORMANCE_CLASS };
	struct bcn_pma *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->conf = *conf;
	snprintf(p->ca, sizeof(p->ca), "%s", conf->ca ? conf->ca : "");
	p->port = mad_rpc_open_port(p->ca[0] ? p->ca : NULL, conf->port,
				    classes, 3);
	if (!p->port) {
		BCN_ERR("cannot open InfiniBand port %s:%d for MADs (see "
			"docs/network.md for /dev/infiniband/umad*)",
			p->ca[0] ? p->ca : "(first adapter)", conf->port);
		free(p);
		return -ENODEV;
	}
	/* misses are logged here, rate-limited, not by libibmad per MAD */
	madrpc_show_errors(0);
	mad_rpc_set_timeout(p->port, conf->timeout_ms);
	mad_rpc_set_retries(p->port, conf->retries);
	*out = p;
	return 0;
}

void bcn_pma_close(struct bcn_pma *p)
{
	if (!p)
		return;
	if (p->port)
		mad_rpc_close_port(p->port);
	free(p->sw);
	free(p);
}

size_t bcn_pma_nswitches(const struct bcn_pma *p)
{
	return p->nsw;
}

/* The configured entry matching switch n, or NULL; with no list every
 * switch matches (returned as `all`). */
static const struct bcn_swd_target *pma_wanted(const struct bcn_pma *p,
					       const struct bcn_pma_node *n,
					       const struct bcn_swd_target *all)
{
	char id[BCN_SWD_ID_MAX];

	if (!p->conf.nonly)
		return all;
	for (size_t i = 0; i < p->conf.nonly; i++) {
		const struct bcn_swd_target *t = &p->conf.only[i];

		if (t->guid)
			snprintf(id, sizeof(id), "0x%016" PRIx64, n->guid);
		else
			snprintf(id, sizeof(id), "%u", n->lid);
		if (!strcmp(id, t->id))
			return t;
	}
	return NULL;
}

/* Fills sw from switch n (t: its configuration entry, or `all`), keeping
 * what was learnt of the same switch in old[0..nold-1]. */
static void pma_fill(struct pma_sw *sw, const struct bcn_pma_node *n,
		     const struct bcn_swd_target *t, const struct pma_sw *old,
		     size_t nold)
{
	memset(sw, 0, sizeof(*sw));
	sw->guid = n->guid;
	sw->lid = n->lid;
	sw->nports = n->nports;
	memcpy(sw->linked, n->linked, sizeof(sw->linked));
	if (t->sw[0])
		snprintf(sw->name, sizeof(sw->name), "%s", t->sw);
	else
		snprintf(sw->name, sizeof(sw->name), "0x%016" PRIx64, n->guid);
	for (size_t i = 0; i < nold; i++)
		if (old[i].guid == sw->guid && old[i].lid == sw->lid) {
			sw->cpi_known = old[i].cpi_known;
			sw->ext = old[i].ext;
			sw->miss_c = old[i].miss_c;
			sw->misses = old[i].misses;
		}
}

/* Replaces the switch list of p with the wanted ones of found[0..nf-1]. */
static int pma_take(struct bcn_pma *p, const struct bcn_pma_node *found,
		    size_t nf)
{
	static const struct bcn_swd_target all;
	struct pma_sw *sw;
	size_t n = 0;
	bool *seen = NULL;

	sw = calloc(nf ? nf : 1, sizeof(*sw));
	if (p->conf.nonly)
		seen = calloc(p->conf.nonly, sizeof(*seen));
	if (!sw || (p->conf.nonly && !seen)) {
		free(sw);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nf; i++) {
		const struct bcn_swd_target *t = pma_wanted(p, &found[i], &all);

		if (!t || !found[i].lid)
			continue;
		if (t != &all)
			seen[t - p->conf.only] = true;
		pma_fill(&sw[n++], &found[i], t, p->sw, p->nsw);
	}
	for (size_t i = 0; i < p->conf.nonly; i++)
		if (!seen[i])
			bcn_complain(&p->missing_c, BCN_LOG_WARNING,
				     "pma_switch %s (%s) not found in the "
				     "fabric", p->conf.only[i].sw,
				     p->conf.only[i].id);
	free(seen);
	free(p->sw);
	p->sw = sw;
	p->nsw = n;
	return 0;
}

int bcn_pma_discover(struct bcn_pma *p)
{
	struct bcn_pma_node *found = NULL;
	uint64_t dropped = 0;
	size_t nf = 0;
	int rc;

	rc = bcn_pma_walk(p->port, p->conf.timeout_ms, p->conf.max_hops,
			  BCN_PMA_MAX_SWITCHES, &found, &nf, &dropped);
	if (rc) {
		bcn_complain(&p->disc_c, BCN_LOG_ERR, "fabric discovery "
			     "failed (%s); %zu switches of the last walk kept",
			     bcn_strerror(rc), p->nsw);
		return rc;
	}
	if (dropped)
		bcn_complain(&p->missing_c, BCN_LOG_WARNING, "more than %d "
			     "switches in the fabric: %" PRIu64 " left out",
			     BCN_PMA_MAX_SWITCHES, dropped);
	rc = pma_take(p, found, nf);
	free(found);
	if (!rc)
		bcn_complain_release(&p->disc_c, BCN_LOG_NOTICE, "fabric "
				     "discovery works again");
	return rc;
}

/* One PMA query of attribute attr for port `port` of sw into buf.
 * Returns 0 or -ETIMEDOUT (no answer, after the retries). */
static int pma_query(struct bcn_pma *p, const struct pma_sw *sw,
		     unsigned port, unsigned attr, uint8_t *buf)
{
	ib_portid_t id;

	memset(&id, 0, sizeof(id));
	ib_portid_set(&id, sw->lid, 0, 0);
	memset(buf, 0, PMA_BUF);
	if (!pma_query_via(buf, &id, (int)port,
			   (unsigned)p->conf.timeout_ms, attr, p->port))
		return -ETIMEDOUT;
	return 0;
}

/* Learns whether sw keeps the 64-bit counters. */
static int pma_cpi(struct bcn_pma *p, struct pma_sw *sw, uint8_t *buf)
{
	uint16_t cap;
	int rc = pma_query(p, sw, 0, BCN_PMA_ATTR_CPI, buf);

	if (rc)
		return rc;
	rc = bcn_pma_cpi_parse(buf, BCN_PMA_DATA_LEN, &cap);
	if (rc)
		return rc;
	sw->cpi_known = true;
	sw->ext = p->conf.ext == BCN_PMA_EXT_AUTO && bcn_pma_ext_supported(cap);
	BCN_DEBUG("switch %s (lid %u): PMA capabilities 0x%04x, %s counters",
		  sw->name, sw->lid, cap, sw->ext ? "64-bit" : "32-bit");
	return 0;
}

/* Reads the counters of port `port` of sw into v. Returns 0,
 * -ETIMEDOUT, or a decoding error (counted in st). */
static int pma_port(struct bcn_pma *p, const struct pma_sw *sw,
		    unsigned port, uint8_t *buf, uint64_t *v,
		    struct bcn_pma_stats *st)
{
	int rc = pma_query(p, sw, port, BCN_PMA_ATTR_PC, buf);

	if (!rc)
		rc = bcn_pma_pc_parse(buf, BCN_PMA_DATA_LEN, (uint8_t)port, v);
	if (!rc && sw->ext) {
		rc = pma_query(p, sw, port, BCN_PMA_ATTR_PCX, buf);
		if (!rc)
			rc = bcn_pma_pcx_parse(buf, BCN_PMA_DATA_LEN,
					       (uint8_t)port, v);
	}
	if (rc && rc != -ETIMEDOUT) {
		st->bad++;
		bcn_complain(&p->bad_c, BCN_LOG_WARNING, "switch %s port %u: "
			     "an answer that does not decode (%s)", sw->name,
			     port, bcn_strerror(rc));
	}
	return rc;
}

/* Samples one switch. Returns 0, -ETIMEDOUT (a miss), or fn's code. */
static int pma_switch(struct bcn_pma *p, struct pma_sw *sw,
		      bcn_pma_port_fn fn, void *arg, struct bcn_pma_stats *st)
{
	uint8_t buf[PMA_BUF];
	uint64_t v[BCN_IB_NCOUNTERS];
	int rc = 0;

	if (!sw->cpi_known)
		rc = pma_cpi(p, sw, buf);
	for (unsigned i = 1; !rc && i <= sw->nports; i++) {
		if (!(sw->linked[i / 8] & (1u << (i % 8))))
			continue;
		memset(v, 0, sizeof(v));
		rc = pma_port(p, sw, i, buf, v, st);
		if (rc == -ETIMEDOUT)
			break;
		if (rc) {
			rc = 0;         /* counted; the next port may decode */
			continue;
		}
		st->ports++;
		rc = fn(arg, sw->name, i, v, sw->ext);
		if (rc)
			return rc;
	}
	return rc;
}

int bcn_pma_sample(struct bcn_pma *p, bcn_pma_port_fn fn, void *arg,
		   struct bcn_pma_stats *st)
{
	int64_t end = bcn_mono_ms() + p->conf.budget_ms;
	uint64_t late = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < p->nsw; i++) {
		struct pma_sw *sw = &p->sw[i];

		if (bcn_mono_ms() >= end) {
			late = p->nsw - i;
			break;
		}
		rc = pma_switch(p, sw, fn, arg, st);
		if (rc == -ETIMEDOUT) {
			st->misses++;
			sw->misses++;
			bcn_complain(&sw->miss_c, BCN_LOG_WARNING, "switch %s "
				     "(lid %u) does not answer PMA queries "
				     "(%" PRIu64 " samples missed)", sw->name,
				     sw->lid, sw->misses);
			continue;
		}
		if (rc)
			return rc;
		st->switches++;
		bcn_complain_release(&sw->miss_c, BCN_LOG_NOTICE, "switch %s "
				     "answers again", sw->name);
	}
	st->over_budget = late;
	if (late)
		bcn_complain(&p->budget_c, BCN_LOG_WARNING, "sample budget of "
			     "%" PRId64 " ms spent: %" PRIu64 " switches left "
			     "out (raise pma_budget or split the switches "
			     "between daemons)", p->conf.budget_ms, late);
	return 0;
}
