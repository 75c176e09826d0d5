/* Following a growing file like `tail -F`, one poll at a time, through a
 * fixed buffer of BCN_FOLLOW_CHUNK + line_max bytes (follow.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/runtime/follow.h"
#include "common/error.h"
#include "common/log.h"

#define DEFECT_LONG "line too long"
#define DEFECT_CUT "last line has no newline (file rotated or truncated)"

int bcn_follow_init(struct bcn_follow *f, const char *path, size_t line_max,
		    uint64_t poll_max)
{
	size_t n = strlen(path);

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (n == 0 || n >= sizeof(f->path) || line_max == 0 ||
	    line_max > BCN_FOLLOW_LINE_MAX_LIMIT)
		return -EINVAL;
	memcpy(f->path, path, n + 1);
	f->line_max = line_max;
	f->poll_max = poll_max ? poll_max : BCN_FOLLOW_POLL_MAX_DEF;
	f->buf = malloc(BCN_FOLLOW_CHUNK + line_max);
	if (!f->buf)
		return -ENOMEM;
	return 0;
}

void bcn_follow_free(struct bcn_follow *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	f->buf = NULL;
	f->fd = -1;
}

/* Hands one line to fn; too long lines are cut to line_max and marked. */
static void deliver(struct bcn_follow *f, const char *line, size_t len,
		    uint64_t offset, const char *defect, bcn_follow_line_fn *fn,
		    void *arg)
{
	struct bcn_follow_pos pos;

	if (len > f->line_max) {
		len = f->line_max;
		defect = DEFECT_LONG;
	}
	f->lineno++;
	f->lines++;
	if (f->rejected)
		return;
	pos.path = f->path;
	pos.lineno = f->lineno;
	pos.from_start = f->from_start;
	pos.offset = offset;
	pos.defect = defect;
	if (fn(arg, line, len, &pos) == BCN_FOLLOW_REJECT)
		f->rejected = true;
}

/* Splits buf[0, end) into lines; keeps a partial last line of at most
 * line_max bytes at the start of buf, or starts skipping a longer one. */
static void split(struct bcn_follow *f, size_t end, bcn_follow_line_fn *fn,
		  void *arg)
{
	size_t start = 0;
	char *nl;

	while (start < end &&
	       (nl = memchr(f->buf + start, '\n', end - start)) != NULL) {
		size_t len = (size_t)(nl - (f->buf + start));

		if (f->skipping)
			f->skipping = false;
		else
			deliver(f, f->buf + start, len, f->boff + start, NULL,
				fn, arg);
		start += len + 1;
	}
	if (f->skipping) {
		start = end;
	} else if (end - start > f->line_max) {
		deliver(f, f->buf + start, end - start, f->boff + start,
			DEFECT_LONG, fn, arg);
		f->skipping = true;
		start = end;
	}
	memmove(f->buf, f->buf + start, end - start);
	f->blen = end - start;
	f->boff += start;
}

/* Reads the open file up to its end or the poll's budget. Returns 0 at the
 * end of the file, 1 when the budget ran out, or -errno. */
