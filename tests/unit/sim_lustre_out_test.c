/* Tests of sim/lustre_out: OST stats, OST job_stats, MDT md_stats and MDT
 * job_stats formatted from tables of counters and parsed back with the
 * real parsers of collectors/lustre (every counter, the bytes and the
 * three times round-trip; zero counters are absent from stats files);
 * the layout compared line by line with real Lustre 2.15 files of
 * tests/data/lustre; job id quoting; the size model behind sumsq and the
 * histogram; bad arguments; the atomic file write. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#include "collectors/lustre/lustre_jobstats.h"
#include "collectors/lustre/lustre_stats.h"
#include "common/error.h"
#include "lustre_fixture.h"
#include "sim/lustre_out.h"

#define NS(s, n) ((int64_t)(s) * 1000000000 + (n))
#define NOW NS(1700000000, 123456789)
#define START NS(1699990000, 987654321)
#define BUF_MAX (4 << 20)
#define MAX_JOBS 16
#define MAX_LINES 64

static struct bcn_lustre_map ost_map, md_map;

#define X_NAME(id, name) name,
static const char *const ost_names[] = { BCN_OST_OPS(X_NAME) };
static const char *const md_names[] = { BCN_MD_OPS(X_NAME) };

/* ---- helpers ---------------------------------------------------------- */

/* NUL-terminates the text of b (not counted in its length). */
static const char *text(struct bcn_buf *b)
{
	assert_int_equal(bcn_buf_add(b, "", 1), 0);
	b->len--;
	return (const char *)b->data;
}

