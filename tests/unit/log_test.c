/* Unit tests of common/log: level names, filtering before argument
 * evaluation, message cleaning and truncation, the standard-error line
 * format, whole lines under concurrent writers, and complaint rate
 * limiting with a controlled clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

#define CAP_MAX 64
/* ISO-8601 UTC with milliseconds */
#define TS_RE "[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]" \
	"\\.[0-9]{3}Z"

struct capture {
	int n;
	int level[CAP_MAX];
	char msg[CAP_MAX][BCN_LOG_MSG_MAX];
};

static struct capture cap;

static void cap_sink(void *arg, int level, const char *msg)
{
	struct capture *c = arg;

	if (c->n >= CAP_MAX)
		return;
	c->level[c->n] = level;
	snprintf(c->msg[c->n], sizeof(c->msg[0]), "%s", msg);
	c->n++;
}

static int setup(void **state)
{
	memset(&cap, 0, sizeof(cap));
	bcn_log_set_sink(cap_sink, &cap);
	bcn_log_set_level(BCN_LOG_DEBUG);
	return 0;
}

static int teardown(void **state)
{
	bcn_log_set_sink(NULL, NULL);
	bcn_log_set_level(BCN_LOG_INFO);
	return 0;
}

static void test_level_parse(void **state)
{
	static const struct {
		const char *name;
		int rc, level;
	} cases[] = {
		{ "error", 0, BCN_LOG_ERR }, { "err", 0, BCN_LOG_ERR },
		{ "ERROR", 0, BCN_LOG_ERR }, { "warning", 0, BCN_LOG_WARNING },
		{ "warn", 0, BCN_LOG_WARNING }, { "notice", 0, BCN_LOG_NOTICE },
		{ "info", 0, BCN_LOG_INFO }, { "Info", 0, BCN_LOG_INFO },
		{ "debug", 0, BCN_LOG_DEBUG }, { "", -EINVAL, -1 },
		{ "infos", -EINVAL, -1 }, { "inf", -EINVAL, -1 },
		{ "3", -EINVAL, -1 },
	};
	size_t i;
	int level;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		level = -1;
		assert_int_equal(bcn_log_level_parse(cases[i].name, &level),
				 cases[i].rc);
		assert_int_equal(level, cases[i].level);
	}
	assert_int_equal(bcn_log_level_parse(NULL, &level), -EINVAL);
	for (i = 0; i < BCN_LOG_NLEVELS; i++) {
		assert_int_equal(bcn_log_level_parse(bcn_log_level_name((int)i),
						     &level), 0);
		assert_int_equal(level, (int)i);
	}
	assert_string_equal(bcn_log_level_name(99), "unknown");
	assert_null(bcn_log_level_names[BCN_LOG_NLEVELS]);
}

static void test_set_level(void **state)
{
	assert_int_equal(bcn_log_set_level(BCN_LOG_NOTICE), 0);
	assert_int_equal(bcn_log_get_level(), BCN_LOG_NOTICE);
	assert_int_equal(bcn_log_set_level(-1), -EINVAL);
	assert_int_equal(bcn_log_set_level(BCN_LOG_NLEVELS), -EINVAL);
	assert_int_equal(bcn_log_get_level(), BCN_LOG_NOTICE);
	assert_int_equal(bcn_log_open("x", 7, BCN_LOG_INFO), -EINVAL);
	assert_int_equal(bcn_log_open("x", BCN_LOG_DEST_STDERR, 9), -EINVAL);
	assert_int_equal(bcn_log_get_level(), BCN_LOG_NOTICE);
}

static int side_effects;

static int bump(void)
{
	return ++side_effects;
}

static void test_filtering(void **state)
{
	bcn_log_set_level(BCN_LOG_WARNING);
	side_effects = 0;
	BCN_DEBUG("debug %d", bump());
	BCN_INFO("info %d", bump());
	BCN_NOTICE("notice %d", bump());
	assert_int_equal(side_effects, 0);	/* arguments never evaluated */
	assert_int_equal(cap.n, 0);
	BCN_WARN("warn %d", bump());
	BCN_ERR("err %d", bump());
	BCN_LOG(BCN_LOG_ERR, "plain");
	assert_int_equal(side_effects, 2);
	assert_int_equal(cap.n, 3);
	assert_int_equal(cap.level[0], BCN_LOG_WARNING);
	assert_string_equal(cap.msg[0], "warn 1");
	assert_int_equal(cap.level[1], BCN_LOG_ERR);
	assert_string_equal(cap.msg[1], "err 2");
	assert_string_equal(cap.msg[2], "plain");

	bcn_log_set_level(BCN_LOG_DEBUG);
	BCN_DEBUG("now %s", "visible");
	assert_int_equal(cap.n, 4);
	assert_int_equal(cap.level[3], BCN_LOG_DEBUG);
	assert_string_equal(cap.msg[3], "now visible");
}