static int drain(struct bcn_follow *f, uint64_t *budget,
		 bcn_follow_line_fn *fn, void *arg)
{
	struct stat st;
	ssize_t r;

	if (f->rejected) {
		/* ignore the content; keep the offset at the end so that a
		 * truncation is still seen */
		if (fstat(f->fd, &st) < 0)
			return -errno;
		if ((uint64_t)st.st_size > f->off &&
		    lseek(f->fd, st.st_size, SEEK_SET) >= 0)
			f->off = (uint64_t)st.st_size;
		f->blen = 0;
		f->boff = f->off;
		return 0;
	}
	for (;;) {
		if (*budget == 0)
			return 1;
		r = read(f->fd, f->buf + f->blen, BCN_FOLLOW_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		f->off += (uint64_t)r;
		f->bytes += (uint64_t)r;
		*budget = *budget > (uint64_t)r ? *budget - (uint64_t)r : 0;
		split(f, f->blen + (size_t)r, fn, arg);
	}
}

/* Reports the partial line of the current file, if any, and forgets it. */
static void drop_partial(struct bcn_follow *f, bcn_follow_line_fn *fn,
			 void *arg)
{
	if (f->blen > 0 && !f->skipping)
		deliver(f, f->buf, f->blen, f->boff, DEFECT_CUT, fn, arg);
	f->blen = 0;
	f->skipping = false;
}

/* Starts reading the open file at offset off. */
static int seek_to(struct bcn_follow *f, uint64_t off)
{
	if (lseek(f->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	f->off = off;
	f->boff = off;
	f->blen = 0;
	f->skipping = false;
	return 0;
}

/* At start-up: hands the first line of the existing file to fn (so that
 * its header is checked), then positions after its last complete line;
 * line numbers then count from there unless that is right after line 1. */
static int resume_at_end(struct bcn_follow *f, uint64_t size,
			 bcn_follow_line_fn *fn, void *arg)
{
	size_t want = f->line_max + 1, n1;
	uint64_t tail, pos;
	ssize_t r;
	char *nl;
	int rc;

	r = pread(f->fd, f->buf, size < want ? (size_t)size : want, 0);
	if (r < 0)
		return -errno;
	nl = memchr(f->buf, '\n', (size_t)r);
	if (!nl && size <= f->line_max)
		return 0;       /* only a partial first line: read it all */
	n1 = nl ? (size_t)(nl - f->buf) : (size_t)r;
	deliver(f, f->buf, n1, 0, NULL, fn, arg);
	tail = size < want ? size : want;
	r = pread(f->fd, f->buf, (size_t)tail, (off_t)(size - tail));
	if (r < 0)
		return -errno;
	nl = memrchr(f->buf, '\n', (size_t)r);
	pos = nl ? size - tail + (uint64_t)(nl - f->buf) + 1 : size;
	if (pos != (uint64_t)n1 + 1) {
		f->from_start = false;
		f->lineno = 0;
	}
	rc = seek_to(f, pos);
	if (rc)
		return rc;
	f->skipping = !nl;      /* inside a line too long to keep */
	return 0;
}

/* Opens path; at_end: follow from the end (start-up). Returns 0, 1 when
 * there is no file (yet), or -errno. */
static int open_file(struct bcn_follow *f, bool at_end, bcn_follow_line_fn *fn,
		     void *arg)
{
	struct stat st;
	int fd, rc;

	fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return 1;
		bcn_complain(&f->io_complaint, BCN_LOG_WARNING,
			     "request log %s: cannot open: %s", f->path,
			     bcn_strerror(rc));
		return rc;
	}
	rc = fstat(fd, &st) < 0 ? -errno : 0;
	if (!rc && !S_ISREG(st.st_mode))
		rc = -EINVAL;
	if (rc) {
		bcn_complain(&f->io_complaint, BCN_LOG_WARNING,
			     "request log %s: %s", f->path,
			     rc == -EINVAL ? "not a regular file" :
			     bcn_strerror(rc));
		close(fd);
		return rc;
	}
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->off = f->boff = 0;
	f->blen = 0;
	f->skipping = f->rejected = false;
	f->lineno = 0;
	f->from_start = true;
	f->opens++;
	BCN_INFO("request log %s: following from %s", f->path,
		 at_end && st.st_size > 0 ? "its end" : "its start");
	if (at_end && st.st_size > 0) {
		rc = resume_at_end(f, (uint64_t)st.st_size, fn, arg);
		if (rc) {
			bcn_complain(&f->io_complaint, BCN_LOG_WARNING,
				     "request log %s: %s", f->path,
				     bcn_strerror(rc));
			close(f->fd);
			f->fd = -1;
			return rc;
		}
	}
	bcn_complain_release(&f->io_complaint, BCN_LOG_NOTICE,
			     "request log %s: open", f->path);
	return 0;
}

/* After the open file was read to its end: switches to a new file at path
 * (rotation) or starts over after a truncation. Returns 0 or -errno. */
static int check_replaced(struct bcn_follow *f, bcn_follow_line_fn *fn,
			  void *arg)
{
	struct stat st;
	int rc;

	if (stat(f->path, &st) < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return 0;       /* renamed away, no new file yet */
		bcn_complain(&f->io_complaint, BCN_LOG_WARNING,
			     "request log %s: %s", f->path, bcn_strerror(rc));
		return rc;
	}
	if (st.st_dev != f->dev || st.st_ino != f->ino) {
		drop_partial(f, fn, arg);
		close(f->fd);
		f->fd = -1;
		f->rotations++;
		BCN_INFO("request log %s: replaced (rotation)", f->path);
		rc = open_file(f, false, fn, arg);
		return rc < 0 ? rc : 0;
	}
	if ((uint64_t)st.st_size < f->off) {
		drop_partial(f, fn, arg);
		rc = seek_to(f, 0);
		if (rc)
			return rc;
		f->truncations++;
		f->lineno = 0;
		f->from_start = true;
		f->rejected = false;
		BCN_INFO("request log %s: truncated, reading from its start",
			 f->path);
	}
	return 0;
}

int bcn_follow_poll(struct bcn_follow *f, bcn_follow_line_fn *fn, void *arg)
{
	uint64_t budget = f->poll_max;
	int rc = 0, r, round;

	if (f->fd < 0) {
		/* until a first open works or finds no file, an existing file
		 * is followed from its end */
		r = open_file(f, !f->polled, fn, arg);
		if (r < 0)
			rc = r;
		else
			f->polled = true;
	}
	/* a rotation or truncation starts a new file: drain it too */
	for (round = 0; round < 2 && f->fd >= 0; round++) {
		ino_t ino = f->ino;
		uint64_t truncs = f->truncations;

		r = drain(f, &budget, fn, arg);
		if (r < 0) {
			rc = r;
			bcn_complain(&f->io_complaint, BCN_LOG_WARNING,
				     "request log %s: read: %s", f->path,
				     bcn_strerror(r));
			break;
		}
		if (r > 0)
			break;          /* budget spent: more next poll */
		r = check_replaced(f, fn, arg);
		if (r < 0) {
			rc = r;
			break;
		}
		if (f->fd >= 0 && f->ino == ino && f->truncations == truncs)
			break;          /* same file, read to its end */
	}
	return rc;
}