/* Whether a line of s starts with prefix. */
static int has_line(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	for (; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (strncmp(s, prefix, n) == 0)
			return 1;
	return 0;
}

/* Splits s in place into at most MAX_LINES lines; returns their number. */
static size_t split(char *s, char *lines[MAX_LINES])
{
	size_t n = 0;
	char *nl;

	while (*s) {
		assert_true(n < MAX_LINES);
		lines[n++] = s;
		nl = strchr(s, '\n');
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	return n;
}

/* The text of line up to and including the end of mark. */
static size_t upto(const char *line, const char *mark)
{
	const char *p = strstr(line, mark);

	assert_non_null(p);
	return (size_t)(p - line) + strlen(mark);
}

static void stats_parse(struct bcn_buf *b, const struct bcn_lustre_map *map,
			int64_t now, int64_t start, struct bcn_lustre_stats *st)
{
	assert_int_equal(bcn_lustre_stats_parse((const char *)b->data, b->len,
						map, st), 0);
	assert_int_equal(st->snapshot_ns, now);
	assert_int_equal(st->start_ns, start);
	assert_int_equal(st->elapsed_ns, now - start);
	assert_int_equal(st->malformed, 0);
	assert_int_equal(st->unmapped, 0);
}

struct jobs {
	unsigned n;
	struct bcn_lustre_job job[MAX_JOBS];
};

static int keep_job(void *arg, const struct bcn_lustre_job *job)
{
	struct jobs *j = arg;

	if (j->n == MAX_JOBS)
		return -BCN_EFULL;
	j->job[j->n++] = *job;
	return 0;
}

/* Parses b whole and in 13-byte chunks; both must give n jobs, and the
 * same ones. unmapped: counter lines per job the map does not know. */
static void js_parse(struct bcn_buf *b, const struct bcn_lustre_map *map,
		     unsigned n, unsigned unmapped, struct jobs *j)
{
	struct bcn_lustre_jobstats js;
	static struct jobs k;
	size_t off, c;
	unsigned i;

	memset(j, 0, sizeof(*j));
	memset(&k, 0, sizeof(k));
	assert_int_equal(bcn_lustre_jobstats_parse(&js, map,
						   (const char *)b->data,
						   b->len, keep_job, j), 0);
	assert_int_equal(js.jobs, n);
	assert_int_equal(js.empty_ids, 0);
	assert_int_equal(js.bad_ids, 0);
	assert_int_equal(js.malformed, 0);
	assert_int_equal(js.unmapped, unmapped * n);
	assert_int_equal(j->n, n);
	bcn_lustre_jobstats_init(&js, map, keep_job, &k);
	for (off = 0; off < b->len; off += c) {
		c = b->len - off < 13 ? b->len - off : 13;
		assert_int_equal(bcn_lustre_jobstats_feed(
			&js, (const char *)b->data + off, c), 0);
	}
	assert_int_equal(bcn_lustre_jobstats_finish(&js), 0);
	assert_int_equal(k.n, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(k.job[i].jobid, j->job[i].jobid);
		assert_memory_equal(k.job[i].vals.v, j->job[i].vals.v,
				    sizeof(k.job[i].vals.v));
	}
}

static int setup_maps(void **state)
{
	(void)state;
	if (bcn_lustre_map_init(&ost_map, bcn_lustre_ost_fields,
				bcn_lustre_ost_nfields, BCN_LUSTRE_OST_SLOTS) ||
	    bcn_lustre_map_init(&md_map, bcn_lustre_md_fields,
				bcn_lustre_md_nfields, BCN_LUSTRE_MD_SLOTS))
		return -1;
	umask(022);
	return 0;
}

/* ---- OST ---------------------------------------------------------------- */

struct ost_case {
	const char *what;
	int64_t now, start;
	struct bcn_sim_ost_ctr c;
};

static const struct ost_case ost_cases[] = {
	{ "idle", NOW, START, { .ops = { 0 } } },
	{ "reads only", NOW, START,
	  { .ops = { [BCN_OST_READ] = 10 }, .read_bytes = 40960,
	    .read_min = 4096, .read_max = 4096 } },
	{ "every op", NOW, NOW,
	  { .ops = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
	    .read_bytes = 1 + 4096, .read_min = 1, .read_max = 4096,
	    .write_bytes = 3 << 20, .write_min = 1 << 20,
	    .write_max = 1 << 20 } },
	{ "large", NS(9000000000LL, 999999999), 0,
	  { .ops = { [BCN_OST_READ] = UINT64_MAX, [BCN_OST_WRITE] = 1,
		     [BCN_OST_QUOTACTL] = UINT64_MAX - 1 },
	    .read_bytes = UINT64_MAX, .read_min = 0, .read_max = 1,
	    .write_bytes = 1ULL << 40, .write_min = 7, .write_max = 9 } },
	{ "statfs and punch", 1, 0,
	  { .ops = { [BCN_OST_STATFS] = 400666, [BCN_OST_PUNCH] = 3 } } },
};

static void test_ost_stats_roundtrip(void **state)
{
	struct bcn_lustre_stats st;
	struct bcn_buf b;
	size_t i, k;

	(void)state;
	bcn_buf_init(&b, BUF_MAX);
	for (i = 0; i < sizeof(ost_cases) / sizeof(ost_cases[0]); i++) {
		const struct ost_case *t = &ost_cases[i];
		const struct bcn_sim_ost_ctr *c = &t->c;
		uint32_t lines = 0;
		char pre[64];
		const char *s;

		assert_int_equal(bcn_sim_fmt_ost_stats(&b, t->now, t->start,
						       c), 0);
		s = text(&b);
		stats_parse(&b, &ost_map, t->now, t->start, &st);
		for (k = 0; k < BCN_OST_OP_MAX; k++) {
			assert_int_equal(st.vals.v[k], c->ops[k]);
			snprintf(pre, sizeof(pre), "%-25s ", ost_names[k]);
			assert_int_equal(has_line(s, pre), c->ops[k] != 0);
			lines += c->ops[k] != 0;
		}
		assert_int_equal(st.vals.v[BCN_LUSTRE_OST_READ_BYTES],
				 c->read_bytes);
		assert_int_equal(st.vals.v[BCN_LUSTRE_OST_WRITE_BYTES],
				 c->write_bytes);
		assert_int_equal(has_line(s, "read_bytes "),
				 c->ops[BCN_OST_READ] != 0);
		assert_int_equal(has_line(s, "write_bytes "),
				 c->ops[BCN_OST_WRITE] != 0);
		lines += (c->ops[BCN_OST_READ] != 0) +
			 (c->ops[BCN_OST_WRITE] != 0);
		assert_int_equal(st.counters, lines);
		assert_false(has_line(s, "prealloc"));
	}
	bcn_buf_free(&b);
}

/* lflood-OST0001/stats of Lustre 2.15.4: headers and byte lines alike;
 * the latency lines alike up to their unit (no latencies simulated). */
static void test_ost_stats_as_lustre(void **state)
{
	struct bcn_sim_ost_ctr c = {
		.ops = { [BCN_OST_READ] = 1705491, [BCN_OST_WRITE] = 1704066,
			 [BCN_OST_DESTROY] = 480013, [BCN_OST_CREATE] = 85,
			 [BCN_OST_STATFS] = 406158,
			 [BCN_OST_SET_INFO] = 53469 },
		.read_bytes = 1788336930816ULL, .read_min = 1048576,
		.read_max = 1048576, .write_bytes = 1786842710016ULL,
		.write_min = 1048576, .write_max = 1048576,
	};
	char *want, *got, *wl[MAX_LINES], *gl[MAX_LINES];
	size_t len, nw, ng, i;
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_ost_stats(&b, NS(1704924117, 40584137),
					       NS(1704403917, 45921397), &c),
			 0);
	got = strdup(text(&b));
	want = lfx_read("ost/lmt-2.15.4_1/proc/fs/lustre/obdfilter/"
			"lflood-OST0001/stats", &len);
	want = realloc(want, len + 1);
	want[len] = '\0';
	nw = split(want, wl);
	ng = split(got, gl);
	assert_int_equal(ng, nw);
	for (i = 0; i < nw; i++) {
		if (i < 5)
			assert_string_equal(gl[i], wl[i]);
		else
			assert_memory_equal(gl[i], wl[i],
					    upto(wl[i], "[usecs]"));
	}
	free(want);
	free(got);
	bcn_buf_free(&b);
}

struct jobid_case {
	const char *id;         /* as the simulator holds it */
	const char *line;       /* the job_id line */
};

static const struct jobid_case jobids[] = {
	{ ":988:ds88", "- job_id:          \":988:ds88\"" },
	{ "SLURM_JOB_machine176_2453:0:mac",
	  "- job_id:          \"SLURM_JOB_machine176_2453:0:mac\"" },
	{ "lfs.0.", "- job_id:          lfs.0." },
	{ "4242", "- job_id:          4242" },
	{ "a@b-c_d/e", "- job_id:          a@b-c_d/e" },
	{ "@lead", "- job_id:          \"@lead\"" },
	{ "a b\"c\\d#", "- job_id:          \"a\\x20b\\x22c\\x5Cd\\x23\"" },
	{ "caf\xc3\xa9\t{x}", "- job_id:          "
	  "\"caf\\xC3\\xA9\\x09\\x7Bx\\x7D\"" },
	{ "0123456789012345678901234567890",
	  "- job_id:          0123456789012345678901234567890" },
};
#define NJOBIDS (sizeof(jobids) / sizeof(jobids[0]))

static void test_ost_jobstats_roundtrip(void **state)
{
	static struct bcn_sim_ost_ctr jobs[NJOBIDS];
	static struct jobs got;
	struct bcn_buf b;
	size_t i, k;
	const char *s;

	(void)state;
	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < NJOBIDS; i++) {
		struct bcn_sim_ost_ctr *c = &jobs[i];

		strcpy(c->jobid, jobids[i].id);
		for (k = 0; k < BCN_OST_OP_MAX; k++)
			c->ops[k] = (i + k) % 3 ? (i + 1) * 1000 + k : 0;
		c->read_bytes = c->ops[BCN_OST_READ] * 4096;
		c->read_min = c->read_max = 4096;
		c->write_bytes = c->ops[BCN_OST_WRITE] * 65536 + 17;
		c->write_min = 512;
		c->write_max = 1 << 20;
	}
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NOW, START, jobs,
						  NJOBIDS), 0);
	s = text(&b);
	assert_memory_equal(s, "job_stats:\n", 11);
	js_parse(&b, &ost_map, NJOBIDS, 1 /* prealloc */, &got);
	for (i = 0; i < NJOBIDS; i++) {
		const struct bcn_lustre_job *j = &got.job[i];
		const struct bcn_sim_ost_ctr *c = &jobs[i];

		assert_true(has_line(s, jobids[i].line));
		assert_string_equal(j->jobid, jobids[i].id);
		assert_int_equal(j->snapshot_ns, NOW);
		assert_int_equal(j->start_ns, START);
		assert_int_equal(j->elapsed_ns, NOW - START);
		for (k = 0; k < BCN_OST_OP_MAX; k++)
			assert_int_equal(j->vals.v[k], c->ops[k]);
		assert_int_equal(j->vals.v[BCN_LUSTRE_OST_READ_BYTES],
				 c->ops[BCN_OST_READ] ? c->read_bytes : 0);
		assert_int_equal(j->vals.v[BCN_LUSTRE_OST_WRITE_BYTES],
				 c->ops[BCN_OST_WRITE] ? c->write_bytes : 0);
	}
	/* every counter of every job, zero or not */
	for (k = 0; k < BCN_OST_OP_MAX; k++) {
		char pre[64];
		const char *p;
		size_t n = 0;

		snprintf(pre, sizeof(pre), "  %s:", ost_names[k]);
		for (p = s; (p = strstr(p, pre)) != NULL; p++)
			n++;
		assert_int_equal(n, NJOBIDS);
	}
	bcn_buf_free(&b);
}

