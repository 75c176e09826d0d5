/* beacon-logsrv as a program (common/program.h): the configuration is
 * checked, logging opened and the server run until SIGTERM or SIGINT. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "common/program.h"
#include "logsrv/logsrv.h"
#include "store/store_config.h"

static volatile sig_atomic_t stop_requested;
static struct bcn_logsrv_config logsrv_cfg;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int logsrv_check(const struct bcn_program *p, char *err,
			size_t errlen)
{
	struct bcn_logsrv_config *cfg = p->conf;

	return bcn_store_settings_apply(&cfg->store, err, errlen);
}

static int logsrv_run(const struct bcn_program *p)
{
	static struct bcn_logsrv_stats stats;
	const struct bcn_logsrv_config *cfg = p->conf;
	struct sigaction sa;
	int rc;

	rc = bcn_log_open(p->name, cfg->log_dest, cfg->log_level);
	if (rc) {
		fprintf(stderr, "%s: bad log settings\n", p->name);
		return BCN_EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	rc = bcn_logsrv_run(cfg, &stop_requested, &stats);
	if (rc)
		BCN_ERR("cannot run: %s", bcn_strerror(rc));
	else
		BCN_NOTICE("stopped");
	bcn_log_close();
	return rc ? BCN_EXIT_FAIL : BCN_EXIT_OK;
}

const struct bcn_program bcn_logsrv_program = {
	.name = "beacon-logsrv",
	.synopsis = "--config FILE [--KEY VALUE ...]",
	.description = "The beacon log server: receives frames from "
		       "collectors, keeps them durably in Redis and moves "
		       "them into the record store.",
	.options = bcn_logsrv_options,
	.conf = &logsrv_cfg,
	.check = logsrv_check,
	.run = logsrv_run,
};
