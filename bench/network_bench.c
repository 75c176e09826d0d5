/* Network benchmark (docs/network.md): a synthetic fat tree of LEAVES
 * leaf switches (32 hosts and 4 uplinks each) and their spines, written
 * as ibnetdiscover's topology file, then timed:
 *   parse    bcn_topofile_parse over the text (MB/s, cabled ports/s)
 *   job      bcn_net: the topology's records, a job on half the hosts,
 *            MINUTES of one port record per cabled port per minute
 *            (port records/s), as a report's network part runs
 * Each prints one JSON object per line, the median of REPS runs.
 * usage: network_bench [LEAVES [MINUTES [REPS]]] (default 512 60 5) */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/network.h"
#include "collectors/switch/topofile.h"
#include "common/buf.h"

#define HOSTS 32
#define UPLINKS 4
#define REPS_MAX 100

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int fabric(uint64_t leaves, struct bcn_buf *b)
{
	uint64_t spines = (leaves * UPLINKS + 35) / 36;
	int rc = 0;

	for (uint64_t l = 0; !rc && l < leaves; l++) {
		rc = bcn_buf_printf(b, "Switch\t36 \"S-%016" PRIx64 "\"\t\t# "
				    "\"leaf%05" PRIu64 "\" base port 0 lid 1\n",
				    0x10000 + l, l);
		for (uint64_t p = 0; !rc && p < HOSTS; p++)
			rc = bcn_buf_printf(b, "[%" PRIu64 "]\t\"H-%016" PRIx64
					    "\"[1](%" PRIx64 ") \t\t# \"cn%06"
					    PRIu64 " mlx5_0\" lid 9 4xHDR\n", p + 1,
					    0x100000 + 2 * (l * HOSTS + p),
					    0x100001 + 2 * (l * HOSTS + p),
					    l * HOSTS + p);
		for (uint64_t u = 0; !rc && u < UPLINKS; u++) {
			uint64_t k = l * UPLINKS + u;

			rc = bcn_buf_printf(b, "[%d]\t\"S-%016" PRIx64 "\"[%" PRIu64
					    "]\t\t# \"spine%03" PRIu64 "\" lid 2 "
					    "4xHDR\n", HOSTS + 1 + (int)u,
					    0x20000 + k % spines, k / spines + 1,
					    k % spines);
		}
		rc = rc ? rc : bcn_buf_adds(b, "\n");
	}
	return rc;
}

struct coll {
	struct bcn_topo_link *v;
	size_t n, cap;
};

static int keep(void *arg, const struct bcn_topo_link *l)
{
	struct coll *c = arg;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct bcn_topo_link *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *l;
	return 0;
}

static int count(void *arg, const struct bcn_topo_link *l)
{
	(void)l;
	++*(size_t *)arg;
	return 0;
}

/* One report-like pass; returns port records taken, or 0 on error. */
static uint64_t job_pass(const struct coll *c, uint64_t leaves,
			 uint64_t minutes)
{
	struct bcn_net n;
	struct bcn_record r;
	uint64_t taken = 0;
	char host[32];
	int rc = 0;

	bcn_net_init(&n, 0, 1u << 20);
	for (size_t i = 0; !rc && i < c->n; i++) {
		const struct bcn_topo_link *l = &c->v[i];

		bcn_record_init(&r, BCN_REC_TOPOLOGY);
		r.u.topo.sw = l->sw;
		r.u.topo.sw_name = l->sw_name;
		r.u.topo.port = l->port;
		r.u.topo.remote_kind = l->remote_kind;
		r.u.topo.remote = l->remote;
		r.u.topo.remote_name = l->remote_name;
		rc = bcn_net_take_topology(&n, &r);
	}
	for (uint64_t h = 0; !rc && h < leaves * HOSTS; h += 2) {
		snprintf(host, sizeof(host), "cn%06" PRIu64, h);
		rc = bcn_net_add_node(&n, host);
	}
	rc = rc ? rc : bcn_net_select(&n);
	bcn_record_init(&r, BCN_REC_PORT);
	for (uint64_t m = 0; !rc && m < minutes; m++)
		for (size_t i = 0; i < c->n; i++) {
			r.u.port.sw = c->v[i].sw;
			r.u.port.port = c->v[i].port;
			r.u.port.xmit_bytes = m * 1000 + i;
			r.u.port.rcv_bytes = i;
			bcn_net_take_port(&n, &r);
			taken++;
		}
	bcn_net_free(&n);
	return rc ? 0 : taken;
}

/* Argument i as a decimal number in [lo, hi] into *v (def when absent);
 * false when it is not one. */
static bool arg_u64(int argc, char **argv, int i, uint64_t def, uint64_t lo,
		   uint64_t hi, uint64_t *v)
{
	char *end;

	*v = def;
	if (argc <= i)
		return true;
	errno = 0;
	*v = strtoull(argv[i], &end, 10);
	return !errno && end != argv[i] && !*end && argv[i][0] != '-' &&
	       *v >= lo && *v <= hi;
}

int main(int argc, char **argv)
{
	uint64_t leaves, minutes, reps64;
	double tp[REPS_MAX], tj[REPS_MAX];
	struct coll c = { 0 };
	struct bcn_buf b;
	size_t links = 0;
	uint64_t taken = 0;
	int reps;

	if (!arg_u64(argc, argv, 1, 512, 1, 100000, &leaves) ||
	    !arg_u64(argc, argv, 2, 60, 1, 100000, &minutes) ||
	    !arg_u64(argc, argv, 3, 5, 1, REPS_MAX, &reps64)) {
		fprintf(stderr, "usage: network_bench [LEAVES [MINUTES [REPS]]]\n");
		return 2;
	}
	reps = (int)reps64;
	bcn_buf_init(&b, 1u << 31);
	if (fabric(leaves, &b) || bcn_topofile_parse((const char *)b.data, b.len,
						      keep, &c, NULL)) {
		fprintf(stderr, "network_bench: building the fabric failed\n");
		return 1;
	}
	for (int i = 0; i < reps; i++) {
		double t0 = now_s();

		links = 0;
		if (bcn_topofile_parse((const char *)b.data, b.len, count, &links,
				       NULL))
			return 1;
		tp[i] = now_s() - t0;
		t0 = now_s();
		if (!(taken = job_pass(&c, leaves, minutes)))
			return 1;
		tj[i] = now_s() - t0;
	}
	qsort(tp, (size_t)reps, sizeof(double), cmp_double);
	qsort(tj, (size_t)reps, sizeof(double), cmp_double);
	printf("{\"bench\":\"topofile_parse\",\"leaves\":%" PRIu64 ",\"bytes\":%zu,"
	       "\"links\":%zu,\"s\":%.4f,\"mb_per_s\":%.1f,\"links_per_s\":%.0f}\n",
	       leaves, b.len, links, tp[reps / 2],
	       (double)b.len / 1e6 / tp[reps / 2], (double)links / tp[reps / 2]);
	printf("{\"bench\":\"net_job\",\"leaves\":%" PRIu64 ",\"minutes\":%" PRIu64
	       ",\"port_records\":%" PRIu64 ",\"s\":%.4f,\"records_per_s\":%.0f}\n",
	       leaves, minutes, taken, tj[reps / 2], (double)taken / tj[reps / 2]);
	free(c.v);
	bcn_buf_free(&b);
	return 0;
}
