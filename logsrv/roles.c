/* The role map (logsrv/roles.h): node name -> role, an open-addressing
 * hash table built from the file's expanded hostlists. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "common/text.h"
#include "logsrv/roles.h"
#include "proto/record.h"

#define BCN_X_RN(id, name) name,
const char *const bcn_role_names[BCN_ROLE_MAX + 1] = {
	BCN_ROLES(BCN_X_RN) NULL
};
#undef BCN_X_RN

#define T(x) (1u << (x))

uint32_t bcn_role_types(int role)
{
	uint32_t own;

	switch (role) {
	case BCN_ROLE_ANY: return ~0u;
	case BCN_ROLE_COMPUTE:
		own = T(BCN_REC_IO) | T(BCN_REC_TRACE_LOSS) | T(BCN_REC_PORT);
		break;
	case BCN_ROLE_FORWARDING:
		own = T(BCN_REC_FWD_REQ) | T(BCN_REC_FWD_RPC) | T(BCN_REC_PORT);
		break;
	case BCN_ROLE_OSS: own = T(BCN_REC_OST) | T(BCN_REC_PORT); break;
	case BCN_ROLE_MDS: own = T(BCN_REC_MDS) | T(BCN_REC_PORT); break;
	case BCN_ROLE_SWITCH: own = T(BCN_REC_PORT) | T(BCN_REC_TOPOLOGY); break;
	case BCN_ROLE_SCHEDULER: own = T(BCN_REC_JOB); break;
	default: return 0;
	}
	/* every collector reports its own health, about itself only: the
	 * record's entity is its sender */
	return own | T(BCN_REC_HEALTH);
}

struct slot {
	char *name;             /* NULL: empty */
	int role;
};

struct bcn_roles {
	struct slot *slots;
	size_t cap, n;          /* cap a power of two, n < cap / 2 */
	int dflt;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static struct slot *find(const struct bcn_roles *r, const char *name)
{
	size_t i = hash(name) & (r->cap - 1);

	while (r->slots[i].name && strcmp(r->slots[i].name, name))
		i = (i + 1) & (r->cap - 1);
	return &r->slots[i];
}

static int grow(struct bcn_roles *r)
{
	struct bcn_roles big = { NULL, r->cap ? r->cap * 2 : 64, 0, r->dflt };

	big.slots = calloc(big.cap, sizeof(*big.slots));
	if (!big.slots)
		return -ENOMEM;
	for (size_t i = 0; i < r->cap; i++)
		if (r->slots[i].name)
			*find(&big, r->slots[i].name) = r->slots[i];
	big.n = r->n;
	free(r->slots);
	*r = big;
	return 0;
}

static int put(struct bcn_roles *r, const char *name, int role)
{
	struct slot *s;
	int rc;

	if ((r->n + 1) * 2 > r->cap && (rc = grow(r)))
		return rc;
	s = find(r, name);
	if (!s->name) {
		if (r->n >= BCN_ROLES_NODES_MAX)
			return -BCN_ETOOBIG;
		s->name = strdup(name);
		if (!s->name)
			return -ENOMEM;
		r->n++;
	}
	s->role = role;
	return 0;
}

static int parse_role(const char *p, size_t len)
{
	for (int i = 0; i < BCN_ROLE_MAX; i++)
		if (strlen(bcn_role_names[i]) == len &&
		    !memcmp(bcn_role_names[i], p, len))
			return i;
	return -1;
}

/* One "<hostlist> <role>" line. */
static int line(struct bcn_roles *r, const char *p, const char *end,
		char *err, size_t errlen)
{
	const char *h = p, *he, *w, *we;
	struct bcn_hostlist hl;
	char why[160];
	int role, rc;

	while (p < end && !bcn_text_is_blank(*p))
		p++;
	he = p;
	w = bcn_text_skip_space(p, end);
	we = w;
	while (we < end && !bcn_text_is_blank(*we))
		we++;
	if (w == end || bcn_text_skip_space(we, end) != end) {
		bcn_seterr(err, errlen, "want \"<hostlist> <role>\"");
		return -BCN_ESYNTAX;
	}
	role = parse_role(w, (size_t)(we - w));
	if (role < 0) {
		bcn_seterr(err, errlen, "unknown role \"%.*s\"", (int)(we - w > 32 ?
			   32 : we - w), w);
		return -BCN_ESYNTAX;
	}
	rc = bcn_hostlist_expand(h, (size_t)(he - h), BCN_ROLES_NODES_MAX, &hl,
				 why, sizeof(why));
	if (rc) {
		bcn_seterr(err, errlen, "bad hostlist: %s", why);
		return rc == -ENOMEM ? rc : -BCN_ESYNTAX;
	}
	for (size_t i = 0; !rc && i < hl.n; i++)
		rc = put(r, hl.hosts[i], role);
	bcn_hostlist_free(&hl);
	if (rc == -BCN_ETOOBIG)
		bcn_seterr(err, errlen, "more than %u nodes", BCN_ROLES_NODES_MAX);
	return rc;
}

int bcn_roles_parse(const char *buf, size_t len, int dflt,
		    struct bcn_roles **out, char *err, size_t errlen)
{
	const char *pos = buf, *end = buf + len;
	struct bcn_roles *r = calloc(1, sizeof(*r));
	struct bcn_text_line l;
	uint64_t lineno = 0;
	char why[200];
	int rc = r ? grow(r) : -ENOMEM;

	*out = NULL;
	if (r)
		r->dflt = dflt;
	while (!rc && bcn_text_next_line(&pos, end, &l)) {
		const char *p = bcn_text_skip_space(l.p, l.end);
		const char *e = bcn_text_trim_space(p, l.end);

		lineno++;
		if (p == e || *p == '#')
			continue;
		if (memchr(p, '\0', (size_t)(e - p))) {
			bcn_seterr(why, sizeof(why), "NUL byte");
			rc = -BCN_ESYNTAX;
		} else {
			rc = line(r, p, e, why, sizeof(why));
		}
		if (rc)
			bcn_seterr(err, errlen, "line %llu: %s",
				   (unsigned long long)lineno, why);
	}
	if (rc) {
		bcn_roles_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int bcn_roles_load(const char *path, int dflt, struct bcn_roles **out,
		   char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL, why[256];
	bool said = false;
	ssize_t n = 0;
	int fd, rc = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if (st.st_size > BCN_ROLES_FILE_MAX) {
		rc = -BCN_ETOOBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (n < st.st_size) {
		ssize_t k = read(fd, buf + n, (size_t)(st.st_size - n));

		if (k <= 0) {
			rc = k < 0 ? -errno : -EIO;
			goto out;
		}
		n += k;
	}
	why[0] = '\0';
	rc = bcn_roles_parse(buf, (size_t)n, dflt, out, why, sizeof(why));
	if (rc && why[0]) {
		bcn_seterr(err, errlen, "%s: %s", path, why);
		said = true;
	}
out:
	if (rc && !said)
		bcn_seterr(err, errlen, "%s: %s", path, bcn_strerror(rc));
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

int bcn_roles_of(const struct bcn_roles *r, const char *node)
{
	const struct slot *s;

	if (!r)
		return BCN_ROLE_ANY;
	s = find(r, node);
	return s->name ? s->role : r->dflt;
}

size_t bcn_roles_count(const struct bcn_roles *r)
{
	return r ? r->n : 0;
}

void bcn_roles_free(struct bcn_roles *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->cap; i++)
		free(r->slots[i].name);
	free(r->slots);
	free(r);
}
