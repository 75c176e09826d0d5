/* Tests of collectors/forwarder/follow (tail -F over real files in a
 * temporary directory): a file that does not exist yet, resuming at the
 * end of an existing file, partial last lines, rotation by rename with
 * lines still going to the old file, truncation, too long lines, a
 * rejected file, a vanished file, a path that is not a regular file, and
 * the per-poll byte budget. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/runtime/follow.h"

#define GOT_MAX 64
#define LINE_MAX_TEST 32

struct got {
	char line[GOT_MAX][LINE_MAX_TEST + 1];
	struct bcn_follow_pos pos[GOT_MAX];
	int n;
	int reject_at;          /* reject the file at this line number */
};

static char dir[256], path[300], moved[300];

static int on_line(void *arg, const char *line, size_t len,
		   const struct bcn_follow_pos *pos)
{
	struct got *g = arg;

	assert_true(len <= LINE_MAX_TEST);
	if (g->n < GOT_MAX) {
		memcpy(g->line[g->n], line, len);
		g->line[g->n][len] = '\0';
		g->pos[g->n] = *pos;
		g->pos[g->n].path = NULL;
	}
	g->n++;
	if (g->reject_at && pos->from_start &&
	    pos->lineno == (uint64_t)g->reject_at)
		return BCN_FOLLOW_REJECT;
	return 0;
}

static void append(const char *p, const char *text)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/follow_test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/req.log", dir);
	snprintf(moved, sizeof(moved), "%s/req.log.1", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(moved);
	rmdir(path);
	rmdir(dir);
	return 0;
}

static void poll_ok(struct bcn_follow *f, struct got *g)
{
	assert_int_equal(bcn_follow_poll(f, on_line, g), 0);
}

static void expect(const struct got *g, int i, const char *line,
		   uint64_t lineno, bool from_start, const char *defect)
{
	assert_true(i < g->n);
	assert_string_equal(g->line[i], line);
	assert_int_equal(g->pos[i].lineno, lineno);
	assert_int_equal(g->pos[i].from_start, from_start);
	if (defect)
		assert_non_null(g->pos[i].defect);
	else
		assert_null(g->pos[i].defect);
}

