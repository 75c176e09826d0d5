/* Tests of store/store_config: the store keys' defaults agree with
 * bcn_store_config_defaults, the option fragment embeds in a daemon's
 * table, a daemon's whole file yields its store keys (other keys skipped,
 * line numbers kept, store_ typos caught), and the cross-key checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/config.h"
#include "common/error.h"
#include "store/store_config.h"

static void assert_same_cfg(const struct bcn_store_config *a,
			    const struct bcn_store_config *b)
{
	assert_int_equal(a->backend, b->backend);
	assert_string_equal(a->dir, b->dir);
	assert_string_equal(a->url, b->url);
	assert_string_equal(a->index_prefix, b->index_prefix);
	assert_string_equal(a->user, b->user);
	assert_string_equal(a->password_file, b->password_file);
	assert_int_equal(a->replicas, b->replicas);
	assert_int_equal(a->shards, b->shards);
	assert_int_equal(a->retention_days, b->retention_days);
	assert_int_equal(a->timeout_ms, b->timeout_ms);
	assert_int_equal(a->node_runs, b->node_runs);
}

static void load_defaults(struct bcn_store_settings *s)
{
	char err[BCN_CFG_ERR_MAX];

	memset(s, 0xa5, sizeof(*s));
	assert_int_equal(bcn_config_defaults(bcn_store_options, s, err,
					     sizeof(err)), 0);
}

static void test_defaults(void **state)
{
	struct bcn_store_settings s;
	struct bcn_store_config want;
	char err[BCN_CFG_ERR_MAX];

	(void)state;
	load_defaults(&s);
	assert_int_equal(bcn_store_settings_apply(&s, err, sizeof(err)), 0);
	bcn_store_config_defaults(&want);
	assert_same_cfg(&s.cfg, &want);
	assert_int_equal(s.cfg.retention_days, 183);
	assert_string_equal(bcn_store_backend_names[BCN_STORE_SQLITE], "sqlite");
	assert_string_equal(bcn_store_backend_names[BCN_STORE_OPENSEARCH],
			    "opensearch");
	assert_null(bcn_store_backend_names[2]);
}

static const char daemon_file[] =
	"# a log server's configuration\n"
	"listen = 0.0.0.0:7070\n"
	"  redis_port=6379   # comment\n"
	"store_backend = opensearch\n"
	"store_url = http://10.0.0.5:9200\n"
	"auth_key_file = \"/etc/beacon/key #1\"\r\n"
	"store_index_prefix = site\r\n"
	"weird = \"unterminated\n"
	"store_user = beacon\n"
	"store_password_file = /etc/beacon/store.pw\n"
	"store_replicas = 1\n"
	"store_shards = 3\n"
	"\n"
	"store_retention = 4320h\n"
	"store_timeout = 1500ms\n"
	"store_node_runs = 100\n"
	"server = a\n"
	"server = b\n";

static void test_daemon_file(void **state)
{
	struct bcn_store_settings s;
	char err[BCN_CFG_ERR_MAX] = "";

	(void)state;
	load_defaults(&s);
	assert_int_equal(bcn_store_settings_parse(&s, daemon_file,
						  strlen(daemon_file), "d.conf",
						  err, sizeof(err)), 0);
	assert_int_equal(bcn_store_settings_apply(&s, err, sizeof(err)), 0);
	assert_int_equal(s.cfg.backend, BCN_STORE_OPENSEARCH);
	assert_string_equal(s.cfg.url, "http://10.0.0.5:9200");
	assert_string_equal(s.cfg.index_prefix, "site");
	assert_string_equal(s.cfg.user, "beacon");
	assert_string_equal(s.cfg.password_file, "/etc/beacon/store.pw");
	assert_int_equal(s.cfg.replicas, 1);
	assert_int_equal(s.cfg.shards, 3);
	assert_int_equal(s.cfg.retention_days, 180);
	assert_int_equal(s.cfg.timeout_ms, 1500);
	assert_int_equal(s.cfg.node_runs, 100);
	assert_string_equal(s.cfg.dir, "beacon-store");  /* default kept */
}

struct err_case {
	const char *text;
	int rc;
	const char *msg;        /* expected within the message */
};

static const struct err_case err_cases[] = {
	{ "listen = x\n\nstore_dri = /tmp\n", -BCN_ESYNTAX,
	  "f.conf:3: unknown key 'store_dri' (did you mean 'store_dir'?)" },
	{ "store_dir = a\nlisten = 1\nstore_dir = b\n", -BCN_ESYNTAX,
	  "f.conf:3: duplicate key 'store_dir'" },
	{ "listen = 1\nthis is not a setting\n", -BCN_ESYNTAX, "f.conf:2:" },
	{ "Store_dir = x\n", -BCN_ESYNTAX, "f.conf:1:" },
	{ "store_shards = 0\n", -BCN_ERANGE, "f.conf:1:" },
	{ "store_replicas = 17\n", -BCN_ERANGE, "f.conf:1:" },
	{ "store_node_runs = 15\n", -BCN_ERANGE, "f.conf:1:" },
	{ "store_node_runs = 65537\n", -BCN_ERANGE, "f.conf:1:" },
	{ "store_backend = mysql\n", -BCN_ESYNTAX, "f.conf:1:" },
	{ "store_retention = 12h\n", -BCN_ERANGE, "f.conf:1:" },
	{ "store_dir =\n", -BCN_ERANGE, "f.conf:1:" },
	{ "x = 1\r\nstore_timeout = 2h\r\n", -BCN_ERANGE, "f.conf:2:" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct bcn_store_settings s, before;
		char err[BCN_CFG_ERR_MAX] = "";
		int rc;

		load_defaults(&s);
		before = s;
		rc = bcn_store_settings_parse(&s, c->text, strlen(c->text),
					      "f.conf", err, sizeof(err));
		if (rc != c->rc || !strstr(err, c->msg))
			fail_msg("case %zu: rc %d '%s', expected %d '%s'", i, rc,
				 err, c->rc, c->msg);
		assert_memory_equal(&s, &before, sizeof(s));    /* untouched */
	}
}

