/* Parser of ibnetdiscover's topology file and ports (-p) formats
 * (topofile.h). Each line is copied into a bounded buffer and read with
 * a small cursor; nothing is read past len. */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/switch/topofile.h"
#include "common/error.h"
#include "proto/record.h"
#include "proto/record.h"

struct cur {
	const char *p;
};

/* The node whose port lines follow (topology format). */
struct node {
	bool open;                      /* a node header was read */
	bool sw;                        /* it is a switch */
	char guid[BCN_TOPO_GUID_MAX];
	char desc[BCN_TOPO_DESC_MAX];
	char last_guid[BCN_TOPO_GUID_MAX];      /* switchguid=, caguid= */
};

static void skip_ws(struct cur *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		c->p++;
}

static bool eat(struct cur *c, char ch)
{
	skip_ws(c);
	if (*c->p != ch)
		return false;
	c->p++;
	return true;
}

/* A decimal number up to max. */
static bool number(struct cur *c, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	const char *s;

	skip_ws(c);
	s = c->p;
	while (isdigit((unsigned char)*c->p) && v <= max)
		v = v * 10 + (uint64_t)(*c->p++ - '0');
	if (c->p == s || v > max || isdigit((unsigned char)*c->p))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Hex digits (1 to 16, an optional 0x before them) as "0x%016x". */
static bool hex_guid(const char *s, size_t n, char out[BCN_TOPO_GUID_MAX])
{
	uint64_t v = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			isxdigit((unsigned char)s[i]) ?
			tolower((unsigned char)s[i]) - 'a' + 10 : -1;

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	snprintf(out, BCN_TOPO_GUID_MAX, "0x%016" PRIx64, v);
	return true;
}

/* A string in quotes q, cut to out's size. */
static bool quoted(struct cur *c, char q, char *out, size_t cap)
{
	const char *end;
	size_t n;

	skip_ws(c);
	if (*c->p != q || !(end = strchr(c->p + 1, q)))
		return false;
	n = (size_t)(end - c->p - 1);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, c->p + 1, n);
	out[n] = 0;
	c->p = end + 1;
	return true;
}

/* An optional group "(...)" or "[...]" (a port GUID, "[ext 2]"): true
 * when absent or closed. */
static bool skip_group(struct cur *c, char open, char close)
{
	const char *e;

	skip_ws(c);
	if (*c->p != open)
		return true;
	if (!(e = strchr(c->p, close)))
		return false;
	c->p = e + 1;
	return true;
}

/* A word: up to the next blank. */
static size_t word(struct cur *c, const char **start)
{
	skip_ws(c);
	*start = c->p;
	while (*c->p && *c->p != ' ' && *c->p != '\t')
		c->p++;
	return (size_t)(c->p - *start);
}

static bool word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(s, w, n);
}

uint64_t bcn_topo_rate(unsigned width, const char *speed)
{
	static const struct { const char *name; uint64_t lane; } sp[] = {
		/* data rate of one lane, bits/s, after the line code */
		{ "SDR", 2000000000ull }, { "DDR", 4000000000ull },
		{ "QDR", 8000000000ull }, { "FDR10", 10000000000ull },
		{ "FDR", 13636363636ull }, { "EDR", 25000000000ull },
		{ "HDR", 50000000000ull }, { "NDR", 100000000000ull },
		{ "XDR", 200000000000ull },
	};
	const char *s = speed;

	if (width == 0) {       /* "4xEDR" whole */
		while (isdigit((unsigned char)*s) && width < 100)
			width = width * 10 + (unsigned)(*s++ - '0');
		if (*s != 'x' && *s != 'X')
			return 0;
		s++;
	}
	if (width != 1 && width != 2 && width != 4 && width != 8 &&
	    width != 12)
		return 0;
	for (size_t i = 0; i < sizeof(sp) / sizeof(sp[0]); i++)
		if (!strcmp(s, sp[i].name))
			return sp[i].lane / 8 * width;
	return 0;
}

/* "X-<hex>" into kind and guid; X is S (switch), H (host), R (router). */
static bool node_id(const char *id, int *kind, char guid[BCN_TOPO_GUID_MAX])
{
	if (strlen(id) < 3 || id[1] != '-')
		return false;
	switch (id[0]) {
	case 'S': *kind = BCN_TOPO_SWITCH; break;
	case 'H': case 'R': *kind = BCN_TOPO_HOST; break;
	default: return false;
	}
	return hex_guid(id + 2, strlen(id + 2), guid);
}

