/* The pure parts of beacon-web's metrics (web/metrics.h): the address
 * list, the counters, the label escaping. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/error.h"
#include "web/metrics.h"

/* upper bounds of the latency buckets, ns (the last: +Inf) */
static const int64_t bucket_ns[BCN_WEB_BUCKETS - 1] = {
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000, 5000000000,
	10000000000
};

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff,
				      0xff };

/* One entry "ADDR" or "ADDR/BITS" of n bytes into *net. */
static int parse_net(const char *s, size_t n, struct bcn_web_net *net)
{
	char a[INET6_ADDRSTRLEN + 8];
	const char *slash = memchr(s, '/', n);
	size_t al = slash ? (size_t)(slash - s) : n;
	unsigned max;

	if (!al || al >= sizeof(a))
		return -BCN_ESYNTAX;
	memcpy(a, s, al);
	a[al] = '\0';
	memset(net, 0, sizeof(*net));
	if (inet_pton(AF_INET, a, net->addr) == 1) {
		net->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, a, net->addr) == 1) {
		net->family = AF_INET6;
		max = 128;
	} else {
		return -BCN_ESYNTAX;
	}
	net->bits = max;
	if (slash) {
		const char *d = slash + 1, *e = s + n;
		unsigned v = 0;

		if (d == e || e - d > 3)
			return -BCN_ESYNTAX;
		for (; d < e; d++) {
			if (*d < '0' || *d > '9')
				return -BCN_ESYNTAX;
			v = v * 10 + (unsigned)(*d - '0');
		}
		if (v > max)
			return -BCN_ESYNTAX;
		net->bits = v;
	}
	/* an IPv4-mapped block is its IPv4 block, as peers are */
	if (net->family == AF_INET6 && net->bits >= 96 &&
	    !memcmp(net->addr, v4mapped, sizeof(v4mapped))) {
		memmove(net->addr, net->addr + 12, 4);
		memset(net->addr + 4, 0, 12);
		net->family = AF_INET;
		net->bits -= 96;
	}
	return 0;
}

int bcn_web_metrics_allow_parse(struct bcn_web_metrics *m, const char *list,
				char *err, size_t errlen)
{
	const char *s = list;

	m->nallow = 0;
	while (*s) {
		size_t n;
		int rc;

		while (*s == ',' || *s == ' ' || *s == '\t')
			s++;
		n = strcspn(s, ", \t");
		if (!n)
			break;
		if (m->nallow == BCN_WEB_ALLOW_MAX) {
			snprintf(err, errlen, "web_metrics_allow: more than %d "
				 "entries", BCN_WEB_ALLOW_MAX);
			return -E2BIG;
		}
		rc = parse_net(s, n, &m->allow[m->nallow]);
		if (rc) {
			snprintf(err, errlen, "web_metrics_allow: '%.*s' is no "
				 "address or CIDR block", (int)(n > 64 ? 64 : n),
				 s);
			return rc;
		}
		m->nallow++;
		s += n;
	}
	return 0;
}

static bool in_net(const struct bcn_web_net *net, const uint8_t *a)
{
	unsigned full = net->bits / 8, rest = net->bits % 8;

	if (memcmp(net->addr, a, full))
		return false;
	return !rest || !((net->addr[full] ^ a[full]) &
			  (uint8_t)(0xff << (8 - rest)));
}

bool bcn_web_metrics_allowed(const struct bcn_web_metrics *m,
			     const char *peer)
{
	uint8_t a6[16], a4[4];
	bool v4 = inet_pton(AF_INET, peer, a4) == 1;
	bool v6 = !v4 && inet_pton(AF_INET6, peer, a6) == 1;

	if (v6 && !memcmp(a6, v4mapped, sizeof(v4mapped))) {
		memcpy(a4, a6 + 12, 4);
		v4 = true;
	}
	for (size_t i = 0; i < m->nallow; i++) {
		const struct bcn_web_net *net = &m->allow[i];

		if ((net->family == AF_INET && v4 && in_net(net, a4)) ||
		    (net->family == AF_INET6 && v6 && in_net(net, a6)))
			return true;
	}
	return false;
}

void bcn_web_metrics_observe(struct bcn_web_metrics *m, size_t ep,
			     unsigned status, int64_t ns)
{
	size_t c = status >= 100 && status < 600 ? status / 100 - 1 : 4;
	size_t b = 0;

	if (ep >= BCN_WEB_ENDPOINTS_MAX)
		return;
	if (ns < 0)
		ns = 0;
	while (b < BCN_WEB_BUCKETS - 1 && ns > bucket_ns[b])
		b++;
	atomic_fetch_add(&m->count[ep][c], 1);
	atomic_fetch_add(&m->bucket[ep][c][b], 1);
	atomic_fetch_add(&m->sum_ns[ep][c], (uint64_t)ns);
}

int bcn_web_metrics_label(struct bcn_buf *out, const char *s, size_t n)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		if (s[i] == '\\')
			rc = bcn_buf_adds(out, "\\\\");
		else if (s[i] == '"')
			rc = bcn_buf_adds(out, "\\\"");
		else if (s[i] == '\n')
			rc = bcn_buf_adds(out, "\\n");
		else
			rc = bcn_buf_add(out, &s[i], 1);
	}
	return rc;
}

int bcn_web_metrics_family(struct bcn_buf *b, const char *name,
			   const char *type, const char *help)
{
	return bcn_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help,
			      name, type);
}

int bcn_web_metrics_kv(struct bcn_buf *b, const char *name, const char *v,
		       bool first)
{
	int rc = bcn_buf_printf(b, "%s%s=\"", first ? "" : ",", name);

	if (!rc)
		rc = bcn_web_metrics_label(b, v, strlen(v));
	return rc ? rc : bcn_buf_adds(b, "\"");
}

const char *bcn_web_metrics_bucket_le(size_t b)
{
	static const char *const le[BCN_WEB_BUCKETS] = {
		"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
		"0.25", "0.5", "1", "2.5", "5", "10", "+Inf"
	};

	return b < BCN_WEB_BUCKETS ? le[b] : NULL;
}