static void test_apply_checks(void **state)
{
	struct bcn_store_settings s;
	char err[BCN_CFG_ERR_MAX] = "";

	(void)state;
	load_defaults(&s);
	s.retention_ms = 36 * 3600 * 1000ll;
	assert_int_equal(bcn_store_settings_apply(&s, err, sizeof(err)),
			 -BCN_ERANGE);
	assert_non_null(strstr(err, "whole number of days"));
	load_defaults(&s);
	s.cfg.backend = BCN_STORE_OPENSEARCH;
	assert_int_equal(bcn_store_settings_apply(&s, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "store_url"));
	assert_int_equal(bcn_store_settings_apply(&s, NULL, 0), -EINVAL);
	snprintf(s.cfg.url, sizeof(s.cfg.url), "http://h:9200");
	assert_int_equal(bcn_store_settings_apply(&s, err, sizeof(err)), 0);
}

/* The fragment inside a daemon's own table, parsed with the rest. */
struct daemon_conf {
	char listen[64];
	uint64_t redis_port;
	struct bcn_store_settings store;
	bool flusher;
};

static const struct bcn_config_opt daemon_opts[] = {
	{ "listen", BCN_CFG_STRING, BCN_CFG_MEMBER(struct daemon_conf, listen),
	  .def = "0.0.0.0:7070", .help = "Address." },
	{ "redis_port", BCN_CFG_UINT,
	  BCN_CFG_MEMBER(struct daemon_conf, redis_port), .min = 1,
	  .max = 65535, .def = "6379", .help = "Port." },
	BCN_STORE_CONFIG_OPTIONS(struct daemon_conf, store),
	{ "flusher", BCN_CFG_BOOL, BCN_CFG_MEMBER(struct daemon_conf, flusher),
	  .def = "yes", .help = "Flush." },
	{ .name = NULL }
};

static void test_embedded(void **state)
{
	static const char text[] =
		"listen = 127.0.0.1:1\nstore_dir = /var/lib/beacon\n"
		"store_retention = 2d\nflusher = no\n";
	struct bcn_store_settings alone;
	struct daemon_conf d;
	char err[BCN_CFG_ERR_MAX] = "";
	struct bcn_buf dump;

	(void)state;
	assert_int_equal(bcn_config_defaults(daemon_opts, &d, err, sizeof(err)),
			 0);
	assert_int_equal(bcn_config_parse(daemon_opts, &d, text, strlen(text),
					  "d.conf", err, sizeof(err)), 0);
	assert_int_equal(bcn_store_settings_apply(&d.store, err, sizeof(err)),
			 0);
	assert_string_equal(d.listen, "127.0.0.1:1");
	assert_false(d.flusher);
	assert_string_equal(d.store.cfg.dir, "/var/lib/beacon");
	assert_int_equal(d.store.cfg.retention_days, 2);
	/* the same file read for the store keys alone gives the same */
	load_defaults(&alone);
	assert_int_equal(bcn_store_settings_parse(&alone, text, strlen(text),
						  "d.conf", err, sizeof(err)), 0);
	assert_int_equal(bcn_store_settings_apply(&alone, err, sizeof(err)), 0);
	assert_same_cfg(&alone.cfg, &d.store.cfg);
	/* and the dump of the store keys reads back */
	bcn_buf_init(&dump, 1 << 16);
	assert_int_equal(bcn_config_dump(bcn_store_options, &alone, &dump), 0);
	load_defaults(&alone);
	assert_int_equal(bcn_store_settings_parse(&alone, (char *)dump.data,
						  dump.len, "dump", err,
						  sizeof(err)), 0);
	assert_int_equal(bcn_store_settings_apply(&alone, err, sizeof(err)), 0);
	assert_same_cfg(&alone.cfg, &d.store.cfg);
	bcn_buf_free(&dump);
}

static void test_limits(void **state)
{
	struct bcn_store_settings s;
	char err[BCN_CFG_ERR_MAX] = "";
	size_t big = BCN_CFG_FILE_MAX + 1;
	char *text = malloc(big);

	(void)state;
	assert_non_null(text);
	memset(text, '\n', big);
	load_defaults(&s);
	assert_int_equal(bcn_store_settings_parse(&s, text, big, "big", err,
						  sizeof(err)), -BCN_EFULL);
	assert_int_equal(bcn_store_settings_parse(&s, text, big - 1, "big", err,
						  sizeof(err)), 0);
	assert_int_equal(bcn_store_settings_parse(&s, "", 0, "empty", err,
						  sizeof(err)), 0);
	/* a file that does not end in a newline */
	assert_int_equal(bcn_store_settings_parse(&s, "store_shards = 2", 16,
						  "x", err, sizeof(err)), 0);
	assert_int_equal(s.shards, 2);
	assert_int_equal(bcn_store_settings_load(&s, "/nonexistent/b.conf", err,
						 sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/b.conf"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_daemon_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_apply_checks),
		cmocka_unit_test(test_embedded),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests_name("store_config", tests, NULL, NULL);
}
