/* Tests of beacon-sim's forwarding nodes' Lustre clients (sim/sim_osc.c,
 * the osc formatters of sim/lustre_out.c): the stats, rpc_stats and
 * import files parse back through beacon-fwdd's own parsers
 * (collectors/lustre: lustre_osc, lustre_stats, lustre_hist) with the values
 * given, in 2.15's layout (waiting times per opcode and together); in a
 * simulated cluster with overloaded OSTs,
 * a slow forwarding node and N-1, N-N and N-M jobs spanning forwarding
 * nodes, each OST's osc bytes summed over the forwarding nodes are what
 * the OST's own stats say it served, and each forwarding node's osc bytes
 * are its request log's; with cache_thrash, the thrashing node's osc
 * reads are FACTOR times its request log's, the OSTs still agree, and the
 * other nodes' jobs get less (with OSTs to spare, nobody gets less);
 * cache_thrash lines are checked. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/lustre/lustre_osc.h"
#include "collectors/lustre/lustre_hist.h"
#include "collectors/lustre/lustre_stats.h"
#include "common/buf.h"
#include "common/config.h"
#include "common/error.h"
#include "sim/lustre_out.h"
#include "sim/sim.h"

#define MIB (1ull << 20)
#define NOST 4
#define NFWD 5
#define TICKS 20

static struct bcn_lustre_map osc_map, ost_map;

static int setup(void **state)
{
	(void)state;
	if (bcn_lustre_map_init(&osc_map, bcn_lustre_osc_fields,
				bcn_lustre_osc_nfields, BCN_LUSTRE_OSC_SLOTS))
		return -1;
	return bcn_lustre_map_init(&ost_map, bcn_lustre_ost_fields,
				   bcn_lustre_ost_nfields,
				   BCN_LUSTRE_OST_SLOTS);
}

static const char *text(const struct bcn_buf *b)
{
	return (const char *)b->data;
}

/* ---- the formatters ---------------------------------------------------- */

static void sample_ctr(struct bcn_sim_osc_ctr *c)
{
	memset(c, 0, sizeof(*c));
	c->connects = 1;
	/* 100 reads, the last 1000 bytes short; a burst ramping up to 3 */
	c->rpcs[0] = 100;
	c->bytes[0] = 100 * MIB - 1000;
	c->min[0] = MIB - 1000;
	c->max[0] = MIB;
	c->pages[0][8] = 100;                   /* 256 pages */
	c->flight[0][1] = 1;
	c->flight[0][2] = 1;
	c->flight[0][3] = 98;
	c->offset[0][0] = 1;                    /* offset 0 */
	c->offset[0][9] = 1;                    /* [256, 512) pages */
	c->offset[0][10] = 2;
	c->offset[0][11] = 4;
	c->offset[0][12] = 8;
	c->offset[0][13] = 16;
	c->offset[0][14] = 32;
	c->offset[0][15] = 36;
	/* 3 writes of 4 KiB */
	c->rpcs[1] = 3;
	c->bytes[1] = 3 * 4096;
	c->min[1] = c->max[1] = 4096;
	c->pages[1][0] = 3;
	c->flight[1][1] = 3;
	c->offset[1][0] = 1;
	c->offset[1][1] = 1;
	c->offset[1][2] = 1;
	c->active_n = 104;
	c->active_min = 1;
	c->active_max = 3;
	c->active_sum = 1 + 1 + 2 + 3 * 98 + 3;
	c->active_sumsq = 1 + 1 + 4 + 9 * 98 + 3;
	c->in_flight[0] = 3;
	c->pending_pages[1] = 5;
}

#define START_NS (1790000000LL * 1000000000LL)
#define NOW_NS (START_NS + 5 * 1000000000LL + 250)

