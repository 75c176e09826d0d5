/* exitstorm: many traced processes that exit at the same moment
 * (tests/integration/tracer_exit.sh). The parent forks NPROCS children;
 * each does OPS 512-byte pwrites at scattered offsets of its own file in
 * DIR (runs that do not fold: one record each), sleeping PAUSE_MS once
 * half-way so that its first records leave before the end, then waits
 * until every child is ready, and all leave with exit(0) at once, so
 * that their tracers' final datagrams meet a full socket together. It
 * prints one line per child, {"pid": P, "ops": OPS}, and fails if any
 * system call fails. With GO, once every child is ready it says "ready"
 * on stderr and waits (up to a minute) for the file GO to exist before it
 * lets them go.
 *
 * usage: exitstorm DIR NPROCS OPS PAUSE_MS [GO] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPROCS_MAX 1024
#define OPS_MAX 1000000
#define SIZE 512

static long arg(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "exitstorm: %s must be %ld..%ld\n", what, lo, hi);
		exit(2);
	}
	return v;
}

static int child(const char *dir, int i, long ops, long pause_ms, int ready,
		 int release)
{
	char path[4096], buf[SIZE], c;
	struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000 };
	unsigned seed = (unsigned)i * 2654435761u + 1;
	int fd;

	memset(buf, 'a' + i % 26, sizeof(buf));
	snprintf(path, sizeof(path), "%s/f%d", dir, i);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (long k = 0; k < ops; k++) {
		/* a distinct, non-strided offset each time */
		off_t off = (off_t)(rand_r(&seed) % 65536) * SIZE * 2 + k % 2;

		if (pwrite(fd, buf, SIZE, off) != SIZE)
			return 1;
		if (k == ops / 2 && pause_ms)
			nanosleep(&ts, NULL);
	}
	if (close(fd))
		return 1;
	if (write(ready, "r", 1) != 1)
		return 1;
	/* blocks until the parent closes its end: everyone leaves at once */
	while (read(release, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

int main(int argc, char **argv)
{
	int rp[2], lp[2], st, bad = 0;
	long n, ops, pause_ms;
	pid_t pids[NPROCS_MAX];
	char c;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: exitstorm DIR NPROCS OPS PAUSE_MS "
			"[GO]\n");
		return 2;
	}
	n = arg(argv[2], 1, NPROCS_MAX, "NPROCS");
	ops = arg(argv[3], 1, OPS_MAX, "OPS");
	pause_ms = arg(argv[4], 0, 10000, "PAUSE_MS");
	if (pipe(rp) || pipe(lp)) {
		perror("exitstorm: pipe");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("exitstorm: fork");
			return 1;
		}
		if (pids[i] == 0) {
			close(rp[0]);
			close(lp[1]);
			exit(child(argv[1], (int)i, ops, pause_ms, rp[1], lp[0]));
		}
	}
	close(rp[1]);
	close(lp[0]);
	for (long i = 0; i < n; i++)
		if (read(rp[0], &c, 1) != 1) {
			fprintf(stderr, "exitstorm: a child failed\n");
			bad = 1;
			break;
		}
	if (argc == 6) {
		struct timespec tick = { 0, 10000000 };

		fprintf(stderr, "ready\n");
		for (int k = 0; k < 6000 && access(argv[5], F_OK); k++)
			nanosleep(&tick, NULL);
	}
	close(lp[1]);                   /* go */
	for (long i = 0; i < n; i++) {
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "exitstorm: child %ld failed\n", i);
			bad = 1;
		}
		printf("{\"pid\": %ld, \"ops\": %ld}\n", (long)pids[i], ops);
	}
	return bad;
}
