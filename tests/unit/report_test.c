/* Unit tests of analysis/report.c and report_parts.c over a real SQLite
 * store (a temporary directory) and a private mariadbd (the job and the
 * forwarding map): bytes spread exactly over 1 s buckets, means over the
 * busy time, phases split by idle gaps and adding up to the bytes, the
 * mode of every file-sharing pattern, the forwarding nodes of the I/O
 * nodes with their own traffic and the job's share, OST and MDT parts
 * against the targets' own records (never their job parts), records
 * outside the window or of other jobs ignored, a job without I/O, a bound
 * that makes the report partial; and the advice rules, each on a report
 * that triggers it and on one that does not. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/report.h"
#include "analysis/stores.h"
#include "common/error.h"
#include "mariadb_fixture.h"
#include "store/store.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define MIB (1024ull * 1024)

static struct mdb m;
static char dir[64];
static struct bcn_store *st;
static struct bcn_stores one;
static struct bcn_jobdb *db;
static uint64_t seq;

static int setup(void **state)
{
	struct bcn_store_config c;
	char err[512];

	(void)state;
	if (!mdb_installed()) {
		fprintf(stderr, "report_test: mariadbd is not installed\n");
		return -1;
	}
	if (mdb_start(&m))
		return -1;
	/* the server may take the socket before it takes TCP connections */
	for (int i = 0; bcn_jobdb_open(&m.cfg, &db, err, sizeof(err)); i++) {
		if (i == 100) {
			fprintf(stderr, "report_test: %s\n", err);
			return -1;
		}
		usleep(100000);
	}
	snprintf(dir, sizeof(dir), "/tmp/report_test.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	bcn_store_config_defaults(&c);
	snprintf(c.dir, sizeof(c.dir), "%s", dir);
	c.retention_days = 36500;
	if (bcn_store_open(&c, &st, err, sizeof(err)))
		return -1;
	one.s[0] = st;
	one.n = 1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	bcn_store_close(st);
	bcn_jobdb_close(db);
	mdb_stop(&m);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? 0 : 0;
}

static void put(const struct bcn_record *r)
{
	struct bcn_store_item it = { .rec = r, .seq = ++seq, .idx = 0, .nrec = 1 };

	assert_int_equal(bcn_store_append(st, &it, 1), 0);
}

/* An io record: node, pid, op, file, size x count over [t, t + dur). */
static void io(uint64_t job, const char *node, uint64_t pid, int op,
	       uint64_t file, uint64_t size, uint64_t count, int64_t t,
	       int64_t dur)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_IO);
	r.node = node;
	r.job = job;
	r.t = t;
	r.dur = dur;
	r.u.io.pid = pid;
	r.u.io.op = (uint64_t)op;
	r.u.io.file = file;
	r.u.io.size = size;
	r.u.io.count = count;
	r.u.io.stride = (int64_t)size;
	put(&r);
}

/* A trace_loss record of pid on node at t. */
static void loss(uint64_t job, const char *node, uint64_t pid, uint64_t dropped,
		 uint64_t lost, uint64_t cut, int64_t t)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_TRACE_LOSS);
	r.node = node;
	r.job = job;
	r.t = t;
	r.u.trace_loss.pid = pid;
	r.u.trace_loss.dropped_ops = dropped;
	r.u.trace_loss.lost_datagrams = lost;
	r.u.trace_loss.cut = cut;
	put(&r);
}

/* A health record of program on node at t, vouching since t - dur. */
static void health(const char *node, const char *program, int64_t t,
		   int64_t dur)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_HEALTH);
	r.node = node;
	r.t = t;
	r.dur = dur;
	r.u.health.program = program;
	r.u.health.started = t - dur;
	put(&r);
}

/* beacon-clientd on each of nodes[0..n-1] alive over [from, to): a
 * health record a minute. */
static void clientd_up(const char *const *nodes, int n, int64_t from,
		       int64_t to)
{
	for (int i = 0; i < n; i++)
		for (int64_t t = from; t < to + S(60); t += S(60))
			health(nodes[i], "beacon-clientd", t,
			       t == from ? 0 : S(60));
}

static void add_job(uint64_t id, const char *nodes, int64_t start, int64_t end)
{
	struct bcn_job j;

	bcn_job_init(&j);
	j.id = id;
	j.user = "alice";
	j.name = "app";
	j.nodelist = nodes;
	j.nnodes = 4;
	j.submit = start;
	j.start = start;
	j.end = end;
	j.state = BCN_JOB_COMPLETED;
	assert_true(bcn_jobdb_upsert_job(db, &j) > 0);
}

static struct bcn_report *compute(uint64_t id, const struct bcn_report_config *c)
{
	struct bcn_report_config d;
	struct bcn_report *r = NULL;

	bcn_report_config_defaults(&d);
	assert_int_equal(bcn_report_compute(&one, db, id, S(2000000000), c ? c : &d,
					    &r), 0);
	return r;
}

