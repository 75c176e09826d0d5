/* Query parameters and error answers (web/web_int.h): every parameter
 * of a request must be one its endpoint knows, short and printable;
 * numbers, times and durations are parsed strictly and bounded, and a
 * bad one is a 400 that names it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "web/web_int.h"

#define NS ((int64_t)1000000000)
#define TIME_MIN (946684800ll * NS)     /* 2000-01-01 */
#define TIME_MAX (4102444800ll * NS)    /* 2100-01-01 */

int bcn_web_error(struct bcn_web_resp *p, unsigned status, const char *msg,
		  const char *param)
{
	bcn_buf_reset(&p->body);
	p->status = status;
	p->type = "application/json";
	(void)(bcn_buf_adds(&p->body, "{\"error\":") ||
	       bcn_buf_add_json_str(&p->body, msg) ||
	       (param && (bcn_buf_adds(&p->body, ",\"param\":") ||
			  bcn_buf_add_json_str(&p->body, param))) ||
	       bcn_buf_adds(&p->body, "}"));
	return 0;
}

const char *bcn_web_param(const struct bcn_web_req *q, const char *name)
{
	return MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND,
					   name);
}

#define PARAMS_MAX 32             /* parameters of one request */

struct check {
	const char *const *allowed;
	size_t max;
	const char *bad;
	const char *why;
	const char *seen[PARAMS_MAX];
	size_t n;
};

/* Whether key came before (a repeated parameter is refused: which of
 * the two would count is no good question to leave open). */
static bool repeated(struct check *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->seen[i], key))
			return true;
	if (c->n < PARAMS_MAX)
		c->seen[c->n++] = key;
	return false;
}

static enum MHD_Result check_one(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	struct check *c = cls;
	const char *const *a = c->allowed;

	(void)kind;
	while (a && *a && strcmp(*a, key))
		a++;
	if (!a || !*a) {
		c->why = "unknown parameter";
	} else if (repeated(c, key)) {
		c->why = "repeated parameter";
	} else if (value && strlen(value) > c->max) {
		c->why = "parameter too long";
	} else {
		for (const char *s = value; s && *s; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				c->why = "control character in a parameter";
	}
	if (!c->why)
		return MHD_YES;
	c->bad = key;
	return MHD_NO;
}

int bcn_web_params_check(struct bcn_web_req *q, const char *const *allowed,
			 struct bcn_web_resp *p)
{
	static __thread char name[64];
	struct check c = { .allowed = allowed, .max = q->w->cfg->param_max };

	MHD_get_connection_values(q->conn, MHD_GET_ARGUMENT_KIND, check_one, &c);
	if (!c.why)
		return 0;
	/* the name, cut and made printable, for the answer */
	size_t i = 0;

	for (; c.bad && c.bad[i] && i < sizeof(name) - 1; i++)
		name[i] = (c.bad[i] >= 0x20 && c.bad[i] < 0x7f) ? c.bad[i] : '?';
	name[i] = '\0';
	bcn_web_error(p, 400, c.why, name);
	return -EINVAL;
}

static int bad(struct bcn_web_resp *p, const char *name, const char *why)
{
	bcn_web_error(p, 400, why, name);
	return -EINVAL;
}

int bcn_web_param_u64(struct bcn_web_req *q, struct bcn_web_resp *p,
		      const char *name, uint64_t def, uint64_t min,
		      uint64_t max, uint64_t *out)
{
	const char *s = bcn_web_param(q, name);
	char *end;
	uint64_t v;

	if (!s) {
		*out = def;
		return 0;
	}
	if (!*s || *s < '0' || *s > '9')
		return bad(p, name, "not a number");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return bad(p, name, "not a number");
	if (v < min || v > max)
		return bad(p, name, "out of range");
	*out = v;
	return 0;
}

int bcn_web_param_time(struct bcn_web_req *q, struct bcn_web_resp *p,
		       const char *name, int64_t def, int64_t *out)
{
	const char *s = bcn_web_param(q, name);
	int64_t v;

	if (!s) {
		*out = def;
		return 0;
	}
	if (bcn_timefmt_parse(s, strlen(s), &v))
		return bad(p, name, "not a time (epoch seconds or ISO 8601)");
	if (v < TIME_MIN || v > TIME_MAX)
		return bad(p, name, "out of range");
	*out = v;
	return 0;
}

int bcn_web_param_duration(struct bcn_web_req *q, struct bcn_web_resp *p,
			   const char *name, int64_t def, int64_t min,
			   int64_t max, int64_t *out)
{
	const char *s = bcn_web_param(q, name);
	int64_t v;

	if (!s) {
		*out = def;
		return 0;
	}
	if (bcn_timefmt_parse_duration(s, strlen(s), &v))
		return bad(p, name, "not a duration (90, 15m, 1h, 7d)");
	if (v < min || v > max)
		return bad(p, name, "out of range");
	*out = v;
	return 0;
}

int bcn_web_param_word(struct bcn_web_req *q, struct bcn_web_resp *p,
		       const char *name, size_t max, const char **out)
{
	const char *s = bcn_web_param(q, name);

	*out = "";
	if (!s)
		return 0;
	if (strlen(s) > max)
		return bad(p, name, "too long");
	for (const char *c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._:/@+-", *c))
			return bad(p, name, "bad character");
	*out = s;
	return 0;
}

int bcn_web_param_range(struct bcn_web_req *q, struct bcn_web_resp *p,
			int64_t def_span, int64_t max_ns, int64_t *from,
			int64_t *to)
{
	int64_t now = bcn_web_now();

	if (bcn_web_param_time(q, p, "to", now, to))
		return -EINVAL;
	if (bcn_web_param_time(q, p, "from", *to - def_span, from))
		return -EINVAL;
	if (*to <= *from)
		return bad(p, "to", "to must be after from");
	if (*to - *from > max_ns)
		return bad(p, "from", "time range too long");
	return 0;
}