/* An id of 32 bytes without a NUL is cut to 31, as Lustre holds it. */
static void test_jobid_unterminated(void **state)
{
	struct bcn_sim_ost_ctr c;
	struct jobs got;
	struct bcn_buf b;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(c.jobid, 'x', sizeof(c.jobid));
	c.ops[BCN_OST_SYNC] = 5;
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NOW, START, &c, 1), 0);
	js_parse(&b, &ost_map, 1, 1, &got);
	assert_int_equal(got.job[0].jobid_len, BCN_SIM_JOBID_MAX - 1);
	assert_int_equal(strspn(got.job[0].jobid, "x"), BCN_SIM_JOBID_MAX - 1);
	assert_int_equal(got.job[0].vals.v[BCN_OST_SYNC], 5);
	bcn_buf_free(&b);
}

/* Compares our text of one job with a real 2.15 job block line by line:
 * exactly, except the lines named in loose (compared up to their unit:
 * no latencies simulated) or in to_sum (up to their sum: the sizes of
 * single requests are modelled). */
static void js_as_lustre(struct bcn_buf *b, const char *rel,
			 const char *const *loose, const char *const *to_sum)
{
	char *want, *got, *wl[MAX_LINES], *gl[MAX_LINES];
	size_t len, nw, ng, i, off;
	const char *const *l;

	got = strdup(text(b));
	want = lfx_read(rel, &len);
	want = realloc(want, len + 1);
	want[len] = '\0';
	nw = split(want, wl);
	ng = split(got, gl);
	off = strcmp(wl[0], "job_stats:") != 0;   /* blocks cut from a file */
	assert_int_equal(ng, nw + off);
	for (i = 0; i < nw; i++) {
		const char *mark = NULL;

		for (l = loose; *l; l++)
			if (strncmp(wl[i] + 2, *l, strlen(*l)) == 0)
				mark = "unit: usecs";
		for (l = to_sum; *l; l++)
			if (strncmp(wl[i] + 2, *l, strlen(*l)) == 0)
				mark = "sumsq:";
		if (mark)
			assert_memory_equal(gl[i + off], wl[i],
					    upto(wl[i], mark));
		else
			assert_string_equal(gl[i + off], wl[i]);
	}
	free(want);
	free(got);
}