static void test_format_stats(void **state)
{
	struct bcn_sim_osc_ctr c;
	struct bcn_lustre_stats st;
	struct bcn_buf b;
	uint64_t v[BCN_LUSTRE_OSC_NCOUNTERS];

	(void)state;
	sample_ctr(&c);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_osc_stats(&b, NOW_NS, START_NS, &c), 0);
	assert_int_equal(bcn_lustre_stats_parse(text(&b), b.len, &osc_map,
						&st), 0);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.snapshot_ns, NOW_NS);
	assert_int_equal(st.start_ns, START_NS);
	assert_non_null(strstr(text(&b), "\nreq_waittime              104 "
				"samples [usecs] 0 0 0 0\n"));
	assert_non_null(strstr(text(&b), "\nreq_active                104 "
				"samples [reqs] 1 3 301 891\n"));
	assert_non_null(strstr(text(&b), "\nost_connect               1 "
				"samples [usecs] 0 0 0 0\n"));
	assert_true(strstr(text(&b), "read_bytes") <
		    strstr(text(&b), "ost_read"));
	/* what beacon-fwdd makes of it */
	bcn_lustre_osc_counters(&st, NULL, v);
	assert_int_equal(v[BCN_LUSTRE_OSC_READ_RPCS], 100);
	assert_int_equal(v[BCN_LUSTRE_OSC_WRITE_RPCS], 3);
	assert_int_equal(v[BCN_LUSTRE_OSC_READ_BYTES], 100 * MIB - 1000);
	assert_int_equal(v[BCN_LUSTRE_OSC_WRITE_BYTES], 3 * 4096);
	assert_int_equal(bcn_sim_fmt_osc_stats(&b, START_NS, NOW_NS, &c),
			 -EINVAL);
	bcn_buf_free(&b);
}

/* The rows of the read | write histograms as osc_rpc_stats_seq_show
 * prints them. */
static const char want_pages[] =
	"read RPCs in flight:  3\n"
	"write RPCs in flight: 0\n"
	"pending write pages:  5\n"
	"pending read pages:   0\n\n"
	"\t\t\tread\t\t\twrite\n"
	"pages per rpc         rpcs   % cum % |       rpcs   % cum %\n"
	"1:\t\t         0   0   0   |          3 100 100\n"
	"2:\t\t         0   0   0   |          0   0 100\n";
static const char want_flight[] =
	"\n256:\t\t       100 100 100   |          0   0 100\n\n"
	"\t\t\tread\t\t\twrite\n"
	"rpcs in flight        rpcs   % cum % |       rpcs   % cum %\n"
	"1:\t\t         1   1   1   |          3 100 100\n"
	"2:\t\t         1   1   2   |          0   0 100\n"
	"3:\t\t        98  98 100   |          0   0 100\n\n";

static void test_format_rpc_stats(void **state)
{
	struct bcn_sim_osc_ctr c;
	struct bcn_lustre_rpc rpc;
	struct bcn_buf b;
	uint64_t v[BCN_LUSTRE_OSC_NCOUNTERS];
	const uint64_t *h = v + BCN_LUSTRE_OSC_SLOTS;
	const struct bcn_lustre_hist *sec = rpc.sec;

	(void)state;
	sample_ctr(&c);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_osc_rpc_stats(&b, NOW_NS, START_NS, &c),
			 0);
	assert_non_null(strstr(text(&b), "snapshot_time:            "
				"1790000005.000000250 secs.nsecs\n"
				"start_time:               1790000000.000000000"
				" secs.nsecs\n"));
	assert_non_null(strstr(text(&b), want_pages));
	assert_non_null(strstr(text(&b), want_flight));
	assert_int_equal(bcn_lustre_rpc_parse(text(&b), b.len, &rpc), 0);
	assert_int_equal(rpc.c.malformed, 0);
	assert_int_equal(rpc.snapshot_ns, NOW_NS);
	assert_int_equal(rpc.start_ns, START_NS);
	assert_int_equal(rpc.read_in_flight, 3);
	assert_int_equal(rpc.write_in_flight, 0);
	assert_int_equal(rpc.pending_write_pages, 5);
	assert_int_equal(rpc.pending_read_pages, 0);
	assert_int_equal(bcn_lustre_hist_get(&sec[BCN_RPC_PAGES], 0, 256),
			 100);
	assert_int_equal(bcn_lustre_hist_get(&sec[BCN_RPC_PAGES], 1, 1), 3);
	assert_int_equal(bcn_lustre_hist_get(&sec[BCN_RPC_IN_FLIGHT], 0, 3),
			 98);
	assert_int_equal(bcn_lustre_hist_get(&sec[BCN_RPC_OFFSET], 0, 16384),
			 36);
	assert_int_equal(bcn_lustre_hist_get(&sec[BCN_RPC_OFFSET], 1, 2), 1);
	assert_int_equal(bcn_lustre_hist_total(&sec[BCN_RPC_OFFSET], 0), 100);
	/* beacon-fwdd's log2 buckets: pages 256 in 8, 1 in 0; in flight
	 * 1 in 0, 2 and 3 in 1 */
	bcn_lustre_osc_counters(NULL, &rpc, v);
	assert_int_equal(h[8], 100);
	assert_int_equal(h[BCN_HIST_BUCKETS], 3);
	assert_int_equal(h[2 * BCN_HIST_BUCKETS + 0], 1);
	assert_int_equal(h[2 * BCN_HIST_BUCKETS + 1], 99);
	assert_int_equal(h[3 * BCN_HIST_BUCKETS + 0], 3);
	bcn_buf_free(&b);
}

