/* Tests of collectors/client/lwfsrc, the LWFS log source, run by the real
 * collector loop (bcn_collector_run with --count, --output and --root,
 * the test appending to the log before each sample): the hand-counted
 * totals of tests/data/lwfs/sample.log come out exactly in the decoded
 * records, with jobs from a fake /proc, paths on open records, file ids,
 * compressed runs and positioned warnings for malformed lines; a log
 * that exists at start-up is history; truncation; evictions from the
 * handle and process tables keep the totals exact. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/fileid.h"
#include "collectors/client/lwfsrc.h"
#include "collectors/client/procjob.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "proto/frame.h"
#include "lwfs_sample.h"

#define SAMPLES_MAX 4
#define RECS_MAX 256
#define STR 256

/* ---- a scratch tree with a fake /proc and the log ------------------- */

static char root[64], logpath[128];

static void put(const char *rel, const char *data, size_t len)
{
	char path[256], cmd[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

#define PUT(rel, lit) put(rel, lit, sizeof(lit) - 1)

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/bcn_lwfsrc_test_XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(logpath, sizeof(logpath), "%s/lwfs.log", root);
	PUT("proc/4242/cgroup", "4:memory:/slurm/uid_1000/job_1001/step_0/"
	    "task_0\n0::/\n");
	PUT("proc/4243/cgroup", "0::/system.slice/slurmstepd.scope/job_1001/"
	    "step_1/user/task_1\n");
	PUT("proc/4243/environ", "SLURM_JOB_ID=1001\0PMI_RANK=1\0");
	PUT("proc/4244/cgroup", "0::/user.slice/user-1000.slice\n");
	PUT("proc/4244/environ", "SLURM_JOB_ID=1002\0SLURM_STEP_ID=3\0"
	    "PMI_RANK=5\0");
}

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* Appends text to the log (mode "a"), or replaces it (mode "w"). */
static void log_write(const char *mode, const char *text, size_t len)
{
	FILE *f = fopen(logpath, mode);

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* ---- the test daemon ------------------------------------------------ */

struct lw_conf {
	struct bcn_lwfs_conf lw;
	struct bcn_collector_conf cc;
};

static const struct bcn_config_opt lw_tab[] = {
	BCN_LWFS_CONFIG_OPTIONS(struct lw_conf, lw),
	BCN_COLLECTOR_CONFIG_OPTIONS(struct lw_conf, cc),
	{ .name = NULL }
};

struct lw_state {
	struct lw_conf *conf;
	struct bcn_lwfsrc s;
	struct bcn_lwfsrc st;           /* counters, copied at fini */
	int k;
	/* what to write before sample k */
	const char *mode[SAMPLES_MAX];
	const char *text[SAMPLES_MAX];
	size_t len[SAMPLES_MAX];
};

static int lw_init(void *arg, struct bcn_collector *c)
{
	struct lw_state *s = arg;

	(void)c;
	return bcn_lwfsrc_init(&s->s, &s->conf->lw);
}

static int lw_sample(void *arg, struct bcn_collector *c, int64_t t,
		     int64_t dur)
{
	struct lw_state *s = arg;

	assert_true(s->k < SAMPLES_MAX);
	if (s->text[s->k])
		log_write(s->mode[s->k], s->text[s->k], s->len[s->k]);
	s->k++;
	return bcn_lwfsrc_sample(&s->s, c, t, dur);
}

static void lw_fini(void *arg)
{
	struct lw_state *s = arg;

	s->st = s->s;
	bcn_lwfsrc_free(&s->s);
}

static const struct bcn_collector_ops lw_ops = {
	.init = lw_init, .sample = lw_sample, .fini = lw_fini,
};

/* Runs count samples with extra arguments (NULL-ended, at most 6). */
static int run(struct lw_conf *conf, struct lw_state *s, int count,
	       const char *out, const char *const *extra)
{
	char cnt[8];
	char *argv[32] = { "lwfsrc-test", "--root", root, "--count", cnt,
			   "--interval", "10ms", "--output", (char *)out,
			   "--lwfs-log", logpath, "--lwfs-utc-offset",
			   "+08:00", "--node", "cn1", "--log-level",
			   "warning" };
	int argc = 17;

	snprintf(cnt, sizeof(cnt), "%d", count);
	while (extra && *extra)
		argv[argc++] = (char *)*extra++;
	memset(conf, 0, sizeof(*conf));
	s->conf = conf;
	s->k = 0;
	const struct bcn_collector_daemon d = { &conf->cc, &lw_ops, s };
	const struct bcn_program p = {
		.name = "lwfsrc-test", .description = "A test.",
		.options = lw_tab, .conf = conf, .run = bcn_collector_run,
		.kind = &d,
	};

	return bcn_program_main(&p, argc, argv);
}

/* ---- decoding ------------------------------------------------------- */

struct rec {
	int64_t t, dur;
	uint64_t job, step, pid, op, file, offset, size, count, busy;
	int64_t rank, fd, stride;
	char path[STR];
};

static size_t decode(const char *path, struct rec *out)
{
	struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_buf file;
	struct bcn_frame f;
	struct bcn_record r;
	size_t off = 0, used, n = 0;

	bcn_buf_init(&file, 64u << 20);
	assert_int_equal(bcn_buf_read_file(&file, path), 0);
	bcn_frame_init(&f);
	while (off < file.len) {
		assert_int_equal(bcn_frame_open(&f, file.data + off,
						file.len - off, &lim, &used), 0);
		while (bcn_frame_next(&f, &r) == 1) {
			struct rec *o = &out[n++];

			assert_true(n <= RECS_MAX);
			assert_int_equal(r.type, BCN_REC_IO);
			*o = (struct rec){ r.t, r.dur, r.job, r.u.io.step,
				r.u.io.pid, r.u.io.op, r.u.io.file,
				r.u.io.offset, r.u.io.size, r.u.io.count,
				r.u.io.busy, r.u.io.rank, r.u.io.fd,
				r.u.io.stride, "" };
			snprintf(o->path, sizeof(o->path), "%s", r.u.io.path);
		}
		off += used;
	}
	bcn_frame_free(&f);
	bcn_buf_free(&file);
	return n;
}

/* Sums operations and bytes per op over recs. */
static void totals(const struct rec *recs, size_t n, uint64_t *ops,
		   uint64_t *bytes, uint64_t *busy)
{
	memset(ops, 0, BCN_IO_OP_MAX * sizeof(*ops));
	memset(bytes, 0, BCN_IO_OP_MAX * sizeof(*bytes));
	*busy = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(recs[i].op < BCN_IO_OP_MAX);
		assert_true(recs[i].count >= 1);
		ops[recs[i].op] += recs[i].count;
		bytes[recs[i].op] += recs[i].count * recs[i].size;
		*busy += recs[i].busy;
	}
}

static const struct rec *find(const struct rec *recs, size_t n,
			      uint64_t pid, uint64_t op, uint64_t count)
{
	for (size_t i = 0; i < n; i++)
		if (recs[i].pid == pid && recs[i].op == op &&
		    recs[i].count == count)
			return &recs[i];
	fail_msg("no record pid %llu op %llu count %llu",
		 (unsigned long long)pid, (unsigned long long)op,
		 (unsigned long long)count);
	return NULL;
}

static char warnings[8][BCN_LOG_MSG_MAX];
static int nwarnings;

static void sink(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level == BCN_LOG_WARNING && nwarnings < 8 &&
	    strstr(msg, "lwfs log"))
		snprintf(warnings[nwarnings++], BCN_LOG_MSG_MAX, "%s", msg);
}

