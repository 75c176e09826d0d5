/* Site and node keys and the collector/log server handshake
 * (docs/protocol.md). The key parser is a pure function; the state
 * machines only read frames and append frames to a buffer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>


#include "proto/auth.h"
#include "proto/crypto.h"
#include "proto/seal.h"
#include "common/error.h"
#include "common/text.h"

#define CLIENT_LABEL "BCN1-C"
#define SERVER_LABEL "BCN1-S"
#define LABEL_LEN 6
/* label || nonce || nonce || node */
#define MAC_MSG_MAX (LABEL_LEN + 2 * BCN_AUTH_LEN + BCN_NODE_MAX)
/* a parse error message */
#define ERR_MAX 256
/* HKDF inputs of node keys (docs/protocol.md, "Keys") */
#define NODE_KEY_SALT "beacon node key salt v2"
#define NODE_KEY_INFO "beacon node key"
#define SESSION_C2S "beacon v2 c2s"
#define SESSION_S2C "beacon v2 s2c"

/* "node NAME" as the first line of a node key file: copies NAME into
 * key->node and moves *off past the line. Returns 0 (also when there is no
 * such line) or -BCN_ESYNTAX. */
static int parse_node_line(const char *buf, size_t len, size_t *off,
			   struct bcn_auth_key *key, char *err, size_t errlen)
{
	size_t i = 0, start, end;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' ||
			   buf[i] == '\n'))
		i++;
	if (len - i < 5 || memcmp(buf + i, "node", 4) ||
	    (buf[i + 4] != ' ' && buf[i + 4] != '\t'))
		return 0;
	i += 4;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	start = i;
	while (i < len && buf[i] != '\n' && buf[i] != '\r' && buf[i] != ' ' &&
	       buf[i] != '\t')
		i++;
	end = i;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r'))
		i++;
	if (end == start || end - start > BCN_NODE_MAX ||
	    (i < len && buf[i] != '\n')) {
		bcn_seterr(err, errlen, "bad \"node NAME\" line (a name of 1 to "
			   "%d bytes without blanks)", BCN_NODE_MAX);
		return -BCN_ESYNTAX;
	}
	for (size_t k = start; k < end; k++)
		if ((unsigned char)buf[k] < 0x21 || buf[k] == 0x7f) {
			bcn_seterr(err, errlen, "byte %zu: control byte in the "
				   "node name", k);
			return -BCN_ESYNTAX;
		}
	memcpy(key->node, buf + start, end - start);
	key->node[end - start] = '\0';
	*off = i;
	return 0;
}


int bcn_auth_key_parse(const char *buf, size_t len, struct bcn_auth_key *key,
		       char *err, size_t errlen)
{
	size_t digits = 0, from = 0;
	int hi = 0, rc = 0;

	memset(key, 0, sizeof(*key));
	bcn_seterr(err, errlen, "%s", "");
	rc = parse_node_line(buf, len, &from, key, err, errlen);
	if (rc)
		goto out;
	for (size_t i = from; i < len; i++) {
		char c = buf[i];
		int v;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		v = bcn_text_hexval(c);
		if (v < 0) {
			bcn_seterr(err, errlen, "byte %zu: not a hexadecimal digit "
			       "(a key file holds only hex digits and blanks)", i);
			rc = -BCN_ESYNTAX;
			goto out;
		}
		if (digits / 2 >= BCN_AUTH_KEY_MAX) {
			bcn_seterr(err, errlen, "key longer than %d bytes (%d hex digits)",
			       BCN_AUTH_KEY_MAX, 2 * BCN_AUTH_KEY_MAX);
			rc = -BCN_ERANGE;
			goto out;
		}
		if (digits % 2 == 0)
			hi = v;
		else
			key->bytes[digits / 2] = (uint8_t)(hi << 4 | v);
		digits++;
	}
	if (digits % 2) {
		bcn_seterr(err, errlen, "odd number of hex digits (%zu)", digits);
		rc = -BCN_ESYNTAX;
		goto out;
	}
	if (digits / 2 < BCN_AUTH_KEY_MIN) {
		bcn_seterr(err, errlen, "key too short: %zu bytes, at least %d "
		       "(%d hex digits)", digits / 2, BCN_AUTH_KEY_MIN,
		       2 * BCN_AUTH_KEY_MIN);
		rc = -BCN_ERANGE;
		goto out;
	}
	key->len = digits / 2;
out:
	if (rc)
		bcn_auth_key_wipe(key);
	return rc;
}

