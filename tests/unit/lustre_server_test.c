/* Tests of collectors/lustresrv/lustre_tree and lustre_server: finding the
 * targets and files of the real fixture trees of every layout (1.8 mds/,
 * 2.10 obdfilter with brw_stats linked to osd-zfs, 2.12 osd-zfs in /proc,
 * 2.15 debugfs), and the sampler over a tree in a temporary directory
 * whose files the test rewrites between samples: deltas of targets,
 * exports and jobs, jobs and exports and targets that appear (counted
 * from zero) or vanish, a reset, unreadable files and malformed lines. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/lustresrv/lustre_server.h"
#include "collectors/lustresrv/lustre_tree.h"
#include "common/error.h"
#include "lustre_fixture.h"

#define NS 1000000000LL
#define MAX_RECS 64
#define STR 128

/* ---- a scratch tree ------------------------------------------------- */

static char root[256];

static void mkdirs(const char *path)
{
	char tmp[1024];
	size_t i, n = strlen(path);

	assert_true(n < sizeof(tmp));
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] == '/' || tmp[i] == '\0') {
			char c = tmp[i];

			tmp[i] = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				fail_msg("mkdir %s: %s", tmp, strerror(errno));
			tmp[i] = c;
		}
	}
}

static void putf(const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes printf-style text to root/rel (creating directories). */
static void putf(const char *rel, const char *fmt, ...)
{
	char path[1024], *slash;
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

/* Copies tests/data/lustre/<from> to root/<rel>. */
static void put_fixture(const char *rel, const char *from)
{
	size_t len;
	char *buf = lfx_read(from, &len);

	putf(rel, "%.*s", (int)len, buf);
	free(buf);
}

static void rm_rf(const char *rel)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, rel);
	assert_int_equal(system(cmd), 0);
}

static int setup_root(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bcn_lustre_test.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown_root(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- discovery over the fixture trees ------------------------------- */

struct names {
	unsigned n;
	char name[8][BCN_LUSTRE_TARGET_MAX];
};

static int keep_name(void *arg, const char *name)
{
	struct names *n = arg;

	if (n->n == 8)
		return -BCN_EFULL;
	snprintf(n->name[n->n++], BCN_LUSTRE_TARGET_MAX, "%s", name);
	return 0;
}

static bool has_name(const struct names *n, const char *name)
{
	unsigned i;

	for (i = 0; i < n->n; i++)
		if (strcmp(n->name[i], name) == 0)
			return true;
	return false;
}

/* The path below the fixture directory dir, or "" (for assertions). */
static const char *tail(const char *path, const char *dir)
{
	const char *p = strstr(path, dir);

	return p ? p + strlen(dir) : path;
}

static void test_resolve_lmt(void **state)
{
	struct bcn_lustre_target *t = malloc(sizeof(*t));
	struct names n = { 0 };
	char r[512];

	(void)state;
	assert_non_null(t);
	/* 2.15: stats in /proc, brw_stats in debugfs */
	snprintf(r, sizeof(r), "%sost/lmt-2.15.4_1", LFX_DIR);
	assert_int_equal(bcn_lustre_list_targets(r, BCN_LUSTRE_OST, keep_name,
						 &n), 2);
	assert_true(has_name(&n, "lflood-OST0000"));
	assert_true(has_name(&n, "lflood-OST0001"));
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_OST,
					    "lflood-OST0001", t), 0);
	assert_string_equal(tail(t->stats, "lmt-2.15.4_1/"),
			    "proc/fs/lustre/obdfilter/lflood-OST0001/stats");
	assert_string_equal(tail(t->brw_stats, "lmt-2.15.4_1/"),
			    "sys/kernel/debug/lustre/osd-zfs/lflood-OST0001/"
			    "brw_stats");
	assert_string_equal(t->job_stats, "");
	assert_string_equal(t->exports, "");
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_OST,
					    "lflood-OST0000", t), 0);
	assert_string_equal(t->brw_stats, "");
	/* "/" and trailing slashes are the same root */
	snprintf(r, sizeof(r), "%sost/lmt-2.15.4_1///", LFX_DIR);
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_OST,
					    "lflood-OST0001", t), 0);
	assert_null(strstr(t->stats, "//"));

	/* 2.12: brw_stats in /proc/fs/lustre/osd-zfs */
	snprintf(r, sizeof(r), "%sost/lmt-2.12.9_12", LFX_DIR);
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_OST,
					    "lquake-OST0000", t), 0);
	assert_string_equal(tail(t->brw_stats, "lmt-2.12.9_12/"),
			    "proc/fs/lustre/osd-zfs/lquake-OST0000/brw_stats");

	/* 1.8: brw_stats in obdfilter; MDS stats in mds/<fs>-MDT0000 */
	snprintf(r, sizeof(r), "%sost/lmt-1.8.3", LFX_DIR);
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_OST, "lc1-OST0000",
					    t), 0);
	assert_string_equal(tail(t->brw_stats, "lmt-1.8.3/"),
			    "proc/fs/lustre/obdfilter/lc1-OST0000/brw_stats");
	snprintf(r, sizeof(r), "%smds/lmt-1.8.3", LFX_DIR);
	n.n = 0;
	assert_int_equal(bcn_lustre_list_targets(r, BCN_LUSTRE_MDT, keep_name,
						 &n), 1);
	assert_string_equal(n.name[0], "lc1-MDT0000");
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_MDT, "lc1-MDT0000",
					    t), 0);
	assert_string_equal(tail(t->stats, "lmt-1.8.3/"),
			    "proc/fs/lustre/mds/lc1-MDT0000/stats");

	/* no Lustre at all */
	n.n = 0;
	assert_int_equal(bcn_lustre_list_targets("/nonexistent",
						 BCN_LUSTRE_OST, keep_name,
						 &n), 0);
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_MDT, "../x", t),
			 -EINVAL);
	assert_int_equal(bcn_lustre_resolve(r, BCN_LUSTRE_MDT, "", t),
			 -EINVAL);
	free(t);
}