/* Not there at the first poll: read from its start when it appears. */
static void test_appears_later(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0 };

	(void)state;
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	assert_false(bcn_follow_is_open(&f));
	append(path, "h\na\nb");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 2);
	expect(&g, 0, "h", 1, true, NULL);
	expect(&g, 1, "a", 2, true, NULL);
	assert_int_equal(g.pos[1].offset, 2);
	/* the partial line waits for its end */
	append(path, "c\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 3);
	expect(&g, 2, "bc", 3, true, NULL);
	assert_int_equal(g.pos[2].offset, 4);
	poll_ok(&f, &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(f.bytes, 7);
	bcn_follow_free(&f);
	unlink(path);
}

/* Existing at the first poll: line 1 for the header check, then what is
 * appended later, numbered from the resume point (after the last complete
 * line, so a line being written is read when it is complete). */
static void test_resume_at_end(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0 };

	(void)state;
	append(path, "h\nold1\nold2\npart");
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	assert_int_equal(g.n, 1);
	expect(&g, 0, "h", 1, true, NULL);
	append(path, "ial\nnew1\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 3);
	expect(&g, 1, "partial", 1, false, NULL);
	assert_int_equal(g.pos[1].offset, 12);
	expect(&g, 2, "new1", 2, false, NULL);
	assert_int_equal(g.pos[2].offset, 20);
	bcn_follow_free(&f);
	unlink(path);

	/* only the header so far: numbering stays absolute */
	g.n = 0;
	append(path, "h\n");
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	append(path, "x\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 2);
	expect(&g, 1, "x", 2, true, NULL);
	bcn_follow_free(&f);
	unlink(path);

	/* a partial first line only: read from the start */
	g.n = 0;
	append(path, "he");
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	assert_int_equal(g.n, 0);
	append(path, "ad\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 1);
	expect(&g, 0, "head", 1, true, NULL);
	bcn_follow_free(&f);
	unlink(path);
}

/* Rename, lines still appended to the old file before the new one is
 * created, a partial last line in the old file. */
static void test_rotation(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0 };

	(void)state;
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	append(path, "h\n1\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(rename(path, moved), 0);
	append(moved, "2\n");
	poll_ok(&f, &g);                /* renamed, no new file yet */
	assert_int_equal(g.n, 3);
	expect(&g, 2, "2", 3, true, NULL);
	append(moved, "3\ncut");
	append(path, "H\nA\n");
	poll_ok(&f, &g);
	assert_int_equal(f.rotations, 1);
	assert_int_equal(g.n, 7);
	expect(&g, 3, "3", 4, true, NULL);
	expect(&g, 4, "cut", 5, true, "defect");
	expect(&g, 5, "H", 1, true, NULL);
	expect(&g, 6, "A", 2, true, NULL);
	bcn_follow_free(&f);
	unlink(moved);
	unlink(path);
}

static void test_truncation(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0 };

	(void)state;
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	append(path, "h\nline one\nline two\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(truncate(path, 0), 0);
	append(path, "h2\nx\n");
	poll_ok(&f, &g);
	assert_int_equal(f.truncations, 1);
	assert_int_equal(g.n, 5);
	expect(&g, 3, "h2", 1, true, NULL);
	expect(&g, 4, "x", 2, true, NULL);
	bcn_follow_free(&f);
	unlink(path);
}

/* A line longer than line_max is reported once, cut, and its rest is
 * skipped, whether it arrives at once or in pieces. */
static void test_long_lines(void **state)
{
	char big[LINE_MAX_TEST * 3 + 2];
	struct bcn_follow f;
	struct got g = { .n = 0 };

	(void)state;
	memset(big, 'x', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	append(path, "h\n");
	append(path, big);
	append(path, "after\n");
	big[LINE_MAX_TEST + 5] = '\0';  /* no newline: a long partial */
	append(path, big);
	poll_ok(&f, &g);
	append(path, "yyyy\nend\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 5);
	expect(&g, 0, "h", 1, true, NULL);
	assert_int_equal(strlen(g.line[1]), LINE_MAX_TEST);
	expect(&g, 1, g.line[1], 2, true, "defect");
	expect(&g, 2, "after", 3, true, NULL);
	expect(&g, 3, g.line[3], 4, true, "defect");
	expect(&g, 4, "end", 5, true, NULL);
	/* the longest line that fits is a plain line */
	big[LINE_MAX_TEST] = '\n';
	big[LINE_MAX_TEST + 1] = '\0';
	append(path, big);
	poll_ok(&f, &g);
	assert_int_equal(g.n, 6);
	assert_null(g.pos[5].defect);
	bcn_follow_free(&f);
	unlink(path);
}

/* After a rejection the rest of the file is ignored until truncation. */
static void test_reject(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0, .reject_at = 1 };

	(void)state;
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	append(path, "bad header\na\nb\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 1);
	append(path, "c\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(truncate(path, 0), 0);
	g.reject_at = 0;
	append(path, "h\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 2);
	expect(&g, 1, "h", 1, true, NULL);
	bcn_follow_free(&f);
	unlink(path);
}

/* Deleted while open: what the writer still appends through its
 * descriptor is read; a new file at the path takes over. */
static void test_vanished(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0 };
	int fd;

	(void)state;
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	poll_ok(&f, &g);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "h\n", 2), 2);
	poll_ok(&f, &g);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(write(fd, "late\n", 5), 5);
	close(fd);
	poll_ok(&f, &g);
	assert_int_equal(g.n, 2);
	expect(&g, 1, "late", 2, true, NULL);
	append(path, "new\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 3);
	expect(&g, 2, "new", 1, true, NULL);
	bcn_follow_free(&f);
	unlink(path);
}

static void test_not_regular(void **state)
{
	struct bcn_follow f;
	struct got g = { .n = 0 };

	(void)state;
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 0), 0);
	assert_int_equal(bcn_follow_poll(&f, on_line, &g), -EINVAL);
	assert_false(bcn_follow_is_open(&f));
	assert_int_equal(rmdir(path), 0);
	append(path, "h\n");
	poll_ok(&f, &g);
	assert_int_equal(g.n, 1);
	bcn_follow_free(&f);
	unlink(path);
	assert_int_equal(bcn_follow_init(&f, "", LINE_MAX_TEST, 0), -EINVAL);
	assert_int_equal(bcn_follow_init(&f, path, 0, 0), -EINVAL);
}

/* A poll reads about poll_max bytes; the rest comes with later polls, and
 * a rotation waits until the old file is read to its end. */
static void test_budget(void **state)
{
	static char text[BCN_FOLLOW_CHUNK * 3];
	struct bcn_follow f;
	struct got g = { .n = 0 };
	size_t i;
	int polls;

	(void)state;
	for (i = 0; i + 1 < sizeof(text); i++)
		text[i] = i % 8 == 7 ? '\n' : 'a';
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = '\0';
	append(path, "h\n");
	assert_int_equal(bcn_follow_init(&f, path, LINE_MAX_TEST, 1), 0);
	poll_ok(&f, &g);
	append(path, text);
	assert_int_equal(rename(path, moved), 0);
	append(path, "next\n");
	for (polls = 0; polls < 10 && f.rotations == 0; polls++) {
		poll_ok(&f, &g);
		assert_true(f.bytes <= (uint64_t)(polls + 1) * BCN_FOLLOW_CHUNK);
	}
	assert_int_equal(polls, 4);
	assert_int_equal(f.rotations, 1);
	assert_int_equal(g.n, 1 + (int)(sizeof(text) / 8) + 1);
	assert_string_equal(g.line[GOT_MAX - 1], "aaaaaaa");
	bcn_follow_free(&f);
	unlink(moved);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appears_later),
		cmocka_unit_test(test_resume_at_end),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_vanished),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_budget),
	};

	bcn_log_set_level(BCN_LOG_ERR);
	return cmocka_run_group_tests(tests, setup, teardown);
}
