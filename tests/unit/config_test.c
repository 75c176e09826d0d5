/* Unit tests of common/config: table-driven good and bad lines (values
 * stored, exact error messages with line numbers), every type's bounds,
 * duplicate keys, quoting, lists, atomic failure, table checks, file
 * loading, command-line overrides, dump -> parse round trip and --help. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/error.h"
#include "common/log.h"

#define NSERVERS 4

struct conf {
	bool flag;
	int64_t num;
	int64_t big;
	uint64_t count;
	uint64_t port;
	uint64_t bufsize;
	int64_t interval;
	int64_t timeout;
	char name[16];
	int mode;
	char path[64];
	char servers[NSERVERS][32];
	size_t nservers;
	int log_level;
};

static const char *const modes[] = { "fast", "safe", "paranoid", NULL };

static const struct bcn_config_opt tab[] = {
	{ "flag", BCN_CFG_BOOL, BCN_CFG_MEMBER(struct conf, flag),
	  .def = "no", .help = "A switch." },
	{ "num", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, num),
	  .min = -100, .max = 100, .def = "7", .help = "A bounded integer." },
	{ "big", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, big),
	  .help = "An unbounded integer." },
	{ "count", BCN_CFG_UINT, BCN_CFG_MEMBER(struct conf, count),
	  .def = "0", .help = "An unbounded count." },
	{ "redis_port", BCN_CFG_UINT, BCN_CFG_MEMBER(struct conf, port),
	  .min = 1, .max = 65535, .def = "6379", .help = "Redis port." },
	{ "bufsize", BCN_CFG_SIZE, BCN_CFG_MEMBER(struct conf, bufsize),
	  .min = 4096, .max = 1 << 30, .def = "64M", .help = "Buffer size." },
	{ "interval", BCN_CFG_DURATION, BCN_CFG_MEMBER(struct conf, interval),
	  .min = 1000, .max = 3600000, .def = "10s",
	  .help = "Sampling interval." },
	{ "net.timeout", BCN_CFG_DURATION, BCN_CFG_MEMBER(struct conf, timeout),
	  .def = "1500ms", .help = "Network timeout." },
	{ "name", BCN_CFG_STRING, BCN_CFG_MEMBER(struct conf, name),
	  .def = "beacon", .help = "A short name." },
	{ "mode", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct conf, mode),
	  .words = modes, .def = "safe", .help = "Write mode." },
	{ "path", BCN_CFG_PATH, BCN_CFG_MEMBER(struct conf, path),
	  .min = 1, .def = "/var/lib/beacon", .help = "Data directory." },
	{ "server", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct conf, servers, nservers),
	  .help = "Log server, repeatable." },
	{ "log_level", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct conf, log_level),
	  .words = bcn_log_level_names, .def = "info",
	  .help = "Least severe level logged." },
	{ .name = NULL }
};

static void defaults(struct conf *c)
{
	char err[BCN_CFG_ERR_MAX];

	memset(c, 0, sizeof(*c));
	assert_int_equal(bcn_config_defaults(tab, c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static int parse(struct conf *c, const char *text, char *err, size_t errlen)
{
	return bcn_config_parse(tab, c, text, strlen(text), "t.conf", err,
				errlen);
}

static const struct bcn_config_opt *opt(const char *key)
{
	size_t i;

	for (i = 0; tab[i].name; i++) {
		if (strcmp(tab[i].name, key) == 0)
			return &tab[i];
	}
	fail_msg("no option %s", key);
	return NULL;
}

/* The numeric value of a scalar option, whatever its storage. */
static int64_t num_of(const struct conf *c, const char *key)
{
	const struct bcn_config_opt *o = opt(key);
	const char *p = (const char *)c + o->offset;
	bool b;
	int i;
	int64_t v;

	switch (o->size) {
	case sizeof(bool):
		memcpy(&b, p, sizeof(b));
		return b;
	case sizeof(int):
		memcpy(&i, p, sizeof(i));
		return i;
	default:
		memcpy(&v, p, sizeof(v));
		return v;
	}
}

static void test_defaults(void **state)
{
	struct conf c;

	defaults(&c);
	assert_false(c.flag);
	assert_int_equal(c.num, 7);
	assert_int_equal(c.big, 0);
	assert_int_equal(c.port, 6379);
	assert_int_equal(c.bufsize, 64u << 20);
	assert_int_equal(c.interval, 10000);
	assert_int_equal(c.timeout, 1500);
	assert_string_equal(c.name, "beacon");
	assert_int_equal(c.mode, 1);
	assert_string_equal(c.path, "/var/lib/beacon");
	assert_int_equal(c.nservers, 0);
	assert_int_equal(c.log_level, BCN_LOG_INFO);
}