static char *slurp(const char *path, size_t *len)
{
	struct bcn_buf b;

	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_buf_read_file(&b, path), 0);
	*len = b.len;
	return (char *)b.data;
}

/* ---- the tests ------------------------------------------------------ */

static void check_jobs(const struct rec *r)
{
	static const struct { uint64_t pid, job, step; int64_t rank; } j[] = {
		{ 4242, 1001, 0, -1 }, { 4243, 1001, 1, 1 },
		{ 4244, 1002, 3, 5 }, { 4245, 0, 0, -1 },
	};

	for (size_t i = 0; i < sizeof(j) / sizeof(j[0]); i++) {
		if (r->pid != j[i].pid)
			continue;
		assert_int_equal(r->job, j[i].job);
		assert_int_equal(r->step, j[i].step);
		assert_int_equal(r->rank, j[i].rank);
		return;
	}
	fail_msg("unexpected pid %llu", (unsigned long long)r->pid);
}

/* The open records: each carries its path, whose id is its file. */
static void check_opens(const struct rec *recs, size_t n)
{
	static const struct { uint64_t pid; int64_t fd; const char *path; }
	want[] = {
		{ 4242, 0x7f3a2c001230, "/scratch/u1/run7/out/data.0" },
		{ 4243, 0x55d0c0de0010, "/scratch/u1/run7/out/log \"rank 1\".txt" },
		{ 4242, 0x7f3a2c001240, "/scratch/u1/input/mesh.h5" },
		{ 4244, -1, "/scratch/u1/missing.cfg" },
		{ 4244, 0x1f40, "/scratch/\xe6\x95\xb0\xe6\x8d\xae/in.dat" },
		{ 4245, 0x20, "/scratch/u1/\xe6\x95\xb0\xe6\x8d\xae/tab\there.dat" },
	};
	size_t found = 0;

	for (size_t i = 0; i < n; i++) {
		if (recs[i].op != BCN_IO_OPEN) {
			assert_string_equal(recs[i].path, "");
			continue;
		}
		assert_int_equal(recs[i].count, 1);
		assert_int_equal(recs[i].file,
				 bcn_file_id(recs[i].path,
					     strlen(recs[i].path)));
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (recs[i].pid == want[k].pid &&
			    recs[i].fd == want[k].fd &&
			    strcmp(recs[i].path, want[k].path) == 0)
				found++;
	}
	assert_int_equal(found, sizeof(want) / sizeof(want[0]));
}

