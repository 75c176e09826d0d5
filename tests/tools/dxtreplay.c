/* Replays an operation list exported from a Darshan DXT trace
 * (tests/tools/dxt_export.py, tests/data/dxt) as real pread/pwrite calls,
 * so that the tracer sees the trace's access pattern: each file of the
 * list is DIR/f<N>, created and sized beforehand; reads and writes go to
 * their offsets with their lengths, in the list's order. Only the rows of
 * one rank are replayed (--rank, default 0). With --speed S the calls keep
 * the trace's timing, S times faster; without it they follow each other
 * at once. Files are opened at their first operation and closed at the
 * end, as a program would. With --shared 1 several ranks may replay at
 * once into the same DIR (one process each): files are sized to the end
 * of the last access of any rank and never truncated, and the timing
 * counts from the list's first operation of any rank.
 *
 * usage: dxtreplay [--rank R] [--speed S] [--shared 1] LIST DIR
 * Prints "ops N" (calls made) on stdout; exits 1 on any error. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILES_MAX 65536
#define LEN_MAX (64u << 20)             /* longest operation replayed */
#define LINE_MAX_ 512

struct op {
	unsigned file;
	char rw;
	uint64_t off, len;
	int64_t start;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Parses the list's rows of rank into *ops (grown), *n of them; size[f]
 * becomes the end of the last access to file f by any rank, *first the
 * earliest start of any rank. */
static int load(const char *path, unsigned rank, struct op **ops, size_t *n,
		uint64_t *size, int64_t *first)
{
	char line[LINE_MAX_];
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	int lineno = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned r, file;
		char rw;
		uint64_t off, len;
		int64_t start, end;

		if (++lineno == 1)
			continue;       /* the header */
		if (sscanf(line, "%u %u %c %" SCNu64 " %" SCNu64 " %" SCNd64
			   " %" SCNd64, &r, &file, &rw, &off, &len, &start,
			   &end) != 7 || (rw != 'R' && rw != 'W') ||
		    file >= FILES_MAX || len > LEN_MAX) {
			fprintf(stderr, "%s:%d: bad row\n", path, lineno);
			fclose(f);
			return -1;
		}
		if (off + len > size[file])
			size[file] = off + len;
		if (lineno == 2 || start < *first)
			*first = start;
		if (r != rank)
			continue;
		if (*n == cap) {
			struct op *v;

			cap = cap ? 2 * cap : 4096;
			v = realloc(*ops, cap * sizeof(*v));
			if (!v) {
				fclose(f);
				return -1;
			}
			*ops = v;
		}
		(*ops)[(*n)++] = (struct op){ file, rw, off, len, start };
	}
	fclose(f);
	return 0;
}

/* Creates DIR/f<N> for every file of ops, sized to size[N] (truncated
 * first unless shared). */
static int prepare(const char *dir, const struct op *ops, size_t n,
		   const uint64_t *size, int shared, int *fds)
{
	char p[4096];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		unsigned f = ops[i].file;
		int fd;

		if (fds[f] != -2)
			continue;
		snprintf(p, sizeof(p), "%s/f%u", dir, f);
		fd = open(p, O_RDWR | O_CREAT | (shared ? 0 : O_TRUNC) |
			  O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)size[f])) {
			perror(p);
			rc = -1;
		}
		if (fd >= 0)
			close(fd);
		fds[f] = -1;    /* made; opened at its first operation */
	}
	return rc;
}

int main(int argc, char **argv)
{
	unsigned rank = 0;
	double speed = 0;
	struct op *ops = NULL;
	size_t n = 0, done = 0;
	int *fds = NULL, i = 1, status = 1, shared = 0;
	char *buf = NULL, p[4096];
	uint64_t *size = NULL;
	int64_t t0, first = 0;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--rank"))
			rank = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--speed"))
			speed = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--shared"))
			shared = atoi(argv[i + 1]) != 0;
		else
			break;
	}
	if (argc - i != 2 || speed < 0) {
		fprintf(stderr, "usage: dxtreplay [--rank R] [--speed S] "
			"[--shared 1] LIST DIR\n");
		return 2;
	}
	fds = malloc(FILES_MAX * sizeof(*fds));
	buf = calloc(1, LEN_MAX);
	size = calloc(FILES_MAX, sizeof(*size));
	if (!fds || !buf || !size ||
	    load(argv[i], rank, &ops, &n, size, &first))
		goto out;
	for (size_t k = 0; k < FILES_MAX; k++)
		fds[k] = -2;    /* -2: unused, -1: made, not open */
	if (prepare(argv[i + 1], ops, n, size, shared, fds))
		goto out;
	t0 = now_ns();
	for (size_t k = 0; k < n; k++) {
		const struct op *o = &ops[k];
		ssize_t got;

		if (speed > 0) {
			int64_t due = t0 + (int64_t)((double)(o->start -
						     (shared ? first : ops[0].start)) /
						     speed);
			int64_t left = due - now_ns();

			if (left > 0) {
				struct timespec ts = { left / 1000000000ll,
						       left % 1000000000ll };
				nanosleep(&ts, NULL);
			}
		}
		if (fds[o->file] < 0) {
			snprintf(p, sizeof(p), "%s/f%u", argv[i + 1], o->file);
			fds[o->file] = open(p, O_RDWR | O_CLOEXEC);
			if (fds[o->file] < 0) {
				perror(p);
				goto out;
			}
		}
		got = o->rw == 'R' ?
			pread(fds[o->file], buf, o->len, (off_t)o->off) :
			pwrite(fds[o->file], buf, o->len, (off_t)o->off);
		if (got < 0) {
			fprintf(stderr, "operation %zu: %s\n", k, strerror(errno));
			goto out;
		}
		done++;
	}
	status = 0;
	printf("ops %zu\n", done);
out:
	for (size_t k = 0; fds && k < FILES_MAX; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	free(fds);
	free(buf);
	free(size);
	free(ops);
	return status;
}
