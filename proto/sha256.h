/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the collectors'
 * challenge-response authentication; small enough that no collector has
 * to map a cryptography library. */
#ifndef BCN_SHA256_H
#define BCN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define BCN_SHA256_LEN 32
#define BCN_SHA256_BLOCK 64

struct bcn_sha256 {
	uint32_t h[8];
	uint64_t bytes;                 /* message length so far */
	uint8_t buf[BCN_SHA256_BLOCK];
	size_t used;                    /* bytes in buf */
};

void bcn_sha256_init(struct bcn_sha256 *c);
void bcn_sha256_update(struct bcn_sha256 *c, const void *data, size_t len);
/* Writes the digest and wipes c. */
void bcn_sha256_final(struct bcn_sha256 *c, uint8_t out[BCN_SHA256_LEN]);
/* out = SHA-256(data[0..len-1]). */
void bcn_sha256(const void *data, size_t len, uint8_t out[BCN_SHA256_LEN]);

/* out = HMAC-SHA256(key[0..keylen-1], msg[0..len-1]); any key length. */
void bcn_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg,
		     size_t len, uint8_t out[BCN_SHA256_LEN]);

/* Compares n bytes in time independent of their contents: 1 if equal. */
int bcn_ct_equal(const void *a, const void *b, size_t n);

#endif
