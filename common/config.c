/* Declarative configuration: table checks, value conversion, the
 * "key = value" parser (a pure function over a buffer), file loading,
 * command-line overrides, the generated --help section and the dump of
 * the effective configuration. The format is specified in docs/config.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "common/config.h"
#include "common/error.h"

#define CFG_MSG_MAX 224		/* a message before its "file:line: " */
#define CFG_SHOW_MAX 40		/* bytes of a bad value shown in messages */
#define CFG_SHOW_BUF (CFG_SHOW_MAX * 4 + 4)
#define CFG_NUM_MAX 32		/* a number with its unit */
#define CFG_WORDS_MAX 128	/* the list of enum words in a message */
#define CFG_SUGGEST_DIST 2	/* "did you mean" for keys this close */
#define CFG_DEFAULT_SOURCE "<config>"

struct cfg_ctx {
	const struct bcn_config_opt *tab;
	size_t nopts;
	char msg[CFG_MSG_MAX];	/* the last failure, without prefix */
};

/* Per option state while reading one source. */
struct cfg_seen {
	size_t line;		/* where first set in this source, 0: not yet */
	size_t count;		/* list: elements so far */
};

/* One lexed line. */
struct cfg_line {
	const char *key;
	size_t keylen;
	size_t vallen;
	bool quoted;
	char val[BCN_CFG_LINE_MAX];
};

struct cfg_unit {
	const char *suffix;
	uint64_t mult;
};

/* Largest unit first: formatting picks the first that divides exactly. */
static const struct cfg_unit cfg_size_units[] = {
	{ "T", 1ULL << 40 }, { "G", 1ULL << 30 }, { "M", 1ULL << 20 },
	{ "K", 1ULL << 10 }, { "", 1 }, { NULL, 0 },
};

static const struct cfg_unit cfg_dur_units[] = {
	{ "d", 86400000 }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 },
	{ "ms", 1 }, { "", 1000 }, { NULL, 0 },
};

static const char *const cfg_true_words[] = { "yes", "true", "on", "1", NULL };
static const char *const cfg_false_words[] = { "no", "false", "off", "0", NULL };

/* Names getopt handles itself; no table may use them. */
static const char *const cfg_reserved[] = {
	"config", "help", "dump_config", NULL
};

/* Placeholders for values in --help. */
static const char *const cfg_metavars[] = {
	[BCN_CFG_BOOL] = "BOOL", [BCN_CFG_INT] = "INT", [BCN_CFG_UINT] = "N",
	[BCN_CFG_SIZE] = "SIZE", [BCN_CFG_DURATION] = "DURATION",
	[BCN_CFG_STRING] = "STRING", [BCN_CFG_ENUM] = "WORD",
	[BCN_CFG_PATH] = "PATH",
};

static const char *const cfg_type_names[] = {
	[BCN_CFG_BOOL] = "bool", [BCN_CFG_INT] = "int",
	[BCN_CFG_UINT] = "uint", [BCN_CFG_SIZE] = "size",
	[BCN_CFG_DURATION] = "duration", [BCN_CFG_STRING] = "string",
	[BCN_CFG_ENUM] = "enum", [BCN_CFG_PATH] = "path",
};

static int cfg_msg(struct cfg_ctx *x, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records a message in x->msg and returns rc. */
static int cfg_msg(struct cfg_ctx *x, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
	return rc;
}

static bool cfg_ws(char c)
{
	return c == ' ' || c == '\t';
}

static bool cfg_keychar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.';
}

static bool cfg_ctrl(char ch)
{
	unsigned char c = (unsigned char)ch;

	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static bool cfg_is_string(const struct bcn_config_opt *o)
{
	return o->type == BCN_CFG_STRING || o->type == BCN_CFG_PATH;
}

/* Copies up to CFG_SHOW_MAX bytes of s for a message: printable ASCII as
 * is, everything else as \xNN, "..." when cut. dstlen >= CFG_SHOW_BUF. */
static void cfg_show(char *dst, size_t dstlen, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < len && i < CFG_SHOW_MAX && o + 8 < dstlen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			dst[o++] = (char)c;
			continue;
		}
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[c >> 4];
		dst[o++] = hex[c & 15];
	}
	if (i < len) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

/* Index of the word equal to s[0..len) (ignoring case), or -1. */
static int cfg_word_index(const char *const *words, const char *s, size_t len)
{
	int i;

	for (i = 0; words[i]; i++) {
		if (strlen(words[i]) == len && strncasecmp(words[i], s, len) == 0)
			return i;
	}
	return -1;
}

/* Levenshtein distance of two keys of at most BCN_CFG_KEY_MAX bytes. */
static size_t cfg_distance(const char *a, size_t an, const char *b, size_t bn)
{
	size_t row[BCN_CFG_KEY_MAX + 1];
	size_t i, j, diag, up, best;

	if (an > BCN_CFG_KEY_MAX || bn > BCN_CFG_KEY_MAX)
		return SIZE_MAX;
	for (j = 0; j <= bn; j++)
		row[j] = j;
	for (i = 1; i <= an; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= bn; j++) {
			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[bn];
}

/* The option closest to an unknown key, if close enough, or NULL. */
static const struct bcn_config_opt *cfg_suggest(const struct cfg_ctx *x,
						const char *key, size_t len)
{
	const struct bcn_config_opt *best = NULL;
	size_t i, d, bestd = CFG_SUGGEST_DIST + 1;

	for (i = 0; i < x->nopts; i++) {
		const char *name = x->tab[i].name;

		d = cfg_distance(key, len, name, strlen(name));
		if (d < bestd && d < len) {
			bestd = d;
			best = &x->tab[i];
		}
	}
	return best;
}

static const struct bcn_config_opt *cfg_find(const struct cfg_ctx *x,
					     const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < x->nopts; i++) {
		if (strlen(x->tab[i].name) == len &&
		    memcmp(x->tab[i].name, key, len) == 0)
			return &x->tab[i];
	}
	return NULL;
}

/* Records "unknown <what> '<key>'" with the closest option as a
 * suggestion; cli: shown as typed on the command line ("--log-level"),
 * key: the name normalised to file syntax. */