static void test_ost_jobstats_as_lustre(void **state)
{
	static const char *const statfs[] = { "statfs:", NULL };
	static const char *const punch[] = { "punch:", "write:", NULL };
	static const char *const wbytes[] = { "write_bytes:", NULL };
	static const char *const none[] = { NULL };
	struct bcn_sim_ost_ctr c;
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, BUF_MAX);
	memset(&c, 0, sizeof(c));
	strcpy(c.jobid, "lfs.0.");
	c.ops[BCN_OST_STATFS] = 1;
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NS(1686153914, 643122579),
						  NS(1686153914, 643119181),
						  &c, 1), 0);
	js_as_lustre(&b, "ost/lustre-collector-2.15fmt/job_stats_time_triple.txt",
		     statfs, none);

	memset(&c, 0, sizeof(c));
	strcpy(c.jobid, "SLURM_JOB_machine176_2453:0:mac");
	c.ops[BCN_OST_WRITE] = 12999;
	c.write_bytes = 3918708736ULL;
	c.write_min = 4096;
	c.write_max = 1048576;
	c.ops[BCN_OST_PUNCH] = 121;
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NS(1721048514, 718714674),
						  NS(1720764336, 685487209),
						  &c, 1), 0);
	js_as_lustre(&b, "ost/lustre-collector-2.15fmt/"
		     "job_stats_hist_quoted_jobid.txt", punch, wbytes);
	bcn_buf_free(&b);
}