/* The HPE 2.10.1 trees are the contents of /proc/fs/lustre: link them
 * there. */
static void link_proc(const char *fixture)
{
	char dir[512], target[512];

	rm_rf("proc");
	snprintf(dir, sizeof(dir), "%s/proc/fs", root);
	mkdirs(dir);
	snprintf(target, sizeof(target), "%s%s", LFX_DIR, fixture);
	snprintf(dir, sizeof(dir), "%s/proc/fs/lustre", root);
	assert_int_equal(symlink(target, dir), 0);
}

static void test_resolve_210(void **state)
{
	struct bcn_lustre_target *t = malloc(sizeof(*t));
	struct names n = { 0 };

	(void)state;
	assert_non_null(t);
	link_proc("ost/lustre_exporter-2.10.1");
	assert_int_equal(bcn_lustre_list_targets(root, BCN_LUSTRE_OST,
						 keep_name, &n), 2);
	assert_int_equal(bcn_lustre_resolve(root, BCN_LUSTRE_OST,
					    "lustrefs-OST0000", t), 0);
	assert_string_equal(tail(t->stats, root),
			    "/proc/fs/lustre/obdfilter/lustrefs-OST0000/stats");
	assert_string_equal(tail(t->job_stats, root),
			    "/proc/fs/lustre/obdfilter/lustrefs-OST0000/"
			    "job_stats");
	assert_string_equal(tail(t->exports, root),
			    "/proc/fs/lustre/obdfilter/lustrefs-OST0000/"
			    "exports");
	/* 2.10's obdfilter/<t>/brw_stats is a link into osd-zfs */
	assert_string_equal(tail(t->brw_stats, root),
			    "/proc/fs/lustre/obdfilter/lustrefs-OST0000/"
			    "brw_stats");
	/* OST0002's link dangles (its osd-zfs directory is not in the
	 * fixture), and there is no other */
	assert_int_equal(bcn_lustre_resolve(root, BCN_LUSTRE_OST,
					    "lustrefs-OST0002", t), 0);
	assert_string_equal(t->brw_stats, "");
	assert_true(t->stats[0] != '\0');

	/* the MDS tree: mdt/<t>/md_stats; mds/MDS is the service, not a
	 * target */
	link_proc("mds/lustre_exporter-2.10.1");
	n.n = 0;
	assert_int_equal(bcn_lustre_list_targets(root, BCN_LUSTRE_MDT,
						 keep_name, &n), 1);
	assert_string_equal(n.name[0], "lustrefs-MDT0000");
	assert_int_equal(bcn_lustre_resolve(root, BCN_LUSTRE_MDT,
					    "lustrefs-MDT0000", t), 0);
	assert_string_equal(tail(t->stats, root),
			    "/proc/fs/lustre/mdt/lustrefs-MDT0000/md_stats");
	assert_true(t->job_stats[0] && t->exports[0]);
	assert_string_equal(t->brw_stats, "");
	rm_rf("proc");
	free(t);
}