static const struct {
	const char *text;
	const char *key;
	int64_t value;
} good_nums[] = {
	{ "flag = yes", "flag", 1 }, { "flag=on", "flag", 1 },
	{ "flag = TRUE", "flag", 1 }, { "flag = 1", "flag", 1 },
	{ "flag = no", "flag", 0 }, { "flag = Off", "flag", 0 },
	{ "flag = false", "flag", 0 }, { "flag = 0", "flag", 0 },
	{ "num = -100", "num", -100 }, { "num = 100", "num", 100 },
	{ "num = +5", "num", 5 }, { "num = -0", "num", 0 },
	{ "num = 007", "num", 7 },
	{ "  \t num \t=\t 42 \t # trailing comment", "num", 42 },
	{ "num = 3\r\n", "num", 3 }, { "num = 4 #4", "num", 4 },
	{ "# c\n\n   # indented comment\n\t\nnum = 9\n", "num", 9 },
	{ "", "num", 7 }, { "\n\n\n", "num", 7 },
	{ "big = -9223372036854775808", "big", INT64_MIN },
	{ "big = 9223372036854775807", "big", INT64_MAX },
	{ "count = 18446744073709551615", "count", (int64_t)UINT64_MAX },
	{ "redis_port = 1", "redis_port", 1 },
	{ "redis_port = 65535", "redis_port", 65535 },
	{ "bufsize = 4096", "bufsize", 4096 },
	{ "bufsize = 4k", "bufsize", 4096 }, { "bufsize = 4K", "bufsize", 4096 },
	{ "bufsize = 64m", "bufsize", 64 << 20 },
	{ "bufsize = 1G", "bufsize", 1 << 30 },
	{ "bufsize = 1048576K", "bufsize", 1 << 30 },
	{ "interval = 5", "interval", 5000 },
	{ "interval = 1500ms", "interval", 1500 },
	{ "interval = 1s", "interval", 1000 },
	{ "interval = 2m", "interval", 120000 },
	{ "interval = 1h", "interval", 3600000 },
	{ "net.timeout = 0", "net.timeout", 0 },
	{ "net.timeout = 7d", "net.timeout", 7LL * 86400000 },
	{ "net.timeout = 9223372036854775807ms", "net.timeout", INT64_MAX },
	{ "mode = fast", "mode", 0 }, { "mode = PARANOID", "mode", 2 },
	{ "mode = \"safe\"", "mode", 1 },
	{ "log_level = debug", "log_level", BCN_LOG_DEBUG },
	{ "log_level = error", "log_level", BCN_LOG_ERR },
};

static void test_good_numbers(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(good_nums) / sizeof(good_nums[0]); i++) {
		defaults(&c);
		rc = parse(&c, good_nums[i].text, err, sizeof(err));
		if (rc || num_of(&c, good_nums[i].key) != good_nums[i].value)
			fail_msg("case %zu '%s': rc %d err '%s' value %lld",
				 i, good_nums[i].text, rc, err,
				 (long long)num_of(&c, good_nums[i].key));
	}
}

static const struct {
	const char *text;
	const char *name;	/* expected c.name */
} good_strings[] = {
	{ "name = hello world", "hello world" },
	{ "name =   spaced   # comment", "spaced" },
	{ "name = a#b", "a#b" },
	{ "name = a #b", "a" },
	{ "name = a\t#b", "a" },
	{ "name = #all comment", "" },
	{ "name =", "" },
	{ "name=", "" },
	{ "name = \"\"", "" },
	{ "name = \"a # b\"", "a # b" },
	{ "name = \"say \\\"hi\\\"\"", "say \"hi\"" },
	{ "name = \"back\\\\slash\"", "back\\slash" },
	{ "name = back\\slash", "back\\slash" },
	{ "name = \"  pad  \"   # c", "  pad  " },
	{ "name = \"x\"#c", "x" },
	{ "name = it\"s", "it\"s" },
	{ "name = 123456789012345", "123456789012345" },
	{ "name = \"h\xc3\xa9llo\"", "h\xc3\xa9llo" },
	{ "name = \"tab\there\"", "tab\there" },
};

static void test_good_strings(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(good_strings) / sizeof(good_strings[0]); i++) {
		defaults(&c);
		rc = parse(&c, good_strings[i].text, err, sizeof(err));
		if (rc || strcmp(c.name, good_strings[i].name) != 0)
			fail_msg("case %zu '%s': rc %d err '%s' name '%s'", i,
				 good_strings[i].text, rc, err, c.name);
	}
}

