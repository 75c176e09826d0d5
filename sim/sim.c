/* beacon-sim's model (sim.h): jobs, their I/O spread over OSTs and MDTs,
 * capacities, injections, and the files written from the state. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/auth.h"
#include "common/error.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "sim/lustre_out.h"
#include "sim/sim.h"
#include "sim/sim_int.h"

const char *const bcn_sim_mode_names[BCN_SIM_MODES] = {
	"n-n", "n-1", "n-m", "1-1", "meta", "idle"
};

#define M(f) BCN_CFG_MEMBER(struct bcn_sim_conf, f)
const struct bcn_config_opt bcn_sim_options[] = {
	{ "out", BCN_CFG_PATH, M(out), .min = 1, .def = "sim-out",
	  .help = "Directory the simulated nodes' files go to: OSS and MDS "
		  "trees in OUT/<node>/proc/fs/lustre, Slurm accounting in "
		  "OUT/slurm/sacct.txt." },
	{ "truth", BCN_CFG_PATH, M(truth),
	  .help = "Ground truth of the injected situations, one JSON "
		  "object per line ('' none)." },
	{ "fsname", BCN_CFG_STRING, M(fsname), .min = 1, .def = "simfs",
	  .help = "Lustre file system name (target names FS-OST0000 ...)." },
	{ "seed", BCN_CFG_UINT, M(seed), .def = "1",
	  .help = "Seed of the random job stream: the same seed, the same "
		  "cluster history." },
	{ "compute", BCN_CFG_UINT, M(compute), .min = 1,
	  .max = BCN_SIM_NODES_MAX, .def = "64",
	  .help = "Compute nodes (cn00001 ...)." },
	{ "forwarding", BCN_CFG_UINT, M(forwarding), .min = 1,
	  .max = BCN_SIM_FWDS_MAX, .def = "2",
	  .help = "I/O forwarding nodes (fwd001 ...); compute nodes forward "
		  "through them in contiguous groups." },
	{ "fwd_bw", BCN_CFG_SIZE, M(fwd_bw), .min = 1, .max = 1ull << 40,
	  .def = "2G", .help = "Bytes per second one forwarding node "
			       "serves at full speed." },
	{ "lwfs_nodes", BCN_CFG_UINT, M(lwfs_nodes), .max = BCN_SIM_NODES_MAX,
	  .def = "0",
	  .help = "The first N compute nodes log their forwarded operations "
		  "in OUT/cnNNNNN/lwfs.log (docs/lwfs-log.md), with Slurm "
		  "cgroup files for their job processes below OUT/cnNNNNN/proc." },
	{ "switches", BCN_CFG_UINT, M(switches), .max = 65536, .def = "0",
	  .help = "InfiniBand leaf switches (sw01 ...): compute nodes attach "
		  "in contiguous groups, one port each, plus an uplink; their "
		  "counters go to OUT/swNN/sys/class/infiniband (0: none)." },
	{ "ibsim", BCN_CFG_BOOL, M(ibsim), .def = "no",
	  .help = "Also write the switches as an ibsim fabric, OUT/ibsim/net "
		  "(leaves, one core switch, an adapter 'mgmt' on it), and "
		  "their counters as ibsim console commands, OUT/ibsim/counters "
		  "(docs/sim.md)." },
	{ "fwd_md_cost_us", BCN_CFG_UINT, M(fwd_md_cost_us), .min = 1,
	  .max = 1000000, .def = "100",
	  .help = "Microseconds of a forwarding server thread one metadata "
		  "request takes (16 threads per forwarding node): metadata "
		  "storms take bandwidth from their neighbours." },
	{ "oss", BCN_CFG_UINT, M(oss), .min = 1, .max = 1024, .def = "4",
	  .help = "Object storage servers (oss001 ...)." },
	{ "osts_per_oss", BCN_CFG_UINT, M(osts_per_oss), .min = 1, .max = 64,
	  .def = "3", .help = "OSTs per OSS." },
	{ "mds", BCN_CFG_UINT, M(mds), .min = 1, .max = BCN_SIM_MDTS_MAX,
	  .def = "1", .help = "Metadata servers, one MDT each (mds01 ...)." },
	{ "tick", BCN_CFG_DURATION, M(tick_ms), .min = 10, .max = 3600000,
	  .def = "1s", .help = "Simulated time per tick." },
	{ "epoch", BCN_CFG_INT, M(epoch_s), .min = 0, .max = 1LL << 40,
	  .def = "0",
	  .help = "Simulated time of tick 0, seconds since 1970 (0: the "
		  "wall clock at start)." },
	{ "until", BCN_CFG_UINT, M(until), .max = 100000000, .def = "0",
	  .help = "Simulate ticks 1..N as fast as possible, write the state "
		  "of tick N and exit (0: run live, a tick per tick of wall "
		  "time)." },
	{ "ticks", BCN_CFG_UINT, M(ticks), .def = "0",
	  .help = "Live: stop after this many ticks (0: until SIGTERM)." },
	{ "ost_bw", BCN_CFG_SIZE, M(ost_bw), .min = 1, .max = 1ull << 40,
	  .def = "500M",
	  .help = "Bytes per second one OST serves at full speed." },
	{ "mdt_ops", BCN_CFG_UINT, M(mdt_ops), .min = 1, .max = 1u << 30,
	  .def = "20000",
	  .help = "Metadata operations per second one MDT serves." },
	{ "rpc_bytes", BCN_CFG_SIZE, M(rpc_bytes), .min = 4096,
	  .max = 64u << 20, .def = "1M", .help = "Bytes per bulk RPC." },
	{ "ost_io_ms", BCN_CFG_UINT, M(ost_io_ms), .min = 1,
	  .max = BCN_SIM_BRW_IO_MS_MAX, .def = "8",
	  .help = "Milliseconds of disk time one bulk I/O of rpc_bytes takes "
		  "on an idle OST; under load it grows as 1 / (1 - u), u the "
		  "OST's utilisation (at most 0.95), and a slow_ost divides it "
		  "by its FACTOR (brw_stats' I/O time, the osc req_waittime)." },
	{ "stripe_count", BCN_CFG_UINT, M(stripe_count), .min = 1,
	  .max = 2000, .def = "4",
	  .help = "OSTs a shared (N-1) file is striped over." },
	{ "jobs_per_hour", BCN_CFG_UINT, M(jobs_per_hour), .def = "30",
	  .help = "Random jobs submitted per simulated hour (0: only the "
		  "explicit jobs)." },
	{ "job_nodes_max", BCN_CFG_UINT, M(job_nodes_max), .min = 1,
	  .max = BCN_SIM_NODES_MAX, .def = "32", .help = "Largest random job, in nodes." },
	{ "jobstats_cleanup", BCN_CFG_DURATION, M(jobstats_cleanup_s),
	  .min = 1000, .max = 86400000, .def = "600s",
	  .help = "A job idle this long leaves job_stats (Lustre's "
		  "job_cleanup_interval)." },
	{ "scale", BCN_CFG_BOOL, M(scale), .def = "no",
	  .help = "Scale mode: instead of writing files, speak the wire "
		  "protocol to the log servers as every simulated collector, "
		  "one connection each (docs/sim.md)." },
	{ "shardmap", BCN_CFG_PATH, M(shardmap),
	  .help = "Scale mode: the shard map naming each node's log server." },
	{ "server", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, servers, nservers),
	  .min = 1, .help = "Scale mode without a shard map: a log server "
			    "HOST:PORT, repeatable; collectors are spread "
			    "over them in turn." },
	{ "key_file", BCN_CFG_PATH, M(key_file),
	  .def = BCN_AUTH_KEY_DEFAULT_PATH,
	  .help = "Scale mode: the site key (hex, mode 0600)." },
	{ "part", BCN_CFG_STRING, M(part), .min = 3, .def = "0/1",
	  .help = "Scale mode: K/N plays the collectors whose index modulo N "
		  "is K, so that N processes share a cluster too large for "
		  "one process's descriptors." },
	{ "switch_every", BCN_CFG_UINT, M(switch_every), .min = 1,
	  .max = 3600, .def = "1",
	  .help = "Scale mode: switches send their port counters every N "
		  "ticks." },
	{ "warmup", BCN_CFG_UINT, M(warmup), .max = 1000000, .def = "0",
	  .help = "Scale mode: ticks simulated before the first records are "
		  "sent, so that the cluster is busy from the start." },
	{ "health_every", BCN_CFG_DURATION, M(health_every_ms), .min = 0,
	  .max = 86400000, .def = "60s",
	  .help = "Scale mode: every simulated collector sends a health "
		  "record (docs/records.md) every this much simulated time, "
		  "the first at its first tick after the warm-up, as the "
		  "daemons do every health_interval (0: never)." },
	{ "progress_every", BCN_CFG_DURATION, M(progress_every_ms),
	  .min = 100, .max = 3600000, .def = "10s",
	  .help = "Scale mode: a progress line on stdout this often (wall "
		  "time)." },
	{ "no_client", BCN_CFG_STRING, M(no_client),
	  .help = "Compute nodes without client collection, a Slurm "
		  "hostlist (cn[00005-00012,00040]): in scale mode nothing is "
		  "sent for them (as if their beacon-clientd were down), in "
		  "file mode they write no LWFS log; the servers still see "
		  "their I/O ('' none)." },
	{ "no_client_every", BCN_CFG_UINT, M(no_client_every),
	  .max = BCN_SIM_NODES_MAX, .def = "0",
	  .help = "Every Nth compute node (cnN, cn2N, ...) has no client "
		  "collection either (0: none)." },
	{ "send_window", BCN_CFG_UINT, M(send_window), .min = 1,
	  .max = 65536, .def = "64",
	  .help = "Scale mode: frames in flight per connection." },
	{ "send_buffer", BCN_CFG_SIZE, M(send_buffer), .min = 4096,
	  .max = 1ull << 30, .def = "1M",
	  .help = "Scale mode: frame bytes kept per connection until "
		  "acknowledged; the oldest are dropped beyond." },
	{ "job", BCN_CFG_STRING, BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, jobs,
						     njobs),
	  .help = "An explicit job, repeatable: NAME MODE NODES START "
		  "RUNTIME BW [CKPT_EVERY CKPT_LEN]; MODE n-n, n-1, n-m, 1-1, "
		  "meta or idle; START and RUNTIME in seconds from tick 0; BW "
		  "bytes per second per node (K, M, G suffixes), for meta jobs "
		  "operations per second per node." },
	{ "slow_ost", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, slow_ost, nslow),
	  .help = "Inject a slow OST, repeatable: INDEX FACTOR START "
		  "DURATION (the OST serves FACTOR of its bandwidth from START "
		  "for DURATION seconds)." },
	{ "slow_fwd", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, slow_fwd, nslowfwd),
	  .help = "Inject a slow forwarding node, repeatable: INDEX FACTOR "
		  "START DURATION." },
	{ "hot_switch", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, hot_switch, nhot),
	  .help = "Inject a hot switch, repeatable: INDEX FACTOR START "
		  "DURATION (its uplink carries FACTOR times its nodes' "
		  "traffic; FACTOR 1 to 100)." },
	{ "md_storm", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, md_storm, nstorm),
	  .help = "Inject a metadata storm, repeatable: FWD START DURATION "
		  "RATE (a one-node job behind forwarding node FWD asks RATE "
		  "metadata operations per second)." },
	{ "n1_flood", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, n1_flood, nflood),
	  .help = "Inject an N-1 flood, repeatable: FWD START DURATION NODES "
		  "BW (an N-1 job on NODES nodes behind forwarding node FWD "
		  "writes BW bytes per second per node to one shared file)." },
	{ "cache_thrash", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, cache_thrash, nthrash),
	  .help = "Inject forwarding-node cache thrashing, repeatable: FWD "
		  "START DURATION FACTOR (from START for DURATION seconds, "
		  "forwarding node FWD's Lustre client reads FACTOR, above 1 "
		  "and at most 100, times the bytes its compute nodes read; "
		  "the extra reads load the OSTs)." },
	{ "slow_node", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct bcn_sim_conf, slow_node, nslownode),
	  .help = "Inject a straggler, repeatable: INDEX FACTOR START "
		  "DURATION (compute node INDEX, 0-based, gets FACTOR, above "
		  "0 and at most 1, of the bandwidth it asks from START for "
		  "DURATION seconds; its job's other nodes are unchanged)." },
	{ .name = NULL }
};
#undef M

/* ---- configuration lines ------------------------------------------------- */

