/* Frame stream walking for the beacon subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/stream.h"
#include "common/error.h"

static int walk(const char *cmd, int fd, const char *path,
		bcn_cli_frame_fn *fn, void *arg, uint64_t *bad)
{
	struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_reader rd;
	struct bcn_frame f;
	uint64_t at;
	int rc;

	bcn_frame_reader_init(&rd, fd, &lim);
	bcn_frame_init(&f);
	while ((rc = bcn_frame_reader_next(&rd, &f, &at)) != 0) {
		if (rc == 1) {
			rc = fn(arg, &rd, &f, path, at);
			if (rc)
				break;
			continue;
		}
		if (rc > -BCN_ERR_BASE) {       /* -errno: reading failed */
			fprintf(stderr, "beacon %s: %s: %s\n", cmd, path,
				bcn_strerror(rc));
			break;
		}
		fprintf(stderr, "beacon %s: %s: offset %" PRIu64 ": %s\n", cmd,
			path, at, bcn_strerror(rc));
		(*bad)++;
		rc = 0;
	}
	if (rd.skipped_bytes)
		fprintf(stderr, "beacon %s: %s: skipped %" PRIu64
			" damaged bytes\n", cmd, path, rd.skipped_bytes);
	bcn_frame_free(&f);
	bcn_frame_reader_free(&rd);
	return rc;
}

int bcn_cli_each_frame(const char *cmd, const char *path,
		       bcn_cli_frame_fn *fn, void *arg, uint64_t *bad)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	int rc;

	if (fd < 0) {
		rc = -errno;
		fprintf(stderr, "beacon %s: %s: %s\n", cmd, path, strerror(errno));
		return rc;
	}
	rc = walk(cmd, fd, path, fn, arg, bad);
	if (fd > 0)
		close(fd);
	return rc;
}
