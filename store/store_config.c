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

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.';
}

/* Whether the line [p, p + n) is "key = ..." with a well-formed key that
 * is not a store key: such lines belong to another program. */
static bool foreign_line(const char *p, size_t n)
{
	size_t i = 0, k;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	for (k = i; k < n && key_char(p[k]); k++)
		;
	if (k == i || k - i > BCN_CFG_KEY_MAX)
		return false;
	if (k - i >= strlen(BCN_STORE_KEY_PREFIX) &&
	    memcmp(p + i, BCN_STORE_KEY_PREFIX, strlen(BCN_STORE_KEY_PREFIX)) == 0)
		return false;
	while (k < n && (p[k] == ' ' || p[k] == '\t'))
		k++;
	return k < n && p[k] == '=';
}

int bcn_store_settings_parse(struct bcn_store_settings *s, const char *buf,
			     size_t len, const char *source, char *err,
			     size_t errlen)
{
	struct bcn_buf out;
	size_t a = 0, e;
	int rc = 0;

	if (len > BCN_CFG_FILE_MAX)
		return bcn_fail(err, errlen, -BCN_EFULL, "%s: larger than %d "
			       "bytes", source, BCN_CFG_FILE_MAX);
	bcn_buf_init(&out, BCN_CFG_FILE_MAX);
	/* copy the text with foreign lines emptied, keeping every line
	 * break so that error messages keep their line numbers */
	while (a < len && !rc) {
		const char *nl = memchr(buf + a, '\n', len - a);

		e = nl ? (size_t)(nl - buf) : len;
		if (!foreign_line(buf + a, e - a))
			rc = bcn_buf_add(&out, buf + a, e - a);
		if (!rc && nl)
			rc = bcn_buf_add(&out, "\n", 1);
		a = e + 1;
	}
	if (rc)
		bcn_fail(err, errlen, rc, "%s: %s", source, bcn_strerror(rc));
	else
		rc = bcn_config_parse(bcn_store_options, s, out.data ?
				      (const char *)out.data : "", out.len,
				      source, err, errlen);
	bcn_buf_free(&out);
	return rc;
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