static const struct bcn_report_part *part(const struct bcn_report *r,
					  const char *layer, const char *c)
{
	for (size_t i = 0; i < r->nparts; i++)
		if (!strcmp(r->parts[i].layer, layer) &&
		    !strcmp(r->parts[i].component, c))
			return &r->parts[i];
	return NULL;
}

/* Four nodes write 10 MiB each to their own file in [1010, 1014), then
 * all read one shared file in [1030, 1032): mixed, two phases. */
static void test_client(void **state)
{
	const char *n[] = { "cn1", "cn2", "cn3", "cn4" };
	struct bcn_report *r;

	(void)state;
	add_job(42, "cn[1-4]", S(1000), S(1100));
	for (int i = 0; i < 4; i++) {
		io(42, n[i], 100, BCN_IO_OPEN, 10 + i, 0, 1, S(1010), 0);
		io(42, n[i], 100, BCN_IO_WRITE, 10 + i, MIB, 10, S(1010), S(4));
		io(42, n[i], 100, BCN_IO_READ, 99, 4096, 512, S(1030), S(2));
	}
	io(42, "cn1", 100, BCN_IO_WRITE, 10, MIB, 1, S(5000), 0);  /* late */
	io(43, "cn1", 100, BCN_IO_WRITE, 10, MIB, 1, S(1020), 0);  /* other */
	/* what the tracers of two processes lost, and one of another job */
	loss(42, "cn2", 100, 7, 2, 0, S(1040));
	loss(42, "cn3", 100, 0, 0, 1, S(1050));
	loss(43, "cn3", 200, 5, 5, 1, S(1050));
	r = compute(42, NULL);
	assert_int_equal(r->loss.processes, 2);
	assert_int_equal(r->loss.dropped_ops, 7);
	assert_int_equal(r->loss.lost_datagrams, 2);
	assert_int_equal(r->loss.cut, 1);
	assert_int_equal(r->records, 4 * 3);    /* io records only */
	assert_int_equal(r->write_bytes, 40 * MIB);
	assert_int_equal(r->read_bytes, 4 * 512 * 4096);
	assert_int_equal(r->write_ops, 40);
	assert_int_equal(r->meta_ops_client, 4);
	assert_int_equal(r->io_nodes, 4);
	assert_int_equal(r->io_procs, 4);
	assert_int_equal(r->files, 5);
	assert_int_equal(r->shared_files, 1);
	assert_string_equal(r->mode, "mixed");
	/* 40 MiB over 4 s: 10 MiB in each 1 s bucket, the mean the same */
	assert_true(r->write_bw_peak == 10.0 * MIB);
	assert_true(r->write_bw_mean == 10.0 * MIB);
	assert_true(r->read_bw_mean == 4.0 * MIB);
	assert_int_equal(r->nphases, 2);
	assert_int_equal(r->phases[0].start, S(1010));
	assert_int_equal(r->phases[0].end, S(1014));
	assert_int_equal(r->phases[0].write_bytes, 40 * MIB);
	assert_int_equal(r->phases[1].read_bytes, r->read_bytes);
	/* mixed as a whole: each phase has its own mode */
	assert_string_equal(r->phases[0].mode, "N-N");
	assert_string_equal(r->phases[1].mode, "N-1");
	assert_int_equal(r->phases[0].meta_ops, 4);
	assert_int_equal(r->step_ns, S(1));
	assert_int_equal(r->nseries, 22);       /* 1010 .. 1031 */
	assert_int_equal(r->series[3].write_bytes, 10 * MIB);
	assert_int_equal(r->size_hist[20], 40);
	assert_int_equal(r->size_hist[12], 4 * 512);
	assert_false(r->partial);
	/* a job name with terminal controls is printed without them */
	{
		struct bcn_buf b;

		snprintf(r->name, sizeof(r->name), "x\033[2J\033]0;t\007");
		bcn_buf_init(&b, 1u << 20);
		assert_int_equal(bcn_report_to_text(r, false, true, &b), 0);
		assert_int_equal(bcn_buf_add(&b, "", 1), 0);
		assert_null(memchr(b.data, 033, b.len));
		assert_null(memchr(b.data, 007, b.len));
		assert_non_null(strstr((const char *)b.data, "Job 42  x?[2J"));
		bcn_buf_free(&b);
	}
	bcn_report_free(r);
}

/* One process per node, each writing its own offsets of one file: N-1;
 * groups of two on two files: N-M; one process: 1-1; own files: N-N. */
