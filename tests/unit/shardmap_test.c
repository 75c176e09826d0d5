/* Unit tests of delivery/shardmap: good and bad maps with the line numbers
 * their errors name, lookups (first, middle, last member, default, none),
 * the shard list, endpoints, file loading and a 40,960-node map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "delivery/shardmap.h"

#define EXAMPLE_MAP BCN_TEST_DATA "/../../deploy/shardmap.example"

static const char good_map[] =
	"# beacon shard map\n"
	"\n"
	"shard cn[00000-20479]  primary=10.0.0.1:7070  fallback=10.0.0.2:7070\n"
	"  shard cn[20480-40959]\tprimary=10.0.0.2:7070 fallback=10.0.0.1:7070 name=upper # high half\n"
	"shard fwd[1-288],oss[1-288] primary=logsrv3:7070 fallback=[fd00::4]:7071\r\n"
	"default primary=logsrv0:7070 fallback=logsrv1:7070\n"
	"shard mds[0-1],n1,n[1-2] fallback=logsrv9:1 primary=[::1]:65535";

static struct bcn_shardmap *parse_ok(const char *text)
{
	struct bcn_shardmap *m = NULL;
	char err[512];
	int rc;

	rc = bcn_shardmap_parse(text, strlen(text), &m, err, sizeof(err));
	if (rc)
		fail_msg("parse failed: %s (%s)", err, bcn_strerror(rc));
	assert_non_null(m);
	return m;
}

static void assert_in(const struct bcn_shardmap *m, const char *node,
		      const char *shard)
{
	const struct bcn_shard *s = bcn_shardmap_lookup(m, node);

	const char *name = node ? node : "(null)";

	if (!s)
		fail_msg("%s: no shard, want %s", name, shard);
	if (strcmp(s->name, shard) != 0)
		fail_msg("%s: in %s, want %s", name, s->name, shard);
}

static void assert_ep(const struct bcn_shard_endpoint *ep, const char *want)
{
	char s[300];

	assert_int_equal(bcn_shardmap_endpoint_str(ep, s, sizeof(s)), 0);
	assert_string_equal(s, want);
}

static void test_good_map(void **state)
{
	struct bcn_shardmap *m;
	const struct bcn_shard *s;

	(void)state;
	m = parse_ok(good_map);
	assert_int_equal(bcn_shardmap_count(m), 4);
	assert_int_equal(bcn_shardmap_nhosts(m), 40960 + 576 + 4);
	/* first, middle and last member of each range */
	assert_in(m, "cn00000", "shard0");
	assert_in(m, "cn10240", "shard0");
	assert_in(m, "cn20479", "shard0");
	assert_in(m, "cn20480", "upper");
	assert_in(m, "cn30000", "upper");
	assert_in(m, "cn40959", "upper");
	assert_in(m, "fwd1", "shard2");
	assert_in(m, "oss144", "shard2");
	assert_in(m, "oss288", "shard2");
	assert_in(m, "mds1", "shard3");
	assert_in(m, "n2", "shard3");
	/* not listed: the default */
	assert_in(m, "cn40960", "default");
	assert_in(m, "cn0", "default");
	assert_in(m, "fwd0", "default");
	assert_in(m, "fwd001", "default");
	assert_in(m, "", "default");
	assert_in(m, NULL, "default");
	/* lookups by length: no NUL needed */
	s = bcn_shardmap_lookup_n(m, "cn00000XYZ", 7);
	assert_string_equal(s->name, "shard0");
	s = bcn_shardmap_lookup_n(m, "cn0\0" "000", 7);
	assert_true(s->is_default);

	s = bcn_shardmap_get(m, 0);
	assert_int_equal(s->index, 0);
	assert_int_equal(s->line, 3);
	assert_string_equal(s->hostlist, "cn[00000-20479]");
	assert_int_equal(s->nhosts, 20480);
	assert_ep(&s->primary, "10.0.0.1:7070");
	assert_true(s->has_fallback);
	assert_ep(&s->fallback, "10.0.0.2:7070");
	s = bcn_shardmap_get(m, 2);
	assert_int_equal(s->line, 5);
	assert_string_equal(s->primary.host, "logsrv3");
	assert_int_equal(s->primary.port, 7070);
	assert_string_equal(s->fallback.host, "fd00::4");
	assert_true(s->fallback.ipv6);
	assert_ep(&s->fallback, "[fd00::4]:7071");
	s = bcn_shardmap_get(m, 3);
	assert_int_equal(s->line, 7);
	assert_int_equal(s->nhosts, 4);   /* n1 twice in one shard is fine */
	assert_ep(&s->primary, "[::1]:65535");
	assert_ep(&s->fallback, "logsrv9:1");
	assert_null(bcn_shardmap_get(m, 4));
	s = bcn_shardmap_default(m);
	assert_non_null(s);
	assert_true(s->is_default);
	assert_int_equal(s->index, 4);
	assert_int_equal(s->line, 6);
	assert_string_equal(s->name, "default");
	assert_string_equal(s->hostlist, "");
	assert_ep(&s->primary, "logsrv0:7070");
	assert_ep(&s->fallback, "logsrv1:7070");
	bcn_shardmap_free(m);
}