static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -BCN_ESYNTAX;
	switch (*end) {
	case 'K': x <<= 10; end++; break;
	case 'M': x <<= 20; end++; break;
	case 'G': x <<= 30; end++; break;
	default: break;
	}
	if (*end)
		return -BCN_ESYNTAX;
	*v = x;
	return 0;
}

static int parse_job(const char *spec, struct bcn_sim_job *j, char *err, size_t n)
{
	char name[32], mode[16], bw[32];
	unsigned long long nodes, start, rt, every = 0, len = 0;
	int k = sscanf(spec, "%31s %15s %llu %llu %llu %31s %llu %llu", name,
		       mode, &nodes, &start, &rt, bw, &every, &len);

	memset(j, 0, sizeof(*j));
	if (k != 6 && k != 8)
		goto bad;
	for (j->mode = 0; j->mode < BCN_SIM_MODES; j->mode++)
		if (!strcmp(mode, bcn_sim_mode_names[j->mode]))
			break;
	if (j->mode == BCN_SIM_MODES || !nodes || !rt || parse_size(bw, &j->bw))
		goto bad;
	snprintf(j->name, sizeof(j->name), "%s", name);
	snprintf(j->user, sizeof(j->user), "user%02llu", nodes % 17);
	j->nodes = nodes;
	j->submit = (int64_t)start;
	j->runtime = (int64_t)rt;
	j->input_len = (int64_t)(rt / 10 > 0 ? rt / 10 : 1);
	j->ckpt_every = every ? (int64_t)every : (int64_t)rt;
	j->ckpt_len = len ? (int64_t)len : 0;
	if (j->mode == BCN_SIM_META)
		j->md_rate = j->bw;
	return 0;
bad:
	snprintf(err, n, "job '%s': want NAME MODE NODES START RUNTIME BW "
		 "[CKPT_EVERY CKPT_LEN]", spec);
	return -BCN_ESYNTAX;
}

