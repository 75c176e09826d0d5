/* Tests of collectors/client/procmon, the /proc sampler: the exact split
 * of counter deltas, and the sampler run by the real collector loop
 * (bcn_collector_run with --count, --output and --root) over a fake
 * /proc tree in a temporary directory that the test rewrites before each
 * sample: baselines, a counter change, a process started inside the
 * window, pid reuse with a new start time, a process that exits, an
 * unreadable io file, processes outside any job; the frames are decoded
 * and every record checked. */
#include <errno.h>
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

#include "collectors/client/procmon.h"
#include "common/clock.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "proto/frame.h"

#define NS 1000000000LL
#define SAMPLES 3
#define MAX_RECS 64
#define OLD_START 1000                  /* ticks after boot: long ago */

/* ---- the split ------------------------------------------------------ */

static void test_split(void **state)
{
	static const struct {
		uint64_t ops, bytes;
		unsigned n;
		struct bcn_procmon_part p[2];
	} c[] = {
		{ 0, 0, 0, { { 0, 0 }, { 0, 0 } } },
		{ 1, 0, 1, { { 1, 0 }, { 0, 0 } } },
		{ 0, 7, 1, { { 1, 7 }, { 0, 0 } } },
		{ 4, 4096, 1, { { 4, 1024 }, { 0, 0 } } },
		{ 4, 10003, 2, { { 3, 2500 }, { 1, 2503 } } },
		{ 3, 2, 2, { { 2, 0 }, { 1, 2 } } },
		{ 1, 12345, 1, { { 1, 12345 }, { 0, 0 } } },
		{ UINT64_MAX, UINT64_MAX, 1, { { UINT64_MAX, 1 }, { 0, 0 } } },
		{ 2, UINT64_MAX, 2, { { 1, UINT64_MAX / 2 },
				      { 1, UINT64_MAX / 2 + 1 } } },
	};
	struct bcn_procmon_part p[2];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		unsigned n;
		uint64_t ops = 0, bytes = 0;

		memset(p, 0, sizeof(p));
		n = bcn_procmon_split(c[i].ops, c[i].bytes, p);
		assert_int_equal(n, c[i].n);
		for (unsigned k = 0; k < n; k++) {
			assert_int_equal(p[k].count, c[i].p[k].count);
			assert_int_equal(p[k].size, c[i].p[k].size);
			assert_true(p[k].count >= 1);
			ops += p[k].count;
			bytes += p[k].count * p[k].size;
		}
		/* both totals exact (bytes without operations count one) */
		assert_int_equal(ops, c[i].ops ? c[i].ops : (c[i].bytes > 0));
		assert_int_equal(bytes, c[i].bytes);
	}
}

/* ---- a fake /proc --------------------------------------------------- */

static char root[64];
static int64_t btime_s;
static long tck;

static void mkdirs(const char *path)
{
	char tmp[1024];
	size_t n = strlen(path);

	assert_true(n < sizeof(tmp));
	memcpy(tmp, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (tmp[i] == '/' || tmp[i] == '\0') {
			char ch = tmp[i];

			tmp[i] = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				fail_msg("mkdir %s: %s", tmp, strerror(errno));
			tmp[i] = ch;
		}
	}
}