static void test_modes(void **state)
{
	static const struct {
		uint64_t job;
		uint64_t files[4];      /* node i's file; 0: no I/O */
		const char *mode;
	} t[] = {
		{ 50, { 7, 7, 7, 7 }, "N-1" },
		{ 51, { 7, 7, 8, 8 }, "N-M" },
		{ 52, { 7, 0, 0, 0 }, "1-1" },
		{ 53, { 7, 8, 9, 10 }, "N-N" },
		{ 54, { 0, 0, 0, 0 }, "none" },
	};
	const char *n[] = { "cn1", "cn2", "cn3", "cn4" };

	(void)state;
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct bcn_report *r;

		add_job(t[k].job, "cn[1-4]", S(3000), S(3100));
		if (!k)
			clientd_up(n, 4, S(2900), S(3400));
		for (int i = 0; i < 4; i++)
			if (t[k].files[i])
				io(t[k].job, n[i], 7, BCN_IO_WRITE,
				   t[k].files[i], MIB, 2, S(3010), S(1));
		r = compute(t[k].job, NULL);
		assert_string_equal(r->mode, t[k].mode);
		if (!t[k].files[0]) {
			assert_int_equal(r->nfindings, 1);
			assert_string_equal(r->findings[0].code, "no_io");
		}
		bcn_report_free(r);
	}
}

static void ost_rec(uint64_t job, const char *target, const char *jobid,
		    uint64_t wr, int64_t t)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_OST);
	r.node = "oss1";
	r.job = job;
	r.t = t;
	r.dur = S(1);
	r.u.ost.target = target;
	r.u.ost.jobid = jobid;
	r.u.ost.write_bytes = wr;
	r.u.ost.ops[BCN_OST_WRITE] = wr / MIB;
	put(&r);
}

static void fwd_rec(const char *node, int cls, uint64_t bytes, int64_t t)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_FWD_REQ);
	r.node = node;
	r.t = t;
	r.dur = S(1);
	r.u.fwd_req.cls = (uint64_t)cls;
	r.u.fwd_req.count = bytes / MIB;
	r.u.fwd_req.bytes = bytes;
	if (cls == BCN_FWD_ALL) {
		r.u.fwd_req.latency.count = 4;
		r.u.fwd_req.latency.sum = 400;
		r.u.fwd_req.latency.p95 = 150;
		r.u.fwd_req.queue.count = 2;
		r.u.fwd_req.queue.sum = 6;
	}
	put(&r);
}

/* The OST's own record says 400 MiB; the job's part 100 MiB, another
 * job's 300 MiB: a share of 1/4, not 1/8. The forwarding nodes of cn1,
 * cn2 (fwdA) and cn3 (fwdB); fwdC serves nobody of the job. */
static void test_parts(void **state)
{
	struct bcn_fwdmap_entry e[] = {
		{ "cn[1-2]", "fwdA", 0, INT64_MAX },
		{ "cn3", "fwdB", 0, INT64_MAX },
		{ "cn4", "fwdC", 0, INT64_MAX },
	};
	const char *nodes[] = { "cn1", "cn2", "cn3", "cn4" };
	const struct bcn_report_part *p;
	struct bcn_record mr;
	struct bcn_report *r;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		assert_true(bcn_jobdb_add_fwdmap(db, &e[i]) > 0);
	add_job(60, "cn[1-4]", S(4000), S(4100));
	clientd_up(nodes, 4, S(3900), S(4200));
	io(60, "cn1", 1, BCN_IO_WRITE, 5, MIB, 30, S(4010), S(1));
	io(60, "cn2", 1, BCN_IO_WRITE, 6, MIB, 30, S(4010), S(1));
	io(60, "cn3", 1, BCN_IO_WRITE, 7, MIB, 40, S(4010), S(1));
	ost_rec(0, "fs-OST0000", "", 400 * MIB, S(4010));
	ost_rec(60, "fs-OST0000", "60", 100 * MIB, S(4010));
	ost_rec(61, "fs-OST0000", "61", 300 * MIB, S(4010));
	fwd_rec("fwdA", BCN_FWD_WRITE, 240 * MIB, S(4010));
	fwd_rec("fwdA", BCN_FWD_ALL, 0, S(4010));
	fwd_rec("fwdB", BCN_FWD_WRITE, 40 * MIB, S(4010));
	fwd_rec("fwdC", BCN_FWD_WRITE, 900 * MIB, S(4010));
	bcn_record_init(&mr, BCN_REC_MDS);
	mr.node = "mds1";
	mr.t = S(4010);
	mr.u.mds.target = "fs-MDT0000";
	mr.u.mds.ops[BCN_MD_OPEN] = 70;
	put(&mr);
	mr.job = 60;
	mr.u.mds.jobid = "60";
	mr.u.mds.ops[BCN_MD_OPEN] = 7;
	put(&mr);
	r = compute(60, NULL);
	assert_int_equal(r->write_bytes, 100 * MIB);
	p = part(r, "ost", "fs-OST0000");
	assert_non_null(p);
	assert_int_equal(p->write_bytes, 100 * MIB);
	assert_int_equal(p->total_write, 400 * MIB);
	assert_true(p->share == 0.25);
	p = part(r, "forward", "fwdA");
	assert_non_null(p);
	assert_int_equal(p->write_bytes, 60 * MIB);
	assert_int_equal(p->nodes, 2);
	assert_int_equal(p->total_write, 240 * MIB);
	assert_true(p->share == 0.25);
	assert_true(p->lat_mean_us == 100.0 && p->lat_p95_us == 150.0);
	assert_true(p->queue_mean == 3.0);
	p = part(r, "forward", "fwdB");
	assert_non_null(p);
	assert_true(p->share == 1.0);
	assert_null(part(r, "forward", "fwdC"));
	p = part(r, "mds", "fs-MDT0000");
	assert_non_null(p);
	assert_int_equal(p->ops, 7);
	assert_int_equal(p->total_ops, 70);
	assert_int_equal(r->meta_ops, 7);
	/* fwdA carried 180 MiB for others, 60 for the job: a neighbour
	 * only above advice_neighbour_min_bytes */
	assert_int_equal(r->nfindings, 0);
	bcn_report_free(r);
}