static void test_no_default(void **state)
{
	struct bcn_shardmap *m;
	const struct bcn_shard *s;
	char buf[8];

	(void)state;
	m = parse_ok("shard a[1-3] primary=x:1\n");
	assert_null(bcn_shardmap_default(m));
	assert_null(bcn_shardmap_lookup(m, "a4"));
	s = bcn_shardmap_lookup(m, "a3");
	assert_non_null(s);
	assert_false(s->has_fallback);
	assert_string_equal(s->fallback.host, "");
	assert_int_equal(s->fallback.port, 0);
	assert_int_equal(bcn_shardmap_endpoint_str(&s->fallback, buf,
						   sizeof(buf)), -EINVAL);
	assert_int_equal(bcn_shardmap_endpoint_str(&s->primary, buf, 3),
			 -BCN_EFULL);
	bcn_shardmap_free(m);
	/* only a default */
	m = parse_ok("default primary=x:1");
	assert_int_equal(bcn_shardmap_count(m), 0);
	assert_string_equal(bcn_shardmap_lookup(m, "a")->name, "default");
	assert_int_equal(bcn_shardmap_lookup(m, "a")->index, 0);
	bcn_shardmap_free(m);
	/* NULL map */
	assert_null(bcn_shardmap_lookup(NULL, "a"));
	assert_int_equal(bcn_shardmap_count(NULL), 0);
	assert_null(bcn_shardmap_get(NULL, 0));
	assert_null(bcn_shardmap_default(NULL));
	assert_int_equal(bcn_shardmap_nhosts(NULL), 0);
	bcn_shardmap_free(NULL);
}

struct bad_case {
	const char *text;
	int rc;
	const char *msg;        /* substring of the message */
};

