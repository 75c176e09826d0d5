/* The shard map: a pure parser over a (pointer, length) buffer, a loader
 * that reads the file and calls it, and an open-addressing hash table from
 * node name to shard for constant-time lookups. See docs/shardmap.md. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/hostlist.h"
#include "delivery/shardmap.h"

/* Most fields on one line: keyword, host list and three key=value pairs,
 * plus one so that an extra field is noticed. */
#define SM_MAX_TOKENS   6
/* Smallest hash table; the table keeps at least two slots per node. */
#define SM_SLOTS_MIN    64
/* Longest text quoted from the input in a message. */
#define SM_QUOTE_MAX    64

_Static_assert(BCN_SHARDMAP_MAX_SHARDS < (1 << 24), "shard index fits 24 bits");
_Static_assert(BCN_HOSTLIST_NAME_MAX < 256, "name length fits 8 bits");

/* Hash table slot: a node name (in a shard's arena) and its shard. */
struct sm_slot {
	const char *name;       /* NULL: empty slot */
	uint32_t hash;
	unsigned shard : 24;
	unsigned len : 8;
};

/* Storage a shard owns behind its public fields. */
struct sm_priv {
	char *arena;            /* the expanded names */
	char *expr;             /* NUL-terminated copy of the host list */
};

struct bcn_shardmap {
	struct bcn_shard *shards;
	struct sm_priv *priv;
	size_t nshards, cap;
	struct bcn_shard def;
	bool has_default;
	struct sm_slot *slots;
	size_t nslots;          /* a power of two, or 0 */
	size_t nhosts;
};

/* A field of a line: text and 0-based column. */
struct sm_tok {
	const char *p;
	size_t len;
	size_t col;
};

struct sm_parser {
	struct bcn_shardmap *m;
	size_t max_hosts;
	unsigned line;
	unsigned default_line;
	char *err;
	size_t errlen;
};

static int sm_fail(struct sm_parser *p, int rc, const struct sm_tok *at,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Writes "line L[, column C]: message" to the caller's err and returns rc. */
static int sm_fail(struct sm_parser *p, int rc, const struct sm_tok *at,
		   const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	if (!p->err || p->errlen == 0)
		return rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at)
		snprintf(p->err, p->errlen, "line %u, column %zu: %s", p->line,
			 at->col + 1, msg);
	else
		snprintf(p->err, p->errlen, "line %u: %s", p->line, msg);
	return rc;
}

/* Length of t to quote in a message. */
static int sm_qlen(const struct sm_tok *t)
{
	return (int)(t->len < SM_QUOTE_MAX ? t->len : SM_QUOTE_MAX);
}

static bool sm_tok_is(const struct sm_tok *t, const char *word)
{
	size_t n = strlen(word);

	return t->len == n && memcmp(t->p, word, n) == 0;
}

static uint32_t sm_hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Returns the slot holding name, or the empty slot where it would go. */
static struct sm_slot *sm_probe(const struct sm_slot *slots, size_t nslots,
				const char *name, size_t len, uint32_t h)
{
	size_t mask = nslots - 1, i = h & mask;

	for (;;) {
		const struct sm_slot *s = &slots[i];

		if (!s->name || (s->hash == h && s->len == len &&
				 memcmp(s->name, name, len) == 0))
			return (struct sm_slot *)s;
		i = (i + 1) & mask;
	}
}

/* Makes room for want nodes in the table, keeping the load at most 1/2. */
static int sm_grow(struct bcn_shardmap *m, size_t want)
{
	struct sm_slot *ns, *d;
	size_t n = m->nslots ? m->nslots : SM_SLOTS_MIN, i;

	while (n / 2 < want)
		n *= 2;
	if (n == m->nslots)
		return 0;
	ns = calloc(n, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < m->nslots; i++) {
		const struct sm_slot *s = &m->slots[i];

		if (!s->name)
			continue;
		d = sm_probe(ns, n, s->name, s->len, s->hash);
		*d = *s;
	}
	free(m->slots);
	m->slots = ns;
	m->nslots = n;
	return 0;
}

/* Characters of an endpoint host name. */
static bool sm_hostchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Parses a port number p[0..len-1]: 1..65535, decimal digits only. */
static int sm_port(const char *s, size_t len, uint16_t *port)
{
	unsigned v = 0;
	size_t i;

	if (len == 0 || len > 5)
		return -BCN_ERANGE;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -BCN_ERANGE;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -BCN_ERANGE;
	*port = (uint16_t)v;
	return 0;
}