static void test_clean_and_truncate(void **state)
{
	char big[3 * BCN_LOG_MSG_MAX];
	size_t len;

	BCN_INFO("line one\nline\ttwo\x01\n\n");
	assert_string_equal(cap.msg[0], "line one?line\ttwo?");

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	BCN_INFO("%s", big);
	len = strlen(cap.msg[1]);
	assert_int_equal(len, BCN_LOG_MSG_MAX - 1);
	assert_string_equal(cap.msg[1] + len - 3, "...");
	assert_int_equal(cap.msg[1][len - 4], 'a');
}

/* Runs fn with standard error redirected to a temporary file and returns
 * the file's contents (malloc'ed). */
static char *capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/bcn_log_test_XXXXXX";
	char *text = NULL;
	int fd, saved;
	off_t size;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	fn();
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	size = lseek(fd, 0, SEEK_END);
	assert_true(size >= 0);
	text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(pread(fd, text, (size_t)size, 0), size);
	close(fd);
	return text;
}

static void log_two_lines(void)
{
	bcn_log_set_sink(NULL, NULL);
	assert_int_equal(bcn_log_open("/usr/sbin/beacon-ostd",
				      BCN_LOG_DEST_STDERR, BCN_LOG_INFO), 0);
	BCN_WARN("disk %s at %d%%", "sda", 97);
	BCN_DEBUG("not shown");
	BCN_ERR("done\n");
}

static void test_stderr_format(void **state)
{
	char *text = capture_stderr(log_two_lines);
	regex_t re;

	assert_int_equal(regcomp(&re,
		"^" TS_RE " beacon-ostd\\[[0-9]+\\] warning: disk sda at 97%\n"
		TS_RE " beacon-ostd\\[[0-9]+\\] error: done\n$",
		REG_EXTENDED), 0);
	if (regexec(&re, text, 0, NULL, 0) != 0)
		fail_msg("unexpected stderr output:\n%s", text);
	regfree(&re);
	free(text);
}

#define THREADS 4
#define PER_THREAD 300

static void *log_worker(void *arg)
{
	int i, id = (int)(intptr_t)arg;

	for (i = 0; i < PER_THREAD; i++)
		BCN_INFO("thread %d message %d %s", id, i,
			 "padding padding padding padding padding padding");
	return NULL;
}

static void log_threads(void)
{
	pthread_t t[THREADS];
	int i;

	bcn_log_set_sink(NULL, NULL);
	bcn_log_open("mt", BCN_LOG_DEST_STDERR, BCN_LOG_INFO);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, log_worker,
						(void *)(intptr_t)i), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

static void test_threads_whole_lines(void **state)
{
	char *text = capture_stderr(log_threads), *line, *eol;
	int seen[THREADS] = { 0 }, lines = 0, id, n;
	regex_t re;

	assert_int_equal(regcomp(&re,
		"^" TS_RE " mt\\[[0-9]+\\] info: thread [0-9] message "
		"[0-9]+ padding padding padding padding padding padding$",
		REG_EXTENDED), 0);
	for (line = text; *line; line = eol + 1) {
		eol = strchr(line, '\n');
		assert_non_null(eol);	/* every message ends its line */
		*eol = '\0';
		if (regexec(&re, line, 0, NULL, 0) != 0)
			fail_msg("garbled line: %s", line);
		assert_int_equal(sscanf(strstr(line, "thread "),
					"thread %d message %d", &id, &n), 2);
		assert_int_equal(n, seen[id]);	/* in order per thread */
		seen[id]++;
		lines++;
	}
	assert_int_equal(lines, THREADS * PER_THREAD);
	regfree(&re);
	free(text);
}

