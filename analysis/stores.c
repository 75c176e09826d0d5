/* The record stores the analysis reads (stores.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/stores.h"
#include "common/error.h"

int bcn_stores_open(const struct bcn_store_config *main,
		    const struct bcn_stores_config *extra,
		    struct bcn_stores *out, char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = bcn_store_open(main, &out->s[0], err, errlen);
	if (rc)
		return rc;
	out->n = 1;
	for (size_t i = 0; extra && i < extra->ndirs; i++) {
		struct bcn_store_config c;

		bcn_store_config_defaults(&c);
		c.backend = BCN_STORE_SQLITE;
		c.existing = true;
		c.timeout_ms = main->timeout_ms;
		c.retention_days = main->retention_days;
		snprintf(c.dir, sizeof(c.dir), "%s", extra->dirs[i]);
		rc = bcn_store_open(&c, &out->s[out->n], err, errlen);
		if (rc) {
			bcn_stores_close(out);
			return rc;
		}
		out->n++;
	}
	return 0;
}

void bcn_stores_close(struct bcn_stores *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		bcn_store_close(ss->s[i]);
	ss->n = 0;
}

int bcn_stores_scan(const struct bcn_stores *ss,
		    const struct bcn_store_query *q, bcn_store_record_fn *fn,
		    void *arg)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < ss->n; i++)
		rc = bcn_store_scan(ss->s[i], q, fn, arg);
	return rc;
}