/* Writes len bytes to root/rel, creating directories. */
static void put(const char *rel, const char *data, size_t len)
{
	char path[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void puts_(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

static void rmtree(const char *rel)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, rel);
	assert_int_equal(system(cmd), 0);
}

/* A process: stat with the given start time, cgroup, environ (may be
 * NULL) and io counters (rchar < 0: io is a directory, unreadable). */
static void proc(int pid, uint64_t start, const char *cgroup,
		 const char *env, size_t envlen, int64_t rchar, uint64_t wchar,
		 uint64_t syscr, uint64_t syscw)
{
	char rel[64], buf[512];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(buf, sizeof(buf), "%d (app %d) S 1 %d %d 0 -1 4194304 100 0 "
		 "0 0 5 6 0 0 20 0 1 0 %llu 3133440 393 18446744073709551615 "
		 "1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n", pid, pid, pid,
		 pid, (unsigned long long)start);
	puts_(rel, buf);
	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	puts_(rel, cgroup);
	if (env) {
		snprintf(rel, sizeof(rel), "proc/%d/environ", pid);
		put(rel, env, envlen);
	}
	snprintf(rel, sizeof(rel), "proc/%d/io", pid);
	if (rchar < 0) {
		char path[1024];

		snprintf(path, sizeof(path), "%s/%s", root, rel);
		mkdirs(path);
		return;
	}
	snprintf(buf, sizeof(buf), "rchar: %lld\nwchar: %llu\nsyscr: %llu\n"
		 "syscw: %llu\nread_bytes: 0\nwrite_bytes: 0\n"
		 "cancelled_write_bytes: 0\n", (long long)rchar,
		 (unsigned long long)wchar, (unsigned long long)syscr,
		 (unsigned long long)syscw);
	puts_(rel, buf);
}

#define CG_V1(step) "12:pids:/user.slice\n4:memory:/slurm/uid_1000/" \
	"job_1234/step_" step "/task_0\n0::/\n"
#define CG_BATCH "0::/system.slice/slurmstepd.scope/job_77/step_batch/" \
	"user/task_0\n"
#define CG_NONE "0::/user.slice/user-1000.slice/session-2.scope\n"
#define ENV_100 "SLURM_JOB_ID=1234\0SLURM_STEP_ID=0\0SLURM_PROCID=3\0"

/* The start time, in ticks after boot, of a process started at t. */
static uint64_t ticks_at(int64_t t)
{
	return (uint64_t)(((t - btime_s * NS) * tck + NS - 1) / NS);
}

/* The tree before the first sample. */
static void build_tree(void)
{
	char buf[128];

	tck = sysconf(_SC_CLK_TCK);
	assert_true(tck > 0);
	btime_s = bcn_real_ns() / NS - 100000;
	snprintf(root, sizeof(root), "/tmp/bcn_procmon_test_XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(buf, sizeof(buf), "cpu  1 2 3 4\nintr 5 6\nbtime %lld\n"
		 "processes 42\n", (long long)btime_s);
	puts_("proc/stat", buf);
	puts_("proc/self", "not a pid");
	puts_("proc/sys/kernel/pid_max", "4194304\n");
	proc(100, OLD_START, CG_V1("0"), ENV_100, sizeof(ENV_100) - 1, 1000, 0,
	     10, 0);
	proc(200, OLD_START, CG_NONE, NULL, 0, 70000, 9000, 70, 9);
	proc(300, OLD_START, CG_V1("1"), NULL, 0, -1, 0, 0, 0);
	proc(400, OLD_START, CG_V1("0"), NULL, 0, 100, 100, 1, 1);
	proc(600, OLD_START, CG_V1("0"), NULL, 0, 5000, 0, 5, 0);
}

/* What changes before sample k of the window starting at t. */
static void mutate(int k, int64_t t)
{
	static uint64_t start500;

	if (k == 1) {
		start500 = ticks_at(t);
		proc(100, OLD_START, CG_V1("0"), ENV_100, sizeof(ENV_100) - 1,
		     1000 + 10003, 8192, 10 + 4, 2);
		proc(200, OLD_START, CG_NONE, NULL, 0, 80000, 9000, 80, 9);
		rmtree("proc/400");
		proc(500, start500, CG_BATCH, NULL, 0, 0, 7, 2, 0);
		proc(600, ticks_at(t), CG_V1("0"), NULL, 0, 300, 0, 3, 0);
		proc(800, OLD_START, CG_V1("2"), NULL, 0, 40, 40, 4, 4);
	} else if (k == 2) {
		proc(500, start500, CG_BATCH, NULL, 0, 50, 7, 7, 0);
		proc(800, OLD_START, CG_V1("2"), NULL, 0, 40, 50, 4, 5);
	}
}

/* ---- the test daemon ------------------------------------------------ */

struct pm_conf {
	struct bcn_procmon_conf pm;
	struct bcn_collector_conf cc;
};

static const struct bcn_config_opt pm_tab[] = {
	BCN_PROCMON_CONFIG_OPTIONS(struct pm_conf, pm),
	BCN_COLLECTOR_CONFIG_OPTIONS(struct pm_conf, cc),
	{ .name = NULL }
};

struct pm_state {
	struct pm_conf *conf;
	struct bcn_procmon m;
	struct bcn_procmon st;          /* counters, copied at fini */
	int k;
	int64_t t[SAMPLES], dur[SAMPLES];
};

static int pm_init(void *arg, struct bcn_collector *c)
{
	struct pm_state *s = arg;

	(void)c;
	return bcn_procmon_init(&s->m, &s->conf->pm);
}

static int pm_sample(void *arg, struct bcn_collector *c, int64_t t,
		     int64_t dur)
{
	struct pm_state *s = arg;

	assert_true(s->k < SAMPLES);
	s->t[s->k] = t;
	s->dur[s->k] = dur;
	mutate(s->k, t);
	s->k++;
	return bcn_procmon_sample(&s->m, c, t, dur);
}

static void pm_fini(void *arg)
{
	struct pm_state *s = arg;

	s->st = s->m;
	bcn_procmon_free(&s->m);
}

static const struct bcn_collector_ops pm_ops = {
	.init = pm_init, .sample = pm_sample, .fini = pm_fini,
};

struct rec {
	int64_t t, dur;
	uint64_t job, step, pid, op, count, size;
	int64_t rank;
};

/* Decodes every io record of the frame file at path. */
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
			assert_true(n < MAX_RECS);
			assert_int_equal(r.type, BCN_REC_IO);
			assert_int_equal(r.u.io.fd, -1);
			assert_int_equal(r.u.io.file, 0);
			assert_int_equal(r.u.io.offset, 0);
			assert_int_equal(r.u.io.stride, 0);
			assert_int_equal(r.u.io.busy, 0);
			assert_string_equal(r.u.io.path, "");
			out[n++] = (struct rec){ r.t, r.dur, r.job,
				r.u.io.step, r.u.io.pid, r.u.io.op,
				r.u.io.count, r.u.io.size, r.u.io.rank };
		}
		off += used;
	}
	bcn_frame_free(&f);
	bcn_buf_free(&file);
	return n;
}

