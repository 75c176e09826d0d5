/* Wavelet benchmark, the C side of bench/dwt_bench.sh: times one
 * operation of analysis/anomaly/dwt.h on a signal read from a file of
 * native doubles, REPS times, prints the median in milliseconds
 * ({"c_ms":..}) and writes the last result to OUT (native doubles):
 *   roundtrip  bcn_wavedec then bcn_waverec, the maximum level, symmetric
 *   denoise    bcn_dwt_denoise, the maximum level, symmetric, soft, scale 1
 * usage: dwt_bench roundtrip|denoise WAVELET REPS IN OUT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/anomaly/dwt.h"

#define REPS_MAX 1000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Reads the doubles of path into a malloc'ed *x, their count in *n. */
static int load(const char *path, double **x, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long size;
	int rc = -EIO;

	*x = NULL;
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    (size_t)size % sizeof(double) || fseek(f, 0, SEEK_SET))
		goto out;
	*n = (size_t)size / sizeof(double);
	*x = malloc((*n + 1) * sizeof(double));
	if (!*x) {
		rc = -ENOMEM;
		goto out;
	}
	rc = fread(*x, sizeof(double), *n, f) == *n ? 0 : -EIO;
out:
	fclose(f);
	return rc;
}

/* One timed run of op over x[0..n) into out[0..n); 0 or an error. */
static int run(const char *op, int w, const double *x, size_t n, double *out)
{
	struct bcn_wavedec d;
	struct bcn_dwt_denoise_opts o;
	size_t len;
	int rc;

	if (!strcmp(op, "denoise")) {
		bcn_dwt_denoise_opts_defaults(&o);
		o.wavelet = w;
		return bcn_dwt_denoise(x, n, &o, out);
	}
	rc = bcn_wavedec(x, n, w, BCN_DWT_SYMMETRIC, 0, &d);
	if (!rc)
		rc = bcn_waverec(&d, out, n + 1, &len);
	bcn_wavedec_free(&d);
	return rc;
}

int main(int argc, char **argv)
{
	double *x = NULL, *out = NULL, ms[REPS_MAX];
	char *end;
	unsigned long reps;
	size_t n = 0;
	int w, rc = 1;
	FILE *f;

	if (argc != 6 || (strcmp(argv[1], "roundtrip") && strcmp(argv[1], "denoise")) ||
	    bcn_wavelet_parse(argv[2], &w)) {
		fprintf(stderr, "usage: dwt_bench roundtrip|denoise WAVELET REPS IN OUT\n");
		return 2;
	}
	errno = 0;
	reps = strtoul(argv[3], &end, 10);
	if (errno || *end || !reps || reps > REPS_MAX) {
		fprintf(stderr, "dwt_bench: REPS must be 1..%d\n", REPS_MAX);
		return 2;
	}
	if (load(argv[4], &x, &n) || !n || !(out = malloc((n + 1) * sizeof(double)))) {
		fprintf(stderr, "dwt_bench: cannot read %s\n", argv[4]);
		goto out;
	}
	for (unsigned long i = 0; i < reps; i++) {
		double t0 = now_ms();
		int err = run(argv[1], w, x, n, out);

		ms[i] = now_ms() - t0;
		if (err) {
			fprintf(stderr, "dwt_bench: %s: error %d\n", argv[1], err);
			goto out;
		}
	}
	qsort(ms, reps, sizeof(*ms), cmp_double);
	f = fopen(argv[5], "wb");
	if (!f || fwrite(out, sizeof(double), n, f) != n || fclose(f)) {
		fprintf(stderr, "dwt_bench: cannot write %s\n", argv[5]);
		goto out;
	}
	printf("{\"c_ms\":%.4f}\n", ms[reps / 2]);
	rc = 0;
out:
	free(x);
	free(out);
	return rc;
}