/* Parses "[v6addr]:port" from v (v.p[0] is '['). */
static int sm_endpoint6(struct sm_parser *p, const struct sm_tok *v,
			struct bcn_shard_endpoint *ep)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned char bin[16];
	const char *close = memchr(v->p, ']', v->len);
	size_t alen = close ? (size_t)(close - v->p) - 1 : 0;

	if (!close || alen == 0 || alen >= sizeof(addr))
		return sm_fail(p, -BCN_ESYNTAX, v, "bad IPv6 endpoint '%.*s'",
			       sm_qlen(v), v->p);
	memcpy(addr, v->p + 1, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET6, addr, bin) != 1)
		return sm_fail(p, -BCN_ESYNTAX, v, "bad IPv6 address '%s'", addr);
	if ((size_t)(close - v->p) + 1 >= v->len || close[1] != ':')
		return sm_fail(p, -BCN_ESYNTAX, v, "missing ':port' in '%.*s'",
			       sm_qlen(v), v->p);
	if (sm_port(close + 2, v->len - (size_t)(close - v->p) - 2, &ep->port))
		return sm_fail(p, -BCN_ERANGE, v,
			       "port must be a number from 1 to 65535 in '%.*s'",
			       sm_qlen(v), v->p);
	memcpy(ep->host, addr, alen + 1);
	ep->ipv6 = true;
	return 0;
}

/* Parses an endpoint "host:port" or "[v6addr]:port" from v into ep. */
static int sm_endpoint(struct sm_parser *p, const struct sm_tok *v,
		       struct bcn_shard_endpoint *ep)
{
	const char *colon;
	size_t hlen, i;

	memset(ep, 0, sizeof(*ep));
	if (v->p[0] == '[')
		return sm_endpoint6(p, v, ep);
	colon = memchr(v->p, ':', v->len);
	if (!colon)
		return sm_fail(p, -BCN_ESYNTAX, v, "missing ':port' in '%.*s'",
			       sm_qlen(v), v->p);
	hlen = (size_t)(colon - v->p);
	if (memchr(colon + 1, ':', v->len - hlen - 1))
		return sm_fail(p, -BCN_ESYNTAX, v,
			       "write an IPv6 endpoint as [address]:port, not '%.*s'",
			       sm_qlen(v), v->p);
	if (hlen == 0 || hlen > BCN_SHARDMAP_HOST_MAX)
		return sm_fail(p, -BCN_ERANGE, v,
			       "endpoint host must have 1 to %d characters",
			       BCN_SHARDMAP_HOST_MAX);
	for (i = 0; i < hlen; i++)
		if (!sm_hostchar(v->p[i]))
			return sm_fail(p, -BCN_ESYNTAX, v,
				       "bad character in endpoint host '%.*s'",
				       (int)hlen, v->p);
	if (sm_port(colon + 1, v->len - hlen - 1, &ep->port))
		return sm_fail(p, -BCN_ERANGE, v,
			       "port must be a number from 1 to 65535 in '%.*s'",
			       sm_qlen(v), v->p);
	memcpy(ep->host, v->p, hlen);
	ep->host[hlen] = '\0';
	return 0;
}

/* Checks and stores a shard name. */
static int sm_name(struct sm_parser *p, const struct sm_tok *v,
		   struct bcn_shard *sh)
{
	size_t i;

	if (v->len > BCN_SHARDMAP_NAME_MAX)
		return sm_fail(p, -BCN_ERANGE, v,
			       "shard name longer than %d characters",
			       BCN_SHARDMAP_NAME_MAX);
	for (i = 0; i < v->len; i++)
		if (!sm_hostchar(v->p[i]))
			return sm_fail(p, -BCN_ESYNTAX, v,
				       "bad character in shard name '%.*s'",
				       sm_qlen(v), v->p);
	memcpy(sh->name, v->p, v->len);
	sh->name[v->len] = '\0';
	return 0;
}