static void test_format_import(void **state)
{
	struct bcn_sim_osc_import imp = {
		"simfs-OST0002-osc-ffff880000100000", "simfs-OST0002",
		"10.10.0.1@o2ib", MIB
	};
	struct bcn_sim_osc_ctr c;
	struct bcn_buf b;
	uint64_t n;

	(void)state;
	sample_ctr(&c);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_osc_import(&b, &imp, &c), 0);
	assert_int_equal(bcn_lustre_osc_import_inflight(text(&b), b.len, &n), 0);
	assert_int_equal(n, 3);
	assert_non_null(strstr(text(&b), "import:\n    name: simfs-OST0002-"
				"osc-ffff880000100000\n    target: simfs-"
				"OST0002_UUID\n    state: FULL\n"));
	assert_non_null(strstr(text(&b), "       max_brw_size: 1048576\n"));
	assert_non_null(strstr(text(&b), "       current_connection: "
				"10.10.0.1@o2ib\n"));
	assert_non_null(strstr(text(&b), "    read_data_averages:\n"
				"       bytes_per_rpc: 1048566\n"
				"    write_data_averages:\n"
				"       bytes_per_rpc: 4096\n"));
	imp.nid = NULL;
	assert_int_equal(bcn_sim_fmt_osc_import(&b, &imp, &c), -EINVAL);
	bcn_buf_free(&b);
}

/* Waiting times: ost_read, ost_write and ost_connect each their own,
 * req_waittime all of them together, the import their mean. */
static void test_format_waittime(void **state)
{
	struct bcn_sim_osc_import imp = { "a-OST0000-osc-1", "a-OST0000",
					  "n@tcp", MIB };
	struct bcn_sim_osc_ctr c;
	struct bcn_buf b;

	(void)state;
	sample_ctr(&c);
	/* 100 reads of 10 ms, 3 writes of 20 to 40 ms, a connect 250 us */
	c.wait[0] = (struct bcn_sim_osc_wait){ 10000, 10000, 1000000,
					       100 * 10000ull * 10000 };
	c.wait[1] = (struct bcn_sim_osc_wait){ 20000, 40000, 90000,
					       2900000000ull };
	c.wait[2] = (struct bcn_sim_osc_wait){ 250, 250, 250, 62500 };
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_osc_stats(&b, NOW_NS, START_NS, &c), 0);
	assert_non_null(strstr(text(&b), "\nreq_waittime              104 "
				"samples [usecs] 250 40000 1090250 "
				"12900062500\n"));
	assert_non_null(strstr(text(&b), "\nost_read                  100 "
				"samples [usecs] 10000 10000 1000000 "
				"10000000000\n"));
	assert_non_null(strstr(text(&b), "\nost_write                 3 "
				"samples [usecs] 20000 40000 90000 "
				"2900000000\n"));
	assert_non_null(strstr(text(&b), "\nost_connect               1 "
				"samples [usecs] 250 250 250 62500\n"));
	assert_int_equal(bcn_sim_fmt_osc_import(&b, &imp, &c), 0);
	assert_non_null(strstr(text(&b), "       avg_waittime: 10483 usecs\n"));
	bcn_buf_free(&b);
}

