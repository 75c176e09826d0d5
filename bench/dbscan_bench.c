/* bcn_dbscan on points from a file, for bench/dbscan_bench.sh.
 * usage: dbscan_bench POINTS LABELS EPS MIN_SAMPLES [REPEAT]
 * POINTS: u64 n, u64 dim, then n x dim doubles (native byte order);
 * LABELS: n int32 written. Prints one JSON object: the best time of
 * REPEAT runs (default 1), the clusters, and the peak resident memory of
 * the process before and after the runs (input loaded: the growth is
 * bcn_dbscan's). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/anomaly/dbscan.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* VmHWM: unlike ru_maxrss, not inherited across execve from the parent */
static long peak_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static double *load(const char *path, uint64_t *n, uint64_t *dim)
{
	FILE *f = fopen(path, "rb");
	double *pts = NULL;

	if (!f)
		return NULL;
	if (fread(n, sizeof(*n), 1, f) == 1 && fread(dim, sizeof(*dim), 1, f) == 1 &&
	    *n <= BCN_DBSCAN_N_MAX && *dim >= 1 && *dim <= BCN_DBSCAN_DIM_MAX) {
		pts = malloc((size_t)(*n * *dim + 1) * sizeof(*pts));
		if (pts && fread(pts, sizeof(*pts), *n * *dim, f) != *n * *dim) {
			free(pts);
			pts = NULL;
		}
	}
	fclose(f);
	return pts;
}

int main(int argc, char **argv)
{
	uint64_t n = 0, dim = 0;
	size_t ncl = 0;
	double best = 1e300;
	int32_t *labels = NULL;
	double *pts = NULL;
	int rc = 1;

	if (argc < 5) {
		fprintf(stderr, "usage: dbscan_bench POINTS LABELS EPS MIN_SAMPLES [REPEAT]\n");
		return 2;
	}
	double eps = strtod(argv[3], NULL);
	size_t min = strtoull(argv[4], NULL, 10);
	char *end = NULL;
	long repeat = argc > 5 ? strtol(argv[5], &end, 10) : 1;

	if (argc > 5 && (*end || repeat < 1 || repeat > 1000)) {
		fprintf(stderr, "dbscan_bench: REPEAT is 1..1000\n");
		return 2;
	}
	pts = load(argv[1], &n, &dim);
	labels = malloc((size_t)(n + 1) * sizeof(*labels));
	if (!pts || !labels) {
		fprintf(stderr, "dbscan_bench: cannot load %s\n", argv[1]);
		goto out;
	}
	memset(labels, 0, (size_t)n * sizeof(*labels));
	long before = peak_kb();
	for (int r = 0; r < (repeat > 0 ? repeat : 1); r++) {
		double t0 = now();
		int e = bcn_dbscan(pts, (size_t)n, (size_t)dim, eps, min, labels, &ncl);
		double t = now() - t0;
		if (e) {
			fprintf(stderr, "dbscan_bench: bcn_dbscan: %s\n", strerror(-e));
			goto out;
		}
		best = t < best ? t : best;
	}
	long after = peak_kb();
	FILE *f = fopen(argv[2], "wb");
	if (!f || fwrite(labels, sizeof(*labels), (size_t)n, f) != n) {
		fprintf(stderr, "dbscan_bench: cannot write %s\n", argv[2]);
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	printf("{\"n\":%llu,\"dim\":%llu,\"c_s\":%.6f,\"clusters\":%zu,"
	       "\"c_peak_kb\":%ld,\"c_input_kb\":%ld,\"c_dbscan_kb\":%ld}\n",
	       (unsigned long long)n, (unsigned long long)dim, best, ncl, after,
	       before, after - before);
	rc = 0;
out:
	free(pts);
	free(labels);
	return rc;
}