/* ---- MDT ---------------------------------------------------------------- */

static void fill_md(struct bcn_sim_mdt_ctr *c, size_t seed)
{
	size_t k;

	memset(c->ops, 0, sizeof(c->ops));
	for (k = 0; k < BCN_MD_OP_MAX; k++)
		c->ops[k] = (seed + k) % 4 ? seed * 100000 + k + 1 : 0;
}

/* The parsed value of op k: create is not a 2.15 MDT counter. */
static uint64_t md_want(const struct bcn_sim_mdt_ctr *c, size_t k)
{
	return k == BCN_MD_CREATE ? 0 : c->ops[k];
}

static void test_mdt_stats_roundtrip(void **state)
{
	struct bcn_sim_mdt_ctr c;
	struct bcn_lustre_stats st;
	struct bcn_buf b;
	size_t seed, k;

	(void)state;
	bcn_buf_init(&b, BUF_MAX);
	for (seed = 0; seed < 6; seed++) {
		uint32_t lines = 0;
		char pre[128];
		const char *s;

		memset(&c, 0, sizeof(c));
		if (seed == 5)
			c.ops[BCN_MD_OPEN] = UINT64_MAX;
		else if (seed > 0)
			fill_md(&c, seed);
		assert_int_equal(bcn_sim_fmt_mdt_stats(&b, NOW, START, &c), 0);
		s = text(&b);
		stats_parse(&b, &md_map, NOW, START, &st);
		for (k = 0; k < BCN_MD_OP_MAX; k++) {
			assert_int_equal(st.vals.v[k], md_want(&c, k));
			snprintf(pre, sizeof(pre), "%-25s ", md_names[k]);
			assert_int_equal(has_line(s, pre), md_want(&c, k) != 0);
			lines += md_want(&c, k) != 0;
		}
		/* data on MDT: requests of 0 bytes */
		if (c.ops[BCN_MD_READ]) {
			snprintf(pre, sizeof(pre), "%-25s %" PRIu64
				 " samples [bytes] 0 0 0 0\n", "read_bytes",
				 c.ops[BCN_MD_READ]);
			assert_non_null(strstr(s, pre));
		}
		lines += (c.ops[BCN_MD_READ] != 0) +
			 (c.ops[BCN_MD_WRITE] != 0);
		assert_int_equal(st.counters, lines);
		assert_false(has_line(s, "create"));
	}
	bcn_buf_free(&b);
}

