/* beacon-sim's ground truth per job (sim_int.h): what each job's nodes
 * moved in the ticks whose records are sent, through which forwarding
 * nodes, on which OSTs, its I/O mode from who wrote which file, which of
 * its nodes had client collection and which were stragglers, as one
 * truth line per job (docs/sim.md, "Ground truth"). A job's nodes,
 * forwarding nodes and OSTs are bits in one array it owns until its
 * line is written. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

uint64_t bcn_sim_node_share(const struct bcn_sim *s,
			    const struct bcn_sim_job *j, uint64_t i)
{
	uint64_t asked;

	if ((j->mode == BCN_SIM_11 && i) || !j->asked)
		return 0;
	asked = bcn_sim_node_bytes(s, j, i);
	return (uint64_t)((unsigned __int128)j->served * asked / j->asked);
}

/* The job's bits: forwarding nodes, OSTs, its nodes that moved bytes
 * (IO_BIT), its nodes slowed during its I/O (SLOW_BIT). */
#define IO_BIT(s, i) ((s)->nfwd + (s)->nost + (i))
#define SLOW_BIT(s, j, i) ((s)->nfwd + (s)->nost + (j)->nodes + (i))

static uint64_t *bits(struct bcn_sim *s, struct bcn_sim_job *j)
{
	if (!j->tr_bits)
		j->tr_bits = calloc((s->nfwd + s->nost + 2 * j->nodes + 63) /
				    64, sizeof(uint64_t));
	return j->tr_bits;
}

static void set_bit(uint64_t *b, uint64_t i)
{
	b[i / 64] |= 1ull << (i % 64);
}

static bool get_bit(const uint64_t *b, uint64_t i)
{
	return b && (b[i / 64] >> (i % 64) & 1);
}

void bcn_sim_truth_ost(struct bcn_sim *s, struct bcn_sim_job *j, uint64_t ost)
{
	uint64_t *b;

	if (s->truth_on && (b = bits(s, j)))
		set_bit(b, s->nfwd + ost);
}

void bcn_sim_truth_tick(struct bcn_sim *s)
{
	for (size_t k = 0; s->truth_on && k < s->njobs; k++) {
		struct bcn_sim_job *j = &s->jobs[k];
		bool write = j->phase == BCN_SIM_P_WRITE;
		uint64_t *b;

		if (j->state != BCN_SIM_RUNNING ||
		    (j->phase != BCN_SIM_P_READ && !write))
			continue;
		for (uint64_t i = 0; i < j->nodes; i++) {
			uint64_t n = bcn_sim_node_share(s, j, i);

			/* a straggler during the job's I/O on it */
			if (bcn_sim_node_factor(s, j->first + i) < 1.0 &&
			    (j->mode != BCN_SIM_11 || !i) && (b = bits(s, j)))
				set_bit(b, SLOW_BIT(s, j, i));
			if (!n || !(b = bits(s, j)))
				continue;
			*(write ? &j->tr_write : &j->tr_read) += n;
			set_bit(b, bcn_sim_fwd_of(s, j->first + i));
			set_bit(b, IO_BIT(s, i));
		}
	}
}

/* The mode from the files the job's I/O nodes wrote (sim_lwfs.c names
 * them): node i's file is i (n-n), 0 (n-1, 1-1) or i % m (n-m). The
 * rule is docs/report.md's. */
static const char *mode_of(const struct bcn_sim *s, const struct bcn_sim_job *j)
{
	const uint64_t *b = j->tr_bits;
	uint64_t procs = 0, m, files = 0, shared = 0, all = 0, *per;

	for (uint64_t i = 0; i < j->nodes; i++)
		procs += get_bit(b, IO_BIT(s, i));
	if (!procs || !(j->tr_read + j->tr_write))
		return "none";
	if (procs == 1)
		return "1-1";
	if (j->mode == BCN_SIM_NN)
		return "N-N";
	if (j->mode == BCN_SIM_N1)
		return "N-1";
	m = j->nodes / NM_RATIO ? j->nodes / NM_RATIO : 1;
	per = calloc(m, sizeof(*per));
	if (!per)
		return "?";
	for (uint64_t i = 0; i < j->nodes; i++)
		per[i % m] += get_bit(b, IO_BIT(s, i));
	for (uint64_t f = 0; f < m; f++) {
		files += per[f] > 0;
		shared += per[f] > 1;
		all += per[f] == procs;
	}
	free(per);
	if (!shared)
		return "N-N";
	if (shared == files)
		return all == files ? "N-1" : "N-M";
	return "mixed";
}