/* sample.log written in two parts to a log that appears after start-up:
 * the records add up to the hand-counted totals. */
static void test_sample_log(void **state)
{
	static struct lw_conf conf;
	static struct lw_state s;
	static struct rec recs[RECS_MAX];
	uint64_t ops[BCN_IO_OP_MAX], bytes[BCN_IO_OP_MAX], busy;
	char out[] = "/tmp/bcn_lwfsrc_out_XXXXXX";
	const struct rec *r;
	size_t len, half, n;
	char *text;

	(void)state;
	close(mkstemp(out));
	make_root();
	text = slurp(SAMPLE_LOG, &len);
	half = (size_t)(strstr(text, "[2026-11-21 10:00:02.000000]") - text);
	memset(&s, 0, sizeof(s));
	s.mode[0] = "w";
	s.text[0] = text;
	s.len[0] = half;
	s.mode[1] = "a";
	s.text[1] = text + half;
	s.len[1] = len - half;
	nwarnings = 0;
	bcn_log_set_sink(sink, NULL);
	assert_int_equal(run(&conf, &s, 3, out, NULL), 0);
	bcn_log_set_sink(NULL, NULL);
	assert_int_equal(conf.lw.handles_max, 16384);
	assert_int_equal(conf.lw.pids_max, 1024);

	n = decode(out, recs);
	totals(recs, n, ops, bytes, &busy);
	for (size_t i = 0; i < sizeof(sample_ops) / sizeof(sample_ops[0]);
	     i++) {
		assert_int_equal(ops[sample_ops[i].op], sample_ops[i].ops);
		assert_int_equal(bytes[sample_ops[i].op], sample_ops[i].bytes);
	}
	assert_int_equal(busy, SAMPLE_BUSY_NS);
	assert_true(n < SAMPLE_VALID);          /* some runs merged */
	for (size_t i = 0; i < n; i++) {
		check_jobs(&recs[i]);
		assert_true(recs[i].t >= SAMPLE_FIRST_NS &&
			    recs[i].t <= SAMPLE_LAST_NS);
		assert_true(recs[i].dur >= 0);
	}
	check_opens(recs, n);
	/* lines 4 to 6: one run of three contiguous 1 MiB writes */
	r = find(recs, n, 4242, BCN_IO_WRITE, 3);
	assert_int_equal(r->fd, 0x7f3a2c001230);
	assert_int_equal(r->file, bcn_file_id("/scratch/u1/run7/out/data.0",
					       27));
	assert_int_equal(r->offset, 0);
	assert_int_equal(r->size, 1048576);
	assert_int_equal(r->stride, 1048576);
	assert_int_equal(r->busy, 350000);
	assert_int_equal(r->t, SAMPLE_FIRST_NS + 123689000);
	assert_int_equal(r->dur, 1211000 + 350000);
	/* lines 19 and 20: a backward stride */
	r = find(recs, n, 4242, BCN_IO_READ, 2);
	assert_int_equal(r->offset, 8192);
	assert_int_equal(r->stride, -8192);
	assert_int_equal(r->size, 4096);
	/* line 38: a handle never opened */
	r = find(recs, n, 4245, BCN_IO_WRITE, 1);
	assert_int_equal(r->fd, 0x99);
	assert_int_equal(r->file, 0);
	assert_int_equal(r->size, 10);
	/* lines 36 and 37 */
	r = find(recs, n, 4245, BCN_IO_WRITE, 2);
	assert_int_equal(r->fd, 0x20);
	assert_int_equal(r->offset, 1024);
	assert_int_equal(r->busy, 250000000);

	assert_int_equal(s.st.lines, SAMPLE_VALID);
	assert_int_equal(s.st.malformed, SAMPLE_MALFORMED);
	assert_int_equal(s.st.records, n);
	assert_int_equal(s.st.unknown_handles, 2);     /* lines 31, 38 */
	assert_int_equal(s.st.handle_evictions, 0);
	assert_int_equal(s.st.pid_evictions, 0);
	/* the first malformed line is logged with its position, the
	 * others of the same sample are rate-limited */
	assert_true(nwarnings >= 1);
	assert_non_null(strstr(warnings[0], logpath));
	assert_non_null(strstr(warnings[0], " line 39: missing ')'"));
	free(text);
	unlink(out);
	remove_root();
}

