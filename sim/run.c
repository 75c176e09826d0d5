/* beacon-sim's program (sim.h): the command line, and the two ways to
 * run: --until N (simulate N ticks at full speed, write, exit: for tests
 * and for generating a fixed state) or live (one tick per tick of wall
 * time, writing every tick, until SIGTERM or --ticks). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/config.h"
#include "common/error.h"
#include "common/log.h"
#include "sim/sim.h"

#define DUMP_MAX (1u << 20)

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: beacon-sim [--config FILE] [--seed N] "
		"[--truth FILE] [--KEY VALUE ...]\n"
		"Simulates a Lustre cluster and its Slurm jobs, and writes the "
		"files the beacon collectors read (docs/sim.md).\n\n");
	bcn_config_help(bcn_sim_options, out);
}

/* Parses argv into conf. Returns 0 to run, 1 when done (help, dump), or
 * 2 on a bad command line. */
static int parse(int argc, char **argv, struct bcn_sim_conf *conf)
{
	char err[BCN_CFG_ERR_MAX];
	struct bcn_buf b;
	int rc, argi;

	rc = bcn_config_getopt(bcn_sim_options, conf, argc, argv, &argi, err,
			       sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		usage(stdout);
		return 1;
	}
	if (rc < 0 || argi < argc) {
		fprintf(stderr, "beacon-sim: %s\n", rc < 0 ? err :
			"unexpected argument");
		return 2;
	}
	if (rc == BCN_CONFIG_DUMP) {
		bcn_buf_init(&b, DUMP_MAX);
		rc = bcn_config_dump(bcn_sim_options, conf, &b);
		if (!rc)
			fwrite(b.data, 1, b.len, stdout);
		bcn_buf_free(&b);
		return rc ? 2 : 1;
	}
	return 0;
}

static void sleep_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) ==
	       EINTR && !stop)
		;
}

static int run_live(struct bcn_sim *s, const struct bcn_sim_conf *conf)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct timespec next;
	int rc = 0;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop && (!conf->ticks || bcn_sim_ticks(s) < conf->ticks)) {
		bcn_sim_tick(s);
		rc = bcn_sim_write(s);
		if (rc)
			break;
		next.tv_nsec += (conf->tick_ms % 1000) * 1000000;
		next.tv_sec += conf->tick_ms / 1000 + next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		sleep_until(&next);
	}
	return rc;
}

int bcn_sim_main(int argc, char **argv)
{
	static struct bcn_sim_conf conf;
	struct bcn_sim *s = NULL;
	char err[256] = "";
	int rc;

	rc = parse(argc, argv, &conf);
	if (rc)
		return rc == 1 ? 0 : 2;
	rc = bcn_sim_new(&conf, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon-sim: %s\n", err[0] ? err :
			bcn_strerror(rc));
		return 2;
	}
	rc = bcn_sim_prepare(s);
	if (rc) {
		fprintf(stderr, "beacon-sim: %s: %s\n", conf.out,
			bcn_strerror(rc));
		bcn_sim_free(s);
		return 1;
	}
	if (conf.until) {
		while (bcn_sim_ticks(s) < conf.until)
			bcn_sim_tick(s);
		rc = bcn_sim_write(s);
	} else {
		rc = run_live(s, &conf);
	}
	bcn_sim_free(s);
	if (rc) {
		fprintf(stderr, "beacon-sim: %s\n", bcn_strerror(rc));
		return 1;
	}
	return 0;
}
