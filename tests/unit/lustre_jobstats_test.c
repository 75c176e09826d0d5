/* Tests of collectors/lustre/lustre_jobstats: golden values from the real
 * OST and MDT job_stats files of tests/data/lustre in every form (2.10
 * "unit: reqs" with integer snapshot_time, 2.12/2.14 usecs with sumsq,
 * 2.15 with the time triple, hist and quoted job ids, a block with an
 * empty job_id), as their EXPECTED.md files state them; job id unquoting
 * and Slurm job numbers; malformed input; chunked input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/lustre/lustre_jobstats.h"
#include "common/error.h"
#include "lustre_fixture.h"

#define NS 1000000000LL
#define MAX_JOBS 64

static struct bcn_lustre_map ost_map, md_map;

/* The jobs a parse handed over, copied. */
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

static const struct bcn_lustre_job *find(const struct jobs *j,
					 const char *id)
{
	unsigned i;

	for (i = 0; i < j->n; i++)
		if (j->job[i].jobid_len == strlen(id) &&
		    memcmp(j->job[i].jobid, id, j->job[i].jobid_len) == 0)
			return &j->job[i];
	fail_msg("job '%s' not found", id);
	return NULL;
}

/* Parses tests/data/lustre/<rel> in chunks of chunk bytes (0: whole). */
static void parse_file(const char *rel, const struct bcn_lustre_map *map,
		       size_t chunk, struct jobs *j,
		       struct bcn_lustre_jobstats *js)
{
	size_t len, off;
	char *buf = lfx_read(rel, &len);

	memset(j, 0, sizeof(*j));
	bcn_lustre_jobstats_init(js, map, keep_job, j);
	if (!chunk)
		chunk = len ? len : 1;
	for (off = 0; off < len; off += chunk)
		assert_int_equal(bcn_lustre_jobstats_feed(js, buf + off,
			len - off < chunk ? len - off : chunk), 0);
	assert_int_equal(bcn_lustre_jobstats_finish(js), 0);
	free(buf);
}

#define V(job, slot) ((job)->vals.v[slot])
#define OST(job, op) V(job, BCN_OST_##op)
#define MD(job, op) V(job, BCN_MD_##op)
#define RB(job) V(job, BCN_LUSTRE_OST_READ_BYTES)
#define WB(job) V(job, BCN_LUSTRE_OST_WRITE_BYTES)

