/* Clocks: monotonic milliseconds for timeouts and backoff, and the real
 * time in nanoseconds for record timestamps. */
#ifndef BCN_CLOCK_H
#define BCN_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds of CLOCK_MONOTONIC: never jumps, for intervals only. */
static inline int64_t bcn_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Nanoseconds of CLOCK_MONOTONIC, for short durations. */
static inline int64_t bcn_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Nanoseconds since the Unix epoch (CLOCK_REALTIME). */
static inline int64_t bcn_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