/* ---- the sampler ---------------------------------------------------- */

struct rec {
	struct bcn_record r;
	char target[STR], client[STR], jobid[STR];
};

struct host {
	unsigned n;
	struct rec rec[MAX_RECS];
	unsigned file_errors;
	char last_error[1024];
	uint64_t skipped;
};

static int host_emit(void *arg, const struct bcn_record *r)
{
	struct host *h = arg;
	struct rec *k;
	const char *tg, *cl, *jb;

	assert_int_equal(bcn_record_check(r), 0);
	if (h->n == MAX_RECS)
		return -BCN_EFULL;
	k = &h->rec[h->n++];
	k->r = *r;
	tg = r->type == BCN_REC_OST ? r->u.ost.target : r->u.mds.target;
	cl = r->type == BCN_REC_OST ? r->u.ost.client : r->u.mds.client;
	jb = r->type == BCN_REC_OST ? r->u.ost.jobid : r->u.mds.jobid;
	snprintf(k->target, STR, "%s", tg);
	snprintf(k->client, STR, "%s", cl);
	snprintf(k->jobid, STR, "%s", jb);
	return 0;
}

static void host_file_error(void *arg, const char *path, int rc)
{
	struct host *h = arg;

	h->file_errors++;
	snprintf(h->last_error, sizeof(h->last_error), "%s: %d", path, rc);
}

static void host_skipped(void *arg, uint64_t lines)
{
	struct host *h = arg;

	h->skipped += lines;
}

static const struct rec *find(const struct host *h, const char *target,
			      const char *client, const char *jobid)
{
	unsigned i;

	for (i = 0; i < h->n; i++)
		if (strcmp(h->rec[i].target, target) == 0 &&
		    strcmp(h->rec[i].client, client) == 0 &&
		    strcmp(h->rec[i].jobid, jobid) == 0)
			return &h->rec[i];
	return NULL;
}

static void sample(struct bcn_lustre_server *s, struct host *h, int k)
{
	struct bcn_lustre_server_host host = {
		host_emit, host_file_error, host_skipped, h,
	};

	memset(h, 0, sizeof(*h));
	assert_int_equal(bcn_lustre_server_sample(s, (1000 + k) * NS, NS,
						  &host), 0);
}

#define OSTD "proc/fs/lustre/obdfilter/"
#define BRW "sys/kernel/debug/lustre/osd-ldiskfs/"

/* A 2.15-style obdfilter stats file. */
static void ost_stats(const char *t, uint64_t rd, uint64_t rbytes,
		      uint64_t wr, uint64_t wbytes, uint64_t statfs)
{
	char rel[256];

	snprintf(rel, sizeof(rel), OSTD "%s/stats", t);
	putf(rel,
	     "snapshot_time             1704924117.040584137 secs.nsecs\n"
	     "start_time                1704403917.045921397 secs.nsecs\n"
	     "elapsed_time              520199.994662740 secs.nsecs\n"
	     "read_bytes                %llu samples [bytes] 1048576 1048576 "
	     "%llu 1\n"
	     "write_bytes               %llu samples [bytes] 1048576 1048576 "
	     "%llu 1\n"
	     "read                      %llu samples [usecs] 966 411413 3 1\n"
	     "write                     %llu samples [usecs] 345 69396350 6 1\n"
	     "statfs                    %llu samples [usecs] 0 35 1098349 1\n",
	     (unsigned long long)rd, (unsigned long long)rbytes,
	     (unsigned long long)wr, (unsigned long long)wbytes,
	     (unsigned long long)rd, (unsigned long long)wr,
	     (unsigned long long)statfs);
}

