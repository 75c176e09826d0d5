/* The traced program of bench/tracer_bench.sh's per-call measurements: a
 * tight loop of one kind of call on a file, timed inside the process (the
 * tracer's start and exit are left out). One JSON object on stdout:
 *
 *   openclose N FILE   N pairs of open(FILE, O_RDONLY) and close
 *   pread N FILE       N 4 KiB preads at random 4 KiB-aligned offsets of
 *                      FILE (its page-cache copy: read it once first)
 *
 * with the wall and CPU time of the loop in ns. Run it with and without
 * LD_PRELOAD=libbeacon_trace.so; the difference is the tracer's cost. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096

static int64_t ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int open_close(long n, const char *path)
{
	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	return 0;
}

static int preads(long n, const char *path)
{
	static char buf[BLOCK];
	uint64_t st = 88172645463325252ull, blocks;
	struct stat sb;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &sb) || sb.st_size < BLOCK) {
		fprintf(stderr, "%s: cannot open, or under 4 KiB\n", path);
		return 1;
	}
	blocks = (uint64_t)sb.st_size / BLOCK;
	for (long i = 0; i < n; i++) {
		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		if (pread(fd, buf, BLOCK, (off_t)((st % blocks) * BLOCK)) < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int64_t w0, c0, w1, c1;
	char *end;
	long n;
	int rc;

	if (argc != 4 || (strcmp(argv[1], "openclose") &&
			  strcmp(argv[1], "pread"))) {
		fprintf(stderr, "usage: tracer_loop_bench openclose|pread N "
			"FILE\n");
		return 2;
	}
	errno = 0;
	n = strtol(argv[2], &end, 10);
	if (errno || *end || n <= 0) {
		fprintf(stderr, "tracer_loop_bench: N must be a positive "
			"integer\n");
		return 2;
	}
	w0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	rc = argv[1][0] == 'o' ? open_close(n, argv[3]) : preads(n, argv[3]);
	c1 = ns(CLOCK_PROCESS_CPUTIME_ID);
	w1 = ns(CLOCK_MONOTONIC);
	if (rc)
		return 1;
	printf("{\"mode\": \"%s\", \"n\": %ld, \"wall_ns\": %" PRId64
	       ", \"cpu_ns\": %" PRId64 "}\n", argv[1], n, w1 - w0, c1 - c0);
	return 0;
}
