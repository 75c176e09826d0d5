/* Following a growing text file like `tail -F`, one poll at a time, with a
 * bounded buffer: lines appended since the last poll are handed to a
 * callback; renames (rotation), truncation, a file that does not exist
 * yet or disappears, and a partial last line are handled as documented in
 * docs/fwdlog.md ("How beacon-fwdd follows the log"). */
#ifndef BCN_FOLLOW_H
#define BCN_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/log.h"

#define BCN_FOLLOW_PATH_MAX 4096
#define BCN_FOLLOW_CHUNK (64 * 1024)            /* bytes per read() */
#define BCN_FOLLOW_LINE_MAX_LIMIT 65536         /* largest line_max */
#define BCN_FOLLOW_POLL_MAX_DEF (64u << 20)     /* bytes per poll */

/* Where a line came from. */
struct bcn_follow_pos {
	const char *path;
	uint64_t lineno;        /* 1-based; see from_start */
	bool from_start;        /* lineno counts from the start of the file;
				 * else from where following resumed */
	uint64_t offset;        /* byte offset of the line in the file */
	const char *defect;     /* NULL, or why the line is unusable: too
				 * long (the line holds its first line_max
				 * bytes) or cut by a rotation/truncation */
};

/* Called for each line (without its newline). Return 0, or
 * BCN_FOLLOW_REJECT to ignore the rest of this file until it is replaced
 * or truncated. */
typedef int bcn_follow_line_fn(void *arg, const char *line, size_t len,
			       const struct bcn_follow_pos *pos);
#define BCN_FOLLOW_REJECT 1

struct bcn_follow {
	char path[BCN_FOLLOW_PATH_MAX];
	size_t line_max;
	uint64_t poll_max;
	int fd;                 /* -1 while no file is open */
	dev_t dev;
	ino_t ino;
	uint64_t off;           /* bytes of the file read so far */
	char *buf;              /* BCN_FOLLOW_CHUNK + line_max bytes */
	size_t blen;            /* bytes of a partial line kept in buf */
	uint64_t boff;          /* its offset in the file */
	bool skipping;          /* discarding the rest of a long line */
	bool rejected;
	bool polled;            /* a first open worked or found no file:
				 * files opened from now on start at 0 */
	uint64_t lineno;
	bool from_start;
	/* statistics, since bcn_follow_init */
	uint64_t lines, bytes, rotations, truncations, opens;
	struct bcn_complain io_complaint;
};

/* Prepares f to follow path; lines longer than line_max (1..LINE_MAX_LIMIT)
 * bytes are reported as defects; a poll reads at most poll_max bytes
 * (0: BCN_FOLLOW_POLL_MAX_DEF). Opens nothing yet.
 * Returns 0, -EINVAL or -ENOMEM. */
int bcn_follow_init(struct bcn_follow *f, const char *path, size_t line_max,
		    uint64_t poll_max);
void bcn_follow_free(struct bcn_follow *f);

/* Reads what was appended since the last poll and calls fn for each
 * complete line; then, once the open file is read to its end, checks
 * whether path now names another file (rotation: the old file's last
 * partial line is reported as a defect, the new file is read from its
 * start) or the file shrank (truncation: read again from offset 0). At
 * the first poll an existing file is followed from its end (after its
 * first line is handed to fn, so that a header can be checked); a file
 * that appears later is read from its start. Failures to open or read are
 * logged as rate-limited complaints. Returns 0, or the last negative
 * errno-style code of this poll (the poll went on past it). */
int bcn_follow_poll(struct bcn_follow *f, bcn_follow_line_fn *fn, void *arg);

/* Whether a file is open. */
static inline bool bcn_follow_is_open(const struct bcn_follow *f)
{
	return f->fd >= 0;
}

#endif
