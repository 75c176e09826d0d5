/* beacon-sim's InfiniBand leaf switches (sim_int.h): compute nodes attach
 * in contiguous groups to `switches` leaf switches, one port each, and
 * each switch has one uplink towards the forwarding and storage nodes.
 * A node's share of what its job was served crosses its port (reads leave
 * the switch towards the node: the port transmits; writes arrive) and the
 * uplink the other way; packets are 4 KiB. An injected hot switch carries
 * FACTOR times its own traffic on its uplink (traffic from elsewhere).
 * The counters are written as a Linux host shows an adapter's ports in
 * sysfs (counters/ with the 32-bit saturating ones, counters_ext/ with the
 * 64-bit ones; data in 4-byte units), for beacon-swd --root, and with
 * `ibsim` also as an ibsim fabric and console commands setting the same
 * counters, for beacon-swd --source pma (docs/sim.md). The cabling is
 * written once as ibnetdiscover's topology file (OUT/topology.net, for
 * beacon-swd's topology_file; scale mode sends it as topology records),
 * with the ibsim fabric's GUIDs and names. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "sim/sim_int.h"

#define MTU 4096
#define U32_MAX_CTR 0xffffffffULL

static uint64_t per_switch(const struct bcn_sim *s)
{
	return (s->c.compute + s->c.switches - 1) / s->c.switches;
}

static struct bcn_sim_port *port(struct bcn_sim *s, uint64_t sw, uint64_t p)
{
	return &s->ports[sw * (per_switch(s) + 1) + p];
}

static void add(struct bcn_sim_port *p, uint64_t xmit, uint64_t rcv)
{
	p->xmit_bytes += xmit;
	p->rcv_bytes += rcv;
	p->xmit_pkts += (xmit + MTU - 1) / MTU;
	p->rcv_pkts += (rcv + MTU - 1) / MTU;
}

void bcn_sim_ib_tick(struct bcn_sim *s)
{
	uint64_t per = s->c.switches ? per_switch(s) : 0, i, node, b, sw;
	uint64_t *up_x, *up_r;
	double f;
	size_t k;

	if (!s->c.switches)
		return;
	up_x = calloc(s->c.switches, sizeof(*up_x));
	up_r = calloc(s->c.switches, sizeof(*up_r));
	if (!up_x || !up_r)
		goto out;
	for (k = 0; k < s->njobs; k++) {
		const struct bcn_sim_job *j = &s->jobs[k];
		bool w = j->phase == BCN_SIM_P_WRITE;

		if (j->state != BCN_SIM_RUNNING || !j->asked ||
		    (j->phase != BCN_SIM_P_READ && !w))
			continue;
		for (i = 0; i < j->nodes; i++) {
			node = j->first + i;
			b = bcn_sim_node_share(s, j, i);   /* 0: a 1-1 job's
							      * idle nodes */
			sw = node / per;
			add(port(s, sw, node % per), w ? 0 : b, w ? b : 0);
			(w ? up_x : up_r)[sw] += b;
		}
	}
	for (sw = 0; sw < s->c.switches; sw++) {
		f = bcn_sim_slow(s->hinj, s->nhinj, sw, s->tick);
		add(port(s, sw, per), (uint64_t)((double)up_x[sw] * f),
		    (uint64_t)((double)up_r[sw] * f));
	}
out:
	free(up_x);
	free(up_r);
}

static int put(const char *dir, const char *name, uint64_t v)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%" PRIu64 "\n", v);

	return bcn_sim_write_file(dir, name, text, (size_t)n);
}