/* Every op of the job is 0 except the listed ones. */
static void only(const struct bcn_lustre_job *job, unsigned nslots,
		 const unsigned *ops, size_t nops)
{
	unsigned s;
	size_t i;

	for (s = 0; s < nslots; s++) {
		bool listed = false;

		for (i = 0; i < nops; i++)
			listed |= ops[i] == s;
		if (!listed && V(job, s))
			fail_msg("job %s slot %u = %llu, want 0", job->jobid, s,
				 (unsigned long long)V(job, s));
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
	return 0;
}

static void test_ost_210(void **state)
{
	static const struct { const char *id; uint64_t w; } writes[] = {
		{ "23", 46956 }, { "25", 71996 }, { "26", 56048 },
		{ "27", 60729 }, { "28", 64208 }, { "29", 57773 },
	};
	static const unsigned ops[] = {
		BCN_OST_WRITE, BCN_OST_PUNCH, BCN_LUSTRE_OST_WRITE_BYTES,
	};
	struct bcn_lustre_jobstats js;
	struct jobs *j = malloc(sizeof(*j));
	const struct bcn_lustre_job *job;
	uint64_t num;
	unsigned i;

	(void)state;
	assert_non_null(j);
	parse_file("ost/lustre_exporter-2.10.1/obdfilter/lustrefs-OST0000/"
		   "job_stats", &ost_map, 0, j, &js);
	assert_int_equal(j->n, 35);
	assert_int_equal(js.jobs, 35);
	assert_int_equal(js.malformed, 0);
	assert_int_equal(js.empty_ids, 0);
	assert_int_equal(js.unmapped, 0);
	job = find(j, "24");
	assert_int_equal(job->snapshot_ns, 1510782606 * NS);
	assert_int_equal(job->start_ns, -1);
	assert_int_equal(OST(job, WRITE), 64575);
	assert_int_equal(WB(job), 215147593728ULL);
	assert_int_equal(RB(job), 0);
	assert_int_equal(OST(job, PUNCH), 1);
	only(job, BCN_LUSTRE_OST_SLOTS, ops, 3);
	assert_int_equal(bcn_lustre_jobid_slurm(job->jobid, job->jobid_len,
						&num), 0);
	assert_int_equal(num, 24);
	job = find(j, "43");
	assert_int_equal(WB(job), 21711745024ULL);
	assert_int_equal(RB(job), 0);
	assert_int_equal(OST(job, PUNCH), 1);
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		assert_int_equal(OST(find(j, writes[i].id), WRITE),
				 writes[i].w);
	for (i = 0; i < j->n; i++)
		assert_int_equal(RB(&j->job[i]), 0);

	/* an OST with jobstats on and no jobs: "job_stats:" alone */
	parse_file("ost/lustre_exporter-2.10.1/obdfilter/lustrefs-OST0002/"
		   "job_stats", &ost_map, 0, j, &js);
	assert_int_equal(j->n, 0);
	assert_int_equal(js.malformed, 0);
	free(j);
}

static void test_ost_telegraf(void **state)
{
	struct bcn_lustre_jobstats js;
	struct jobs *j = malloc(sizeof(*j));
	const struct bcn_lustre_job *job;
	uint64_t num = 99;

	(void)state;
	assert_non_null(j);
	parse_file("ost/telegraf-v2.12/obdfilter/OST0001/job_stats", &ost_map,
		   0, j, &js);
	assert_int_equal(j->n, 2);
	job = find(j, "cluster-testjob1");
	assert_int_equal(RB(job), 4096);
	assert_int_equal(OST(job, READ), 1);
	/* "max:16777216" (no blank after the colon) parses */
	assert_int_equal(WB(job), 26214400);
	assert_int_equal(OST(job, WRITE), 25);
	assert_int_equal(OST(job, PUNCH), 1);
	assert_int_equal(OST(job, GETATTR), 0);
	assert_int_equal(bcn_lustre_jobid_slurm(job->jobid, job->jobid_len,
						&num), -BCN_ESYNTAX);
	assert_int_equal(num, 0);
	job = find(j, "testjob2");
	assert_int_equal(RB(job), 1024);
	assert_int_equal(OST(job, READ), 1);
	assert_int_equal(WB(job), 51200);
	assert_int_equal(OST(job, WRITE), 25);
	assert_int_equal(OST(job, PUNCH), 1);
	assert_int_equal(js.malformed, 0);
	free(j);
}

static void test_ost_empty_jobid(void **state)
{
	struct bcn_lustre_jobstats js;
	struct jobs *j = malloc(sizeof(*j));
	const struct bcn_lustre_job *job;
	unsigned i;

	(void)state;
	assert_non_null(j);
	/* GSI's edit: the first block has "- job_id:" and no id */
	parse_file("ost/gsi-lustre_exporter-2.10.1-edited/obdfilter/"
		   "lustrefs-OST0000/job_stats", &ost_map, 0, j, &js);
	assert_int_equal(js.empty_ids, 1);
	assert_int_equal(j->n, 35);
	assert_int_equal(js.malformed, 0);
	for (i = 0; i < j->n; i++)
		assert_true(j->job[i].jobid_len > 0);
	job = find(j, "24");
	assert_int_equal(RB(job), 512000);
	assert_int_equal(OST(job, GETATTR), 7);
	assert_int_equal(OST(job, QUOTACTL), 9);
	free(j);
}

static void test_ost_other_forms(void **state)
{
	static const unsigned ops[] = {
		BCN_OST_WRITE, BCN_OST_PUNCH, BCN_LUSTRE_OST_WRITE_BYTES,
	};
	static const unsigned statfs_only[] = { BCN_OST_STATFS };
	struct bcn_lustre_jobstats js;
	struct jobs *j = malloc(sizeof(*j));
	const struct bcn_lustre_job *job;
	uint64_t num;

	(void)state;
	assert_non_null(j);
	parse_file("ost/lustre-collector-2.10fmt/job_stats_cp0.txt", &ost_map,
		   0, j, &js);
	assert_int_equal(j->n, 1);
	job = find(j, "cp.0");
	assert_int_equal(job->snapshot_ns, 1537070542 * NS);
	assert_int_equal(OST(job, READ), 256);
	assert_int_equal(RB(job), 1073741824);
	assert_int_equal(OST(job, WRITE), 0);
	assert_int_equal(WB(job), 0);

	/* 2.15: quoted id, time triple, hist, read/write latencies */
	parse_file("ost/lustre-collector-2.15fmt/job_stats_hist_quoted_jobid"
		   ".txt", &ost_map, 0, j, &js);
	assert_int_equal(j->n, 1);
	assert_int_equal(js.malformed, 0);
	job = find(j, "SLURM_JOB_machine176_2453:0:mac");
	assert_int_equal(job->snapshot_ns, 1721048514 * NS + 718714674);
	assert_int_equal(job->start_ns, 1720764336 * NS + 685487209);
	assert_int_equal(job->elapsed_ns, 284178 * NS + 33227465);
	assert_int_equal(OST(job, WRITE), 12999);
	assert_int_equal(WB(job), 3918708736ULL);
	assert_int_equal(RB(job), 0);
	assert_int_equal(OST(job, READ), 0);
	assert_int_equal(OST(job, PUNCH), 121);
	only(job, BCN_LUSTRE_OST_SLOTS, ops, 3);
	assert_int_equal(bcn_lustre_jobid_slurm(job->jobid, job->jobid_len,
						&num), -BCN_ESYNTAX);
	assert_int_equal(js.unmapped, 1);       /* prealloc */

	parse_file("ost/lustre-collector-2.15fmt/job_stats_time_triple.txt",
		   &ost_map, 0, j, &js);
	assert_int_equal(j->n, 1);
	job = find(j, "lfs.0.");
	assert_int_equal(job->snapshot_ns, 1686153914 * NS + 643122579);
	assert_int_equal(job->start_ns, 1686153914 * NS + 643119181);
	assert_int_equal(job->elapsed_ns, 3398);
	assert_int_equal(OST(job, STATFS), 1);
	only(job, BCN_LUSTRE_OST_SLOTS, statfs_only, 1);
	free(j);
}

static void test_mdt(void **state)
{
	static const unsigned setattr_only[] = { BCN_MD_SETATTR };
	static const unsigned statfs_only[] = { BCN_MD_STATFS };
	static const unsigned touch[] = {
		BCN_MD_OPEN, BCN_MD_CLOSE, BCN_MD_MKNOD, BCN_MD_SETATTR,
	};
	static const uint64_t tj1[] = {
		[BCN_MD_OPEN] = 5, [BCN_MD_CLOSE] = 4, [BCN_MD_MKNOD] = 6,
		[BCN_MD_LINK] = 8, [BCN_MD_UNLINK] = 90, [BCN_MD_MKDIR] = 521,
		[BCN_MD_RMDIR] = 520, [BCN_MD_RENAME] = 9,
		[BCN_MD_GETATTR] = 11, [BCN_MD_SETATTR] = 1,
		[BCN_MD_GETXATTR] = 3, [BCN_MD_SETXATTR] = 4,
		[BCN_MD_STATFS] = 1205, [BCN_MD_SYNC] = 2,
		[BCN_MD_SAMEDIR_RENAME] = 705, [BCN_MD_CROSSDIR_RENAME] = 200,
	};
	static const uint64_t tj2[] = {
		[BCN_MD_OPEN] = 6, [BCN_MD_CLOSE] = 7, [BCN_MD_MKNOD] = 8,
		[BCN_MD_LINK] = 9, [BCN_MD_UNLINK] = 20, [BCN_MD_MKDIR] = 200,
		[BCN_MD_RMDIR] = 210, [BCN_MD_RENAME] = 8,
		[BCN_MD_GETATTR] = 10, [BCN_MD_SETATTR] = 2,
		[BCN_MD_GETXATTR] = 4, [BCN_MD_SETXATTR] = 5,
		[BCN_MD_STATFS] = 1207, [BCN_MD_SYNC] = 3,
		[BCN_MD_SAMEDIR_RENAME] = 706, [BCN_MD_CROSSDIR_RENAME] = 201,
	};
	struct bcn_lustre_jobstats js;
	struct jobs *j = malloc(sizeof(*j));
	const struct bcn_lustre_job *job;
	unsigned i;

	(void)state;
	assert_non_null(j);
	parse_file("mds/lustre_exporter-2.10.1/mdt/lustrefs-MDT0000/job_stats",
		   &md_map, 0, j, &js);
	assert_int_equal(j->n, 15);
	assert_int_equal(js.malformed, 0);
	job = find(j, "43");
	assert_int_equal(MD(job, SETATTR), 1);
	only(job, BCN_LUSTRE_MD_SLOTS, setattr_only, 1);

	parse_file("mds/telegraf-v2.12/mdt/OST0001/job_stats", &md_map, 0, j,
		   &js);
	assert_int_equal(j->n, 2);
	job = find(j, "cluster-testjob1");
	for (i = 0; i < sizeof(tj1) / sizeof(tj1[0]); i++)
		assert_int_equal(MD(job, OPEN + i), tj1[i]);
	job = find(j, "testjob2");
	for (i = 0; i < sizeof(tj2) / sizeof(tj2[0]); i++)
		assert_int_equal(MD(job, OPEN + i), tj2[i]);

	parse_file("mds/lustre-collector-2.12fmt/job_stats_touch0.txt",
		   &md_map, 0, j, &js);
	assert_int_equal(j->n, 1);
	job = find(j, "touch.0");
	assert_int_equal(job->snapshot_ns, 1614767417 * NS);
	assert_int_equal(job->start_ns, -1);
	assert_int_equal(MD(job, OPEN), 1);
	assert_int_equal(MD(job, CLOSE), 1);
	assert_int_equal(MD(job, MKNOD), 1);
	assert_int_equal(MD(job, SETATTR), 1);
	only(job, BCN_LUSTRE_MD_SLOTS, touch, 4);
	assert_int_equal(js.malformed, 0);

	/* 2.15 MDT block cut from a listing: no "job_stats:" line */
	parse_file("mds/lustre-collector-2.15fmt/"
		   "job_stats_time_triple_quoted_jobid.txt", &md_map, 0, j,
		   &js);
	assert_int_equal(j->n, 1);
	job = find(j, ":988:ds88");
	assert_int_equal(job->snapshot_ns, 1721048534 * NS + 873002069);
	assert_int_equal(job->start_ns, 1720767442 * NS + 368619499);
	assert_int_equal(job->elapsed_ns, 281092 * NS + 504382570);
	assert_int_equal(MD(job, STATFS), 9372);
	only(job, BCN_LUSTRE_MD_SLOTS, statfs_only, 1);
	assert_int_equal(js.unmapped, 0);
	assert_int_equal(js.malformed, 0);
	free(j);
}

/* A large file fed in chunks of many sizes gives the same jobs. */
static void test_chunks(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 100, 1000, 4096,
					65536 };
	struct bcn_lustre_jobstats js;
	struct jobs *whole = malloc(sizeof(*whole));
	struct jobs *part = malloc(sizeof(*part));
	const char *rel = "ost/lustre_exporter-2.10.1/obdfilter/"
			  "lustrefs-OST0000/job_stats";
	size_t i;
	unsigned k;

	(void)state;
	assert_non_null(whole);
	assert_non_null(part);
	parse_file(rel, &ost_map, 0, whole, &js);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		parse_file(rel, &ost_map, sizes[i], part, &js);
		assert_int_equal(part->n, whole->n);
		for (k = 0; k < whole->n; k++) {
			assert_string_equal(part->job[k].jobid,
					    whole->job[k].jobid);
			assert_memory_equal(part->job[k].vals.v,
					    whole->job[k].vals.v,
					    BCN_LUSTRE_OST_SLOTS *
					    sizeof(uint64_t));
		}
	}
	free(whole);
	free(part);
}

