/* beacon-web as a program (common/program.h): the configuration is
 * checked, logging opened and the service run until SIGTERM or SIGINT. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "web/web.h"

static volatile sig_atomic_t stop_requested;
static struct bcn_web_config web_cfg;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int web_check(const struct bcn_program *p, char *err, size_t errlen)
{
	struct bcn_web_config *cfg = p->conf;

	if (!cfg->tls_cert[0] != !cfg->tls_key[0])
		return bcn_fail(err, errlen, -EINVAL, "web_tls_cert and "
				"web_tls_key go together");
	cfg->store.cfg.existing = true;
	return bcn_store_settings_apply(&cfg->store, err, errlen);
}

static int web_run(const struct bcn_program *p)
{
	const struct bcn_web_config *cfg = p->conf;
	struct sigaction sa;
	int rc;

	if (bcn_log_open(p->name, cfg->log_dest, cfg->log_level)) {
		fprintf(stderr, "%s: bad log settings\n", p->name);
		return BCN_EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	rc = bcn_web_run(cfg, &stop_requested);
	if (rc)
		BCN_ERR("cannot run: %s", bcn_strerror(rc));
	else
		BCN_NOTICE("stopped");
	bcn_log_close();
	return rc ? BCN_EXIT_FAIL : BCN_EXIT_OK;
}

const struct bcn_program bcn_web_program = {
	.name = "beacon-web",
	.synopsis = "--config FILE [--KEY VALUE ...]",
	.description = "The beacon web service: a JSON API over the job "
		       "database, the record store and the report cache, "
		       "with accounts, sessions and per-user access rules "
		       "(docs/api.md).",
	.options = bcn_web_options,
	.conf = &web_cfg,
	.check = web_check,
	.run = web_run,
};