static int run(struct pm_conf *conf, struct pm_state *s, const char *scope,
	       const char *max, const char *out, const char *stats)
{
	char *argv[] = { "procmon-test", "--root", root, "--count", "3",
			 "--interval", "10ms", "--output", (char *)out,
			 "--proc-sample", "--proc-scope", (char *)scope,
			 "--proc-max", (char *)max,
			 "--stats-file", (char *)stats, "--node", "cn1",
			 "--log-level", "error", NULL };

	memset(conf, 0, sizeof(*conf));
	memset(s, 0, sizeof(*s));
	s->conf = conf;
	const struct bcn_collector_daemon d = { &conf->cc, &pm_ops, s };
	const struct bcn_program p = {
		.name = "procmon-test", .description = "A test.",
		.options = pm_tab, .conf = conf, .run = bcn_collector_run,
		.kind = &d,
	};

	return bcn_program_main(&p, (int)(sizeof(argv) / sizeof(argv[0]) - 1),
				argv);
}

/* ---- the tests ------------------------------------------------------ */

struct want {
	int k;                          /* sample */
	uint64_t pid, job, step;
	int64_t rank;
	uint64_t op, count, size;
};

/* Checks that recs[0..n) are exactly want[0..nw) (in any order). */
static void expect(const struct pm_state *s, const struct rec *recs,
		   size_t n, const struct want *w, size_t nw)
{
	bool used[MAX_RECS] = { false };

	for (size_t i = 0; i < nw; i++) {
		size_t j;

		for (j = 0; j < n; j++)
			if (!used[j] && recs[j].pid == w[i].pid &&
			    recs[j].op == w[i].op &&
			    recs[j].count == w[i].count &&
			    recs[j].size == w[i].size &&
			    recs[j].t == s->t[w[i].k])
				break;
		if (j == n)
			fail_msg("no record %zu: sample %d pid %llu op %llu "
				 "%llu x %llu", i, w[i].k,
				 (unsigned long long)w[i].pid,
				 (unsigned long long)w[i].op,
				 (unsigned long long)w[i].count,
				 (unsigned long long)w[i].size);
		used[j] = true;
		assert_int_equal(recs[j].dur, s->dur[w[i].k]);
		assert_int_equal(recs[j].job, w[i].job);
		assert_int_equal(recs[j].step, w[i].step);
		assert_int_equal(recs[j].rank, w[i].rank);
	}
	assert_int_equal(n, nw);
}