static int parse_inject(const char *key, const char *spec,
			struct bcn_sim_inject *in, char *err, size_t n)
{
	unsigned long long ost, from, len;
	double f;

	bool hot = !strcmp(key, "hot_switch");

	if (sscanf(spec, "%llu %lf %llu %llu", &ost, &f, &from, &len) != 4 ||
	    !(hot ? f >= 1 && f <= 100 : f >= 0 && f <= 1) || !len) {
		snprintf(err, n, "%s '%s': want INDEX FACTOR(%s) START "
			 "DURATION", key, spec, hot ? "1..100" : "0..1");
		return -BCN_ESYNTAX;
	}
	in->ost = ost;
	in->factor = f;
	in->from = (int64_t)from;
	in->len = (int64_t)len;
	return 0;
}

/* Injection times from seconds to ticks. */
static void to_ticks(const struct bcn_sim *s, struct bcn_sim_inject *in,
		     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		in[i].from = (int64_t)llround((double)in[i].from / s->tick_s);
		in[i].len = (int64_t)llround((double)in[i].len / s->tick_s);
	}
}

static int by_submit(const void *a, const void *b)
{
	const struct bcn_sim_job *x = a, *y = b;

	return x->submit < y->submit ? -1 : x->submit > y->submit;
}

/* ---- set up ---------------------------------------------------------------- */

