/* LEB128 varints and zigzag signed integers, bounds-checked. */
#ifndef BCN_VARINT_H
#define BCN_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define BCN_VARINT_MAX 10       /* bytes of the longest 64-bit varint */

static inline uint64_t bcn_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t bcn_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v at p (which has room for BCN_VARINT_MAX bytes); returns the
 * number of bytes written. */
static inline size_t bcn_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Reads a varint from [*p, end). Returns 0 and advances *p, or -1 when the
 * input ends inside the varint or it does not fit 64 bits. */
static inline int bcn_varint_get(const uint8_t **p, const uint8_t *end,
				 uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;

	if (end - q >= BCN_VARINT_MAX) {
		/* room for the longest: no end check at each byte */
		for (unsigned i = 0; i < BCN_VARINT_MAX - 1; i++) {
			r |= (uint64_t)(q[i] & 0x7f) << (7 * i);
			if (!(q[i] & 0x80)) {
				*p = q + i + 1;
				*v = r;
				return 0;
			}
		}
		if (q[BCN_VARINT_MAX - 1] > 1)
			return -1;      /* past 64 bits */
		*p = q + BCN_VARINT_MAX;
		*v = r | (uint64_t)q[BCN_VARINT_MAX - 1] << 63;
		return 0;
	}
	while (q < end) {
		uint8_t b = *q++;

		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*v = r;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

#endif