/* Reads at most BCN_AUTH_KEYFILE_MAX bytes of fd into buf; *n gets the
 * count. Returns 0, -BCN_EFULL for a larger file, or -errno. */
static int read_keyfile(int fd, char *buf, size_t *n)
{
	size_t got = 0;
	ssize_t r;

	for (;;) {
		/* one byte of room beyond the limit detects larger files */
		r = read(fd, buf + got, BCN_AUTH_KEYFILE_MAX + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > BCN_AUTH_KEYFILE_MAX)
			return -BCN_EFULL;
	}
	*n = got;
	return 0;
}

int bcn_auth_key_load(const char *path, struct bcn_auth_key *key, char *err,
		      size_t errlen)
{
	char buf[BCN_AUTH_KEYFILE_MAX + 1];
	char why[ERR_MAX];
	struct stat st;
	size_t n = 0;
	int fd, rc;

	memset(key, 0, sizeof(*key));
	/* O_NONBLOCK: a FIFO must not hang us before the S_ISREG check */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		bcn_seterr(err, errlen, "key file %s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		bcn_seterr(err, errlen, "key file %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		bcn_seterr(err, errlen, "key file %s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & 077) {
		rc = -EACCES;
		bcn_seterr(err, errlen, "key file %s: group or others may access it "
		       "(mode %04o); run 'chmod 600 %s'",
		       path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	rc = read_keyfile(fd, buf, &n);
	if (rc == -BCN_EFULL) {
		bcn_seterr(err, errlen, "key file %s: larger than %d bytes", path,
		       BCN_AUTH_KEYFILE_MAX);
		goto out;
	}
	if (rc) {
		bcn_seterr(err, errlen, "key file %s: %s", path, bcn_strerror(rc));
		goto out;
	}
	rc = bcn_auth_key_parse(buf, n, key, why, sizeof(why));
	if (rc)
		bcn_seterr(err, errlen, "key file %s: %s", path, why);
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return rc;
}

int bcn_auth_key_generate(struct bcn_auth_key *key, size_t len)
{
	size_t got = 0;
	ssize_t r;

	memset(key, 0, sizeof(*key));
	if (len < BCN_AUTH_KEY_MIN || len > BCN_AUTH_KEY_MAX)
		return -EINVAL;
	while (got < len) {
		r = getrandom(key->bytes + got, len - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int rc = -errno;

			bcn_auth_key_wipe(key);
			return rc;
		}
		got += (size_t)r;
	}
	key->len = len;
	return 0;
}

int bcn_auth_key_format(const struct bcn_auth_key *key, struct bcn_buf *out)
{
	char text[2 * BCN_AUTH_KEY_MAX + 1];
	size_t n = key->len > BCN_AUTH_KEY_MAX ? BCN_AUTH_KEY_MAX : key->len;
	int rc;

	if (key->node[0]) {
		rc = bcn_buf_printf(out, "node %s\n", key->node);
		if (rc)
			return rc;
	}
	bcn_text_hex(text, key->bytes, n);
	text[2 * n] = '\n';
	rc = bcn_buf_add(out, text, 2 * n + 1);
	explicit_bzero(text, sizeof(text));
	return rc;
}

void bcn_auth_key_wipe(struct bcn_auth_key *key)
{
	explicit_bzero(key, sizeof(*key));
}

int bcn_auth_hmac(const uint8_t *key, size_t keylen, const uint8_t *msg,
		  size_t len, uint8_t out[BCN_AUTH_LEN])
{
	if ((keylen && !key) || (len && !msg))
		return -EINVAL;
	bcn_hmac_sha256(key, keylen, msg, len, out);
	return 0;
}

int bcn_auth_node_key(const struct bcn_auth_key *site, const char *node,
		      struct bcn_auth_key *out)
{
	size_t nlen = node ? strlen(node) : 0;
	uint8_t info[sizeof(NODE_KEY_INFO) - 1 + BCN_NODE_MAX];
	int rc;

	memset(out, 0, sizeof(*out));
	if (!site || site->node[0] || site->len < BCN_AUTH_KEY_MIN ||
	    site->len > BCN_AUTH_KEY_MAX || nlen == 0 || nlen > BCN_NODE_MAX)
		return -EINVAL;
	memcpy(info, NODE_KEY_INFO, sizeof(NODE_KEY_INFO) - 1);
	memcpy(info + sizeof(NODE_KEY_INFO) - 1, node, nlen);
	rc = bcn_hkdf_sha256((const uint8_t *)NODE_KEY_SALT,
			     sizeof(NODE_KEY_SALT) - 1, site->bytes, site->len,
			     info, sizeof(NODE_KEY_INFO) - 1 + nlen, out->bytes,
			     BCN_AUTH_NODE_KEY_LEN);
	if (!rc) {
		out->len = BCN_AUTH_NODE_KEY_LEN;
		memcpy(out->node, node, nlen + 1);
	}
	return rc;
}

/* The key a node proves itself with: key itself when it is that node's
 * key, else the node key derived from the site key. */
static int node_key_of(const struct bcn_auth_key *key, const char *node,
		       uint8_t out[BCN_AUTH_NODE_KEY_LEN])
{
	struct bcn_auth_key nk;
	int rc;

	if (key->node[0]) {
		if (strcmp(key->node, node) || key->len != BCN_AUTH_NODE_KEY_LEN)
			return -EKEYREJECTED;
		memcpy(out, key->bytes, BCN_AUTH_NODE_KEY_LEN);
		return 0;
	}
	rc = bcn_auth_node_key(key, node, &nk);
	if (!rc)
		memcpy(out, nk.bytes, BCN_AUTH_NODE_KEY_LEN);
	bcn_auth_key_wipe(&nk);
	return rc;
}

/* The two directions' frame keys of an established connection. */
static int session_keys(const uint8_t k[BCN_AUTH_NODE_KEY_LEN],
			const uint8_t nc[BCN_AUTH_LEN],
			const uint8_t ns[BCN_AUTH_LEN], const char *node,
			struct bcn_seal *c2s, struct bcn_seal *s2c)
{
	uint8_t salt[2 * BCN_AUTH_LEN];
	uint8_t info[sizeof(SESSION_C2S) - 1 + BCN_NODE_MAX];
	size_t nlen = strlen(node), ll = sizeof(SESSION_C2S) - 1;
	int rc;

	memcpy(salt, nc, BCN_AUTH_LEN);
	memcpy(salt + BCN_AUTH_LEN, ns, BCN_AUTH_LEN);
	memcpy(info + ll, node, nlen);
	memcpy(info, SESSION_C2S, ll);
	rc = bcn_hkdf_sha256(salt, sizeof(salt), k, BCN_AUTH_NODE_KEY_LEN, info,
			     ll + nlen, c2s->key, sizeof(c2s->key));
	memcpy(info, SESSION_S2C, ll);
	if (!rc)
		rc = bcn_hkdf_sha256(salt, sizeof(salt), k,
				     BCN_AUTH_NODE_KEY_LEN, info, ll + nlen,
				     s2c->key, sizeof(s2c->key));
	c2s->n = s2c->n = 0;
	return rc;
}

/* MAC over label || a || b || node. */
static int handshake_mac(const uint8_t key[BCN_AUTH_NODE_KEY_LEN],
			 const char *label,
			 const uint8_t a[BCN_AUTH_LEN],
			 const uint8_t b[BCN_AUTH_LEN], const char *node,
			 uint8_t out[BCN_AUTH_LEN])
{
	uint8_t msg[MAC_MSG_MAX];
	size_t nlen = strlen(node), len = 0;

	if (nlen == 0 || nlen > BCN_NODE_MAX)
		return -EINVAL;
	memcpy(msg, label, LABEL_LEN);
	len += LABEL_LEN;
	memcpy(msg + len, a, BCN_AUTH_LEN);
	len += BCN_AUTH_LEN;
	memcpy(msg + len, b, BCN_AUTH_LEN);
	len += BCN_AUTH_LEN;
	memcpy(msg + len, node, nlen);
	len += nlen;
	return bcn_auth_hmac(key, BCN_AUTH_NODE_KEY_LEN, msg, len, out);
}

int bcn_auth_client_mac(const uint8_t key[BCN_AUTH_NODE_KEY_LEN],
			const uint8_t nc[BCN_AUTH_LEN],
			const uint8_t ns[BCN_AUTH_LEN], const char *node,
			uint8_t out[BCN_AUTH_LEN])
{
	return handshake_mac(key, CLIENT_LABEL, ns, nc, node, out);
}

int bcn_auth_server_mac(const uint8_t key[BCN_AUTH_NODE_KEY_LEN],
			const uint8_t nc[BCN_AUTH_LEN],
			const uint8_t ns[BCN_AUTH_LEN], const char *node,
			uint8_t out[BCN_AUTH_LEN])
{
	return handshake_mac(key, SERVER_LABEL, nc, ns, node, out);
}

bool bcn_auth_mac_equal(const uint8_t a[BCN_AUTH_LEN],
			const uint8_t b[BCN_AUTH_LEN])
{
	return bcn_crypto_equal(a, b, BCN_AUTH_LEN);
}

int bcn_auth_nonce(uint8_t out[BCN_AUTH_LEN])
{
	size_t got = 0;
	ssize_t r;

	while (got < BCN_AUTH_LEN) {
		r = getrandom(out + got, BCN_AUTH_LEN - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		got += (size_t)r;
	}
	return 0;
}

/* Copies a name of 0..BCN_NODE_MAX bytes. */
static int copy_name(char dst[BCN_NODE_MAX + 1], const char *src)
{
	size_t n = strlen(src);

	if (n > BCN_NODE_MAX)
		return -EINVAL;
	memcpy(dst, src, n + 1);
	return 0;
}

/* A handshake frame of the expected kind, with sequence number 0. */
static bool is_ctl(const struct bcn_frame *f, enum bcn_frame_kind kind)
{
	return f->hdr.kind == kind && f->hdr.seq == 0;
}

int bcn_auth_client_init(struct bcn_auth_client *c,
			 const struct bcn_auth_key *key, const char *node)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->state = BCN_AUTH_FAILED;
	if (!key || !node || !node[0] || copy_name(c->node, node))
		return -EINVAL;
	rc = node_key_of(key, node, c->k);
	if (rc)
		return rc;
	c->key = key;
	c->state = BCN_AUTH_IDLE;
	return 0;
}

int bcn_auth_client_start(struct bcn_auth_client *c, struct bcn_buf *out)
{
	int rc;

	c->peer[0] = '\0';
	memset(c->ns, 0, sizeof(c->ns));
	c->state = BCN_AUTH_FAILED;
	if (!c->key)
		return -EINVAL;
	rc = bcn_auth_nonce(c->nc);
	if (!rc)
		rc = bcn_frame_ctl_encode(BCN_FRAME_HELLO, c->node, c->nc, out);
	if (!rc)
		c->state = BCN_AUTH_WAIT_CHALLENGE;
	return rc;
}

int bcn_auth_client_step(struct bcn_auth_client *c, const struct bcn_frame *f,
			 struct bcn_buf *out)
{
	uint8_t mac[BCN_AUTH_LEN];
	int rc = -EPROTO;

	switch (c->state) {
	case BCN_AUTH_WAIT_CHALLENGE:
		if (f->hdr.version != BCN_PROTO_VERSION) {
			rc = -EPROTONOSUPPORT;
			break;
		}
		if (!is_ctl(f, BCN_FRAME_CHALLENGE))
			break;
		memcpy(c->ns, f->auth, BCN_AUTH_LEN);
		memcpy(c->peer, f->node, sizeof(c->peer));
		rc = bcn_auth_client_mac(c->k, c->nc, c->ns, c->node, mac);
		if (!rc)
			rc = bcn_frame_ctl_encode(BCN_FRAME_AUTH, c->node, mac, out);
		if (!rc)
			c->state = BCN_AUTH_WAIT_WELCOME;
		break;
	case BCN_AUTH_WAIT_WELCOME:
		if (!is_ctl(f, BCN_FRAME_WELCOME))
			break;
		rc = bcn_auth_server_mac(c->k, c->nc, c->ns, c->node, mac);
		if (!rc && !bcn_auth_mac_equal(mac, f->auth))
			rc = -EKEYREJECTED;
		if (!rc)
			rc = session_keys(c->k, c->nc, c->ns, c->node, &c->tx,
					  &c->rx);
		if (!rc)
			c->state = BCN_AUTH_ESTABLISHED;
		break;
	case BCN_AUTH_ESTABLISHED:
		if (f->hdr.kind == BCN_FRAME_ACK)
			rc = BCN_AUTH_PASS;
		break;
	default:
		break;
	}
	explicit_bzero(mac, sizeof(mac));
	if (rc < 0)
		c->state = BCN_AUTH_FAILED;
	return rc;
}

int bcn_auth_server_init(struct bcn_auth_server *s,
			 const struct bcn_auth_key *key, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->state = BCN_AUTH_FAILED;
	if (!key || key->node[0] || !name || copy_name(s->name, name))
		return -EINVAL;
	s->key = key;
	s->state = BCN_AUTH_WAIT_HELLO;
	return 0;
}

/* WAIT_AUTH: checks the collector's MAC, answers WELCOME. */
static int server_auth(struct bcn_auth_server *s, const struct bcn_frame *f,
		       struct bcn_buf *out)
{
	uint8_t mac[BCN_AUTH_LEN];
	int rc;

	if (!is_ctl(f, BCN_FRAME_AUTH) || strcmp(f->node, s->node) != 0)
		return -EPROTO;
	rc = bcn_auth_client_mac(s->k, s->nc, s->ns, s->node, mac);
	if (!rc && !bcn_auth_mac_equal(mac, f->auth))
		rc = -EKEYREJECTED;
	if (!rc)
		rc = bcn_auth_server_mac(s->k, s->nc, s->ns, s->node, mac);
	if (!rc)
		rc = bcn_frame_ctl_encode(BCN_FRAME_WELCOME, s->name, mac, out);
	if (!rc)
		rc = session_keys(s->k, s->nc, s->ns, s->node, &s->rx, &s->tx);
	explicit_bzero(mac, sizeof(mac));
	explicit_bzero(s->k, sizeof(s->k));     /* the frame keys suffice */
	return rc;
}

int bcn_auth_server_step(struct bcn_auth_server *s, const struct bcn_frame *f,
			 struct bcn_buf *out)
{
	int rc = -EPROTO;

	switch (s->state) {
	case BCN_AUTH_WAIT_HELLO:
		if (f->hdr.version != BCN_PROTO_VERSION) {
			rc = -EPROTONOSUPPORT;
			break;
		}
		if (!is_ctl(f, BCN_FRAME_HELLO) || !f->node[0])
			break;
		memcpy(s->node, f->node, sizeof(s->node));
		memcpy(s->nc, f->auth, BCN_AUTH_LEN);
		rc = node_key_of(s->key, s->node, s->k);
		if (!rc)
			rc = bcn_auth_nonce(s->ns);
		if (!rc)
			rc = bcn_frame_ctl_encode(BCN_FRAME_CHALLENGE, s->name,
						  s->ns, out);
		if (!rc)
			s->state = BCN_AUTH_WAIT_AUTH;
		break;
	case BCN_AUTH_WAIT_AUTH:
		rc = server_auth(s, f, out);
		if (!rc)
			s->state = BCN_AUTH_ESTABLISHED;
		break;
	case BCN_AUTH_ESTABLISHED:
		if (f->hdr.kind == BCN_FRAME_DATA && strcmp(f->node, s->node) == 0)
			rc = BCN_AUTH_PASS;
		break;
	default:
		break;
	}
	if (rc < 0)
		s->state = BCN_AUTH_FAILED;
	return rc;
}

const char *bcn_auth_state_name(enum bcn_auth_state st)
{
	static const char *const names[] = {
		[BCN_AUTH_IDLE] = "idle",
		[BCN_AUTH_WAIT_CHALLENGE] = "wait-challenge",
		[BCN_AUTH_WAIT_WELCOME] = "wait-welcome",
		[BCN_AUTH_WAIT_HELLO] = "wait-hello",
		[BCN_AUTH_WAIT_AUTH] = "wait-auth",
		[BCN_AUTH_ESTABLISHED] = "established",
		[BCN_AUTH_FAILED] = "failed",
	};

	if ((unsigned)st >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[st];
}