static void test_complain(void **state)
{
	struct bcn_complain c = BCN_COMPLAIN_INIT;

	bcn_complain_at(&c, 10000, BCN_LOG_ERR, "connect failed: %s", "refused");
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.msg[0], "connect failed: refused");
	assert_int_equal(cap.level[0], BCN_LOG_ERR);

	bcn_complain_at(&c, 10500, BCN_LOG_ERR, "connect failed: x");
	bcn_complain_at(&c, 10999, BCN_LOG_ERR, "connect failed: x");
	assert_int_equal(cap.n, 1);
	bcn_complain_at(&c, 11000, BCN_LOG_ERR, "connect failed: %d", 2);
	assert_int_equal(cap.n, 2);
	assert_string_equal(cap.msg[1],
			    "connect failed: 2 (2 similar messages suppressed)");
	/* interval now 2 s */
	bcn_complain_at(&c, 12999, BCN_LOG_ERR, "again");
	assert_int_equal(cap.n, 2);
	bcn_complain_at(&c, 13000, BCN_LOG_ERR, "again");
	assert_int_equal(cap.n, 3);
	assert_string_equal(cap.msg[2], "again (1 similar message suppressed)");
	/* interval now 4 s: no suppressed suffix when nothing was dropped */
	bcn_complain_at(&c, 17000, BCN_LOG_ERR, "later");
	assert_int_equal(cap.n, 4);
	assert_string_equal(cap.msg[3], "later");
	assert_int_equal(c.interval_ms, 8000);

	bcn_complain_release(&c, BCN_LOG_NOTICE, "connected to %s", "srv");
	assert_int_equal(cap.n, 5);
	assert_int_equal(cap.level[4], BCN_LOG_NOTICE);
	assert_string_equal(cap.msg[4], "connected to srv");
	bcn_complain_release(&c, BCN_LOG_NOTICE, "connected again");
	assert_int_equal(cap.n, 5);	/* only once */

	/* a new failure is reported at once */
	bcn_complain_at(&c, 17001, BCN_LOG_ERR, "failed again");
	assert_int_equal(cap.n, 6);
	assert_int_equal(c.interval_ms, BCN_COMPLAIN_MIN_MS);
}

static void test_complain_cap_and_release_count(void **state)
{
	struct bcn_complain c = BCN_COMPLAIN_INIT;
	int64_t now = 0;
	int i;

	bcn_complain_at(&c, now, BCN_LOG_WARNING, "x");
	for (i = 0; i < 40; i++) {
		now += c.interval_ms;
		bcn_complain_at(&c, now, BCN_LOG_WARNING, "x");
		assert_true(c.interval_ms <= BCN_COMPLAIN_MAX_MS);
	}
	assert_int_equal(c.interval_ms, BCN_COMPLAIN_MAX_MS);
	assert_int_equal(cap.n, 41);
	bcn_complain_at(&c, now + 1, BCN_LOG_WARNING, "x");
	bcn_complain_at(&c, now + BCN_COMPLAIN_MAX_MS - 1, BCN_LOG_WARNING, "x");
	assert_int_equal(cap.n, 41);
	bcn_complain_release(&c, BCN_LOG_INFO, "ok");
	assert_string_equal(cap.msg[41], "ok (2 similar messages suppressed)");
	assert_int_equal(c.interval_ms, 0);
	assert_int_equal(c.suppressed, 0);
}

static void test_complain_filtered(void **state)
{
	struct bcn_complain c = BCN_COMPLAIN_INIT;

	bcn_log_set_level(BCN_LOG_ERR);
	bcn_complain_at(&c, 0, BCN_LOG_WARNING, "hidden");
	assert_int_equal(cap.n, 0);
	assert_int_equal(c.interval_ms, BCN_COMPLAIN_MIN_MS);	/* state kept */
	bcn_complain(&c, BCN_LOG_WARNING, "hidden too");	/* real clock */
	bcn_complain_release(&c, BCN_LOG_WARNING, "hidden release");
	assert_int_equal(cap.n, 0);
	assert_int_equal(c.interval_ms, 0);
	bcn_complain(&c, BCN_LOG_ERR, "shown");
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.msg[0], "shown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_level_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clean_and_truncate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stderr_format, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_threads_whole_lines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_complain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_complain_cap_and_release_count,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_complain_filtered, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