static int cfg_unknown(struct cfg_ctx *x, const char *what, bool cli,
		       const char *shown_key, const char *key, size_t len)
{
	const struct bcn_config_opt *o = cfg_suggest(x, key, len);
	char shown[CFG_SHOW_BUF], near[BCN_CFG_KEY_MAX + 1];
	size_t i, n;

	cfg_show(shown, sizeof(shown), shown_key, strlen(shown_key));
	if (!o)
		return cfg_msg(x, -BCN_ESYNTAX, "unknown %s '%s'", what, shown);
	n = strlen(o->name);
	for (i = 0; i < n; i++)
		near[i] = (cli && o->name[i] == '_') ? '-' : o->name[i];
	near[n] = '\0';
	return cfg_msg(x, -BCN_ESYNTAX, "unknown %s '%s' (did you mean '%s%s'?)",
		       what, shown, cli ? "--" : "", near);
}

/* Formats v in the largest unit of units that divides it exactly. */
static void cfg_fmt_units(char *dst, size_t n, uint64_t v,
			  const struct cfg_unit *units)
{
	size_t i;

	if (v == 0) {
		snprintf(dst, n, "0");
		return;
	}
	for (i = 0; units[i].suffix; i++) {
		if (v % units[i].mult == 0 &&
		    (units[i].suffix[0] || units[i].mult == 1)) {
			snprintf(dst, n, "%llu%s",
				 (unsigned long long)(v / units[i].mult),
				 units[i].suffix);
			return;
		}
	}
	snprintf(dst, n, "%llu", (unsigned long long)v);
}

/* Formats a number of an option's type: INT signed, SIZE and DURATION
 * with units, UINT plain. */
static void cfg_fmt_num(char *dst, size_t n, enum bcn_config_type t,
			uint64_t v)
{
	if (t == BCN_CFG_INT)
		snprintf(dst, n, "%lld", (long long)(int64_t)v);
	else if (t == BCN_CFG_SIZE)
		cfg_fmt_units(dst, n, v, cfg_size_units);
	else if (t == BCN_CFG_DURATION)
		cfg_fmt_units(dst, n, v, cfg_dur_units);
	else
		snprintf(dst, n, "%llu", (unsigned long long)v);
}

/* Effective bounds of an unsigned type (UINT, SIZE, DURATION). */
static void cfg_ubounds(const struct bcn_config_opt *o, uint64_t *lo,
			uint64_t *hi)
{
	if (o->min == 0 && o->max == 0) {
		*lo = 0;
		*hi = o->type == BCN_CFG_DURATION ? (uint64_t)INT64_MAX :
						    UINT64_MAX;
		return;
	}
	*lo = (uint64_t)o->min;
	*hi = (uint64_t)o->max;
}

static void cfg_ibounds(const struct bcn_config_opt *o, int64_t *lo,
			int64_t *hi)
{
	if (o->min == 0 && o->max == 0) {
		*lo = INT64_MIN;
		*hi = INT64_MAX;
		return;
	}
	*lo = o->min;
	*hi = o->max;
}

/* Records "value '<s>' for '<name>' out of range (lo .. hi)". */
static int cfg_range_msg(struct cfg_ctx *x, const struct bcn_config_opt *o,
			 const char *s, size_t len, uint64_t lo, uint64_t hi)
{
	char shown[CFG_SHOW_BUF], a[CFG_NUM_MAX], b[CFG_NUM_MAX];

	cfg_show(shown, sizeof(shown), s, len);
	cfg_fmt_num(a, sizeof(a), o->type, lo);
	cfg_fmt_num(b, sizeof(b), o->type, hi);
	return cfg_msg(x, -BCN_ERANGE, "value '%s' for '%s' out of range (%s .. %s)",
		       shown, o->name, a, b);
}

/* Reads decimal digits from s[*pos]. Returns 0, -BCN_ESYNTAX when there
 * is none, -BCN_ERANGE when they do not fit 64 bits (all are consumed). */
static int cfg_digits(const char *s, size_t len, size_t *pos, uint64_t *v)
{
	size_t i = *pos;
	uint64_t acc = 0;
	bool over = false;

	if (i >= len || s[i] < '0' || s[i] > '9')
		return -BCN_ESYNTAX;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (acc > (UINT64_MAX - d) / 10)
			over = true;
		else
			acc = acc * 10 + d;
	}
	*pos = i;
	*v = acc;
	return over ? -BCN_ERANGE : 0;
}

static int cfg_conv_int(struct cfg_ctx *x, const struct bcn_config_opt *o,
			const char *s, size_t len, int64_t *out)
{
	char shown[CFG_SHOW_BUF];
	size_t pos = 0;
	bool neg = false;
	uint64_t u = 0;
	int64_t v, lo, hi;
	int rc;

	if (len > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		pos = 1;
	}
	rc = cfg_digits(s, len, &pos, &u);
	cfg_ibounds(o, &lo, &hi);
	if (rc == -BCN_ESYNTAX || pos != len) {
		cfg_show(shown, sizeof(shown), s, len);
		return cfg_msg(x, -BCN_ESYNTAX,
			       "invalid integer '%s' for '%s'", shown, o->name);
	}
	if (rc || u > (uint64_t)INT64_MAX + neg)
		goto range;
	v = !neg ? (int64_t)u :
	    u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	if (v < lo || v > hi)
		goto range;
	*out = v;
	return 0;
range:
	return cfg_range_msg(x, o, s, len, (uint64_t)lo, (uint64_t)hi);
}

/* UINT (no unit), SIZE (K, M, G, T, any case) and DURATION (ms, s, m, h,
 * d; none: seconds). */