/* One 2.15-style job block. */
static int job_block(char *out, size_t len, const char *id, uint64_t wr,
		     uint64_t wbytes, uint64_t punch)
{
	return snprintf(out, len,
		"- job_id:          %s\n"
		"  snapshot_time:   1721048514.718714674 secs.nsecs\n"
		"  start_time:      1720764336.685487209 secs.nsecs\n"
		"  elapsed_time:    284178.033227465 secs.nsecs\n"
		"  read_bytes:      { samples:           0, unit: bytes, min:"
		"        0, max:        0, sum:                0, sumsq:      "
		"            0, hist: {  } }\n"
		"  write_bytes:     { samples: %11llu, unit: bytes, min:     "
		"4096, max:  1048576, sum: %16llu, sumsq:   1, hist: { 4K: 35 }"
		" }\n"
		"  write:           { samples: %11llu, unit: usecs, min:        8,"
		" max:  1586470, sum:        748382254, sumsq:    1 }\n"
		"  punch:           { samples: %11llu, unit: usecs, min:       52,"
		" max:    13739, sum:            30462, sumsq:          1 }\n",
		id, (unsigned long long)wr, (unsigned long long)wbytes,
		(unsigned long long)wr, (unsigned long long)punch);
}

static void brw(const char *t, uint64_t w256, uint64_t time16)
{
	char rel[256];

	snprintf(rel, sizeof(rel), BRW "%s/brw_stats", t);
	putf(rel,
	     "snapshot_time:            1704924117.050780452 secs.nsecs\n"
	     "\n                           read      |     write\n"
	     "pages per bulk r/w     rpcs  %% cum %% |  rpcs        %% cum %%\n"
	     "1:\t\t         5   0   0   |    1   0   0\n"
	     "256:\t\t         0   0   0   | %llu 100 100\n"
	     "\n                           read      |     write\n"
	     "I/O time (1/1000s)     ios   %% cum %% |  ios         %% cum %%\n"
	     "16:\t\t         0   0   0   | %llu 100 100\n",
	     (unsigned long long)w256, (unsigned long long)time16);
}

static void export_stats(const char *t, const char *nid, uint64_t wr,
			 uint64_t wbytes)
{
	char rel[256];

	snprintf(rel, sizeof(rel), OSTD "%s/exports/%s/stats", t, nid);
	putf(rel,
	     "snapshot_time             1510782606.789180921 secs.nsecs\n"
	     "write_bytes               %llu samples [bytes] 4096 4194304 "
	     "%llu\n"
	     "punch                     3 samples [reqs]\n",
	     (unsigned long long)wr, (unsigned long long)wbytes);
}

/* Sample 2 of test_sampler_ost: more I/O, a new job and a new export. */
static void check_ost_sample2(const struct host *h)
{
	const struct rec *r;

	assert_int_equal(h->file_errors, 0);
	assert_int_equal(h->n, 5);
	r = find(h, "fs-OST0000", "", "");
	assert_non_null(r);
	assert_int_equal(r->r.type, BCN_REC_OST);
	assert_int_equal(r->r.t, 1001 * NS + NS);       /* previous sample */
	assert_int_equal(r->r.dur, NS);
	assert_int_equal(r->r.job, 0);
	assert_int_equal(r->r.u.ost.read_bytes, 5 << 20);
	assert_int_equal(r->r.u.ost.write_bytes, 8 << 20);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_READ], 5);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_WRITE], 8);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_STATFS], 1);
	assert_int_equal(r->r.u.ost.pages_write[8], 7);
	assert_int_equal(r->r.u.ost.pages_write[0], 0);
	assert_int_equal(r->r.u.ost.pages_read[0], 0);
	assert_int_equal(r->r.u.ost.iotime_write[4], 10);
	r = find(h, "fs-OST0000", "", "SLURM:1");
	assert_non_null(r);
	assert_int_equal(r->r.job, 0);
	assert_int_equal(r->r.u.ost.write_bytes, 30 * 4096);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_WRITE], 30);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_PUNCH], 0);
	r = find(h, "fs-OST0000", "", "4242");
	assert_non_null(r);
	assert_int_equal(r->r.job, 4242);
	assert_int_equal(r->r.u.ost.write_bytes, 7 * 4096);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_PUNCH], 2);
	assert_int_equal(r->r.t, 1002 * NS);
	r = find(h, "fs-OST0000", "10.0.0.1@o2ib", "");
	assert_non_null(r);
	assert_int_equal(r->r.u.ost.write_bytes, 8 * 4096);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_PUNCH], 0);
	r = find(h, "fs-OST0000", "10.0.0.2@o2ib", "");
	assert_non_null(r);
	assert_int_equal(r->r.u.ost.write_bytes, 4 * 4096);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_PUNCH], 3);
}

/* Sample 3: remounted OST, purged and idle jobs, a new OST, an
 * unreadable export, a malformed line. */