static const struct bad_case bad_cases[] = {
	{ "bogus x\n", -BCN_ESYNTAX, "line 1, column 1: unknown keyword 'bogus'" },
	{ "# c\n\nShard a primary=x:1\n", -BCN_ESYNTAX, "line 3, column 1: unknown keyword 'Shard'" },
	{ "shard cn[1-2] primary=a:1\n# c\nshard cn[2-3] primary=b:1\n",
	  -BCN_ESYNTAX, "line 3: node 'cn2' is already in shard 'shard0' on line 1" },
	{ "default primary=a:1\nshard x primary=a:1 name=s\nshard y,x primary=a:1",
	  -BCN_ESYNTAX, "line 3: node 'x' is already in shard 's' on line 2" },
	{ "shard cn1 primary=a:1 foo=bar\n", -BCN_ESYNTAX, "line 1, column 23: unknown key 'foo'" },
	{ "shard cn1 primary=a:1 primary=b:2", -BCN_ESYNTAX, "column 23: duplicate key 'primary'" },
	{ "shard cn1 fallback=a:1\n", -BCN_ESYNTAX, "line 1: missing primary" },
	{ "shard cn1\n", -BCN_ESYNTAX, "line 1: missing primary" },
	{ "\nshard\n", -BCN_ESYNTAX, "line 2: shard: missing host list" },
	{ "shard cn1 primary=\n", -BCN_ESYNTAX, "empty value for 'primary'" },
	{ "shard cn1 primary=a\n", -BCN_ESYNTAX, "column 19: missing ':port'" },
	{ "shard cn1 primary=a:0", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=a:65536", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=a:", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=a:-1", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=a:+80", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=a:070700", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=a:80x", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=[::1]:0", -BCN_ERANGE, "port must be" },
	{ "shard cn1 primary=fe80::1:7070", -BCN_ESYNTAX, "[address]:port" },
	{ "shard cn1 primary=[fe80::1]7070", -BCN_ESYNTAX, "missing ':port'" },
	{ "shard cn1 primary=[fe80::1]", -BCN_ESYNTAX, "missing ':port'" },
	{ "shard cn1 primary=[zz::1]:7070", -BCN_ESYNTAX, "bad IPv6 address 'zz::1'" },
	{ "shard cn1 primary=[]:7070", -BCN_ESYNTAX, "bad IPv6 endpoint" },
	{ "shard cn1 primary=[::1:7070", -BCN_ESYNTAX, "bad IPv6 endpoint" },
	{ "shard cn1 primary=:80", -BCN_ERANGE, "1 to 255 characters" },
	{ "shard cn1 primary=a$b:80", -BCN_ESYNTAX, "bad character in endpoint host" },
	{ "shard cn1 primary=x:1 fallback=y", -BCN_ESYNTAX, "column 32: missing ':port'" },
	{ "shard cn[1 primary=a:1", -BCN_ESYNTAX,
	  "line 1, column 7: host list 'cn[1': unclosed '[' at column 3" },
	{ "shard cn[3-1] primary=a:1", -BCN_ERANGE, "descending range" },
	{ "shard cn,,x primary=a:1", -BCN_ESYNTAX, "host list" },
	{ "shard cn1, cn2 primary=a:1", -BCN_ESYNTAX, "host list" },
	{ "shard cn1 primary=a:1 extra", -BCN_ESYNTAX, "expected key=value, got 'extra'" },
	{ "shard cn1 primary=a:1 fallback=b:1 name=n x y", -BCN_ESYNTAX, "column 45: too many fields" },
	{ "shard cn1\x01 primary=x:1", -BCN_ESYNTAX, "column 10: control character 0x01" },
	{ "shard cn1 primary=x:1\rz\n", -BCN_ESYNTAX, "control character 0x0d" },
	{ "default primary=a:1\n#\ndefault primary=b:1", -BCN_ESYNTAX,
	  "line 3: second default line (the first is on line 1)" },
	{ "default primary=a:1 name=x", -BCN_ESYNTAX, "unknown key 'name'" },
	{ "default", -BCN_ESYNTAX, "line 1: missing primary" },
	{ "shard a primary=x:1 name=s\nshard b primary=x:1 name=s", -BCN_ESYNTAX,
	  "line 2: shard name 's' already used on line 1" },
	{ "shard a primary=x:1\nshard b primary=x:1 name=shard0", -BCN_ESYNTAX,
	  "line 2: shard name 'shard0' already used on line 1" },
	{ "shard a primary=x:1 name=default", -BCN_ESYNTAX, "reserved" },
	{ "shard a primary=x:1 name=a/b", -BCN_ESYNTAX, "bad character in shard name" },
	{ "shard a primary=x:1 name=", -BCN_ESYNTAX, "empty value for 'name'" },
	{ "shard a primary=x:1 "
	  "name=a123456789012345678901234567890123456789012345678901234567890123",
	  -BCN_ERANGE, "longer than 63" },
	{ "", -BCN_ESYNTAX, "no shard or default line" },
	{ "# only a comment\n\n   \n", -BCN_ESYNTAX, "no shard or default line" },
	{ "shard a primary=x:1\r\nbad\r\n", -BCN_ESYNTAX, "line 2, column 1: unknown keyword 'bad'" },
};

static void test_bad_maps(void **state)
{
	struct bcn_shardmap *m;
	char err[512];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];

		m = (struct bcn_shardmap *)1;
		rc = bcn_shardmap_parse(c->text, strlen(c->text), &m, err,
					sizeof(err));
		if (rc != c->rc || !strstr(err, c->msg))
			fail_msg("case %zu: rc %d (%s) '%s', want %d and '%s'",
				 i, rc, bcn_strerror(rc), err, c->rc, c->msg);
		assert_null(m);
	}
}

