/* Tests of collectors/runtime/collector: the real loop (bcn_collector_run with
 * --count and --output to a temporary file) driven by a sampler that emits
 * known records; the frames are decoded with bcn_frame_open and checked
 * record by record: node, sequence numbers, contiguous time windows,
 * frames cut by size, a missing file that does not stop the sample, and
 * the command-line errors and --help. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/clock.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "proto/frame.h"

#define MAX_SAMPLES 8
#define MAX_DECODED 20000

/* The configuration of the test daemon: one key of its own. */
struct fake_conf {
	uint64_t per_sample;            /* records per sample */
	uint64_t io;                    /* io records: 1 random, 2 strided */
	struct bcn_collector_conf cc;
};

static const struct bcn_config_opt fake_tab[] = {
	{ "per_sample", BCN_CFG_UINT, BCN_CFG_MEMBER(struct fake_conf, per_sample),
	  .min = 1, .max = 100000, .def = "2", .help = "Records per sample." },
	{ "io", BCN_CFG_UINT, BCN_CFG_MEMBER(struct fake_conf, io),
	  .max = 2, .def = "0",
	  .help = "Send io records instead of port records: 1, random "
		  "reads of varying times; 2, a strided sequence of reads." },
	BCN_COLLECTOR_CONFIG_OPTIONS(struct fake_conf, cc),
	{ .name = NULL }
};

struct fake_state {
	struct fake_conf *conf;
	int inits, finis, samples;
	int64_t t[MAX_SAMPLES], dur[MAX_SAMPLES];
	int read_rc;                    /* of a file that does not exist */
	uint64_t rnd, nio;              /* fake_io's */
	struct bcn_buf buf;
};

static int fake_init(void *arg, struct bcn_collector *c)
{
	struct fake_state *s = arg;

	s->inits++;
	assert_string_equal(bcn_collector_conf(c)->node,
			    s->conf->cc.node);
	bcn_buf_init(&s->buf, 4096);
	return 0;
}

/* Adds the io records of one sample (conf io 1 or 2): pairs of random
 * 4 KiB reads at random moments, or reads 8 KiB apart at regular ones. */
static int fake_io(struct fake_state *s, struct bcn_collector *c, int64_t t)
{
	struct bcn_record r;
	int rc;

	for (uint64_t i = 0; i < s->conf->per_sample; i++) {
		bcn_record_init(&r, BCN_REC_IO);
		r.job = 5;
		r.u.io.pid = 100;
		r.u.io.op = BCN_IO_READ;
		r.u.io.fd = 3;
		r.u.io.file = 7;
		r.u.io.path = "";
		r.u.io.size = 4096;
		if (s->conf->io == 1) {
			s->rnd = s->rnd * 6364136223846793005ull + 1442695040888963407ull;
			r.t = t + (int64_t)(i * 200000 + (s->rnd >> 40) % 150000);
			r.dur = (int64_t)((s->rnd >> 20) % 40000) + 2000;
			r.u.io.busy = (uint64_t)r.dur - (s->rnd >> 50) % 1000;
			r.u.io.offset = (s->rnd >> 8) % 16384 * 4096;
			r.u.io.count = 2;
			r.u.io.stride = ((int64_t)((s->rnd >> 30) % 16384) - 8192) * 4096;
		} else {
			r.t = t + (int64_t)i * 1000;
			r.dur = 500;
			r.u.io.busy = 500;
			r.u.io.offset = (s->nio++) * 8192;
			r.u.io.count = 1;
		}
		rc = bcn_collector_add(c, &r);
		if (rc)
			return rc;
	}
	s->samples++;
	return 0;
}

static int fake_sample(void *arg, struct bcn_collector *c, int64_t t,
		       int64_t dur)
{
	struct fake_state *s = arg;
	struct bcn_record r;
	int rc;

	if (s->samples < MAX_SAMPLES) {
		s->t[s->samples] = t;
		s->dur[s->samples] = dur;
	}
	s->read_rc = bcn_collector_read(c, "sys/class/no/such/file", &s->buf);
	if (s->conf->io)
		return fake_io(s, c, t);
	for (uint64_t i = 0; i < s->conf->per_sample; i++) {
		bcn_record_init(&r, BCN_REC_PORT);
		r.t = t;
		r.dur = dur;
		r.u.port.sw = "mlx5_0";
		r.u.port.port = (uint64_t)s->samples * 100000 + i;
		r.u.port.xmit_bytes = i * 4;
		rc = bcn_collector_add(c, &r);
		if (rc)
			return rc;
	}
	/* an invalid record is refused, the sample goes on */
	bcn_record_init(&r, BCN_REC_PORT);
	r.dur = -1;
	assert_int_equal(bcn_collector_add(c, &r), -BCN_ERANGE);
	bcn_collector_skipped(c, 1);
	s->samples++;
	return 0;
}

