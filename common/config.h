/* Declarative configuration shared by every beacon program (after Redis's
 * config table): each program describes its options once, in a table of
 * struct bcn_config_opt, and gets from it defaults, a parser for the one
 * "key = value" file format (docs/config.md), command-line overrides,
 * a generated --help section and a dump of the effective configuration
 * that parses back. */
#ifndef BCN_CONFIG_H
#define BCN_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"

#define BCN_CFG_KEY_MAX 64		/* longest key, in bytes */
#define BCN_CFG_LINE_MAX 4096		/* longest line, in bytes */
#define BCN_CFG_MAX_OPTS 256		/* options in one table */
#define BCN_CFG_FILE_MAX (1024 * 1024)	/* largest file bcn_config_load reads */
#define BCN_CFG_ERR_MAX 256		/* a good size for error buffers */

/* Value types and the C type each stores at opt->offset. */
enum bcn_config_type {
	BCN_CFG_BOOL,		/* bool: yes/no, true/false, on/off, 1/0 */
	BCN_CFG_INT,		/* int64_t, optional sign */
	BCN_CFG_UINT,		/* uint64_t */
	BCN_CFG_SIZE,		/* uint64_t bytes; suffix k/K, M, G, T = 2^10.. */
	BCN_CFG_DURATION,	/* int64_t milliseconds; ms, s, m, h, d; bare = s */
	BCN_CFG_STRING,		/* char[size], NUL-terminated */
	BCN_CFG_ENUM,		/* int: index of the word in opt->words */
	BCN_CFG_PATH,		/* char[size], NUL-terminated */
};

/* opt->flags */
#define BCN_CFG_LIST 0x1	/* repeatable: lines append to an array */

/* One option. Unused fields are zero; designated initializers and the
 * BCN_CFG_MEMBER / BCN_CFG_LIST_MEMBER macros keep tables short:
 *
 *	static const char *const modes[] = { "fast", "safe", NULL };
 *	static const struct bcn_config_opt tab[] = {
 *		{ "interval", BCN_CFG_DURATION, BCN_CFG_MEMBER(struct conf, iv),
 *		  .min = 1000, .max = 3600000, .def = "10s",
 *		  .help = "Sampling interval." },
 *		{ "mode", BCN_CFG_ENUM, BCN_CFG_MEMBER(struct conf, mode),
 *		  .words = modes, .def = "safe", .help = "Write mode." },
 *		{ "server", BCN_CFG_STRING,
 *		  BCN_CFG_LIST_MEMBER(struct conf, servers, nservers),
 *		  .help = "Log server host:port, repeatable." },
 *		{ .name = NULL }
 *	};
 */
struct bcn_config_opt {
	const char *name;		/* key: [a-z0-9_.], at most KEY_MAX */
	enum bcn_config_type type;
	size_t offset;			/* of the value (list: element 0) */
	size_t size;			/* sizeof the value (list: one element) */
	int64_t min, max;		/* bounds, see below */
	const char *def;		/* default in file syntax; NULL: zero */
	const char *help;		/* one sentence for --help */
	unsigned flags;			/* BCN_CFG_LIST */
	const char *const *words;	/* ENUM: allowed words, NULL-ended */
	size_t count_offset;		/* LIST: offset of the size_t count */
	size_t max_count;		/* LIST: capacity of the array */
};

/* Bounds (min, max), inclusive, both 0 meaning "the type's full range":
 * INT: values; UINT, SIZE: values (max <= INT64_MAX); DURATION:
 * milliseconds (full range 0 .. INT64_MAX); STRING, PATH: min is the least
 * length in bytes (max is ignored, size - 1 is the longest);
 * BOOL, ENUM: ignored. */

#define BCN_CFG_MEMBER(type, field) \
	.offset = offsetof(type, field), \
	.size = sizeof(((type *)0)->field)

#define BCN_CFG_LIST_MEMBER(type, field, count) \
	.offset = offsetof(type, field), \
	.size = sizeof(((type *)0)->field[0]), \
	.flags = BCN_CFG_LIST, \
	.count_offset = offsetof(type, count), \
	.max_count = sizeof(((type *)0)->field) / sizeof(((type *)0)->field[0])

/* bcn_config_getopt results besides 0 and negative codes. */
#define BCN_CONFIG_HELP 1	/* --help or -h: print usage, exit 0 */
#define BCN_CONFIG_DUMP 2	/* --dump-config: print the dump, exit 0 */