int bcn_sim_new(const struct bcn_sim_conf *conf, struct bcn_sim **out,
		char *err, size_t errlen)
{
	struct bcn_sim *s = calloc(1, sizeof(*s));
	int rc = -ENOMEM;
	size_t i;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->c = *conf;
	s->rng = conf->seed ^ 0x5eed5eed5eedULL;
	s->tick_s = (double)conf->tick_ms / 1000.0;
	s->epoch_ns = conf->epoch_s ? conf->epoch_s * BCN_SIM_NS :
		      (int64_t)time(NULL) * BCN_SIM_NS;
	s->nost = conf->oss * conf->osts_per_oss;
	s->nmdt = conf->mds;
	s->next_id = 1000 + conf->seed % 1000 * 1000;
	bcn_buf_init(&s->done, BCN_SIM_FILE_MAX);
	bcn_buf_init(&s->jtruth, BCN_SIM_FILE_MAX);
	s->truth_on = true;
	bcn_buf_init(&s->scratch, BCN_SIM_FILE_MAX);
	if (s->nost > BCN_SIM_OSTS_MAX) {
		snprintf(err, errlen, "%" PRIu64 " OSTs: at most %d", s->nost,
			 BCN_SIM_OSTS_MAX);
		rc = -BCN_ERANGE;
		goto fail;
	}
	s->ost = calloc(s->nost, sizeof(*s->ost));
	s->mdt = calloc(s->nmdt, sizeof(*s->mdt));
	s->busy = calloc(conf->compute, 1);
	s->nfwd = conf->forwarding < conf->compute ? conf->forwarding :
		  conf->compute;
	s->fwd = calloc(s->nfwd, sizeof(*s->fwd));
	if (!s->fwd)
		goto fail;
	for (i = 0; i < s->nfwd; i++)
		bcn_buf_init(&s->fwd[i].lines, BCN_SIM_FILE_MAX);
	if (conf->lwfs_nodes > conf->compute) {
		snprintf(err, errlen, "lwfs_nodes %" PRIu64 ": more than the "
			 "%" PRIu64 " compute nodes", conf->lwfs_nodes,
			 conf->compute);
		rc = -BCN_ERANGE;
		goto fail;
	}
	s->lwfs = calloc(conf->lwfs_nodes + 1, sizeof(*s->lwfs));
	s->lwfs_off = calloc(conf->compute + 1, sizeof(*s->lwfs_off));
	if (!s->lwfs || !s->lwfs_off)
		goto fail;
	for (i = 0; i < conf->lwfs_nodes; i++)
		bcn_buf_init(&s->lwfs[i], BCN_SIM_FILE_MAX);
	if (conf->switches) {
		size_t per = (conf->compute + conf->switches - 1) /
			     conf->switches;

		if (conf->ibsim && (per + 1 > BCN_SIM_IBSIM_PORTS ||
				    conf->switches + 1 > BCN_SIM_IBSIM_PORTS)) {
			snprintf(err, errlen, "ibsim: at most %d leaf switches "
				 "of at most %d nodes each", BCN_SIM_IBSIM_PORTS - 1,
				 BCN_SIM_IBSIM_PORTS - 1);
			rc = -BCN_ERANGE;
			goto fail;
		}
		s->ports = calloc(conf->switches * (per + 1), sizeof(*s->ports));
		if (!s->ports)
			goto fail;
	}
	s->jobs = calloc(BCN_SIM_LIVE_JOBS_MAX, sizeof(*s->jobs));
	if (!s->ost || !s->mdt || !s->busy || !s->jobs)
		goto fail;
	for (i = 0; i < conf->njobs; i++) {
		rc = parse_job(conf->jobs[i], &s->explicit[i], err, errlen);
		if (rc)
			goto fail;
		if (s->explicit[i].nodes > conf->compute) {
			snprintf(err, errlen, "job '%s': more nodes than the "
				 "cluster has", conf->jobs[i]);
			rc = -BCN_ERANGE;
			goto fail;
		}
	}
	s->nexplicit = conf->njobs;
	qsort(s->explicit, s->nexplicit, sizeof(s->explicit[0]), by_submit);
	for (i = 0; i < conf->nslow; i++) {
		rc = parse_inject("slow_ost", conf->slow_ost[i], &s->inj[i],
				  err, errlen);
		if (rc)
			goto fail;
		if (s->inj[i].ost >= s->nost) {
			snprintf(err, errlen, "slow_ost '%s': no such OST",
				 conf->slow_ost[i]);
			rc = -BCN_ERANGE;
			goto fail;
		}
	}
	s->ninj = conf->nslow;
	for (i = 0; i < conf->nslowfwd; i++) {
		rc = parse_inject("slow_fwd", conf->slow_fwd[i], &s->finj[i],
				  err, errlen);
		if (rc)
			goto fail;
		if (s->finj[i].ost >= s->nfwd) {
			snprintf(err, errlen, "slow_fwd '%s': no such "
				 "forwarding node", conf->slow_fwd[i]);
			rc = -BCN_ERANGE;
			goto fail;
		}
	}
	s->nfinj = conf->nslowfwd;
	for (i = 0; i < conf->nhot; i++) {
		rc = parse_inject("hot_switch", conf->hot_switch[i],
				  &s->hinj[i], err, errlen);
		if (rc)
			goto fail;
		if (s->hinj[i].ost >= conf->switches) {
			snprintf(err, errlen, "hot_switch '%s': no such switch",
				 conf->hot_switch[i]);
			rc = -BCN_ERANGE;
			goto fail;
		}
	}
	s->nhinj = conf->nhot;
	for (i = 0; i < conf->nstorm; i++) {
		unsigned long long f, from, len, rate;

		if (sscanf(conf->md_storm[i], "%llu %llu %llu %llu", &f, &from,
			   &len, &rate) != 4 || f >= s->nfwd || !len || !rate) {
			snprintf(err, errlen, "md_storm '%s': want FWD START "
				 "DURATION RATE (FWD below %" PRIu64 ")",
				 conf->md_storm[i], s->nfwd);
			rc = -BCN_ESYNTAX;
			goto fail;
		}
		s->sinj[i].ost = f;
		s->sinj[i].from = (int64_t)from;
		s->sinj[i].len = (int64_t)len;
		s->sinj[i].rate = rate;
		s->sinj[i].factor = 1;
	}
	s->nsinj = conf->nstorm;
	for (i = 0; i < conf->nflood; i++) {
		unsigned long long f, from, len, nodes;
		char bw[32];
		uint64_t group = (conf->compute + s->nfwd - 1) / s->nfwd;

		if (sscanf(conf->n1_flood[i], "%llu %llu %llu %llu %31s", &f,
			   &from, &len, &nodes, bw) != 5 || f >= s->nfwd ||
		    !len || !nodes || nodes > group ||
		    parse_size(bw, &s->finj_n1[i].rate)) {
			snprintf(err, errlen, "n1_flood '%s': want FWD START "
				 "DURATION NODES BW (FWD below %" PRIu64
				 ", NODES at most %" PRIu64 ")",
				 conf->n1_flood[i], s->nfwd, group);
			rc = -BCN_ESYNTAX;
			goto fail;
		}
		s->finj_n1[i].ost = f;
		s->finj_n1[i].from = (int64_t)from;
		s->finj_n1[i].len = (int64_t)len;
		s->finj_n1[i].nodes = nodes;
		s->finj_n1[i].factor = 1;
	}
	s->nflood = conf->nflood;
	to_ticks(s, s->inj, s->ninj);
	to_ticks(s, s->finj, s->nfinj);
	to_ticks(s, s->hinj, s->nhinj);
	to_ticks(s, s->sinj, s->nsinj);
	to_ticks(s, s->finj_n1, s->nflood);
	rc = bcn_sim_osc_new(s, err, errlen);
	if (!rc)
		rc = bcn_sim_nodes_new(s, err, errlen);
	if (rc)
		goto fail;
	s->next_arrival = conf->jobs_per_hour ? 0 : INT64_MAX;
	*out = s;
	return 0;
fail:
	bcn_sim_free(s);
	return rc;
}