static int write_port(const struct bcn_sim *s, const char *base,
		      const struct bcn_sim_port *p, uint64_t num)
{
	static const char *const fixed[][2] = {
		{ "state", "4: ACTIVE\n" }, { "phys_state", "5: LinkUp\n" },
		{ "rate", "100 Gb/sec (4X EDR)\n" },
		{ "link_layer", "InfiniBand\n" },
	};
	static const char *const zero[] = {
		"symbol_error", "link_error_recovery", "link_downed",
		"port_rcv_errors", "port_rcv_remote_physical_errors",
		"port_rcv_switch_relay_errors", "port_xmit_discards",
		"port_xmit_constraint_errors", "port_rcv_constraint_errors",
		"local_link_integrity_errors",
		"excessive_buffer_overrun_errors", "VL15_dropped",
		"port_xmit_wait",
	};
	const uint64_t ext[4] = { p->xmit_bytes / 4, p->rcv_bytes / 4,
				  p->xmit_pkts, p->rcv_pkts };
	static const char *const names[4] = {
		"port_xmit_data", "port_rcv_data", "port_xmit_packets",
		"port_rcv_packets"
	};
	char dir[BCN_SIM_PATH_MAX + 160], sub[BCN_SIM_PATH_MAX + 192];
	char name[64];
	size_t i;
	int rc = 0;

	(void)s;
	snprintf(dir, sizeof(dir), "%s/ports/%" PRIu64, base, num);
	for (i = 0; !rc && i < sizeof(fixed) / sizeof(fixed[0]); i++)
		rc = bcn_sim_write_file(dir, fixed[i][0], fixed[i][1],
					strlen(fixed[i][1]));
	snprintf(sub, sizeof(sub), "%s/counters", dir);
	for (i = 0; !rc && i < 4; i++)
		rc = put(sub, names[i], ext[i] < U32_MAX_CTR ? ext[i] :
			 U32_MAX_CTR);
	for (i = 0; !rc && i < sizeof(zero) / sizeof(zero[0]); i++)
		rc = put(sub, zero[i], 0);
	snprintf(sub, sizeof(sub), "%s/counters_ext", dir);
	for (i = 0; !rc && i < 4; i++) {
		snprintf(name, sizeof(name), "%s_64", names[i]);
		rc = put(sub, name, ext[i]);
	}
	return rc;
}

/* ibsim GUIDs: fixed, so that tests and users can name the switches. */
#define IBSIM_GUID_NODE 0x00beac0000000000ULL   /* + compute index + 1 */
#define IBSIM_GUID_LEAF 0x00beac0001000000ULL   /* + switch number */
#define IBSIM_GUID_CORE 0x00beac0002000000ULL
#define IBSIM_GUID_MGMT 0x00beac0003000000ULL
#define IBSIM_OUT_MAX (256u << 20)              /* bytes of one file */

/* The fabric in ibsim's net file format: leaf switch swNN has the
 * compute nodes of its group on ports 1..per and its uplink on port
 * per + 1, to port NN of switch "core"; adapter "mgmt" (where beacon-swd
 * attaches) is on the core's last port. */
static int ibsim_net(const struct bcn_sim *s, uint64_t per, struct bcn_buf *b)
{
	uint64_t nsw = s->c.switches, sw, p, node;
	int rc = bcn_buf_printf(b, "# beacon-sim's switches (docs/sim.md)\n\n"
				"switchguid=0x%016llx\nSwitch\t%" PRIu64
				" \"core\"\n", IBSIM_GUID_CORE, nsw + 1);

	for (sw = 0; !rc && sw < nsw; sw++)
		rc = bcn_buf_printf(b, "[%" PRIu64 "]\t\"sw%02" PRIu64 "\"[%"
				    PRIu64 "]\n", sw + 1, sw + 1, per + 1);
	if (!rc)
		rc = bcn_buf_printf(b, "[%" PRIu64 "]\t\"mgmt\"[1]\n\n"
				    "caguid=0x%016llx\nHca\t1 \"mgmt\"\n"
				    "[1]\t\"core\"[%" PRIu64 "]\n\n", nsw + 1,
				    IBSIM_GUID_MGMT, nsw + 1);
	for (sw = 0; !rc && sw < nsw; sw++) {
		rc = bcn_buf_printf(b, "switchguid=0x%016llx\nSwitch\t%" PRIu64
				    " \"sw%02" PRIu64 "\"\n",
				    IBSIM_GUID_LEAF + sw + 1, per + 1, sw + 1);
		for (p = 0; !rc && p < per; p++) {
			node = sw * per + p;
			if (node < s->c.compute)
				rc = bcn_buf_printf(b, "[%" PRIu64 "]\t\"cn%05"
						    PRIu64 "\"[1]\n", p + 1,
						    node + 1);
		}
		if (!rc)
			rc = bcn_buf_printf(b, "[%" PRIu64 "]\t\"core\"[%"
					    PRIu64 "]\n\n", per + 1, sw + 1);
	}
	for (node = 0; !rc && node < s->c.compute; node++)
		rc = bcn_buf_printf(b, "caguid=0x%016llx\nHca\t1 \"cn%05" PRIu64
				    "\"\n[1]\t\"sw%02" PRIu64 "\"[%" PRIu64
				    "]\n\n", IBSIM_GUID_NODE + node + 1,
				    node + 1, node / per + 1, node % per + 1);
	return rc;
}