/* Parses the key=value fields t[0..n-1] into sh; name= only if allow_name. */
static int sm_keys(struct sm_parser *p, const struct sm_tok *t, size_t n,
		   bool allow_name, struct bcn_shard *sh)
{
	bool seen[3] = { false, false, false };
	static const char *const keys[3] = { "primary", "fallback", "name" };
	struct sm_tok k, v;
	const char *eq;
	size_t i, j;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		eq = memchr(t[i].p, '=', t[i].len);
		if (!eq)
			return sm_fail(p, -BCN_ESYNTAX, &t[i],
				       "expected key=value, got '%.*s'",
				       sm_qlen(&t[i]), t[i].p);
		k = (struct sm_tok){ t[i].p, (size_t)(eq - t[i].p), t[i].col };
		v = (struct sm_tok){ eq + 1, t[i].len - k.len - 1,
				     t[i].col + k.len + 1 };
		for (j = 0; j < 3 && !sm_tok_is(&k, keys[j]); j++)
			;
		if (j == 3 || (j == 2 && !allow_name))
			return sm_fail(p, -BCN_ESYNTAX, &k, "unknown key '%.*s'",
				       sm_qlen(&k), k.p);
		if (seen[j])
			return sm_fail(p, -BCN_ESYNTAX, &k, "duplicate key '%s'",
				       keys[j]);
		seen[j] = true;
		if (v.len == 0)
			return sm_fail(p, -BCN_ESYNTAX, &k, "empty value for '%s'",
				       keys[j]);
		if (j == 0)
			rc = sm_endpoint(p, &v, &sh->primary);
		else if (j == 1)
			rc = sm_endpoint(p, &v, &sh->fallback);
		else
			rc = sm_name(p, &v, sh);
		sh->has_fallback = seen[1];
	}
	if (rc == 0 && !seen[0])
		return sm_fail(p, -BCN_ESYNTAX, NULL, "missing primary=host:port");
	return rc;
}

/* Puts the names of the shard at index si into the table; a node already
 * in another shard is an error naming both lines. */
static int sm_insert(struct sm_parser *p, size_t si,
		     const struct bcn_hostlist *hl)
{
	struct bcn_shardmap *m = p->m;
	struct bcn_shard *sh = &m->shards[si];
	struct sm_slot *s;
	size_t i, len;
	uint32_t h;
	int rc;

	rc = sm_grow(m, m->nhosts + hl->n);
	if (rc)
		return rc;
	for (i = 0; i < hl->n; i++) {
		len = strlen(hl->hosts[i]);
		h = sm_hash(hl->hosts[i], len);
		s = sm_probe(m->slots, m->nslots, hl->hosts[i], len, h);
		if (s->name && s->shard == si)
			continue;       /* listed twice by the same shard */
		if (s->name)
			return sm_fail(p, -BCN_ESYNTAX, NULL,
				       "node '%s' is already in shard '%s' on line %u",
				       hl->hosts[i], m->shards[s->shard].name,
				       m->shards[s->shard].line);
		*s = (struct sm_slot){ hl->hosts[i], h, (unsigned)si,
				       (unsigned)len };
		m->nhosts++;
		sh->nhosts++;
	}
	return 0;
}

/* Makes room for one more shard. */
static int sm_reserve(struct sm_parser *p)
{
	struct bcn_shardmap *m = p->m;
	size_t ncap;
	void *t;

	if (m->nshards == BCN_SHARDMAP_MAX_SHARDS)
		return sm_fail(p, -BCN_ERANGE, NULL, "more than %d shards",
			       BCN_SHARDMAP_MAX_SHARDS);
	if (m->nshards < m->cap)
		return 0;
	ncap = m->cap ? m->cap * 2 : 16;
	t = realloc(m->shards, ncap * sizeof(*m->shards));
	if (!t)
		return -ENOMEM;
	m->shards = t;
	t = realloc(m->priv, ncap * sizeof(*m->priv));
	if (!t)
		return -ENOMEM;
	m->priv = t;
	m->cap = ncap;
	return 0;
}

/* Checks that the name of shard si is not used by an earlier shard. */
static int sm_unique_name(struct sm_parser *p, size_t si)
{
	const struct bcn_shardmap *m = p->m;
	size_t i;

	if (strcmp(m->shards[si].name, "default") == 0)
		return sm_fail(p, -BCN_ESYNTAX, NULL,
			       "shard name 'default' is reserved");
	for (i = 0; i < si; i++)
		if (strcmp(m->shards[i].name, m->shards[si].name) == 0)
			return sm_fail(p, -BCN_ESYNTAX, NULL,
				       "shard name '%s' already used on line %u",
				       m->shards[i].name, m->shards[i].line);
	return 0;
}

/* Expands the host list t of shard si into hl and hands the names' arena
 * and a copy of the expression to the map. */
static int sm_hosts(struct sm_parser *p, const struct sm_tok *t, size_t si,
		    struct bcn_hostlist *hl)
{
	struct bcn_shardmap *m = p->m;
	char herr[256];
	int rc;

