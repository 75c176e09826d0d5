/* Frame stream reader with resynchronisation after damage. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "proto/frame_reader.h"

#define READ_CHUNK (256u << 10)

void bcn_frame_reader_init(struct bcn_frame_reader *r, int fd,
			   const struct bcn_frame_limits *lim)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->lim = *lim;
	bcn_buf_init(&r->win, (size_t)lim->max_body + BCN_FRAME_HDR_LEN +
		     READ_CHUNK);
}

void bcn_frame_reader_free(struct bcn_frame_reader *r)
{
	bcn_buf_free(&r->win);
}

/* Reads more bytes; returns bytes read, 0 at EOF, or -errno. */
static ssize_t fill(struct bcn_frame_reader *r)
{
	ssize_t n;
	int rc;

	if (r->pos > 0) {
		memmove(r->win.data, r->win.data + r->pos, r->win.len - r->pos);
		r->win.len -= r->pos;
		r->pos = 0;
	}
	rc = bcn_buf_reserve(&r->win, READ_CHUNK);
	if (rc)
		return rc;
	do
		n = read(r->fd, r->win.data + r->win.len, READ_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	r->win.len += (size_t)n;
	if (n == 0)
		r->eof = 1;
	return n;
}

static void skip(struct bcn_frame_reader *r, size_t n)
{
	r->pos += n;
	r->offset += n;
}

int bcn_frame_reader_next(struct bcn_frame_reader *r, struct bcn_frame *f,
			  uint64_t *at)
{
	size_t used;
	ssize_t n;
	int rc;

	r->last_len = 0;
	for (;;) {
		const uint8_t *p = r->win.data + r->pos;
		size_t avail = r->win.len - r->pos;

		*at = r->offset;
		if (avail == 0 && r->eof)
			return 0;
		rc = avail ? bcn_frame_open(f, p, avail, &r->lim, &used)
			   : -BCN_ETRUNC;
		if (rc == 0) {
			skip(r, used);
			r->last_len = used;
			r->frames++;
			return 1;
		}
		if (rc == -BCN_ETRUNC && !r->eof) {
			n = fill(r);
			if (n < 0)
				return (int)n;
			continue;
		}
		if (rc == -ENOMEM)
			return rc;
		/* a bad frame, or a truncated one at the end: move on */
		used = rc == -BCN_ETRUNC ? avail : bcn_frame_resync(p, avail);
		r->bad_frames++;
		r->skipped_bytes += used;
		skip(r, used);
		return rc;
	}
}

int bcn_frame_reader_last(const struct bcn_frame_reader *r,
			  const uint8_t **p, size_t *len)
{
	if (r->last_len == 0 || r->pos < r->last_len)
		return -EINVAL;
	*p = r->win.data + r->pos - r->last_len;
	*len = r->last_len;
	return 0;
}