static int cfg_conv_uint(struct cfg_ctx *x, const struct bcn_config_opt *o,
			 const char *s, size_t len, uint64_t *out)
{
	const struct cfg_unit *units = NULL, *u = NULL;
	char shown[CFG_SHOW_BUF];
	size_t pos = 0, slen, i;
	uint64_t v = 0, lo, hi, cap;
	int rc;

	if (o->type == BCN_CFG_SIZE)
		units = cfg_size_units;
	else if (o->type == BCN_CFG_DURATION)
		units = cfg_dur_units;
	rc = cfg_digits(s, len, &pos, &v);
	slen = len - pos;
	for (i = 0; units && rc != -BCN_ESYNTAX && units[i].suffix; i++) {
		const char *suf = units[i].suffix;

		if (strlen(suf) != slen)
			continue;
		if (o->type == BCN_CFG_SIZE ? strncasecmp(suf, s + pos, slen) == 0 :
					      memcmp(suf, s + pos, slen) == 0) {
			u = &units[i];
			break;
		}
	}
	if (rc == -BCN_ESYNTAX || (units ? !u : slen != 0)) {
		cfg_show(shown, sizeof(shown), s, len);
		return cfg_msg(x, -BCN_ESYNTAX, "invalid %s '%s' for '%s'%s",
			       cfg_type_names[o->type], shown, o->name,
			       o->type == BCN_CFG_SIZE ?
			       " (a number with an optional unit K, M, G or T)" :
			       o->type == BCN_CFG_DURATION ?
			       " (a number with an optional unit ms, s, m, h or d)" :
			       " (expected digits only)");
	}
	cfg_ubounds(o, &lo, &hi);
	cap = o->type == BCN_CFG_DURATION ? (uint64_t)INT64_MAX : UINT64_MAX;
	if (rc || (u && v > cap / u->mult))
		return cfg_range_msg(x, o, s, len, lo, hi);
	if (u)
		v *= u->mult;
	if (v < lo || v > hi)
		return cfg_range_msg(x, o, s, len, lo, hi);
	*out = v;
	return 0;
}

static int cfg_conv_word(struct cfg_ctx *x, const struct bcn_config_opt *o,
			 const char *s, size_t len, int *out)
{
	char shown[CFG_SHOW_BUF], list[CFG_WORDS_MAX];
	size_t used = 0;
	int i;

	if (o->type == BCN_CFG_BOOL) {
		*out = cfg_word_index(cfg_true_words, s, len) >= 0 ? 1 :
		       cfg_word_index(cfg_false_words, s, len) >= 0 ? 0 : -1;
		if (*out >= 0)
			return 0;
		cfg_show(shown, sizeof(shown), s, len);
		return cfg_msg(x, -BCN_ESYNTAX,
			       "invalid bool '%s' for '%s' (yes/no, true/false, on/off, 1/0)",
			       shown, o->name);
	}
	*out = cfg_word_index(o->words, s, len);
	if (*out >= 0)
		return 0;
	list[0] = '\0';
	for (i = 0; o->words[i] && used < sizeof(list); i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? ", " : "", o->words[i]);
		used += n > 0 ? (size_t)n : 0;
	}
	cfg_show(shown, sizeof(shown), s, len);
	return cfg_msg(x, -BCN_ESYNTAX, "invalid value '%s' for '%s' (one of: %s)",
		       shown, o->name, list);
}

static int cfg_conv_string(struct cfg_ctx *x, const struct bcn_config_opt *o,
			   size_t len)
{
	if (len > o->size - 1)
		return cfg_msg(x, -BCN_ERANGE,
			       "value for '%s' too long (%zu bytes, at most %zu)",
			       o->name, len, o->size - 1);
	if (len < (uint64_t)o->min)
		return cfg_msg(x, -BCN_ERANGE,
			       "value for '%s' too short (%zu bytes, at least %lld)",
			       o->name, len, (long long)o->min);
	return 0;
}

/* Converts s[0..len) for option o and, when obj is not NULL, stores it as
 * element idx (0 for scalars). obj is untouched on failure. */
static int cfg_value(struct cfg_ctx *x, const struct bcn_config_opt *o,
		     void *obj, size_t idx, const char *s, size_t len)
{
	char *dst = obj ? (char *)obj + o->offset + idx * o->size : NULL;
	union { bool b; int i; int64_t i64; uint64_t u64; } v;
	int rc;
	size_t k;

	for (k = 0; k < len; k++) {
		if (cfg_ctrl(s[k]))
			return cfg_msg(x, -BCN_ESYNTAX,
				       "control character 0x%02x in value for '%s'",
				       (unsigned char)s[k], o->name);
	}
	if (len == 0 && !cfg_is_string(o))
		return cfg_msg(x, -BCN_ESYNTAX, "missing value for '%s'", o->name);
	switch (o->type) {
	case BCN_CFG_BOOL:
		rc = cfg_conv_word(x, o, s, len, &v.i);
		v.b = v.i == 1;
		break;
	case BCN_CFG_ENUM:
		rc = cfg_conv_word(x, o, s, len, &v.i);
		break;
	case BCN_CFG_INT:
		rc = cfg_conv_int(x, o, s, len, &v.i64);
		break;
	case BCN_CFG_UINT:
	case BCN_CFG_SIZE:
	case BCN_CFG_DURATION:
		rc = cfg_conv_uint(x, o, s, len, &v.u64);
		if (o->type == BCN_CFG_DURATION)
			v.i64 = (int64_t)v.u64;
		break;
	default:
		rc = cfg_conv_string(x, o, len);
		if (rc == 0 && dst) {
			memcpy(dst, s, len);
			dst[len] = '\0';
		}
		return rc;
	}
	if (rc == 0 && dst)
		memcpy(dst, &v, o->size);
	return rc;
}

static size_t cfg_get_count(const struct bcn_config_opt *o, const void *obj)
{
	size_t n;

	memcpy(&n, (const char *)obj + o->count_offset, sizeof(n));
	return n;
}

static void cfg_set_count(const struct bcn_config_opt *o, void *obj, size_t n)
{
	memcpy((char *)obj + o->count_offset, &n, sizeof(n));
}

/* Applies one value to list o: an empty value (when clear_on_empty)
 * empties the list, anything else is appended. obj NULL: validates and
 * counts only. */
static int cfg_list_assign(struct cfg_ctx *x, const struct bcn_config_opt *o,
			   void *obj, struct cfg_seen *s, const char *val,
			   size_t len, bool clear_on_empty)
{
	int rc;

	if (len == 0 && clear_on_empty) {
		s->count = 0;
		goto out;
	}
	if (s->count >= o->max_count)
		return cfg_msg(x, -BCN_EFULL, "too many values for '%s' (at most %zu)",
			       o->name, o->max_count);
	rc = cfg_value(x, o, obj, s->count, val, len);
	if (rc)
		return rc;
	s->count++;
out:
	if (obj)
		cfg_set_count(o, obj, s->count);
	return 0;
}

static bool cfg_name_ok(const char *s, size_t maxlen)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > maxlen)
		return false;
	for (i = 0; i < n; i++) {
		if (!cfg_keychar(s[i]))
			return false;
	}
	return true;
}