static void fake_fini(void *arg)
{
	struct fake_state *s = arg;

	s->finis++;
	bcn_buf_free(&s->buf);
}

static const struct bcn_collector_ops fake_ops = {
	.init = fake_init, .sample = fake_sample, .fini = fake_fini,
};

struct decoded {
	size_t nframes, nrecs;
	uint8_t flags;                  /* of the last frame */
	uint8_t fflags[MAX_DECODED];    /* of each frame */
	uint64_t seq[MAX_DECODED];
	uint32_t count[MAX_DECODED];
	char node[BCN_NODE_MAX + 1];
	int64_t t[MAX_DECODED], dur[MAX_DECODED];
	uint64_t port[MAX_DECODED], xmit[MAX_DECODED];
};

/* Reads every frame of the file at path into d. */
static void decode_file(const char *path, struct decoded *d)
{
	struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_buf file;
	struct bcn_frame f;
	struct bcn_record r;
	size_t off = 0, used;

	memset(d, 0, sizeof(*d));
	bcn_buf_init(&file, 64u << 20);
	assert_int_equal(bcn_buf_read_file(&file, path), 0);
	bcn_frame_init(&f);
	while (off < file.len) {
		assert_int_equal(bcn_frame_open(&f, file.data + off,
						file.len - off, &lim, &used), 0);
		assert_int_equal(f.hdr.kind, BCN_FRAME_DATA);
		assert_true(d->nframes < MAX_DECODED);
		d->flags = f.hdr.flags;
		d->fflags[d->nframes] = f.hdr.flags;
		d->seq[d->nframes] = f.hdr.seq;
		d->count[d->nframes++] = f.hdr.count;
		snprintf(d->node, sizeof(d->node), "%s", f.node);
		while (bcn_frame_next(&f, &r) == 1) {
			assert_true(d->nrecs < MAX_DECODED);
			d->t[d->nrecs] = r.t;
			d->dur[d->nrecs] = r.dur;
			if (r.type == BCN_REC_IO) {     /* (conf io) */
				d->nrecs++;
				continue;
			}
			assert_int_equal(r.type, BCN_REC_PORT);
			assert_string_equal(r.u.port.sw, "mlx5_0");
			d->port[d->nrecs] = r.u.port.port;
			d->xmit[d->nrecs++] = r.u.port.xmit_bytes;
		}
		off += used;
	}
	bcn_frame_free(&f);
	bcn_buf_free(&file);
}

static void temp_path(char *path, size_t len, const char *what)
{
	int fd;

	snprintf(path, len, "/tmp/bcn_collector_test_%s_XXXXXX", what);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
}

static int run_main(struct fake_conf *conf, struct fake_state *s,
		    char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(conf, 0, sizeof(*conf));
	memset(s, 0, sizeof(*s));
	s->conf = conf;
	const struct bcn_collector_daemon d = { &conf->cc, &fake_ops, s };
	const struct bcn_program p = {
		.name = "fake-collector", .description = "A collector for tests.",
		.options = fake_tab, .conf = conf, .run = bcn_collector_run,
		.kind = &d,
	};

	return bcn_program_main(&p, argc, argv);
}