static const struct {
	const char *text;
	int rc;
	const char *err;
} bad[] = {
	/* grammar */
	{ "num 1", -BCN_ESYNTAX, "t.conf:1: missing '=' after key 'num'" },
	{ "\nnum", -BCN_ESYNTAX, "t.conf:2: missing '=' after key 'num'" },
	{ "= 1", -BCN_ESYNTAX, "t.conf:1: missing key before '='" },
	{ "Num = 1", -BCN_ESYNTAX, "t.conf:1: expected a key, found 'N'" },
	{ "nUm = 1", -BCN_ESYNTAX,
	  "t.conf:1: invalid character 'U' in key (allowed: a-z 0-9 _ .)" },
	{ "num-x = 1", -BCN_ESYNTAX,
	  "t.conf:1: invalid character '-' in key (allowed: a-z 0-9 _ .)" },
	{ "\"num\" = 1", -BCN_ESYNTAX, "t.conf:1: expected a key, found '\"'" },
	{ "a\n# x\n\n  b = 2", -BCN_ESYNTAX, "t.conf:1: missing '=' after key 'a'" },
	{ "name = \"abc", -BCN_ESYNTAX, "t.conf:1: unterminated quoted value" },
	{ "name = \"abc\\", -BCN_ESYNTAX, "t.conf:1: unterminated quoted value" },
	{ "name = \"abc\\\"", -BCN_ESYNTAX, "t.conf:1: unterminated quoted value" },
	{ "name = \"a\\nb\"", -BCN_ESYNTAX,
	  "t.conf:1: unknown escape '\\n' in quoted value (only \\\" and \\\\)" },
	{ "name = \"abc\" x", -BCN_ESYNTAX,
	  "t.conf:1: unexpected text after the closing quote" },
	{ "name = \"a\" \"b\"", -BCN_ESYNTAX,
	  "t.conf:1: unexpected text after the closing quote" },
	{ "num = 1\nname = a\x01z", -BCN_ESYNTAX,
	  "t.conf:2: control character 0x01 in column 9" },
	{ "num = 1\r\r\n", -BCN_ESYNTAX,
	  "t.conf:1: control character 0x0d in column 8" },
	/* keys */
	{ "\n\n# comment\nredis_prot = 1", -BCN_ESYNTAX,
	  "t.conf:4: unknown key 'redis_prot' (did you mean 'redis_port'?)" },
	{ "colour = red", -BCN_ESYNTAX, "t.conf:1: unknown key 'colour'" },
	{ "num = 1\nflag = yes\r\nnum = 2", -BCN_ESYNTAX,
	  "t.conf:3: duplicate key 'num' (first set on line 1)" },
	{ "name = a\n\n# x\nname = \"a\"", -BCN_ESYNTAX,
	  "t.conf:4: duplicate key 'name' (first set on line 1)" },
	/* bool, enum */
	{ "flag = maybe", -BCN_ESYNTAX,
	  "t.conf:1: invalid bool 'maybe' for 'flag' (yes/no, true/false, on/off, 1/0)" },
	{ "flag = yess", -BCN_ESYNTAX,
	  "t.conf:1: invalid bool 'yess' for 'flag' (yes/no, true/false, on/off, 1/0)" },
	{ "flag =", -BCN_ESYNTAX, "t.conf:1: missing value for 'flag'" },
	{ "mode = turbo", -BCN_ESYNTAX,
	  "t.conf:1: invalid value 'turbo' for 'mode' (one of: fast, safe, paranoid)" },
	{ "log_level = verbose", -BCN_ESYNTAX,
	  "t.conf:1: invalid value 'verbose' for 'log_level' (one of: error, warning, notice, info, debug)" },
	/* int */
	{ "num = 101", -BCN_ERANGE,
	  "t.conf:1: value '101' for 'num' out of range (-100 .. 100)" },
	{ "num = -101", -BCN_ERANGE,
	  "t.conf:1: value '-101' for 'num' out of range (-100 .. 100)" },
	{ "num = 99999999999999999999", -BCN_ERANGE,
	  "t.conf:1: value '99999999999999999999' for 'num' out of range (-100 .. 100)" },
	{ "num = 1x", -BCN_ESYNTAX, "t.conf:1: invalid integer '1x' for 'num'" },
	{ "num = 4#x", -BCN_ESYNTAX, "t.conf:1: invalid integer '4#x' for 'num'" },
	{ "num = 1 2", -BCN_ESYNTAX, "t.conf:1: invalid integer '1 2' for 'num'" },
	{ "num = 0x10", -BCN_ESYNTAX, "t.conf:1: invalid integer '0x10' for 'num'" },
	{ "num = -", -BCN_ESYNTAX, "t.conf:1: invalid integer '-' for 'num'" },
	{ "num = ", -BCN_ESYNTAX, "t.conf:1: missing value for 'num'" },
	{ "num = \"\"", -BCN_ESYNTAX, "t.conf:1: missing value for 'num'" },
	{ "big = 9223372036854775808", -BCN_ERANGE,
	  "t.conf:1: value '9223372036854775808' for 'big' out of range "
	  "(-9223372036854775808 .. 9223372036854775807)" },
	{ "big = -9223372036854775809", -BCN_ERANGE,
	  "t.conf:1: value '-9223372036854775809' for 'big' out of range "
	  "(-9223372036854775808 .. 9223372036854775807)" },
	/* uint */
	{ "count = -1", -BCN_ESYNTAX,
	  "t.conf:1: invalid uint '-1' for 'count' (expected digits only)" },
	{ "count = +1", -BCN_ESYNTAX,
	  "t.conf:1: invalid uint '+1' for 'count' (expected digits only)" },
	{ "count = 18446744073709551616", -BCN_ERANGE,
	  "t.conf:1: value '18446744073709551616' for 'count' out of range "
	  "(0 .. 18446744073709551615)" },
	{ "redis_port = 0", -BCN_ERANGE,
	  "t.conf:1: value '0' for 'redis_port' out of range (1 .. 65535)" },
	{ "redis_port = 70000", -BCN_ERANGE,
	  "t.conf:1: value '70000' for 'redis_port' out of range (1 .. 65535)" },
	{ "redis_port = 1k", -BCN_ESYNTAX,
	  "t.conf:1: invalid uint '1k' for 'redis_port' (expected digits only)" },
	/* size */
	{ "bufsize = 4095", -BCN_ERANGE,
	  "t.conf:1: value '4095' for 'bufsize' out of range (4K .. 1G)" },
	{ "bufsize = 2G", -BCN_ERANGE,
	  "t.conf:1: value '2G' for 'bufsize' out of range (4K .. 1G)" },
	{ "bufsize = 99999999999T", -BCN_ERANGE,
	  "t.conf:1: value '99999999999T' for 'bufsize' out of range (4K .. 1G)" },
	{ "bufsize = 64X", -BCN_ESYNTAX,
	  "t.conf:1: invalid size '64X' for 'bufsize' (a number with an optional unit K, M, G or T)" },
	{ "bufsize = 64 M", -BCN_ESYNTAX,
	  "t.conf:1: invalid size '64 M' for 'bufsize' (a number with an optional unit K, M, G or T)" },
	{ "bufsize = 64MB", -BCN_ESYNTAX,
	  "t.conf:1: invalid size '64MB' for 'bufsize' (a number with an optional unit K, M, G or T)" },
	{ "bufsize = M", -BCN_ESYNTAX,
	  "t.conf:1: invalid size 'M' for 'bufsize' (a number with an optional unit K, M, G or T)" },
	/* duration */
	{ "interval = 999ms", -BCN_ERANGE,
	  "t.conf:1: value '999ms' for 'interval' out of range (1s .. 1h)" },
	{ "interval = 61m", -BCN_ERANGE,
	  "t.conf:1: value '61m' for 'interval' out of range (1s .. 1h)" },
	{ "interval = 0", -BCN_ERANGE,
	  "t.conf:1: value '0' for 'interval' out of range (1s .. 1h)" },
	{ "interval = 5M", -BCN_ESYNTAX,
	  "t.conf:1: invalid duration '5M' for 'interval' (a number with an optional unit ms, s, m, h or d)" },
	{ "interval = 1.5s", -BCN_ESYNTAX,
	  "t.conf:1: invalid duration '1.5s' for 'interval' (a number with an optional unit ms, s, m, h or d)" },
	{ "interval = -5", -BCN_ESYNTAX,
	  "t.conf:1: invalid duration '-5' for 'interval' (a number with an optional unit ms, s, m, h or d)" },
	{ "net.timeout = 106751991167301d", -BCN_ERANGE,
	  "t.conf:1: value '106751991167301d' for 'net.timeout' out of range "
	  "(0 .. 9223372036854775807ms)" },
	{ "net.timeout = 9223372036854775808ms", -BCN_ERANGE,
	  "t.conf:1: value '9223372036854775808ms' for 'net.timeout' out of range "
	  "(0 .. 9223372036854775807ms)" },
	/* strings */
	{ "name = 1234567890123456", -BCN_ERANGE,
	  "t.conf:1: value for 'name' too long (16 bytes, at most 15)" },
	{ "path =", -BCN_ERANGE,
	  "t.conf:1: value for 'path' too short (0 bytes, at least 1)" },
	/* lists */
	{ "server = a\nserver = b\nserver = c\nserver = d\nserver = e",
	  -BCN_EFULL, "t.conf:5: too many values for 'server' (at most 4)" },
	{ "server = 123456789012345678901234567890123", -BCN_ERANGE,
	  "t.conf:1: value for 'server' too long (33 bytes, at most 31)" },
};

