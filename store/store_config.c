/* The store keys of the configuration format: the standalone option table,
 * the checks that span several keys, and reading the store keys out of a
 * file that belongs to a daemon with many more keys. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "store/store_config.h"

const char *const bcn_store_backend_names[] = { "sqlite", "opensearch", NULL };

/* bcn_store_options is a table over a struct bcn_store_settings; this
 * wrapper only gives the macro a member to name, at offset 0. */
struct store_only {
	struct bcn_store_settings s;
};

const struct bcn_config_opt bcn_store_options[] = {
	BCN_STORE_CONFIG_OPTIONS(struct store_only, s),
	{ .name = NULL }
};

int bcn_store_settings_apply(struct bcn_store_settings *s, char *err,
			     size_t errlen)
{
	if (s->retention_ms < BCN_STORE_DAY_MS ||
	    s->retention_ms % BCN_STORE_DAY_MS)
		return bcn_fail(err, errlen, -BCN_ERANGE, "store_retention must "
			       "be a whole number of days (at least 1d)");
	if (s->replicas < 0 || s->replicas > BCN_STORE_REPLICAS_MAX ||
	    s->shards < 1 || s->shards > BCN_STORE_SHARDS_MAX)
		return bcn_fail(err, errlen, -BCN_ERANGE, "store_replicas or "
			       "store_shards out of range");
	if (s->cfg.backend == BCN_STORE_OPENSEARCH && !s->cfg.url[0])
		return bcn_fail(err, errlen, -EINVAL, "store_backend opensearch "
			       "needs store_url");
	s->cfg.retention_days = s->retention_ms / BCN_STORE_DAY_MS;
	s->cfg.replicas = (int)s->replicas;
	s->cfg.shards = (int)s->shards;
	return 0;
}

int bcn_store_settings_parse(struct bcn_store_settings *s, const char *buf,
			     size_t len, const char *source, char *err,
			     size_t errlen)
{
	return bcn_config_parse_prefix(bcn_store_options, s, buf, len,
				       BCN_STORE_KEY_PREFIX, source, err, errlen);
}

int bcn_store_settings_load(struct bcn_store_settings *s, const char *path,
			    char *err, size_t errlen)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, BCN_CFG_FILE_MAX);
	rc = bcn_buf_read_file(&b, path);
	if (rc)
		bcn_fail(err, errlen, rc, "%s: %s", path, bcn_strerror(rc));
	else
		rc = bcn_store_settings_parse(s, (const char *)b.data, b.len,
					      path, err, errlen);
	bcn_buf_free(&b);
	return rc;
}
