/* Reads a stream of frames from a file descriptor (a file written with
 * --output, or standard input), frame by frame in bounded memory, and
 * skips over damaged regions to the next frame, saying what it skipped. */
#ifndef BCN_FRAME_READER_H
#define BCN_FRAME_READER_H

#include <stdint.h>

#include "common/buf.h"
#include "proto/frame.h"

struct bcn_frame_reader {
	int fd;
	struct bcn_frame_limits lim;
	struct bcn_buf win;     /* bytes read but not yet consumed */
	size_t pos;             /* start of unconsumed bytes in win */
	uint64_t offset;        /* stream offset of win.data[pos] */
	int eof;
	uint64_t frames, bad_frames, skipped_bytes;
	size_t last_len;        /* length of the frame last opened, or 0 */
};

/* Prepares a reader over fd (not closed by the reader). */
void bcn_frame_reader_init(struct bcn_frame_reader *r, int fd,
			   const struct bcn_frame_limits *lim);
void bcn_frame_reader_free(struct bcn_frame_reader *r);

/* Opens the next frame of the stream into f. Returns 1 with a frame, 0 at
 * the end of the stream, or a negative code for a bad frame: then *at is
 * its stream offset, the reader has already moved past it (to the next
 * magic), and the caller may report the error and call again. An
 * incomplete frame at the end of the stream gives -BCN_ETRUNC once.
 * I/O errors are returned as -errno and end the stream. */
int bcn_frame_reader_next(struct bcn_frame_reader *r, struct bcn_frame *f,
			  uint64_t *at);

/* The bytes of the frame the last successful bcn_frame_reader_next() call
 * opened, as they were in the stream (to forward a frame unchanged). They
 * stay valid until the next call. Returns 0, or -EINVAL when there is no
 * such frame. */
int bcn_frame_reader_last(const struct bcn_frame_reader *r,
			  const uint8_t **p, size_t *len);

#endif