/* lflood-MDT0000/md_stats of Lustre 2.15.4. */
static void test_mdt_stats_as_lustre(void **state)
{
	struct bcn_sim_mdt_ctr c = {
		.ops = { [BCN_MD_GETATTR] = 2644, [BCN_MD_STATFS] = 302669 },
	};
	char *want, *got, *wl[MAX_LINES], *gl[MAX_LINES];
	size_t len, nw, ng, i;
	struct bcn_buf b;

	(void)state;
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_mdt_stats(&b, NS(1704923930, 736404480),
					       NS(1704407718, 813190064), &c),
			 0);
	got = strdup(text(&b));
	want = lfx_read("mds/lmt-2.15.4_1/proc/fs/lustre/mdt/lflood-MDT0000/"
			"md_stats", &len);
	want = realloc(want, len + 1);
	want[len] = '\0';
	nw = split(want, wl);
	ng = split(got, gl);
	assert_int_equal(ng, nw);
	for (i = 0; i < nw; i++) {
		if (i < 3)
			assert_string_equal(gl[i], wl[i]);
		else
			assert_memory_equal(gl[i], wl[i],
					    upto(wl[i], "[usecs]"));
	}
	free(want);
	free(got);
	bcn_buf_free(&b);
}

static void test_mdt_jobstats_roundtrip(void **state)
{
	static struct bcn_sim_mdt_ctr jobs[NJOBIDS];
	static struct jobs got;
	struct bcn_buf b;
	size_t i, k;
	const char *s;

	(void)state;
	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < NJOBIDS; i++) {
		strcpy(jobs[i].jobid, jobids[i].id);
		fill_md(&jobs[i], i);
	}
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_mdt_jobstats(&b, NOW, START, jobs,
						  NJOBIDS), 0);
	s = text(&b);
	js_parse(&b, &md_map, NJOBIDS, 0, &got);
	for (i = 0; i < NJOBIDS; i++) {
		const struct bcn_lustre_job *j = &got.job[i];

		assert_true(has_line(s, jobids[i].line));
		assert_string_equal(j->jobid, jobids[i].id);
		assert_int_equal(j->snapshot_ns, NOW);
		assert_int_equal(j->start_ns, START);
		assert_int_equal(j->elapsed_ns, NOW - START);
		for (k = 0; k < BCN_MD_OP_MAX; k++)
			assert_int_equal(j->vals.v[k], md_want(&jobs[i], k));
	}
	assert_null(strstr(s, "create"));
	bcn_buf_free(&b);
}

/* The ":988:ds88" block of a 2.15 MDT: every line alike but statfs's
 * latencies. */
static void test_mdt_jobstats_as_lustre(void **state)
{
	static const char *const statfs[] = { "statfs:", NULL };
	static const char *const none[] = { NULL };
	struct bcn_sim_mdt_ctr c;
	struct bcn_buf b;

	(void)state;
	memset(&c, 0, sizeof(c));
	strcpy(c.jobid, ":988:ds88");
	c.ops[BCN_MD_STATFS] = 9372;
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_mdt_jobstats(&b, NS(1721048534, 873002069),
						  NS(1720767442, 368619499),
						  &c, 1), 0);
	js_as_lustre(&b, "mds/lustre-collector-2.15fmt/"
		     "job_stats_time_triple_quoted_jobid.txt", statfs, none);
	bcn_buf_free(&b);
}

/* ---- the size model ------------------------------------------------------ */

struct model_case {
	uint64_t n, lo, hi, sum;        /* in */
	uint64_t min, max, sumsq;       /* out */
	const char *hist;
};

static const struct model_case models[] = {
	{ 1705491, 1 << 20, 1 << 20, 1705491ULL << 20, 1 << 20, 1 << 20,
	  1875207185567318016ULL, "1M: 1705491" },
	{ 3, 4096, 1 << 20, 4096 + 65536 + (1 << 20), 4096, 1 << 20,
	  1103823372288ULL, "4K: 1, 64K: 1, 1M: 1" },
	{ 5, 10, 30, 100, 10, 30, 2200, "16: 1, 32: 4" },
	{ 4, 0, 0, 4000, 1000, 1000, 4000000, "1K: 4" },
	{ 1, 7, 9, 4096, 4096, 4096, 16777216, "4K: 1" },
	{ 2, 1, 3, 4, 1, 3, 10, "1: 1, 4: 1" },
	{ 4, 100, 50, 301, 50, 100, 23901, "64: 1, 128: 3" },
	{ 3, 4096, 4096, 3 << 20, 1 << 20, 1 << 20, 3298534883328ULL,
	  "1M: 3" },
	{ 2, 1ULL << 33, 1ULL << 33, 1ULL << 34, 1ULL << 33, 1ULL << 33, 0,
	  "2G: 2" },
	{ 0, 4096, 4096, 8192, 0, 0, 0, "" },
};