	rc = bcn_hostlist_expand(t->p, t->len, p->max_hosts - m->nhosts, hl,
				 herr, sizeof(herr));
	if (rc == -ENOMEM)
		return rc;
	if (rc == -BCN_ETOOBIG)
		return sm_fail(p, rc, t,
			       "host list '%.*s': the map would name more than %zu nodes",
			       sm_qlen(t), t->p, p->max_hosts);
	if (rc)
		return sm_fail(p, rc, t, "host list '%.*s': %s", sm_qlen(t),
			       t->p, herr);
	m->priv[si].arena = hl->arena;
	hl->arena = NULL;
	m->priv[si].expr = malloc(t->len + 1);
	if (!m->priv[si].expr)
		return -ENOMEM;
	memcpy(m->priv[si].expr, t->p, t->len);
	m->priv[si].expr[t->len] = '\0';
	m->shards[si].hostlist = m->priv[si].expr;
	return 0;
}

/* Handles "shard HOSTLIST key=value...", t[0] being the keyword. Fields
 * are checked from left to right. */
static int sm_shard_line(struct sm_parser *p, const struct sm_tok *t, size_t n)
{
	struct bcn_shardmap *m = p->m;
	struct bcn_hostlist hl = { 0 };
	struct bcn_shard *sh;
	size_t si = m->nshards;
	int rc;

	if (n < 2)
		return sm_fail(p, -BCN_ESYNTAX, NULL, "shard: missing host list");
	rc = sm_reserve(p);
	if (rc)
		return rc;
	sh = &m->shards[si];
	memset(sh, 0, sizeof(*sh));
	m->priv[si] = (struct sm_priv){ NULL, NULL };
	m->nshards++;   /* from here on bcn_shardmap_free() owns the shard */
	sh->index = si;
	sh->line = p->line;
	sh->hostlist = "";
	snprintf(sh->name, sizeof(sh->name), "shard%zu", si);
	rc = sm_hosts(p, &t[1], si, &hl);
	if (!rc)
		rc = sm_keys(p, t + 2, n - 2, true, sh);
	if (!rc)
		rc = sm_unique_name(p, si);
	if (!rc)
		rc = sm_insert(p, si, &hl);
	bcn_hostlist_free(&hl);
	return rc;
}

/* Handles "default key=value...", t[0] being the keyword. */
static int sm_default_line(struct sm_parser *p, const struct sm_tok *t,
			   size_t n)
{
	struct bcn_shard *d = &p->m->def;
	int rc;

	if (p->default_line)
		return sm_fail(p, -BCN_ESYNTAX, NULL,
			       "second default line (the first is on line %u)",
			       p->default_line);
	memset(d, 0, sizeof(*d));
	d->line = p->line;
	d->is_default = true;
	d->hostlist = "";
	snprintf(d->name, sizeof(d->name), "default");
	rc = sm_keys(p, t + 1, n - 1, false, d);
	if (rc)
		return rc;
	p->default_line = p->line;
	p->m->has_default = true;
	return 0;
}

/* Splits line[0..len-1] into fields at blanks, up to a '#' that starts a
 * field; control characters are errors. */
static int sm_split(struct sm_parser *p, const char *line, size_t len,
		    struct sm_tok *t, size_t *n)
{
	size_t i = 0, start;
	struct sm_tok at;

	*n = 0;
	while (i < len) {
		if (line[i] == ' ' || line[i] == '\t') {
			i++;
			continue;
		}
		if (line[i] == '#')
			break;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t') {
			at = (struct sm_tok){ line + i, 1, i };
			if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
				return sm_fail(p, -BCN_ESYNTAX, &at,
					       "control character 0x%02x",
					       (unsigned char)line[i]);
			i++;
		}
		if (*n == SM_MAX_TOKENS) {
			at = (struct sm_tok){ line + start, i - start, start };
			return sm_fail(p, -BCN_ESYNTAX, &at, "too many fields");
		}
		t[(*n)++] = (struct sm_tok){ line + start, i - start, start };
	}
	return 0;
}

/* Parses one line (without its line end). */
static int sm_line(struct sm_parser *p, const char *line, size_t len)
{
	struct sm_tok t[SM_MAX_TOKENS];
	size_t n;
	int rc;

	if (len > BCN_SHARDMAP_LINE_MAX)
		return sm_fail(p, -BCN_ERANGE, NULL, "line longer than %d bytes",
			       BCN_SHARDMAP_LINE_MAX);
	rc = sm_split(p, line, len, t, &n);
	if (rc || n == 0)
		return rc;
	if (sm_tok_is(&t[0], "shard"))
		return sm_shard_line(p, t, n);
	if (sm_tok_is(&t[0], "default"))
		return sm_default_line(p, t, n);
	return sm_fail(p, -BCN_ESYNTAX, &t[0], "unknown keyword '%.*s'",
		       sm_qlen(&t[0]), t[0].p);
}