static void test_partial(void **state)
{
	struct bcn_report_config c;
	struct bcn_report *r;

	(void)state;
	bcn_report_config_defaults(&c);
	c.pairs_max = 2;
	add_job(70, "cn[1-4]", S(5000), S(5100));
	io(70, "cn1", 1, BCN_IO_WRITE, 1, MIB, 1, S(5010), 0);
	io(70, "cn2", 1, BCN_IO_WRITE, 2, MIB, 1, S(5010), 0);
	io(70, "cn3", 1, BCN_IO_WRITE, 3, MIB, 1, S(5010), 0);
	r = compute(70, &c);
	assert_true(r->partial);
	assert_int_equal(r->write_bytes, 3 * MIB);     /* bytes still exact */
	bcn_report_free(r);
	r = NULL;
	assert_int_equal(bcn_report_compute(&one, db, 999, S(6000), &c, &r),
			 -ENOENT);
	assert_null(r);
}

/* A job whose nodes' records went to two log servers' embedded stores:
 * read together they give the whole job, in any order. */
static void test_two_stores(void **state)
{
	struct bcn_store_config c;
	struct bcn_stores both;
	struct bcn_store *st2, *keep = st;
	struct bcn_report *r = NULL;
	struct bcn_report_config d;
	char dir2[80], err[256], cmd[128];

	(void)state;
	snprintf(dir2, sizeof(dir2), "%s.b", dir);
	bcn_store_config_defaults(&c);
	snprintf(c.dir, sizeof(c.dir), "%s", dir2);
	c.retention_days = 36500;
	assert_int_equal(bcn_store_open(&c, &st2, err, sizeof(err)), 0);
	add_job(80, "cn[1-4]", S(7000), S(7100));
	io(80, "cn1", 1, BCN_IO_WRITE, 1, MIB, 4, S(7010), S(4));
	io(80, "cn2", 1, BCN_IO_WRITE, 1, MIB, 4, S(7010), S(4));
	st = st2;                       /* io() appends to st */
	io(80, "cn3", 1, BCN_IO_WRITE, 1, MIB, 4, S(7008), S(8));
	io(80, "cn4", 1, BCN_IO_WRITE, 1, MIB, 4, S(7012), S(2));
	st = keep;
	both.s[0] = st2;                /* the later records first */
	both.s[1] = st;
	both.n = 2;
	bcn_report_config_defaults(&d);
	assert_int_equal(bcn_report_compute(&both, db, 80, S(8000), &d, &r), 0);
	assert_int_equal(r->write_bytes, 16 * MIB);
	assert_int_equal(r->io_nodes, 4);
	assert_string_equal(r->mode, "N-1");
	assert_int_equal(r->nphases, 1);
	assert_string_equal(r->phases[0].mode, "");     /* not mixed */
	assert_int_equal(r->phases[0].start, S(7008));
	assert_int_equal(r->phases[0].end, S(7016));
	assert_true(r->write_bw_mean == 2.0 * MIB);
	bcn_report_free(r);
	r = compute(80, NULL);          /* the first store alone: half */
	assert_int_equal(r->write_bytes, 8 * MIB);
	bcn_report_free(r);
	bcn_store_close(st2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir2);
	assert_int_equal(system(cmd), 0);
}

/* Job 70 on cn[11-14]: cn11 and cn12 traced and writing, cn13's
 * collector up but the job did no I/O there, cn14 without a collector;
 * fwdE (behind cn13, cn14) silent; fs-OST0011 reported before the job,
 * not during it. The volume comes from the OST's job part, a lower
 * bound; the client layer's own figures are kept. Job 71: cn22's
 * collector died early in the job (interrupted), no OST part: the
 * client records are the volume, a lower bound. */