static void test_size_model(void **state)
{
	struct bcn_sim_ost_ctr c;
	struct bcn_buf b;
	char want[512];
	size_t i;

	(void)state;
	bcn_buf_init(&b, BUF_MAX);
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct model_case *m = &models[i];
		uint64_t sum = m->n ? m->sum : 0;

		memset(&c, 0, sizeof(c));
		strcpy(c.jobid, "m");
		c.ops[BCN_OST_WRITE] = m->n;
		c.write_min = m->lo;
		c.write_max = m->hi;
		c.write_bytes = m->sum;
		assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NOW, START, &c,
							  1), 0);
		snprintf(want, sizeof(want), "  write_bytes:     { samples: "
			 "%11" PRIu64 ", unit: bytes, min: %8" PRIu64 ", max: "
			 "%8" PRIu64 ", sum: %16" PRIu64 ", sumsq: %18" PRIu64
			 ", hist: { %s } }\n", m->n, m->min, m->max, sum,
			 m->sumsq, m->hist);
		if (!strstr(text(&b), want))
			fail_msg("case %zu: no '%s' in\n%s", i, want, text(&b));
		assert_int_equal(bcn_sim_fmt_ost_stats(&b, NOW, START, &c), 0);
		snprintf(want, sizeof(want), "write_bytes               %"
			 PRIu64 " samples [bytes] %" PRIu64 " %" PRIu64 " %"
			 PRIu64 " %" PRIu64 "\n", m->n, m->min, m->max, sum,
			 m->sumsq);
		assert_int_equal(strstr(text(&b), want) != NULL, m->n != 0);
	}
	bcn_buf_free(&b);
}

/* ---- arguments ----------------------------------------------------------- */

static void test_bad_args(void **state)
{
	struct bcn_sim_ost_ctr o;
	struct bcn_sim_mdt_ctr m;
	struct bcn_buf b;

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&m, 0, sizeof(m));
	o.ops[BCN_OST_READ] = 1;
	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_sim_fmt_ost_stats(&b, START, NOW, &o), -EINVAL);
	assert_int_equal(bcn_sim_fmt_mdt_stats(&b, -1, -2, &m), -EINVAL);
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NOW, -1, &o, 1),
			 -EINVAL);
	assert_int_equal(bcn_sim_fmt_mdt_jobstats(&b, 5, 6, &m, 1), -EINVAL);
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NOW, START, NULL, 1),
			 -EINVAL);
	assert_int_equal(bcn_sim_fmt_mdt_jobstats(&b, NOW, START, NULL, 1),
			 -EINVAL);
	/* no jobs: the header alone, as a 2.15 server with none */
	assert_int_equal(bcn_sim_fmt_mdt_jobstats(&b, NOW, START, NULL, 0), 0);
	assert_int_equal(b.len, 11);
	assert_memory_equal(b.data, "job_stats:\n", 11);
	assert_int_equal(bcn_sim_fmt_ost_stats(&b, NOW, NOW, &o), 0);
	assert_true(has_line(text(&b),
			     "elapsed_time              0.000000000 secs.nsecs"));
	bcn_buf_free(&b);
	/* a buffer too small */
	bcn_buf_init(&b, 64);
	assert_int_equal(bcn_sim_fmt_ost_stats(&b, NOW, START, &o),
			 -BCN_EFULL);
	assert_int_equal(bcn_sim_fmt_ost_jobstats(&b, NOW, START, &o, 1),
			 -BCN_EFULL);
	bcn_buf_free(&b);
}