static void test_limits(void **state)
{
	static const char big[] = "shard n[1-1048576] primary=x:1";
	static const char over[] = "shard n[1-1048576] primary=x:1\n"
				   "shard m[1-2] primary=x:1";
	struct bcn_shardmap *m = NULL;
	struct bcn_buf b;
	char err[512];
	size_t i;
	int rc;

	(void)state;
	rc = bcn_shardmap_parse_max("shard n[1-10] primary=x:1", 25, 10, &m,
				    err, sizeof(err));
	assert_int_equal(rc, 0);
	bcn_shardmap_free(m);
	rc = bcn_shardmap_parse_max("shard n[1-10] primary=x:1\nshard m primary=x:1",
				    45, 10, &m, err, sizeof(err));
	assert_int_equal(rc, -BCN_ETOOBIG);
	assert_non_null(strstr(err, "line 2, column 7: host list 'm'"));
	/* the hard maximum */
	m = parse_ok(big);
	assert_int_equal(bcn_shardmap_nhosts(m), BCN_SHARDMAP_MAX_HOSTS);
	assert_in(m, "n1048576", "shard0");
	bcn_shardmap_free(m);
	rc = bcn_shardmap_parse(over, strlen(over), &m, err, sizeof(err));
	assert_int_equal(rc, -BCN_ETOOBIG);
	assert_non_null(strstr(err, "line 2"));
	/* too many shards */
	bcn_buf_init(&b, 1 << 20);
	for (i = 0; i <= BCN_SHARDMAP_MAX_SHARDS; i++)
		assert_int_equal(bcn_buf_printf(&b, "shard n%zu primary=x:1\n", i), 0);
	rc = bcn_shardmap_parse((const char *)b.data, b.len, &m, err, sizeof(err));
	assert_int_equal(rc, -BCN_ERANGE);
	assert_non_null(strstr(err, "line 4097: more than 4096 shards"));
	/* the last line allowed parses */
	rc = bcn_shardmap_parse((const char *)b.data, b.len - 24, &m, err,
				sizeof(err));
	assert_int_equal(rc, 0);
	assert_int_equal(bcn_shardmap_count(m), BCN_SHARDMAP_MAX_SHARDS);
	assert_in(m, "n4095", "shard4095");
	bcn_shardmap_free(m);
	/* an overlong line */
	bcn_buf_reset(&b);
	assert_int_equal(bcn_buf_adds(&b, "default primary=x:1\n#"), 0);
	for (i = 0; i < BCN_SHARDMAP_LINE_MAX; i++)
		assert_int_equal(bcn_buf_add(&b, "x", 1), 0);
	rc = bcn_shardmap_parse((const char *)b.data, b.len, &m, err, sizeof(err));
	assert_int_equal(rc, -BCN_ERANGE);
	assert_non_null(strstr(err, "line 2: line longer than 65536 bytes"));
	rc = bcn_shardmap_parse((const char *)b.data, b.len - 1, &m, err,
				sizeof(err));
	assert_int_equal(rc, 0);
	bcn_shardmap_free(m);
	bcn_buf_free(&b);
	/* arguments */
	assert_int_equal(bcn_shardmap_parse(NULL, 1, &m, err, sizeof(err)), -EINVAL);
	assert_int_equal(bcn_shardmap_parse("x", 1, NULL, NULL, 0), -EINVAL);
	assert_int_equal(bcn_shardmap_parse("x", 1, &m, NULL, 0), -BCN_ESYNTAX);
}

