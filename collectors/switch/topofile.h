/* The fabric's cabling as ibnetdiscover (infiniband-diags) writes it:
 * its topology file format and its ports format (-p), parsed into one
 * link per cabled switch port, for topology records (docs/network.md,
 * "Topology"). Pure: no I/O. */
#ifndef BCN_TOPOFILE_H
#define BCN_TOPOFILE_H

#include <stddef.h>
#include <stdint.h>

#define BCN_TOPO_GUID_MAX 20            /* "0x" + 16 hex digits + NUL */
#define BCN_TOPO_DESC_MAX 128           /* a node description (IB: 64) */
#define BCN_TOPO_LINE_MAX 4096          /* longer lines are errors */
#define BCN_TOPO_PORT_MAX 255

/* One switch port and what it is cabled to. GUIDs are node GUIDs as
 * "0x" and 16 lower-case hex digits. */
struct bcn_topo_link {
	char sw[BCN_TOPO_GUID_MAX];
	char sw_name[BCN_TOPO_DESC_MAX];        /* switch description */
	uint32_t port;
	uint8_t remote_kind;                    /* enum bcn_topo_kind */
	char remote[BCN_TOPO_GUID_MAX];
	uint32_t remote_port;
	char remote_name[BCN_TOPO_DESC_MAX];    /* remote description */
	uint64_t rate;                          /* bytes/s, 0 unknown */
};

/* Called once per link in file order; a non-zero return stops the parse
 * and is returned. */
typedef int bcn_topo_link_fn(void *arg, const struct bcn_topo_link *l);

/* Parses len bytes of an ibnetdiscover topology file or of its -p
 * output (either, told apart line by line) and calls fn for each switch
 * port cabled to a host (H-, R-: a router counts as a host) or another
 * switch. Ports of CAs, unconnected ports and the header lines (vendid=,
 * comments) are skipped. Returns 0; -BCN_ESYNTAX when a node, port or
 * ports-format line is malformed, a port line comes outside a node or a
 * line is longer than BCN_TOPO_LINE_MAX, with *line (when not NULL) its
 * number from 1; or fn's value. */
int bcn_topofile_parse(const char *buf, size_t len, bcn_topo_link_fn *fn,
		       void *arg, size_t *line);

struct bcn_record;

/* Sets r up as the topology record of l at t; r's strings point into
 * l, which must outlive it. */
void bcn_topo_link_record(const struct bcn_topo_link *l, int64_t t,
			  struct bcn_record *r);

/* The data rate in bytes/s of a link of width (1, 2, 4, 8, 12 lanes) and
 * speed ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR",
 * "XDR"), as ibnetdiscover spells them ("4x" and "EDR", or "4xEDR"
 * whole with width 0); 0 when unknown. */
uint64_t bcn_topo_rate(unsigned width, const char *speed);

#endif
