/* beacon-logsrv: parses the command line and the configuration, then runs
 * the log server until SIGTERM or SIGINT. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/error.h"
#include "common/log.h"
#include "logsrv/logsrv.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: beacon-logsrv --config FILE [--KEY VALUE ...]\n"
		"The beacon log server: receives frames from collectors, keeps\n"
		"them durably in Redis and moves them into the record store.\n\n");
	bcn_config_help(bcn_logsrv_options, out);
}

int main(int argc, char **argv)
{
	static struct bcn_logsrv_config cfg;
	static struct bcn_logsrv_stats stats;
	struct sigaction sa;
	char err[BCN_CFG_ERR_MAX];
	int argi = 1, rc;

	rc = bcn_config_defaults(bcn_logsrv_options, &cfg, err, sizeof(err));
	if (!rc)
		rc = bcn_config_getopt(bcn_logsrv_options, &cfg, argc, argv, &argi,
				       err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		usage(stdout);
		return 0;
	}
	if (rc == BCN_CONFIG_DUMP) {
		struct bcn_buf b;

		bcn_buf_init(&b, 1 << 20);
		rc = bcn_config_dump(bcn_logsrv_options, &cfg, &b);
		if (!rc)
			fwrite(b.data, 1, b.len, stdout);
		bcn_buf_free(&b);
		return rc ? 1 : 0;
	}
	if (!rc && argi == argc)
		rc = bcn_store_settings_apply(&cfg.store, err, sizeof(err));
	if (rc || argi < argc) {
		fprintf(stderr, "beacon-logsrv: %s\n", rc ? err : "unexpected argument");
		usage(stderr);
		return 2;
	}
	bcn_log_open("beacon-logsrv", cfg.log_dest, cfg.log_level);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	rc = bcn_logsrv_run(&cfg, &stop_requested, &stats);
	if (rc) {
		BCN_ERR("cannot run: %s", bcn_strerror(rc));
		return 1;
	}
	BCN_NOTICE("stopped");
	bcn_log_close();
	return 0;
}
