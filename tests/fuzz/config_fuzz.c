/* libFuzzer target for common/config: feeds arbitrary bytes to
 * bcn_config_parse with a table of every type (and a list), and checks
 * the invariants: the error text fits its buffer and names the source, a
 * failed parse leaves the object as it was, and whatever parses dumps to
 * text that parses back to the same dump. The same bytes, split at the
 * first '=', also go through bcn_config_set. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/error.h"
#include "common/log.h"

#define FZ_SERVERS 3
#define FZ_DUMP_MAX (1 << 20)
#define FZ_SET_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_conf {
	bool flag;
	int64_t num;
	int64_t big;
	uint64_t count;
	uint64_t size;
	int64_t interval;
	int64_t timeout;
	char name[12];
	int mode;
	char path[32];
	char servers[FZ_SERVERS][8];
	size_t nservers;
	int level;
};

static const char *const fz_modes[] = { "fast", "safe", "Paranoid", NULL };

static const struct bcn_config_opt fz_tab[] = {
	{ "flag", BCN_CFG_BOOL, BCN_CFG_MEMBER(struct fz_conf, flag),
	  .def = "no", .help = "bool" },
	{ "num", BCN_CFG_INT, BCN_CFG_MEMBER(struct fz_conf, num),
	  .min = -1000, .max = 1000, .def = "-7", .help = "int" },
	{ "big", BCN_CFG_INT, BCN_CFG_MEMBER(struct fz_conf, big),
	  .help = "unbounded int" },
	{ "count", BCN_CFG_UINT, BCN_CFG_MEMBER(struct fz_conf, count),
	  .help = "uint" },
	{ "size", BCN_CFG_SIZE, BCN_CFG_MEMBER(struct fz_conf, size),
	  .min = 1, .max = INT64_MAX, .def = "1M", .help = "size" },
	{ "interval", BCN_CFG_DURATION, BCN_CFG_MEMBER(struct fz_conf, interval),
	  .min = 1, .max = 86400000, .def = "10s", .help = "duration" },
	{ "net.timeout", BCN_CFG_DURATION,
	  BCN_CFG_MEMBER(struct fz_conf, timeout), .help = "duration" },
	{ "name", BCN_CFG_STRING, BCN_CFG_MEMBER(struct fz_conf, name),
	  .def = "beacon", .help = "string" },
	{ "mode", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct fz_conf, mode),
	  .words = fz_modes, .def = "safe", .help = "enum" },
	{ "path", BCN_CFG_PATH, BCN_CFG_MEMBER(struct fz_conf, path),
	  .min = 1, .def = "/tmp", .help = "path" },
	{ "server", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct fz_conf, servers, nservers),
	  .def = "a:1", .help = "list" },
	{ "log_level", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct fz_conf, level),
	  .words = bcn_log_level_names, .def = "info", .help = "enum" },
	{ .name = NULL }
};

static void fz_defaults(struct fz_conf *c)
{
	memset(c, 0, sizeof(*c));
	if (bcn_config_defaults(fz_tab, c, NULL, 0) != 0)
		abort();
}

/* Dumps c into b (initialised here); aborts on failure. */
static void fz_dump(const struct fz_conf *c, struct bcn_buf *b)
{
	bcn_buf_init(b, FZ_DUMP_MAX);
	if (bcn_config_dump(fz_tab, c, b) != 0)
		abort();
}

static bool fz_same_dump(const struct fz_conf *a, const struct fz_conf *b)
{
	struct bcn_buf da, db;
	bool same;

	fz_dump(a, &da);
	fz_dump(b, &db);
	same = da.len == db.len && (da.len == 0 ||
				    memcmp(da.data, db.data, da.len) == 0);
	bcn_buf_free(&da);
	bcn_buf_free(&db);
	return same;
}

static bool fz_known_rc(int rc)
{
	return rc == 0 || rc == -BCN_ESYNTAX || rc == -BCN_ERANGE ||
	       rc == -BCN_EFULL;
}

/* The error text must end inside its buffer (checked by ASan: the buffer
 * is exactly errlen bytes) and say where the error is. */
static void fz_check_err(int rc, const char *err, size_t errlen,
			 const char *prefix)
{
	size_t n = strnlen(err, errlen);

	if (n == errlen)
		abort();
	if (rc && errlen > strlen(prefix) &&
	    strncmp(err, prefix, strlen(prefix)) != 0)
		abort();
	if (!rc && n != 0)
		abort();
}

static void fz_round_trip(const struct fz_conf *a)
{
	struct fz_conf b;
	struct bcn_buf da;
	char err[BCN_CFG_ERR_MAX];

	fz_dump(a, &da);
	fz_defaults(&b);
	if (bcn_config_parse(fz_tab, &b, (const char *)da.data, da.len, "dump",
			     err, sizeof(err)) != 0)
		abort();
	bcn_buf_free(&da);
	if (!fz_same_dump(a, &b))
		abort();
}

/* name=value through bcn_config_set, as a command line would. */
static void fz_set(const uint8_t *data, size_t size)
{
	const uint8_t *eq = memchr(data, '=', size);
	char name[FZ_SET_MAX], value[FZ_SET_MAX], err[BCN_CFG_ERR_MAX];
	struct fz_conf c, before;
	size_t nlen, vlen;
	int rc;

	if (!eq || size >= FZ_SET_MAX)
		return;
	nlen = (size_t)(eq - data);
	vlen = size - nlen - 1;
	memcpy(name, data, nlen);
	name[nlen] = '\0';
	memcpy(value, eq + 1, vlen);
	value[vlen] = '\0';
	fz_defaults(&c);
	memcpy(&before, &c, sizeof(c));
	rc = bcn_config_set(fz_tab, &c, name, value, err, sizeof(err));
	if (!fz_known_rc(rc))
		abort();
	fz_check_err(rc, err, sizeof(err), "");
	if (rc && !fz_same_dump(&c, &before))
		abort();
	if (!rc)
		fz_round_trip(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_conf a, before;
	size_t errlen;
	char *err;
	int rc;

	/* the last byte picks the size of the error buffer */
	errlen = size ? 1 + data[size - 1] % BCN_CFG_ERR_MAX : BCN_CFG_ERR_MAX;
	err = malloc(errlen);
	if (!err)
		return 0;
	fz_defaults(&a);
	memcpy(&before, &a, sizeof(a));
	rc = bcn_config_parse(fz_tab, &a, (const char *)data, size, "fuzz.conf",
			      err, errlen);
	if (!fz_known_rc(rc))
		abort();
	fz_check_err(rc, err, errlen, "fuzz.conf:");
	if (rc) {
		if (memcmp(&a, &before, sizeof(a)) != 0)
			abort();	/* all or nothing */
	} else {
		fz_round_trip(&a);
	}
	free(err);
	fz_set(data, size);
	return 0;
}