/* ---- files ----------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	struct bcn_buf b;

	bcn_buf_init(&b, BUF_MAX);
	assert_int_equal(bcn_buf_read_file(&b, path), 0);
	*len = b.len;
	return (char *)b.data;
}

/* Names in dir, other than . and .., joined by spaces. */
static void listing(const char *dir, char *out, size_t outlen)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	assert_non_null(d);
	out[0] = '\0';
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (out[0])
			strncat(out, " ", outlen - strlen(out) - 1);
		strncat(out, e->d_name, outlen - strlen(out) - 1);
	}
	closedir(d);
}

static void test_write_file(void **state)
{
	char base[] = "/tmp/sim_lustre_out_XXXXXX";
	char dir[256], path[512], names[256];
	size_t big = 3 << 20, len, i;
	char *data, *back;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/proc/fs/lustre/obdfilter/fs-OST0000",
		 base);
	assert_int_equal(bcn_sim_write_file(dir, "stats", "hello\n", 6), 0);
	snprintf(path, sizeof(path), "%s/stats", dir);
	back = slurp(path, &len);
	assert_int_equal(len, 6);
	assert_memory_equal(back, "hello\n", 6);
	free(back);
	listing(dir, names, sizeof(names));
	assert_string_equal(names, "stats");
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	/* replaced whole by a larger file, then by an empty one */
	data = malloc(big);
	assert_non_null(data);
	for (i = 0; i < big; i++)
		data[i] = (char)(i * 7 + i / 4096);
	assert_int_equal(bcn_sim_write_file(dir, "stats", data, big), 0);
	back = slurp(path, &len);
	assert_int_equal(len, big);
	assert_memory_equal(back, data, big);
	free(back);
	free(data);
	assert_int_equal(bcn_sim_write_file(dir, "stats", NULL, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	listing(dir, names, sizeof(names));
	assert_string_equal(names, "stats");

	/* bad names; a path through a file */
	assert_int_equal(bcn_sim_write_file(dir, "", "x", 1), -EINVAL);
	assert_int_equal(bcn_sim_write_file(dir, "a/b", "x", 1), -EINVAL);
	assert_int_equal(bcn_sim_write_file(dir, "..", "x", 1), -EINVAL);
	assert_int_equal(bcn_sim_write_file(dir, "x", NULL, 1), -EINVAL);
	snprintf(path, sizeof(path), "%s/stats/sub", dir);
	assert_int_equal(bcn_sim_write_file(path, "x", "x", 1), -ENOTDIR);
	/* a rename that fails leaves no temporary file behind */
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(bcn_sim_write_file(dir, "sub", "x", 1), -EISDIR);
	listing(dir, names, sizeof(names));
	assert_true(strcmp(names, "stats sub") == 0 ||
		    strcmp(names, "sub stats") == 0);
	assert_int_equal(rmdir(path), 0);
	/* an existing directory, given with a trailing slash */
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(bcn_sim_write_file(path, "job_stats", "j\n", 2), 0);
	listing(dir, names, sizeof(names));
	assert_true(strcmp(names, "stats job_stats") == 0 ||
		    strcmp(names, "job_stats stats") == 0);

	/* clean up */
	snprintf(path, sizeof(path), "%s/stats", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/job_stats", dir);
	assert_int_equal(unlink(path), 0);
	for (;;) {
		char *slash;

		assert_int_equal(rmdir(dir), 0);
		if (strcmp(dir, base) == 0)
			break;
		slash = strrchr(dir, '/');
		*slash = '\0';
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ost_stats_roundtrip),
		cmocka_unit_test(test_ost_stats_as_lustre),
		cmocka_unit_test(test_ost_jobstats_roundtrip),
		cmocka_unit_test(test_jobid_unterminated),
		cmocka_unit_test(test_ost_jobstats_as_lustre),
		cmocka_unit_test(test_mdt_stats_roundtrip),
		cmocka_unit_test(test_mdt_stats_as_lustre),
		cmocka_unit_test(test_mdt_jobstats_roundtrip),
		cmocka_unit_test(test_mdt_jobstats_as_lustre),
		cmocka_unit_test(test_size_model),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_write_file),
	};

	return cmocka_run_group_tests(tests, setup_maps, NULL);
}