static void test_bad_lines(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c, before;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		defaults(&c);
		memcpy(&before, &c, sizeof(c));
		rc = parse(&c, bad[i].text, err, sizeof(err));
		if (rc != bad[i].rc || strcmp(err, bad[i].err) != 0)
			fail_msg("case %zu: rc %d (want %d)\n got  '%s'\n want '%s'",
				 i, rc, bad[i].rc, err, bad[i].err);
		/* all or nothing: a failed parse leaves the object alone */
		assert_memory_equal(&c, &before, sizeof(c));
	}
}

static void test_special_inputs(void **state)
{
	char err[BCN_CFG_ERR_MAX], line[BCN_CFG_LINE_MAX + 64];
	static const char nul[] = "num = 5\nname = a\0b\n";
	struct conf c;

	/* embedded NUL, no terminating NUL needed */
	defaults(&c);
	assert_int_equal(bcn_config_parse(tab, &c, nul, sizeof(nul) - 1, "n",
					  err, sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "n:2: control character 0x00 in column 9");
	assert_int_equal(bcn_config_parse(tab, &c, nul, 7, "n", err,
					  sizeof(err)), 0);
	assert_int_equal(c.num, 5);
	defaults(&c);
	assert_int_equal(bcn_config_parse(tab, &c, "num = 12345", 7, "n", err,
					  sizeof(err)), 0);
	assert_int_equal(c.num, 1);

	/* line length limit: exactly the limit passes, one more fails */
	defaults(&c);
	memset(line, ' ', sizeof(line));
	memcpy(line, "num = 3", 7);
	assert_int_equal(bcn_config_parse(tab, &c, line, BCN_CFG_LINE_MAX, "l",
					  err, sizeof(err)), 0);
	assert_int_equal(bcn_config_parse(tab, &c, line, BCN_CFG_LINE_MAX + 1,
					  "l", err, sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "l:1: line too long (more than 4096 bytes)");

	/* key length limit */
	memset(line, 'k', 65);
	memcpy(line + 65, " = 1", 5);
	assert_int_equal(parse(&c, line, err, sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "t.conf:1: key too long (at most 64 bytes)");

	/* NULL buffer with length 0 is an empty file; NULL source name */
	assert_int_equal(bcn_config_parse(tab, &c, NULL, 0, NULL, err,
					  sizeof(err)), 0);
	assert_int_equal(bcn_config_parse(tab, &c, "x=1", 3, NULL, err,
					  sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "<config>:1: unknown key 'x'");
	assert_int_equal(bcn_config_parse(tab, NULL, "", 0, NULL, err,
					  sizeof(err)), -EINVAL);

	/* errors are cut to the buffer and always terminated; NULL is fine */
	assert_int_equal(parse(&c, "colour = red", err, 8), -BCN_ESYNTAX);
	assert_string_equal(err, "t.conf:");
	assert_int_equal(parse(&c, "colour = red", NULL, 0), -BCN_ESYNTAX);

	/* a bad value is shown escaped and cut */
	assert_int_equal(parse(&c, "mode = \"\xff\xfe" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
			       err, sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "t.conf:1: invalid value '\\xff\\xfe"
			    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' for 'mode' "
			    "(one of: fast, safe, paranoid)");
}

static void test_lists(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c;

	defaults(&c);
	assert_int_equal(parse(&c, "server = a:1\nnum = 2\nserver = \"b #2\"",
			       err, sizeof(err)), 0);
	assert_int_equal(c.nservers, 2);
	assert_string_equal(c.servers[0], "a:1");
	assert_string_equal(c.servers[1], "b #2");

	/* a second source replaces the list instead of appending */
	assert_int_equal(parse(&c, "server = c", err, sizeof(err)), 0);
	assert_int_equal(c.nservers, 1);
	assert_string_equal(c.servers[0], "c");

	/* a source that does not mention the list keeps it */
	assert_int_equal(parse(&c, "num = 3", err, sizeof(err)), 0);
	assert_int_equal(c.nservers, 1);

	/* an empty unquoted value empties it, a quoted one is an element */
	assert_int_equal(parse(&c, "server =", err, sizeof(err)), 0);
	assert_int_equal(c.nservers, 0);
	assert_int_equal(parse(&c, "server = x\nserver =\nserver = \"\"\n",
			       err, sizeof(err)), 0);
	assert_int_equal(c.nservers, 1);
	assert_string_equal(c.servers[0], "");

	/* four fit; the clear resets the count */
	assert_int_equal(parse(&c, "server = 1\nserver = 2\nserver = 3\n"
			       "server =\nserver = 1\nserver = 2\nserver = 3\n"
			       "server = 4", err, sizeof(err)), 0);
	assert_int_equal(c.nservers, 4);
	assert_string_equal(c.servers[3], "4");

	/* bcn_config_set appends, "" empties */
	assert_int_equal(bcn_config_set(tab, &c, "server", "5", err,
					sizeof(err)), -BCN_EFULL);
	assert_string_equal(err, "option 'server': too many values for 'server' (at most 4)");
	assert_int_equal(bcn_config_set(tab, &c, "server", "", err,
					sizeof(err)), 0);
	assert_int_equal(c.nservers, 0);
	assert_int_equal(bcn_config_set(tab, &c, "server", "s1", err,
					sizeof(err)), 0);
	assert_int_equal(bcn_config_set(tab, &c, "server", "s2", err,
					sizeof(err)), 0);
	assert_int_equal(c.nservers, 2);
	assert_string_equal(c.servers[1], "s2");
}

static void test_set(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c;

	defaults(&c);
	assert_int_equal(bcn_config_set(tab, &c, "interval", "5", err,
					sizeof(err)), 0);
	assert_int_equal(c.interval, 5000);
	assert_int_equal(bcn_config_set(tab, &c, "name", "a \"quoted\" # x",
					err, sizeof(err)), 0);
	assert_string_equal(c.name, "a \"quoted\" # x");
	assert_int_equal(bcn_config_set(tab, &c, "num", "101", err,
					sizeof(err)), -BCN_ERANGE);
	assert_string_equal(err, "option 'num': value '101' for 'num' out of range (-100 .. 100)");
	assert_int_equal(c.num, 7);
	assert_int_equal(bcn_config_set(tab, &c, "intervall", "5", err,
					sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "unknown option 'intervall' (did you mean 'interval'?)");
	assert_int_equal(bcn_config_set(tab, &c, "name", "a\nb", err,
					sizeof(err)), -BCN_ESYNTAX);
	assert_string_equal(err, "option 'name': control character 0x0a in value for 'name'");
	assert_string_equal(c.name, "a \"quoted\" # x");
	assert_int_equal(bcn_config_set(tab, &c, "num", NULL, err,
					sizeof(err)), -EINVAL);
}

static void test_bad_tables(void **state)
{
	struct conf c;
	char err[BCN_CFG_ERR_MAX];
	static const char *const empty[] = { NULL };
	static const char *const spaced[] = { "a b", NULL };
	static const struct {
		struct bcn_config_opt o;
		const char *err;
	} cases[] = {
		{ { "n", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, mode) },
		  "config table: option 'n': storage size does not match the type" },
		{ { "n", BCN_CFG_BOOL, BCN_CFG_MEMBER(struct conf, num) },
		  "config table: option 'n': storage size does not match the type" },
		{ { "N", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, num) },
		  "config table: bad option name 'N'" },
		{ { "", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, num) },
		  "config table: bad option name ''" },
		{ { "n", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, num),
		    .min = 5, .max = 1 },
		  "config table: option 'n': min is greater than max" },
		{ { "n", BCN_CFG_SIZE, BCN_CFG_MEMBER(struct conf, bufsize),
		    .min = -1, .max = 1 },
		  "config table: option 'n': negative min for an unsigned type" },
		{ { "n", BCN_CFG_INT, BCN_CFG_MEMBER(struct conf, num),
		    .min = 1, .max = 5, .def = "6" },
		  "config table: default of 'n': value '6' for 'n' out of range (1 .. 5)" },
		{ { "n", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct conf, mode) },
		  "config table: option 'n': enum without words" },
		{ { "n", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct conf, mode),
		    .words = empty },
		  "config table: option 'n': enum without words" },
		{ { "n", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct conf, mode),
		    .words = spaced },
		  "config table: option 'n': enum word with characters other than [A-Za-z0-9_.:+-]" },
		{ { "config", BCN_CFG_PATH, BCN_CFG_MEMBER(struct conf, path) },
		  "config table: option 'config': name reserved for the command line" },
		{ { "n", BCN_CFG_STRING, BCN_CFG_MEMBER(struct conf, name),
		    .flags = 0x80 },
		  "config table: option 'n': unknown flags" },
		{ { "n", BCN_CFG_STRING, BCN_CFG_MEMBER(struct conf, name),
		    .flags = BCN_CFG_LIST },
		  "config table: option 'n': list without capacity" },
		{ { "n", 42, BCN_CFG_MEMBER(struct conf, name) },
		  "config table: option 'n': unknown type" },
	};
	struct bcn_config_opt t[3];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(t, 0, sizeof(t));
		t[0] = cases[i].o;
		assert_int_equal(bcn_config_defaults(t, &c, err, sizeof(err)),
				 -EINVAL);
		if (strcmp(err, cases[i].err) != 0)
			fail_msg("case %zu: got '%s'", i, err);
		assert_int_equal(bcn_config_parse(t, &c, "", 0, "x", err,
						  sizeof(err)), -EINVAL);
	}
	memset(t, 0, sizeof(t));
	t[0] = tab[0];
	t[1] = tab[0];
	assert_int_equal(bcn_config_parse(t, &c, "", 0, "x", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "config table: option 'flag': defined twice");
	assert_int_equal(bcn_config_defaults(NULL, &c, err, sizeof(err)),
			 -EINVAL);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_load(void **state)
{
	char dir[] = "/tmp/bcn_config_test_XXXXXX", path[128], err[512];
	static const char text[] = "# test\nnum = -3\nmode = fast\n";
	struct conf c;
	char *big;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	write_file(path, text, sizeof(text) - 1);
	defaults(&c);
	assert_int_equal(bcn_config_load(tab, &c, path, err, sizeof(err)), 0);
	assert_int_equal(c.num, -3);
	assert_int_equal(c.mode, 0);

	write_file(path, "num = 1\nnmu = 2\n", 16);
	assert_int_equal(bcn_config_load(tab, &c, path, err, sizeof(err)),
			 -BCN_ESYNTAX);
	assert_non_null(strstr(err, "/a.conf:2: unknown key 'nmu' (did you mean 'num'?)"));
	assert_int_equal(c.num, -3);

	big = malloc(BCN_CFG_FILE_MAX + 1);
	assert_non_null(big);
	memset(big, '\n', BCN_CFG_FILE_MAX + 1);
	write_file(path, big, BCN_CFG_FILE_MAX);
	assert_int_equal(bcn_config_load(tab, &c, path, err, sizeof(err)), 0);
	write_file(path, big, BCN_CFG_FILE_MAX + 1);
	assert_int_equal(bcn_config_load(tab, &c, path, err, sizeof(err)),
			 -BCN_EFULL);
	assert_non_null(strstr(err, "a.conf: larger than 1048576 bytes"));
	free(big);
	unlink(path);

	assert_int_equal(bcn_config_load(tab, &c, path, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "a.conf: No such file or directory"));
	assert_int_equal(rmdir(dir), 0);
}

static void dump(const struct conf *c, struct bcn_buf *b)
{
	bcn_buf_init(b, 1 << 16);
	assert_int_equal(bcn_config_dump(tab, c, b), 0);
	assert_int_equal(bcn_buf_add(b, "", 1), 0);
}

static void test_dump_defaults(void **state)
{
	struct conf c;
	struct bcn_buf b;

	defaults(&c);
	dump(&c, &b);
	assert_string_equal((char *)b.data,
		"flag = no\n"
		"num = 7\n"
		"big = 0\n"
		"count = 0\n"
		"redis_port = 6379\n"
		"bufsize = 64M\n"
		"interval = 10s\n"
		"net.timeout = 1500ms\n"
		"name = \"beacon\"\n"
		"mode = safe\n"
		"path = \"/var/lib/beacon\"\n"
		"server =\n"
		"log_level = info\n");
	bcn_buf_free(&b);
}

static void test_dump_round_trip(void **state)
{
	static const char text[] =
		"flag = yes\nnum = -100\nbig = -9223372036854775808\n"
		"count = 18446744073709551615\nredis_port = 65535\n"
		"bufsize = 1025K\ninterval = 3599999ms\nnet.timeout = 90m\n"
		"name = \"q\\\"\\\\ #\t x \"\nmode = paranoid\n"
		"path = \"/a b/#c\"\nserver = \"\"\nserver = two\n"
		"server = \" three \"\nlog_level = warning\n";
	char err[BCN_CFG_ERR_MAX];
	struct conf a, b;
	struct bcn_buf da, db;

	defaults(&a);
	assert_int_equal(parse(&a, text, err, sizeof(err)), 0);
	assert_string_equal(a.name, "q\"\\ #\t x ");
	assert_int_equal(a.bufsize, 1025 * 1024);
	dump(&a, &da);
	assert_non_null(strstr((char *)da.data, "bufsize = 1025K\n"));
	assert_non_null(strstr((char *)da.data, "interval = 3599999ms\n"));
	assert_non_null(strstr((char *)da.data, "net.timeout = 90m\n"));
	assert_non_null(strstr((char *)da.data, "name = \"q\\\"\\\\ #\t x \"\n"));

	defaults(&b);
	assert_int_equal(bcn_config_parse(tab, &b, (char *)da.data, da.len - 1,
					  "dump", err, sizeof(err)), 0);
	dump(&b, &db);
	assert_string_equal((char *)da.data, (char *)db.data);
	assert_int_equal(a.big, b.big);
	assert_int_equal(a.count, b.count);
	assert_string_equal(a.name, b.name);
	assert_int_equal(b.nservers, 3);
	assert_string_equal(b.servers[2], " three ");
	bcn_buf_free(&db);

	/* an empty list with a non-empty default survives the round trip */
	a.nservers = 0;
	bcn_buf_free(&da);
	dump(&a, &da);
	defaults(&b);
	assert_int_equal(bcn_config_set(tab, &b, "server", "x", err,
					sizeof(err)), 0);
	assert_int_equal(bcn_config_parse(tab, &b, (char *)da.data, da.len - 1,
					  "dump", err, sizeof(err)), 0);
	assert_int_equal(b.nservers, 0);
	bcn_buf_free(&da);

	/* values no file can hold are refused */
	a.mode = 3;
	bcn_buf_init(&da, 4096);
	assert_int_equal(bcn_config_dump(tab, &a, &da), -EINVAL);
	a.mode = 0;
	a.name[0] = '\n';
	bcn_buf_reset(&da);
	assert_int_equal(bcn_config_dump(tab, &a, &da), -EINVAL);
	bcn_buf_free(&da);
	bcn_buf_init(&da, 16);
	assert_int_equal(bcn_config_dump(tab, &b, &da), -BCN_EFULL);
	bcn_buf_free(&da);
}

static void test_help(void **state)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	char want[128];

	assert_non_null(f);
	bcn_config_help(tab, f);
	assert_int_equal(fclose(f), 0);
	for (i = 0; tab[i].name; i++) {
		const char *p;

		snprintf(want, sizeof(want), "key: %s;", tab[i].name);
		p = strstr(text, want);
		if (!p)
			fail_msg("help lacks '%s':\n%s", want, text);
		if (!strstr(text, tab[i].help))
			fail_msg("help lacks '%s'", tab[i].help);
	}
	assert_non_null(strstr(text, "  --config FILE\n"));
	assert_non_null(strstr(text, "  --dump-config\n"));
	assert_non_null(strstr(text, "  -h, --help\n"));
	assert_non_null(strstr(text, "  --flag, --no-flag\n      A switch.\n"
			       "      key: flag; bool; default: no\n"));
	assert_non_null(strstr(text, "  --redis-port N\n      Redis port.\n"
			       "      key: redis_port; uint, 1 .. 65535; default: 6379\n"));
	assert_non_null(strstr(text, "  --bufsize SIZE\n      Buffer size.\n"
			       "      key: bufsize; size, 4K .. 1G; default: 64M\n"));
	assert_non_null(strstr(text, "  --interval DURATION\n"
			       "      Sampling interval.\n"
			       "      key: interval; duration, 1s .. 1h; default: 10s\n"));
	assert_non_null(strstr(text, "  --num INT\n      A bounded integer.\n"
			       "      key: num; int, -100 .. 100; default: 7\n"));
	assert_non_null(strstr(text, "  --mode WORD\n      Write mode.\n"
			       "      key: mode; enum, one of: fast, safe, paranoid; default: safe\n"));
	assert_non_null(strstr(text, "  --server STRING\n"
			       "      Log server, repeatable.\n"
			       "      key: server; string, at most 31 bytes; "
			       "repeatable, up to 4 values; default: none\n"));
	assert_non_null(strstr(text, "  --net.timeout DURATION\n"));
	assert_non_null(strstr(text, "key: big; int; default: 0\n"));
	free(text);
}

