/* beacon top [--config FILE] [--window D] [--interval D] [--at T]
 * [--limit N] [--once] [--json]: the cluster's jobs by I/O bandwidth over
 * the last window (analysis/top.h), refreshed like top(1) until q, ^C or
 * SIGTERM; --once prints one view (--json: one JSON object) for scripts.
 * --at T shows the window ending at T (epoch seconds or ISO 8601)
 * instead of now. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stores.h"
#include "analysis/top.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "jobdb/jobdb.h"
#include "store/store.h"
#include "store/store_config.h"

#define TOP_ERR_MAX 512

struct top_conf {
	struct bcn_store_settings store;
	struct bcn_stores_config stores;
	struct bcn_jobdb_config db;
	int64_t window_ms, interval_ms;
	char at[BCN_TIMEFMT_IN_MAX + 1];
	uint64_t limit;
	bool once, json;
};

#define M(m) BCN_CFG_MEMBER(struct top_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_STORE_CONFIG_OPTIONS(struct top_conf, store),
	BCN_STORES_CONFIG_OPTIONS(struct top_conf, stores),
	BCN_JOBDB_CONFIG_OPTIONS(struct top_conf, db),
	{ "window", BCN_CFG_DURATION, M(window_ms), .min = 1000,
	  .max = 86400000, .def = "10s",
	  .help = "Bandwidth over this last stretch of time." },
	{ "interval", BCN_CFG_DURATION, M(interval_ms), .min = 200,
	  .max = 3600000, .def = "2s", .help = "Refresh interval." },
	{ "at", BCN_CFG_STRING, M(at),
	  .help = "The window ends at T (epoch seconds or ISO 8601), not now." },
	{ "limit", BCN_CFG_UINT, M(limit), .min = 1, .max = 100000,
	  .def = "1000", .help = "At most this many jobs." },
	{ "once", BCN_CFG_BOOL, M(once), .def = "no",
	  .help = "Print one view and exit." },
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "With --once: one JSON object." },
	{ .name = NULL }
};
#undef M

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int view(const struct top_conf *c, const struct bcn_stores *st,
		struct bcn_jobdb *db, int64_t end, bool screen)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 160 };
	int64_t w = c->window_ms * 1000000;
	struct bcn_top *t = NULL;
	struct bcn_buf out;
	int rc;

	bcn_buf_init(&out, 64u << 20);
	rc = bcn_top_compute(st, db, end - w, end, c->limit, &t);
	if (!rc && screen) {
		(void)ioctl(1, TIOCGWINSZ, &ws);
		rc = bcn_buf_adds(&out, "\033[H\033[2J");
	}
	if (!rc)
		rc = c->json ? bcn_top_to_json(t, &out) :
		     bcn_top_to_text(t, screen && ws.ws_row > 4 ? ws.ws_row - 4u :
				     (size_t)c->limit, ws.ws_col, &out);
	if (!rc && c->json)
		rc = bcn_buf_adds(&out, "\n");
	if (!rc && (fwrite(out.data, 1, out.len, stdout) != out.len ||
		    fflush(stdout)))
		rc = -EIO;
	bcn_top_free(t);
	bcn_buf_free(&out);
	return rc;
}

/* Waits the interval; true when the user typed q. */
static bool wait_key(int64_t ms)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	char ch;

	if (poll(&p, 1, (int)ms) == 1 && read(0, &ch, 1) == 1)
		return ch == 'q' || ch == 'Q';
	return false;
}

static int run(const struct top_conf *c, int64_t at)
{
	struct bcn_store_config sc = c->store.cfg;
	struct bcn_stores st = { .n = 0 };
	struct bcn_jobdb *db = NULL;
	struct termios old, raw;
	bool tty = isatty(0) && isatty(1) && !c->once;
	char err[TOP_ERR_MAX];
	int rc;

	sc.existing = true;
	rc = bcn_jobdb_open(&c->db, &db, err, sizeof(err));
	if (!rc)
		rc = bcn_stores_open(&sc, &c->stores, &st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon top: %s\n", err);
		goto out;
	}
	if (tty && !tcgetattr(0, &old)) {
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(0, TCSANOW, &raw);
	}
	do {
		int64_t end = at ? at : now_ns();

		rc = view(c, &st, db, end, !c->once);
		if (rc)
			fprintf(stderr, "beacon top: %s\n", rc == -EIO ?
				bcn_jobdb_error(db) : bcn_strerror(rc));
	} while (!rc && !c->once && !stop && !wait_key(c->interval_ms));
	if (tty)
		tcsetattr(0, TCSANOW, &old);
out:
	bcn_stores_close(&st);
	if (db)
		bcn_jobdb_close(db);
	return rc ? 1 : 0;
}

int bcn_cmd_top(int argc, char **argv)
{
	static struct top_conf c;
	struct sigaction sa;
	char err[TOP_ERR_MAX];
	int64_t at = 0;
	int rc, argi;

	memset(&c, 0, sizeof(c));
	rc = bcn_cli_configure(tab, &c, "store_,analysis_,jobdb_", argc, argv, &argi,
			       err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		printf("usage: beacon top [--config FILE] [--window D] "
		       "[--interval D] [--at T] [--once [--json]]\nThe jobs "
		       "doing I/O now, busiest first (q quits).\n\n");
		bcn_config_help(tab, stdout);
		return 0;
	}
	if (!rc && argi < argc)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unexpected "
			      "argument '%s'", argv[argi]);
	if (!rc && c.at[0] && bcn_timefmt_parse(c.at, strlen(c.at), &at))
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "bad time '%s'",
			      c.at);
	if (!rc && c.json && !c.once)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX,
			      "--json needs --once");
	if (!rc)
		rc = bcn_store_settings_apply(&c.store, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon top: %s\n", err);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return run(&c, at);
}