static void check_ost_sample3(const struct host *h)
{
	const struct rec *r;

	assert_int_equal(h->skipped, 1);
	assert_int_equal(h->file_errors, 1);
	assert_non_null(strstr(h->last_error, "10.0.0.2@o2ib/stats"));
	r = find(h, "fs-OST0000", "", "");
	assert_non_null(r);
	assert_int_equal(r->r.u.ost.read_bytes, 2 << 20);
	assert_int_equal(r->r.u.ost.write_bytes, 1 << 20);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_STATFS], 1);
	assert_int_equal(r->r.u.ost.pages_write[8], 0); /* brw unchanged */
	assert_null(find(h, "fs-OST0000", "", "SLURM:1"));
	assert_null(find(h, "fs-OST0000", "", "4242"));
	assert_null(find(h, "fs-OST0000", "10.0.0.1@o2ib", ""));
	r = find(h, "fs-OST0001", "", "");
	assert_non_null(r);
	assert_int_equal(r->r.u.ost.read_bytes, 3 << 20);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_STATFS], 9);
	assert_int_equal(r->r.t, 1003 * NS);
	assert_int_equal(h->n, 2);
}

static void test_sampler_ost(void **state)
{
	struct bcn_lustre_server_conf conf = {
		.role = BCN_LUSTRE_OST, .root = root, .exports = true,
		.jobs = true, .brw = true, .max_entities = 1000,
		.forget_after = 2,
	};
	struct bcn_lustre_server *s;
	struct bcn_lustre_server_stats st;
	struct host *h = malloc(sizeof(*h));
	char jobs[4096];
	int n;

	(void)state;
	assert_non_null(h);
	rm_rf("proc");
	rm_rf("sys");
	ost_stats("fs-OST0000", 10, 10 << 20, 20, 20 << 20, 5);
	brw("fs-OST0000", 20, 20);
	job_block(jobs, sizeof(jobs), "\"SLURM:1\"", 100, 4096 * 100, 1);
	putf(OSTD "fs-OST0000/job_stats", "job_stats:\n%s", jobs);
	export_stats("fs-OST0000", "10.0.0.1@o2ib", 50, 50 * 4096);
	putf(OSTD "fs-OST0000/exports/clear", "%s", "");
	assert_int_equal(bcn_lustre_server_new(&conf, &s), 0);

	/* 1: the first sample only learns the totals */
	sample(s, h, 1);
	assert_int_equal(h->n, 0);
	assert_int_equal(h->file_errors, 0);

	/* 2: more I/O; a new job and a new export count from zero */
	ost_stats("fs-OST0000", 15, 15 << 20, 28, 28 << 20, 6);
	brw("fs-OST0000", 27, 30);
	n = job_block(jobs, sizeof(jobs), "\"SLURM:1\"", 130, 4096 * 130, 1);
	job_block(jobs + n, sizeof(jobs) - (size_t)n, "4242", 7, 7 * 4096, 2);
	putf(OSTD "fs-OST0000/job_stats", "job_stats:\n%s", jobs);
	export_stats("fs-OST0000", "10.0.0.1@o2ib", 58, 58 * 4096);
	export_stats("fs-OST0000", "10.0.0.2@o2ib", 4, 4 * 4096);
	sample(s, h, 2);
	check_ost_sample2(h);

	/* 3: the OST was remounted (its counters restart); job SLURM:1
	 * is purged and 4242 idle; a second OST appears; an export's
	 * stats cannot be read; a malformed line */
	ost_stats("fs-OST0000", 2, 2 << 20, 1, 1 << 20, 1);
	job_block(jobs, sizeof(jobs), "4242", 7, 7 * 4096, 2);
	putf(OSTD "fs-OST0000/job_stats", "job_stats:\n%s  what: ever\n",
	     jobs);
	rm_rf(OSTD "fs-OST0000/exports/10.0.0.2@o2ib/stats");
	putf(OSTD "fs-OST0000/exports/10.0.0.2@o2ib/stats/x", "%s", "");
	ost_stats("fs-OST0001", 3, 3 << 20, 4, 4 << 20, 9);
	sample(s, h, 3);
	check_ost_sample3(h);

	/* 4: the second OST goes away, its files with it */
	rm_rf(OSTD "fs-OST0001");
	sample(s, h, 4);
	assert_int_equal(h->n, 1);
	assert_int_equal(h->file_errors, 1);    /* the export, still */
	bcn_lustre_server_stats(s, &st);
	assert_int_equal(st.samples, 4);
	assert_int_equal(st.targets, 1);
	assert_int_equal(st.malformed, 2);      /* still there in 4 */
	assert_int_equal(st.table_full, 0);
	bcn_lustre_server_free(s);
	free(h);
}