static int getopt_run(struct conf *c, char *err, int *argi, int argc, ...)
{
	char *argv[32];
	va_list ap;
	int i;

	assert_true(argc < 32);
	argv[0] = "prog";
	va_start(ap, argc);
	for (i = 1; i <= argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc + 1] = NULL;
	memset(c, 0x5a, sizeof(*c));	/* getopt applies the defaults */
	return bcn_config_getopt(tab, c, argc + 1, argv, argi, err,
				 BCN_CFG_ERR_MAX);
}

static void test_getopt(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c;
	int argi = -1;

	assert_int_equal(getopt_run(&c, err, &argi, 0), 0);
	assert_int_equal(argi, 1);
	assert_int_equal(c.num, 7);
	assert_string_equal(c.name, "beacon");

	assert_int_equal(getopt_run(&c, err, &argi, 9, "--num", "-5",
				    "--log-level=debug", "--flag", "--interval",
				    "2m", "--net.timeout=3s", "file1", "--name"),
			 0);
	assert_int_equal(argi, 8);	/* operands start at "file1" */
	assert_int_equal(c.num, -5);
	assert_int_equal(c.log_level, BCN_LOG_DEBUG);
	assert_true(c.flag);
	assert_int_equal(c.interval, 120000);
	assert_int_equal(c.timeout, 3000);
	assert_string_equal(c.name, "beacon");

	assert_int_equal(getopt_run(&c, err, &argi, 4, "--flag=yes", "--no-flag",
				    "--", "--num"), -BCN_ESYNTAX);
	assert_string_equal(err, "option '--no-flag': given twice");
	assert_int_equal(getopt_run(&c, err, &argi, 4, "--flag=on",
				    "--redis_port", "80", "--"), 0);
	assert_int_equal(argi, 5);
	assert_int_equal(c.port, 80);
	assert_true(c.flag);
	assert_int_equal(getopt_run(&c, err, &argi, 2, "--no-flag", "-"), 0);
	assert_false(c.flag);
	assert_int_equal(argi, 2);

	/* --help wins, --dump-config is reported after applying all */
	assert_int_equal(getopt_run(&c, err, NULL, 3, "--num", "1", "--help"),
			 BCN_CONFIG_HELP);
	assert_int_equal(getopt_run(&c, err, NULL, 1, "-h"), BCN_CONFIG_HELP);
	assert_int_equal(getopt_run(&c, err, &argi, 3, "--dump-config", "--num",
				    "1"), BCN_CONFIG_DUMP);
	assert_int_equal(c.num, 1);
}

