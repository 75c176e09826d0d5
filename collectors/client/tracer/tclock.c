/* The tracer's clock (tclock.h): anchoring and rate measurement. */
#include "collectors/client/tracer/tclock.h"

#include <string.h>

/* The rate of the interval from c's anchor to (tsc, ns), 32.32 ns per
 * tick; 0 when there is no anchor, either reading went back, or the rate
 * is implausible (a counter below 100 MHz or above 20 GHz). */
static uint64_t rate(const struct bcn_tclock *c, uint64_t tsc, int64_t ns)
{
	uint64_t dt, dn, m;

	if (!c->at || tsc <= c->at || ns <= c->at_ns)
		return 0;
	dt = tsc - c->at;
	dn = (uint64_t)(ns - c->at_ns);
	m = (uint64_t)(((unsigned __int128)dn << 32) / dt);
	/* 10 ns per tick (100 MHz) .. 0.05 (20 GHz) */
	if (m > (10ULL << 32) || m < (1ULL << 32) / 20)
		return 0;
	return m;
}

static bool agree(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return a && b && d <= a / 1000000 * BCN_TCLOCK_AGREE_PPM;
}

void bcn_tclock_anchor(struct bcn_tclock *c, uint64_t tsc, int64_t ns)
{
	uint64_t m;

	/* too short to measure: the old anchor stays */
	if (c->at && tsc > c->at && ns >= c->at_ns &&
	    ns - c->at_ns < BCN_TCLOCK_MIN_NS)
		return;
	m = rate(c, tsc, ns);
	c->gen++;
	__atomic_signal_fence(__ATOMIC_RELEASE);
	/* a rate is used only when the interval before gave the same */
	c->mult = agree(m, c->prev_mult) ? m : 0;
	c->prev_mult = m;
	c->measured = c->at ? ns - c->at_ns : 0;
	c->at = tsc;
	c->at_ns = ns;
	c->span = c->mult ? (uint64_t)(((unsigned __int128)
			BCN_TCLOCK_SPAN_NS << 32) / c->mult) : 0;
	__atomic_signal_fence(__ATOMIC_RELEASE);
	c->gen++;
}

bool bcn_tclock_usable(const char *clocksource, long len)
{
#if defined(__x86_64__)
	while (len > 0 && (clocksource[len - 1] == '\n' ||
			   clocksource[len - 1] == ' '))
		len--;
	return len == 3 && memcmp(clocksource, "tsc", 3) == 0;
#else
	(void)clocksource;
	(void)len;
	return false;
#endif
}