static void test_loop_output(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d;
	char out[64], stats[64], line[4096];
	char *argv[] = { "fake", "--node", "oss07", "--count", "3",
			 "--interval", "20ms", "--output", out, "--root",
			 "/nonexistent/root", "--send-first-seq", "1000",
			 "--stats-file", stats, "--log-level", "error", NULL };
	int64_t before = bcn_real_ns(), after;
	FILE *f;

	(void)state;
	temp_path(out, sizeof(out), "out");
	temp_path(stats, sizeof(stats), "stats");
	assert_int_equal(run_main(&conf, &s, argv), 0);
	after = bcn_real_ns();
	assert_int_equal(s.inits, 1);
	assert_int_equal(s.finis, 1);
	assert_int_equal(s.samples, 3);
	assert_int_equal(s.read_rc, -ENOENT);
	assert_int_equal(conf.cc.interval_ms, 20);
	assert_string_equal(conf.cc.root, "/nonexistent/root");

	decode_file(out, &d);
	assert_string_equal(d.node, "oss07");
	assert_int_equal(d.nframes, 3);         /* one frame per sample */
	assert_int_equal(d.nrecs, 6);
	for (size_t i = 0; i < d.nframes; i++) {
		assert_int_equal(d.seq[i], 1000 + i);
		assert_int_equal(d.count[i], 2);
	}
	/* the first window is one interval long and ends at the sample */
	assert_int_equal(s.dur[0], 20 * 1000000);
	assert_true(s.t[0] + s.dur[0] >= before);
	assert_true(s.t[0] + s.dur[0] <= after);
	/* later windows start where the previous one ended */
	for (int k = 1; k < 3; k++) {
		assert_true(s.dur[k] > 0);
		assert_int_equal(s.t[k], s.t[k - 1] + s.dur[k - 1]);
	}
	for (size_t i = 0; i < d.nrecs; i++) {
		size_t k = i / 2;

		assert_int_equal(d.t[i], s.t[k]);
		assert_int_equal(d.dur[i], s.dur[k]);
		assert_int_equal(d.port[i], k * 100000 + i % 2);
		assert_int_equal(d.xmit[i], (i % 2) * 4);
	}

	/* the statistics line counts what happened */
	f = fopen(stats, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_non_null(strstr(line, "\"program\":\"fake-collector\""));
	assert_non_null(strstr(line, "\"samples\":3,"));
	assert_non_null(strstr(line, "\"records\":6,"));
	assert_non_null(strstr(line, "\"frames\":3,"));
	assert_non_null(strstr(line, "\"bad_records\":3,"));
	assert_non_null(strstr(line, "\"file_errors\":3,"));
	assert_non_null(strstr(line, "\"skipped_lines\":3,"));
	assert_non_null(strstr(line, "\"VmHWM_kb\":"));
	unlink(out);
	unlink(stats);
}

/* frame_codec auto (the default): columnar payloads while their CPU
 * time stays within frame_columnar_cpu (microseconds per second, ten
 * seconds' worth at the start), zstd rows after; never with 0; the same
 * records each way. (These are port records: their rows are plain; io
 * records would be in the delta form, tests/integration/tracer_batch.sh.) */
static void test_loop_auto(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d[3];
	static const char *const budget[3] = { "1000000", "1", "0" };
	const uint8_t cz = BCN_FRAME_F_ZSTD | BCN_FRAME_F_COLUMNAR;
	char out[64];

	(void)state;
	for (int k = 0; k < 3; k++) {
		char *argv[] = { "fake", "--node", "oss07", "--count", "3",
				 "--interval", "10ms", "--output", out,
				 "--frame-columnar-cpu", (char *)budget[k],
				 "--per-sample", "400",
				 "--log-level", "error", NULL };

		temp_path(out, sizeof(out), "auto");
		assert_int_equal(run_main(&conf, &s, argv), 0);
		decode_file(out, &d[k]);
		unlink(out);
		assert_int_equal(d[k].nframes, 3);
		assert_int_equal(d[k].nrecs, 1200);
	}
	for (int i = 0; i < 3; i++) {
		/* a second a second: 10 s at the start, far more than
		 * three frames of 400 records take, even under sanitizers */
		assert_int_equal(d[0].fflags[i], cz);
		/* 1 us a second: 10 us at the start, spent by the first */
		assert_int_equal(d[1].fflags[i], i ? BCN_FRAME_F_ZSTD : cz);
		assert_int_equal(d[2].fflags[i], BCN_FRAME_F_ZSTD);
	}
	for (int k = 1; k < 3; k++)
		for (size_t i = 0; i < d[0].nrecs; i++) {
			assert_int_equal(d[0].port[i], d[k].port[i]);
			assert_int_equal(d[0].xmit[i], d[k].xmit[i]);
		}
}

/* frame_codec auto weighs columns against the delta rows they replace:
 * random reads at random moments, where columns save a third at most,
 * get one try, then COLUMNAR_SKIP_MIN (4) frames of delta rows, another
 * try, then 8 frames; a strided sequence, where columns take far more
 * than 40% off, stays columnar (the credit is ample in both). */
static void test_loop_auto_judge(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d;
	const uint8_t cz = BCN_FRAME_F_ZSTD | BCN_FRAME_F_COLUMNAR;
	const uint8_t dz = BCN_FRAME_F_ZSTD | BCN_FRAME_F_IODELTA;
	char out[64];

	(void)state;
	for (int k = 1; k <= 2; k++) {
		char *argv[] = { "fake", "--node", "cn07", "--count", "16",
				 "--interval", "10ms", "--output", out,
				 "--frame-columnar-cpu", "1000000",
				 "--frame-age", "0", "--per-sample", "1000",
				 "--io", k == 1 ? "1" : "2",
				 "--log-level", "error", NULL };

		temp_path(out, sizeof(out), "judge");
		assert_int_equal(run_main(&conf, &s, argv), 0);
		decode_file(out, &d);
		unlink(out);
		assert_int_equal(d.nframes, 16);
		assert_int_equal(d.nrecs, 16000);
		for (int i = 0; i < 16; i++) {
			bool tries = k == 2 || i == 0 || i == 5 || i == 14;

			print_message("io %d frame %d flags %x\n", k, i,
				      d.fflags[i]);
			assert_int_equal(d.fflags[i], tries ? cz : dz);
		}
	}
}

/* Frames are zstd-compressed with --frame-codec zstd, zlib-compressed with
 * --frame-codec zlib (log servers older than zstd frames), columnar and
 * zstd-compressed with --frame-codec columnar, with the same records
 * each way. */
static void test_loop_codec(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d[3];
	static const char *const codec[3] = { "zstd", "zlib", "columnar" };
	static const uint8_t flag[3] = {
		BCN_FRAME_F_ZSTD, BCN_FRAME_F_ZLIB,
		BCN_FRAME_F_ZSTD | BCN_FRAME_F_COLUMNAR
	};
	char out[64];

	(void)state;
	for (int k = 0; k < 3; k++) {
		char *argv[] = { "fake", "--node", "oss07", "--count", "2",
				 "--interval", "10ms", "--output", out,
				 "--frame-codec", (char *)codec[k],
				 "--per-sample", "50",
				 "--log-level", "error", NULL };

		temp_path(out, sizeof(out), "codec");
		assert_int_equal(run_main(&conf, &s, argv), 0);
		decode_file(out, &d[k]);
		unlink(out);
		assert_int_equal(d[k].nframes, 2);
		assert_int_equal(d[k].flags & (BCN_FRAME_F_ZSTD |
					       BCN_FRAME_F_ZLIB |
					       BCN_FRAME_F_COLUMNAR), flag[k]);
	}
	for (int k = 1; k < 3; k++) {
		assert_int_equal(d[0].nrecs, d[k].nrecs);
		for (size_t i = 0; i < d[0].nrecs; i++) {
			assert_int_equal(d[0].port[i], d[k].port[i]);
			assert_int_equal(d[0].xmit[i], d[k].xmit[i]);
		}
	}
}

/* Big samples are cut into several frames, numbered consecutively. */
static void test_loop_cut(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d;
	char out[64];
	char *argv[] = { "fake", "--node", "sw1", "--count", "2",
			 "--interval", "10ms", "--output", out,
			 "--per-sample", "5000", "--frame-bytes", "4096",
			 "--log-level", "error", NULL };
	size_t recs = 0;

	(void)state;
	temp_path(out, sizeof(out), "cut");
	assert_int_equal(run_main(&conf, &s, argv), 0);
	decode_file(out, &d);
	assert_int_equal(d.nrecs, 10000);
	assert_true(d.nframes > 4);
	for (size_t i = 0; i < d.nframes; i++) {
		if (i)
			assert_int_equal(d.seq[i], d.seq[0] + i);
		recs += d.count[i];
	}
	assert_int_equal(recs, 10000);
	/* records stay in order, each sample's in its own frames */
	for (size_t i = 0; i < d.nrecs; i++)
		assert_int_equal(d.port[i], (i / 5000) * 100000 + i % 5000);
	unlink(out);
}

/* With frame_age the samples' records wait for the frame of a later
 * sample: a minute holds all four samples' records in the frame the last
 * sample sends, in order; 0 sends a frame each sample. */
static void test_loop_age(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d[2];
	static const char *const age[2] = { "1m", "0" };
	char out[64];

	(void)state;
	for (int k = 0; k < 2; k++) {
		char *argv[] = { "fake", "--node", "sw1", "--count", "4",
				 "--interval", "10ms", "--output", out,
				 "--per-sample", "50", "--frame-age",
				 (char *)age[k], "--log-level", "error", NULL };

		temp_path(out, sizeof(out), "age");
		assert_int_equal(run_main(&conf, &s, argv), 0);
		decode_file(out, &d[k]);
		unlink(out);
		assert_int_equal(d[k].nrecs, 200);
	}
	assert_int_equal(conf.cc.frame_age_ms, 0);
	assert_int_equal(d[0].nframes, 1);
	assert_int_equal(d[0].count[0], 200);
	assert_int_equal(d[1].nframes, 4);
	for (size_t i = 0; i < 200; i++) {
		assert_int_equal(d[0].port[i], (i / 50) * 100000 + i % 50);
		assert_int_equal(d[0].port[i], d[1].port[i]);
	}
}

/* Without --node the host name is the node. */
static void test_default_node(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	static struct decoded d;
	char out[64], host[BCN_NODE_MAX + 2];
	char *argv[] = { "fake", "--count", "1", "--output", out,
			 "--log-level", "error", NULL };

	(void)state;
	temp_path(out, sizeof(out), "node");
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_int_equal(run_main(&conf, &s, argv), 0);
	assert_string_equal(conf.cc.root, "/");
	assert_int_equal(conf.cc.interval_ms, 1000);
	decode_file(out, &d);
	assert_string_equal(d.node, host);
	assert_int_equal(d.nrecs, 2);
	unlink(out);
}

static void test_bad_args(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	char *unknown[] = { "fake", "--no-such-key", "1", NULL };
	char *extra[] = { "fake", "--count", "1", "stray", NULL };
	char *badiv[] = { "fake", "--interval", "1ms", NULL };
	char *noout[] = { "fake", "--count", "1", "--output",
			  "/nonexistent/dir/out", "--log-level", "error", NULL };
	char *nosrv[] = { "fake", "--count", "1", "--log-level", "error",
			  NULL };

	(void)state;
	assert_int_equal(run_main(&conf, &s, unknown), 2);
	assert_int_equal(run_main(&conf, &s, extra), 2);
	assert_int_equal(run_main(&conf, &s, badiv), 2);
	assert_int_equal(s.inits, 0);
	/* cannot open the output, or no log server configured: exit 1,
	 * no sample taken */
	assert_int_equal(run_main(&conf, &s, noout), 1);
	assert_int_equal(s.samples, 0);
	assert_int_equal(run_main(&conf, &s, nosrv), 1);
	assert_int_equal(s.samples, 0);
}

static void test_help(void **state)
{
	static struct fake_conf conf;
	static struct fake_state s;
	char *help[] = { "fake", "--help", NULL };
	char *dump[] = { "fake", "--interval", "3s", "--dump-config", NULL };

	(void)state;
	assert_int_equal(run_main(&conf, &s, help), 0);
	assert_int_equal(run_main(&conf, &s, dump), 0);
	assert_int_equal(conf.cc.interval_ms, 3000);
	assert_int_equal(s.inits, 0);
}

struct join_case {
	const char *root, *rel, *out;
	size_t len;
	int rc;
};

static void test_path_join(void **state)
{
	static const struct join_case cases[] = {
		{ "/", "sys/class/infiniband", "/sys/class/infiniband", 64, 0 },
		{ "/", "/proc/fs/lustre", "/proc/fs/lustre", 64, 0 },
		{ "/tmp/fx/", "/sys/x", "/tmp/fx/sys/x", 64, 0 },
		{ "/tmp/fx//", "//sys/x", "/tmp/fx/sys/x", 64, 0 },
		{ "fx", "a", "fx/a", 64, 0 },
		{ "/", "", "/", 64, 0 },
		{ "/tmp/fx", "sys", "/tmp/fx/sys", 12, 0 },
		{ "/tmp/fx", "sys", NULL, 11, -BCN_EFULL },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = bcn_collector_path_join(cases[i].root, cases[i].rel,
						 out, cases[i].len);

		assert_int_equal(rc, cases[i].rc);
		if (!rc)
			assert_string_equal(out, cases[i].out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_output),
		cmocka_unit_test(test_loop_codec),
		cmocka_unit_test(test_loop_auto),
		cmocka_unit_test(test_loop_auto_judge),
		cmocka_unit_test(test_loop_cut),
		cmocka_unit_test(test_loop_age),
		cmocka_unit_test(test_default_node),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_path_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
