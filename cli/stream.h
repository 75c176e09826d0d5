/* Walking the frame streams named on a command line (FILE or '-' for
 * standard input), shared by the subcommands that read them. */
#ifndef BCN_CLI_STREAM_H
#define BCN_CLI_STREAM_H

#include <stdint.h>

#include "proto/frame_reader.h"

/* Called for each frame opened (its records may be read from f); rd gives
 * its raw bytes (bcn_frame_reader_last), at its offset. Return 0 to go on, a negative
 * code to stop the walk with it. */
typedef int bcn_cli_frame_fn(void *arg, const struct bcn_frame_reader *rd,
			     struct bcn_frame *f, const char *path,
			     uint64_t at);

/* Opens path and calls fn for every frame in it. Damaged regions are
 * reported on stderr as "beacon CMD: PATH: offset N: what", counted in
 * *bad and skipped. Returns 0, fn's code (not reported here), or -errno
 * when the file cannot be opened or read (reported). */
int bcn_cli_each_frame(const char *cmd, const char *path,
		       bcn_cli_frame_fn *fn, void *arg, uint64_t *bad);

#endif