/* A device that sent nothing: one row per section, no bulk counters. */
static void test_idle_device(void **state)
{
	struct bcn_sim_osc_ctr c = { .connects = 1, .active_n = 1,
				     .active_min = 1, .active_max = 1,
				     .active_sum = 1, .active_sumsq = 1 };
	struct bcn_sim_osc_import imp = { "a-OST0000-osc-1", "a-OST0000",
					  "n@tcp", 4096 };
	struct bcn_lustre_stats st;
	struct bcn_lustre_rpc rpc;
	struct bcn_buf b;
	uint64_t v[BCN_LUSTRE_OSC_NCOUNTERS], n;
	unsigned i;

	(void)state;
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_sim_fmt_osc_stats(&b, 2000000000, 1000000000,
					       &c), 0);
	assert_null(strstr(text(&b), "read_bytes"));
	assert_int_equal(bcn_lustre_stats_parse(text(&b), b.len, &osc_map,
						&st), 0);
	assert_int_equal(bcn_sim_fmt_osc_rpc_stats(&b, 2000000000, 1000000000,
						   &c), 0);
	assert_non_null(strstr(text(&b), "% cum %\n1:\t\t         0   0   0"
				"   |          0   0   0\n\n"));
	assert_non_null(strstr(text(&b), "% cum %\n0:\t\t         0   0   0"
				"   |          0   0   0\n"));
	assert_int_equal(bcn_lustre_rpc_parse(text(&b), b.len, &rpc), 0);
	assert_int_equal(rpc.c.malformed, 0);
	for (i = 0; i < BCN_RPC_SECTIONS; i++)
		assert_int_equal(rpc.sec[i].n, 1);
	bcn_lustre_osc_counters(&st, &rpc, v);
	for (i = 0; i < BCN_LUSTRE_OSC_NCOUNTERS; i++)
		assert_int_equal(v[i], 0);
	assert_int_equal(bcn_sim_fmt_osc_import(&b, &imp, &c), 0);
	assert_int_equal(bcn_lustre_osc_import_inflight(text(&b), b.len, &n), 0);
	assert_int_equal(n, 0);
	assert_null(strstr(text(&b), "data_averages"));
	bcn_buf_free(&b);
}

/* ---- a simulated cluster ------------------------------------------------- */

struct view {
	/* [fwd][ost][dir] from the osc stats; [ost][dir] from the OSTs;
	 * [fwd][dir] from the request logs */
	uint64_t osc[NFWD][NOST][2], ost[NOST][2], req[NFWD][2];
	uint64_t osc_rpcs[NFWD][NOST][2], hist_rpcs[NFWD][NOST][2];
};

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void defaults(struct bcn_sim_conf *c, const char *out)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(bcn_config_defaults(bcn_sim_options, c, NULL, 0), 0);
	snprintf(c->out, sizeof(c->out), "%s", out);
	c->epoch_s = 1790000000;
	c->jobs_per_hour = 0;
	c->compute = 40;
	c->forwarding = NFWD;           /* 8 compute nodes each */
	c->oss = 1;
	c->osts_per_oss = NOST;
	c->ost_bw = 200 * MIB;          /* overloaded */
	c->fwd_bw = 600 * MIB;
	/* a: N-1 on fwd 0 and 1; b: N-N on fwd 2; c: N-M (2 files of 8
	 * nodes, every other node) on fwd 3 and 4; reading 4 s, then
	 * writing 2 s in every 5 */
	snprintf(c->jobs[0], sizeof(c->jobs[0]), "a n-1 16 0 40 50M 5 2");
	snprintf(c->jobs[1], sizeof(c->jobs[1]), "b n-n 8 0 40 40M 5 2");
	snprintf(c->jobs[2], sizeof(c->jobs[2]), "c n-m 16 0 40 30M 5 2");
	c->njobs = 3;
	/* fwd 1 at half speed: its nodes get 3/4 of what they ask */
	snprintf(c->slow_fwd[0], sizeof(c->slow_fwd[0]), "1 0.5 0 1000");
	c->nslowfwd = 1;
}

static void load(struct bcn_buf *b, const char *path)
{
	bcn_buf_reset(b);
	if (bcn_buf_read_file(b, path))
		fail_msg("reading %s", path);
}

/* The osc device directory of ost below base (one per forwarding node). */
static void dev_dir(const char *base, unsigned ost, char *out, size_t len)
{
	char want[32], target[64];
	struct dirent *e;
	DIR *d = opendir(base);
	int found = 0;

	assert_non_null(d);
	snprintf(want, sizeof(want), "simfs-OST%04x", ost);
	while ((e = readdir(d)) != NULL)
		if (!bcn_lustre_osc_target_name(e->d_name, target, sizeof(target)) &&
		    !strcmp(target, want)) {
			snprintf(out, len, "%s/%s", base, e->d_name);
			found++;
		}
	closedir(d);
	assert_int_equal(found, 1);
}

