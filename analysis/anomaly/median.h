/* The median of an array of doubles, as numpy.median gives it (the mean
 * of the two middle values of an even count), by selection in place. */
#ifndef BCN_ANOMALY_MEDIAN_H
#define BCN_ANOMALY_MEDIAN_H

#include <stddef.h>

/* The median of v[0..n), whose order it changes; 0 when n is 0. NaNs
 * are not ordered: the caller keeps them out. */
double bcn_median(double *v, size_t n);

#endif
