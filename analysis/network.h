/* Network traffic by switch (docs/network.md): the fabric's topology
 * from topology records, and the port records of a window summed per
 * switch, split into uplinks (switch-to-switch ports) and downlinks
 * (host ports) and, for a job, the ports facing its nodes; with the
 * histogram of the job's volume across its switches and the imbalance
 * figure. Pure: the callers scan the store and feed the records in. */
#ifndef BCN_NETWORK_H
#define BCN_NETWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/tally.h"
#include "proto/record.h"

#define BCN_NET_NAME_MAX 128
#define BCN_NET_HIST_BINS 10
#define BCN_NET_LINKS_MAX (1u << 20)    /* cabled ports kept */

/* One cabled switch port, from the topology record valid for the
 * window. */
struct bcn_net_link {
	char sw[BCN_NET_NAME_MAX];      /* switch GUID */
	char sw_name[BCN_NET_NAME_MAX];
	uint64_t port;
	uint64_t kind;                  /* enum bcn_topo_kind */
	char remote[BCN_NET_NAME_MAX];
	uint64_t remote_port;
	char host[BCN_NET_NAME_MAX];    /* remote_name up to its first blank */
	uint64_t rate;                  /* bytes/s, 0 unknown */
	int64_t t;                      /* the record's time */
};

/* What one switch carried in the window. */
struct bcn_net_switch {
	char name[BCN_NET_NAME_MAX];    /* its description, else its GUID */
	char guid[BCN_NET_NAME_MAX];
	uint64_t xmit, rcv;             /* ports facing the job's nodes */
	uint64_t job_ports;             /* how many of them */
	uint64_t up_xmit, up_rcv;       /* switch-to-switch ports */
	uint64_t down_xmit, down_rcv;   /* host ports */
	uint64_t total_xmit, total_rcv; /* every port with records */
	uint64_t uplinks, downlinks;    /* cabled ports of each kind */
};

struct bcn_net {
	int64_t at;                     /* the topology valid at this time */
	struct bcn_net_link *links;
	size_t nlinks, links_cap;
	struct bcn_tally link_idx;      /* "guid/port", "name/port" -> i + 1 */
	struct bcn_tally nodes;         /* the job's nodes; empty: fabric */
	bool job;                       /* per job (nodes given, or set by
					 * the caller for a job without) */
	struct bcn_net_switch *sw;
	size_t nsw, sw_cap, sw_max;
	struct bcn_tally sw_idx;        /* guid -> i + 1 */
	uint64_t dropped;               /* links or switches over the caps */
	uint64_t unplaced;              /* job nodes on no cabled port */
};

/* An empty state for the topology valid at `at` and at most sw_max
 * switches. */
void bcn_net_init(struct bcn_net *n, int64_t at, size_t sw_max);
void bcn_net_free(struct bcn_net *n);

/* Restricts the per-job figures to these nodes (a job's). Returns 0,
 * -ENOMEM or -BCN_EFULL. */
int bcn_net_add_node(struct bcn_net *n, const char *node);

/* Takes a topology record (others are ignored): per switch port the
 * newest record at or before n->at is valid, else the oldest after it.
 * Returns 0 or -ENOMEM (a link over BCN_NET_LINKS_MAX is counted in
 * dropped). */
int bcn_net_take_topology(struct bcn_net *n, const struct bcn_record *r);

/* The link of a port record's switch (GUID or description) and port,
 * or NULL. */
const struct bcn_net_link *bcn_net_link_of(const struct bcn_net *n,
					   const char *sw, uint64_t port);

/* Creates the switches to report: for a job (nodes given), those with a
 * host port cabled to one of its nodes (and counts the nodes on none in
 * unplaced); else every switch of the topology. Call once, after the
 * topology and before the port records. Returns 0 or -ENOMEM. */
int bcn_net_select(struct bcn_net *n);

/* Adds a port record (others are ignored) to its switch, when selected.
 * Returns 0. */
int bcn_net_take_port(struct bcn_net *n, const struct bcn_record *r);

/* The imbalance figure: the busiest of v[0..n) (*argmax) over the
 * median of the others (at least 1 byte) into *ratio, 0 when n < 2.
 * Returns 0 or -ENOMEM. */
int bcn_net_imbalance(const uint64_t *v, size_t n, double *ratio,
		      size_t *argmax);

/* Counts v[0..n) in BCN_NET_HIST_BINS bins of equal width over
 * [0, max(v)] (the last bin holds max): hist and *width (0 when every
 * value is 0: all count in bin 0). */
void bcn_net_histogram(const uint64_t *v, size_t n,
		       uint64_t hist[BCN_NET_HIST_BINS], uint64_t *width);

#endif