#define L1 "[2026-11-21 10:00:00] 4242 OPEN(\"/old\") => 0x1\n"
#define L2 "[2026-11-21 10:00:01] 4242 WRITE(0x1, size=10, offset=0)\n"
#define L3 "[2026-11-21 10:00:02] 4242 OPEN(\"/new\") => 0x2\n"
#define L4 "[2026-11-21 10:00:03] 4242 WRITE(0x2, size=7, offset=0)\n"
#define L5 "[2026-11-21 10:00:04] 4242 WRITE(0x2, size=5, offset=7)\n"

/* A log that exists at start-up is history; a truncated log is read
 * again from its start. */
static void test_history_and_truncation(void **state)
{
	static struct lw_conf conf;
	static struct lw_state s;
	static struct rec recs[RECS_MAX];
	uint64_t ops[BCN_IO_OP_MAX], bytes[BCN_IO_OP_MAX], busy;
	char out[] = "/tmp/bcn_lwfsrc_out_XXXXXX";
	size_t n;

	(void)state;
	close(mkstemp(out));
	make_root();
	log_write("w", L1 L2 L1 L2, 2 * strlen(L1 L2));
	memset(&s, 0, sizeof(s));
	s.mode[0] = "a";
	s.text[0] = L3 L4;
	s.len[0] = strlen(L3 L4);
	s.mode[1] = "w";
	s.text[1] = L5;
	s.len[1] = strlen(L5);
	assert_int_equal(run(&conf, &s, 3, out, NULL), 0);
	n = decode(out, recs);
	totals(recs, n, ops, bytes, &busy);
	assert_int_equal(ops[BCN_IO_OPEN], 1);
	assert_int_equal(ops[BCN_IO_WRITE], 2);
	assert_int_equal(bytes[BCN_IO_WRITE], 12);
	assert_int_equal(s.st.lines, 3);
	assert_int_equal(s.st.malformed, 0);
	assert_int_equal(s.st.follow.truncations, 1);
	/* L5's handle was opened before the truncation: still known */
	assert_int_equal(find(recs, n, 4242, BCN_IO_WRITE, 1)->file,
			 bcn_file_id("/new", 4));
	unlink(out);
	remove_root();
}