/* Enum words must be printable without quoting in a dump. */
static bool cfg_word_ok(const char *w)
{
	size_t i, n = strlen(w);

	if (n == 0 || n > BCN_CFG_KEY_MAX)
		return false;
	for (i = 0; i < n; i++) {
		char c = w[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("_.:+-", c)))
			return false;
	}
	return true;
}

static size_t cfg_type_size(enum bcn_config_type t)
{
	switch (t) {
	case BCN_CFG_BOOL:
		return sizeof(bool);
	case BCN_CFG_INT:
	case BCN_CFG_DURATION:
		return sizeof(int64_t);
	case BCN_CFG_UINT:
	case BCN_CFG_SIZE:
		return sizeof(uint64_t);
	case BCN_CFG_ENUM:
		return sizeof(int);
	default:
		return 0;
	}
}

/* Checks one option's fields; returns a static description or NULL. */
static const char *cfg_check_opt(const struct bcn_config_opt *o)
{
	size_t i;

	if ((unsigned)o->type > BCN_CFG_PATH)
		return "unknown type";
	if (o->flags & ~(unsigned)BCN_CFG_LIST)
		return "unknown flags";
	if (cfg_is_string(o) ? o->size == 0 : o->size != cfg_type_size(o->type))
		return "storage size does not match the type";
	if (!cfg_is_string(o) && o->min > o->max)
		return "min is greater than max";
	if ((o->type == BCN_CFG_UINT || o->type == BCN_CFG_SIZE ||
	     o->type == BCN_CFG_DURATION || cfg_is_string(o)) && o->min < 0)
		return "negative min for an unsigned type";
	if (cfg_is_string(o) && (uint64_t)o->min > o->size - 1)
		return "min length does not fit the array";
	if ((o->flags & BCN_CFG_LIST) && o->max_count == 0)
		return "list without capacity";
	if (o->type == BCN_CFG_ENUM) {
		if (!o->words || !o->words[0])
			return "enum without words";
		for (i = 0; o->words[i]; i++) {
			if (!cfg_word_ok(o->words[i]))
				return "enum word with characters other than [A-Za-z0-9_.:+-]";
		}
	}
	for (i = 0; cfg_reserved[i]; i++) {
		if (strcmp(o->name, cfg_reserved[i]) == 0)
			return "name reserved for the command line";
	}
	return NULL;
}

/* Validates the table (and every default) and fills in x. */
static int cfg_check(struct cfg_ctx *x, const struct bcn_config_opt *tab,
		     char *err, size_t errlen)
{
	const char *why;
	size_t i, j;

	x->tab = tab;
	x->nopts = 0;
	x->msg[0] = '\0';
	if (!tab)
		return bcn_fail(err, errlen, -EINVAL, "config table: missing");
	for (i = 0; tab[i].name; i++) {
		if (i >= BCN_CFG_MAX_OPTS)
			return bcn_fail(err, errlen, -EINVAL,
				       "config table: more than %d options",
				       BCN_CFG_MAX_OPTS);
		if (!cfg_name_ok(tab[i].name, BCN_CFG_KEY_MAX))
			return bcn_fail(err, errlen, -EINVAL,
				       "config table: bad option name '%.64s'",
				       tab[i].name);
		why = cfg_check_opt(&tab[i]);
		for (j = 0; !why && j < i; j++) {
			if (strcmp(tab[i].name, tab[j].name) == 0)
				why = "defined twice";
		}
		if (why)
			return bcn_fail(err, errlen, -EINVAL,
				       "config table: option '%s': %s",
				       tab[i].name, why);
	}
	x->nopts = i;
	for (i = 0; i < x->nopts; i++) {
		const struct bcn_config_opt *o = &tab[i];

		if (o->def && cfg_value(x, o, NULL, 0, o->def, strlen(o->def)))
			return bcn_fail(err, errlen, -EINVAL,
				       "config table: default of '%s': %s",
				       o->name, x->msg);
	}
	return 0;
}

static void cfg_err_clear(char *err, size_t errlen)
{
	if (err && errlen > 0)
		err[0] = '\0';
}

int bcn_config_defaults(const struct bcn_config_opt *tab, void *obj,
			char *err, size_t errlen)
{
	struct cfg_ctx x;
	size_t i;
	int rc;

	cfg_err_clear(err, errlen);
	rc = cfg_check(&x, tab, err, errlen);
	if (rc)
		return rc;
	if (!obj)
		return bcn_fail(err, errlen, -EINVAL, "config: no object");
	for (i = 0; i < x.nopts; i++) {
		const struct bcn_config_opt *o = &tab[i];

		bool list = o->flags & BCN_CFG_LIST;

		if (list)
			cfg_set_count(o, obj, o->def ? 1 : 0);
		if (o->def)	/* checked by cfg_check, cannot fail */
			cfg_value(&x, o, obj, 0, o->def, strlen(o->def));
		else if (!list)
			memset((char *)obj + o->offset, 0, o->size);
	}
	return 0;
}

static size_t cfg_skip_ws(const char *p, size_t n, size_t i)
{
	while (i < n && cfg_ws(p[i]))
		i++;
	return i;
}

/* Lexes a quoted value starting after the opening quote at p[i]. */
static int cfg_lex_quoted(struct cfg_ctx *x, const char *p, size_t n,
			  size_t i, struct cfg_line *l)
{
	char shown[CFG_SHOW_BUF];
	size_t k, o = 0;

	for (k = i; k < n && p[k] != '"'; k++) {
		char c = p[k];

		if (c == '\\') {
			if (k + 1 >= n)
				return cfg_msg(x, -BCN_ESYNTAX,
					       "unterminated quoted value");
			c = p[++k];
			if (c != '"' && c != '\\') {
				cfg_show(shown, sizeof(shown), p + k, 1);
				return cfg_msg(x, -BCN_ESYNTAX,
					       "unknown escape '\\%s' in quoted value (only \\\" and \\\\)",
					       shown);
			}
		}
		l->val[o++] = c;
	}
	if (k >= n)
		return cfg_msg(x, -BCN_ESYNTAX, "unterminated quoted value");
	k = cfg_skip_ws(p, n, k + 1);
	if (k < n && p[k] != '#')
		return cfg_msg(x, -BCN_ESYNTAX,
			       "unexpected text after the closing quote");
	l->vallen = o;
	l->quoted = true;
	return 0;
}

