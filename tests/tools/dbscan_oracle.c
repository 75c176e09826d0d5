/* bcn_dbscan on cases read from stdin, for tests/integration/
 * dbscan_sklearn.sh. Input: the number of cases, then per case
 * "n dim eps min_samples" and n * dim coordinates (any white space,
 * strtod syntax). Output: per case one line "rc nclusters label...". */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/dbscan.h"

static char *slurp(FILE *f)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);

	while (buf) {
		len += fread(buf + len, 1, cap - len - 1, f);
		if (len < cap - 1)
			break;
		char *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			return NULL;
		}
		buf = nb;
		cap *= 2;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static int next_size(char **p, size_t *v)
{
	char *end;

	errno = 0;
	unsigned long long x = strtoull(*p, &end, 10);
	if (end == *p || errno)
		return -1;
	*p = end;
	*v = (size_t)x;
	return 0;
}

static int next_double(char **p, double *v)
{
	char *end;

	*v = strtod(*p, &end);
	if (end == *p)
		return -1;
	*p = end;
	return 0;
}

static int one_case(char **p)
{
	size_t n, dim, min, ncl = 0;
	double eps;

	if (next_size(p, &n) || next_size(p, &dim) || next_double(p, &eps) ||
	    next_size(p, &min) || n > ((size_t)1 << 24) || dim > 16)
		return -1;
	double *pts = malloc((n * dim + 1) * sizeof(*pts));
	int32_t *lab = malloc((n + 1) * sizeof(*lab));
	int rc = -1;
	if (!pts || !lab)
		goto out;
	for (size_t i = 0; i < n * dim; i++)
		if (next_double(p, &pts[i]))
			goto out;
	int r = bcn_dbscan(pts, n, dim, eps, min, lab, &ncl);
	printf("%d %zu", r, ncl);
	for (size_t i = 0; !r && i < n; i++)
		printf(" %d", (int)lab[i]);
	putchar('\n');
	rc = 0;
out:
	free(pts);
	free(lab);
	return rc;
}

int main(void)
{
	char *buf = slurp(stdin), *p = buf;
	size_t ncases;
	int rc = 1;

	if (!buf || next_size(&p, &ncases))
		goto out;
	for (size_t c = 0; c < ncases; c++)
		if (one_case(&p)) {
			fprintf(stderr, "dbscan_oracle: bad input in case %zu\n", c);
			goto out;
		}
	rc = 0;
out:
	free(buf);
	return rc;
}
