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
#include "sim/scale.h"
#include "sim/sim.h"

#define DUMP_MAX (1u << 20)
#define CONNECT_NS (120 * 1000000000LL) /* scale mode: time to connect */
#define DRAIN_NS (30 * 1000000000LL)    /* scale mode: time to drain */
#define STOP_DRAIN_NS (2 * 1000000000LL) /* the same once told to stop */
#define SLICE_NS 100000000LL            /* scale mode: stop checked */

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

/* One JSON line of the scale mode's counters; total: the ticks the run
 * simulates, warm-up included (0: until stopped). */
static void report(struct bcn_sim_scale *x, struct bcn_sim *s,
		   uint64_t late, uint64_t total, const char *what)
{
	struct bcn_sim_wire_stats st;

	bcn_sim_wire_stats(bcn_sim_scale_wire(x), &st);
	printf("{\"sim\":\"%s\",\"ticks\":%" PRIu64 ",\"ticks_total\":%"
	       PRIu64 ",\"late_ticks\":%"
	       PRIu64 ",\"collectors\":%zu,\"up\":%" PRIu64
	       ",\"submitted_frames\":%" PRIu64 ",\"submitted_records\":%"
	       PRIu64 ",\"submitted_bytes\":%" PRIu64 ",\"acked_frames\":%"
	       PRIu64 ",\"acked_records\":%" PRIu64 ",\"duplicates\":%"
	       PRIu64 ",\"rejected\":%" PRIu64 ",\"dropped_frames\":%"
	       PRIu64 ",\"dropped_records\":%" PRIu64 ",\"queued_frames\":%"
	       PRIu64 ",\"queued_bytes\":%" PRIu64 ",\"connects\":%" PRIu64
	       ",\"connect_failures\":%" PRIu64 ",\"disconnects\":%" PRIu64
	       ",\"resent\":%" PRIu64 ",\"ack_timeouts\":%" PRIu64
	       ",\"build_errors\":%" PRIu64 "}\n", what, bcn_sim_ticks(s),
	       total, late, bcn_sim_scale_collectors(x), st.up, st.submitted_frames,
	       st.submitted_records, st.submitted_bytes, st.acked_frames,
	       st.acked_records, st.duplicates, st.rejected,
	       st.dropped_frames, st.dropped_records, st.queued_frames,
	       st.queued_bytes, st.connects, st.connect_failures,
	       st.disconnects, st.resent, st.ack_timeouts,
	       bcn_sim_scale_build_errors(x));
	fflush(stdout);
}

/* Scale mode: connects every collector (at most CONNECT_NS), then each
 * tick at its end sends the tick's records; at the end, waits for the
 * acknowledgements (at most DRAIN_NS). Progress lines on stdout. */
/* Fast pace: pumps until every frame sent so far is acknowledged (or
 * dropped), so the next tick goes out as soon as the servers keep up. */
static int pump_acked(struct bcn_sim_wire *w)
{
	struct bcn_sim_wire_stats st;
	int rc;

	do {
		rc = bcn_sim_wire_pump(w, bcn_sim_wire_now() + 20000000LL);
		bcn_sim_wire_stats(w, &st);
	} while (!rc && !stop && st.queued_frames);
	return rc;
}

/* Waits for the last acknowledgements: at most DRAIN_NS, or
 * STOP_DRAIN_NS once told to stop (SIGTERM before or during the wait),
 * so that a stopped simulator exits promptly. Returns 0, -ETIMEDOUT or
 * the pump's errors. */
static int drain(struct bcn_sim_wire *w)
{
	int64_t now = bcn_sim_wire_now(), until = now + DRAIN_NS, end;
	bool cut = false;
	int rc;

	do {
		if (stop && !cut) {
			cut = true;
			if (now + STOP_DRAIN_NS < until)
				until = now + STOP_DRAIN_NS;
		}
		end = now + SLICE_NS < until ? now + SLICE_NS : until;
		rc = bcn_sim_wire_drain(w, end);
		now = bcn_sim_wire_now();
	} while (rc == -ETIMEDOUT && now < until);
	return rc;
}

static int run_scale(struct bcn_sim *s, const struct bcn_sim_conf *conf)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct bcn_sim_scale *x = NULL;
	struct bcn_sim_wire *w;
	struct bcn_sim_wire_stats st;
	int64_t tick = conf->tick_ms * 1000000LL, next, until, reported;
	/* an epoch given: history, sent as fast as it is acknowledged */
	bool fast = conf->epoch_s != 0;
	uint64_t ticks = conf->ticks ? conf->ticks : conf->until;
	uint64_t total = ticks ? conf->warmup + ticks : 0, late = 0;
	char err[256] = "";
	int rc;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	rc = bcn_sim_scale_new(s, &x, err, sizeof(err));
	if (rc) {
		BCN_ERR("sim: scale mode: %s", err[0] ? err : bcn_strerror(rc));
		return rc;
	}
	bcn_sim_truth_on(s, false);
	while (!stop && bcn_sim_ticks(s) < conf->warmup) {
		bcn_sim_tick(s);
		bcn_sim_scale_skip(x);
	}
	bcn_sim_truth_on(s, true);
	w = bcn_sim_scale_wire(x);
	until = bcn_sim_wire_now() + CONNECT_NS;
	do {
		rc = bcn_sim_wire_pump(w, bcn_sim_wire_now() + 100000000LL);
		bcn_sim_wire_stats(w, &st);
	} while (!rc && !stop && st.up < st.conns &&
		 bcn_sim_wire_now() < until);
	report(x, s, late, total, "connected");
	bcn_sim_rebase(s);
	next = reported = bcn_sim_wire_now();
	while (!rc && !stop &&
	       (!ticks || bcn_sim_ticks(s) < conf->warmup + ticks)) {
		if (fast) {
			rc = pump_acked(w);
		} else {
			next += tick;
			rc = bcn_sim_wire_pump(w, next);
		}
		if (rc || stop)
			break;
		if (!fast && bcn_sim_wire_now() > next + tick / 2)
			late++;
		bcn_sim_tick(s);
		rc = bcn_sim_scale_send(x);
		if (!rc && bcn_sim_scale_writes_jobs(x))
			rc = bcn_sim_write_jobs(s);
		if (bcn_sim_wire_now() - reported >=
		    conf->progress_every_ms * 1000000LL) {
			report(x, s, late, total, "progress");
			reported = bcn_sim_wire_now();
		}
	}
	if (!rc)
		rc = drain(w);
	if (rc == -ETIMEDOUT) {
		BCN_WARN("sim: frames still unacknowledged after %lld s",
			 (long long)((stop ? STOP_DRAIN_NS : DRAIN_NS) /
				     1000000000LL));
		rc = 0;
	}
	report(x, s, late, total, "done");
	bcn_sim_scale_free(x);
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
	rc = conf.scale ? 0 : bcn_sim_prepare(s);
	if (rc) {
		fprintf(stderr, "beacon-sim: %s: %s\n", conf.out,
			bcn_strerror(rc));
		bcn_sim_free(s);
		return 1;
	}
	if (conf.scale) {
		rc = run_scale(s, &conf);
	} else if (conf.until) {
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