void bcn_sim_free(struct bcn_sim *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->jobs && i < s->njobs; i++)
		free(s->jobs[i].tr_bits);
	bcn_buf_free(&s->jtruth);
	for (i = 0; s->ost && i < s->nost; i++)
		free(s->ost[i].jobs);
	for (i = 0; s->mdt && i < s->nmdt; i++)
		free(s->mdt[i].jobs);
	free(s->ost);
	free(s->mdt);
	for (i = 0; s->fwd && i < s->nfwd; i++)
		bcn_buf_free(&s->fwd[i].lines);
	for (i = 0; s->lwfs && i < s->c.lwfs_nodes; i++)
		bcn_buf_free(&s->lwfs[i]);
	free(s->lwfs);
	free(s->lwfs_off);
	free(s->ports);
	bcn_sim_osc_free(s);
	free(s->fwd);
	free(s->busy);
	free(s->noclient);
	free(s->jobs);
	bcn_buf_free(&s->done);
	bcn_buf_free(&s->scratch);
	free(s);
}

void bcn_sim_tick(struct bcn_sim *s)
{
	bcn_sim_model_tick(s);
}

int bcn_sim_prepare(struct bcn_sim *s)
{
	return bcn_sim_fwd_resume(s);
}

int bcn_sim_write(struct bcn_sim *s)
{
	int rc = bcn_sim_write_targets(s);

	if (!rc)
		rc = bcn_sim_ib_write(s);
	if (!rc)
		rc = bcn_sim_lwfs_write(s);
	if (!rc)
		rc = bcn_sim_fwd_write(s);
	if (!rc)
		rc = bcn_sim_osc_write(s);
	if (!rc)
		rc = bcn_sim_write_sacct(s);
	if (!rc)
		rc = bcn_sim_write_truth(s);
	return rc;
}

uint64_t bcn_sim_ticks(const struct bcn_sim *s)
{
	return (uint64_t)s->tick;
}

void bcn_sim_totals(const struct bcn_sim *s, struct bcn_sim_totals *t)
{
	*t = s->tot;
}

void bcn_sim_truth_on(struct bcn_sim *s, bool on)
{
	s->truth_on = on;
}

int bcn_sim_write_jobs(struct bcn_sim *s)
{
	int rc = bcn_sim_write_sacct(s);

	return rc ? rc : bcn_sim_write_truth(s);
}

void bcn_sim_rebase(struct bcn_sim *s)
{
	struct timespec ts;

	if (s->c.epoch_s)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->epoch_ns = (int64_t)ts.tv_sec * BCN_SIM_NS + ts.tv_nsec -
		      (int64_t)((double)s->tick * s->tick_s * 1e9);
}
