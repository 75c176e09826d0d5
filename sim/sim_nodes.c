/* beacon-sim's compute nodes as the client layer sees them (sim_int.h):
 * which nodes have no client collection (no_client, a Slurm hostlist of
 * compute node names, and no_client_every), and stragglers (slow_node:
 * a node that gets a fraction of the bandwidth it asks for a while, as
 * one with a failing disk, a bad link or a noisy neighbour would). The
 * servers' view of such nodes is unchanged: a node without collection
 * still does its I/O; only its own records are missing. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "sim/sim_int.h"

#define NODE_FMT "cn%05" PRIu64

/* The 0-based index of compute node name, or UINT64_MAX when name is not
 * one of the simulation's (cn00001 ... as the simulator spells them). */
static uint64_t node_index(const struct bcn_sim *s, const char *name)
{
	char want[32];
	unsigned long long n;
	char *end;

	if (strncmp(name, "cn", 2) || name[2] < '0' || name[2] > '9')
		return UINT64_MAX;
	errno = 0;
	n = strtoull(name + 2, &end, 10);
	if (errno || *end || n < 1 || n > s->c.compute)
		return UINT64_MAX;
	snprintf(want, sizeof(want), NODE_FMT, (uint64_t)n);
	return strcmp(want, name) ? UINT64_MAX : (uint64_t)(n - 1);
}

static int parse_no_client(struct bcn_sim *s, char *err, size_t errlen)
{
	struct bcn_hostlist hl = { 0 };
	char why[160] = "";
	uint64_t idx;
	size_t i;
	int rc;

	rc = bcn_hostlist_expand(s->c.no_client, strlen(s->c.no_client),
				 BCN_HOSTLIST_MAX_HOSTS, &hl, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "no_client '%s': %s", s->c.no_client,
			 why[0] ? why : bcn_strerror(rc));
		return rc == -ENOMEM ? rc : -BCN_ESYNTAX;
	}
	for (i = 0; i < hl.n; i++) {
		idx = node_index(s, hl.hosts[i]);
		if (idx == UINT64_MAX) {
			snprintf(err, errlen, "no_client: '%s' is not a compute "
				 "node of the simulation (cn00001 to " NODE_FMT
				 ")", hl.hosts[i], s->c.compute);
			rc = -BCN_ERANGE;
			goto out;
		}
		s->noclient[idx] = 1;
	}
out:
	bcn_hostlist_free(&hl);
	return rc;
}

static int parse_slow_node(struct bcn_sim *s, const char *spec,
			   struct bcn_sim_inject *in, char *err, size_t errlen)
{
	unsigned long long node, from, len;
	double f;
	int end = 0;

	if (sscanf(spec, "%llu %lf %llu %llu %n", &node, &f, &from, &len,
		   &end) != 4 || spec[end] || !(f > 0 && f <= 1) || !len) {
		snprintf(err, errlen, "slow_node '%s': want INDEX FACTOR(above "
			 "0, at most 1) START DURATION", spec);
		return -BCN_ESYNTAX;
	}
	if (node >= s->c.compute) {
		snprintf(err, errlen, "slow_node '%s': no compute node %llu "
			 "(0-based, below %" PRIu64 ")", spec, node,
			 s->c.compute);
		return -BCN_ERANGE;
	}
	memset(in, 0, sizeof(*in));
	in->ost = node;
	in->factor = f;
	/* seconds to ticks, as the other injections */
	in->from = (int64_t)llround((double)from / s->tick_s);
	in->len = (int64_t)llround((double)len / s->tick_s);
	return 0;
}

int bcn_sim_nodes_new(struct bcn_sim *s, char *err, size_t errlen)
{
	uint64_t i, every = s->c.no_client_every;
	int rc;

	s->noclient = calloc(s->c.compute + 1, 1);
	if (!s->noclient)
		return -ENOMEM;
	rc = parse_no_client(s, err, errlen);
	if (rc)
		return rc;
	for (i = 0; every && i < s->c.compute; i++)
		if ((i + 1) % every == 0)
			s->noclient[i] = 1;
	for (i = 0; i < s->c.nslownode; i++) {
		rc = parse_slow_node(s, s->c.slow_node[i], &s->node_inj[i],
				     err, errlen);
		if (rc)
			return rc;
	}
	s->nnode_inj = s->c.nslownode;
	return 0;
}

bool bcn_sim_has_client(const struct bcn_sim *s, uint64_t node)
{
	if (node >= s->c.compute || s->noclient[node])
		return false;
	return s->c.scale || node < s->c.lwfs_nodes;
}

double bcn_sim_node_factor(const struct bcn_sim *s, uint64_t node)
{
	return s->nnode_inj ? bcn_sim_slow(s->node_inj, s->nnode_inj, node,
					   s->tick) : 1.0;
}

int bcn_sim_nodes_uncovered(const struct bcn_sim *s,
			    const struct bcn_sim_job *j, struct bcn_buf *out)
{
	char (*names)[16] = NULL;
	const char **ptrs = NULL;
	size_t n = 0;
	uint64_t i;
	int rc = 0;

	for (i = 0; i < j->nodes; i++)
		n += !bcn_sim_has_client(s, j->first + i);
	if (!n)
		return 0;
	names = calloc(n, sizeof(*names));
	ptrs = calloc(n, sizeof(*ptrs));
	if (!names || !ptrs) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0, n = 0; i < j->nodes; i++) {
		if (bcn_sim_has_client(s, j->first + i))
			continue;
		snprintf(names[n], sizeof(names[n]), NODE_FMT, j->first + i + 1);
		ptrs[n] = names[n];
		n++;
	}
	rc = bcn_hostlist_format(ptrs, n, out);
out:
	free(ptrs);
	free(names);
	return rc;
}
