/* DBSCAN density clustering, label for label equal to scikit-learn's
 * sklearn.cluster.DBSCAN (euclidean metric) on finite double data, in
 * O(n) memory over a uniform grid index (docs/dbscan.md). */
#ifndef BCN_ANALYSIS_ANOMALY_DBSCAN_H
#define BCN_ANALYSIS_ANOMALY_DBSCAN_H

#include <stddef.h>
#include <stdint.h>

/* the largest dimension bcn_dbscan accepts (a query visits 3^dim cells) */
#define BCN_DBSCAN_DIM_MAX 4
/* the largest number of points bcn_dbscan accepts */
#define BCN_DBSCAN_N_MAX ((size_t)1 << 28)

/* Clusters the n points pts (row-major, n x dim doubles) with DBSCAN.
 * Point b is a neighbour of a when scikit-learn's KDTree.query_radius(a,
 * eps) returns it: when their reduced distance, the sum over the
 * dimensions in order of (a[j] - b[j])^2 in double, is at most eps * eps
 * (so a distance of exactly eps counts), and for a few pairs within some
 * ulps of it as that tree decides (docs/dbscan.md); a point is its own
 * neighbour. A core point has at least min_samples neighbours (0 and 1
 * make every point core). Clusters are the connected groups of core
 * points, numbered 0, 1, ... in the order of their lowest-index core
 * point; a non-core point next to a core point joins the lowest-numbered
 * such cluster, every other point is noise (-1). Writes labels[0..n-1]
 * and *nclusters. Returns 0; -EINVAL for NULL arguments (pts and labels
 * may be NULL when n is 0), dim outside 1..BCN_DBSCAN_DIM_MAX, n above
 * BCN_DBSCAN_N_MAX or eps not finite and positive; -EDOM for a NaN or
 * infinite coordinate; -ENOMEM. On error labels and *nclusters are left
 * unspecified. Memory O(n * dim), time about n times the neighbours in
 * the 3^dim cells of side eps around a point. */
int bcn_dbscan(const double *pts, size_t n, size_t dim, double eps,
	       size_t min_samples, int32_t *labels, size_t *nclusters);

#endif