static void read_stats(const char *path, char *line, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(line, (int)len, f));
	fclose(f);
}

static void test_sampler_jobs(void **state)
{
	static const struct want w[] = {
		/* 1: 100 grew; 500 started in the window; 600 is a new
		 * process under an old pid */
		{ 1, 100, 1234, 0, 3, BCN_IO_READ, 3, 2500 },
		{ 1, 100, 1234, 0, 3, BCN_IO_READ, 1, 2503 },
		{ 1, 100, 1234, 0, 3, BCN_IO_WRITE, 2, 4096 },
		{ 1, 500, 77, BCN_PROCJOB_STEP_BATCH, -1, BCN_IO_READ, 2, 0 },
		{ 1, 500, 77, BCN_PROCJOB_STEP_BATCH, -1, BCN_IO_WRITE, 1, 7 },
		{ 1, 600, 1234, 0, -1, BCN_IO_READ, 3, 100 },
		/* 2: 100 is idle; 800 was an old process at 1 */
		{ 2, 500, 77, BCN_PROCJOB_STEP_BATCH, -1, BCN_IO_READ, 5, 10 },
		{ 2, 800, 1234, 2, -1, BCN_IO_WRITE, 1, 10 },
	};
	static struct pm_conf conf;
	static struct pm_state s;
	static struct rec recs[MAX_RECS];
	char out[] = "/tmp/bcn_procmon_out_XXXXXX";
	char stats[] = "/tmp/bcn_procmon_stats_XXXXXX";
	char line[4096];
	size_t n;

	(void)state;
	close(mkstemp(out));
	close(mkstemp(stats));
	build_tree();
	assert_int_equal(run(&conf, &s, "jobs", "4096", out, stats), 0);
	assert_int_equal(s.k, SAMPLES);
	assert_true(conf.pm.enabled);
	assert_int_equal(conf.pm.scope, BCN_PROCMON_SCOPE_JOBS);
	assert_int_equal(conf.pm.max, 4096);
	n = decode(out, recs);
	expect(&s, recs, n, w, sizeof(w) / sizeof(w[0]));
	/* 500 and 600 were counted from zero; 600 was reused; 300's io
	 * could not be read at any sample */
	assert_int_equal(s.st.samples, 3);
	assert_int_equal(s.st.started, 2);
	assert_int_equal(s.st.reused, 1);
	assert_int_equal(s.st.unreadable, 3);
	assert_int_equal(s.st.records, n);
	assert_int_equal(s.st.procs, 6);        /* 100 200 300 500 600 800 */
	assert_int_equal(s.st.tracked, 5);      /* not 200 */
	assert_int_equal(s.st.dropped, 0);
	assert_int_equal(s.st.btime, btime_s);
	read_stats(stats, line, sizeof(line));
	assert_non_null(strstr(line, "\"file_errors\":3,"));
	assert_non_null(strstr(line, "\"skipped_lines\":0,"));
	unlink(out);
	unlink(stats);
	rmtree("");
}

