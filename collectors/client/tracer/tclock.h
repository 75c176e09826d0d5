/* The tracer's clock: wall-clock nanoseconds from the CPU's time-stamp
 * counter, for the two timestamps of every traced call. The vDSO's
 * clock_gettime costs about 34 ns on the machines we measured against 12
 * for reading the counter, and an open+close pair reads the clock four
 * times. Each thread keeps its own conversion, anchored to clock_gettime
 * about once a second (when it flushes):
 *
 *   ns = anchor_ns + (counter - anchor_counter) * mult / 2^32
 *
 * with mult measured over the last interval between anchors (the first
 * ones a hundredth of a second long, so that a process uses the counter
 * from its first fiftieth of a second on, then about a second). A rate
 * is used only when the interval before it gave the same rate within
 * BCN_TCLOCK_AGREE_PPM (so a clock step or a migration in between is
 * never extrapolated), and a reading more than BCN_TCLOCK_SPAN_NS past
 * the anchor is not converted: the caller reads clock_gettime instead. The
 * state machine is pure (readings come in as arguments) so that tests
 * can drive it; the tracer uses it only where the kernel's own clock
 * source is the counter (bcn_tclock_usable). */
#ifndef BCN_TCLOCK_H
#define BCN_TCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define BCN_TCLOCK_MIN_NS 10000000LL    /* shortest calibration interval */
#define BCN_TCLOCK_SPAN_NS 2000000000LL /* longest extrapolation */
#define BCN_TCLOCK_AGREE_PPM 200        /* two rates agree within */
/* a rate measured over a shorter interval is measured again after this
 * long: extrapolated no further than that (a few ppm, a microsecond or
 * less), before the interval the caller asks for */
#define BCN_TCLOCK_SETTLE_NS 100000000LL

struct bcn_tclock {
	uint64_t gen;           /* odd while the fields change */
	uint64_t at;            /* counter at the anchor */
	int64_t at_ns;          /* clock_gettime at the anchor */
	uint64_t mult;          /* ns per tick, 32.32 fixed point; 0: none */
	uint64_t span;          /* ticks a reading may be past the anchor */
	uint64_t prev_mult;     /* the last interval's rate, unconfirmed */
	int64_t last;           /* the last time handed out */
	int64_t measured;       /* ns of the interval mult comes from */
};

/* Takes the reading pair (counter tsc, clock ns) as the new anchor and
 * measures the rate since the previous one; does nothing when the
 * interval is shorter than BCN_TCLOCK_MIN_NS. The rate is used from now
 * on only when it agrees with the previous interval's; otherwise
 * conversion stops until two intervals agree again. Call with the
 * thread's state held; a signal handler that reads c meanwhile sees gen
 * odd and falls back. Pure but for c. */
void bcn_tclock_anchor(struct bcn_tclock *c, uint64_t tsc, int64_t ns);

/* Whether it is time to call bcn_tclock_anchor again at the time now_ns:
 * c has no anchor yet, or its anchor is older than BCN_TCLOCK_MIN_NS
 * while c has no rate (a thread calibrates in its first two hundredths of
 * a second), than BCN_TCLOCK_SETTLE_NS (at most interval_ns) while its
 * rate comes from an interval shorter than that, else than
 * interval_ns. */
static inline bool bcn_tclock_due(const struct bcn_tclock *c,
				  int64_t now_ns, int64_t interval_ns)
{
	int64_t every = interval_ns;

	if (!c->mult)
		every = BCN_TCLOCK_MIN_NS;
	else if (c->measured < BCN_TCLOCK_SETTLE_NS &&
		 interval_ns > BCN_TCLOCK_SETTLE_NS)
		every = BCN_TCLOCK_SETTLE_NS;
	return !c->at || now_ns - c->at_ns >= every;
}

/* Whether c can convert now (a confirmed rate, no change in progress):
 * the caller reads the counter only then. */
static inline bool bcn_tclock_ready(const struct bcn_tclock *c)
{
	return c->mult && !(c->gen & 1);
}

/* Converts the counter reading tsc into *ns; false (and *ns untouched)
 * when c has no confirmed rate, is being changed, or tsc is before the
 * anchor or past its span. Times handed out by one thread never go back
 * by less than a millisecond (a new anchor can move the conversion by a
 * fraction of a microsecond); a larger step of the clock passes through. */
static inline bool bcn_tclock_at(struct bcn_tclock *c, uint64_t tsc,
				 int64_t *ns)
{
	uint64_t gen = c->gen, d;
	int64_t v;

	__atomic_signal_fence(__ATOMIC_ACQUIRE);
	if ((gen & 1) || !c->mult)
		return false;
	d = tsc - c->at;
	if (tsc < c->at || d > c->span)
		return false;
	v = c->at_ns + (int64_t)(((unsigned __int128)d * c->mult) >> 32);
	__atomic_signal_fence(__ATOMIC_ACQUIRE);
	if (c->gen != gen)
		return false;
	if (v < c->last && v > c->last - 1000000)
		v = c->last;
	c->last = v;
	*ns = v;
	return true;
}

/* Whether this machine's kernel keeps time with the counter (its
 * current clock source, text as read from sysfs, of len bytes, is
 * "tsc") on x86-64; anywhere else the tracer uses clock_gettime. */
bool bcn_tclock_usable(const char *clocksource, long len);

#endif
