/* Frame MACs of an established connection (docs/protocol.md, "Frame
 * MACs"): after the handshake every DATA frame from the collector and
 * every ACK frame from the log server carries a 16-byte trailer,
 * HMAC-SHA256 truncated to 128 bits, under a key of its direction, over
 * the frame's number in that direction on this connection, the header
 * (without its checksum) and the body. A forged, altered, replayed,
 * reordered or dropped frame fails the next check. */
#ifndef BCN_SEAL_H
#define BCN_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define BCN_SEAL_KEY_LEN 32

/* One direction of one connection. */
struct bcn_seal {
	uint8_t key[BCN_SEAL_KEY_LEN];
	uint64_t n;                     /* frames sealed or checked so far */
};

/* Appends to out the sealed form of the complete, unsealed version-2
 * frame frame[0..len): flag BCN_FRAME_F_MAC set, body length grown by
 * BCN_FRAME_MAC_LEN, the MAC trailer, the checksum recomputed; counts the
 * frame. Returns 0, -EINVAL (not one whole unsealed version-2 frame) or
 * the buffer's -BCN_EFULL/-ENOMEM (then nothing is counted). */
int bcn_seal_frame(struct bcn_seal *s, const uint8_t *frame, size_t len,
		   struct bcn_buf *out);

/* Checks the MAC of the complete sealed frame frame[0..len) (its length
 * already known from the header) and counts it. Returns 0, or -EBADMSG
 * for a frame without the flag, too short, or whose MAC does not match
 * (the count is then unchanged, and the connection must close). */
int bcn_seal_check(struct bcn_seal *s, const uint8_t *frame, size_t len);

#endif
