/* Fabric-wide network views (docs/network.md, "beacon net"): the
 * traffic of every switch over a window, or of every port of one switch,
 * in totals, uplink/downlink splits (by the topology records) and time
 * buckets; for `beacon net` and the web API (web/api_network.c). */
#ifndef BCN_NETVIEW_H
#define BCN_NETVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/network.h"
#include "analysis/stores.h"
#include "common/buf.h"

#define BCN_NETVIEW_BUCKETS_MAX 10000
#define BCN_NETVIEW_ROWS_MAX 100000

struct bcn_netview_point {
	uint64_t xmit, rcv;
};

/* A switch, or with a switch given one of its ports. */
struct bcn_netview_row {
	char name[BCN_NET_NAME_MAX];    /* switch description, else its id */
	char guid[BCN_NET_NAME_MAX];    /* "" when no topology names it */
	uint64_t port;                  /* port rows */
	char kind[8];                   /* port rows: "host", "switch", "" */
	char remote[BCN_NET_NAME_MAX];  /* port rows: the far end's name */
	uint64_t rate;                  /* port rows: bytes/s, 0 unknown */
	uint64_t xmit, rcv;
	uint64_t up_xmit, up_rcv, down_xmit, down_rcv;
	struct bcn_netview_point *series;       /* nb buckets */
};

struct bcn_netview {
	int64_t from, to, step;
	size_t nb;
	char sw[BCN_NET_NAME_MAX];      /* the switch of port rows, or "" */
	struct bcn_netview_row *rows;   /* by name (ports by number) */
	size_t nrows;
	uint64_t dropped;               /* rows over the cap */
};

/* The view of [from, to) in buckets of step ns (at most
 * BCN_NETVIEW_BUCKETS_MAX: a longer window gets wider ones): one row per
 * switch, or, when sw (GUID or description) is not NULL, one per port of
 * that switch. Topology records up to topo_age_ns before from count. A
 * row's split into uplinks and downlinks needs the topology; switches
 * without it appear under the name their port records give. *out is
 * freed with bcn_netview_free. Returns 0, -ENOENT (sw has no records in
 * the window), -EINVAL or a store's code. */
int bcn_netview_compute(const struct bcn_stores *st, int64_t from, int64_t to,
			int64_t step, const char *sw, int64_t topo_age_ns,
			struct bcn_netview **out);
void bcn_netview_free(struct bcn_netview *v);

/* The view as one JSON object (docs/api.md, "Network"). series: with
 * each row's buckets. */
int bcn_netview_to_json(const struct bcn_netview *v, bool series,
			struct bcn_buf *out);

/* The view as text: a row per switch (port) with its totals and a
 * sparkline of its traffic when utf8. */
int bcn_netview_to_text(const struct bcn_netview *v, bool utf8,
			struct bcn_buf *out);

#endif