int bcn_shardmap_parse_max(const char *buf, size_t len, size_t max_hosts,
			   struct bcn_shardmap **out, char *err, size_t errlen)
{
	struct sm_parser p = { .err = err, .errlen = errlen };
	size_t pos = 0, end, llen;
	const char *nl;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (!buf && len))
		return -EINVAL;
	*out = NULL;
	p.m = calloc(1, sizeof(*p.m));
	if (!p.m)
		return -ENOMEM;
	p.max_hosts = max_hosts < BCN_SHARDMAP_MAX_HOSTS ? max_hosts :
			BCN_SHARDMAP_MAX_HOSTS;
	while (rc == 0 && pos < len) {
		p.line++;
		nl = memchr(buf + pos, '\n', len - pos);
		end = nl ? (size_t)(nl - buf) : len;
		llen = end - pos;
		if (llen > 0 && buf[end - 1] == '\r')
			llen--;
		rc = sm_line(&p, buf + pos, llen);
		pos = end + 1;
	}
	if (rc == 0 && p.m->nshards == 0 && !p.m->has_default) {
		rc = -BCN_ESYNTAX;
		if (err && errlen)
			snprintf(err, errlen, "no shard or default line");
	}
	if (rc) {
		bcn_shardmap_free(p.m);
		return rc;
	}
	p.m->def.index = p.m->nshards;
	*out = p.m;
	return 0;
}

int bcn_shardmap_parse(const char *buf, size_t len, struct bcn_shardmap **out,
		       char *err, size_t errlen)
{
	return bcn_shardmap_parse_max(buf, len, BCN_SHARDMAP_MAX_HOSTS, out,
				      err, errlen);
}

int bcn_shardmap_load(const char *path, struct bcn_shardmap **out,
		      char *err, size_t errlen)
{
	struct bcn_buf b;
	char msg[512];
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	bcn_buf_init(&b, BCN_SHARDMAP_MAX_FILE);
	rc = bcn_buf_read_file(&b, path);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, bcn_strerror(rc));
		goto out;
	}
	rc = bcn_shardmap_parse((const char *)b.data, b.len, out, msg,
				sizeof(msg));
	if (rc && err && errlen)
		snprintf(err, errlen, "%s: %s", path, msg);
out:
	bcn_buf_free(&b);
	return rc;
}

void bcn_shardmap_free(struct bcn_shardmap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nshards; i++) {
		free(m->priv[i].arena);
		free(m->priv[i].expr);
	}
	free(m->shards);
	free(m->priv);
	free(m->slots);
	free(m);
}

const struct bcn_shard *bcn_shardmap_lookup_n(const struct bcn_shardmap *m,
					      const char *node, size_t len)
{
	const struct sm_slot *s;

	if (!m)
		return NULL;
	if (node && m->nslots && len > 0 && len <= BCN_HOSTLIST_NAME_MAX) {
		s = sm_probe(m->slots, m->nslots, node, len, sm_hash(node, len));
		if (s->name)
			return &m->shards[s->shard];
	}
	return m->has_default ? &m->def : NULL;
}

const struct bcn_shard *bcn_shardmap_lookup(const struct bcn_shardmap *m,
					    const char *node)
{
	return bcn_shardmap_lookup_n(m, node,
				     node ? strnlen(node, BCN_HOSTLIST_NAME_MAX + 1) : 0);
}

size_t bcn_shardmap_count(const struct bcn_shardmap *m)
{
	return m ? m->nshards : 0;
}

const struct bcn_shard *bcn_shardmap_get(const struct bcn_shardmap *m, size_t i)
{
	return m && i < m->nshards ? &m->shards[i] : NULL;
}

const struct bcn_shard *bcn_shardmap_default(const struct bcn_shardmap *m)
{
	return m && m->has_default ? &m->def : NULL;
}

size_t bcn_shardmap_nhosts(const struct bcn_shardmap *m)
{
	return m ? m->nhosts : 0;
}

int bcn_shardmap_endpoint_str(const struct bcn_shard_endpoint *ep, char *dst,
			      size_t dstlen)
{
	int n;

	if (!ep || !dst || !ep->host[0] || ep->port == 0)
		return -EINVAL;
	if (ep->ipv6)
		n = snprintf(dst, dstlen, "[%s]:%u", ep->host, (unsigned)ep->port);
	else
		n = snprintf(dst, dstlen, "%s:%u", ep->host, (unsigned)ep->port);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= dstlen ? -BCN_EFULL : 0;
}