static void test_coverage(void **state)
{
	struct bcn_fwdmap_entry e[] = {
		{ "cn[11-12]", "fwdD", 0, INT64_MAX },
		{ "cn[13-14]", "fwdE", 0, INT64_MAX },
	};
	const char *up[] = { "cn11", "cn12", "cn13" };
	const struct bcn_report_cover *cv;
	const struct bcn_report_part *p;
	struct bcn_report *r;
	struct bcn_buf b;
	bool found = false;

	(void)state;
	for (size_t i = 0; i < 2; i++)
		assert_true(bcn_jobdb_add_fwdmap(db, &e[i]) > 0);
	add_job(70, "cn[11-14]", S(6000), S(6300));
	clientd_up(up, 3, S(5900), S(6400));
	io(70, "cn11", 1, BCN_IO_WRITE, 5, MIB, 10, S(6010), S(10));
	io(70, "cn12", 1, BCN_IO_WRITE, 6, MIB, 10, S(6010), S(10));
	ost_rec(0, "fs-OST0010", "", 1000 * MIB, S(6010));
	ost_rec(70, "fs-OST0010", "70", 40 * MIB, S(6010));
	ost_rec(0, "fs-OST0011", "", 5 * MIB, S(5800));
	fwd_rec("fwdD", BCN_FWD_WRITE, 20 * MIB, S(6010));
	r = compute(70, NULL);
	cv = &r->cover[BCN_COVER_CLIENT];
	assert_true(cv->known && !cv->complete);
	assert_int_equal(cv->expected, 4);
	assert_int_equal(cv->reported, 3);
	assert_int_equal(cv->interrupted, 0);
	assert_string_equal(cv->missing, "cn14");
	assert_string_equal(r->volume_source, "ost");
	assert_false(r->volume_exact);
	assert_true(r->client_sample);
	assert_int_equal(r->write_bytes, 40 * MIB);
	assert_int_equal(r->client.write_bytes, 20 * MIB);
	assert_int_equal(r->client.io_nodes, 2);
	/* the series and phases are the OST part's: 40 MiB in 1 s */
	assert_int_equal(r->nphases, 1);
	assert_int_equal(r->phases[0].write_bytes, 40 * MIB);
	assert_true(r->write_bw_mean > 39.9 * MIB && r->write_bw_mean < 40.1 * MIB);
	cv = &r->cover[BCN_COVER_OST];
	assert_int_equal(cv->expected, 2);
	assert_int_equal(cv->reported, 1);
	assert_int_equal(cv->served, 1);
	assert_string_equal(cv->missing, "fs-OST0011");
	cv = &r->cover[BCN_COVER_FORWARD];
	assert_int_equal(cv->expected, 2);
	assert_int_equal(cv->reported, 1);
	assert_string_equal(cv->missing, "fwdE");
	p = part(r, "forward", "fwdE");
	assert_non_null(p);
	assert_int_equal(p->nodes, 2);
	assert_int_equal(p->nodes_traced, 1);
	assert_int_equal(p->records, 0);
	for (size_t i = 0; i < r->nfindings; i++) {
		assert_string_not_equal(r->findings[i].code, "backend_reads");
		if (!strcmp(r->findings[i].code, "partial_coverage")) {
			found = true;
			assert_string_equal(r->findings[i].severity, "warning");
			assert_non_null(strstr(r->findings[i].evidence, "cn14"));
		}
	}
	assert_true(found);
	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_report_to_json(r, false, &b), 0);
	assert_int_equal(bcn_buf_add(&b, "", 1), 0);
	assert_non_null(strstr((char *)b.data, "\"volume_source\":\"ost\""));
	assert_non_null(strstr((char *)b.data, "\"missing_hosts\":\"cn14\""));
	bcn_buf_reset(&b);
	assert_int_equal(bcn_report_to_text(r, false, false, &b), 0);
	assert_int_equal(bcn_buf_add(&b, "", 1), 0);
	assert_non_null(strstr((char *)b.data, "nodes 3/4 missing cn14"));
	bcn_buf_free(&b);
	bcn_report_free(r);

	add_job(71, "cn[21-22]", S(7000), S(7600));
	clientd_up((const char *[]){ "cn21" }, 1, S(6900), S(7700));
	clientd_up((const char *[]){ "cn22" }, 1, S(6900), S(7000));
	io(71, "cn21", 1, BCN_IO_READ, 9, MIB, 8, S(7010), S(2));
	r = compute(71, NULL);
	cv = &r->cover[BCN_COVER_CLIENT];
	assert_int_equal(cv->reported, 1);
	assert_int_equal(cv->interrupted, 1);
	assert_string_equal(cv->missing, "cn22");
	assert_string_equal(r->volume_source, "client");
	assert_false(r->volume_exact);
	assert_int_equal(r->read_bytes, 8 * MIB);
	bcn_report_free(r);

	/* a job too large to read its nodes one by one: every collector's
	 * records in one scan, other collectors' ignored */
	{
		static char names[80][16];
		const char *big[80];

		for (int i = 0; i < 80; i++) {
			snprintf(names[i], sizeof(names[i]), "cn%d", 100 + i);
			big[i] = names[i];
		}
		add_job(72, "cn[100-179]", S(8000), S(8100));
		clientd_up(big, 79, S(7950), S(8200));  /* not cn179 */
		health("cn179", "beacon-fwdd", S(8050), S(60));
		io(72, "cn100", 1, BCN_IO_READ, 9, MIB, 8, S(8010), S(2));
		r = compute(72, NULL);
		cv = &r->cover[BCN_COVER_CLIENT];
		assert_int_equal(cv->expected, 80);
		assert_int_equal(cv->reported, 79);
		assert_string_equal(cv->missing, "cn179");
		bcn_report_free(r);
	}
}