/* With proc_scope all, processes outside jobs count too (job 0). */
static void test_sampler_all(void **state)
{
	static const struct want w[] = {
		{ 1, 100, 1234, 0, 3, BCN_IO_READ, 3, 2500 },
		{ 1, 100, 1234, 0, 3, BCN_IO_READ, 1, 2503 },
		{ 1, 100, 1234, 0, 3, BCN_IO_WRITE, 2, 4096 },
		{ 1, 200, 0, 0, -1, BCN_IO_READ, 10, 1000 },
		{ 1, 500, 77, BCN_PROCJOB_STEP_BATCH, -1, BCN_IO_READ, 2, 0 },
		{ 1, 500, 77, BCN_PROCJOB_STEP_BATCH, -1, BCN_IO_WRITE, 1, 7 },
		{ 1, 600, 1234, 0, -1, BCN_IO_READ, 3, 100 },
		{ 2, 500, 77, BCN_PROCJOB_STEP_BATCH, -1, BCN_IO_READ, 5, 10 },
		{ 2, 800, 1234, 2, -1, BCN_IO_WRITE, 1, 10 },
	};
	static struct pm_conf conf;
	static struct pm_state s;
	static struct rec recs[MAX_RECS];
	char out[] = "/tmp/bcn_procmon_out_XXXXXX";
	char stats[] = "/tmp/bcn_procmon_stats_XXXXXX";
	size_t n;

	(void)state;
	close(mkstemp(out));
	close(mkstemp(stats));
	build_tree();
	assert_int_equal(run(&conf, &s, "all", "4096", out, stats), 0);
	n = decode(out, recs);
	expect(&s, recs, n, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(s.st.tracked, 6);
	unlink(out);
	unlink(stats);
	rmtree("");
}

/* More processes than proc_max: the rest are counted as dropped. */
static void test_sampler_dropped(void **state)
{
	static struct pm_conf conf;
	static struct pm_state s;
	static struct rec recs[MAX_RECS];
	char out[] = "/tmp/bcn_procmon_out_XXXXXX";
	char stats[] = "/tmp/bcn_procmon_stats_XXXXXX";

	(void)state;
	close(mkstemp(out));
	close(mkstemp(stats));
	build_tree();
	for (int pid = 1000; pid < 1015; pid++)
		proc(pid, OLD_START, CG_NONE, NULL, 0, 1, 1, 1, 1);
	/* 5 processes of the tree and 15 more at sample 0, 6 and 15 at
	 * samples 1 and 2 */
	assert_int_equal(run(&conf, &s, "jobs", "16", out, stats), 0);
	assert_int_equal(s.st.procs, 16);
	assert_int_equal(s.st.dropped, 4 + 5 + 5);
	assert_true(decode(out, recs) <= MAX_RECS);
	unlink(out);
	unlink(stats);
	rmtree("");
}

/* Off, the sampler reads nothing and emits nothing; a bad bound fails. */
static void test_sampler_off(void **state)
{
	struct bcn_procmon_conf off = { false, 0, 4096 }, bad = { true, 0, 0 };
	struct bcn_procmon m;

	(void)state;
	assert_int_equal(bcn_procmon_init(&m, &off), 0);
	assert_int_equal(bcn_procmon_sample(&m, NULL, 0, 1), 0);
	bcn_procmon_free(&m);
	assert_int_equal(bcn_procmon_init(&m, &bad), -EINVAL);
	bcn_procmon_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_sampler_jobs),
		cmocka_unit_test(test_sampler_all),
		cmocka_unit_test(test_sampler_dropped),
		cmocka_unit_test(test_sampler_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