/* Console commands setting port p of leaf sw to the counters of c: the
 * 64-bit PortCountersExtended and the 32-bit PortCounters (saturated). */
static int ibsim_port(const struct bcn_sim_port *c, uint64_t sw, uint64_t p,
		      struct bcn_buf *b)
{
	static const char *const f[4] = { "PortXmitData", "PortRcvData",
					  "PortXmitPkts", "PortRcvPkts" };
	const uint64_t v[4] = { c->xmit_bytes / 4, c->rcv_bytes / 4,
				c->xmit_pkts, c->rcv_pkts };
	int rc = 0;

	for (int i = 0; !rc && i < 8; i++)
		rc = bcn_buf_printf(b, "PerformanceSet \"sw%02" PRIu64 "\"[%"
				    PRIu64 "] %s.%s=%" PRIu64 "\n", sw + 1, p,
				    i < 4 ? "PortCountersExtended" :
				    "PortCounters", f[i % 4], i < 4 ? v[i] :
				    (v[i % 4] < U32_MAX_CTR ? v[i % 4] :
				     (uint64_t)U32_MAX_CTR));
	return rc;
}

/* OUT/ibsim/net and OUT/ibsim/counters. */
static int ibsim_write(const struct bcn_sim *s, uint64_t per)
{
	char dir[BCN_SIM_PATH_MAX + 16];
	struct bcn_buf b;
	int rc;

	snprintf(dir, sizeof(dir), "%s/ibsim", s->c.out);
	bcn_buf_init(&b, IBSIM_OUT_MAX);
	rc = ibsim_net(s, per, &b);
	if (!rc)
		rc = bcn_sim_write_file(dir, "net", b.data, b.len);
	bcn_buf_reset(&b);
	for (uint64_t sw = 0; !rc && sw < s->c.switches; sw++)
		for (uint64_t p = 0; !rc && p <= per; p++)
			rc = ibsim_port(port((struct bcn_sim *)s, sw, p), sw,
					p + 1, &b);
	if (!rc)
		rc = bcn_sim_write_file(dir, "counters", b.data, b.len);
	bcn_buf_free(&b);
	return rc;
}

/* Leaves per core switch in the topology file: one core takes at most
 * BCN_SIM_IBSIM_PORTS leaves (a switch has at most 255 ports), larger
 * fabrics get more cores ("core", "core2", ...), as a site's spine. */
#define LEAVES_PER_CORE BCN_SIM_IBSIM_PORTS

static void core_name(uint64_t k, char *buf, size_t len)
{
	if (k)
		snprintf(buf, len, "core%" PRIu64, k + 1);
	else
		snprintf(buf, len, "core");
}

/* Core switch k of the topology file with its leaves' uplinks. */
static int topo_core(const struct bcn_sim *s, uint64_t per, uint64_t k,
		     struct bcn_buf *out)
{
	uint64_t first = k * LEAVES_PER_CORE, sw, nsw = s->c.switches;
	uint64_t n = nsw - first < LEAVES_PER_CORE ? nsw - first :
		     LEAVES_PER_CORE;
	char name[32];
	int rc;

	core_name(k, name, sizeof(name));
	rc = bcn_buf_printf(out, "switchguid=0x%016llx\nSwitch\t%" PRIu64
			    " \"S-%016llx\"\t\t# \"%s\" base port 0 lid %" PRIu64
			    " lmc 0\n", IBSIM_GUID_CORE + k, n + 1,
			    IBSIM_GUID_CORE + k, name, k + 1);
	for (sw = first; !rc && sw < first + n; sw++)
		rc = bcn_buf_printf(out, "[%" PRIu64 "]\t\"S-%016llx\"[%" PRIu64
				    "]\t\t# \"sw%02" PRIu64 "\" lid %" PRIu64
				    " 4xEDR\n", sw - first + 1,
				    IBSIM_GUID_LEAF + sw + 1, per + 1, sw + 1,
				    sw + 2);
	return rc ? rc : bcn_buf_adds(out, "\n");
}

/* Leaf switch sw of the topology file: its nodes and its uplink. */
static int topo_leaf(const struct bcn_sim *s, uint64_t per, uint64_t sw,
		     struct bcn_buf *out)
{
	uint64_t k = sw / LEAVES_PER_CORE, p, node;
	char name[32];
	int rc;