/* An unquoted value ends at a '#' that starts it or follows whitespace;
 * surrounding whitespace is dropped. */
static void cfg_lex_plain(const char *p, size_t n, size_t i,
			  struct cfg_line *l)
{
	size_t k, end;

	for (k = i; k < n; k++) {
		if (p[k] == '#' && (k == i || cfg_ws(p[k - 1])))
			break;
	}
	end = k;
	while (end > i && cfg_ws(p[end - 1]))
		end--;
	memcpy(l->val, p + i, end - i);
	l->vallen = end - i;
	l->quoted = false;
}

/* Splits one line (without its '\n', at most BCN_CFG_LINE_MAX bytes) into
 * key and value. Returns 1 for a blank or comment line, 0 for an
 * assignment, or a negative code with x->msg set. */
static int cfg_lex(struct cfg_ctx *x, const char *p, size_t n,
		   struct cfg_line *l)
{
	char shown[CFG_SHOW_BUF];
	size_t i, k;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	for (k = 0; k < n; k++) {
		if (cfg_ctrl(p[k]))
			return cfg_msg(x, -BCN_ESYNTAX,
				       "control character 0x%02x in column %zu",
				       (unsigned char)p[k], k + 1);
	}
	i = cfg_skip_ws(p, n, 0);
	if (i == n || p[i] == '#')
		return 1;
	k = i;
	while (i < n && cfg_keychar(p[i]))
		i++;
	l->key = p + k;
	l->keylen = i - k;
	if (i < n && p[i] != '=' && !cfg_ws(p[i])) {
		cfg_show(shown, sizeof(shown), p + i, 1);
		return cfg_msg(x, -BCN_ESYNTAX, l->keylen ?
			       "invalid character '%s' in key (allowed: a-z 0-9 _ .)" :
			       "expected a key, found '%s'", shown);
	}
	if (l->keylen == 0)
		return cfg_msg(x, -BCN_ESYNTAX, "missing key before '='");
	if (l->keylen > BCN_CFG_KEY_MAX)
		return cfg_msg(x, -BCN_ESYNTAX, "key too long (at most %d bytes)",
			       BCN_CFG_KEY_MAX);
	i = cfg_skip_ws(p, n, i);
	if (i == n || p[i] != '=')
		return cfg_msg(x, -BCN_ESYNTAX, "missing '=' after key '%.*s'",
			       (int)l->keylen, l->key);
	i = cfg_skip_ws(p, n, i + 1);
	if (i < n && p[i] == '"')
		return cfg_lex_quoted(x, p, n, i + 1, l);
	cfg_lex_plain(p, n, i, l);
	return 0;
}

/* Applies one lexed line; obj NULL only validates. */
static int cfg_apply_line(struct cfg_ctx *x, void *obj, struct cfg_seen *seen,
			  size_t line, const struct cfg_line *l)
{
	const struct bcn_config_opt *o = cfg_find(x, l->key, l->keylen);
	struct cfg_seen *s;

	if (!o) {
		char key[BCN_CFG_KEY_MAX + 1];

		memcpy(key, l->key, l->keylen);
		key[l->keylen] = '\0';
		return cfg_unknown(x, "key", false, key, l->key, l->keylen);
	}
	s = &seen[o - x->tab];
	if (o->flags & BCN_CFG_LIST) {
		if (s->line == 0) {
			s->line = line;
			s->count = 0;	/* the file replaces earlier elements */
		}
		return cfg_list_assign(x, o, obj, s, l->val, l->vallen,
				       !l->quoted);
	}
	if (s->line)
		return cfg_msg(x, -BCN_ESYNTAX,
			       "duplicate key '%s' (first set on line %zu)",
			       o->name, s->line);
	s->line = line;
	return cfg_value(x, o, obj, 0, l->val, l->vallen);
}

/* One pass over the text; *lineno gets the line of a failure. */
static int cfg_scan(struct cfg_ctx *x, void *obj, const char *buf, size_t len,
		    size_t *lineno, struct cfg_seen *seen, struct cfg_line *l)
{
	const char *eol;
	size_t pos = 0, n, line = 0;
	int rc;

	memset(seen, 0, sizeof(*seen) * x->nopts);
	while (pos < len) {
		*lineno = ++line;
		eol = memchr(buf + pos, '\n', len - pos);
		n = eol ? (size_t)(eol - (buf + pos)) : len - pos;
		if (n > BCN_CFG_LINE_MAX)
			return cfg_msg(x, -BCN_ESYNTAX,
				       "line too long (more than %d bytes)",
				       BCN_CFG_LINE_MAX);
		rc = cfg_lex(x, buf + pos, n, l);
		pos += n + (eol ? 1 : 0);
		if (rc == 1)
			continue;
		if (rc == 0)
			rc = cfg_apply_line(x, obj, seen, line, l);
		if (rc)
			return rc;
	}
	return 0;
}

int bcn_config_parse(const struct bcn_config_opt *tab, void *obj,
		     const char *buf, size_t len, const char *source_name,
		     char *err, size_t errlen)
{
	struct cfg_seen seen[BCN_CFG_MAX_OPTS];
	struct cfg_line l;
	struct cfg_ctx x;
	size_t line = 0;
	int rc;

	cfg_err_clear(err, errlen);
	rc = cfg_check(&x, tab, err, errlen);
	if (rc)
		return rc;
	if (!obj || (!buf && len))
		return bcn_fail(err, errlen, -EINVAL, "config: no object or buffer");
	if (!source_name)
		source_name = CFG_DEFAULT_SOURCE;
	/* validate everything first so that obj changes all or nothing */
	rc = cfg_scan(&x, NULL, buf, len, &line, seen, &l);
	if (rc == 0)
		rc = cfg_scan(&x, obj, buf, len, &line, seen, &l);
	if (rc)
		return bcn_fail(err, errlen, rc, "%s:%zu: %s", source_name, line,
			       x.msg);
	return 0;
}