static void test_sampler_mdt(void **state)
{
	struct bcn_lustre_server_conf conf = {
		.role = BCN_LUSTRE_MDT, .root = root, .exports = true,
		.jobs = true, .idle = true, .max_entities = 1000,
		.forget_after = 3,
	};
	struct bcn_lustre_server *s;
	struct host *h = malloc(sizeof(*h));
	const struct rec *r;

	(void)state;
	assert_non_null(h);
	rm_rf("proc");
	rm_rf("sys");
	put_fixture("proc/fs/lustre/mdt/fs-MDT0000/md_stats",
		    "mds/lmt-2.10.8/proc/fs/lustre/mdt/lquake-MDT0000/md_stats");
	put_fixture("proc/fs/lustre/mdt/fs-MDT0000/job_stats",
		    "mds/lustre_exporter-2.10.1/mdt/lustrefs-MDT0000/"
		    "job_stats");
	put_fixture("proc/fs/lustre/mdt/fs-MDT0000/exports/10.1.0.9@tcp/"
		    "stats", "mds/lustre_exporter-2.10.1/mdt/lustrefs-MDT0000/"
		    "exports/172.20.20.4@o2ib/stats");
	assert_int_equal(bcn_lustre_server_new(&conf, &s), 0);
	sample(s, h, 1);
	assert_int_equal(h->n, 0);
	/* nothing changed: with idle on, every entity has a zero record */
	sample(s, h, 2);
	assert_int_equal(h->n, 1 + 15 + 1);
	r = find(h, "fs-MDT0000", "", "43");
	assert_non_null(r);
	assert_int_equal(r->r.type, BCN_REC_MDS);
	assert_int_equal(r->r.job, 43);
	assert_int_equal(r->r.u.mds.ops[BCN_MD_SETATTR], 0);
	/* md_stats: open +5 (24698433 in the fixture); an unreadable job
	 * file does not stop the others */
	putf("proc/fs/lustre/mdt/fs-MDT0000/md_stats",
	     "snapshot_time             1572404800.950459989 secs.nsecs\n"
	     "open                      24698438 samples [reqs]\n"
	     "close                     24695036 samples [reqs]\n");
	rm_rf("proc/fs/lustre/mdt/fs-MDT0000/job_stats");
	putf("proc/fs/lustre/mdt/fs-MDT0000/job_stats/x", "%s", "");
	sample(s, h, 3);
	assert_int_equal(h->file_errors, 1);
	assert_non_null(strstr(h->last_error, "job_stats"));
	r = find(h, "fs-MDT0000", "", "");
	assert_non_null(r);
	assert_int_equal(r->r.u.mds.ops[BCN_MD_OPEN], 5);
	assert_int_equal(r->r.u.mds.ops[BCN_MD_CLOSE], 0);
	/* counters the file no longer prints are 0: a reset */
	assert_int_equal(r->r.u.mds.ops[BCN_MD_MKNOD], 0);
	assert_non_null(find(h, "fs-MDT0000", "10.1.0.9@tcp", ""));
	bcn_lustre_server_free(s);
	free(h);
}

/* job_stats and exports read at most every 10 s while samples come every
 * second: their records cover the time since the previous read; a job
 * that starts between two reads counts from the earlier one; the whole
 * target stays per sample */