/* After '#': the first quoted string is the description, the last word
 * of the form <width>x<speed> the rate. */
static void comment(struct cur *c, char *desc, size_t cap, uint64_t *rate)
{
	const char *w;
	size_t n;

	desc[0] = 0;
	if (!eat(c, '#'))
		return;
	if (!quoted(c, '"', desc, cap))
		desc[0] = 0;
	while ((n = word(c, &w)) > 0) {
		char tok[16];
		uint64_t r;

		if (n >= sizeof(tok))
			continue;
		memcpy(tok, w, n);
		tok[n] = 0;
		if ((r = bcn_topo_rate(0, tok)))
			*rate = r;
	}
}

/* "Switch N "S-guid" # "desc" ..." or "Ca ..."/"Rt ...". */
static bool node_line(struct cur *c, bool sw, struct node *nd)
{
	char id[BCN_TOPO_DESC_MAX];
	uint32_t nports;
	uint64_t rate = 0;
	int kind;

	if (!number(c, BCN_TOPO_PORT_MAX, &nports) ||
	    !quoted(c, '"', id, sizeof(id)))
		return false;
	if (!node_id(id, &kind, nd->guid)) {
		if (!nd->last_guid[0])
			return false;
		memcpy(nd->guid, nd->last_guid, sizeof(nd->guid));
	}
	comment(c, nd->desc, sizeof(nd->desc), &rate);
	nd->open = true;
	nd->sw = sw;
	nd->last_guid[0] = 0;
	return true;
}

/* "[p][ext q](portguid) "X-guid"[rp](rportguid) # "desc" lid N 4xSDR"
 * of a switch (ports of other nodes are checked and skipped). */
static int port_line(struct cur *c, const struct node *nd,
		     bcn_topo_link_fn *fn, void *arg)
{
	struct bcn_topo_link l;
	char id[BCN_TOPO_DESC_MAX];
	int kind;

	memset(&l, 0, sizeof(l));
	if (!nd->open || !eat(c, '[') || !number(c, BCN_TOPO_PORT_MAX, &l.port) ||
	    !eat(c, ']'))
		return -BCN_ESYNTAX;
	if (!skip_group(c, '[', ']') || !skip_group(c, '(', ')') ||
	    !quoted(c, '"', id, sizeof(id)) || !node_id(id, &kind, l.remote) ||
	    !eat(c, '[') || !number(c, BCN_TOPO_PORT_MAX, &l.remote_port) ||
	    !eat(c, ']') || !skip_group(c, '(', ')'))
		return -BCN_ESYNTAX;
	comment(c, l.remote_name, sizeof(l.remote_name), &l.rate);
	if (!nd->sw)
		return 0;
	l.remote_kind = (uint8_t)kind;
	memcpy(l.sw, nd->guid, sizeof(l.sw));
	memcpy(l.sw_name, nd->desc, sizeof(l.sw_name));
	return fn(arg, &l);
}

/* One end in the ports format: "SW 3 7 0x... 4x SDR". */
static bool ports_end(struct cur *c, int *kind, uint32_t *port,
		      char guid[BCN_TOPO_GUID_MAX], uint64_t *rate, bool speed)
{
	const char *w;
	size_t n = word(c, &w);
	uint32_t lid;
	char width[8], sp[16];

	if (word_is(w, n, "SW"))
		*kind = BCN_TOPO_SWITCH;
	else if (word_is(w, n, "CA") || word_is(w, n, "RT"))
		*kind = BCN_TOPO_HOST;
	else
		return false;
	if (!number(c, 0xffff, &lid) || !number(c, BCN_TOPO_PORT_MAX, port))
		return false;
	n = word(c, &w);
	if (!hex_guid(w, n, guid))
		return false;
	if (!speed)
		return true;
	n = word(c, &w);
	if (n == 0 || n >= sizeof(width))
		return false;
	memcpy(width, w, n);
	width[n] = 0;
	n = word(c, &w);
	if (n == 0 || n >= sizeof(sp))
		return false;
	memcpy(sp, w, n);
	sp[n] = 0;
	*rate = bcn_topo_rate((unsigned)strtoul(width, NULL, 10), sp);
	return true;
}