int bcn_config_load(const struct bcn_config_opt *tab, void *obj,
		    const char *path, char *err, size_t errlen)
{
	struct bcn_buf b;
	int rc;

	cfg_err_clear(err, errlen);
	if (!path)
		return bcn_fail(err, errlen, -EINVAL, "config: no path");
	bcn_buf_init(&b, BCN_CFG_FILE_MAX);
	rc = bcn_buf_read_file(&b, path);
	if (rc == -BCN_EFULL) {
		rc = bcn_fail(err, errlen, rc, "%s: larger than %d bytes", path,
			     BCN_CFG_FILE_MAX);
		goto out;
	}
	if (rc) {
		rc = bcn_fail(err, errlen, rc, "%s: %s", path, bcn_strerror(rc));
		goto out;
	}
	rc = bcn_config_parse(tab, obj, (const char *)b.data, b.len, path, err,
			      errlen);
out:
	bcn_buf_free(&b);
	return rc;
}

int bcn_config_set(const struct bcn_config_opt *tab, void *obj,
		   const char *name, const char *value, char *err,
		   size_t errlen)
{
	const struct bcn_config_opt *o;
	struct cfg_seen s = { 1, 0 };
	struct cfg_ctx x;
	int rc;

	cfg_err_clear(err, errlen);
	rc = cfg_check(&x, tab, err, errlen);
	if (rc)
		return rc;
	if (!obj || !name || !value)
		return bcn_fail(err, errlen, -EINVAL, "config: missing argument");
	o = cfg_find(&x, name, strlen(name));
	if (!o) {
		rc = cfg_unknown(&x, "option", false, name, name, strlen(name));
		return bcn_fail(err, errlen, rc, "%s", x.msg);
	}
	if (o->flags & BCN_CFG_LIST) {
		s.count = cfg_get_count(o, obj);
		if (s.count > o->max_count)
			s.count = o->max_count;
		rc = cfg_list_assign(&x, o, obj, &s, value, strlen(value), true);
	} else {
		rc = cfg_value(&x, o, obj, 0, value, strlen(value));
	}
	if (rc)
		return bcn_fail(err, errlen, rc, "option '%s': %s", o->name, x.msg);
	return 0;
}

enum cfg_arg_kind {
	CFG_ARG_END,		/* no more options */
	CFG_ARG_OPT,		/* a table option with its value */
	CFG_ARG_CONFIG,		/* --config FILE */
	CFG_ARG_HELP,		/* --help, -h */
	CFG_ARG_DUMP,		/* --dump-config */
};

struct cfg_arg {
	enum cfg_arg_kind kind;
	const struct bcn_config_opt *opt;
	const char *value;
	char shown[BCN_CFG_KEY_MAX + 3];	/* "--name" as typed */
};

/* Finds the table option for a normalised command-line name; "no_<bool>"
 * gives *neg. */
static const struct bcn_config_opt *cfg_arg_opt(const struct cfg_ctx *x,
						const char *name, size_t n,
						bool *neg)
{
	const struct bcn_config_opt *o = cfg_find(x, name, n);

	*neg = false;
	if (!o && n > 3 && memcmp(name, "no_", 3) == 0) {
		o = cfg_find(x, name + 3, n - 3);
		if (o && o->type == BCN_CFG_BOOL && !(o->flags & BCN_CFG_LIST))
			*neg = true;
		else
			o = NULL;
	}
	return o;
}

/* Classifies the built-in options and finds the value of a table option;
 * a->shown and a->value are set. */
static int cfg_arg_kind(struct cfg_ctx *x, const char *name, size_t n,
			int argc, char *const argv[], int *i, struct cfg_arg *a)
{
	bool neg;

	if (n == 4 && memcmp(name, "help", 4) == 0) {
		a->kind = CFG_ARG_HELP;
		return 0;
	}
	if (n == 11 && memcmp(name, "dump_config", 11) == 0) {
		a->kind = CFG_ARG_DUMP;
		return 0;
	}
	a->kind = CFG_ARG_CONFIG;
	if (n != 6 || memcmp(name, "config", 6) != 0) {
		a->kind = CFG_ARG_OPT;
		a->opt = cfg_arg_opt(x, name, n, &neg);
		if (!a->opt)
			return cfg_unknown(x, "option", true, a->shown, name, n);
		if (a->opt->type == BCN_CFG_BOOL && !a->value) {
			a->value = neg ? "no" : "yes";
			return 0;
		}
		if (neg)
			return cfg_msg(x, -BCN_ESYNTAX,
				       "option '%s' takes no value", a->shown);
	}
	if (a->value)
		return 0;
	if (*i >= argc || !argv[*i])
		return cfg_msg(x, -BCN_ESYNTAX, "option '%s' needs a value",
			       a->shown);
	a->value = argv[(*i)++];
	return 0;
}

/* Reads the next option from argv[*i], advancing *i past what it uses. */
static int cfg_next_arg(struct cfg_ctx *x, int argc, char *const argv[],
			int *i, struct cfg_arg *a)
{
	char name[BCN_CFG_KEY_MAX + 1];
	const char *s, *eq;
	size_t n, k;

	memset(a, 0, sizeof(*a));
	if (*i >= argc || !argv[*i])
		return 0;
	s = argv[*i];
	if (strcmp(s, "-h") == 0) {
		(*i)++;
		a->kind = CFG_ARG_HELP;
		return 0;
	}
	if (strcmp(s, "--") == 0) {
		(*i)++;
		return 0;
	}
	if (s[0] != '-' || s[1] == '\0')
		return 0;	/* first operand; "-" alone is one */
	if (s[1] != '-')
		return cfg_msg(x, -BCN_ESYNTAX, "unknown option '%.64s'", s);
	(*i)++;
	eq = strchr(s + 2, '=');
	n = eq ? (size_t)(eq - (s + 2)) : strlen(s + 2);
	if (n > BCN_CFG_KEY_MAX)
		return cfg_msg(x, -BCN_ESYNTAX, "unknown option '%.64s...'", s);
	for (k = 0; k < n; k++)
		name[k] = s[2 + k] == '-' ? '_' : s[2 + k];
	name[n] = '\0';
	snprintf(a->shown, sizeof(a->shown), "--%.*s", (int)n, s + 2);
	a->value = eq ? eq + 1 : NULL;
	return cfg_arg_kind(x, name, n, argc, argv, i, a);
}

