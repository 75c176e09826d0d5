/* The median by Hoare's selection (median.h). */
#include <math.h>

#include "analysis/anomaly/median.h"

static void swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Rearranges v[0..n) so that v[k] is the k-th smallest, those before it
 * no larger and those after no smaller (Hoare's selection). */
static void select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double pivot;

		/* median of three as the pivot */
		if (v[mid] < v[lo])
			swap(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap(&v[hi], &v[mid]);
		pivot = v[mid];
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				swap(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

double bcn_median(double *v, size_t n)
{
	size_t k = n / 2;
	double r, below;

	if (!n)
		return 0;
	select_kth(v, n, k);
	r = v[k];
	if (!(n & 1)) {
		below = v[0];
		for (size_t i = 1; i < k; i++)
			below = v[i] > below ? v[i] : below;
		r = (below + r) / 2;
		if (isinf(r))
			r = below / 2 + v[k] / 2;
	}
	return r;
}
