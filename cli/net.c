/* beacon net [--config FILE] [--switch S] [--from T] [--to T] [--step D]
 * [--json]: traffic per switch over a window (per port of switch S with
 * --switch), from the record store's port and topology records
 * (analysis/netview.h, docs/network.md "beacon net"). The window defaults
 * to the last hour; T is epoch seconds or ISO 8601. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/netview.h"
#include "analysis/stores.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "store/store.h"
#include "store/store_config.h"

#define NET_ERR_MAX 512

struct net_conf {
	struct bcn_store_settings store;
	struct bcn_stores_config stores;
	char sw[BCN_NET_NAME_MAX];
	char from[BCN_TIMEFMT_IN_MAX + 1], to[BCN_TIMEFMT_IN_MAX + 1];
	int64_t step_ms, topo_age_ms;
	bool json;
};

#define M(m) BCN_CFG_MEMBER(struct net_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_STORE_CONFIG_OPTIONS(struct net_conf, store),
	BCN_STORES_CONFIG_OPTIONS(struct net_conf, stores),
	{ "switch", BCN_CFG_STRING, M(sw),
	  .help = "Show the ports of this switch (GUID or name)." },
	{ "from", BCN_CFG_STRING, M(from),
	  .help = "Start of the window (default: an hour before its end)." },
	{ "to", BCN_CFG_STRING, M(to), .help = "End of the window (default: now)." },
	{ "step", BCN_CFG_DURATION, M(step_ms), .min = 1000,
	  .max = 86400000, .def = "1m", .help = "Time bucket of the series." },
	{ "report_topology_age", BCN_CFG_DURATION, M(topo_age_ms), .min = 60000,
	  .max = 31 * 86400000ll, .def = "2h",
	  .help = "Topology records this long before the window still count." },
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "One JSON object, with each row's series." },
	{ .name = NULL }
};
#undef M

static int run(const struct net_conf *c, int64_t from, int64_t to)
{
	struct bcn_store_config sc = c->store.cfg;
	struct bcn_stores st = { .n = 0 };
	struct bcn_netview *v = NULL;
	struct bcn_buf out;
	char err[NET_ERR_MAX];
	int rc;

	sc.existing = true;
	bcn_buf_init(&out, 1u << 30);
	if ((rc = bcn_stores_open(&sc, &c->stores, &st, err, sizeof(err)))) {
		fprintf(stderr, "beacon net: %s\n", err);
		goto out;
	}
	rc = bcn_netview_compute(&st, from, to, c->step_ms * 1000000,
				 c->sw[0] ? c->sw : NULL,
				 c->topo_age_ms * 1000000, &v);
	if (rc == -ENOENT) {
		fprintf(stderr, "beacon net: switch '%s' has no port records "
			"in the window\n", c->sw);
		goto out;
	}
	if (!rc)
		rc = c->json ? bcn_netview_to_json(v, true, &out) :
		     bcn_netview_to_text(v, isatty(1), &out);
	if (!rc && c->json)
		rc = bcn_buf_adds(&out, "\n");
	if (!rc && (fwrite(out.data, 1, out.len, stdout) != out.len ||
		    fflush(stdout)))
		rc = -EIO;
	if (rc)
		fprintf(stderr, "beacon net: %s\n", bcn_strerror(rc));
out:
	bcn_netview_free(v);
	bcn_buf_free(&out);
	bcn_stores_close(&st);
	return rc ? 1 : 0;
}

static int when(const char *s, int64_t def, int64_t *out)
{
	*out = def;
	return s[0] ? bcn_timefmt_parse(s, strlen(s), out) : 0;
}

int bcn_cmd_net(int argc, char **argv)
{
	static struct net_conf c;
	char err[NET_ERR_MAX];
	struct timespec ts;
	int64_t from = 0, to = 0;
	int rc, argi;

	memset(&c, 0, sizeof(c));
	rc = bcn_cli_configure(tab, &c, "store_,analysis_,report_topology_age",
			       argc, argv, &argi, err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		printf("usage: beacon net [--config FILE] [--switch S] [--from T] "
		       "[--to T] [--step D] [--json]\nTraffic per switch (per "
		       "port of one switch) over a window.\n\n");
		bcn_config_help(tab, stdout);
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	if (!rc && argi < argc)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unexpected "
			      "argument '%s'", argv[argi]);
	if (!rc && when(c.to, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, &to))
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "bad time '%s'", c.to);
	if (!rc && when(c.from, to - 3600000000000ll, &from))
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "bad time '%s'",
			      c.from);
	if (!rc && from >= to)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "--from must be "
			      "before --to");
	if (!rc)
		rc = bcn_store_settings_apply(&c.store, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon net: %s\n", err);
		return 2;
	}
	return run(&c, from, to);
}