/* The map text need not be NUL-terminated: the length ends it. */
static void test_unterminated(void **state)
{
	static const char text[] = "shard a[1-2] primary=x:12345678";
	struct bcn_shardmap *m = NULL;
	char *copy = malloc(sizeof(text) - 1);
	char err[256];

	(void)state;
	assert_non_null(copy);
	memcpy(copy, text, sizeof(text) - 1);
	assert_int_equal(bcn_shardmap_parse(copy, sizeof(text) - 1, &m, err,
					    sizeof(err)), -BCN_ERANGE);
	assert_int_equal(bcn_shardmap_parse(copy, sizeof(text) - 4, &m, err,
					    sizeof(err)), 0);
	assert_int_equal(bcn_shardmap_get(m, 0)->primary.port, 12345);
	bcn_shardmap_free(m);
	free(copy);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* TaihuLight: 40,960 compute nodes in 80 shards, forwarding and storage
 * nodes, and the metadata servers on the default. */
static void test_taihulight(void **state)
{
	struct bcn_shardmap *m;
	struct bcn_buf b;
	char node[32], err[512];
	double t0, t1, t2;
	size_t i;
	int rc;

	(void)state;
	bcn_buf_init(&b, 1 << 20);
	for (i = 0; i < 80; i++)
		assert_int_equal(bcn_buf_printf(&b,
			"shard cn[%05zu-%05zu] primary=logsrv%zu:7070 fallback=logsrv%zu:7070\n",
			i * 512, i * 512 + 511, i, (i + 1) % 84), 0);
	assert_int_equal(bcn_buf_adds(&b,
		"shard fwd[1-288] primary=logsrv80:7070\n"
		"shard oss[1-288] primary=logsrv81:7070\n"
		"default primary=logsrv83:7070\n"), 0);
	t0 = now_s();
	rc = bcn_shardmap_parse((const char *)b.data, b.len, &m, err, sizeof(err));
	t1 = now_s();
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(bcn_shardmap_count(m), 82);
	assert_int_equal(bcn_shardmap_nhosts(m), 40960 + 576);
	for (i = 0; i < 40960; i++) {
		const struct bcn_shard *s;

		snprintf(node, sizeof(node), "cn%05zu", i);
		s = bcn_shardmap_lookup(m, node);
		assert_non_null(s);
		assert_int_equal(s->index, i / 512);
	}
	t2 = now_s();
	assert_int_equal(bcn_shardmap_lookup(m, "fwd288")->index, 80);
	assert_int_equal(bcn_shardmap_lookup(m, "oss1")->index, 81);
	assert_true(bcn_shardmap_lookup(m, "mds0")->is_default);
	print_message("parse %.1f ms, 40960 lookups %.1f ms\n",
		      (t1 - t0) * 1e3, (t2 - t1) * 1e3);
	/* generous bounds that only catch quadratic behaviour */
	assert_true(t1 - t0 < 2.0);
	assert_true(t2 - t1 < 2.0);
	bcn_shardmap_free(m);
	bcn_buf_free(&b);
}

static void test_load(void **state)
{
	char path[] = "/tmp/shardmap_test.XXXXXX", err[512];
	struct bcn_shardmap *m = NULL;
	const struct bcn_shard *s;
	size_t i, n = 0;
	int fd, rc;

	(void)state;
	/* the shipped example */
	rc = bcn_shardmap_load(EXAMPLE_MAP, &m, err, sizeof(err));
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(bcn_shardmap_count(m), 84);
	assert_int_equal(bcn_shardmap_nhosts(m), 40960 + 576);
	assert_in(m, "cn00000", "cn00");
	assert_in(m, "cn40959", "cn79");
	assert_in(m, "fwd145", "fwd-b");
	assert_in(m, "oss288", "oss-b");
	assert_in(m, "mds1", "default");
	/* "which shards do I serve" for one log server */
	for (i = 0; i < bcn_shardmap_count(m); i++) {
		s = bcn_shardmap_get(m, i);
		if (strcmp(s->primary.host, "logsrv01") == 0 ||
		    strcmp(s->fallback.host, "logsrv01") == 0)
			n++;
	}
	assert_int_equal(n, 2);
	bcn_shardmap_free(m);
	/* a file with an error names the path and the line */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "default primary=a:1\nshard x primary=b\n", 38), 38);
	close(fd);
	rc = bcn_shardmap_load(path, &m, err, sizeof(err));
	assert_int_equal(rc, -BCN_ESYNTAX);
	assert_null(m);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "line 2, column 17: missing ':port'"));
	unlink(path);
	rc = bcn_shardmap_load(path, &m, err, sizeof(err));
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err, path));
	assert_int_equal(bcn_shardmap_load(NULL, &m, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_map),
		cmocka_unit_test(test_no_default),
		cmocka_unit_test(test_bad_maps),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_taihulight),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