static int names(const struct bcn_sim *s, const struct bcn_sim_job *j,
		 bool osts, struct bcn_buf *out)
{
	uint64_t from = osts ? s->nfwd : 0, n = osts ? s->nost : s->nfwd;
	int rc = 0, k = 0;

	for (uint64_t i = 0; !rc && i < n; i++)
		if (get_bit(j->tr_bits, from + i))
			rc = osts ? bcn_buf_printf(out, "%s\"%s-OST%04" PRIx64 "\"",
						   k++ ? "," : "", s->c.fsname, i) :
			     bcn_buf_printf(out, "%s\"fwd%03" PRIu64 "\"",
					    k++ ? "," : "", i + 1);
	return rc;
}

/* The client layer's part: "client_nodes":N,"uncovered":"HOSTLIST",
 * "slow_nodes":[...]. */
static int client_part(const struct bcn_sim *s, const struct bcn_sim_job *j,
		       struct bcn_buf *out)
{
	uint64_t covered = 0, i;
	int rc, k = 0;

	for (i = 0; i < j->nodes; i++)
		covered += bcn_sim_has_client(s, j->first + i);
	rc = bcn_buf_printf(out, ",\"client_nodes\":%" PRIu64
			    ",\"uncovered\":\"", covered);
	rc = rc ? rc : bcn_sim_nodes_uncovered(s, j, out);
	rc = rc ? rc : bcn_buf_adds(out, "\",\"slow_nodes\":[");
	for (i = 0; !rc && i < j->nodes; i++)
		if (get_bit(j->tr_bits, SLOW_BIT(s, j, i)))
			rc = bcn_buf_printf(out, "%s\"cn%05" PRIu64 "\"",
					    k++ ? "," : "", j->first + i + 1);
	return rc ? rc : bcn_buf_adds(out, "]");
}

static int line(struct bcn_sim *s, const struct bcn_sim_job *j,
		struct bcn_buf *out)
{
	uint64_t io = 0;
	int rc;

	for (uint64_t i = 0; i < j->nodes; i++)
		io += get_bit(j->tr_bits, IO_BIT(s, i));
	rc = bcn_buf_printf(out, "{\"kind\":\"job\",\"job\":%" PRIu64
			    ",\"name\":\"%s\",\"sim_mode\":\"%s\",\"mode\":"
			    "\"%s\",\"read_bytes\":%" PRIu64 ",\"write_bytes\":%"
			    PRIu64 ",\"nodes\":%" PRIu64 ",\"io_nodes\":%" PRIu64
			    ",\"forwarding\":[", j->id, j->name,
			    bcn_sim_mode_names[j->mode], mode_of(s, j),
			    j->tr_read, j->tr_write, j->nodes, io);
	rc = rc ? rc : names(s, j, false, out);
	rc = rc ? rc : bcn_buf_adds(out, "],\"osts\":[");
	rc = rc ? rc : names(s, j, true, out);
	rc = rc ? rc : bcn_buf_adds(out, "]");
	rc = rc ? rc : client_part(s, j, out);
	return rc ? rc : bcn_buf_printf(out, ",\"done\":%s}\n",
					j->state == BCN_SIM_DONE ? "true" :
					"false");
}

void bcn_sim_truth_end(struct bcn_sim *s, struct bcn_sim_job *j)
{
	if (s->c.truth[0])
		(void)line(s, j, &s->jtruth);
	free(j->tr_bits);
	j->tr_bits = NULL;
}

int bcn_sim_truth_jobs(struct bcn_sim *s, struct bcn_buf *out)
{
	int rc = bcn_buf_add(out, s->jtruth.data, s->jtruth.len);

	for (size_t k = 0; !rc && k < s->njobs; k++)
		if (s->jobs[k].state == BCN_SIM_RUNNING)
			rc = line(s, &s->jobs[k], out);
	return rc;
}
