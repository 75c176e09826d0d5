/* The record store's configuration keys (store_backend, store_dir, ...),
 * declared once for every program that opens a store: a daemon embeds a
 * struct bcn_store_settings in its configuration struct and
 * BCN_STORE_CONFIG_OPTIONS in its option table; `beacon query` reads the
 * same keys out of any such daemon's file. docs/store.md lists the keys. */
#ifndef BCN_STORE_CONFIG_H
#define BCN_STORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "store/store.h"

#define BCN_STORE_KEY_PREFIX "store_"
#define BCN_STORE_DAY_MS (86400ll * 1000)
#define BCN_STORE_RETENTION_MAX_DAYS 36500      /* 100 years */
#define BCN_STORE_REPLICAS_MAX 16
#define BCN_STORE_SHARDS_MAX 1024
#define BCN_STORE_TIMEOUT_MAX_MS (3600ll * 1000)

/* The store keys as the configuration module stores them. Most land in
 * cfg directly; the ones whose type differs there are staged in the
 * fields after it, and bcn_store_settings_apply moves them into cfg. */
struct bcn_store_settings {
	struct bcn_store_config cfg;
	int64_t replicas;               /* -> cfg.replicas */
	int64_t shards;                 /* -> cfg.shards */
	int64_t retention_ms;           /* -> cfg.retention_days */
};

/* Words of store_backend, in enum bcn_store_backend order, NULL-ended. */
extern const char *const bcn_store_backend_names[];

/* Option table entries for the store keys, for the struct
 * bcn_store_settings member `member` of the configuration struct `type`:
 *
 *	struct logsrv_conf { ...; struct bcn_store_settings store; };
 *	static const struct bcn_config_opt tab[] = {
 *		...,
 *		BCN_STORE_CONFIG_OPTIONS(struct logsrv_conf, store),
 *		{ .name = NULL }
 *	};
 *
 * then, after bcn_config_getopt, bcn_store_settings_apply(&conf.store, ...)
 * and bcn_store_open(&conf.store.cfg, ...). The defaults are those of
 * bcn_store_config_defaults. */
#define BCN_STORE_CONFIG_OPTIONS(type, member) \
	{ "store_backend", BCN_CFG_ENUM, \
	  BCN_CFG_MEMBER(type, member.cfg.backend), \
	  .words = bcn_store_backend_names, .def = "sqlite", \
	  .help = "Record store backend: sqlite (embedded, no server) or " \
		  "opensearch (OpenSearch or Elasticsearch over HTTP)." }, \
	{ "store_dir", BCN_CFG_PATH, BCN_CFG_MEMBER(type, member.cfg.dir), \
	  .min = 1, .def = "beacon-store", \
	  .help = "sqlite: directory of the day databases, created if " \
		  "missing." }, \
	{ "store_url", BCN_CFG_STRING, BCN_CFG_MEMBER(type, member.cfg.url), \
	  .help = "opensearch: base URL, e.g. http://127.0.0.1:9200 " \
		  "(required with that backend)." }, \
	{ "store_index_prefix", BCN_CFG_STRING, \
	  BCN_CFG_MEMBER(type, member.cfg.index_prefix), .min = 1, \
	  .def = "beacon", \
	  .help = "opensearch: indices are named PREFIX-LAYER-YYYY.MM.DD." }, \
	{ "store_user", BCN_CFG_STRING, BCN_CFG_MEMBER(type, member.cfg.user), \
	  .help = "opensearch: user for HTTP basic authentication; empty " \
		  "for none." }, \
	{ "store_password_file", BCN_CFG_PATH, \
	  BCN_CFG_MEMBER(type, member.cfg.password_file), \
	  .help = "opensearch: file holding store_user's password." }, \
	{ "store_replicas", BCN_CFG_INT, BCN_CFG_MEMBER(type, member.replicas), \
	  .min = 0, .max = BCN_STORE_REPLICAS_MAX, .def = "0", \
	  .help = "opensearch: replicas of each new index." }, \
	{ "store_shards", BCN_CFG_INT, BCN_CFG_MEMBER(type, member.shards), \
	  .min = 1, .max = BCN_STORE_SHARDS_MAX, .def = "1", \
	  .help = "opensearch: primary shards of each new index." }, \
	{ "store_retention", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, member.retention_ms), \
	  .min = BCN_STORE_DAY_MS, \
	  .max = BCN_STORE_RETENTION_MAX_DAYS * BCN_STORE_DAY_MS, \
	  .def = "183d", \
	  .help = "How long records are kept, in whole days; expiry " \
		  "deletes older days." }, \
	{ "store_node_runs", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, member.cfg.node_runs), \
	  .min = BCN_STORE_NODE_RUNS_MIN, .max = BCN_STORE_NODE_RUNS_MAX, \
	  .def = "4096", \
	  .help = "sqlite: identity runs (stretches of consecutive frame " \
		  "numbers) kept per sender node and day; a node's records " \
		  "that would start one more are refused, counted and " \
		  "logged, other nodes' are not affected." }, \
	{ "store_timeout", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, member.cfg.timeout_ms), .min = 1, \
	  .max = BCN_STORE_TIMEOUT_MAX_MS, .def = "30s", \
	  .help = "opensearch: time limit of one request; sqlite: how long " \
		  "to wait for a database another process holds locked." }

/* The store keys alone, over a struct bcn_store_settings; for programs
 * such as `beacon query` that need nothing else. */
extern const struct bcn_config_opt bcn_store_options[];

/* Moves the staged values into s->cfg and checks the keys together:
 * store_retention must be whole days and the opensearch backend needs
 * store_url. Returns 0, or -BCN_ERANGE or -EINVAL with a message in err. */
int bcn_store_settings_apply(struct bcn_store_settings *s, char *err,
			     size_t errlen);

/* Reads the store keys of a configuration text that also holds other keys
 * (a whole beacon-logsrv file, say) into s, with bcn_store_options. Lines
 * whose key starts with "store_" are parsed as usual: an unknown store_
 * key, a bad value or a repeated key is an error, as is a line that is
 * not "key = value" at all. Lines with any other key are skipped without
 * looking at their values. Errors name source and line as
 * bcn_config_parse does; all or nothing. Pure: no I/O.
 * Returns 0 or the codes of bcn_config_parse (-BCN_EFULL for a text over
 * BCN_CFG_FILE_MAX bytes). */
int bcn_store_settings_parse(struct bcn_store_settings *s, const char *buf,
			     size_t len, const char *source, char *err,
			     size_t errlen);

/* bcn_store_settings_parse over the file at path. Returns 0, its codes or
 * -errno. */
int bcn_store_settings_load(struct bcn_store_settings *s, const char *path,
			    char *err, size_t errlen);

#endif