static void test_getopt_errors(void **state)
{
	char err[BCN_CFG_ERR_MAX];
	struct conf c;

	assert_int_equal(getopt_run(&c, err, NULL, 2, "--intervall", "5"),
			 -BCN_ESYNTAX);
	assert_string_equal(err, "unknown option '--intervall' (did you mean '--interval'?)");
	assert_int_equal(getopt_run(&c, err, NULL, 1, "--redis-prot=1"),
			 -BCN_ESYNTAX);
	assert_string_equal(err, "unknown option '--redis-prot' (did you mean '--redis-port'?)");
	assert_int_equal(getopt_run(&c, err, NULL, 1, "--num"), -BCN_ESYNTAX);
	assert_string_equal(err, "option '--num' needs a value");
	assert_int_equal(getopt_run(&c, err, NULL, 1, "-x"), -BCN_ESYNTAX);
	assert_string_equal(err, "unknown option '-x'");
	assert_int_equal(getopt_run(&c, err, NULL, 1, "--no-num"), -BCN_ESYNTAX);
	assert_string_equal(err, "unknown option '--no-num'");
	assert_int_equal(getopt_run(&c, err, NULL, 1, "--no-flag=yes"),
			 -BCN_ESYNTAX);
	assert_string_equal(err, "option '--no-flag' takes no value");
	assert_int_equal(getopt_run(&c, err, NULL, 2, "--num", "500"),
			 -BCN_ERANGE);
	assert_string_equal(err, "option '--num': value '500' for 'num' out of range (-100 .. 100)");
	assert_int_equal(getopt_run(&c, err, NULL, 4, "--num", "1", "--num=2",
				    "x"), -BCN_ESYNTAX);
	assert_string_equal(err, "option '--num': given twice");
}