static void test_sampler_cadence(void **state)
{
	struct bcn_lustre_server_conf conf = {
		.role = BCN_LUSTRE_OST, .root = root, .jobs = true,
		.exports = true, .jobs_every_ns = 10 * NS,
		.exports_every_ns = 10 * NS, .max_entities = 1000,
		.forget_after = 1,
	};
	struct bcn_lustre_server *s;
	struct bcn_lustre_server_stats st;
	struct host *h = malloc(sizeof(*h));
	const struct rec *r;
	char jobs[4096];
	int n, k;

	(void)state;
	assert_non_null(h);
	rm_rf("proc");
	rm_rf("sys");
	ost_stats("fs-OST0000", 1, 1, 1, 1, 1);
	job_block(jobs, sizeof(jobs), "100", 10, 40960, 0);
	putf(OSTD "fs-OST0000/job_stats", "job_stats:\n%s", jobs);
	export_stats("fs-OST0000", "10.0.0.1@o2ib", 5, 5 * 4096);
	assert_int_equal(bcn_lustre_server_new(&conf, &s), 0);
	sample(s, h, 1);                        /* now 1002 s: read */
	assert_int_equal(h->n, 0);
	n = job_block(jobs, sizeof(jobs), "100", 13, 13 * 4096, 0);
	job_block(jobs + n, sizeof(jobs) - (size_t)n, "101", 2, 8192, 0);
	putf(OSTD "fs-OST0000/job_stats", "job_stats:\n%s", jobs);
	export_stats("fs-OST0000", "10.0.0.1@o2ib", 9, 9 * 4096);
	for (k = 2; k <= 10; k++) {             /* 1003 .. 1011 s */
		sample(s, h, k);
		assert_int_equal(h->n, 1);      /* the target only */
		assert_non_null(find(h, "fs-OST0000", "", ""));
	}
	sample(s, h, 11);                       /* 1012 s: read again */
	assert_int_equal(h->n, 4);
	r = find(h, "fs-OST0000", "", "100");
	assert_non_null(r);
	assert_int_equal(r->r.t, 1002 * NS);
	assert_int_equal(r->r.dur, 10 * NS);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_WRITE], 3);
	r = find(h, "fs-OST0000", "", "101");
	assert_non_null(r);
	assert_int_equal(r->r.t, 1002 * NS);
	assert_int_equal(r->r.u.ost.write_bytes, 8192);
	r = find(h, "fs-OST0000", "10.0.0.1@o2ib", "");
	assert_non_null(r);
	assert_int_equal(r->r.dur, 10 * NS);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_WRITE], 4);
	/* the jobs were not forgotten between reads (forget_after 1) */
	job_block(jobs, sizeof(jobs), "100", 14, 14 * 4096, 0);
	putf(OSTD "fs-OST0000/job_stats", "job_stats:\n%s", jobs);
	sample(s, h, 21);                       /* 1022 s */
	r = find(h, "fs-OST0000", "", "100");
	assert_non_null(r);
	assert_int_equal(r->r.t, 1012 * NS);
	assert_int_equal(r->r.u.ost.ops[BCN_OST_WRITE], 1);
	bcn_lustre_server_stats(s, &st);
	assert_int_equal(st.job_reads, 3);
	assert_int_equal(st.export_reads, 3);
	assert_int_equal(st.detail_period_ns, 0);       /* no budget */
	bcn_lustre_server_free(s);
	free(h);
}

static void test_period(void **state)
{
	(void)state;
	/* 25 ms of CPU per read at 500 us/s: every 50 s */
	assert_int_equal(bcn_lustre_server_period(25000000, 500), 50 * NS);
	assert_int_equal(bcn_lustre_server_period(200000, 500), 400000000);
	assert_int_equal(bcn_lustre_server_period(25000000, 0), 0);
	assert_int_equal(bcn_lustre_server_period(0, 500), 0);
	assert_int_equal(bcn_lustre_server_period(INT64_MAX, 1), INT64_MAX);
}

static void test_sampler_conf(void **state)
{
	struct bcn_lustre_server_conf conf = {
		.role = BCN_LUSTRE_OST, .root = "", .max_entities = 10,
	};
	struct bcn_lustre_server *s;

	(void)state;
	assert_int_equal(bcn_lustre_server_new(&conf, &s), -EINVAL);
	conf.root = NULL;
	assert_int_equal(bcn_lustre_server_new(&conf, &s), -EINVAL);
	conf.root = "/";
	conf.role = 7;
	assert_int_equal(bcn_lustre_server_new(&conf, &s), -EINVAL);
	conf.role = BCN_LUSTRE_MDT;
	conf.max_entities = 0;
	assert_int_equal(bcn_lustre_server_new(&conf, &s), -EINVAL);
	bcn_lustre_server_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_lmt),
		cmocka_unit_test(test_resolve_210),
		cmocka_unit_test(test_sampler_ost),
		cmocka_unit_test(test_sampler_mdt),
		cmocka_unit_test(test_sampler_cadence),
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_sampler_conf),
	};

	return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
