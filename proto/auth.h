/* Authentication between collectors and log servers (docs/protocol.md,
 * "Handshake frames" and "Keys"): site and node keys and their file
 * format, the two MACs of the handshake, the frame keys of an established
 * connection (proto/seal.h), nonces, and the
 * handshake itself as two small state machines over opened frames, one
 * for each side, that never touch a socket: the caller reads frames, feeds
 * them to a step function and writes out whatever it appended. */
#ifndef BCN_AUTH_H
#define BCN_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "proto/frame.h"
#include "proto/seal.h"

#define BCN_AUTH_KEY_MIN 32             /* shortest key, in bytes */
#define BCN_AUTH_KEY_MAX 128            /* longest key, in bytes */
#define BCN_AUTH_KEYFILE_MAX 4096       /* largest key file, in bytes */
#define BCN_AUTH_KEY_DEFAULT_PATH "/etc/beacon/site.key"
#define BCN_AUTH_NODE_KEY_LEN 32        /* a node key, in bytes */

/* A site key (node "") or one node's key (node set: derived from the site
 * key by bcn_auth_node_key, good for that node only). Wipe it with
 * bcn_auth_key_wipe when done. */
struct bcn_auth_key {
	uint8_t bytes[BCN_AUTH_KEY_MAX];
	size_t len;
	char node[BCN_NODE_MAX + 1];
};

/* Parses the text of a key file held in buf[0..len-1]: for a node key a
 * first line "node NAME"; then hexadecimal digits (either case) forming
 * BCN_AUTH_KEY_MIN..BCN_AUTH_KEY_MAX bytes, with blanks and line ends
 * (space, tab, CR, LF) allowed anywhere. Returns 0;
 * -BCN_ESYNTAX for any other character or an odd number of digits;
 * -BCN_ERANGE for a key too short or too long. On error key is zeroed and
 * err says why (byte offset of a bad character). Pure: no I/O. */
int bcn_auth_key_parse(const char *buf, size_t len, struct bcn_auth_key *key,
		       char *err, size_t errlen);

/* Reads the key file at path and parses it. Refuses (-EACCES) a file that
 * its group or others may access in any way (mode & 077; the message says
 * to chmod 600), -EINVAL a file that is not a regular file, -BCN_EFULL a
 * file over BCN_AUTH_KEYFILE_MAX bytes; else -errno or the parse errors.
 * The message in err starts with the path. */
int bcn_auth_key_load(const char *path, struct bcn_auth_key *key, char *err,
		      size_t errlen);

/* Fills key with len (BCN_AUTH_KEY_MIN..BCN_AUTH_KEY_MAX) random bytes
 * from getrandom(2). Returns 0, -EINVAL or -errno. */
int bcn_auth_key_generate(struct bcn_auth_key *key, size_t len);

/* Derives the key of one node from the site key: HKDF-SHA256 (RFC 5869)
 * with the salt "beacon node key salt v2", the site key as input keying
 * material and the info "beacon node key" || node; 32 bytes, out->node set.
 * A log server needs only the site key; a node holding its own key can
 * prove no other name. Returns 0 or -EINVAL (site is itself a node key,
 * or node is empty or too long). */
int bcn_auth_node_key(const struct bcn_auth_key *site, const char *node,
		      struct bcn_auth_key *out);

/* Appends key as a key file: "node NAME" for a node key, then lowercase
 * hexadecimal and a newline.
 * Returns 0, -BCN_EFULL or -ENOMEM. */
int bcn_auth_key_format(const struct bcn_auth_key *key, struct bcn_buf *out);

/* Overwrites the key so that it does not linger in memory. */
void bcn_auth_key_wipe(struct bcn_auth_key *key);

/* out = HMAC-SHA256(key[0..keylen-1], msg[0..len-1]). Returns 0, -EINVAL
 * for a key over INT_MAX bytes. */
int bcn_auth_hmac(const uint8_t *key, size_t keylen, const uint8_t *msg,
		  size_t len, uint8_t out[BCN_AUTH_LEN]);

/* The collector's proof: HMAC-SHA256(k, "BCN1-C" || ns || nc || node), k
 * the node's key, node without its NUL (1..BCN_NODE_MAX bytes). Returns 0
 * or -EINVAL. */
int bcn_auth_client_mac(const uint8_t key[BCN_AUTH_NODE_KEY_LEN],
			const uint8_t nc[BCN_AUTH_LEN],
			const uint8_t ns[BCN_AUTH_LEN], const char *node,
			uint8_t out[BCN_AUTH_LEN]);

/* The server's proof: HMAC-SHA256(k, "BCN1-S" || nc || ns || node).
 * Returns 0 or -EINVAL. */
int bcn_auth_server_mac(const uint8_t key[BCN_AUTH_NODE_KEY_LEN],
			const uint8_t nc[BCN_AUTH_LEN],
			const uint8_t ns[BCN_AUTH_LEN], const char *node,
			uint8_t out[BCN_AUTH_LEN]);

/* Compares two MACs in constant time. */
bool bcn_auth_mac_equal(const uint8_t a[BCN_AUTH_LEN],
			const uint8_t b[BCN_AUTH_LEN]);

/* Fills out with BCN_AUTH_LEN random bytes from getrandom(2).
 * Returns 0 or -errno. */
int bcn_auth_nonce(uint8_t out[BCN_AUTH_LEN]);

/* Handshake states. A connection starts in IDLE (client) or WAIT_HELLO
 * (server) and ends in ESTABLISHED or FAILED; FAILED is final. */