/* ---- advice, on hand-made reports ---- */

struct rule_case {
	const char *code;
	void (*make)(struct bcn_report *r, bool trigger);
};

static void add_part(struct bcn_report *r, const char *layer, const char *c,
		     uint64_t rd, uint64_t wr, uint64_t trd, uint64_t twr)
{
	struct bcn_report_part *p;

	r->parts = realloc(r->parts, (r->nparts + 1) * sizeof(*p));
	assert_non_null(r->parts);
	p = &r->parts[r->nparts++];
	memset(p, 0, sizeof(*p));
	snprintf(p->layer, sizeof(p->layer), "%s", layer);
	snprintf(p->component, sizeof(p->component), "%s", c);
	p->read_bytes = rd;
	p->write_bytes = wr;
	p->total_read = trd;
	p->total_write = twr;
}

#define GIB (1024 * MIB)

static void mk_n1(struct bcn_report *r, bool on)
{
	snprintf(r->mode, sizeof(r->mode), "N-1");
	r->io_nodes = 64;
	r->write_bytes = 10 * GIB;
	add_part(r, "ost", "o0", 0, 5 * GIB, 0, 5 * GIB);
	add_part(r, "ost", "o1", 0, 5 * GIB, 0, 5 * GIB);
	if (!on)
		for (int i = 2; i < 8; i++)
			add_part(r, "ost", "ox", 0, 1, 0, 1);
}

static void mk_small(struct bcn_report *r, bool on)
{
	r->write_ops = 100000;
	r->size_hist[12] = on ? 90000 : 10000;         /* 4 KiB */
	r->size_hist[20] = 100000 - r->size_hist[12];  /* 1 MiB */
}

static void mk_meta(struct bcn_report *r, bool on)
{
	r->meta_ops = 500000;
	r->write_bytes = on ? 1 * GIB : 100 * GIB;
}

static void mk_one(struct bcn_report *r, bool on)
{
	r->io_procs = 1;
	r->nnodes = on ? 64 : 1;
	r->write_bytes = 20 * GIB;
}

static void mk_ost_imb(struct bcn_report *r, bool on)
{
	add_part(r, "ost", "o0", 0, on ? 9 * GIB : 3 * GIB, 0, 10 * GIB);
	add_part(r, "ost", "o1", 0, 1 * GIB, 0, 10 * GIB);
	add_part(r, "ost", "o2", 0, on ? 1 * GIB : 3 * GIB, 0, 10 * GIB);
}

static void mk_fwd_imb(struct bcn_report *r, bool on)
{
	add_part(r, "forward", "f0", 0, on ? 6 * GIB : 2 * GIB, 0, 20 * GIB);
	add_part(r, "forward", "f1", 0, 1 * GIB, 0, 20 * GIB);
	add_part(r, "forward", "f2", 0, 1 * GIB, 0, 20 * GIB);
}

static void mk_backend(struct bcn_report *r, bool on)
{
	r->read_bytes = 4 * GIB;
	add_part(r, "ost", "o0", on ? 16 * GIB : 4 * GIB, 0, 20 * GIB, 0);
}

static void mk_neighbour(struct bcn_report *r, bool on)
{
	r->write_bytes = 1 * GIB;
	add_part(r, "forward", "f0", 0, 1 * GIB, 0, on ? 12 * GIB : 2 * GIB);
}

static void mk_loss(struct bcn_report *r, bool on)
{
	r->loss.processes = 3;
	r->loss.untraced = 9;           /* passed untraced: not a loss */
	r->loss.cut = on ? 1 : 0;
}

static void mk_cover(struct bcn_report *r, bool on)
{
	static char miss[] = "cn[03-32]";

	r->cover[BCN_COVER_CLIENT].expected = 32;
	r->cover[BCN_COVER_CLIENT].reported = on ? 2 : 32;
	r->cover[BCN_COVER_CLIENT].complete = !on;
	r->cover[BCN_COVER_CLIENT].missing = on ? miss : NULL;
	snprintf(r->volume_source, sizeof(r->volume_source), "ost");
	r->volume_exact = true;
}

