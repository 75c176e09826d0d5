/* The traced program of bench/tracer_bench.sh's per-call measurements: a
 * tight loop of one kind of call on a file, timed inside the process (the
 * tracer's start and exit are left out). One JSON object on stdout:
 *
 *   openclose N FILE   N pairs of open(FILE, O_RDONLY) and close
 *   openclose-ab N FILE  the same N pairs in blocks of AB_BLOCK, every
 *                      other block through the system calls themselves
 *                      (syscall(2): never traced) instead of the C
 *                      library's open and close (traced under the
 *                      tracer): ns per pair each way, and the median
 *                      over block pairs of their difference; in one
 *                      process the comparison does not see the drift
 *                      and layout changes between processes
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define AB_BLOCK 1000                   /* pairs per block, openclose-ab */
#define AB_BLOCKS_MAX 100000

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

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* One block of AB_BLOCK pairs, through the C library or syscall(2);
 * its wall time in ns, or -1. */
static int64_t ab_block(const char *path, int direct)
{
	int64_t t0 = ns(CLOCK_MONOTONIC);

	for (int i = 0; i < AB_BLOCK; i++) {
		int fd = direct ? (int)syscall(SYS_openat, AT_FDCWD, path,
					       O_RDONLY) :
			 open(path, O_RDONLY);

		if (fd < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return -1;
		}
		if (direct)
			syscall(SYS_close, fd);
		else
			close(fd);
	}
	return ns(CLOCK_MONOTONIC) - t0;
}

/* openclose-ab: prints its own JSON line; returns 0 or 1. */
static int open_close_ab(long n, const char *path)
{
	long blocks = n / AB_BLOCK / 2, i;
	int64_t *diff, sum[2] = { 0, 0 }, d, l;

	if (blocks < 1 || blocks > AB_BLOCKS_MAX) {
		fprintf(stderr, "openclose-ab: N from %d to %d\n",
			2 * AB_BLOCK, 2 * AB_BLOCK * AB_BLOCKS_MAX);
		return 1;
	}
	diff = malloc((size_t)blocks * sizeof(*diff));
	if (!diff)
		return 1;
	for (i = 0; i < blocks; i++) {
		/* the order alternates too: neither side always goes first */
		int first = (int)(i & 1);
		int64_t a = ab_block(path, first), b = ab_block(path, !first);

		if (a < 0 || b < 0) {
			free(diff);
			return 1;
		}
		d = first ? a : b;      /* direct */
		l = first ? b : a;      /* the C library's */
		sum[0] += d;
		sum[1] += l;
		diff[i] = l - d;
	}
	qsort(diff, (size_t)blocks, sizeof(*diff), cmp_i64);
	printf("{\"mode\": \"openclose-ab\", \"n\": %ld, "
	       "\"direct_ns_per_pair\": %.1f, \"libc_ns_per_pair\": %.1f, "
	       "\"added_ns_per_pair\": %.1f, \"added_q1\": %.1f, "
	       "\"added_q3\": %.1f}\n", 2 * blocks * AB_BLOCK,
	       (double)sum[0] / (double)(blocks * AB_BLOCK),
	       (double)sum[1] / (double)(blocks * AB_BLOCK),
	       (double)diff[blocks / 2] / AB_BLOCK,
	       (double)diff[blocks / 4] / AB_BLOCK,
	       (double)diff[(3 * blocks) / 4] / AB_BLOCK);
	free(diff);
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
			  strcmp(argv[1], "openclose-ab") &&
			  strcmp(argv[1], "pread"))) {
		fprintf(stderr, "usage: tracer_loop_bench "
			"openclose|openclose-ab|pread N FILE\n");
		return 2;
	}
	errno = 0;
	n = strtol(argv[2], &end, 10);
	if (errno || *end || n <= 0) {
		fprintf(stderr, "tracer_loop_bench: N must be a positive "
			"integer\n");
		return 2;
	}
	if (!strcmp(argv[1], "openclose-ab"))
		return open_close_ab(n, argv[3]);
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