	core_name(k, name, sizeof(name));
	rc = bcn_buf_printf(out, "switchguid=0x%016llx\nSwitch\t%" PRIu64
			    " \"S-%016llx\"\t\t# \"sw%02" PRIu64 "\" base port 0 "
			    "lid %" PRIu64 " lmc 0\n", IBSIM_GUID_LEAF + sw + 1,
			    per + 1, IBSIM_GUID_LEAF + sw + 1, sw + 1, sw + 2);
	for (p = 0; !rc && p < per; p++) {
		node = sw * per + p;
		if (node >= s->c.compute)
			break;
		rc = bcn_buf_printf(out, "[%" PRIu64 "]\t\"H-%016llx\"[1]"
				    "(%llx) \t\t# \"cn%05" PRIu64 "\" lid %"
				    PRIu64 " 4xEDR\n", p + 1,
				    IBSIM_GUID_NODE + node + 1,
				    IBSIM_GUID_NODE + node + 1, node + 1,
				    1000 + node);
	}
	if (!rc)
		rc = bcn_buf_printf(out, "[%" PRIu64 "]\t\"S-%016llx\"[%" PRIu64
				    "]\t\t# \"%s\" lid %" PRIu64 " 4xEDR\n\n",
				    per + 1, IBSIM_GUID_CORE + k,
				    sw % LEAVES_PER_CORE + 1, name, k + 1);
	return rc;
}

/* The cabling as ibnetdiscover shows the ibsim fabric above: leaf swNN
 * (GUID IBSIM_GUID_LEAF + NN) with compute node cnXXXXX (node GUID
 * IBSIM_GUID_NODE + XXXXX) on its node ports and its last port to port
 * NN of "core" (listed first, as ibnetdiscover starts from it); the
 * adapter "mgmt" that only ibsim needs is left out. Beyond
 * LEAVES_PER_CORE leaves (no ibsim fabric is that large) leaf NN goes
 * to core NN / LEAVES_PER_CORE + 1. Every link 4xEDR, as the sysfs rate
 * says. */
int bcn_sim_ib_topology(const struct bcn_sim *s, struct bcn_buf *out)
{
	uint64_t per = s->c.switches ? per_switch(s) : 0, sw, k;
	uint64_t cores = (s->c.switches + LEAVES_PER_CORE - 1) / LEAVES_PER_CORE;
	int rc = bcn_buf_printf(out, "#\n# Topology file: beacon-sim, %" PRIu64
				" leaf switches\n#\n\n", s->c.switches);

	for (k = 0; !rc && k < cores; k++)
		rc = topo_core(s, per, k, out);
	for (sw = 0; !rc && sw < s->c.switches; sw++)
		rc = topo_leaf(s, per, sw, out);
	return rc;
}

/* OUT/topology.net, unless it already holds the same cabling (a run
 * resumed with --until): beacon-swd resends the file when it changes. */
static int write_topology(struct bcn_sim *s)
{
	char path[BCN_SIM_PATH_MAX + 16];
	struct bcn_buf t, old;
	int rc;

	bcn_buf_init(&t, 64u << 20);
	bcn_buf_init(&old, 64u << 20);
	snprintf(path, sizeof(path), "%s/topology.net", s->c.out);
	rc = bcn_sim_ib_topology(s, &t);
	if (!rc && (bcn_buf_read_file(&old, path) || old.len != t.len ||
		    memcmp(old.data, t.data, t.len)))
		rc = bcn_sim_write_file(s->c.out, "topology.net",
					(const char *)t.data, t.len);
	bcn_buf_free(&t);
	bcn_buf_free(&old);
	s->topo_written = !rc;
	return rc;
}

int bcn_sim_ib_write(struct bcn_sim *s)
{
	uint64_t per, sw, p;
	char base[BCN_SIM_PATH_MAX + 128];
	int rc = 0;

	if (!s->c.switches)
		return 0;
	per = per_switch(s);
	if (!s->topo_written)
		rc = write_topology(s);
	for (sw = 0; !rc && sw < s->c.switches; sw++) {
		snprintf(base, sizeof(base), "%s/sw%02" PRIu64
			 "/sys/class/infiniband/sw%02" PRIu64, s->c.out,
			 sw + 1, sw + 1);
		for (p = 0; !rc && p <= per; p++)
			rc = write_port(s, base, port(s, sw, p), p + 1);
	}
	if (!rc && s->c.ibsim)
		rc = ibsim_write(s, per);
	if (rc)
		BCN_ERR("sim: switch counters: %s", bcn_strerror(rc));
	return rc;
}