static void test_getopt_config(void **state)
{
	char dir[] = "/tmp/bcn_getopt_test_XXXXXX", path[128];
	char err[BCN_CFG_ERR_MAX];
	static const char text[] =
		"num = 50\nname = fromfile\nserver = f1\nserver = f2\n";
	struct conf c;
	int argi = -1;

	/* --config first, then the overrides, whatever their order */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	write_file(path, text, sizeof(text) - 1);
	assert_int_equal(getopt_run(&c, err, &argi, 5, "--server", "c1",
				    "--num=-1", "--config", path), 0);
	assert_int_equal(c.num, -1);
	assert_string_equal(c.name, "fromfile");
	assert_int_equal(c.nservers, 1);	/* the command line replaces */
	assert_string_equal(c.servers[0], "c1");
	assert_int_equal(getopt_run(&c, err, &argi, 1, "--config"), -BCN_ESYNTAX);
	assert_string_equal(err, "option '--config' needs a value");
	assert_int_equal(getopt_run(&c, err, &argi, 2, "--config=/nonexistent/x",
				    "--num=1"), -ENOENT);
	assert_string_equal(err, "/nonexistent/x: No such file or directory");
	write_file(path, "num = 1\nnum = 2\n", 16);
	assert_int_equal(getopt_run(&c, err, &argi, 2, "--config", path),
			 -BCN_ESYNTAX);
	assert_non_null(strstr(err, "b.conf:2: duplicate key 'num' (first set on line 1)"));
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_good_numbers),
		cmocka_unit_test(test_good_strings),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_special_inputs),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_dump_defaults),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_getopt),
		cmocka_unit_test(test_getopt_errors),
		cmocka_unit_test(test_getopt_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