static void mk_slow_ost(struct bcn_report *r, bool on)
{
	static const char *const t[] = {
		"fs-OST0000", "fs-OST0001", "fs-OST000a", "fs-OST0003",
	};

	r->write_bytes = 4 * GIB;
	for (int i = 0; i < 4; i++) {
		add_part(r, "ost", t[i], 0, 1 * GIB, 0, 2 * GIB);
		r->parts[r->nparts - 1].rate = 200.0 * MIB;
	}
	if (on)
		r->parts[2].rate = 40.0 * MIB;
}

static void mk_slow_ost_time(struct bcn_report *r, bool on)
{
	mk_slow_ost(r, false);
	for (size_t i = 0; i < r->nparts; i++)
		r->parts[i].iotime_ms = on && i == 1 ? 80 : 12;
}

static void mk_slow_fwd(struct bcn_report *r, bool on)
{
	for (int i = 0; i < 3; i++) {
		add_part(r, "forward", i ? "f1" : "f0", 0, GIB, 0, 2 * GIB);
		r->parts[r->nparts - 1].lat_mean_us = 100 + 10 * i;
	}
	if (on)
		r->parts[1].lat_mean_us = 900;
}

static void mk_queue(struct bcn_report *r, bool on)
{
	r->write_bytes = 1 * GIB;
	add_part(r, "forward", "f0", 0, GIB, 0, 4 * GIB);
	r->parts[0].lat_mean_us = 1000;
	r->parts[0].wait_mean_us = on ? 800 : 100;
}

static struct bcn_rfiles_result ft;
static struct bcn_rnodes_result cm;
static struct bcn_rnodes_straggler slowest[2];

/* A files table of 100,000 writes of 1 MiB over 100 files. */
static void mk_files(struct bcn_report *r)
{
	memset(&ft, 0, sizeof(ft));
	ft.files = 100;
	ft.procs = 10;
	ft.stripe_bytes = MIB;
	ft.total.write_ops = 100000;
	ft.total.write_bytes = 100000 * MIB;
	ft.total.consec_ops = 100000;
	ft.total.write_time = 100ull * 1000000000;
	r->file_table = &ft;
}

static void mk_misaligned(struct bcn_report *r, bool on)
{
	mk_files(r);
	ft.total.misaligned_stripe = on ? 80000 : 1000;
}

static void mk_random(struct bcn_report *r, bool on)
{
	mk_files(r);
	ft.total.random_ops = on ? 70000 : 100;
	ft.total.consec_ops = 100000 - ft.total.random_ops;
}

static void mk_small_files(struct bcn_report *r, bool on)
{
	mk_files(r);
	ft.files = on ? 50000 : 100;
	ft.total.write_bytes = on ? 50000 * 4096ull : 100000 * MIB;
}

static void mk_meta_time(struct bcn_report *r, bool on)
{
	mk_files(r);
	ft.total.meta_time = on ? 200ull * 1000000000 : 10ull * 1000000000;
}

/* 16 nodes judged, on: one at a fifth of the median bandwidth. */
static void mk_straggler(struct bcn_report *r, bool on, bool procs)
{
	struct bcn_rnodes_judge *j = procs ? &cm.proc : &cm.node;

	memset(&cm, 0, sizeof(cm));
	memset(slowest, 0, sizeof(slowest));
	snprintf(slowest[0].node, sizeof(slowest[0].node), "cn07");
	slowest[0].pid = procs ? 4242 : 0;
	slowest[0].bw = 20.0 * MIB;
	slowest[0].bw_ratio = 0.2;
	slowest[0].time = 50ull * 1000000000;
	j->io = cm.node.io = 16;
	j->checked = cm.node.checked = true;
	j->median_bw = 100.0 * MIB;
	j->median_time = 10ull * 1000000000;
	j->stragglers = on;
	j->list = slowest;
	j->nlist = on;
	r->compute = &cm;
}

static void mk_straggler_nodes(struct bcn_report *r, bool on)
{
	mk_straggler(r, on, false);
}

static void mk_slow_procs(struct bcn_report *r, bool on)
{
	mk_straggler(r, on, true);
}

static struct bcn_rnodes_row rows[4];

/* Four nodes of a row each, on: one moves 10 GiB, the others 1 GiB. */
static void mk_node_imb(struct bcn_report *r, bool on)
{
	static char names[4][8];

	memset(&cm, 0, sizeof(cm));
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 4; i++) {
		snprintf(names[i], sizeof(names[i]), "cn%d", i);
		rows[i].nodes = names[i];
		rows[i].count = 1;
		rows[i].write_bytes = (on && i == 2 ? 10 : 1) * GIB;
	}
	cm.rows = rows;
	cm.nrows = 4;
	r->compute = &cm;
}

static void mk_none(struct bcn_report *r, bool on)
{
	r->records = on ? 0 : 10;
}