/* First pass over argv: built-ins and syntax. */
static int cfg_getopt_scan(struct cfg_ctx *x, int argc, char *const argv[],
			   int *end, const char **config, bool *dump)
{
	struct cfg_arg a;
	int i = 1, rc;

	*config = NULL;
	*dump = false;
	for (;;) {
		rc = cfg_next_arg(x, argc, argv, &i, &a);
		if (rc)
			return rc;
		if (a.kind == CFG_ARG_END)
			break;
		if (a.kind == CFG_ARG_HELP)
			return BCN_CONFIG_HELP;
		if (a.kind == CFG_ARG_DUMP)
			*dump = true;
		if (a.kind != CFG_ARG_CONFIG)
			continue;
		if (*config)
			return cfg_msg(x, -BCN_ESYNTAX, "option '--config' given twice");
		*config = a.value;
	}
	*end = i;
	return 0;
}

/* Second pass over argv: the overrides. */
static int cfg_getopt_apply(struct cfg_ctx *x, void *obj, int argc,
			    char *const argv[])
{
	struct cfg_seen seen[BCN_CFG_MAX_OPTS];
	struct cfg_seen *s;
	struct cfg_arg a;
	int i = 1, rc;

	memset(seen, 0, sizeof(seen[0]) * x->nopts);
	for (;;) {
		rc = cfg_next_arg(x, argc, argv, &i, &a);
		if (rc || a.kind == CFG_ARG_END)
			return rc;
		if (a.kind != CFG_ARG_OPT)
			continue;
		s = &seen[a.opt - x->tab];
		if (a.opt->flags & BCN_CFG_LIST) {
			if (s->line == 0)
				s->count = 0;	/* replaces the file's elements */
			s->line = 1;
			rc = cfg_list_assign(x, a.opt, obj, s, a.value,
					     strlen(a.value), true);
		} else if (s->line) {
			rc = cfg_msg(x, -BCN_ESYNTAX, "given twice");
		} else {
			s->line = 1;
			rc = cfg_value(x, a.opt, obj, 0, a.value, strlen(a.value));
		}
		if (rc) {
			char msg[CFG_MSG_MAX];

			memcpy(msg, x->msg, sizeof(msg));
			return cfg_msg(x, rc, "option '%s': %s", a.shown, msg);
		}
	}
}

int bcn_config_getopt(const struct bcn_config_opt *tab, void *obj,
		      int argc, char *const argv[], int *argi,
		      char *err, size_t errlen)
{
	const char *config = NULL;
	struct cfg_ctx x;
	bool dump = false;
	int rc, end = argc;

	rc = bcn_config_defaults(tab, obj, err, errlen);
	if (rc)
		return rc;
	cfg_check(&x, tab, NULL, 0);
	if (argc < 1 || !argv)
		goto out;
	rc = cfg_getopt_scan(&x, argc, argv, &end, &config, &dump);
	if (rc < 0)
		return bcn_fail(err, errlen, rc, "%s", x.msg);
	if (rc == BCN_CONFIG_HELP)
		return rc;
	if (config) {
		rc = bcn_config_load(tab, obj, config, err, errlen);
		if (rc)
			return rc;
	}
	rc = cfg_getopt_apply(&x, obj, argc, argv);
	if (rc)
		return bcn_fail(err, errlen, rc, "%s", x.msg);
out:
	if (argi)
		*argi = end;
	return dump ? BCN_CONFIG_DUMP : 0;
}

/* Appends the value of element idx of o (not a string) in file syntax. */
static int cfg_fmt_value(const struct bcn_config_opt *o, const void *obj,
			 size_t idx, char *dst, size_t n)
{
	const char *src = (const char *)obj + o->offset + idx * o->size;
	union { int i; int64_t i64; uint64_t u64; } v;
	int nwords = 0;

	memset(&v, 0, sizeof(v));
	memcpy(&v, src, o->size);
	switch (o->type) {
	case BCN_CFG_BOOL:	/* any non-zero byte is true */
		snprintf(dst, n, "%s", v.u64 ? "yes" : "no");
		return 0;
	case BCN_CFG_ENUM:
		while (o->words[nwords])
			nwords++;
		if (v.i < 0 || v.i >= nwords)
			return -EINVAL;
		snprintf(dst, n, "%s", o->words[v.i]);
		return 0;
	case BCN_CFG_INT:
		cfg_fmt_num(dst, n, o->type, (uint64_t)v.i64);
		return 0;
	case BCN_CFG_DURATION:
		if (v.i64 < 0)
			return -EINVAL;
		cfg_fmt_num(dst, n, o->type, (uint64_t)v.i64);
		return 0;
	default:
		cfg_fmt_num(dst, n, o->type, v.u64);
		return 0;
	}
}

/* Appends "name = value\n" for element idx of o. */
static int cfg_dump_one(const struct bcn_config_opt *o, const void *obj,
			size_t idx, struct bcn_buf *out)
{
	const char *s = (const char *)obj + o->offset + idx * o->size;
	char num[CFG_NUM_MAX + BCN_CFG_KEY_MAX];
	size_t len, i;
	int rc;

	if (!cfg_is_string(o)) {
		rc = cfg_fmt_value(o, obj, idx, num, sizeof(num));
		return rc ? rc : bcn_buf_printf(out, "%s = %s\n", o->name, num);
	}
	len = strnlen(s, o->size);
	if (len == o->size)
		return -EINVAL;
	rc = bcn_buf_printf(out, "%s = \"", o->name);
	for (i = 0; rc == 0 && i < len; i++) {
		if (cfg_ctrl(s[i]))
			return -EINVAL;
		if (s[i] == '"' || s[i] == '\\')
			rc = bcn_buf_add(out, "\\", 1);
		if (rc == 0)
			rc = bcn_buf_add(out, s + i, 1);
	}
	return rc ? rc : bcn_buf_adds(out, "\"\n");
}

int bcn_config_dump(const struct bcn_config_opt *tab, const void *obj,
		    struct bcn_buf *out)
{
	struct cfg_ctx x;
	size_t i, j, n;
	int rc;