enum bcn_auth_state {
	BCN_AUTH_IDLE = 0,              /* client: HELLO not sent yet */
	BCN_AUTH_WAIT_CHALLENGE,        /* client: HELLO sent */
	BCN_AUTH_WAIT_WELCOME,          /* client: AUTH sent */
	BCN_AUTH_WAIT_HELLO,            /* server: nothing received yet */
	BCN_AUTH_WAIT_AUTH,             /* server: CHALLENGE sent */
	BCN_AUTH_ESTABLISHED,           /* both: keys proven both ways */
	BCN_AUTH_FAILED,                /* both: close the connection */
};

/* Step result: the frame belongs to the established session (an ACK for
 * the client, a DATA frame of the authenticated node for the server) and
 * the caller handles it. */
#define BCN_AUTH_PASS 1

/* One connection, collector side. The key is not copied: it must outlive
 * the struct. */
struct bcn_auth_client {
	const struct bcn_auth_key *key;
	uint8_t k[BCN_AUTH_NODE_KEY_LEN];       /* our node key */
	struct bcn_seal tx, rx;         /* frame keys, once ESTABLISHED */
	char node[BCN_NODE_MAX + 1];    /* our name, sent in HELLO */
	char peer[BCN_NODE_MAX + 1];    /* the server's, from CHALLENGE */
	uint8_t nc[BCN_AUTH_LEN];       /* our nonce */
	uint8_t ns[BCN_AUTH_LEN];       /* the server's nonce */
	enum bcn_auth_state state;
};

/* One connection, server side. The key must outlive the struct. */
struct bcn_auth_server {
	const struct bcn_auth_key *key; /* the site key */
	uint8_t k[BCN_AUTH_NODE_KEY_LEN];       /* the node's, during the
						 * handshake */
	struct bcn_seal rx, tx;         /* frame keys, once ESTABLISHED */
	char name[BCN_NODE_MAX + 1];    /* ours, sent in CHALLENGE */
	char node[BCN_NODE_MAX + 1];    /* the collector's, from HELLO */
	uint8_t nc[BCN_AUTH_LEN];
	uint8_t ns[BCN_AUTH_LEN];
	enum bcn_auth_state state;
};

/* Prepares c (state IDLE) for a collector called node (1..BCN_NODE_MAX
 * bytes) holding key: the site key, or node's own key. Returns 0, -EINVAL,
 * or -EKEYREJECTED when key is the key of another node. */
int bcn_auth_client_init(struct bcn_auth_client *c,
			 const struct bcn_auth_key *key, const char *node);

/* Starts a handshake on a new connection: draws a fresh nonce, appends
 * HELLO to out and moves to WAIT_CHALLENGE. May be called again for the
 * next connection, from any state. Returns 0, -errno (getrandom),
 * -BCN_EFULL or -ENOMEM (out). */
int bcn_auth_client_start(struct bcn_auth_client *c, struct bcn_buf *out);

/* Feeds one frame received from the server. WAIT_CHALLENGE takes a
 * CHALLENGE and appends AUTH; WAIT_WELCOME takes a WELCOME, checks the
 * server's MAC and moves to ESTABLISHED (nothing appended); ESTABLISHED
 * passes ACK frames through. Returns 0 (handshake frame consumed),
 * BCN_AUTH_PASS (an ACK of the session), -EKEYREJECTED (the server's MAC
 * is wrong: it does not hold our key), -EPROTONOSUPPORT (a CHALLENGE of
 * another protocol version), -EPROTO (any other frame, a frame out of
 * order, a handshake frame with a sequence number, or a call after a
 * failure), or -BCN_EFULL/-ENOMEM. Every error moves to FAILED. The
 * caller checks the frame MACs of an established connection with c->rx
 * and seals what it sends with c->tx (proto/seal.h). */
int bcn_auth_client_step(struct bcn_auth_client *c, const struct bcn_frame *f,
			 struct bcn_buf *out);

/* Prepares s (state WAIT_HELLO) for a new connection; key is the site
 * key (a node key is refused), name is the server name sent in CHALLENGE
 * (0..BCN_NODE_MAX bytes, may be ""). Returns 0 or -EINVAL. */
int bcn_auth_server_init(struct bcn_auth_server *s,
			 const struct bcn_auth_key *key, const char *name);

/* Feeds one frame received from the collector. WAIT_HELLO takes a HELLO,
 * remembers the node, draws a nonce and appends CHALLENGE; WAIT_AUTH takes
 * an AUTH, checks its MAC in constant time, appends WELCOME and moves to
 * ESTABLISHED; ESTABLISHED passes DATA frames whose node is the one of
 * HELLO. Returns 0 (handshake frame consumed), BCN_AUTH_PASS (a DATA frame
 * to store), -EKEYREJECTED (wrong MAC: close without an answer),
 * -EPROTONOSUPPORT (a HELLO of another protocol version), -EPROTO
 * (DATA before WELCOME, a node that changes, any frame out of order, a
 * call after a failure), or -errno/-BCN_EFULL/-ENOMEM/-EIO. Every error
 * moves to FAILED; the caller then closes the connection. */
int bcn_auth_server_step(struct bcn_auth_server *s, const struct bcn_frame *f,
			 struct bcn_buf *out);

/* Returns the name of a state ("wait-challenge", ...), for messages. */
const char *bcn_auth_state_name(enum bcn_auth_state st);

#endif
