/* beacon-analyzd as a program (common/program.h): settings checked,
 * logging opened, the analysis loop run until SIGTERM or SIGINT. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analyzd.h"
#include "common/log.h"
#include "common/program.h"

static volatile sig_atomic_t stop_requested;
static struct bcn_analyzd_config analyzd_cfg;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int analyzd_check(const struct bcn_program *p, char *err,
			 size_t errlen)
{
	struct bcn_analyzd_config *cfg = p->conf;

	int rc = bcn_alert_config_check(&cfg->alert, err, errlen);

	cfg->store.cfg.existing = false;
	return rc ? rc : bcn_store_settings_apply(&cfg->store, err, errlen);
}

static int analyzd_run(const struct bcn_program *p)
{
	static struct bcn_analyzd_stats stats;
	const struct bcn_analyzd_config *cfg = p->conf;
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
	rc = bcn_analyzd_run(cfg, &stop_requested, &stats);
	bcn_log_close();
	if (rc)
		return BCN_EXIT_FAIL;
	return cfg->once && stats.failed ? BCN_EXIT_FAIL : BCN_EXIT_OK;
}

const struct bcn_program bcn_analyzd_program = {
	.name = "beacon-analyzd",
	.synopsis = "--config FILE [--KEY VALUE ...]",
	.description = "The beacon analysis server: imports job records, "
		       "computes each job's I/O report from the record store "
		       "and keeps it in the job database and the report "
		       "cache.",
	.options = bcn_analyzd_options,
	.conf = &analyzd_cfg,
	.check = analyzd_check,
	.run = analyzd_run,
};
