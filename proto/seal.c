/* Frame MACs (proto/seal.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

#include "common/error.h"
#include "proto/crypto.h"
#include "proto/frame.h"
#include "proto/seal.h"

#define CRC_SPAN 28     /* header bytes before the checksum */

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* mac = HMAC(key, le64(n) || hdr[0..28) || body[0..blen)), truncated. */
static void frame_mac(const struct bcn_seal *s, const uint8_t *hdr,
		      const uint8_t *body, size_t blen,
		      uint8_t mac[BCN_FRAME_MAC_LEN])
{
	uint8_t ctr[8], full[BCN_SHA256_LEN];
	struct bcn_crypto_part parts[3] = {
		{ ctr, sizeof(ctr) }, { hdr, CRC_SPAN }, { body, blen },
	};

	for (int i = 0; i < 8; i++)
		ctr[i] = (uint8_t)(s->n >> (8 * i));
	bcn_hmac_sha256_parts(s->key, sizeof(s->key), parts, 3, full);
	memcpy(mac, full, BCN_FRAME_MAC_LEN);
	explicit_bzero(full, sizeof(full));
}

int bcn_seal_frame(struct bcn_seal *s, const uint8_t *frame, size_t len,
		   struct bcn_buf *out)
{
	uint8_t hdr[BCN_FRAME_HDR_LEN], mac[BCN_FRAME_MAC_LEN];
	size_t start = out->len;
	uint32_t blen, crc;
	int rc;

	if (len < BCN_FRAME_HDR_LEN || memcmp(frame, BCN_FRAME_MAGIC, 4) ||
	    frame[4] != BCN_PROTO_VERSION || (frame[6] & BCN_FRAME_F_MAC))
		return -EINVAL;
	blen = get_le32(frame + 8);
	if ((size_t)blen != len - BCN_FRAME_HDR_LEN ||
	    blen > UINT32_MAX - BCN_FRAME_MAC_LEN)
		return -EINVAL;
	memcpy(hdr, frame, BCN_FRAME_HDR_LEN);
	hdr[6] |= BCN_FRAME_F_MAC;
	put_le32(hdr + 8, blen + BCN_FRAME_MAC_LEN);
	frame_mac(s, hdr, frame + BCN_FRAME_HDR_LEN, blen, mac);
	crc = (uint32_t)crc32(0L, hdr, CRC_SPAN);
	crc = (uint32_t)crc32(crc, frame + BCN_FRAME_HDR_LEN, blen);
	crc = (uint32_t)crc32(crc, mac, sizeof(mac));
	put_le32(hdr + CRC_SPAN, crc);
	rc = bcn_buf_add(out, hdr, sizeof(hdr));
	if (!rc)
		rc = bcn_buf_add(out, frame + BCN_FRAME_HDR_LEN, blen);
	if (!rc)
		rc = bcn_buf_add(out, mac, sizeof(mac));
	if (rc) {
		out->len = start;
		return rc;
	}
	s->n++;
	return 0;
}

int bcn_seal_check(struct bcn_seal *s, const uint8_t *frame, size_t len)
{
	uint8_t mac[BCN_FRAME_MAC_LEN];
	size_t blen;
	bool ok;

	if (len < BCN_FRAME_HDR_LEN + BCN_FRAME_MAC_LEN ||
	    !(frame[6] & BCN_FRAME_F_MAC) ||
	    (size_t)get_le32(frame + 8) != len - BCN_FRAME_HDR_LEN)
		return -EBADMSG;
	blen = len - BCN_FRAME_HDR_LEN - BCN_FRAME_MAC_LEN;
	frame_mac(s, frame, frame + BCN_FRAME_HDR_LEN, blen, mac);
	ok = bcn_crypto_equal(mac, frame + len - BCN_FRAME_MAC_LEN,
			  BCN_FRAME_MAC_LEN);
	explicit_bzero(mac, sizeof(mac));
	if (!ok)
		return -EBADMSG;
	s->n++;
	return 0;
}