static void test_advice(void **state)
{
	static const struct rule_case cases[] = {
		{ "n1_few_osts", mk_n1 }, { "small_requests", mk_small },
		{ "metadata_heavy", mk_meta }, { "one_process_io", mk_one },
		{ "ost_imbalance", mk_ost_imb }, { "fwd_imbalance", mk_fwd_imb },
		{ "backend_reads", mk_backend },
		{ "heavy_neighbour", mk_neighbour }, { "no_io", mk_none },
		{ "trace_incomplete", mk_loss },
		{ "partial_coverage", mk_cover },
		{ "slow_ost_in_job", mk_slow_ost },
		{ "slow_ost_in_job", mk_slow_ost_time },
		{ "slow_fwd_in_job", mk_slow_fwd },
		{ "server_queueing", mk_queue },
		{ "misaligned_requests", mk_misaligned },
		{ "random_access", mk_random },
		{ "many_small_files", mk_small_files },
		{ "metadata_time", mk_meta_time },
		{ "straggler_nodes", mk_straggler_nodes },
		{ "slow_processes", mk_slow_procs },
		{ "node_imbalance", mk_node_imb },
	};
	struct bcn_advice_config c;

	(void)state;
	bcn_advice_config_defaults(&c);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (int on = 0; on < 2; on++) {
			struct bcn_report r;
			bool found = false;

			memset(&r, 0, sizeof(r));
			snprintf(r.mode, sizeof(r.mode), "N-N");
			r.records = 1;
			for (int l = 0; l < BCN_COVER_MAX; l++)
				r.cover[l].known = r.cover[l].complete = true;
			cases[k].make(&r, on);
			assert_int_equal(bcn_advice_run(&r, &c), 0);
			for (size_t i = 0; i < r.nfindings; i++) {
				found |= !strcmp(r.findings[i].code,
						 cases[k].code);
				assert_true(r.findings[i].message[0]);
				assert_true(r.findings[i].evidence[0] == '{');
			}
			if (found != (bool)on)
				fail_msg("%s: %s on a report that should %s it",
					 cases[k].code, found ? "found" :
					 "missing", on ? "trigger" : "not trigger");
			for (size_t i = 0; i < r.nfindings; i++) {
				assert_non_null(bcn_advice_code_find(
							r.findings[i].code));
				assert_true(r.findings[i].fix[0]);
			}
			if (on && cases[k].make == mk_slow_ost)
				assert_non_null(strstr(r.findings[0].fix,
						       "lfs setstripe -o 0,1,3 "));
			free(r.findings);
			free(r.parts);
		}
	}
}

/* A job whose nodes are not all seen: its OST reads may be its unseen
 * nodes', so neither backend_reads nor heavy_neighbour is claimed. */
static void test_advice_coverage(void **state)
{
	struct bcn_advice_config c;
	struct bcn_report r;

	(void)state;
	bcn_advice_config_defaults(&c);
	memset(&r, 0, sizeof(r));
	r.records = 1;
	r.nnodes = 32;
	r.io_nodes = 2;
	r.io_procs = 2;
	for (int l = 0; l < BCN_COVER_MAX; l++)
		r.cover[l].known = r.cover[l].complete = true;
	r.cover[BCN_COVER_CLIENT].complete = false;
	r.cover[BCN_COVER_CLIENT].expected = 32;
	r.cover[BCN_COVER_CLIENT].reported = 2;
	snprintf(r.volume_source, sizeof(r.volume_source), "ost");
	mk_backend(&r, true);
	mk_neighbour(&r, true);
	assert_int_equal(bcn_advice_run(&r, &c), 0);
	assert_int_equal(r.nfindings, 1);
	assert_string_equal(r.findings[0].code, "partial_coverage");
	free(r.parts);
	free(r.findings);
}

static void test_mode_rule(void **state)
{
	static const struct {
		struct bcn_report_mode_in m;
		const char *mode;
	} t[] = {
		{ { 0, 4, 0, 0, 0, 0 }, "none" },
		{ { 100, 1, 100, 100, 0, 0 }, "1-1" },
		/* a launcher's small output beside one writer */
		{ { 1000, 2, 996, 1000, 0, 0 }, "1-1" },
		{ { 1000, 4, 250, 1000, 0, 0 }, "N-N" },
		{ { 1000, 4, 250, 0, 1000, 1000 }, "N-1" },
		/* the launcher's log does not make an N-1 job mixed */
		{ { 1000, 5, 250, 20, 980, 980 }, "N-1" },
		{ { 1000, 4, 250, 0, 1000, 0 }, "N-M" },
		{ { 1000, 4, 250, 800, 200, 200 }, "mixed" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(bcn_report_mode(&t[i].m), t[i].mode))
			fail_msg("case %zu: %s, not %s", i,
				 bcn_report_mode(&t[i].m), t[i].mode);
}

int main(void)
{
	const struct CMUnitTest db_tests[] = {
		cmocka_unit_test(test_client),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_two_stores),
	};
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_advice_coverage),
		cmocka_unit_test(test_mode_rule),
	};
	int rc = cmocka_run_group_tests_name("advice", pure, NULL, NULL);

	return rc | cmocka_run_group_tests_name("report", db_tests, setup,
						 teardown);
}