/* "SW 3 7 0xG 4x SDR - SW 4 3 0xG ( 'a' - 'b' )"; an unconnected port
 * ends after its speed with its description alone. */
static int ports_line(struct cur *c, bcn_topo_link_fn *fn, void *arg)
{
	struct bcn_topo_link l;
	int kind, rkind;

	memset(&l, 0, sizeof(l));
	if (!ports_end(c, &kind, &l.port, l.sw, &l.rate, true))
		return -BCN_ESYNTAX;
	if (!eat(c, '-'))
		return quoted(c, '\'', l.sw_name, sizeof(l.sw_name)) ?
		       0 : -BCN_ESYNTAX;
	if (!ports_end(c, &rkind, &l.remote_port, l.remote, NULL, false) ||
	    !eat(c, '(') || !quoted(c, '\'', l.sw_name, sizeof(l.sw_name)) ||
	    !eat(c, '-') ||
	    !quoted(c, '\'', l.remote_name, sizeof(l.remote_name)) ||
	    !eat(c, ')'))
		return -BCN_ESYNTAX;
	if (kind != BCN_TOPO_SWITCH)
		return 0;
	l.remote_kind = (uint8_t)rkind;
	return fn(arg, &l);
}

static int one_line(const char *s, struct node *nd, bcn_topo_link_fn *fn,
		    void *arg)
{
	struct cur c = { s };
	const char *w;
	size_t n;

	skip_ws(&c);
	if (*c.p == '[')
		return port_line(&c, nd, fn, arg);
	n = word(&c, &w);
	if (word_is(w, n, "Switch") || word_is(w, n, "Ca") ||
	    word_is(w, n, "Rt"))
		return node_line(&c, w[0] == 'S', nd) ? 0 : -BCN_ESYNTAX;
	if (word_is(w, n, "SW") || word_is(w, n, "CA") || word_is(w, n, "RT")) {
		c.p = w;
		return ports_line(&c, fn, arg);
	}
	if ((n > 11 && !memcmp(w, "switchguid=", 11)) ||
	    (n > 7 && !memcmp(w, "caguid=", 7))) {
		const char *g = strchr(w, '=') + 1, *e = g;

		while (e < w + n && *e != '(')
			e++;
		if (!hex_guid(g, (size_t)(e - g), nd->last_guid))
			nd->last_guid[0] = 0;
	}
	if (n == 0)     /* a blank line ends a node */
		nd->open = false;
	return 0;
}

int bcn_topofile_parse(const char *buf, size_t len, bcn_topo_link_fn *fn,
		       void *arg, size_t *line)
{
	static __thread char text[BCN_TOPO_LINE_MAX + 1];
	struct node nd;
	size_t pos = 0, no = 0;
	int rc = 0;

	memset(&nd, 0, sizeof(nd));
	while (!rc && pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		no++;
		if (n > BCN_TOPO_LINE_MAX) {
			rc = -BCN_ESYNTAX;
			break;
		}
		memcpy(text, buf + pos, n);
		while (n && (text[n - 1] == '\r'))
			n--;
		text[n] = 0;
		/* a NUL inside the line would hide its rest: refuse it */
		if (strlen(text) != n) {
			rc = -BCN_ESYNTAX;
			break;
		}
		rc = one_line(text, &nd, fn, arg);
		pos = nl ? (size_t)(nl - buf) + 1 : len;
	}
	if (line)
		*line = rc ? no : 0;
	return rc;
}

void bcn_topo_link_record(const struct bcn_topo_link *l, int64_t t,
			  struct bcn_record *r)
{
	bcn_record_init(r, BCN_REC_TOPOLOGY);
	r->t = t;
	r->u.topo.sw = l->sw;
	r->u.topo.sw_name = l->sw_name;
	r->u.topo.port = l->port;
	r->u.topo.remote_kind = l->remote_kind;
	r->u.topo.remote = l->remote;
	r->u.topo.remote_port = l->remote_port;
	r->u.topo.remote_name = l->remote_name;
	r->u.topo.rate = l->rate;
}