/* Tiny tables: handles and processes are evicted, the records still
 * add up, open records keep their paths. */
static void test_evictions(void **state)
{
	static const char *const extra[] = { "--lwfs-handles-max", "16",
					     "--lwfs-pids-max", "1", NULL };
	static struct lw_conf conf;
	static struct lw_state s;
	static struct rec recs[RECS_MAX];
	static char text[16384];
	uint64_t ops[BCN_IO_OP_MAX], bytes[BCN_IO_OP_MAX], busy;
	uint64_t unknown = 0;
	char out[] = "/tmp/bcn_lwfsrc_out_XXXXXX";
	size_t n, len = 0;

	(void)state;
	close(mkstemp(out));
	make_root();
	for (int i = 0; i < 20; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
			"[2026-11-21 10:00:00] 4242 OPEN(\"/f%d\") => 0x%x\n"
			"[2026-11-21 10:00:00] 4243 STATFS()\n", i, 0x100 + i);
	for (int i = 0; i < 20; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
			"[2026-11-21 10:00:01] 4242 WRITE(0x%x, size=100, "
			"offset=0)\n", 0x100 + i);
	memset(&s, 0, sizeof(s));
	s.mode[0] = "w";
	s.text[0] = text;
	s.len[0] = len;
	assert_int_equal(run(&conf, &s, 2, out, extra), 0);
	n = decode(out, recs);
	totals(recs, n, ops, bytes, &busy);
	assert_int_equal(ops[BCN_IO_OPEN], 20);
	assert_int_equal(ops[BCN_IO_OTHER], 20);
	assert_int_equal(ops[BCN_IO_WRITE], 20);
	assert_int_equal(bytes[BCN_IO_WRITE], 2000);
	for (size_t i = 0; i < n; i++) {
		if (recs[i].op == BCN_IO_OPEN)
			assert_true(recs[i].path[0] == '/');
		if (recs[i].op == BCN_IO_WRITE && recs[i].file == 0)
			unknown += recs[i].count;
	}
	assert_int_equal(unknown, 4);
	assert_int_equal(s.st.handle_evictions, 4);
	assert_int_equal(s.st.unknown_handles, 4);
	assert_int_equal(s.st.pid_evictions, 40);      /* each change */
	unlink(out);
	remove_root();
}

/* Bad settings; an empty log path turns the source off. */
static void test_init(void **state)
{
	struct bcn_lwfs_conf c = { "", "+08:00", 16384, 1024 };
	struct bcn_lwfsrc s;

	(void)state;
	bcn_log_set_sink(sink, NULL);
	assert_int_equal(bcn_lwfsrc_init(&s, &c), 0);
	assert_false(s.on);
	assert_int_equal(bcn_lwfsrc_sample(&s, NULL, 0, 1), 0);
	bcn_lwfsrc_free(&s);
	snprintf(c.log, sizeof(c.log), "/nonexistent/lwfs.log");
	snprintf(c.utc_offset, sizeof(c.utc_offset), "+8");
	assert_int_equal(bcn_lwfsrc_init(&s, &c), -EINVAL);
	bcn_lwfsrc_free(&s);
	snprintf(c.utc_offset, sizeof(c.utc_offset), "-05:30");
	c.pids_max = 0;
	assert_int_equal(bcn_lwfsrc_init(&s, &c), -EINVAL);
	bcn_lwfsrc_free(&s);
	c.pids_max = 1;
	assert_int_equal(bcn_lwfsrc_init(&s, &c), 0);
	assert_true(s.on);
	assert_int_equal(s.utc_offset, -19800);
	bcn_lwfsrc_free(&s);
	bcn_log_set_sink(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_log),
		cmocka_unit_test(test_history_and_truncation),
		cmocka_unit_test(test_evictions),
		cmocka_unit_test(test_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