/* Every function below checks the table first (names, types, sizes,
 * bounds, defaults' syntax) and fails with -EINVAL and a message starting
 * "config table:" when it is wrong. Error messages go to err (errlen bytes,
 * always NUL-terminated; err may be NULL). */

/* Sets every option of tab in obj to its default (lists get the default as
 * their single element, or no element when def is NULL).
 * Returns 0 or a negative code. */
int bcn_config_defaults(const struct bcn_config_opt *tab, void *obj,
			char *err, size_t errlen);

/* Parses a configuration text of len bytes (no NUL needed) and stores
 * every value it sets in obj; options it does not mention keep their
 * value. All or nothing: on error obj is unchanged. Errors read
 * "source_name:LINE: message", e.g. "beacon.conf:12: unknown key
 * 'redis_prot' (did you mean 'redis_port'?)". A key may appear once (a
 * repeat is an error naming both lines) unless it is a list: the first
 * line of a list replaces its previous elements, later lines append.
 * Returns 0, -BCN_ESYNTAX (grammar, unknown or repeated key, bad word),
 * -BCN_ERANGE (out of bounds, too long), -BCN_EFULL (too many list
 * elements) or -EINVAL (bad table). */
int bcn_config_parse(const struct bcn_config_opt *tab, void *obj,
		     const char *buf, size_t len, const char *source_name,
		     char *err, size_t errlen);

/* As bcn_config_parse, but only the lines "key = ..." whose key starts
 * with prefix (or one of several, separated by commas: "store_,jobdb_")
 * are read: a program's file holds another part's keys too
 * (the store_* or jobdb_* keys of any beacon configuration). Other lines
 * are skipped whole, line numbers kept. */
int bcn_config_parse_prefix(const struct bcn_config_opt *tab, void *obj,
			    const char *buf, size_t len, const char *prefix,
			    const char *source_name, char *err, size_t errlen);

/* Reads the file at path and parses it with bcn_config_parse_prefix. */
int bcn_config_load_prefix(const struct bcn_config_opt *tab, void *obj,
			   const char *path, const char *prefix, char *err,
			   size_t errlen);

/* Reads the file at path (at most BCN_CFG_FILE_MAX bytes) and parses it
 * with bcn_config_parse, the path as the source name. Returns 0, a parse
 * error, -BCN_EFULL for a larger file or -errno. */
int bcn_config_load(const struct bcn_config_opt *tab, void *obj,
		    const char *path, char *err, size_t errlen);

/* Sets one option from a command-line style value (no quotes or comments:
 * the value is taken as is). A list gets the value appended; an empty
 * value empties it. Errors read "option 'name': message".
 * Returns 0 or a negative code as bcn_config_parse. */
int bcn_config_set(const struct bcn_config_opt *tab, void *obj,
		   const char *name, const char *value, char *err,
		   size_t errlen);

/* The main() helper. Applies, in this order: the defaults; the file of
 * "--config FILE" (if given); every "--key value" or "--key=value"
 * override, where '-' in key equals '_' ("--log-level debug" sets
 * log_level). A bool takes no separate value: "--key" sets yes, "--no-key"
 * sets no, "--key=no" also works. An option may be given once, except a
 * list, whose first occurrence replaces the file's elements. Scanning
 * stops at "--" or the first argument not starting with "--"; *argi (may
 * be NULL) gets the index of the first argument not consumed.
 * Returns 0, BCN_CONFIG_HELP for "--help"/"-h", BCN_CONFIG_DUMP for
 * "--dump-config" (after everything else was applied), or a negative code
 * with err set. argv[0] is skipped. */
int bcn_config_getopt(const struct bcn_config_opt *tab, void *obj,
		      int argc, char *const argv[], int *argi,
		      char *err, size_t errlen);

/* Writes the generated options section of --help to out: for the
 * built-in --config, --dump-config, --help, then for each option its
 * command-line and file names, type, bounds, default and help text. */
void bcn_config_help(const struct bcn_config_opt *tab, FILE *out);

/* Appends the effective configuration to out as "key = value" lines that
 * bcn_config_parse reads back to the same values (sizes and durations in
 * their largest exact unit, strings quoted, a list one line per element,
 * an empty list as "key ="). Returns 0, -BCN_EFULL/-ENOMEM from the
 * buffer, or -EINVAL for a bad table or a stored value no file can hold
 * (enum index out of range, control characters in a string). */
int bcn_config_dump(const struct bcn_config_opt *tab, const void *obj,
		    struct bcn_buf *out);

#endif