	rc = cfg_check(&x, tab, NULL, 0);
	if (rc)
		return rc;
	if (!obj || !out)
		return -EINVAL;
	for (i = 0; i < x.nopts; i++) {
		const struct bcn_config_opt *o = &tab[i];

		if (!(o->flags & BCN_CFG_LIST)) {
			rc = cfg_dump_one(o, obj, 0, out);
			if (rc)
				return rc;
			continue;
		}
		n = cfg_get_count(o, obj);
		if (n > o->max_count)
			return -EINVAL;
		if (n == 0 && (rc = bcn_buf_printf(out, "%s =\n", o->name)))
			return rc;
		for (j = 0; j < n; j++) {
			rc = cfg_dump_one(o, obj, j, out);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The "type, bounds" part of an option's help. */
static void cfg_help_type(const struct bcn_config_opt *o, char *dst, size_t n)
{
	char a[CFG_NUM_MAX], b[CFG_NUM_MAX];
	uint64_t lo, hi;
	size_t used;
	int i;

	snprintf(dst, n, "%s", cfg_type_names[o->type]);
	used = strlen(dst);
	if (o->type == BCN_CFG_ENUM) {
		for (i = 0; o->words[i] && used < n; i++) {
			int k = snprintf(dst + used, n - used, "%s%s",
					 i ? ", " : ", one of: ", o->words[i]);
			used += k > 0 ? (size_t)k : 0;
		}
	} else if (cfg_is_string(o)) {
		snprintf(dst + used, n - used, ", at most %zu bytes", o->size - 1);
	} else if (o->type != BCN_CFG_BOOL && (o->min || o->max)) {
		if (o->type == BCN_CFG_INT) {
			lo = (uint64_t)o->min;
			hi = (uint64_t)o->max;
		} else {
			cfg_ubounds(o, &lo, &hi);
		}
		cfg_fmt_num(a, sizeof(a), o->type, lo);
		cfg_fmt_num(b, sizeof(b), o->type, hi);
		snprintf(dst + used, n - used, ", %s .. %s", a, b);
	}
}

static void cfg_help_opt(const struct bcn_config_opt *o, FILE *out)
{
	char cli[BCN_CFG_KEY_MAX + 1], type[CFG_MSG_MAX];
	size_t i, n = strlen(o->name);

	for (i = 0; i <= n; i++)
		cli[i] = o->name[i] == '_' ? '-' : o->name[i];
	if (o->type == BCN_CFG_BOOL && !(o->flags & BCN_CFG_LIST))
		fprintf(out, "  --%s, --no-%s\n", cli, cli);
	else
		fprintf(out, "  --%s %s\n", cli, cfg_metavars[o->type]);
	if (o->help && o->help[0])
		fprintf(out, "      %s\n", o->help);
	cfg_help_type(o, type, sizeof(type));
	fprintf(out, "      key: %s; %s", o->name, type);
	if (o->flags & BCN_CFG_LIST)
		fprintf(out, "; repeatable, up to %zu values", o->max_count);
	if (o->def)
		fprintf(out, "; default: %s\n", o->def);
	else
		fprintf(out, "; default: %s\n", (o->flags & BCN_CFG_LIST) ?
			"none" : o->type == BCN_CFG_BOOL ? "no" :
			o->type == BCN_CFG_ENUM ? o->words[0] :
			cfg_is_string(o) ? "\"\"" : "0");
}

void bcn_config_help(const struct bcn_config_opt *tab, FILE *out)
{
	char err[BCN_CFG_ERR_MAX];
	struct cfg_ctx x;
	size_t i;

	if (cfg_check(&x, tab, err, sizeof(err))) {
		fprintf(out, "%s\n", err);
		return;
	}
	fprintf(out,
		"Options (the command line overrides the --config file; --log-level X\n"
		"on the command line is \"log_level = X\" in the file):\n"
		"  --config FILE\n"
		"      Read the configuration file FILE (key = value lines).\n"
		"  --dump-config\n"
		"      Print the effective configuration and exit.\n"
		"  -h, --help\n"
		"      Print this help and exit.\n");
	for (i = 0; i < x.nopts; i++)
		cfg_help_opt(&tab[i], out);
}

/* ---- one part's keys of a shared file ---- */

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.';
}

/* Whether the line [p, p + n) is "key = ..." with a well-formed key that
 * does not start with prefix: such lines belong to another part. */
static bool foreign_line(const char *p, size_t n, const char *prefix)
{
	size_t i = 0, k, pl;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	for (k = i; k < n && key_char(p[k]); k++)
		;
	if (k == i || k - i > BCN_CFG_KEY_MAX)
		return false;
	/* prefix is one prefix or several separated by commas */
	for (const char *q = prefix; *q; ) {
		const char *c = strchr(q, ',');

		pl = c ? (size_t)(c - q) : strlen(q);
		if (pl && k - i >= pl && memcmp(p + i, q, pl) == 0)
			return false;
		q += pl + (c ? 1 : 0);
	}
	while (k < n && (p[k] == ' ' || p[k] == '\t'))
		k++;
	return k < n && p[k] == '=';
}

int bcn_config_parse_prefix(const struct bcn_config_opt *tab, void *obj,
			    const char *buf, size_t len, const char *prefix,
			    const char *source, char *err, size_t errlen)
{
	struct bcn_buf out;
	size_t a = 0, e;
	int rc = 0;

	if (len > BCN_CFG_FILE_MAX)
		return bcn_fail(err, errlen, -BCN_EFULL, "%s: larger than %d "
			       "bytes", source, BCN_CFG_FILE_MAX);
	bcn_buf_init(&out, BCN_CFG_FILE_MAX);
	/* copy the text with foreign lines emptied, keeping every line
	 * break so that error messages keep their line numbers */
	while (a < len && !rc) {
		const char *nl = memchr(buf + a, '\n', len - a);

		e = nl ? (size_t)(nl - buf) : len;
		if (!foreign_line(buf + a, e - a, prefix))
			rc = bcn_buf_add(&out, buf + a, e - a);
		if (!rc && nl)
			rc = bcn_buf_add(&out, "\n", 1);
		a = e + 1;
	}
	if (rc)
		bcn_fail(err, errlen, rc, "%s: %s", source, bcn_strerror(rc));
	else
		rc = bcn_config_parse(tab, obj, out.data ? (const char *)out.data
				      : "", out.len, source, err, errlen);
	bcn_buf_free(&out);
	return rc;
}

int bcn_config_load_prefix(const struct bcn_config_opt *tab, void *obj,
			   const char *path, const char *prefix, char *err,
			   size_t errlen)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, BCN_CFG_FILE_MAX);
	rc = bcn_buf_read_file(&b, path);
	if (rc)
		bcn_fail(err, errlen, rc, "%s: %s", path, bcn_strerror(rc));
	else
		rc = bcn_config_parse_prefix(tab, obj, (const char *)b.data,
					     b.len, prefix, path, err, errlen);
	bcn_buf_free(&b);
	return rc;
}
