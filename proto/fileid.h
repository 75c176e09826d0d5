/* The stable 64-bit id of a file path that compute-node records carry in
 * their `file` field (docs/records.md): FNV-1a, 64-bit, over the bytes of
 * the path as the process named it. The tracer and beacon-clientd's LWFS
 * log source use this one definition, so that the same path gets the same
 * id from either. Header-only: the tracer builds it into its shared
 * library without linking anything. */
#ifndef BCN_FILEID_H
#define BCN_FILEID_H

#include <stddef.h>
#include <stdint.h>

#define BCN_FILE_ID_SEED 0xcbf29ce484222325ULL  /* FNV-1a offset basis */
#define BCN_FILE_ID_PRIME 0x100000001b3ULL

/* Continues the FNV-1a hash h over the n bytes at p and returns it; start
 * with h = BCN_FILE_ID_SEED. Hashing a path in pieces gives the same id
 * as hashing it at once. Pure. */
static inline uint64_t bcn_file_id_fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= BCN_FILE_ID_PRIME;
	}
	return h;
}

/* The id of a path of n bytes. Pure. */
static inline uint64_t bcn_file_id(const char *path, size_t n)
{
	return bcn_file_id_fnv(path, n, BCN_FILE_ID_SEED);
}

#endif