static void test_unquote(void **state)
{
	char out[16];
	size_t n;

	(void)state;
	assert_int_equal(bcn_lustre_jobid_unquote("dd.4854", 7, out,
						  sizeof(out), &n), 0);
	assert_string_equal(out, "dd.4854");
	assert_int_equal(n, 7);
	assert_int_equal(bcn_lustre_jobid_unquote("\":988:ds88\"", 11, out,
						  sizeof(out), &n), 0);
	assert_string_equal(out, ":988:ds88");
	/* Lustre writes \xHH for a character outside [A-Za-z0-9.@-_:/] */
	assert_int_equal(bcn_lustre_jobid_unquote("\"a\\x20b\\x5Cc\"", 13,
						  out, sizeof(out), &n), 0);
	assert_string_equal(out, "a b\\c");
	assert_int_equal(n, 5);
	assert_int_equal(bcn_lustre_jobid_unquote("\"\"", 2, out, sizeof(out),
						  &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(bcn_lustre_jobid_unquote("\"abc", 4, out,
						  sizeof(out), &n),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_jobid_unquote("\"", 1, out, sizeof(out),
						  &n), -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_jobid_unquote("\"a\\x0\"", 6, out,
						  sizeof(out), &n),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_jobid_unquote("\"a\\x00\"", 7, out,
						  sizeof(out), &n),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_jobid_unquote("\"a\\n\"", 5, out,
						  sizeof(out), &n),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_jobid_unquote("\"a\"b\"", 5, out,
						  sizeof(out), &n),
			 -BCN_ESYNTAX);
	assert_int_equal(bcn_lustre_jobid_unquote("0123456789abcdef", 16, out,
						  sizeof(out), &n),
			 -BCN_EFULL);
	assert_int_equal(bcn_lustre_jobid_unquote("0123456789abcde", 15, out,
						  sizeof(out), &n), 0);
	/* unquoted text is verbatim, backslashes included */
	assert_int_equal(bcn_lustre_jobid_unquote("a\\x20", 5, out,
						  sizeof(out), &n), 0);
	assert_string_equal(out, "a\\x20");
}

static void test_slurm(void **state)
{
	static const struct { const char *id; int rc; uint64_t job; } c[] = {
		{ "24", 0, 24 }, { "0", 0, 0 }, { "4294967296", 0, 4294967296 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -BCN_ESYNTAX, 0 },
		{ "007", -BCN_ESYNTAX, 0 }, { "", -BCN_ESYNTAX, 0 },
		{ "12a", -BCN_ESYNTAX, 0 }, { "12.0", -BCN_ESYNTAX, 0 },
		{ "-1", -BCN_ESYNTAX, 0 }, { " 1", -BCN_ESYNTAX, 0 },
		{ "cp.0", -BCN_ESYNTAX, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t job = 77;
		int rc = bcn_lustre_jobid_slurm(c[i].id, strlen(c[i].id), &job);

		if (rc != c[i].rc || job != c[i].job)
			fail_msg("'%s': %d %llu", c[i].id, rc,
				 (unsigned long long)job);
	}
}

static void test_malformed(void **state)
{
	static const char text[] =
		"  snapshot_time:   1\n"                         /* outside */
		"job_stats:\n"
		"- job_id:          a\n"
		"  snapshot_time:   1510782606\n"
		"  read_bytes:      { samples: 3, unit: bytes, min: 1, max: 1,"
		" sum: 3 }\n"
		"  punch:           { samples: 2, unit: reqs\n"  /* no } */
		"  sync:            { unit: reqs }\n"          /* no samples */
		"  getattr          { samples: 1 }\n"          /* no colon */
		"  snapshot_time:   soon\n"
		"- garbage\n"
		"  create:          { samples: 5, unit: reqs }\n"
		"- job_id:          \"bad\n"                   /* bad quoting */
		"  create:          { samples: 6, unit: reqs }\n"
		"- job_id:          b\n"
		"  write_bytes:     { samples: 4, unit: bytes, min: 1 }\n"
		"  statfs:          { samples: 9, unit: reqs, whatever: x }\n"
		"  destroy:         { samples: 1";              /* cut off */
	struct bcn_lustre_jobstats js;
	struct jobs *j = malloc(sizeof(*j));
	const struct bcn_lustre_job *job;

	(void)state;
	assert_non_null(j);
	memset(j, 0, sizeof(*j));
	assert_int_equal(bcn_lustre_jobstats_parse(&js, &ost_map, text,
						   strlen(text), keep_job, j),
			 0);
	assert_int_equal(j->n, 2);
	assert_int_equal(js.bad_ids, 1);
	job = find(j, "a");
	assert_int_equal(RB(job), 3);
	assert_int_equal(OST(job, READ), 3);
	assert_int_equal(OST(job, PUNCH), 0);
	assert_int_equal(OST(job, CREATE), 5);  /* after "- garbage" */
	job = find(j, "b");
	assert_int_equal(OST(job, WRITE), 0);   /* no sum: line dropped */
	assert_int_equal(OST(job, STATFS), 9);
	assert_int_equal(OST(job, DESTROY), 0);
	/* outside, punch, sync, getattr, soon, garbage, write_bytes,
	 * destroy */
	assert_int_equal(js.malformed, 8);

	/* a callback error stops the parse and sticks */
	memset(j, 0, sizeof(*j));
	j->n = MAX_JOBS;
	assert_int_equal(bcn_lustre_jobstats_parse(&js, &ost_map, text,
						   strlen(text), keep_job, j),
			 -BCN_EFULL);
	assert_int_equal(bcn_lustre_jobstats_feed(&js, "x", 1), -BCN_EFULL);
	free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ost_210),
		cmocka_unit_test(test_ost_telegraf),
		cmocka_unit_test(test_ost_empty_jobid),
		cmocka_unit_test(test_ost_other_forms),
		cmocka_unit_test(test_mdt),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_unquote),
		cmocka_unit_test(test_slurm),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, setup_maps, NULL);
}
