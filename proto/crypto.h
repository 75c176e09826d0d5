/* The cryptography of the wire protocol, from Nettle (Debian's
 * nettle-dev): HMAC-SHA256 (RFC 2104) for the handshake and the per-frame
 * MACs, HKDF-SHA256 (RFC 5869) for node and session keys. A thin layer so
 * that the rest of the tree names no library. */
#ifndef BCN_CRYPTO_H
#define BCN_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BCN_SHA256_LEN 32
#define BCN_HKDF_OUT_MAX (255 * BCN_SHA256_LEN)

/* One piece of a message given in parts. */
struct bcn_crypto_part {
	const void *p;
	size_t len;
};

/* out = HMAC-SHA256(key, msg). */
void bcn_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg,
		     size_t len, uint8_t out[BCN_SHA256_LEN]);

/* out = HMAC-SHA256(key, parts[0] || parts[1] || ... ). */
void bcn_hmac_sha256_parts(const uint8_t *key, size_t keylen,
			   const struct bcn_crypto_part *parts, size_t n,
			   uint8_t out[BCN_SHA256_LEN]);

/* out[0..outlen) = HKDF-SHA256(salt, ikm, info, outlen): extract with the
 * salt (an empty salt is HashLen zero bytes, as RFC 5869 says), then
 * expand. Returns 0, or -EINVAL for outlen 0 or over BCN_HKDF_OUT_MAX. */
int bcn_hkdf_sha256(const uint8_t *salt, size_t saltlen, const uint8_t *ikm,
		    size_t ikmlen, const uint8_t *info, size_t infolen,
		    uint8_t *out, size_t outlen);

/* Compares a[0..n) and b[0..n) in time independent of where they differ. */
bool bcn_crypto_equal(const void *a, const void *b, size_t n);

#endif
