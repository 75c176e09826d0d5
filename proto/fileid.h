/* The stable 64-bit id of a file path that compute-node records carry in
 * their `file` field (docs/records.md): a hash of the bytes of the path as
 * the process named it (after the tracer's normalisation), read eight
 * bytes at a time as little-endian words, so that every node, whatever
 * its byte order, gives a path the same id. The tracer hashes every path
 * it sees opened: a byte-at-a-time hash (FNV-1a, before) cost about 1.5 ns
 * per byte there. The tracer and beacon-clientd's LWFS log source use
 * this one definition, so that the same path gets the same id from
 * either. Header-only: the tracer builds it into its shared library
 * without linking anything. */
#ifndef BCN_FILEID_H
#define BCN_FILEID_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BCN_FILE_ID_SEED 0x6a09e667f3bcc908ULL
#define BCN_FILE_ID_KLEN 0x9e3779b97f4a7c15ULL  /* length into the seed */
#define BCN_FILE_ID_KWORD 0xc2b2ae3d27d4eb4fULL /* a word before mixing */
#define BCN_FILE_ID_KMIX 0x87c37b91114253d5ULL  /* the state per word */
#define BCN_FILE_ID_KFIN 0xff51afd7ed558ccdULL  /* the final avalanche */

/* The eight bytes at p as a little-endian word. */
static inline uint64_t bcn_file_id_word(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* One word into the state h. */
static inline uint64_t bcn_file_id_step(uint64_t h, uint64_t w)
{
	h ^= w * BCN_FILE_ID_KWORD;
	h = (h << 31) | (h >> 33);
	return h * BCN_FILE_ID_KMIX;
}

/* The id of a path of n bytes. Whole words first; a last partial word is
 * the path's last eight bytes (overlapping the one before) when the path
 * has eight or more, else its bytes zero-padded; the length goes into the
 * seed, so paths that differ only by trailing zero bytes differ. Pure. */
static inline uint64_t bcn_file_id(const char *path, size_t n)
{
	const unsigned char *p = (const unsigned char *)path;
	uint64_t h = BCN_FILE_ID_SEED ^ ((uint64_t)n * BCN_FILE_ID_KLEN);
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		h = bcn_file_id_step(h, bcn_file_id_word(p + i));
	if (i < n) {
		unsigned char tail[8] = { 0 };

		if (n >= 8)
			memcpy(tail, p + n - 8, 8);
		else
			memcpy(tail, p, n);
		h = bcn_file_id_step(h, bcn_file_id_word(tail));
	}
	h ^= h >> 33;
	h *= BCN_FILE_ID_KFIN;
	h ^= h >> 29;
	return h;
}

#endif
