/* HMAC-SHA256 and HKDF-SHA256 through Nettle (proto/crypto.h). */
#include <errno.h>
#include <string.h>

#include <nettle/hkdf.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "proto/crypto.h"

void bcn_hmac_sha256_parts(const uint8_t *key, size_t keylen,
			   const struct bcn_crypto_part *parts, size_t n,
			   uint8_t out[BCN_SHA256_LEN])
{
	struct hmac_sha256_ctx ctx;

	hmac_sha256_set_key(&ctx, keylen, key);
	for (size_t i = 0; i < n; i++)
		if (parts[i].len)
			hmac_sha256_update(&ctx, parts[i].len, parts[i].p);
	hmac_sha256_digest(&ctx, BCN_SHA256_LEN, out);
	explicit_bzero(&ctx, sizeof(ctx));
}

void bcn_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg,
		     size_t len, uint8_t out[BCN_SHA256_LEN])
{
	struct bcn_crypto_part part = { msg, len };

	bcn_hmac_sha256_parts(key, keylen, &part, 1, out);
}

int bcn_hkdf_sha256(const uint8_t *salt, size_t saltlen, const uint8_t *ikm,
		    size_t ikmlen, const uint8_t *info, size_t infolen,
		    uint8_t *out, size_t outlen)
{
	static const uint8_t zero[BCN_SHA256_LEN];
	uint8_t prk[BCN_SHA256_LEN];
	struct hmac_sha256_ctx ctx;

	if (!outlen || outlen > BCN_HKDF_OUT_MAX)
		return -EINVAL;
	if (!saltlen) {
		salt = zero;
		saltlen = sizeof(zero);
	}
	hmac_sha256_set_key(&ctx, saltlen, salt);
	hkdf_extract(&ctx, (nettle_hash_update_func *)hmac_sha256_update,
		     (nettle_hash_digest_func *)hmac_sha256_digest,
		     SHA256_DIGEST_SIZE, ikmlen, ikm, prk);
	hmac_sha256_set_key(&ctx, sizeof(prk), prk);
	hkdf_expand(&ctx, (nettle_hash_update_func *)hmac_sha256_update,
		    (nettle_hash_digest_func *)hmac_sha256_digest,
		    SHA256_DIGEST_SIZE, infolen, info, outlen, out);
	explicit_bzero(prk, sizeof(prk));
	explicit_bzero(&ctx, sizeof(ctx));
	return 0;
}

bool bcn_crypto_equal(const void *a, const void *b, size_t n)
{
	return memeql_sec(a, b, n) != 0;
}