static void read_req_log(const char *path, uint64_t req[2])
{
	FILE *in = fopen(path, "r");
	char line[256], op[16];
	unsigned long long size;

	assert_non_null(in);
	while (fgets(line, sizeof(line), in))
		if (line[0] != '#' &&
		    sscanf(line, "%*s %15s %llu", op, &size) == 2) {
			if (!strcmp(op, "read"))
				req[0] += size;
			else if (!strcmp(op, "write"))
				req[1] += size;
		}
	fclose(in);
}

static void read_osc(const char *out, unsigned f, unsigned o, struct view *w,
		     struct bcn_buf *b)
{
	char base[BCN_SIM_PATH_MAX + 64], dir[BCN_SIM_PATH_MAX + 384];
	char path[BCN_SIM_PATH_MAX + 512];
	struct bcn_lustre_stats st;
	struct bcn_lustre_rpc rpc;
	uint64_t v[BCN_LUSTRE_OSC_NCOUNTERS];

	snprintf(base, sizeof(base), "%s/fwd%03u/sys/kernel/debug/lustre/osc",
		 out, f + 1);
	dev_dir(base, o, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/stats", dir);
	load(b, path);
	assert_int_equal(bcn_lustre_stats_parse(text(b), b->len, &osc_map,
						&st), 0);
	assert_int_equal(st.malformed, 0);
	snprintf(base, sizeof(base), "%s/fwd%03u/proc/fs/lustre/osc", out,
		 f + 1);
	dev_dir(base, o, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/rpc_stats", dir);
	load(b, path);
	assert_int_equal(bcn_lustre_rpc_parse(text(b), b->len, &rpc), 0);
	assert_int_equal(rpc.c.malformed, 0);
	bcn_lustre_osc_counters(&st, &rpc, v);
	w->osc[f][o][0] = v[BCN_LUSTRE_OSC_READ_BYTES];
	w->osc[f][o][1] = v[BCN_LUSTRE_OSC_WRITE_BYTES];
	w->osc_rpcs[f][o][0] = v[BCN_LUSTRE_OSC_READ_RPCS];
	w->osc_rpcs[f][o][1] = v[BCN_LUSTRE_OSC_WRITE_RPCS];
	/* every RPC is in each histogram once */
	w->hist_rpcs[f][o][0] = bcn_lustre_hist_total(&rpc.sec[BCN_RPC_PAGES],
						      0);
	w->hist_rpcs[f][o][1] = bcn_lustre_hist_total(&rpc.sec[BCN_RPC_PAGES],
						      1);
	assert_int_equal(bcn_lustre_hist_total(&rpc.sec[BCN_RPC_IN_FLIGHT], 0),
			 w->hist_rpcs[f][o][0]);
	assert_int_equal(bcn_lustre_hist_total(&rpc.sec[BCN_RPC_OFFSET], 1),
			 w->hist_rpcs[f][o][1]);
}

/* Runs conf to tick TICKS in a fresh directory and reads what it wrote
 * back through the collectors' parsers. */
static void simulate(const struct bcn_sim_conf *conf, struct view *w)
{
	struct bcn_lustre_stats st;
	struct bcn_sim *s = NULL;
	struct bcn_buf b;
	char err[256] = "", path[BCN_SIM_PATH_MAX + 128];
	unsigned f, o;

	memset(w, 0, sizeof(*w));
	assert_int_equal(bcn_sim_new(conf, &s, err, sizeof(err)), 0);
	assert_int_equal(bcn_sim_prepare(s), 0);
	while (bcn_sim_ticks(s) < TICKS)
		bcn_sim_tick(s);
	assert_int_equal(bcn_sim_write(s), 0);
	bcn_sim_free(s);
	bcn_buf_init(&b, 1 << 20);
	for (o = 0; o < NOST; o++) {
		snprintf(path, sizeof(path), "%s/oss001/proc/fs/lustre/"
			 "obdfilter/simfs-OST%04x/stats", conf->out, o);
		load(&b, path);
		assert_int_equal(bcn_lustre_stats_parse(text(&b), b.len,
							&ost_map, &st), 0);
		w->ost[o][0] = st.vals.v[BCN_LUSTRE_OST_READ_BYTES];
		w->ost[o][1] = st.vals.v[BCN_LUSTRE_OST_WRITE_BYTES];
		for (f = 0; f < NFWD; f++)
			read_osc(conf->out, f, o, w, &b);
	}
	for (f = 0; f < NFWD; f++) {
		snprintf(path, sizeof(path), "%s/fwd%03u/requests.log",
			 conf->out, f + 1);
		read_req_log(path, w->req[f]);
	}
	bcn_buf_free(&b);
}

/* Every OST's bytes are its osc devices' summed over the forwarding
 * nodes; every device's RPCs are in its histograms. */
static void check_osts(const struct view *w)
{
	unsigned f, o, d;
	uint64_t sum;

	for (o = 0; o < NOST; o++)
		for (d = 0; d < 2; d++) {
			sum = 0;
			for (f = 0; f < NFWD; f++) {
				sum += w->osc[f][o][d];
				assert_int_equal(w->osc_rpcs[f][o][d],
						 w->hist_rpcs[f][o][d]);
			}
			assert_true(w->ost[o][d] > 0);
			assert_int_equal(sum, w->ost[o][d]);
		}
}

static uint64_t osc_of(const struct view *w, unsigned f, unsigned d)
{
	uint64_t sum = 0;

	for (unsigned o = 0; o < NOST; o++)
		sum += w->osc[f][o][d];
	return sum;
}

static void test_split(void **state)
{
	char base[] = "/tmp/sim_osc_XXXXXX";
	struct bcn_sim_conf *conf = malloc(sizeof(*conf));
	struct view *w = malloc(sizeof(*w)), *again = malloc(sizeof(*w));
	unsigned f, d;

	(void)state;
	assert_non_null(conf);
	assert_non_null(w);
	assert_non_null(again);
	assert_non_null(mkdtemp(base));
	defaults(conf, base);
	simulate(conf, w);
	check_osts(w);
	/* each forwarding node's osc bytes are its request log's, and
	 * every node had reads and writes */
	for (f = 0; f < NFWD; f++)
		for (d = 0; d < 2; d++) {
			assert_true(w->req[f][d] > 0);
			assert_int_equal(osc_of(w, f, d), w->req[f][d]);
		}
	/* the slow forwarding node passed 3/4 of its twin's bytes */
	assert_true(w->req[1][0] < w->req[0][0]);
	/* the same configuration, the same files (the logs start anew) */
	simulate(conf, again);
	assert_memory_equal(w, again, sizeof(*w));
	assert_int_equal(nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(conf);
	free(w);
	free(again);
}

static void test_thrash(void **state)
{
	char base[] = "/tmp/sim_osc_XXXXXX", path[512];
	struct bcn_sim_conf *conf = malloc(sizeof(*conf));
	struct view *plain = malloc(sizeof(*plain));
	struct view *w = malloc(sizeof(*w));
	struct bcn_buf b;
	unsigned f;

	(void)state;
	assert_non_null(conf);
	assert_non_null(plain);
	assert_non_null(w);
	assert_non_null(mkdtemp(base));
	defaults(conf, base);
	simulate(conf, plain);
	snprintf(conf->cache_thrash[0], sizeof(conf->cache_thrash[0]),
		 "1 0 1000 4");
	conf->nthrash = 1;
	snprintf(conf->truth, sizeof(conf->truth), "%s/truth.jsonl", base);
	simulate(conf, w);
	check_osts(w);
	/* fwd 1 reads 4 times what its nodes got (an overloaded OST's share
	 * of its reads rounds down to whole bytes for the nodes: less than
	 * 4 bytes per stripe and tick); the others what theirs got, and
	 * writes are what they were asked */
	assert_true(osc_of(w, 1, 0) >= 4 * w->req[1][0]);
	assert_true(osc_of(w, 1, 0) - 4 * w->req[1][0] < 4 * NOST * TICKS);
	for (f = 0; f < NFWD; f++) {
		if (f != 1)
			assert_int_equal(osc_of(w, f, 0), w->req[f][0]);
		assert_int_equal(osc_of(w, f, 1), w->req[f][1]);
	}
	/* the extra reads took OST bandwidth: fwd 0's half of job a, on the
	 * same OSTs, got less than without them, and so did fwd 1's */
	assert_true(w->req[0][0] < plain->req[0][0]);
	assert_true(w->req[1][0] < plain->req[1][0]);
	/* what the OSTs served in all stays within their capacity */
	for (unsigned o = 0; o < NOST; o++)
		assert_true(w->ost[o][0] + w->ost[o][1] <=
			    (uint64_t)TICKS * conf->ost_bw);
	bcn_buf_init(&b, 1 << 16);
	load(&b, conf->truth);
	assert_non_null(strstr(text(&b), "{\"kind\":\"cache_thrash\",\"node\":"
				"\"fwd002\",\"factor\":4,\"from\":"
				"\"2026-09-21T14:13:20Z\",\"to\":"
				"\"2026-09-21T14:30:00Z\"}\n"));
	bcn_buf_free(&b);
	snprintf(path, sizeof(path), "%s", base);
	assert_int_equal(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(conf);
	free(plain);
	free(w);
}

/* OSTs with bandwidth to spare: a thrashing node's nodes get all they
 * asked, whatever FACTOR; its client reads FACTOR times that (to the
 * byte below, per placement). */
static void test_thrash_spare(void **state)
{
	char base[] = "/tmp/sim_osc_XXXXXX";
	struct bcn_sim_conf *conf = malloc(sizeof(*conf));
	struct view *plain = malloc(sizeof(*plain));
	struct view *w = malloc(sizeof(*w));
	uint64_t want;
	unsigned f;

	(void)state;
	assert_non_null(conf);
	assert_non_null(plain);
	assert_non_null(w);
	assert_non_null(mkdtemp(base));
	defaults(conf, base);
	conf->ost_bw = 100ull << 30;
	simulate(conf, plain);
	snprintf(conf->cache_thrash[0], sizeof(conf->cache_thrash[0]),
		 "3 0 1000 2.5");
	conf->nthrash = 1;
	simulate(conf, w);
	check_osts(w);
	for (f = 0; f < NFWD; f++) {
		assert_int_equal(w->req[f][0], plain->req[f][0]);
		assert_int_equal(w->req[f][1], plain->req[f][1]);
		assert_int_equal(osc_of(w, f, 1), w->req[f][1]);
		if (f != 3)
			assert_int_equal(osc_of(w, f, 0), w->req[f][0]);
	}
	want = w->req[3][0] * 5 / 2;
	assert_true(osc_of(w, 3, 0) <= want);
	assert_true(want - osc_of(w, 3, 0) < NOST * TICKS);
	assert_int_equal(nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(conf);
	free(plain);
	free(w);
}

static void test_bad_thrash(void **state)
{
	static const char *const bad[] = {
		"1 0 10", "1 0 10 1", "1 0 10 0.5", "5 0 10 8", "1 0 0 8",
		"1 0 10 101", "1 0 10 8 x", "x 0 10 8",
	};
	struct bcn_sim_conf *conf = malloc(sizeof(*conf));
	struct bcn_sim *s = NULL;
	char err[256];

	(void)state;
	assert_non_null(conf);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		defaults(conf, "/nonexistent");
		snprintf(conf->cache_thrash[0], sizeof(conf->cache_thrash[0]),
			 "%s", bad[i]);
		conf->nthrash = 1;
		err[0] = '\0';
		assert_int_equal(bcn_sim_new(conf, &s, err, sizeof(err)),
				 -BCN_ESYNTAX);
		assert_null(s);
		assert_non_null(strstr(err, "cache_thrash"));
	}
	defaults(conf, "/nonexistent");
	snprintf(conf->cache_thrash[0], sizeof(conf->cache_thrash[0]),
		 "4 10 5 2.5");
	conf->nthrash = 1;
	assert_int_equal(bcn_sim_new(conf, &s, err, sizeof(err)), 0);
	bcn_sim_free(s);
	free(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_stats),
		cmocka_unit_test(test_format_rpc_stats),
		cmocka_unit_test(test_format_import),
		cmocka_unit_test(test_format_waittime),
		cmocka_unit_test(test_idle_device),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_thrash),
		cmocka_unit_test(test_thrash_spare),
		cmocka_unit_test(test_bad_thrash),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
